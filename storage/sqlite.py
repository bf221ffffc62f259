"""``SqliteGameRepository``: the ``GameRepository`` on one SQLite file. All SQL lives here.

Writes are serialized through one writer task that group-commits: every write queued at that
moment runs in one ``BEGIN IMMEDIATE`` transaction on the writer connection and is committed
with one fsync, and each caller hears back only once the commit is durable. The batch's
statements run on the event loop (they touch only pages in memory); COMMIT, which waits for
the disk, runs on a thread of its own, and so does a batch that finds the database locked by
another process. Reads that are more than a few rows by key run on aiosqlite's connection, in
its thread, one at a time: no other connection's uncommitted work is ever seen. Operations are
shielded from cancellation: a cancelled caller never leaves a transaction half-done.

Small point reads (a game, a channel's open game, settings, a stored ping: what every command
asks) run inline on the event loop through a third, query-only connection: in WAL mode a
reader never waits for the writer, and such a read takes some 20 µs, where a hop to the
connection's thread and back cost 5-80 ms under load (most of it waiting for the GIL and for the
loop to take the answer; bench_load at 500 games made about 400 hops a second). Should that
connection ever be busy (SQLite recovering the WAL), the read takes the thread instead.

Durability: WAL journal with ``synchronous=FULL`` by default, so an acknowledged move
survives a killed process and a power cut; ``NORMAL`` keeps it through a killed process only
(the WAL is in the OS cache) and is offered for benchmarks.

Files: a database is ours when ``PRAGMA application_id`` is ``0x476D6B62`` ("Gmkb").
``PRAGMA user_version`` counts the migrations applied (``storage/migrations/NNNN_*.sql``,
each applied in one transaction). Anything else is refused before a byte is written.
"""

from __future__ import annotations

import asyncio
import enum
import importlib.resources
import logging
import os
import re
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from os import PathLike
from pathlib import Path
from typing import Any, Literal, Protocol, Self, TypeVar

import aiosqlite

from engine.types import Color, Game, Outcome, Point, Rule, Termination
from storage.ratings import new_stats, rate_game
from storage.repository import (
    CHALLENGE_CLOSINGS,
    END_REASONS,
    ChannelBusyError,
    CorruptDatabaseError,
    DatabaseLockedError,
    DatabaseRefusedError,
    DatabaseTooNewError,
    DiskFullError,
    ForeignDatabaseError,
    GameNotFoundError,
    GameOpening,
    GameRecord,
    GameSnapshot,
    GameStatus,
    GuildSettings,
    InvalidStatusError,
    MoveOrderError,
    MoveRecord,
    NewGame,
    PendingReply,
    Player,
    PlayerStats,
    PuzzlePlayer,
    ReadOnlyDatabaseError,
    ResultCount,
    StorageError,
    StoredUndo,
    TurnPing,
    VersionConflictError,
    live_moves,
    utc_now,
)

__all__ = [
    "APPLICATION_ID",
    "LATEST_VERSION",
    "LOCK_WAIT_S",
    "MIGRATIONS",
    "Migration",
    "SqliteGameRepository",
]

APPLICATION_ID = 0x476D6B62  # "Gmkb" in the file header: this file is a gomoku-bot database
LOCK_WAIT_S = 30.0  # how long opening waits out another process's lock before giving up
_BUSY_TIMEOUT_MS = 5000  # how long a statement waits for a lock once running
log = logging.getLogger(__name__)
_T = TypeVar("_T")
_Connection = aiosqlite.Connection
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_NO_ID_LIMIT = 2**63 - 1
_OVERALL = 0  # player_stats.scope for "every guild"
_MAX_BATCH = 64  # writes per group commit: bounds the wait of the first write in a batch


class _Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...


class _Db(Protocol):
    """What SQL work sees of a connection: aiosqlite's, or ``_Direct`` in its own thread."""

    async def execute_fetchall(self, sql: str, parameters: Any = ..., /) -> Iterable[Any]: ...

    async def execute(self, sql: str, parameters: Any = ..., /) -> _Cursor: ...

    @property
    def in_transaction(self) -> bool: ...


class _Direct:
    """The sqlite3 connection seen from aiosqlite's thread, with aiosqlite's calls: each
    coroutine returns without suspending, so ``_drive`` runs a whole unit of work (a group
    commit's transaction, a read) in one hop to the thread instead of one hop per statement.
    Under load every hop waited for the event loop to hand over the GIL, and a batch's dozens
    of statements made a move's write take hundreds of milliseconds."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def execute_fetchall(self, sql: str, parameters: Any = (), /) -> list[Any]:
        return self._conn.execute(sql, parameters).fetchall()

    async def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return self._conn.execute(sql, parameters)

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction


def _drive(work: Awaitable[_T]) -> _T:
    """Run to completion a coroutine that only awaits ``_Direct`` (never suspends)."""
    steps = work.__await__()
    try:
        steps.send(None)
    except StopIteration as done:
        result: _T = done.value
        return result
    steps.close()
    raise RuntimeError("SQL work awaited something other than its connection")


async def _in_thread(connection: _Connection, work: Callable[[_Db], Awaitable[_T]]) -> _T:
    """Run ``work`` on ``connection``'s own thread in one hop (see ``_Direct``)."""

    def run() -> _T:
        return _drive(work(_Direct(connection._conn)))

    # aiosqlite has no public call for "run this on the connection's thread"; ``_execute``
    # is how its own methods do it (0.17 to 0.22), and the contract suite runs through it.
    execute: Callable[[Callable[[], _T]], Awaitable[_T]] = connection._execute
    return await execute(run)


def _open_writer(path: Path, synchronous: str) -> sqlite3.Connection:
    """The connection every write goes through (see ``SqliteGameRepository._commit``). It
    never waits for a lock by itself: a batch that finds the database locked by another
    process waits on the commit thread instead (``_WAIT_FOR_LOCK``)."""
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        writer.execute("PRAGMA busy_timeout = 0")
        writer.execute("PRAGMA foreign_keys = ON")
        writer.execute(f"PRAGMA synchronous = {synchronous}")
    except BaseException:
        writer.close()
        raise
    return writer


def _open_reader(path: Path) -> sqlite3.Connection:
    """The query-only connection for inline reads. It never waits for a lock (that would
    stall the event loop): a busy read goes to the connection's thread instead."""
    reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        reader.execute("PRAGMA busy_timeout = 0")
        reader.execute("PRAGMA query_only = ON")
    except BaseException:
        reader.close()
        raise
    return reader


def _in_snapshot(work: Callable[[_Db], Awaitable[_T]]) -> Callable[[_Db], Awaitable[_T]]:
    """``work`` inside one read transaction."""

    async def read(db: _Db) -> _T:
        await db.execute_fetchall("BEGIN")
        try:
            return await work(db)
        finally:
            await db.execute_fetchall("ROLLBACK")

    return read


# --------------------------------------------------------------------------------------------
# Migrations


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered schema step from ``storage/migrations``."""

    version: int  # the user_version after it
    name: str  # the file name
    sql: str

    @property
    def script(self) -> str:
        """The step as one transaction that also records its version (for ``executescript``)."""
        return f"BEGIN IMMEDIATE;\n{self.sql}\nPRAGMA user_version = {self.version};\nCOMMIT;\n"

    @property
    def statements(self) -> list[str]:
        """The step's SQL split into complete statements (triggers stay whole)."""
        statements, pending = [], ""
        for line in self.sql.splitlines(keepends=True):
            pending += line
            if sqlite3.complete_statement(pending):
                statements.append(pending.strip())
                pending = ""
        if pending.strip() and not all(
            part.strip().startswith("--") or not part.strip() for part in pending.splitlines()
        ):
            raise ValueError(f"{self.name}: incomplete statement at the end")
        return statements


def _load_migrations() -> tuple[Migration, ...]:
    folder = importlib.resources.files("storage") / "migrations"
    found = []
    for entry in folder.iterdir():
        match = re.fullmatch(r"(\d{4})_\w+\.sql", entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    # Numbers are reserved per change being written in parallel, so one may be missing for a
    # while; each file still applies once, in order, and user_version names the last applied.
    versions = [m.version for m in found]
    if not versions or versions[0] != 1 or len(set(versions)) != len(versions):
        raise RuntimeError(f"migrations must be numbered from 1, once each: {versions}")
    return tuple(found)


MIGRATIONS = _load_migrations()
LATEST_VERSION = MIGRATIONS[-1].version


# --------------------------------------------------------------------------------------------
# Conversions (the only place rows become records)


def _to_db_time(value: datetime | None) -> int | None:
    if value is None:
        return None
    if value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}")
    return (value - _EPOCH) // _MICROSECOND


def _from_db_time(value: int | None) -> datetime | None:
    return None if value is None else _EPOCH + value * _MICROSECOND


def _time(value: int) -> datetime:
    return _EPOCH + value * _MICROSECOND


@lru_cache(maxsize=4096)
def _player(user_id: int | None, level: str | None) -> Player:
    # Players are frozen: the seats of the games being played are made once, not per read.
    return Player(user_id=user_id, level=level)


_E = TypeVar("_E", bound=enum.Enum)


