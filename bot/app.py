"""Building and running the Discord bot: ``create_bot(settings)``, ``serve`` and ``run``."""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import Any

import discord

from bot.client import GomokuBot
from bot.logs import protect
from bot.settings import Settings

__all__ = ["create_bot", "run", "serve"]

log = logging.getLogger(__name__)


def create_bot(settings: Settings, **options: Any) -> GomokuBot:
    """The bot, not yet connected. ``options`` go to ``GomokuBot`` (tests hand in a
    repository, an AI runner, a clock, ``guild_ready_timeout`` ...)."""
    return GomokuBot(settings, **options)


async def serve(settings: Settings, **options: Any) -> None:
    """Open the database, connect, and serve until SIGTERM or SIGINT, then shut down cleanly:
    the bot disconnects, the AI pool stops, queued writes are committed, the file is closed.

    The database is opened (and checked: identity, ``quick_check``, a write) before the bot
    connects, so a storage fault stops the start with its own error
    (``storage.repository.DatabaseRefusedError``) and nothing reaches Discord.
    """
    from storage.sqlite import SqliteGameRepository

    token = settings.discord_token
    if not token:
        raise ValueError("serve() needs DISCORD_TOKEN")
    async with SqliteGameRepository.open(settings.db_path) as repository:
        bot = create_bot(settings, repository=repository, **options)
        loop = asyncio.get_running_loop()
        stopping: list[asyncio.Task[None]] = []

        def stop(signum: int) -> None:
            if not stopping:
                log.info("%s: shutting down", signal.Signals(signum).name)
                stopping.append(asyncio.create_task(bot.close()))

        signals = (signal.SIGTERM, signal.SIGINT)
        for signum in signals:
            loop.add_signal_handler(signum, stop, signum)
        try:
            async with bot:
                await bot.start(token)
        finally:
            for signum in signals:
                loop.remove_signal_handler(signum)
            await bot.close()  # the whole close, not only discord.py's part of it


def run(settings: Settings) -> None:
    """Connect to Discord and serve until SIGTERM or SIGINT (needs ``settings.discord_token``).

    Raises:
        DatabaseRefusedError: the database cannot be used (see ``serve``).
    """
    if not settings.discord_token:
        raise ValueError("run() needs DISCORD_TOKEN")
    discord.utils.setup_logging(level=settings.log_level_number, root=True)
    logging.getLogger("discord.http").setLevel(max(settings.log_level_number, logging.INFO))
    protect(settings.discord_token)
    asyncio.run(serve(settings))
