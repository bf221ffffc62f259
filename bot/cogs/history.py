"""``/gomoku history [user] [game]``: a user's finished games, and with ``game:`` its replay.

History pages, their games, replay steps and the download are buttons whose custom ids carry
everything (``DynamicItem``), so they keep working after a restart::

    gomoku:history:<user>:<page>                        a page of a user's finished games
    gomoku:<game>:replay                                open a game's replay (from a page)
    gomoku:<game>:replay:<first|prev|next|last>:<ply>   step from the position after <ply>
    gomoku:<game>:download                              the game as SGF, move list, animation

Downloads name players by their display name in the server; user ids never appear in a file.
"""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any, Final, Self

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.review import Review
from bot.core.service.errors import UnknownButtonError
from bot.core.service.states import GameState, HistoryPage
from bot.host import GameHost, Interaction, host_of
from bot.names import display_name
from bot.table import card_embed
from bot.text import animation, render, words
from bot.views import GameItem
from engine.games import game_spec
from engine.types import Termination
from storage.records import GameRecord, Player

__all__ = [
    "DownloadButton",
    "HistoryButton",
    "HistoryCommands",
    "OpenReplayButton",
    "ReplayButton",
    "display_names",
    "history_message",
    "replay_message",
    "setup",
]

Button = discord.ui.Button[Any]

_COLOUR: Final = 0x5865F2
_MOVE_LIST_LIMIT: Final = 1900  # leaves room for the code fence within Discord's 2000
_STEPS: Final = {"first": "⏮", "prev": "◀", "next": "▶", "last": "⏭"}
_LARGEST_ID: Final = 2**63 - 1  # the databases' largest integer; Discord's ids stay below it


# ---------------------------------------------------------------- history


def _history_line(record: GameRecord, user_id: int) -> str:
    view_names = words.versus(render.player_label(record.black), render.player_label(record.white))
    outcome = record.outcome
    color = record.color_of(user_id)
    won = None if outcome is None or outcome.winner is None else outcome.winner is color
    draw = outcome is not None and outcome.termination is Termination.DRAW
    result = words.result_word(won=won, draw=draw)
    kind = render.game_name(record.game)
    if len(game_spec(record.game).rules) > 1:  # the rule is part of what was played
        kind += f" {words.rule_name(record.rule)}"
    when = discord.utils.format_dt(record.finished_at or record.updated_at, "d")
    return f"`{record.id}` {when} {kind} · {view_names} · **{result}**"


def history_message(page: HistoryPage) -> dict[str, Any]:
    """The keyword arguments of a history page: an embed and Newer/Older buttons."""
    embed = discord.Embed(title=words.history_title(), colour=_COLOUR)
    lines = [_history_line(record, page.user_id) for record in page.games]
    embed.description = f"<@{page.user_id}>\n" + ("\n".join(lines) or words.history_empty())
    embed.set_footer(text=words.history_footer(page.page))
    view = discord.ui.View(timeout=None)
    user, number = page.user_id, page.page
    view.add_item(HistoryButton(user, number - 1, label=words.newer(), enabled=number > 0))
    view.add_item(HistoryButton(user, number + 1, label=words.older(), enabled=page.has_more))
    for record in page.games:  # a page's ten games: two rows of five
        view.add_item(OpenReplayButton(record.id))
    return {"embed": embed, "view": view}


class HistoryButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:history:(?P<user>[0-9]{1,19}):(?P<page>[0-9]{1,6})",
):
    """Newer / Older: show another page of the same user's history."""

    def __init__(
        self, user_id: int, page: int, *, label: str | None = None, enabled: bool = True
    ) -> None:
        page = max(0, page)
        super().__init__(
            discord.ui.Button(
                label=label or words.older(),
                style=discord.ButtonStyle.secondary,
                custom_id=f"gomoku:history:{user_id}:{page}",
                disabled=not enabled,
            )
        )
        self.game_id = 0  # not about one game
        self.user_id = user_id
        self.page = page

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild from ``gomoku:history:<user>:<page>``."""
        return cls(int(match["user"]), int(match["page"]))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Redraw the message with the page."""
        if self.user_id > _LARGEST_ID:
            raise UnknownButtonError()  # no user has it: a forged id
        page = await host_of(interaction).service.history_page(
            self.user_id,
            guild_id=interaction.guild_id,
            page=self.page,
        )
        await interaction.response.edit_message(**history_message(page))


# ---------------------------------------------------------------- replay


def replay_message(
    view: GameState, ply: int, style: render.Look, review: Review | None = None
) -> dict[str, Any]:
    """The keyword arguments of a replay step: the board after ``ply`` moves and ⏮ ◀ ▶ ⏭
    (with a ``review``, the engine's mark on the move just shown and its view of the position)."""
    total = len(view.board.moves)
    ply = max(0, min(ply, total))
    shown = view.after(ply)
    if style is render.Look.IMAGE:
        style = render.Look.EMOJI  # one message, no attachment to swap at every step
    embed = card_embed(render.game_card(shown, style=style))
    embed.set_footer(text=words.replay_footer(view.game_id, ply, total))
    if review is not None:
        embed.add_field(name=words.review_field(), value=_review_words(review, ply), inline=False)
    buttons = discord.ui.View(timeout=None)
    for action in _STEPS:
        buttons.add_item(ReplayButton(view.game_id, action, ply, total=total))
    buttons.add_item(DownloadButton(view.game_id))
    return {"embed": embed, "view": buttons, "allowed_mentions": discord.AllowedMentions.none()}


