"""Migration 0014 (``storage/migrations/*/0014_looks.sql``): the looks members chose under the
released vocabulary (full, phone, image) read as today's (compact, emoji, image), on a database
the released schema wrote (``test_upgrade``'s fixtures), SQLite and PostgreSQL alike."""

from __future__ import annotations

from pathlib import Path

import asyncpg

from bot.core.service.shared import LOOKS
from storage.postgres import PostgresGameRepository
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository
from tests.storage.test_upgrade import RELEASED_VERSION, _dump, released_sqlite

# user id -> (the view the released bot stored, the look it reads as now)
CHOSEN = {71: ("phone", "emoji"), 72: ("full", "compact"), 73: ("image", "image")}


async def _reads(repo: GameRepository) -> dict[int, str | None]:
    return {user: await repo.user_view(user) for user in CHOSEN}


async def test_sqlite_keeps_each_members_look(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with released_sqlite(path) as db:
        db.executemany(
            "INSERT INTO user_settings (user_id, board_view, updated_at) VALUES (?, ?, 0)",
            [(user, old) for user, (old, _) in CHOSEN.items()],
        )
    async with SqliteGameRepository.open(path) as repo:
        read = await _reads(repo)
    assert read == {user: new for user, (_, new) in CHOSEN.items()}
    assert set(read.values()) <= set(LOOKS)


async def test_postgres_keeps_each_members_look(postgres_url: str) -> None:
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute(_dump("postgres"))
        await conn.execute("SELECT pg_catalog.set_config('search_path', 'public', false)")
        assert await conn.fetchval("SELECT version FROM gomoku_schema") == RELEASED_VERSION
        await conn.executemany(
            "INSERT INTO user_settings (user_id, board_view, updated_at) VALUES ($1, $2, now())",
            [(user, old) for user, (old, _) in CHOSEN.items()],
        )
    finally:
        await conn.close()
    async with PostgresGameRepository.open(postgres_url) as repo:
        read = await _reads(repo)
    assert read == {user: new for user, (_, new) in CHOSEN.items()}
