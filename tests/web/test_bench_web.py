"""``python -m benchmarks.bench_web`` keeps working: every run finishes, every move is played,
and with pages every page gets every move; repeated rounds end with their medians. So does
``benchmarks.bench_feed``. They print figures; the load itself is measured by hand, not here."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.bench_web import _nearest_rank, _percentile, pooled_p95_interval


def _bench(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``python -m benchmarks.bench_web`` with ``arguments``, which must succeed."""
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_web", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result


@pytest.mark.slow
def test_a_short_bench_plays_every_move_and_delivers_it_to_every_page() -> None:
    # 17 moves: past the first row of stones. Two rounds: four runs, then the summary.
    arguments = ["--games", "3", "--watchers", "4", "--moves", "17", "--think", "0.05"]
    result = _bench(*arguments, "--rounds", "2", "--no-pin")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("CPU: ")
    assert lines[1] == "not pinned: every process on every core"
    every = sorted(os.sched_getaffinity(0))
    assert result.stdout.count(f"cores: bot {every}, Discord {every}, pages {every}\n") == 2
    assert result.stdout.count(f"cores: bot {every}, Discord {every}\n") == 2
    assert len(re.findall(r"/place n=51 .* failed 0;", result.stdout)) == 4, lines
    # 4 watchers on the first game and one page on each of the 3: 7 pages; the first game's
    # 17 moves reach 5 pages, the others' reach 1 each.
    assert result.stdout.count("7 sockets, 119 states delivered") == 2, lines
    assert len(re.findall(r"sending them took \d+\.\d\d s of the bot's CPU", result.stdout)) == 2
    assert len(re.findall(r"readers' process took \d+\.\d\d s of CPU", result.stdout)) == 2
    # The rounds alternate which side goes first.
    runs = [line.split(":")[0].strip() for line in lines if "/place n=" in line]
    assert runs == ["without pages", "with pages", "with pages", "without pages"]
    assert len(re.findall(r"a fixed slice of work took \d+ us", result.stdout)) == 4
    summary = [line.split(":")[0].strip() for line in lines[-5:]]
    assert summary == ["/place p95", "bot CPU", "fixed slice", "bot CPU/slice", "pooled"]
    assert all("with/without per round" in line for line in lines[-5:-1])
    assert all(re.search(r"rounds over \+10%: [012] of 2$", line) for line in lines[-5:-1])
    assert re.search(r"/place p95 \d+\.\d\d ms without pages, \d+\.\d\d ms with", lines[-1])


@pytest.mark.slow
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning needs two cores")
def test_a_bench_is_pinned_by_default_and_a_neighbour_runs_after_the_pages() -> None:
    arguments = ["--games", "2", "--watchers", "2", "--moves", "6", "--think", "0.05"]
    result = _bench(*arguments, "--neighbour", "--idle-pages")
    lines = result.stdout.splitlines()
    first, *rest = sorted(os.sched_getaffinity(0))
    assert lines[1] == f"pinned: the bot on core {first}; Discord, players, pages on {rest}"
    # where each process ran, as each found its own cores, and in which class
    idle = " (idle class)" if hasattr(os, "SCHED_IDLE") else ""
    assert f"cores: bot [{first}], Discord {rest}, pages {rest}{idle}\n" in result.stdout
    assert f"cores: bot [{first}], Discord {rest}, neighbour {rest}{idle}\n" in result.stdout
    # With a neighbour the run with pages goes first: the one without takes after it.
    runs = [line.split(":")[0].strip() for line in lines if "/place n=" in line]
    assert runs == ["with pages", "without pages"]
    assert result.stdout.count("/place n=12 ") == 2
    assert "4 sockets, 24 states delivered" in result.stdout
    assert re.search(r"the control neighbour took \d+\.\d\d s of CPU", result.stdout), lines


def test_a_bench_longer_than_its_board_is_refused() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_web", "--moves", "121"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--moves is 1 to 120" in result.stderr


def test_the_render_bench_measures_both_ways_on_the_same_game() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_feed", "--moves", "20", "--repeat", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("CPU: ")
    # The start, the acceptance and 20 moves; the last delta adds one move.
    assert lines[1].startswith("22 versions of a 20-move game, 4 kinds of page each;")
    assert [line.split(":")[0].strip() for line in lines[2:]] == [
        "each from nothing",
        "reusing the last",
    ]


@given(st.lists(st.floats(min_value=0, max_value=1e3), min_size=1, max_size=200))
def test_the_resampled_p95_is_taken_as_the_bench_takes_it(values: list[float]) -> None:
    import numpy as np

    assert _nearest_rank(np.asarray(values), 0.95) == _percentile(values, 0.95)


def test_a_change_every_round_shares_has_a_tight_interval_and_one_round_s_a_wide_one() -> None:
    rounds = [[float(v) for v in range(1 + r, 400 + 7 * r)] for r in range(5)]
    slower = [[1.25 * v for v in latencies] for latencies in rounds]
    low, high = pooled_p95_interval(rounds, slower, draws=300)
    assert low == pytest.approx(25.0)
    assert high == pytest.approx(25.0)
    # One round in five twice as slow with pages, the others unchanged: the interval holds
    # both no change and a large one.
    one_slow = [
        latencies if r else [2 * v for v in latencies] for r, latencies in enumerate(rounds)
    ]
    low, high = pooled_p95_interval(rounds, one_slow, draws=300)
    assert low < 1.0
    assert high > 20.0


def test_the_summary_of_three_rounds_or_more_gives_the_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks.bench_web import _summary

    def run(scale: float) -> dict[str, object]:
        return {
            "latencies": [scale * v / 1000 for v in range(1, 101)],
            "cpu": scale,
            "canary": 1e-4,
        }

    _summary([{False: run(1.0), True: run(1.1)} for _ in range(3)])
    pooled = capsys.readouterr().out.splitlines()[-1]
    assert "+10.0%), every round's moves together" in pooled
    assert "95% interval over the rounds resampled +10.0% to +10.0%" in pooled
