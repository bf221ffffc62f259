"""The fan-out of a game's changes to its pages over real sockets: each page is written one
frame a change, framed once for every page of its kind, with no coroutine per page; a page
whose reader stops falls behind alone, and catches up with the newest whole state."""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
import pytest
from aiohttp import web
from aiohttp.http import WebSocketWriter
from hypothesis import example, given
from hypothesis import strategies as st

from benchmarks.bench_web import _cell
from bot.core.service import GameService
from bot.core.service.inputs import GameRef, Place
from bot.core.service.states import GameState
from bot.web.frames import text_frame
from bot.web.server import WebBoard, _Socket
from bot.web.tokens import Pass, Role, Signer
from engine.types import Point
from storage.memory import InMemoryGameRepository
from tests.bot.test_service import ALICE, BOB, start_pvp
from tests.runners import CentreRunner
from tests.web.page import PageView
from tests.web.test_feed import unframe, whole
from tests.web.test_socket_fuzz import RawSocket

SECRET = "a secret for the fan-out"


class _Recorder:
    """A transport that keeps what aiohttp's own writer writes to it."""

    def __init__(self) -> None:
        self.written = bytearray()

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return False


@given(st.one_of(st.binary(max_size=300), st.integers(120, 70_000).map(lambda n: b"x" * n)))
@example(b"x" * 125)  # the edges of the length's three forms
@example(b"x" * 126)
@example(b"x" * 65535)
@example(b"x" * 65536)
def test_a_frame_is_the_frame_aiohttps_writer_makes(payload: bytes) -> None:
    recorder = _Recorder()
    writer = WebSocketWriter(None, recorder, use_mask=False)  # type: ignore[arg-type]
    asyncio.run(writer.send_frame(payload, aiohttp.WSMsgType.TEXT))
    assert text_frame(payload) == bytes(recorder.written)
    assert unframe(text_frame(payload)) == payload


def point_of(ply: int) -> Point:
    cell = _cell(ply)
    return Point("abcdefghijklmno".index(cell[0]), int(cell[1:]) - 1)


@dataclass
class Table:
    """A game between two people, its board served on a free port."""

    service: GameService
    board: WebBoard
    game: GameState
    signer: Signer = field(default_factory=lambda: Signer.from_secrets(SECRET, None))
    plies: int = 0

    async def move(self) -> GameState:
        user = ALICE if self.plies % 2 == 0 else BOB
        reply = await self.service.act(
            GameRef(self.game.game_id), user, Place(point_of(self.plies))
        )
        self.plies += 1
        self.game = reply.game
        return reply.game

    def pass_for(self, user: int, role: Role, language: str = "en") -> str:
        return self.signer.mint(self.game.game_id, user, role, language=language)

    def page_of(self, user: int) -> _Socket:
        (page,) = [
            page
            for page in self.board.hub.pages(self.game.game_id)
            if isinstance(page, _Socket) and page.grant.user_id == user
        ]
        return page


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    service = GameService(InMemoryGameRepository(), CentreRunner(), rng=random.Random(1))
    board = WebBoard(service, Signer.from_secrets(SECRET, None))
    await board.start(0, "127.0.0.1")
    game = await start_pvp(service)
    yield Table(service, board, game)
    await board.close()


class Reader:
    """A page over aiohttp's client that reads every message, in order."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.view = PageView()
        self.messages: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            self.messages.append(orjson.loads(message.data))
            self.view.take(self.messages[-1])
            self.changed.set()

    async def version(self, version: int) -> dict[str, Any]:
        """The page's game once it has ``version``."""
        async with asyncio.timeout(30):
            while self.view.state is None or self.view.state["version"] < version:
                self.changed.clear()
                await self.changed.wait()
        return self.view.state


async def open_reader(http: aiohttp.ClientSession, table: Table, token: str) -> Reader:
    ws = await http.ws_connect(f"http://127.0.0.1:{table.board.port}/ws")
    await ws.send_json({"type": "hello", "token": token})
    reader = Reader(ws)
    await reader.version(table.game.version)
    return reader


class Spy:
    """Counts the writes to one page's transport, and keeps what was written."""

    def __init__(self, transport: asyncio.WriteTransport) -> None:
        self.transport = transport
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.frames.append(data)
        self.transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


