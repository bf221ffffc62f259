"""``SqliteGameRepository``: the ``GameRepository`` on one SQLite file, through aiosqlite.

The SQL is ``storage.sql``'s; this module holds what is SQLite's own: the connections, the
file checks, the migrations runner and the group commit.

The writer and the reader are ``aiosqlite`` connections: each a thread of its own that runs
the statements asked of it in order, one trip there and back per statement, so the event loop
never waits for the disk or for a lock. Only aiosqlite's public API is used.

Writes are serialized through one writer task that group-commits: every write queued at that
moment runs in one transaction on the writer connection and is committed at once (one
fsync), and each caller hears back only once the commit is durable. A batch waits for its
thread's answers once, for each wait costs turns of a busy event loop and a GIL hand-over on
the thread: a write that is one statement (a move, whose stone the schema's trigger writes; a
new game; a board's message; a challenge's compare-and-set: most writes) is sent without
waiting for the answers to the writes before it; turn pings go in one statement per batch;
and the batch's end goes right behind them: ``RELEASE`` of the savepoint that began the
transaction, which fails rather than commit half a batch should SQLite roll the transaction
back by itself (``_Writer``, ``SqliteGameRepository._statements``). The next batch's
statements go behind a batch's end rather than after its answer
(``SqliteGameRepository._write_loop``); a batch is never committed with what a failed one
before it left: writers hear back only from a durable commit of their own writes.
Reads run on the reader connection one unit of work at a time, so no other unit's
transaction is ever seen; a ``snapshot`` read runs in one transaction of its own.
Operations are shielded from cancellation: a cancelled caller never leaves a transaction
half-done.

Small point reads (a game, a channel's open game, settings, a stored ping: what every command
asks) run inline on the event loop through a query-only ``sqlite3`` connection: in WAL mode a
reader never waits for the writer, and such a read takes some 20 µs, where a trip to a
connection's thread and back waits for a busy loop: with 200 games played and 20 tasks
reading (AMD EPYC, 2 cores, shared), a game by id took 0.96 ms at p95 this way and 21 ms on
the reader connection (medians of 5 runs; ``python -m benchmarks.bench_storage --readers N``
prints both kinds of read). Should the inline connection ever be busy (SQLite recovering the
WAL), the read goes to the reader connection instead.

Durability: WAL journal with ``synchronous=FULL`` by default, so an acknowledged move
survives a killed process and a power cut; ``NORMAL`` keeps it through a killed process only
(the WAL is in the OS cache) and is offered for benchmarks.

Files: a database is ours when ``PRAGMA application_id`` is ``0x476D6B62`` ("Gmkb").
``PRAGMA user_version`` counts the migrations applied (``storage/migrations/sqlite/``, each
applied in one transaction). Anything else is refused before a byte is written.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext, suppress
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import lru_cache
from os import PathLike
from pathlib import Path
from typing import Any, Final, Literal, Self, TypedDict, TypeVar, Unpack

import aiosqlite

from storage.errors import (
    CorruptDatabaseError,
    DatabaseLockedError,
    DatabaseRefusedError,
    DatabaseTooNewError,
    DiskFullError,
    ForeignDatabaseError,
    ReadOnlyDatabaseError,
    StorageError,
)
from storage.records import TurnPing, utc_now
from storage.sql import (
    _EPOCH,
    _MICROSECOND,
    APPLICATION_ID,
    GAME_COLUMNS,
    INDEXED_QUERIES,
    SQL_ACCEPT,
    SQL_CLOSE_CHALLENGE,
    SQL_DROP_PENDING_REPLY,
    SQL_INSERT_GAME,
    SQL_INSERT_MOVE,
    SQL_MARK_SHOWN,
    SQL_SAVE_PENDING_REPLY,
    SQL_SAVE_TURN_PING,
    SQL_SET_DEADLINE,
    SQL_SET_MESSAGE,
    SQLITE_SAVE_TURN_PINGS,
    Executor,
    Migration,
    Row,
    SqlGameRepository,
    Work,
    _values,
    load_migrations,
)

__all__ = [
    "APPLICATION_ID",
    "INDEXED_QUERIES",
    "LATEST_VERSION",
    "LOCK_WAIT_S",
    "MIGRATIONS",
    "Activity",
    "ConnectOptions",
    "Migration",
    "SqliteGameRepository",
    "sqlite_sql",
    "statements",
]

LOCK_WAIT_S = 30.0  # how long opening waits out another process's lock before giving up
_BUSY_TIMEOUT_MS = 5000  # how long a statement waits for a lock once running
log = logging.getLogger(__name__)
_T = TypeVar("_T")
# Writes per group commit. A batch's time is mostly its one wait for its answers (turns of a
# busy event loop), not its size: under a burst, the cap sets how fast the queue drains.
_MAX_BATCH = 512
# How long an unhurried write may wait for another to share its commit: under load one
# comes within milliseconds; alone, it is committed by itself after this.
_UNHURRIED_S = 0.05
_PARAMETER = re.compile(r"\$(\d+)")


@lru_cache(maxsize=1024)
def sqlite_sql(sql: str) -> str:
    """A statement of ``storage.sql`` with SQLite's numbered parameters (``$1`` -> ``?1``)."""
    return _PARAMETER.sub(r"?\1", sql)


def _bind(args: Sequence[Any]) -> Sequence[Any]:
    """Parameters as SQLite stores them: times as microseconds since the epoch, durations as
    microseconds."""
    for arg in args:
        if isinstance(arg, (datetime, timedelta)):
            return [_sqlite_value(value) for value in args]
    return args


def _sqlite_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return _micros(value)
    if isinstance(value, timedelta):
        return value // _MICROSECOND
    return value


def _micros(value: datetime) -> int:
    if value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}")
    return (value - _EPOCH) // _MICROSECOND


@dataclass(slots=True)
class Activity:
    """What a ``SqliteGameRepository`` has done since it opened, for benchmarks to divide
    by their interactions: each trip to a connection's thread costs the event loop a hand-over
    and a wake-up, whatever the statement."""

    writes: int = 0  # writes asked for
    commits: int = 0  # group commits made (each one fsync)
    trips: int = 0  # statements sent to a connection's thread (reader and writer)
    ahead: int = 0  # of those, sent by a write while earlier ones still waited for answers
    behind: int = 0  # batches whose statements went behind the last one's unanswered end
    # Times the writer sent statements after waiting for an answer: one a batch at least, and
    # one more for each write that needs its answers before the next statement is sent.
    waits: int = 0
    inline_reads: int = 0  # small reads answered on the event loop


