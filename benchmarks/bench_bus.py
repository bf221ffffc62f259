"""Moves from one shard's process on a page served by another: the game bus's latency.

Run it as ``python -m benchmarks.bench_bus [--moves 300] [--bus redis|postgresql|both]``.
It starts its own PostgreSQL (and Redis) from the test extra's binaries, prints figures and
asserts nothing (timings on shared machines are noise, not verdicts).

Two shards of two, as two bot processes would run them: each its own connection pool on the
one database (``OwnedGames``), its own ``GameService`` and its own bus connection
(``bot.core.bus``); only the second serves the web board. Games are in a guild of the first
shard. Players' moves are made through the first's service, one at a time; a WebSocket
client (the page's protocol, not a browser) watches the game on the second's web board.
Latency: from the first process's event of the stored move to the page receiving the state
that holds it. Both "processes" share this one event loop (the page's client too), so each
figure includes the other side's work: a conservative measure of the bus's own delay.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from benchmarks.common import NoAI, cpu_model
from bot.core.bus import GameBus, PostgresBus, RedisBus
from bot.core.service import GameService
from bot.core.service.events import Event, Moved
from bot.core.service.inputs import GameRef, Place
from bot.shards import OwnedGames, ShardSpec
from bot.web.server import WebBoard
from bot.web.tokens import Role, Signer
from engine.types import Point
from storage.postgres import PostgresGameRepository
from storage.records import NewGame, Player
from tests.web.page import PageView

__all__ = ["BLACK", "GUILD", "WHITE", "Run", "Shards", "cross_process", "main", "point_of"]

GUILD = (2 << 22) | 5  # on shard 0 of 2 (``bot.shards.shard_of``)
BLACK, WHITE = 1001, 1002
_PER_GAME = 120  # moves in one game: eight rows of alternating stones (``point_of``)
SECRET = "bench secret for board passes"


def point_of(ply: int) -> Point:
    """The ``ply``-th stone of a game that never makes five: rows 0, 2, ..., 14 filled left
    to right, so a row alternates colours and no two filled rows touch."""
    return Point(ply % 15, 2 * (ply // 15))


@dataclass
class Run:
    """What one run saw."""

    moves: int = 0  # moves made in the first process
    latencies_ms: list[float] = field(default_factory=list)  # one per move that reached the page
    versions: list[int] = field(default_factory=list)  # every state the page got, in order
    stones: list[int] = field(default_factory=list)  # stones on each game's last state


@dataclass
class Shards:
    """Two shard processes' parts on one database; the second serves the web board."""

    services: list[GameService]
    buses: list[GameBus]
    board: WebBoard
    signer: Signer
    repository: PostgresGameRepository

    @property
    def url(self) -> str:
        """The web board's address."""
        return f"http://127.0.0.1:{self.board.port}"


@contextlib.asynccontextmanager
async def two_shards(database_url: str, bus: Callable[[], GameBus]) -> AsyncIterator[Shards]:
    """Two shard processes' services, buses (``bus()`` makes each) and the second's web
    board, connected."""
    async with contextlib.AsyncExitStack() as stack:
        pools = [
            await stack.enter_async_context(PostgresGameRepository.open(database_url))
            for _ in range(2)
        ]
        services, buses = [], []
        for shard, pool in enumerate(pools):
            service = GameService(
                OwnedGames.wrap(pool, ShardSpec(frozenset({shard}), 2)),
                NoAI(),
                rng=random.Random(shard),
            )
            process_bus = bus()
            service.subscribe(process_bus.on_event)
            process_bus.start()
            stack.push_async_callback(process_bus.close)
            services.append(service)
            buses.append(process_bus)
        signer = Signer.from_secrets(SECRET, None)
        board = WebBoard(services[1], signer, bus=buses[1])
        await board.start(0, "127.0.0.1")
        stack.push_async_callback(board.close)
        async with asyncio.timeout(30):
            await asyncio.gather(*(b.connected.wait() for b in buses))
        yield Shards(services, buses, board, signer, pools[0])


async def cross_process(shards: Shards, moves: int) -> Run:
    """``moves`` moves made in the first process, each awaited on a page of the second."""
    run = Run()
    stored: dict[int, float] = {}  # version -> when the first process stored it

    def note(event: Event) -> None:
        if isinstance(event, Moved):
            stored[event.game.version] = time.perf_counter()

    shards.services[0].subscribe(note)
    try:
        async with aiohttp.ClientSession() as http:
            for first in range(0, moves, _PER_GAME):
                count = min(_PER_GAME, moves - first)
                await _one_game(shards, http, count, run, stored)
    finally:
        shards.services[0].unsubscribe(note)
    return run


async def _one_game(
    shards: Shards,
    http: aiohttp.ClientSession,
    count: int,
    run: Run,
    stored: dict[int, float],
) -> None:
    game = await shards.repository.create_game(
        NewGame(GUILD, 7000 + len(run.stones), black=Player.human(BLACK), white=Player.human(WHITE))
    )
    grant = shards.signer.mint(game.id, 999, Role.WATCH)
    ws = await http.ws_connect(f"{shards.url}/ws")
    page = PageView()  # the whole state, then deltas, as the page applies them

    async def received() -> dict[str, Any]:
        while (state := page.take(await ws.receive_json(timeout=10))) is None:
            pass
        run.versions.append(state["version"])
        return state

    try:
        await ws.send_json({"type": "hello", "token": grant})
        state = await received()
        for ply in range(count):
            stored.clear()
            user = BLACK if ply % 2 == 0 else WHITE
            await shards.services[0].act(GameRef(game.id), user, Place(point_of(ply)))
            run.moves += 1
            (version,) = stored
            while state["version"] < version:
                state = await received()
            run.latencies_ms.append((time.perf_counter() - stored[version]) * 1000)
        run.stones.append(len(state["moves"]))
    finally:
        await ws.close()


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def _bench(kind: str, moves: int) -> dict[str, Any]:
    from tests.postgres_server import PostgresServer

    servers: list[Any] = [PostgresServer()]
    if kind == "redis":
        from tests.redis_server import RedisServer

        servers.append(RedisServer())
    with contextlib.ExitStack() as stack:
        for server in servers:
            stack.callback(server.stop)  # also when it failed to start
            server.start()
        database_url = servers[0].create_database()

        def bus() -> GameBus:
            if kind == "redis":
                return RedisBus(servers[1].url)
            return PostgresBus(database_url)

        async with two_shards(database_url, bus) as shards:
            started = time.perf_counter()
            run = await cross_process(shards, moves)
            elapsed = time.perf_counter() - started
    return {"run": run, "elapsed": elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--bus", choices=("redis", "postgresql", "both"), default="both")
    args = parser.parse_args(argv)
    kinds = ("redis", "postgresql") if args.bus == "both" else (args.bus,)
    print(f"CPU: {cpu_model()}")
    for kind in kinds:
        figures = asyncio.run(_bench(kind, args.moves))
        run: Run = figures["run"]
        latencies = run.latencies_ms
        print(
            f"{kind:>10}: {len(latencies)}/{run.moves} moves reached the other process's page"
            f" in {figures['elapsed']:.1f} s; stored -> page p50 {statistics.median(latencies):.1f}"
            f" ms p95 {_percentile(latencies, 0.95):.1f} ms max {max(latencies):.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
