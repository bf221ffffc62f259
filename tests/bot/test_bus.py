"""The game bus: a move stored by one shard's process reaches a web board page served by
another, over the queue's Redis and, separately, over PostgreSQL alone; a dropped bus
connection comes back (one WARNING, no traceback) and the pages catch up; what else is on the
channel is refused. Two shards' services, pools and buses, as two processes run them (the
harness of ``benchmarks.bench_bus``), with a WebSocket client as the page."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
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
    main,
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
    UndoAnswer,
    UndoAsk,
    UndoNote,
    decode,
    encode,
    open_bus,
)
from bot.core.service import GameService
from bot.core.service.inputs import AnswerUndo, AskUndo, GameRef, Place
from bot.core.service.states import GameState
from bot.web.feed import Feed
from bot.web.hub import Hub
from bot.web.tokens import Role, Signer
from engine.types import Point
from storage.postgres import PostgresGameRepository
from storage.records import NewGame, Player
from tests.botprocess import shard_processes
from tests.fakediscord import FakeDiscord, FakeUser
from tests.polling import until
from tests.processes import running
from tests.redis_server import RedisServer
from tests.runners import CentreRunner
from tests.web.page import PageView

MOVES = 40
WEB_SECRET = "a secret for the board passes of the bus tests"


@pytest.fixture(autouse=True)
def quiet_bus_pings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bus pings its server after 20 ms without a change, and a Redis subscription after
    20 ms without a message (30 s in production): every test here also runs with pings
    between its messages."""
    monkeypatch.setattr("bot.core.bus._IDLE_S", 0.02)
    monkeypatch.setattr("bot.core.bus._LISTEN_IDLE_S", 0.02)


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


async def _every_move_arrives(shards: Shards, caplog: pytest.LogCaptureFixture) -> None:
    """MOVES moves in the first process, each seen by a page of the second."""
    caplog.set_level(logging.INFO, logger="bot.core.bus")
    run = await cross_process(shards, MOVES)
    assert run.moves == MOVES
    assert len(run.latencies_ms) == MOVES
    assert run.stones == [MOVES]
    # Each move's state once, in order, and never an older one after a newer.
    assert run.versions == sorted(set(run.versions))
    assert len(run.versions) == MOVES + 1
    # Neither bus dropped, pinging all the while.
    assert [r for r in caplog.records if r.name == "bot.core.bus"] == []
    assert [b.sessions for b in shards.buses] == [1, 1]


async def test_moves_in_one_process_reach_a_page_of_the_other_over_redis(
    over_redis: Shards, caplog: pytest.LogCaptureFixture
) -> None:
    await _every_move_arrives(over_redis, caplog)


async def test_moves_in_one_process_reach_a_page_of_the_other_over_postgres(
    over_postgres: Shards, caplog: pytest.LogCaptureFixture
) -> None:
    await _every_move_arrives(over_postgres, caplog)


async def _watch(shards: Shards, http: aiohttp.ClientSession) -> tuple[int, Any, PageView]:
    """A new game on the first shard, and a page of it on the second's board (the game as
    the page has it: its first state taken)."""
    game = await shards.repository.create_game(
        NewGame(GUILD, 8000, black=Player.human(BLACK), white=Player.human(WHITE))
    )
    ws = await http.ws_connect(f"{shards.url}/ws")
    await ws.send_json({"type": "hello", "token": shards.signer.mint(game.id, 999, Role.WATCH)})
    page = PageView()
    page.take(await ws.receive_json(timeout=10))
    return game.id, ws, page


async def _until_stones(ws: Any, page: PageView, stones: int) -> dict[str, Any]:
    """The game as ``page`` has it once it has ``stones`` stones (deltas applied)."""
    while True:
        state = page.take(await ws.receive_json(timeout=30))
        if state is not None and len(state["moves"]) >= stones:
            return state