class _Connection:
    """An aiosqlite connection as an ``Executor``: each statement is one trip to the
    connection's thread (counted in ``activity``). Rows are always fetched whole, so no
    statement stays open."""

    __slots__ = ("_activity", "_conn")

    def __init__(self, conn: aiosqlite.Connection, activity: Activity) -> None:
        self._conn = conn
        self._activity = activity

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        self._activity.trips += 1
        return list(await self._conn.execute_fetchall(sqlite_sql(sql), _bind(args)))

    async def fetchrow(self, sql: str, *args: Any) -> Any:
        rows = await self.fetch(sql, *args)
        return rows[0] if rows else None

    async def execute(self, sql: str, *args: Any) -> int:
        self._activity.trips += 1
        cursor = await self._conn.execute(sqlite_sql(sql), _bind(args))
        return cursor.rowcount

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        self._activity.trips += 1
        await self._conn.executemany(sqlite_sql(sql), [_bind(row) for row in args])

    async def commit(self) -> None:
        self._activity.trips += 1
        await self._conn.execute("COMMIT")

    async def rollback(self) -> None:
        self._activity.trips += 1
        await self._conn.execute("ROLLBACK")

    def savepoint(self) -> AbstractAsyncContextManager[None]:
        # A statement that fails a constraint is undone by itself; the transaction goes on.
        return nullcontext()


@lru_cache(maxsize=1024)
def _opens_transaction(sql: str) -> bool:
    """Whether Python's ``sqlite3``, its ``isolation_level`` set, begins the transaction
    itself just before running ``sql``: it does before INSERT, UPDATE, DELETE and REPLACE.
    (It also looks past leading comments; this test does not, so it never says yes wrongly.)"""
    return sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "REPLACE"))


# A move that does not end the game: the game's compare-and-set (``SQL_APPEND_MOVE``'s, $1 to
# $5) naming its stone ($6 x, $7 y, $8 colour) and the version that stone makes, from which the
# schema's trigger writes the stone (``0021_moves_by_trigger.sql``): one statement, atomic by
# itself. (In a SET, ``version`` is the version before the UPDATE.)
SQL_PLAY: Final = f"""
UPDATE games SET
    version = version + 1, ply = ply + 1, deadline = $3, warning_sent = false, updated_at = $4,
    last_x = $6, last_y = $7, last_color = $8, last_seq = version + 1
WHERE id = $1 AND version = $2 AND status = 'active' AND ply % 2 = $5
RETURNING {GAME_COLUMNS}
"""

# Statements that do not touch the turn pings, so pings held back (``_Writer.hold``) may wait
# past them: a group commit's pings are then written with one statement, not one each.
_PASS_HELD: Final = frozenset(
    {
        SQL_PLAY,
        SQL_ACCEPT,
        SQL_CLOSE_CHALLENGE,
        SQL_SET_DEADLINE,
        SQL_INSERT_MOVE,
        SQL_INSERT_GAME,
        SQL_MARK_SHOWN,
        SQL_SET_MESSAGE,
        SQL_SAVE_PENDING_REPLY,
        SQL_DROP_PENDING_REPLY,
    }
)
# Each statement whose rows may be held back (``_Writer.hold``), and the one statement that
# writes every row held for it: atomic, so that one row's failure writes none of them.
_HELD_ROWS: Final = {SQL_SAVE_TURN_PING: SQLITE_SAVE_TURN_PINGS}
# The savepoint a batch of several writes runs in (see ``_Writer``).
_SAVEPOINT: Final = "SAVEPOINT batch"
_RELEASE: Final = "RELEASE batch"


class _Again:
    """The outcome of a write whose held rows failed together with other writes' (``error``):
    it runs again alone, after its batch, so that only its own row's failure is its
    (``SqliteGameRepository._next``)."""

    __slots__ = ("error",)

    def __init__(self, error: Any) -> None:
        self.error = error


class _NotAhead(BaseException):
    """A write started ahead (``_Writer.going_ahead``) asked for a statement that cannot go
    ahead, before sending anything: it runs again once the writes before it are done. (Not an
    ``Exception``: no write's own handling may take it for a failure of its SQL.)"""


