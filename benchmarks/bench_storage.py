"""The storage benchmark (``python -m benchmarks.bench_storage``): a measurement, not a test.

200 rated games are played at once, 10,000 moves in all, through ``SqliteGameRepository``
on a real file; each game's last move finishes it (and updates both ratings) in the same
write. It prints the per-move write latency as callers see it (p50/p95, queueing behind
the one connection included), the throughput, and the database size per 1,000 finished
games. A second, single-game run shows the cost of one write without any queue.

Options: ``--games N``, ``--moves N`` (total), ``--synchronous FULL|NORMAL``, ``--dir PATH``
(where the temporary database lives; the default is the system temp directory), and
``--think-ms T``: a pause of T ms on average before each move, for latency at a realistic
load instead of at saturation (where latency is just queue length / throughput), and
``--readers N``: N tasks that read while the games are played, each in turn a game by id
(a small read, answered on the event loop) and a game's whole move history (on the reader
connection's thread), pausing like the players; their latencies are printed too.
The command line runs it as the bot runs (``bot.app.process_runner``: its event loop and its
GIL switch interval, which set what a trip to a connection's thread costs) and prints both.
``--starts N``: N games begun at once, as a burst of players does: each a challenge, its
board's message, its acceptance and a first move (four writes, one after another), while a
task keeps the event loop busy ``--busy-ms`` ms a turn (the rest of a loaded bot: what a
trip's answer waits for). It prints how long a start's writes took (p50/p95), how long the
burst took to drain, and the writes a group commit and trips a write.
``tests/storage/test_bench_storage.py`` runs a tiny version so the benchmark keeps working.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from bot.app import process_runner
from engine.types import Color, Outcome, Point, Termination
from storage.records import GameRecord, GameStatus, NewGame, Player
from storage.sqlite import SqliteGameRepository

__all__ = ["bench", "main"]


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


async def _read(
    repo: SqliteGameRepository,
    game_ids: Sequence[int],
    seed: int,
    think: float,
    playing: asyncio.Event,
    reads: tuple[list[float], list[float]],
) -> None:
    rng = random.Random(seed)
    small, history = reads
    while playing.is_set():
        game_id = rng.choice(game_ids)
        started = time.perf_counter()
        await repo.get_game(game_id)
        small.append(time.perf_counter() - started)
        started = time.perf_counter()
        await repo.move_history(game_id)
        history.append(time.perf_counter() - started)
        if think:
            await asyncio.sleep(rng.uniform(0, 2 * think))


async def _run(
    path: Path,
    games: int,
    moves: int,
    synchronous: Literal["FULL", "NORMAL"],
    think: float = 0,
    readers: int = 0,
    reads: tuple[list[float], list[float]] = ([], []),
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
        playing = asyncio.Event()
        playing.set()
        game_ids = [g.id for g in records]
        reading = [
            asyncio.create_task(_read(repo, game_ids, seed, think, playing, reads))
            for seed in range(readers)
        ]
        started = time.perf_counter()
        await asyncio.gather(
            *(
                _play(repo, g, n, g.id, think, latencies)
                for g, n in zip(records, per_game, strict=True)
            )
        )
        elapsed = time.perf_counter() - started
        playing.clear()
        await asyncio.gather(*reading)
        size = await repo.checkpoint()
    return latencies, elapsed, size


async def _starts(
    path: Path, starts: int, synchronous: Literal["FULL", "NORMAL"], busy_ms: float
) -> None:
    """``starts`` games begun at once on a busy event loop (see the module doc): prints."""
    latencies: list[float] = []
    async with SqliteGameRepository.open(path, synchronous=synchronous) as repo:
        stop = asyncio.Event()

        async def busy() -> None:
            while not stop.is_set():
                until = time.perf_counter() + busy_ms / 1000
                while time.perf_counter() < until:
                    pass
                await asyncio.sleep(0)

        async def start(i: int) -> None:
            started = time.perf_counter()
            players = Player.human(20_000 + 2 * i), Player.human(20_001 + 2 * i)
            new = NewGame(1, 1 + i, *players, status=GameStatus.PENDING, created_by=20_000 + 2 * i)
            game = await repo.create_game(new)
            await repo.set_message(game.id, channel_id=1 + i, message_id=30_000 + i)
            game = await repo.accept_challenge(game.id, game.version)
            await repo.append_move(game.id, game.version, Point(7, 7), Color.BLACK)
            latencies.append(time.perf_counter() - started)

        burner = asyncio.create_task(busy())
        before = repo.activity()
        began = time.perf_counter()
        await asyncio.gather(*(start(i) for i in range(starts)))
        elapsed = time.perf_counter() - began
        after = repo.activity()
        stop.set()
        await burner
    latencies.sort()
    writes, commits = after.writes - before.writes, after.commits - before.commits
    print(
        f"  {starts} starts at once (a challenge, its message, its acceptance, a first move),"
        f" the loop busy {busy_ms:g} ms a turn: a start's writes p50"
        f" {_ms(_percentile(latencies, 0.5))}  p95 {_ms(_percentile(latencies, 0.95))};"
        f" all done in {elapsed:.2f} s; {writes / max(1, commits):.1f} writes a group commit,"
        f" {(after.trips - before.trips) / max(1, writes):.2f} trips a write"
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def bench(
    games: int,
    moves: int,
    synchronous: Literal["FULL", "NORMAL"],
    directory: str | None,
    think: float = 0,
    readers: int = 0,
    starts: int = 0,
    busy_ms: float = 2.0,
) -> None:
    """Run the benchmark and print its figures."""
    with tempfile.TemporaryDirectory(prefix="storage-bench-", dir=directory) as tmp:
        empty = Path(tmp, "empty.sqlite3")
        async with SqliteGameRepository.open(empty) as repo:
            empty_size = await repo.checkpoint()

        path = Path(tmp, "bench.sqlite3")
        reads: tuple[list[float], list[float]] = ([], [])
        latencies, elapsed, size = await _run(
            path, games, moves, synchronous, think, readers, reads
        )
        solo, solo_elapsed, _ = await _run(Path(tmp, "solo.sqlite3"), 1, 200, synchronous)
        if starts:
            await _starts(Path(tmp, "starts.sqlite3"), starts, synchronous, busy_ms)

    latencies.sort()
    solo.sort()
    per_thousand = (size - empty_size) / games * 1000
    loop = type(asyncio.get_running_loop()).__module__.split(".")[0]
    print(f"storage bench: SQLite WAL, synchronous={synchronous}, one writer connection")
    print(f"  {loop} event loop, GIL switch interval {sys.getswitchinterval() * 1000:g} ms")
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
    for name, values in zip(("a game by id", "a move history"), reads, strict=True):
        if values:
            values.sort()
            print(
                f"  {readers} readers, {name}: p50 {_ms(_percentile(values, 0.5))}"
                f"  p95 {_ms(_percentile(values, 0.95))}  ({len(values):,} reads)"
            )
    print(
        f"  one game alone, {len(solo)} moves: p50 {_ms(statistics.median(solo))}"
        f"  p95 {_ms(_percentile(solo, 0.95))}  ({len(solo) / solo_elapsed:,.0f} moves/s)"
    )
    print(
        f"  database size: {size / 1e6:.2f} MB for {games} finished games of"
        f" {len(latencies) / games:.0f} moves -> {per_thousand / 1e6:.2f} MB per 1,000 games"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """The command line: ``python -m benchmarks.bench_storage [options]``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_storage")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--moves", type=int, default=10_000)
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="FULL")
    parser.add_argument("--dir", default=None, help="directory for the temporary database")
    parser.add_argument(
        "--think-ms", type=float, default=0, help="mean pause before each move (0: none)"
    )
    parser.add_argument(
        "--readers", type=int, default=0, help="tasks reading while the games are played"
    )
    parser.add_argument("--starts", type=int, default=0, help="games begun at once (0: none)")
    parser.add_argument(
        "--busy-ms", type=float, default=2.0, help="CPU a turn of the loop takes, with --starts"
    )
    args = parser.parse_args(argv)
    with process_runner() as runner:
        runner.run(
            bench(
                args.games,
                args.moves,
                args.synchronous,
                args.dir,
                args.think_ms / 1000,
                args.readers,
                args.starts,
                args.busy_ms,
            )
        )


if __name__ == "__main__":
    main()