async def test_each_page_is_written_one_frame_a_change_framed_once_for_its_kind(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    coroutines = 0
    send_frame = web.WebSocketResponse.send_frame

    async def counted(self: web.WebSocketResponse, *args: Any, **kwargs: Any) -> None:
        nonlocal coroutines
        coroutines += 1
        await send_frame(self, *args, **kwargs)

    monkeypatch.setattr(web.WebSocketResponse, "send_frame", counted)
    kinds = [(ALICE, Role.PLAY, "en"), (BOB, Role.PLAY, "en")]
    kinds += [(1000 + n, Role.WATCH, "en") for n in range(12)]
    kinds += [(2000 + n, Role.WATCH, "ja") for n in range(6)]
    async with aiohttp.ClientSession() as http:
        readers = [await open_reader(http, table, table.pass_for(*kind)) for kind in kinds]
        spies = {}
        for user, _, _ in kinds:
            page = table.page_of(user)
            spies[user] = page.transport = Spy(page.transport)  # type: ignore[arg-type,assignment]
        coroutines = 0
        for _ in range(5):
            state = await table.move()
            for reader in readers:
                await reader.version(state.version)
        for (user, role, language), reader in zip(kinds, readers, strict=True):
            grant = Pass(state.game_id, user, role, 0, language)
            assert reader.view.state == whole(table.board, state, grant)
            assert reader.view.gaps == 0
            assert len(spies[user].frames) == 5  # one write a change
            assert [orjson.loads(unframe(f))["type"] for f in spies[user].frames] == ["delta"] * 5
        # The watchers of one language were written the very same bytes: framed once.
        for first, second in [(1000, 1011), (2000, 2005)]:
            frames = zip(spies[first].frames, spies[second].frames, strict=True)
            assert all(a is b for a, b in frames)
        assert spies[1000].frames[-1] != spies[2000].frames[-1]
        assert coroutines == 0  # no aiohttp send, hence no coroutine, per page
        for reader in readers:
            await reader.ws.close()


class _Writes(asyncio.WriteTransport):
    """A page's transport that counts the writes it is given, and whose buffer holds at
    least ``held`` bytes: a reader that takes nothing more (a stopped reader's kernel may
    still take a few hundred bytes as its buffers settle)."""

    def __init__(self, transport: asyncio.WriteTransport, held: int) -> None:
        super().__init__()
        self.transport = transport
        self.held = held
        self.writes = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes += 1
        self.transport.write(data)

    def get_write_buffer_size(self) -> int:
        return max(self.held, self.transport.get_write_buffer_size())

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.transport.get_extra_info(name, default)


async def test_a_page_that_never_reads_falls_behind_alone_and_catches_up_whole(
    table: Table,
) -> None:
    board = table.board
    board.backlog = 0  # any byte the kernel's buffers cannot take: the page is behind
    board.catch_up_every = 0.05
    async with aiohttp.ClientSession() as http:
        reader = await open_reader(http, table, table.pass_for(1000, Role.WATCH))
        # A page with small socket buffers whose reader stops after its first state.
        slow = await RawSocket.open(board.port, receive_buffer=4096)
        try:
            hello = {"type": "hello", "token": table.pass_for(ALICE, Role.PLAY)}
            slow.send(0x1, orjson.dumps(hello))
            _, first = await slow.receive()
            assert orjson.loads(first)["version"] == table.game.version
            slow.transport.pause_reading()
            page = table.page_of(ALICE)
            assert page.transport is not None
            page.transport.get_extra_info("socket").setsockopt(
                socket.SOL_SOCKET, socket.SO_SNDBUF, 4096
            )
            versions = []
            while not page.behind:
                assert table.plies < 100, "the buffers never filled"
                state = await table.move()
                versions.append(state.version)
                # Every page is sent every change at once: the stopped one holds up nobody.
                assert (await reader.version(state.version))["version"] == state.version
            behind_at = table.plies
            # While it is behind, its transport is written nothing more.
            counted = _Writes(page.transport, held=board.backlog + 1)
            page.transport = counted
            for _ in range(3):
                state = await table.move()
                versions.append(state.version)
                await reader.version(state.version)
            assert counted.writes == 0
            page.transport = counted.transport
            assert reader.view.gaps == 0
            assert reader.view.state == whole(
                board, state, Pass(state.game_id, 1000, Role.WATCH, 0, "en")
            )
            # The reader goes on: it reads what was written, in order, then the newest whole
            # state, with no move made meanwhile.
            slow.transport.resume_reading()
            view = PageView()
            view.take(orjson.loads(first))
            got = []
            async with asyncio.timeout(30):
                while view.state is None or view.state["version"] < state.version:
                    opcode, payload = await slow.receive()
                    assert opcode == 0x1
                    message = orjson.loads(payload)
                    got.append((message["type"], message.get("version")))
                    view.take(message)
            assert got[-1] == ("state", state.version)
            assert [v for _, v in got[:-1]] == versions[: len(got) - 1]  # in order, none later
            assert len(got) - 1 <= behind_at
            assert view.gaps == 0
            grant = Pass(state.game_id, ALICE, Role.PLAY, 0, "en")
            assert view.state == whole(board, state, grant)
            assert not page.behind
            # A note written meanwhile was dropped: the undo request waiting (none) is put again.
            opcode, payload = await slow.receive()
            assert orjson.loads(payload) == {"type": "undo_answered", "text": ""}
            # and it has deltas again from the next change
            state = await table.move()
            opcode, payload = await slow.receive()
            assert orjson.loads(payload)["type"] == "delta"
            assert view.take(orjson.loads(payload)) == whole(board, state, grant)
        finally:
            await slow.close()
        await reader.ws.close()
