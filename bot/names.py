"""Players' names for places where a mention cannot go (exports, thread names): the member's
display name in the server, an AI by its level. User ids never stand in for a name."""

from __future__ import annotations

from typing import Any

import discord

from bot.host import host_of
from bot.text import words
from storage.records import Player

__all__ = ["display_name"]


async def display_name(interaction: discord.Interaction[Any], player: Player) -> str:
    """``player``'s display name as seen from ``interaction``'s server."""
    if player.level is not None:
        return words.ai_name(player.level)
    if player.user_id is None:
        return words.deleted_user()
    if player.user_id == interaction.user.id:
        return interaction.user.display_name
    try:
        guild = interaction.guild
        if guild is not None:
            member = guild.get_member(player.user_id) or await guild.fetch_member(player.user_id)
            return member.display_name
        user: discord.User = await host_of(interaction).fetch_user(player.user_id)
        return user.display_name
    except discord.HTTPException:
        return words.someone()