class _Writer(_Connection):
    """The writer connection (opened with ``isolation_level="IMMEDIATE"``) as an
    ``Executor`` for one batch of writes, whose statements all run in one transaction.

    How the transaction begins, before the batch's first statement:

    * a change, in a batch of several writes or in one sent ``behind`` the unanswered end of
      the batch before: ``SAVEPOINT batch``, sent without waiting. The batch ends with
      ``RELEASE batch``, which commits when the savepoint began the transaction. Should
      SQLite roll the transaction back by itself (a full disk, an I/O error), a statement
      after that begins a new one (``sqlite3`` does, before a change) and the RELEASE fails,
      for the savepoint is gone: half a batch is never committed, so the RELEASE can be sent
      behind statements whose answers have not come. Behind a batch whose end fails, the
      savepoint is nested in what that batch left open, and its RELEASE commits nothing;
    * a change, in a batch of one write: ``sqlite3`` begins the transaction in the same trip
      (``BEGIN IMMEDIATE``); the batch ends with COMMIT;
    * a read: ``BEGIN IMMEDIATE``, a trip of its own, so that no other process writes between
      the read and the changes after it; the batch ends with COMMIT.

    ``end`` sends that last statement. A COMMIT is sent before the answers it follows only
    when at most one is missing and none failed, and not behind another batch's end: a
    statement that SQLite rolls back with its transaction then fails the COMMIT too.

    Turn pings, whose rows nobody reads back soon, are held back (``hold``) and written
    together, one statement, before any statement that might see them and before the end
    (``flush``).

    ``going_ahead``: the write being started is left to finish while the writes after it
    start, and may send its statement before the writes started before it have their answers
    (``SqliteGameRepository._statements``). The thread runs statements in the order sent, and
    such a write is one change, followed only by reads (why it was refused): as if the writes
    had come in another order, each whole. It must send that statement before it first waits
    for anything, or the writes after it, and the batch's end, could overtake it: so it goes
    ahead only when that statement is a change that does not need the held pings written
    first (nor, in a batch not begun, a BEGIN answered); any other statement raises
    ``_NotAhead`` before it is sent. After the end, a write may still read (outside the
    transaction); a change then is a bug and raises ``RuntimeError``."""

    __slots__ = (
        "_answered",
        "_begun",
        "_behind",
        "_held",
        "_multi",
        "_savepoint",
        "_unanswered",
        "ending",
        "going_ahead",
        "overtaking",
    )

    def __init__(
        self, conn: aiosqlite.Connection, activity: Activity, *, writes: int, behind: bool
    ) -> None:
        super().__init__(conn, activity)
        self._held: dict[str, list[Sequence[Any]]] = {}
        self._multi = writes > 1
        self._behind = behind
        self.going_ahead = False
        self.overtaking = False  # going ahead of writes still waiting for their answers
        # Whether this batch's transaction is begun or on its way: known here, not asked of
        # the connection, whose state lags what is sent (the end of the batch before may
        # still be ahead of this one's statements on the thread).
        self._begun = False
        self._savepoint = False  # begun by ``SAVEPOINT batch``
        self._unanswered = 0  # statements sent whose answers have not come
        self._answered = True  # an answer came since the last statement was sent
        self.ending: asyncio.Future[Any] | None = None  # the end, once sent

    @property
    def begun(self) -> bool:
        """Whether the batch's transaction is begun (or on its way)."""
        return self._begun

    @property
    def in_savepoint(self) -> bool:
        """Whether the batch runs in ``SAVEPOINT batch`` (see the class)."""
        return self._savepoint

    def hold(self, sql: str, *args: Any) -> None:
        """Run ``sql`` (an INSERT of ``_HELD_ROWS``) with ``args`` later in this transaction
        (see the class). A write that holds rows does nothing else: it may run again, alone
        (``_Again``)."""
        self._held.setdefault(sql, []).append(args)

    @property
    def holding(self) -> int:
        """How many rows are held, to be written by ``flush``."""
        return sum(len(rows) for rows in self._held.values())

    async def flush(self) -> None:
        """Run the held inserts, in the order held: one statement for all the rows of each."""
        held, self._held = self._held, {}
        for sql, rows in held.items():
            await self.execute(_HELD_ROWS[sql], json.dumps([list(_bind(row)) for row in rows]))

    def may_end_unanswered(self) -> bool:
        """Whether ``end`` may be sent before the answers still missing (see the class)."""
        return self._savepoint or (not self._behind and self._unanswered <= 1)

    def end(self) -> asyncio.Future[Any]:
        """Send the statement that commits the batch (RELEASE or COMMIT), without waiting."""
        assert self.ending is None, "a batch ends once"
        assert not self._held, "the held rows go before the end"
        self.ending = self._send(_RELEASE if self._savepoint else "COMMIT")
        return self.ending

    def _send(self, sql: str) -> asyncio.Future[Any]:
        self._sending()
        self._activity.trips += 1
        return _start(self._conn.execute(sql))

    def _sending(self) -> None:
        """Count a wait (``Activity.waits``) when this send follows an answer."""
        if self._answered:
            self._answered = False
            self._activity.waits += 1

    async def _before(self, sql: str) -> None:
        change = _opens_transaction(sql)
        if self.ending is not None:
            if change:
                raise RuntimeError("a write changed the database after its batch's end")
            return
        if self.going_ahead:
            if not change or (self._held and sql not in _PASS_HELD):
                raise _NotAhead
            if self.overtaking:
                self._activity.ahead += 1
        elif self._held and sql not in _PASS_HELD:
            await self.flush()
        if not self._begun:
            self._begun = True
            if not change:
                self._sending()
                self._activity.trips += 1
                await self._conn.execute("BEGIN IMMEDIATE")
                self._answered = True
            elif self._multi or self._behind:
                self._savepoint = True
                # Its failure (never seen) would fail the RELEASE: retrieved, not awaited.
                began = self._send(_SAVEPOINT)
                began.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        await self._before(sql)
        self._sending()
        self._unanswered += 1
        try:
            return await super().fetch(sql, *args)
        finally:
            self._unanswered -= 1
            self._answered = True

    async def execute(self, sql: str, *args: Any) -> int:
        await self._before(sql)
        self._sending()
        self._unanswered += 1
        try:
            return await super().execute(sql, *args)
        finally:
            self._unanswered -= 1
            self._answered = True

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        await self._before(sql)
        self._sending()
        self._unanswered += 1
        try:
            await super().executemany(sql, args)
        finally:
            self._unanswered -= 1
            self._answered = True


def _start(coroutine: Coroutine[Any, Any, _T]) -> asyncio.Future[_T]:
    """Run ``coroutine`` at once, up to where it first waits, and on from each wait as soon as
    what it waits for is done (what Python 3.12's eager tasks do, without a task's extra turn
    of the loop at each step): what it sends to a connection's thread before it waits is
    queued now, in the order of the calls, where a task would only start at the next turn.
    Returns the future of its result."""
    loop = asyncio.get_running_loop()
    result: asyncio.Future[_T] = loop.create_future()

    def step(_: object = None) -> None:
        # A cancelled result (its awaiting task cancelled) lets the coroutine run on: what it
        # sent is on its way, and it finishes as it would have.
        try:
            waiting = coroutine.send(None)
        except StopIteration as finished:
            if not result.done():
                result.set_result(finished.value)
        except BaseException as error:  # handed to whoever awaits the result
            if not result.done():
                result.set_exception(error)
            if isinstance(error, KeyboardInterrupt | SystemExit):
                raise
        else:
            # A future, or None for a bare turn of the loop (``asyncio.sleep(0)``); once it is
            # done the coroutine goes on and sees its outcome (as under a task).
            if waiting is None:
                loop.call_soon(step)
            else:
                waiting.add_done_callback(step)

    step()
    return result