async def _drop_and_play(
    shards: Shards, caplog: pytest.LogCaptureFixture, kill: Any
) -> list[logging.LogRecord]:
    caplog.set_level(logging.INFO, logger="bot.core.bus")
    async with aiohttp.ClientSession() as http, asyncio.timeout(60):
        game_id, ws, page = await _watch(shards, http)
        await shards.services[0].act(GameRef(game_id), BLACK, Place(point_of(0)))
        await _until_stones(ws, page, 1)
        # The page's process loses its bus connection; a move is stored while it is away
        # or just back: either way the page gets it (told, or by re-reading).
        await kill(shards.buses[1])
        await shards.services[0].act(GameRef(game_id), WHITE, Place(point_of(1)))
        await shards.buses[1].wait_connected(2)
        await _until_stones(ws, page, 2)
        # And the bus carries the next move as before.
        await shards.services[0].act(GameRef(game_id), BLACK, Place(point_of(2)))
        state = await _until_stones(ws, page, 3)
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
    # The error's type name alone: asyncpg says ConnectionError or InterfaceError, depending on
    # where the terminated connection was caught.
    assert re.fullmatch(
        r"the game bus \(postgresql\) is away: \w+; reconnecting", warnings[0].getMessage()
    )
    assert sum("is back" in r.getMessage() for r in records) == 1


