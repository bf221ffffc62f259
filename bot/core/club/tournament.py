"""A tournament's course: who may enter, the pairing numbers, and the next round to pair.

Everything here is read off the stored records, so the service can ask again after a restart
and get the same answer: a round is paired only once every game of the one before has a
result, and pairing the same records twice gives the same boards (the pairing is
deterministic), which storage then holds unique per tournament, round and board.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Final

from bot.core.club.card import Pair, Player
from bot.core.club.errors import (
    AlreadyEnteredError,
    EntriesClosedError,
    RoundUnderWayError,
    StartTimeError,
    TournamentFullError,
)
from bot.core.club.roundrobin import pair_round_robin, rounds_of
from bot.core.club.swiss import swiss_round
from engine.types import Color
from storage.club import (
    Entrant,
    EntrantStatus,
    Format,
    Pairing,
    Result,
    Tournament,
    TournamentStatus,
)

MAX_START_AHEAD: Final = timedelta(days=366)  # the furthest a start time may lie ahead
# Discord's timestamp markup, ``<t:1777658400>`` or with a style, ``<t:1777658400:R>``
_DISCORD_TIME: Final = re.compile(r"<t:(-?[0-9]{1,12})(?::[tTdDfFR])?>", re.ASCII)
_LONGEST_START: Final = 40  # characters: anything longer is no time we read


def read_start_time(text: str) -> datetime:
    """A start time as an organiser types it: ISO 8601 in UTC (``2026-05-01 18:00``,
    ``2026-05-01T18:00Z``; an offset is honoured) or a Discord timestamp (``<t:1777658400>``,
    any style), as an aware UTC time (``check_start_time`` says whether it may be used).

    Raises:
        StartTimeError: unreadable.
    """
    written = text.strip()
    match = _DISCORD_TIME.fullmatch(written)
    try:
        if match is not None:
            when = datetime.fromtimestamp(int(match.group(1)), UTC)
        elif len(written) > _LONGEST_START or not written.isascii():
            raise ValueError(written)
        else:
            when = datetime.fromisoformat(written)
            when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    except (ValueError, OverflowError, OSError) as error:
        raise StartTimeError(text, StartTimeError.Reason.UNREADABLE) from error
    return when


def check_start_time(when: datetime, now: datetime) -> None:
    """Refuse a start time that is not after ``now`` or lies beyond ``MAX_START_AHEAD``.

    Raises:
        StartTimeError: passed, or too far ahead.
    """
    if when <= now:
        raise StartTimeError(when.isoformat(), StartTimeError.Reason.PASSED)
    if when - now > MAX_START_AHEAD:
        raise StartTimeError(when.isoformat(), StartTimeError.Reason.TOO_FAR)


@dataclass(frozen=True, slots=True)
class PlannedBoard:
    """One board of the round to open: the bye and forfeits come with their result."""

    board: int
    black: int
    white: int | None
    result: Result | None  # None: a game to open; else decided without one


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """The next round of a tournament."""

    round: int
    boards: tuple[PlannedBoard, ...]
    by_matching: bool  # Swiss only: the fallback matching paired it


def check_entry(tournament: Tournament, entrants: Sequence[Entrant], user_id: int) -> None:
    """Refuse an entry that the tournament cannot take; return quietly when it can.

    A Swiss or an arena takes late entries while it runs (the rounds missed score nothing);
    a round-robin only before its start.

    Raises:
        EntriesClosedError: finished, cancelled, or a round-robin under way.
        AlreadyEnteredError: the member is entered (and not withdrawn).
        TournamentFullError: the cap is reached.
    """
    status = tournament.status
    if status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED) or (
        status is TournamentStatus.RUNNING and tournament.format is Format.ROUND_ROBIN
    ):
        raise EntriesClosedError(tournament.id, status)
    active = [e for e in entrants if e.status is EntrantStatus.ACTIVE]
    if any(e.user_id == user_id for e in active):
        raise AlreadyEnteredError(tournament.id, user_id)
    if tournament.player_cap is not None and len(active) >= tournament.player_cap:
        raise TournamentFullError(tournament.id, tournament.player_cap)


def seeded(entrants: Sequence[Entrant]) -> tuple[Entrant, ...]:
    """The entrants with pairing numbers 1..n: highest rating first, then who joined first."""
    ordered = sorted(entrants, key=lambda e: (-e.rating, e.joined_at, e.user_id))
    return tuple(replace(e, seed=number) for number, e in enumerate(ordered, start=1))


def total_rounds(tournament: Tournament, entrants: Sequence[Entrant]) -> int:
    """How many rounds the tournament plays (a round-robin: by its size at the start)."""
    if tournament.format is Format.ROUND_ROBIN:
        return rounds_of(sum(1 for e in entrants if e.seed > 0))
    return tournament.rounds


def next_round(
    tournament: Tournament, entrants: Sequence[Entrant], pairings: Sequence[Pairing]
) -> RoundPlan | None:
    """The round to pair now, or None when the last round is over.

    Raises:
        RoundUnderWayError: a pairing of the latest round has no result yet.
        ValueError: an arena (it pairs continuously: ``bot.core.club.arena``).
    """
    if tournament.format is Format.ARENA:
        raise ValueError("an arena has no rounds: pair it with bot.core.club.arena")
    latest = max((p.round for p in pairings), default=0)
    if any(p.round == latest and p.result is None for p in pairings):
        raise RoundUnderWayError(tournament.id, latest)
    number = latest + 1
    rounds = total_rounds(tournament, entrants)
    if number > rounds:
        return None
    if tournament.format is Format.ROUND_ROBIN:
        seats = [Player(e.user_id, e.rating, e.seed) for e in entrants if e.seed > 0]
        pairs = pair_round_robin(seats, number)
        by_matching = False
    else:
        active = [
            Player(e.user_id, e.rating, e.seed or len(entrants) + 1 + index)
            for index, e in enumerate(entrants)
            if e.status is EntrantStatus.ACTIVE
        ]
        paired = swiss_round(active, pairings, number, total_rounds=rounds)
        pairs, by_matching = paired.pairs, paired.by_matching
    withdrawn = {e.user_id for e in entrants if e.status is EntrantStatus.WITHDRAWN}
    boards = tuple(
        PlannedBoard(board, pair.black, pair.white, _decided(pair, withdrawn))
        for board, pair in enumerate(pairs, start=1)
    )
    return RoundPlan(number, boards, by_matching)


def _decided(pair: Pair, withdrawn: set[int]) -> Result | None:
    if pair.white is None:
        return Result.BYE
    black_gone, white_gone = pair.black in withdrawn, pair.white in withdrawn
    if black_gone and white_gone:
        return Result.DOUBLE_FORFEIT
    if black_gone:
        return Result.forfeited_by(Color.BLACK)
    if white_gone:
        return Result.forfeited_by(Color.WHITE)
    return None
