"""``bot.core.workers.WorkerPool`` on its own, with real spawned processes and tasks from the
standard library (no engine to load): answers, errors, a hung task, a closed pool."""

from __future__ import annotations

import os
import threading
import time

import pytest

from bot.core.workers import PoolClosedError, TaskError, WorkerLostError, WorkerPool


def _nothing() -> None:
    """The workers' set-up: none."""


def _lock(_: object) -> threading.Lock:
    return threading.Lock()  # no pickle carries a lock back


async def test_tasks_are_answered_and_errors_come_back_as_causes() -> None:
    pool = WorkerPool(1, _nothing)
    try:
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
    finally:
        await pool.close()


async def test_a_task_past_its_limit_loses_its_worker_and_another_takes_its_place() -> None:
    pool = WorkerPool(1, _nothing)
    try:
        await pool.start_all()
        (hung,) = pool.pids()
        with pytest.raises(WorkerLostError) as lost:
            await pool.call(time.sleep, 60, 0.2)
        assert lost.value.detail == "TimeoutError"
        assert pool.replaced == 1
        assert await pool.call(abs, -1, 30.0) == 1
        assert pool.pids() != [hung]
    finally:
        await pool.close()


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
