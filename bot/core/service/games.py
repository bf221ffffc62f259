"""Starting, answering, ending and reading games: challenges, rematches, exports, threads."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping
from datetime import datetime, timedelta

from bot.core.games import table_spec
from bot.core.service.errors import (
    ChallengeExpiredError,
    ChannelNotAllowedError,
    GameExistsError,
    GameNotActiveError,
    InvalidOptionError,
    NoSuchGameError,
    NotAPlayerError,
    NotChallengedError,
    NotReplaceableError,
    RematchError,
    SelfChallengeError,
)
from bot.core.service.events import ChallengeIssued, GameEnded, GameStarted
from bot.core.service.shared import (
    _ABANDONED,
    DEFAULT_LEVEL,
    ServiceCore,
    _board_for,
    _check_opening,
    _level,
    _opening_text,
    _turn_seconds,
    is_ratable,
    rated_opening,
)
from bot.core.service.states import ColourChoice, Export, GameEnd, GameState
from engine.board import Board
from engine.errors import UnsupportedBoardError
from engine.games import game_spec
from engine.opening_rules import Opening, OpeningRule, Seat
from engine.records import move_text, to_sgf
from engine.types import Color, Game, Outcome, Rule, Termination
from storage.errors import ChannelBusyError, GameNotFoundError, InvalidStatusError
from storage.records import GameStatus, NewGame, Player

log = logging.getLogger(__name__)


class GameUseCases(ServiceCore):
    """Starting, answering, ending and reading games: challenges, rematches, exports, threads."""

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
        rated: bool = True,
    ) -> GameState:
        """Start a game in ``channel_id``.

        Without ``opponent`` the user plays the AI at ``level`` at once: the view is ACTIVE,
        and when the AI moves first ``view.is_ai_turn`` is true (call ``ai_reply``). With an
        ``opponent`` (a user id; the front-end refuses bots) a challenge is made: the view is
        PENDING until ``accept``/``decline`` or ``view.deadline`` (expiry, seen by ``tick``).

        ``rule`` defaults to the guild's setting for Gomoku (the small games are freestyle
        only); ``size`` applies to Gomoku only (5-20, default 15). ``colour`` is the starter's
        wish: "black", "white" or "random" (a coin toss now, shown on the challenge).
        The turn time is the guild's setting.

        ``opening`` (Gomoku only) is an opening rule (``OpeningRule`` value: swap, swap2,
        soosorv8, taraguchi10; the renju ones need the renju rule on 15x15). Then ``colour``
        says who starts the opening: "black" the starter, "white" the opponent.

        A game between two people is rated unless ``rated`` is false or its board is never
        rated (``is_ratable``: Gomoku on 15x15, each rule apart, and Connect Four). A rated
        game is fair: Gomoku without an opening gets the guild's (``rated_opening``, swap2
        unless it chose another), and where the guild chose none the colours are a coin toss
        whatever ``colour`` says.

        Raises:
            GameExistsError: the channel already has a pending or active game.
            SelfChallengeError: ``opponent == user_id``.
            InvalidOptionError: size, rule, level or colour not valid for ``game``.
            ChannelNotAllowedError: the guild restricts games to other channels.
        """
        game = Game(game)
        settings = await self._guild_settings(guild_id) if guild_id is not None else None
        if settings is not None and not settings.allows(channel_id):
            raise ChannelNotAllowedError(channel_id, settings.allowed_channel_ids)
        if rule is None:
            rule = settings.default_rule if settings is not None else Rule.FREESTYLE
            rules = game_spec(game).rules
            if rule not in rules:
                rule = rules[0]
        board = self._validate_board(game, rule, size)
        if colour not in ColourChoice.ALL:
            raise InvalidOptionError("colour", colour, ", ".join(ColourChoice.ALL))
        rated = rated and opponent is not None and is_ratable(game, board)
        if rated and opening is None and table_spec(game).openings:
            opening = rated_opening(settings, board)
        if rated and opening is None:
            colour = ColourChoice.RANDOM  # no opening rule shares the first move: a coin toss
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
        pending = opponent is not None
        return await self._create(
            board,
            guild_id=guild_id,
            channel_id=channel_id,
            black=black,
            white=white,
            created_by=user_id,
            pending=pending,
            rated=rated,
            turn_seconds=_turn_seconds(settings, people=pending),
            opening=opening,
        )

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
        turn_seconds: int | None = None,
    ) -> GameState:
        """Start an unrated game with fixed sides at once (the terminal: one user at both
        sides, two users at one keyboard, or the AI against the AI), clockless unless
        ``turn_seconds`` gives each person's turn a time. With ``replace_open`` an open game
        in the channel is ended first (abandoned).

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
        return await self._create(
            board,
            guild_id=None,
            channel_id=channel_id,
            black=black,
            white=white,
            created_by=black.user_id if black.user_id is not None else white.user_id,
            turn_seconds=turn_seconds,
        )

    async def _create(
        self,
        board: Board,
        *,
        guild_id: int | None,
        channel_id: int,
        black: Player,
        white: Player,
        created_by: int | None,
        pending: bool = False,
        rated: bool = False,
        turn_seconds: int | None = None,
        opening: str | None = None,
    ) -> GameState:
        """Store a new game on ``board`` (its kind, size and rule): a challenge when
        ``pending`` (it expires after ``challenge_ttl``), else active, with the first turn's
        deadline when Black is a person and the game has a clock."""
        now = self.clock()
        deadline: datetime | None = None
        if pending:
            deadline = now + self.challenge_ttl
        elif turn_seconds is not None and black.is_human:
            deadline = now + timedelta(seconds=turn_seconds)
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            black=black,
            white=white,
            game=board.game,
            width=board.width,
            height=board.height,
            rule=board.rule,
            rated=rated,
            status=GameStatus.PENDING if pending else GameStatus.ACTIVE,
            deadline=deadline,
            turn_seconds=turn_seconds,
            created_by=created_by,
            opening=opening,
        )
        try:
            record = await self.repository.create_game(new)
        except ChannelBusyError as error:
            raise GameExistsError(error.channel_id, error.game_id) from error
        started = None
        if opening is not None:
            started = Opening.start(OpeningRule(opening), size=board.size, board_rule=board.rule)
        event = ChallengeIssued if pending else GameStarted
        return self._remember(record, board, started, event)

    @staticmethod
    def _validate_board(game: Game, rule: Rule, size: int | None) -> Board:
        try:
            rule = Rule(rule)
        except ValueError:
            raise InvalidOptionError("rule", rule, ", ".join(r.value for r in Rule)) from None
        spec = game_spec(game)
        if rule not in spec.rules:
            raise InvalidOptionError("rule", rule, ", ".join(r.value for r in spec.rules))
        if spec.sizes is not None and size is not None and size not in spec.sizes:
            raise InvalidOptionError("size", size, f"{spec.sizes[0]}-{spec.sizes[-1]}")
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
            return self._remember(record, view.board, view.opening, GameStarted)

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
            return GameEnd(self._remember(record, view.board, view.opening, GameEnded))

        return await self._locked(await self._record(game_id), action)

    async def resign(
        self,
        channel_id: int | None,
        user_id: int,
        *,
        game_id: int | None = None,
        via: str | None = None,
    ) -> GameEnd:
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
            outcome = Outcome(Termination.RESIGN, color.opponent)
            return await self._finish(view, outcome, via=via)

        return await self._locked(await self._open_record(channel_id, game_id), action)

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
                return GameEnd(self._remember(closed, view.board, view.opening, GameEnded))
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

    async def rematch(self, game_id: int, user_id: int) -> GameState:
        """A finished game again, same options (its opening rule too), colours swapped (with
        an opening rule: the other player starts the opening). Against a person it is a
        challenge the other player accepts (``accept``); against the AI it starts at once
        (``view.is_ai_turn`` when the AI now moves first). The turn time is the guild's now.
        A game in a thread is played again in that thread, off the same channel.

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
            settings = await self._guild_settings(old.guild_id)
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
        view = await self._create(
            _board_for(old),
            guild_id=old.guild_id,
            channel_id=old.channel_id,
            black=black,
            white=white,
            created_by=user_id,
            pending=pending,
            rated=old.rated,
            turn_seconds=_turn_seconds(settings, people=pending),
            opening=opening,
        )
        if old.parent_channel_id is None:
            return view
        # Its end is announced in the channel and closes the thread, as the first game's did.
        await self.move_to_thread(
            view.game_id, old.channel_id, parent_channel_id=old.parent_channel_id
        )
        return await self._view(view.game_id)

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
        names the players in the SGF (default: "Black"/"White", or "AI (<level>)"; user ids
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
                names[color] = f"AI ({player.level})"  # as bot.text.words.ai_name
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

    async def mark_shown(self, shown: Mapping[int, int]) -> None:
        """Note the version each game's board message now shows (game id -> version)."""
        await self.repository.mark_shown(shown)

    async def unshown_games(self) -> list[GameState]:
        """The open games whose board may show less than their newest state."""
        return [
            await self._view(record.id, record) for record in await self.repository.unshown_games()
        ]

    async def open_games_of(self, user_id: int) -> list[GameState]:
        """The pending and active games ``user_id`` plays in (to redraw after ``forget_user``
        ends them)."""
        return [
            await self._view(record.id, record)
            for record in await self.repository.open_games()
            if user_id in (record.black.user_id, record.white.user_id)
        ]

    async def open_games_at(
        self, *, channels: Collection[int] = (), guild_id: int | None = None
    ) -> list[GameState]:
        """The pending and active games in ``channels`` or in threads off them, and every one
        in ``guild_id`` (for the Discord layer when a channel, a thread or a server goes)."""
        wanted = set(channels)
        return [
            await self._view(record.id, record)
            for record in await self.repository.open_games()
            if record.channel_id in wanted
            or record.parent_channel_id in wanted
            or (guild_id is not None and record.guild_id == guild_id)
        ]

    async def open_game(self, channel_id: int) -> GameState | None:
        """The channel's pending or active game, if any."""
        record = await self.repository.open_game_in_channel(channel_id)
        return None if record is None else await self._view(record.id, record)
