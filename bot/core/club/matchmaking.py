"""The pairing queue: members ask for a game of a kind, and the two closest in rating are paired
within a window that widens while they wait.

Two waiting members of the same kind may meet when their ratings differ by no more than the
narrower of their two windows; each window starts at ``base_window`` and widens by
``widen_per_second`` up to ``max_window``. Each pass pairs the closest acceptable pair first,
then the closest among the rest, and so on. A member waits at most ``timeout_s``. A member
paired by the queue counts as playing until their game ends; one playing elsewhere says so on
joining. Time comes from an injected clock, so every outcome is reproducible.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.core.club.errors import AlreadyPlayingError, AlreadyQueuedError, NotQueuedError


@dataclass(frozen=True, slots=True)
class Ticket:
    """A member waiting for a game."""

    user_id: int
    kind: str  # what they want to play: "gomoku:freestyle", "connect4", ...
    rating: float
    joined_at: datetime


@dataclass(frozen=True, slots=True)
class Match:
    """Two members the queue paired: ``black`` moves first (the lower rated of the two)."""

    kind: str
    black: Ticket
    white: Ticket


class PairingQueue:
    """The queue of one server (no I/O; see the module doc)."""

    def __init__(
        self,
        *,
        clock: Callable[[], datetime],
        base_window: float = 100.0,
        widen_per_second: float = 5.0,
        max_window: float = 600.0,
        timeout_s: float = 600.0,
    ) -> None:
        self._clock = clock
        self.base_window = base_window
        self.widen_per_second = widen_per_second
        self.max_window = max_window
        self.timeout_s = timeout_s
        self._tickets: dict[int, Ticket] = {}
        self._playing: set[int] = set()

    def __len__(self) -> int:
        return len(self._tickets)

    def __contains__(self, user_id: object) -> bool:
        return user_id in self._tickets

    def join(
        self,
        user_id: int,
        kind: str,
        rating: float,
        *,
        playing: bool = False,
        joined_at: datetime | None = None,
    ) -> Ticket:
        """Put a member in the queue for ``kind``; ``playing``: they have a game elsewhere;
        ``joined_at``: when they joined, if not now (a member put back after a restart).

        Raises:
            AlreadyPlayingError: the member plays a game (here or elsewhere).
            AlreadyQueuedError: the member already waits (for any kind).
        """
        if playing or user_id in self._playing:
            raise AlreadyPlayingError(user_id)
        waiting = self._tickets.get(user_id)
        if waiting is not None:
            raise AlreadyQueuedError(user_id, waiting.kind)
        ticket = Ticket(user_id, kind, rating, self._clock() if joined_at is None else joined_at)
        self._tickets[user_id] = ticket
        return ticket

    def leave(self, user_id: int) -> Ticket:
        """Take a member out of the queue.

        Raises:
            NotQueuedError: the member was not waiting.
        """
        ticket = self._tickets.pop(user_id, None)
        if ticket is None:
            raise NotQueuedError(user_id)
        return ticket

    def ticket(self, user_id: int) -> Ticket | None:
        """The member's place in the queue (None: not waiting)."""
        return self._tickets.get(user_id)

    def is_playing(self, user_id: int) -> bool:
        """Whether the queue paired the member and their game has not ended yet."""
        return user_id in self._playing

    def game_over(self, user_id: int) -> None:
        """A member the queue paired has finished their game: they may queue again."""
        self._playing.discard(user_id)

    def window(self, ticket: Ticket) -> float:
        """How far from its rating ``ticket`` accepts an opponent now."""
        waited = max(0.0, (self._clock() - ticket.joined_at).total_seconds())
        return min(self.max_window, self.base_window + self.widen_per_second * waited)

    def expire(self) -> tuple[Ticket, ...]:
        """Take out and return the tickets that waited ``timeout_s`` or longer."""
        now = self._clock()
        gone = tuple(
            t
            for t in self._tickets.values()
            if (now - t.joined_at).total_seconds() >= self.timeout_s
        )
        for ticket in gone:
            del self._tickets[ticket.user_id]
        return gone

    def pair(self) -> tuple[Match, ...]:
        """Pair whoever can be paired now; the paired leave the queue and count as playing."""
        by_kind: dict[str, list[Ticket]] = {}
        for ticket in self._tickets.values():
            by_kind.setdefault(ticket.kind, []).append(ticket)
        matches: list[Match] = []
        for kind in sorted(by_kind):
            matches.extend(self._pair_kind(kind, by_kind[kind]))
        for match in matches:
            for ticket in (match.black, match.white):
                del self._tickets[ticket.user_id]
                self._playing.add(ticket.user_id)
        return tuple(matches)

    def _pair_kind(self, kind: str, tickets: list[Ticket]) -> list[Match]:
        tickets.sort(key=lambda t: (t.rating, t.joined_at, t.user_id))
        ratings = [t.rating for t in tickets]
        windows = [self.window(t) for t in tickets]
        candidates: list[tuple[float, datetime, int, int]] = []
        for i, ticket in enumerate(tickets):
            # Partners lie within this ticket's own window (the narrower one decides).
            end = bisect.bisect_right(ratings, ticket.rating + windows[i], lo=i + 1)
            for j in range(i + 1, end):
                gap = ratings[j] - ticket.rating
                if gap <= windows[j]:
                    joined = min(ticket.joined_at, tickets[j].joined_at)
                    candidates.append((gap, joined, i, j))
        candidates.sort()
        taken: set[int] = set()
        matches: list[Match] = []
        for _gap, _joined, i, j in candidates:
            if i in taken or j in taken:
                continue
            taken.update((i, j))
            # ``tickets`` is sorted by rating: ``i`` is the lower rated and moves first.
            matches.append(Match(kind, tickets[i], tickets[j]))
        return matches
