"""``python -m bot``: the Discord bot when ``DISCORD_TOKEN`` is set, else the terminal game."""

from __future__ import annotations

import logging
import sys

from bot.settings import InvalidSettingError, Settings


def main() -> int:
    """Start the right front-end for the configuration."""
    try:
        settings = Settings.from_env()
    except InvalidSettingError as error:
        sys.stderr.write(f"Configuration error: {error}\n")
        return 2
    if settings.discord_token:
        from bot.app import run as run_bot

        run_bot(settings)  # it sets up discord.py's logging itself
        return 0
    from bot.console import run as run_console

    # The terminal is for playing: only warnings and errors go to stderr.
    logging.basicConfig(level=max(settings.log_level_number, logging.WARNING))
    return run_console(settings)


if __name__ == "__main__":
    sys.exit(main())
