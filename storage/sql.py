"""``SqlGameRepository``: the ``GameRepository`` written once in SQL, for SQLite and PostgreSQL.

Every statement and every rule the contract asks of a database (compare-and-set on the game's
version, append-only moves, ratings in the transaction that finishes a rated game) is here,
once. The two databases differ in how SQL reaches them, and that is all a dialect provides:

* an ``Executor`` per unit of work: ``fetch``, ``fetchrow``, ``execute`` (returns the rows
  changed), ``executemany`` and ``savepoint()``. Statements are written with PostgreSQL's
  numbered parameters (``$1``); the SQLite executor rewrites them as ``?1`` and stores
  datetimes as integer microseconds since the epoch (PostgreSQL keeps ``timestamptz``); rows
  decode the same either way (see ``_time``);
* ``_write`` and ``_read``: where and how a unit of work runs (SQLite: group commits on one
  writer, small reads inline; PostgreSQL: a pooled connection, a transaction when needed);
* the few places where the SQL really differs: ``_ID_LIST`` (an aggregate of ids as text),
  ``_play`` (a move and its stone in one statement: PostgreSQL's UPDATE and INSERT in one
  ``WITH``, SQLite's UPDATE with a trigger that writes the stone), ``_lock_players``
  (PostgreSQL serializes two processes rating the same player; SQLite has one writer) and
  ``_REFUSED_INSERT_USES_ID`` (PostgreSQL looks for a busy channel before a new game).

A new column or query is one method here and one migration per dialect in
``storage/migrations/{sqlite,postgres}/``.

The module is long because it is the whole contract's SQL: split by table, the transactions
that span tables (finishing a rated game writes the game, its moves and both ratings) would
have to reach across modules.
"""

from __future__ import annotations

import enum
import importlib.resources
import re
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Final, Protocol, TypeVar

from engine.types import Color, Game, Outcome, Point, Rule, Termination
from storage.club import (
    Entrant,
    EntrantStatus,
    Format,
    NewTournament,
    Pairing,
    QueueEntry,
    Result,
    Round,
    RoundStatus,
    Tournament,
    TournamentStatus,
    check_result,
    checked_round,
)
from storage.errors import (
    ChannelBusyError,
    GameNotFoundError,
    InvalidStatusError,
    MoveOrderError,
    RoundPairedError,
    TournamentNotFoundError,
    TournamentStatusError,
    VersionConflictError,
)
from storage.ratings import new_stats, rate_game
from storage.records import (
    CHALLENGE_CLOSINGS,
    END_REASONS,
    GameOpening,
    GameRecord,
    GameSnapshot,
    GameStatus,
    GuildSettings,
    MoveRecord,
    NewGame,
    PendingReply,
    Player,
    PlayerStats,
    PuzzlePlayer,
    ResultCount,
    StoredUndo,
    TurnPing,
    live_moves,
)

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["Executor", "Migration", "Row", "SqlGameRepository", "load_migrations"]

_T = TypeVar("_T")
_R = TypeVar("_R", bound="SqlGameRepository")
_E = TypeVar("_E", bound=enum.Enum)
APPLICATION_ID = 0x476D6B62  # "Gmkb": marks a database as this bot's (file header, schema table)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_NO_ID_LIMIT = 2**63 - 1
_OVERALL = 0  # player_stats.scope for "every guild"


class Row(Protocol):
    """A result row: a tuple (sqlite3) or an ``asyncpg.Record``, read by position."""

    def __getitem__(self, index: int, /) -> Any: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Any]: ...


class Executor(Protocol):
    """What a unit of work sees of its database connection."""

    async def fetch(self, sql: str, *args: Any) -> Sequence[Row]: ...

    async def fetchrow(self, sql: str, *args: Any) -> Row | None: ...

    async def execute(self, sql: str, *args: Any) -> int: ...

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None: ...

    def savepoint(self) -> AbstractAsyncContextManager[Any]:
        """A block whose failed statement leaves the rest of the transaction usable."""


Work = Callable[[Executor], Awaitable[_T]]


# --------------------------------------------------------------------------------------------
# Migrations


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered schema step from ``storage/migrations/<dialect>/NNNN_name.sql``."""

    version: int  # the schema version after it: the same numbers in both dialects
    name: str  # the file name
    sql: str


def load_migrations(dialect: str) -> tuple[Migration, ...]:
    """The dialect's migrations in order. Numbers are reserved per change written in
    parallel, so one may be missing for a while; each file still applies once, in order,
    and the database records the last one applied."""
    folder = importlib.resources.files("storage") / "migrations" / dialect
    found = []
    for entry in folder.iterdir():
        match = re.fullmatch(r"(\d{4})_\w+\.sql", entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if not versions or versions[0] != 1 or len(set(versions)) != len(versions):
        raise RuntimeError(f"migrations must be numbered from 1, once each: {versions}")
    return tuple(found)


# --------------------------------------------------------------------------------------------
# Rows to records (the only place they meet)


def _time(value: datetime | int) -> datetime:
    """A stored time: PostgreSQL's timestamptz, or SQLite's microseconds since the epoch."""
    return value if isinstance(value, datetime) else _EPOCH + value * _MICROSECOND


def _time_or_none(value: datetime | int | None) -> datetime | None:
    return None if value is None else _time(value)


@lru_cache(maxsize=4096)
def _player(user_id: int | None, level: str | None) -> Player:
    # Players are frozen: the seats of the games being played are made once, not per read.
    return Player(user_id=user_id, level=level)


def _members(kind: type[_E]) -> Callable[[Any], _E]:
    """``kind(value)`` by a dict lookup (an enum's own call costs a microsecond, and every
    game read makes four); unknown values still go to ``kind`` to be refused."""
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


def _game(row: Row) -> GameRecord:
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
        deadline=_time_or_none(row[17]),
        warning_sent=bool(row[18]),
        turn_seconds=row[19],
        created_by=row[20],
        created_at=_time(row[21]),
        updated_at=_time(row[22]),
        finished_at=_time_or_none(row[23]),
        ply=row[24],
        version=row[25],
        ended_by=row[26],
        end_reason=row[27],
        parent_channel_id=row[28],
    )


MOVE_COLUMNS = "game_id, ply, x, y, color, made_at, seq"


def _move(row: Row) -> MoveRecord:
    return MoveRecord(row[0], row[1], Point(row[2], row[3]), _COLOR(row[4]), _time(row[5]), row[6])


STATS_COLUMNS = (
    "scope, game, rule, user_id, mu, sigma, wins_black, wins_white, losses_black, losses_white,"
    " draws_black, draws_white, streak, best_streak, updated_at"
)


def _stats(row: Row) -> PlayerStats:
    # Fields in order: user_id, game, guild_id, the columns from mu to updated_at, the rule.
    guild = None if row[0] == _OVERALL else row[0]
    values = (row[3], _GAME(row[1]), guild, *tuple(row)[4:14], _time(row[14]), Rule(row[2]))
    return PlayerStats(*values)


def _stats_params(scope: int, stats: PlayerStats) -> tuple[Any, ...]:
    """``SQL_UPSERT_STATS``'s parameters: the key, the fields from ``mu`` to ``updated_at``,
    the ordinal."""
    key = (scope, stats.game.value, stats.rule.value, stats.user_id)
    return (*key, *_values(stats)[3:-1], stats.ordinal)


def _columns(record: type[DataclassInstance]) -> str:
    """A record's fields as the columns of its table, where the two are named alike."""
    return ", ".join(field.name for field in fields(record))


def _values(record: DataclassInstance) -> tuple[Any, ...]:
    """A record's field values in ``_columns`` order."""
    return tuple(getattr(record, field.name) for field in fields(record))


def _timed(record: Callable[..., _T]) -> Callable[[Row], _T]:
    """The decoder of a row of ``_columns(record)`` whose last column is a stored time."""

    def decode(row: Row) -> _T:
        *values, at = row
        return record(*values, _time(at))

    return decode


def _undo(row: Row) -> StoredUndo:
    """A row of ``_columns(StoredUndo)``: the stored time, then where it was posted."""
    game_id, requester, responder, version, moves, at, channel_id, message_id = row
    return StoredUndo(
        game_id, requester, responder, version, moves, _time(at), channel_id, message_id
    )


def _upsert(table: str, columns: str, *, key: int = 1) -> str:
    """``INSERT`` a row of ``columns`` (parameters ``$1``… in order), replacing the row with
    the same first ``key`` columns (the table's primary key)."""
    names = [name.strip() for name in columns.split(",")]
    values = ", ".join(f"${n}" for n in range(1, len(names) + 1))
    return f"INSERT INTO {table} ({columns}) VALUES ({values}){_replacing(names, key)}"