async def test_a_redis_server_that_stops_answering_is_found_and_the_page_catches_up(
    postgres_url: str,
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The page's process sends nothing, not even a ping (no write can fail), while its
    Redis stops answering: only the subscription's own ping, unanswered, finds it. Once the
    server answers again the bus is back and the page reads what was stored meanwhile: the
    move and the undo request."""
    caplog.set_level(logging.INFO, logger="bot.core.bus")
    monkeypatch.setattr("bot.core.bus._IDLE_S", 3600.0)  # before the buses start
    monkeypatch.setattr("bot.core.bus._ANSWER_S", 1.0)
    async with two_shards(postgres_url, lambda: RedisBus(redis_server.url)) as shards:
        await _frozen_redis(shards, redis_server)
    records = [r for r in caplog.records if r.name == "bot.core.bus"]
    assert all(r.exc_info is None for r in records)  # no traceback
    assert [r.getMessage() for r in records if r.levelno == logging.WARNING] == [
        "the game bus (redis) is away: TimeoutError; reconnecting"
    ]
    assert sum("is back" in r.getMessage() for r in records) == 1


async def _frozen_redis(shards: Shards, redis_server: RedisServer) -> None:
    first, page_bus = shards.services[0], shards.buses[1]
    # The first process's bus is certainly away: only re-reading can bring the page news.
    await shards.buses[0].close()
    async with aiohttp.ClientSession() as http, asyncio.timeout(60):
        game = await shards.repository.create_game(
            NewGame(GUILD, 8300, black=Player.human(BLACK), white=Player.human(WHITE))
        )
        page = await _play_page(shards, http, game.id, WHITE)
        await page.state(0)
        redis_server.pause()
        try:
            await first.act(GameRef(game.id), BLACK, Place(point_of(0)))
            await first.act(GameRef(game.id), BLACK, AskUndo())

            async def connected() -> bool:
                return page_bus.connected.is_set()

            await until(connected, lambda up: not up)  # found while the server is frozen
        finally:
            redis_server.resume()
        await page_bus.wait_connected(2)
        assert (await page.state(1))["moves"] == [[0, 0, 0]]
        asked = await page.heard("undo_asked")
        assert asked["text"] == "Black asks to take back their last move."
        await page.ws.close()


async def test_a_page_catches_up_with_what_was_stored_while_its_bus_was_away(
    over_postgres: Shards,
) -> None:
    async with aiohttp.ClientSession() as http, asyncio.timeout(60):
        game_id, ws, page = await _watch(over_postgres, http)
        page_bus = over_postgres.buses[1]
        await page_bus.close()  # certainly away: the notification below reaches nobody
        await over_postgres.services[0].act(GameRef(game_id), BLACK, Place(point_of(0)))
        await over_postgres.services[0].act(GameRef(game_id), WHITE, Place(point_of(1)))
        page_bus.start()
        await page_bus.wait_connected(2)
        # Only the re-reading of every watched game on reconnecting can bring these.
        state = await _until_stones(ws, page, 2)
        assert state["moves"] == [[0, 0, 0], [1, 0, 1]]
        await ws.close()


class _Said:
    """What a page's socket was sent, in order."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.log: list[dict[str, Any]] = []
        self._next = 0  # ``heard`` looks from here
        self._page = PageView()
        self.states: list[dict[str, Any]] = []  # the game as the page had it, in order

    async def _more(self) -> dict[str, Any]:
        message: dict[str, Any] = await self.ws.receive_json(timeout=30)
        self.log.append(message)
        state = self._page.take(message)
        if state is not None:
            self.states.append(state)
        return message

    async def heard(self, kind: str) -> dict[str, Any]:
        """The next message of ``kind`` after the last one ``heard`` returned."""
        while True:
            while self._next < len(self.log):
                message = self.log[self._next]
                self._next += 1
                if message["type"] == kind:
                    return message
            await self._more()

    async def state(self, stones: int) -> dict[str, Any]:
        """A state with ``stones`` stones, sent before now or later."""
        seen = 0
        while True:
            for state in self.states[seen:]:
                if len(state["moves"]) == stones:
                    return state
            seen = len(self.states)
            await self._more()


async def _play_page(shards: Shards, http: aiohttp.ClientSession, game_id: int, user: int) -> _Said:
    """A player's page of ``game_id`` on the second shard's board."""
    ws = await http.ws_connect(f"{shards.url}/ws")
    await ws.send_json({"type": "hello", "token": shards.signer.mint(game_id, user, Role.PLAY)})
    return _Said(ws)


async def _undo_across(shards: Shards) -> None:
    """A request asked in the first process is put to the responder's page served by the
    second, and its answers given in the first reach both players' pages there; a page
    opened while a request waits is asked at once (the request is read from the database)."""
    first = shards.services[0]
    async with aiohttp.ClientSession() as http, asyncio.timeout(60):
        game = await shards.repository.create_game(
            NewGame(GUILD, 8200, black=Player.human(BLACK), white=Player.human(WHITE))
        )
        await first.act(GameRef(game.id), BLACK, Place(point_of(0)))
        version = (await first.game(game.id)).version
        white = await _play_page(shards, http, game.id, WHITE)
        black = await _play_page(shards, http, game.id, BLACK)
        for page in (white, black):
            await page.state(1)  # open: the request below is told, not read
        await first.act(GameRef(game.id), BLACK, AskUndo(), via="discord")
        asked = await white.heard("undo_asked")
        assert asked == {
            "type": "undo_asked",
            "text": "Black asks to take back their last move.",
            "version": version,
        }
        await first.act(GameRef(game.id), WHITE, AnswerUndo(False), via="discord")
        assert (await white.heard("undo_answered"))["text"] == "Undo refused."
        refused = await black.heard("undo_answered")
        assert refused["text"] == "White refused the takeback."
        # The request is the responder's to answer.
        assert [m for m in black.log if m["type"] == "undo_asked"] == []

        await first.act(GameRef(game.id), BLACK, AskUndo(), via="discord")
        assert (await white.heard("undo_asked"))["version"] == version
        late = await _play_page(shards, http, game.id, WHITE)  # opened while it waits
        assert (await late.heard("undo_asked"))["version"] == version
        await first.act(GameRef(game.id), WHITE, AnswerUndo(True), via="discord")
        for page in (white, late):
            assert (await page.heard("undo_answered"))["text"] == "Undo allowed."
            await page.state(0)
        assert (await black.heard("undo_answered"))["text"] == "White allowed the takeback."
        await black.state(0)
        for page in (white, black, late):
            await page.ws.close()


async def test_an_undo_request_and_its_answers_reach_pages_of_the_other_process_over_redis(
    over_redis: Shards,
) -> None:
    await _undo_across(over_redis)


async def test_an_undo_request_and_its_answers_reach_pages_of_the_other_process_over_postgres(
    over_postgres: Shards,
) -> None:
    await _undo_across(over_postgres)


async def test_an_undo_answered_while_the_bus_was_away_leaves_the_page_on_its_return(
    over_postgres: Shards,
) -> None:
    """The answer's message is lost with the bus away; on its return the page reads that no
    request waits any more, and drops its Allow and Refuse (an answer without words)."""
    first, page_bus = over_postgres.services[0], over_postgres.buses[1]
    async with aiohttp.ClientSession() as http, asyncio.timeout(60):
        game = await over_postgres.repository.create_game(
            NewGame(GUILD, 8400, black=Player.human(BLACK), white=Player.human(WHITE))
        )
        await first.act(GameRef(game.id), BLACK, Place(point_of(0)))
        page = await _play_page(over_postgres, http, game.id, WHITE)
        await page.state(1)
        await first.act(GameRef(game.id), BLACK, AskUndo())
        await page.heard("undo_asked")
        await page_bus.close()  # certainly away: the answer's message reaches nobody
        await first.act(GameRef(game.id), WHITE, AnswerUndo(False))
        page_bus.start()
        await page_bus.wait_connected(2)
        assert await page.heard("undo_answered") == {"type": "undo_answered", "text": ""}
        await page.ws.close()


class _Page:
    """A page that notes the versions it is shown."""

    def __init__(self) -> None:
        self.shown: list[int] = []
        self.newest = asyncio.Event()

    def show(self, state: GameState, feed: Feed) -> None:
        self.shown.append(state.version)
        self.newest.set()

    async def wait_for(self, version: int) -> None:
        while version not in self.shown:
            self.newest.clear()
            await self.newest.wait()


async def test_a_burst_heard_on_the_bus_is_read_once_and_older_news_not_at_all(
    over_postgres: Shards,
) -> None:
    reads: list[int] = []
    was_read = asyncio.Event()

    async def read(game_id: int) -> GameState:
        reads.append(game_id)
        was_read.set()
        return await over_postgres.services[1].game(game_id)

    hub, page = Hub(read=read), _Page()
    game = await over_postgres.repository.create_game(
        NewGame(GUILD, 8100, black=Player.human(BLACK), white=Player.human(WHITE))
    )
    hub.join(game.id, page)
    hub.changed(game.id + 1, 99)  # a game no page shows: nothing is read
    versions = []
    for ply in range(5):
        user = BLACK if ply % 2 == 0 else WHITE
        await over_postgres.services[0].act(GameRef(game.id), user, Place(point_of(ply)))
        versions.append((await over_postgres.services[0].game(game.id)).version)
    for version in versions:  # heard at once, as a burst
        hub.changed(game.id, version)
    async with asyncio.timeout(30):
        await page.wait_for(versions[-1])
    assert reads == [game.id]
    assert page.shown == [versions[-1]]
    for version in versions:  # old news, the newest included
        hub.changed(game.id, version)
    await asyncio.sleep(0)  # one turn of the loop: a read started by them would have begun
    assert reads == [game.id]
    was_read.clear()
    hub.resync()  # but after a reconnection, every watched game is read again
    async with asyncio.timeout(30):
        await was_read.wait()
    await hub.close()
    assert reads == [game.id, game.id]
    assert set(page.shown) == {versions[-1]}  # never an older state


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
        game_id, ws, page = await _watch(over_redis, http)
        for message in junk:
            assert await redis.publish(CHANNEL, message) == 1
        await over_redis.services[0].act(GameRef(game_id), BLACK, Place(point_of(0)))
        version = (await over_redis.services[0].game(game_id)).version
        told = encode(Changes("the test", [Change(game_id, version)]))
        assert await redis.publish(CHANNEL, told) == 1
        await _until_stones(ws, page, 1)
        await ws.close()
    records = [r for r in caplog.records if r.name == "bot.core.bus"]
    assert all(r.exc_info is None for r in records)
    refused = [r for r in records if "not understood" in r.getMessage()]
    assert len(refused) == 1  # one line, however much arrives


class _Heard:
    """A follower that notes what it is told."""

    def __init__(self) -> None:
        self.changes: list[tuple[int, int]] = []
        self.undos: list[UndoNote] = []
        self.resyncs = 0
        self.told = asyncio.Event()

    def changed(self, game_id: int, version: int) -> None:
        self.changes.append((game_id, version))
        self.told.set()

    def undo(self, note: UndoNote) -> None:
        self.undos.append(note)
        self.told.set()

    def resync(self) -> None:
        self.resyncs += 1


async def test_a_burst_is_sent_once_as_each_games_newest_version_to_the_others(
    redis_server: RedisServer,
) -> None:
    sender, receiver = RedisBus(redis_server.url), RedisBus(redis_server.url)
    heard_by_sender, heard = _Heard(), _Heard()
    sender.follow(heard_by_sender)
    receiver.follow(heard)
    # Noted before the sender is even connected: nothing waits for the bus.
    for game_id, version in [(1, 3), (1, 2), (2, 5), (1, 4), (2, 1)]:
        sender.publish(game_id, version)
    async with Redis.from_url(redis_server.url) as redis, redis.pubsub() as listener:
        await listener.subscribe(CHANNEL)
        receiver.start()
        await receiver.wait_connected()
        sender.start()
        try:
            async with asyncio.timeout(30):
                await heard.told.wait()
                raw = None
                while raw is None:
                    raw = await listener.get_message(ignore_subscribe_messages=True, timeout=5)
            assert decode(raw["data"]) == Changes(sender.origin, [Change(1, 4), Change(2, 5)])
            assert heard.changes == [(1, 4), (2, 5)]
            assert heard_by_sender.changes == []  # its own message is skipped
            assert heard.resyncs == heard_by_sender.resyncs == 0  # first connections
        finally:
            await sender.close()
            await receiver.close()


def test_the_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--moves", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("CPU: ")
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["redis", "postgresql"]
    for line in lines[1:]:
        assert "4/4 moves reached the other process's page" in line
        assert " p95 " in line


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
        "type": "changes",
        "origin": changes.origin,
        "games": [[c.game_id, c.version] for c in changes.games],
    }
    assert decode(data) == changes
    assert decode(json.dumps(plain)) == changes


