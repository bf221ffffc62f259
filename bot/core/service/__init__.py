"""GameService: the bot's use-cases, free of Discord (the cogs and the terminal both call it).

The service turns "user 42 plays h8 in channel 7" into engine and repository calls. It knows
players and turns; the engine knows the rules; the repository keeps everything durable. It
returns frozen views (``GameState``, ``MoveResult`` ...) that ``bot.text.render`` draws, and raises
``GameServiceError`` subclasses (or the engine's ``IllegalMoveError`` subclasses) that
``bot.text.refusals.user_message`` turns into words.

Errors::

    GomokuError (engine.errors)
    └── GameServiceError
        ├── NoActiveGameError          no open game in this channel (.channel_id)
        ├── NoSuchGameError            no game with this id (.game_id)
        ├── GameExistsError            the channel already has a game (.channel_id, .game_id)
        ├── GameNotActiveError         pending, finished or closed (.game_id, .status)
        ├── NotAPlayerError            the user does not play in this game (.user_id, .game_id)
        ├── NotYourTurnError           (.user_id, .game_id)
        ├── AIThinkingError            it is the AI's turn; wait for its move (.game_id)
        ├── ChallengeExpiredError      the challenge ran out before it was answered (.game_id)
        ├── NotChallengedError         only the challenged user may accept (.user_id, .game_id)
        ├── SelfChallengeError         a user challenged themself (.user_id)
        ├── InvalidOptionError         an option out of range (.option, .value, .allowed)
        ├── ChannelNotAllowedError     the guild plays in other channels (.channel_id)
        ├── HintNotAllowedError        no hints in rated games (.game_id)
        ├── NoMoveToUndoError          no move of the user's to take back (.game_id)
        ├── UndoPendingError           an undo request already waits (.game_id)
        ├── NoUndoRequestError         nothing to answer, or the game moved on (.game_id)
        ├── NotReplaceableError        the game in the way is not the user's own AI game
        │                              (.user_id, .game_id)
        ├── OutOfTimeError             the move came after the mover's deadline: the game
        │                              ended, lost on time (.game_id, .user_id, .end)
        ├── StalePanelError            a tap on a panel drawn before the game moved on
        │                              (.game_id, .version)
        ├── NotationError              a move written the way the other kind of game writes
        │                              them: a column in Gomoku, a point in Connect Four
        │                              (.game, .width, .typed_column)
        ├── RematchError               no rematch of this game: not finished, or the
        │                              channel is busy (.game_id)
        └── AIFailedError              the AI could not produce a move (.game_id)

Concurrency: every action on one game takes that game's ``asyncio.Lock``, re-reads the game
inside it and then writes through the repository's compare-and-set on the game's version.
Two ``place`` calls at the same instant: the first is applied, the second sees the new
position and fails with ``NotYourTurnError`` (same player) or ``OccupiedPointError`` (the
opponent on the same point). The AI searches *outside* the lock; if the game changed while it
thought (undo, resign, timeout), its move is dropped.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Final, TypeAlias, TypeVar

import numpy as np

from bot.core.ai import AIError, AIRequest
from bot.core.languages import LANGUAGES
from bot.core.positions import forbidden_points
from engine.board import MAX_SIZE, MIN_SIZE, Board
from engine.errors import (
    GomokuError,
    IllegalMoveError,
    OpeningError,
    OpeningStepError,
    UnsupportedBoardError,
)
from engine.opening_rules import Opening, OpeningRule, Seat
from engine.records import move_text, to_sgf
from engine.types import Color, Game, Level, Move, Outcome, Point, Rule, Termination
from storage.repository import (
    ChannelBusyError,
    GameNotFoundError,
    GameOpening,
    GameRecord,
    GameStatus,
    GuildSettings,
    InvalidStatusError,
    NewGame,
    Player,
    PlayerStats,
    ResultCount,
    StoredUndo,
    VersionConflictError,
)

if TYPE_CHECKING:
    from bot.core.ai import AIRunner
    from storage.repository import GameRepository

__all__ = [
    "DEFAULT_CHALLENGE_TTL",
    "DEFAULT_IDLE_AI",
    "DEFAULT_IDLE_HUMAN",
    "DEFAULT_LEVEL",
    "HINT_LEVEL",
    "AIFailedError",
    "AIThinkingError",
    "ChallengeExpired",
    "ChallengeExpiredError",
    "ChannelNotAllowedError",
    "ColourChoice",
    "Export",
    "GameEnd",
    "GameExistsError",
    "GameNotActiveError",
    "GameService",
    "GameServiceError",
    "GameState",
    "GameStatus",
    "HintNotAllowedError",
    "HintView",
    "InvalidOptionError",
    "MoveResult",
    "NoActiveGameError",
    "NoMoveToUndoError",
    "NoSuchGameError",
    "NoUndoRequestError",
    "NotAPlayerError",
    "NotChallengedError",
    "NotReplaceableError",
    "NotYourTurnError",
    "NotationError",
    "OtherChannelError",
    "OutOfTimeError",
    "Player",
    "RatingChange",
    "RematchError",
    "SelfChallengeError",
    "StalePanelError",
    "TimeoutEvent",
    "TurnWarning",
    "UndoPendingError",
    "UndoRequest",
    "UndoResult",
    "UnknownButtonError",
    "idle_time",
]

log = logging.getLogger(__name__)

DEFAULT_LEVEL: Final = Level.MEDIUM.value  # the bot's default opponent
HINT_LEVEL: Final = "hard"  # hints search at this level
DEFAULT_CHALLENGE_TTL: Final = timedelta(minutes=10)
WARN_FRACTION: Final = 0.8  # warn the player to move when 80% of the turn time has gone
MAX_TURN_SECONDS: Final = 30 * 24 * 3600
BOARD_STYLES: Final = ("emoji", "compact", "image")  # bot.text.render.BoardStyle values
DEFAULT_IDLE_HUMAN: Final = timedelta(days=7)  # a game between people with no move this long ends
DEFAULT_IDLE_AI: Final = timedelta(days=1)  # the same against the AI
MAX_IDLE_SECONDS: Final = 90 * 24 * 3600
BOARD_VIEWS: Final = ("full", "phone", "image")  # how a user sees boards in private panels
DEFAULT_VIEW: Final = "phone"
# Games whose newest position is kept between calls: one entry a game, not a version (a
# cache by version held 512 positions, fewer games than 500 concurrent ones, and every move
# read its game back).
_BOARD_CACHE: Final = 4096
_ABANDONED: Final = Outcome(Termination.ABANDONED, None)


# --------------------------------------------------------------------------- errors


class GameServiceError(GomokuError):
    """Base of the errors the service raises for a request it refuses."""


class NoActiveGameError(GameServiceError):
    """The channel has no pending or active game."""

    def __init__(self, channel_id: int) -> None:
        super().__init__(f"no active game in channel {channel_id}")
        self.channel_id = channel_id


class NoSuchGameError(GameServiceError):
    """No game has this id (a stale button, a typo)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class GameExistsError(GameServiceError):
    """The channel already has a pending or active game."""

    def __init__(self, channel_id: int, game_id: int | None) -> None:
        super().__init__(f"channel {channel_id} already has game {game_id}")
        self.channel_id = channel_id
        self.game_id = game_id  # the game in the way, when known


class GameNotActiveError(GameServiceError):
    """The game is not in a status that allows this (still a challenge, or already over)."""

    def __init__(self, game_id: int, status: GameStatus) -> None:
        super().__init__(f"game {game_id} is {status}")
        self.game_id = game_id
        self.status = status


class OtherChannelError(GameServiceError):
    """A button of a game that is open, but in another channel than the one pressed in."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id} is open in another channel")
        self.game_id = game_id


class UnknownButtonError(GameServiceError):
    """A button whose custom id names no action (forged, or from a removed feature)."""


class NotAPlayerError(GameServiceError):
    """The user does not play in this game (or is not the one who must answer)."""

    def __init__(self, user_id: int, game_id: int) -> None:
        super().__init__(f"user {user_id} does not play in game {game_id}")
        self.user_id = user_id
        self.game_id = game_id


class NotYourTurnError(GameServiceError):
    """The user plays in the game but it is the other side's turn."""

    def __init__(self, user_id: int, game_id: int) -> None:
        super().__init__(f"not user {user_id}'s turn in game {game_id}")
        self.user_id = user_id
        self.game_id = game_id


class AIThinkingError(GameServiceError):
    """It is the AI's turn: the request has to wait for its move."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"the AI is to move in game {game_id}")
        self.game_id = game_id


class ChallengeExpiredError(GameServiceError):
    """The challenge was not answered in time."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"challenge {game_id} expired")
        self.game_id = game_id


class NotChallengedError(GameServiceError):
    """Only the challenged user may accept (and only the two of them may decline)."""

    def __init__(self, user_id: int, game_id: int) -> None:
        super().__init__(f"user {user_id} was not challenged in game {game_id}")
        self.user_id = user_id
        self.game_id = game_id


class SelfChallengeError(GameServiceError):
    """A user challenged themself."""

    def __init__(self, user_id: int) -> None:
        super().__init__(f"user {user_id} challenged themself")
        self.user_id = user_id


