"""The board's WebSocket without a browser: every message is checked against its pass, and
every refusal leaves the game as it was, in the words ``/place`` uses."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import aiohttp
import pytest

from bot.client import GomokuBot
from bot.core.service.states import GameState
from bot.text import i18n
from bot.web.frames import MovePace
from bot.web.state import game_payload
from bot.web.tokens import Role, Signer
from engine.types import Color
from tests.fakediscord import FakeDiscord, FakeUser
from tests.web.conftest import base_url
from tests.web.page import PageView
from tests.web.test_board_browser import start_people_game, stored_moves


async def hello(http: aiohttp.ClientSession, bot: GomokuBot, token: str) -> Any:
    """A socket opened with ``token``, and the first thing the server says."""
    ws = await http.ws_connect(f"{base_url(bot)}/ws")
    await ws.send_json({"type": "hello", "token": token})
    return ws, await ws.receive_json(timeout=5)


async def test_passes_are_checked_on_every_message(
    fake: FakeDiscord,
    web_bot: GomokuBot,
    signer: Signer,
    alice: FakeUser,
    bob: FakeUser,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob)
    gid = game.game_id
    alices = signer.mint(gid, alice.id, Role.PLAY)
    bobs = signer.mint(gid, bob.id, Role.PLAY)
    carols = signer.mint(gid, 999, Role.WATCH)
    async with aiohttp.ClientSession() as http:
        # A game id alone, a forged pass and an expired one open nothing.
        for token, reason in [
            (str(gid), "invalid"),
            (alices.replace(f".{alice.id}.", f".{bob.id}."), "invalid"),
            (signer.mint(gid, alice.id, Role.PLAY, now=time.time() - 7 * 3600), "expired"),
        ]:
            ws, first = await hello(http, bot, token)
            assert first["type"] == "denied"
            assert first["reason"] == reason
            assert (await ws.receive()).type is aiohttp.WSMsgType.CLOSE
        ws, state = await hello(http, bot, bobs)
        assert state["type"] == "state"
        assert state["you"] == 1
        assert not state["your_turn"]
        # Not Bob's turn: the sentence /place gives him.
        await ws.send_json({"type": "move", "token": bobs, "x": 7, "y": 7})
        refused = await ws.receive_json(timeout=5)
        place = await fake.slash("place", user=bob, options={"cell": "h8"})
        assert place.message is not None
        assert refused == {"type": "refused", "text": place.message.content}
        # A watcher's move: refused as a non-player's.
        watcher, state = await hello(http, bot, carols)
        assert state["you"] is None
        await watcher.send_json({"type": "move", "token": carols, "x": 7, "y": 7})
        assert (await watcher.receive_json(timeout=5))[
            "text"
        ] == "You are not playing in this game."
        # Another game's pass on this socket, or a message without a pass, ends it.
        other = signer.mint(gid + 1, bob.id, Role.PLAY)
        await ws.send_json({"type": "move", "token": other, "x": 7, "y": 7})
        assert (await ws.receive_json(timeout=5))["reason"] == "invalid"
        await watcher.send_json({"type": "move", "x": 7, "y": 7})
        assert (await watcher.receive_json(timeout=5))["reason"] == "invalid"
        assert await stored_moves(bot, gid) == 0
        # Alice's pass plays, and her page gets what changed: her stone, and whose turn.
        ws, state = await hello(http, bot, alices)
        assert state["your_turn"]
        await ws.send_json({"type": "move", "token": alices, "x": 40, "y": 7})
        assert (await ws.receive_json(timeout=5))["type"] == "refused"  # off the board
        await ws.send_json({"type": "move", "token": alices, "x": 7, "y": 7})
        moved = await ws.receive_json(timeout=5)
        assert moved["type"] == "delta"
        assert (moved["base"], moved["keep"], moved["add"]) == (state["version"], 0, [[7, 7, 0]])
        assert moved["version"] > state["version"]
        assert moved["set"]["your_turn"] is False
        assert moved["set"]["to_move"] == 1
        assert await stored_moves(bot, gid) == 1
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for token in (alices, bobs, carols):
        assert token not in logged


async def test_a_page_without_a_pass_is_told_so_in_the_browsers_language(
    web_bot: GomokuBot,
) -> None:
    async with aiohttp.ClientSession() as http:
        url = f"{base_url(web_bot)}/api/config"
        async with http.get(url, headers={"Accept-Language": "ja-JP,ja;q=0.9"}) as answer:
            japanese = (await answer.json())["no_pass"]
        async with http.get(url) as answer:
            english = (await answer.json())["no_pass"]
    assert english == "This link is not valid: press Open board again for a new one."
    assert japanese
    assert japanese != english


async def test_a_move_is_rendered_once_for_each_kind_of_page_and_a_resync_sends_it_whole(
    fake: FakeDiscord,
    web_bot: GomokuBot,
    signer: Signer,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = await start_people_game(fake, web_bot, alice, bob)
    gid = game.game_id
    renders: list[tuple[str, Color | None]] = []

    def counted(view: GameState, mine: Color | None, names: Any, reuse: Any) -> dict[str, Any]:
        renders.append((i18n.current(), mine))
        return game_payload(view, mine, names, reuse)

    monkeypatch.setattr("bot.web.server.game_payload", counted)
    grants = [
        signer.mint(gid, alice.id, Role.PLAY),
        signer.mint(gid, bob.id, Role.PLAY),
        *(signer.mint(gid, 900 + n, Role.WATCH) for n in range(5)),
        *(signer.mint(gid, 950 + n, Role.WATCH, language="ja") for n in range(3)),
    ]
    async with aiohttp.ClientSession() as http:
        pages = [await hello(http, web_bot, grant) for grant in grants]
        views = [PageView() for _ in pages]
        for view, (_, first) in zip(views, pages, strict=True):
            assert view.take(first) is not None
        # Opened: one render for each of the four kinds of page (Black's, White's, watchers'
        # in English and in Japanese), whoever opened first.
        assert sorted(renders, key=str) == sorted(
            [("en", Color.BLACK), ("en", Color.WHITE), ("en", None), ("ja", None)], key=str
        )
        # Asking again before any move reads nothing: the state the pages opened with.
        reads: list[int] = []
        service = web_bot.service
        read = service.game

        async def counted_read(game_id: int) -> GameState:
            reads.append(game_id)
            return await read(game_id)

        monkeypatch.setattr(service, "game", counted_read)
        watcher, _ = pages[3]
        for _ in range(2):  # within the pace (``WebBoard.resyncs``): answered at once
            await watcher.send_json({"type": "resync", "token": grants[3]})
            assert await watcher.receive_json(timeout=5) == views[3].state
        assert reads == []
        renders.clear()
        await fake.slash("place", user=alice, options={"cell": "h8"})
        sent = [await ws.receive_str(timeout=5) for ws, _ in pages]
        assert sorted(renders, key=str) == sorted(
            [("en", Color.BLACK), ("en", Color.WHITE), ("en", None), ("ja", None)], key=str
        )
        # Each kind's pages get the same delta.
        assert len(set(sent[2:7])) == 1
        assert len(set(sent[7:])) == 1
        assert len(set(sent)) == 4
        for view, text in zip(views, sent, strict=True):
            message = json.loads(text)
            assert message["type"] == "delta"
            state = view.take(message)
            assert state is not None
            assert state["moves"] == [[7, 7, 0]]
        # A page that asks again gets the whole state, as encoded once for its kind.
        renders.clear()
        ws, _ = pages[2]
        for _ in range(2):
            await ws.send_json({"type": "resync", "token": grants[2]})
            again = await ws.receive_json(timeout=5)
            assert again == views[2].state
        assert renders == []
        await fake.slash("place", user=bob, options={"cell": "h9"})
        follows = await ws.receive_json(timeout=5)
        assert follows["type"] == "delta"
        assert follows["base"] == again["version"]
        state = views[2].take(follows)
        assert state is not None
        assert state["moves"] == [[7, 7, 0], [7, 8, 1]]


async def test_a_flood_of_resyncs_costs_three_whole_states_and_the_last_is_answered(
    fake: FakeDiscord, web_bot: GomokuBot, signer: Signer, alice: FakeUser, bob: FakeUser
) -> None:
    game = await start_people_game(fake, web_bot, alice, bob)
    watch = signer.mint(game.game_id, 999, Role.WATCH)
    async with aiohttp.ClientSession() as http:
        ws, first = await hello(http, web_bot, watch)
        for _ in range(50):
            await ws.send_json({"type": "resync", "token": watch})
        # Two within the pace's burst, then one owed to the other 48, sent when the pace
        # allows (a second later): each the whole state.
        for _ in range(3):
            assert await ws.receive_json(timeout=5) == first
        # Nothing more is owed: the next thing the page hears answers its next message.
        await ws.send_json({"type": "nonsense", "token": watch})
        assert (await ws.receive_json(timeout=5))["type"] == "error"


async def test_a_resync_owed_beyond_the_pace_goes_whole_with_the_next_move(
    fake: FakeDiscord, web_bot: GomokuBot, signer: Signer, alice: FakeUser, bob: FakeUser
) -> None:
    game = await start_people_game(fake, web_bot, alice, bob)
    board = web_bot.web_board
    assert board is not None
    board.resyncs = MovePace(burst=1, rate=0.001)  # the next answer the pace allows: 1000 s
    watch = signer.mint(game.game_id, 999, Role.WATCH)
    other = signer.mint(game.game_id, 998, Role.WATCH)
    async with aiohttp.ClientSession() as http:
        ws, first = await hello(http, web_bot, watch)
        calm, _ = await hello(http, web_bot, other)
        await ws.send_json({"type": "resync", "token": watch})
        assert await ws.receive_json(timeout=5) == first
        await ws.send_json({"type": "resync", "token": watch})  # owed
        await ws.send_json({"type": "nonsense", "token": watch})
        assert (await ws.receive_json(timeout=5))["type"] == "error"  # not answered yet
        await fake.slash("place", user=alice, options={"cell": "h8"})
        owed = await ws.receive_json(timeout=5)
        assert owed["type"] == "state"
        assert owed["moves"] == [[7, 7, 0]]
        assert (await calm.receive_json(timeout=5))["type"] == "delta"  # the others, as ever