def _upsert_rows(table: str, columns: str, *, key: int = 1) -> str:
    """SQLite: ``_upsert`` of every row of a JSON array (``$1``: each row an array of
    ``columns``' values, in order), in one statement: one that fails writes none of them,
    where ``executemany`` would keep the rows before it. (``WHERE true``: SQLite's grammar
    reads an ``ON`` right after ``FROM``'s table as a join's.)"""
    names = [name.strip() for name in columns.split(",")]
    values = ", ".join(f"value ->> {n}" for n in range(len(names)))
    return (
        f"INSERT INTO {table} ({columns}) SELECT {values} FROM json_each($1) WHERE true"
        f"{_replacing(names, key)}"
    )


def _replacing(names: list[str], key: int) -> str:
    """The clause of an upsert that replaces the row with the same first ``key`` columns."""
    updates = ", ".join(f"{name} = excluded.{name}" for name in names[key:])
    return f" ON CONFLICT ({', '.join(names[:key])}) DO UPDATE SET {updates}"


# --------------------------------------------------------------------------------------------
# Statements. Named here so a test can check that the queries the bot depends on use indexes.

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
# $1 user, $2 ids below, $3 guild or NULL, $4 limit. Each half uses its colour's index.
SQL_USER_GAMES = f"""
SELECT {GAME_COLUMNS} FROM (
    SELECT * FROM (
        SELECT * FROM games
        WHERE black_user_id = $1 AND id < $2 AND status = 'finished'
            AND (CAST($3 AS bigint) IS NULL OR guild_id = $3)
        ORDER BY id DESC LIMIT $4) AS as_black
    UNION
    SELECT * FROM (
        SELECT * FROM games
        WHERE white_user_id = $1 AND id < $2 AND status = 'finished'
            AND (CAST($3 AS bigint) IS NULL OR guild_id = $3)
        ORDER BY id DESC LIMIT $4) AS as_white
) AS mine
ORDER BY id DESC LIMIT $4
"""
SQL_PLAYER_STATS = f"""
SELECT {STATS_COLUMNS} FROM player_stats
WHERE scope = $1 AND game = $2 AND rule = $3 AND user_id = $4
"""
SQL_STATS_OF_TWO = f"""
SELECT {STATS_COLUMNS} FROM player_stats
WHERE scope = $1 AND game = $2 AND rule = $3 AND user_id IN ($4, $5)
"""
SQL_LEADERBOARD = f"""
SELECT {STATS_COLUMNS} FROM player_stats
WHERE scope = $1 AND game = $2 AND rule = $6
    AND wins_black + wins_white + losses_black + losses_white + draws_black + draws_white >= $3
ORDER BY ordinal DESC, user_id
LIMIT $4 OFFSET $5
"""
SQL_UPSERT_STATS = _upsert("player_stats", f"{STATS_COLUMNS}, ordinal", key=4)
# Compare-and-sets: $1 id, $2 version, then the statement's own parameters.
# A move that does not end the game sets only what a move changes: setting the status, even
# to its value, makes SQLite rewrite the entries of every partial index that names it, several
# times the cost of the rest of the write. $5: the mover's parity (0 black).
SQL_APPEND_MOVE = f"""
UPDATE games SET
    version = version + 1, ply = ply + 1, deadline = $3, warning_sent = false, updated_at = $4
WHERE id = $1 AND version = $2 AND status = 'active' AND ply % 2 = $5
RETURNING {GAME_COLUMNS}
"""
# $3 the time, $4 the termination, $5 the winner, $6 the mover's parity.
SQL_FINAL_MOVE = f"""
UPDATE games SET
    version = version + 1, ply = ply + 1, deadline = NULL, warning_sent = false,
    updated_at = $3, status = 'finished', termination = $4, winner = $5, finished_at = $3
WHERE id = $1 AND version = $2 AND status = 'active' AND ply % 2 = $6
RETURNING {GAME_COLUMNS}
"""
SQL_INSERT_MOVE = f"INSERT INTO moves ({MOVE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"
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
# One statement moves every open clock; the version and the warning flag stay (see
# ``GameRepository.shift_deadlines``). ``$1`` is an interval (SQLite: integer microseconds,
# as its times are stored).
SQL_SHIFT_DEADLINES = """
UPDATE games SET deadline = deadline + $1
WHERE deadline IS NOT NULL AND status IN ('pending', 'active')
"""
SQL_SHIFT_DEADLINE = """
UPDATE games SET deadline = deadline + $1
WHERE id = $2 AND deadline IS NOT NULL AND status IN ('pending', 'active')
"""
SQL_MARK_WARNING = """
UPDATE games SET warning_sent = true
WHERE id = $1 AND version = $2 AND status IN ('pending', 'active')
RETURNING id
"""
SQL_OPENING_STEP = f"""
UPDATE games SET
    version = version + 1, black_user_id = $3, black_level = $4,
    white_user_id = $5, white_level = $6, deadline = $7, warning_sent = false, updated_at = $8
WHERE id = $1 AND version = $2 AND status = 'active'
    AND EXISTS (SELECT 1 FROM game_openings WHERE game_id = $1)
RETURNING {GAME_COLUMNS}
"""
SQL_SET_MESSAGE = (
    "UPDATE games SET message_channel_id = $1, message_id = $2 WHERE id = $3 RETURNING id"
)
SQL_MARK_SHOWN = """
UPDATE games SET shown_version = $2
WHERE id = $1 AND (shown_version IS NULL OR shown_version < $2)
"""
SQL_UNSHOWN_GAMES = f"""
SELECT {GAME_COLUMNS} FROM games
WHERE status IN ('pending', 'active') AND (shown_version IS NULL OR shown_version < version)
ORDER BY id
"""
SQL_MOVE_GAME = """
UPDATE games SET channel_id = $2, parent_channel_id = $3
WHERE id = $1 AND status IN ('pending', 'active')
RETURNING id
"""
SQL_INSERT_OPENING = "INSERT INTO game_openings (game_id, rule) VALUES ($1, $2)"
SQL_GAME_OPENING = "SELECT rule, steps FROM game_openings WHERE game_id = $1"
SQL_APPEND_OPENING_STEP = (
    "UPDATE game_openings SET steps = ltrim(steps || ' ' || $2) WHERE game_id = $1"
)
SQL_SAVE_UNDO = _upsert("undo_requests", _columns(StoredUndo))
SQL_GET_UNDO = f"SELECT {_columns(StoredUndo)} FROM undo_requests WHERE game_id = $1"
SQL_UNDO_REQUESTS = f"SELECT {_columns(StoredUndo)} FROM undo_requests ORDER BY game_id"
SQL_SET_UNDO_MESSAGE = (
    "UPDATE undo_requests SET channel_id = $3, message_id = $4 WHERE game_id = $1 AND version = $2"
)
SQL_DROP_UNDO = "DELETE FROM undo_requests WHERE game_id = $1"
SQL_SAVE_REVIEW = _upsert("game_reviews", "game_id, data, made_at")
SQL_GET_REVIEW = "SELECT data FROM game_reviews WHERE game_id = $1"
SQL_GUILD_REVIEWS = """
SELECT r.game_id, r.data FROM game_reviews r JOIN games g ON g.id = r.game_id
WHERE g.guild_id = $1 ORDER BY r.made_at DESC, r.game_id DESC LIMIT $2
"""
SQL_SET_DAILY = _upsert("daily_puzzles", "guild_id, channel_id")
SQL_STOP_DAILY = "DELETE FROM daily_puzzles WHERE guild_id = $1"
SQL_DAILY_CHANNELS = "SELECT guild_id, channel_id, last_day FROM daily_puzzles ORDER BY guild_id"
SQL_CLAIM_DAILY = """
UPDATE daily_puzzles SET last_day = $2
WHERE guild_id = $1 AND (last_day IS NULL OR last_day != $2)
RETURNING guild_id
"""
_PUZZLE_COLUMNS = _columns(PuzzlePlayer)
SQL_GET_PUZZLE_PLAYER = (
    f"SELECT {_PUZZLE_COLUMNS} FROM puzzle_players WHERE guild_id = $1 AND user_id = $2"
)
SQL_SAVE_PUZZLE_PLAYER = _upsert("puzzle_players", _PUZZLE_COLUMNS, key=2)
SQL_PUZZLE_LEADERBOARD = f"""
SELECT {_PUZZLE_COLUMNS} FROM puzzle_players
WHERE guild_id = $1 AND solved + failed > 0
ORDER BY rating DESC, solved DESC, user_id
LIMIT $2
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
SQL_SAVE_GAME_PUZZLES = _upsert("game_puzzles", "game_id, data, made_at")
SQL_GUILD_GAME_PUZZLES = """
SELECT p.game_id, p.data FROM game_puzzles p JOIN games g ON g.id = p.game_id
WHERE g.guild_id = $1 ORDER BY p.game_id DESC LIMIT $2
"""
# One row per (kind, rule, opponent level, result) of a user's finished games, as either
# colour; the two halves use the per-colour indexes. $1 user, $2 guild or NULL.
SQL_USER_RESULTS = """
SELECT game, rule, opponent_level, result, count(*) FROM (
    SELECT game, rule, white_level AS opponent_level,
        CASE WHEN winner = 'black' THEN 'wins' WHEN winner = 'white' THEN 'losses'
             WHEN termination = 'draw' THEN 'draws' ELSE 'unfinished' END AS result
    FROM games
    WHERE black_user_id = $1 AND status = 'finished'
        AND (CAST($2 AS bigint) IS NULL OR guild_id = $2)
    UNION ALL
    SELECT game, rule, black_level,
        CASE WHEN winner = 'white' THEN 'wins' WHEN winner = 'black' THEN 'losses'
             WHEN termination = 'draw' THEN 'draws' ELSE 'unfinished' END
    FROM games
    WHERE white_user_id = $1 AND status = 'finished'
        AND (CAST($2 AS bigint) IS NULL OR guild_id = $2)
        AND (black_user_id IS NULL OR black_user_id <> $1)
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
    "DELETE FROM queue_entries WHERE user_id = $1",
)

