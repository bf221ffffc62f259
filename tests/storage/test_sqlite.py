"""What only the SQLite repository promises: files, migrations, pragmas, plans, durability."""

from __future__ import annotations

import asyncio
import enum
import hashlib
import os
import random
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Coroutine
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import storage.sqlite as sqlite_module
from engine.types import Color, Outcome, Point, Termination
from storage.errors import (
    ChannelBusyError,
    CorruptDatabaseError,
    DatabaseRefusedError,
    DatabaseTooNewError,
    ForeignDatabaseError,
    VersionConflictError,
)
from storage.records import GameRecord, GameStatus, GuildSettings, Player, TurnPing
from storage.sql import SQL_SET_MESSAGE, Executor
from storage.sqlite import (
    APPLICATION_ID,
    INDEXED_QUERIES,
    LATEST_VERSION,
    MIGRATIONS,
    Migration,
    SqliteGameRepository,
    sqlite_sql,
    statements,
)
from tests.storage.conftest import ALICE, BOB, GUILD, FakeClock, new_game
from tests.storage.faults import write_lock_held_async


def schema(path: Path) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as db:
        return db.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name"
        ).fetchall()


def pragma(path: Path, name: str) -> Any:
    with closing(sqlite3.connect(path)) as db:
        return db.execute(f"PRAGMA {name}").fetchone()[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- opening ------------------------------------------------------------------------------


async def test_new_file_is_created_at_the_latest_version(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        assert repo.path == path
    assert pragma(path, "application_id") == APPLICATION_ID
    assert pragma(path, "user_version") == LATEST_VERSION == MIGRATIONS[-1].version
    assert pragma(path, "journal_mode") == "wal"
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_empty_file_is_initialised(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    async with SqliteGameRepository.open(path):
        pass
    assert pragma(path, "user_version") == LATEST_VERSION


async def test_connection_settings(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        # The settings are per connection; look at the read thread's, from that thread.
        async def settings(db: Executor) -> dict[str, Any]:
            names = ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")
            return {name: (await db.fetch(f"PRAGMA {name}"))[0][0] for name in names}

        values = await repo._read(settings)
        # The writer's: it waits for another process's lock on its own thread.
        writes = await settings(sqlite_module._Connection(repo._writes, sqlite_module.Activity()))
        # The inline reader's: it never waits for a lock (it runs on the event loop).
        inline = await settings(sqlite_module._Inline(repo._inline))
    assert values == {
        "journal_mode": "wal",
        "foreign_keys": 1,
        "busy_timeout": 5000,
        "synchronous": 2,
    }
    assert writes == values
    assert inline["busy_timeout"] == 0


async def test_normal_synchronous_mode_reaches_the_writer(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3", synchronous="NORMAL") as repo:
        assert list(await repo._writes.execute_fetchall("PRAGMA synchronous")) == [(1,)]


def _other_app_db(path: Path) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.execute("INSERT INTO notes VALUES ('keep me')")


def _other_app_id(path: Path) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("PRAGMA application_id = 1234")


def _ours_but_newer(path: Path) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda p: p.write_text("hello, I am a shopping list\n" * 100), ForeignDatabaseError),
        (lambda p: p.write_bytes(os.urandom(8192)), ForeignDatabaseError),
        # A SQLite header on a file SQLite cannot read: damage, not a stranger (whose owner
        # might be invited to delete it).
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200), CorruptDatabaseError),
        (_other_app_db, ForeignDatabaseError),
        (_other_app_id, ForeignDatabaseError),
        (_ours_but_newer, DatabaseTooNewError),
    ],
    ids=["text", "random-bytes", "bad-header", "other-app", "other-app-id", "newer"],
)
async def test_refuses_files_that_are_not_usable(tmp_path: Path, make: Any, error: type) -> None:
    path = tmp_path / "x.sqlite3"
    make(path)
    before = digest(path)
    with pytest.raises(error) as caught:
        await SqliteGameRepository.connect(path)
    assert isinstance(caught.value, DatabaseRefusedError)
    assert caught.value.path == path
    assert digest(path) == before  # never overwritten
    wal = path.with_name(path.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    if isinstance(caught.value, DatabaseTooNewError):
        assert (caught.value.found, caught.value.supported) == (LATEST_VERSION + 1, LATEST_VERSION)


async def test_refuses_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ForeignDatabaseError):
        await SqliteGameRepository.connect(tmp_path)


# --- migrations ---------------------------------------------------------------------------


def build_old_database(path: Path, version: int) -> None:
    """A database as an older release left it: migrations 1..version, plus a finished game."""
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        for migration in (m for m in MIGRATIONS if m.version <= version):
            db.executescript(
                f"BEGIN IMMEDIATE;\n{migration.sql}\n"
                f"PRAGMA user_version = {migration.version};\nCOMMIT;\n"
            )
        if version >= 1:
            db.execute(
                "INSERT INTO games (id, guild_id, channel_id, game, width, height, rule,"
                " black_user_id, white_user_id, status, termination, winner, rated,"
                " created_at, updated_at, finished_at, ply, version)"
                " VALUES (7, 500, 10, 'gomoku', 15, 15, 'renju', 1001, 1002, 'finished',"
                " 'resign', 'white', 1, 1, 2, 2, 1, 3)"
            )
            db.execute(
                "INSERT INTO moves (game_id, seq, ply, x, y, color, made_at)"
                " VALUES (7, 2, 0, 7, 7, 'black', 1)"
            )
    assert pragma(path, "user_version") == version


@pytest.mark.parametrize(
    "version", [0] + [m.version for m in MIGRATIONS[:-1]], ids=lambda v: f"from-v{v}"
)
async def test_upgrades_from_every_earlier_version(tmp_path: Path, version: int) -> None:
    fresh = tmp_path / "fresh.sqlite3"
    async with SqliteGameRepository.open(fresh):
        pass
    old = tmp_path / "old.sqlite3"
    build_old_database(old, version)
    async with SqliteGameRepository.open(old) as repo:
        if version >= 1:
            snapshot = await repo.load_game(7)
            assert snapshot.game.outcome == Outcome(Termination.RESIGN, Color.WHITE)
            assert [m.point for m in snapshot.moves] == [Point(7, 7)]
        # the upgraded file works for everything, including the newest tables
        await repo.save_guild_settings(GuildSettings(GUILD, turn_seconds=60))
        game = await repo.create_game(new_game(11, rated=True))
        # A move's stone, written by the trigger the upgrade adds (0021_moves_by_trigger.sql).
        game = await repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
        assert [str(m.point) for m in await repo.move_history(game.id)] == ["h8"]
        await repo.finish_game(game.id, game.version, Outcome(Termination.RESIGN, Color.BLACK))
        assert await repo.player_stats(ALICE) is not None
    assert pragma(old, "user_version") == LATEST_VERSION
    assert schema(old) == schema(fresh)


