"""A load benchmark of GameService on SQLite, without AI thinking: many games in parallel, every
``place`` timed, plus the time to render each resulting board.

Run it for figures (it prints, it does not judge)::

    .venv/bin/python -m benchmarks.bench_service [games] [moves_per_game] [think_s]
    .venv/bin/python -m benchmarks.bench_service ai   # AI reply time per level, real pool
    .venv/bin/python -m benchmarks.bench_service busy [games] [level]
        # games against the AI all searching at once: event-loop lag and place latency

``tests/bot/test_service_bench.py`` runs a tiny version so the benchmark keeps working.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bot.core.service import GameService
from bot.text.render import Look, game_text
from bot.text.render_png import render_png_async
from engine.types import Point
from storage.sqlite import SqliteGameRepository
from tests.runners import NearestRunner


@dataclass
class Figures:
    place_ms: list[float]
    render_ms: list[float]
    png_ms: list[float]
    loop_lag_ms: list[float]
    moves: int
    seconds: float


async def _game(
    service: GameService, index: int, moves: int, figures: Figures, think_s: float
) -> None:
    channel = 10_000 + index
    black, white = 2 * index + 1, 2 * index + 2
    pending = await service.start(
        channel_id=channel, guild_id=1, user_id=black, opponent=white, colour="black", rated=False
    )
    await service.accept(pending.game_id, white)
    rng = random.Random(index)
    # Stones scattered on a wide ring: nobody makes five, every move is a fresh point.
    points = [Point(x, y) for x in range(15) for y in range(15)]
    rng.shuffle(points)
    for played, point in enumerate(points):
        if played == moves:
            break
        user = (black, white)[played % 2]
        if think_s:
            await asyncio.sleep(rng.expovariate(1 / think_s))  # a player thinking
        started = time.perf_counter()
        result = await service.place(channel, user, point)
        figures.place_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        game_text(result.game, style=Look.EMOJI)
        figures.render_ms.append((time.perf_counter() - started) * 1000)
        if played % 10 == 0:
            started = time.perf_counter()
            await render_png_async(result.game.board)
            figures.png_ms.append((time.perf_counter() - started) * 1000)
        figures.moves += 1
        if result.finished:
            break


async def _lag_probe(figures: Figures, stop: asyncio.Event) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(0.01)
        figures.loop_lag_ms.append((time.perf_counter() - started) * 1000 - 10)


async def run_bench(path: Path, games: int, moves: int, think_s: float = 0.0) -> Figures:
    """Play ``games`` games of ``moves`` moves at once; players think ``think_s`` on average
    (0: every game fires its next move at once, a saturation test)."""
    figures = Figures([], [], [], [], 0, 0.0)
    async with SqliteGameRepository.open(path) as repo:
        service = GameService(repo, NearestRunner(), rng=random.Random(0))
        stop = asyncio.Event()
        probe = asyncio.create_task(_lag_probe(figures, stop))
        started = time.perf_counter()
        await asyncio.gather(*(_game(service, i, moves, figures, think_s) for i in range(games)))
        figures.seconds = time.perf_counter() - started
        stop.set()
        await probe
    return figures


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(figures: Figures, games: int, think_s: float) -> str:
    lines = [
        f"{games} games in parallel, players think {think_s:g} s on average: "
        f"{figures.moves} moves in {figures.seconds:.2f} s "
        f"({figures.moves / figures.seconds:.0f} moves/s)",
        f"place (service + SQLite): p50 {statistics.median(figures.place_ms):.1f} ms, "
        f"p95 {_pct(figures.place_ms, 0.95):.1f} ms, max {max(figures.place_ms):.1f} ms",
        f"emoji board text: p50 {statistics.median(figures.render_ms):.2f} ms, "
        f"p95 {_pct(figures.render_ms, 0.95):.2f} ms",
        f"PNG board: p50 {statistics.median(figures.png_ms):.1f} ms, "
        f"p95 {_pct(figures.png_ms, 0.95):.1f} ms",
        f"event-loop lag: p95 {_pct(figures.loop_lag_ms, 0.95):.1f} ms, "
        f"max {max(figures.loop_lag_ms, default=0):.1f} ms",
    ]
    return "\n".join(lines)


AI_POSITIONS = (
    "h8 i9 h9 i10 h10 i11 j8 g7",
    "h8 h9 i8 g8 j8 k8 i9 i7 j10 k11",
    "h8 i7 g9 j6 f10 e11 i8 g8 h7 h6 j9 k10 g6",
    "h8 i9 j8 i8 i7 h6 j7 k7 j6 j5 g9 f10 k6 l5 h9",
)


async def ai_latency(workers: int = 1) -> str:
    """Each level's reply time through the real pool (IPC included) against its budget."""
    from bot.core.ai import AIRequest, ProcessPoolRunner
    from engine.board import Board
    from engine.search.levels import PRESETS, Level

    lines = []
    async with ProcessPoolRunner(workers) as runner:
        await runner.warm_up()
        for level in Level:
            times = []
            for seed, moves in enumerate(AI_POSITIONS):
                request = AIRequest.from_board(Board.from_moves(moves), level, seed)
                started = time.perf_counter()
                await runner.choose_move(request)
                times.append((time.perf_counter() - started) * 1000)
            lines.append(
                f"{level.value:>8}: median {statistics.median(times):6.0f} ms, "
                f"max {max(times):6.0f} ms (budget {PRESETS[level].time_ms} ms)"
            )
    return "\n".join(lines)