# Forgetting a member in tournaments (``delete_user_data``): entries in open ones go; in
# started ones the rows stay for everyone else's results and tiebreaks, under a pseudonym.
SQL_USER_TOURNAMENTS = """
SELECT t.id, t.status FROM tournaments t
JOIN tournament_entrants e ON e.tournament_id = t.id
WHERE e.user_id = $1 ORDER BY t.id
"""
SQL_DROP_ENTRANT = "DELETE FROM tournament_entrants WHERE tournament_id = $1 AND user_id = $2"
SQL_NEXT_PSEUDONYM = """
SELECT COALESCE(MIN(user_id), 0) - 1 FROM tournament_entrants
WHERE tournament_id = $1 AND user_id < 0
"""
SQL_PSEUDONYMISE = (  # $1 the pseudonym, $2 the tournament, $3 the member
    "UPDATE tournament_entrants SET user_id = $1 WHERE tournament_id = $2 AND user_id = $3",
    "UPDATE tournament_pairings SET black_user_id = $1"
    " WHERE tournament_id = $2 AND black_user_id = $3",
    "UPDATE tournament_pairings SET white_user_id = $1"
    " WHERE tournament_id = $2 AND white_user_id = $3",
)
SQL_WITHDRAW_ENTRANT = (
    "UPDATE tournament_entrants SET status = 'withdrawn' WHERE tournament_id = $1 AND user_id = $2"
)
SQL_FORGET_ORGANISER = "UPDATE tournaments SET created_by = 0 WHERE created_by = $1"


@lru_cache
def guild_settings_sql(id_list: str) -> str:
    """The settings and their side tables in one statement (one snapshot, one round trip);
    ``id_list`` is the dialect's aggregate of ``channel_id`` as comma-separated text."""
    return f"""
SELECT default_rule, turn_seconds, board_style, use_threads, moderator_role_id,
    idle_human_seconds, idle_ai_seconds, turn_pings, ai_clock,
    (SELECT {id_list} FROM guild_allowed_channels WHERE guild_id = $1),
    (SELECT rated_opening FROM guild_openings WHERE guild_id = $1),
    (SELECT language FROM guild_languages WHERE guild_id = $1)
FROM guild_settings WHERE guild_id = $1
"""


SQL_SAVE_GUILD_SETTINGS = _upsert(
    "guild_settings",
    "guild_id, default_rule, turn_seconds, board_style, updated_at, use_threads,"
    " moderator_role_id, idle_human_seconds, idle_ai_seconds, turn_pings, ai_clock",
)
SQL_CLEAR_GUILD_CHANNELS = "DELETE FROM guild_allowed_channels WHERE guild_id = $1"
SQL_ADD_GUILD_CHANNEL = "INSERT INTO guild_allowed_channels (guild_id, channel_id) VALUES ($1, $2)"
SQL_SAVE_GUILD_OPENING = _upsert("guild_openings", "guild_id, rated_opening")
SQL_CLEAR_GUILD_OPENING = "DELETE FROM guild_openings WHERE guild_id = $1"
SQL_SAVE_GUILD_LANGUAGE = _upsert("guild_languages", "guild_id, language")
SQL_CLEAR_GUILD_LANGUAGE = "DELETE FROM guild_languages WHERE guild_id = $1"
# A turn time of 0 stands for "none" (NULL) in the comparison: real ones are positive.
SQL_SET_OPEN_TURN_SECONDS = """
UPDATE games SET turn_seconds = CASE
        WHEN $3 OR (black_level IS NULL AND white_level IS NULL) THEN CAST($2 AS integer)
    END
WHERE guild_id = $1 AND status IN ('pending', 'active')
    AND coalesce(turn_seconds, 0) <> coalesce(CASE
        WHEN $3 OR (black_level IS NULL AND white_level IS NULL) THEN CAST($2 AS integer)
    END, 0)
"""
SQL_USER_VIEW = "SELECT board_view FROM user_settings WHERE user_id = $1"
SQL_SAVE_USER_VIEW = _upsert("user_settings", "user_id, board_view, updated_at")
SQL_USER_LANGUAGE = "SELECT language FROM user_languages WHERE user_id = $1"
# Users' languages a read: a fixed number of ids a statement (the last read's list padded
# with its first id), so that every read is the same prepared statement
USER_LANGUAGES_A_READ: Final = 32
SQL_USER_LANGUAGES = (
    "SELECT user_id, language FROM user_languages WHERE user_id IN ("
    + ", ".join(f"${n}" for n in range(1, USER_LANGUAGES_A_READ + 1))
    + ")"
)
SQL_SAVE_USER_LANGUAGE = _upsert("user_languages", "user_id, language, updated_at")
SQL_CLEAR_USER_LANGUAGE = "DELETE FROM user_languages WHERE user_id = $1"
SQL_SAVE_PENDING_REPLY = _upsert("pending_replies", _columns(PendingReply))
SQL_PENDING_REPLIES = f"SELECT {_columns(PendingReply)} FROM pending_replies"
SQL_DROP_PENDING_REPLY = "DELETE FROM pending_replies WHERE token = $1"
SQL_TURN_PING = "SELECT channel_id, message_id, version FROM turn_pings WHERE game_id = $1"
SQL_SAVE_TURN_PING = _upsert("turn_pings", _columns(TurnPing))
SQLITE_SAVE_TURN_PINGS = _upsert_rows("turn_pings", _columns(TurnPing))
SQL_DROP_TURN_PING = "DELETE FROM turn_pings WHERE game_id = $1"

