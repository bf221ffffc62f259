"""The storage contract: the ``GameRepository`` Protocol, its frozen records and its errors.

The bot sees only this module. Three implementations honour it and pass one contract suite:
``storage.sqlite.SqliteGameRepository`` and ``storage.postgres.PostgresGameRepository`` (the
durable ones; their SQL is written once, in ``storage.sql``) and
``storage.memory.InMemoryGameRepository`` (the model and the fake for bot tests).

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

Errors
------
::

    StorageError
    ├── GameNotFoundError                 no game with that id (.game_id)
    ├── VersionConflictError              compare-and-set lost (.game_id, .expected, .actual)
    ├── ChannelBusyError                  the channel already has an open game (.channel_id)
    ├── InvalidStatusError                the game is not in a status that allows it
    │                                     (.game_id, .status)
    ├── MoveOrderError (also ValueError)  a move of the wrong colour, or a takeback of more
    │                                     moves than were played (.game_id, .ply, .detail)
    └── DatabaseRefusedError              the file cannot be opened as our database (.path)
        ├── ForeignDatabaseError          not our database at all (.detail)
        ├── DatabaseTooNewError           written by a newer version (.found, .supported)
        ├── CorruptDatabaseError          SQLite pages are damaged (.detail)
        ├── ReadOnlyDatabaseError         the file, folder or filesystem is read-only (.detail)
        ├── DiskFullError                 no room to write (.detail)
        └── DatabaseLockedError           another process held the lock too long (.waited_s)

The module is long because the contract is one piece: the Protocol's documented methods, the
records they take and return, and the errors they raise are read together.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar, Final, Protocol, Self

from engine.types import Color, Game, Outcome, Point, Rule

__all__ = [
    "CHALLENGE_CLOSINGS",
    "COIN_TOSS",
    "END_REASONS",
    "ChannelBusyError",
    "CorruptDatabaseError",
    "DatabaseLockedError",
    "DatabaseRefusedError",
    "DatabaseTooNewError",
    "DiskFullError",
    "ForeignDatabaseError",
    "GameNotFoundError",
    "GameOpening",
    "GameRecord",
    "GameRepository",
    "GameSnapshot",
    "GameStatus",
    "GuildSettings",
    "InvalidStatusError",
    "MoveOrderError",
    "MoveRecord",
    "NewGame",
    "PendingReply",
    "Player",
    "PlayerStats",
    "PuzzlePlayer",
    "ReadOnlyDatabaseError",
    "ResultCount",
    "StorageError",
    "StoredUndo",
    "TurnPing",
    "VersionConflictError",
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


def live_moves(history: Iterable[MoveRecord], ply: int) -> tuple[MoveRecord, ...]:
    """The live moves of a game from its append-only history (rows in write order): for each
    ply below ``ply``, the newest row written for it."""
    latest: dict[int, MoveRecord] = {}
    for move in history:
        latest[move.ply] = move
    return tuple(latest[p] for p in range(ply))


# --------------------------------------------------------------------------------------------
# Errors


class StorageError(Exception):
    """Base of every error the storage layer raises."""


class GameNotFoundError(StorageError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class VersionConflictError(StorageError):
    """Another writer changed the game since the caller read it; nothing was written."""

    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id}: expected version {expected}, found {actual}")
        self.game_id = game_id
        self.expected = expected  # the version the caller had
        self.actual = actual  # the version in the store


class ChannelBusyError(StorageError):
    """The channel already has a pending or active game."""

    def __init__(self, channel_id: int, game_id: int | None = None) -> None:
        super().__init__(f"channel {channel_id} already has open game {game_id}")
        self.channel_id = channel_id
        self.game_id = game_id  # the open game, when known


class InvalidStatusError(StorageError):
    """The operation does not apply to a game in this status (e.g. a move in a finished game)."""

    def __init__(self, game_id: int, status: GameStatus) -> None:
        super().__init__(f"game {game_id} is {status}")
        self.game_id = game_id
        self.status = status


class MoveOrderError(StorageError, ValueError):
    """A move of the wrong colour for its ply, or a takeback of more moves than exist."""

    def __init__(self, game_id: int, ply: int, detail: str) -> None:
        super().__init__(f"game {game_id} at ply {ply}: {detail}")
        self.game_id = game_id
        self.ply = ply  # the game's ply when the call was made
        self.detail = detail  # "colour" or "takeback"


class DatabaseRefusedError(StorageError):
    """The file cannot be used as our database; it was left untouched."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path  # the file, or a PostgreSQL database's address (no password)


