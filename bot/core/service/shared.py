"""The core every use case shares: locks, versions and the position cache, ratings, the clock.

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
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Final, TypeVar

from bot.core.games import table_spec
from bot.core.positions import forbidden_points
from bot.core.service.errors import (
    AIThinkingError,
    GameNotActiveError,
    GameServiceError,
    InvalidOptionError,
    NoActiveGameError,
    NoSuchGameError,
    NotAPlayerError,
    NotYourTurnError,
    OtherChannelError,
    OutOfTimeError,
)
from bot.core.service.events import Event, EventBus, GameEnded, Moved, Refreshed, Subscriber
from bot.core.service.states import GameEnd, GameState, MoveResult, RatingChange
from engine.board import Board
from engine.errors import IllegalMoveError
from engine.opening_rules import Opening, OpeningRule, Seat
from engine.types import Color, Game, Level, Move, Outcome, Point, Rule, Termination
from storage.errors import GameNotFoundError, InvalidStatusError, VersionConflictError
from storage.records import COIN_TOSS, GameOpening, GameRecord, GameStatus, GuildSettings

if TYPE_CHECKING:
    from bot.core.ai import AIRunner
    from bot.core.review import Reviewer
    from storage.repository import GameRepository

log = logging.getLogger(__name__)

DEFAULT_LEVEL: Final = Level.MEDIUM.value  # the bot's default opponent
HINT_LEVEL: Final = "hard"  # hints search at this level
DEFAULT_CHALLENGE_TTL: Final = timedelta(minutes=10)
WARN_FRACTION: Final = 0.8  # warn the player to move when 80% of the turn time has gone
# A turn of a day or more (correspondence) is warned this long before its end instead: a
# fifth of several days is more than a player needs, and of one day too little to find time.
CORRESPONDENCE_TURN: Final = timedelta(days=1)
CORRESPONDENCE_WARNING: Final = timedelta(hours=12)
MAX_TURN_SECONDS: Final = 30 * 24 * 3600
# How boards look, for a server's public boards and a member's private ones alike
# (bot.text.render.Look values); a member who never chose sees emoji.
LOOKS: Final = ("emoji", "compact", "image")
DEFAULT_LOOK: Final = "emoji"
DEFAULT_IDLE_HUMAN: Final = timedelta(days=7)  # a game between people with no move this long ends
DEFAULT_IDLE_AI: Final = timedelta(days=1)  # the same against the AI
MAX_IDLE_SECONDS: Final = 90 * 24 * 3600
# Games whose newest position is kept between calls: one entry a game, not a version, so that
# 500 concurrent games each find their position when their next move reads the game back.
_BOARD_CACHE: Final = 4096
_ABANDONED: Final = Outcome(Termination.ABANDONED, None)

_T = TypeVar("_T")


def _clocks_run() -> datetime | None:
    return None


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _level(value: str) -> Level:
    try:
        return Level(value)
    except ValueError:
        allowed = ", ".join(level.value for level in Level)
        raise InvalidOptionError("level", value, allowed) from None


def _board_for(record: GameRecord, points: Sequence[Point] = ()) -> Board:
    board = Board.for_game(record.game, size=record.width, rule=record.rule)
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


DEFAULT_RATED_OPENING: Final = OpeningRule.SWAP2  # a guild's rated games without a choice


def is_ratable(game: Game, board: Board) -> bool:
    """Whether a game between people on ``board`` may be rated: its table spec names the
    rated sizes (Gomoku on 15x15, each rule rated apart, and Connect Four)."""
    return table_spec(game).ratable(board)


def rated_opening(settings: GuildSettings | None, board: Board) -> str | None:
    """The opening rule a rated Gomoku game on ``board`` gets when its challenger names none:
    the guild's choice (swap2 unless it chose one), None for colours by a coin toss. A renju
    opening on a board that is not renju gives way to swap2."""
    chosen = settings.rated_opening if settings is not None else None
    if chosen == COIN_TOSS:
        return None
    rule = OpeningRule(chosen) if chosen is not None else DEFAULT_RATED_OPENING
    if rule.is_renju and board.rule is not Rule.RENJU:
        rule = DEFAULT_RATED_OPENING
    return rule.value


def _check_opening(game: Game, board: Board, opening: str) -> None:
    """Refuse an opening rule the game cannot have."""
    try:
        rule = OpeningRule(opening)
    except ValueError:
        allowed = ", ".join(r.value for r in OpeningRule)
        raise InvalidOptionError("opening", opening, allowed) from None
    if not table_spec(game).openings:
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

    def __init__(self, settings_of: Callable[[int], Awaitable[GuildSettings]]) -> None:
        self._settings_of = settings_of  # ServiceCore._guild_settings
        self._settings: dict[int, GuildSettings] = {}

    async def ends_at(self, record: GameRecord) -> datetime | None:
        """When ``record`` ends as idle; None for challenges (they expire on their own),
        terminal games (no guild: the player is at the keyboard) and games whose turn's
        deadline is no earlier than the idle end (their clock ends them, with a result)."""
        if record.status is not GameStatus.ACTIVE or record.guild_id is None:
            return None
        settings = self._settings.get(record.guild_id)
        if settings is None:
            settings = await self._settings_of(record.guild_id)
            self._settings[record.guild_id] = settings
        ends = record.updated_at + idle_time(
            settings, against_ai=record.black.is_ai or record.white.is_ai
        )
        if record.deadline is not None and record.deadline >= ends:
            return None  # a long turn (correspondence): its clock ends it, with a result
        return ends


def idle_time(settings: GuildSettings, *, against_ai: bool) -> timedelta:
    """How long a game of the guild may sit without a move before it ends by itself."""
    if against_ai:
        seconds, default = settings.idle_ai_seconds, DEFAULT_IDLE_AI
    else:
        seconds, default = settings.idle_human_seconds, DEFAULT_IDLE_HUMAN
    return default if seconds is None else timedelta(seconds=seconds)


@dataclass(eq=False)
class ServiceCore:
    """What every use case shares: the repository and the AI, the clock and the coin, one lock
    per game, a cache of positions by version, the AI searches in flight, and the steps that
    validate and write under the lock (``_locked``, ``_apply``, ``_finish``) and keep ratings.
    """

    repository: GameRepository
    ai: AIRunner
    clock: Callable[[], datetime] = _utcnow  # aware UTC; tests inject a fake clock
    # When the clocks stopped (a front end that cannot reach its players: nobody can move, and
    # it moves every deadline on by the outage afterwards), or None while they run. The
    # runner ends no game on time meanwhile, and a move is judged against the stop.
    clocks_stopped_at: Callable[[], datetime | None] = _clocks_run
    rng: random.Random = field(default_factory=random.Random)  # coin tosses and AI seeds
    challenge_ttl: timedelta = DEFAULT_CHALLENGE_TTL
    # Where a start, a rematch and the clock's idle ends read a guild's settings: a front end
    # that keeps them gives its reader (the Discord bot's ``bot.preferences``, which one
    # process serves per guild and which forgets a guild's settings when a command of it
    # changes them), so that a burst of starts is not a read a start on the event loop's
    # thread; None, the repository each time.
    settings_of: Callable[[int], Awaitable[GuildSettings]] | None = None
    _locks: weakref.WeakValueDictionary[int, asyncio.Lock] = field(
        default_factory=weakref.WeakValueDictionary, init=False, repr=False
    )
    _boards: OrderedDict[int, tuple[int, Board, Opening | None]] = field(
        default_factory=OrderedDict, init=False, repr=False
    )
    _thinking: dict[tuple[int, int], asyncio.Future[MoveResult | None]] = field(
        default_factory=dict, init=False, repr=False
    )
    # (guild, user) -> the lock of their puzzle attempt: one step of it at a time
    _puzzle_locks: dict[tuple[int, int], asyncio.Lock] = field(
        default_factory=dict, init=False, repr=False
    )
    _reviewer: Reviewer | None = field(default=None, init=False, repr=False)
    # Every stored change of a game, as a typed event (``bot.core.service.events``): every move,
    # opening step, takeback and ending passes through ``_remember``.
    events: EventBus = field(default_factory=EventBus, init=False, repr=False)

    def subscribe(self, subscriber: Subscriber, kinds: Iterable[type[Event]] | None = None) -> None:
        """Call ``subscriber`` with every event of every game from now on, or only with
        those of ``kinds`` (the types of event it acts on)."""
        self.events.subscribe(subscriber, kinds)

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Stop calling ``subscriber``."""
        self.events.unsubscribe(subscriber)

    # ---- plumbing

    async def _guild_settings(self, guild_id: int) -> GuildSettings:
        if self.settings_of is not None:
            return await self.settings_of(guild_id)
        return await self.repository.guild_settings(guild_id)

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def _remember(
        self,
        record: GameRecord,
        board: Board,
        opening: Opening | None = None,
        event: Callable[[GameState], Event] = Refreshed,
    ) -> GameState:
        """Keep the newest position of the game and publish ``event`` (made from the new
        state): a change this process stored unless a newer state is known already; a read
        (``Refreshed``) only when it is newer than the one this process knew.

        A read may come between a write's commit and this call (a page, a command, the clock
        task reading the game meanwhile) and learn the write's version first: it publishes
        ``Refreshed``, and the write's own event still follows, at the same version."""
        known = self._boards.get(record.id)
        if known is None or known[0] <= record.version:
            self._boards[record.id] = (record.version, board, opening)
            self._boards.move_to_end(record.id)
        while len(self._boards) > _BOARD_CACHE:
            self._boards.popitem(last=False)
        state = GameState(record, board.copy(), opening)
        before = -1 if known is None else known[0]
        if before < record.version or (event is not Refreshed and before == record.version):
            self.events.publish(event(state))
        return state

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

    async def _open_record(self, channel_id: int | None, game_id: int | None = None) -> GameRecord:
        """The channel's open game (which must be ``game_id`` when given); with no channel,
        ``game_id`` itself, which must be open."""
        if channel_id is None:
            if game_id is None:
                raise ValueError("a game needs a channel or an id")
            by_id = await self._record(game_id)
            if by_id.status not in (GameStatus.PENDING, GameStatus.ACTIVE):
                raise GameNotActiveError(game_id, by_id.status)
            return by_id
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
                stats = await self.repository.player_stats(
                    player.user_id, record.game, rule=record.rule
                )
                before[player.user_id] = stats.display_rating if stats else 1000
        return before

    async def _ratings_after(
        self, record: GameRecord, before: dict[int, int] | None
    ) -> tuple[RatingChange, ...]:
        if before is None:
            return ()
        changes = []
        for user_id, old in before.items():
            stats = await self.repository.player_stats(user_id, record.game, rule=record.rule)
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

    async def _apply(
        self, view: GameState, point: Point, color: Color, *, via: str | None = None
    ) -> MoveResult:
        """Play ``point`` on a fresh ``view`` (lock held) and store it (``via``: the front
        end a player's move came through, for the events)."""
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
        move = Move(point, color)
        by_ai = record.player(color).is_ai

        def moved(state: GameState) -> Moved:
            return Moved(state, move, ratings, by_ai=by_ai, via=None if by_ai else via)

        return MoveResult(self._remember(stored, board, view.opening, moved), move, ratings)

    def _is_late(self, view: GameState) -> bool:
        """The side to move's deadline has passed (the clock task has not got to it yet).
        While the clocks stand still the time is the moment they stopped: the deadline will
        move on by the outage's length (``now - stopped``), so a move is late only where its
        deadline had passed before the stop."""
        if view.deadline is None:
            return False
        stopped = self.clocks_stopped_at()
        now = self.clock()
        return view.deadline <= (now if stopped is None else min(now, stopped))

    async def _lose_on_time(self, view: GameState, color: Color, via: str | None = None) -> GameEnd:
        return await self._finish(
            view, Outcome(Termination.TIMEOUT, color.opponent), by_clock=True, via=via
        )

    async def _finish(
        self,
        view: GameState,
        outcome: Outcome,
        *,
        ended_by: int | None = None,
        end_reason: str | None = None,
        by_clock: bool = False,
        via: str | None = None,
    ) -> GameEnd:
        # A game without a result changes no rating: there is nothing to show for it.
        rated = outcome.termination is not Termination.ABANDONED
        before = await self._ratings_before(view.record) if rated else None
        record = await self.repository.finish_game(
            view.game_id, view.version, outcome, ended_by=ended_by, end_reason=end_reason
        )
        ratings = await self._ratings_after(record, before)

        def ended(state: GameState) -> GameEnded:
            return GameEnded(state, ratings, by_clock=by_clock, via=via)

        return GameEnd(self._remember(record, view.board, view.opening, ended), ratings)