# Tournaments (``storage.club``'s records: the columns are named as the fields, but for a
# pairing's players).
_TOURNAMENT_COLUMNS = _columns(Tournament)
SQL_CREATE_TOURNAMENT = f"""
INSERT INTO tournaments ({_TOURNAMENT_COLUMNS.removeprefix("id, ")})
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING {_TOURNAMENT_COLUMNS}
"""
SQL_GET_TOURNAMENT = f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE id = $1"
SQL_LIVE_TOURNAMENTS = f"""
SELECT {_TOURNAMENT_COLUMNS} FROM tournaments
WHERE status IN ('open', 'running') AND (CAST($1 AS bigint) IS NULL OR guild_id = $1)
ORDER BY id
"""
SQL_SET_TOURNAMENT_STATUS = f"""
UPDATE tournaments SET status = $3 WHERE id = $1 AND status = $2
RETURNING {_TOURNAMENT_COLUMNS}
"""
_ENTRANT_COLUMNS = _columns(Entrant)
SQL_ADD_ENTRANT = f"""
INSERT INTO tournament_entrants ({_ENTRANT_COLUMNS}) VALUES ($1, $2, $3, 0, 'active', $4)
ON CONFLICT (tournament_id, user_id) DO UPDATE SET
    rating = excluded.rating, status = excluded.status, joined_at = excluded.joined_at
RETURNING {_ENTRANT_COLUMNS}
"""
SQL_UPDATE_ENTRANT = """
UPDATE tournament_entrants SET rating = $3, seed = $4, status = $5
WHERE tournament_id = $1 AND user_id = $2
"""
SQL_ENTRANTS = f"""
SELECT {_ENTRANT_COLUMNS} FROM tournament_entrants WHERE tournament_id = $1
ORDER BY joined_at, user_id
"""
_ROUND_COLUMNS = _columns(Round)
SQL_LATEST_ROUND = "SELECT max(number) FROM tournament_rounds WHERE tournament_id = $1"
SQL_INSERT_ROUND = f"""
INSERT INTO tournament_rounds ({_ROUND_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
"""
SQL_ROUNDS = (
    f"SELECT {_ROUND_COLUMNS} FROM tournament_rounds WHERE tournament_id = $1 ORDER BY number"
)
SQL_FINISH_ROUND = """
UPDATE tournament_rounds SET status = 'finished'
WHERE tournament_id = $1 AND number = $2 AND NOT EXISTS (
    SELECT 1 FROM tournament_pairings
    WHERE tournament_id = $1 AND round = $2 AND result IS NULL)
"""
SQL_ROUND_STATUS = "SELECT status FROM tournament_rounds WHERE tournament_id = $1 AND number = $2"
_PAIRING_COLUMNS = "tournament_id, round, board, black_user_id, white_user_id, result, game_id"
SQL_INSERT_PAIRING = (
    f"INSERT INTO tournament_pairings ({_PAIRING_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"
)
SQL_PAIRINGS = f"""
SELECT {_PAIRING_COLUMNS} FROM tournament_pairings WHERE tournament_id = $1
ORDER BY round, board
"""
SQL_PAIRING = f"""
SELECT {_PAIRING_COLUMNS} FROM tournament_pairings
WHERE tournament_id = $1 AND round = $2 AND board = $3
"""
SQL_PAIRING_BY_GAME = f"SELECT {_PAIRING_COLUMNS} FROM tournament_pairings WHERE game_id = $1"
SQL_SET_PAIRING_GAME = """
UPDATE tournament_pairings SET game_id = $4
WHERE tournament_id = $1 AND round = $2 AND board = $3
    AND game_id IS NULL AND result IS NULL AND white_user_id IS NOT NULL
"""
SQL_SET_PAIRING_RESULT = """
UPDATE tournament_pairings SET result = $4
WHERE tournament_id = $1 AND round = $2 AND board = $3
"""

# The pairing queue (``storage.club.QueueEntry``: the columns are named as the fields).
_QUEUE_COLUMNS = _columns(QueueEntry)
SQL_ADD_QUEUE_ENTRY = f"""
INSERT INTO queue_entries ({_QUEUE_COLUMNS})
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (user_id) DO NOTHING
"""
SQL_SET_QUEUE_MESSAGE = "UPDATE queue_entries SET message_id = $2 WHERE user_id = $1"
SQL_QUEUE_ENTRY = f"SELECT {_QUEUE_COLUMNS} FROM queue_entries WHERE user_id = $1"
SQL_QUEUE_ENTRIES = f"""
SELECT {_QUEUE_COLUMNS} FROM queue_entries
WHERE CAST($1 AS bigint) IS NULL OR guild_id = $1
ORDER BY joined_at, user_id
"""
SQL_QUEUED_IN = "SELECT 1 FROM queue_entries WHERE guild_id = $1 AND user_id = $2"
SQL_TAKE_QUEUE_ENTRY = "DELETE FROM queue_entries WHERE guild_id = $1 AND user_id = $2"

# The queries the bot runs on hot paths, with example parameters; tests check their plans.
INDEXED_QUERIES: dict[str, tuple[str, tuple[Any, ...]]] = {
    "game by id": (SQL_GET_GAME, (1,)),
    "open game of a channel": (SQL_OPEN_GAME_IN_CHANNEL, (1,)),
    "games to resume": (SQL_OPEN_GAMES, ()),
    "due deadlines": (SQL_GAMES_DUE, (0,)),
    "moves of a game": (SQL_GAME_MOVES, (1,)),
    "a player's recent games": (SQL_USER_GAMES, (1, 10, None, 10)),
    "a player's stats": (SQL_PLAYER_STATS, (0, "gomoku", "freestyle", 1)),
    "a leaderboard": (SQL_LEADERBOARD, (0, "gomoku", 0, 10, 0, "freestyle")),
    "a player's results": (SQL_USER_RESULTS, (1, None)),
    "the board of a game": (SQL_PAIRING_BY_GAME, (1,)),  # asked at every game's end
    "a tournament's boards": (SQL_PAIRINGS, (1,)),
    "a tournament's entrants": (SQL_ENTRANTS, (1,)),
    "a member's place in the queue": (SQL_QUEUE_ENTRY, (1,)),  # every leave and join refused
    "a member in a server's queue": (SQL_QUEUED_IN, (1, 1)),  # every take of a pair
}


# --------------------------------------------------------------------------------------------
# The repository


