"""Running the engine's search off the event loop.

``AIRunner`` is the seam: the service only awaits ``choose_move``. ``ProcessPoolRunner`` is the
local implementation: spawn-context worker processes (discord.py runs a heartbeat thread, and
forking a threaded process is unsafe), one per core, whose handles the runner keeps itself
(``_Pool``): it sends each task down one idle worker's pipe and waits on that pipe from the
event loop. A distributed runner (a task queue in front of many machines) can replace it
without touching the service.

Only compact, picklable data crosses the process boundary: the game kind, size, rule, the
moves as ``(x, y)`` pairs, the level and a seed; the worker rebuilds the ``Board`` and calls
``engine.search.levels.choose_move``. A worker that dies, or hangs past its level's time
budget, is killed and replaced, and the move is retried once; the other workers' searches go
on. A search whose caller gives up is left to finish before its worker takes another.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import ctypes
import functools
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import typing
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol, Self, TypeVar

from engine.board import Board
from engine.search.levels import PRESETS
from engine.types import Game, Level, Point, Rule

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from engine.search.analysis import Analysis

__all__ = [
    "HANG_SLACK_S",
    "REVIEW_HANG_S",
    "REVIEW_NICENESS",
    "WORKER_NICENESS",
    "AIError",
    "AIMove",
    "AIRequest",
    "AIRunner",
    "AIUnavailableError",
    "AnalysisRequest",
    "ProcessPoolRunner",
    "hang_limit_s",
    "level_budget_s",
    "lower_priority",
    "run_analysis",
    "run_search",
]

log = logging.getLogger(__name__)

_A = TypeVar("_A")
_R = TypeVar("_R")

# A search can't be interrupted from outside the worker, so the level's own time budget is what
# bounds it; this is the outer cap after which the worker counts as hung (``hang_limit_s``).
_HANG_FACTOR: Final = 4.0
HANG_SLACK_S: Final = 10.0
_PR_SET_PDEATHSIG: Final = 1  # from <linux/prctl.h>


class AIError(Exception):
    """The AI could not produce a move (the pool failed twice, or the search raised)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class AIUnavailableError(AIError):
    """The AI's workers cannot be reached (a distributed runner's queue is down): no search
    was started."""


@dataclass(frozen=True, slots=True)
class AIRequest:
    """Everything a worker needs to rebuild the position: small and picklable. (Bot games
    start from the empty board, so set-up stones are not carried.)"""

    game: Game
    size: int | None  # Gomoku's board size; None for the fixed-size games
    rule: Rule
    moves: tuple[tuple[int, int], ...]  # (x, y) of every move, Black first
    level: Level
    seed: int  # makes the level's noise reproducible
    # during an opening rule: (rule, steps so far as words); the worker answers a step
    opening: tuple[str, tuple[str, ...]] | None = None

    @classmethod
    def from_board(cls, board: Board, level: Level, seed: int) -> Self:
        """The request for the side to move in ``board``."""
        return cls(
            game=Game(board.game),
            size=board.size if Game(board.game) is Game.GOMOKU else None,
            rule=board.rule,
            moves=tuple((m.point.x, m.point.y) for m in board.moves),
            level=level,
            seed=seed,
        )

    def board(self) -> Board:
        """Rebuild the position."""
        board = Board.for_game(self.game, size=self.size, rule=self.rule)
        for x, y in self.moves:
            board.play(Point(x, y))
        return board


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    """A Gomoku position to analyse (``engine.search.analysis.analyse``) and its budget."""

    size: int
    rule: Rule
    moves: tuple[tuple[int, int], ...]  # (x, y) of every move, Black first
    nodes: int
    time_ms: int | None = None  # a cap on top of the nodes (makes the answer machine-bound)

    def board(self) -> Board:
        """Rebuild the position."""
        board = Board(self.size, self.rule)
        for x, y in self.moves:
            board.play(Point(x, y))
        return board


