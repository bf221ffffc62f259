"""``python -m storage backup``: a consistent copy while the bot writes.

A writer plays moves through the real ``SqliteGameRepository`` (WAL, as the bot runs it) and
records each move once ``append_move`` returned (acknowledged: the player was told). Meanwhile
``python -m storage backup`` runs again and again in its own process, as an operator's cron job
would. Each copy must pass ``integrity_check`` and hold every move acknowledged before that
backup started, read back through the repository.
"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from engine.types import Outcome, Point, Termination
from storage.records import GameRecord, NewGame, Player
from storage.sqlite import SqliteGameRepository
from tests.processes import python_m
from tests.storage.faults import fill, played_database, remount_read_only, tiny_filesystem

ROOT = Path(__file__).resolve().parents[2]
GAMES = 4  # games written at once
PLIES = 60  # moves a game before the writer starts another in its channel


def _backup(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GOMOKU_")}
    return python_m(
        "storage",
        "backup",
        *args,
        env={**env, "PYTHONPATH": str(ROOT)},
        cwd=cwd or ROOT,
        timeout=120,
    )


class Writer:
    """Plays moves in ``GAMES`` channels until stopped; ``acked`` holds each game's points in
    the order ``append_move`` acknowledged them."""

    def __init__(self, repo: SqliteGameRepository) -> None:
        self.repo = repo
        self.acked: dict[int, list[Point]] = {}
        self.stop = asyncio.Event()
        self.warm = asyncio.Event()  # set once 200 moves were acknowledged
        self.games_started = 0

    async def _new_game(self, channel: int) -> GameRecord:
        self.games_started += 1
        game = await self.repo.create_game(
            NewGame(
                guild_id=1,
                channel_id=channel,
                black=Player.human(2 * channel),
                white=Player.human(2 * channel + 1),
            )
        )
        self.acked[game.id] = []
        return game

    async def play(self, channel: int) -> None:
        rng = random.Random(channel)
        while not self.stop.is_set():
            game = await self._new_game(channel)
            cells = [Point(x, y) for x in range(15) for y in range(15)]
            rng.shuffle(cells)
            for point in cells[:PLIES]:
                if self.stop.is_set():
                    return
                game = await self.repo.append_move(game.id, game.version, point, game.to_move)
                self.acked[game.id].append(point)
                if sum(map(len, self.acked.values())) >= 200:
                    self.warm.set()
                await asyncio.sleep(0)
            await self.repo.finish_game(
                game.id, game.version, Outcome(Termination.ABANDONED, None), end_reason="moderator"
            )

    def snapshot(self) -> dict[int, list[Point]]:
        return {game_id: list(points) for game_id, points in self.acked.items()}


async def _check_copy(path: Path, acked: dict[int, list[Point]]) -> int:
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # one file
    held = 0
    async with SqliteGameRepository.open(path) as copy:
        for game_id, points in acked.items():
            history = [move.point for move in await copy.move_history(game_id)]
            assert history[: len(points)] == points, f"game {game_id} lost moves"
            held += len(points)
    return held


async def test_backups_while_moves_are_written(tmp_path: Path) -> None:
    source = tmp_path / "gomoku.sqlite3"
    async with SqliteGameRepository.open(source) as repo:
        writer = Writer(repo)
        players = [asyncio.create_task(writer.play(100 + i)) for i in range(GAMES)]
        try:
            await writer.warm.wait()
            copies: list[tuple[Path, dict[int, list[Point]], int]] = []
            for n in range(4):
                before = writer.snapshot()
                target = tmp_path / f"backup-{n}.sqlite3"
                run = await asyncio.to_thread(_backup, str(target), "--db", str(source))
                assert run.returncode == 0, run.stderr
                assert "games" in run.stdout
                copies.append((target, before, sum(map(len, writer.acked.values()))))
        finally:
            writer.stop.set()
            await asyncio.gather(*players)
    written_during = 0
    previous = 0
    for target, before, after in copies:
        held = await _check_copy(target, before)
        assert held == sum(map(len, before.values()))
        written_during += after - held
        assert held > previous  # the writer kept going between backups
        previous = held
    assert written_during > 0  # moves were written while backups ran
    assert writer.games_started > GAMES  # finished games were in the copies too


async def test_backup_prints_what_it_copied_and_replaces_a_file_only_with_force(
    tmp_path: Path,
) -> None:
    source = tmp_path / "gomoku.sqlite3"
    async with SqliteGameRepository.open(source) as repo:
        game = await repo.create_game(
            NewGame(guild_id=1, channel_id=5, black=Player.human(1), white=Player.human(2))
        )
        await repo.append_move(game.id, game.version, Point(7, 7), game.to_move)
    target = tmp_path / "backup.sqlite3"
    target.write_bytes(b"an older backup")
    # The database named in .env, as the bot reads it.
    (tmp_path / ".env").write_text(f"GOMOKU_DB_PATH={source}\n")
    refused = _backup(str(target), cwd=tmp_path)
    assert refused.returncode == 1
    (line,) = refused.stderr.splitlines()
    assert line == f"backup failed: {target} already exists: pass --force to replace it"
    assert target.read_bytes() == b"an older backup"
    run = _backup(str(target), "--force", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("integrity ok): games 1, moves 1")
    left = set(os.listdir(tmp_path)) - {"gomoku.sqlite3-shm", "gomoku.sqlite3-wal"}
    assert left == {".env", "backup.sqlite3", "gomoku.sqlite3"}  # no partial file left
    assert await _check_copy(target, {game.id: [Point(7, 7)]}) == 1


def test_backup_refuses_postgres_and_a_missing_file(tmp_path: Path) -> None:
    run = _backup(str(tmp_path / "b"), "--db", "postgresql://bot:secret@db/gomoku")
    assert run.returncode == 2
    (line,) = run.stderr.splitlines()
    assert "pg_dump" in line
    assert "secret" not in line
    missing = _backup(str(tmp_path / "b"), "--db", str(tmp_path / "nowhere.sqlite3"))
    assert missing.returncode == 1
    (line,) = missing.stderr.splitlines()
    assert "no database at" in line
    assert not (tmp_path / "nowhere.sqlite3").exists()
    assert list(tmp_path.iterdir()) == []


def _one_line_naming(run: subprocess.CompletedProcess[str], target: Path, source: Path) -> str:
    assert run.returncode == 1
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"backup failed: the backup {target} could not be written: "), line
    assert str(source) not in line
    return line


async def test_a_backup_that_cannot_be_written_names_its_destination(tmp_path: Path) -> None:
    source = tmp_path / "gomoku.sqlite3"
    await played_database(source, games=2, moves=5)
    nowhere = tmp_path / "no-such-folder" / "backup.sqlite3"
    run = _backup(str(nowhere), "--db", str(source))
    assert "No such file or directory" in _one_line_naming(run, nowhere, source)
    folder = _backup(str(tmp_path), "--db", str(source))
    assert folder.returncode == 1
    assert f"{tmp_path} is a folder" in folder.stderr
    with tiny_filesystem(tmp_path / "mnt", size_kib=64) as mount:
        if mount is None:
            pytest.skip("mounting a filesystem is not allowed here")
        fill(mount)
        full = mount / "backup.sqlite3"
        line = _one_line_naming(_backup(str(full), "--db", str(source)), full, source)
        assert "full" in line
        remount_read_only(mount)
        read_only = mount / "other.sqlite3"
        line = _one_line_naming(_backup(str(read_only), "--db", str(source)), read_only, source)
        assert "Read-only file system" in line
        assert sorted(p.name for p in mount.iterdir()) == ["filler"]  # nothing left behind
