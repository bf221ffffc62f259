"""Chaos: the real bot process killed at random moments (``python -m benchmarks.chaos``).

This process runs the fake Discord and the players; the bot is ``python -m bot`` in a child
process (``tests.botprocess``) with its own AI pool and SQLite file, exactly as in production.
Each round starts the bot, lets players play (half the games against the AI, half between
people, with double submissions thrown in), then SIGKILLs it at a random moment: mostly
mid-play, sometimes during start-up (on the first round, while the database is being
created). After each kill it checks:

* every move the bot acknowledged ("You played X") is in the file; ``PRAGMA integrity_check``;
* nothing the bot started outlives it (AI workers, multiprocessing's resource tracker): each
  has ended or has SIGKILL pending, and the rest end within 5 s of the last such end
  (``tests.botprocess.left_running``);
* every AI move that was due at the kill is made after the restart, without waiting for the
  idle resume;
* races (the same player sending two moves at once) were taken exactly once.

At the end the bot is stopped with SIGTERM: exit status 0, nothing left running. It prints
figures and exits 1 if anything was lost or left. ``tests/bot/test_chaos.py`` runs two kills.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from tests.botprocess import BotProcess
from tests.fakediscord import FakeChannel, FakeDiscord, FakeDiscordError, FakeUser

__all__ = ["ChaosReport", "chaos"]

FAMILY = len(os.sched_getaffinity(0)) + 1  # AI workers (one per core) and the tracker
# What a player's call ends with once the bot is gone: no answer, no connection to send on.
GONE = (FakeDiscordError, TimeoutError, ConnectionError)
COLUMNS = "abcdefghijklmno"
PLAYED = re.compile(r"You played \*\*([A-Z]+\d+)\*\*")


@dataclass
class ChaosReport:
    """What the chaos run saw."""

    kills: int = 0
    kills_during_start: int = 0
    acknowledged: int = 0  # moves the bot answered "You played" to
    lost: int = 0  # of those, missing from the file after a kill
    integrity_failures: int = 0
    ai_due: int = 0  # AI moves due at a kill
    ai_made: int = 0  # of those, made after the restart
    ai_wait_s: list[float] = field(default_factory=list)  # restart ready -> AI move stored
    races: int = 0  # double submissions
    race_violations: int = 0  # both halves of one taken
    leftovers: int = 0  # processes that outlived a killed or stopped bot
    sigterm_status: int | None = None
    starts_s: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Nothing lost, damaged, left behind or taken twice; every AI move made."""
        return (
            self.lost == 0
            and self.integrity_failures == 0
            and self.leftovers == 0
            and self.race_violations == 0
            and self.ai_made == self.ai_due
            and self.sigterm_status == 0
        )


@dataclass
class Table:
    """One channel's game, as the players know it."""

    channel: FakeChannel
    black: FakeUser
    white: FakeUser | None  # None: against the AI
    cells: list[str] = field(default_factory=list)  # cells still to try, shuffled