class SqlGameRepository:
    """The ``GameRepository`` on a SQL database; ``SqliteGameRepository`` and
    ``PostgresGameRepository`` supply the connections (see the module doc). Each public
    method does what ``GameRepository`` documents under its name."""

    _ID_LIST: ClassVar[str]  # the aggregate of ``channel_id`` values as "1,2,3" text
    # What the driver raises when a unique index refuses a row.
    _UNIQUE_VIOLATION: ClassVar[tuple[type[Exception], ...]]
    # Whether an INSERT the unique index refuses still uses up an id (PostgreSQL's sequences
    # skip it): a new game then looks for a busy channel before inserting.
    _REFUSED_INSERT_USES_ID: ClassVar[bool] = True

    def __init__(self, clock: Callable[[], datetime]) -> None:
        self._clock = clock

    # --- what a dialect provides ----------------------------------------------------------

    async def _write(self, work: Work[_T], *, atomic: bool = False, unhurried: bool = False) -> _T:
        """Run ``work`` as one durable unit; a cancelled caller does not stop it.
        ``atomic``: its one write is a single statement, which needs no transaction.
        ``unhurried``: a record nobody waits on soon, which may wait a moment to share a
        commit."""
        raise NotImplementedError

    async def _read(self, work: Work[_T], *, snapshot: bool = False, small: bool = False) -> _T:
        """Run a read. ``snapshot``: its statements agree with each other. ``small``: a
        few rows by key, worth answering without a hop to another thread."""
        raise NotImplementedError

    async def close(self) -> None:
        """Finish the work already asked for and close the connections."""
        raise NotImplementedError

    @staticmethod
    @asynccontextmanager
    async def _closed_on_exit(connect: Callable[[], Awaitable[_R]]) -> AsyncIterator[_R]:
        """What a dialect's ``open`` gives: the repository ``connect`` opens, closed on exit."""
        repo = await connect()
        try:
            yield repo
        finally:
            await repo.close()

    async def _play(
        self, db: Executor, game_id: int, expected_version: int, params: Sequence[Any]
    ) -> Row | None:
        """The compare-and-set of a move that does not end the game and, when it matched, the
        stone's row. ``params``: ``SQL_APPEND_MOVE``'s from ``$3``, then x, y and colour."""
        row = await db.fetchrow(SQL_APPEND_MOVE, game_id, expected_version, *params[:3])
        if row is not None:
            await self._insert_stone(db, row, params[3:], params[1])
        return row

    @staticmethod
    def _stone_row(game: Row, stone: Sequence[Any], now: datetime) -> tuple[Any, ...]:
        """``SQL_INSERT_MOVE``'s arguments for the stone whose move made ``game`` (the game's
        row as the move left it) of ``stone`` (x, y, colour)."""
        return (game[0], game[24] - 1, *stone, now, game[25])

    @classmethod
    async def _insert_stone(
        cls, db: Executor, game: Row, stone: Sequence[Any], now: datetime
    ) -> None:
        await db.execute(SQL_INSERT_MOVE, *cls._stone_row(game, stone, now))

    async def _lock_players(self, db: Executor, user_ids: Sequence[int]) -> None:
        """Hold off other writers rating these players until this transaction ends."""

    # --- helpers --------------------------------------------------------------------------

    @staticmethod
    async def _game_or_raise(db: Executor, game_id: int) -> GameRecord:
        row = await db.fetchrow(SQL_GET_GAME, game_id)
        if row is None:
            raise GameNotFoundError(game_id)
        return _game(row)

    async def _cas_failed(self, db: Executor, game_id: int, expected_version: int) -> GameRecord:
        """Why a compare-and-set matched no row: raise the matching error, or return the
        game when version and existence were fine (the caller then checks status/order)."""
        game = await self._game_or_raise(db, game_id)
        if game.version != expected_version:
            raise VersionConflictError(game_id, expected_version, game.version)
        return game

    async def _active_or_raise(
        self, db: Executor, game_id: int, expected_version: int
    ) -> GameRecord:
        """A compare-and-set of an active game matched nothing: raise the version's or the
        status's error, or return the game (the caller names what else was wrong)."""
        game = await self._cas_failed(db, game_id, expected_version)
        if game.status is not GameStatus.ACTIVE:
            raise InvalidStatusError(game_id, game.status)
        return game

    async def _cas(
        self,
        sql: str,
        game_id: int,
        expected_version: int,
        params: Sequence[Any],
        allowed: Iterable[GameStatus],
        *,
        rate: bool = False,
    ) -> GameRecord:
        """Run a compare-and-set UPDATE … RETURNING; on no match raise the precise error."""

        async def work(db: Executor) -> GameRecord:
            row = await db.fetchrow(sql, game_id, expected_version, *params)
            if row is None:
                game = await self._cas_failed(db, game_id, expected_version)
                if game.status not in allowed:
                    raise InvalidStatusError(game_id, game.status)
                raise AssertionError(f"compare-and-set on game {game_id} matched nothing")
            game = _game(row)
            if rate:
                await self._rate(db, game)
            return game

        # Without the rating, the UPDATE is the one change (what follows a refusal only reads).
        return await self._write(work, atomic=not rate)

    async def _fetch_all(
        self, decode: Callable[[Row], _T], sql: str, *args: Any, small: bool = False
    ) -> list[_T]:
        async def work(db: Executor) -> list[_T]:
            return [decode(row) for row in await db.fetch(sql, *args)]

        return await self._read(work, small=small)

    async def _fetch_one(
        self, decode: Callable[[Row], _T], sql: str, *args: Any, small: bool = False
    ) -> _T | None:
        async def work(db: Executor) -> _T | None:
            row = await db.fetchrow(sql, *args)
            return None if row is None else decode(row)

        return await self._read(work, small=small)

    async def _run_statement(self, sql: str, *args: Any, unhurried: bool = False) -> None:
        """A write that is one statement (atomic on its own)."""
        await self._write(lambda db: db.execute(sql, *args), atomic=True, unhurried=unhurried)

    async def _in_free_channel(
        self, db: Executor, channel_id: int, sql: str, *args: Any
    ) -> Row | None:
        """``sql``, which puts a game in ``channel_id``: ``ChannelBusyError`` when the
        channel's unique index refuses it (the rest of the transaction stays usable)."""
        try:
            async with db.savepoint():
                row = await db.fetchrow(sql, *args)
        except self._UNIQUE_VIOLATION as error:
            busy = await db.fetchrow(SQL_OPEN_GAME_IN_CHANNEL, channel_id)
            raise ChannelBusyError(channel_id, busy[0] if busy else None) from error
        return row

    async def _save_for_game(self, game_id: int, sql: str, *args: Any) -> None:
        """Write a side record of a game that must exist."""

        async def work(db: Executor) -> None:
            await self._game_or_raise(db, game_id)
            await db.execute(sql, *args)

        await self._write(work)

    # --- games ----------------------------------------------------------------------------

    async def create_game(self, new: NewGame) -> GameRecord:
        now = self._clock()
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

        async def work(db: Executor) -> GameRecord:
            if self._REFUSED_INSERT_USES_ID:
                # Look first, so that a refused game uses up no id; the unique index still
                # settles a race between two processes.
                busy = await db.fetchrow(SQL_OPEN_GAME_IN_CHANNEL, new.channel_id)
                if busy is not None:
                    raise ChannelBusyError(new.channel_id, busy[0])
            row = await self._in_free_channel(db, new.channel_id, SQL_INSERT_GAME, *params)
            assert row is not None
            game = _game(row)
            if new.opening is not None:
                await db.execute(SQL_INSERT_OPENING, game.id, new.opening)
            return game

        # Without the look and an opening, the INSERT is the whole write.
        one = new.opening is None and not self._REFUSED_INSERT_USES_ID
        return await self._write(work, atomic=one)

    async def get_game(self, game_id: int) -> GameRecord:
        return await self._read(lambda db: self._game_or_raise(db, game_id), small=True)

    async def load_game(self, game_id: int) -> GameSnapshot:
        async def work(db: Executor) -> GameSnapshot:
            game = await self._game_or_raise(db, game_id)
            history = [_move(row) for row in await db.fetch(SQL_GAME_MOVES, game_id)]
            return GameSnapshot(game, live_moves(history, game.ply))

        return await self._read(work, snapshot=True, small=True)

    async def open_game_in_channel(self, channel_id: int) -> GameRecord | None:
        return await self._fetch_one(_game, SQL_OPEN_GAME_IN_CHANNEL, channel_id, small=True)

    async def open_games(self) -> list[GameRecord]:
        return await self._fetch_all(_game, SQL_OPEN_GAMES)

    async def games_due(self, now: datetime) -> list[GameRecord]:
        return await self._fetch_all(_game, SQL_GAMES_DUE, now)

    async def accept_challenge(
        self, game_id: int, expected_version: int, *, deadline: datetime | None = None
    ) -> GameRecord:
        params = (deadline, self._clock())
        return await self._cas(SQL_ACCEPT, game_id, expected_version, params, [GameStatus.PENDING])

    async def close_challenge(
        self, game_id: int, expected_version: int, status: GameStatus
    ) -> GameRecord:
        if status not in CHALLENGE_CLOSINGS:
            raise ValueError(f"a challenge closes as declined, cancelled or expired, not {status}")
        params = (status.value, self._clock())
        return await self._cas(
            SQL_CLOSE_CHALLENGE, game_id, expected_version, params, [GameStatus.PENDING]
        )

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
        now = self._clock()
        parity = 0 if color is Color.BLACK else 1
        stone = (point.x, point.y, color.value)

        async def work(db: Executor) -> GameRecord:
            if outcome is None:
                row = await self._play(
                    db, game_id, expected_version, (deadline, now, parity, *stone)
                )
            else:
                winner = None if outcome.winner is None else outcome.winner.value
                final = (now, outcome.termination.value, winner, parity)
                row = await db.fetchrow(SQL_FINAL_MOVE, game_id, expected_version, *final)
                if row is not None:
                    await self._insert_stone(db, row, stone, now)
            if row is None:
                game = await self._active_or_raise(db, game_id, expected_version)
                raise MoveOrderError(game_id, game.ply, "colour")
            game = _game(row)
            if outcome is not None:
                await self._rate(db, game)
            return game

        # A move that does not finish the game is one statement where the dialect can.
        return await self._write(work, atomic=outcome is None)

    async def game_opening(self, game_id: int) -> GameOpening | None:
        async def work(db: Executor) -> GameOpening | None:
            row = await db.fetchrow(SQL_GAME_OPENING, game_id)
            if row is None:
                await self._game_or_raise(db, game_id)
                return None
            return GameOpening(game_id, row[0], tuple(row[1].split()))

        return await self._read(work, snapshot=True, small=True)

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
        params = (black.user_id, black.level, white.user_id, white.level, deadline, self._clock())

        async def work(db: Executor) -> GameRecord:
            row = await db.fetchrow(SQL_OPENING_STEP, game_id, expected_version, *params)
            if row is None:
                await self._active_or_raise(db, game_id, expected_version)
                raise ValueError(f"game {game_id} has no opening rule")
            await db.execute(SQL_APPEND_OPENING_STEP, game_id, step)
            return _game(row)

        return await self._write(work)

    async def take_back(
        self,
        game_id: int,
        expected_version: int,
        count: int = 1,
        *,
        deadline: datetime | None = None,
    ) -> GameRecord:
        now = self._clock()

        async def work(db: Executor) -> GameRecord:
            if count < 1:
                game = await self._cas_failed(db, game_id, expected_version)
                raise MoveOrderError(game_id, game.ply, "takeback")
            row = await db.fetchrow(SQL_TAKE_BACK, game_id, expected_version, count, deadline, now)
            if row is None:
                game = await self._active_or_raise(db, game_id, expected_version)
                raise MoveOrderError(game_id, game.ply, "takeback")
            game = _game(row)
            takeback = (game_id, game.version, game.ply + count, game.ply, now)
            await db.execute(SQL_INSERT_TAKEBACK, *takeback)
            return game

        return await self._write(work)

    async def finish_game(
        self,
        game_id: int,
        expected_version: int,
        outcome: Outcome,
        *,
        ended_by: int | None = None,
        end_reason: str | None = None,
    ) -> GameRecord:
        if end_reason is not None and end_reason not in END_REASONS:
            raise ValueError(f"unknown end reason {end_reason!r}")
        params = (
            outcome.termination.value,
            outcome.winner.value if outcome.winner else None,
            self._clock(),
            ended_by,
            end_reason,
        )
        return await self._cas(
            SQL_FINISH, game_id, expected_version, params, [GameStatus.ACTIVE], rate=True
        )

    async def move_game(self, game_id: int, channel_id: int, *, parent_channel_id: int) -> None:
        async def work(db: Executor) -> None:
            params = (game_id, channel_id, parent_channel_id)
            if await self._in_free_channel(db, channel_id, SQL_MOVE_GAME, *params) is None:
                raise InvalidStatusError(game_id, (await self._game_or_raise(db, game_id)).status)

        await self._write(work)

    async def _rate(self, db: Executor, game: GameRecord) -> None:
        """Update ratings and statistics for a game that just finished (if it counts)."""
        outcome = game.outcome
        black, white = game.black.user_id, game.white.user_id
        if not game.rated or outcome is None or outcome.termination is Termination.ABANDONED:
            return
        if black is None or white is None:
            return  # a seat was deleted on request; nobody left to rate
        finished_at = game.finished_at or game.updated_at
        await self._lock_players(db, sorted({black, white}))
        scopes = [_OVERALL] if game.guild_id is None else [_OVERALL, game.guild_id]
        for scope in scopes:
            guild = None if scope == _OVERALL else scope
            kind = (game.game.value, game.rule.value)
            rows = await db.fetch(SQL_STATS_OF_TWO, scope, *kind, black, white)
            found = {row[3]: _stats(row) for row in rows}
            before = [
                found.get(u) or new_stats(u, game.game, guild, game.rule) for u in (black, white)
            ]
            for stats in rate_game(before[0], before[1], outcome.winner, finished_at):
                await db.execute(SQL_UPSERT_STATS, *_stats_params(scope, stats))

    async def set_deadline(
        self, game_id: int, expected_version: int, deadline: datetime | None
    ) -> GameRecord:
        params = (deadline, self._clock())
        open_states = [GameStatus.PENDING, GameStatus.ACTIVE]
        return await self._cas(SQL_SET_DEADLINE, game_id, expected_version, params, open_states)

    async def shift_deadlines(self, by: timedelta, game_ids: Iterable[int] | None = None) -> int:
        if game_ids is None:

            async def everyone(db: Executor) -> int:
                return await db.execute(SQL_SHIFT_DEADLINES, by)

            return await self._write(everyone, atomic=True)
        chosen = sorted(set(game_ids))

        async def these(db: Executor) -> int:
            return sum([await db.execute(SQL_SHIFT_DEADLINE, by, game_id) for game_id in chosen])

        return await self._write(these) if chosen else 0

    async def mark_warning_sent(self, game_id: int, expected_version: int) -> None:
        async def work(db: Executor) -> None:
            if await db.fetchrow(SQL_MARK_WARNING, game_id, expected_version) is None:
                game = await self._cas_failed(db, game_id, expected_version)
                raise InvalidStatusError(game_id, game.status)

        await self._write(work, atomic=True)

    async def set_message(self, game_id: int, *, channel_id: int, message_id: int) -> None:
        async def work(db: Executor) -> None:
            if await db.fetchrow(SQL_SET_MESSAGE, channel_id, message_id, game_id) is None:
                raise GameNotFoundError(game_id)

        await self._write(work, atomic=True)

    async def mark_shown(self, shown: Mapping[int, int]) -> None:
        async def work(db: Executor) -> None:
            await db.executemany(SQL_MARK_SHOWN, sorted(shown.items()))

        if shown:
            await self._write(work, unhurried=True)

    async def unshown_games(self) -> list[GameRecord]:
        return await self._fetch_all(_game, SQL_UNSHOWN_GAMES)

    async def move_history(self, game_id: int) -> list[MoveRecord]:
        async def work(db: Executor) -> list[MoveRecord]:
            await self._game_or_raise(db, game_id)
            return [_move(row) for row in await db.fetch(SQL_GAME_MOVES, game_id)]

        return await self._read(work, snapshot=True)

    async def save_undo_request(self, request: StoredUndo) -> None:
        await self._save_for_game(request.game_id, SQL_SAVE_UNDO, *_values(request))

    async def undo_request(self, game_id: int) -> StoredUndo | None:
        return await self._fetch_one(_undo, SQL_GET_UNDO, game_id)

    async def drop_undo_request(self, game_id: int) -> None:
        await self._run_statement(SQL_DROP_UNDO, game_id)

    async def set_undo_message(
        self, game_id: int, version: int, channel_id: int, message_id: int
    ) -> bool:
        args = (game_id, version, channel_id, message_id)
        changed = await self._write(lambda db: db.execute(SQL_SET_UNDO_MESSAGE, *args), atomic=True)
        return bool(changed)

    async def undo_requests(self) -> list[StoredUndo]:
        return await self._fetch_all(_undo, SQL_UNDO_REQUESTS)

    # --- reviews and puzzles --------------------------------------------------------------

    async def save_review(self, game_id: int, data: str) -> None:
        await self._save_for_game(game_id, SQL_SAVE_REVIEW, game_id, data, self._clock())

    async def review(self, game_id: int) -> str | None:
        return await self._fetch_one(_text, SQL_GET_REVIEW, game_id)

    async def guild_reviews(self, guild_id: int, limit: int = 20) -> list[tuple[int, str]]:
        return await self._fetch_all(_id_and_text, SQL_GUILD_REVIEWS, guild_id, limit)

    async def set_daily_puzzle_channel(self, guild_id: int, channel_id: int | None) -> None:
        if channel_id is None:
            await self._run_statement(SQL_STOP_DAILY, guild_id)
        else:
            await self._run_statement(SQL_SET_DAILY, guild_id, channel_id)

    async def daily_puzzle_channels(self) -> list[tuple[int, int, str | None]]:
        def decode(row: Row) -> tuple[int, int, str | None]:
            return int(row[0]), int(row[1]), None if row[2] is None else str(row[2])

        return await self._fetch_all(decode, SQL_DAILY_CHANNELS)

    async def claim_daily_puzzle(self, guild_id: int, day: str) -> bool:
        async def work(db: Executor) -> bool:
            return await db.fetchrow(SQL_CLAIM_DAILY, guild_id, day) is not None

        return await self._write(work)

    async def puzzle_player(self, guild_id: int, user_id: int) -> PuzzlePlayer | None:
        return await self._fetch_one(_puzzle_player, SQL_GET_PUZZLE_PLAYER, guild_id, user_id)

    async def save_puzzle_player(self, player: PuzzlePlayer) -> None:
        await self._run_statement(SQL_SAVE_PUZZLE_PLAYER, *_values(player))

    async def puzzle_leaderboard(self, guild_id: int, limit: int = 10) -> list[PuzzlePlayer]:
        return await self._fetch_all(_puzzle_player, SQL_PUZZLE_LEADERBOARD, guild_id, limit)

    async def puzzles_seen(self, guild_id: int, user_id: int) -> frozenset[str]:
        return frozenset(await self._fetch_all(_text, SQL_PUZZLES_SEEN, guild_id, user_id))

    async def mark_puzzle_seen(self, guild_id: int, user_id: int, key: str) -> None:
        await self._run_statement(SQL_MARK_PUZZLE_SEEN, guild_id, user_id, key)

    async def unsearched_games(self, limit: int = 1) -> list[int]:
        return await self._fetch_all(_first_int, SQL_UNSEARCHED_GAMES, limit)

    async def save_game_puzzles(self, game_id: int, data: str) -> None:
        await self._save_for_game(game_id, SQL_SAVE_GAME_PUZZLES, game_id, data, self._clock())

    async def guild_game_puzzles(self, guild_id: int, limit: int = 50) -> list[tuple[int, str]]:
        return await self._fetch_all(_id_and_text, SQL_GUILD_GAME_PUZZLES, guild_id, limit)

    # --- players --------------------------------------------------------------------------

    async def user_games(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        limit: int = 20,
        before_id: int | None = None,
    ) -> list[GameRecord]:
        before = _NO_ID_LIMIT if before_id is None else before_id
        return await self._fetch_all(_game, SQL_USER_GAMES, user_id, before, guild_id, limit)

    async def player_stats(
        self,
        user_id: int,
        game: Game = Game.GOMOKU,
        *,
        guild_id: int | None = None,
        rule: Rule = Rule.FREESTYLE,
    ) -> PlayerStats | None:
        scope = _OVERALL if guild_id is None else guild_id
        params = (scope, game.value, rule.value, user_id)
        return await self._fetch_one(_stats, SQL_PLAYER_STATS, *params, small=True)

    async def leaderboard(
        self,
        game: Game = Game.GOMOKU,
        *,
        guild_id: int | None = None,
        rule: Rule = Rule.FREESTYLE,
        limit: int = 10,
        offset: int = 0,
        min_games: int = 0,
    ) -> list[PlayerStats]:
        scope = _OVERALL if guild_id is None else guild_id
        params = (scope, game.value, min_games, limit, offset, rule.value)
        return await self._fetch_all(_stats, SQL_LEADERBOARD, *params)

    async def user_results(self, user_id: int, *, guild_id: int | None = None) -> list[ResultCount]:
        lines: dict[tuple[Game, Rule, str], dict[str, int]] = {}
        for kind, rule, level, result, count in await self._fetch_all(
            tuple, SQL_USER_RESULTS, user_id, guild_id
        ):
            lines.setdefault((Game(kind), Rule(rule), level or ""), {})[result] = count
        return [
            ResultCount(kind, rule, level or None, **counts)
            for (kind, rule, level), counts in sorted(lines.items())
        ]

    async def delete_user_data(self, user_id: int) -> int:
        now = self._clock()

        async def work(db: Executor) -> int:
            touched = len(await db.fetch(SQL_USER_GAME_IDS, user_id))
            await db.execute(SQL_ABANDON_USER_GAMES, user_id, now)
            for sql in SQL_FORGET_USER:
                await db.execute(sql, user_id)
            for tournament_id, status in await db.fetch(SQL_USER_TOURNAMENTS, user_id):
                if status == TournamentStatus.OPEN:
                    await db.execute(SQL_DROP_ENTRANT, tournament_id, user_id)
                    continue
                row = await db.fetchrow(SQL_NEXT_PSEUDONYM, tournament_id)
                assert row is not None  # an aggregate has a row
                pseudonym = row[0]
                for sql in SQL_PSEUDONYMISE:
                    await db.execute(sql, pseudonym, tournament_id, user_id)
                if status == TournamentStatus.RUNNING:
                    await db.execute(SQL_WITHDRAW_ENTRANT, tournament_id, pseudonym)
            await db.execute(SQL_FORGET_ORGANISER, user_id)
            return touched

        return await self._write(work)

    # --- guilds ---------------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        def decode(row: Row) -> GuildSettings:
            return GuildSettings(
                guild_id=guild_id,
                default_rule=Rule(row[0]),
                turn_seconds=row[1],
                board_style=row[2],
                allowed_channel_ids=frozenset(int(c) for c in (row[9] or "").split(",") if c),
                use_threads=bool(row[3]),
                moderator_role_id=row[4],
                idle_human_seconds=row[5],
                idle_ai_seconds=row[6],
                turn_pings=bool(row[7]),
                ai_clock=bool(row[8]),
                rated_opening=row[10],
                language=row[11],
            )

        sql = guild_settings_sql(self._ID_LIST)
        found = await self._fetch_one(decode, sql, guild_id, small=True)
        return GuildSettings(guild_id) if found is None else found

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        guild_id = settings.guild_id
        params = (
            guild_id,
            settings.default_rule.value,
            settings.turn_seconds,
            settings.board_style,
            self._clock(),
            settings.use_threads,
            settings.moderator_role_id,
            settings.idle_human_seconds,
            settings.idle_ai_seconds,
            settings.turn_pings,
            settings.ai_clock,
        )
        channels = [(guild_id, channel) for channel in sorted(settings.allowed_channel_ids)]

        async def work(db: Executor) -> None:
            await db.execute(SQL_SAVE_GUILD_SETTINGS, *params)
            await db.execute(SQL_CLEAR_GUILD_CHANNELS, guild_id)
            if channels:
                await db.executemany(SQL_ADD_GUILD_CHANNEL, channels)
            for value, save, clear in (
                (settings.rated_opening, SQL_SAVE_GUILD_OPENING, SQL_CLEAR_GUILD_OPENING),
                (settings.language, SQL_SAVE_GUILD_LANGUAGE, SQL_CLEAR_GUILD_LANGUAGE),
            ):
                if value is None:
                    await db.execute(clear, guild_id)
                else:
                    await db.execute(save, guild_id, value)

        await self._write(work)

    async def set_open_turn_seconds(
        self, guild_id: int, turn_seconds: int | None, *, ai_games: bool
    ) -> int:
        params = (guild_id, turn_seconds, ai_games)
        return await self._write(lambda db: db.execute(SQL_SET_OPEN_TURN_SECONDS, *params))

    # --- users ----------------------------------------------------------------------------

    async def user_view(self, user_id: int) -> str | None:
        return await self._fetch_one(_text, SQL_USER_VIEW, user_id)

    async def save_user_view(self, user_id: int, view: str) -> None:
        await self._run_statement(SQL_SAVE_USER_VIEW, user_id, view, self._clock())

    async def user_language(self, user_id: int) -> str | None:
        return await self._fetch_one(_text, SQL_USER_LANGUAGE, user_id, small=True)

    async def user_languages(self, user_ids: Iterable[int]) -> dict[int, str]:
        ids = sorted(set(user_ids))
        chosen: dict[int, str] = {}
        for start in range(0, len(ids), USER_LANGUAGES_A_READ):
            part = ids[start : start + USER_LANGUAGES_A_READ]
            part += part[:1] * (USER_LANGUAGES_A_READ - len(part))
            rows = await self._fetch_all(_id_and_text, SQL_USER_LANGUAGES, *part, small=True)
            chosen.update(rows)
        return chosen

    async def save_user_language(self, user_id: int, language: str | None) -> None:
        if language is None:
            await self._run_statement(SQL_CLEAR_USER_LANGUAGE, user_id)
        else:
            params = (user_id, language, self._clock())
            await self._run_statement(SQL_SAVE_USER_LANGUAGE, *params)

    # --- replies to finish ----------------------------------------------------------------

    async def save_pending_reply(self, reply: PendingReply) -> None:
        await self._run_statement(SQL_SAVE_PENDING_REPLY, *_values(reply))

    async def pending_replies(self) -> list[PendingReply]:
        replies = await self._fetch_all(_timed(PendingReply), SQL_PENDING_REPLIES)
        # Ties by token as bytes: the order does not depend on the database's collation.
        return sorted(replies, key=lambda reply: (reply.created_at, reply.token))

    async def drop_pending_reply(self, token: str) -> None:
        await self._run_statement(SQL_DROP_PENDING_REPLY, token)

    # --- turn pings -----------------------------------------------------------------------

    async def turn_ping(self, game_id: int) -> TurnPing | None:
        def decode(row: Row) -> TurnPing:
            return TurnPing(game_id, row[0], row[1], row[2])

        return await self._fetch_one(decode, SQL_TURN_PING, game_id, small=True)

    # A ping is kept for a restart to find (``TurnPing``): its write may share a move's commit.

    async def save_turn_ping(self, ping: TurnPing) -> None:
        await self._run_statement(SQL_SAVE_TURN_PING, *_values(ping), unhurried=True)

    async def drop_turn_ping(self, game_id: int) -> None:
        await self._run_statement(SQL_DROP_TURN_PING, game_id, unhurried=True)

    # --- tournaments ----------------------------------------------------------------------

    async def create_tournament(self, new: NewTournament) -> Tournament:
        params = (
            new.guild_id,
            new.channel_id,
            new.name,
            new.format.value,
            new.game,
            new.rule,
            new.rounds,
            new.seconds_per_move,
            new.player_cap,
            new.starts_at,
            new.arena_minutes,
            TournamentStatus.OPEN.value,
            new.created_by,
            self._clock(),
        )

        async def work(db: Executor) -> Tournament:
            row = await db.fetchrow(SQL_CREATE_TOURNAMENT, *params)
            assert row is not None
            return _tournament(row)

        return await self._write(work, atomic=True)

    async def tournament(self, tournament_id: int) -> Tournament:
        found = await self._fetch_one(_tournament, SQL_GET_TOURNAMENT, tournament_id, small=True)
        if found is None:
            raise TournamentNotFoundError(tournament_id)
        return found

    async def live_tournaments(self, guild_id: int | None = None) -> list[Tournament]:
        return await self._fetch_all(_tournament, SQL_LIVE_TOURNAMENTS, guild_id)

    async def set_tournament_status(
        self, tournament_id: int, expected: TournamentStatus, status: TournamentStatus
    ) -> Tournament:
        params = (tournament_id, expected.value, status.value)

        async def work(db: Executor) -> Tournament:
            row = await db.fetchrow(SQL_SET_TOURNAMENT_STATUS, *params)
            if row is not None:
                return _tournament(row)
            found = await _tournament_or_raise(db, tournament_id)
            raise TournamentStatusError(tournament_id, found.status)

        return await self._write(work)

    async def add_entrant(self, tournament_id: int, user_id: int, rating: float) -> Entrant:
        params = (tournament_id, user_id, float(rating), self._clock())

        async def work(db: Executor) -> Entrant:
            await _tournament_or_raise(db, tournament_id)
            row = await db.fetchrow(SQL_ADD_ENTRANT, *params)
            assert row is not None
            return _entrant(row)

        return await self._write(work)

    async def update_entrant(self, entrant: Entrant) -> None:
        key = (entrant.tournament_id, entrant.user_id)
        params = (*key, float(entrant.rating), entrant.seed, entrant.status.value)

        async def work(db: Executor) -> None:
            if not await db.execute(SQL_UPDATE_ENTRANT, *params):
                raise TournamentNotFoundError(key[0], user_id=key[1])

        await self._write(work, atomic=True)

    async def entrants(self, tournament_id: int) -> list[Entrant]:
        return await self._fetch_all(_entrant, SQL_ENTRANTS, tournament_id)

    async def store_round(
        self,
        tournament_id: int,
        number: int,
        pairings: Sequence[Pairing],
        *,
        deadline: datetime | None = None,
    ) -> Round:
        rows = [_pairing_params(p) for p in checked_round(tournament_id, number, pairings)]
        status = RoundStatus.FINISHED if all(p.result for p in pairings) else RoundStatus.PAIRED
        paired = Round(tournament_id, number, status, self._clock(), deadline)

        async def work(db: Executor) -> Round:
            await _tournament_or_raise(db, tournament_id)
            latest = await db.fetchrow(SQL_LATEST_ROUND, tournament_id)
            after = (latest[0] if latest else None) or 0
            if number <= after:
                raise RoundPairedError(tournament_id, number)
            if number > after + 1:
                raise ValueError(f"round {number} of tournament {tournament_id} skips a round")
            try:
                async with db.savepoint():
                    await db.execute(SQL_INSERT_ROUND, *_round_params(paired))
            except self._UNIQUE_VIOLATION as error:  # paired at once by another process
                raise RoundPairedError(tournament_id, number) from error
            if rows:
                await db.executemany(SQL_INSERT_PAIRING, rows)
            return paired

        return await self._write(work)

    async def rounds(self, tournament_id: int) -> list[Round]:
        return await self._fetch_all(_round, SQL_ROUNDS, tournament_id)

    async def set_pairing_game(
        self, tournament_id: int, round: int, board: int, game_id: int
    ) -> bool:
        key = (tournament_id, round, board)

        async def work(db: Executor) -> bool:
            await self._game_or_raise(db, game_id)
            if await db.execute(SQL_SET_PAIRING_GAME, *key, game_id):
                return True
            if await db.fetchrow(SQL_PAIRING, *key) is None:
                raise TournamentNotFoundError(tournament_id, round=round, board=board)
            return False

        return await self._write(work)

    async def set_pairing_result(
        self, tournament_id: int, round: int, board: int, result: Result
    ) -> bool:
        key = (tournament_id, round, board)

        async def work(db: Executor) -> bool:
            row = await db.fetchrow(SQL_PAIRING, *key)
            if row is None:
                raise TournamentNotFoundError(tournament_id, round=round, board=board)
            check_result(_pairing(row), result)
            await db.execute(SQL_SET_PAIRING_RESULT, *key, result.value)
            await db.execute(SQL_FINISH_ROUND, tournament_id, round)
            status = await db.fetchrow(SQL_ROUND_STATUS, tournament_id, round)
            return status is not None and status[0] == RoundStatus.FINISHED.value

        return await self._write(work)

    async def pairings(self, tournament_id: int) -> list[Pairing]:
        return await self._fetch_all(_pairing, SQL_PAIRINGS, tournament_id)

    async def pairing_by_game(self, game_id: int) -> Pairing | None:
        return await self._fetch_one(_pairing, SQL_PAIRING_BY_GAME, game_id, small=True)

    # --- the pairing queue ----------------------------------------------------------------

    async def add_queue_entry(self, entry: QueueEntry) -> bool:
        params = (*_values(entry)[:4], float(entry.rating), *_values(entry)[5:])
        added = await self._write(lambda db: db.execute(SQL_ADD_QUEUE_ENTRY, *params), atomic=True)
        return bool(added)

    async def set_queue_message(self, user_id: int, message_id: int) -> None:
        await self._run_statement(SQL_SET_QUEUE_MESSAGE, user_id, message_id)

    async def queue_entry(self, user_id: int) -> QueueEntry | None:
        return await self._fetch_one(_queue_entry, SQL_QUEUE_ENTRY, user_id, small=True)

    async def queue_entries(self, guild_id: int | None = None) -> list[QueueEntry]:
        return await self._fetch_all(_queue_entry, SQL_QUEUE_ENTRIES, guild_id)

    async def take_queue_entries(self, guild_id: int, user_ids: Sequence[int]) -> bool:
        wanted = sorted(set(user_ids))

        async def work(db: Executor) -> bool:
            # Checked first (a write changes nothing before it knows it may: SQLite holds
            # the database meanwhile); on PostgreSQL a delete that lost a race with another
            # connection's is undone with the savepoint.
            for user_id in wanted:
                if await db.fetchrow(SQL_QUEUED_IN, guild_id, user_id) is None:
                    return False
            try:
                async with db.savepoint():
                    for user_id in wanted:
                        if not await db.execute(SQL_TAKE_QUEUE_ENTRY, guild_id, user_id):
                            raise _QueueEntryGoneError
            except _QueueEntryGoneError:
                return False
            return True

        return await self._write(work)


