"""What the bot needs in a server's channels, in one place: the run-time checks read these
constants, and so does the invite link (``python -m bot invite``), so the link asks for every
permission a check can find missing.

- ``GAME``: host a game in a channel (``/gomoku start``, ``board``, ``undo``, ``/place``):
  read the channel, post and edit the board (an embed), and read the history so that it can
  edit its own older messages.
- ``IN_THREAD``: the same in a thread players opened, where posting is its own permission.
- ``FILES``: attach files: the picture boards (the image board style), exports (SGF and an
  animation) and review pictures. Not checked before a command: without it Discord refuses
  the upload and the player is told the command failed.
- ``WELCOME``: the welcome line posted once on joining, where it may be posted.
- ``THREADS``: a thread for each game (the server setting, on by default): open it from the
  start line and post in it. The bot archives the threads it opened, which needs no more.
  Where it lacks either, a game started in the channel is played in the channel.

No privileged intent is needed; neither is any server-wide permission.

Members who moderate (end a channel's game, organise tournaments) need a permission of their
own or the server's moderator role (``/gomoku-admin settings``): ``has_moderator_role``.
"""

from __future__ import annotations

from typing import Any, Final

import discord
from discord import app_commands

from bot.host import host_of

__all__ = [
    "FILES",
    "GAME",
    "INVITE",
    "INVITE_WITHOUT_THREADS",
    "IN_THREAD",
    "THREADS",
    "WELCOME",
    "has",
    "has_moderator_role",
    "invite_url",
    "missing",
    "require",
]

GAME: Final = discord.Permissions(
    view_channel=True, send_messages=True, embed_links=True, read_message_history=True
)
IN_THREAD: Final = discord.Permissions(
    view_channel=True, send_messages_in_threads=True, embed_links=True, read_message_history=True
)
FILES: Final = discord.Permissions(attach_files=True)
WELCOME: Final = discord.Permissions(view_channel=True, send_messages=True)
THREADS: Final = discord.Permissions(create_public_threads=True, send_messages_in_threads=True)

INVITE_WITHOUT_THREADS: Final = GAME | IN_THREAD | FILES | WELCOME
INVITE: Final = INVITE_WITHOUT_THREADS | THREADS

SCOPES: Final = ("bot", "applications.commands")  # the bot user and its slash commands

# discord.py names some permissions twice; the names here are Discord's own.
_DISCORD_NAMES: Final = {"read_messages": "view_channel", "external_emojis": "use_external_emojis"}


def missing(have: discord.Permissions, needed: discord.Permissions) -> list[str]:
    """The permissions of ``needed`` that ``have`` lacks, by Discord's names."""
    lacking = needed.value & ~have.value
    if not lacking:  # the usual case, checked on every command: no flag objects to walk
        return []
    return [_DISCORD_NAMES.get(name, name) for name, on in discord.Permissions(lacking) if on]


def has(interaction: discord.Interaction[Any], needed: discord.Permissions) -> bool:
    """Whether the bot has all of ``needed`` where ``interaction`` came from."""
    # The bits alone: a server without one of them asks on every start, and naming what
    # lacks walks every flag.
    return needed.value & ~interaction.app_permissions.value == 0


def require(interaction: discord.Interaction[Any], needed: discord.Permissions) -> None:
    """Raise ``BotMissingPermissions`` naming what the bot lacks of ``needed`` where
    ``interaction`` came from."""
    lacking = missing(interaction.app_permissions, needed)
    if lacking:
        raise app_commands.BotMissingPermissions(lacking)


def invite_url(client_id: int, *, threads: bool = True) -> str:
    """The OAuth2 link that adds the bot to a server with what it needs (``threads`` false:
    without what a thread for each game needs, for a server that keeps games in channels)."""
    return discord.utils.oauth_url(
        client_id, permissions=INVITE if threads else INVITE_WITHOUT_THREADS, scopes=SCOPES
    )


async def has_moderator_role(interaction: discord.Interaction[Any]) -> bool:
    """Whether the member holds the server's moderator role (``/gomoku-admin settings``)."""
    if interaction.guild_id is None or not isinstance(interaction.user, discord.Member):
        return False
    settings = await host_of(interaction).service.settings(interaction.guild_id)
    role = settings.moderator_role_id
    return role is not None and any(r.id == role for r in interaction.user.roles)
