"""The board's WebSocket against anything a client can send: every frame is answered or the
socket closed with a code, the log holds no traceback, and the server plays on.

The frames go out through a small WebSocket client written here over a plain TCP stream, so
the fuzzer can send what no library client would: text that is not UTF-8, reserved opcodes,
unfinished fragments, frames far over the size limit.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import socket
import struct
from dataclasses import dataclass, field

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.client import GomokuBot
from bot.web.frames import MalformedMessageError, MovePace, parse_message
from bot.web.tokens import Role, Signer
from tests.fakediscord import FakeDiscord, FakeUser
from tests.web.test_board_browser import start_people_game

TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA
Frame = tuple[int, bytes, bool]  # opcode, payload, the FIN bit
# Every kind the page sends, and one it never does.
KINDS = ["hello", "move", "resign", "choose", "undo", "undo_answer", "rematch", "play_ai"]
KINDS += ["hint", "resync", "nonsense"]

# Codes a socket may close with: a refused pass (1000), a protocol error (1002), a binary
# frame (1003), text that is no message (1007), a frame over the limit (1009).
REASONED_CLOSES = {1000, 1002, 1003, 1007, 1009}


class _Stream(asyncio.Protocol):
    """The bytes a connection received, kept even when it ends in a reset: asyncio's
    StreamReader raises a reset before handing over what it had already read, which would
    lose a close frame that came just before it."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.ended = False
        self.reset = False
        self.changed = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        self.data += data
        self.changed.set()

    def eof_received(self) -> None:
        self.ended = True
        self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.reset = isinstance(exc, ConnectionResetError)
        self.changed.set()

    async def take(self, size: int) -> bytes | None:
        """The next ``size`` bytes, or None when the connection ends before them."""
        while len(self.data) < size:
            if self.ended:
                return None
            self.changed.clear()
            await self.changed.wait()
        taken = bytes(self.data[:size])
        del self.data[:size]
        return taken


