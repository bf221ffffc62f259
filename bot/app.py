"""Building and running the Discord bot: ``create_bot(settings)`` and ``run(settings)``."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.ext import commands

from bot.client import GomokuBot
from bot.settings import Settings
from bot.shards import ShardSpec

__all__ = ["create_bot", "run"]


class ShardedGomokuBot(GomokuBot, commands.AutoShardedBot):
    """The bot running several of discord.py's shards in one process (see ``bot.shards``)."""


def create_bot(settings: Settings, *, shards: ShardSpec | None = None, **options: Any) -> GomokuBot:
    """The bot, not yet connected. ``options`` go to ``GomokuBot`` (tests hand in a
    repository, an AI runner, a clock, ``guild_ready_timeout`` ...). With ``shards`` it runs
    those shards only and owns only their guilds' games."""
    if shards is None:
        return GomokuBot(settings, **options)
    return ShardedGomokuBot(
        settings,
        owned_shards=shards,
        shard_ids=sorted(shards.shard_ids),
        shard_count=shards.shard_count,
        **options,
    )


def run(settings: Settings, shards: ShardSpec | None = None) -> None:
    """Connect to Discord and serve until interrupted (needs ``settings.discord_token``)."""
    if not settings.discord_token:
        raise ValueError("run() needs DISCORD_TOKEN")
    bot = create_bot(settings, shards=shards)
    discord.utils.setup_logging(level=settings.log_level_number, root=True)
    logging.getLogger("discord.http").setLevel(max(settings.log_level_number, logging.INFO))
    bot.run(settings.discord_token, log_handler=None)