def _members(kind: type[_E]) -> Callable[[Any], _E]:
    """``kind(value)`` for a stored value, by a dict lookup (an enum's own call costs a
    microsecond, and every game read makes four of them); unknown values still go to
    ``kind`` to be refused as before."""
    by_value = {member.value: member for member in kind}

    def member(value: Any) -> _E:
        found = by_value.get(value)
        return kind(value) if found is None else found

    return member


_GAME = _members(Game)
_RULE = _members(Rule)
_STATUS = _members(GameStatus)
_TERMINATION = _members(Termination)
_COLOR = _members(Color)


GAME_COLUMNS = (
    "id, guild_id, channel_id, game, width, height, rule, black_user_id, black_level,"
    " white_user_id, white_level, status, termination, winner, rated, message_channel_id,"
    " message_id, deadline, warning_sent, turn_seconds, created_by, created_at, updated_at,"
    " finished_at, ply, version, ended_by, end_reason, parent_channel_id"
)


def _game(row: Sequence[Any]) -> GameRecord:
    termination, winner = row[12], row[13]
    return GameRecord(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        game=_GAME(row[3]),
        width=row[4],
        height=row[5],
        rule=_RULE(row[6]),
        black=_player(row[7], row[8]),
        white=_player(row[9], row[10]),
        status=_STATUS(row[11]),
        outcome=None
        if termination is None
        else Outcome(_TERMINATION(termination), None if winner is None else _COLOR(winner)),
        rated=bool(row[14]),
        message_channel_id=row[15],
        message_id=row[16],
        deadline=_from_db_time(row[17]),
        warning_sent=bool(row[18]),
        turn_seconds=row[19],
        created_by=row[20],
        created_at=_time(row[21]),
        updated_at=_time(row[22]),
        finished_at=_from_db_time(row[23]),
        ply=row[24],
        version=row[25],
        ended_by=row[26],
        end_reason=row[27],
        parent_channel_id=row[28],
    )


MOVE_COLUMNS = "game_id, ply, x, y, color, made_at, seq"


def _move(row: Sequence[Any]) -> MoveRecord:
    return MoveRecord(
        game_id=row[0],
        ply=row[1],
        point=Point(row[2], row[3]),
        color=Color(row[4]),
        made_at=_time(row[5]),
        seq=row[6],
    )


STATS_COLUMNS = (
    "scope, game, user_id, mu, sigma, wins_black, wins_white, losses_black, losses_white,"
    " draws_black, draws_white, streak, best_streak, updated_at"
)


def _stats(row: Sequence[Any]) -> PlayerStats:
    return PlayerStats(
        guild_id=None if row[0] == _OVERALL else row[0],
        game=Game(row[1]),
        user_id=row[2],
        mu=row[3],
        sigma=row[4],
        wins_black=row[5],
        wins_white=row[6],
        losses_black=row[7],
        losses_white=row[8],
        draws_black=row[9],
        draws_white=row[10],
        streak=row[11],
        best_streak=row[12],
        updated_at=_time(row[13]),
    )


# --------------------------------------------------------------------------------------------
# Statements. Named here so a test can check each query the bot depends on uses an index.

SQL_INSERT_GAME = f"""
INSERT INTO games (guild_id, channel_id, game, width, height, rule, black_user_id, black_level,
    white_user_id, white_level, status, rated, deadline, turn_seconds, created_by, created_at,
    updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING {GAME_COLUMNS}
"""
SQL_GET_GAME = f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?"
SQL_OPEN_GAME_IN_CHANNEL = (
    f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ? AND status IN ('pending', 'active')"
)
SQL_OPEN_GAMES = (
    f"SELECT {GAME_COLUMNS} FROM games WHERE status IN ('pending', 'active') ORDER BY id"
)
SQL_GAMES_DUE = f"""
SELECT {GAME_COLUMNS} FROM games
WHERE deadline IS NOT NULL AND deadline <= ?
ORDER BY deadline, id
"""
SQL_GAME_MOVES = f"SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = ? ORDER BY seq"
SQL_USER_GAMES = f"""
SELECT {GAME_COLUMNS} FROM (
    SELECT * FROM (
        SELECT * FROM games
        WHERE black_user_id = :user AND id < :before AND status = 'finished'
            AND (:guild IS NULL OR guild_id = :guild)
        ORDER BY id DESC LIMIT :limit)
    UNION
    SELECT * FROM (
        SELECT * FROM games
        WHERE white_user_id = :user AND id < :before AND status = 'finished'
            AND (:guild IS NULL OR guild_id = :guild)
        ORDER BY id DESC LIMIT :limit)
)
ORDER BY id DESC LIMIT :limit
"""
SQL_PLAYER_STATS = (
    f"SELECT {STATS_COLUMNS} FROM player_stats WHERE scope = ? AND game = ? AND user_id = ?"
)
SQL_LEADERBOARD = f"""
SELECT {STATS_COLUMNS} FROM player_stats
WHERE scope = ? AND game = ?
    AND wins_black + wins_white + losses_black + losses_white + draws_black + draws_white >= ?
ORDER BY ordinal DESC, user_id
LIMIT ? OFFSET ?
"""
SQL_UPSERT_STATS = f"""
INSERT OR REPLACE INTO player_stats ({STATS_COLUMNS}, ordinal)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
SQL_APPEND_MOVE = f"""
UPDATE games SET
    version = version + 1, ply = ply + 1, deadline = :deadline, warning_sent = 0,
    updated_at = :now, status = :status, termination = :termination, winner = :winner,
    finished_at = :finished_at
WHERE id = :id AND version = :version AND status = 'active' AND ply % 2 = :parity
RETURNING {GAME_COLUMNS}
"""
SQL_INSERT_MOVE = f"INSERT INTO moves ({MOVE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
SQL_TAKE_BACK = f"""
UPDATE games SET
    version = version + 1, ply = ply - :count, deadline = :deadline, warning_sent = 0,
    updated_at = :now
WHERE id = :id AND version = :version AND status = 'active' AND ply >= :count
RETURNING {GAME_COLUMNS}
"""
SQL_INSERT_TAKEBACK = (
    "INSERT INTO takebacks (game_id, seq, from_ply, to_ply, made_at) VALUES (?, ?, ?, ?, ?)"
)
SQL_FINISH = f"""
UPDATE games SET
    version = version + 1, status = 'finished', termination = :termination, winner = :winner,
    deadline = NULL, finished_at = :now, updated_at = :now, ended_by = :ended_by,
    end_reason = :end_reason
WHERE id = :id AND version = :version AND status = 'active'
RETURNING {GAME_COLUMNS}
"""
SQL_ACCEPT = f"""
UPDATE games SET version = version + 1, status = 'active', deadline = :deadline,
    warning_sent = 0, updated_at = :now
WHERE id = :id AND version = :version AND status = 'pending'
RETURNING {GAME_COLUMNS}
"""
SQL_CLOSE_CHALLENGE = f"""
UPDATE games SET version = version + 1, status = :status, deadline = NULL, finished_at = :now,
    updated_at = :now
WHERE id = :id AND version = :version AND status = 'pending'
RETURNING {GAME_COLUMNS}
"""
SQL_SET_DEADLINE = f"""
UPDATE games SET version = version + 1, deadline = :deadline, warning_sent = 0, updated_at = :now
WHERE id = :id AND version = :version AND status IN ('pending', 'active')
RETURNING {GAME_COLUMNS}
"""
SQL_MARK_WARNING = """
UPDATE games SET warning_sent = 1
WHERE id = :id AND version = :version AND status IN ('pending', 'active')
RETURNING id
"""
SQL_SET_MESSAGE = (
    "UPDATE games SET message_channel_id = ?, message_id = ? WHERE id = ? RETURNING id"
)
SQL_MOVE_GAME = """
UPDATE games SET channel_id = :channel, parent_channel_id = :parent
WHERE id = :id AND status IN ('pending', 'active')
RETURNING id
"""
SQL_SAVE_UNDO = """
INSERT OR REPLACE INTO undo_requests (game_id, requester, responder, version, moves, made_at)
VALUES (?, ?, ?, ?, ?, ?)
"""
SQL_GET_UNDO = (
    "SELECT game_id, requester, responder, version, moves, made_at FROM undo_requests"
    " WHERE game_id = ?"
)
SQL_DROP_UNDO = "DELETE FROM undo_requests WHERE game_id = ?"
SQL_SAVE_REVIEW = "INSERT OR REPLACE INTO game_reviews (game_id, data, made_at) VALUES (?, ?, ?)"
SQL_GET_REVIEW = "SELECT data FROM game_reviews WHERE game_id = ?"
SQL_SET_DAILY = """
INSERT INTO daily_puzzles (guild_id, channel_id) VALUES (?, ?)
ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id
"""
SQL_STOP_DAILY = "DELETE FROM daily_puzzles WHERE guild_id = ?"
SQL_DAILY_CHANNELS = "SELECT guild_id, channel_id, last_day FROM daily_puzzles ORDER BY guild_id"
SQL_CLAIM_DAILY = """
UPDATE daily_puzzles SET last_day = :day
WHERE guild_id = :guild AND (last_day IS NULL OR last_day != :day)
RETURNING guild_id
"""
SQL_GUILD_REVIEWS = """
SELECT r.game_id, r.data FROM game_reviews r JOIN games g ON g.id = r.game_id
WHERE g.guild_id = ? ORDER BY r.made_at DESC, r.game_id DESC LIMIT ?
"""
_PUZZLE_COLUMNS = "guild_id, user_id, rating, streak, best_streak, solved, failed, attempt"
SQL_GET_PUZZLE_PLAYER = (
    f"SELECT {_PUZZLE_COLUMNS} FROM puzzle_players WHERE guild_id = ? AND user_id = ?"
)
SQL_SAVE_PUZZLE_PLAYER = (
    f"INSERT OR REPLACE INTO puzzle_players ({_PUZZLE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
SQL_PUZZLES_SEEN = "SELECT puzzle_key FROM puzzle_seen WHERE guild_id = ? AND user_id = ?"
SQL_MARK_PUZZLE_SEEN = (
    "INSERT OR IGNORE INTO puzzle_seen (guild_id, user_id, puzzle_key) VALUES (?, ?, ?)"
)
SQL_UNSEARCHED_GAMES = """
SELECT g.id FROM games g
WHERE g.status = 'finished' AND g.game = 'gomoku' AND g.guild_id IS NOT NULL AND g.ply > 0
    AND NOT EXISTS (SELECT 1 FROM game_puzzles p WHERE p.game_id = g.id)
