"""The core runner: what happens after a move, for every front end alike.

``GameRunner`` subscribes to the service's events (``bot.core.service.events``) and:

- starts the AI's reply when the AI is due after a move (the AI's own too: the AI against
  the AI), a takeback or a start (``answer`` hands a front end the reply to wait for: a
  ``/place`` answered with both moves);
- runs every clock in one task: turn warnings and deadlines, challenge expiry and idle games
  (``GameService.tick_and_plan``), sleeping until the next one is due or an event brings a
  clock forward (``wake``);
- resumes pending work: at start, every AI move that was due when the process stopped, and
  every ``resume_every`` seconds the AI moves of games idle that long (a search that failed).

What the clocks and the AI do reaches the front ends as events too: they draw, the runner
decides. Time comes from the injected ``clock`` (the service's), so tests move a fake clock
and call ``wake``; ``passes`` counts the clock task's passes and ``passed`` waits for one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.core.service.events import (
    Event,
    GameStarted,
    Moved,
    Refreshed,
    TakenBack,
    TurnWarning,
    UndoAnswered,
    UndoAsked,
)
from bot.core.service.states import GameState, MoveResult

if TYPE_CHECKING:
    from bot.core.service import GameService

__all__ = ["GameRunner"]

log = logging.getLogger(__name__)

_PAUSED_LOOK = timedelta(seconds=1)  # how soon the clock task looks again while paused


class GameRunner:
    """Drives the games of one service: AI replies, clocks, resumption."""

    def __init__(
        self,
        service: GameService,
        *,
        poll: float = 30.0,
        resume_every: float = 60.0,
        clock: Callable[[], datetime] | None = None,
        paused: Callable[[], bool] | None = None,
    ) -> None:
        """``poll``: the longest sleep of the clock task, in seconds; ``resume_every``: the
        seconds between its retries of AI moves; ``clock``: the time (the service's);
        ``paused``: whether the clocks stand still now (a front end that cannot reach its
        players: nobody can move, so no clock may run out; it moves them on afterwards,
        ``GameService.shift_deadlines``); by default, whether the service's
        ``clocks_stopped_at`` says they stopped."""
        self.paused = paused or (lambda: service.clocks_stopped_at() is not None)
        self.service = service
        self.poll = poll
        self.resume_every = resume_every
        self.clock = clock or service.clock
        self.passes = 0  # the clock task's passes so far
        self.resumed = asyncio.Event()  # set once the start's resumption is done
        self._wake = asyncio.Event()
        self._passed = asyncio.Condition()
        # When the clock task's next pass starts; None while a pass runs (a change then always
        # starts another: the pass may have read the games before it).
        self._planned: datetime | None = None
        self._answers: dict[int, asyncio.Task[MoveResult | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._running = False
        self._closed = False  # closing cancelled the searches: none starts after it

    # ------------------------------------------------------------------ lifecycle

    def subscribe(self) -> None:
        """Start listening to the service (AI replies) without the clock task: for a caller
        that runs ``start`` later, once its front end can draw what the clocks do."""
        self.service.unsubscribe(self._on_event)
        self.service.subscribe(self._on_event)

    def start(self) -> None:
        """Listen, resume what was pending, and run the clocks (in tasks of the runner's)."""
        self.subscribe()
        if not self._running:
            self._running = True
            self._spawn(self._run())

    async def close(self) -> None:
        """Stop listening, stop the clocks and cancel the AI searches under way."""
        self.service.unsubscribe(self._on_event)
        self._running = False
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._answers.clear()

    def _spawn(self, coroutine: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ events

    def _on_event(self, event: Event) -> None:
        game = event.game
        if game.is_over:
            self._answers.pop(game.game_id, None)
            return
        if isinstance(event, TurnWarning | Refreshed | UndoAsked | UndoAnswered):
            # A warning, an undo request or its answer changes no clock the pass did not plan
            # (an allowed one's takeback comes as ``TakenBack``); another process's change is
            # that process's to answer (its runner starts its AI).
            return
        by_player = isinstance(event, GameStarted | TakenBack) or (
            isinstance(event, Moved) and not event.by_ai
        )
        if game.is_ai_turn and (by_player or (isinstance(event, Moved) and not _in_opening(game))):
            self._start_ai(game.game_id)
        elif by_player:
            # A player's turn now: an answer kept from before is stale.
            self._answers.pop(game.game_id, None)
        self.wake(game)

    def _start_ai(self, game_id: int) -> asyncio.Task[MoveResult | None]:
        task = self._spawn(self.service.ai_reply(game_id))
        self._answers[game_id] = task

        def done(task: asyncio.Task[MoveResult | None]) -> None:
            # Whoever waits on it (a front end's answer) reports a failure to the player; the
            # idle resumption retries the move, and here it is on record.
            if not task.cancelled() and task.exception() is not None:
                log.warning("AI move in game %s failed: %r", game_id, task.exception())

        task.add_done_callback(done)
        return task

    async def answer(self, game_id: int) -> MoveResult | None:
        """The AI's reply under way (or just made) in ``game_id``, started now if it is due
        and none is (a game picked up again): what it played, None when it was not due or the
        game changed meanwhile. Raises what the search raised (``AIFailedError``). Waiting is
        shielded: a caller that gives up leaves it running."""
        task = self._answers.get(game_id)
        if task is None:
            if self._closed:
                # Shutting down: a caller that reaches here only now (its move's board still
                # being drawn as the searches were cancelled) gets what a caller waiting then
                # got, rather than a search nothing would cancel, which would hold it past
                # the shutdown's wait for its answer.
                raise asyncio.CancelledError
            # ai_reply checks the turn, and shares a search of this position under way.
            task = self._start_ai(game_id)
        return await asyncio.shield(task)

    # ------------------------------------------------------------------ clocks

    def wake(self, game: GameState | None = None) -> None:
        """Re-plan the clock task: ``game`` got a new deadline (a move in a game with a clock,
        a new challenge); None: plan anew whatever changed. Each pass reads every open game,
        so a game wakes the task only when its clock is due before the pass already planned:
        that pass reads it anyway."""
        if game is not None:
            due = self.service.clock_due(game.record)
            if due is None or (self._planned is not None and due >= self._planned):
                return
        self._wake.set()

    async def passed(self, count: int = 1) -> None:
        """Wait until the clock task has made ``count`` more passes (for tests and tools)."""
        target = self.passes + count
        async with self._passed:
            await self._passed.wait_for(lambda: self.passes >= target)

    async def _run(self) -> None:
        await self._resume()
        self.resumed.set()
        next_resume = self.clock() + timedelta(seconds=self.resume_every)
        while self._running:
            # Cleared before the pass reads the games: a wake-up during the pass (a move, a
            # challenge) starts another one at once instead of being lost.
            self._wake.clear()
            self._planned = None
            upcoming: datetime | None
            try:
                if self.paused():
                    # The clocks stand still: look again in a second, when they may run again.
                    upcoming = self.clock() + _PAUSED_LOOK
                else:
                    _events, upcoming = await self.service.tick_and_plan()
                if self.clock() >= next_resume:
                    # Only games idle for a whole period, with no search in flight: AI moves
                    # that failed (their callers already told the players) or were never asked
                    # for. Its own task: the clocks must not wait on the AI.
                    next_resume = self.clock() + timedelta(seconds=self.resume_every)
                    self._spawn(self._resume(idle_for=timedelta(seconds=self.resume_every)))
            except Exception:
                log.exception("the clock task failed; retrying")
                upcoming = None
            self.passes += 1
            async with self._passed:
                self._passed.notify_all()
            delay = min(self.poll, (next_resume - self.clock()).total_seconds())
            if upcoming is not None:
                delay = min(delay, (upcoming - self.clock()).total_seconds())
            delay = max(0.0, delay)
            self._planned = self.clock() + timedelta(seconds=delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def _resume(self, idle_for: timedelta = timedelta(0)) -> None:
        # The moves it makes are events like any other: the front ends draw them.
        try:
            await self.service.resume(idle_for=idle_for)
        except Exception:
            log.exception("resuming games failed")


def _in_opening(game: GameState) -> bool:
    """The game's last step was its opening rule's (the AI's search takes an opening's steps
    in a row, and the first move after it, itself: ``MoveUseCases._think_and_play``)."""
    opening = game.opening
    return opening is not None and len(game.board.moves) == len(opening.board.moves)
