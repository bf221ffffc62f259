"""Worker processes whose handles the caller keeps: ``WorkerPool`` runs picklable tasks in
spawn-context processes (a threaded process such as the bot's must not fork), one task per
worker at a time, and waits for each answer on the worker's pipe from the event loop.

A worker's answer is read in the event loop's reader callback, which hands the worker its next
waiting task there and then: a worker never idles for the turns of a busy loop that its
caller's and the next caller's tasks would take to resume (the bot's loop under load).

It is what ``ProcessPoolRunner`` (``bot.core.ai``) needs and no more: a worker is set up by an
initializer before its first task (that time never counts against a task); a task gets a
limit from when its worker has it, past which the worker is killed and replaced; a worker that
dies is replaced; a caller that gives up leaves its task to finish before the worker takes
another; ``close`` kills and reaps every worker, and the workers of a pool nobody closed end at
interpreter exit.

Errors::

    WorkerLostError    the worker died, or hung past the limit (it is replaced)
    TaskError          the task raised; its error is the __cause__
    PoolClosedError    the pool is closed
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import functools
import logging
import multiprocessing
import pickle
import typing
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

__all__ = ["PoolClosedError", "TaskError", "WorkerLostError", "WorkerPool"]

log = logging.getLogger(__name__)

_A = TypeVar("_A")
_R = TypeVar("_R")

_READY: Final = "ready"


def _serve(
    conn: Connection, initializer: Callable[..., object], initargs: tuple[object, ...]
) -> None:
    """A worker's life: ``initializer(*initargs)``, say it is ready, then answer each
    ``(function, argument)`` the pool sends with ``(True, result)`` or ``(False, error)``,
    until the pool closes its end of the pipe. A task this process cannot read (a game it
    has not registered, say) is answered with its error too, not by dying."""
    initializer(*initargs)
    conn.send(_READY)
    while True:
        try:
            task = conn.recv_bytes()
        except EOFError:
            return
        try:
            function, argument = pickle.loads(task)
            reply: tuple[bool, object] = (True, function(argument))
        except Exception as error:  # the caller gets it as TaskError's cause
            reply = (False, error)
        try:
            conn.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            conn.send((False, RuntimeError(f"unpicklable answer: {error!r}")))


class WorkerLostError(Exception):
    """The worker died, or held a task past its limit and was killed."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class _Job:
    """A task on its way: what to send, and its answer (set by the pool's reader callback)."""

    __slots__ = ("answer", "limit", "payload")

    def __init__(self, payload: bytes, limit: float) -> None:
        self.payload = payload
        self.limit = limit  # seconds from when a worker has it
        self.answer: asyncio.Future[object] = asyncio.get_running_loop().create_future()


