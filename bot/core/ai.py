"""Running the engine's search off the event loop.

``AIRunner`` is the seam: the service only awaits ``choose_move``. ``ProcessPoolRunner`` is the
local implementation: spawn-context worker processes (discord.py runs a heartbeat thread, and
forking a threaded process is unsafe), one per core, whose handles the runner keeps itself
(``bot.core.workers``): it sends each task down one idle worker's pipe and waits on that pipe
from the event loop. A distributed runner (a task queue in front of many machines) can replace it
without touching the service.

Only compact, picklable data crosses the process boundary: the game kind, size, rule, the
moves as ``(x, y)`` pairs, the level and a seed; the worker rebuilds the ``Board`` and calls
``engine.search.levels.choose_move``. A worker that dies, or hangs past its level's time
budget, is killed and replaced, and the move is retried once; the other workers' searches go
on. A search whose caller gives up is left to finish before its worker takes another.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol, Self

from bot.core.games import load_game_modules
from bot.core.workers import PoolClosedError, TaskError, WorkerLostError, WorkerPool
from engine.board import Board
from engine.games import game_spec
from engine.search.levels import PRESETS
from engine.types import Game, Level, Point, Rule

if TYPE_CHECKING:
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
            size=board.size if game_spec(board.game).sizes is not None else None,
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


def _init_worker(
    warm: bool, niceness: int, parent: int, idle: bool = True, game_modules: tuple[str, ...] = ()
) -> None:
    """Pool initializer. The worker imports ``game_modules``, which register the games defined
    outside the bot (``bot.core.games.load_game_modules``: a spawned process starts with only
    the games shipped), and dies with ``parent`` (``_die_with_parent``). Ctrl-C in a
    terminal reaches the whole process group: the workers ignore it and let the parent shut
    them down, as they do SIGTERM sent to the group. With ``warm``, load the engine's
    compiled kernels and tables now, so numba's compile (or cache load) misses the first real
    move. Searches run below the event loop (``lower_priority``), so commands keep their
    latency while every core searches; the set-up before them runs at the parent's priority,
    since the bot waits for it before it connects, and in the idle class, on cores something
    else keeps busy, it would not finish (a few seconds of CPU at about 0.3% of a core)."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    load_game_modules(game_modules)
    if warm:
        from engine.search.levels import warm_up

        warm_up()
    lower_priority(niceness, idle=idle)


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


# ---------------------------------------------------------------- event-loop side


# With the searches at the event loop's priority, 200 games with both cores searching gave
# /place p95 152 ms; at nice 10, 18 ms (python -m tests.bot.bench_load --level medium). They
# also run in the idle class (``lower_priority``), where niceness no longer weighs.
WORKER_NICENESS = 10
# Reviews run in a worker of their own, in the idle class like the live searches (so the
# kernel no longer orders the two; both take only what the event loop leaves).
REVIEW_NICENESS = 19
REVIEW_HANG_S: Final = 60.0  # how long an analysis may take before its worker counts as hung


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
        game_modules: tuple[str, ...] = (),
    ) -> None:
        self.workers = workers or len(os.sched_getaffinity(0)) or 1
        self._warm = warm
        self._idle = idle  # the workers in the idle class (``lower_priority``)
        self._game_modules = game_modules  # imported by each worker (``_init_worker``)
        self._hang_after_s = hang_after_s  # None: the level's budget x4 + 10 s
        initargs = (warm, niceness, os.getpid(), idle, game_modules)
        self._pool = WorkerPool(self.workers, _init_worker, initargs)
        self._review_pool: WorkerPool | None = None  # started by the first review
        self._closed = False

    @classmethod
    async def start(
        cls,
        workers: int | None = None,
        *,
        warm: bool = True,
        idle: bool = True,
        game_modules: tuple[str, ...] = (),
    ) -> Self:
        """A runner whose workers are already up (and warm, unless ``warm=False``), each
        having imported ``game_modules``."""
        runner = cls(workers, warm=warm, idle=idle, game_modules=game_modules)
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
        try:
            await self._pool.start_all()
        except WorkerLostError as error:
            raise AIError(error.detail) from error
        except PoolClosedError as error:
            raise AIError("closed") from error

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
            except WorkerLostError as error:
                if self._closed:
                    raise AIError("closed") from error
                log.warning("AI worker failed (attempt %d): %s; replaced it", attempt, error)
                if attempt == 2:
                    raise AIError(error.detail) from error
            except TaskError as error:
                # A bug in the search for this position: retrying would fail the same way.
                log.error("AI search raised on %r: %s", request, error)
                raise AIError(type(error.__cause__).__name__) from error
            except PoolClosedError as error:
                raise AIError("closed") from error
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
            initargs = (self._warm, REVIEW_NICENESS, os.getpid(), self._idle, self._game_modules)
            self._review_pool = WorkerPool(1, _init_worker, initargs)
        try:
            return await self._review_pool.call(run_analysis, request, REVIEW_HANG_S)
        except WorkerLostError as error:
            log.warning("review worker failed: %s; replaced it", error)
            raise AIError(error.detail) from error
        except TaskError as error:
            log.error("analysis raised on %r: %s", request, error)
            raise AIError(type(error.__cause__).__name__) from error
        except PoolClosedError as error:
            raise AIError("closed") from error

    async def close(self) -> None:
        """Stop the workers; running searches end with ``AIError`` and are not retried."""
        self._closed = True
        if self._review_pool is not None:
            await self._review_pool.close()
        await self._pool.close()