def test_migrations_are_numbered_and_split_cleanly() -> None:
    versions = [m.version for m in MIGRATIONS]
    # Numbers are reserved per change written in parallel, so one may be absent for a while.
    assert versions[0] == 1
    assert versions == sorted(set(versions))
    for migration in MIGRATIONS:
        assert migration.name.startswith(f"{migration.version:04d}_")
        assert all(sqlite3.complete_statement(s) for s in statements(migration))


async def test_reopening_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        game = await repo.create_game(new_game())
        game = await repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
        before = await repo.load_game(game.id)
    async with SqliteGameRepository.open(path) as repo:
        assert await repo.load_game(game.id) == before
        assert await repo.open_games() == [before.game]


# --- the schema guards itself -------------------------------------------------------------


async def test_moves_are_append_only_in_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        game = await repo.create_game(new_game())
        await repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
    with closing(sqlite3.connect(path)) as db:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("UPDATE moves SET x = 0")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("DELETE FROM moves")


async def test_a_moves_stone_is_written_exactly_when_its_update_applies(tmp_path: Path) -> None:
    """The schema's trigger: the move's UPDATE (``SQL_PLAY``) writes the stone it names when
    it matches its game, and nothing when it does not; an UPDATE of the game that names no
    stone (a final move, a takeback, a message) leaves the stones alone; and a stone that
    cannot be written undoes its UPDATE, which is one statement."""
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        game = await repo.create_game(new_game(white=Player.human(BOB)))
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("PRAGMA foreign_keys = ON")

        def play(version: int, x: int, parity: int) -> Any:
            color = ("black", "white")[parity]
            args = (game.id, version, None, 5, parity, x, 3, color)
            return db.execute(sqlite_sql(sqlite_module.SQL_PLAY), args).fetchone()

        def stones() -> list[tuple[Any, ...]]:
            return db.execute(
                "SELECT seq, ply, x, y, color, made_at FROM moves WHERE game_id = ?", (game.id,)
            ).fetchall()

        assert play(game.version, 0, 0) is not None
        assert stones() == [(game.version + 1, 0, 0, 3, "black", 5)]
        assert play(game.version, 1, 1) is None  # a stale version: no row, no stone
        assert play(game.version + 1, 1, 0) is None  # the wrong colour
        assert len(stones()) == 1
        # UPDATEs that name no stone: the last one's columns are stale, and stay unused.
        for change in ("message_id = 9", "ply = ply + 1", "ply = ply - 1"):
            db.execute(f"UPDATE games SET {change}, version = version + 1 WHERE id = ?", (game.id,))
        assert len(stones()) == 1
        version = db.execute("SELECT version FROM games WHERE id = ?", (game.id,)).fetchone()[0]
        # A stone already at the version the move would make: the UPDATE is undone with it.
        db.execute(
            "INSERT INTO moves (game_id, seq, ply, x, y, color, made_at)"
            " VALUES (?, ?, 1, 9, 9, 'white', 1)",
            (game.id, version + 1),
        )
        with pytest.raises(sqlite3.IntegrityError):
            play(version, 2, 1)
        assert db.execute("SELECT version FROM games WHERE id = ?", (game.id,)).fetchone() == (
            version,
        )
        assert len(stones()) == 2


