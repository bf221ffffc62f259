"""The bot's configuration: the only module that reads ``os.environ`` (and ``.env``)."""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from dotenv import dotenv_values

from storage.opening import is_postgres_url, redact

__all__ = ["InvalidSettingError", "Settings", "token_user_id"]

_LOG_LEVELS = frozenset(logging.getLevelNamesMapping()) - {"NOTSET"}  # WARN and FATAL too
# A bot token as the Developer Portal shows it: three base64url parts joined by dots.
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", re.ASCII)  # an importable dotted name


def token_user_id(token: str) -> int | None:
    """The bot's user id from its token (the first part is the base64 of the decimal id; a bot
    made in the Developer Portal has its application's id); None for anything that is not
    the shape of a Discord bot token, which Discord would refuse unread."""
    if _TOKEN_SHAPE.fullmatch(token) is None:
        return None
    head = token.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(decoded) if decoded.isdigit() and len(decoded) <= 20 else None


def _seconds(name: str, value: str | None, default: float) -> float:
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        raise InvalidSettingError(name, value) from None
    if not 0 < seconds <= 86400:  # also refuses nan and inf
        raise InvalidSettingError(name, value)
    return seconds


class InvalidSettingError(ValueError):
    """An environment variable holds a value we cannot use."""

    def __init__(self, name: str, value: str) -> None:
        super().__init__(f"invalid {name}: {value!r}")
        self.name = name  # the variable
        self.value = value  # what it held


