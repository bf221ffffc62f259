"""``PostgresGameRepository``: the ``GameRepository`` on a PostgreSQL database (asyncpg).

For a community that outgrows one SQLite file or one process: several bot processes (shards)
share one database. The SQL is ``storage.sql``'s; this module holds the pool, the migrations
runner and what PostgreSQL does its own way. Every operation runs on a pooled connection, in
one transaction unless it is a single statement. Writes that change a game are
compare-and-set ``UPDATE … WHERE version = $n``: under READ COMMITTED the second of two
racing writers waits for the first's row lock, re-reads the row, no longer matches and is
told ``VersionConflictError``, exactly as on SQLite. Rating updates lock both players (in
user-id order, so two finishing games never deadlock). Operations are shielded from
cancellation: a cancelled caller never leaves a transaction half-done.

Schema: ``storage/migrations/postgres/NNNN_*.sql``, numbered as the SQLite migrations and
applied one transaction each under an advisory lock (two processes starting on a fresh
database do not both apply a step). The table ``gomoku_schema`` marks the database as ours
and counts the migrations applied; a database with other tables and no such mark is
refused before anything is written, and so is one written by a newer version.

Select it with ``GOMOKU_DATABASE_URL=postgresql://user:password@host/dbname``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, Literal, Self, TypeAlias, TypeVar

import asyncpg

from storage.errors import DatabaseTooNewError, ForeignDatabaseError
from storage.opening import redact
from storage.records import utc_now
from storage.sql import (
    APPLICATION_ID,
    SQL_APPEND_MOVE,
    Executor,
    Migration,
    Row,
    SqlGameRepository,
    Work,
    load_migrations,
)

__all__ = [
    "APPLICATION_ID",
    "LATEST_VERSION",
    "MIGRATIONS",
    "POOL_SIZE",
    "PgMigration",
    "PostgresGameRepository",
]

_T = TypeVar("_T")
if TYPE_CHECKING:  # generic only in the stubs
    _Conn: TypeAlias = asyncpg.pool.PoolConnectionProxy[asyncpg.Record]
else:
    _Conn = asyncpg.pool.PoolConnectionProxy
_Isolation = Literal["read_committed", "repeatable_read"]
_MIGRATION_LOCK = APPLICATION_ID  # pg_advisory_xact_lock key while migrating

PgMigration = Migration  # one numbered step of ``storage/migrations/postgres``
MIGRATIONS = load_migrations("postgres")
LATEST_VERSION = MIGRATIONS[-1].version

# Connections per process. An operation holds one for each round trip, and a busy event loop
# stretches those (a median of 11 ms at 1,000 games on one process in bench_load): 10 queued
# bursts for seconds. Four shard processes stay under PostgreSQL's default 100 connections.
POOL_SIZE: Final = 20

SQL_SCHEMA_TABLE = """
CREATE TABLE IF NOT EXISTS gomoku_schema (
    application_id  bigint  NOT NULL,
    version         integer NOT NULL
)
"""
# The stone and the game's new version in one statement: atomic without a transaction, so a
# move costs one round trip (a final move still rates the players in a transaction).
SQL_PLAY_MOVE = f"""
WITH game AS ({SQL_APPEND_MOVE}), stone AS (
    INSERT INTO moves (game_id, ply, x, y, color, made_at, seq)
    SELECT id, ply - 1, $6, $7, $8, $4, version FROM game
)
SELECT * FROM game
"""
# A player's ratings are read, changed and written back: one writer at a time per player.
# Snowflake user ids never equal the migration lock's key.
SQL_LOCK_PLAYER = "SELECT pg_advisory_xact_lock($1)"


async def _schema_version(conn: asyncpg.Connection[asyncpg.Record], url: str) -> int:
    """The migrations applied (0 for an empty database); raise unless the database is ours."""
    marked = await conn.fetchval("SELECT to_regclass('gomoku_schema') IS NOT NULL")
    if marked:
        row = await conn.fetchrow("SELECT application_id, version FROM gomoku_schema")
        if row is None or row["application_id"] != APPLICATION_ID:
            raise ForeignDatabaseError(redact(url), "gomoku_schema holds another application")
        version: int = row["version"]
        if version > LATEST_VERSION:
            raise DatabaseTooNewError(redact(url), version, LATEST_VERSION)
        return version
    tables = await conn.fetchval(
        "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
    )
    if tables:
        raise ForeignDatabaseError(redact(url), f"{tables} tables and no gomoku_schema")
    return 0


async def _keep_session(conn: asyncpg.Connection[asyncpg.Record]) -> None:
    """The pool's reset of a returned connection (asyncpg rolls back an open transaction
    first). Its default sends UNLISTEN, CLOSE ALL, RESET ALL and pg_advisory_unlock_all: a
    round trip per operation for session state this repository never leaves behind (its
    advisory locks are transaction-scoped, it never listens, sets or keeps cursors)."""


async def _migrate(conn: asyncpg.Connection[asyncpg.Record], url: str) -> None:
    """Apply the missing migrations, one transaction each, under an advisory lock."""
    while True:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
            version = await _schema_version(conn, url)
            if version == LATEST_VERSION:
                return
            migration = next(m for m in MIGRATIONS if m.version > version)
            await conn.execute(migration.sql)
            if version == 0:
                await conn.execute(SQL_SCHEMA_TABLE)
                await conn.execute(
                    "INSERT INTO gomoku_schema (application_id, version) VALUES ($1, $2)",
                    APPLICATION_ID,
                    migration.version,
                )
            else:
                await conn.execute("UPDATE gomoku_schema SET version = $1", migration.version)


class _Pooled:
    """A pooled asyncpg connection as an ``Executor``."""

    __slots__ = ("_conn",)

    def __init__(self, conn: _Conn) -> None:
        self._conn = conn

    async def fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        return await self._conn.fetch(sql, *args)

    async def fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        return await self._conn.fetchrow(sql, *args)

    async def execute(self, sql: str, *args: Any) -> int:
        status = await self._conn.execute(sql, *args)  # "UPDATE 3", "INSERT 0 1"
        count = status.rsplit(" ", 1)[-1]
        return int(count) if count.isdigit() else 0

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, args)

    def savepoint(self) -> AbstractAsyncContextManager[Any]:
        return self._conn.transaction()  # nested in the operation's: a savepoint


class PostgresGameRepository(SqlGameRepository):
    """The ``GameRepository`` on PostgreSQL. Open with
    ``async with PostgresGameRepository.open(url)`` (or ``connect`` … ``close``)."""

    _ID_LIST = "string_agg(CAST(channel_id AS text), ',')"
    _UNIQUE_VIOLATION = (asyncpg.UniqueViolationError,)

    def __init__(self, pool: asyncpg.Pool, url: str, clock: Callable[[], datetime]) -> None:
        """Use ``open``/``connect``; this only wires an already migrated pool."""
        super().__init__(clock)
        self._pool = pool
        self._url = url
        self._tasks: set[asyncio.Task[Any]] = set()  # shielded operations still running
        self._closing = False

    @property
    def url(self) -> str:
        """The database's address, without its password."""
        return redact(self._url)

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        clock: Callable[[], datetime] = utc_now,
        min_size: int = 1,
        max_size: int = POOL_SIZE,
    ) -> Self:
        """Open (creating or upgrading the schema of) the database at ``url``.

        Raises:
            ForeignDatabaseError: the database holds someone else's tables (left untouched).
            DatabaseTooNewError: a newer version of the bot wrote it (left untouched).
            OSError, asyncpg.PostgresError: the server cannot be reached or refused us.
        """
        conn = await asyncpg.connect(url)
        try:
            await _migrate(conn, url)
        finally:
            await conn.close()
        pool = await asyncpg.create_pool(
            url, min_size=min_size, max_size=max_size, reset=_keep_session
        )
        return cls(pool, url, clock)

    @classmethod
    def open(
        cls, url: str, *, clock: Callable[[], datetime] = utc_now, max_size: int = POOL_SIZE
    ) -> AbstractAsyncContextManager[Self]:
        """``connect`` as an async context manager that closes the repository on exit."""
        return cls._closed_on_exit(lambda: cls.connect(url, clock=clock, max_size=max_size))

    async def close(self) -> None:
        """Let the operations already started finish, then close the pool."""
        if self._closing:
            return
        self._closing = True
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        await self._pool.close()

    # --- plumbing -----------------------------------------------------------------------

    async def _write(self, work: Work[_T], *, atomic: bool = False, unhurried: bool = False) -> _T:
        """Run ``work`` in one transaction; a cancelled caller does not stop it.
        ``atomic``: work whose one write is a single statement runs without BEGIN and
        COMMIT, each statement committing by itself. A connection is held for every round
        trip, and under load the round trips, not the server, bound how many operations a
        pool completes. ``unhurried`` changes nothing here: there is no group commit."""
        return await self._shielded(work, None if atomic else "read_committed")

    async def _read(self, work: Work[_T], *, snapshot: bool = False, small: bool = False) -> _T:
        """A read; ``snapshot`` makes its statements agree with each other (without it, each
        statement sees what was committed when it began, as inside a read-committed
        transaction). ``small`` changes nothing here: every read is a round trip."""
        return await self._shielded(work, "repeatable_read" if snapshot else None)

    async def _shielded(self, work: Work[_T], isolation: _Isolation | None) -> _T:
        if self._closing:
            raise RuntimeError("the repository is closed")
        task = asyncio.ensure_future(self._on_connection(work, isolation))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # A cancelled caller does not stop its write; retrieve the outcome so that asyncio
        # does not log an error nobody was waiting for.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        return await asyncio.shield(task)

    async def _on_connection(self, work: Work[_T], isolation: _Isolation | None) -> _T:
        async with self._pool.acquire() as conn:
            if isolation is None:
                return await work(_Pooled(conn))
            async with conn.transaction(isolation=isolation):
                return await work(_Pooled(conn))

    # --- where PostgreSQL differs ---------------------------------------------------------

    async def _play(
        self, db: Executor, game_id: int, expected_version: int, params: Sequence[Any]
    ) -> Row | None:
        return await db.fetchrow(SQL_PLAY_MOVE, game_id, expected_version, *params)

    async def _lock_players(self, db: Executor, user_ids: Sequence[int]) -> None:
        # Another process finishing a game of the same player waits here rather than
        # overwriting this update; locks are taken in user-id order, so never a deadlock.
        # Each READ COMMITTED statement after the lock sees the other's committed rows.
        for user in user_ids:
            await db.execute(SQL_LOCK_PLAYER, user)