ORDER BY g.finished_at DESC, g.id DESC LIMIT ?
"""
SQL_SAVE_GAME_PUZZLES = (
    "INSERT OR REPLACE INTO game_puzzles (game_id, data, made_at) VALUES (?, ?, ?)"
)
SQL_GUILD_GAME_PUZZLES = """
SELECT p.game_id, p.data FROM game_puzzles p JOIN games g ON g.id = p.game_id
WHERE g.guild_id = ? ORDER BY p.game_id DESC LIMIT ?
"""
SQL_PUZZLE_LEADERBOARD = f"""
SELECT {_PUZZLE_COLUMNS} FROM puzzle_players
WHERE guild_id = ? AND solved + failed > 0
ORDER BY rating DESC, solved DESC, user_id
LIMIT ?
"""
# One row per (kind, rule, opponent level, result) of a user's finished games, as either
# colour; the two halves use the per-colour indexes.
SQL_USER_RESULTS = """
SELECT game, rule, opponent_level, result, count(*) FROM (
    SELECT game, rule, white_level AS opponent_level,
        CASE WHEN winner = 'black' THEN 'wins' WHEN winner = 'white' THEN 'losses'
             WHEN termination = 'draw' THEN 'draws' ELSE 'unfinished' END AS result
    FROM games
    WHERE black_user_id = :user AND status = 'finished' AND (:guild IS NULL OR guild_id = :guild)
    UNION ALL
    SELECT game, rule, black_level,
        CASE WHEN winner = 'white' THEN 'wins' WHEN winner = 'black' THEN 'losses'
             WHEN termination = 'draw' THEN 'draws' ELSE 'unfinished' END
    FROM games
    WHERE white_user_id = :user AND status = 'finished' AND (:guild IS NULL OR guild_id = :guild)
        AND black_user_id IS NOT :user
)
GROUP BY game, rule, opponent_level, result
"""
SQL_USER_GAME_IDS = """
SELECT id FROM games WHERE black_user_id = :user
UNION SELECT id FROM games WHERE white_user_id = :user
UNION SELECT id FROM games WHERE created_by = :user
UNION SELECT id FROM games WHERE ended_by = :user
"""
SQL_ABANDON_USER_GAMES = """
UPDATE games SET
    version = version + 1,
    status = CASE status WHEN 'active' THEN 'finished' ELSE 'cancelled' END,
    termination = CASE status WHEN 'active' THEN 'abandoned' END,
    winner = NULL, deadline = NULL, finished_at = :now, updated_at = :now
WHERE status IN ('pending', 'active') AND (black_user_id = :user OR white_user_id = :user)
"""
SQL_FORGET_USER = (
    "UPDATE games SET black_user_id = NULL WHERE black_user_id = :user",
    "UPDATE games SET white_user_id = NULL WHERE white_user_id = :user",
    "UPDATE games SET created_by = NULL WHERE created_by = :user",
    "UPDATE games SET ended_by = NULL WHERE ended_by = :user",
    "DELETE FROM player_stats WHERE user_id = :user",
    "DELETE FROM undo_requests WHERE requester = :user",
    "DELETE FROM undo_requests WHERE responder = :user",
    "DELETE FROM user_settings WHERE user_id = :user",
    "DELETE FROM user_languages WHERE user_id = :user",
    "DELETE FROM pending_replies WHERE user_id = :user",
    "DELETE FROM puzzle_players WHERE user_id = :user",
    "DELETE FROM puzzle_seen WHERE user_id = :user",
)
SQL_GUILD_SETTINGS = """
SELECT default_rule, turn_seconds, board_style, use_threads, moderator_role_id,
    idle_human_seconds, idle_ai_seconds, turn_pings, ai_clock
FROM guild_settings WHERE guild_id = ?
"""
SQL_GUILD_CHANNELS = "SELECT channel_id FROM guild_allowed_channels WHERE guild_id = ?"
SQL_SAVE_GUILD_SETTINGS = """
INSERT INTO guild_settings (guild_id, default_rule, turn_seconds, board_style, updated_at,
    use_threads, moderator_role_id, idle_human_seconds, idle_ai_seconds, turn_pings, ai_clock)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (guild_id) DO UPDATE SET default_rule = excluded.default_rule,
    turn_seconds = excluded.turn_seconds, board_style = excluded.board_style,
    updated_at = excluded.updated_at, use_threads = excluded.use_threads,
    moderator_role_id = excluded.moderator_role_id,
    idle_human_seconds = excluded.idle_human_seconds, idle_ai_seconds = excluded.idle_ai_seconds,
    turn_pings = excluded.turn_pings, ai_clock = excluded.ai_clock
"""
SQL_SET_OPEN_TURN_SECONDS = """
UPDATE games SET turn_seconds = CASE
        WHEN :ai_games OR (black_level IS NULL AND white_level IS NULL) THEN :seconds
    END
WHERE guild_id = :guild AND status IN ('pending', 'active')
    AND turn_seconds IS NOT CASE
        WHEN :ai_games OR (black_level IS NULL AND white_level IS NULL) THEN :seconds
    END
"""
SQL_USER_VIEW = "SELECT board_view FROM user_settings WHERE user_id = ?"
SQL_SAVE_USER_VIEW = """
INSERT INTO user_settings (user_id, board_view, updated_at) VALUES (?, ?, ?)
ON CONFLICT (user_id) DO UPDATE SET board_view = excluded.board_view,
    updated_at = excluded.updated_at
"""
SQL_SAVE_PENDING_REPLY = """
INSERT OR REPLACE INTO pending_replies
    (token, game_id, application_id, message_id, user_id, created_at)
VALUES (?, ?, ?, ?, ?, ?)
"""
SQL_PENDING_REPLIES = (
    "SELECT token, game_id, application_id, message_id, user_id, created_at"
    " FROM pending_replies ORDER BY created_at, token"
)
SQL_DROP_PENDING_REPLY = "DELETE FROM pending_replies WHERE token = ?"
SQL_TURN_PING = "SELECT channel_id, message_id, version FROM turn_pings WHERE game_id = ?"
SQL_SAVE_TURN_PING = """
INSERT INTO turn_pings (game_id, channel_id, message_id, version) VALUES (?, ?, ?, ?)
ON CONFLICT (game_id) DO UPDATE SET channel_id = excluded.channel_id,
    message_id = excluded.message_id, version = excluded.version
"""
SQL_DROP_TURN_PING = "DELETE FROM turn_pings WHERE game_id = ?"
SQL_INSERT_OPENING = "INSERT INTO game_openings (game_id, rule) VALUES (?, ?)"
SQL_GAME_OPENING = "SELECT rule, steps FROM game_openings WHERE game_id = ?"
SQL_OPENING_STEP = f"""
UPDATE games SET
    version = version + 1, black_user_id = :black_user, black_level = :black_level,
    white_user_id = :white_user, white_level = :white_level, deadline = :deadline,
    warning_sent = 0, updated_at = :now
WHERE id = :id AND version = :version AND status = 'active'
    AND EXISTS (SELECT 1 FROM game_openings WHERE game_id = :id)
RETURNING {GAME_COLUMNS}
"""
SQL_APPEND_OPENING_STEP = """
UPDATE game_openings SET steps = ltrim(steps || ' ' || :step) WHERE game_id = :id
"""
SQL_GUILD_OPENING = "SELECT rated_opening FROM guild_openings WHERE guild_id = ?"
SQL_SAVE_GUILD_OPENING = """
INSERT INTO guild_openings (guild_id, rated_opening) VALUES (?, ?)
ON CONFLICT (guild_id) DO UPDATE SET rated_opening = excluded.rated_opening
"""
SQL_CLEAR_GUILD_OPENING = "DELETE FROM guild_openings WHERE guild_id = ?"
SQL_GUILD_LANGUAGE = "SELECT language FROM guild_languages WHERE guild_id = ?"
SQL_SAVE_GUILD_LANGUAGE = """
INSERT INTO guild_languages (guild_id, language) VALUES (?, ?)
ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language
"""
SQL_CLEAR_GUILD_LANGUAGE = "DELETE FROM guild_languages WHERE guild_id = ?"
SQL_USER_LANGUAGE = "SELECT language FROM user_languages WHERE user_id = ?"
SQL_SAVE_USER_LANGUAGE = """
INSERT INTO user_languages (user_id, language, updated_at) VALUES (?, ?, ?)
ON CONFLICT (user_id) DO UPDATE SET language = excluded.language,
    updated_at = excluded.updated_at