async def busy_pool(games: int, level: str) -> str:
    """Many games against the AI with every worker searching; meanwhile people keep placing
    stones in other games. Reports the loop's lag and the people's place latency."""
    from bot.core.ai import ProcessPoolRunner

    figures = Figures([], [], [], [], 0, 0.0)
    ai_ms: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        async with (
            SqliteGameRepository.open(Path(folder) / "busy.sqlite3") as repo,
            ProcessPoolRunner() as runner,
        ):
            await runner.warm_up()
            service = GameService(repo, runner, rng=random.Random(0))

            async def against_ai(index: int) -> None:
                channel = 50_000 + index
                await service.start(
                    channel_id=channel,
                    guild_id=1,
                    user_id=900 + index,
                    level=level,
                    colour="black",
                )
                for move in ("h8", "h9", "h10") if index % 2 else ("g7", "i7", "j9"):
                    view = await service.board(channel)
                    point = Point.parse(move)
                    if not view.board.is_legal(point):
                        point = view.board.legal_moves()[0]
                    result = await service.place(channel, 900 + index, point)
                    started = time.perf_counter()
                    await service.ai_reply(result.game.game_id)
                    ai_ms.append((time.perf_counter() - started) * 1000)

            stop = asyncio.Event()
            probe = asyncio.create_task(_lag_probe(figures, stop))
            started = time.perf_counter()
            people = asyncio.gather(*(_game(service, i, 20, figures, 0.5) for i in range(50)))
            await asyncio.gather(*(against_ai(i) for i in range(games)), people)
            figures.seconds = time.perf_counter() - started
            stop.set()
            await probe
    return (
        f"{games} games vs AI ({level}) on {runner.workers} workers + 50 games between people:\n"
        f"AI reply incl. queueing: p50 {statistics.median(ai_ms):.0f} ms, "
        f"p95 {_pct(ai_ms, 0.95):.0f} ms\n"
        f"place: p50 {statistics.median(figures.place_ms):.1f} ms, "
        f"p95 {_pct(figures.place_ms, 0.95):.1f} ms\n"
        f"event-loop lag: p95 {_pct(figures.loop_lag_ms, 0.95):.1f} ms, "
        f"max {max(figures.loop_lag_ms, default=0):.1f} ms"
    )


def main(argv: list[str]) -> None:
    if argv[:1] == ["ai"]:
        print(asyncio.run(ai_latency()))
        return
    if argv[:1] == ["busy"]:
        games = int(argv[1]) if len(argv) > 1 else 20
        level = argv[2] if len(argv) > 2 else "master"
        print(asyncio.run(busy_pool(games, level)))
        return
    games = int(argv[0]) if argv else 200
    moves = int(argv[1]) if len(argv) > 1 else 50
    think_s = float(argv[2]) if len(argv) > 2 else 1.0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.sqlite3"
        figures = asyncio.run(run_bench(path, games, moves, think_s))
    print(report(figures, games, think_s))


if __name__ == "__main__":
    main(sys.argv[1:])
