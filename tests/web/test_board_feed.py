"""The page's script applies deltas as the server means them, and asks again on a gap.

The script's own ``applyDelta`` (through ``window.gomoku.apply``) folds the messages each
page of random games is sent (``tests.web.test_feed``) and must hold the whole state of every
version; a live page handed a delta that does not follow its version asks for the whole
state, and plays on.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from bot.client import GomokuBot
from engine.types import Game, Rule
from tests.fakediscord import FakeDiscord, FakeUser
from tests.web.conftest import base_url
from tests.web.test_board_browser import DESKTOP, board_link, start_people_game, wait_moves
from tests.web.test_feed import SETUPS, Transcript, random_game, replay

# Folds each page's messages with the page's own applyDelta; what the page holds after each.
FOLD = """pages => pages.map(messages => {
    let game = null;
    return messages.map(message => {
        if (message.type === "delta") {
            game = window.gomoku.apply(game, message);
        } else {
            game = message;
        }
        return game;
    });
})"""


async def test_the_pages_script_applies_deltas_into_every_versions_whole_state(
    web_bot: GomokuBot, browser: Any
) -> None:
    transcript: Transcript = []
    rng = random.Random(11)
    for setup in SETUPS:
        for _ in range(3):
            steps = [rng.randrange(20 * 10_000) for _ in range(rng.randrange(5, 60))]
            await replay(await random_game(setup, steps), random.Random(rng.random()), transcript)
    # a long game, every state sent, and a takeback
    steps = [20 * n for n in range(40)] + [16, 17 + 20 * 2, 20 * 77]
    await replay(await random_game((Game.GOMOKU, Rule.FREESTYLE, None), steps), None, transcript)
    page = await browser.new_page(viewport=DESKTOP)
    await page.goto(f"{base_url(web_bot)}/")
    await page.wait_for_function("window.gomoku !== undefined")
    sent = [[message for message, _ in messages] for messages in transcript]
    held = await page.evaluate(FOLD, sent)
    expected = [[state for _, state in messages] for messages in transcript]
    assert held == expected
    deltas = sum(message["type"] == "delta" for messages in sent for message in messages)
    assert deltas > len(sent) * 5  # most of what pages are sent is deltas


async def test_a_delta_that_does_not_follow_makes_the_page_ask_again(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    link = await board_link(fake, game, bob)
    asked = asyncio.Event()
    sent_again = asyncio.Event()
    received: list[dict[str, Any]] = []

    def on_receive(frame: str) -> None:
        message = json.loads(frame)
        received.append(message)
        if message["type"] == "state" and asked.is_set():
            sent_again.set()

    def on_socket(ws: Any) -> None:
        ws.on("framesent", lambda frame: asked.set() if '"resync"' in frame else None)
        ws.on("framereceived", on_receive)

    page = await browser.new_page(viewport=DESKTOP)
    page.on("websocket", on_socket)
    await page.goto(f"{base_url(bot)}/#{link.split('#', 1)[1]}")
    await page.wait_for_function("window.gomoku && window.gomoku.state() !== null")
    await wait_moves(page, 1)
    before = await page.evaluate("window.gomoku.state()")
    assert not asked.is_set()
    # Versions 7 and 8 ahead: the page missed something and asks for the whole state.
    version = before["version"]
    gap = {"type": "delta", "base": version + 7, "version": version + 8, "keep": 0}
    await page.evaluate("m => window.gomoku.receive(m)", {**gap, "add": [], "set": {}})
    async with asyncio.timeout(5):
        await asked.wait()
        await sent_again.wait()
    assert received[-1] == before
    assert await page.evaluate("window.gomoku.state()") == before
    # and plays on: the next move arrives as a delta on the state sent again
    await fake.slash("place", user=bob, options={"cell": "h9"})
    await wait_moves(page, 2)
    assert received[-1]["type"] == "delta"
    assert received[-1]["base"] == version
