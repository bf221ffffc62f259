"""``python -m benchmarks.bench_load`` keeps working, and a run that its games cannot finish in
time still ends with its summary, the unfinished games counted (it prints figures; the load
itself is measured by hand, not here)."""

from __future__ import annotations

import subprocess
import sys


def test_games_still_running_at_the_deadline_are_counted_and_the_summary_printed() -> None:
    # Players who think 2 s on average arrive after 1 s at the soonest: at a 0.5 s deadline
    # no game has started, and the run stops them rather than waiting for them.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.bench_load",
            *("--games", "4", "--moves", "2", "--style", "emoji"),
            *("--think", "2", "--deadline", "0.5"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "wall time" in result.stdout
    assert "'unfinished at the deadline (arriving)': 4" in result.stdout
    assert "games raised" not in result.stdout
