"""``python -m bot``: the Discord bot when ``DISCORD_TOKEN`` is set, else the terminal game.

``--shards 0-3 --shard-count 8`` runs only those shards (see ``bot.shards``)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from bot.settings import InvalidSettingError, Settings
from bot.shards import ShardSpec


def main(argv: Sequence[str] | None = None) -> int:
    """Start the right front-end for the configuration."""
    parser = argparse.ArgumentParser(prog="python -m bot", description=__doc__)
    parser.add_argument("--shards", help="run only these shards, e.g. 0-3 (with --shard-count)")
    parser.add_argument("--shard-count", type=int, help="how many shards the bot has in all")
    args = parser.parse_args(argv)
    shards = None
    if args.shards is not None or args.shard_count is not None:
        if args.shards is None or args.shard_count is None:
            sys.stderr.write("Configuration error: --shards and --shard-count go together\n")
            return 2
        try:
            shards = ShardSpec.parse(args.shards, args.shard_count)
        except ValueError as error:
            sys.stderr.write(f"Configuration error: {error}\n")
            return 2
    try:
        settings = Settings.from_env()
    except InvalidSettingError as error:
        sys.stderr.write(f"Configuration error: {error}\n")
        return 2
    if settings.discord_token:
        from bot.app import run as run_bot

        run_bot(settings, shards)  # it sets up discord.py's logging itself
        return 0
    if shards is not None:
        sys.stderr.write("Configuration error: shards need DISCORD_TOKEN (the terminal has none)\n")
        return 2
    from bot.console import run as run_console

    # The terminal is for playing: only warnings and errors go to stderr.
    logging.basicConfig(level=max(settings.log_level_number, logging.WARNING))
    return run_console(settings)


if __name__ == "__main__":
    sys.exit(main())
