"""``python -m bot`` refuses a database it cannot use with one line and its own exit status.

Each case is a real file in a real state, handed to the real bot process; it must stop before
connecting to Discord, say what is wrong in one line (no traceback), and leave the file as it
was. Read-only means chmod for a user and an immutable file or folder for root (root ignores
modes), and the full disk is a real tmpfs where mounting one is allowed.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import storage.sqlite as sqlite_module
from bot.__main__ import EXIT_CODES
from bot.app import serve
from bot.settings import Settings
from bot.text.refusals import startup_message
from storage import errors as store
from tests.botprocess import TOKEN
from tests.processes import python_m_started
from tests.storage.faults import (
    foreign,
    full_filesystem,
    garble,
    make_read_only,
    played_database,
    too_new,
    truncate,
    undo_read_only,
    write_lock_held,
)

ROOT = Path(__file__).resolve().parents[2]


def start_bot(db_path: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "DISCORD_TOKEN": TOKEN, "GOMOKU_DB_PATH": str(db_path)}
    return python_m_started("bot", cwd=ROOT, env=env)


CASES: list[tuple[str, Callable[[Path], None] | None, type[store.DatabaseRefusedError], str]] = [
    ("foreign", foreign, store.ForeignDatabaseError, "not a gomoku-bot database"),
    ("too-new", too_new, store.DatabaseTooNewError, "newer gomoku-bot"),
    ("truncated", truncate, store.CorruptDatabaseError, ".recover"),
    ("garbage-pages", garble, store.CorruptDatabaseError, ".recover"),
    ("read-only-file", None, store.ReadOnlyDatabaseError, "cannot be written"),
    ("read-only-folder", None, store.ReadOnlyDatabaseError, "cannot be written"),
    ("missing-folder", None, store.ReadOnlyDatabaseError, "does not exist"),
]


@pytest.mark.slow
async def test_each_fault_has_its_line_and_exit_status(tmp_path: Path) -> None:
    runs = []
    locked: list[Path] = []
    try:
        for name, make, error, words in CASES:
            case = tmp_path / name
            case.mkdir()
            path = case / "gomoku.sqlite3"
            if name == "missing-folder":
                path = case / "missing" / "gomoku.sqlite3"
            elif make in (foreign, too_new):
                make(path)
            else:
                await played_database(path, games=6, moves=20)
                if make is not None:
                    make(path)
            if name.startswith("read-only"):
                target = path if name == "read-only-file" else case
                if not make_read_only(target):
                    undo_read_only(target)
                    continue  # root on a filesystem without immutable files
                locked.append(target)
            before = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None
            runs.append((name, path, before, error, words, start_bot(path)))
        results = [
            (*run[:5], run[5], await asyncio.to_thread(run[5].communicate, timeout=60))
            for run in runs
        ]
    finally:
        for target in locked:
            undo_read_only(target)
    assert len(runs) >= 5
    for name, path, before, error, words, process, (_, err) in results:
        assert process.returncode == EXIT_CODES[error], (name, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1, (name, err)
        assert words in lines[0], (name, err)
        assert "Traceback" not in err
        assert "not a gomoku-bot database" not in err or error is store.ForeignDatabaseError
        if before is not None:
            assert hashlib.sha256(path.read_bytes()).hexdigest() == before, name


async def test_a_full_disk(tmp_path: Path) -> None:
    async with full_filesystem(tmp_path / "mnt", "gomoku.sqlite3") as path:
        process = start_bot(path)
        _, err = await asyncio.to_thread(process.communicate, timeout=60)
    assert process.returncode == EXIT_CODES[store.DiskFullError], err
    assert "No room to write" in err
    assert len(err.strip().splitlines()) == 1


async def test_a_lock_held_at_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The process waits 30 s; the same path in-process, with the wait shortened.
    path = tmp_path / "gomoku.sqlite3"
    await played_database(path, games=1, moves=1)
    monkeypatch.setattr(sqlite_module, "LOCK_WAIT_S", 0.3)
    with write_lock_held(path, 1.0), pytest.raises(store.DatabaseLockedError) as caught:
        await serve(Settings(discord_token="never-used", db_path=path))
    assert EXIT_CODES[store.DatabaseLockedError] == 15
    assert "locked by another process" in startup_message(caught.value)


def test_every_fault_has_words_and_a_status_of_its_own() -> None:
    faults = [
        store.ForeignDatabaseError(Path("g"), "x"),
        store.DatabaseTooNewError(Path("g"), 9, 7),
        store.CorruptDatabaseError(Path("g"), "x"),
        store.ReadOnlyDatabaseError(Path("g"), "x"),
        store.DiskFullError(Path("g"), "x"),
        store.DatabaseLockedError(Path("g"), 30.0),
    ]
    assert {type(f) for f in faults} == set(EXIT_CODES)
    assert len(set(EXIT_CODES.values())) == len(EXIT_CODES)
    messages = [startup_message(f) for f in faults]
    assert len(set(messages)) == len(messages)
    assert all("\n" not in m for m in messages)
    assert sum("not a gomoku-bot database" in m for m in messages) == 1