_undo_notes = st.one_of(
    st.builds(UndoAsk, st.text(max_size=64), _ids, _ids, _ids, _ids, st.integers(1, 10_000)),
    st.builds(
        UndoAnswer,
        st.text(max_size=64),
        _ids,
        _ids,
        _ids,
        _ids,
        _ids,
        st.booleans(),
        st.none() | st.text(max_size=32),
        st.none() | _ids,
    ),
)


@given(_undo_notes)
def test_undo_messages_round_trip_as_plain_json(note: UndoNote) -> None:
    data = encode(note)
    plain = json.loads(data)  # the oracle, as above
    fields = {name: getattr(note, name) for name in note.__struct_fields__}
    kind = "undo_asked" if isinstance(note, UndoAsk) else "undo_answered"
    assert plain == {"type": kind, **fields}
    assert decode(data) == note
    assert decode(json.dumps(plain)) == note


_keys = st.sampled_from(
    ["type", "origin", "games", "game_id", "version", "requester", "responder", "moves", "by"]
) | st.text(max_size=8)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.sampled_from(["changes", "undo_asked", "undo_answered"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner),
)


@given(_json)
def test_any_other_json_is_refused_as_a_value_error(value: Any) -> None:
    try:
        decoded = decode(json.dumps(value))
    except ValueError:
        return
    # Whatever is accepted is exactly a message of the bus.
    assert value == json.loads(encode(decoded))


