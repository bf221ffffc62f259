"""The tests' own game (``tests.bot.four6``: four in a row on 6x6 with gravity) on the web
board, from its spec alone: started in Discord, played by taps in two real browsers and over
the socket, drawn from what the page is sent (its size, gravity and pieces)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from bot.client import GomokuBot
from bot.web.tokens import Role, Signer
from engine.types import Game
from storage.records import GameStatus, Player
from tests.bot import four6
from tests.bot.conftest import board_caught_up
from tests.fakediscord import FakeDiscord, FakeUser
from tests.web.test_board_browser import (
    DESKTOP,
    board_page,
    is_red,
    pixel,
    start_people_game,
    tap,
    wait_moves,
    wait_stored,
)
from tests.web.test_socket import hello

# Black drops in columns 1-4 and White on top of each: Black's bottom row wins.
WINNING_COLUMNS = (0, 0, 1, 1, 2, 2, 3)


@pytest.fixture(autouse=True)
def four_on_six() -> Iterator[Game]:
    """The test game, registered before the bot builds its commands (autouse: first)."""
    with four6.registered() as game:
        yield game


async def test_two_pages_play_it_to_a_win_by_tapping_its_columns(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob, game="four6")
    assert game.game is four6.FOUR6
    pages = [await board_page(browser, bot, fake, game, user, DESKTOP) for user in (alice, bob)]
    state = await pages[0].evaluate("window.gomoku.state()")
    assert (state["game"], state["width"], state["height"]) == ("four6", 6, 6)
    assert state["gravity"]
    assert not state["marks"]  # discs
    assert state["title"] == "Four on six"
    for n, column in enumerate(WINNING_COLUMNS):
        page = pages[n % 2]
        # A tap at the top of the column: the disc drops to its foot (or onto the last one).
        await tap(page, column, 5)
        await tap(page, column, 5)
        await wait_stored(bot, game.game_id, n + 1)
        for each in pages:
            await wait_moves(each, n + 1)
    view = await bot.service.game(game.game_id)
    assert view.status is GameStatus.FINISHED
    assert view.winner == Player.human(alice.id)
    assert [str(m.point) for m in view.board.moves] == ["a1", "a2", "b1", "b2", "c1", "c2", "d1"]
    for page in pages:
        await page.wait_for_function("window.gomoku.state().over")
        state = await page.evaluate("window.gomoku.state()")
        assert sorted(map(tuple, state["winning"])) == [(0, 0), (1, 0), (2, 0), (3, 0)]
        assert state["can_rematch"]
    # Drawn as discs in their cells: White's yellow disc on a2, the red line through b1.
    red, green, blue = await pixel(pages[0], 0, 1)
    assert min(red, green) > 150 > blue, (red, green, blue)
    assert is_red(await pixel(pages[0], 1, 0))
    await board_caught_up(fake, bot, game.game_id)  # the Discord board shows the win too


async def test_the_socket_takes_its_columns_and_refuses_what_it_cannot_take(
    fake: FakeDiscord, web_bot: GomokuBot, signer: Signer, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob, game="four6")
    gid = game.game_id
    alices = signer.mint(gid, alice.id, Role.PLAY)
    async with aiohttp.ClientSession() as http:
        ws, state = await hello(http, bot, alices)
        assert (state["width"], state["height"], state["gravity"]) == (6, 6, True)
        await ws.send_json({"type": "move", "token": alices, "column": 6})  # columns 0-5
        refused = await ws.receive_json(timeout=5)
        assert refused["type"] == "refused"
        assert refused["text"] == "That column is not available (choose 1-6)."
        await ws.send_json({"type": "move", "token": alices, "x": 4, "y": 4})  # not a column
        assert (await ws.receive_json(timeout=5))["type"] == "refused"
        await ws.send_json({"type": "move", "token": alices, "column": 5})
        moved = await ws.receive_json(timeout=5)
        assert moved["type"] == "delta"
        assert (moved["base"], moved["keep"], moved["add"]) == (state["version"], 0, [[5, 0, 0]])
    assert [str(m.point) for m in (await bot.service.game(gid)).board.moves] == ["f1"]
