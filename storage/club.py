"""A tournament as frozen records: ids, enums stored by ``.value``, times as aware datetimes, no
nested containers. The repository stores and returns them (``GameRepository``'s tournament
methods); ``bot.core.club`` pairs and scores them. ``QueueEntry`` is a member waiting in a
server's pairing queue.

Colours follow the engine: ``black`` moves first (chess's White in the pairing rules),
``white`` second.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from engine.types import Color

__all__ = [
    "DAY_SECONDS",
    "MAX_NAME",
    "Entrant",
    "EntrantStatus",
    "Format",
    "NewTournament",
    "Pairing",
    "QueueEntry",
    "Result",
    "Round",
    "RoundStatus",
    "Tournament",
    "TournamentStatus",
    "check_result",
    "checked_round",
]

MAX_NAME = 100  # the longest tournament name (characters)
DAY_SECONDS = 24 * 3600  # a correspondence time control is whole days per move


class Format(enum.StrEnum):
    """How a tournament pairs its rounds."""

    SWISS = "swiss"  # FIDE Dutch-style: score groups, then rating; no repeat pairings
    ROUND_ROBIN = "round_robin"  # everyone meets everyone once, by the Berger tables
    ARENA = "arena"  # continuous pairing until the clock runs out; streaks score double


class TournamentStatus(enum.StrEnum):
    """Where a tournament is in its life."""

    OPEN = "open"  # taking entries, not started
    RUNNING = "running"  # rounds being played
    FINISHED = "finished"  # the last round ended; standings are final
    CANCELLED = "cancelled"  # stopped by an organiser before it finished


class EntrantStatus(enum.StrEnum):
    """Whether an entrant is still paired."""

    ACTIVE = "active"  # paired in the coming rounds
    WITHDRAWN = "withdrawn"  # no longer paired; past results stand


class RoundStatus(enum.StrEnum):
    """A round's progress."""

    PAIRED = "paired"  # pairings published, games under way
    FINISHED = "finished"  # every pairing has a result


class Result(enum.StrEnum):
    """A pairing's result, written as on a crosstable (Black's score first)."""

    BLACK_WINS = "1-0"  # played: Black won
    WHITE_WINS = "0-1"  # played: White won
    DRAW = "1/2-1/2"  # played: drawn
    BLACK_WINS_BY_FORFEIT = "+--"  # White did not play in time (forfeit)
    WHITE_WINS_BY_FORFEIT = "--+"  # Black did not play in time (forfeit)
    DOUBLE_FORFEIT = "--"  # neither played in time: both lose
    BYE = "bye"  # the pairing-allocated bye: Black (the only player) scores a win

    @property
    def is_played(self) -> bool:
        """Whether a game was played over the board (FIDE: forfeits and byes are not)."""
        return self in (Result.BLACK_WINS, Result.WHITE_WINS, Result.DRAW)

    def points(self, colour: Color) -> float:
        """The points this result gives the player of ``colour``."""
        black, white = _POINTS[self]
        return black if colour is Color.BLACK else white

    @classmethod
    def of_game(cls, winner: Color | None) -> Result:
        """The result of a played game won by ``winner`` (``None``: a draw)."""
        if winner is None:
            return cls.DRAW
        return cls.BLACK_WINS if winner is Color.BLACK else cls.WHITE_WINS

    @classmethod
    def forfeited_by(cls, colour: Color) -> Result:
        """The result when the player of ``colour`` did not play in time."""
        return cls.WHITE_WINS_BY_FORFEIT if colour is Color.BLACK else cls.BLACK_WINS_BY_FORFEIT


_POINTS: dict[Result, tuple[float, float]] = {
    Result.BLACK_WINS: (1.0, 0.0),
    Result.WHITE_WINS: (0.0, 1.0),
    Result.DRAW: (0.5, 0.5),
    Result.BLACK_WINS_BY_FORFEIT: (1.0, 0.0),
    Result.WHITE_WINS_BY_FORFEIT: (0.0, 1.0),
    Result.DOUBLE_FORFEIT: (0.0, 0.0),
    Result.BYE: (1.0, 0.0),
}


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament's settings and status (one row)."""

    id: int
    guild_id: int
    channel_id: int  # where it is announced and its standings posted
    name: str
    format: Format
    game: str  # a game spec's name: "gomoku", "connect4", ...
    rule: str  # an ``engine.Rule`` value for Gomoku, "" for games without rules
    rounds: int  # Swiss: the rounds to play; round-robin: derived (n - 1); arena: 0
    seconds_per_move: int  # per move; a correspondence event's is whole days (DAY_SECONDS)
    player_cap: int | None  # None: no cap
    starts_at: datetime | None  # None: an organiser starts it by hand
    arena_minutes: int | None  # arena only: how long pairing goes on
    status: TournamentStatus
    created_by: int  # the organiser's user id
    created_at: datetime