class InvalidOptionError(GameServiceError, ValueError):
    """A start or settings option is out of range."""

    def __init__(self, option: str, value: object, allowed: str = "") -> None:
        super().__init__(f"invalid {option}: {value!r} (allowed: {allowed})")
        self.option = option  # "size", "rule", "level", "turn_time", "board_style", ...
        self.value = value  # what was asked for
        self.allowed = allowed  # what would be accepted, e.g. "5-20"


class ChannelNotAllowedError(GameServiceError):
    """The guild restricts games to other channels."""

    def __init__(self, channel_id: int, allowed: frozenset[int] = frozenset()) -> None:
        super().__init__(f"games are not allowed in channel {channel_id}")
        self.channel_id = channel_id
        self.allowed = allowed  # the channels where games are allowed


class HintNotAllowedError(GameServiceError):
    """Hints are refused in rated games."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no hints in rated game {game_id}")
        self.game_id = game_id


class NoMoveToUndoError(GameServiceError):
    """The user has no move on the board to take back."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"nothing to undo in game {game_id}")
        self.game_id = game_id


class UndoPendingError(GameServiceError):
    """An undo request in this game is already waiting for the opponent."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"an undo request is pending in game {game_id}")
        self.game_id = game_id


class NoUndoRequestError(GameServiceError):
    """No undo request to answer, or the game moved on since it was made."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no undo request in game {game_id}")
        self.game_id = game_id


class OutOfTimeError(GameServiceError):
    """The move came after the mover's deadline (before the deadline task saw it): it was not
    played, and the game ended as a loss on time for the mover."""

    def __init__(self, user_id: int, end: GameEnd) -> None:
        super().__init__(f"user {user_id} ran out of time in game {end.game.game_id}")
        self.game_id = end.game.game_id
        self.user_id = user_id  # who moved too late, and lost
        self.end = end  # the finished game (Termination.TIMEOUT), for the front-end to show


class NotReplaceableError(GameServiceError):
    """Only a player's own game against the AI can be replaced by a new one."""

    def __init__(self, user_id: int, game_id: int) -> None:
        super().__init__(f"user {user_id} may not replace game {game_id}")
        self.user_id = user_id
        self.game_id = game_id


class StalePanelError(GameServiceError):
    """A tap on a private panel drawn for an older position of the game."""

    def __init__(self, game_id: int, version: int) -> None:
        super().__init__(f"panel of game {game_id} at version {version} is stale")
        self.game_id = game_id
        self.version = version  # the version the panel was drawn for


class NotationError(GameServiceError):
    """A move in the other notation: a lone column in a point game, or a point (or a column
    letter) where the gravity game numbers its columns."""

    def __init__(self, game: Game, width: int, *, typed_column: bool) -> None:
        super().__init__(f"{game} moves are not written that way")
        self.game = game
        self.width = width  # the board's columns (gravity: the numbers 1..width)
        self.typed_column = typed_column  # a column alone was given (else a point)


class RematchError(GameServiceError):
    """A rematch was asked of a game that did not finish."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no rematch of game {game_id}")
        self.game_id = game_id


class AIFailedError(GameServiceError):
    """The AI could not produce a move, even after a retry on a fresh worker."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"the AI failed in game {game_id}")
        self.game_id = game_id


# --------------------------------------------------------------------------- views


class ColourChoice:
    """The colour the starting user asks for (plain strings, so option parsing stays simple)."""

    BLACK: Final = "black"  # the starter moves first
    WHITE: Final = "white"  # the opponent (or the AI) moves first
    RANDOM: Final = "random"  # a coin toss
    ALL: Final = ("black", "white", "random")


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's displayed rating before and after a rated game."""

    user_id: int
    before: int  # PlayerStats.display_rating before the game (1000 for a new player)
    after: int


@dataclass(frozen=True, slots=True, eq=False)
class GameState:
    """A snapshot of one game: its stored record and the position after its moves.

    ``board`` is the service's own copy: treat it as read-only (``board.copy()`` to explore).
    """

    record: GameRecord
    board: Board
    opening: Opening | None = None  # the opening rule's state, when the game has one

    @property
    def in_opening(self) -> bool:
        """The game is active and its opening rule is still settling the colours."""
        return (
            self.opening is not None
            and not self.opening.is_done
            and self.record.status is GameStatus.ACTIVE
        )

    @property
    def acting_color(self) -> Color:
        """The colour of whoever acts next: the side to move, or during an opening the
        colour the person whose step it is holds now."""
        if self.in_opening:
            assert self.opening is not None
            actor = self.opening.actor
            assert actor is not None
            return self.opening.color_of(actor)
        return self.board.to_move

    def seat_player(self, seat: Seat) -> Player:
        """The player in an opening's ``seat`` (first: who started the opening)."""
        assert self.opening is not None
        return self.record.player(self.opening.color_of(seat))

    @property
    def game_id(self) -> int:
        """The game's id (in button custom ids and exports)."""
        return self.record.id

    @property
    def channel_id(self) -> int:
        """The channel the game occupies."""
        return self.record.channel_id

    @property
    def guild_id(self) -> int | None:
        """The guild, None for the terminal."""
        return self.record.guild_id

    @property
    def status(self) -> GameStatus:
        """Pending, active, finished, or a closed challenge."""
        return self.record.status

    @property
    def version(self) -> int:
        """Bumps on every change of the game."""
        return self.record.version

    @property
    def game(self) -> Game:
        """Which game is being played."""
        return self.record.game

    @property
    def rule(self) -> Rule:
        """The five-in-a-row rule (freestyle for the small games)."""
        return self.record.rule

    @property
    def black(self) -> Player:
        """Who moves first."""
        return self.record.black

    @property
    def white(self) -> Player:
        """Who moves second."""
        return self.record.white

    @property
    def rated(self) -> bool:
        """Two people: ratings change at the end, no hints."""
        return self.record.rated

    @property
    def outcome(self) -> Outcome | None:
        """How it ended (None while pending or active, and for closed challenges)."""
        return self.record.outcome

    @property
    def deadline(self) -> datetime | None:
        """Challenge expiry (pending) or when the side to move runs out of time (active)."""
        return self.record.deadline

    @property
    def is_active(self) -> bool:
        """Being played."""
        return self.record.status is GameStatus.ACTIVE

    @property
    def is_over(self) -> bool:
        """Finished, or a challenge that was declined, withdrawn or expired."""
        return not self.record.status.is_open

    def player(self, color: Color) -> Player:
        """The player of ``color``."""
        return self.record.player(color)

    @property
    def to_move(self) -> Player | None:
        """Who moves next; None unless the game is active."""
        if self.record.status is not GameStatus.ACTIVE:
            return None
        return self.record.player(self.acting_color)

    @property
    def is_ai_turn(self) -> bool:
        """The game is active and the AI is to move: the front-end calls ``ai_reply``."""
        player = self.to_move
        return player is not None and player.is_ai

    @property
    def ai_level(self) -> str | None:
        """The AI's level (an ``engine.Level`` value) when the AI plays a side."""
        for player in (self.black, self.white):
            if player.level is not None:
                return player.level
        return None

    @property
    def humans(self) -> tuple[int, ...]:
        """The user ids of the human players (one user may play both sides)."""
        ids = (p.user_id for p in (self.black, self.white) if p.user_id is not None)
        return tuple(dict.fromkeys(ids))

    def color_of(self, user_id: int) -> Color | None:
        """The colour ``user_id`` plays (the side to move if they play both), or None."""
        if self.black.user_id == user_id and self.white.user_id == user_id:
            return self.acting_color
        return self.record.color_of(user_id)

    @property
    def winner(self) -> Player | None:
        """The winning player, or None (still playing, a draw, or abandoned)."""
        if self.outcome is None or self.outcome.winner is None:
            return None
        return self.player(self.outcome.winner)

    @property
    def challenger(self) -> int | None:
        """Who started the game (the challenger of a challenge)."""
        return self.record.created_by

    @property
    def challenged(self) -> int | None:
        """For a challenge: the user who must accept."""
        others = [u for u in self.humans if u != self.record.created_by]
        return others[0] if others else None


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What a move did: the game after it, and whether the AI must answer next."""

    game: GameState  # after the move; finished if it ended the game
    move: Move  # the stone just placed (after an opening choice: the last stone)
    ratings: tuple[RatingChange, ...] = ()  # when this move finished a rated game
    step: str | None = None  # an opening step that placed no stone ("white", "two", "3")

    @property
    def ai_due(self) -> bool:
        """The AI is to move now: defer the reply, then ``await service.ai_reply(game_id)``."""
        return self.game.is_ai_turn

    @property
    def finished(self) -> bool:
        """The move ended the game (five, draw)."""
        return self.game.status is GameStatus.FINISHED


@dataclass(frozen=True, slots=True)
class GameEnd:
    """A game or challenge ended without a move: resign, timeout, decline, withdraw, expiry."""

    game: GameState  # FINISHED with an outcome, or DECLINED/CANCELLED/EXPIRED
    ratings: tuple[RatingChange, ...] = ()


@dataclass(frozen=True, slots=True)
class UndoRequest:
    """A request to take back moves in a game against a person, waiting for consent."""

    game: GameState
    requester: int  # the user who asked
    responder: int  # the user who must agree
    moves: int  # how many moves will be taken back (1 or 2)


@dataclass(frozen=True, slots=True)
class UndoResult:
    """Moves taken back."""

    game: GameState  # after the undo
    undone: tuple[Move, ...]  # the moves removed, last first


@dataclass(frozen=True, slots=True)
class HintView:
    """The AI's suggestion for the side to move."""

    game: GameState
    point: Point  # the suggested move
    score: int  # the search score for the side to move
    depth: int  # how deep the search went


