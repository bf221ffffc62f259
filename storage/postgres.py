"""``PostgresGameRepository``: the ``GameRepository`` on a PostgreSQL database (asyncpg).

For a community that outgrows one SQLite file or one process: several bot processes (shards)
share one database. Every operation is one transaction on a pooled connection. Writes that
change a game are compare-and-set ``UPDATE … WHERE version = $n``: under READ COMMITTED the
second of two racing writers waits for the first's row lock, re-reads the row, no longer
matches and is told ``VersionConflictError``, exactly as on SQLite. Rating updates lock both
players' rows (in user-id order, so two finishing games never deadlock). Operations are
shielded from cancellation: a cancelled caller never leaves a transaction half-done.

Schema: ``storage/migrations_postgres/NNNN_*.sql``, numbered as the SQLite migrations and
applied one transaction each under an advisory lock (two processes starting on a fresh
database do not both apply a step). The table ``gomoku_schema`` marks the database as ours
and counts the migrations applied; a database with other tables and no such mark is
refused before anything is written, and so is one written by a newer version.

Select it with ``GOMOKU_DATABASE_URL=postgresql://user:password@host/dbname``.
"""

from __future__ import annotations

import asyncio
import importlib.resources
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, Literal, Self, TypeAlias, TypeVar

import asyncpg

from engine.types import Color, Game, Outcome, Point, Rule, Termination
from storage.opening import redact
from storage.ratings import new_stats, rate_game
from storage.repository import (
    CHALLENGE_CLOSINGS,
    END_REASONS,
    ChannelBusyError,
    DatabaseTooNewError,
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
    ResultCount,
    StoredUndo,
    TurnPing,
    VersionConflictError,
    live_moves,
    utc_now,
)

__all__ = [
    "APPLICATION_ID",
    "LATEST_VERSION",
    "MIGRATIONS",
    "PgMigration",
    "PostgresGameRepository",
]

APPLICATION_ID = 0x476D6B62  # "Gmkb", as in the SQLite file header
_T = TypeVar("_T")
if TYPE_CHECKING:  # generic only in the stubs
    _Conn: TypeAlias = asyncpg.pool.PoolConnectionProxy[asyncpg.Record]
else:
    _Conn = asyncpg.pool.PoolConnectionProxy
_Row = asyncpg.Record
_Isolation = Literal["read_committed", "repeatable_read"]
_NO_ID_LIMIT = 2**63 - 1
_OVERALL = 0  # player_stats.scope for "every guild"
_MIGRATION_LOCK = APPLICATION_ID  # pg_advisory_xact_lock key while migrating


# --------------------------------------------------------------------------------------------
# Migrations


@dataclass(frozen=True, slots=True)
class PgMigration:
    """One numbered schema step from ``storage/migrations_postgres``."""

    version: int  # the schema version after it (the same numbers as the SQLite steps)
    name: str  # the file name
    sql: str


