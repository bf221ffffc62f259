"""``python -m storage backup PATH [--db SOURCE]``: a consistent copy of the SQLite database,
safe while the bot runs.

The copy goes through SQLite's online backup API (``sqlite3.Connection.backup``) in one step:
it reads the database inside one read transaction, so it is the database as of one moment,
every write committed before that moment in and none after it half in. In WAL mode a reader
never blocks the bot's writes, and copying the main file by hand would miss what is still in
the ``-wal`` file. The copy is written beside ``PATH`` under a temporary name, switched to a
rollback journal (one self-contained file), checked with ``PRAGMA integrity_check``, synced,
and only then renamed over ``PATH``: a failed or interrupted backup leaves any older ``PATH``
as it was. ``python -m storage backup`` prints the copy's games and moves once it passed.

Restore: stop the bot, copy the backup over the database file, delete the database's
``-wal`` and ``-shm`` files if they are left, start the bot. PostgreSQL is backed up with its
own tool, ``pg_dump``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from storage.errors import StorageError

__all__ = ["BackupError", "BackupReport", "backup"]


class BackupError(StorageError):
    """The backup could not be made; ``PATH`` was left as it was."""


@dataclass(frozen=True, slots=True)
class BackupReport:
    """What a backup copied."""

    source: Path
    target: Path
    size: int  # bytes of the copy
    games: int | None  # rows of the copy's games table (None: the file has none)
    moves: int | None  # rows of its moves table


def backup(source: Path, target: Path) -> BackupReport:
    """Copy the SQLite database ``source`` to ``target`` (replaced if it exists) and check
    the copy.

    Raises:
        BackupError: ``source`` is missing or not a database, or the copy failed its check.
    """
    if not source.is_file():
        raise BackupError(f"there is no database at {source}")
    if target.resolve() == source.resolve():
        raise BackupError("the backup must go to another file than the database")
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    with _removed_on_failure(partial):
        try:
            # The source is opened read-write so that SQLite may read its WAL index, but
            # nothing is written to it; connecting never creates it (checked above).
            with (
                closing(sqlite3.connect(source, timeout=30)) as db,
                closing(sqlite3.connect(partial)) as copy,
            ):
                db.backup(copy)  # every page in one step: one snapshot
                copy.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal
                check = copy.execute("PRAGMA integrity_check").fetchall()
                if check != [("ok",)]:
                    raise BackupError(f"the copy failed its integrity check: {check[:3]}")
                games, moves = _count(copy, "games"), _count(copy, "moves")
        except sqlite3.DatabaseError as error:
            raise BackupError(f"{source} could not be copied: {error}") from error
        with partial.open("rb") as file:
            os.fsync(file.fileno())
        os.replace(partial, target)
    _sync_directory(target.parent)
    return BackupReport(source, target, target.stat().st_size, games, moves)


def _count(db: sqlite3.Connection, table: str) -> int | None:
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    if exists is None:
        return None
    (count,) = db.execute(f"SELECT count(*) FROM {table}").fetchone()  # a fixed name, not input
    return int(count)


@contextlib.contextmanager
def _removed_on_failure(path: Path) -> Iterator[None]:
    try:
        yield
    except BaseException:
        for leftover in (path, path.with_name(path.name + "-journal")):
            leftover.unlink(missing_ok=True)
        raise


def _sync_directory(directory: Path) -> None:
    # The rename is durable once the directory's entry is on disk (where it can be synced).
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
