"""Playing: stones and columns, opening steps, the AI's reply, takebacks, hints, suggestions."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import timedelta

import numpy as np

from bot.core.ai import AIError, AIRequest
from bot.core.puzzles import load_attempt
from bot.core.service.errors import (
    AIFailedError,
    GameNotActiveError,
    HintNotAllowedError,
    InvalidOptionError,
    NoMoveToUndoError,
    NotAPlayerError,
    NotationError,
    NoUndoRequestError,
    OwnUndoRequestError,
    StalePanelError,
    UndoPendingError,
)
from bot.core.service.events import Moved, TakenBack, UndoAnswered, UndoAsked
from bot.core.service.shared import HINT_LEVEL, ServiceCore, _legal_points, _level, _played
from bot.core.service.states import (
    GameEnd,
    GameState,
    Hint,
    MoveResult,
    UndoRequest,
    UndoResult,
)
from engine.board import Board
from engine.errors import (
    IllegalMoveError,
    OpeningError,
    OpeningStepError,
)
from engine.opening_rules import Seat
from engine.types import Color, Point
from storage.errors import InvalidStatusError, VersionConflictError
from storage.records import GameStatus, StoredUndo

log = logging.getLogger(__name__)


class MoveUseCases(ServiceCore):
    """Playing: stones and columns, opening steps, the AI's reply, takebacks, hints, suggestions."""

    async def _opening_step(
        self, view: GameState, word: str, *, by_ai: bool = False, via: str | None = None
    ) -> MoveResult:
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
                stored = await self.repository.record_opening_step(
                    record.id,
                    record.version,
                    f"{len(opening.board.moves)}:{word}",
                    black=black,
                    white=white,
                    deadline=deadline,
                )
        except InvalidStatusError as error:
            raise GameNotActiveError(record.id, error.status) from error
        last = after.board.moves[-1]
        step = None if placed else word

        def moved(state: GameState) -> Moved:
            return Moved(state, last, step=step, by_ai=by_ai, via=None if by_ai else via)

        game = self._remember(stored, after.board.copy(), after, moved)
        return MoveResult(game, last, step=step)

    async def opening_choice(
        self, game_id: int, user_id: int, word: str, *, via: str | None = None
    ) -> MoveResult:
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
                return await self._lose_on_time(view, color, via)
            return await self._opening_step(view, word, via=via)

        result = await self._locked(await self._record(game_id), action)
        return _played(result, user_id)

    async def place(
        self,
        channel_id: int | None,
        user_id: int,
        point: Point,
        *,
        game_id: int | None = None,
        version: int | None = None,
        points_only: bool = False,
        via: str | None = None,
    ) -> MoveResult:
        """Play ``point`` for ``user_id`` in the channel's active game, or in ``game_id``
        alone when ``channel_id`` is None (the web board, which knows only the game).
        ``via`` names the front end the move came through, for the events
        (``bot.core.service.events.Moved``).

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
                return await self._lose_on_time(view, color, via)
            if view.in_opening:
                return await self._opening_step(view, str(point), via=via)
            return await self._apply(view, point, color, via=via)

        result = await self._locked(await self._open_record(channel_id, game_id), action)
        return _played(result, user_id)

    async def drop(
        self,
        channel_id: int | None,
        user_id: int,
        column: int,
        *,
        game_id: int | None = None,
        letter: bool = False,
        via: str | None = None,
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
                return await self._lose_on_time(view, color, via)
            if not 0 <= column < view.board.width:
                # Columns are numbered from 1 for players.
                raise InvalidOptionError("column", column + 1, f"1-{view.board.width}")
            landing = view.board.landing_point(column)
            if landing is None:
                from engine.errors import ColumnFullError

                raise ColumnFullError(column)
            return await self._apply(view, landing, color, via=via)

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
                    word = choice.step or str(choice.point)
                    return await self._opening_step(fresh, word, by_ai=True)
                return await self._apply(fresh, choice.point, fresh.board.to_move)
            except VersionConflictError:
                return None  # another process wrote meanwhile: this move is stale
            except (IllegalMoveError, OpeningError) as error:
                log.error("the AI chose an illegal move %s in game %d", choice.point, view.game_id)
                raise AIFailedError(view.game_id) from error

    async def undo(
        self,
        channel_id: int | None,
        user_id: int,
        *,
        game_id: int | None = None,
        via: str | None = None,
    ) -> UndoResult | UndoRequest:
        """Take back the user's last move (and the moves after it).

        Against the AI, or with one user at both sides, it is immediate and returns an
        ``UndoResult`` (against the AI: your last move and its reply). Against a person it
        returns an ``UndoRequest`` that the opponent answers with ``answer_undo``, published
        as ``UndoAsked`` (``via``: the front end it came through, as for the takeback's
        ``TakenBack``).

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
                return await self._take_back(view, count, via)
            pending = await self.repository.undo_request(view.game_id)
            if pending is not None and pending.version == view.version:
                raise UndoPendingError(view.game_id)
            await self.repository.save_undo_request(
                StoredUndo(view.game_id, user_id, opponent[0], view.version, count, self.clock())
            )
            self.events.publish(UndoAsked(view, user_id, opponent[0], count, via=via))
            return UndoRequest(view, user_id, opponent[0], count)

        return await self._locked(await self._open_record(channel_id, game_id), action)

    async def _take_back(self, view: GameState, count: int, via: str | None) -> UndoResult:
        board = view.board.copy()
        undone = tuple(board.undo() for _ in range(count))
        deadline = self._deadline(view.record, board.to_move, self.clock())
        record = await self.repository.take_back(
            view.game_id, view.version, count, deadline=deadline
        )

        def taken_back(state: GameState) -> TakenBack:
            return TakenBack(state, undone, via=via)

        return UndoResult(self._remember(record, board, view.opening, taken_back), undone)

    async def answer_undo(
        self, game_id: int, user_id: int, *, accept: bool, via: str | None = None
    ) -> UndoResult | None:
        """The opponent answers an undo request: the moves go (``UndoResult``) or the
        request is dropped (None). The requester may withdraw with ``accept=False``. The
        answer is published as ``UndoAnswered`` (after the takeback's ``TakenBack``).

        Raises:
            NoUndoRequestError: none pending, or the game moved on since it was asked.
            OwnUndoRequestError: ``user_id`` asked for it and would allow it.
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
            if user_id == pending.requester and accept:
                raise OwnUndoRequestError(user_id, game_id)
            if user_id != pending.responder and user_id != pending.requester:
                raise NotAPlayerError(user_id, game_id)
            await self.repository.drop_undo_request(game_id)
            requester, responder = pending.requester, pending.responder
            posted = {"channel_id": pending.channel_id, "message_id": pending.message_id}
            if not accept:
                self.events.publish(
                    UndoAnswered(view, requester, responder, user_id, False, via=via, **posted)
                )
                return None
            result = await self._take_back(view, pending.moves, via)
            self.events.publish(
                UndoAnswered(result.game, requester, responder, user_id, True, via=via, **posted)
            )
            return result

    async def undo_posted(
        self, game_id: int, version: int, channel_id: int, message_id: int
    ) -> bool:
        """The undo request asked at the game's ``version`` was posted as this Discord
        message: it is stored with the request, so that its answer edits it after a restart
        too (``UndoAnswered.message_id``). False when the request has already gone."""
        async with self._lock(game_id):
            return await self.repository.set_undo_message(game_id, version, channel_id, message_id)

    async def drop_stale_undo_requests(
        self, game_id: int | None = None
    ) -> list[tuple[StoredUndo, int | None]]:
        """Drop the stored undo requests (of every game, or of ``game_id``'s) that can no
        longer be answered (their game moved on or ended, while the bot was away say): each
        dropped one with its game's guild, for its posted message (``message_id``) to lose
        its buttons."""
        if game_id is None:
            requests = await self.repository.undo_requests()
        else:
            one = await self.repository.undo_request(game_id)
            requests = [] if one is None else [one]
        dropped = []
        for read in requests:
            async with self._lock(read.game_id):
                record = await self.repository.get_game(read.game_id)
                if record.status is GameStatus.ACTIVE and record.version == read.version:
                    continue
                # Read again under the lock: its message may have been noted meanwhile
                # (``undo_posted``), which leaves it the same request.
                request = await self.repository.undo_request(read.game_id)
                if request is None or _asked(request) != _asked(read):
                    continue  # answered or asked anew meanwhile
                await self.repository.drop_undo_request(request.game_id)
            dropped.append((request, record.guild_id))
        return dropped

    async def hint(self, channel_id: int, user_id: int) -> Hint:
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
        return Hint(view, choice.point, choice.score, choice.depth)

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

    async def suggest_points(
        self, channel_id: int, typed: str = "", *, limit: int = 25
    ) -> list[Point]:
        """Autocomplete for ``/place``: legal points of the channel's active game whose name
        starts with ``typed`` (case and spaces ignored; digits alone pick a row, or a column in
        gravity games), nearest the recent moves first, at most ``limit``. Returns [] when
        there is nothing to suggest; never raises for input."""
        return (await self._suggest(channel_id, typed, limit))[1]

    async def suggest_moves(
        self,
        channel_id: int,
        typed: str = "",
        *,
        limit: int = 25,
        guild_id: int | None = None,
        user_id: int | None = None,
    ) -> list[str]:
        """``suggest_points`` as the player types them: ``h8``, or a column number (``4``) in
        gravity games. Where the channel has no game under way, the points of the member's
        puzzle (``guild_id``, ``user_id``), which ``/place`` plays then."""
        board, points = await self._suggest(channel_id, typed, limit)
        if board is None and guild_id is not None and user_id is not None:
            player = await self.repository.puzzle_player(guild_id, user_id)
            if player is not None and player.attempt is not None:
                board = load_attempt(player.attempt).board()
                points = _nearest(board, _legal_points(board), typed, limit)
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
        # during an opening: the points its step accepts (central squares, offers to pick)
        if view.in_opening and view.opening is not None:
            legal = view.opening.legal_points()
        else:
            legal = _legal_points(view.board)
        return view.board, _nearest(view.board, legal, typed, limit)

    async def resume(self, *, idle_for: timedelta = timedelta(0)) -> list[MoveResult]:
        """Make every AI move that is due and not being searched already, all at once (the
        pool bounds the parallelism): at start-up, the moves that were due when the process
        stopped; later (the core runner calls it now and then), moves whose search failed.
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


def _asked(request: StoredUndo) -> StoredUndo:
    """The request as asked: without the message its asking was posted as, noted later."""
    return replace(request, channel_id=None, message_id=None)


def _nearest(board: Board, legal: Iterable[Point], typed: str, limit: int) -> list[Point]:
    """The ``legal`` points that start with what was ``typed``, nearest the last moves first."""
    # "H 08" -> "h8": the notation's leading zeros and spaces mean nothing.
    prefix = re.sub(r"^([a-z]?)0+", r"\1", "".join(typed.lower().split()))
    width, height = board.width, board.height
    anchors = [move.point for move in board.moves[-6:]] or [Point(width // 2, height // 2)]
    # Each cell's distance to the nearest anchor, computed once for the whole board; the
    # cells in order of that distance, then row, then column (the key is unique per cell),
    # are walked until ``limit`` legal, matching points are found: no Python call per point.
    cells = width * height
    index = np.arange(cells)
    ys, xs = np.divmod(index, width)
    near = np.maximum(
        np.abs(xs[None, :] - np.array([a.x for a in anchors])[:, None]),
        np.abs(ys[None, :] - np.array([a.y for a in anchors])[:, None]),
    ).min(axis=0)
    order: list[int] = np.argsort(near * cells + index).tolist()

    if prefix.isdigit():
        # Digits alone: a column number in gravity games, else a row.
        def matches(p: Point) -> bool:
            number = p.x + 1 if board.gravity else p.y + 1
            return str(number).startswith(prefix)
    else:

        def matches(p: Point) -> bool:
            return str(p).startswith(prefix)

    by_cell = {p.y * width + p.x: p for p in legal}
    found: list[Point] = []
    for cell in order:
        point = by_cell.get(cell)
        if point is not None and (not prefix or matches(point)):
            found.append(point)
            if len(found) == limit:
                break
    return found
