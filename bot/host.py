"""``GameHost``: what cogs, views and the table need of the bot, and nothing more.

The Discord layer's modules type against these Protocols, never against the client class
(``bot.client.GomokuBot`` satisfies them; mypy checks that where the client hands itself
over), so none of them imports the client and the client imports them all. ``BoardTable`` is
the part that draws boards and plays moves (``bot.table.Table``); ``MovePlay`` says which move
to play and where it came from.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias, TypeVar, cast

import discord

if TYPE_CHECKING:
    from discord import app_commands
    from discord.ext import commands
    from discord.http import HTTPClient

    from bot.club import Club
    from bot.cooldown import UserCooldown
    from bot.core.admission import StartAdmission
    from bot.core.runner import GameRunner
    from bot.core.service.states import GameState, MoveResult, RatingChange
    from bot.core.service.tournaments import TournamentService
    from bot.outage import Faults
    from bot.preferences import Preferences
    from bot.settings import Settings
    from engine.types import Point

__all__ = [
    "VIA",
    "Answering",
    "BoardTable",
    "GameHost",
    "Interaction",
    "MovePlay",
    "MoveSource",
    "host_of",
]

VIA: Final = "discord"  # the front end's name in the events of the moves it plays

T = TypeVar("T")

Interaction: TypeAlias = discord.Interaction[Any]
"""An interaction as cogs and views receive it; ``host_of`` gives its bot as a ``GameHost``."""


class MoveSource(enum.Enum):
    """Where a move came from, which decides how it is answered."""

    COMMAND = "command"  # /place: answered privately in words; only its game's notation
    BOARD = "board"  # a button on the board message: the board's redraw is the answer
    PANEL = "panel"  # a tap on a private panel: acknowledged at once; a stale panel refused


@dataclass(frozen=True, slots=True)
class MovePlay:
    """One move to play: a point (Gomoku, tic-tac-toe) or a column (gravity games)."""

    source: MoveSource
    point: Point | None = None
    column: int | None = None
    game_id: int | None = None  # a button's game; a command plays the channel's game
    panel_version: int | None = None  # PANEL: the game's version the panel was drawn at
    column_letter: bool = False  # COMMAND: the column was typed as a letter, not a number

    @classmethod
    def typed(cls, point: Point | None, column: int | None, *, letter: bool) -> MovePlay:
        """A ``/place`` cell."""
        return cls(MoveSource.COMMAND, point, column, column_letter=letter)

    @classmethod
    def on_board(
        cls, game_id: int, *, point: Point | None = None, column: int | None = None
    ) -> MovePlay:
        """A grid square or column button on the board message."""
        return cls(MoveSource.BOARD, point, column, game_id=game_id)

    @classmethod
    def panel_tap(cls, game_id: int, point: Point, version: int) -> MovePlay:
        """A tap on the private panel drawn at ``version``."""
        return cls(MoveSource.PANEL, point, None, game_id=game_id, panel_version=version)


class BoardTable(Protocol):
    """Board messages, deferral, a move and the AI's reply (``bot.table.Table``)."""

    faults: Faults  # games behind while Discord does not answer, homes gone (bot.outage)
    own_replies: set[str]  # tokens of the replies this process noted for the AI to fill in

    async def defer_if_slow(
        self,
        interaction: Interaction,
        work: Awaitable[T],
        *,
        ephemeral: bool = False,
        thinking: bool = False,
    ) -> T: ...

    async def show_game(
        self,
        game: GameState,
        *,
        interaction: Interaction | None = None,
        ratings: Sequence[RatingChange] = (),
        repost: bool = False,
        pinged: int | None = None,
        strict: bool = False,
        newer_only: bool = False,
        ping: bool = True,
    ) -> None: ...

    async def answer_with_board(
        self, interaction: Interaction, game: GameState, *, ratings: Sequence[RatingChange] = ()
    ) -> None: ...

    async def respond_with_board(
        self, interaction: Interaction, game: GameState, *, replace: bool = False
    ) -> None: ...

    async def board_message(
        self, game: GameState, ratings: Sequence[RatingChange] = ()
    ) -> dict[str, Any]: ...

    async def play_move(self, interaction: Interaction, move: MovePlay) -> MoveResult: ...

    def undo_posted(
        self, game: GameState, requester: int, channel_id: int, message_id: int
    ) -> None: ...

    def undo_not_posted(self, game_id: int) -> None: ...

    async def play_ai(
        self, game_id: int, *, interaction: Interaction | None = None
    ) -> MoveResult | None: ...

    def answering(self, channel_id: int | None) -> AbstractContextManager[Answering]: ...


class Answering(Protocol):
    """What a handler holding ``BoardTable.answering`` adds: the games it draws the AI's
    reply in itself."""

    def game(self, game_id: int) -> None: ...


class GameHost(Protocol):
    """The bot as the Discord layer sees it: the game service, the table, the caches of
    settings and languages, and the few parts of discord.py's client that cogs use."""

    service: TournamentService  # the games and the tournaments run over them
    runner: GameRunner  # AI replies, clocks, resumption (the core's; see bot.core.runner)
    settings: Settings
    clock: Callable[[], datetime]
    cooldown: UserCooldown
    start_admission: StartAdmission
    deadline_poll: float
    http: HTTPClient

    @property
    def table(self) -> BoardTable: ...
    @property
    def preferences(self) -> Preferences: ...
    @property
    def club(self) -> Club: ...

    def forget_settings(self, guild_id: int) -> None: ...
    def spawn(self, coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T]: ...
    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None: ...

    # discord.py's client
    @property
    def user(self) -> discord.ClientUser | None: ...
    @property
    def application_id(self) -> int | None: ...
    @property
    def tree(self) -> app_commands.CommandTree[Any]: ...
    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None
    ) -> discord.PartialMessageable: ...
    def get_channel(self, id: int, /) -> Any: ...
    async def fetch_channel(self, channel_id: int, /) -> Any: ...
    def get_user(self, id: int, /) -> discord.User | None: ...
    async def fetch_user(self, user_id: int, /) -> discord.User: ...
    def get_guild(self, id: int, /) -> discord.Guild | None: ...
    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None: ...
    async def wait_until_ready(self) -> None: ...
    def is_closed(self) -> bool: ...
    async def add_cog(self, cog: commands.Cog, /, *, override: bool = False) -> None: ...


def host_of(interaction: discord.Interaction[Any]) -> GameHost:
    """The bot that received ``interaction`` (its one client class is a ``GameHost``)."""
    return cast("GameHost", interaction.client)
