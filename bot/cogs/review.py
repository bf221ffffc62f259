"""``/gomoku review [game]``: the engine's marks on a finished game, a graph, and the replay.

The reply is private and edited as the engine goes through the game (``bot.core.review``); a stored
review answers at once. Its button opens the replay (``bot.cogs.history``) just after the
first mark; the replay shows the engine's view at every step of a reviewed game.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.history import ReplayButton
from bot.core.review import (
    NoGameToReviewError,
    Review,
    check_reviewable,
)
from bot.core.service.states import GameState
from bot.host import Interaction, host_of
from bot.text import render, words
from bot.text.review_graph import graph_png

__all__ = ["ReviewCommands", "review_message"]


_COLOUR: Final = 0x5865F2
_MARKS_SHOWN: Final = 12  # an embed description holds these comfortably


def review_message(view: GameState, review: Review) -> dict[str, Any]:
    """The keyword arguments of a finished review: marks, the graph, a replay button."""
    moves = view.board.moves
    lines = [render.mark_line(mark) for mark in review.marks[:_MARKS_SHOWN]]
    if not lines:
        lines.append(words.review_no_marks())
    if review.turning is not None and 0 < review.turning <= len(moves):
        lines.append(words.turning_point(review.turning, str(moves[review.turning - 1].point)))
    if not review.complete:
        lines.append(words.review_unfinished())
    embed = discord.Embed(
        title=words.review_title(view.game_id), description="\n".join(lines), colour=_COLOUR
    )
    filename = f"review-{view.game_id}.png"
    embed.set_image(url=f"attachment://{filename}")
    embed.set_footer(text=words.review_graph())
    buttons = discord.ui.View(timeout=None)
    first = review.marks[0].ply if review.marks else review.turning or 1
    start = ReplayButton(view.game_id, "next", max(first - 1, 0), total=len(moves))
    start.item.label = words.review_replay()
    buttons.add_item(start)
    return {"embed": embed, "view": buttons, "filename": filename}


class ReviewCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``)."""

    @app_commands.command(name="review")
    @app_commands.describe(game="The game's id (default: your last finished game here)")
    async def review(
        self, interaction: Interaction, game: app_commands.Range[int, 1] | None = None
    ) -> None:
        """The engine's review of a finished game: blunders, missed wins, a graph."""
        bot = host_of(interaction)
        service = bot.service
        if game is not None:
            view = await service.visible_game(
                game, user_id=interaction.user.id, guild_id=interaction.guild_id
            )
        else:
            latest = await service.latest_game(interaction.user.id, guild_id=interaction.guild_id)
            if latest is None:
                raise NoGameToReviewError()
            view = latest
        check_reviewable(view)
        stored = await service.stored_review(view.game_id)
        if stored is None:
            runner = service.reviewer()
            await interaction.response.defer(ephemeral=True, thinking=True)
            if runner.busy:
                await interaction.edit_original_response(content=words.review_waiting(view.game_id))

            async def progress(done: int, total: int) -> None:
                with contextlib.suppress(discord.HTTPException):  # a lost edit loses nothing
                    await interaction.edit_original_response(
                        content=words.review_progress(view.game_id, done, total)
                    )

            stored = await runner.review(view, progress)
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        message = review_message(view, stored)
        png = await asyncio.to_thread(graph_png, stored)
        await interaction.edit_original_response(
            content=None,
            embed=message["embed"],
            view=message["view"],
            attachments=[discord.File(io.BytesIO(png), filename=message["filename"])],
        )
