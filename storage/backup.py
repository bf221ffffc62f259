"""``python -m storage backup PATH [--db SOURCE] [--force]``: a consistent copy of the SQLite
database, safe while the bot runs.

The copy goes through SQLite's online backup API (``sqlite3.Connection.backup``) in one step:
it reads the database inside one read transaction, so it is the database as of one moment,
every write committed before that moment in and none after it half in. In WAL mode a reader
never blocks the bot's writes, and copying the main file by hand would miss what is still in
the ``-wal`` file. The copy is written beside ``PATH`` under a temporary name, switched to a
rollback journal (one self-contained file), checked with ``PRAGMA integrity_check``, synced,
and only then put in place as ``PATH``: a failed or interrupted backup leaves any older
``PATH`` as it was. An existing ``PATH`` is replaced only when asked (``--force``), so that a
mistyped name never loses another file. ``python -m storage backup`` prints the copy's games
and moves once it passed.

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

__all__ = ["BackupError", "BackupExistsError", "BackupReport", "backup"]

# SQLite's errors that come from writing the copy (the source is only read): a full disk, a
# folder or filesystem that is read-only or not there, a failed write.
_WRITE_FAULTS = ("SQLITE_FULL", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_PERM")


class BackupError(StorageError):
    """The backup could not be made; ``PATH`` was left as it was."""


class BackupExistsError(BackupError):
    """``PATH`` exists and replacing it was not asked for."""


@dataclass(frozen=True, slots=True)
class BackupReport:
    """What a backup copied."""

    source: Path
    target: Path
    size: int  # bytes of the copy
    games: int | None  # rows of the copy's games table (None: the file has none)
    moves: int | None  # rows of its moves table


def backup(source: Path, target: Path, *, replace: bool = False) -> BackupReport:
    """Copy the SQLite database ``source`` to ``target`` and check the copy. An existing
    ``target`` is replaced only with ``replace``.

    Raises:
        BackupExistsError: ``target`` exists and ``replace`` is false.
        BackupError: ``source`` is missing or not a database, ``target`` cannot be written
            (each error names the file at fault), or the copy failed its check.
    """
    if not source.is_file():
        raise BackupError(f"there is no database at {source}")
    if target.resolve() == source.resolve():
        raise BackupError("the backup must go to another file than the database")
    if target.is_dir():
        raise BackupError(
            f"{target} is a folder: name the backup file, e.g. {target}/backup.sqlite3"
        )
    if target.exists() and not replace:
        raise BackupExistsError(f"{target} already exists: pass --force to replace it")
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    with _removed_on_failure(partial):
        try:
            partial.open("xb").close()  # where the copy cannot be written, say so by its name
        except OSError as error:
            raise BackupError(_unwritable(target, error.strerror or str(error))) from error
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
            if getattr(error, "sqlite_errorname", "").startswith(_WRITE_FAULTS):
                raise BackupError(_unwritable(target, str(error))) from error
            raise BackupError(f"{source} could not be copied: {error}") from error
        try:
            with partial.open("rb") as file:
                os.fsync(file.fileno())
            if replace:
                os.replace(partial, target)
            else:
                os.link(partial, target)  # fails if a file appeared there meanwhile
                partial.unlink()
        except FileExistsError as error:
            raise BackupExistsError(
                f"{target} already exists: pass --force to replace it"
            ) from error
        except OSError as error:
            raise BackupError(_unwritable(target, error.strerror or str(error))) from error
    _sync_directory(target.parent)
    return BackupReport(source, target, target.stat().st_size, games, moves)


def _unwritable(target: Path, why: str) -> str:
    return f"the backup {target} could not be written: {why}"


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
            # Not there, or on a filesystem that refuses even that: the first error tells.
            with contextlib.suppress(OSError):
                leftover.unlink()
        raise


def _sync_directory(directory: Path) -> None:
    # The rename is durable once the directory's entry is on disk (where it can be synced).
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
