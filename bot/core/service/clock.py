"""Time: turn deadlines and warnings, expiring challenges, idle games, resuming after a start."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from bot.core.service.events import GameEnded
from bot.core.service.shared import (
    _ABANDONED,
    CORRESPONDENCE_TURN,
    CORRESPONDENCE_WARNING,
    WARN_FRACTION,
    ServiceCore,
    _IdleTimes,
)
from bot.core.service.states import (
    ChallengeExpired,
    GameEnd,
    GameState,
    TimeoutEvent,
    TurnWarning,
)
from engine.types import Outcome, Termination
from storage.errors import GameNotFoundError, InvalidStatusError, VersionConflictError
from storage.records import GameRecord, GameStatus

log = logging.getLogger(__name__)


class ClockUseCases(ServiceCore):
    """Time: turn deadlines, warnings, expiring challenges, idle games, resuming after a start."""

    async def tick(self, now: datetime | None = None) -> list[TimeoutEvent]:
        """Enforce clocks at ``now`` (default: the injected clock): warn each player once at
        80% of their turn time (12 hours before the end of a turn of a day or more), end
        games whose deadline passed (the side to move loses on time; ratings updated), and
        expire unanswered challenges. The core runner's clock task calls it periodically;
        what changed reaches the front ends as events."""
        events, _records = await self._tick(now or self.clock())
        return events

    async def tick_and_plan(self) -> tuple[list[TimeoutEvent], datetime | None]:
        """``tick``, then ``next_deadline``: the runner's clock pass. The open games are read
        once when the tick changed none of them (most passes: every new challenge and every
        move in a game with a clock wakes the task, and each read makes a record per open
        game); after a change they are read again."""
        events, records = await self._tick(self.clock())
        if events:
            records = await self.repository.open_games()
        return events, await self._next_deadline(records)

    async def _tick(self, now: datetime) -> tuple[list[TimeoutEvent], list[GameRecord]]:
        events: list[TimeoutEvent] = []
        idle = _IdleTimes(self._guild_settings)
        records = await self.repository.open_games()
        for record in records:
            try:
                idle_at = await idle.ends_at(record)
                if idle_at is not None and idle_at <= now:
                    event: TimeoutEvent | None = await self._end_idle(record)
                elif record.deadline is None:
                    continue
                else:
                    event = await self._tick_game(record, now)
            except (VersionConflictError, InvalidStatusError, GameNotFoundError):
                continue  # it moved on while we looked; the next tick sees the new state
            if event is not None:
                events.append(event)
        return events, records

    async def _end_idle(self, record: GameRecord) -> GameEnd | None:
        """End a game nobody moved in for the guild's idle time, without a result."""
        async with self._lock(record.id):
            view = await self._view(record.id)
            if view.version != record.version or view.status is not GameStatus.ACTIVE:
                return None
            return await self._finish(view, _ABANDONED, end_reason="idle", by_clock=True)

    @staticmethod
    def _warn_at(record: GameRecord) -> datetime | None:
        if (
            record.status is not GameStatus.ACTIVE
            or record.deadline is None
            or record.turn_seconds is None
            or record.warning_sent
        ):
            return None
        turn = timedelta(seconds=record.turn_seconds)
        if turn >= CORRESPONDENCE_TURN:
            return record.deadline - CORRESPONDENCE_WARNING
        return record.deadline - turn * (1 - WARN_FRACTION)

    @classmethod
    def clock_due(cls, record: GameRecord) -> datetime | None:
        """When ``tick`` next has something to do for this game's clock (a warning, its turn's
        deadline or its challenge's expiry), or None. Its idle end is not counted: every move
        puts that later."""
        moments = [m for m in (record.deadline, cls._warn_at(record)) if m is not None]
        return min(moments, default=None)

    async def _tick_game(self, record: GameRecord, now: datetime) -> TimeoutEvent | None:
        deadline = record.deadline
        assert deadline is not None
        warn_at = self._warn_at(record)
        if deadline > now and (warn_at is None or warn_at > now):
            return None
        async with self._lock(record.id):
            view = await self._view(record.id)
            if view.version != record.version:
                return None
            if deadline <= now:
                if view.status is GameStatus.PENDING:
                    closed = await self.repository.close_challenge(
                        view.game_id, view.version, GameStatus.EXPIRED
                    )

                    def expired(state: GameState) -> GameEnded:
                        return GameEnded(state, by_clock=True)

                    state = self._remember(closed, view.board, view.opening, expired)
                    return ChallengeExpired(state)
                if view.player(view.acting_color).is_ai:
                    return None  # the AI has no clock; resume() makes its move
                loser = view.acting_color
                outcome = Outcome(Termination.TIMEOUT, loser.opponent)
                return await self._finish(view, outcome, by_clock=True)
            user_id = view.player(view.acting_color).user_id
            await self.repository.mark_warning_sent(view.game_id, view.version)
            if user_id is None:
                return None
            warning = TurnWarning(view, user_id, deadline)
            self.events.publish(warning)
            return warning

    async def shift_deadlines(self, by: timedelta) -> int:
        """Move every open game's clock (a turn's deadline, a challenge's expiry) ``by`` later:
        nobody could move while Discord was unreachable, so an outage's length is given back.
        One write for all games, which keeps each game's version and warning: the turn is the
        same turn (a warned player is not warned again, a panel opened before stays valid),
        so the cached positions stay right. Returns how many games moved; the runner's
        clock task, paused while the clocks stood still, plans with the new deadlines at its
        next look."""
        return await self.repository.shift_deadlines(by)

    async def next_deadline(self) -> datetime | None:
        """The earliest moment ``tick`` has something to do (a warning, a deadline or a
        challenge expiry), or None; the runner's clock task can sleep until then."""
        return await self._next_deadline(await self.repository.open_games())

    async def _next_deadline(self, records: Sequence[GameRecord]) -> datetime | None:
        moments = []
        idle = _IdleTimes(self._guild_settings)
        for record in records:
            due = self.clock_due(record)
            if due is not None:
                moments.append(due)
            idle_at = await idle.ends_at(record)
            if idle_at is not None:
                moments.append(idle_at)
        return min(moments, default=None)
