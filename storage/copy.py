"""``python -m storage copy SRC DST``: move a community from its SQLite file to PostgreSQL.

Every table the two schemas share (games, moves, takebacks, settings, ratings, and whatever
later migrations add under the same names) is copied row for row, ids kept, into an empty
PostgreSQL database in one transaction, which commits only if every table's rows compare
equal value for value with the source's; then every game, move history, setting and rating
is read back through the ``GameRepository`` contract on both sides and compared. Column types
come from PostgreSQL's catalogue (SQLite's integer microseconds become timestamptz, its 0/1
booleans), so a new migration ported to both dialects needs no change here.

The source is opened as the bot opens it (so an older file is first brought up to date);
stop the bot while copying. A target that already holds games is refused.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from engine.types import Game, Rule
from storage.errors import StorageError
from storage.opening import redact
from storage.postgres import PostgresGameRepository
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository

__all__ = ["CopyError", "CopyReport", "copy_database"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CHUNK = 5_000  # rows per COPY batch: bounds memory on big files


class CopyError(StorageError):
    """The copy was refused or did not verify."""


@dataclass(slots=True)
class CopyReport:
    """What was copied: rows per table, and the games checked through the contract."""

    rows: dict[str, int] = field(default_factory=dict)
    games_verified: int = 0
    guilds_verified: int = 0
    ratings_verified: int = 0


def _micros_to_time(value: int | None) -> datetime | None:
    return None if value is None else _EPOCH + timedelta(microseconds=value)


def _int_to_bool(value: int | None) -> bool | None:
    return None if value is None else bool(value)


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "timestamp with time zone": _micros_to_time,
    "boolean": _int_to_bool,
}


def _source_tables(db: sqlite3.Connection) -> list[str]:
    """The source's tables, parents before the tables that refer to them."""
    names = [
        row[0]
        for row in db.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
    ]
    parents = {
        name: {row[2] for row in db.execute(f'PRAGMA foreign_key_list("{name}")')} - {name}
        for name in names
    }
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and parents[n] <= set(ordered)]
        if not ready:
            raise CopyError(f"foreign keys form a cycle among {sorted(set(names) - set(ordered))}")
        ordered.extend(ready)
    return ordered


def _source_columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]


def _rows(
    db: sqlite3.Connection, table: str, columns: list[str], target: dict[str, str]
) -> Iterator[list[tuple[Any, ...]]]:
    """The source's rows in chunks, each value as the target column's type wants it."""
    converters = [_CONVERTERS.get(target[c]) for c in columns]
    quoted = ", ".join(f'"{c}"' for c in columns)
    cursor = db.execute(f'SELECT {quoted} FROM "{table}"')
    while chunk := cursor.fetchmany(_CHUNK):
        yield [
            tuple(
                v if convert is None else convert(v)
                for convert, v in zip(converters, row, strict=True)
            )
            for row in chunk
        ]


async def _target_columns(conn: asyncpg.Connection[Any], table: str) -> dict[str, str]:
    rows = await conn.fetch(
        "SELECT column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
        table,
    )
    return {row["column_name"]: row["data_type"] for row in rows}


async def _copy_tables(db: sqlite3.Connection, url: str, report: CopyReport) -> None:
    conn = await asyncpg.connect(url)
    try:
        tables = []
        async with conn.transaction():
            for table in _source_tables(db):
                target = await _target_columns(conn, table)
                if not target:
                    raise CopyError(f"{redact(url)} has no table {table}: is it up to date?")
                source = _source_columns(db, table)
                missing = [c for c in source if c not in target]
                if missing:
                    raise CopyError(f"{table}: {redact(url)} lacks columns {missing}")
                if await conn.fetchval(f'SELECT EXISTS (SELECT 1 FROM "{table}")'):
                    raise CopyError(f"{redact(url)} already holds {table}: copy into an empty one")
                count = 0
                for chunk in _rows(db, table, source, target):
                    await conn.copy_records_to_table(table, records=chunk, columns=source)
                    count += len(chunk)
                report.rows[table] = count
                tables.append(table)
            # Identity columns continue after the highest id copied.
            for table in tables:
                identities = await conn.fetch(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema ="
                    " current_schema() AND table_name = $1 AND is_identity = 'YES'",
                    table,
                )
                for row in identities:
                    column = row["column_name"]
                    await conn.execute(
                        f"SELECT setval(pg_get_serial_sequence('\"{table}\"', '{column}'),"
                        f' COALESCE((SELECT max("{column}") FROM "{table}"), 0) + 1, false)'
                    )
            await _verify_rows(db, conn, tables)  # before the commit: a bad copy is undone
    finally:
        await conn.close()


