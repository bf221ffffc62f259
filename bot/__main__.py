"""``python -m bot``: the Discord bot when ``DISCORD_TOKEN`` is set, else the terminal game.

``--shards 0-3 --shard-count 8`` runs only those shards (see ``bot.shards``).
``python -m bot invite [--no-threads]`` prints the link that adds the bot to a server;
``python -m bot levels [--markdown]`` the AI levels and their measured strength;
``python -m bot --version`` the version.

Exit status, each failure with one line on stderr saying what is wrong and what to do:

====  ==============================================================================
0     a clean stop (SIGTERM, SIGINT, or ``quit`` in the terminal)
1     a bug: an unexpected error, with its traceback
2     a bad or missing setting (``DISCORD_TOKEN`` unset where there is no terminal, or not
      the shape of a bot token: found before any connection)
3     Discord refused ``DISCORD_TOKEN``
10    not a gomoku-bot database
11    a database written by a newer bot
12    a damaged database: restore a backup or recover it
13    the database's file, folder or filesystem is not writable
14    no room to write the database
15    another process held the database's lock too long
16    any other SQLite failure while opening
====  ==============================================================================

Codes 2, 3 and 10-13 will not go away by restarting; 14 and 15 may. Discord being
unreachable is no exit: the bot waits for it, trying again with growing pauses
(``GOMOKU_CONNECT_RETRY_MIN_S`` to ``_MAX_S``), one warning line each.
"""

from __future__ import annotations

import argparse
import logging
import os
import stat
import sys
from collections.abc import Sequence
from typing import Final

from bot.core.games import GameModuleError, load_game_modules
from bot.settings import InvalidSettingError, Settings, token_user_id
from bot.shards import ShardSpec
from storage import errors as store

EXIT_CONFIG: Final = 2
EXIT_TOKEN: Final = 3  # Discord refused the token
EXIT_CODES: Final[dict[type[store.DatabaseRefusedError], int]] = {
    store.ForeignDatabaseError: 10,  # not a gomoku-bot database
    store.DatabaseTooNewError: 11,  # written by a newer bot
    store.CorruptDatabaseError: 12,  # damaged: restore or recover
    store.ReadOnlyDatabaseError: 13,  # file, folder or filesystem not writable
    store.DiskFullError: 14,  # no room to write
    store.DatabaseLockedError: 15,  # another process held the lock too long
}
EXIT_DATABASE: Final = 16  # any other SQLite failure while opening
MALFORMED_TOKEN: Final = (
    "Configuration error: DISCORD_TOKEN is not a Discord bot token (three parts joined by "
    "dots): copy it again from the Developer Portal (your application, Bot, Reset Token)"
)


def _parser() -> argparse.ArgumentParser:
    from bot.version import DISTRIBUTION, version

    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{DISTRIBUTION} {version()}")
    parser.add_argument("--shards", help="run only these shards, e.g. 0-3 (with --shard-count)")
    parser.add_argument("--shard-count", type=int, help="how many shards the bot has in all")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    invite = commands.add_parser("invite", help="print the link that adds the bot to a server")
    invite.add_argument(
        "--client-id",
        type=int,
        help="the application id (Developer Portal, General Information); "
        "read from DISCORD_TOKEN when left out",
    )
    invite.add_argument(
        "--no-threads",
        dest="threads",
        action="store_false",
        help="without what a thread for each game needs (games stay in the channels)",
    )
    levels = commands.add_parser("levels", help="the AI levels and their measured strength")
    levels.add_argument("--markdown", action="store_true", help="as the README's table")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Start the right front-end for the configuration."""
    args = _parser().parse_args(argv)
    if args.command == "invite":
        return _invite(args.client_id, threads=args.threads)
    if args.command == "levels":
        from bot.text import levels_table

        print(levels_table.markdown() if args.markdown else levels_table.plain())
        return 0
    return _serve(args.shards, args.shard_count)


def _serve(shard_list: str | None, shard_count: int | None) -> int:
    from bot.text.refusals import startup_message

    shards = None
    if shard_list is not None or shard_count is not None:
        if shard_list is None or shard_count is None:
            sys.stderr.write("Configuration error: --shards and --shard-count go together\n")
            return EXIT_CONFIG
        try:
            shards = ShardSpec.parse(shard_list, shard_count)
        except ValueError as error:
            sys.stderr.write(f"Configuration error: {error}\n")
            return EXIT_CONFIG
    try:
        settings = Settings.from_env()
    except InvalidSettingError as error:
        sys.stderr.write(f"Configuration error: {error}\n")
        return EXIT_CONFIG
    if settings.discord_token and token_user_id(settings.discord_token) is None:
        sys.stderr.write(MALFORMED_TOKEN + "\n")
        return EXIT_CONFIG
    try:
        # Before the commands are built: /gomoku start offers the games hosted then.
        load_game_modules(settings.game_modules)
    except GameModuleError as error:
        sys.stderr.write(f"Configuration error: {error}\n")
        return EXIT_CONFIG
    try:
        if settings.discord_token:
            return _run_bot(settings, shards)
        if shards is not None:
            sys.stderr.write(
                "Configuration error: shards need DISCORD_TOKEN (the terminal has none)\n"
            )
            return EXIT_CONFIG
        if not _stdin_can_play():
            sys.stderr.write(
                "Configuration error: DISCORD_TOKEN is not set, so this would be the terminal "
                "game, and that needs a terminal: set DISCORD_TOKEN to run the Discord bot\n"
            )
            return EXIT_CONFIG
        from bot.terminal import run as run_console

        # The terminal is for playing: only warnings and errors go to stderr.
        logging.basicConfig(level=max(settings.log_level_number, logging.WARNING))
        return run_console(settings)
    except store.DatabaseRefusedError as error:
        sys.stderr.write(startup_message(error) + "\n")
        return EXIT_CODES.get(type(error), EXIT_DATABASE)


def _run_bot(settings: Settings, shards: ShardSpec | None) -> int:
    import discord

    from bot.app import run as run_bot

    try:
        run_bot(settings, shards)  # it sets up discord.py's logging itself
    except discord.LoginFailure:
        sys.stderr.write(
            "Discord refused DISCORD_TOKEN: copy the bot's token again from the Developer "
            "Portal (your application, Bot, Reset Token)\n"
        )
        return EXIT_TOKEN
    return 0


def _stdin_can_play() -> bool:
    """Whether standard input can feed the terminal game: a terminal, a pipe or a file. Not
    ``/dev/null`` nor a closed one (systemd's default, ``docker run`` without ``-i``)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, ValueError, OSError):  # no stdin at all, or closed
        return False
    return sys.stdin.isatty() or stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def _invite(client_id: int | None, *, threads: bool) -> int:
    from bot.permissions import invite_url

    if client_id is None:
        try:
            token = Settings.from_env().discord_token
        except InvalidSettingError as error:
            sys.stderr.write(f"Configuration error: {error}\n")
            return EXIT_CONFIG
        if token:
            client_id = token_user_id(token)
            if client_id is None:
                sys.stderr.write(
                    MALFORMED_TOKEN + ", or pass --client-id ID (General Information, "
                    "Application ID)\n"
                )
                return EXIT_CONFIG
    if client_id is None:
        sys.stderr.write(
            "Configuration error: the invite needs the application id: pass --client-id ID "
            "(Developer Portal, General Information, Application ID) or set DISCORD_TOKEN\n"
        )
        return EXIT_CONFIG
    print(invite_url(client_id, threads=threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
