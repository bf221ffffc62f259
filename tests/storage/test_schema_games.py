"""The schema stores any game's name: the upgrade that drops the CHECK listing the games
rebuilds SQLite's games table and keeps every row of every table that points at a game."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from engine.games import new_game
from storage.postgres import PostgresGameRepository
from storage.records import NewGame, Player
from storage.sqlite import SqliteGameRepository
from tests.storage.test_upgrade import released_sqlite

# Every table with rows that name a game, the two that go with their game (ON DELETE CASCADE)
# included: pending_replies and turn_pings.
POINTING = (
    "moves",
    "takebacks",
    "pending_replies",
    "turn_pings",
    "undo_requests",
    "game_openings",
    "game_reviews",
    "game_puzzles",
)
NEW_GAME = (
    "INSERT INTO games (channel_id, game, width, height, rule, status, rated, created_at,"
    " updated_at) VALUES (?, ?, 6, 6, 'freestyle', 'active', 0, 1, 1)"
)
NEW_RATING = (
    "INSERT INTO player_stats (scope, game, rule, user_id, mu, sigma, ordinal, updated_at)"
    " VALUES (0, ?, 'freestyle', 1, 25, 8, 1, 1)"
)


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def _rows(
    db: sqlite3.Connection, table: str, columns: list[str] | None = None
) -> list[tuple[object, ...]]:
    """The table's rows, in the released file's columns (later migrations add others)."""
    listed = ", ".join(columns) if columns else "*"
    return sorted(db.execute(f"SELECT {listed} FROM {table}").fetchall(), key=repr)


async def test_the_upgrade_keeps_every_row_that_points_at_a_game(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with released_sqlite(path) as db:
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            db.execute(NEW_GAME, (900, "four6"))
        columns = {table: _columns(db, table) for table in ("games", *POINTING)}
        games = _rows(db, "games")
        pointing = {table: _rows(db, table) for table in POINTING}
    assert all(pointing.values())  # the released file has rows in each
    async with SqliteGameRepository.open(path):
        pass
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("PRAGMA foreign_keys = ON")
        assert _rows(db, "games", columns["games"]) == games
        assert {table: _rows(db, table, columns[table]) for table in POINTING} == pointing
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        db.execute(NEW_GAME, (900, "four6"))
        db.execute(NEW_RATING, ("four6",))
        # The foreign keys still name the new table: a move of no game is refused.
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            db.execute(
                "INSERT INTO moves (game_id, seq, ply, x, y, color, made_at)"
                " VALUES (123456, 2, 1, 0, 0, 'black', 1)"
            )
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_schema")}
        assert not {name for name in names if name.endswith("_kept")}


async def test_every_backend_stores_a_game_beyond_the_built_in_ones(
    tmp_path: Path, postgres_url: str
) -> None:
    four6 = new_game("four6")
    new = NewGame(500, 40, Player.human(1), Player.human(2), game=four6, width=6, height=6)
    async with (
        SqliteGameRepository.open(tmp_path / "g.sqlite3") as sqlite,
        PostgresGameRepository.open(postgres_url) as postgres,
    ):
        for repo in (sqlite, postgres):
            created = await repo.create_game(new)
            stored = await repo.get_game(created.id)
            assert stored.game is four6
            assert (stored.width, stored.height) == (6, 6)