@dataclass(frozen=True, slots=True)
class AIMove:
    """The move the AI chose, with what the search reports about it."""

    point: Point  # the move (for an opening step that is not a stone: the last stone)
    score: int  # from the mover's point of view
    depth: int
    nodes: int
    time_ms: float  # search time inside the worker
    step: str | None = None  # the answer to an opening step (a point, a choice, a number)


class AIRunner(Protocol):
    """Chooses moves for the AI; ``ProcessPoolRunner`` is the local implementation."""

    async def choose_move(self, request: AIRequest) -> AIMove:
        """The level's move for the side to move.

        Raises:
            AIError: no move could be produced.
        """
        ...

    async def close(self) -> None:
        """Release workers; pending searches are abandoned."""
        ...


def level_budget_s(level: Level) -> float:
    """The level's time cap per move, in seconds."""
    return PRESETS[level].time_ms / 1000.0


def hang_limit_s(level: Level) -> float:
    """How long a search at ``level`` may take before its worker counts as dead or hung."""
    return level_budget_s(level) * _HANG_FACTOR + HANG_SLACK_S


# ---------------------------------------------------------------- worker side (child process)


def _die_with_parent(parent: int) -> None:
    """End this worker when the bot process ends, however it ends (kill -9 included).

    An idle worker sees its pipe close, but one in the middle of a search would search on
    for nobody (a review, up to a minute); and the resource tracker lives as long as any
    worker holds its pipe. Linux: the kernel sends SIGKILL when the parent dies (PR_SET_PDEATHSIG).
    Elsewhere: a thread watches for the parent's exit."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            if os.getppid() != parent:
                os._exit(1)  # the parent died before the request took effect
            return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="parent watch", daemon=True).start()


def lower_priority(niceness: int, *, idle: bool = True) -> bool:
    """Put this process (a search worker) below the event loop: ``niceness`` up and, with
    ``idle``, the kernel's idle class (``SCHED_IDLE``, Linux). Returns whether it is idle.

    Niceness only weighs the shares: at nice 10 a search still ran when the event loop woke
    and waited for it (about 2 s of a 24 s run at 500 games). An idle-class process gets a
    core only when nothing else of ours wants it, and gives it up the moment the loop wakes;
    the cost is that the searches slow down whenever anything else keeps the cores busy.
    Where the class is missing, niceness alone stays."""
    if niceness > 0:
        os.nice(niceness)
    if not idle or not hasattr(os, "sched_setscheduler"):
        return False
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except OSError:
        return False
    return True


def _init_worker(warm: bool, niceness: int, parent: int, idle: bool = True) -> None:
    """Pool initializer. The worker dies with ``parent`` (``_die_with_parent``). Ctrl-C in a
    terminal reaches the whole process group: the workers ignore it and let the parent shut
    them down, as they do SIGTERM sent to the group. Searches run below the event loop
    (``lower_priority``), so commands keep their latency while every core searches. With
    ``warm``, load the engine's compiled kernels and tables now, so numba's compile (or cache
    load) misses the first real move."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    lower_priority(niceness, idle=idle)
    if warm:
        from engine.search.levels import warm_up

        warm_up()


def run_search(request: AIRequest) -> AIMove:
    """What a worker runs for ``request`` (a pool's process, a queue worker): the move, or
    the answer to an opening step. Loads the search on first use."""
    from engine.search.levels import choose_move

    if request.opening is not None:
        return _opening_step(request)
    result = choose_move(request.board(), request.level, request.seed)
    return AIMove(
        point=result.move,
        score=int(result.score),
        depth=int(result.depth),
        nodes=int(result.nodes),
        time_ms=float(result.time_ms),
    )


