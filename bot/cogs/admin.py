"""``/gomoku settings``: a guild's default rule, turn time, board style and allowed channels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.service import BOARD_STYLES, InvalidOptionError
from engine.types import Rule
from storage.repository import GuildSettings

if TYPE_CHECKING:
    from bot.client import GomokuBot

__all__ = ["AdminCommands", "settings_embed"]

_RULES: Final = [app_commands.Choice(name=rule.value, value=rule.value) for rule in Rule]
_STYLES: Final = [app_commands.Choice(name=style, value=style) for style in BOARD_STYLES]


def settings_embed(settings: GuildSettings) -> discord.Embed:
    """The guild's settings as a card."""
    embed = discord.Embed(title="Gomoku settings", colour=0x5865F2)
    turn = "no clock" if settings.turn_seconds is None else f"{settings.turn_seconds // 60} min"
    channels = (
        " ".join(f"<#{channel}>" for channel in sorted(settings.allowed_channel_ids))
        or "any channel"
    )
    embed.add_field(name="Default rule", value=settings.default_rule.value)
    embed.add_field(name="Turn time", value=turn)
    embed.add_field(name="Board style", value=settings.board_style)
    embed.add_field(name="Games allowed in", value=channels, inline=False)
    return embed


class AdminCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``)."""

    @app_commands.command(name="settings")
    @app_commands.describe(
        rule="Default Gomoku rule for new games",
        turn_minutes="Time per turn in games between people, in minutes (0: no clock)",
        style="How boards are drawn",
        channel="Allow games in this channel (again: disallow it)",
        anywhere="Allow games in every channel again",
    )
    @app_commands.choices(rule=_RULES, style=_STYLES)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def settings(
        self,
        interaction: discord.Interaction[GomokuBot],
        rule: str | None = None,
        turn_minutes: app_commands.Range[int, 0, 10080] | None = None,
        style: str | None = None,
        channel: discord.TextChannel | None = None,
        anywhere: bool = False,
    ) -> None:
        """Change this server's game settings (needs Manage Server)."""
        service = interaction.client.service
        guild_id = interaction.guild_id
        if guild_id is None:
            raise app_commands.NoPrivateMessage()
        changes: dict[str, Any] = {}
        if rule is not None:
            try:
                changes["default_rule"] = Rule(rule)
            except ValueError:
                raise InvalidOptionError("rule", rule) from None
        if turn_minutes == 0:
            changes["clear_turn_time"] = True
        elif turn_minutes is not None:
            changes["turn_seconds"] = turn_minutes * 60
        if style is not None:
            changes["board_style"] = style
        if channel is not None or anywhere:
            current = await service.settings(guild_id)
            allowed = set() if anywhere else set(current.allowed_channel_ids)
            if channel is not None:
                allowed.symmetric_difference_update({channel.id})
            changes["allowed_channel_ids"] = sorted(allowed)
        updated = await interaction.client.in_time(
            interaction,
            service.update_settings(guild_id, **changes),
            ephemeral=True,
            thinking=True,
        )
        interaction.client.forget_settings(guild_id)
        if interaction.response.is_done():  # deferred: the write was slow
            await interaction.edit_original_response(embed=settings_embed(updated))
            return
        await interaction.response.send_message(
            embed=settings_embed(updated),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
