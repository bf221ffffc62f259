"""The real spawn-context worker processes: moves come back legal, the event loop stays free, a
dead or hung worker is replaced (the move retried once), an abandoned search is finished rather
than killed, and closing reaps every worker."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Iterator

import pytest

from bot.core.ai import WORKER_NICENESS, AIError, AIRequest, ProcessPoolRunner
from engine.board import Board
from engine.search.levels import Level
from engine.types import Game, Point, Rule


@pytest.fixture(scope="module")
def runner() -> Iterator[ProcessPoolRunner]:
    """One warm worker for the module: the pool is not tied to an event loop."""
    pool = ProcessPoolRunner(workers=1)
    yield pool
    asyncio.run(pool.close())


def test_request_rebuilds_the_position() -> None:
    board = Board.from_moves("h8 i9 h9", rule=Rule.RENJU, size=15)
    request = AIRequest.from_board(board, Level.EASY, seed=7)
    assert request.moves == ((7, 7), (8, 8), (7, 8))
    rebuilt = request.board()
    assert rebuilt.same_position(board)
    assert rebuilt.rule is Rule.RENJU
    connect4 = Board.for_game(Game.CONNECT4)
    connect4.drop(3)
    assert AIRequest.from_board(connect4, Level.EASY, 0).board().same_position(connect4)


@pytest.mark.parametrize(
    ("game", "moves"),
    [(Game.GOMOKU, "h8 i9 h9 i10"), (Game.TICTACTOE, "b2"), (Game.CONNECT4, "d1 d2")],
    ids=["gomoku", "tictactoe", "connect4"],
)
async def test_moves_come_back_legal(runner: ProcessPoolRunner, game: Game, moves: str) -> None:
    board = Board.for_game(game)
    for text in moves.split():
        board.play(Point.parse(text))
    move = await runner.choose_move(AIRequest.from_board(board, Level.BEGINNER, seed=1))
    assert board.is_legal(move.point)


async def test_the_ai_blocks_an_open_four(runner: ProcessPoolRunner) -> None:
    # White has h9 h10 h11 h12 with h8 taken by Black: White threatens h13; Black must block.
    board = Board.from_moves("h8 h9 a1 h10 a3 h11 a5 h12")
    move = await runner.choose_move(AIRequest.from_board(board, Level.MEDIUM, seed=3))
    assert move.point == Point.parse("h13")


async def test_workers_search_below_the_event_loop_priority(runner: ProcessPoolRunner) -> None:
    await runner.warm_up()
    pids = runner.worker_pids()
    assert pids
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    for pid in pids:
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(ours + WORKER_NICENESS, 19)


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="the idle class is Linux's")
async def test_workers_search_in_the_idle_class_unless_told_not_to(
    runner: ProcessPoolRunner,
) -> None:
    await runner.warm_up()
    assert {os.sched_getscheduler(pid) for pid in runner.worker_pids()} == {os.SCHED_IDLE}
    normal = ProcessPoolRunner(1, warm=False, idle=False)
    try:
        await normal.warm_up()
        assert [os.sched_getscheduler(pid) for pid in normal.worker_pids()] == [os.SCHED_OTHER]
    finally:
        await normal.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="the idle class is Linux's")
async def test_a_worker_warms_up_while_other_processes_keep_every_core_busy() -> None:
    # A warm-up in the idle class gets about 0.3% of a core beside normal processes: seconds
    # of CPU would take many minutes, and the bot waits for it before it connects. Set up at
    # the parent's priority it is ready within seconds; only then does it go idle.
    cores = len(os.sched_getaffinity(0))
    spinners = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", "while True: pass")
        for _ in range(cores)
    ]
    try:
        pool = await asyncio.wait_for(ProcessPoolRunner.start(1), timeout=90)
    finally:
        for spinner in spinners:
            spinner.kill()
            await spinner.wait()
    try:
        assert [os.sched_getscheduler(pid) for pid in pool.worker_pids()] == [os.SCHED_IDLE]
    finally:
        await pool.close()


async def test_the_event_loop_runs_while_the_ai_searches(runner: ProcessPoolRunner) -> None:
    board = Board.from_moves("h8 i9 h9 i10 j8")
    ticks = 0
    # expert searches 200k nodes: a few hundred ms, many turns of a 10 ms loop
    search = asyncio.create_task(
        runner.choose_move(AIRequest.from_board(board, Level.EXPERT, seed=1))
    )
    while not search.done():
        ticks += 1
        await asyncio.sleep(0.01)
    await search
    assert ticks > 1  # the loop kept turning; the search did not run on it


async def test_a_killed_worker_is_replaced_and_the_move_retried(
    runner: ProcessPoolRunner,
) -> None:
    await runner.warm_up()
    pids = runner.worker_pids()
    assert len(pids) == 1
    replaced = runner.replacements
    # Whether the runner sees the death as it sends the search or as it waits for the
    # answer, the search fails; the runner must replace the worker and retry.
    os.kill(pids[0], signal.SIGKILL)
    board = Board.from_moves("h8")
    move = await runner.choose_move(AIRequest.from_board(board, Level.BEGINNER, seed=1))
    assert board.is_legal(move.point)
    assert runner.replacements == replaced + 1
    assert runner.worker_pids() != pids


async def test_a_hung_worker_is_replaced_then_the_error_reported() -> None:
    runner = ProcessPoolRunner(workers=1, warm=False, hang_after_s=0.05)
    try:
        board = Board.from_moves("h8 i9")
        with pytest.raises(AIError) as caught:
            await runner.choose_move(AIRequest.from_board(board, Level.MASTER, seed=1))
        assert caught.value.detail == "TimeoutError"
        assert runner.replacements == 2
    finally:
        await runner.close()


async def test_a_search_that_raises_is_reported_not_retried(runner: ProcessPoolRunner) -> None:
    await runner.warm_up()
    pids, replaced = runner.worker_pids(), runner.replacements
    twice = AIRequest(Game.GOMOKU, 15, Rule.FREESTYLE, ((7, 7), (7, 7)), Level.BEGINNER, 1)
    with pytest.raises(AIError) as caught:
        await runner.choose_move(twice)  # the worker cannot rebuild it: h8 is taken
    assert caught.value.detail == "OccupiedPointError"
    assert (runner.worker_pids(), runner.replacements) == (pids, replaced)


async def test_an_abandoned_search_finishes_and_its_worker_serves_the_queue(
    runner: ProcessPoolRunner,
) -> None:
    await runner.warm_up()
    pids, replaced = runner.worker_pids(), runner.replacements
    long = asyncio.create_task(
        runner.choose_move(AIRequest.from_board(Board.from_moves("h8 i9"), Level.MASTER, 1))
    )
    await asyncio.sleep(0)  # the idle worker has the search now (no await before sending)
    long.cancel()
    with pytest.raises(asyncio.CancelledError):
        await long
    # More searches than workers wait their turn behind the abandoned one, which the worker
    # finishes rather than being killed for (no worker was replaced).
    boards = [Board.from_moves(moves) for moves in ("h8", "h8 i9", "h8 i9 h9", "h8 j10")]
    moves = await asyncio.gather(
        *(runner.choose_move(AIRequest.from_board(b, Level.BEGINNER, 1)) for b in boards)
    )
    assert all(board.is_legal(move.point) for board, move in zip(boards, moves, strict=True))
    assert (runner.worker_pids(), runner.replacements) == (pids, replaced)


async def test_closing_ends_a_search_under_way_with_an_error() -> None:
    runner = ProcessPoolRunner(workers=1)
    await runner.warm_up()
    (pid,) = runner.worker_pids()
    search = asyncio.create_task(
        runner.choose_move(AIRequest.from_board(Board.from_moves("h8 i9"), Level.MASTER, 1))
    )
    await asyncio.sleep(0)
    await runner.close()
    with pytest.raises(AIError) as caught:
        await search
    assert caught.value.detail == "closed"
    assert runner.worker_pids() == []
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # reaped, not left a zombie


@pytest.mark.slow
def test_the_pool_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.bench_pool import main

    main(["--searches", "3", "--workers", "1", "--rounds", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("3 searches on 1 workers per round; CPU: ")
    assert lines[1].startswith("round 1")
    assert "bot CPU" in lines[1]