async def _left_behind_while_the_bus_was_away(
    fake: FakeDiscord, postgres_url: str, port: int, game_id: int, alice: FakeUser, bob: FakeUser
) -> None:
    """Bob asks for a takeback in the owner's process, and Alice's move leaves the request
    behind, stored by a service with no bus (the test's own): its notice is one the owner
    never hears, as one sent while the owner's bus was away. The buses drop and come back,
    and the owner looks at the requests it posted again: the request's message closes."""
    request = await fake.slash("gomoku undo", user=bob)
    assert request.message is not None
    assert f"gomoku:{game_id}:undo:no" in request.message.custom_ids()
    token = Signer.from_secrets(WEB_SECRET, None).mint(game_id, alice.id, Role.PLAY)
    async with aiohttp.ClientSession() as http:
        page = _Said(await http.ws_connect(f"http://127.0.0.1:{port}/ws"))
        await page.ws.send_json({"type": "hello", "token": token})
        await page.heard("undo_asked")  # the request reached the other process
        async with PostgresGameRepository.open(postgres_url) as db:
            unheard = GameService(db, CentreRunner())
            await unheard.act(GameRef(game_id), alice.id, Place(Point(5, 5)))
        connection = await asyncpg.connect(postgres_url)
        try:
            dropped = await connection.fetch(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name LIKE 'gomoku bus %'"
            )
        finally:
            await connection.close()
        assert [row[0] for row in dropped] == [True, True]  # both processes' buses
        message = request.message
        await fake.wait_for(lambda: message.buttons() == [])
        assert message.content == (
            f"<@{bob.id}>'s request to take back their last move is closed: the game moved on."
        )
        await page.state(5)  # and the page's process read the game again
        await page.ws.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["redis", "postgresql"])
