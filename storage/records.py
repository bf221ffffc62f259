"""The frozen records of the storage contract: what ``GameRepository`` takes and returns.

Every repository (``storage.repository``) speaks in these; the bot never sees a row or a dict.

Model
-----
* A *game* row holds everything but the moves. A challenge is a game in status ``PENDING``;
  accepting it makes it ``ACTIVE``; declining, withdrawing or letting it expire closes it
  (``DECLINED``, ``CANCELLED``, ``EXPIRED``) without a result. A game that is played ends
  ``FINISHED`` with an ``engine.Outcome`` (termination + winner, ``None`` winner = draw or
  abandoned). At most one ``PENDING``/``ACTIVE`` ("open") game per channel.
* Every change of game state bumps ``version``; every write that changes state takes the
  version the caller last saw (``expected_version``) and fails with
  ``VersionConflictError`` when another writer got there first (compare-and-set). Side
  attributes that do not change the game (the message showing it, the 80 % warning flag)
  do not bump the version, so they never make a move fail.
* Moves are append-only: a takeback lowers the game's ``ply`` and records itself, but no
  move row is ever changed or deleted. The live moves are, for each ply below ``ply``, the
  most recent row written for that ply (a takeback followed by a new move at the same ply
  writes a newer row). ``move_history`` keeps everything, so disputes can be replayed.
* ``deadline`` means "when something happens by itself": for a ``PENDING`` game the
  challenge expires, for an ``ACTIVE`` game the player to move runs out of time.
* Ratings: OpenSkill Plackett-Luce (see ``storage.ratings``), kept per game kind, overall
  and per guild, updated in the transaction that finishes a rated game. Only games between
  two humans are rated: AI levels are fixed presets, not a population of players, and
  rating them would let anyone farm a weak level for points.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import ClassVar, Final, Self

from engine.types import Color, Game, Outcome, Point, Rule

__all__ = [
    "CHALLENGE_CLOSINGS",
    "COIN_TOSS",
    "END_REASONS",
    "GameOpening",
    "GameRecord",
    "GameSnapshot",
    "GameStatus",
    "GuildSettings",
    "MoveRecord",
    "NewGame",
    "PendingReply",
    "Player",
    "PlayerStats",
    "PuzzlePlayer",
    "ResultCount",
    "StoredUndo",
    "TurnPing",
    "live_moves",
    "utc_now",
]


def utc_now() -> datetime:
    """The current time as an aware UTC datetime (the repositories' default clock)."""
    return datetime.now(UTC)


def _require_aware(name: str, value: datetime | None) -> None:
    if value is not None and value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware, got {value!r}")


# --------------------------------------------------------------------------------------------
# Value types


class GameStatus(enum.StrEnum):
    """Where a game is in its life."""

    PENDING = "pending"  # a challenge waiting for the opponent to accept
    ACTIVE = "active"  # being played
    FINISHED = "finished"  # played to an end; ``outcome`` says how
    DECLINED = "declined"  # the challenged player said no
    CANCELLED = "cancelled"  # the challenger withdrew before it was accepted
    EXPIRED = "expired"  # nobody accepted before the challenge's deadline

    @property
    def is_open(self) -> bool:
        """Whether the game still occupies its channel (pending or active)."""
        return self in (GameStatus.PENDING, GameStatus.ACTIVE)


CHALLENGE_CLOSINGS = frozenset({GameStatus.DECLINED, GameStatus.CANCELLED, GameStatus.EXPIRED})
END_REASONS = frozenset({"moderator", "idle", "replaced"})  # GameRecord.end_reason values


@dataclass(frozen=True, slots=True)
class Player:
    """Who sits in a seat: a Discord user, an AI level, or a user whose data was deleted.

    Build one with ``Player.human(user_id)`` or ``Player.ai(level)``; ``Player.DELETED``
    (both fields ``None``) replaces a user in old games after ``delete_user_data``.
    """

    DELETED: ClassVar[Player]  # the seat of a user whose data was deleted

    user_id: int | None = None  # Discord user id of a human player
    level: str | None = None  # an ``engine.search.levels.Level`` value ("medium") for the AI

    def __post_init__(self) -> None:
        if self.user_id is not None and self.level is not None:
            raise ValueError("a player is a user or an AI level, not both")
        if self.level is not None:
            # Level is a StrEnum; keep the plain value so records compare equal after a load.
            object.__setattr__(self, "level", str(self.level))

    @classmethod
    def human(cls, user_id: int) -> Self:
        """A Discord user."""
        return cls(user_id=user_id)

    @classmethod
    def ai(cls, level: str) -> Self:
        """The bot playing at ``level`` (an ``engine.search.levels.Level`` or its value)."""
        return cls(level=level)

    @property
    def is_ai(self) -> bool:
        """Whether the bot plays this seat."""
        return self.level is not None

    @property
    def is_human(self) -> bool:
        """Whether a (not deleted) Discord user plays this seat."""
        return self.user_id is not None

    @property
    def is_deleted(self) -> bool:
        """Whether this seat's user asked for their data to be deleted."""
        return self.user_id is None and self.level is None

    def __str__(self) -> str:
        if self.user_id is not None:
            return f"user:{self.user_id}"
        return f"ai:{self.level}" if self.level is not None else "deleted"


Player.DELETED = Player()


@dataclass(frozen=True, slots=True)
class NewGame:
    """What it takes to create a game (or a challenge: ``status=GameStatus.PENDING``).

    Raises:
        ValueError: for a rated game with an AI seat, a status other than pending/active,
            a board outside 1..26 per side, a non-positive turn time, or a naive datetime.
    """

    guild_id: int | None  # Discord guild; None for the terminal front-end
    channel_id: int  # the channel (or thread) the game occupies
    black: Player  # moves first
    white: Player
    game: Game = Game.GOMOKU
    width: int = 15
    height: int = 15
    rule: Rule = Rule.FREESTYLE
    rated: bool = False  # only human vs human games may be rated
    status: GameStatus = GameStatus.ACTIVE  # PENDING for a challenge
    deadline: datetime | None = None  # challenge expiry (PENDING) or first turn's deadline
    turn_seconds: int | None = None  # time per turn; None = no clock
    created_by: int | None = None  # the user who started it (the challenger)
    opening: str | None = None  # an opening rule (``engine.opening_rules.OpeningRule`` value)

    def __post_init__(self) -> None:
        if self.status not in (GameStatus.PENDING, GameStatus.ACTIVE):
            raise ValueError(f"a new game is pending or active, not {self.status}")
        if self.rated and not (self.black.is_human and self.white.is_human):
            raise ValueError("only games between two humans are rated")
        if self.rated and self.black.user_id == self.white.user_id:
            raise ValueError("a game against yourself is not rated")
        if not (1 <= self.width <= 26 and 1 <= self.height <= 26):
            raise ValueError(f"board {self.width}x{self.height} out of range")
        if self.turn_seconds is not None and self.turn_seconds <= 0:
            raise ValueError(f"turn_seconds must be positive, got {self.turn_seconds}")
        _require_aware("deadline", self.deadline)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game as stored (without its moves: see ``GameSnapshot``)."""

    id: int
    guild_id: int | None  # None for the terminal front-end
    channel_id: int
    game: Game
    width: int
    height: int
    rule: Rule
    black: Player
    white: Player
    status: GameStatus
    outcome: Outcome | None  # set exactly when status is FINISHED
    rated: bool
    message_channel_id: int | None  # where the message showing the game lives
    message_id: int | None
    deadline: datetime | None  # challenge expiry (PENDING) or turn deadline (ACTIVE)
    warning_sent: bool  # the "time is running out" warning for this turn went out
    turn_seconds: int | None  # time per turn; None = no clock
    created_by: int | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None  # when it left the open statuses
    ply: int  # number of live moves; the side to move follows from it
    version: int  # bumped by every change of game state; the compare-and-set token
    ended_by: int | None = None  # who ended it without a result (a moderator, a replacement)
    end_reason: str | None = None  # "moderator", "idle" or "replaced" (see ``END_REASONS``)
    parent_channel_id: int | None = None  # the channel a game hosted in a thread hangs off

    @property
    def size(self) -> int:
        """The side of a square board (the width; gomoku boards are square)."""
        return self.width

    @property
    def is_open(self) -> bool:
        """Whether the game still occupies its channel (pending or active)."""
        return self.status.is_open

    @property
    def to_move(self) -> Color:
        """The side whose turn it is (Black moves first in every game we host)."""
        return Color.BLACK if self.ply % 2 == 0 else Color.WHITE

    def player(self, color: Color) -> Player:
        """Who plays ``color``."""
        return self.black if color is Color.BLACK else self.white

    def color_of(self, user_id: int) -> Color | None:
        """The colour ``user_id`` plays here, or None (Black wins a tie: playing yourself)."""
        if self.black.user_id == user_id:
            return Color.BLACK
        if self.white.user_id == user_id:
            return Color.WHITE
        return None


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One stone as written. Rows are never changed; a takeback only makes them not live."""

    game_id: int
    ply: int  # 0-based index in the game
    point: Point
    color: Color
    made_at: datetime
    seq: int  # the game version this row created; orders rows, unique per game


@dataclass(frozen=True, slots=True)
class GameSnapshot:
    """A game and its live moves, read together in one transaction."""

    game: GameRecord
    moves: tuple[MoveRecord, ...]  # live moves, ply 0 first; len == game.ply


@dataclass(frozen=True, slots=True)
class GameOpening:
    """The opening rule a game started with and its steps that are not stones.

    Stones are ordinary moves; each other step (a choice, a number of fifth moves, a
    fifth-move offer) is stored as ``"<stones on the board>:<word>"`` so the opening can be
    replayed by interleaving the two.
    """

    game_id: int
    rule: str  # an ``engine.opening_rules.OpeningRule`` value
    steps: tuple[str, ...] = ()  # "3:two", "5:white", in the order taken


COIN_TOSS: Final = "random"  # GuildSettings.rated_opening: no opening rule, colours by coin toss


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """Per-guild preferences; a guild that never saved any gets ``GuildSettings(guild_id)``."""

    guild_id: int
    default_rule: Rule = Rule.FREESTYLE
    turn_seconds: int | None = None  # default time per turn; None = no clock
    board_style: str = "emoji"  # how boards are shown (emoji, compact or image); emoji by default
    allowed_channel_ids: frozenset[int] = field(default_factory=frozenset)  # empty = anywhere
    use_threads: bool = True  # host each game in its own thread off the channel (where the
    # bot may open one; the front-end falls back to the channel)
    moderator_role_id: int | None = None  # may end games, besides Manage Messages
    idle_human_seconds: int | None = None  # a game between people with no move this long
    # ends by itself; None = DEFAULT_IDLE_HUMAN
    idle_ai_seconds: int | None = None  # the same against the AI; None = DEFAULT_IDLE_AI
    turn_pings: bool = True  # ping the player to move in games between people
    ai_clock: bool = False  # the turn time applies to games against the AI too
    # How rated games that name no opening rule begin: an ``OpeningRule`` value, or ``"random"``
    # for no opening rule and colours by a coin toss; None: the front-end's default (swap2).
    rated_opening: str | None = None
    language: str | None = None  # public messages' language (bot.text.i18n); None: Discord's

    def __post_init__(self) -> None:
        if self.turn_seconds is not None and self.turn_seconds <= 0:
            raise ValueError(f"turn_seconds must be positive, got {self.turn_seconds}")
        for name in ("idle_human_seconds", "idle_ai_seconds"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        object.__setattr__(self, "allowed_channel_ids", frozenset(self.allowed_channel_ids))

    def allows(self, channel_id: int) -> bool:
        """Whether games may be played in ``channel_id``."""
        return not self.allowed_channel_ids or channel_id in self.allowed_channel_ids


@dataclass(frozen=True, slots=True)
class PendingReply:
    """A deferred ("thinking...") interaction reply that the AI's move will fill in; kept so
    that a restart can still answer it while its token lives (15 minutes)."""

    token: str  # the interaction token (a secret: never logged)
    game_id: int
    application_id: int
    message_id: int  # the reply message
    user_id: int  # who is waiting
    created_at: datetime

    def __post_init__(self) -> None:
        _require_aware("created_at", self.created_at)


@dataclass(frozen=True, slots=True)
class TurnPing:
    """A game's newest "your move" message, kept so that a restarted bot still deletes it
    when the next ping replaces it or the game ends."""

    game_id: int
    channel_id: int  # where it was sent (a game may move into a thread later)
    message_id: int
    version: int  # the game's version it announced


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's rating and record for one game kind and rule, overall (guild_id None) or in a
    guild.

    Only rated games count here. ``mu``/``sigma`` are OpenSkill Plackett-Luce parameters;
    ``ordinal`` (mu - 3 sigma) is the conservative estimate leaderboards sort by.
    """

    user_id: int
    game: Game
    guild_id: int | None  # None = across all guilds
    mu: float
    sigma: float
    wins_black: int = 0
    wins_white: int = 0
    losses_black: int = 0
    losses_white: int = 0
    draws_black: int = 0
    draws_white: int = 0
    streak: int = 0  # current run: +n wins, -n losses, 0 after a draw
    best_streak: int = 0  # longest run of wins
    updated_at: datetime | None = None  # last rated game; None for a player never rated
    rule: Rule = Rule.FREESTYLE  # each rule of a game kind is rated apart

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate mu - 3 sigma (0 for a new player)."""
        return self.mu - 3.0 * self.sigma

    @property
    def display_rating(self) -> int:
        """A friendly integer: 1000 for a new player, roughly 1700-2000 once established."""
        return round(1000 + 40 * self.ordinal)

    @property
    def wins(self) -> int:
        """Wins with either colour."""
        return self.wins_black + self.wins_white

    @property
    def losses(self) -> int:
        """Losses with either colour."""
        return self.losses_black + self.losses_white

    @property
    def draws(self) -> int:
        """Draws with either colour."""
        return self.draws_black + self.draws_white

    @property
    def games(self) -> int:
        """Rated games played."""
        return self.wins + self.losses + self.draws


@dataclass(frozen=True, slots=True)
class ResultCount:
    """How a user's finished games of one kind went, by opponent: every game counts here,
    rated or not (``PlayerStats`` holds ratings, which only games between people change)."""

    game: Game
    rule: Rule
    opponent_level: str | None  # the AI's level, or None for games against people
    wins: int = 0
    losses: int = 0
    draws: int = 0  # drawn games (a full board)
    unfinished: int = 0  # abandoned, or ended without a result

    @property
    def games(self) -> int:
        """Games counted in this line."""
        return self.wins + self.losses + self.draws + self.unfinished


@dataclass(frozen=True, slots=True)
class PuzzlePlayer:
    """A puzzle solver in one guild: rating, runs and the attempt in progress."""

    guild_id: int
    user_id: int
    rating: int = 1200
    streak: int = 0  # puzzles solved in a row now
    best_streak: int = 0
    solved: int = 0
    failed: int = 0
    attempt: str | None = None  # the puzzle in progress (opaque text, JSON by the bot)


@dataclass(frozen=True, slots=True)
class StoredUndo:
    """An undo request waiting for the opponent; stale once the game's version moved on."""

    game_id: int
    requester: int  # the user who asked
    responder: int  # the user who must agree
    version: int  # the game's version when asked
    moves: int  # how many moves would go
    made_at: datetime
    # The Discord message that asks the responder, with the buttons that answer it (None:
    # not posted, or not yet noted): whoever sees the request end edits it.
    channel_id: int | None = None
    message_id: int | None = None


def live_moves(history: Iterable[MoveRecord], ply: int) -> tuple[MoveRecord, ...]:
    """The live moves of a game from its append-only history (rows in write order): for each
    ply below ``ply``, the newest row written for it."""
    latest: dict[int, MoveRecord] = {}
    for move in history:
        latest[move.ply] = move
    return tuple(latest[p] for p in range(ply))
