"""Opening the store the configuration names: SQLite by default, PostgreSQL when asked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from storage.records import utc_now
from storage.repository import GameRepository

__all__ = ["is_postgres_url", "open_repository", "redact"]


def redact(url: str) -> str:
    """A database address without its password (for logs, errors and ``repr``)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def is_postgres_url(value: str) -> bool:
    """Whether ``value`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return value.startswith(("postgresql://", "postgres://"))


@asynccontextmanager
async def open_repository(
    db_path: Path,
    database_url: str | None = None,
    *,
    clock: Callable[[], datetime] = utc_now,
) -> AsyncIterator[GameRepository]:
    """The PostgreSQL database at ``database_url`` if one is given, else the SQLite file at
    ``db_path``; closed on exit. asyncpg is imported only for PostgreSQL (an optional extra)."""
    if database_url is not None:
        from storage.postgres import PostgresGameRepository

        async with PostgresGameRepository.open(database_url, clock=clock) as repo:
            yield repo
    else:
        from storage.sqlite import SqliteGameRepository

        async with SqliteGameRepository.open(db_path, clock=clock) as sqlite_repo:
            yield sqlite_repo
