"""``/gomoku help`` with clickable command mentions, and a welcome when the bot joins a server.

Command mentions (``</gomoku start:ID>``) need the ids Discord gave the registered commands:
the bot learns them when it syncs its commands at start (``bot.client``); should that have
missed them, they are read once from Discord and kept (a deploy that re-registers restarts the
bot).
"""

from __future__ import annotations

import logging
from typing import Final

import discord
from discord import app_commands
from discord.ext import commands

from bot import permissions
from bot.host import GameHost, Interaction, host_of
from bot.text import i18n, words

__all__ = [
    "HelpCommands",
    "Onboarding",
    "command_mentions",
    "setup",
]

log = logging.getLogger(__name__)


_COLOUR: Final = 0xD9A441


async def command_mentions(bot: GameHost) -> words.Mention:
    """``mention("gomoku puzzle play")`` -> ``</gomoku puzzle play:ID>``; plain ``/name``
    where the id is unknown (``bot.text.words.mention_from``)."""
    ids = bot.preferences.command_ids
    if not ids:
        guild_id = bot.settings.dev_guild_id
        guild = None if guild_id is None else discord.Object(guild_id)
        try:
            registered = await bot.tree.fetch_commands(guild=guild)
        except discord.HTTPException:
            log.warning("could not read the command ids; sentences show plain names")
            registered = []
        ids.update({command.name: command.id for command in registered})
    return words.mention_from(ids)


def help_embed(mention: words.Mention) -> discord.Embed:
    """The help card."""
    embed = discord.Embed(title=words.help_title(), colour=_COLOUR)
    for title, text in words.help_sections(mention):
        embed.add_field(name=title, value=text[:1024], inline=False)
    embed.set_footer(text=words.help_footer())
    return embed


class HelpCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``)."""

    @app_commands.command(name="help")
    async def help(self, interaction: Interaction) -> None:
        """How to play: the commands, the AI levels and the rules."""
        mention = await command_mentions(host_of(interaction))
        await interaction.response.send_message(embed=help_embed(mention), ephemeral=True)


def _welcome_channel(guild: discord.Guild) -> discord.TextChannel | None:
    """The system channel, else the first text channel where the bot may post."""
    me = guild.me
    if me is None:
        return None
    candidates = [guild.system_channel] if guild.system_channel else []
    candidates += sorted(guild.text_channels, key=lambda c: c.position)
    for channel in candidates:
        if channel is None:
            continue
        if not permissions.missing(channel.permissions_for(me), permissions.WELCOME):
            return channel
    return None


class Onboarding(commands.Cog):
    """A short welcome, once, when the bot is added to a server."""

    def __init__(self, bot: GameHost) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Say hello where the bot may post; stay silent where it may not."""
        channel = _welcome_channel(guild)
        if channel is None:
            return
        mention = await command_mentions(self.bot)
        with i18n.using(await self.bot.preferences.server_language(guild.id)):
            text = words.welcome_text(mention)
        try:
            await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            log.warning("could not welcome guild %s", guild.id)


async def setup(bot: GameHost) -> None:
    """Add the welcome for new servers to ``bot``."""
    await bot.add_cog(Onboarding(bot))