class ForeignDatabaseError(DatabaseRefusedError):
    """The file is not a gomoku-bot database (another program's, or not SQLite at all)."""

    def __init__(self, path: Path | str, detail: str) -> None:
        super().__init__(path, f"not a gomoku-bot database ({detail})")
        self.detail = detail  # what gave it away


class DatabaseTooNewError(DatabaseRefusedError):
    """The database was written by a newer version of the bot than this one."""

    def __init__(self, path: Path | str, found: int, supported: int) -> None:
        super().__init__(path, f"schema version {found} is newer than {supported}")
        self.found = found  # the file's schema version
        self.supported = supported  # the newest this code knows


class CorruptDatabaseError(DatabaseRefusedError):
    """The file is a SQLite database, ours or not, whose pages are damaged (truncated,
    overwritten); running on it would spread the damage."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, f"damaged ({detail})")
        self.detail = detail  # SQLite's first complaint


class ReadOnlyDatabaseError(DatabaseRefusedError):
    """The file, its folder or its filesystem cannot be written (or the folder is missing)."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, f"cannot be written ({detail})")
        self.detail = detail  # what refused: the file, the folder, SQLite


class DiskFullError(DatabaseRefusedError):
    """No room to write: the disk (or the database's size limit) is full."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, f"no room to write ({detail})")
        self.detail = detail


class DatabaseLockedError(DatabaseRefusedError):
    """Another process held the database locked for the whole time we waited."""

    def __init__(self, path: Path, waited_s: float) -> None:
        super().__init__(path, f"locked by another process for {waited_s:.0f} s")
        self.waited_s = waited_s  # how long we retried


# --------------------------------------------------------------------------------------------
# The contract


class GameRepository(Protocol):
    """Durable games, moves, challenges, settings and ratings. All methods are coroutines.

    Writes that change a game take ``expected_version`` and raise ``VersionConflictError``
    if the game moved on, ``GameNotFoundError`` for an unknown id and ``InvalidStatusError``
    when the game's status does not allow the write. Every write is atomic.
    Datetimes are aware UTC; ``now`` comes from the repository's clock.
    """

    async def close(self) -> None:
        """Release the store; further calls are errors."""

    # --- games --------------------------------------------------------------------------

    async def create_game(self, new: NewGame) -> GameRecord:
        """Store a new game or challenge at version 1, ply 0.

        Raises:
            ChannelBusyError: the channel already has a pending or active game.
        """

    async def get_game(self, game_id: int) -> GameRecord:
        """The game with this id (``GameNotFoundError`` if none)."""

    async def load_game(self, game_id: int) -> GameSnapshot:
        """The game and its live moves, consistent with each other."""

    async def open_game_in_channel(self, channel_id: int) -> GameRecord | None:
        """The pending or active game of a channel, if any."""

    async def open_games(self) -> list[GameRecord]:
        """Every pending or active game, oldest first (what to resume at start-up)."""

    async def games_due(self, now: datetime) -> list[GameRecord]:
        """Open games whose ``deadline`` is at or before ``now``, earliest deadline first."""

    async def accept_challenge(
        self, game_id: int, expected_version: int, *, deadline: datetime | None = None
    ) -> GameRecord:
        """PENDING -> ACTIVE; ``deadline`` is the first turn's (None: no clock)."""

    async def close_challenge(
        self, game_id: int, expected_version: int, status: GameStatus
    ) -> GameRecord:
        """PENDING -> DECLINED, CANCELLED or EXPIRED (frees the channel).

        Raises:
            ValueError: ``status`` is not one of those three.
        """

    async def append_move(
        self,
        game_id: int,
        expected_version: int,
        point: Point,
        color: Color,
        *,
        deadline: datetime | None = None,
        outcome: Outcome | None = None,
    ) -> GameRecord:
        """Append a stone at ply ``game.ply`` (compare-and-set on the version).

        ``deadline`` is the next turn's deadline (None: no clock); it also clears the
        warning flag. A move that ends the game passes its ``outcome`` (five or draw): the
        game finishes, and a rated game's ratings change, in the same transaction.

        Raises:
            VersionConflictError: another writer won the race; nothing was written.
            InvalidStatusError: the game is not active.
            MoveOrderError: ``color`` is not the side to move.
        """

    async def game_opening(self, game_id: int) -> GameOpening | None:
        """The game's opening rule and its steps so far (None: the game has no opening rule).

        Raises:
            GameNotFoundError.
        """

    async def record_opening_step(
        self,
        game_id: int,
        expected_version: int,
        step: str,
        *,
        black: Player,
        white: Player,
        deadline: datetime | None = None,
    ) -> GameRecord:
        """Append a non-stone step (``"<ply>:<word>"``) to an active game's opening and seat
        the players (a colour choice may swap them), in one compare-and-set.

        Raises:
            VersionConflictError, GameNotFoundError, InvalidStatusError (not active),
            ValueError: the game has no opening rule.
        """

    async def take_back(
        self,
        game_id: int,
        expected_version: int,
        count: int = 1,
        *,
        deadline: datetime | None = None,
    ) -> GameRecord:
        """Take back the last ``count`` moves (compare-and-set); rows are kept, not deleted.

        Raises:
            MoveOrderError: ``count`` is not in 1..ply.
        """

    async def finish_game(
        self,
        game_id: int,
        expected_version: int,
        outcome: Outcome,
        *,
        ended_by: int | None = None,
        end_reason: str | None = None,
    ) -> GameRecord:
        """End an active game without a move (resign, timeout, abandoned, agreed draw).

        A rated game with a result (anything but ``Termination.ABANDONED``) updates both
        players' ratings and statistics in the same transaction. ``ended_by``/``end_reason``
        record who ended a game without a result, and why (one of ``END_REASONS``).

        Raises:
            ValueError: ``end_reason`` is not one of ``END_REASONS``.
        """

    async def move_game(self, game_id: int, channel_id: int, *, parent_channel_id: int) -> None:
        """Move an open game into ``channel_id`` (its thread off ``parent_channel_id``), which
        frees the parent channel (does not bump the version).

        Raises:
            ChannelBusyError: ``channel_id`` already has an open game.
            InvalidStatusError: the game is no longer open.
        """

    async def set_deadline(
        self, game_id: int, expected_version: int, deadline: datetime | None
    ) -> GameRecord:
        """Move an open game's deadline (e.g. pause the clock) and clear the warning flag."""

    async def mark_warning_sent(self, game_id: int, expected_version: int) -> None:
        """Record that this turn's low-time warning went out (does not bump the version).

        Raises ``VersionConflictError`` if the turn already changed, so a warning never
        sticks to the next turn.
        """

    async def set_message(self, game_id: int, *, channel_id: int, message_id: int) -> None:
        """Remember the message that shows the game (does not bump the version)."""

    async def mark_shown(self, shown: Mapping[int, int]) -> None:
        """Note that each game's board message shows its version ``shown[game_id]`` (an older
        version than one noted already is ignored, an unknown game skipped; does not bump the
        version)."""

    async def unshown_games(self) -> list[GameRecord]:
        """Pending and active games whose board may show less than their newest version (none
        noted, or an older one), oldest first: start-up redraws them."""

    async def move_history(self, game_id: int) -> list[MoveRecord]:
        """Every move row ever written for the game, taken back or not, in write order."""

    async def save_undo_request(self, request: StoredUndo) -> None:
        """Store the game's undo request, replacing any older one."""

    async def undo_request(self, game_id: int) -> StoredUndo | None:
        """The game's stored undo request (maybe stale: compare its version), if any."""

    async def drop_undo_request(self, game_id: int) -> None:
        """Forget the game's undo request (answered or withdrawn); no error if none."""

    async def save_review(self, game_id: int, data: str) -> None:
        """Store the game's review (opaque text, JSON by the bot), replacing any older one.

        Raises:
            GameNotFoundError: no such game.
        """

    async def review(self, game_id: int) -> str | None:
        """The game's stored review, if any."""

    async def guild_reviews(self, guild_id: int, limit: int = 20) -> list[tuple[int, str]]:
        """(game id, review) of the guild's reviewed games, the newest review first."""

    async def puzzle_player(self, guild_id: int, user_id: int) -> PuzzlePlayer | None:
        """The user's puzzle record in the guild, if any."""

    async def set_daily_puzzle_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Post the daily puzzle in ``channel_id`` (None: stop); the last posted day stays."""

    async def daily_puzzle_channels(self) -> list[tuple[int, int, str | None]]:
        """(guild, channel, last day posted) of every guild with a daily puzzle."""

    async def claim_daily_puzzle(self, guild_id: int, day: str) -> bool:
        """Mark ``day`` posted for the guild; False if it was already (compare-and-set, so
        of two callers on one day only one posts)."""

    async def save_puzzle_player(self, player: PuzzlePlayer) -> None:
        """Store the user's puzzle record, replacing the old one."""

    async def puzzle_leaderboard(self, guild_id: int, limit: int = 10) -> list[PuzzlePlayer]:
        """The guild's best puzzle solvers by rating (then by puzzles solved), with at least
        one puzzle finished."""

    async def puzzles_seen(self, guild_id: int, user_id: int) -> frozenset[str]:
        """The keys of the puzzles the user has finished (solved or failed) in the guild."""

    async def mark_puzzle_seen(self, guild_id: int, user_id: int, key: str) -> None:
        """Remember that the user finished puzzle ``key`` in the guild (again: no change)."""

    async def unsearched_games(self, limit: int = 1) -> list[int]:
        """Finished Gomoku games in a guild, with moves, that have no ``save_game_puzzles``
        yet: the newest finished first."""

    async def save_game_puzzles(self, game_id: int, data: str) -> None:
        """Store the puzzles found in the game (opaque text, JSON by the bot; may say none),
        replacing any older.

        Raises:
            GameNotFoundError: no such game.
        """

    async def guild_game_puzzles(self, guild_id: int, limit: int = 50) -> list[tuple[int, str]]:
        """(game id, puzzles) of the guild's searched games, the newest game first."""

    # --- players ------------------------------------------------------------------------

    async def user_games(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        limit: int = 20,
        before_id: int | None = None,
    ) -> list[GameRecord]:
        """A user's finished games, newest first; pass the last id seen as ``before_id``
        for the next page. ``guild_id`` restricts to one guild."""

    async def player_stats(
        self,
        user_id: int,
        game: Game = Game.GOMOKU,
        *,
        guild_id: int | None = None,
        rule: Rule = Rule.FREESTYLE,
    ) -> PlayerStats | None:
        """Rating and record in rated games of ``game`` under ``rule`` (None if the user has
        none)."""

    async def leaderboard(
        self,
        game: Game = Game.GOMOKU,
        *,
        guild_id: int | None = None,
        rule: Rule = Rule.FREESTYLE,
        limit: int = 10,
        offset: int = 0,
        min_games: int = 0,
    ) -> list[PlayerStats]:
        """Players of ``game`` under ``rule`` by ``ordinal``, best first (ties by user id);
        guild_id None = overall. Players with fewer than ``min_games`` rated games are left
        out."""

    async def user_results(self, user_id: int, *, guild_id: int | None = None) -> list[ResultCount]:
        """How the user's finished games went, one line per game kind, rule and opponent
        level (None: people), sorted by those; rated or not. ``guild_id`` restricts."""

    async def delete_user_data(self, user_id: int) -> int:
        """Forget a user: drop their ratings, statistics and undo requests, abandon their open
        games and replace them with ``Player.DELETED`` in every game (and as who started or
        ended one). Returns the games touched. Opponents' ratings are left as they are."""

    # --- guilds -------------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings (defaults if it never saved any)."""

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        """Replace the guild's settings."""

    async def set_open_turn_seconds(
        self, guild_id: int, turn_seconds: int | None, *, ai_games: bool
    ) -> int:
        """Give the guild's open games a new turn time (None: no clock), used from their next
        turn; games against the AI only with ``ai_games`` (else they lose their clock).
        Does not bump versions or move current deadlines. Returns the games changed."""

    # --- users --------------------------------------------------------------------------

    async def user_view(self, user_id: int) -> str | None:
        """How the user wants boards drawn in their private panels (None: never chose)."""

    async def save_user_view(self, user_id: int, view: str) -> None:
        """Remember the user's board view (``delete_user_data`` forgets it)."""

    async def user_language(self, user_id: int) -> str | None:
        """The language the user chose for replies (None: follow their Discord locale)."""

    async def save_user_language(self, user_id: int, language: str | None) -> None:
        """Remember the user's language; None forgets it (``delete_user_data`` does too)."""

    # --- replies to finish --------------------------------------------------------------

    async def save_pending_reply(self, reply: PendingReply) -> None:
        """Remember a deferred reply until ``drop_pending_reply``."""

    async def pending_replies(self) -> list[PendingReply]:
        """Every reply still waiting, oldest first."""

    async def drop_pending_reply(self, token: str) -> None:
        """Forget a reply (answered, or too old to answer); unknown tokens are ignored."""

    # --- turn pings ---------------------------------------------------------------------

    async def turn_ping(self, game_id: int) -> TurnPing | None:
        """The game's stored ping (None: none kept)."""

    async def save_turn_ping(self, ping: TurnPing) -> None:
        """Keep ``ping`` as its game's ping, replacing the one kept before."""

    async def drop_turn_ping(self, game_id: int) -> None:
        """Forget the game's ping (deleted, none to send); a game without one is ignored."""