@dataclass(frozen=True, slots=True)
class Settings:
    """Configuration from the environment (``.env`` fills in what the environment lacks)."""

    discord_token: str | None = None  # DISCORD_TOKEN: None runs the terminal game instead
    db_path: Path = Path("gomoku.sqlite3")  # GOMOKU_DB_PATH
    database_url: str | None = None  # GOMOKU_DATABASE_URL: postgresql://… instead of db_path
    ai_queue_url: str | None = None  # GOMOKU_AI_QUEUE_URL: redis://… sends searches to workers
    metrics_port: int | None = None  # GOMOKU_METRICS_PORT: serve Prometheus metrics there
    dev_guild_id: int | None = None  # GOMOKU_DEV_GUILD_ID: sync commands to this guild at once
    log_level: str = "INFO"  # LOG_LEVEL: a logging level name
    system_locale: str | None = None  # LC_ALL, else LC_MESSAGES, else LANG: the terminal's
    web_port: int | None = None  # GOMOKU_WEB_PORT: serve the web board there (with web_url)
    web_url: str | None = None  # GOMOKU_WEB_URL: the web board's public https:// base URL
    web_secret: str | None = None  # GOMOKU_WEB_SECRET: signs board links (else from the token)
    client_secret: str | None = None  # GOMOKU_CLIENT_SECRET: the Activity's OAuth2 exchange
    # GOMOKU_CONNECT_RETRY_MIN_S and _MAX_S: start-up's waits between attempts to reach Discord
    # (doubling from the first to the second, jittered; see bot.client.Backoff)
    connect_retry_min_s: float = 1.0
    connect_retry_max_s: float = 30.0
    # GOMOKU_GAME_MODULES: modules (comma-separated, importable names) that register more
    # games; every process imports them (bot.core.games.load_game_modules)
    game_modules: tuple[str, ...] = ()

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, dotenv: Path | None = Path(".env")
    ) -> Self:
        """Read the settings from ``environ`` (default ``os.environ``) over ``dotenv``'s file.

        Variables already in the environment win over the file, as python-dotenv does by
        default. Empty values count as unset.

        Raises:
            InvalidSettingError: GOMOKU_DEV_GUILD_ID is not a number, LOG_LEVEL is unknown, or
                GOMOKU_DATABASE_URL is not a postgresql:// address, or GOMOKU_AI_QUEUE_URL
                not a redis://, rediss:// or unix:// one, or GOMOKU_METRICS_PORT or
                GOMOKU_WEB_PORT no port, or GOMOKU_WEB_URL not an http(s):// address, or
                GOMOKU_CONNECT_RETRY_MIN_S or _MAX_S not a number of seconds (up to a day,
                the first no larger than the second), or GOMOKU_GAME_MODULES names
                something that is no module name.
        """
        values: dict[str, str] = {}
        if dotenv is not None and dotenv.is_file():
            values.update({k: v for k, v in dotenv_values(dotenv).items() if v is not None})
        values.update(os.environ if environ is None else environ)

        def get(name: str) -> str | None:
            value = values.get(name, "").strip()
            return value or None

        guild = get("GOMOKU_DEV_GUILD_ID")
        if guild is not None and not guild.isdigit():
            raise InvalidSettingError("GOMOKU_DEV_GUILD_ID", guild)
        url = get("GOMOKU_DATABASE_URL")
        if url is not None and not is_postgres_url(url):
            raise InvalidSettingError("GOMOKU_DATABASE_URL", redact(url))
        queue = get("GOMOKU_AI_QUEUE_URL")
        if queue is not None and not queue.startswith(("redis://", "rediss://", "unix://")):
            raise InvalidSettingError("GOMOKU_AI_QUEUE_URL", redact(queue))
        metrics = get("GOMOKU_METRICS_PORT")
        if metrics is not None and not (metrics.isdigit() and 0 < int(metrics) < 65536):
            raise InvalidSettingError("GOMOKU_METRICS_PORT", metrics)
        web_port = get("GOMOKU_WEB_PORT")
        if web_port is not None and not (web_port.isdigit() and 0 < int(web_port) < 65536):
            raise InvalidSettingError("GOMOKU_WEB_PORT", web_port)
        web_url = get("GOMOKU_WEB_URL")
        if web_url is not None and not web_url.startswith(("https://", "http://")):
            raise InvalidSettingError("GOMOKU_WEB_URL", web_url)
        retry_min = _seconds("GOMOKU_CONNECT_RETRY_MIN_S", get("GOMOKU_CONNECT_RETRY_MIN_S"), 1)
        retry_max = _seconds("GOMOKU_CONNECT_RETRY_MAX_S", get("GOMOKU_CONNECT_RETRY_MAX_S"), 30)
        if retry_min > retry_max:
            raise InvalidSettingError(
                "GOMOKU_CONNECT_RETRY_MIN_S", f"{retry_min:g} > {retry_max:g}"
            )
        game_modules = tuple(m.strip() for m in (get("GOMOKU_GAME_MODULES") or "").split(","))
        game_modules = tuple(m for m in game_modules if m)
        for module in game_modules:
            if not _MODULE.fullmatch(module):
                raise InvalidSettingError("GOMOKU_GAME_MODULES", module)
        level = (get("LOG_LEVEL") or "INFO").upper()
        if level not in _LOG_LEVELS:
            raise InvalidSettingError("LOG_LEVEL", level)
        return cls(
            discord_token=get("DISCORD_TOKEN"),
            db_path=Path(get("GOMOKU_DB_PATH") or "gomoku.sqlite3"),
            database_url=url,
            ai_queue_url=queue,
            metrics_port=int(metrics) if metrics is not None else None,
            dev_guild_id=int(guild) if guild is not None else None,
            log_level=level,
            system_locale=get("LC_ALL") or get("LC_MESSAGES") or get("LANG"),
            web_port=int(web_port) if web_port is not None and web_url is not None else None,
            web_url=web_url if web_port is not None else None,
            web_secret=get("GOMOKU_WEB_SECRET"),
            client_secret=get("GOMOKU_CLIENT_SECRET"),
            connect_retry_min_s=retry_min,
            connect_retry_max_s=retry_max,
            game_modules=game_modules,
        )

    @property
    def log_level_number(self) -> int:
        """``log_level`` as the logging module's number."""
        return logging.getLevelNamesMapping()[self.log_level]

    def __repr__(self) -> str:
        # Never print the token (logs, tracebacks).
        token = "set" if self.discord_token else None
        url = None if self.database_url is None else redact(self.database_url)
        queue = None if self.ai_queue_url is None else redact(self.ai_queue_url)
        return (
            f"Settings(discord_token={token!r}, db_path={self.db_path!r}, database_url={url!r}, "
            f"ai_queue_url={queue!r}, metrics_port={self.metrics_port!r}, "
            f"dev_guild_id={self.dev_guild_id!r}, log_level={self.log_level!r}, "
            f"web_port={self.web_port!r}, web_url={self.web_url!r})"
        )