def _opening_step(request: AIRequest) -> AIMove:
    """The AI's step in an opening rule (``engine.search.opening_ai.opening_step``)."""
    import time

    from engine.opening_rules import Opening, OpeningRule
    from engine.search.opening_ai import opening_step

    assert request.opening is not None
    rule, steps = request.opening
    board = request.board()
    opening = Opening.replay(OpeningRule(rule), steps, size=board.size, board_rule=board.rule)
    started = time.perf_counter()
    word = opening_step(opening, request.level, request.seed)
    last = board.last_move
    point = Point.parse(word) if word[:1].isalpha() and word not in _CHOICE_WORDS else None
    return AIMove(
        point=point or (last.point if last is not None else Point(0, 0)),
        score=0,
        depth=0,
        nodes=0,
        time_ms=(time.perf_counter() - started) * 1000,
        step=word,
    )


_CHOICE_WORDS: Final = frozenset({"black", "white", "two", "offer"})


def run_analysis(request: AnalysisRequest) -> Analysis:
    """What a worker runs for a review's or a puzzle's ``request``."""
    from engine.search.analysis import analyse

    return analyse(request.board(), nodes=request.nodes, time_ms=request.time_ms)


def _serve(conn: Connection, warm: bool, niceness: int, parent: int, idle: bool) -> None:
    """A worker's life: set up (``_init_worker``), say it is ready, then answer each
    ``(function, argument)`` the runner sends with ``(True, result)`` or ``(False, error)``,
    until the runner closes its end of the pipe."""
    _init_worker(warm, niceness, parent, idle)
    conn.send(_READY)
    while True:
        try:
            function, argument = conn.recv()
        except EOFError:
            return
        try:
            reply: tuple[bool, object] = (True, function(argument))
        except Exception as error:  # the runner reports it (a bug in the search)
            reply = (False, error)
        try:
            conn.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            conn.send((False, RuntimeError(f"unpicklable answer: {error!r}")))


_READY: Final = "ready"


# ---------------------------------------------------------------- event-loop side


# With the searches at the event loop's priority, 200 games with both cores searching gave
# /place p95 152 ms; at nice 10, 18 ms (python -m tests.bot.bench_load --level medium). They
# also run in the idle class (``lower_priority``), where niceness no longer weighs.
WORKER_NICENESS = 10
# Reviews run in a worker of their own, in the idle class like the live searches (so the
# kernel no longer orders the two; both take only what the event loop leaves).
REVIEW_NICENESS = 19
REVIEW_HANG_S: Final = 60.0  # how long an analysis may take before its worker counts as hung