class _Inline:
    """A ``sqlite3`` connection on the event loop as an ``Executor`` whose calls never
    suspend, so that ``_drive`` runs a whole small read in one go."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        return self._conn.execute(sqlite_sql(sql), _bind(args)).fetchall()

    async def fetchrow(self, sql: str, *args: Any) -> Any:
        return self._conn.execute(sqlite_sql(sql), _bind(args)).fetchone()

    async def execute(self, sql: str, *args: Any) -> int:
        return self._conn.execute(sqlite_sql(sql), _bind(args)).rowcount

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        self._conn.executemany(sqlite_sql(sql), (_bind(row) for row in args))

    def savepoint(self) -> AbstractAsyncContextManager[None]:
        return nullcontext()


def _drive(work: Awaitable[_T]) -> _T:
    """Run to completion a coroutine that only awaits ``_Inline`` (never suspends)."""
    steps = work.__await__()
    try:
        steps.send(None)
    except StopIteration as done:
        result: _T = done.value
        return result
    steps.close()
    raise RuntimeError("SQL work awaited something other than its connection")


def _in_snapshot(work: Work[_T]) -> Work[_T]:
    """``work`` inside one read transaction."""

    async def read(db: Any) -> _T:
        await db.execute("BEGIN")
        try:
            return await work(db)
        finally:
            await db.execute("ROLLBACK")

    return read


async def _rows(db: aiosqlite.Connection, sql: str) -> list[Any]:
    """Every row of ``sql`` (a statement or a pragma), fetched whole."""
    return list(await db.execute_fetchall(sql))


async def _scalar(db: aiosqlite.Connection, sql: str) -> Any:
    return (await _rows(db, sql))[0][0]


async def _connect(
    path: Path, *pragmas: str, isolation_level: str | None = None
) -> aiosqlite.Connection:
    """A connection with ``pragmas`` run: in autocommit mode (transactions are explicit), or
    with ``isolation_level`` for the writer (see ``_Writer``)."""
    conn = await aiosqlite.connect(path, isolation_level=isolation_level)
    try:
        for pragma in pragmas:
            await _rows(conn, f"PRAGMA {pragma}")
    except BaseException:
        await conn.close()
        raise
    return conn


# --------------------------------------------------------------------------------------------
# Migrations

MIGRATIONS = load_migrations("sqlite")
LATEST_VERSION = MIGRATIONS[-1].version


def statements(migration: Migration) -> list[str]:
    """A migration's SQL split into complete statements (triggers stay whole)."""
    found, pending = [], ""
    for line in migration.sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    if pending.strip() and not all(
        part.strip().startswith("--") or not part.strip() for part in pending.splitlines()
    ):
        raise ValueError(f"{migration.name}: incomplete statement at the end")
    return found


@asynccontextmanager
async def _immediate(db: aiosqlite.Connection) -> AsyncIterator[None]:
    """A write transaction on ``db``, its lock taken at once (``BEGIN IMMEDIATE``): committed
    at the end of the block, rolled back when the block (or the commit) raises."""
    await _rows(db, "BEGIN IMMEDIATE")
    try:
        yield
        await _rows(db, "COMMIT")
    except BaseException:
        if db.in_transaction:
            await _rows(db, "ROLLBACK")
        raise


async def _migrate(db: aiosqlite.Connection, path: Path) -> None:
    """Apply the missing migrations, one transaction each. The version is read again inside
    each transaction, so two processes opening a fresh file at once cannot both apply a step."""
    while True:
        async with _immediate(db):
            version = await _scalar(db, "PRAGMA user_version")
            if version > LATEST_VERSION:
                raise DatabaseTooNewError(path, version, LATEST_VERSION)
            if version < LATEST_VERSION:
                migration = next(m for m in MIGRATIONS if m.version > version)
                for statement in statements(migration):
                    await _rows(db, statement)
                await _rows(db, f"PRAGMA user_version = {migration.version}")
        if version == LATEST_VERSION:
            return


# --------------------------------------------------------------------------------------------
# Opening


async def _check_identity(db: aiosqlite.Connection, path: Path) -> bool:
    """Raise unless the file is ours (or empty); newer versions are refused. Reads only.
    Returns whether the file is new (empty)."""
    application_id = await _scalar(db, "PRAGMA application_id")
    version = await _scalar(db, "PRAGMA user_version")
    objects = await _scalar(db, "SELECT count(*) FROM sqlite_schema")
    if application_id == APPLICATION_ID:
        if version > LATEST_VERSION:
            raise DatabaseTooNewError(path, version, LATEST_VERSION)
        return False
    if application_id == 0 and version == 0 and objects == 0:
        return True  # an empty database: ours to initialize
    raise ForeignDatabaseError(
        path, f"application_id={application_id:#x} user_version={version} objects={objects}"
    )


async def _check_integrity(db: aiosqlite.Connection, path: Path) -> None:
    """``PRAGMA quick_check``: damaged pages would answer errors at random later, and every
    write would spread the damage."""
    rows = await _rows(db, "PRAGMA quick_check(1)")
    first = str(rows[0][0]) if rows else "no answer"
    if first != "ok":
        # "*** in database main ***\nPage 5: btreeInitPage() returns error code 11": one line
        raise CorruptDatabaseError(path, " ".join(first.split())[:200])


async def _check_writable(db: aiosqlite.Connection) -> None:
    """Write one page for real: a read-only file or filesystem and a full disk show up now,
    at start, rather than as refused moves later. Rewriting ``user_version`` with its own
    value changes nothing but still commits the header page (a WAL frame)."""
    version = await _scalar(db, "PRAGMA user_version")
    async with _immediate(db):
        await _rows(db, f"PRAGMA user_version = {int(version)}")


_Connections = tuple[aiosqlite.Connection, aiosqlite.Connection, sqlite3.Connection]