@dataclass
class RawSocket:
    """A WebSocket client over a TCP stream: frames exactly as given, masked as clients must."""

    stream: _Stream
    transport: asyncio.Transport

    @classmethod
    async def open(cls, port: int, *, receive_buffer: int | None = None) -> RawSocket:
        """A socket upgraded on ``port`` (``receive_buffer``: its kernel's receive buffer, in
        bytes, set before it connects)."""
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.setblocking(False)
        await loop.sock_connect(sock, ("127.0.0.1", port))
        transport, stream = await loop.create_connection(_Stream, sock=sock)
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            (
                "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        while b"\r\n\r\n" not in stream.data:
            assert not stream.ended, bytes(stream.data)
            stream.changed.clear()
            await stream.changed.wait()
        end = stream.data.index(b"\r\n\r\n") + 4
        head = await stream.take(end)
        assert head is not None
        assert head.startswith(b"HTTP/1.1 101"), head
        return cls(stream, transport)

    def send(self, opcode: int, payload: bytes, *, fin: bool = True) -> None:
        if self.transport.is_closing():  # the server hung up: later frames go nowhere
            return
        first = (0x80 if fin else 0) | opcode
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", first, 0x80 | size)
        elif size < 1 << 16:
            header = struct.pack("!BBH", first, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", first, 0x80 | 127, size)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.transport.write(header + mask + body)

    async def receive(self) -> tuple[int, bytes]:
        """The next frame the server sends: (opcode, payload); (CLOSE, b"") at the stream's end."""
        head = await self.stream.take(2)
        if head is None:
            return CLOSE, b""
        first, second = head
        size = second & 0x7F
        if size >= 126:
            extended = await self.stream.take(2 if size == 126 else 8)
            if extended is None:
                return CLOSE, b""
            (size,) = struct.unpack("!H" if len(extended) == 2 else "!Q", extended)
        payload = await self.stream.take(size)
        return (CLOSE, b"") if payload is None else (first & 0x0F, payload)

    async def close(self) -> None:
        self.transport.close()


@dataclass
class Tally:
    frames: int = 0
    answered: int = 0  # sockets that answered the probe after their frames
    # Sockets reset before their close frame was read. A server that closes a connection
    # with frames still unread makes the kernel send a reset, and the client's kernel may drop
    # what it had received (the close frame with it) unread: TCP's rule, not the server's
    # silence. A plain end of stream without a close frame is still a failure.
    resets: int = 0
    closes: dict[int, int] = field(default_factory=dict)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)

# The fields a page's message may carry besides its type and pass, each of any JSON value.
message_fields = {name: json_values for name in ("x", "y", "column", "word", "accept")}


def messages(tokens: list[str]) -> st.SearchStrategy[Frame]:
    """Text frames shaped like the page's messages, with a pass of this game: the kind a
    socket answers and stays open for, whatever their fields hold."""
    kind = st.sampled_from(KINDS) | st.text(max_size=8)
    return st.fixed_dictionaries(
        {"type": kind, "token": st.sampled_from(tokens)},
        optional=message_fields,
    ).map(lambda m: (TEXT, json.dumps(m).encode(), True))


def frames(tokens: list[str]) -> st.SearchStrategy[Frame]:
    """(opcode, payload, fin) of every kind a client might send."""
    token = st.sampled_from([*tokens, "", "v1.1.2.p.3.en.x"]) | json_values
    kind = st.sampled_from(KINDS) | json_values
    message = st.fixed_dictionaries(
        {"type": kind, "token": token},
        optional=message_fields,
    ).map(lambda m: json.dumps(m).encode())
    text = st.one_of(
        message,
        json_values.map(lambda v: json.dumps(v).encode()),
        st.text(max_size=200).map(str.encode),
        st.integers(1, 5000).map(lambda n: b"[" * n),
        st.integers(1, 3000).map(lambda n: b'{"a":' * n),
        st.integers(5000, 70_000).map(lambda n: b'{"type":"' + b"x" * n + b'"}'),
        st.just(b'{"type":"move","x":1' + b"0" * 4400 + b"}"),
        st.binary(max_size=64),  # mostly not UTF-8
    ).map(lambda payload: (TEXT, payload, True))
    other = st.tuples(
        st.sampled_from([BINARY, 0x0, 0x3, 0x7, 0xB, 0xF]), st.binary(max_size=300), st.booleans()
    )
    return st.one_of(text, text, text, other)


async def probe(socket: RawSocket, tally: Tally) -> None:
    """Ping after the frames: a pong (every frame before it was handled) or a close code."""
    socket.send(PING, b"probe")
    while True:
        opcode, payload = await asyncio.wait_for(socket.receive(), 10)
        if opcode == PONG and payload == b"probe":
            tally.answered += 1
            return
        if opcode == CLOSE and not payload and socket.stream.reset:
            tally.resets += 1
            return
        if opcode == CLOSE:
            code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 0
            tally.closes[code] = tally.closes.get(code, 0) + 1
            assert code in REASONED_CLOSES, (code, payload)
            return


@pytest.mark.slow
# Frames of up to 64 kB make Hypothesis's report of a failing example long: the report, not a
# warning about its length, is what a failure should show.
@pytest.mark.filterwarnings("ignore:Generating overly large repr")
async def test_no_frame_makes_a_traceback_and_the_board_plays_on(
    fake: FakeDiscord,
    web_bot: GomokuBot,
    signer: Signer,
    alice: FakeUser,
    bob: FakeUser,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    game = await start_people_game(fake, web_bot, alice, bob)
    gid = game.game_id
    watch = signer.mint(gid, 999, Role.WATCH)
    tokens = [
        signer.mint(gid, alice.id, Role.PLAY),
        watch,
        signer.mint(gid + 1, alice.id, Role.PLAY),
    ]
    board = web_bot.web_board
    assert board is not None
    loop = asyncio.get_running_loop()
    tally = Tally()

    async def one(hello: bool, sent: list[Frame], hang_up: bool) -> None:
        socket = await RawSocket.open(board.port)
        try:
            if hello:
                socket.send(TEXT, json.dumps({"type": "hello", "token": watch}).encode())
            tally.frames += len(sent)
            for opcode, payload, fin in sent:
                socket.send(opcode, payload, fin=fin)
            if not hang_up:  # else gone before the server answers
                await probe(socket, tally)
        finally:
            await socket.close()

    @settings(max_examples=int(os.environ.get("GOMOKU_FUZZ_EXAMPLES", "100")), database=None)
    @given(
        st.booleans(),
        st.lists(messages(tokens[:2]), min_size=10, max_size=40),
        st.lists(frames(tokens), min_size=1, max_size=3),
        st.booleans(),
    )
    def fuzz(hello: bool, kept: list[Frame], nasty: list[Frame], hang_up: bool) -> None:
        # The messages first (each answered while the socket stays open), then anything.
        sent = kept + nasty
        asyncio.run_coroutine_threadsafe(one(hello, sent, hang_up), loop).result(timeout=60)

    await asyncio.to_thread(fuzz)

    assert tally.frames >= 1000
    assert tally.answered > 0
    assert sum(tally.closes.values()) > 0
    logged = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert logged == []
    assert not any("Error handling request" in r.getMessage() for r in caplog.records)
    # The board still answers a good frame.
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(f"http://127.0.0.1:{board.port}/ws")
        await ws.send_json({"type": "hello", "token": watch})
        assert (await ws.receive_json(timeout=5))["type"] == "state"
        await ws.close()
    print(
        f"fuzz: {tally.frames} frames, {tally.answered} answered, closes {tally.closes},"
        f" {tally.resets} reset"
    )


async def test_a_flood_of_nesting_is_refused_with_a_reason(
    fake: FakeDiscord, web_bot: GomokuBot, caplog: pytest.LogCaptureFixture
) -> None:
    board = web_bot.web_board
    assert board is not None
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(f"http://127.0.0.1:{board.port}/ws")
        await ws.send_str("[" * 2000)
        closing = await ws.receive(timeout=5)
        assert closing.type is aiohttp.WSMsgType.CLOSE
        assert closing.data == aiohttp.WSCloseCode.INVALID_TEXT
        assert closing.extra == "nested too deep"
        ws = await http.ws_connect(f"http://127.0.0.1:{board.port}/ws")
        await ws.send_bytes(b"\x00\x01")
        closing = await ws.receive(timeout=5)
        assert closing.data == aiohttp.WSCloseCode.UNSUPPORTED_DATA
        assert closing.extra == "text frames only"
    assert not any(r.exc_info for r in caplog.records)


async def test_moves_beyond_the_pace_are_refused_in_words(
    fake: FakeDiscord, web_bot: GomokuBot, signer: Signer, alice: FakeUser, bob: FakeUser
) -> None:
    game = await start_people_game(fake, web_bot, alice, bob)
    board = web_bot.web_board
    assert board is not None
    board.moves = MovePace(burst=3, rate=1.0, clock=lambda: 0.0)  # time stands still
    bobs = signer.mint(game.game_id, bob.id, Role.PLAY)
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(f"http://127.0.0.1:{board.port}/ws")
        await ws.send_json({"type": "hello", "token": bobs})
        assert (await ws.receive_json(timeout=5))["type"] == "state"
        texts = []
        for _ in range(5):
            await ws.send_json({"type": "move", "token": bobs, "x": 3, "y": 3})
            texts.append((await ws.receive_json(timeout=5))["text"])
    # Three refused by the game (not Bob's turn), then two by the pace.
    assert texts[0] == texts[1] == texts[2]
    assert "turn" in texts[0]
    assert texts[3] == texts[4] == "Slow down: one move at a time."


def test_the_pace_refills_with_time() -> None:
    now = [0.0]
    pace = MovePace(burst=2, rate=2.0, clock=lambda: now[0])
    assert [pace.spend("a") for _ in range(3)] == [True, True, False]
    assert pace.wait("a") == 0.5  # until the next move; asking spends nothing
    now[0] = 0.25
    assert pace.wait("a") == 0.25
    assert pace.spend("b")  # each link has its own
    now[0] = 0.5  # one move back
    assert [pace.spend("a") for _ in range(2)] == [True, False]
    now[0] = 100.0  # never more than the burst
    assert [pace.spend("a") for _ in range(3)] == [True, True, False]


@given(st.text(max_size=300) | st.integers(0, 3000).map(lambda n: "[" * n + "]" * n))
def test_parsing_any_text_gives_a_message_or_a_reason(text: str) -> None:
    reason = None
    try:
        data = parse_message(text)
    except MalformedMessageError as error:
        reason = str(error)
    if reason is None:
        assert isinstance(data["type"], str)
    else:
        assert reason in {"nested too deep", "not JSON", "not an object", "no type"}