class Chaos:
    """The players, the bookkeeping and the checks."""

    def __init__(self, fake: FakeDiscord, path: Path, games: int, level: str, seed: int) -> None:
        self.fake = fake
        self.path = path
        self.level = level
        self.rng = random.Random(seed)
        self.report = ChaosReport()
        self.acked: set[tuple[int, int, int]] = set()  # game, x, y
        self.acknowledged = asyncio.Event()  # set at each acknowledged move
        self.tables = []
        for index in range(games):
            channel = fake.default_channel if index == 0 else fake.add_channel(f"t{index}")
            black = fake.add_user(f"black{index}")
            white = fake.add_user(f"white{index}") if index % 2 else None
            self.tables.append(Table(channel, black, white))

    # ---- the database, read beside the bot (WAL readers never block it)

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        # Read-write, never creating the file: what a killed writer left for the next opener
        # (a hot rollback journal: a new file turns to WAL through one, so a kill in the bot's
        # first start can leave it) is undone before the first read, as the bot's next start
        # does. A read-only connection cannot, and fails with "attempt to write a readonly
        # database". Only reads are sent.
        with closing(sqlite3.connect(f"file:{self.path}?mode=rw", uri=True, timeout=30)) as db:
            yield db

    def _rows(self, sql: str) -> list[tuple[int, ...]]:
        """``sql``'s rows; none while the bot has not made the file or its tables yet."""
        if not self.path.exists():
            return []
        with self._db() as db:
            # A bot killed while starting on a fresh file (or being read mid-start) leaves
            # it with no tables: the first migration sets user_version in the transaction
            # that makes them, so 0 means none. Past it, a missing table is a real fault.
            if db.execute("PRAGMA user_version").fetchone()[0] == 0:
                return []
            return db.execute(sql).fetchall()

    def stored_moves(self) -> set[tuple[int, int, int]]:
        """(game, x, y) of every move in the file."""
        return {(game, x, y) for game, x, y in self._rows("SELECT game_id, x, y FROM moves")}

    def latest_game(self, channel_id: int) -> int:
        """The channel's newest game: the one a move just acknowledged there went into (a
        table's player is the only one who starts games in its channel, one call at a time)."""
        with self._db() as db:
            row = db.execute(
                "SELECT max(id) FROM games WHERE channel_id = ?", (channel_id,)
            ).fetchone()
        return int(row[0])

    def ai_due(self) -> dict[int, int]:
        """Games against the AI where the AI is to move: game id -> its ply now."""
        rows = self._rows(
            "SELECT id, ply FROM games WHERE status = 'active' AND ("
            " (black_level IS NOT NULL AND ply % 2 = 0)"
            " OR (white_level IS NOT NULL AND ply % 2 = 1))"
        )
        return {game: ply for game, ply in rows}

    def plies(self) -> dict[int, int]:
        """Every game's ply."""
        return {game: ply for game, ply in self._rows("SELECT id, ply FROM games")}

    def integrity(self) -> bool:
        """``PRAGMA integrity_check`` says ok (a missing file is fine: killed before it)."""
        if not self.path.exists():
            return True
        with closing(sqlite3.connect(self.path)) as db:
            return db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]

    # ---- the players

    async def _start(self, table: Table) -> None:
        table.cells = [f"{x}{y}" for x in COLUMNS for y in range(1, 16)]
        self.rng.shuffle(table.cells)
        if table.white is None:
            await self.fake.slash(
                "gomoku start",
                user=table.black,
                channel=table.channel,
                options={"level": self.level, "colour": "black"},
            )
            return
        reply = await self.fake.slash(
            "gomoku start",
            user=table.black,
            channel=table.channel,
            options={"opponent": table.white, "colour": "black", "rated": False},
        )
        board = reply.message
        if board is None or not board.custom_ids():
            return
        accept = next((c for c in board.custom_ids() if c.endswith(":accept")), None)
        if accept is not None:
            await self.fake.click(board, accept, user=table.white)

    def _ack(self, table: Table, content: str) -> bool:
        match = PLAYED.search(content)
        if match is None:
            return False
        cell = match.group(1).lower()
        game = self.latest_game(table.channel.id)
        self.acked.add((game, COLUMNS.index(cell[0]), int(cell[1:]) - 1))
        self.acknowledged.set()
        self.report.acknowledged += 1
        return True

    async def _move(self, table: Table, user: FakeUser) -> str:
        if not table.cells:
            table.cells = [f"{x}{y}" for x in COLUMNS for y in range(1, 16)]
        cell = table.cells.pop()
        reply = await self.fake.slash(
            "place", user=user, channel=table.channel, options={"cell": cell}
        )
        self._ack(table, reply.content)
        return reply.content

    async def _race(self, table: Table, user: FakeUser) -> None:
        """The same player sends two moves at once: at most one may be taken."""
        cells = [table.cells.pop(), table.cells.pop()] if len(table.cells) > 1 else []
        if not cells:
            return
        sent = [
            await self.fake.send_slash(
                "place", user=user, channel=table.channel, options={"cell": cell}
            )
            for cell in cells
        ]
        replies = [await self.fake.answer(record) for record in sent]
        taken = sum(self._ack(table, reply.content) for reply in replies)
        self.report.races += 1
        if taken > 1:
            self.report.race_violations += 1
            self.report.problems.append(f"race taken twice in {table.channel.name}: {cells}")

    async def play(self, table: Table) -> None:
        """Play until the bot goes away."""
        user = table.black
        while True:
            content = await self._move(table, user)
            if "no game in this channel" in content or "already over" in content:
                await self._start(table)
                user = table.black
                continue
            if table.white is not None:
                if "not your turn" in content:
                    user = table.white if user is table.black else table.black
                elif "You played" in content:
                    user = table.white if user is table.black else table.black
                    if self.rng.random() < 0.15:
                        await self._race(table, user)
                        user = table.white if user is table.black else table.black
            await asyncio.sleep(self.rng.uniform(0.0, 0.2))

    async def players(self) -> None:
        """Every table plays; returns when the bot is gone (each player's call fails)."""

        async def guarded(table: Table) -> None:
            with contextlib.suppress(*GONE):
                await self.play(table)

        await asyncio.gather(*(guarded(table) for table in self.tables))

    # ---- one round

    async def round(self, index: int, kills: int) -> None:
        """Start the bot, play, kill it, check."""
        bot = BotProcess(self.fake.port, self.path)
        due_before = self.ai_due()
        try:
            during_start = index == 0 or self.rng.random() < 0.15
            started = time.monotonic()
            if during_start:
                await asyncio.sleep(self.rng.uniform(0.3, 3.0))
                bot.note_family()
                self.report.kills_during_start += 1
            else:
                await bot.wait_ready(self.fake, workers=FAMILY)
                self.report.starts_s.append(time.monotonic() - started)
                await self._check_ai_made(due_before)
                if index == 1 or not any(self.stored_moves()):
                    for table in self.tables:
                        with contextlib.suppress(*GONE):
                            await self._start(table)
                self.acknowledged.clear()
                play = asyncio.create_task(self.players())
                # A kill "mid-play" falls after the round's first acknowledged move, however
                # slowly a loaded machine starts the games, then at a random moment.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.acknowledged.wait(), 60.0)
                await asyncio.sleep(self.rng.uniform(0.0, 3.5))
            bot.kill()
            if not during_start:
                # Answers already given are read within moments; what is still waiting was
                # never acknowledged (and is no loss if it is missing).
                await asyncio.sleep(0.5)
                play.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await play
            self.report.kills += 1
            left = await bot.leftovers()
            self.report.leftovers += len(left)
            if left:
                self.report.problems.append(f"kill {index}: left running {left}")
        finally:
            bot.close()
        lost = self.acked - self.stored_moves()
        self.report.lost += len(lost)
        if lost:
            self.report.problems.append(f"kill {index}: lost {sorted(lost)[:5]}")
        if not self.integrity():
            self.report.integrity_failures += 1
            self.report.problems.append(f"kill {index}: integrity_check failed")

    async def _check_ai_made(self, due: dict[int, int]) -> None:
        """Every AI move due at the kill is made now (the bot's start-up resume)."""
        if not due:
            return
        started = time.monotonic()
        self.report.ai_due += len(due)
        pending = dict(due)
        while pending and time.monotonic() - started < 45:
            plies = self.plies()
            for game, ply in list(pending.items()):
                if plies.get(game, ply) > ply:
                    self.report.ai_made += 1
                    self.report.ai_wait_s.append(time.monotonic() - started)
                    del pending[game]
            await asyncio.sleep(0.1)
        if pending:
            self.report.problems.append(f"AI moves not made after restart: {sorted(pending)}")

    async def finish(self) -> None:
        """A last start: the due AI moves are made; then SIGTERM must end it cleanly."""
        bot = BotProcess(self.fake.port, self.path)
        due = self.ai_due()
        try:
            await bot.wait_ready(self.fake, workers=FAMILY)
            await self._check_ai_made(due)
            self.report.sigterm_status = bot.terminate()
            left = await bot.leftovers()
            self.report.leftovers += len(left)
            if left:
                self.report.problems.append(f"SIGTERM: left running {left}")
            if "Traceback" in bot.errors():
                self.report.problems.append("SIGTERM: a traceback on stderr")
        finally:
            bot.close()
        lost = self.acked - self.stored_moves()
        self.report.lost += len(lost)