@dataclass(frozen=True, slots=True)
class NewTournament:
    """A tournament to create: the repository gives it an id, ``OPEN`` and its ``created_at``.

    Raises:
        ValueError: a field the database would refuse (the name's length, a time control or
            cap out of range, ``arena_minutes`` given for anything but an arena or missing
            for one).
    """

    guild_id: int
    channel_id: int
    name: str  # 1 to 100 characters
    format: Format
    game: str
    rule: str
    rounds: int  # Swiss: the rounds to play; round-robin and arena: 0 (derived, or none)
    seconds_per_move: int  # > 0
    created_by: int  # the organiser's user id
    player_cap: int | None = None  # None, or at least 2
    starts_at: datetime | None = None
    arena_minutes: int | None = None  # given exactly when ``format`` is ``ARENA``

    def __post_init__(self) -> None:
        if not 1 <= len(self.name) <= MAX_NAME:
            raise ValueError(f"a tournament's name has 1 to {MAX_NAME} characters")
        if self.rounds < 0 or self.seconds_per_move <= 0:
            raise ValueError("rounds must be >= 0 and seconds_per_move > 0")
        if self.player_cap is not None and self.player_cap < 2:
            raise ValueError("a player cap is at least 2")
        if (self.format is Format.ARENA) != (self.arena_minutes is not None):
            raise ValueError("arena_minutes is given for an arena, and only for one")
        if self.arena_minutes is not None and self.arena_minutes <= 0:
            raise ValueError("arena_minutes must be > 0")


@dataclass(frozen=True, slots=True)
class Entrant:
    """One player of one tournament (one row per tournament and user)."""

    tournament_id: int
    user_id: int
    rating: float  # the rating when the tournament started (or at a late join)
    seed: int  # the pairing number, 1 = highest rated; fixed at the start, 0 before it
    status: EntrantStatus
    joined_at: datetime


@dataclass(frozen=True, slots=True)
class Round:
    """One round of a tournament (one row per tournament and round number)."""

    tournament_id: int
    number: int  # 1-based
    status: RoundStatus
    paired_at: datetime
    deadline: datetime | None  # games still open then are forfeited by the clock


@dataclass(frozen=True, slots=True)
class Pairing:
    """One board of one round: who plays whom with which colour, and how it ended."""

    tournament_id: int
    round: int
    board: int  # 1-based, in the order the pairing published it
    black: int  # user id of the first player; the bye's holder when ``white`` is None
    white: int | None  # None: ``black`` has the pairing-allocated bye
    result: Result | None  # None while the game is under way
    game_id: int | None  # the game played for it; None for a bye or before it opened

    @property
    def is_bye(self) -> bool:
        """Whether this is the pairing-allocated bye."""
        return self.white is None

    def players(self) -> tuple[int, ...]:
        """The user ids on this board (one for a bye)."""
        return (self.black,) if self.white is None else (self.black, self.white)

    def colour_of(self, user_id: int) -> Color:
        """Which side ``user_id`` plays here.

        Raises:
            ValueError: ``user_id`` is not on this board.
        """
        if user_id == self.black:
            return Color.BLACK
        if user_id == self.white:
            return Color.WHITE
        raise ValueError(f"user {user_id} is not on board {self.board} of round {self.round}")

    def opponent_of(self, user_id: int) -> int | None:
        """The other player on this board (``None`` for the bye)."""
        return self.white if self.colour_of(user_id) is Color.BLACK else self.black

    def points_of(self, user_id: int) -> float:
        """The points ``user_id`` scored here (0 while unfinished)."""
        if self.result is None:
            return 0.0
        return self.result.points(self.colour_of(user_id))


@dataclass(frozen=True, slots=True)
class QueueEntry:
    """A member waiting in a server's pairing queue (one row per member: a member waits in
    one queue at a time), kept so that a restart loses nobody's place or waiting time."""

    guild_id: int
    user_id: int
    game: str  # a game spec's name: "gomoku", "connect4", ...
    rule: str  # an ``engine.Rule`` value
    rating: float  # their rating in that game and rule when they joined
    joined_at: datetime  # their wait (the window's widening, the timeout) counts from here
    channel_id: int  # where they asked: their game opens there, or in a thread off it
    in_thread: bool  # whether their game may open a thread off ``channel_id``
    language: str  # the language they were answered in (a timeout is told in it)
    # The front end's way back to their private answer, which a timeout edits (Discord: the
    # interaction token, alive 15 minutes, a secret never logged; and the answer's message);
    # None where there is none.
    token: str | None = field(repr=False)
    message_id: int | None

    def __post_init__(self) -> None:
        if self.joined_at.utcoffset() is None:
            raise ValueError(f"naive datetime {self.joined_at!r}")


def checked_round(
    tournament_id: int, number: int, pairings: Sequence[Pairing]
) -> Sequence[Pairing]:
    """``pairings`` when they make round ``number`` of the tournament: its boards 1..n in
    order, the bye (and only the bye) with one player and the result ``BYE``.

    Raises:
        ValueError: they do not.
    """
    if number < 1:
        raise ValueError(f"round {number}: rounds are numbered from 1")
    for board, pairing in enumerate(pairings, start=1):
        if (pairing.tournament_id, pairing.round, pairing.board) != (tournament_id, number, board):
            raise ValueError(f"board {board} of round {number} is numbered {pairing.board}")
        if pairing.white == pairing.black:
            raise ValueError(f"board {board} of round {number} pairs a player with themself")
        if pairing.result is not None:
            check_result(pairing, pairing.result)
        elif pairing.is_bye:
            raise ValueError(f"the bye on board {board} of round {number} has no result")
    return pairings


def check_result(pairing: Pairing, result: Result) -> None:
    """Refuse ``result`` for ``pairing`` unless it fits: ``BYE`` on the bye, and only there.

    Raises:
        ValueError: it does not fit.
    """
    if (result is Result.BYE) != pairing.is_bye:
        raise ValueError(f"{result.value} does not fit board {pairing.board}")