class _WorkerLostError(Exception):
    """The worker died, or held a task past its limit and was killed."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class _Worker:
    """One search process and the runner's end of the pipe to it."""

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.ready = False  # it sent ``_READY``: set up and warm

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
        """End it at once, a search under way included, and reap it."""
        self.process.kill()
        self.process.join(timeout=5.0)
        self.conn.close()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Pool:
    """Up to ``size`` spawn-context worker processes, each doing one task at a time.

    The runner holds the handles itself: it hands a task to an idle worker, waits on that
    worker's pipe, kills the worker that outlives its task's limit and starts another in its
    place. A worker's set-up (numba loading its kernels) is waited for before a task is sent,
    so it never counts against the task's limit."""

    def __init__(self, size: int, niceness: int, *, warm: bool, idle: bool) -> None:
        self.size = size
        self._initargs = (warm, niceness, os.getpid(), idle)
        self._workers: set[_Worker] = set()
        self._idle: collections.deque[_Worker] = collections.deque()
        self._waiters: collections.deque[asyncio.Future[_Worker]] = collections.deque()
        self._finishing: set[asyncio.Task[None]] = set()  # abandoned tasks still running
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
            target=_serve, args=(theirs, *self._initargs), name="gomoku AI worker", daemon=True
        )
        process.start()
        theirs.close()  # the worker's end lives in the worker: its death reads as EOF here
        worker = _Worker(process, ours)
        self._workers.add(worker)
        return worker

    async def acquire(self) -> _Worker:
        """An idle, ready worker of its own for the caller (starting one if the pool is not
        full, else waiting for one to be released).

        Raises:
            _WorkerLostError: the worker died before it was set up (it is replaced), or none
                could be started.
            AIError: the pool is closed.
        """
        while True:
            if self.closed:
                raise AIError("closed")
            if self._idle:
                worker = self._idle.popleft()
            elif len(self._workers) < self.size:
                try:
                    worker = self._spawn()
                except OSError as error:
                    raise _WorkerLostError(f"could not start: {error!r}") from error
            else:
                worker = await self._wait_for_release()
            if worker.ready:
                return worker
            try:
                ready = await worker.receive()  # not timed: a first numba compile takes long
            except (EOFError, OSError) as error:
                self._discard(worker)
                raise _WorkerLostError("died starting") from error
            except BaseException:
                self.release(worker)  # cancelled: it is still starting, for the next caller
                raise
            if ready != _READY:
                self._discard(worker)
                raise _WorkerLostError("no ready message")
            worker.ready = True
            return worker

    async def _wait_for_release(self) -> _Worker:
        waiter: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self.release(waiter.result())  # handed over just as the caller gave up
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    def release(self, worker: _Worker) -> None:
        """Give ``worker`` back: to the first caller waiting for one, or to the idle ones."""
        if self.closed:
            worker.kill()
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self._idle.append(worker)

    def _discard(self, worker: _Worker) -> None:
        """Kill ``worker`` and start another in its place (at once, so that it warms up before
        it is needed)."""
        self._workers.discard(worker)
        worker.kill()
        if self.closed:
            return
        self.replaced += 1
        try:
            replacement = self._spawn()
        except OSError as error:  # no process to be had now: the next caller starts one
            log.error("could not start an AI worker: %r", error)
            return
        self.release(replacement)

    async def call(self, function: Callable[[_A], _R], argument: _A, limit: float) -> _R:
        """``function(argument)`` in a worker, which gets ``limit`` seconds from when it has
        the task; a caller that gives up leaves the worker to finish (within the limit) before
        it takes another.

        Raises:
            _WorkerLostError: the worker died, or hung past ``limit`` (it is replaced).
            AIError: the pool is closed.
            Exception: what ``function`` raised, chained from the worker's error.
        """
        worker = await self.acquire()
        deadline = asyncio.get_running_loop().time() + limit
        try:
            worker.conn.send((function, argument))
            reply = await asyncio.wait_for(worker.receive(), timeout=limit)
        except (EOFError, OSError) as error:
            self._discard(worker)
            raise _WorkerLostError(type(error).__name__) from error
        except TimeoutError as error:
            self._discard(worker)
            raise _WorkerLostError("TimeoutError") from error
        except asyncio.CancelledError:
            self._finish(worker, deadline)
            raise
        self.release(worker)
        assert isinstance(reply, tuple)
        ok, value = reply
        if not ok:
            raise _SearchError(repr(value)) from typing.cast(BaseException, value)
        return typing.cast(_R, value)

    def _finish(self, worker: _Worker, deadline: float) -> None:
        """Let the abandoned task end in the background, then release the worker."""

        async def finish() -> None:
            remaining = deadline - asyncio.get_running_loop().time()
            try:
                await asyncio.wait_for(worker.receive(), timeout=max(remaining, 0.0))
            except BaseException:
                self._discard(worker)
                raise
            self.release(worker)

        task = asyncio.ensure_future(finish())
        self._finishing.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._finishing.discard(task)
        if not task.cancelled():
            task.exception()  # seen: a worker that died meanwhile was replaced

    async def close(self) -> None:
        """Kill every worker (a task under way ends with ``_WorkerLostError``)."""
        self.closed = True
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_exception(AIError("closed"))
        self._waiters.clear()
        self._idle.clear()
        workers, self._workers = list(self._workers), set()
        for worker in workers:
            worker.process.kill()
        await asyncio.to_thread(_reap, workers)


_POOLS: weakref.WeakSet[_Pool] = weakref.WeakSet()


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
        worker.conn.close()