async def _verify_rows(
    db: sqlite3.Connection, conn: asyncpg.Connection[Any], tables: list[str]
) -> None:
    """Every table, row by row and value by value, the same on both sides. Rows are compared
    as sorted lists (the two databases collate text differently)."""
    for table in tables:
        source = _source_columns(db, table)
        chunks = _rows(db, table, source, await _target_columns(conn, table))
        expected = sorted((row for chunk in chunks for row in chunk), key=repr)
        quoted = ", ".join(f'"{c}"' for c in source)
        copied = sorted(map(tuple, await conn.fetch(f'SELECT {quoted} FROM "{table}"')), key=repr)
        if copied != expected:
            raise CopyError(f"{table}: the copy differs from the source")


async def _verify_contract(
    source: GameRepository, target: GameRepository, db: sqlite3.Connection, report: CopyReport
) -> None:
    """The same answers through the repository contract, for everything the bot reads."""
    for (game_id,) in db.execute("SELECT id FROM games ORDER BY id").fetchall():
        same = await source.load_game(game_id) == await target.load_game(game_id)
        if not same or await source.move_history(game_id) != await target.move_history(game_id):
            raise CopyError(f"game {game_id} reads differently from the copy")
        report.games_verified += 1
    for (guild_id,) in db.execute("SELECT guild_id FROM guild_settings").fetchall():
        if await source.guild_settings(guild_id) != await target.guild_settings(guild_id):
            raise CopyError(f"guild {guild_id}'s settings read differently from the copy")
        report.guilds_verified += 1
    scopes = db.execute("SELECT DISTINCT scope, game, rule FROM player_stats").fetchall()
    for scope, game, rule in scopes:
        guild = None if scope == 0 else scope
        count = "SELECT count(*) FROM player_stats WHERE scope = ? AND game = ? AND rule = ?"
        limit = 1 + db.execute(count, (scope, game, rule)).fetchone()[0]
        before = await source.leaderboard(Game(game), guild_id=guild, rule=Rule(rule), limit=limit)
        after = await target.leaderboard(Game(game), guild_id=guild, rule=Rule(rule), limit=limit)
        if before != after:
            raise CopyError(
                f"ratings of {game} ({rule}) in scope {scope} read differently from the copy"
            )
        report.ratings_verified += len(after)


def copy_database(source_path: Path, target_url: str) -> CopyReport:
    """Copy the SQLite database at ``source_path`` into the empty PostgreSQL database at
    ``target_url`` (creating its schema) and verify the copy.

    Raises:
        CopyError: the target is not empty or lacks a table or column, or its rows differ
            from the source's (then nothing was committed); or, after the commit, something
            reads differently through the repository contract (the message says what).
        DatabaseRefusedError: either side is not a gomoku-bot database.
    """
    if not source_path.is_file():
        raise CopyError(f"{source_path}: no such file")
    return asyncio.run(_copy(source_path, f"{source_path.resolve().as_uri()}?mode=ro", target_url))


async def _copy(source_path: Path, read_only_uri: str, target_url: str) -> CopyReport:
    report = CopyReport()
    async with SqliteGameRepository.open(source_path) as source:
        await source.checkpoint()  # everything in the main file: the raw reads see it all
        async with PostgresGameRepository.open(target_url) as target:
            with closing(sqlite3.connect(read_only_uri, uri=True)) as db:
                await _copy_tables(db, target_url, report)
                await _verify_contract(source, target, db, report)
    return report
