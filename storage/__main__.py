"""``python -m storage bench``: the storage benchmark (a measurement, not a test),
``python -m storage copy SRC DST``: SQLite file to PostgreSQL (see ``storage.copy``), and
``python -m storage backup PATH [--db SOURCE]``: a copy of the SQLite database made while the
bot runs (see ``storage.backup``).

200 rated games are played at once, 10,000 moves in all, through ``SqliteGameRepository``
on a real file; each game's last move finishes it (and updates both ratings) in the same
write. It prints the per-move write latency as callers see it (p50/p95, queueing behind
the one connection included), the throughput, and the database size per 1,000 finished
games. A second, single-game run shows the cost of one write without any queue.

Options: ``--games N``, ``--moves N`` (total), ``--synchronous FULL|NORMAL``, ``--dir PATH``
(where the temporary database lives; the default is the system temp directory), and
``--think-ms T``: a pause of T ms on average before each move, for latency at a realistic
load instead of at saturation (where latency is just queue length / throughput).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from engine.types import Outcome, Point, Termination
from storage.repository import GameRecord, NewGame, Player
from storage.sqlite import SqliteGameRepository


def _percentile(sorted_values: Sequence[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, round(fraction * (len(sorted_values) - 1)))
    return sorted_values[index]


async def _play(
    repo: SqliteGameRepository,
    game: GameRecord,
    plies: int,
    seed: int,
    think: float,
    latencies: list[float],
) -> None:
    rng = random.Random(seed)
    cells = [Point(x, y) for x in range(game.width) for y in range(game.height)]
    rng.shuffle(cells)
    for ply in range(plies):
        if think:
            await asyncio.sleep(rng.uniform(0, 2 * think))
        last = ply == plies - 1
        started = time.perf_counter()
        game = await repo.append_move(
            game.id,
            game.version,
            cells[ply],
            game.to_move,
            outcome=Outcome(Termination.FIVE, game.to_move) if last else None,
        )
        latencies.append(time.perf_counter() - started)


async def _run(
    path: Path, games: int, moves: int, synchronous: Literal["FULL", "NORMAL"], think: float = 0
) -> tuple[list[float], float, int]:
    latencies: list[float] = []
    async with SqliteGameRepository.open(path, synchronous=synchronous) as repo:
        records = [
            await repo.create_game(
                NewGame(
                    guild_id=1,
                    channel_id=1 + i,
                    black=Player.human(10_000 + 2 * i),
                    white=Player.human(10_001 + 2 * i),
                    rated=True,
                )
            )
            for i in range(games)
        ]
        per_game = [moves // games + (i < moves % games) for i in range(games)]
        started = time.perf_counter()
        await asyncio.gather(
            *(
                _play(repo, g, n, g.id, think, latencies)
                for g, n in zip(records, per_game, strict=True)
            )
        )
        elapsed = time.perf_counter() - started
        size = await repo.checkpoint()
    return latencies, elapsed, size


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def bench(
    games: int,
    moves: int,
    synchronous: Literal["FULL", "NORMAL"],
    directory: str | None,
    think: float = 0,
) -> None:
    """Run the benchmark and print its figures."""
    with tempfile.TemporaryDirectory(prefix="storage-bench-", dir=directory) as tmp:
        empty = Path(tmp, "empty.sqlite3")
        async with SqliteGameRepository.open(empty) as repo:
            empty_size = await repo.checkpoint()

        path = Path(tmp, "bench.sqlite3")
        latencies, elapsed, size = await _run(path, games, moves, synchronous, think)
        solo, solo_elapsed, _ = await _run(Path(tmp, "solo.sqlite3"), 1, 200, synchronous)

    latencies.sort()
    solo.sort()
    per_thousand = (size - empty_size) / games * 1000
    print(f"storage bench: SQLite WAL, synchronous={synchronous}, one writer connection")
    print(f"  {games} games at once, {len(latencies)} moves, each game's last move finishes it")
    if think:
        offered = games / think
        print(f"  players think {think * 1000:.0f} ms on average: ~{offered:,.0f} moves/s offered")
    else:
        print("  no thinking: every game writes back to back (saturation; queueing dominates)")
    print(
        f"  write latency (as callers see it): p50 {_ms(_percentile(latencies, 0.5))}"
        f"  p95 {_ms(_percentile(latencies, 0.95))}  max {_ms(latencies[-1])}"
    )
    print(f"  throughput: {len(latencies) / elapsed:,.0f} moves/s ({elapsed:.2f} s in all)")
    print(
        f"  one game alone, {len(solo)} moves: p50 {_ms(statistics.median(solo))}"
        f"  p95 {_ms(_percentile(solo, 0.95))}  ({len(solo) / solo_elapsed:,.0f} moves/s)"
    )
    print(
        f"  database size: {size / 1e6:.2f} MB for {games} finished games of"
        f" {len(latencies) / games:.0f} moves -> {per_thousand / 1e6:.2f} MB per 1,000 games"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """The command line: ``python -m storage bench [options]`` or ``copy SRC DST``."""
    parser = argparse.ArgumentParser(prog="python -m storage")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("bench", help="time concurrent move writes on a real file")
    run.add_argument("--games", type=int, default=200)
    run.add_argument("--moves", type=int, default=10_000)
    run.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    run.add_argument("--dir", default=None, help="directory for the temporary database")
    run.add_argument(
        "--think-ms", type=float, default=0, help="mean pause before each move (0: none)"
    )
    copy = commands.add_parser(
        "copy", help="copy a SQLite database into an empty PostgreSQL one and verify it"
    )
    copy.add_argument("source", type=Path, help="the SQLite file (stop the bot first)")
    copy.add_argument("target", help="postgresql://user:password@host/database")
    save = commands.add_parser(
        "backup", help="copy the SQLite database, safely while the bot runs, and check the copy"
    )
    save.add_argument("path", type=Path, help="the backup file to write (replaced if it exists)")
    save.add_argument(
        "--db",
        help="the database (default: GOMOKU_DB_PATH from the environment or .env, "
        "else gomoku.sqlite3)",
    )
    args = parser.parse_args(argv)
    if args.command == "copy":
        sys.exit(_copy(args.source, args.target))
    if args.command == "backup":
        sys.exit(_backup(args.path, args.db))
    asyncio.run(bench(args.games, args.moves, args.synchronous, args.dir, args.think_ms / 1000))


def _copy(source: Path, target: str) -> int:
    from storage.copy import copy_database
    from storage.opening import is_postgres_url, redact
    from storage.repository import StorageError

    if not is_postgres_url(target):
        sys.stderr.write(
            f"copy: the target must be a postgresql:// address, not {redact(target)}\n"
        )
        return 2
    try:
        report = copy_database(source, target)
    except (StorageError, OSError) as error:
        sys.stderr.write(f"copy failed: {error}\n")
        return 1
    for table, count in report.rows.items():
        print(f"  {table}: {count:,} rows copied and compared")
    print(
        f"verified through the repository: {report.games_verified:,} games with their moves,"
        f" {report.guilds_verified:,} guilds' settings, {report.ratings_verified:,} ratings"
    )
    print(f"copied {source} -> {redact(target)}")
    return 0


def _backup(target: Path, source: str | None) -> int:
    from storage.backup import BackupError, backup
    from storage.opening import is_postgres_url

    source = source or _configured_database()
    if is_postgres_url(source):
        sys.stderr.write(
            "backup: the database is PostgreSQL: back it up with pg_dump "
            "(pg_dump --format=custom --file=gomoku.dump DATABASE), see docs/deploy.md\n"
        )
        return 2
    try:
        report = backup(Path(source), target)
    except (BackupError, OSError) as error:
        sys.stderr.write(f"backup failed: {error}\n")
        return 1
    counted = (
        ""
        if report.games is None or report.moves is None
        else f": games {report.games:,}, moves {report.moves:,}"
    )
    print(
        f"backed up {report.source} -> {report.target} "
        f"({report.size:,} bytes, integrity ok){counted}"
    )
    return 0


def _configured_database() -> str:
    """The bot's database as it would open it: GOMOKU_DATABASE_URL, else GOMOKU_DB_PATH, from
    the environment over ./.env (as ``bot.settings`` reads them)."""
    from dotenv import dotenv_values

    dotenv = Path(".env")
    values = {}
    if dotenv.is_file():
        values = {k: v for k, v in dotenv_values(dotenv).items() if v is not None}
    values.update(os.environ)
    return (
        values.get("GOMOKU_DATABASE_URL", "").strip()
        or values.get("GOMOKU_DB_PATH", "").strip()
        or "gomoku.sqlite3"
    )


if __name__ == "__main__":
    main()
