"""A short chaos run as a test (``python -m benchmarks.chaos`` runs the long one, with figures):
the real bot process killed twice, once while starting on a fresh database and once mid-play,
then stopped with SIGTERM."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from benchmarks.chaos import Chaos, chaos
from storage.sqlite import SqliteGameRepository
from tests.fakediscord import FakeDiscord


@pytest.mark.slow
async def test_two_kills_lose_nothing_and_leave_nothing() -> None:
    report = await chaos(2, games=4, level="beginner", seed=16)
    assert report.kills == 2
    assert report.problems == []
    assert report.ok
    assert report.acknowledged > 0


def _reader(path: Path) -> Chaos:
    return Chaos(FakeDiscord(), path, games=2, level="beginner", seed=1)


def test_a_file_killed_before_its_tables_were_made_reads_as_empty(tmp_path: Path) -> None:
    # What a kill during the first start leaves: the file and its journal mode, no tables.
    path = tmp_path / "chaos.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode = WAL")
    reader = _reader(path)
    assert reader.stored_moves() == set()
    assert reader.ai_due() == {}
    assert reader.plies() == {}


async def test_a_table_missing_from_a_made_file_is_still_an_error(tmp_path: Path) -> None:
    path = tmp_path / "chaos.sqlite3"
    async with SqliteGameRepository.open(path):
        pass
    with closing(sqlite3.connect(path)) as db:
        db.execute("DROP TABLE moves")
        db.commit()
    with pytest.raises(sqlite3.OperationalError, match="no such table: moves"):
        _reader(path).stored_moves()


_KILLED_MID_TRANSACTION = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size = 10")  # the transaction spills into the file: the journal is hot
db.execute("BEGIN")
for _ in range(5000):
    db.execute("INSERT INTO moves (game_id, x, y) VALUES (99, 0, 0)")
os._exit(0)
"""


def test_a_file_left_with_a_hot_journal_reads_as_committed(tmp_path: Path) -> None:
    # A writer killed inside a transaction in rollback-journal mode leaves the file ahead of
    # its last commit, with the journal to undo that beside it.
    path = tmp_path / "chaos.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE moves (game_id INTEGER, x INTEGER, y INTEGER)")
        db.execute("INSERT INTO moves VALUES (1, 7, 7)")
        db.execute("PRAGMA user_version = 1")
        db.commit()
    subprocess.run([sys.executable, "-c", _KILLED_MID_TRANSACTION, str(path)], check=True)
    assert path.with_name(path.name + "-journal").stat().st_size > 0
    assert _reader(path).stored_moves() == {(1, 7, 7)}
