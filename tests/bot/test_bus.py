"""The game bus: a move stored by one shard's process reaches a web board page served by
another, over the queue's Redis and, separately, over PostgreSQL alone; a dropped bus
connection comes back (one WARNING, no traceback) and the pages catch up; what else is on the
channel is refused. Two shards' services, pools and buses, as two processes run them (the
harness of ``benchmarks.bench_bus``), with a WebSocket client as the page."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import asyncpg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.asyncio import Redis

from benchmarks.bench_bus import (
    BLACK,
    GUILD,
    WHITE,
    Shards,
    cross_process,
    point_of,
    two_shards,
)
from bot.core.bus import (
    CHANNEL,
    Change,
    Changes,
    GameBus,
    PostgresBus,
    RedisBus,
    decode,
    encode,
    open_bus,
)
from bot.core.service.inputs import GameRef, Place
from bot.web.tokens import Role
from storage.repository import NewGame, Player
from tests.processes import running
from tests.redis_server import RedisServer

MOVES = 40


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    yield from running(RedisServer())


@pytest.fixture
async def over_redis(postgres_url: str, redis_server: RedisServer) -> AsyncIterator[Shards]:
    async with two_shards(postgres_url, lambda: RedisBus(redis_server.url)) as shards:
        yield shards


@pytest.fixture
async def over_postgres(postgres_url: str) -> AsyncIterator[Shards]:
    async with two_shards(postgres_url, lambda: PostgresBus(postgres_url)) as shards:
        yield shards


def _assert_every_move_arrived(shards: Shards, versions: list[int], stones: list[int]) -> None:
    assert stones == [MOVES]
    # Each move's state once, in order, and never an older one after a newer.
    assert versions == sorted(set(versions))
    assert len(versions) == MOVES + 1
    # The page's process stored nothing: every state came from the other's writes.
    assert shards.buses[0].origin != shards.buses[1].origin


async def test_moves_in_one_process_reach_a_page_of_the_other_over_redis(
    over_redis: Shards,
) -> None:
    run = await cross_process(over_redis, MOVES)
    assert run.moves == MOVES
    assert len(run.latencies_ms) == MOVES
    _assert_every_move_arrived(over_redis, run.versions, run.stones)


async def test_moves_in_one_process_reach_a_page_of_the_other_over_postgres(
    over_postgres: Shards,
) -> None:
    run = await cross_process(over_postgres, MOVES)
    assert run.moves == MOVES
    assert len(run.latencies_ms) == MOVES
    _assert_every_move_arrived(over_postgres, run.versions, run.stones)


async def _watch(shards: Shards, http: aiohttp.ClientSession) -> tuple[int, Any, dict[str, Any]]:
    """A new game on the first shard, and a page of it on the second's board."""
    game = await shards.repository.create_game(
        NewGame(GUILD, 8000, black=Player.human(BLACK), white=Player.human(WHITE))
    )
    ws = await http.ws_connect(f"{shards.url}/ws")
    await ws.send_json({"type": "hello", "token": shards.signer.mint(game.id, 999, Role.WATCH)})
    return game.id, ws, await ws.receive_json(timeout=10)


async def _until_stones(ws: Any, stones: int) -> dict[str, Any]:
    while True:
        state: dict[str, Any] = await ws.receive_json(timeout=30)
        if len(state["moves"]) >= stones:
            return state


async def _drop_and_play(
    shards: Shards, caplog: pytest.LogCaptureFixture, kill: Any
) -> list[logging.LogRecord]:
    caplog.set_level(logging.INFO, logger="bot.core.bus")
    async with aiohttp.ClientSession() as http, asyncio.timeout(60):
        game_id, ws, _ = await _watch(shards, http)
        await shards.services[0].act(GameRef(game_id), BLACK, Place(point_of(0)))
        await _until_stones(ws, 1)
        # The page's process loses its bus connection; a move is stored while it is away
        # or just back: either way the page gets it (told, or by re-reading).
        await kill(shards.buses[1])
        await shards.services[0].act(GameRef(game_id), WHITE, Place(point_of(1)))
        await shards.buses[1].wait_connected(2)
        await _until_stones(ws, 2)
        # And the bus carries the next move as before.
        await shards.services[0].act(GameRef(game_id), BLACK, Place(point_of(2)))
        state = await _until_stones(ws, 3)
        assert len(state["moves"]) == 3
        await ws.close()
    records = [r for r in caplog.records if r.name == "bot.core.bus"]
    assert all(r.exc_info is None for r in records)  # no traceback
    return records