async def test_a_move_in_one_bot_process_reaches_a_page_served_by_another(
    fake: FakeDiscord, tmp_path: Path, postgres_url: str, redis_server: RedisServer, kind: str
) -> None:
    """Two real ``python -m bot --shards N --shard-count 2`` processes on one PostgreSQL
    database (with the queue's Redis, or without), the web board served by the one that does
    not own the fake's guild: the guild's ``/place`` commands reach the owner alone (the fake
    sends a guild's events to its shard), and their moves reach the page on the other. An
    undo request asked there reaches the opponent's page too, and the refusal given on that
    page edits the request's message, which the owner posted (its buttons go); a request the
    page's move leaves behind closes its message the same way."""
    owner = fake.shard_of_guild(2)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with PostgresGameRepository.open(postgres_url) as db:
        game = await db.create_game(
            NewGame(
                fake.guild_id,
                fake.default_channel.id,
                black=Player.human(alice.id),
                white=Player.human(bob.id),
            )
        )
    # INFO: the line that says a process has done its start-up
    shared = {"GOMOKU_DATABASE_URL": postgres_url, "LOG_LEVEL": "INFO"}
    if kind == "redis":
        shared["GOMOKU_AI_QUEUE_URL"] = redis_server.url
    port = _free_port()
    board = {
        "GOMOKU_WEB_PORT": str(port),
        "GOMOKU_WEB_URL": f"http://127.0.0.1:{port}",
        "GOMOKU_WEB_SECRET": WEB_SECRET,
    }
    bots = shard_processes(
        fake.port, tmp_path, lambda shard: {**shared, **({} if shard == owner else board)}
    )
    try:
        fake.answer_timeout = 60.0  # two processes start cold on a shared machine

        async def shards() -> list[tuple[int, int]]:
            return fake.connected_shards()

        try:
            # Polled: connecting makes no HTTP request for the fake's ``wait_for`` to see.
            async with asyncio.timeout(180):
                await until(shards, lambda connected: connected == [(0, 2), (1, 2)])
        except TimeoutError:
            raise AssertionError([b.errors() for b in bots]) from None

        async def started() -> list[bool]:
            return ["resumed what the last stop left" in b.errors() for b in bots]

        async with asyncio.timeout(120):
            await until(started, all)
        # The board listens before its process connects to Discord.
        grant = Signer.from_secrets(WEB_SECRET, None).mint(game.id, 999, Role.WATCH)
        async with aiohttp.ClientSession() as http, asyncio.timeout(120):
            ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws")
            await ws.send_json({"type": "hello", "token": grant})
            view = PageView()
            first = view.take(await ws.receive_json(timeout=30))
            assert first is not None
            assert first["moves"] == []
            for ply, (player, cell) in enumerate([(alice, "a1"), (bob, "b1"), (alice, "c1")]):
                reply = await fake.slash("place", user=player, options={"cell": cell})
                assert "played **" in reply.content
                state = await _until_stones(ws, view, ply + 1)
            assert state["moves"] == [[0, 0, 0], [1, 0, 1], [2, 0, 0]]
            await ws.close()
            # Asked in the owner's process, answered on Bob's page in the other.
            token = Signer.from_secrets(WEB_SECRET, None).mint(game.id, bob.id, Role.PLAY)
            page = _Said(await http.ws_connect(f"http://127.0.0.1:{port}/ws"))
            await page.ws.send_json({"type": "hello", "token": token})
            await page.state(3)
            request = await fake.slash("gomoku undo", user=alice)
            assert request.message is not None
            assert f"gomoku:{game.id}:undo:no" in request.message.custom_ids()
            asked = await page.heard("undo_asked")
            assert asked["text"] == "alice asks to take back their last move."
            await page.ws.send_json({"type": "undo_answer", "accept": False, "token": token})
            assert (await page.heard("undo_answered"))["text"] == "Undo refused."
            message = request.message
            await fake.wait_for(lambda: message.buttons() == [])
            assert message.content == (
                f"<@{bob.id}> refused to let <@{alice.id}> take back their last move."
            )
            # Asked again, and left behind by Bob's move on his page: the owner hears the
            # change over the bus, and the request's message closes. (Both processes have
            # done their start-up, which closes requests left behind, long before.)
            again = await fake.slash("gomoku undo", user=alice)
            assert again.message is not None
            await page.heard("undo_asked")
            await page.ws.send_json({"type": "move", "token": token, "x": 4, "y": 4})
            await page.state(4)
            closing = again.message
            try:
                await fake.wait_for(lambda: closing.buttons() == [])
            except TimeoutError:
                raise AssertionError([b.errors() for b in bots]) from None
            assert closing.content == (
                f"<@{alice.id}>'s request to take back their last move is closed: "
                "the game moved on."
            )
            await page.ws.close()
            if kind == "postgresql":
                await _left_behind_while_the_bus_was_away(
                    fake, postgres_url, port, game.id, alice, bob
                )
        async with PostgresGameRepository.open(postgres_url) as db:
            # refused, then left behind (twice): nothing taken back
            moves = 5 if kind == "postgresql" else 4
            assert len((await db.load_game(game.id)).moves) == moves
        for bot in bots:
            assert bot.terminate() == 0, bot.errors()
            assert "Traceback" not in bot.errors()
            if kind == "postgresql":  # the outage of the test's making: away, then back
                assert bot.errors().count("the game bus (postgresql) is away") == 1
                assert bot.errors().count("game bus") == 2, bot.errors()
            else:
                assert "game bus" not in bot.errors()  # no WARNING: it never dropped
    finally:
        for bot in bots:
            bot.close()