async def test_takebacks_are_recorded(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        game = await repo.create_game(new_game())
        for point in (Point(7, 7), Point(8, 8), Point(7, 8)):
            game = await repo.append_move(game.id, game.version, point, game.to_move)
        game = await repo.take_back(game.id, game.version, 2)
    with closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT game_id, seq, from_ply, to_ply FROM takebacks").fetchall()
    assert rows == [(game.id, game.version, 3, 1)]


def test_shared_statements_get_sqlite_parameters() -> None:
    # Numbered, so that one parameter may stand in several places, as in PostgreSQL.
    assert sqlite_sql("SELECT $1, $12 WHERE x = $1") == "SELECT ?1, ?12 WHERE x = ?1"


async def test_times_are_stored_as_microseconds_and_naive_ones_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    deadline = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    async with SqliteGameRepository.open(path) as repo:
        game = await repo.create_game(new_game(deadline=deadline))
        assert game.deadline == deadline
        with pytest.raises(ValueError, match="naive"):
            await repo.set_deadline(game.id, game.version, deadline.replace(tzinfo=None))
        assert await repo.get_game(game.id) == game
    with closing(sqlite3.connect(path)) as db:
        stored = db.execute("SELECT deadline FROM games").fetchone()[0]
    assert stored == 1767323045678901


async def test_foreign_keys_are_enforced(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:

        async def orphan(db: Executor) -> None:
            await db.execute("INSERT INTO moves VALUES (99, 1, 0, 0, 0, 'black', 0)")

        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            await repo._write(orphan)  # the way every write goes


# --- the queries the bot depends on use indexes ------------------------------------------


@pytest.mark.parametrize("name", sorted(INDEXED_QUERIES))
async def test_hot_queries_use_an_index(tmp_path: Path, name: str) -> None:
    sql, params = INDEXED_QUERIES[name]
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        for channel in range(20):  # some rows, so the planner has something to plan for
            await repo.create_game(new_game(channel))

        async def explain(db: Executor) -> list[str]:
            return [row[3] for row in await db.fetch(f"EXPLAIN QUERY PLAN {sql}", *params)]

        plan = await repo._read(explain)
    scans = [step for step in plan if step.startswith("SCAN") and "USING" not in step]
    # Scanning a subquery's small result (already bounded by LIMIT) is fine; tables are not.
    subqueries = {
        step.split()[1] for step in plan if step.startswith(("CO-ROUTINE", "MATERIALIZE"))
    }
    tables = [s for s in scans if s.split()[1] not in subqueries and "(subquery" not in s]
    assert tables == [], plan


# --- concurrency and cancellation ---------------------------------------------------------


async def test_cancelled_caller_leaves_no_half_transaction(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        game = await repo.create_game(new_game(rated=True))
        queued = repo._queued
        task = asyncio.create_task(
            repo.append_move(
                game.id, 1, Point(7, 7), Color.BLACK, outcome=Outcome(Termination.FIVE, Color.BLACK)
            )
        )
        await repo._until(lambda: repo._queued == queued + 1)  # the move is queued
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The write goes on without its caller; a later write is queued behind it.
        await repo.set_message(game.id, channel_id=1, message_id=2)
        # It happened whole (game, move and ratings at once) or not at all.
        stored = await repo.get_game(game.id)
        history = await repo.move_history(game.id)
        stats = await repo.player_stats(ALICE)
        assert (stored.status is GameStatus.FINISHED) == (len(history) == 1) == (stats is not None)
        assert not repo._reader.in_transaction
        assert not repo._writes.in_transaction


async def test_two_connections_to_one_file_keep_compare_and_set(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as first, SqliteGameRepository.open(path) as second:
        game = await first.create_game(new_game(white=Player.human(BOB)))
        results = await asyncio.gather(
            first.append_move(game.id, 1, Point(1, 1), Color.BLACK),
            second.append_move(game.id, 1, Point(2, 2), Color.BLACK),
            return_exceptions=True,
        )
        assert sorted(type(r).__name__ for r in results) == ["GameRecord", "VersionConflictError"]
        assert len(await second.move_history(game.id)) == 1


async def test_an_unexpected_failure_fails_only_its_own_write(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        game = await repo.create_game(new_game(10))

        async def broken(db: Executor) -> None:
            await db.execute("UPDATE games SET rated = 1")  # writes, then fails
            raise RuntimeError("boom")

        # Queued in the same event-loop turn, the three land in one group commit.
        results = await asyncio.gather(
            repo.append_move(game.id, 1, Point(7, 7), Color.BLACK),
            repo._write(broken),
            repo.create_game(new_game(11)),
            return_exceptions=True,
        )
        assert isinstance(results[1], RuntimeError)
        assert [type(r).__name__ for r in results] == ["GameRecord", "RuntimeError", "GameRecord"]
        assert len(await repo.move_history(game.id)) == 1
        assert not (await repo.get_game(game.id)).rated  # the broken write left no trace
        assert await repo.open_game_in_channel(11) is not None


async def test_a_write_waits_for_another_process_lock_off_the_event_loop(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        game = await repo.create_game(new_game())
        release = threading.Event()
        async with write_lock_held_async(path, 10.0, release=release):
            move = asyncio.create_task(
                repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
            )
            await repo._until(lambda: repo._committing == 1)  # the writer has the move
            # While the move waits for the lock, the event loop serves others: a read, and a
            # read of more than a few rows (on the reader connection's thread).
            assert (await repo.get_game(game.id)).ply == 0
            assert await repo.move_history(game.id) == []
            assert not move.done()  # it cannot be committed while the lock is held
            release.set()
        stored = await move
        assert stored.ply == 1
        assert len(await repo.move_history(game.id)) == 1


async def test_writes_queued_while_a_commit_is_on_its_thread_land_in_the_next_batch(
    tmp_path: Path,
) -> None:
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        commits = repo._commits
        first = asyncio.create_task(repo.create_game(new_game(1)))
        await repo._until(lambda: repo._committing == 1)  # the writer is committing it
        later = [asyncio.create_task(repo.create_game(new_game(c))) for c in range(2, 12)]
        games = await asyncio.gather(first, *later)
        assert repo._commits == commits + 2  # the first alone, the ten others together
        assert sorted(g.channel_id for g in games) == list(range(1, 12))
        for game in games:
            assert await repo.get_game(game.id) == game
        assert not repo._writes.in_transaction


async def test_a_batch_runs_behind_the_commit_of_the_one_before(tmp_path: Path) -> None:
    """Writes queued while a batch commits are taken at once: their statements go to the
    thread behind that COMMIT, not after its answer, and are committed after it."""
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        before = repo.activity()
        first = asyncio.create_task(repo.create_game(new_game(1)))
        await repo._until(lambda: repo._committing == 1)  # the writer has it
        later = [asyncio.create_task(repo.create_game(new_game(c))) for c in range(2, 6)]
        games = await asyncio.gather(first, *later)
        after = repo.activity()
        assert after.commits - before.commits == 2
        assert after.behind - before.behind == 1
        assert not repo._writes.in_transaction
    async with SqliteGameRepository.open(path) as reopened:  # both durable
        for game in games:
            assert await reopened.get_game(game.id) == game


async def test_a_failed_commit_rolls_back_the_batch_behind_it_too(tmp_path: Path) -> None:
    """A COMMIT that fails (a foreign key checked only then) with the next batch's
    statements behind it on the thread: both are rolled back; the failed batch's writes run
    again one by one (only the culprit fails) and the batch behind it by itself."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        games = [await repo.create_game(new_game(c, white=Player.human(BOB))) for c in range(3)]

        async def orphan_stone(db: Executor) -> None:
            # Accepted now, refused by the COMMIT: a stone of a game that does not exist.
            await db.execute("PRAGMA defer_foreign_keys = ON")
            await db.execute(
                "INSERT INTO moves (game_id, ply, x, y, color, made_at, seq) "
                "VALUES (999, 0, 1, 1, 'black', 0, 1)"
            )

        occupy = asyncio.create_task(repo.create_game(new_game(99)))
        await repo._until(lambda: repo._committing == 1)
        failing = [
            asyncio.create_task(repo._write(orphan_stone)),
            asyncio.create_task(
                repo.append_move(games[0].id, games[0].version, Point(7, 7), Color.BLACK)
            ),
        ]
        await repo._until(lambda: repo._committing == 2)  # the batch that will fail
        commits, behind = repo._commits, repo.activity().behind
        following = [
            asyncio.create_task(repo.append_move(g.id, g.version, Point(8, 8), Color.BLACK))
            for g in games[1:]
        ]
        await occupy
        results = await asyncio.gather(*failing, *following, return_exceptions=True)
        assert repo.activity().behind == behind + 1
        assert isinstance(results[0], sqlite3.IntegrityError)
        assert [type(r).__name__ for r in results[1:]] == ["GameRecord"] * 3
        histories = [[str(m.point) for m in await repo.move_history(g.id)] for g in games]
        assert histories == [["h8"], ["i9"], ["i9"]]
        # The first game's, then the move alone and the batch behind by itself (the orphan,
        # alone, is rolled back).
        assert repo._commits == commits + 3
        assert not repo._writes.in_transaction


async def test_a_batch_behind_one_that_sqlite_rolled_back_commits_by_itself(
    tmp_path: Path,
) -> None:
    """A batch whose last statement rolls its transaction back (a trigger's
    ``RAISE(ROLLBACK)``, as SQLite does on an I/O error), with the next batch's statements and
    RELEASE behind its own failing RELEASE: nothing of the first is left open, so the second's
    savepoint began a transaction of its own, which its RELEASE committed. The second's
    writers hear their results once, and the first's writes run again one by one."""
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        games = [await repo.create_game(new_game(c, white=Player.human(BOB))) for c in range(4)]
        with closing(sqlite3.connect(path)) as db:
            db.execute(
                "CREATE TRIGGER roll_back BEFORE UPDATE OF message_id ON games"
                " WHEN NEW.message_id = 666 BEGIN SELECT RAISE (ROLLBACK, 'rolled back'); END"
            )
        occupy = asyncio.create_task(repo.create_game(new_game(99)))
        await repo._until(lambda: repo._committing == 1)
        failing = [
            asyncio.create_task(
                repo.append_move(games[0].id, games[0].version, Point(7, 7), Color.BLACK)
            ),
            asyncio.create_task(repo.set_message(games[1].id, channel_id=1, message_id=666)),
        ]
        await repo._until(lambda: repo._committing == 2)  # the batch that will fail
        commits, behind = repo._commits, repo.activity().behind
        following = [
            asyncio.create_task(repo.append_move(g.id, g.version, Point(8, 8), Color.BLACK))
            for g in games[2:]
        ]
        await occupy
        results = await asyncio.gather(*failing, *following, return_exceptions=True)
        assert repo.activity().behind == behind + 1
        assert isinstance(results[1], sqlite3.IntegrityError)
        assert [type(r).__name__ for r in (results[0], *results[2:])] == ["GameRecord"] * 3
        histories = [[str(m.point) for m in await repo.move_history(g.id)] for g in games]
        assert histories == [["h8"], [], ["i9"], ["i9"]]
        # The first game's, the batch behind by its own RELEASE, then the move alone.
        assert repo._commits == commits + 3
        assert not repo._writes.in_transaction


async def test_a_batch_begins_its_transaction_with_its_first_change(tmp_path: Path) -> None:
    """Trips to the writer's thread, each a hand-over the event loop pays for: a write alone
    is its statement and the COMMIT sent right behind it (``sqlite3`` begins the transaction
    with the statement); a move is one statement (the schema's trigger writes its stone)."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        before = repo.activity()
        game = await repo.create_game(new_game(white=Player.human(BOB)))
        made = repo.activity()
        assert made.trips - before.trips == 2  # the INSERT (and BEGIN), COMMIT
        moved = await repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
        after = repo.activity()
        assert after.trips - made.trips == 2  # the UPDATE (and BEGIN, and the stone), COMMIT
        assert (after.writes, after.commits) == (made.writes + 1, made.commits + 1)
        assert not repo._writes.in_transaction
        with pytest.raises(VersionConflictError):
            await repo.append_move(game.id, game.version, Point(8, 8), Color.WHITE)
        refused = repo.activity()
        # The UPDATE (and BEGIN), the COMMIT, then the look why (after the COMMIT).
        assert refused.trips - after.trips == 3
        assert not repo._writes.in_transaction
        assert await repo.get_game(game.id) == moved
        with pytest.raises(ChannelBusyError):
            await repo.create_game(new_game(game.channel_id))
        busy = repo.activity()
        # The INSERT the unique index refuses (and BEGIN), the look who is there, COMMIT.
        assert busy.trips - refused.trips == 3
        assert not repo._writes.in_transaction
        # The refused INSERT took no id: the next game has the one after the first's.
        assert (await repo.create_game(new_game(game.channel_id + 1))).id == game.id + 1
        assert not repo._writes.in_transaction
        assert [str(m.point) for m in await repo.move_history(game.id)] == ["h8"]


async def test_a_batch_of_moves_is_sent_without_waiting_for_answers(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        games = [await repo.create_game(new_game(c, white=Player.human(BOB))) for c in range(5)]
        before = repo.activity()
        first = asyncio.create_task(repo.create_game(new_game(99)))
        await repo._until(lambda: repo._committing == 1)  # the writer is busy with it
        moves = [
            asyncio.create_task(repo.append_move(g.id, g.version, Point(7, 7), Color.BLACK))
            for g in games
        ]
        await first
        await asyncio.gather(*moves)
        after = repo.activity()
        assert after.commits == before.commits + 2  # the first game's, then the five moves'
        # The first game's 2 trips (INSERT, COMMIT), then the five moves' batch: SAVEPOINT,
        # each move's UPDATE (its stone written by the trigger), RELEASE.
        assert after.trips - before.trips == 2 + 1 + 5 + 1
        # The second to fifth moves were sent before the first had its answer.
        assert after.ahead - before.ahead == 4
        for game in games:
            assert [str(m.point) for m in await repo.move_history(game.id)] == ["h8"]


async def _one_batch(repo: SqliteGameRepository, *writes: Any) -> list[Any]:
    """``writes`` (coroutines) queued together while the writer commits another write, so
    that they make one batch of their own: their results or errors, in order."""
    commits = repo._commits
    first = asyncio.create_task(repo.create_game(new_game(999)))
    await repo._until(lambda: repo._committing == 1)  # the writer is busy with it
    results = await asyncio.gather(*writes, return_exceptions=True)
    await first
    assert repo._commits >= commits + 2
    return results


async def test_writes_gone_ahead_keep_their_refusals_and_stones_apart(tmp_path: Path) -> None:
    """Moves sent one after another without waiting: a refused one (Black's move at the
    version the game had two moves ago: Black is to move again, but not at that version) gets
    its own refusal and leaves no stone; the others each get their game and their stone."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        games = [await repo.create_game(new_game(c, white=Player.human(BOB))) for c in range(3)]
        once = await repo.append_move(games[1].id, games[1].version, Point(0, 0), Color.BLACK)
        moved = await repo.append_move(games[1].id, once.version, Point(0, 1), Color.WHITE)
        before = repo.activity()
        results = await _one_batch(
            repo,
            repo.append_move(games[0].id, games[0].version, Point(7, 7), Color.BLACK),
            repo.append_move(games[1].id, games[1].version, Point(7, 7), Color.BLACK),
            repo.append_move(games[2].id, games[2].version, Point(8, 8), Color.BLACK),
        )
        assert [type(r).__name__ for r in results] == [
            "GameRecord",
            "VersionConflictError",
            "GameRecord",
        ]
        assert repo.activity().ahead - before.ahead == 2
        histories = [[str(m.point) for m in await repo.move_history(g.id)] for g in games]
        assert histories == [["h8"], ["a1", "a2"], ["i9"]]
        assert await repo.get_game(games[1].id) == moved
        assert not repo._writes.in_transaction


async def test_two_new_games_gone_ahead_in_one_channel_leave_one_game(tmp_path: Path) -> None:
    """New games are their INSERT alone, sent one after another without waiting: the unique
    index lets one game into a channel and the second is refused, naming the first."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        before = repo.activity()
        results = await _one_batch(
            repo,
            repo.create_game(new_game(5)),
            repo.create_game(new_game(5, white=Player.human(BOB))),
            repo.create_game(new_game(6)),
        )
        assert repo.activity().ahead - before.ahead == 2
        first, refused, other = results
        assert isinstance(refused, ChannelBusyError)
        assert refused.game_id == first.id
        assert (await repo.open_game_in_channel(5)) == first
        assert (await repo.open_game_in_channel(6)) == other
        assert other.id == first.id + 1  # the refused one took no id
        assert not repo._writes.in_transaction


async def test_compare_and_set_writes_go_ahead_and_keep_their_refusals(tmp_path: Path) -> None:
    """Accepting or closing a challenge is one compare-and-set UPDATE (what follows a refusal
    only reads): sent without waiting for the writes before it, like a move, in a batch whose
    statements all go before any answer; a stale one gets its own refusal and changes nothing,
    a pending ping held meanwhile is written once, behind them all."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        pending = GameStatus.PENDING
        challenges = [await repo.create_game(new_game(c, status=pending)) for c in range(3)]
        game = await repo.create_game(new_game(9))
        witness = _Witness(repo._writes)
        repo._writes = witness  # type: ignore[assignment]
        before = repo.activity()
        first = asyncio.create_task(repo.create_game(new_game(99)))
        await repo._until(lambda: repo._committing == 1)  # the writer is busy with it
        sent = len(witness.events)
        results = await asyncio.gather(
            repo.accept_challenge(challenges[0].id, challenges[0].version),
            repo.save_turn_ping(TurnPing(game.id, 1, 99, game.version + 1)),
            repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK),
            repo.accept_challenge(challenges[1].id, challenges[1].version + 1),  # stale
            repo.close_challenge(challenges[2].id, challenges[2].version, GameStatus.DECLINED),
            return_exceptions=True,
        )
        await first
        batch = witness.events[sent:]
        assert [type(r).__name__ for r in results] == [
            "GameRecord",
            "NoneType",
            "GameRecord",
            "VersionConflictError",
            "GameRecord",
        ]
        assert repo.activity().ahead - before.ahead == 3  # all but the batch's first UPDATE
        assert repo.activity().commits - before.commits == 2  # the first game's, then these
        sends = [first for kind, first in batch if kind == "sent"]
        # The refusal's read (the game, to name why) comes after the answers; everything else
        # is sent before any of them.
        assert sends[:7] == [
            "SAVEPOINT batch",
            *["UPDATE games"] * 4,
            "INSERT INTO",
            "RELEASE batch",
        ]
        assert _waits(batch) == 2
        # The first game's batch, then these: one wait for them all, one for the refusal's read.
        assert repo.activity().waits - before.waits == 3
        assert (await repo.get_game(challenges[0].id)).status is GameStatus.ACTIVE
        assert (await repo.get_game(challenges[1].id)) == challenges[1]
        assert (await repo.get_game(challenges[2].id)).status is GameStatus.DECLINED
        assert [str(m.point) for m in await repo.move_history(game.id)] == ["h8"]
        assert await repo.turn_ping(game.id) == TurnPing(game.id, 1, 99, game.version + 1)
        assert not repo._writes.in_transaction


async def test_hundreds_of_writes_queued_together_share_one_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch costs about one wait for its answers whatever its size, so the writes queued
    while the writer is busy (a burst of new games, say) are committed together, hundreds at
    a time; the cap still splits a longer queue into batches of at most its size."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        before = repo.activity()
        games = await _one_batch(repo, *(repo.create_game(new_game(c)) for c in range(300)))
        assert [type(g).__name__ for g in games] == ["GameRecord"] * 300
        assert repo.activity().commits - before.commits == 2  # the first game, then the 300
        monkeypatch.setattr(sqlite_module, "_MAX_BATCH", 128)
        before = repo.activity()
        first = asyncio.create_task(
            repo.append_move(games[0].id, games[0].version, Point(7, 7), Color.BLACK)
        )
        await repo._until(lambda: repo._committing == 1)  # the writer is busy with it
        moves = [repo.append_move(g.id, g.version, Point(7, 7), Color.BLACK) for g in games[1:]]
        moved = [await first, *await asyncio.gather(*moves)]
        assert [type(g).__name__ for g in moved] == ["GameRecord"] * 300
        assert repo.activity().commits - before.commits == 1 + 3  # then 128, 128 and 43
        assert repo.activity().ahead - before.ahead == 299 - 3  # all but each batch's first
        for game in games[::50]:
            assert len(await repo.move_history(game.id)) == 1


async def test_a_write_that_cannot_go_ahead_waits_for_those_before_it(tmp_path: Path) -> None:
    """A ping held by one write and dropped by a later one, with a move between them: the
    drop (it sees the pings) is not sent ahead but after the others, and after the held ping,
    so that the ping is gone at the end, as if each had run alone in turn."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        game = await repo.create_game(new_game(1, white=Player.human(BOB)))
        other = await repo.create_game(new_game(2, white=Player.human(BOB)))
        before = repo.activity()
        await _one_batch(
            repo,
            repo.save_turn_ping(TurnPing(game.id, 1, 99, game.version)),
            repo.append_move(other.id, other.version, Point(7, 7), Color.BLACK),
            repo.drop_turn_ping(game.id),
            repo.save_turn_ping(TurnPing(other.id, 2, 98, other.version + 1)),
        )
        assert repo.activity().ahead - before.ahead == 1  # the move, behind the first ping
        # The first game's batch; then this one's move, the first ping written after the
        # move's answer, the drop after the ping's, the last ping (and the end) after the
        # drop's: each write that sees what came before it costs its batch a wait.
        assert repo.activity().waits - before.waits == 1 + 4
        assert await repo.turn_ping(game.id) is None
        assert await repo.turn_ping(other.id) == TurnPing(other.id, 2, 98, other.version + 1)
        assert [str(m.point) for m in await repo.move_history(other.id)] == ["h8"]


async def test_a_change_that_flushes_held_rows_after_a_settled_write_stays_in_its_batch(
    tmp_path: Path,
) -> None:
    """A ping held, then a write that waits for the answers before it (the boards' shown
    versions), then changes that must see the held ping (its drop; every clock moved on): each
    is sent after the held ping and before the batch's end, inside its transaction, however
    long the ping's answer takes. Sent after the end instead, a change would open a
    transaction that nothing commits: what its writer was told is done would be seen by no
    other connection, and lost with the process."""
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        deadline = datetime(2026, 1, 1, 12, 5, tzinfo=UTC)
        games = [
            await repo.create_game(new_game(c, deadline=deadline, turn_seconds=300))
            for c in range(2)
        ]
        by = timedelta(minutes=6)
        results = await _one_batch(
            repo,
            repo.save_turn_ping(TurnPing(games[0].id, 1, 99, games[0].version)),
            repo.save_turn_ping(TurnPing(games[1].id, 2, 98, games[1].version)),
            repo.mark_shown({games[0].id: games[0].version}),
            repo.drop_turn_ping(games[0].id),
            repo.shift_deadlines(by),
        )
        assert results == [None, None, None, None, 2]
        assert not repo._writes.in_transaction
        with closing(sqlite3.connect(path)) as other:
            pings = other.execute("SELECT game_id FROM turn_pings ORDER BY game_id").fetchall()
            rows = other.execute(
                "SELECT deadline FROM games WHERE id <= ?", (games[1].id,)
            ).fetchall()
        assert pings == [(games[1].id,)]
        micros = (deadline + by - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
        assert rows == [(micros,)] * 2
        for game in games:
            assert (await repo.get_game(game.id)).deadline == deadline + by


def _random_write(
    rng: random.Random, repo: SqliteGameRepository, games: list[GameRecord]
) -> Coroutine[Any, Any, Any]:
    """One write of the kinds a busy bot queues together (some of them refused: a stale
    version), against one of ``games``."""
    game = rng.choice(games)
    version = game.version - rng.choice([0, 0, 0, 1])
    kind = rng.choice(["ping", "drop", "shown", "message", "move", "warn", "deadline", "shift"])
    if kind == "ping":
        return repo.save_turn_ping(TurnPing(game.id, 1, rng.randrange(1, 999), game.version))
    if kind == "drop":
        return repo.drop_turn_ping(game.id)
    if kind == "shown":
        return repo.mark_shown({g.id: g.version for g in rng.sample(games, 2)})
    if kind == "message":
        return repo.set_message(game.id, channel_id=1, message_id=rng.randrange(1, 999))
    if kind == "move":
        point = Point(rng.randrange(15), rng.randrange(15))
        colour = Color.BLACK if game.ply % 2 == 0 else Color.WHITE
        return repo.append_move(game.id, version, point, colour, deadline=game.deadline)
    if kind == "warn":
        return repo.mark_warning_sent(game.id, version)
    if kind == "deadline":
        return repo.set_deadline(game.id, version, datetime(2026, 2, 1, tzinfo=UTC))
    return repo.shift_deadlines(timedelta(seconds=rng.randrange(1, 90)))


@pytest.mark.parametrize("seed", range(8))
async def test_every_write_answered_is_committed_whatever_shares_its_batch(
    tmp_path: Path, seed: int
) -> None:
    """Random batches of the writes a busy bot queues together (pings held back, writes gone
    ahead, writes that wait for those before them, refusals): once every writer has its
    answer, no transaction is left open on the writer, and another connection sees exactly
    what the writer's connection sees."""
    rng = random.Random(seed)
    path = tmp_path / "t.sqlite3"
    deadline = datetime(2026, 1, 1, 12, 5, tzinfo=UTC)
    query = "SELECT id, version, deadline, shown_version, message_id FROM games ORDER BY id"
    pings = "SELECT game_id, message_id FROM turn_pings ORDER BY game_id"
    # No fsync a commit (``NORMAL``): what is committed, not how durably, is the question.
    async with SqliteGameRepository.open(path, synchronous="NORMAL") as repo:
        for c in range(6):
            await repo.create_game(new_game(c, deadline=deadline, turn_seconds=300))
        with closing(sqlite3.connect(path)) as other:
            for _ in range(60):
                games = await repo.open_games()
                writes = [_random_write(rng, repo, games) for _ in range(rng.randrange(2, 9))]
                # Queued together while the writer commits another write: one batch.
                first = asyncio.create_task(
                    repo.set_message(games[0].id, channel_id=1, message_id=1)
                )
                await repo._until(lambda: repo._committing == 1)
                await asyncio.gather(*writes, return_exceptions=True)
                await first
                assert not repo._writes.in_transaction
                mine = (
                    await repo._writes.execute_fetchall(query),
                    await repo._writes.execute_fetchall(pings),
                )
                theirs = (other.execute(query).fetchall(), other.execute(pings).fetchall())
                assert [list(rows) for rows in mine] == [list(rows) for rows in theirs]


async def test_a_failure_among_writes_gone_ahead_fails_only_its_own(tmp_path: Path) -> None:
    """One of three writes sent ahead fails on the thread (not a refusal): the batch is
    rolled back once all three have their answers, and each runs again alone."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        games = [await repo.create_game(new_game(c, white=Player.human(BOB))) for c in range(2)]
        before = repo.activity()

        async def unbindable(db: Executor) -> None:
            # A parameter SQLite cannot store: sqlite3 refuses it when the thread runs it.
            await db.fetch(SQL_SET_MESSAGE, 1, object(), games[0].id)

        results = await _one_batch(
            repo,
            repo.append_move(games[0].id, games[0].version, Point(7, 7), Color.BLACK),
            repo._write(unbindable, atomic=True),
            repo.append_move(games[1].id, games[1].version, Point(8, 8), Color.BLACK),
        )
        assert isinstance(results[1], sqlite3.ProgrammingError)
        assert [type(r).__name__ for r in (results[0], results[2])] == ["GameRecord"] * 2
        assert repo.activity().ahead - before.ahead == 2  # in the batch that failed
        assert [len(await repo.move_history(g.id)) for g in games] == [1, 1]
        assert (await repo.get_game(games[0].id)).message_id is None
        assert not repo._writes.in_transaction


async def test_a_transaction_sqlite_rolls_back_midway_fails_the_batchs_release(
    tmp_path: Path,
) -> None:
    """Three writes sent ahead in one batch, the second rolling the whole transaction back
    (as SQLite does by itself on a full disk or an I/O error; here a trigger's
    ``RAISE(ROLLBACK)``). The third then begins a new transaction, and the batch's RELEASE,
    sent behind them, fails, for the savepoint is gone: nothing of the batch is committed
    by it, and each write runs again alone. The first move is not lost, though its statement
    had succeeded; the culprit hears its own failure."""
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        games = [await repo.create_game(new_game(c, white=Player.human(BOB))) for c in range(2)]
        with closing(sqlite3.connect(path)) as db:
            db.execute(
                "CREATE TRIGGER roll_back BEFORE UPDATE OF message_id ON games"
                " WHEN NEW.message_id = 666 BEGIN SELECT RAISE (ROLLBACK, 'rolled back'); END"
            )
        before = repo.activity()
        commits = repo._commits
        results = await _one_batch(
            repo,
            repo.append_move(games[0].id, games[0].version, Point(7, 7), Color.BLACK),
            repo.set_message(games[1].id, channel_id=1, message_id=666),
            repo.append_move(games[1].id, games[1].version, Point(8, 8), Color.BLACK),
        )
        assert repo.activity().ahead - before.ahead == 2
        assert isinstance(results[1], sqlite3.IntegrityError)
        assert "rolled back" in str(results[1])
        assert [type(r).__name__ for r in (results[0], results[2])] == ["GameRecord"] * 2
        # The writer's own write, then the two moves alone: the failed batch and the culprit
        # alone commit nothing.
        assert repo._commits == commits + 3
        assert [[str(m.point) for m in await repo.move_history(g.id)] for g in games] == [
            ["h8"],
            ["i9"],
        ]
        for game, result in zip(games, (results[0], results[2]), strict=True):
            assert await repo.get_game(game.id) == result
        assert (await repo.get_game(games[1].id)).message_id is None
        assert not repo._writes.in_transaction


class _Witness:
    """The writer's aiosqlite connection, noting each statement as it is sent to the thread
    and as its answer comes back (the repository's own calls, through the public API)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.events: list[tuple[str, str]] = []

    @property
    def in_transaction(self) -> bool:
        return bool(self._conn.in_transaction)

    def _noted(self, sql: str, call: Any) -> Any:
        first = " ".join(sql.split()[:2])
        self.events.append(("sent", first))

        async def answered() -> Any:
            try:
                return await call
            finally:
                self.events.append(("answered", first))

        return answered()

    def execute(self, sql: str, *args: Any) -> Any:
        return self._noted(sql, self._conn.execute(sql, *args))

    def execute_fetchall(self, sql: str, *args: Any) -> Any:
        return self._noted(sql, self._conn.execute_fetchall(sql, *args))

    def executemany(self, sql: str, *args: Any) -> Any:
        return self._noted(sql, self._conn.executemany(sql, *args))

    async def close(self) -> None:
        await self._conn.close()


def _waits(events: list[tuple[str, str]]) -> int:
    """How many times the writer waited for answers before sending more: the runs of sends
    that each begin after an answer."""
    return sum(
        1
        for i, (kind, _) in enumerate(events)
        if kind == "sent" and (i == 0 or events[i - 1][0] == "answered")
    )


async def test_a_batch_waits_once_for_its_statements_and_its_end(tmp_path: Path) -> None:
    """A batch sends its statements and its end (RELEASE, or COMMIT for a write alone) before
    any of their answers: one wait. Counted on the connection the repository talks to."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        games = [await repo.create_game(new_game(c, white=Player.human(BOB))) for c in range(5)]
        witness = _Witness(repo._writes)
        repo._writes = witness  # type: ignore[assignment]
        start = repo.activity().waits
        moved = await repo.append_move(games[0].id, games[0].version, Point(7, 7), Color.BLACK)
        assert witness.events == [
            ("sent", "UPDATE games"),
            ("sent", "COMMIT"),
            ("answered", "UPDATE games"),
            ("answered", "COMMIT"),
        ]
        witness.events.clear()
        assert repo.activity().waits - start == 1
        start = repo.activity().waits
        await repo.save_turn_ping(TurnPing(games[0].id, 1, 99, moved.version))
        assert _waits(witness.events) == 1
        assert repo.activity().waits - start == 1
        start = repo.activity().waits
        witness.events.clear()
        first = asyncio.create_task(repo.create_game(new_game(99)))
        await repo._until(lambda: repo._committing == 1)  # the writer is busy with it
        sent = len(witness.events)
        moves = [
            asyncio.create_task(repo.append_move(g.id, g.version, Point(8, 8), Color.BLACK))
            for g in games[1:]
        ]
        pings = [
            asyncio.create_task(repo.save_turn_ping(TurnPing(g.id, 1, 100 + g.id, g.version + 1)))
            for g in games[1:]
        ]
        await asyncio.gather(first, *moves, *pings)
        batch = witness.events[sent:]
        kinds = [event for event in batch if event[0] == "sent"]
        assert kinds == [
            ("sent", "SAVEPOINT batch"),
            *[("sent", "UPDATE games")] * 4,
            ("sent", "INSERT INTO"),
            ("sent", "RELEASE batch"),
        ]
        assert _waits(witness.events) == 2  # the first game's batch, then the others'
        assert repo.activity().waits - start == 2  # the counter the load bench prints
        for game in games[1:]:
            assert await repo.turn_ping(game.id) is not None
            assert len(await repo.move_history(game.id)) == 1


async def test_a_held_ping_that_fails_fails_its_own_write_alone(tmp_path: Path) -> None:
    """Pings held in one batch, one of them for a game deleted meanwhile: its write fails
    and writes nothing; the others are written, and their writes succeed."""
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        games = [await repo.create_game(new_game(c, white=Player.human(BOB))) for c in range(3)]
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("PRAGMA foreign_keys = ON")
            db.execute("DELETE FROM games WHERE id = ?", (games[1].id,))
        first = asyncio.create_task(repo.create_game(new_game(99)))
        await repo._until(lambda: repo._committing == 1)  # the writer is busy with it
        snowflake = 1_576_465_721_116_867_771  # ids as Discord's: 64 bits
        pings = [
            asyncio.create_task(
                repo.save_turn_ping(TurnPing(g.id, snowflake, snowflake + g.id, g.version))
            )
            for g in games
        ]
        await repo._until(lambda: len(repo._pending) == 3)  # the three go in one batch
        await first
        done = await asyncio.gather(*pings, return_exceptions=True)
        assert done[0] is None
        assert isinstance(done[1], sqlite3.IntegrityError)
        assert done[2] is None
        for game in games[0], games[2]:
            expected = TurnPing(game.id, snowflake, snowflake + game.id, game.version)
            assert await repo.turn_ping(game.id) == expected
        assert await repo.turn_ping(games[1].id) is None


async def test_what_is_held_back_is_written_before_a_statement_that_could_see_it(
    tmp_path: Path,
) -> None:
    """A ping saved then dropped in one batch: the held save runs before the DELETE."""
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        game = await repo.create_game(new_game(white=Player.human(BOB)))
        first = asyncio.create_task(repo.create_game(new_game(99)))
        await repo._until(lambda: repo._committing == 1)
        commits = repo._commits
        saved = asyncio.create_task(repo.save_turn_ping(TurnPing(game.id, 1, 99, game.version)))
        dropped = asyncio.create_task(repo.drop_turn_ping(game.id))
        await asyncio.gather(first, saved, dropped)
        assert repo._commits == commits + 2  # the save and the drop in one batch
        assert await repo.turn_ping(game.id) is None


async def test_a_ping_shares_the_commit_of_a_move_made_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        game = await repo.create_game(new_game(white=Player.human(BOB)))
        commits, queued = repo._commits, repo._queued
        monkeypatch.setattr(sqlite_module, "_UNHURRIED_S", 3600.0)
        ping = asyncio.create_task(repo.save_turn_ping(TurnPing(game.id, 1, 99, game.version)))
        await repo._until(lambda: repo._queued == queued + 1)
        # Queued and waiting for company: the writer was not woken, only a timer an hour
        # away will wake it. (A write in a hurry would have woken the writer, which takes
        # the queue before this test runs again.)
        assert len(repo._pending) == 1
        assert not repo._wake.is_set()
        assert repo._nudge is not None
        assert repo._nudge.when() - asyncio.get_running_loop().time() > 3000
        assert repo._commits == commits
        assert not ping.done()
        moved = await repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
        await ping
        assert repo._commits == commits + 1  # one transaction, one fsync, for both
        assert repo._nudge is None  # the commit took the ping: its timer is gone
        # Alone, it is committed by itself when its timer fires.
        monkeypatch.setattr(sqlite_module, "_UNHURRIED_S", 0.01)
        await repo.save_turn_ping(TurnPing(game.id, 1, 100, moved.version))
        assert repo._commits == commits + 2
    # Both durable: read back through a new connection.
    async with SqliteGameRepository.open(path) as reopened:
        assert await reopened.turn_ping(game.id) == TurnPing(game.id, 1, 100, moved.version)
        assert len(await reopened.move_history(game.id)) == 1


async def test_checkpoint_folds_the_wal_into_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        for channel in range(30):
            await repo.create_game(new_game(channel))
        size = await repo.checkpoint()
        wal = path.with_name(path.name + "-wal")
        assert wal.stat().st_size == 0
        assert size == path.stat().st_size > 0


async def test_no_writer_waits_forever_if_the_writer_dies(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        game = await repo.create_game(new_game())
        repo._writer.cancel()
        with pytest.raises((RuntimeError, asyncio.CancelledError)):
            await repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
        with pytest.raises(RuntimeError, match="closed"):
            await repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
        assert (await repo.get_game(game.id)).ply == 0  # reads still work
        await repo.close()
        assert repo._closed


def test_a_repository_left_open_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    # A crash on the way out: the event loop ends with the repository still open. The
    # threads of its connections end all the same, or the process could never exit.
    script = (
        "import asyncio, sys\n"
        "from storage import NewGame, Player, SqliteGameRepository\n"
        "async def main():\n"
        "    repo = await SqliteGameRepository.connect(sys.argv[1])\n"
        "    players = {'black': Player.human(1), 'white': Player.human(2)}\n"
        "    await repo.create_game(NewGame(guild_id=1, channel_id=1, **players))\n"
        "    raise SystemExit(3)\n"
        "asyncio.run(main())\n"
    )
    path = tmp_path / "t.sqlite3"
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        cwd=Path(__file__).parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr == ""  # no thread died complaining
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone() == (1,)


async def test_a_failing_migration_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        game = await repo.create_game(new_game())
    before = schema(path)
    broken = Migration(
        LATEST_VERSION + 1,
        f"{LATEST_VERSION + 1:04d}_broken.sql",
        "CREATE TABLE half_done (x INTEGER);\nDROP TABLE games;\nSELECT no_such_function();\n",
    )
    monkeypatch.setattr(sqlite_module, "MIGRATIONS", (*MIGRATIONS, broken))
    monkeypatch.setattr(sqlite_module, "LATEST_VERSION", LATEST_VERSION + 1)
    with pytest.raises(sqlite3.OperationalError, match="no_such_function"):
        await SqliteGameRepository.connect(path)
    monkeypatch.undo()
    assert pragma(path, "user_version") == LATEST_VERSION
    assert schema(path) == before  # neither the new table nor the drop survived
    async with SqliteGameRepository.open(path) as repo:
        assert await repo.get_game(game.id) == game


async def test_ai_levels_given_as_enums_load_as_their_values(tmp_path: Path) -> None:
    class Level(enum.StrEnum):
        HARD = "hard"

    async with SqliteGameRepository.open(tmp_path / "t.sqlite3") as repo:
        game = await repo.create_game(new_game(white=Player.ai(Level.HARD)))
        assert game.white == Player.ai("hard")
        assert type(game.white.level) is str
        assert await repo.get_game(game.id) == game