"""
SQL_CLEAR_USER_LANGUAGE = "DELETE FROM user_languages WHERE user_id = ?"
SQL_CLEAR_GUILD_CHANNELS = "DELETE FROM guild_allowed_channels WHERE guild_id = ?"
SQL_ADD_GUILD_CHANNEL = "INSERT INTO guild_allowed_channels (guild_id, channel_id) VALUES (?, ?)"

# The queries the bot runs on hot paths, with example parameters; tests check their plans.
INDEXED_QUERIES: dict[str, tuple[str, Sequence[Any] | dict[str, Any]]] = {
    "game by id": (SQL_GET_GAME, (1,)),
    "open game of a channel": (SQL_OPEN_GAME_IN_CHANNEL, (1,)),
    "games to resume": (SQL_OPEN_GAMES, ()),
    "due deadlines": (SQL_GAMES_DUE, (0,)),
    "moves of a game": (SQL_GAME_MOVES, (1,)),
    "a player's recent games": (
        SQL_USER_GAMES,
        {"user": 1, "before": 10, "guild": None, "limit": 10},
    ),
    "a player's stats": (SQL_PLAYER_STATS, (0, "gomoku", 1)),
    "a leaderboard": (SQL_LEADERBOARD, (0, "gomoku", 0, 10, 0)),
    "a player's results": (SQL_USER_RESULTS, {"user": 1, "guild": None}),
}


# --------------------------------------------------------------------------------------------
# Opening


async def _scalar(db: _Db, sql: str) -> Any:
    rows = list(await db.execute_fetchall(sql))
    return rows[0][0]


async def _check_identity(db: _Db, path: Path) -> bool:
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


async def _check_integrity(db: _Db, path: Path) -> None:
    """``PRAGMA quick_check``: damaged pages would answer errors at random later, and every
    write would spread the damage."""
    rows = list(await db.execute_fetchall("PRAGMA quick_check(1)"))
    first = str(rows[0][0]) if rows else "no answer"
    if first != "ok":
        # "*** in database main ***\nPage 5: btreeInitPage() returns error code 11": one line
        raise CorruptDatabaseError(path, " ".join(first.split())[:200])


async def _check_writable(db: _Db) -> None:
    """Write one page for real: a read-only file or filesystem and a full disk show up now,
    at start, rather than as refused moves later. Rewriting ``user_version`` with its own
    value changes nothing but still commits the header page (a WAL frame)."""
    version = await _scalar(db, "PRAGMA user_version")
    await db.execute_fetchall("BEGIN IMMEDIATE")
    try:
        await db.execute_fetchall(f"PRAGMA user_version = {int(version)}")
        await db.execute_fetchall("COMMIT")
    except BaseException:
        if db.in_transaction:
            await db.execute_fetchall("ROLLBACK")
        raise


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
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


def _is_locked(error: sqlite3.Error) -> bool:
    return getattr(error, "sqlite_errorcode", 0) & 0xFF in (_BUSY, _LOCKED)


def _classify(path: Path, error: sqlite3.Error) -> DatabaseRefusedError | None:
    """The start-up fault behind a SQLite error (by its primary result code); None for an
    error that says nothing about the file (SQL that fails, a misuse)."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    detail = str(error)
    if code == _READONLY:
        return ReadOnlyDatabaseError(path, detail)
    if code == _FULL:
        return DiskFullError(path, detail)
    if code == _CORRUPT:
        return CorruptDatabaseError(path, detail)
    if code == _NOTADB:
        # A SQLite header on a file SQLite can't read is damage; anything else is a stranger.
        try:
            with path.open("rb") as file:
                header = file.read(len(_SQLITE_MAGIC))
        except OSError:
            header = b""
        if header == _SQLITE_MAGIC:
            return CorruptDatabaseError(path, detail)
        return ForeignDatabaseError(path, detail)
    if code == _CANTOPEN:
        return ReadOnlyDatabaseError(path, detail)
    if code == _IOERR:
        if _free_bytes(path.parent) < _LOW_SPACE:
            return DiskFullError(path, detail)
        return DatabaseRefusedError(path, f"{getattr(error, 'sqlite_errorname', 'I/O')}: {detail}")
    return None


_LOW_SPACE = 1 << 20  # an I/O error with less than this free is a full disk


def _free_bytes(folder: Path) -> int:
    try:
        stats = os.statvfs(folder)
    except OSError:
        return 1 << 62
    return stats.f_bavail * stats.f_frsize


async def _migrate(db: _Db, path: Path) -> None:
    """Apply the missing migrations, one transaction each. The version is read again inside
    each transaction, so two processes opening a fresh file at once cannot both apply a step."""
    while True:
        await db.execute_fetchall("BEGIN IMMEDIATE")
        try:
            version = await _scalar(db, "PRAGMA user_version")
            if version > LATEST_VERSION:
                raise DatabaseTooNewError(path, version, LATEST_VERSION)
            if version < LATEST_VERSION:
                migration = next(m for m in MIGRATIONS if m.version > version)
                for statement in migration.statements:
                    await db.execute_fetchall(statement)
                await db.execute_fetchall(f"PRAGMA user_version = {migration.version}")
            await db.execute_fetchall("COMMIT")
        except BaseException:
            if db.in_transaction:
                await db.execute_fetchall("ROLLBACK")
            raise
        if version == LATEST_VERSION:
            return


# --------------------------------------------------------------------------------------------
# The repository


@dataclass(frozen=True, slots=True)
class _Write:
    work: Callable[[_Db], Awaitable[Any]]
    future: asyncio.Future[Any]


