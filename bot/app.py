"""Building and running the Discord bot: ``create_bot(settings)``, ``serve`` and ``run``."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from typing import Any, Final

import discord
from discord.ext import commands

from bot.client import GomokuBot, network_fault
from bot.logs import protect
from bot.settings import Settings
from bot.shards import ShardSpec

__all__ = [
    "EXTENSIONS",
    "SWITCH_INTERVAL_S",
    "OneLineReconnect",
    "create_bot",
    "loop_factory",
    "process_runner",
    "run",
    "serve",
]

log = logging.getLogger(__name__)

# The bot's event loop shares the GIL with storage's SQLite threads (the writer's group
# commits, the slow reads) and the AI pool's feeder and manager threads. Each statement such a
# thread runs gives the GIL up and must get it back from a busy loop, which by default takes
# up to 5 ms: under load (bench_load, 500 games, when a group commit's every statement ran on
# SQLite's thread) a move's durable write then waited 51 ms at the median instead of 15.
SWITCH_INTERVAL_S: Final = 0.0005


# The bot's commands and buttons: each module's ``setup(bot)`` adds its cogs and buttons.
EXTENSIONS: Final = (
    "bot.cogs.play",
    "bot.cogs.admin",
    "bot.cogs.onboarding",
    "bot.cogs.puzzles",
    "bot.cogs.history",
    "bot.outage",
)


class OneLineReconnect(logging.Filter):
    """discord.py logs each gateway reconnection at ERROR with the traceback of the network
    fault behind it (a dropped connection, a name that does not resolve): a fault of the
    network, not of the bot, which reconnects by itself. This makes it one WARNING line."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the reconnection record; leave every other one alone."""
        if (
            record.exc_info is not None
            and record.exc_info[1] is not None
            and isinstance(record.msg, str)
            and record.msg.startswith("Attempting a reconnect")
        ):
            fault = network_fault(record.exc_info[1])
            record.msg = f"Discord's gateway connection failed ({fault}); reconnecting in %.1f s"
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = None
            record.exc_text = None
        return True


class ShardedGomokuBot(GomokuBot, commands.AutoShardedBot):
    """The bot running several of discord.py's shards in one process (see ``bot.shards``)."""


def create_bot(settings: Settings, *, shards: ShardSpec | None = None, **options: Any) -> GomokuBot:
    """The bot, not yet connected. ``options`` go to ``GomokuBot`` (tests hand in a
    repository, an AI runner, a clock, ``guild_ready_timeout`` ...). With ``shards`` it runs
    those shards only and owns only their guilds' games."""
    options.setdefault("extensions", EXTENSIONS)
    if shards is None:
        return GomokuBot(settings, **options)
    return ShardedGomokuBot(
        settings,
        owned_shards=shards,
        shard_ids=sorted(shards.shard_ids),
        shard_count=shards.shard_count,
        **options,
    )


async def serve(settings: Settings, shards: ShardSpec | None = None, **options: Any) -> None:
    """Open the database, connect, and serve until SIGTERM or SIGINT, then shut down cleanly:
    the bot disconnects, the AI pool stops, queued writes are committed, the database is closed.

    The database (``GOMOKU_DATABASE_URL``'s PostgreSQL, else the SQLite file) is opened, and a
    SQLite file checked (identity, ``quick_check``, a write), before the bot connects, so a
    storage fault stops the start with its own error
    (``storage.errors.DatabaseRefusedError``) and nothing reaches Discord.
    """
    from storage.opening import open_repository

    token = settings.discord_token
    if not token:
        raise ValueError("serve() needs DISCORD_TOKEN")
    options.setdefault("freeze_heap", True)  # this process is the bot's alone
    async with open_repository(settings.db_path, settings.database_url) as repository:
        bot = create_bot(settings, shards=shards, repository=repository, **options)
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


def run(settings: Settings, shards: ShardSpec | None = None) -> None:
    """Connect to Discord and serve until SIGTERM or SIGINT (needs ``settings.discord_token``);
    with ``shards``, only those shards.

    Raises:
        DatabaseRefusedError: the database cannot be used (see ``serve``).
    """
    if not settings.discord_token:
        raise ValueError("run() needs DISCORD_TOKEN")
    discord.utils.setup_logging(level=settings.log_level_number, root=True)
    # The bot never joins voice: discord.py's start-up warnings about voice libraries are noise.
    logging.getLogger("discord.client").addFilter(
        lambda record: "voice will NOT be supported" not in record.getMessage()
    )
    logging.getLogger("discord.client").addFilter(OneLineReconnect())  # before protect()'s
    logging.getLogger("discord.http").setLevel(max(settings.log_level_number, logging.INFO))
    protect(settings.discord_token, settings.web_secret or "", settings.client_secret or "")
    with process_runner() as runner:
        runner.run(serve(settings, shards))


def process_runner() -> asyncio.Runner:
    """The runner for the bot's process: its event loop (``loop_factory``) and the process's
    GIL switch interval (``SWITCH_INTERVAL_S``)."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    return asyncio.Runner(loop_factory=loop_factory())


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (not on Windows), else None: asyncio's own.

    The bot's process is one event loop doing everything; under load (bench_load, 500 games)
    its own cost per HTTP request and socket read was the largest share of a command, and
    uvloop's is a fraction of that. Nothing here depends on which loop runs."""
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory
