"""The web board from Discord's side: its buttons, and the hooks the server asks of Discord.

``OpenBoardButton`` (``gomoku:<game>:web``) sits under every active or finished board when the
web board is configured; pressing it answers privately with a link carrying a pass: a play
pass for the game's players, a watch pass for anyone else who sees the channel.
``ActivityButton`` (``gomoku:<game>:activity``) opens the same board inside Discord as an
Activity (``InteractionResponse.launch_activity``), where the app has Activities enabled.
``start_web`` starts the server with ``DiscordHooks``: the players' names from Discord, and
the board of a game started from the page. Whatever else the page does (moves, opening
choices, resignations, takebacks, undo requests) reaches Discord as the service's events,
which the table draws (``bot.table.Table.on_event``); the core runner lets the AI answer.
``standings_link`` is the link button under a tournament's posted standings: its page on the
web board (``bot.web.standings``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import discord

from bot.host import GameHost, host_of
from bot.text import i18n, web_words
from bot.views import GameItem, game_button
from bot.web.server import OAuthApp, WebBoard
from bot.web.standings import standings_url
from bot.web.tokens import DEFAULT_TTL, Role, Signer

if TYPE_CHECKING:
    from bot.core.bus import GameBus
    from bot.core.service.states import GameState

__all__ = [
    "ActivityButton",
    "DiscordHooks",
    "OpenBoardButton",
    "standings_link",
    "start_web",
    "with_board_link",
]

_ID: Final = r"gomoku:(?P<game>[0-9]{1,18})"
Button = discord.ui.Button[Any]


class OpenBoardButton(GameItem, discord.ui.DynamicItem[Button], template=_ID + r":web"):
    """Under a board: a private link to the web board (play or watch)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            game_button(
                game_id,
                "web",
                label=web_words.open_board_label(),
                emoji="\N{GLOBE WITH MERIDIANS}",
                style=discord.ButtonStyle.secondary,
            )
        )
        self.game_id = game_id

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Mint a pass for the presser and answer with the link, privately."""
        bot = host_of(interaction)
        url = bot.settings.web_url
        signer = board_signer(bot)
        if url is None or signer is None:
            raise RuntimeError("the web board is not configured")
        game = await bot.service.game(self.game_id)
        player = interaction.user.id in game.humans
        role = Role.PLAY if player else Role.WATCH
        grant = signer.mint(game.game_id, interaction.user.id, role, language=i18n.current())
        view = discord.ui.View(timeout=None)
        view.add_item(
            discord.ui.Button(label=web_words.open_board_label(), url=f"{url.rstrip('/')}/#{grant}")
        )
        if bot.settings.client_secret is not None:
            view.add_item(ActivityButton(game.game_id))
        text = web_words.board_link(player=player, hours=DEFAULT_TTL // 3600)
        await interaction.response.send_message(text, view=view, ephemeral=True)


class ActivityButton(GameItem, discord.ui.DynamicItem[Button], template=_ID + r":activity"):
    """Opens the web board inside Discord, as the app's Activity."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            game_button(
                game_id,
                "activity",
                label=web_words.activity_label(),
                emoji="\N{VIDEO GAME}",
                style=discord.ButtonStyle.primary,
            )
        )
        self.game_id = game_id

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Launch the Activity in the presser's client (it finds the channel's game)."""
        await interaction.response.launch_activity()


def with_board_link(buttons: discord.ui.View | None, game: GameState) -> discord.ui.View | None:
    """``buttons`` with **Open board** added, for active and finished games."""
    if game.status.value not in ("active", "finished"):
        return buttons
    view = buttons if buttons is not None else discord.ui.View(timeout=None)
    rows = [item.row for item in view.children if item.row is not None]
    item = OpenBoardButton(game.game_id)
    row = max(rows, default=-1) + 1
    if len(view.children) >= 25 or row > 4:
        return view
    item.row = row
    view.add_item(item)
    return view


def standings_link(host: GameHost, tournament_id: int) -> discord.ui.View | None:
    """A link button to the tournament's standings page, in the current language, when the
    web board is on (``None`` when it is not)."""
    url = host.settings.web_url
    signer = board_signer(host)
    if url is None or signer is None or host.settings.web_port is None:
        return None
    view = discord.ui.View(timeout=None)
    link = standings_url(url, signer, tournament_id, i18n.current())
    view.add_item(discord.ui.Button(label=web_words.standings_link_label(), url=link))
    return view


class DiscordHooks:
    """What the web board asks of Discord: the players' names, a new game's board."""

    def __init__(self, host: GameHost) -> None:
        self.host = host

    def started(self, game: GameState) -> None:
        """Post the new game's board (a challenge, or a game against the AI); the core
        runner lets the AI open when it plays first, and the table draws its move."""
        self.host.spawn(self.host.table.show_game(game))

    async def display_names(self, user_ids: list[int]) -> dict[int, str]:
        """Display names from Discord (the web board keeps them once found)."""
        names: dict[int, str] = {}
        for user_id in user_ids:
            # The client's cache first: a tournament's standings name many players at once.
            user = self.host.get_user(user_id)
            if user is None:
                try:
                    user = await self.host.fetch_user(user_id)
                except discord.HTTPException:
                    continue
            names[user_id] = user.display_name
        return names


def board_signer(host: GameHost) -> Signer | None:
    """The signer of board passes, when the web board is configured."""
    settings = host.settings
    if settings.web_url is None:
        return None
    return Signer.from_secrets(settings.web_secret, settings.discord_token)


async def start_web(
    host: GameHost, application_id: int | None, bus: GameBus | None = None
) -> WebBoard | None:
    """Start the web board when ``GOMOKU_WEB_PORT`` and ``GOMOKU_WEB_URL`` are set; with
    ``bus``, its pages also show the moves other processes store."""
    settings = host.settings
    signer = board_signer(host)
    if settings.web_port is None or signer is None:
        return None
    oauth = None
    if settings.client_secret is not None and application_id is not None:
        oauth = OAuthApp(
            application_id,
            settings.client_secret,
            settings.discord_token or "",
            discord.http.Route.BASE,
        )
    board = WebBoard(host.service, signer, hooks=DiscordHooks(host), oauth=oauth, bus=bus)
    await board.start(settings.web_port)
    host.add_dynamic_items(OpenBoardButton, ActivityButton)
    return board