class _Worker:
    """One worker process and the pool's end of the pipe to it."""

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.ready = False  # it sent ``_READY``: set up and warm
        self.job: _Job | None = None  # the task it has now
        self.overdue: asyncio.TimerHandle | None = None  # kills it at its task's limit

    async def receive(self) -> object:
        """The worker's next message, awaited on the event loop (never a blocking read).

        Raises:
            EOFError, OSError: the worker is gone.
        """
        if not self.conn.poll():
            loop = asyncio.get_running_loop()
            readable: asyncio.Future[None] = loop.create_future()
            fd = self.conn.fileno()
            loop.add_reader(fd, _resolve, readable)
            try:
                await readable
            finally:
                loop.remove_reader(fd)
        return self.conn.recv()

    def kill(self) -> None:
        """End it at once, a task under way included, and reap it."""
        self.process.kill()
        self.process.join(timeout=5.0)
        self.conn.close()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class WorkerPool:
    """Up to ``size`` spawn-context worker processes, each doing one task at a time.

    It hands a task to an idle worker, waits on that worker's pipe, kills the worker that
    outlives its task's limit and starts another in its place. A worker's set-up (the AI's:
    numba loading its kernels) is waited for before a task is sent, so it never counts
    against the task's limit."""

    def __init__(
        self, size: int, initializer: Callable[..., object], initargs: tuple[object, ...] = ()
    ) -> None:
        self.size = size
        self._initializer = initializer  # runs in each worker before its first task
        self._initargs = initargs
        self._workers: set[_Worker] = set()
        self._idle: collections.deque[_Worker] = collections.deque()
        # Callers waiting for a worker, with the task that ``release`` sends it at once (None:
        # ``start_all``'s, which only wants the worker ready).
        self._waiters: collections.deque[tuple[asyncio.Future[_Worker], _Job | None]]
        self._waiters = collections.deque()
        self.replaced = 0  # workers that died or hung and were replaced
        self.closed = False
        _POOLS.add(self)

    def pids(self) -> list[int]:
        """The live workers' process ids."""
        return [w.process.pid for w in self._workers if w.process.pid and w.process.is_alive()]

    def _spawn(self) -> _Worker:
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        _kill_workers_at_exit()
        process = context.Process(
            target=_serve,
            args=(theirs, self._initializer, self._initargs),
            name="gomoku worker",
            daemon=True,
        )
        process.start()
        theirs.close()  # the worker's end lives in the worker: its death reads as EOF here
        worker = _Worker(process, ours)
        self._workers.add(worker)
        return worker

    async def acquire(self, job: _Job | None = None) -> _Worker:
        """An idle, ready worker of its own for the caller (starting one if the pool is not
        full, else waiting for one to be released). A worker handed over by ``release`` may
        have been sent ``job`` already (then ``worker.job is job``).

        Raises:
            WorkerLostError: the worker died before it was set up (it is replaced), or none
                could be started.
            PoolClosedError: the pool is closed.
        """
        while True:
            if self.closed:
                raise PoolClosedError
            if self._idle:
                worker = self._idle.popleft()
            elif len(self._workers) < self.size:
                try:
                    worker = self._spawn()
                except OSError as error:
                    raise WorkerLostError(f"could not start: {error!r}") from error
            else:
                worker = await self._wait_for_release(job)
            if worker.ready:
                return worker
            try:
                ready = await worker.receive()  # not timed: a first numba compile takes long
            except (EOFError, OSError) as error:
                self._discard(worker)
                raise WorkerLostError("died starting") from error
            except BaseException:
                self.release(worker)  # cancelled: it is still starting, for the next caller
                raise
            if ready != _READY:
                self._discard(worker)
                raise WorkerLostError("no ready message")
            worker.ready = True
            return worker

    async def _wait_for_release(self, job: _Job | None) -> _Worker:
        waiter: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        entry = (waiter, job)
        self._waiters.append(entry)
        try:
            return await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                worker = waiter.result()  # handed over just as the caller gave up
                if job is None or worker.job is not job:
                    self.release(worker)
                # else it has the task: it finishes it (within its limit), then is released
            elif entry in self._waiters:
                self._waiters.remove(entry)
            raise

    async def start_all(self) -> None:
        """Start every worker (those not yet started) and wait until each is set up.

        Raises:
            WorkerLostError: a worker died while starting (it is replaced).
            PoolClosedError: the pool is closed.
        """
        held = await asyncio.gather(
            *(self.acquire() for _ in range(self.size)), return_exceptions=True
        )
        for worker in held:
            if isinstance(worker, _Worker):
                self.release(worker)
        for outcome in held:
            if isinstance(outcome, BaseException):
                raise outcome

    def release(self, worker: _Worker) -> None:
        """Give ``worker`` back: to the first caller waiting for one (sending it that caller's
        task at once), or to the idle ones."""
        if self.closed:
            worker.kill()
            return
        while self._waiters:
            waiter, job = self._waiters.popleft()
            if not waiter.done():
                if job is not None and worker.ready:
                    # A pipe that is gone: the caller finds it so, sending the task itself.
                    with contextlib.suppress(OSError, ValueError):
                        self._send(worker, job)
                waiter.set_result(worker)
                return
        self._idle.append(worker)

    def _send(self, worker: _Worker, job: _Job) -> None:
        """Hand ``job`` to ``worker``: its limit runs from now, and its answer is read by
        ``_readable`` as soon as the pipe has it.

        Raises:
            OSError, ValueError: the pipe is gone (the worker died).
        """
        worker.conn.send_bytes(job.payload)
        loop = asyncio.get_running_loop()
        worker.job = job
        worker.overdue = loop.call_later(job.limit, self._overdue, worker, job)
        loop.add_reader(worker.conn.fileno(), self._readable, worker)

    def _unwatch(self, worker: _Worker) -> _Job | None:
        """Stop waiting for ``worker``'s answer; the task it had, if any."""
        job, worker.job = worker.job, None
        if worker.overdue is not None:
            worker.overdue.cancel()
            worker.overdue = None
        if job is not None:
            with contextlib.suppress(OSError, ValueError):
                asyncio.get_running_loop().remove_reader(worker.conn.fileno())
        return job

    def _readable(self, worker: _Worker) -> None:
        """The reader callback: ``worker`` answered (or died). Its caller gets the answer and
        the worker its next task, in this callback."""
        job = self._unwatch(worker)
        if job is None:
            return
        try:
            answer = worker.conn.recv()
        except (EOFError, OSError) as error:
            self._lost(worker, job, WorkerLostError(type(error).__name__), error)
            return
        except Exception as error:  # an answer read whole that does not unpickle here
            answer = (False, RuntimeError(f"unreadable answer: {error!r}"))
        if not job.answer.done():
            job.answer.set_result(answer)
        self.release(worker)  # a caller that gave up: its task is done all the same

    def _overdue(self, worker: _Worker, job: _Job) -> None:
        """``worker`` held ``job`` past its limit: it is killed and replaced."""
        worker.overdue = None
        if worker.job is job:
            self._unwatch(worker)
            self._lost(worker, job, WorkerLostError("TimeoutError"), TimeoutError())

    def _lost(
        self, worker: _Worker, job: _Job, error: WorkerLostError, cause: BaseException
    ) -> None:
        error.__cause__ = cause
        if not job.answer.done():
            job.answer.set_exception(error)
            job.answer.exception()  # a caller that gave up never reads it: seen here
        self._discard(worker)

    def _discard(self, worker: _Worker) -> None:
        """Kill ``worker`` and start another in its place (at once, so that it warms up before
        it is needed)."""
        if self.closed:
            return  # ``close`` kills and reaps every worker: closing its pipe here too would
            # race the reaping thread for the same descriptor
        self._unwatch(worker)
        self._workers.discard(worker)
        worker.kill()
        self.replaced += 1
        try:
            replacement = self._spawn()
        except OSError as error:  # no process to be had now: the next caller starts one
            log.error("could not start a worker: %r", error)
            return
        self.release(replacement)

    async def call(self, function: Callable[[_A], _R], argument: _A, limit: float) -> _R:
        """``function(argument)`` in a worker, which gets ``limit`` seconds from when it has
        the task; a caller that gives up leaves the worker to finish (within the limit) before
        it takes another.

        Raises:
            WorkerLostError: the worker died, or hung past ``limit`` (it is replaced).
            PoolClosedError: the pool is closed.
            Exception: what ``function`` raised, chained from the worker's error.
        """
        job = _Job(pickle.dumps((function, argument)), limit)
        worker = await self.acquire(job)
        if worker.job is not job:
            try:
                self._send(worker, job)
            except (OSError, ValueError) as error:
                self._discard(worker)
                raise WorkerLostError(type(error).__name__) from error
        # Shielded: a caller that gives up leaves the task to its worker, and the reader
        # callback releases the worker once it answers (or the limit kills it).
        reply = await asyncio.shield(job.answer)
        assert isinstance(reply, tuple)
        ok, value = reply
        if not ok:
            raise TaskError(repr(value)) from typing.cast(BaseException, value)
        return typing.cast(_R, value)

    async def close(self) -> None:
        """Kill every worker (a task under way ends with ``WorkerLostError``)."""
        self.closed = True
        for waiter, _job in self._waiters:
            if not waiter.done():
                waiter.set_exception(PoolClosedError())
        self._waiters.clear()
        self._idle.clear()
        workers, self._workers = list(self._workers), set()
        for worker in workers:
            job = self._unwatch(worker)
            if job is not None and not job.answer.done():
                lost = WorkerLostError("PoolClosedError")
                lost.__cause__ = PoolClosedError()
                job.answer.set_exception(lost)
                job.answer.exception()
        for worker in workers:
            worker.process.kill()
        await asyncio.to_thread(_reap, workers)
        for worker in workers:  # on the loop's thread, where every other use of a pipe is
            worker.conn.close()


_POOLS: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


@functools.cache
def _kill_workers_at_exit() -> None:
    """Register ``_kill_workers`` once a pipe exists: atexit runs the last registered first,
    and multiprocessing registers its own exit (which joins every child) on first use."""
    atexit.register(_kill_workers)


def _kill_workers() -> None:
    """At interpreter exit, end the workers of pools nobody closed. (multiprocessing then
    joins every child; a worker ignores SIGTERM and would wait on its pipe for ever.)"""
    for pool in list(_POOLS):
        pool.closed = True
        for worker in list(pool._workers):
            worker.kill()


def _reap(workers: list[_Worker]) -> None:
    for worker in workers:
        worker.process.join()


class TaskError(Exception):
    """The task raised in the worker (its error is the ``__cause__``)."""


class PoolClosedError(Exception):
    """The pool was closed: no task is taken any more."""