async def _replay(interaction: Interaction, game_id: int, ply: int = 0) -> dict[str, Any]:
    """The replay of ``game_id`` from the position after ``ply``, if the user may see it."""
    bot = host_of(interaction)
    view = await bot.service.visible_game(
        game_id, user_id=interaction.user.id, guild_id=interaction.guild_id
    )
    look = await bot.preferences.look(view.guild_id)
    review = await bot.service.stored_review(view.game_id)
    return replay_message(view, ply, look, review)


def _review_words(review: Review, ply: int) -> str:
    lines = []
    mark = review.mark_at(ply)
    if mark is not None:
        lines.append(render.mark_line(mark))
    step = review.steps[ply] if ply < len(review.steps) else None
    if step is not None:
        lines.append(words.review_step(step.side.value, step.verdict, step.proof, str(step.best)))
    return "\n".join(lines) or "—"


def _target(action: str, ply: int, total: int) -> int:
    return {"first": 0, "prev": ply - 1, "next": ply + 1, "last": total}[action]


class ReplayButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=(
        r"gomoku:(?P<game>[0-9]{1,18}):replay:(?P<action>first|prev|next|last):(?P<ply>[0-9]{1,4})"
    ),
):
    """One step of a replay; the id says where the replay stands, so no state is kept."""

    def __init__(self, game_id: int, action: str, ply: int, *, total: int | None = None) -> None:
        disabled = False
        if total is not None:
            target = _target(action, ply, total)
            disabled = target == ply or not 0 <= target <= total
        super().__init__(
            discord.ui.Button(
                emoji=_STEPS[action],
                style=discord.ButtonStyle.secondary,
                custom_id=f"gomoku:{game_id}:replay:{action}:{ply}",
                disabled=disabled,
            )
        )
        self.game_id = game_id
        self.action = action
        self.ply = ply

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild from ``gomoku:<game>:replay:<action>:<ply>``."""
        return cls(int(match["game"]), match["action"], int(match["ply"]))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Show the position the button leads to."""
        bot = host_of(interaction)
        view = await bot.service.visible_game(
            self.game_id, user_id=interaction.user.id, guild_id=interaction.guild_id
        )
        ply = _target(self.action, self.ply, len(view.board.moves))
        look = await bot.preferences.look(view.guild_id)
        review = await bot.service.stored_review(view.game_id)
        message = replay_message(view, ply, look, review)
        if interaction.message is not None and interaction.message.attachments:
            message["attachments"] = []  # from a review's reply: the graph gives way to the board
        await interaction.response.edit_message(**message)


class OpenReplayButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):replay",
):
    """A game on a history page, by its id: opens its replay (privately, the page stays)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=str(game_id),
                emoji="▶",
                style=discord.ButtonStyle.secondary,
                custom_id=f"gomoku:{game_id}:replay",
            )
        )
        self.game_id = game_id

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Answer with the replay from the first move."""
        message = await _replay(interaction, self.game_id)
        await interaction.response.send_message(**message, ephemeral=True)


class DownloadButton(
    GameItem,
    discord.ui.DynamicItem[Button],
    template=r"gomoku:(?P<game>[0-9]{1,18}):download",
):
    """Under a replay: the game as an SGF file, its move list and an animated GIF."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=words.download_label(),
                emoji="💾",
                style=discord.ButtonStyle.secondary,
                custom_id=f"gomoku:{game_id}:download",
            )
        )
        self.game_id = game_id

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Answer privately with the files (drawing the animation takes a moment)."""
        bot = host_of(interaction)
        service = bot.service
        view = await service.visible_game(
            self.game_id, user_id=interaction.user.id, guild_id=interaction.guild_id
        )
        await interaction.response.defer(ephemeral=True, thinking=True)
        names = await display_names(interaction, view)
        assert interaction.channel_id is not None
        export = await service.export(
            interaction.channel_id, game_id=view.game_id, player_names=names.__getitem__
        )
        gif = await asyncio.to_thread(animation.animation, export.game)
        moves = export.moves or words.no_moves()
        if len(moves) > _MOVE_LIST_LIMIT:
            moves = moves[: _MOVE_LIST_LIMIT - 1] + "…"
        stem = export.filename.removesuffix(".sgf")
        await interaction.edit_original_response(
            content=f"```\n{moves}\n```",
            attachments=[
                discord.File(io.BytesIO(export.sgf.encode()), filename=export.filename),
                discord.File(io.BytesIO(gif), filename=f"{stem}.gif"),
            ],
        )


ACTIONS: Final = (HistoryButton, ReplayButton, OpenReplayButton, DownloadButton)


# ---------------------------------------------------------------- names for exports


async def display_names(interaction: Interaction, view: GameState) -> dict[Player, str]:
    """The players' display names in this server (an AI by its level); never an id."""
    return {player: await display_name(interaction, player) for player in (view.black, view.white)}


# ---------------------------------------------------------------- commands


class HistoryCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``)."""

    @app_commands.command(name="history")
    @app_commands.describe(
        user="Whose games to list (default: yours)",
        game="A game's id: its replay, with a download of it (the ids are in the list)",
    )
    async def history(
        self,
        interaction: Interaction,
        user: discord.User | None = None,
        game: app_commands.Range[int, 1] | None = None,
    ) -> None:
        """Your finished games here (or another's); with game: step through one, or download it."""
        if game is not None:
            message = await _replay(interaction, game)
            await interaction.response.send_message(**message, ephemeral=True)
            return
        target = user or interaction.user
        page = await host_of(interaction).service.history_page(
            target.id, guild_id=interaction.guild_id
        )
        await interaction.response.send_message(
            **history_message(page), ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )


async def setup(bot: GameHost) -> None:
    """Register the history and replay buttons with ``bot``."""
    bot.add_dynamic_items(*ACTIONS)