async def test_a_dropped_redis_connection_comes_back_and_the_page_catches_up(
    over_redis: Shards, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    async def kill(bus: GameBus) -> None:
        async with Redis.from_url(redis_server.url) as redis:
            killed = await redis.client_kill_filter(_type="pubsub", skipme=True)
            assert killed == 2  # both processes' subscriptions
        del bus

    records = await _drop_and_play(over_redis, caplog, kill)
    warnings = [r for r in records if r.levelno == logging.WARNING]
    assert len(warnings) == 2  # one line for each process whose connection dropped
    assert all("the game bus (redis) is away" in r.getMessage() for r in warnings)
    assert sum("is back" in r.getMessage() for r in records) == 2


async def test_a_dropped_postgres_connection_comes_back_and_the_page_catches_up(
    over_postgres: Shards, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def kill(bus: GameBus) -> None:
        connection = await asyncpg.connect(postgres_url)
        try:
            pids = await connection.fetch(
                "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
                f"gomoku bus {bus.origin}",
            )
            assert len(pids) == 1
            assert await connection.fetchval("SELECT pg_terminate_backend($1)", pids[0]["pid"])
        finally:
            await connection.close()

    records = await _drop_and_play(over_postgres, caplog, kill)
    warnings = [r for r in records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "the game bus (postgresql) is away: ConnectionError" in warnings[0].getMessage()
    assert sum("is back" in r.getMessage() for r in records) == 1


async def test_what_else_is_on_the_channel_is_refused_once_and_the_bus_goes_on(
    over_redis: Shards, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.core.bus")
    # The test speaks for the first process from here: the page's process alone listens.
    await over_redis.buses[0].close()
    junk = [
        b"[" * 5000,
        b"\xff\xfe not text",
        b'{"origin": "x", "games": [[1]]}',
        b'{"origin": "x", "games": [[-1, 2]]}',
        b'{"origin": "x", "games": [[1, 2]], "more": 1}',
        json.dumps({"origin": "x", "games": [[1, 2]] * 201}).encode(),
        b"null",
    ]
    async with (
        Redis.from_url(redis_server.url) as redis,
        aiohttp.ClientSession() as http,
        asyncio.timeout(60),
    ):
        game_id, ws, _ = await _watch(over_redis, http)
        for message in junk:
            assert await redis.publish(CHANNEL, message) == 1
        await over_redis.services[0].act(GameRef(game_id), BLACK, Place(point_of(0)))
        version = (await over_redis.services[0].game(game_id)).version
        told = encode(Changes("the test", [Change(game_id, version)]))
        assert await redis.publish(CHANNEL, told) == 1
        await _until_stones(ws, 1)
        await ws.close()
    records = [r for r in caplog.records if r.name == "bot.core.bus"]
    assert all(r.exc_info is None for r in records)
    refused = [r for r in records if "not understood" in r.getMessage()]
    assert len(refused) == 1  # one line, however much arrives


def test_the_bus_is_chosen_by_the_deployment() -> None:
    postgres, redis = "postgresql://db/gomoku", "redis://queue:6379/0"
    assert open_bus(None, None) is None  # one process on the SQLite file
    assert open_bus(None, redis) is None  # the queue's Redis, but still one process
    assert isinstance(open_bus(postgres, None), PostgresBus)
    chosen = open_bus(postgres, redis)
    assert isinstance(chosen, RedisBus)
    assert chosen.url == redis


_ids = st.integers(min_value=0, max_value=2**63 - 1)
_changes = st.builds(
    Changes,
    st.text(max_size=64),
    st.lists(st.builds(Change, _ids, _ids), max_size=200),
)


@given(_changes)
def test_changes_round_trip_as_plain_json(changes: Changes) -> None:
    data = encode(changes)
    # The oracle: the standard library's reading of the same bytes.
    plain = json.loads(data)
    assert plain == {
        "origin": changes.origin,
        "games": [[c.game_id, c.version] for c in changes.games],
    }
    assert decode(data) == changes
    assert decode(json.dumps(plain)) == changes


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["origin", "games", "x"]) | st.text(max_size=8), inner)
    ),
)


@given(_json)
def test_any_other_json_is_refused_as_a_value_error(value: Any) -> None:
    try:
        decoded = decode(json.dumps(value))
    except ValueError:
        return
    # Whatever is accepted is exactly a message of the bus.
    assert value == {
        "origin": decoded.origin,
        "games": [[c.game_id, c.version] for c in decoded.games],
    }
