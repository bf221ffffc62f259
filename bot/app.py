"""Building and running the Discord bot: ``create_bot(settings)`` and ``run(settings)``."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.client import GomokuBot
from bot.settings import Settings

__all__ = ["create_bot", "run"]


def create_bot(settings: Settings, **options: Any) -> GomokuBot:
    """The bot, not yet connected. ``options`` go to ``GomokuBot`` (tests hand in a
    repository, an AI runner, a clock, ``guild_ready_timeout`` ...)."""
    return GomokuBot(settings, **options)


def run(settings: Settings) -> None:
    """Connect to Discord and serve until interrupted (needs ``settings.discord_token``)."""
    if not settings.discord_token:
        raise ValueError("run() needs DISCORD_TOKEN")
    bot = create_bot(settings)
    discord.utils.setup_logging(level=settings.log_level_number, root=True)
    logging.getLogger("discord.http").setLevel(max(settings.log_level_number, logging.INFO))
    bot.run(settings.discord_token, log_handler=None)
