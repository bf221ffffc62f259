"""``benchmarks/bench_service.py`` keeps working: a tiny run plays every move it is asked for
(it prints its figures; it asserts only results, not timings)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.bench_service import report, run_bench


async def test_bench_runs(tmp_path: Path) -> None:
    figures = await run_bench(tmp_path / "bench.sqlite3", games=3, moves=6)
    assert figures.moves == 18
    assert len(figures.place_ms) == 18
    print(report(figures, 3, 0.0))