class _QueueEntryGoneError(Exception):
    """Rolls back a take of queue entries that found one of them gone."""


def _queue_entry(row: Row) -> QueueEntry:
    return QueueEntry(
        guild_id=row[0],
        user_id=row[1],
        game=row[2],
        rule=row[3],
        rating=float(row[4]),
        joined_at=_time(row[5]),
        channel_id=row[6],
        in_thread=bool(row[7]),
        language=row[8],
        token=row[9],
        message_id=row[10],
    )


def _text(row: Row) -> str:
    return str(row[0])


def _first_int(row: Row) -> int:
    return int(row[0])


def _id_and_text(row: Row) -> tuple[int, str]:
    return int(row[0]), str(row[1])


def _puzzle_player(row: Row) -> PuzzlePlayer:
    return PuzzlePlayer(*row)


_FORMAT = _members(Format)
_TOURNAMENT_STATUS = _members(TournamentStatus)
_ENTRANT_STATUS = _members(EntrantStatus)
_ROUND_STATUS = _members(RoundStatus)
_RESULT = _members(Result)


def _tournament(row: Row) -> Tournament:
    return Tournament(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        name=row[3],
        format=_FORMAT(row[4]),
        game=row[5],
        rule=row[6],
        rounds=row[7],
        seconds_per_move=row[8],
        player_cap=row[9],
        starts_at=_time_or_none(row[10]),
        arena_minutes=row[11],
        status=_TOURNAMENT_STATUS(row[12]),
        created_by=row[13],
        created_at=_time(row[14]),
    )


async def _tournament_or_raise(db: Executor, tournament_id: int) -> Tournament:
    row = await db.fetchrow(SQL_GET_TOURNAMENT, tournament_id)
    if row is None:
        raise TournamentNotFoundError(tournament_id)
    return _tournament(row)


def _entrant(row: Row) -> Entrant:
    return Entrant(row[0], row[1], float(row[2]), row[3], _ENTRANT_STATUS(row[4]), _time(row[5]))


def _round(row: Row) -> Round:
    return Round(row[0], row[1], _ROUND_STATUS(row[2]), _time(row[3]), _time_or_none(row[4]))


def _round_params(round_: Round) -> tuple[Any, ...]:
    return (
        round_.tournament_id,
        round_.number,
        round_.status.value,
        round_.paired_at,
        round_.deadline,
    )


def _pairing(row: Row) -> Pairing:
    result = None if row[5] is None else _RESULT(row[5])
    return Pairing(row[0], row[1], row[2], row[3], row[4], result, row[6])


def _pairing_params(pairing: Pairing) -> tuple[Any, ...]:
    result = None if pairing.result is None else pairing.result.value
    return (*_values(pairing)[:5], result, pairing.game_id)