class SqliteGameRepository:
    """The durable ``GameRepository``. Open with ``async with SqliteGameRepository.open(p)``
    (or ``await SqliteGameRepository.connect(p)`` … ``await repo.close()``)."""

    def __init__(
        self,
        db: _Connection,
        path: Path,
        clock: Callable[[], datetime],
        writer: sqlite3.Connection,
        reader: sqlite3.Connection | None = None,
    ) -> None:
        """Use ``open``/``connect``; this only wires already prepared connections: aiosqlite's
        for reads on its thread, the writer, and the query-only one for inline reads, if any."""
        self._db = db
        self._writes = writer
        self._reader = reader
        # COMMIT (the fsync) and batches that must wait for a lock run here, off the loop.
        self._committer = ThreadPoolExecutor(1, thread_name_prefix=f"sqlite commit {path.name}")
        self._path = path
        self._clock = clock
        self._pending: deque[_Write] = deque()  # writes waiting for a group commit
        self._wake = asyncio.Event()
        self._closing = False  # no new writes
        self._closed = False  # the connection is closed
        self._writer = asyncio.create_task(self._write_loop(), name=f"sqlite writer {path}")

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
                return await cls._connect_once(path, clock, synchronous, lock_wait_s)
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
    async def _connect_once(
        cls,
        path: Path,
        clock: Callable[[], datetime],
        synchronous: Literal["FULL", "NORMAL"],
        lock_wait_s: float,
    ) -> Self:
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            # Connection settings write nothing; the identity check reads only. The journal
            # mode is the first write to the file, so it waits until the file is known ours.
            # While opening, a lock is waited on in short steps (connect retries them).
            step_ms = max(1, min(_BUSY_TIMEOUT_MS, int(lock_wait_s * 1000) // 4))
            await db.execute_fetchall(f"PRAGMA busy_timeout = {step_ms}")
            await db.execute_fetchall("PRAGMA foreign_keys = ON")
            new = await _check_identity(db, path)
            if not new:
                await _check_integrity(db, path)
            await db.execute_fetchall("PRAGMA journal_mode = WAL")
            await db.execute_fetchall(f"PRAGMA synchronous = {synchronous}")
            await _migrate(db, path)
            await _check_writable(db)
            await db.execute_fetchall(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            writer = _open_writer(path, synchronous)
            try:
                reader = _open_reader(path)
            except BaseException:
                writer.close()
                raise
        except BaseException:
            await db.close()
            raise
        return cls(db, path, clock, writer, reader)

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        path: str | PathLike[str],
        *,
        clock: Callable[[], datetime] = utc_now,
        synchronous: Literal["FULL", "NORMAL"] = "FULL",
        lock_wait_s: float | None = None,
    ) -> AsyncIterator[Self]:
        """``connect`` as an async context manager that closes the repository on exit."""
        repo = await cls.connect(
            path,
            clock=clock,
            synchronous=synchronous,
            lock_wait_s=lock_wait_s,
        )
        try:
            yield repo
        finally:
            await repo.close()

    async def close(self) -> None:
        """Finish the writes already asked for, then close the connection."""
        if self._closed:
            return
        self._closing = True
        self._wake.set()
        await asyncio.wait([self._writer])  # its own failure, if any, was reported to writers
        if not self._closed:
            self._closed = True
            self._committer.shutdown()  # idle: the writer is done
            self._writes.close()
            if self._reader is not None:
                self._reader.close()
            await self._db.close()  # after the reads already queued on its thread

    async def checkpoint(self) -> int:
        """Fold the WAL back into the main file and return the database's size in bytes."""

        async def work(db: _Db) -> int:
            await db.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)")
            return int(
                await _scalar(db, "PRAGMA page_count") * await _scalar(db, "PRAGMA page_size")
            )

        # Between transactions (a checkpoint cannot run inside one): the thread runs one
        # unit of work at a time.
        return await _in_thread(self._db, work)

    # --- plumbing -----------------------------------------------------------------------
    #
    # Writes are group-committed: callers queue their work and one writer task runs every
    # write waiting at that moment inside one transaction, then commits once; nobody hears
    # back before the commit is durable. Under load this turns one fsync per move into one
    # per batch. A refused write (a StorageError: lost compare-and-set, busy channel, ...)
    # by construction has written nothing, so it just reports its refusal; any other failure
    # rolls the batch back and its writes are retried one by one. Reads run on aiosqlite's
    # connection (or inline on the query-only one), which sees only committed work.
    #
    # A batch's statements run on the event loop, through the writer connection: they only
    # touch pages in memory, some 50 µs a write. Only COMMIT, which waits for the disk, goes to
    # the commit thread. Running the whole batch on a thread cost a GIL hand-over for every
    # statement (each releases the GIL and must get it back from a busy loop, up to the 0.5 ms
    # switch interval): at 500 games a move's write waited 41 ms at p50 and 270 ms at p95.

    async def _run(self, work: Callable[[_Db], Awaitable[_T]]) -> _T:
        """Queue a write for the next group commit and wait until it is durable."""
        if self._closing:
            raise RuntimeError("the repository is closed")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        # A cancelled caller does not stop its write; retrieve the outcome so that asyncio
        # does not log an error nobody was waiting for.
        future.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._pending.append(_Write(work, future))
        self._wake.set()
        # Not shielded (a shield costs a turn of the loop): a cancelled caller's future is
        # cancelled, its write still runs with the batch.
        result: _T = await future
        return result

    async def _read(
        self,
        work: Callable[[_Db], Awaitable[_T]],
        *,
        snapshot: bool = False,
        inline: bool = False,
    ) -> _T:
        """Run a read on the connection's thread; ``snapshot`` wraps several statements in
        one transaction so they agree with each other even if another process writes.
        ``inline``: a small read (a few rows by key) runs at once on the event loop through
        the query-only connection (see the module doc)."""
        if self._closed:
            raise RuntimeError("the repository is closed")
        if snapshot:
            work = _in_snapshot(work)
        if inline and self._reader is not None:
            try:
                found = _drive(work(_Direct(self._reader)))
            except sqlite3.OperationalError as error:
                if not _is_locked(error):
                    raise
                if self._reader.in_transaction:
                    self._reader.rollback()
                # Busy (WAL recovery, a checkpoint's moment): wait on the thread instead.
            else:
                # Still a turn of the loop, as a read always was: a caller polling the store
                # in a loop must let the tasks it waits for run.
                await asyncio.sleep(0)
                return found
        # Shielded: a cancelled caller's read still runs whole on the thread.
        return await asyncio.shield(_in_thread(self._db, work))

    async def _write_loop(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._pending:
                    batch: list[_Write] = []
                    while self._pending and len(batch) < _MAX_BATCH:
                        batch.append(self._pending.popleft())
                    if await self._commit(batch) is not None and len(batch) > 1:
                        # Something other than a refusal failed, perhaps after writing: the
                        # whole batch was rolled back. Run each write alone so that only the
                        # culprit fails.
                        for write in batch:
                            await self._commit([write])
                if self._closing:
                    return
        except BaseException:
            # The writer is gone (cancelled with its loop, or a bug): nobody may wait forever.
            # (A batch already handed to the commit thread is still settled by it.)
            self._closing = True
            while self._pending:
                write = self._pending.popleft()
                if not write.future.done():
                    write.future.set_exception(RuntimeError("the repository's writer stopped"))
            raise

    async def _commit(self, batch: list[_Write]) -> BaseException | None:
        """Run ``batch`` in one transaction and commit it. Its writers hear their result or
        refusal, unless the whole batch rolled back (returns the error; a batch of one write
        hears it). The statements run here, on the loop; COMMIT on the commit thread. A
        database locked by another process (the loop must not wait for it) sends the whole
        batch to the commit thread."""
        db = _Direct(self._writes)
        try:
            outcomes = _drive(self._statements(db, batch))
        except BaseException as error:
            if self._writes.in_transaction:
                self._writes.rollback()
            if not isinstance(error, Exception):
                raise
            if not (isinstance(error, sqlite3.OperationalError) and _is_locked(error)):
                self._report(batch, [], error)
                return error
            return await self._on_commit_thread(batch, lambda: self._wait_for_lock(batch))
        return await self._on_commit_thread(batch, lambda: self._finish(outcomes))

    async def _on_commit_thread(
        self,
        batch: list[_Write],
        job: Callable[[], tuple[list[tuple[bool, Any]], BaseException | None]],
    ) -> BaseException | None:
        """Run ``job`` on the commit thread; its writers hear back as soon as it is done,
        in the same turn of the loop as the writer (which waits for nothing else)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[BaseException | None] = loop.create_future()

        def finished(outcomes: list[tuple[bool, Any]], failure: BaseException | None) -> None:
            # A stopped writer (``done`` cancelled) retries nothing: all hear the failure.
            self._report(batch, outcomes, failure, alone=done.cancelled())
            if not done.done():
                done.set_result(failure)

        def run() -> None:
            try:
                outcome = job()
            except BaseException as error:  # a bug: its writers must still hear of it
                outcome = ([], error)
            with suppress(RuntimeError):  # the loop is closed: nobody is left to tell
                loop.call_soon_threadsafe(finished, *outcome)

        self._committer.submit(run)
        return await done

    def _report(
        self,
        batch: list[_Write],
        outcomes: list[tuple[bool, Any]],
        failure: BaseException | None,
        *,
        alone: bool = False,
    ) -> None:
        """Tell ``batch``'s writers how it ended, unless it failed whole and its writes are
        to be tried one by one (``alone``: they won't be)."""
        if failure is None or len(batch) == 1 or alone:
            self._settle(batch, outcomes, failure)

    def _finish(
        self, outcomes: list[tuple[bool, Any]]
    ) -> tuple[list[tuple[bool, Any]], BaseException | None]:
        """On the commit thread: commit the writer's open transaction (or roll it back)."""
        try:
            self._writes.execute("COMMIT")
        except Exception as error:
            if self._writes.in_transaction:
                self._writes.rollback()
            return [], error
        return outcomes, None

    def _wait_for_lock(
        self, batch: list[_Write]
    ) -> tuple[list[tuple[bool, Any]], BaseException | None]:
        """On the commit thread: the whole batch, waiting for another process's lock as
        long as any statement would (``_BUSY_TIMEOUT_MS``)."""
        self._writes.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        try:
            try:
                outcomes = _drive(self._statements(_Direct(self._writes), batch))
            except Exception as error:
                if self._writes.in_transaction:
                    self._writes.rollback()
                return [], error
            return self._finish(outcomes)
        finally:
            self._writes.execute("PRAGMA busy_timeout = 0")

    @staticmethod
    async def _statements(db: _Db, batch: list[_Write]) -> list[tuple[bool, Any]]:
        """``BEGIN IMMEDIATE`` and each write of ``batch``: its result or its refusal. The
        transaction is left open for the commit."""
        await db.execute_fetchall("BEGIN IMMEDIATE")
        outcomes: list[tuple[bool, Any]] = []
        for write in batch:
            try:
                outcomes.append((True, await write.work(db)))
            except StorageError as refused:
                # Every write checks before it changes anything, so a refusal (a lost
                # compare-and-set, a busy channel...) has written nothing to undo.
                outcomes.append((False, refused))
        return outcomes

    @staticmethod
    def _settle(
        batch: list[_Write], outcomes: list[tuple[bool, Any]], failure: BaseException | None
    ) -> None:
        for write, (ok, value) in zip(
            batch, outcomes or [(False, failure)] * len(batch), strict=True
        ):
            if write.future.done():
                continue
            if ok:
                write.future.set_result(value)
            else:
                write.future.set_exception(value)

    def _now(self) -> int:
        now = _to_db_time(self._clock())
        assert now is not None
        return now

    @staticmethod
    async def _rows(db: _Db, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        return list(await db.execute_fetchall(sql, params))

    async def _cas_failed(self, db: _Db, game_id: int, expected_version: int) -> GameRecord:
        """Why a compare-and-set matched no row: raise the matching error, or return the
        game when version and existence were fine (the caller then checks status/order)."""
        rows = await self._rows(db, SQL_GET_GAME, (game_id,))
        if not rows:
            raise GameNotFoundError(game_id)
        game = _game(rows[0])
        if game.version != expected_version:
            raise VersionConflictError(game_id, expected_version, game.version)
        return game

    # --- games --------------------------------------------------------------------------

    async def create_game(self, new: NewGame) -> GameRecord:
        """Store a new game or challenge (see ``GameRepository.create_game``)."""

        async def work(db: _Db) -> GameRecord:
            now = self._now()
            params = (
                new.guild_id,
                new.channel_id,
                new.game.value,
                new.width,
                new.height,
                new.rule.value,
                new.black.user_id,
                new.black.level,
                new.white.user_id,
                new.white.level,
                new.status.value,
                int(new.rated),
                _to_db_time(new.deadline),
                new.turn_seconds,
                new.created_by,
                now,
                now,
            )
            try:
                rows = await self._rows(db, SQL_INSERT_GAME, params)
            except sqlite3.IntegrityError as error:
                existing = await self._rows(db, SQL_OPEN_GAME_IN_CHANNEL, (new.channel_id,))
                if not existing:
                    raise
                raise ChannelBusyError(new.channel_id, existing[0][0]) from error
            game = _game(rows[0])
            if new.opening is not None:
                await self._rows(db, SQL_INSERT_OPENING, (game.id, new.opening))
            return game

        return await self._run(work)

    async def get_game(self, game_id: int) -> GameRecord:
        """The game with this id."""

        async def work(db: _Db) -> GameRecord:
            rows = await self._rows(db, SQL_GET_GAME, (game_id,))
            if not rows:
                raise GameNotFoundError(game_id)
            return _game(rows[0])

        return await self._read(work, inline=True)

    async def load_game(self, game_id: int) -> GameSnapshot:
        """The game and its live moves, read in one transaction."""

        async def work(db: _Db) -> GameSnapshot:
            rows = await self._rows(db, SQL_GET_GAME, (game_id,))
            if not rows:
                raise GameNotFoundError(game_id)
            game = _game(rows[0])
            history = [_move(row) for row in await self._rows(db, SQL_GAME_MOVES, (game_id,))]
            return GameSnapshot(game, live_moves(history, game.ply))

        return await self._read(work, snapshot=True, inline=True)

    async def open_game_in_channel(self, channel_id: int) -> GameRecord | None:
        """The pending or active game of a channel, if any."""

        async def work(db: _Db) -> GameRecord | None:
            rows = await self._rows(db, SQL_OPEN_GAME_IN_CHANNEL, (channel_id,))
            return _game(rows[0]) if rows else None

        return await self._read(work, inline=True)

    async def open_games(self) -> list[GameRecord]:
        """Every pending or active game, oldest first."""

        async def work(db: _Db) -> list[GameRecord]:
            return [_game(row) for row in await self._rows(db, SQL_OPEN_GAMES)]

        return await self._read(work)

    async def games_due(self, now: datetime) -> list[GameRecord]:
        """Open games whose deadline is at or before ``now``."""

        async def work(db: _Db) -> list[GameRecord]:
            rows = await self._rows(db, SQL_GAMES_DUE, (_to_db_time(now),))
            return [_game(row) for row in rows]

        return await self._read(work)

    async def _cas(
        self,
        db: _Db,
        sql: str,
        game_id: int,
        expected_version: int,
        params: dict[str, Any],
        allowed: Iterable[GameStatus],
    ) -> GameRecord:
        """Run a compare-and-set UPDATE … RETURNING; on no match raise the precise error."""
        rows = await self._rows(db, sql, {"id": game_id, "version": expected_version, **params})
        if rows:
            return _game(rows[0])
        game = await self._cas_failed(db, game_id, expected_version)
        if game.status not in allowed:
            raise InvalidStatusError(game_id, game.status)
        raise AssertionError(f"compare-and-set on game {game_id} matched nothing")

    async def accept_challenge(
        self, game_id: int, expected_version: int, *, deadline: datetime | None = None
    ) -> GameRecord:
        """PENDING -> ACTIVE."""
        params = {"deadline": _to_db_time(deadline), "now": self._now()}

        async def work(db: _Db) -> GameRecord:
            return await self._cas(
                db, SQL_ACCEPT, game_id, expected_version, params, [GameStatus.PENDING]
            )

        return await self._run(work)

    async def close_challenge(
        self, game_id: int, expected_version: int, status: GameStatus
    ) -> GameRecord:
        """PENDING -> DECLINED, CANCELLED or EXPIRED."""
        if status not in CHALLENGE_CLOSINGS:
            raise ValueError(f"a challenge closes as declined, cancelled or expired, not {status}")
        params = {"status": status.value, "now": self._now()}

        async def work(db: _Db) -> GameRecord:
            return await self._cas(
                db, SQL_CLOSE_CHALLENGE, game_id, expected_version, params, [GameStatus.PENDING]
            )

        return await self._run(work)

    async def append_move(
        self,
        game_id: int,
        expected_version: int,
        point: Point,
        color: Color,
        *,
        deadline: datetime | None = None,
        outcome: Outcome | None = None,
    ) -> GameRecord:
        """Append a stone (compare-and-set); a final move finishes the game atomically."""
        now = self._now()
        finished = outcome is not None
        params = {
            "deadline": None if finished else _to_db_time(deadline),
            "now": now,
            "status": GameStatus.FINISHED.value if finished else GameStatus.ACTIVE.value,
            "termination": outcome.termination.value if outcome else None,
            "winner": outcome.winner.value if outcome and outcome.winner else None,
            "finished_at": now if finished else None,
            "parity": 0 if color is Color.BLACK else 1,
        }

        async def work(db: _Db) -> GameRecord:
            rows = await self._rows(
                db, SQL_APPEND_MOVE, {"id": game_id, "version": expected_version, **params}
            )
            if not rows:
                game = await self._cas_failed(db, game_id, expected_version)
                if game.status is not GameStatus.ACTIVE:
                    raise InvalidStatusError(game_id, game.status)
                raise MoveOrderError(game_id, game.ply, "colour")
            game = _game(rows[0])
            await self._rows(
                db,
                SQL_INSERT_MOVE,
                (game_id, game.ply - 1, point.x, point.y, color.value, now, game.version),
            )
            if finished:
                await self._rate(db, game)
            return game

        return await self._run(work)

    async def game_opening(self, game_id: int) -> GameOpening | None:
        """The game's opening rule and steps, None without one."""

        async def work(db: _Db) -> GameOpening | None:
            rows = await self._rows(db, SQL_GAME_OPENING, (game_id,))
            if not rows:
                if not await self._rows(db, SQL_GET_GAME, (game_id,)):
                    raise GameNotFoundError(game_id)
                return None
            return GameOpening(game_id, rows[0][0], tuple(rows[0][1].split()))

        return await self._read(work, inline=True)

    async def record_opening_step(
        self,
        game_id: int,
        expected_version: int,
        step: str,
        *,
        black: Player,
        white: Player,
        deadline: datetime | None = None,
    ) -> GameRecord:
        """Append an opening step and seat the players (compare-and-set)."""
        params = {
            "black_user": black.user_id,
            "black_level": black.level,
            "white_user": white.user_id,
            "white_level": white.level,
            "deadline": _to_db_time(deadline),
            "now": self._now(),
        }

        async def work(db: _Db) -> GameRecord:
            rows = await self._rows(
                db, SQL_OPENING_STEP, {"id": game_id, "version": expected_version, **params}
            )
            if not rows:
                game = await self._cas_failed(db, game_id, expected_version)
                if game.status is not GameStatus.ACTIVE:
                    raise InvalidStatusError(game_id, game.status)
                raise ValueError(f"game {game_id} has no opening rule")
            await self._rows(db, SQL_APPEND_OPENING_STEP, {"id": game_id, "step": step})
            return _game(rows[0])

        return await self._run(work)

    async def take_back(
        self,
        game_id: int,
        expected_version: int,
        count: int = 1,
        *,
        deadline: datetime | None = None,
    ) -> GameRecord:
        """Take back the last ``count`` moves (compare-and-set); rows stay in the history."""
        now = self._now()
        params = {"count": count, "deadline": _to_db_time(deadline), "now": now}

        async def work(db: _Db) -> GameRecord:
            if count < 1:
                game = await self._cas_failed(db, game_id, expected_version)
                raise MoveOrderError(game_id, game.ply, "takeback")
            rows = await self._rows(
                db, SQL_TAKE_BACK, {"id": game_id, "version": expected_version, **params}
            )
            if not rows:
                game = await self._cas_failed(db, game_id, expected_version)
                if game.status is not GameStatus.ACTIVE:
                    raise InvalidStatusError(game_id, game.status)
                raise MoveOrderError(game_id, game.ply, "takeback")
            game = _game(rows[0])
            await self._rows(
                db, SQL_INSERT_TAKEBACK, (game_id, game.version, game.ply + count, game.ply, now)
            )
            return game

        return await self._run(work)

    async def finish_game(
        self,
        game_id: int,
        expected_version: int,
        outcome: Outcome,
        *,
        ended_by: int | None = None,
        end_reason: str | None = None,
    ) -> GameRecord:
        """End an active game without a move; rated games update ratings atomically."""
        if end_reason is not None and end_reason not in END_REASONS:
            raise ValueError(f"unknown end reason {end_reason!r}")
        params = {
            "termination": outcome.termination.value,
            "winner": outcome.winner.value if outcome.winner else None,
            "now": self._now(),
            "ended_by": ended_by,
            "end_reason": end_reason,
        }

        async def work(db: _Db) -> GameRecord:
            game = await self._cas(
                db, SQL_FINISH, game_id, expected_version, params, [GameStatus.ACTIVE]
            )
            await self._rate(db, game)
            return game

        return await self._run(work)

    async def move_game(self, game_id: int, channel_id: int, *, parent_channel_id: int) -> None:
        """Move an open game into a thread (version unchanged)."""
        params = {"id": game_id, "channel": channel_id, "parent": parent_channel_id}

        async def work(db: _Db) -> None:
            try:
                moved = await self._rows(db, SQL_MOVE_GAME, params)
            except sqlite3.IntegrityError as error:
                busy = await self._rows(db, SQL_OPEN_GAME_IN_CHANNEL, (channel_id,))
                raise ChannelBusyError(channel_id, busy[0][0] if busy else None) from error
            if not moved:
                rows = await self._rows(db, SQL_GET_GAME, (game_id,))
                if not rows:
                    raise GameNotFoundError(game_id)
                raise InvalidStatusError(game_id, _game(rows[0]).status)

        await self._run(work)

    async def _rate(self, db: _Db, game: GameRecord) -> None:
        """Update ratings and statistics for a game that just finished (if it counts)."""
        outcome = game.outcome
        black, white = game.black.user_id, game.white.user_id
        if not game.rated or outcome is None or outcome.termination is Termination.ABANDONED:
            return
        if black is None or white is None:
            return  # a seat was deleted on request; nobody left to rate
        finished_at = game.finished_at or game.updated_at
        scopes = [_OVERALL] if game.guild_id is None else [_OVERALL, game.guild_id]
        for scope in scopes:
            guild = None if scope == _OVERALL else scope
            before = []
            for user in (black, white):
                rows = await self._rows(db, SQL_PLAYER_STATS, (scope, game.game.value, user))
                before.append(_stats(rows[0]) if rows else new_stats(user, game.game, guild))
            for stats in rate_game(before[0], before[1], outcome.winner, finished_at):
                await self._rows(
                    db,
                    SQL_UPSERT_STATS,
                    (
                        scope,
                        stats.game.value,
                        stats.user_id,
                        stats.mu,
                        stats.sigma,
                        stats.wins_black,
                        stats.wins_white,
                        stats.losses_black,
                        stats.losses_white,
                        stats.draws_black,
                        stats.draws_white,
                        stats.streak,
                        stats.best_streak,
                        _to_db_time(stats.updated_at),
                        stats.ordinal,
                    ),
                )

    async def set_deadline(
        self, game_id: int, expected_version: int, deadline: datetime | None
    ) -> GameRecord:
        """Move an open game's deadline and clear the warning flag."""
        params = {"deadline": _to_db_time(deadline), "now": self._now()}

        async def work(db: _Db) -> GameRecord:
            return await self._cas(
                db,
                SQL_SET_DEADLINE,
                game_id,
                expected_version,
                params,
                [GameStatus.PENDING, GameStatus.ACTIVE],
            )

        return await self._run(work)

    async def mark_warning_sent(self, game_id: int, expected_version: int) -> None:
        """Record this turn's low-time warning (version unchanged)."""

        async def work(db: _Db) -> None:
            rows = await self._rows(
                db, SQL_MARK_WARNING, {"id": game_id, "version": expected_version}
            )
            if not rows:
                game = await self._cas_failed(db, game_id, expected_version)
                raise InvalidStatusError(game_id, game.status)

        await self._run(work)

    async def set_message(self, game_id: int, *, channel_id: int, message_id: int) -> None:
        """Remember the message showing the game (version unchanged)."""

        async def work(db: _Db) -> None:
            if not await self._rows(db, SQL_SET_MESSAGE, (channel_id, message_id, game_id)):
                raise GameNotFoundError(game_id)

        await self._run(work)

    async def move_history(self, game_id: int) -> list[MoveRecord]:
        """Every move row of the game in write order, taken back or not."""

        async def work(db: _Db) -> list[MoveRecord]:
            if not await self._rows(db, SQL_GET_GAME, (game_id,)):
                raise GameNotFoundError(game_id)
            return [_move(row) for row in await self._rows(db, SQL_GAME_MOVES, (game_id,))]

        return await self._read(work, snapshot=True)

    async def save_undo_request(self, request: StoredUndo) -> None:
        """Store the game's undo request, replacing any older one."""
        params = (
            request.game_id,
            request.requester,
            request.responder,
            request.version,
            request.moves,
            _to_db_time(request.made_at),
        )

        async def work(db: _Db) -> None:
            if not await self._rows(db, SQL_GET_GAME, (request.game_id,)):
                raise GameNotFoundError(request.game_id)
            await self._rows(db, SQL_SAVE_UNDO, params)

        await self._run(work)

    async def undo_request(self, game_id: int) -> StoredUndo | None:
        """The game's stored undo request, if any."""

        async def work(db: _Db) -> StoredUndo | None:
            rows = await self._rows(db, SQL_GET_UNDO, (game_id,))
            if not rows:
                return None
            game, requester, responder, version, moves, made_at = rows[0]
            return StoredUndo(game, requester, responder, version, moves, _time(made_at))

        return await self._read(work)

    async def drop_undo_request(self, game_id: int) -> None:
        """Forget the game's undo request."""

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_DROP_UNDO, (game_id,))

        await self._run(work)

    async def save_review(self, game_id: int, data: str) -> None:
        """Store the game's review, replacing any older one."""
        params = (game_id, data, _to_db_time(self._clock()))

        async def work(db: _Db) -> None:
            if not await self._rows(db, SQL_GET_GAME, (game_id,)):
                raise GameNotFoundError(game_id)
            await self._rows(db, SQL_SAVE_REVIEW, params)

        await self._run(work)

    async def review(self, game_id: int) -> str | None:
        """The game's stored review, if any."""

        async def work(db: _Db) -> str | None:
            rows = await self._rows(db, SQL_GET_REVIEW, (game_id,))
            return str(rows[0][0]) if rows else None

        return await self._read(work)

    async def set_daily_puzzle_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Post the daily puzzle in ``channel_id`` (None: stop)."""

        async def work(db: _Db) -> None:
            if channel_id is None:
                await self._rows(db, SQL_STOP_DAILY, (guild_id,))
            else:
                await self._rows(db, SQL_SET_DAILY, (guild_id, channel_id))

        await self._run(work)

    async def daily_puzzle_channels(self) -> list[tuple[int, int, str | None]]:
        """(guild, channel, last day posted) of every guild with a daily puzzle."""

        async def work(db: _Db) -> list[tuple[int, int, str | None]]:
            rows = await self._rows(db, SQL_DAILY_CHANNELS, ())
            return [(int(g), int(c), None if d is None else str(d)) for g, c, d in rows]

        return await self._read(work)

    async def claim_daily_puzzle(self, guild_id: int, day: str) -> bool:
        """Mark ``day`` posted for the guild; False if it was already."""

        async def work(db: _Db) -> bool:
            return bool(await self._rows(db, SQL_CLAIM_DAILY, {"guild": guild_id, "day": day}))

        return await self._run(work)

    async def guild_reviews(self, guild_id: int, limit: int = 20) -> list[tuple[int, str]]:
        """(game id, review) of the guild's reviewed games, the newest review first."""

        async def work(db: _Db) -> list[tuple[int, str]]:
            rows = await self._rows(db, SQL_GUILD_REVIEWS, (guild_id, limit))
            return [(int(game_id), str(data)) for game_id, data in rows]

        return await self._read(work)

    async def puzzle_player(self, guild_id: int, user_id: int) -> PuzzlePlayer | None:
        """The user's puzzle record in the guild, if any."""

        async def work(db: _Db) -> PuzzlePlayer | None:
            rows = await self._rows(db, SQL_GET_PUZZLE_PLAYER, (guild_id, user_id))
            return PuzzlePlayer(*rows[0]) if rows else None

        return await self._read(work)

    async def save_puzzle_player(self, player: PuzzlePlayer) -> None:
        """Store the user's puzzle record."""
        params = (
            player.guild_id,
            player.user_id,
            player.rating,
            player.streak,
            player.best_streak,
            player.solved,
            player.failed,
            player.attempt,
        )

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_SAVE_PUZZLE_PLAYER, params)

        await self._run(work)

    async def puzzle_leaderboard(self, guild_id: int, limit: int = 10) -> list[PuzzlePlayer]:
        """The guild's best puzzle solvers."""

        async def work(db: _Db) -> list[PuzzlePlayer]:
            rows = await self._rows(db, SQL_PUZZLE_LEADERBOARD, (guild_id, limit))
            return [PuzzlePlayer(*row) for row in rows]

        return await self._read(work)

    async def puzzles_seen(self, guild_id: int, user_id: int) -> frozenset[str]:
        """The keys of the puzzles the user has finished in the guild."""

        async def work(db: _Db) -> frozenset[str]:
            rows = await self._rows(db, SQL_PUZZLES_SEEN, (guild_id, user_id))
            return frozenset(str(row[0]) for row in rows)

        return await self._read(work)

    async def mark_puzzle_seen(self, guild_id: int, user_id: int, key: str) -> None:
        """Remember that the user finished puzzle ``key`` in the guild."""

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_MARK_PUZZLE_SEEN, (guild_id, user_id, key))

        await self._run(work)

    async def unsearched_games(self, limit: int = 1) -> list[int]:
        """Finished Gomoku games in a guild, with moves, not yet searched for puzzles."""

        async def work(db: _Db) -> list[int]:
            return [int(row[0]) for row in await self._rows(db, SQL_UNSEARCHED_GAMES, (limit,))]

        return await self._read(work)

    async def save_game_puzzles(self, game_id: int, data: str) -> None:
        """Store the puzzles found in the game."""
        params = (game_id, data, _to_db_time(self._clock()))

        async def work(db: _Db) -> None:
            if not await self._rows(db, SQL_GET_GAME, (game_id,)):
                raise GameNotFoundError(game_id)
            await self._rows(db, SQL_SAVE_GAME_PUZZLES, params)

        await self._run(work)

    async def guild_game_puzzles(self, guild_id: int, limit: int = 50) -> list[tuple[int, str]]:
        """(game id, puzzles) of the guild's searched games, the newest game first."""

        async def work(db: _Db) -> list[tuple[int, str]]:
            rows = await self._rows(db, SQL_GUILD_GAME_PUZZLES, (guild_id, limit))
            return [(int(game_id), str(data)) for game_id, data in rows]

        return await self._read(work)

    # --- players ------------------------------------------------------------------------

    async def user_games(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        limit: int = 20,
        before_id: int | None = None,
    ) -> list[GameRecord]:
        """A user's finished games, newest first, ``limit`` per page."""
        params = {
            "user": user_id,
            "guild": guild_id,
            "limit": limit,
            "before": _NO_ID_LIMIT if before_id is None else before_id,
        }

        async def work(db: _Db) -> list[GameRecord]:
            return [_game(row) for row in await self._rows(db, SQL_USER_GAMES, params)]

        return await self._read(work)

    async def player_stats(
        self, user_id: int, game: Game = Game.GOMOKU, *, guild_id: int | None = None
    ) -> PlayerStats | None:
        """Rating and record in rated games of ``game``."""
        scope = _OVERALL if guild_id is None else guild_id

        async def work(db: _Db) -> PlayerStats | None:
            rows = await self._rows(db, SQL_PLAYER_STATS, (scope, game.value, user_id))
            return _stats(rows[0]) if rows else None

        return await self._read(work, inline=True)

    async def leaderboard(
        self,
        game: Game = Game.GOMOKU,
        *,
        guild_id: int | None = None,
        limit: int = 10,
        offset: int = 0,
        min_games: int = 0,
    ) -> list[PlayerStats]:
        """Players by ordinal, best first."""
        scope = _OVERALL if guild_id is None else guild_id
        params = (scope, game.value, min_games, limit, offset)

        async def work(db: _Db) -> list[PlayerStats]:
            return [_stats(row) for row in await self._rows(db, SQL_LEADERBOARD, params)]

        return await self._read(work)

    async def user_results(self, user_id: int, *, guild_id: int | None = None) -> list[ResultCount]:
        """How the user's finished games went, by game kind, rule and opponent level."""
        params = {"user": user_id, "guild": guild_id}

        async def work(db: _Db) -> list[ResultCount]:
            lines: dict[tuple[Game, Rule, str], dict[str, int]] = {}
            for kind, rule, level, result, count in await self._rows(db, SQL_USER_RESULTS, params):
                lines.setdefault((Game(kind), Rule(rule), level or ""), {})[result] = count
            return [
                ResultCount(kind, rule, level or None, **counts)
                for (kind, rule, level), counts in sorted(lines.items())
            ]

        return await self._read(work)

    async def delete_user_data(self, user_id: int) -> int:
        """Forget a user (see ``GameRepository.delete_user_data``)."""
        params = {"user": user_id, "now": self._now()}

        async def work(db: _Db) -> int:
            touched = len(await self._rows(db, SQL_USER_GAME_IDS, {"user": user_id}))
            await self._rows(db, SQL_ABANDON_USER_GAMES, params)
            for sql in SQL_FORGET_USER:
                await self._rows(db, sql, {"user": user_id})
            return touched

        return await self._run(work)

    # --- guilds -------------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, defaults if never saved."""

        async def work(db: _Db) -> GuildSettings:
            rows = await self._rows(db, SQL_GUILD_SETTINGS, (guild_id,))
            if not rows:
                return GuildSettings(guild_id)
            channels = await self._rows(db, SQL_GUILD_CHANNELS, (guild_id,))
            opening = await self._rows(db, SQL_GUILD_OPENING, (guild_id,))
            language = await self._rows(db, SQL_GUILD_LANGUAGE, (guild_id,))
            row = rows[0]
            return GuildSettings(
                rated_opening=opening[0][0] if opening else None,
                language=language[0][0] if language else None,
                guild_id=guild_id,
                default_rule=Rule(row[0]),
                turn_seconds=row[1],
                board_style=row[2],
                allowed_channel_ids=frozenset(row[0] for row in channels),
                use_threads=bool(row[3]),
                moderator_role_id=row[4],
                idle_human_seconds=row[5],
                idle_ai_seconds=row[6],
                turn_pings=bool(row[7]),
                ai_clock=bool(row[8]),
            )

        return await self._read(work, snapshot=True, inline=True)

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        """Replace the guild's settings."""
        params = (
            settings.guild_id,
            settings.default_rule.value,
            settings.turn_seconds,
            settings.board_style,
            self._now(),
            int(settings.use_threads),
            settings.moderator_role_id,
            settings.idle_human_seconds,
            settings.idle_ai_seconds,
            int(settings.turn_pings),
            int(settings.ai_clock),
        )

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_SAVE_GUILD_SETTINGS, params)
            await self._rows(db, SQL_CLEAR_GUILD_CHANNELS, (settings.guild_id,))
            for channel_id in sorted(settings.allowed_channel_ids):
                await self._rows(db, SQL_ADD_GUILD_CHANNEL, (settings.guild_id, channel_id))
            if settings.rated_opening is None:
                await self._rows(db, SQL_CLEAR_GUILD_OPENING, (settings.guild_id,))
            else:
                await self._rows(
                    db, SQL_SAVE_GUILD_OPENING, (settings.guild_id, settings.rated_opening)
                )
            if settings.language is None:
                await self._rows(db, SQL_CLEAR_GUILD_LANGUAGE, (settings.guild_id,))
            else:
                await self._rows(
                    db, SQL_SAVE_GUILD_LANGUAGE, (settings.guild_id, settings.language)
                )

        await self._run(work)

    async def set_open_turn_seconds(
        self, guild_id: int, turn_seconds: int | None, *, ai_games: bool
    ) -> int:
        """New turn time for the guild's open games, from their next turn."""
        params = {"guild": guild_id, "seconds": turn_seconds, "ai_games": int(ai_games)}

        async def work(db: _Db) -> int:
            cursor = await db.execute(SQL_SET_OPEN_TURN_SECONDS, params)
            return cursor.rowcount

        return await self._run(work)

    # --- users --------------------------------------------------------------------------

    async def user_view(self, user_id: int) -> str | None:
        """The user's board view, None if never chosen."""

        async def work(db: _Db) -> str | None:
            rows = await self._rows(db, SQL_USER_VIEW, (user_id,))
            return str(rows[0][0]) if rows else None

        return await self._read(work)

    async def save_user_view(self, user_id: int, view: str) -> None:
        """Remember the user's board view."""
        params = (user_id, view, self._now())

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_SAVE_USER_VIEW, params)

        await self._run(work)

    async def user_language(self, user_id: int) -> str | None:
        """The user's language, None if never chosen."""

        async def work(db: _Db) -> str | None:
            rows = await self._rows(db, SQL_USER_LANGUAGE, (user_id,))
            return str(rows[0][0]) if rows else None

        return await self._read(work, inline=True)

    async def save_user_language(self, user_id: int, language: str | None) -> None:
        """Remember (or with None forget) the user's language."""
        now = self._now()

        async def work(db: _Db) -> None:
            if language is None:
                await self._rows(db, SQL_CLEAR_USER_LANGUAGE, (user_id,))
            else:
                await self._rows(db, SQL_SAVE_USER_LANGUAGE, (user_id, language, now))

        await self._run(work)

    # --- replies to finish --------------------------------------------------------------

    async def save_pending_reply(self, reply: PendingReply) -> None:
        """Remember a deferred reply."""
        params = (
            reply.token,
            reply.game_id,
            reply.application_id,
            reply.message_id,
            reply.user_id,
            _to_db_time(reply.created_at),
        )

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_SAVE_PENDING_REPLY, params)

        await self._run(work)

    async def pending_replies(self) -> list[PendingReply]:
        """Every reply still waiting, oldest first."""

        async def work(db: _Db) -> list[PendingReply]:
            rows = await self._rows(db, SQL_PENDING_REPLIES)
            return [
                PendingReply(row[0], row[1], row[2], row[3], row[4], _time(row[5])) for row in rows
            ]

        return await self._read(work)

    async def drop_pending_reply(self, token: str) -> None:
        """Forget a reply."""

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_DROP_PENDING_REPLY, (token,))

        await self._run(work)

    # --- turn pings ---------------------------------------------------------------------

    async def turn_ping(self, game_id: int) -> TurnPing | None:
        """The game's stored ping."""

        async def work(db: _Db) -> TurnPing | None:
            rows = await self._rows(db, SQL_TURN_PING, (game_id,))
            return TurnPing(game_id, rows[0][0], rows[0][1], rows[0][2]) if rows else None

        return await self._read(work, inline=True)

    async def save_turn_ping(self, ping: TurnPing) -> None:
        """Keep the game's ping."""
        params = (ping.game_id, ping.channel_id, ping.message_id, ping.version)

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_SAVE_TURN_PING, params)

        await self._run(work)

    async def drop_turn_ping(self, game_id: int) -> None:
        """Forget the game's ping."""

        async def work(db: _Db) -> None:
            await self._rows(db, SQL_DROP_TURN_PING, (game_id,))

        await self._run(work)
