"""The servers' pairing queues: joining, leaving, and the passes that time members out and
pair them, with every place in a queue stored (``storage.club.QueueEntry``).

The pairing is ``bot.core.club.matchmaking``'s: one ``PairingQueue`` per server, this
process's copy of the stored queue. A member is stored before they count as waiting, and is
taken out of the store when they leave, time out or are paired; the store decides every
race: a member waits in one queue at a time (a second join, here or in another server, is
refused), and a timeout is told or a pair opened only when the store still held them (a
member who left meanwhile, or asked to be forgotten, is not paired; their partner waits on).

After a restart ``resume_queues`` puts every stored member back with their own join time, so
their window keeps widening from when they asked and their ten minutes keep running; the
next pass (``queue_pass``) times out whoever ran out while no process listened, for the
front end to tell them, and pairs the rest.

A pair is taken out of the store before its game opens: a process that stops between the
two leaves both out of the queue without a game (they ask again).

Leaving takes the member out wherever they wait. A member the queue paired counts as playing
until their game ends (this process hears it from the games' events); one with an open game
in the server cannot join.

``QueueUseCases`` is mixed into ``TournamentService`` (the club's service).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace
from functools import cached_property

from bot.core.club.errors import AlreadyPlayingError, AlreadyQueuedError, NotQueuedError
from bot.core.club.matchmaking import Match, PairingQueue
from bot.core.service.events import Event, GameEnded, Moved
from bot.core.service.shared import ServiceCore
from engine.types import Game, Rule
from storage.club import QueueEntry
from storage.records import GameStatus

__all__ = ["QueueMatch", "QueuePass", "QueueUseCases"]

# A member's rating when they have no rated game of the kind: what ``PlayerStats`` shows a new
# player.
_NEW_PLAYER_RATING = 1000.0


@dataclass(frozen=True, slots=True)
class QueueMatch:
    """Two members the queue paired, taken out of the store: ``black`` moves first (the
    lower rated of the two)."""

    guild_id: int
    game: Game
    rule: Rule
    black: QueueEntry
    white: QueueEntry

    @property
    def later(self) -> QueueEntry:
        """The one who asked last (their game opens where they asked)."""
        return self.black if self.black.joined_at > self.white.joined_at else self.white


@dataclass(frozen=True, slots=True)
class QueuePass:
    """What a pass did: who timed out (to be told) and who was paired (to open games for)."""

    timed_out: tuple[QueueEntry, ...]
    matches: tuple[QueueMatch, ...]


def _kind(game: str, rule: str) -> str:
    return f"{game}:{rule}"


class QueueUseCases(ServiceCore):
    """The pairing queue's use cases (see the module doc)."""

    # Made on first use, so the mixin adds no constructor of its own.
    @cached_property
    def _pairing_queues(self) -> dict[int, PairingQueue]:
        # a paired member's game over: they may queue
        self.subscribe(self._on_queue_event, (GameEnded, Moved))
        return {}

    @cached_property
    def _queued(self) -> dict[int, QueueEntry]:
        """The stored entries of the members in this process's queues, by user."""
        return {}

    def pairing_queue(self, guild_id: int) -> PairingQueue:
        """The server's queue in this process (its defaults: ``PairingQueue``'s)."""
        queues = self._pairing_queues
        queue = queues.get(guild_id)
        if queue is None:
            queue = queues[guild_id] = PairingQueue(clock=self.clock)
        return queue

    def anyone_queued(self) -> bool:
        """Whether anyone waits in this process's queues (a front end's tick runs while so)."""
        return any(len(queue) for queue in self._pairing_queues.values())

    async def join_queue(
        self,
        *,
        guild_id: int,
        user_id: int,
        game: Game,
        rule: Rule,
        channel_id: int,
        in_thread: bool,
        language: str,
        token: str | None = None,
    ) -> QueueEntry:
        """Store the member's place in the server's queue for ``game`` under ``rule`` at
        their rating there, and put them in this process's queue; ``channel_id`` and
        ``in_thread`` say where their game may open, ``language`` and ``token`` how to tell
        them of a timeout (``note_queue_answer`` adds the message).

        Raises:
            AlreadyQueuedError: they wait already, in this server's queue or another's.
            AlreadyPlayingError: the queue paired them and their game goes on, or they have
                an open game in the server.
        """
        queue = self.pairing_queue(guild_id)
        waiting = self._queued.get(user_id)
        if waiting is not None:
            raise AlreadyQueuedError(user_id, _kind(waiting.game, waiting.rule))
        if queue.is_playing(user_id):
            raise AlreadyPlayingError(user_id)
        if any(
            record.guild_id == guild_id and user_id in (record.black.user_id, record.white.user_id)
            for record in await self.repository.open_games()
        ):
            raise AlreadyPlayingError(user_id)
        stats = await self.repository.player_stats(user_id, game, guild_id=guild_id, rule=rule)
        rating = _NEW_PLAYER_RATING if stats is None else float(stats.display_rating)
        entry = QueueEntry(
            guild_id=guild_id,
            user_id=user_id,
            game=game.value,
            rule=rule.value,
            rating=rating,
            joined_at=self.clock(),
            channel_id=channel_id,
            in_thread=in_thread,
            language=language,
            token=token,
            message_id=None,
        )
        if not await self.repository.add_queue_entry(entry):
            stored = await self.repository.queue_entry(user_id)
            kind = "" if stored is None else _kind(stored.game, stored.rule)
            raise AlreadyQueuedError(user_id, kind)
        self._hold(entry)
        return entry

    async def note_queue_answer(self, user_id: int, message_id: int) -> None:
        """Keep the member's private answer to joining, which a timeout edits."""
        await self.repository.set_queue_message(user_id, message_id)
        entry = self._queued.get(user_id)
        if entry is not None and entry.message_id is None:
            self._queued[user_id] = replace(entry, message_id=message_id)

    async def leave_queue(self, user_id: int) -> QueueEntry:
        """Take the member out of the queue they wait in, whichever server's.

        Raises:
            NotQueuedError: they wait in none (or were paired or timed out just now).
        """
        stored = await self.repository.queue_entry(user_id)
        if stored is None or not await self.repository.take_queue_entries(
            stored.guild_id, [user_id]
        ):
            self._release(user_id)
            raise NotQueuedError(user_id)
        self._release(user_id)
        return stored

    async def resume_queues(self) -> int:
        """Put every stored member back in this process's queues with their own join time
        (start-up); returns how many. Whoever ran out of time meanwhile goes at the next
        ``queue_pass``."""
        restored = 0
        for entry in await self.repository.queue_entries():
            if entry.user_id not in self._queued:
                self._hold(entry)
                restored += 1
        return restored

    async def queue_pass(self, guild_id: int | None = None) -> QueuePass:
        """Time out who waited too long and pair whoever can be paired now, in one server's
        queue or in all of them; each taken out of the store first (see the module doc)."""
        timed_out: list[QueueEntry] = []
        matches: list[QueueMatch] = []
        guilds = sorted(self._pairing_queues) if guild_id is None else [guild_id]
        for guild in guilds:
            queue = self.pairing_queue(guild)
            for ticket in queue.expire():
                entry = self._queued.pop(ticket.user_id, None)
                if entry is not None and await self.repository.take_queue_entries(
                    guild, [ticket.user_id]
                ):
                    timed_out.append(entry)
            for match in queue.pair():
                taken = await self._take(guild, match)
                if taken is not None:
                    matches.append(taken)
        return QueuePass(tuple(timed_out), tuple(matches))

    def queue_match_failed(self, match: QueueMatch) -> None:
        """The front end could not open the pair's game: neither counts as playing."""
        queue = self.pairing_queue(match.guild_id)
        queue.game_over(match.black.user_id)
        queue.game_over(match.white.user_id)

    async def _take(self, guild_id: int, match: Match) -> QueueMatch | None:
        """The match, once both are taken out of the store; else None, and whoever the store
        still holds waits on (the other one left, or was forgotten, while the pass ran or
        behind this process's back)."""
        black = self._queued.pop(match.black.user_id, None)
        white = self._queued.pop(match.white.user_id, None)
        if (
            black is not None
            and white is not None
            and await self.repository.take_queue_entries(guild_id, [black.user_id, white.user_id])
        ):
            return QueueMatch(guild_id, Game(black.game), Rule(black.rule), black, white)
        queue = self.pairing_queue(guild_id)
        for user_id in (match.black.user_id, match.white.user_id):
            queue.game_over(user_id)
            stored = await self.repository.queue_entry(user_id)
            if stored is not None and stored.guild_id == guild_id and user_id not in self._queued:
                self._hold(stored)
        return None

    def _hold(self, entry: QueueEntry) -> None:
        """Put a stored entry in this process's queue of its server."""
        queue = self.pairing_queue(entry.guild_id)
        with contextlib.suppress(AlreadyQueuedError):  # put back by a resume meanwhile
            queue.join(
                entry.user_id,
                _kind(entry.game, entry.rule),
                entry.rating,
                joined_at=entry.joined_at,
            )
        self._queued[entry.user_id] = entry

    def _release(self, user_id: int) -> None:
        """Take the member out of this process's queues (they are out of the store)."""
        entry = self._queued.pop(user_id, None)
        if entry is not None:
            with contextlib.suppress(NotQueuedError):
                self.pairing_queue(entry.guild_id).leave(user_id)

    def _on_queue_event(self, event: Event) -> None:
        """A game ended: its players, if the queue paired them, may queue again."""
        if not isinstance(event, GameEnded | Moved):
            return
        game = event.game
        if game.status is not GameStatus.FINISHED or game.guild_id is None:
            return
        queue = self._pairing_queues.get(game.guild_id)
        if queue is not None:
            for user_id in game.humans:
                queue.game_over(user_id)