class _SearchError(Exception):
    """The task raised in the worker (its error is the ``__cause__``)."""


class ProcessPoolRunner:
    """Searches in spawn-context worker processes; use ``async with ProcessPoolRunner.start()``.

    ``workers`` defaults to the cores this process may use.
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        warm: bool = True,
        hang_after_s: float | None = None,
        niceness: int = WORKER_NICENESS,
        idle: bool = True,
    ) -> None:
        self.workers = workers or len(os.sched_getaffinity(0)) or 1
        self._warm = warm
        self._idle = idle  # the workers in the idle class (``lower_priority``)
        self._hang_after_s = hang_after_s  # None: the level's budget x4 + 10 s
        self._pool = _Pool(self.workers, niceness, warm=warm, idle=idle)
        self._review_pool: _Pool | None = None  # started by the first review
        self._closed = False

    @classmethod
    async def start(
        cls, workers: int | None = None, *, warm: bool = True, idle: bool = True
    ) -> Self:
        """A runner whose workers are already up (and warm, unless ``warm=False``)."""
        runner = cls(workers, warm=warm, idle=idle)
        await runner.warm_up()
        return runner

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def replacements(self) -> int:
        """How many search workers died or hung and were replaced."""
        return self._pool.replaced

    async def warm_up(self) -> None:
        """Start every worker now and wait until each is set up (and warm), rather than on
        the first moves.

        Raises:
            AIError: a worker died while starting (it is replaced), or the runner is closed.
        """
        held = await asyncio.gather(
            *(self._pool.acquire() for _ in range(self.workers)), return_exceptions=True
        )
        for worker in held:
            if isinstance(worker, _Worker):
                self._pool.release(worker)
        for outcome in held:
            if isinstance(outcome, _WorkerLostError):
                raise AIError(outcome.detail) from outcome
            if isinstance(outcome, BaseException):
                raise outcome

    def worker_pids(self) -> list[int]:
        """The live search workers' process ids (for tests and diagnostics)."""
        return self._pool.pids()

    async def choose_move(self, request: AIRequest) -> AIMove:
        """Search in a worker; on a dead or hung worker, replace it and retry once.

        Raises:
            AIError: it failed twice, or the search itself raised.
        """
        limit = self._hang_after_s or hang_limit_s(request.level)
        for attempt in (1, 2):
            if self._closed:
                raise AIError("closed")
            try:
                return await self._pool.call(run_search, request, limit)
            except _WorkerLostError as error:
                if self._closed:
                    raise AIError("closed") from error
                log.warning("AI worker failed (attempt %d): %s; replaced it", attempt, error)
                if attempt == 2:
                    raise AIError(error.detail) from error
            except _SearchError as error:
                # A bug in the search for this position: retrying would fail the same way.
                log.error("AI search raised on %r: %s", request, error)
                raise AIError(type(error.__cause__).__name__) from error
        raise AssertionError("unreachable")

    async def analyse(self, request: AnalysisRequest) -> Analysis:
        """Analyse a position in the review worker (one process, at ``REVIEW_NICENESS``).

        Raises:
            AIError: the worker died or hung (the review worker is then replaced), or the
                analysis raised.
        """
        if self._closed:
            raise AIError("closed")
        if self._review_pool is None:
            self._review_pool = _Pool(1, REVIEW_NICENESS, warm=self._warm, idle=self._idle)
        try:
            return await self._review_pool.call(run_analysis, request, REVIEW_HANG_S)
        except _WorkerLostError as error:
            log.warning("review worker failed: %s; replaced it", error)
            raise AIError(error.detail) from error
        except _SearchError as error:
            log.error("analysis raised on %r: %s", request, error)
            raise AIError(type(error.__cause__).__name__) from error

    async def close(self) -> None:
        """Stop the workers; running searches end with ``AIError`` and are not retried."""
        self._closed = True
        if self._review_pool is not None:
            await self._review_pool.close()
        await self._pool.close()
