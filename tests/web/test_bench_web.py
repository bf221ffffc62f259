"""``python -m benchmarks.bench_web`` keeps working: both runs finish, every move is played,
and with pages every page gets every move (it prints figures; the load itself is measured by
hand, not here)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_a_short_bench_plays_every_move_and_delivers_it_to_every_page() -> None:
    arguments = ["--games", "3", "--watchers", "4", "--moves", "2", "--think", "0.05"]
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_web", *arguments],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(re.findall(r"/place n=6 .* failed 0;", result.stdout)) == 2, lines
    # 4 watchers on the first game and one page on each of the 3: 7 pages; the first game's
    # 2 moves reach 5 pages, the others' reach 1 each.
    assert "7 sockets, 14 states delivered" in result.stdout, lines