def _load_migrations() -> tuple[PgMigration, ...]:
    folder = importlib.resources.files("storage") / "migrations_postgres"
    found = []
    for entry in folder.iterdir():
        match = re.fullmatch(r"(\d{4})_\w+\.sql", entry.name)
        if match:
            found.append(PgMigration(int(match.group(1)), entry.name, entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    # As for SQLite: a reserved number may be missing for a while; each step applies once,
    # in order, and gomoku_schema.version names the last applied.
    versions = [m.version for m in found]
    if not versions or versions[0] != 1 or len(set(versions)) != len(versions):
        raise RuntimeError(f"migrations must be numbered from 1, once each: {versions}")
    return tuple(found)


MIGRATIONS = _load_migrations()
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


async def _schema_version(conn: asyncpg.Connection[_Row], url: str) -> int:
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


async def _keep_session(conn: asyncpg.Connection[_Row]) -> None:
    """The pool's reset of a returned connection (asyncpg rolls back an open transaction
    first). Its default sends UNLISTEN, CLOSE ALL, RESET ALL and pg_advisory_unlock_all: a
    round trip per operation for session state this repository never leaves behind (its
    advisory locks are transaction-scoped, it never listens, sets or keeps cursors)."""


async def _migrate(conn: asyncpg.Connection[_Row], url: str) -> None:
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


# --------------------------------------------------------------------------------------------
# Conversions (the only place rows become records)

GAME_COLUMNS = (
    "id, guild_id, channel_id, game, width, height, rule, black_user_id, black_level,"
    " white_user_id, white_level, status, termination, winner, rated, message_channel_id,"
    " message_id, deadline, warning_sent, turn_seconds, created_by, created_at, updated_at,"
    " finished_at, ply, version, ended_by, end_reason, parent_channel_id"
)


def _game(row: _Row) -> GameRecord:
    termination, winner = row[12], row[13]
    return GameRecord(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        game=Game(row[3]),
        width=row[4],
        height=row[5],
        rule=Rule(row[6]),
        black=Player(user_id=row[7], level=row[8]),
        white=Player(user_id=row[9], level=row[10]),
        status=GameStatus(row[11]),
        outcome=None
        if termination is None
        else Outcome(Termination(termination), None if winner is None else Color(winner)),
        rated=row[14],
        message_channel_id=row[15],
        message_id=row[16],
        deadline=row[17],
        warning_sent=row[18],
        turn_seconds=row[19],
        created_by=row[20],
        created_at=row[21],
        updated_at=row[22],
        finished_at=row[23],
        ply=row[24],
        version=row[25],
        ended_by=row[26],
        end_reason=row[27],
        parent_channel_id=row[28],
    )


MOVE_COLUMNS = "game_id, ply, x, y, color, made_at, seq"


def _move(row: _Row) -> MoveRecord:
    return MoveRecord(
        game_id=row[0],
        ply=row[1],
        point=Point(row[2], row[3]),
        color=Color(row[4]),
        made_at=row[5],
        seq=row[6],
    )


STATS_COLUMNS = (
    "scope, game, user_id, mu, sigma, wins_black, wins_white, losses_black, losses_white,"
    " draws_black, draws_white, streak, best_streak, updated_at"
)


def _stats(row: _Row) -> PlayerStats:
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
        updated_at=row[13],
    )


# --------------------------------------------------------------------------------------------
# Statements (the SQLite ones in PostgreSQL's dialect: $n parameters, booleans, timestamptz)

SQL_INSERT_GAME = f"""
INSERT INTO games (guild_id, channel_id, game, width, height, rule, black_user_id, black_level,
    white_user_id, white_level, status, rated, deadline, turn_seconds, created_by, created_at,
    updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
RETURNING {GAME_COLUMNS}
"""
SQL_GET_GAME = f"SELECT {GAME_COLUMNS} FROM games WHERE id = $1"
SQL_OPEN_GAME_IN_CHANNEL = (
    f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = $1 AND status IN ('pending', 'active')"
)
SQL_OPEN_GAMES = (
    f"SELECT {GAME_COLUMNS} FROM games WHERE status IN ('pending', 'active') ORDER BY id"
)
SQL_GAMES_DUE = f"""
SELECT {GAME_COLUMNS} FROM games
WHERE deadline IS NOT NULL AND deadline <= $1
ORDER BY deadline, id
"""
SQL_GAME_MOVES = f"SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 ORDER BY seq"
SQL_USER_GAMES = f"""
SELECT {GAME_COLUMNS} FROM (
    (SELECT * FROM games
     WHERE black_user_id = $1 AND id < $2 AND status = 'finished'
         AND ($3::bigint IS NULL OR guild_id = $3)
     ORDER BY id DESC LIMIT $4)
    UNION
    (SELECT * FROM games
     WHERE white_user_id = $1 AND id < $2 AND status = 'finished'
         AND ($3::bigint IS NULL OR guild_id = $3)
     ORDER BY id DESC LIMIT $4)
) AS mine
ORDER BY id DESC LIMIT $4
"""
SQL_PLAYER_STATS = (
    f"SELECT {STATS_COLUMNS} FROM player_stats WHERE scope = $1 AND game = $2 AND user_id = $3"
)
SQL_STATS_OF = f"""
SELECT {STATS_COLUMNS} FROM player_stats
WHERE scope = $1 AND game = $2 AND user_id = ANY($3::bigint[])
"""
# A player's ratings are read, changed and written back: one writer at a time per player.
# Snowflake user ids never equal the migration lock's key.
SQL_LOCK_PLAYER = "SELECT pg_advisory_xact_lock($1)"
SQL_LEADERBOARD = f"""
SELECT {STATS_COLUMNS} FROM player_stats
WHERE scope = $1 AND game = $2
    AND wins_black + wins_white + losses_black + losses_white + draws_black + draws_white >= $3
ORDER BY ordinal DESC, user_id
LIMIT $4 OFFSET $5
"""
SQL_UPSERT_STATS = f"""
INSERT INTO player_stats ({STATS_COLUMNS}, ordinal)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
ON CONFLICT (scope, game, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,
    wins_black = excluded.wins_black, wins_white = excluded.wins_white,
    losses_black = excluded.losses_black, losses_white = excluded.losses_white,
    draws_black = excluded.draws_black, draws_white = excluded.draws_white,
    streak = excluded.streak, best_streak = excluded.best_streak,
    updated_at = excluded.updated_at, ordinal = excluded.ordinal
"""
# $1 id, $2 version, then the statement's own parameters.
SQL_APPEND_MOVE = f"""
UPDATE games SET
    version = version + 1, ply = ply + 1, deadline = $3, warning_sent = false,
    updated_at = $4, status = $5, termination = $6, winner = $7, finished_at = $8
WHERE id = $1 AND version = $2 AND status = 'active' AND ply % 2 = $9
RETURNING {GAME_COLUMNS}
"""
# The stone and the game's new version in one statement: atomic without a transaction, so a
# move costs one round trip (a final move still rates the players in a transaction).
SQL_PLAY_MOVE = f"""
WITH game AS ({SQL_APPEND_MOVE}), stone AS (
    INSERT INTO moves ({MOVE_COLUMNS}) SELECT id, ply - 1, $10, $11, $12, $4, version FROM game
)
SELECT {GAME_COLUMNS} FROM game
"""
SQL_TAKE_BACK = f"""
UPDATE games SET
    version = version + 1, ply = ply - $3, deadline = $4, warning_sent = false, updated_at = $5
WHERE id = $1 AND version = $2 AND status = 'active' AND ply >= $3
RETURNING {GAME_COLUMNS}
"""
SQL_INSERT_TAKEBACK = (
    "INSERT INTO takebacks (game_id, seq, from_ply, to_ply, made_at) VALUES ($1, $2, $3, $4, $5)"
)
SQL_FINISH = f"""
UPDATE games SET
    version = version + 1, status = 'finished', termination = $3, winner = $4,
    deadline = NULL, finished_at = $5, updated_at = $5, ended_by = $6, end_reason = $7
WHERE id = $1 AND version = $2 AND status = 'active'
RETURNING {GAME_COLUMNS}
"""
SQL_ACCEPT = f"""
UPDATE games SET version = version + 1, status = 'active', deadline = $3,
    warning_sent = false, updated_at = $4
WHERE id = $1 AND version = $2 AND status = 'pending'
RETURNING {GAME_COLUMNS}
"""
SQL_CLOSE_CHALLENGE = f"""
UPDATE games SET version = version + 1, status = $3, deadline = NULL, finished_at = $4,
    updated_at = $4
WHERE id = $1 AND version = $2 AND status = 'pending'
RETURNING {GAME_COLUMNS}
"""
SQL_SET_DEADLINE = f"""
UPDATE games SET version = version + 1, deadline = $3, warning_sent = false, updated_at = $4
WHERE id = $1 AND version = $2 AND status IN ('pending', 'active')
RETURNING {GAME_COLUMNS}
"""
SQL_MARK_WARNING = """
UPDATE games SET warning_sent = true
WHERE id = $1 AND version = $2 AND status IN ('pending', 'active')
RETURNING id
"""
SQL_SET_MESSAGE = (
    "UPDATE games SET message_channel_id = $1, message_id = $2 WHERE id = $3 RETURNING id"
)
SQL_MOVE_GAME = """
UPDATE games SET channel_id = $2, parent_channel_id = $3
WHERE id = $1 AND status IN ('pending', 'active')
RETURNING id
"""
SQL_SAVE_UNDO = """
INSERT INTO undo_requests (game_id, requester, responder, version, moves, made_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (game_id) DO UPDATE SET requester = excluded.requester,
    responder = excluded.responder, version = excluded.version, moves = excluded.moves,
    made_at = excluded.made_at
"""
SQL_GET_UNDO = (
    "SELECT game_id, requester, responder, version, moves, made_at FROM undo_requests"
    " WHERE game_id = $1"
)
SQL_DROP_UNDO = "DELETE FROM undo_requests WHERE game_id = $1"
# One row per (kind, rule, opponent level, result) of a user's finished games, as either
# colour; the two halves use the per-colour indexes.
SQL_USER_RESULTS = """
SELECT game, rule, opponent_level, result, count(*) FROM (
    SELECT game, rule, white_level AS opponent_level,
        CASE WHEN winner = 'black' THEN 'wins' WHEN winner = 'white' THEN 'losses'
             WHEN termination = 'draw' THEN 'draws' ELSE 'unfinished' END AS result
    FROM games
    WHERE black_user_id = $1 AND status = 'finished' AND ($2::bigint IS NULL OR guild_id = $2)
    UNION ALL
    SELECT game, rule, black_level,
        CASE WHEN winner = 'white' THEN 'wins' WHEN winner = 'black' THEN 'losses'
             WHEN termination = 'draw' THEN 'draws' ELSE 'unfinished' END
    FROM games
    WHERE white_user_id = $1 AND status = 'finished' AND ($2::bigint IS NULL OR guild_id = $2)
        AND black_user_id IS DISTINCT FROM $1
) AS mine
GROUP BY game, rule, opponent_level, result
"""
SQL_USER_GAME_IDS = """
SELECT id FROM games WHERE black_user_id = $1
UNION SELECT id FROM games WHERE white_user_id = $1
UNION SELECT id FROM games WHERE created_by = $1
UNION SELECT id FROM games WHERE ended_by = $1
"""
SQL_ABANDON_USER_GAMES = """
UPDATE games SET
    version = version + 1,
    status = CASE status WHEN 'active' THEN 'finished' ELSE 'cancelled' END,
    termination = CASE status WHEN 'active' THEN 'abandoned' END,
    winner = NULL, deadline = NULL, finished_at = $2, updated_at = $2
WHERE status IN ('pending', 'active') AND (black_user_id = $1 OR white_user_id = $1)
"""
SQL_FORGET_USER = (
    "UPDATE games SET black_user_id = NULL WHERE black_user_id = $1",
    "UPDATE games SET white_user_id = NULL WHERE white_user_id = $1",
    "UPDATE games SET created_by = NULL WHERE created_by = $1",
    "UPDATE games SET ended_by = NULL WHERE ended_by = $1",
    "DELETE FROM player_stats WHERE user_id = $1",
    "DELETE FROM undo_requests WHERE requester = $1",
    "DELETE FROM undo_requests WHERE responder = $1",
    "DELETE FROM user_settings WHERE user_id = $1",
    "DELETE FROM user_languages WHERE user_id = $1",
    "DELETE FROM pending_replies WHERE user_id = $1",
    "DELETE FROM puzzle_players WHERE user_id = $1",
    "DELETE FROM puzzle_seen WHERE user_id = $1",
)
SQL_SAVE_REVIEW = """
INSERT INTO game_reviews (game_id, data, made_at) VALUES ($1, $2, $3)
ON CONFLICT (game_id) DO UPDATE SET data = excluded.data, made_at = excluded.made_at
"""
SQL_GET_REVIEW = "SELECT data FROM game_reviews WHERE game_id = $1"
SQL_SET_DAILY = """
INSERT INTO daily_puzzles (guild_id, channel_id) VALUES ($1, $2)
ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id
"""
SQL_STOP_DAILY = "DELETE FROM daily_puzzles WHERE guild_id = $1"
SQL_DAILY_CHANNELS = "SELECT guild_id, channel_id, last_day FROM daily_puzzles ORDER BY guild_id"
SQL_CLAIM_DAILY = """
UPDATE daily_puzzles SET last_day = $2
WHERE guild_id = $1 AND (last_day IS NULL OR last_day != $2)
RETURNING guild_id
"""
SQL_GUILD_REVIEWS = """
SELECT r.game_id, r.data FROM game_reviews r JOIN games g ON g.id = r.game_id
WHERE g.guild_id = $1 ORDER BY r.made_at DESC, r.game_id DESC LIMIT $2
"""
_PUZZLE_COLUMNS = "guild_id, user_id, rating, streak, best_streak, solved, failed, attempt"
SQL_GET_PUZZLE_PLAYER = (
    f"SELECT {_PUZZLE_COLUMNS} FROM puzzle_players WHERE guild_id = $1 AND user_id = $2"
)
SQL_SAVE_PUZZLE_PLAYER = f"""
INSERT INTO puzzle_players ({_PUZZLE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (guild_id, user_id) DO UPDATE SET rating = excluded.rating,
    streak = excluded.streak, best_streak = excluded.best_streak, solved = excluded.solved,
    failed = excluded.failed, attempt = excluded.attempt
"""
SQL_PUZZLES_SEEN = "SELECT puzzle_key FROM puzzle_seen WHERE guild_id = $1 AND user_id = $2"
SQL_MARK_PUZZLE_SEEN = (
    "INSERT INTO puzzle_seen (guild_id, user_id, puzzle_key) VALUES ($1, $2, $3)"
    " ON CONFLICT DO NOTHING"
)
SQL_UNSEARCHED_GAMES = """
SELECT g.id FROM games g
WHERE g.status = 'finished' AND g.game = 'gomoku' AND g.guild_id IS NOT NULL AND g.ply > 0
    AND NOT EXISTS (SELECT 1 FROM game_puzzles p WHERE p.game_id = g.id)
ORDER BY g.finished_at DESC, g.id DESC LIMIT $1
"""
SQL_SAVE_GAME_PUZZLES = """
INSERT INTO game_puzzles (game_id, data, made_at) VALUES ($1, $2, $3)
ON CONFLICT (game_id) DO UPDATE SET data = excluded.data, made_at = excluded.made_at
"""
SQL_GUILD_GAME_PUZZLES = """
SELECT p.game_id, p.data FROM game_puzzles p JOIN games g ON g.id = p.game_id
WHERE g.guild_id = $1 ORDER BY p.game_id DESC LIMIT $2
"""
SQL_PUZZLE_LEADERBOARD = f"""
SELECT {_PUZZLE_COLUMNS} FROM puzzle_players
WHERE guild_id = $1 AND solved + failed > 0
ORDER BY rating DESC, solved DESC, user_id
LIMIT $2
"""
SQL_INSERT_OPENING = "INSERT INTO game_openings (game_id, rule) VALUES ($1, $2)"
SQL_GAME_OPENING = "SELECT rule, steps FROM game_openings WHERE game_id = $1"
SQL_OPENING_STEP = f"""
UPDATE games SET
    version = version + 1, black_user_id = $3, black_level = $4,
    white_user_id = $5, white_level = $6, deadline = $7, warning_sent = false, updated_at = $8
WHERE id = $1 AND version = $2 AND status = 'active'
    AND EXISTS (SELECT 1 FROM game_openings WHERE game_id = $1)
RETURNING {GAME_COLUMNS}
"""
SQL_APPEND_OPENING_STEP = """
UPDATE game_openings SET steps = ltrim(steps || ' ' || $2) WHERE game_id = $1
"""
SQL_SAVE_GUILD_LANGUAGE = """
INSERT INTO guild_languages (guild_id, language) VALUES ($1, $2)
ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language
"""
SQL_CLEAR_GUILD_LANGUAGE = "DELETE FROM guild_languages WHERE guild_id = $1"
SQL_USER_LANGUAGE = "SELECT language FROM user_languages WHERE user_id = $1"
SQL_SAVE_USER_LANGUAGE = """
INSERT INTO user_languages (user_id, language, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (user_id) DO UPDATE SET language = excluded.language,
    updated_at = excluded.updated_at
"""
SQL_CLEAR_USER_LANGUAGE = "DELETE FROM user_languages WHERE user_id = $1"
SQL_SAVE_GUILD_OPENING = """
INSERT INTO guild_openings (guild_id, rated_opening) VALUES ($1, $2)
ON CONFLICT (guild_id) DO UPDATE SET rated_opening = excluded.rated_opening
"""
SQL_CLEAR_GUILD_OPENING = "DELETE FROM guild_openings WHERE guild_id = $1"
# One statement (one snapshot, one round trip) for the settings and their side tables.
SQL_GUILD_SETTINGS = """
SELECT default_rule, turn_seconds, board_style, use_threads, moderator_role_id,
    idle_human_seconds, idle_ai_seconds, turn_pings, ai_clock,
    ARRAY(SELECT channel_id FROM guild_allowed_channels WHERE guild_id = $1),
    (SELECT rated_opening FROM guild_openings WHERE guild_id = $1),
    (SELECT language FROM guild_languages WHERE guild_id = $1)
FROM guild_settings WHERE guild_id = $1
"""
SQL_SAVE_GUILD_SETTINGS = """
INSERT INTO guild_settings (guild_id, default_rule, turn_seconds, board_style, updated_at,
    use_threads, moderator_role_id, idle_human_seconds, idle_ai_seconds, turn_pings, ai_clock)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (guild_id) DO UPDATE SET default_rule = excluded.default_rule,
    turn_seconds = excluded.turn_seconds, board_style = excluded.board_style,
    updated_at = excluded.updated_at, use_threads = excluded.use_threads,
    moderator_role_id = excluded.moderator_role_id,
    idle_human_seconds = excluded.idle_human_seconds, idle_ai_seconds = excluded.idle_ai_seconds,
    turn_pings = excluded.turn_pings, ai_clock = excluded.ai_clock
"""
SQL_SET_OPEN_TURN_SECONDS = """
UPDATE games SET turn_seconds = CASE
        WHEN $3 OR (black_level IS NULL AND white_level IS NULL) THEN $2::integer
    END
WHERE guild_id = $1 AND status IN ('pending', 'active')
    AND turn_seconds IS DISTINCT FROM CASE
        WHEN $3 OR (black_level IS NULL AND white_level IS NULL) THEN $2::integer
    END
"""
SQL_USER_VIEW = "SELECT board_view FROM user_settings WHERE user_id = $1"
SQL_SAVE_USER_VIEW = """
INSERT INTO user_settings (user_id, board_view, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (user_id) DO UPDATE SET board_view = excluded.board_view,
    updated_at = excluded.updated_at
"""
SQL_SAVE_PENDING_REPLY = """
INSERT INTO pending_replies (token, game_id, application_id, message_id, user_id, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (token) DO UPDATE SET game_id = excluded.game_id,
    application_id = excluded.application_id, message_id = excluded.message_id,
    user_id = excluded.user_id, created_at = excluded.created_at
"""
SQL_PENDING_REPLIES = (
    "SELECT token, game_id, application_id, message_id, user_id, created_at"
    ' FROM pending_replies ORDER BY created_at, token COLLATE "C"'
)
SQL_DROP_PENDING_REPLY = "DELETE FROM pending_replies WHERE token = $1"
SQL_TURN_PING = "SELECT channel_id, message_id, version FROM turn_pings WHERE game_id = $1"
SQL_SAVE_TURN_PING = """
INSERT INTO turn_pings (game_id, channel_id, message_id, version) VALUES ($1, $2, $3, $4)
ON CONFLICT (game_id) DO UPDATE SET channel_id = excluded.channel_id,
    message_id = excluded.message_id, version = excluded.version
"""
SQL_DROP_TURN_PING = "DELETE FROM turn_pings WHERE game_id = $1"
SQL_CLEAR_GUILD_CHANNELS = "DELETE FROM guild_allowed_channels WHERE guild_id = $1"
SQL_ADD_GUILD_CHANNEL = "INSERT INTO guild_allowed_channels (guild_id, channel_id) VALUES ($1, $2)"


# --------------------------------------------------------------------------------------------
# The repository


class PostgresGameRepository:
    """The ``GameRepository`` on PostgreSQL. Open with
    ``async with PostgresGameRepository.open(url)`` (or ``connect`` … ``close``)."""

    def __init__(self, pool: asyncpg.Pool, url: str, clock: Callable[[], datetime]) -> None:
        """Use ``open``/``connect``; this only wires an already migrated pool."""
        self._pool = pool
        self._url = url
        self._clock = clock
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
    @asynccontextmanager
    async def open(
        cls, url: str, *, clock: Callable[[], datetime] = utc_now, max_size: int = POOL_SIZE
    ) -> AsyncIterator[Self]:
        """``connect`` as an async context manager that closes the repository on exit."""
        repo = await cls.connect(url, clock=clock, max_size=max_size)
        try:
            yield repo
        finally:
            await repo.close()

    async def close(self) -> None:
        """Let the operations already started finish, then close the pool."""
        if self._closing:
            return
        self._closing = True
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        await self._pool.close()

    # --- plumbing -----------------------------------------------------------------------

    async def _run(
        self,
        work: Callable[[_Conn], Awaitable[_T]],
        *,
        isolation: _Isolation = "read_committed",
        transaction: bool = True,
    ) -> _T:
        """Run ``work`` in one transaction; a cancelled caller does not stop it.
        ``transaction=False`` is for work whose one write is a single statement (atomic on
        its own) or that only reads at read committed: each of its statements commits by
        itself, which spares the BEGIN and COMMIT round trips. A connection is held for
        every round trip, and under load the round trips, not the server, bound how many
        operations a pool completes."""
        if self._closing:
            raise RuntimeError("the repository is closed")
        task = asyncio.ensure_future(
            self._transaction(work, isolation) if transaction else self._statements(work)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # A cancelled caller does not stop its write; retrieve the outcome so that asyncio
        # does not log an error nobody was waiting for.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        return await asyncio.shield(task)

    async def _transaction(
        self, work: Callable[[_Conn], Awaitable[_T]], isolation: _Isolation
    ) -> _T:
        async with self._pool.acquire() as conn, conn.transaction(isolation=isolation):
            return await work(conn)

    async def _statements(self, work: Callable[[_Conn], Awaitable[_T]]) -> _T:
        async with self._pool.acquire() as conn:
            return await work(conn)

    async def _read(self, work: Callable[[_Conn], Awaitable[_T]], *, snapshot: bool = False) -> _T:
        """A read; ``snapshot`` makes its statements agree with each other (without it, each
        statement sees what was committed when it began, as inside a read-committed
        transaction)."""
        if snapshot:
            return await self._run(work, isolation="repeatable_read")
        return await self._run(work, transaction=False)

    def _now(self) -> datetime:
        return self._clock()

    @staticmethod
    async def _cas_failed(conn: _Conn, game_id: int, expected_version: int) -> GameRecord:
        """Why a compare-and-set matched no row: raise the matching error, or return the
        game when version and existence were fine (the caller then checks status/order)."""
        row = await conn.fetchrow(SQL_GET_GAME, game_id)
        if row is None:
            raise GameNotFoundError(game_id)
        game = _game(row)
        if game.version != expected_version:
            raise VersionConflictError(game_id, expected_version, game.version)
        return game

    async def _cas(
        self,
        conn: _Conn,
        sql: str,
        game_id: int,
        expected_version: int,
        params: Sequence[Any],
        allowed: Iterable[GameStatus],
    ) -> GameRecord:
        """Run a compare-and-set UPDATE … RETURNING; on no match raise the precise error."""
        row = await conn.fetchrow(sql, game_id, expected_version, *params)
        if row is not None:
            return _game(row)
        game = await self._cas_failed(conn, game_id, expected_version)
        if game.status not in allowed:
            raise InvalidStatusError(game_id, game.status)
        raise AssertionError(f"compare-and-set on game {game_id} matched nothing")

    # --- games --------------------------------------------------------------------------

    async def create_game(self, new: NewGame) -> GameRecord:
        """Store a new game or challenge (see ``GameRepository.create_game``)."""
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
            new.rated,
            new.deadline,
            new.turn_seconds,
            new.created_by,
            now,
        )

        async def work(conn: _Conn) -> GameRecord:
            # Look first, so a refused game does not use up an id (ids then match SQLite's);
            # the unique index still settles a race between two processes.
            busy = await conn.fetchrow(SQL_OPEN_GAME_IN_CHANNEL, new.channel_id)
            if busy is not None:
                raise ChannelBusyError(new.channel_id, busy[0])
            try:
                async with conn.transaction():
                    row = await conn.fetchrow(SQL_INSERT_GAME, *params)
            except asyncpg.UniqueViolationError as error:
                busy = await conn.fetchrow(SQL_OPEN_GAME_IN_CHANNEL, new.channel_id)
                raise ChannelBusyError(new.channel_id, busy[0] if busy else None) from error
            assert row is not None
            game = _game(row)
            if new.opening is not None:
                await conn.execute(SQL_INSERT_OPENING, game.id, new.opening)
            return game

        return await self._run(work)

    async def get_game(self, game_id: int) -> GameRecord:
        """The game with this id."""

        async def work(conn: _Conn) -> GameRecord:
            row = await conn.fetchrow(SQL_GET_GAME, game_id)
            if row is None:
                raise GameNotFoundError(game_id)
            return _game(row)

        return await self._read(work)

    async def load_game(self, game_id: int) -> GameSnapshot:
        """The game and its live moves, read in one snapshot."""

        async def work(conn: _Conn) -> GameSnapshot:
            row = await conn.fetchrow(SQL_GET_GAME, game_id)
            if row is None:
                raise GameNotFoundError(game_id)
            game = _game(row)
            history = [_move(r) for r in await conn.fetch(SQL_GAME_MOVES, game_id)]
            return GameSnapshot(game, live_moves(history, game.ply))

        return await self._read(work, snapshot=True)

    async def open_game_in_channel(self, channel_id: int) -> GameRecord | None:
        """The pending or active game of a channel, if any."""

        async def work(conn: _Conn) -> GameRecord | None:
            row = await conn.fetchrow(SQL_OPEN_GAME_IN_CHANNEL, channel_id)
            return None if row is None else _game(row)

        return await self._read(work)

    async def open_games(self) -> list[GameRecord]:
        """Every pending or active game, oldest first."""

        async def work(conn: _Conn) -> list[GameRecord]:
            return [_game(row) for row in await conn.fetch(SQL_OPEN_GAMES)]

        return await self._read(work)

    async def games_due(self, now: datetime) -> list[GameRecord]:
        """Open games whose deadline is at or before ``now``."""

        async def work(conn: _Conn) -> list[GameRecord]:
            return [_game(row) for row in await conn.fetch(SQL_GAMES_DUE, now)]

        return await self._read(work)

    async def accept_challenge(
        self, game_id: int, expected_version: int, *, deadline: datetime | None = None
    ) -> GameRecord:
        """PENDING -> ACTIVE."""
        params = (deadline, self._now())

        async def work(conn: _Conn) -> GameRecord:
            return await self._cas(
                conn, SQL_ACCEPT, game_id, expected_version, params, [GameStatus.PENDING]
            )

        return await self._run(work)

    async def close_challenge(
        self, game_id: int, expected_version: int, status: GameStatus
    ) -> GameRecord:
        """PENDING -> DECLINED, CANCELLED or EXPIRED."""
        if status not in CHALLENGE_CLOSINGS:
            raise ValueError(f"a challenge closes as declined, cancelled or expired, not {status}")
        params = (status.value, self._now())

        async def work(conn: _Conn) -> GameRecord:
            return await self._cas(
                conn, SQL_CLOSE_CHALLENGE, game_id, expected_version, params, [GameStatus.PENDING]
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
        params = (
            None if finished else deadline,
            now,
            GameStatus.FINISHED.value if finished else GameStatus.ACTIVE.value,
            outcome.termination.value if outcome else None,
            outcome.winner.value if outcome and outcome.winner else None,
            now if finished else None,
            0 if color is Color.BLACK else 1,
        )

        async def work(conn: _Conn) -> GameRecord:
            row = await conn.fetchrow(
                SQL_PLAY_MOVE, game_id, expected_version, *params, point.x, point.y, color.value
            )
            if row is None:
                game = await self._cas_failed(conn, game_id, expected_version)
                if game.status is not GameStatus.ACTIVE:
                    raise InvalidStatusError(game_id, game.status)
                raise MoveOrderError(game_id, game.ply, "colour")
            game = _game(row)
            if finished:
                await self._rate(conn, game)
            return game

        return await self._run(work, transaction=finished)

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

        async def work(conn: _Conn) -> GameRecord:
            if count < 1:
                game = await self._cas_failed(conn, game_id, expected_version)
                raise MoveOrderError(game_id, game.ply, "takeback")
            row = await conn.fetchrow(
                SQL_TAKE_BACK, game_id, expected_version, count, deadline, now
            )
            if row is None:
                game = await self._cas_failed(conn, game_id, expected_version)
                if game.status is not GameStatus.ACTIVE:
                    raise InvalidStatusError(game_id, game.status)
                raise MoveOrderError(game_id, game.ply, "takeback")
            game = _game(row)
            await conn.execute(
                SQL_INSERT_TAKEBACK, game_id, game.version, game.ply + count, game.ply, now
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
        params = (
            outcome.termination.value,
            outcome.winner.value if outcome.winner else None,
            self._now(),
            ended_by,
            end_reason,
        )

        async def work(conn: _Conn) -> GameRecord:
            game = await self._cas(
                conn, SQL_FINISH, game_id, expected_version, params, [GameStatus.ACTIVE]
            )
            await self._rate(conn, game)
            return game

        return await self._run(work)

    async def move_game(self, game_id: int, channel_id: int, *, parent_channel_id: int) -> None:
        """Move an open game into a thread (version unchanged)."""

        async def work(conn: _Conn) -> None:
            try:
                async with conn.transaction():
                    moved = await conn.fetchrow(
                        SQL_MOVE_GAME, game_id, channel_id, parent_channel_id
                    )
            except asyncpg.UniqueViolationError as error:
                busy = await conn.fetchrow(SQL_OPEN_GAME_IN_CHANNEL, channel_id)
                raise ChannelBusyError(channel_id, busy[0] if busy else None) from error
            if moved is None:
                row = await conn.fetchrow(SQL_GET_GAME, game_id)
                if row is None:
                    raise GameNotFoundError(game_id)
                raise InvalidStatusError(game_id, _game(row).status)

        await self._run(work)

    async def _rate(self, conn: _Conn, game: GameRecord) -> None:
        """Update ratings and statistics for a game that just finished (if it counts)."""
        outcome = game.outcome
        black, white = game.black.user_id, game.white.user_id
        if not game.rated or outcome is None or outcome.termination is Termination.ABANDONED:
            return
        if black is None or white is None:
            return  # a seat was deleted on request; nobody left to rate
        finished_at = game.finished_at or game.updated_at
        # Another process finishing a game of the same player waits here rather than
        # overwriting this update; locks are taken in user-id order, so never a deadlock.
        # Each READ COMMITTED statement after the lock sees the other's committed rows.
        for user in sorted({black, white}):
            await conn.execute(SQL_LOCK_PLAYER, user)
        scopes = [_OVERALL] if game.guild_id is None else [_OVERALL, game.guild_id]
        for scope in scopes:
            guild = None if scope == _OVERALL else scope
            rows = await conn.fetch(SQL_STATS_OF, scope, game.game.value, [black, white])
            found = {row["user_id"]: _stats(row) for row in rows}
            before = [found.get(u) or new_stats(u, game.game, guild) for u in (black, white)]
            for stats in rate_game(before[0], before[1], outcome.winner, finished_at):
                await conn.execute(
                    SQL_UPSERT_STATS,
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
                    stats.updated_at,
                    stats.ordinal,
                )

    async def set_deadline(
        self, game_id: int, expected_version: int, deadline: datetime | None
    ) -> GameRecord:
        """Move an open game's deadline and clear the warning flag."""
        params = (deadline, self._now())

        async def work(conn: _Conn) -> GameRecord:
            return await self._cas(
                conn,
                SQL_SET_DEADLINE,
                game_id,
                expected_version,
                params,
                [GameStatus.PENDING, GameStatus.ACTIVE],
            )

        return await self._run(work)

    async def mark_warning_sent(self, game_id: int, expected_version: int) -> None:
        """Record this turn's low-time warning (version unchanged)."""

        async def work(conn: _Conn) -> None:
            if await conn.fetchrow(SQL_MARK_WARNING, game_id, expected_version) is None:
                game = await self._cas_failed(conn, game_id, expected_version)
                raise InvalidStatusError(game_id, game.status)

        await self._run(work, transaction=False)

    async def set_message(self, game_id: int, *, channel_id: int, message_id: int) -> None:
        """Remember the message showing the game (version unchanged)."""

        async def work(conn: _Conn) -> None:
            if await conn.fetchrow(SQL_SET_MESSAGE, channel_id, message_id, game_id) is None:
                raise GameNotFoundError(game_id)

        await self._run(work, transaction=False)

    async def move_history(self, game_id: int) -> list[MoveRecord]:
        """Every move row of the game in write order, taken back or not."""

        async def work(conn: _Conn) -> list[MoveRecord]:
            if await conn.fetchrow(SQL_GET_GAME, game_id) is None:
                raise GameNotFoundError(game_id)
            return [_move(row) for row in await conn.fetch(SQL_GAME_MOVES, game_id)]

        return await self._read(work, snapshot=True)

    async def save_undo_request(self, request: StoredUndo) -> None:
        """Store the game's undo request, replacing any older one."""

        async def work(conn: _Conn) -> None:
            if await conn.fetchrow(SQL_GET_GAME, request.game_id) is None:
                raise GameNotFoundError(request.game_id)
            await conn.execute(
                SQL_SAVE_UNDO,
                request.game_id,
                request.requester,
                request.responder,
                request.version,
                request.moves,
                request.made_at,
            )

        await self._run(work)

    async def undo_request(self, game_id: int) -> StoredUndo | None:
        """The game's stored undo request, if any."""

        async def work(conn: _Conn) -> StoredUndo | None:
            row = await conn.fetchrow(SQL_GET_UNDO, game_id)
            return None if row is None else StoredUndo(*row)

        return await self._read(work)

    async def drop_undo_request(self, game_id: int) -> None:
        """Forget the game's undo request."""

        async def work(conn: _Conn) -> None:
            await conn.execute(SQL_DROP_UNDO, game_id)

        await self._run(work)

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
        before = _NO_ID_LIMIT if before_id is None else before_id

        async def work(conn: _Conn) -> list[GameRecord]:
            rows = await conn.fetch(SQL_USER_GAMES, user_id, before, guild_id, limit)
            return [_game(row) for row in rows]

        return await self._read(work)

    async def player_stats(
        self, user_id: int, game: Game = Game.GOMOKU, *, guild_id: int | None = None
    ) -> PlayerStats | None:
        """Rating and record in rated games of ``game``."""
        scope = _OVERALL if guild_id is None else guild_id

        async def work(conn: _Conn) -> PlayerStats | None:
            row = await conn.fetchrow(SQL_PLAYER_STATS, scope, game.value, user_id)
            return None if row is None else _stats(row)

        return await self._read(work)

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

        async def work(conn: _Conn) -> list[PlayerStats]:
            rows = await conn.fetch(SQL_LEADERBOARD, scope, game.value, min_games, limit, offset)
            return [_stats(row) for row in rows]

        return await self._read(work)

    async def user_results(self, user_id: int, *, guild_id: int | None = None) -> list[ResultCount]:
        """How the user's finished games went, by game kind, rule and opponent level."""

        async def work(conn: _Conn) -> list[ResultCount]:
            lines: dict[tuple[Game, Rule, str], dict[str, int]] = {}
            for kind, rule, level, result, count in await conn.fetch(
                SQL_USER_RESULTS, user_id, guild_id
            ):
                lines.setdefault((Game(kind), Rule(rule), level or ""), {})[result] = count
            return [
                ResultCount(kind, rule, level or None, **counts)
                for (kind, rule, level), counts in sorted(lines.items())
            ]

        return await self._read(work)

    async def delete_user_data(self, user_id: int) -> int:
        """Forget a user (see ``GameRepository.delete_user_data``)."""
        now = self._now()

        async def work(conn: _Conn) -> int:
            touched = len(await conn.fetch(SQL_USER_GAME_IDS, user_id))
            await conn.execute(SQL_ABANDON_USER_GAMES, user_id, now)
            for sql in SQL_FORGET_USER:
                await conn.execute(sql, user_id)
            return touched

        return await self._run(work)

    # --- guilds -------------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, defaults if never saved."""

        async def work(conn: _Conn) -> GuildSettings:
            row = await conn.fetchrow(SQL_GUILD_SETTINGS, guild_id)
            if row is None:
                return GuildSettings(guild_id)
            return GuildSettings(
                rated_opening=row[10],
                language=row[11],
                guild_id=guild_id,
                default_rule=Rule(row[0]),
                turn_seconds=row[1],
                board_style=row[2],
                allowed_channel_ids=frozenset(row[9]),
                use_threads=row[3],
                moderator_role_id=row[4],
                idle_human_seconds=row[5],
                idle_ai_seconds=row[6],
                turn_pings=row[7],
                ai_clock=row[8],
            )

        return await self._read(work)

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        """Replace the guild's settings."""
        params = (
            settings.guild_id,
            settings.default_rule.value,
            settings.turn_seconds,
            settings.board_style,
            self._now(),
            settings.use_threads,
            settings.moderator_role_id,
            settings.idle_human_seconds,
            settings.idle_ai_seconds,
            settings.turn_pings,
            settings.ai_clock,
        )

        async def work(conn: _Conn) -> None:
            await conn.execute(SQL_SAVE_GUILD_SETTINGS, *params)
            await conn.execute(SQL_CLEAR_GUILD_CHANNELS, settings.guild_id)
            for channel_id in sorted(settings.allowed_channel_ids):
                await conn.execute(SQL_ADD_GUILD_CHANNEL, settings.guild_id, channel_id)
            if settings.rated_opening is None:
                await conn.execute(SQL_CLEAR_GUILD_OPENING, settings.guild_id)
            else:
                await conn.execute(
                    SQL_SAVE_GUILD_OPENING, settings.guild_id, settings.rated_opening
                )
            if settings.language is None:
                await conn.execute(SQL_CLEAR_GUILD_LANGUAGE, settings.guild_id)
            else:
                await conn.execute(SQL_SAVE_GUILD_LANGUAGE, settings.guild_id, settings.language)

        await self._run(work)

    async def set_open_turn_seconds(
        self, guild_id: int, turn_seconds: int | None, *, ai_games: bool
    ) -> int:
        """New turn time for the guild's open games, from their next turn."""

        async def work(conn: _Conn) -> int:
            status = await conn.execute(SQL_SET_OPEN_TURN_SECONDS, guild_id, turn_seconds, ai_games)
            return int(status.rsplit(" ", 1)[-1])  # "UPDATE n"

        return await self._run(work)

    # --- users --------------------------------------------------------------------------

    async def user_view(self, user_id: int) -> str | None:
        """The user's board view, None if never chosen."""

        async def work(conn: _Conn) -> str | None:
            view = await conn.fetchval(SQL_USER_VIEW, user_id)
            return None if view is None else str(view)

        return await self._read(work)

    async def save_user_view(self, user_id: int, view: str) -> None:
        """Remember the user's board view."""
        now = self._now()

        async def work(conn: _Conn) -> None:
            await conn.execute(SQL_SAVE_USER_VIEW, user_id, view, now)

        await self._run(work)

    async def user_language(self, user_id: int) -> str | None:
        """The user's language, None if never chosen."""

        async def work(conn: _Conn) -> str | None:
            language = await conn.fetchval(SQL_USER_LANGUAGE, user_id)
            return None if language is None else str(language)

        return await self._read(work)

    async def save_user_language(self, user_id: int, language: str | None) -> None:
        """Remember (or with None forget) the user's language."""
        now = self._now()

        async def work(conn: _Conn) -> None:
            if language is None:
                await conn.execute(SQL_CLEAR_USER_LANGUAGE, user_id)
            else:
                await conn.execute(SQL_SAVE_USER_LANGUAGE, user_id, language, now)

        await self._run(work)

    # --- replies to finish --------------------------------------------------------------

    async def save_pending_reply(self, reply: PendingReply) -> None:
        """Remember a deferred reply."""

        async def work(conn: _Conn) -> None:
            await conn.execute(
                SQL_SAVE_PENDING_REPLY,
                reply.token,
                reply.game_id,
                reply.application_id,
                reply.message_id,
                reply.user_id,
                reply.created_at,
            )

        await self._run(work, transaction=False)

    async def pending_replies(self) -> list[PendingReply]:
        """Every reply still waiting, oldest first."""

        async def work(conn: _Conn) -> list[PendingReply]:
            return [PendingReply(*row) for row in await conn.fetch(SQL_PENDING_REPLIES)]

        return await self._read(work)

    async def drop_pending_reply(self, token: str) -> None:
        """Forget a reply."""

        async def work(conn: _Conn) -> None:
            await conn.execute(SQL_DROP_PENDING_REPLY, token)

        await self._run(work, transaction=False)

    # --- turn pings ---------------------------------------------------------------------

    async def turn_ping(self, game_id: int) -> TurnPing | None:
        """The game's stored ping."""

        async def work(conn: _Conn) -> TurnPing | None:
            row = await conn.fetchrow(SQL_TURN_PING, game_id)
            return None if row is None else TurnPing(game_id, row[0], row[1], row[2])

        return await self._read(work)

    async def save_turn_ping(self, ping: TurnPing) -> None:
        """Keep the game's ping."""

        async def work(conn: _Conn) -> None:
            await conn.execute(
                SQL_SAVE_TURN_PING, ping.game_id, ping.channel_id, ping.message_id, ping.version
            )

        await self._run(work, transaction=False)

    async def drop_turn_ping(self, game_id: int) -> None:
        """Forget the game's ping."""

        async def work(conn: _Conn) -> None:
            await conn.execute(SQL_DROP_TURN_PING, game_id)

        await self._run(work, transaction=False)

    # --- openings, reviews and puzzles ----------------------------------------------------

    async def game_opening(self, game_id: int) -> GameOpening | None:
        """The game's opening rule and steps, None without one."""

        async def work(conn: _Conn) -> GameOpening | None:
            row = await conn.fetchrow(SQL_GAME_OPENING, game_id)
            if row is None:
                if await conn.fetchrow(SQL_GET_GAME, game_id) is None:
                    raise GameNotFoundError(game_id)
                return None
            return GameOpening(game_id, row[0], tuple(row[1].split()))

        return await self._read(work, snapshot=True)

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
        params = (black.user_id, black.level, white.user_id, white.level, deadline, self._now())

        async def work(conn: _Conn) -> GameRecord:
            row = await conn.fetchrow(SQL_OPENING_STEP, game_id, expected_version, *params)
            if row is None:
                game = await self._cas_failed(conn, game_id, expected_version)
                if game.status is not GameStatus.ACTIVE:
                    raise InvalidStatusError(game_id, game.status)
                raise ValueError(f"game {game_id} has no opening rule")
            await conn.execute(SQL_APPEND_OPENING_STEP, game_id, step)
            return _game(row)

        return await self._run(work)

    async def save_review(self, game_id: int, data: str) -> None:
        """Store the game's review, replacing any older one."""
        now = self._now()

        async def work(conn: _Conn) -> None:
            if await conn.fetchrow(SQL_GET_GAME, game_id) is None:
                raise GameNotFoundError(game_id)
            await conn.execute(SQL_SAVE_REVIEW, game_id, data, now)

        await self._run(work)

    async def review(self, game_id: int) -> str | None:
        """The game's stored review, if any."""

        async def work(conn: _Conn) -> str | None:
            data = await conn.fetchval(SQL_GET_REVIEW, game_id)
            return None if data is None else str(data)

        return await self._read(work)

    async def guild_reviews(self, guild_id: int, limit: int = 20) -> list[tuple[int, str]]:
        """(game id, review) of the guild's reviewed games, the newest review first."""

        async def work(conn: _Conn) -> list[tuple[int, str]]:
            rows = await conn.fetch(SQL_GUILD_REVIEWS, guild_id, limit)
            return [(int(row[0]), str(row[1])) for row in rows]

        return await self._read(work)

    async def set_daily_puzzle_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Post the daily puzzle in ``channel_id`` (None: stop)."""

        async def work(conn: _Conn) -> None:
            if channel_id is None:
                await conn.execute(SQL_STOP_DAILY, guild_id)
            else:
                await conn.execute(SQL_SET_DAILY, guild_id, channel_id)

        await self._run(work)

    async def daily_puzzle_channels(self) -> list[tuple[int, int, str | None]]:
        """(guild, channel, last day posted) of every guild with a daily puzzle."""

        async def work(conn: _Conn) -> list[tuple[int, int, str | None]]:
            rows = await conn.fetch(SQL_DAILY_CHANNELS)
            return [(int(g), int(c), None if d is None else str(d)) for g, c, d in rows]

        return await self._read(work)

    async def claim_daily_puzzle(self, guild_id: int, day: str) -> bool:
        """Mark ``day`` posted for the guild; False if it was already."""

        async def work(conn: _Conn) -> bool:
            return await conn.fetchrow(SQL_CLAIM_DAILY, guild_id, day) is not None

        return await self._run(work)

    async def puzzle_player(self, guild_id: int, user_id: int) -> PuzzlePlayer | None:
        """The user's puzzle record in the guild, if any."""

        async def work(conn: _Conn) -> PuzzlePlayer | None:
            row = await conn.fetchrow(SQL_GET_PUZZLE_PLAYER, guild_id, user_id)
            return None if row is None else PuzzlePlayer(*row)

        return await self._read(work)

    async def save_puzzle_player(self, player: PuzzlePlayer) -> None:
        """Store the user's puzzle record."""

        async def work(conn: _Conn) -> None:
            await conn.execute(
                SQL_SAVE_PUZZLE_PLAYER,
                player.guild_id,
                player.user_id,
                player.rating,
                player.streak,
                player.best_streak,
                player.solved,
                player.failed,
                player.attempt,
            )

        await self._run(work)

    async def puzzle_leaderboard(self, guild_id: int, limit: int = 10) -> list[PuzzlePlayer]:
        """The guild's best puzzle solvers."""

        async def work(conn: _Conn) -> list[PuzzlePlayer]:
            rows = await conn.fetch(SQL_PUZZLE_LEADERBOARD, guild_id, limit)
            return [PuzzlePlayer(*row) for row in rows]

        return await self._read(work)

    async def puzzles_seen(self, guild_id: int, user_id: int) -> frozenset[str]:
        """The keys of the puzzles the user has finished in the guild."""

        async def work(conn: _Conn) -> frozenset[str]:
            rows = await conn.fetch(SQL_PUZZLES_SEEN, guild_id, user_id)
            return frozenset(str(row[0]) for row in rows)

        return await self._read(work)

    async def mark_puzzle_seen(self, guild_id: int, user_id: int, key: str) -> None:
        """Remember that the user finished puzzle ``key`` in the guild."""

        async def work(conn: _Conn) -> None:
            await conn.execute(SQL_MARK_PUZZLE_SEEN, guild_id, user_id, key)

        await self._run(work)

    async def unsearched_games(self, limit: int = 1) -> list[int]:
        """Finished Gomoku games in a guild, with moves, not yet searched for puzzles."""

        async def work(conn: _Conn) -> list[int]:
            return [int(row[0]) for row in await conn.fetch(SQL_UNSEARCHED_GAMES, limit)]

        return await self._read(work)

    async def save_game_puzzles(self, game_id: int, data: str) -> None:
        """Store the puzzles found in the game."""
        now = self._now()

        async def work(conn: _Conn) -> None:
            if await conn.fetchrow(SQL_GET_GAME, game_id) is None:
                raise GameNotFoundError(game_id)
            await conn.execute(SQL_SAVE_GAME_PUZZLES, game_id, data, now)

        await self._run(work)

    async def guild_game_puzzles(self, guild_id: int, limit: int = 50) -> list[tuple[int, str]]:
        """(game id, puzzles) of the guild's searched games, the newest game first."""

        async def work(conn: _Conn) -> list[tuple[int, str]]:
            rows = await conn.fetch(SQL_GUILD_GAME_PUZZLES, guild_id, limit)
            return [(int(row[0]), str(row[1])) for row in rows]

        return await self._read(work)
