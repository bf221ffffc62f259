"""``bot.core.workers.WorkerPool`` on its own, with real spawned processes and tasks from the
standard library (no engine to load): answers, errors, a hung task, a closed pool, and the
hand-over of a released worker to the next waiting task."""

from __future__ import annotations

import asyncio
import multiprocessing.connection
import os
import threading
import time
from collections.abc import AsyncIterator

import pytest

from bot.core.workers import PoolClosedError, TaskError, WorkerLostError, WorkerPool


def _nothing() -> None:
    """The workers' set-up: none."""


def _lock(_: object) -> threading.Lock:
    return threading.Lock()  # no pickle carries a lock back


@pytest.fixture
async def pool() -> AsyncIterator[WorkerPool]:
    """One started worker, closed after the test."""
    started = WorkerPool(1, _nothing)
    try:
        await started.start_all()
        yield started
    finally:
        await started.close()


async def test_tasks_are_answered_and_errors_come_back_as_causes(pool: WorkerPool) -> None:
    assert await pool.call(abs, -3, 30.0) == 3
    (pid,) = pool.pids()
    assert pid != os.getpid()
    with pytest.raises(TaskError) as raised:
        await pool.call(int, "seven", 30.0)
    assert isinstance(raised.value.__cause__, ValueError)
    with pytest.raises(TaskError) as unpicklable:
        await pool.call(_lock, None, 30.0)
    assert "unpicklable answer" in str(unpicklable.value)
    assert (pool.pids(), pool.replaced) == ([pid], 0)  # one worker did it all


async def test_a_task_past_its_limit_loses_its_worker_and_another_takes_its_place(
    pool: WorkerPool,
) -> None:
    (hung,) = pool.pids()
    with pytest.raises(WorkerLostError) as lost:
        await pool.call(time.sleep, 60, 0.2)
    assert lost.value.detail == "TimeoutError"
    assert pool.replaced == 1
    assert await pool.call(abs, -1, 30.0) == 1
    assert pool.pids() != [hung]


async def test_a_closed_pool_takes_no_task_and_leaves_no_process() -> None:
    pool = WorkerPool(2, _nothing)
    await pool.start_all()
    pids = pool.pids()
    assert len(pids) == 2
    await pool.close()
    assert pool.pids() == []
    with pytest.raises(PoolClosedError):
        await pool.call(abs, -1, 30.0)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def _queued(task: asyncio.Task[object]) -> None:
    """Let ``task`` run until it waits for a worker (one turn of the loop: it has nothing else
    to wait on before that)."""
    await asyncio.sleep(0)
    assert not task.done()


async def _give_up(pool: WorkerPool, *, seconds: float, limit: float) -> None:
    """Send a task that sleeps ``seconds`` (``limit``: its time limit) and cancel its caller
    once it waits for its worker."""
    given_up = asyncio.ensure_future(pool.call(time.sleep, seconds, limit))
    await _queued(given_up)
    given_up.cancel()
    with pytest.raises(asyncio.CancelledError):
        await given_up


async def test_a_released_worker_gets_the_next_waiting_task_without_its_callers_turn(
    pool: WorkerPool,
) -> None:
    held = await pool.acquire()
    waiting = asyncio.ensure_future(pool.call(abs, -5, 30.0))
    await _queued(waiting)
    pool.release(held)
    # Blocking the loop: the waiting caller cannot run, yet its task was sent and answered.
    assert multiprocessing.connection.wait([held.conn], timeout=30.0) == [held.conn]
    assert await waiting == 5
    assert pool.replaced == 0


async def test_a_caller_that_gives_up_leaves_the_task_to_finish_then_the_worker_is_free(
    pool: WorkerPool,
) -> None:
    (pid,) = pool.pids()
    await _give_up(pool, seconds=0.2, limit=30.0)
    assert await pool.call(abs, -1, 30.0) == 1  # after the abandoned task, on its worker
    assert (pool.pids(), pool.replaced) == ([pid], 0)


async def test_an_abandoned_task_past_its_limit_loses_its_worker(pool: WorkerPool) -> None:
    (hung,) = pool.pids()
    await _give_up(pool, seconds=60, limit=0.2)
    assert await pool.call(abs, -1, 30.0) == 1  # waits for the replacement
    assert pool.replaced == 1
    assert pool.pids() != [hung]