@dataclass(frozen=True, slots=True)
class Export:
    """A game as files: SGF and the plain move list."""

    game: GameState
    sgf: str  # FF[4] GM[4] text
    moves: str  # "h8 i9 h9 ..."
    filename: str  # a safe file name, e.g. "gomoku-123.sgf"


@dataclass(frozen=True, slots=True)
class TurnWarning:
    """A player has used 80% of their turn time."""

    game: GameState
    user_id: int  # who must move
    deadline: datetime


@dataclass(frozen=True, slots=True)
class ChallengeExpired:
    """A challenge was not answered before its expiry."""

    game: GameState  # EXPIRED


TimeoutEvent: TypeAlias = TurnWarning | GameEnd | ChallengeExpired
"""What ``tick`` reports: a warning, a game lost on time (``GameEnd``), an expired challenge."""

_T = TypeVar("_T")


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _level(value: str) -> Level:
    try:
        return Level(value)
    except ValueError:
        allowed = ", ".join(level.value for level in Level)
        raise InvalidOptionError("level", value, allowed) from None


def _board_for(record: GameRecord, points: Sequence[Point] = ()) -> Board:
    size = record.width if record.game is Game.GOMOKU else None
    board = Board.for_game(record.game, size=size, rule=record.rule)
    for point in points:
        board.play(point)
    return board


def _turn_seconds(settings: GuildSettings | None, *, people: bool) -> int | None:
    """The clock of a new game: the guild's turn time between people, and against the AI only
    where the guild asked for that too."""
    if settings is None or not (people or settings.ai_clock):
        return None
    return settings.turn_seconds


def _opening_text(view: GameState, names: dict[Color, str]) -> str | None:
    """The opening for a record: rule, steps, and who started it ("first")."""
    if view.opening is None:
        return None
    first = names[view.opening.color_of(Seat.FIRST)]
    return f"{view.opening.rule.value}: {view.opening} (first: {first})"


def _check_opening(game: Game, board: Board, opening: str) -> None:
    """Refuse an opening rule the game cannot have."""
    try:
        rule = OpeningRule(opening)
    except ValueError:
        allowed = ", ".join(r.value for r in OpeningRule)
        raise InvalidOptionError("opening", opening, allowed) from None
    if game is not Game.GOMOKU:
        raise InvalidOptionError("opening", opening, "Gomoku only")
    if rule.is_renju and (board.rule is not Rule.RENJU or board.size != 15):
        raise InvalidOptionError("opening", opening, "the renju rule on 15x15")


def _replay_opening(stored: GameOpening, record: GameRecord, points: Sequence[Point]) -> Opening:
    """The opening's state: its stored steps interleaved with the game's first moves (each
    step is stored with the number of stones on the board when it was taken)."""
    opening = Opening.start(OpeningRule(stored.rule), size=record.width, board_rule=record.rule)
    steps = [step.partition(":") for step in stored.steps]
    stones = iter(points)
    while not opening.is_done:
        if steps and int(steps[0][0]) == len(opening.board.moves):
            opening = opening.step(steps.pop(0)[2])
            continue
        point = next(stones, None)
        if point is None:
            break
        opening = opening.step(str(point))
    return opening


def _legal_points(board: Board) -> list[Point]:
    """``board.legal_moves()``, with renju's forbidden points from the cache the renderers
    share: autocomplete asks on every keystroke, always about the same few positions."""
    if board.rule is Rule.RENJU and board.to_move is Color.BLACK and board.outcome is None:
        banned = forbidden_points(board)
        return [point for point in board if board[point] is None and point not in banned]
    return board.legal_moves()


def _played(result: MoveResult | GameEnd, user_id: int) -> MoveResult:
    """A move's result, or the refusal of a move that came too late (it ended the game)."""
    if isinstance(result, GameEnd):
        raise OutOfTimeError(user_id, result)
    return result


class _IdleTimes:
    """When open games end by themselves for want of moves, reading each guild's settings
    once per pass over the open games."""

    def __init__(self, repository: GameRepository) -> None:
        self._repository = repository
        self._settings: dict[int, GuildSettings] = {}

    async def ends_at(self, record: GameRecord) -> datetime | None:
        """When ``record`` ends as idle; None for challenges (they expire on their own) and
        terminal games (no guild: the player is at the keyboard)."""
        if record.status is not GameStatus.ACTIVE or record.guild_id is None:
            return None
        settings = self._settings.get(record.guild_id)
        if settings is None:
            settings = await self._repository.guild_settings(record.guild_id)
            self._settings[record.guild_id] = settings
        return record.updated_at + idle_time(
            settings, against_ai=record.black.is_ai or record.white.is_ai
        )


def idle_time(settings: GuildSettings, *, against_ai: bool) -> timedelta:
    """How long a game of the guild may sit without a move before it ends by itself."""
    if against_ai:
        seconds, default = settings.idle_ai_seconds, DEFAULT_IDLE_AI
    else:
        seconds, default = settings.idle_human_seconds, DEFAULT_IDLE_HUMAN
    return default if seconds is None else timedelta(seconds=seconds)


# --------------------------------------------------------------------------- the service


