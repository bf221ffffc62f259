"""``python -m bot``: the Discord bot when ``DISCORD_TOKEN`` is set, else the terminal game.

``--shards 0-3 --shard-count 8`` runs only those shards (see ``bot.shards``).

Exit status: 0 after a clean stop (SIGTERM, SIGINT, or ``quit`` in the terminal), 2 for a bad
setting, and one code per database fault found at start (``EXIT_CODES``), with one line on
stderr saying what is wrong and what to do. Codes 10-13 will not go away by restarting; 14 and
15 may.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Final

from bot.settings import InvalidSettingError, Settings
from bot.shards import ShardSpec
from storage.repository import (
    CorruptDatabaseError,
    DatabaseLockedError,
    DatabaseRefusedError,
    DatabaseTooNewError,
    DiskFullError,
    ForeignDatabaseError,
    ReadOnlyDatabaseError,
)

EXIT_CONFIG: Final = 2
EXIT_CODES: Final[dict[type[DatabaseRefusedError], int]] = {
    ForeignDatabaseError: 10,  # not a gomoku-bot database
    DatabaseTooNewError: 11,  # written by a newer bot
    CorruptDatabaseError: 12,  # damaged: restore or recover
    ReadOnlyDatabaseError: 13,  # file, folder or filesystem not writable
    DiskFullError: 14,  # no room to write
    DatabaseLockedError: 15,  # another process held the lock too long
}
EXIT_DATABASE: Final = 16  # any other SQLite failure while opening


def main(argv: Sequence[str] | None = None) -> int:
    """Start the right front-end for the configuration."""
    from bot.text.refusals import startup_message

    parser = argparse.ArgumentParser(prog="python -m bot", description=__doc__)
    parser.add_argument("--shards", help="run only these shards, e.g. 0-3 (with --shard-count)")
    parser.add_argument("--shard-count", type=int, help="how many shards the bot has in all")
    args = parser.parse_args(argv)
    shards = None
    if args.shards is not None or args.shard_count is not None:
        if args.shards is None or args.shard_count is None:
            sys.stderr.write("Configuration error: --shards and --shard-count go together\n")
            return EXIT_CONFIG
        try:
            shards = ShardSpec.parse(args.shards, args.shard_count)
        except ValueError as error:
            sys.stderr.write(f"Configuration error: {error}\n")
            return EXIT_CONFIG
    try:
        settings = Settings.from_env()
    except InvalidSettingError as error:
        sys.stderr.write(f"Configuration error: {error}\n")
        return EXIT_CONFIG
    try:
        if settings.discord_token:
            from bot.app import run as run_bot

            run_bot(settings, shards)  # it sets up discord.py's logging itself
            return 0
        if shards is not None:
            sys.stderr.write(
                "Configuration error: shards need DISCORD_TOKEN (the terminal has none)\n"
            )
            return EXIT_CONFIG
        from bot.terminal import run as run_console

        # The terminal is for playing: only warnings and errors go to stderr.
        logging.basicConfig(level=max(settings.log_level_number, logging.WARNING))
        return run_console(settings)
    except DatabaseRefusedError as error:
        sys.stderr.write(startup_message(error) + "\n")
        return EXIT_CODES.get(type(error), EXIT_DATABASE)


if __name__ == "__main__":
    sys.exit(main())
