"""Damaged, locked, read-only and full databases, made for real (shared by storage and bot
tests). Nothing here mocks SQLite or the filesystem."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sqlite3
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import closing
from pathlib import Path

import pytest

from engine.types import Point
from storage.records import NewGame, Player
from storage.sqlite import APPLICATION_ID, LATEST_VERSION, SqliteGameRepository

PAGE = 4096


async def played_database(path: Path, games: int = 30, moves: int = 40) -> None:
    """A healthy database with enough games and moves to span dozens of pages."""
    # NORMAL: no fsync per write (this is set-up, not a durability test).
    async with SqliteGameRepository.open(path, synchronous="NORMAL") as repo:
        for channel in range(games):
            game = await repo.create_game(
                NewGame(
                    guild_id=1, channel_id=channel, black=Player.human(1), white=Player.human(2)
                )
            )
            for ply in range(moves):
                game = await repo.append_move(
                    game.id, game.version, Point(ply % 15, ply // 15 + channel % 5), game.to_move
                )
        await repo.checkpoint()  # everything in the main file, the WAL empty


def truncate(path: Path) -> None:
    """Cut the file in half, as a copy interrupted midway would."""
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.truncate(size // 2 // PAGE * PAGE)


def garble(path: Path, seed: int = 7) -> None:
    """Overwrite a run of pages past the schema with random bytes (a bad disk, a stray write)."""
    rng = random.Random(seed)
    pages = path.stat().st_size // PAGE
    with path.open("r+b") as file:
        for page in range(pages // 3, pages // 3 + 4):
            file.seek(page * PAGE)
            file.write(rng.randbytes(PAGE))


def foreign(path: Path) -> None:
    """Somebody else's file."""
    path.write_text("hello, I am a shopping list\n" * 100)


def too_new(path: Path) -> None:
    """A database from a newer release."""
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")


class _LockHolder(threading.Thread):
    """Another connection that holds ``BEGIN IMMEDIATE`` on ``path`` for ``seconds``, or
    until ``release`` is set if that comes first (in a thread, as another process would)."""

    def __init__(self, path: Path, seconds: float, release: threading.Event | None) -> None:
        super().__init__()
        self.path, self.seconds, self.release = path, seconds, release
        self.taken = threading.Event()
        self.failed: list[BaseException] = []

    def run(self) -> None:
        try:
            with closing(sqlite3.connect(self.path, isolation_level=None, timeout=4.0)) as db:
                db.execute("BEGIN IMMEDIATE")
                self.taken.set()
                if self.release is None:
                    time.sleep(self.seconds)
                else:
                    self.release.wait(self.seconds)
                db.execute("ROLLBACK")
        except sqlite3.Error as error:
            self.failed.append(error)

    def check_taken(self, taken: bool) -> None:
        """Fail the test (the lock never came: the wait is bounded instead of hanging)."""
        if not taken:
            self.join()
            raise AssertionError(f"could not take the write lock on {self.path}: {self.failed}")


@contextlib.contextmanager
def write_lock_held(
    path: Path, seconds: float, *, release: threading.Event | None = None
) -> Iterator[None]:
    """Another connection holds ``BEGIN IMMEDIATE`` on ``path`` for ``seconds``, or until
    ``release`` is set if that comes first (in a thread, as another process would: the
    caller's event loop stays free once the lock is taken).

    The caller is blocked until the lock is taken, which is safe only while its process
    writes nothing: the statements of a write in the middle of its transaction need the
    event loop to go on. With a bot or a repository writing, use ``write_lock_held_async``.
    """
    holder = _LockHolder(path, seconds, release)
    holder.start()
    holder.check_taken(holder.taken.wait(timeout=8.0))
    try:
        yield
    finally:
        holder.join()


@contextlib.asynccontextmanager
async def write_lock_held_async(
    path: Path, seconds: float, *, release: threading.Event | None = None
) -> AsyncIterator[None]:
    """``write_lock_held`` whose caller's event loop runs on while the lock is waited for:
    a write of this process in the middle of its transaction finishes and lets it go."""
    holder = _LockHolder(path, seconds, release)
    holder.start()
    holder.check_taken(await asyncio.to_thread(holder.taken.wait, 8.0))
    try:
        yield
    finally:
        await asyncio.to_thread(holder.join)


@contextlib.contextmanager
def tiny_filesystem(where: Path, size_kib: int = 4096) -> Iterator[Path | None]:
    """A tmpfs of ``size_kib`` mounted at ``where`` (a real full disk, a real read-only
    filesystem), or None where mounting is not allowed (not root, no CAP_SYS_ADMIN)."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        yield None
        return
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@contextlib.asynccontextmanager
async def full_filesystem(where: Path, name: str) -> AsyncIterator[Path]:
    """A played database (2 games of 5 moves) called ``name`` on a tiny filesystem mounted at
    ``where``, then filled to the last byte; the test is skipped where mounting is not
    allowed."""
    with tiny_filesystem(where) as folder:
        if folder is None:
            pytest.skip("mounting a tmpfs needs root")
        path = folder / name
        await played_database(path, games=2, moves=5)
        fill(folder)
        yield path


def fill(folder: Path) -> None:
    """Write a file into ``folder`` until the filesystem says it is full (ENOSPC)."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * PAGE)
    except OSError:
        pass
    finally:
        os.close(fd)


def remount_read_only(folder: Path) -> None:
    """Make the filesystem at ``folder`` read-only (root may not write either)."""
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def make_read_only(path: Path) -> bool:
    """Make ``path`` (a file or a folder) unwritable for this process; False where that is
    not possible. chmod does it for a user; root ignores modes, so for root the file is made
    immutable (``chattr +i``: not even root may write it), where the filesystem supports it."""
    path.chmod(0o555 if path.is_dir() else 0o444)
    if os.geteuid() != 0:
        return True
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    return done.returncode == 0


def undo_read_only(path: Path) -> None:
    """Writable again (for cleaning up)."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)
    path.chmod(0o755 if path.is_dir() else 0o644)
