"""Each storage fault at start is named as what it is, and the file is never touched.

A damaged file is called damaged, not "not a gomoku-bot database" (which would invite an
operator to delete it), and is refused at start rather than failing at every move; a lock
held by another process is waited out (``LOCK_WAIT_S``)."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

import storage.sqlite as sqlite_module
from storage.errors import (
    CorruptDatabaseError,
    DatabaseLockedError,
    DiskFullError,
    ReadOnlyDatabaseError,
)
from storage.sqlite import SqliteGameRepository
from tests.storage.faults import (
    full_filesystem,
    garble,
    played_database,
    remount_read_only,
    truncate,
    write_lock_held,
)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("damage", [truncate, garble], ids=["truncated", "garbage-pages"])
async def test_a_damaged_file_is_refused_untouched(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    path = tmp_path / "g.sqlite3"
    await played_database(path)
    damage(path)
    before = digest(path)
    with pytest.raises(CorruptDatabaseError):
        await SqliteGameRepository.connect(path)
    assert digest(path) == before


async def test_a_lock_is_waited_out(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    await played_database(path, games=1, moves=1)
    with write_lock_held(path, 1.0):
        repo = await SqliteGameRepository.connect(path, lock_wait_s=10.0)
    await repo.close()


async def test_a_lock_held_too_long_is_named(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    await played_database(path, games=1, moves=1)
    with write_lock_held(path, 1.0), pytest.raises(DatabaseLockedError) as caught:
        await SqliteGameRepository.connect(path, lock_wait_s=0.5)
    assert caught.value.waited_s >= 0.5


def test_sqlite_saying_full_is_a_full_disk(tmp_path: Path) -> None:
    # PRAGMA max_page_count makes SQLite itself answer SQLITE_FULL, as on a full disk.
    path = tmp_path / "g.sqlite3"
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("CREATE TABLE t (x BLOB)")
        db.execute("PRAGMA max_page_count = 3")
        with pytest.raises(sqlite3.OperationalError) as caught:
            db.execute("INSERT INTO t VALUES (zeroblob(20000))")
    assert isinstance(sqlite_module._classify(path, caught.value), DiskFullError)


async def test_a_full_filesystem_and_a_read_only_one(tmp_path: Path) -> None:
    async with full_filesystem(tmp_path / "mnt", "g.sqlite3") as path:
        folder = path.parent
        with pytest.raises(DiskFullError):
            await SqliteGameRepository.connect(path)
        with pytest.raises(DiskFullError):
            await SqliteGameRepository.connect(folder / "new.sqlite3")
        (folder / "filler").unlink()
        (folder / "new.sqlite3").unlink(missing_ok=True)
        remount_read_only(folder)
        with pytest.raises(ReadOnlyDatabaseError, match="read-only"):
            await SqliteGameRepository.connect(path)


async def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(ReadOnlyDatabaseError, match="does not exist"):
        await SqliteGameRepository.connect(tmp_path / "nowhere" / "g.sqlite3")


_KILLED_IN_FIRST_WRITE = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size = 10")  # the transaction spills into the file: the journal is hot
db.execute("BEGIN")
db.execute("CREATE TABLE half (x)")
for _ in range(2000):
    db.execute("INSERT INTO half VALUES (randomblob(100))")
os._exit(0)
"""


async def test_a_first_start_killed_while_writing_starts_afresh(tmp_path: Path) -> None:
    # A new file turns to WAL through a rollback journal (its first page is written the old
    # way), so a process killed in its first write leaves a half-written file and a hot journal
    # beside it. The next start undoes that before it reads the file, finds it empty, and sets
    # it up; without the undo it would find a table that is not ours and refuse the file.
    path = tmp_path / "g.sqlite3"
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _KILLED_IN_FIRST_WRITE, str(path)
    )
    assert await child.wait() == 0
    assert path.stat().st_size > 0
    assert path.with_name(path.name + "-journal").stat().st_size > 0
    repo = await SqliteGameRepository.connect(path)
    await repo.close()
    with closing(sqlite3.connect(path)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_schema")}
        assert "half" not in tables
        assert "games" in tables
        version = db.execute("PRAGMA user_version").fetchone()[0]
        assert version == sqlite_module.LATEST_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