@dataclass(eq=False)
class GameService:
    """The use-cases of the bot over a ``GameRepository`` and an ``AIRunner``.

    One instance per process. It keeps only locks, a cache of positions and in-flight AI
    searches in memory; the rest (undo requests included) is in the repository, so a restart
    loses nothing.
    """

    repository: GameRepository
    ai: AIRunner
    clock: Callable[[], datetime] = _utcnow  # aware UTC; tests inject a fake clock
    rng: random.Random = field(default_factory=random.Random)  # coin tosses and AI seeds
    challenge_ttl: timedelta = DEFAULT_CHALLENGE_TTL
    _locks: weakref.WeakValueDictionary[int, asyncio.Lock] = field(
        default_factory=weakref.WeakValueDictionary, init=False, repr=False
    )
    _boards: OrderedDict[int, tuple[int, Board, Opening | None]] = field(
        default_factory=OrderedDict, init=False, repr=False
    )
    _thinking: dict[tuple[int, int], asyncio.Future[MoveResult | None]] = field(
        default_factory=dict, init=False, repr=False
    )

    # ---- plumbing

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def _remember(
        self, record: GameRecord, board: Board, opening: Opening | None = None
    ) -> GameState:
        known = self._boards.get(record.id)
        if known is None or known[0] <= record.version:
            self._boards[record.id] = (record.version, board, opening)
            self._boards.move_to_end(record.id)
        while len(self._boards) > _BOARD_CACHE:
            self._boards.popitem(last=False)
        return GameState(record, board.copy(), opening)

    async def _view(self, game_id: int, record: GameRecord | None = None) -> GameState:
        """The game now (``record``: a just-read record to trust instead of reading again)."""
        try:
            if record is None:
                record = await self.repository.get_game(game_id)
            cached = self._boards.get(record.id)
            if cached is not None and cached[0] == record.version:
                return GameState(record, cached[1].copy(), cached[2])
            snapshot = await self.repository.load_game(game_id)
            stored = await self.repository.game_opening(game_id)
        except GameNotFoundError as error:
            raise NoSuchGameError(game_id) from error
        points = [move.point for move in snapshot.moves]
        board = _board_for(snapshot.game, points)
        opening = None if stored is None else _replay_opening(stored, snapshot.game, points)
        return self._remember(snapshot.game, board, opening)

    async def _record(self, game_id: int) -> GameRecord:
        try:
            return await self.repository.get_game(game_id)
        except GameNotFoundError as error:
            raise NoSuchGameError(game_id) from error

    async def _open_record(self, channel_id: int, game_id: int | None = None) -> GameRecord:
        """The channel's open game (which must be ``game_id`` when given)."""
        record = await self.repository.open_game_in_channel(channel_id)
        if record is None or (game_id is not None and record.id != game_id):
            if game_id is not None:
                try:
                    stale = await self.repository.get_game(game_id)
                except GameNotFoundError as error:
                    raise NoSuchGameError(game_id) from error
                if stale.status in (GameStatus.PENDING, GameStatus.ACTIVE):
                    raise OtherChannelError(game_id)
                raise GameNotActiveError(game_id, stale.status)
            raise NoActiveGameError(channel_id)
        return record

    async def _open_view(self, channel_id: int, game_id: int | None = None) -> GameState:
        record = await self._open_record(channel_id, game_id)
        return await self._view(record.id, record)

    async def _locked(self, record: GameRecord, action: Callable[[GameState], Awaitable[_T]]) -> _T:
        """Run a validate-then-write ``action`` on the game under its lock.

        The first attempt trusts ``record`` (read just before) unless somebody held the lock
        meanwhile; the write's compare-and-set catches anything that changed. After a lost
        compare-and-set (another process wrote) it runs once more on freshly read data, so the
        loser gets the refusal that fits the new position.
        """
        lock = self._lock(record.id)
        trusted = None if lock.locked() else record
        async with lock:
            view = await self._view(record.id, trusted)
            try:
                return await action(view)
            except VersionConflictError:
                return await action(await self._view(record.id))
            except (GameServiceError, IllegalMoveError):
                if trusted is None:
                    raise
                # A refusal must not rest on a record that went stale before the lock
                # (say the opponent moved meanwhile and now it *is* this user's turn).
                fresh = await self._view(record.id)
                if fresh.version == view.version:
                    raise
                return await action(fresh)

    def _deadline(self, record: GameRecord, to_move: Color, now: datetime) -> datetime | None:
        if record.turn_seconds is None or record.player(to_move).is_ai:
            return None
        return now + timedelta(seconds=record.turn_seconds)

    async def _ratings_before(self, record: GameRecord) -> dict[int, int] | None:
        if not record.rated:
            return None
        before: dict[int, int] = {}
        for player in (record.black, record.white):
            if player.user_id is not None:
                stats = await self.repository.player_stats(player.user_id, record.game)
                before[player.user_id] = stats.display_rating if stats else 1000
        return before

    async def _ratings_after(
        self, record: GameRecord, before: dict[int, int] | None
    ) -> tuple[RatingChange, ...]:
        if before is None:
            return ()
        changes = []
        for user_id, old in before.items():
            stats = await self.repository.player_stats(user_id, record.game)
            changes.append(RatingChange(user_id, old, stats.display_rating if stats else old))
        return tuple(changes)

    def _check_turn(self, view: GameState, user_id: int) -> Color:
        if view.status is not GameStatus.ACTIVE:
            raise GameNotActiveError(view.game_id, view.status)
        color = view.color_of(user_id)
        if color is None:
            raise NotAPlayerError(user_id, view.game_id)
        if color is not view.acting_color:
            if view.player(view.acting_color).is_ai:
                raise AIThinkingError(view.game_id)
            raise NotYourTurnError(user_id, view.game_id)
        return color

    async def _apply(self, view: GameState, point: Point, color: Color) -> MoveResult:
        """Play ``point`` on a fresh ``view`` (lock held) and store it."""
        board = view.board.copy()
        board.play(point)  # the engine's IllegalMoveError subclasses go to the caller
        record = view.record
        outcome = board.outcome
        now = self.clock()
        deadline = None if outcome is not None else self._deadline(record, board.to_move, now)
        before = await self._ratings_before(record) if outcome is not None else None
        try:
            stored = await self.repository.append_move(
                record.id, record.version, point, color, deadline=deadline, outcome=outcome
            )
        except InvalidStatusError as error:
            raise GameNotActiveError(record.id, error.status) from error
        ratings = await self._ratings_after(stored, before)
        return MoveResult(self._remember(stored, board, view.opening), Move(point, color), ratings)

    # ---- opening rules

    async def _opening_step(self, view: GameState, word: str) -> MoveResult:
        """Take one opening step on a fresh ``view`` (lock held; the turn already checked)
        and store it: a stone as a move, anything else as an opening step with the seats."""
        opening = view.opening
        if opening is None or not view.in_opening:
            raise OpeningStepError("done", word)
        after = opening.step(word)  # OpeningError / IllegalMoveError go to the caller
        record = view.record
        players = {seat: view.seat_player(seat) for seat in Seat}
        black, white = players[after.black], players[after.black.other]
        if after.is_done:
            following = black if after.board.to_move is Color.BLACK else white
        else:
            actor = after.actor
            assert actor is not None
            following = players[actor]
        now = self.clock()
        deadline = None
        if record.turn_seconds is not None and following.is_human:
            deadline = now + timedelta(seconds=record.turn_seconds)
        placed = len(after.board.moves) > len(opening.board.moves)
        try:
            if placed:
                move = after.board.moves[-1]
                stored = await self.repository.append_move(
                    record.id, record.version, move.point, move.color, deadline=deadline
                )
            else:
                step = f"{len(opening.board.moves)}:{word}"
                stored = await self.repository.record_opening_step(
                    record.id, record.version, step, black=black, white=white, deadline=deadline
                )
        except InvalidStatusError as error:
            raise GameNotActiveError(record.id, error.status) from error
        last = after.board.moves[-1]
        game = self._remember(stored, after.board.copy(), after)
        return MoveResult(game, last, step=None if placed else word)

    async def opening_choice(self, game_id: int, user_id: int, word: str) -> MoveResult:
        """An opening choice from a button: ``word`` is a ``Choice`` value ("black",
        "white", "two", "offer") or Soosõrv's number of fifth moves ("1".."8").

        Raises:
            NoSuchGameError, GameNotActiveError, NotAPlayerError, NotYourTurnError,
            AIThinkingError, OpeningError (not this step now, or out of range),
            OutOfTimeError.
        """

        async def action(view: GameState) -> MoveResult | GameEnd:
            color = self._check_turn(view, user_id)
            if self._is_late(view):
                return await self._lose_on_time(view, color)
            return await self._opening_step(view, word)

        result = await self._locked(await self._record(game_id), action)
        return _played(result, user_id)

    # ---- starting games

    async def start(
        self,
        *,
        channel_id: int,
        guild_id: int | None,
        user_id: int,
        opponent: int | None = None,
        game: Game = Game.GOMOKU,
        rule: Rule | None = None,
        level: str = DEFAULT_LEVEL,
        size: int | None = None,
        colour: str = ColourChoice.RANDOM,
        opening: str | None = None,
    ) -> GameState:
        """Start a game in ``channel_id``.

        Without ``opponent`` the user plays the AI at ``level`` at once: the view is ACTIVE,
        and when the AI moves first ``view.is_ai_turn`` is true (call ``ai_reply``). With an
        ``opponent`` (a user id; the front-end refuses bots) a challenge is made: the view is
        PENDING until ``accept``/``decline`` or ``view.deadline`` (expiry, seen by ``tick``).

        ``rule`` defaults to the guild's setting for Gomoku (the small games are freestyle
        only); ``size`` applies to Gomoku only (5-20, default 15). ``colour`` is the starter's
        wish: "black", "white" or "random" (a coin toss now, shown on the challenge).
        Games between two people are rated; the turn time is the guild's setting.

        ``opening`` (Gomoku only) is an opening rule (``OpeningRule`` value: swap, swap2,
        soosorv8, taraguchi10; the renju ones need the renju rule on 15x15). Then ``colour``
        says who starts the opening: "black" the starter, "white" the opponent. Rated games
        without one get the guild's ``rated_opening``.

        Raises:
            GameExistsError: the channel already has a pending or active game.
            SelfChallengeError: ``opponent == user_id``.
            InvalidOptionError: size, rule, level or colour not valid for ``game``.
            ChannelNotAllowedError: the guild restricts games to other channels.
        """
        game = Game(game)
        settings = await self.repository.guild_settings(guild_id) if guild_id is not None else None
        if settings is not None and not settings.allows(channel_id):
            raise ChannelNotAllowedError(channel_id, settings.allowed_channel_ids)
        if rule is None:
            rule = settings.default_rule if settings is not None else Rule.FREESTYLE
            if game is not Game.GOMOKU:
                rule = Rule.FREESTYLE
        board = self._validate_board(game, rule, size)
        if colour not in ColourChoice.ALL:
            raise InvalidOptionError("colour", colour, ", ".join(ColourChoice.ALL))
        if opening is None and opponent is not None and settings is not None:
            fits = settings.rated_opening is not None and (
                not OpeningRule(settings.rated_opening).is_renju
                or (board.rule is Rule.RENJU and board.size == 15)
            )
            opening = settings.rated_opening if fits and game is Game.GOMOKU else None
        if opening is not None:
            _check_opening(game, board, opening)
        if opponent == user_id:
            raise SelfChallengeError(user_id)
        me = Player.human(user_id)
        other = Player.human(opponent) if opponent is not None else Player.ai(_level(level))
        starter_black = (
            colour == ColourChoice.BLACK
            if colour != ColourChoice.RANDOM
            else self.rng.random() < 0.5
        )
        black, white = (me, other) if starter_black else (other, me)
        now = self.clock()
        pending = opponent is not None
        turn_seconds = _turn_seconds(settings, people=pending)
        deadline: datetime | None
        if pending:
            deadline = now + self.challenge_ttl
        elif turn_seconds is not None and black.is_human:
            deadline = now + timedelta(seconds=turn_seconds)
        else:
            deadline = None
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            black=black,
            white=white,
            game=game,
            width=board.width,
            height=board.height,
            rule=board.rule,
            rated=pending,
            status=GameStatus.PENDING if pending else GameStatus.ACTIVE,
            deadline=deadline,
            turn_seconds=turn_seconds,
            created_by=user_id,
            opening=opening,
        )
        return await self._create(new, board)

    async def start_local(
        self,
        *,
        channel_id: int,
        black: Player,
        white: Player,
        game: Game = Game.GOMOKU,
        rule: Rule = Rule.FREESTYLE,
        size: int | None = None,
        replace_open: bool = True,
    ) -> GameState:
        """Start an unrated, clockless game with fixed sides at once (the terminal: one user
        at both sides, two users at one keyboard, or the AI against the AI). With
        ``replace_open`` an open game in the channel is ended first (abandoned).

        Raises:
            InvalidOptionError: size or rule not valid for ``game``.
            GameExistsError: the channel has an open game and ``replace_open`` is false.
        """
        game = Game(game)
        board = self._validate_board(game, rule, size)
        for player in (black, white):
            if player.level is not None:
                _level(player.level)
        if replace_open:
            await self.abandon(channel_id)
        new = NewGame(
            guild_id=None,
            channel_id=channel_id,
            black=black,
            white=white,
            game=game,
            width=board.width,
            height=board.height,
            rule=board.rule,
            created_by=black.user_id if black.user_id is not None else white.user_id,
        )
        return await self._create(new, board)

    async def _create(self, new: NewGame, board: Board) -> GameState:
        try:
            record = await self.repository.create_game(new)
        except ChannelBusyError as error:
            raise GameExistsError(error.channel_id, error.game_id) from error
        opening = None
        if new.opening is not None:
            opening = Opening.start(
                OpeningRule(new.opening), size=board.size, board_rule=board.rule
            )
        return self._remember(record, board, opening)

    @staticmethod
    def _validate_board(game: Game, rule: Rule, size: int | None) -> Board:
        try:
            rule = Rule(rule)
        except ValueError:
            raise InvalidOptionError("rule", rule, ", ".join(r.value for r in Rule)) from None
        if game is not Game.GOMOKU and rule is not Rule.FREESTYLE:
            raise InvalidOptionError("rule", rule, Rule.FREESTYLE.value)
        if game is Game.GOMOKU and size is not None and not MIN_SIZE <= size <= MAX_SIZE:
            raise InvalidOptionError("size", size, f"{MIN_SIZE}-{MAX_SIZE}")
        try:
            return Board.for_game(game, size=size, rule=rule)
        except UnsupportedBoardError as error:
            fixed = Board.for_game(game)
            raise InvalidOptionError("size", size, f"{fixed.width}") from error

    async def accept(self, game_id: int, user_id: int) -> GameState:
        """The challenged user accepts: the game becomes ACTIVE with the colours it was
        created with, and the first turn's clock starts.

        Raises:
            NoSuchGameError, NotChallengedError, ChallengeExpiredError,
            GameNotActiveError: the challenge was already answered or withdrawn.
        """

        async def action(view: GameState) -> GameState:
            if view.status is not GameStatus.PENDING:
                if view.status is GameStatus.EXPIRED:
                    raise ChallengeExpiredError(game_id)
                raise GameNotActiveError(game_id, view.status)
            if user_id not in view.humans or user_id == view.challenger:
                raise NotChallengedError(user_id, game_id)
            now = self.clock()
            if view.deadline is not None and view.deadline <= now:
                raise ChallengeExpiredError(game_id)
            deadline = self._deadline(view.record, Color.BLACK, now)
            record = await self.repository.accept_challenge(
                game_id, view.version, deadline=deadline
            )
            return self._remember(record, view.board, view.opening)

        return await self._locked(await self._record(game_id), action)

    async def decline(self, game_id: int, user_id: int) -> GameEnd:
        """The challenged user declines (DECLINED) or the challenger withdraws (CANCELLED).

        Raises:
            NoSuchGameError, NotChallengedError (someone else),
            GameNotActiveError: the challenge was already answered.
        """

        async def action(view: GameState) -> GameEnd:
            if view.status is not GameStatus.PENDING:
                raise GameNotActiveError(game_id, view.status)
            if user_id not in view.humans:
                raise NotChallengedError(user_id, game_id)
            status = GameStatus.CANCELLED if user_id == view.challenger else GameStatus.DECLINED
            record = await self.repository.close_challenge(game_id, view.version, status)
            return GameEnd(self._remember(record, view.board, view.opening))

        return await self._locked(await self._record(game_id), action)

    # ---- playing

    async def place(
        self,
        channel_id: int,
        user_id: int,
        point: Point,
        *,
        game_id: int | None = None,
        version: int | None = None,
        points_only: bool = False,
    ) -> MoveResult:
        """Play ``point`` for ``user_id`` in the channel's active game.

        In gravity games ``point`` must be a column's landing point (see ``drop``). On a five
        or a full board the game finishes (ratings updated for rated games,
        ``result.ratings``). If the AI is to answer, ``result.ai_due`` is true: the caller
        defers and awaits ``ai_reply``. ``game_id`` (from a button) guards against acting on
        a newer game in the channel.

        Raises:
            NoActiveGameError, GameNotActiveError, NotAPlayerError, NotYourTurnError,
            AIThinkingError, and the engine's IllegalMoveError subclasses (OccupiedPointError,
            OffBoardError, ForbiddenMoveError, FloatingStoneError, ColumnFullError).
            OutOfTimeError: the user's deadline had passed; the game is now lost on time.
            StalePanelError: ``version`` (a panel's) is not the game's any more.
            NotationError: ``points_only`` (a typed move) in a gravity game, which numbers
            its columns instead.
        """

        async def action(view: GameState) -> MoveResult | GameEnd:
            if points_only and view.board.gravity:
                raise NotationError(view.game, view.board.width, typed_column=False)
            color = self._check_turn(view, user_id)
            if version is not None and view.version != version:
                raise StalePanelError(view.game_id, version)
            if self._is_late(view):
                return await self._lose_on_time(view, color)
            if view.in_opening:
                return await self._opening_step(view, str(point))
            return await self._apply(view, point, color)

        result = await self._locked(await self._open_record(channel_id, game_id), action)
        return _played(result, user_id)

    async def drop(
        self,
        channel_id: int,
        user_id: int,
        column: int,
        *,
        game_id: int | None = None,
        letter: bool = False,
    ) -> MoveResult:
        """Gravity games: drop a stone in ``column`` (0-based); otherwise as ``place``.

        Raises:
            as ``place``; ColumnFullError for a full column, OffBoardError for no such
            column; NotationError if the game has no gravity, or the column was typed as a
            ``letter`` (gravity games number their columns).
        """

        async def action(view: GameState) -> MoveResult | GameEnd:
            if not view.board.gravity or letter:
                raise NotationError(view.game, view.board.width, typed_column=True)
            color = self._check_turn(view, user_id)
            if self._is_late(view):
                return await self._lose_on_time(view, color)
            if not 0 <= column < view.board.width:
                # Columns are numbered from 1 for players.
                raise InvalidOptionError("column", column + 1, f"1-{view.board.width}")
            landing = view.board.landing_point(column)
            if landing is None:
                from engine.errors import ColumnFullError

                raise ColumnFullError(column)
            return await self._apply(view, landing, color)

        result = await self._locked(await self._open_record(channel_id, game_id), action)
        return _played(result, user_id)

    async def ai_reply(self, game_id: int) -> MoveResult | None:
        """If the AI is to move in ``game_id``, search (in the pool, off the event loop) and
        play its move. Returns None when the AI is not to move, or when the game changed while
        it was thinking (the move is dropped). Concurrent calls for one position share one
        search.

        Raises:
            NoSuchGameError.
            AIFailedError: the search failed twice (the game stays as it was).
        """
        view = await self._view(game_id)
        if not view.is_ai_turn:
            return None
        key = (game_id, view.version)
        future = self._thinking.get(key)
        if future is None:
            future = asyncio.ensure_future(self._think_and_play(view))
            self._thinking[key] = future

            def forget(done: asyncio.Future[MoveResult | None]) -> None:
                self._thinking.pop(key, None)
                if not done.cancelled():
                    # Mark it seen: every caller may have given up (a closed terminal, an
                    # interaction that timed out), and the failure is theirs to report.
                    done.exception()

            future.add_done_callback(forget)
        # shield: one caller giving up (a cancelled interaction) must not cancel the others.
        return await asyncio.shield(future)

    async def _think_and_play(self, view: GameState) -> MoveResult | None:
        result = await self._ai_once(view)
        # An opening may give the AI several steps in a row (three stones, "two more" and
        # two stones), and ending it may leave the AI to make the next move.
        was_opening = view.in_opening
        while result is not None and was_opening and result.game.is_ai_turn:
            was_opening = result.game.in_opening
            following = await self._ai_once(result.game)
            if following is None:
                break
            result = following
        return result

    async def _ai_once(self, view: GameState) -> MoveResult | None:
        player = view.to_move
        assert player is not None
        assert player.level is not None
        request = AIRequest.from_board(view.board, _level(player.level), self.rng.getrandbits(31))
        if view.in_opening:
            assert view.opening is not None
            request = replace(request, opening=(view.opening.rule.value, view.opening.log))
        try:
            choice = await self.ai.choose_move(request)
        except AIError as error:
            raise AIFailedError(view.game_id) from error
        async with self._lock(view.game_id):
            fresh = await self._view(view.game_id)
            if fresh.version != view.version:
                log.info("dropping the AI move for game %d: it changed", view.game_id)
                return None
            try:
                if fresh.in_opening:
                    return await self._opening_step(fresh, choice.step or str(choice.point))
                return await self._apply(fresh, choice.point, fresh.board.to_move)
            except VersionConflictError:
                return None  # another process wrote meanwhile: this move is stale
            except (IllegalMoveError, OpeningError) as error:
                log.error("the AI chose an illegal move %s in game %d", choice.point, view.game_id)
                raise AIFailedError(view.game_id) from error

    async def resign(self, channel_id: int, user_id: int, *, game_id: int | None = None) -> GameEnd:
        """``user_id`` resigns the channel's active game; the opponent wins (rated games
        update ratings). A user playing both sides resigns for the side to move.

        Raises:
            NoActiveGameError, GameNotActiveError, NotAPlayerError.
        """

        async def action(view: GameState) -> GameEnd:
            if view.status is not GameStatus.ACTIVE:
                raise GameNotActiveError(view.game_id, view.status)
            color = view.color_of(user_id)
            if color is None:
                raise NotAPlayerError(user_id, view.game_id)
            return await self._finish(view, Outcome(Termination.RESIGN, color.opponent))

        return await self._locked(await self._open_record(channel_id, game_id), action)

    def _is_late(self, view: GameState) -> bool:
        """The side to move's deadline has passed (the deadline task has not got to it yet)."""
        return view.deadline is not None and view.deadline <= self.clock()

    async def _lose_on_time(self, view: GameState, color: Color) -> GameEnd:
        return await self._finish(view, Outcome(Termination.TIMEOUT, color.opponent))

    async def _finish(
        self,
        view: GameState,
        outcome: Outcome,
        *,
        ended_by: int | None = None,
        end_reason: str | None = None,
    ) -> GameEnd:
        # A game without a result changes no rating: there is nothing to show for it.
        rated = outcome.termination is not Termination.ABANDONED
        before = await self._ratings_before(view.record) if rated else None
        record = await self.repository.finish_game(
            view.game_id, view.version, outcome, ended_by=ended_by, end_reason=end_reason
        )
        ratings = await self._ratings_after(record, before)
        return GameEnd(self._remember(record, view.board, view.opening), ratings)

    async def abandon(
        self, channel_id: int, *, ended_by: int | None = None, reason: str | None = None
    ) -> GameEnd | None:
        """End the channel's open game without a result (a withdrawn challenge if pending);
        None if there is none. For the terminal's "new" and for moderators (``ended_by``,
        ``reason`` "moderator": who may is the front-end's decision, as for settings)."""
        record = await self.repository.open_game_in_channel(channel_id)
        if record is None:
            return None

        async def action(view: GameState) -> GameEnd | None:
            if view.status is GameStatus.PENDING:
                closed = await self.repository.close_challenge(
                    view.game_id, view.version, GameStatus.CANCELLED
                )
                return GameEnd(self._remember(closed, view.board, view.opening))
            if view.status is GameStatus.ACTIVE:
                return await self._finish(view, _ABANDONED, ended_by=ended_by, end_reason=reason)
            return None

        return await self._locked(record, action)

    async def replace_ai_game(self, game_id: int, user_id: int) -> GameEnd:
        """End ``user_id``'s own game against the AI without a result, so a new one can take
        its channel (recorded as replaced by them).

        Raises:
            NoSuchGameError, GameNotActiveError,
            NotReplaceableError: not a game between this user and the AI.
        """

        async def action(view: GameState) -> GameEnd:
            if view.status is not GameStatus.ACTIVE:
                raise GameNotActiveError(game_id, view.status)
            if view.humans != (user_id,) or view.ai_level is None:
                raise NotReplaceableError(user_id, game_id)
            return await self._finish(view, _ABANDONED, ended_by=user_id, end_reason="replaced")

        return await self._locked(await self._record(game_id), action)

    async def undo(self, channel_id: int, user_id: int) -> UndoResult | UndoRequest:
        """Take back the user's last move (and the moves after it).

        Against the AI, or with one user at both sides, it is immediate and returns an
        ``UndoResult`` (against the AI: your last move and its reply). Against a person it
        returns an ``UndoRequest`` that the opponent answers with ``answer_undo``.

        Raises:
            NoActiveGameError, GameNotActiveError, NotAPlayerError, NoMoveToUndoError,
            UndoPendingError.
        """

        async def action(view: GameState) -> UndoResult | UndoRequest:
            if view.status is not GameStatus.ACTIVE:
                raise GameNotActiveError(view.game_id, view.status)
            if user_id not in view.humans:
                raise NotAPlayerError(user_id, view.game_id)
            moves = view.board.moves
            both = view.black.user_id == view.white.user_id
            mine = Color.BLACK if both else view.record.color_of(user_id)
            if both:
                count = 1 if moves else 0
            else:
                last = max((i for i, m in enumerate(moves) if m.color is mine), default=None)
                count = 0 if last is None else len(moves) - last
            opening_stones = len(view.opening.board.moves) if view.opening is not None else 0
            if count == 0 or len(moves) - count < opening_stones:
                # an opening's stones are settled by its rule, never taken back
                raise NoMoveToUndoError(view.game_id)
            opponent = [u for u in view.humans if u != user_id]
            if not opponent:
                return await self._take_back(view, count)
            pending = await self.repository.undo_request(view.game_id)
            if pending is not None and pending.version == view.version:
                raise UndoPendingError(view.game_id)
            await self.repository.save_undo_request(
                StoredUndo(view.game_id, user_id, opponent[0], view.version, count, self.clock())
            )
            return UndoRequest(view, user_id, opponent[0], count)

        return await self._locked(await self._open_record(channel_id), action)

    async def _take_back(self, view: GameState, count: int) -> UndoResult:
        board = view.board.copy()
        undone = tuple(board.undo() for _ in range(count))
        deadline = self._deadline(view.record, board.to_move, self.clock())
        record = await self.repository.take_back(
            view.game_id, view.version, count, deadline=deadline
        )
        return UndoResult(self._remember(record, board, view.opening), undone)

    async def answer_undo(self, game_id: int, user_id: int, *, accept: bool) -> UndoResult | None:
        """The opponent answers an undo request: the moves go (``UndoResult``) or the
        request is dropped (None). The requester may withdraw with ``accept=False``.

        Raises:
            NoUndoRequestError: none pending, or the game moved on since it was asked.
            NotAPlayerError: ``user_id`` may not answer it.
        """
        async with self._lock(game_id):
            pending = await self.repository.undo_request(game_id)
            if pending is None:
                raise NoUndoRequestError(game_id)
            view = await self._view(game_id)
            if view.version != pending.version or view.status is not GameStatus.ACTIVE:
                await self.repository.drop_undo_request(game_id)
                raise NoUndoRequestError(game_id)
            if user_id != pending.responder and not (user_id == pending.requester and not accept):
                raise NotAPlayerError(user_id, game_id)
            await self.repository.drop_undo_request(game_id)
            if not accept:
                return None
            return await self._take_back(view, pending.moves)

    async def hint(self, channel_id: int, user_id: int) -> HintView:
        """The AI's suggestion for the user, who must be to move (slow: defer first).

        Raises:
            NoActiveGameError, GameNotActiveError, NotAPlayerError, NotYourTurnError,
            AIThinkingError, HintNotAllowedError, AIFailedError.
        """
        view = await self._open_view(channel_id)
        self._check_turn(view, user_id)
        if view.rated or view.in_opening:
            raise HintNotAllowedError(view.game_id)
        request = AIRequest.from_board(view.board, _level(HINT_LEVEL), self.rng.getrandbits(31))
        try:
            choice = await self.ai.choose_move(request)
        except AIError as error:
            raise AIFailedError(view.game_id) from error
        return HintView(view, choice.point, choice.score, choice.depth)

    async def panel(self, game_id: int, user_id: int) -> GameState:
        """The game, for ``user_id`` to open their tap-to-play panel: only the player to move
        gets one.

        Raises:
            NoSuchGameError, GameNotActiveError, NotAPlayerError, NotYourTurnError,
            AIThinkingError.
        """
        view = await self._view(game_id)
        self._check_turn(view, user_id)
        return view

    async def rematch(self, game_id: int, user_id: int) -> GameState:
        """A finished game again, same options (its opening rule too), colours swapped (with
        an opening rule: the other player starts the opening). Against a person it is a
        challenge the other player accepts (``accept``); against the AI it starts at once
        (``view.is_ai_turn`` when the AI now moves first). The turn time is the guild's now.

        Raises:
            NoSuchGameError, NotAPlayerError, RematchError (the game is not finished, or a
            player's data was deleted),
            GameExistsError (the channel has an open game), ChannelNotAllowedError.
        """
        previous = await self._view(game_id)
        old = previous.record
        if old.status is not GameStatus.FINISHED or old.black.is_deleted or old.white.is_deleted:
            raise RematchError(game_id)
        humans = [p.user_id for p in (old.black, old.white) if p.user_id is not None]
        if user_id not in humans:
            raise NotAPlayerError(user_id, game_id)
        settings = None
        if old.guild_id is not None:
            settings = await self.repository.guild_settings(old.guild_id)
            if not settings.allows(old.channel_id):
                raise ChannelNotAllowedError(old.channel_id, settings.allowed_channel_ids)
        black, white = old.white, old.black
        opening = None
        if previous.opening is not None:
            # The opening may have swapped the colours: the rematch's opening is started by
            # whoever did not start the last one (a new game's Black seat starts its opening).
            opening = previous.opening.rule.value
            black = previous.seat_player(Seat.SECOND)
            white = previous.seat_player(Seat.FIRST)
        pending = len(set(humans)) == 2
        turn_seconds = _turn_seconds(settings, people=pending)
        now = self.clock()
        deadline: datetime | None = None
        if pending:
            deadline = now + self.challenge_ttl
        elif turn_seconds is not None and black.is_human:
            deadline = now + timedelta(seconds=turn_seconds)
        board = _board_for(old)
        new = NewGame(
            guild_id=old.guild_id,
            channel_id=old.channel_id,
            black=black,
            white=white,
            game=old.game,
            width=old.width,
            height=old.height,
            rule=old.rule,
            rated=old.rated,
            status=GameStatus.PENDING if pending else GameStatus.ACTIVE,
            deadline=deadline,
            turn_seconds=turn_seconds,
            created_by=user_id,
            opening=opening,
        )
        return await self._create(new, board)

    # ---- reading

    async def board(self, channel_id: int) -> GameState:
        """The channel's pending or active game.

        Raises:
            NoActiveGameError.
        """
        return await self._open_view(channel_id)

    async def game(self, game_id: int) -> GameState:
        """Any game by id.

        Raises:
            NoSuchGameError.
        """
        return await self._view(game_id)

    async def export(
        self,
        channel_id: int,
        *,
        game_id: int | None = None,
        player_names: Callable[[Player], str] | None = None,
    ) -> Export:
        """SGF and move list of ``game_id``, else of the channel's open game. ``player_names``
        names the players in the SGF (default: "Black"/"White", or "AI <level>"; user ids
        never appear in an export).

        Raises:
            NoActiveGameError, NoSuchGameError.
        """
        view = await (self._view(game_id) if game_id is not None else self._open_view(channel_id))
        names = {Color.BLACK: "Black", Color.WHITE: "White"}
        for color in (Color.BLACK, Color.WHITE):
            player = view.player(color)
            if player_names is not None:
                names[color] = player_names(player)
            elif player.level is not None:
                names[color] = f"AI {player.level}"
        sgf = to_sgf(
            view.board,
            black=names[Color.BLACK],
            white=names[Color.WHITE],
            outcome=view.outcome,
            date=view.record.created_at.date(),
            opening=_opening_text(view, names),
        )
        moves = move_text(view.board)
        if view.board.gravity:
            # Gravity games name a move by its column number, here as everywhere.
            moves = " ".join(str(move.point.x + 1) for move in view.board.moves)
        return Export(view, sgf, moves, f"{view.game.value}-{view.game_id}.sgf")

    async def suggest_points(
        self, channel_id: int, typed: str = "", *, limit: int = 25
    ) -> list[Point]:
        """Autocomplete for ``/place``: legal points of the channel's active game whose name
        starts with ``typed`` (case and spaces ignored; digits alone pick a row, or a column in
        gravity games), nearest the recent moves first, at most ``limit``. Returns [] when
        there is nothing to suggest; never raises for input."""
        return (await self._suggest(channel_id, typed, limit))[1]

    async def suggest_moves(
        self, channel_id: int, typed: str = "", *, limit: int = 25
    ) -> list[str]:
        """``suggest_points`` as the player types them: ``h8``, or a column number (``4``) in
        gravity games."""
        board, points = await self._suggest(channel_id, typed, limit)
        if board is not None and board.gravity:
            return [str(point.x + 1) for point in points]
        return [str(point) for point in points]

    async def _suggest(
        self, channel_id: int, typed: str, limit: int
    ) -> tuple[Board | None, list[Point]]:
        record = await self.repository.open_game_in_channel(channel_id)
        if record is None or record.status is not GameStatus.ACTIVE:
            return None, []
        view = await self._view(record.id, record)
        # "H 08" -> "h8": the notation's leading zeros and spaces mean nothing.
        prefix = re.sub(r"^([a-z]?)0+", r"\1", "".join(typed.lower().split()))
        width, height = view.board.width, view.board.height
        anchors = [move.point for move in view.board.moves[-6:]] or [Point(width // 2, height // 2)]
        # Each cell's distance to the nearest anchor, computed once for the whole board (per
        # point and anchor it was most of an autocomplete's time under load); the order is by
        # that distance, then row, then column.
        cells = width * height
        ys, xs = np.divmod(np.arange(cells), width)
        near: list[int] = (
            np.maximum(
                np.abs(xs[None, :] - np.array([a.x for a in anchors])[:, None]),
                np.abs(ys[None, :] - np.array([a.y for a in anchors])[:, None]),
            )
            .min(axis=0)
            .tolist()
        )

        def distance(point: Point) -> int:
            index = point.y * width + point.x
            return near[index] * cells + index

        if prefix.isdigit():
            # Digits alone: a column number in gravity games, else a row.
            def matches(p: Point) -> bool:
                number = p.x + 1 if view.board.gravity else p.y + 1
                return str(number).startswith(prefix)
        else:

            def matches(p: Point) -> bool:
                return str(p).startswith(prefix)

        # during an opening: the points its step accepts (central squares, offers to pick)
        if view.in_opening and view.opening is not None:
            legal = view.opening.legal_points()
        else:
            legal = _legal_points(view.board)
        candidates = [p for p in legal if matches(p)] if prefix else legal
        return view.board, sorted(candidates, key=distance)[:limit]

    async def move_to_thread(self, game_id: int, thread_id: int, *, parent_channel_id: int) -> None:
        """Host the open game in ``thread_id`` off ``parent_channel_id`` (which is then free).

        Raises:
            NoSuchGameError, GameExistsError (the thread has a game),
            GameNotActiveError (the game is over).
        """
        try:
            await self.repository.move_game(game_id, thread_id, parent_channel_id=parent_channel_id)
        except GameNotFoundError as error:
            raise NoSuchGameError(game_id) from error
        except ChannelBusyError as error:
            raise GameExistsError(thread_id, error.game_id) from error
        except InvalidStatusError as error:
            raise GameNotActiveError(game_id, error.status) from error

    async def set_message(self, game_id: int, *, channel_id: int, message_id: int) -> None:
        """Remember which message shows the game's board (it does not change the version).

        Raises:
            NoSuchGameError.
        """
        try:
            await self.repository.set_message(game_id, channel_id=channel_id, message_id=message_id)
        except GameNotFoundError as error:
            raise NoSuchGameError(game_id) from error

    # ---- timeouts and start-up

    async def tick(self, now: datetime | None = None) -> list[TimeoutEvent]:
        """Enforce clocks at ``now`` (default: the injected clock): warn each player once at
        80% of their turn time, end games whose deadline passed (the side to move loses on
        time; ratings updated), and expire unanswered challenges. The bot's deadline task
        calls it periodically and renders the events."""
        events, _records = await self._tick(now or self.clock())
        return events

    async def tick_and_plan(self) -> tuple[list[TimeoutEvent], datetime | None]:
        """``tick``, then ``next_deadline``: the deadline task's pass. The open games are read
        once when the tick changed none of them (most passes: every new challenge and every
        move in a game with a clock wakes the task, and each read makes a record per open
        game); after a change they are read again."""
        events, records = await self._tick(self.clock())
        if events:
            records = await self.repository.open_games()
        return events, await self._next_deadline(records)

    async def _tick(self, now: datetime) -> tuple[list[TimeoutEvent], list[GameRecord]]:
        events: list[TimeoutEvent] = []
        idle = _IdleTimes(self.repository)
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
            return await self._finish(view, _ABANDONED, end_reason="idle")

    def _warn_at(self, record: GameRecord) -> datetime | None:
        if (
            record.status is not GameStatus.ACTIVE
            or record.deadline is None
            or record.turn_seconds is None
            or record.warning_sent
        ):
            return None
        return record.deadline - timedelta(seconds=record.turn_seconds * (1 - WARN_FRACTION))

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
                    return ChallengeExpired(self._remember(closed, view.board, view.opening))
                if view.player(view.acting_color).is_ai:
                    return None  # the AI has no clock; resume() makes its move
                loser = view.acting_color
                return await self._finish(view, Outcome(Termination.TIMEOUT, loser.opponent))
            user_id = view.player(view.acting_color).user_id
            await self.repository.mark_warning_sent(view.game_id, view.version)
            if user_id is None:
                return None
            return TurnWarning(view, user_id, deadline)

    async def next_deadline(self) -> datetime | None:
        """The earliest moment ``tick`` has something to do (a warning, a deadline or a
        challenge expiry), or None; the deadline task can sleep until then."""
        return await self._next_deadline(await self.repository.open_games())

    async def _next_deadline(self, records: Sequence[GameRecord]) -> datetime | None:
        moments = []
        idle = _IdleTimes(self.repository)
        for record in records:
            if record.deadline is not None:
                moments.append(record.deadline)
            idle_at = await idle.ends_at(record)
            if idle_at is not None:
                moments.append(idle_at)
            warn_at = self._warn_at(record)
            if warn_at is not None:
                moments.append(warn_at)
        return min(moments, default=None)

    async def resume(self, *, idle_for: timedelta = timedelta(0)) -> list[MoveResult]:
        """Make every AI move that is due and not being searched already, all at once (the
        pool bounds the parallelism): at start-up, the moves that were due when the process
        stopped; later (the deadline task calls it now and then), moves whose search failed.
        ``idle_for``: only games unchanged for that long, so a retry never races the front-end
        that is about to ask for the move itself. Safe to repeat. Returns the moves made."""
        now = self.clock()
        due = [
            record.id
            for record in await self.repository.open_games()
            if record.status is GameStatus.ACTIVE
            # an opening may give the AI the step whatever colour it holds: ai_reply checks
            and (record.black.is_ai or record.white.is_ai)
            and (record.id, record.version) not in self._thinking
            and now - record.updated_at >= idle_for
        ]
        results = await asyncio.gather(*(self.ai_reply(i) for i in due), return_exceptions=True)
        made: list[MoveResult] = []
        for game_id, result in zip(due, results, strict=True):
            if isinstance(result, BaseException):
                log.error("resuming game %d failed: %r", game_id, result)
            elif result is not None:
                made.append(result)
        return made

    # ---- stats and settings

    async def stats(
        self, user_id: int, *, game: Game = Game.GOMOKU, guild_id: int | None = None
    ) -> PlayerStats | None:
        """A player's rating and record in rated games of ``game`` (None if never rated)."""
        return await self.repository.player_stats(user_id, game, guild_id=guild_id)

    async def leaderboard(
        self,
        *,
        game: Game = Game.GOMOKU,
        guild_id: int | None = None,
        limit: int = 10,
        min_games: int = 0,
    ) -> list[PlayerStats]:
        """The best-rated players of a guild (or overall) with at least ``min_games`` rated
        games, best first."""
        return await self.repository.leaderboard(
            game, guild_id=guild_id, limit=limit, min_games=min_games
        )

    async def results(self, user_id: int, *, guild_id: int | None = None) -> list[ResultCount]:
        """How a user's finished games went (every game, rated or not), one line per game
        kind, rule and opponent level (None: people)."""
        return await self.repository.user_results(user_id, guild_id=guild_id)

    async def history(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        limit: int = 10,
        before_id: int | None = None,
    ) -> list[GameRecord]:
        """A user's finished games, newest first; pass the last id seen as ``before_id`` for
        the next page."""
        return await self.repository.user_games(
            user_id, guild_id=guild_id, limit=limit, before_id=before_id
        )

    async def open_games_of(self, user_id: int) -> list[GameState]:
        """The pending and active games ``user_id`` plays in (to redraw after ``forget_user``
        ends them)."""
        return [
            await self._view(record.id, record)
            for record in await self.repository.open_games()
            if user_id in (record.black.user_id, record.white.user_id)
        ]

    async def forget_user(self, user_id: int) -> int:
        """Delete a user's data on request (ratings, statistics; their seat in old games
        becomes "deleted"; open games are abandoned). Returns how many games were touched."""
        touched = await self.repository.delete_user_data(user_id)
        self._boards.clear()  # cached views hold the old player records
        return touched

    async def board_view(self, user_id: int) -> str:
        """How ``user_id`` sees boards in private panels (one of ``BOARD_VIEWS``)."""
        chosen = await self.repository.user_view(user_id)
        return chosen if chosen in BOARD_VIEWS else DEFAULT_VIEW

    async def set_board_view(self, user_id: int, view: str) -> None:
        """Remember how ``user_id`` wants to see boards.

        Raises:
            InvalidOptionError: not one of ``BOARD_VIEWS``.
        """
        if view not in BOARD_VIEWS:
            raise InvalidOptionError("board_view", view, ", ".join(BOARD_VIEWS))
        await self.repository.save_user_view(user_id, view)

    async def language(self, user_id: int) -> str | None:
        """The language ``user_id`` chose for replies (None: their Discord locale)."""
        chosen = await self.repository.user_language(user_id)
        return chosen if chosen in LANGUAGES else None

    async def set_language(self, user_id: int, language: str | None) -> None:
        """Remember the language ``user_id`` wants replies in; None follows Discord again.

        Raises:
            InvalidOptionError: not one of ``bot.core.languages.LANGUAGES``.
        """
        if language is not None and language not in LANGUAGES:
            raise InvalidOptionError("language", language, ", ".join(LANGUAGES))
        await self.repository.save_user_language(user_id, language)

    async def settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings (defaults when never set)."""
        return await self.repository.guild_settings(guild_id)

    async def update_settings(
        self,
        guild_id: int,
        *,
        default_rule: Rule | None = None,
        turn_seconds: int | None = None,
        clear_turn_time: bool = False,
        board_style: str | None = None,
        allowed_channel_ids: Sequence[int] | None = None,
        use_threads: bool | None = None,
        moderator_role_id: int | None = None,
        clear_moderator_role: bool = False,
        idle_human_seconds: int | None = None,
        idle_ai_seconds: int | None = None,
        turn_pings: bool | None = None,
        ai_clock: bool | None = None,
        rated_opening: str | None = None,
        language: str | None = None,
    ) -> GuildSettings:
        """Change the given settings; the rest stay (admins only: the front-end checks).
        ``clear_turn_time`` removes the clock; an empty ``allowed_channel_ids`` allows all;
        ``clear_moderator_role`` leaves ending games to Manage Messages alone;
        ``rated_opening``: an ``OpeningRule`` value for rated games, or "none";
        ``language``: one of ``bot.core.languages.LANGUAGES`` for public messages, or
        "discord" (follow the server's Discord language).
        A new turn time (or ``ai_clock``) reaches the guild's open games from their next turn.

        Raises:
            InvalidOptionError: a value out of range.
        """
        current = await self.repository.guild_settings(guild_id)
        changes: dict[str, object] = {}
        if default_rule is not None:
            try:
                changes["default_rule"] = Rule(default_rule)
            except ValueError:
                allowed = ", ".join(r.value for r in Rule)
                raise InvalidOptionError("rule", default_rule, allowed) from None
        if clear_turn_time:
            changes["turn_seconds"] = None
        elif turn_seconds is not None:
            if not 10 <= turn_seconds <= MAX_TURN_SECONDS:
                raise InvalidOptionError("turn_time", turn_seconds, f"10-{MAX_TURN_SECONDS}")
            changes["turn_seconds"] = turn_seconds
        if board_style is not None:
            if board_style not in BOARD_STYLES:
                raise InvalidOptionError("board_style", board_style, ", ".join(BOARD_STYLES))
            changes["board_style"] = board_style
        if allowed_channel_ids is not None:
            changes["allowed_channel_ids"] = frozenset(allowed_channel_ids)
        if use_threads is not None:
            changes["use_threads"] = use_threads
        if clear_moderator_role:
            changes["moderator_role_id"] = None
        elif moderator_role_id is not None:
            changes["moderator_role_id"] = moderator_role_id
        for option, seconds in (("idle_human", idle_human_seconds), ("idle_ai", idle_ai_seconds)):
            if seconds is not None:
                if not 60 <= seconds <= MAX_IDLE_SECONDS:
                    raise InvalidOptionError(option, seconds, f"60-{MAX_IDLE_SECONDS}")
                changes[f"{option}_seconds"] = seconds
        if turn_pings is not None:
            changes["turn_pings"] = turn_pings
        if ai_clock is not None:
            changes["ai_clock"] = ai_clock
        if rated_opening is not None:
            allowed = ", ".join(["none", *(r.value for r in OpeningRule)])
            if rated_opening != "none" and rated_opening not in set(OpeningRule):
                raise InvalidOptionError("opening", rated_opening, allowed)
            changes["rated_opening"] = None if rated_opening == "none" else rated_opening
        if language is not None:
            if language != "discord" and language not in LANGUAGES:
                raise InvalidOptionError("language", language, ", ".join(["discord", *LANGUAGES]))
            changes["language"] = None if language == "discord" else language
        updated = replace(current, **changes)  # type: ignore[arg-type]
        await self.repository.save_guild_settings(updated)
        if (updated.turn_seconds, updated.ai_clock) != (current.turn_seconds, current.ai_clock):
            await self.repository.set_open_turn_seconds(
                guild_id, updated.turn_seconds, ai_games=updated.ai_clock
            )
        return updated