async def chaos(kills: int, *, games: int = 6, level: str = "medium", seed: int = 1) -> ChaosReport:
    """Run ``kills`` rounds and the final SIGTERM; return the figures."""
    with tempfile.TemporaryDirectory() as folder:
        async with FakeDiscord() as fake:
            fake.answer_timeout = 20.0
            run = Chaos(fake, Path(folder) / "chaos.sqlite3", games, level, seed)
            for index in range(kills):
                await run.round(index, kills)
            await run.finish()
            return run.report


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"median {ordered[len(ordered) // 2]:.1f} s, max {ordered[-1]:.1f} s"


def main(argv: list[str] | None = None) -> int:
    """Run and print figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.chaos", description=__doc__)
    parser.add_argument("--kills", type=int, default=40)
    parser.add_argument("--games", type=int, default=6, help="tables playing at once")
    parser.add_argument("--level", default="beginner", help="the AI's level")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    started = time.monotonic()
    report = asyncio.run(chaos(args.kills, games=args.games, level=args.level, seed=args.seed))
    print(
        f"{report.kills} SIGKILLs ({report.kills_during_start} during start-up) of python -m bot, "
        f"{args.games} tables, {FAMILY - 1} AI workers, {time.monotonic() - started:.0f} s"
    )
    print(f"acknowledged moves: {report.acknowledged}, lost: {report.lost}")
    print(f"integrity_check failures: {report.integrity_failures}")
    print(
        f"AI moves due at a kill: {report.ai_due}, made after restart: {report.ai_made} "
        f"({_ms(report.ai_wait_s)} after the bot was ready)"
    )
    print(f"races (double submissions): {report.races}, taken twice: {report.race_violations}")
    print(f"processes left behind: {report.leftovers}")
    print(f"SIGTERM at the end: exit status {report.sigterm_status}")
    print(f"start-up to ready: {_ms(report.starts_s)}")
    for problem in report.problems[:20]:
        print("  " + problem)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
