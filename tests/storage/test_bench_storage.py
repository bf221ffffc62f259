"""``benchmarks/bench_storage.py`` keeps working: a tiny run plays every move it is asked for
and prints its figures (timings are printed, not judged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_storage import bench


async def test_bench_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    await bench(
        games=4,
        moves=40,
        synchronous="NORMAL",
        directory=str(tmp_path),
        readers=2,
        starts=8,
        busy_ms=0.5,
    )
    printed = capsys.readouterr().out
    assert "4 games at once, 40 moves, each game's last move finishes it" in printed
    assert "one game alone, 200 moves" in printed
    assert "throughput" in printed
    assert "2 readers, a game by id" in printed
    assert "2 readers, a move history" in printed
    assert "8 starts at once" in printed