async def _open_connections(path: Path, synchronous: str, lock_wait_s: float) -> _Connections:
    """Check, upgrade and open the file: the reader connection, the writer and the
    query-only inline reader."""
    # While opening, a lock is waited on in short steps (``connect`` retries them).
    step_ms = max(1, min(_BUSY_TIMEOUT_MS, int(lock_wait_s * 1000) // 4))
    db = await _connect(path, f"busy_timeout = {step_ms}", "foreign_keys = ON")
    opened: list[aiosqlite.Connection] = [db]
    try:
        # Connection settings write nothing; the identity check reads only. The journal mode
        # is the first write to the file, so it waits until the file is known ours.
        if not await _check_identity(db, path):
            await _check_integrity(db, path)
        await _rows(db, "PRAGMA journal_mode = WAL")
        await _rows(db, f"PRAGMA synchronous = {synchronous}")
        await _migrate(db, path)
        await _check_writable(db)
        await _rows(db, f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        pragmas = (
            f"busy_timeout = {_BUSY_TIMEOUT_MS}",
            "foreign_keys = ON",
            f"synchronous = {synchronous}",
        )
        opened.append(await _connect(path, *pragmas, isolation_level="IMMEDIATE"))
        # The inline reader never waits for a lock (that would stall the event loop): a busy
        # read goes to the reader connection instead.
        inline = sqlite3.connect(path, isolation_level=None)
        try:
            inline.execute("PRAGMA busy_timeout = 0")
            inline.execute("PRAGMA query_only = ON")
        except BaseException:
            inline.close()
            raise
    except BaseException:
        for conn in opened:
            await conn.close()
        raise
    return db, opened[1], inline


def _preflight(path: Path) -> None:
    """What the filesystem says before SQLite is asked (SQLite would open a read-only file
    read-only and fail only at the first write). Root passes these checks; the write probe
    after opening still catches a read-only filesystem."""
    if path.exists() and not path.is_file():
        raise ForeignDatabaseError(path, "not a regular file")
    folder = path.parent
    if not folder.is_dir():
        raise ReadOnlyDatabaseError(path, f"the folder {folder} does not exist")
    if os.statvfs(folder).f_flag & os.ST_RDONLY:
        raise ReadOnlyDatabaseError(path, "the filesystem is mounted read-only")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise ReadOnlyDatabaseError(path, "the file is not writable for this user")
    if not os.access(folder, os.W_OK | os.X_OK):
        # The journal (-wal, -shm) lives beside the file.
        raise ReadOnlyDatabaseError(path, f"the folder {folder} is not writable for this user")


_SQLITE_MAGIC = b"SQLite format 3\x00"
_LOW_SPACE = 1 << 20  # an I/O error with less than this free is a full disk
# The start-up fault each primary result code means (an I/O error only with little space left).
_FAULTS: dict[int, type[DatabaseRefusedError]] = {
    sqlite3.SQLITE_READONLY: ReadOnlyDatabaseError,
    sqlite3.SQLITE_CANTOPEN: ReadOnlyDatabaseError,
    sqlite3.SQLITE_FULL: DiskFullError,
    sqlite3.SQLITE_IOERR: DiskFullError,
    sqlite3.SQLITE_CORRUPT: CorruptDatabaseError,
}


def _is_locked(error: sqlite3.Error) -> bool:
    return getattr(error, "sqlite_errorcode", 0) & 0xFF in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


def _classify(path: Path, error: sqlite3.Error) -> DatabaseRefusedError | None:
    """The start-up fault behind a SQLite error (by its primary result code); None for an
    error that says nothing about the file (SQL that fails, a misuse)."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    detail = str(error)
    if code == sqlite3.SQLITE_NOTADB:
        # A SQLite header on a file SQLite can't read is damage; anything else is a stranger.
        try:
            with path.open("rb") as file:
                damaged = file.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
        except OSError:
            damaged = False
        return (CorruptDatabaseError if damaged else ForeignDatabaseError)(path, detail)
    if code == sqlite3.SQLITE_IOERR and _free_bytes(path.parent) >= _LOW_SPACE:
        return DatabaseRefusedError(path, f"{getattr(error, 'sqlite_errorname', 'I/O')}: {detail}")
    fault = _FAULTS.get(code)
    return None if fault is None else fault(path, detail)


def _free_bytes(folder: Path) -> int:
    try:
        stats = os.statvfs(folder)
    except OSError:
        return 1 << 62
    return stats.f_bavail * stats.f_frsize


# --------------------------------------------------------------------------------------------
# The repository


@dataclass(frozen=True, slots=True)
class _Write:
    work: Work[Any]
    future: asyncio.Future[Any]
    atomic: bool  # one statement, then only reads (see ``_statements``)


@dataclass(frozen=True, slots=True)
class _Sent:
    """A batch whose end (RELEASE or COMMIT) is on its way to the writer's thread."""

    batch: list[_Write]
    outcomes: list[tuple[bool, Any]]
    commit: asyncio.Future[Any] | None  # its end (None: nothing to commit)


class ConnectOptions(TypedDict, total=False):
    """The keyword options of ``SqliteGameRepository.connect`` (and ``open``)."""

    clock: Callable[[], datetime]
    synchronous: Literal["FULL", "NORMAL"]
    lock_wait_s: float | None


class SqliteGameRepository(SqlGameRepository):
    """The durable ``GameRepository``. Open with ``async with SqliteGameRepository.open(p)``
    (or ``await SqliteGameRepository.connect(p)`` … ``await repo.close()``)."""

    _ID_LIST = "group_concat(channel_id)"
    _UNIQUE_VIOLATION = (sqlite3.IntegrityError,)
    # A refused INSERT takes no rowid: a new game is its INSERT alone.
    _REFUSED_INSERT_USES_ID = False

    def __init__(
        self, path: Path, clock: Callable[[], datetime], connections: _Connections
    ) -> None:
        """Use ``open``/``connect``; this only wires prepared connections: the reader, the
        writer and the query-only inline reader."""
        super().__init__(clock)
        self._path = path
        self._reader, self._writes, self._inline = connections
        self._reading = asyncio.Lock()  # one unit of work at a time on the reader
        self._pending: deque[_Write] = deque()  # writes waiting for a group commit
        self._wake = asyncio.Event()
        self._nudge: asyncio.TimerHandle | None = None  # wakes the writer for unhurried writes
        self._closing = False  # no new writes
        self._closed = False  # no new reads
        self._shut = False  # the connections are closed
        # What the writer has done, for tests to wait on (``_until``) rather than sleep.
        self._queued = 0  # writes ever queued
        self._committing = 0  # writes in the batch being committed
        self._commits = 0  # group commits made
        self._activity = Activity()  # its trips and inline reads (``activity``)
        self._watchers: list[asyncio.Future[None]] = []
        self._writer = asyncio.create_task(self._write_loop(), name=f"sqlite writer {path}")
        # Cancelled, as every task is, when the event loop shuts down.
        self._guard = asyncio.create_task(self._close_with_loop(), name=f"sqlite guard {path}")

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @classmethod
    async def connect(
        cls,
        path: str | PathLike[str],
        *,
        clock: Callable[[], datetime] = utc_now,
        synchronous: Literal["FULL", "NORMAL"] = "FULL",
        lock_wait_s: float | None = None,
    ) -> Self:
        """Open (creating or upgrading) the database at ``path``, after checking that the
        file is ours, undamaged (``PRAGMA quick_check``) and writable. A lock held
        by another process is waited out for up to ``lock_wait_s`` seconds (default
        ``LOCK_WAIT_S``).

        Raises:
            ForeignDatabaseError: the file is not ours (it is left untouched).
            DatabaseTooNewError: a newer version of the bot wrote it (left untouched).
            CorruptDatabaseError: its pages are damaged (left untouched).
            ReadOnlyDatabaseError: the file, folder or filesystem cannot be written.
            DiskFullError: there is no room to write.
            DatabaseLockedError: still locked after ``lock_wait_s``.
            DatabaseRefusedError: any other SQLite error while opening.
        """
        path = Path(path)
        if lock_wait_s is None:
            lock_wait_s = LOCK_WAIT_S
        _preflight(path)
        started = time.monotonic()
        delay = 0.05
        while True:
            try:
                connections = await _open_connections(path, synchronous, lock_wait_s)
                repo = cls(path, clock, connections)
                # A turn of the loop, so that the guard is running: a task cancelled before
                # it ever ran would run no cleanup.
                try:
                    await asyncio.sleep(0)
                except BaseException:
                    await repo.close()
                    raise
                return repo
            except sqlite3.Error as error:
                waited = time.monotonic() - started
                if not _is_locked(error):
                    fault = _classify(path, error)
                    if fault is None:
                        raise  # a bug (a bad migration, say), not the file's state
                    raise fault from error
                if waited >= lock_wait_s:
                    raise DatabaseLockedError(path, waited) from error
                log.warning("%s is locked by another process; waiting (%.0f s)", path, waited)
                await asyncio.sleep(min(delay, max(0.0, lock_wait_s - waited)))
                delay = min(delay * 2, 2.0)

    @classmethod
    def open(
        cls, path: str | PathLike[str], **options: Unpack[ConnectOptions]
    ) -> AbstractAsyncContextManager[Self]:
        """``connect`` as an async context manager that closes the repository on exit."""
        return cls._closed_on_exit(lambda: cls.connect(path, **options))

    async def close(self) -> None:
        """Finish the writes already asked for, then close the connections."""
        if self._closed:
            return
        self._closing = True
        self._wake.set()
        await asyncio.wait([self._writer])  # its own failure, if any, was reported to writers
        if not self._closed:
            self._closed = True
            async with self._reading:  # after the reads already waiting for the reader
                await self._close_connections()
            self._guard.cancel()
            await asyncio.wait([self._guard])

    async def _close_connections(self) -> None:
        """Close the connections, once: their threads end."""
        if self._shut:
            return
        self._shut = True
        self._inline.close()
        await self._writes.close()
        await self._reader.close()

    async def _close_with_loop(self) -> None:
        """Wait to be cancelled: by ``close``, or by the event loop shutting down with the
        repository still open (a crash on the way out). The connections are closed either
        way: their threads would otherwise keep the process from exiting."""
        try:
            await asyncio.Event().wait()
        finally:
            self._closing = self._closed = True
            await self._close_connections()

    async def _play(
        self, db: Executor, game_id: int, expected_version: int, params: Sequence[Any]
    ) -> Row | None:
        # One statement: the schema's trigger writes the stone (see ``SQL_PLAY``).
        row: Row | None = await db.fetchrow(SQL_PLAY, game_id, expected_version, *params)
        return row

    async def save_turn_ping(self, ping: TurnPing) -> None:
        async def work(db: Executor) -> None:
            assert isinstance(db, _Writer)  # every write runs on the writer
            db.hold(SQL_SAVE_TURN_PING, *_values(ping))

        # Atomic: no statement at all; held in its turn, it can be among writes gone ahead.
        await self._write(work, atomic=True, unhurried=True)

    def activity(self) -> Activity:
        """What this repository has done since it opened (a copy)."""
        return replace(self._activity, writes=self._queued, commits=self._commits)

    async def checkpoint(self) -> int:
        """Fold the WAL back into the main file and return the database's size in bytes."""
        # Between transactions (a checkpoint cannot run inside one): the reader runs one
        # unit of work at a time.
        async with self._reading:
            await _rows(self._reader, "PRAGMA wal_checkpoint(TRUNCATE)")
            pages = await _scalar(self._reader, "PRAGMA page_count")
            return int(pages * await _scalar(self._reader, "PRAGMA page_size"))

    # --- plumbing -----------------------------------------------------------------------
    #
    # Group commits (see the module doc) turn one fsync per move into one per batch. A refused
    # write (a StorageError: lost compare-and-set, busy channel, ...) by construction has
    # written nothing, so it just reports its refusal; any other failure rolls the batch back
    # and its writes are retried one by one.

    async def _write(self, work: Work[_T], *, atomic: bool = False, unhurried: bool = False) -> _T:
        """Queue a write for the next group commit and wait until it is durable (every
        write is in a transaction here: ``atomic`` changes nothing). An ``unhurried`` write
        waits up to ``_UNHURRIED_S`` for another write to start the commit it joins: a
        commit's fixed cost (an fsync) is most of a small write's."""
        if self._closing:
            raise RuntimeError("the repository is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        # A cancelled caller does not stop its write; retrieve the outcome so that asyncio
        # does not log an error nobody was waiting for.
        future.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._pending.append(_Write(work, future, atomic))
        if not unhurried:
            self._wake.set()
        elif self._nudge is None:
            self._nudge = loop.call_later(_UNHURRIED_S, self._nudged)
        self._queued += 1
        self._changed()
        # Not shielded (a shield costs a turn of the loop): a cancelled caller's future is
        # cancelled, its write still runs with the batch.
        result: _T = await future
        return result

    def _nudged(self) -> None:
        self._nudge = None
        self._wake.set()

    def _changed(self) -> None:
        """Wake what ``_until`` waits in."""
        watchers, self._watchers = self._watchers, []
        for watcher in watchers:
            if not watcher.done():
                watcher.set_result(None)

    async def _until(self, condition: Callable[[], bool]) -> None:
        """Return once ``condition`` holds, checked each time a write is queued and each
        time a batch starts or ends committing (for tests, which wait on states)."""
        while not condition():
            watcher = asyncio.get_running_loop().create_future()
            self._watchers.append(watcher)
            await watcher

    async def _read(self, work: Work[_T], *, snapshot: bool = False, small: bool = False) -> _T:
        """Run a read on the reader connection; ``snapshot`` wraps several statements in one
        transaction so they agree with each other even if another process writes.
        ``small``: a few rows by key, run at once on the event loop through the query-only
        connection (see the module doc)."""
        if self._closed:
            raise RuntimeError("the repository is closed")
        if snapshot:
            work = _in_snapshot(work)
        if small:
            try:
                found = _drive(work(_Inline(self._inline)))
                self._activity.inline_reads += 1
            except sqlite3.OperationalError as error:
                if not _is_locked(error):
                    raise
                if self._inline.in_transaction:
                    self._inline.rollback()
                # Busy (WAL recovery, a checkpoint's moment): read on the reader instead.
            else:
                # Still a turn of the loop, as a read always was: a caller polling the store
                # in a loop must let the tasks it waits for run.
                await asyncio.sleep(0)
                return found
        # Its own task, shielded: a cancelled caller's read still runs whole (a snapshot's
        # transaction always ends).
        read = asyncio.ensure_future(self._on_reader(work))
        read.add_done_callback(lambda done: done.cancelled() or done.exception())
        return await asyncio.shield(read)

    async def _on_reader(self, work: Work[_T]) -> _T:
        async with self._reading:
            return await work(_Connection(self._reader, self._activity))

    async def _write_loop(self) -> None:
        """Group-commit what is queued, a batch at a time. A batch's end (its RELEASE or
        COMMIT) is sent with its statements and not waited for before the next batch is
        taken: that batch's statements go to the thread right behind it, and the end's answer
        has come by the time theirs have (``_next``). Either way the writer waits once a
        batch."""
        batch: list[_Write] = []
        sent: _Sent | None = None
        try:
            while True:
                if self._pending:
                    batch = []
                    while self._pending and len(batch) < _MAX_BATCH:
                        batch.append(self._pending.popleft())
                    sent = await self._next(sent, batch)
                    batch = []
                    continue
                if sent is not None:
                    settled, sent = sent, None
                    failure = await self._settle_commit(settled)
                    if failure is not None:
                        await self._roll_back()
                        await self._failed(settled, failure)
                    continue
                if self._committing:
                    self._committing = 0
                    self._changed()
                if self._closing:
                    return
                await self._wake.wait()
                self._wake.clear()
                if self._nudge is not None:  # the unhurried writes go with this batch
                    self._nudge.cancel()
                    self._nudge = None
        except BaseException:
            # The writer is gone (cancelled with its loop, or a bug): nobody may wait forever.
            self._closing = True
            stopped = RuntimeError("the repository's writer stopped")
            for write in (*(sent.batch if sent else ()), *batch, *self._pending):
                if not write.future.done():
                    write.future.set_exception(stopped)
            self._pending.clear()
            raise

    async def _next(self, sent: _Sent | None, batch: list[_Write]) -> _Sent | None:
        """Run ``batch``'s statements (on the thread behind ``sent``'s end, if any), settle
        ``sent`` and send ``batch``'s end: returns the batch to settle next, or None when it is
        settled already (a failure, handled here).

        The batch's end goes right behind its statements, before their answers, when it may
        (``_Writer``): the batch then waits once. A batch is never committed with what the
        one before it left: when that one's end fails, this batch's statements ran in what
        remains of its transaction (and are rolled back with it, to run again by themselves)
        or, if it left none, in a transaction of their own, committed by their RELEASE."""
        self._committing = len(batch)
        self._changed()
        if sent is not None:
            self._activity.behind += 1
        db = _Writer(self._writes, self._activity, writes=len(batch), behind=sent is not None)
        failure: Exception | None = None
        outcomes: list[tuple[bool, Any]] = []
        try:
            outcomes = await self._statements(db, batch)
        except Exception as error:
            failure = error
        if sent is not None:
            before = await self._settle_commit(sent)
            if before is not None:
                await self._behind_failure(sent, before, db, batch, outcomes, failure)
                return None
        if failure is None and db.ending is None and db.begun:
            if db.in_savepoint or not any(_broke(outcome) for outcome in outcomes):
                db.end()
            else:
                # Without a savepoint, a failed statement may have taken the transaction
                # with it: the batch runs again one write at a time.
                failure = next(value for ok, value in outcomes if not ok)
        if failure is not None:
            if db.ending is not None:
                with suppress(Exception):
                    await db.ending
            await self._roll_back()
            await self._failed(_Sent(batch, outcomes, None), failure)
            return None
        if any(isinstance(value, _Again) for _, value in outcomes):
            # Rare (a row held for a game deleted meanwhile): settled here, so that the
            # writes to run again alone run before any write queued after them.
            done = _Sent(batch, outcomes, db.ending)
            failure = await self._settle_commit(done)
            if failure is not None:
                await self._roll_back()
                await self._failed(done, failure)
            else:
                await self._again(batch, outcomes)
            return None
        return _Sent(batch, outcomes, db.ending)

    async def _behind_failure(
        self,
        sent: _Sent,
        before: Exception,
        db: _Writer,
        batch: list[_Write],
        outcomes: list[tuple[bool, Any]],
        failure: Exception | None,
    ) -> None:
        """``sent``'s end failed with ``before``, and ``batch`` ran behind it (see ``_next``).
        Once every answer has come: if a transaction is still open, it holds this batch's
        statements (and perhaps ``sent``'s): both are rolled back, ``sent``'s writes run
        again one by one and ``batch`` by itself. If none is open, ``sent`` left nothing and
        ``batch``'s own RELEASE, if it came through, committed it alone."""
        ended = db.ending is not None and failure is None
        if db.ending is not None:
            try:
                await db.ending
            except Exception:
                ended = False
        if ended and not self._writes.in_transaction:
            self._commits += 1
            self._report(batch, outcomes, None)
            await self._failed(sent, before)
            await self._again(batch, outcomes)
            return
        await self._roll_back()
        await self._failed(sent, before)
        await self._alone(batch)

    async def _settle_commit(self, sent: _Sent) -> Exception | None:
        """Wait for ``sent``'s end; committed, its writers hear their outcomes. Returns the
        end's failure, for the caller to roll back and handle (``_failed``)."""
        if sent.commit is not None:
            try:
                await sent.commit
            except Exception as error:
                return error
        self._commits += 1
        self._report(sent.batch, sent.outcomes, None)
        return None

    async def _roll_back(self) -> None:
        """Roll back what is open on the writer (every answer has come: its state is
        current)."""
        if self._writes.in_transaction:
            await _Connection(self._writes, self._activity).rollback()

    async def _failed(self, sent: _Sent, failure: Exception) -> None:
        """``sent`` failed whole (rolled back): a write alone hears its own failure if it had
        one, else ``failure``; the writes of a larger batch run again one by one, so that
        only the culprit fails."""
        if len(sent.batch) == 1:
            own = [value for ok, value in sent.outcomes if not ok and _broke((ok, value))]
            self._report(sent.batch, [], own[0] if own else failure)
            return
        for write in sent.batch:
            await self._alone([write])

    async def _again(self, batch: list[_Write], outcomes: list[tuple[bool, Any]]) -> None:
        """Run alone, each in turn, the writes of committed ``batch`` whose held rows failed
        together with others' (``_Again``)."""
        for write, (_, value) in zip(batch, outcomes, strict=True):
            if isinstance(value, _Again):
                await self._alone([write])

    async def _alone(self, batch: list[_Write]) -> None:
        """Run ``batch`` by itself, with nothing behind it, to its end (``_failed`` if it
        fails)."""
        sent = await self._next(None, batch)
        if sent is None:
            return
        failure = await self._settle_commit(sent)
        if failure is not None:
            await self._roll_back()
            await self._failed(sent, failure)

    @staticmethod
    def _report(
        batch: list[_Write], outcomes: list[tuple[bool, Any]], failure: BaseException | None
    ) -> None:
        """Tell ``batch``'s writers how it ended: each its result or refusal, or ``failure``."""
        settled = outcomes if failure is None else [(False, failure)] * len(batch)
        for write, (ok, value) in zip(batch, settled, strict=True):
            if write.future.done() or isinstance(value, _Again):  # to run again: not yet
                continue
            if ok:
                write.future.set_result(value)
            else:
                write.future.set_exception(value)

    @classmethod
    async def _statements(cls, db: _Writer, batch: list[_Write]) -> list[tuple[bool, Any]]:
        """Each write of ``batch`` in one transaction (begun with its first statement): its
        result, its refusal, or the failure of its one statement. The batch's end is sent
        behind the last statements when it may be (``_Writer``); else the transaction is
        left open for the caller to end.

        A trip to the writer's thread costs a busy event loop two of its turns, so a batch of
        writes one after another would take two turns a statement. Atomic writes (one
        statement, as most are: a move, a board's message) go ahead instead: each is started
        while the ones before it still wait for their answers (``_Writer.going_ahead``), so a
        run of them costs about one trip's wait. Any other write waits until those before it
        are done, and so does one whose statement cannot go ahead (``_NotAhead``); its
        failure fails the batch, which runs again one write at a time."""
        outcomes: list[tuple[bool, Any]] = [(False, None)] * len(batch)
        ahead: list[tuple[int | None, asyncio.Future[tuple[bool, Any]]]] = []
        holders: list[int] = []  # the writes whose rows are held
        broke = False  # whether a write answered so far failed other than by a refusal
        for index, write in enumerate(batch):
            if write.atomic:
                # Going ahead even with nothing ahead of it (the batch's first write, or the
                # first after one that settled those before it): left to finish while later
                # writes start, it must not wait before its statement is sent
                # (``_Writer.going_ahead``).
                db.going_ahead = True
                db.overtaking = bool(ahead)
                held = db.holding
                try:
                    started = _start(cls._outcome(db, write, own=True))
                finally:
                    db.going_ahead = db.overtaking = False
                if not (started.done() and isinstance(started.exception(), _NotAhead)):
                    if db.holding > held:
                        holders.append(index)
                    ahead.append((index, started))
                    continue
            broke = await cls._settle(ahead, outcomes) or broke
            outcomes[index] = await cls._outcome(db, write, own=False)
            if not db.holding:  # written before this write's statements
                holders.clear()
        if db.holding:
            # The held pings go right behind the writes gone ahead, not after their answers;
            # their insert failing fails the writes that held them.
            ahead.append((None, _start(cls._flushed(db))))
        if db.begun and db.may_end_unanswered() and (db.in_savepoint or not broke):
            db.end()
        await cls._settle(ahead, outcomes, holders)
        return outcomes

    @staticmethod
    async def _flushed(db: _Writer) -> tuple[bool, Any]:
        try:
            await db.flush()
        except Exception as error:
            return (False, error)
        return (True, None)

    @staticmethod
    async def _outcome(db: _Writer, write: _Write, *, own: bool) -> tuple[bool, Any]:
        """``write``'s result or refusal; ``own``: also any other failure (its one statement,
        undone by SQLite, changed nothing), which otherwise fails the batch."""
        try:
            return (True, await write.work(db))
        except StorageError as refused:
            # Every write checks before it changes anything, so a refusal (a lost
            # compare-and-set, a busy channel...) has written nothing to undo.
            return (False, refused)
        except Exception as error:
            if not own or isinstance(error, _NotAhead):
                raise
            return (False, error)

    @staticmethod
    async def _settle(
        ahead: list[tuple[int | None, asyncio.Future[tuple[bool, Any]]]],
        outcomes: list[tuple[bool, Any]],
        holders: Sequence[int] = (),
    ) -> bool:
        """Wait for the writes gone ahead, all of them, and note their outcomes (``None``:
        the held rows' insert, whose failure is that of the ``holders``' writes). Returns
        whether any failed other than by a refusal."""
        broke = False
        for index, started in ahead:
            outcome = await started
            broke = broke or _broke(outcome)
            if index is not None:
                outcomes[index] = outcome
            elif not outcome[0]:
                # The held rows' one statement failed and wrote none of them: alone, it was its
                # holder's own failure; of several, only one row may be at fault.
                again = outcome if len(holders) < 2 else (False, _Again(outcome[1]))
                for held in holders:
                    outcomes[held] = again
        ahead.clear()
        return broke


def _broke(outcome: tuple[bool, Any]) -> bool:
    """Whether ``outcome`` is a failure other than a refusal."""
    ok, value = outcome
    return not ok and not isinstance(value, StorageError)
