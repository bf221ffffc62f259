"""``/gomoku stats [user]`` and ``/gomoku leaderboard``: ratings and records, read-only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import discord
from discord import app_commands
from discord.ext import commands

from storage.repository import PlayerStats

if TYPE_CHECKING:
    from bot.client import GomokuBot

__all__ = ["StatsCommands", "leaderboard_embed", "stats_embed"]

_COLOUR: Final = 0x5865F2


def stats_embed(user_id: int, stats: PlayerStats | None) -> discord.Embed:
    """A player's card: rating, record by colour, streaks."""
    embed = discord.Embed(title="Gomoku stats", colour=_COLOUR)
    if stats is None or stats.games == 0:
        embed.description = f"<@{user_id}> has no rated games yet."
        return embed
    embed.description = f"<@{user_id}> · rating **{stats.display_rating}**"
    embed.add_field(name="Games", value=str(stats.games))
    embed.add_field(
        name="Won / lost / drawn", value=f"{stats.wins} / {stats.losses} / {stats.draws}"
    )
    embed.add_field(name="As black", value=f"{stats.wins_black} won, {stats.losses_black} lost")
    embed.add_field(name="As white", value=f"{stats.wins_white} won, {stats.losses_white} lost")
    embed.add_field(name="Streak", value=f"{stats.streak:+d} (best {stats.best_streak})")
    return embed


def leaderboard_embed(rows: Sequence[PlayerStats]) -> discord.Embed:
    """The best-rated players, one line each."""
    embed = discord.Embed(title="Gomoku leaderboard", colour=_COLOUR)
    if not rows:
        embed.description = "No rated games have been played here yet."
        return embed
    embed.description = "\n".join(
        f"{rank}. <@{row.user_id}> · **{row.display_rating}** · {row.wins}-{row.losses}-{row.draws}"
        for rank, row in enumerate(rows, start=1)
    )
    return embed


class StatsCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``)."""

    @app_commands.command(name="stats")
    @app_commands.describe(user="Whose statistics to show (default: yours)")
    async def stats(
        self, interaction: discord.Interaction[GomokuBot], user: discord.User | None = None
    ) -> None:
        """Show a player's rating and record in rated games."""
        target = user or interaction.user
        stats = await interaction.client.service.stats(target.id, guild_id=interaction.guild_id)
        embed = stats_embed(target.id, stats)
        await interaction.response.send_message(
            embed=embed, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )

    @app_commands.command(name="leaderboard")
    async def leaderboard(self, interaction: discord.Interaction[GomokuBot]) -> None:
        """Show the best-rated players of this server."""
        rows = await interaction.client.service.leaderboard(guild_id=interaction.guild_id)
        embed = leaderboard_embed(rows)
        await interaction.response.send_message(
            embed=embed, allowed_mentions=discord.AllowedMentions.none()
        )
