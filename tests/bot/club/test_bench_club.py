"""``benchmarks/bench_club.py`` keeps working: a short run pairs every round and runs every
queue pass it is asked for, and measures the event loop while rounds pair on it and in the
worker (it prints its figures; it asserts counts, not timings)."""

from __future__ import annotations

import pytest

from benchmarks.bench_club import (
    bench_queue,
    bench_stall_both,
    bench_swiss,
    main,
    report_queue,
    report_stall,
    report_swiss,
)


def test_swiss_bench_pairs_every_round() -> None:
    figures = bench_swiss(players=16, rounds=4, events=2, seed=3)
    assert len(figures.round_s) == len(figures.round_cpu_s) == 8
    assert figures.boards == 2 * 4 * 8
    print(report_swiss(figures, 16, 4))


def test_queue_bench_runs_every_pass_the_same_way() -> None:
    first = bench_queue(members=40, passes=5, seed=3)
    again = bench_queue(members=40, passes=5, seed=3)
    assert len(first.pass_s) == 5
    assert (first.matches, first.expired) == (again.matches, again.expired)
    assert 0 < first.matches <= 5 * 40 // 2
    print(report_queue(first, 40))


async def test_stall_bench_pairs_the_same_rounds_on_the_loop_and_in_the_worker() -> None:
    inline, in_worker, idle = await bench_stall_both(players=12, rounds=3, events=2, seed=3)
    for figures in (inline, in_worker, idle):
        assert len(figures.round_s) == len(figures.round_stall_s) == 6
    print(report_stall(inline, "12 players, on the loop"))
    print(report_stall(in_worker, "12 players, in the worker"))


def test_main_prints_the_cpu_and_both_figures(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--players", "8", "--rounds", "2", "--events", "1", "--members", "10", "--passes", "2"])
    out = capsys.readouterr().out
    assert out.startswith("CPU: ")
    assert "Swiss 8 players x 2 rounds" in out
    assert "Queue of 10 members in 3 kinds, 2 passes" in out
    assert "Queue of 10 members, one kind, all within reach, 2 passes" in out
    assert "Event loop while 8-player Swiss rounds pair on it, 2 rounds" in out
    assert "Event loop while 8-player Swiss rounds pair in the worker, 2 rounds" in out
    assert "Event loop idle as long as each worker round took, 2 rounds" in out
