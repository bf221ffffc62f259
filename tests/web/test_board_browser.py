"""The web board in a real browser, against the real bot on the fake Discord.

Links come from the **Open board** button on the Discord board message; moves are made by
tapping the canvas (twice: a ghost, then the stone) and checked in the game service, on the
fake Discord's board message and on a second browser that watches.
"""

from __future__ import annotations

import asyncio
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.client import GomokuBot
from bot.core.service.events import Event
from bot.core.service.states import GameState
from bot.web.tokens import Role, Signer
from engine.types import Point
from tests.bot.conftest import board_caught_up
from tests.fakediscord import FakeDiscord, FakeUser
from tests.web.conftest import WAIT_MS, base_url

# The README's and docs/web.md's pictures: `GOMOKU_SCREENSHOTS=docs/img pytest tests/web`
# writes them; otherwise the screenshots go to the test's temporary folder.
SCREENSHOTS = "GOMOKU_SCREENSHOTS"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


async def start_people_game(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser, **options: Any
) -> GameState:
    """Alice (Black) challenges Bob to a friendly game (no opening rule unless ``options``
    names one), Bob accepts; returns the active game."""
    start = await fake.slash(
        "gomoku start",
        user=alice,
        options={"opponent": bob, "colour": "black", "rated": False, **options},
    )
    assert start.message is not None
    game = await bot.service.board(fake.default_channel.id)
    await fake.click(start.message, f"gomoku:{game.game_id}:accept", user=bob)
    return await bot.service.game(game.game_id)


async def board_link(fake: FakeDiscord, game: GameState, user: FakeUser) -> str:
    """What **Open board** on the game's board message gives ``user``: the link's URL."""
    board = next(
        message
        for message in reversed(fake.channel_messages())
        if any(f"gomoku:{game.game_id}:web" in str(row) for row in message.components)
    )
    reply = await fake.click(board, f"gomoku:{game.game_id}:web", user=user)
    assert reply.message is not None
    assert reply.message.ephemeral
    urls = [
        item["url"]
        for row in reply.message.components
        for item in row["components"]
        if item.get("url")
    ]
    assert len(urls) == 1
    return str(urls[0])


async def open_page(browser: Any, bot: GomokuBot, link: str, viewport: dict[str, int]) -> Any:
    """A page at ``viewport`` showing ``link`` (its pass, on this bot's web board)."""
    fragment = link.split("#", 1)[1]
    page = await browser.new_page(viewport=viewport, device_scale_factor=2)
    await page.goto(f"{base_url(bot)}/#{fragment}")
    await page.wait_for_function("window.gomoku && window.gomoku.state() !== null")
    return page


async def board_page(
    browser: Any,
    bot: GomokuBot,
    fake: FakeDiscord,
    game: GameState,
    user: FakeUser,
    viewport: dict[str, int],
) -> Any:
    """A page at ``viewport`` showing ``game`` through ``user``'s **Open board** link."""
    return await open_page(browser, bot, await board_link(fake, game, user), viewport)


async def watched_people_game(
    fake: FakeDiscord, bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> tuple[GameState, Any, Any]:
    """Alice and Bob's game, Alice's page on a phone and Carol's watching page on a desktop."""
    carol = fake.add_user("carol")
    game = await start_people_game(fake, bot, alice, bob)
    player = await board_page(browser, bot, fake, game, alice, PHONE)
    watcher = await board_page(browser, bot, fake, game, carol, DESKTOP)
    return game, player, watcher


async def start_ai_game(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, **options: Any
) -> GameState:
    """Alice starts a game with the AI, playing Black; returns the channel's game."""
    await fake.slash("gomoku start", user=alice, options={"colour": "black", **options})
    return await bot.service.board(fake.default_channel.id)


async def tap(page: Any, x: int, y: int) -> None:
    """Tap point (x, y) of the canvas (y from the bottom, as the house counts)."""
    cx, cy = await page.evaluate("([x, y]) => window.gomoku.centre(x, y)", [x, y])
    position = {"x": cx, "y": cy}
    await page.locator("#board").click(position=position)


async def shown_moves(page: Any) -> int:
    return int(await page.evaluate("window.gomoku.state().moves.length"))


async def wait_moves(page: Any, count: int) -> None:
    await page.wait_for_function(f"window.gomoku.state().moves.length === {count}", timeout=WAIT_MS)


async def stored_moves(bot: GomokuBot, game_id: int) -> int:
    return len((await bot.service.game(game_id)).board.moves)


async def wait_stored(bot: GomokuBot, game_id: int, count: int) -> None:
    """Wait until the service has ``count`` moves of the game (each stored change wakes it)."""
    changed = asyncio.Event()

    def observe(event: Event) -> None:
        if event.game.game_id == game_id:
            changed.set()

    bot.service.subscribe(observe)
    try:
        async with asyncio.timeout(WAIT_MS / 1000):
            while await stored_moves(bot, game_id) != count:
                await changed.wait()
                changed.clear()
    finally:
        bot.service.unsubscribe(observe)


async def note(page: Any) -> str:
    return str(await page.locator("#note").text_content())


async def count_moves_sent(page: Any) -> None:
    """From now on, count the moves ``page`` sends over its socket (``moves_sent``): a tap that
    sends none can change nothing, however long one waits to see."""
    await page.evaluate(
        """() => {
            window.movesSent = 0;
            const send = WebSocket.prototype.send;
            WebSocket.prototype.send = function (data) {
                if (JSON.parse(data).type === "move") window.movesSent += 1;
                return send.call(this, data);
            };
        }"""
    )


async def moves_sent(page: Any) -> int:
    return int(await page.evaluate("window.movesSent"))


async def test_a_player_taps_twice_and_everyone_sees_the_move(
    fake: FakeDiscord,
    web_bot: GomokuBot,
    browser: Any,
    alice: FakeUser,
    bob: FakeUser,
    tmp_path: Path,
) -> None:
    bot = web_bot
    game, player, watcher = await watched_people_game(fake, bot, browser, alice, bob)
    assert await player.evaluate("window.gomoku.state().you") == 0
    assert await watcher.evaluate("window.gomoku.state().you") is None

    # The board fits the phone's width, drawn at the device's pixel ratio.
    box = await player.locator("#board").bounding_box()
    assert box["width"] <= PHONE["width"]
    assert box["width"] > 300
    pixels = await player.evaluate("document.getElementById('board').width")
    assert pixels == round(box["width"] * 2)

    # The first click only shows a ghost stone (a mouse needs no zoom), and sends nothing.
    await count_moves_sent(player)
    await tap(player, 7, 7)
    assert await note(player) == "h8 · Tap again to place."
    assert not await player.evaluate("window.gomoku.zoomed()")
    assert await moves_sent(player) == 0
    # The second tap on the same point plays it, as Alice, through the service.
    await tap(player, 7, 7)
    await wait_stored(bot, game.game_id, 1)
    assert await moves_sent(player) == 1
    stored = await bot.service.game(game.game_id)
    assert str(stored.board.moves[0].point) == "h8"
    # The Discord board message is redrawn, and the watcher sees the stone live.
    await board_caught_up(fake, bot, game.game_id)
    await wait_moves(watcher, 1)

    # A move made in Discord reaches both pages.
    await fake.slash("place", user=bob, options={"cell": "i9"})
    await wait_moves(player, 2)
    await wait_moves(watcher, 2)
    await tap(player, 8, 7)
    await tap(player, 8, 7)
    await wait_moves(watcher, 3)
    await fake.slash("place", user=bob, options={"cell": "h9"})
    await wait_moves(player, 4)
    # The moves as text, beside the board on a desktop.
    listed = await watcher.locator("#moves li").all_text_contents()
    assert listed == ["Black h8", "White i9", "Black i8", "White h9"]
    board_box = await watcher.locator("#board").bounding_box()
    panel_box = await watcher.locator("#panel").bounding_box()
    assert panel_box["x"] >= board_box["x"] + board_box["width"]

    folder = Path(os.environ.get(SCREENSHOTS) or tmp_path)  # an existing folder
    desktop = await watcher.screenshot(path=str(folder / "web-desktop.png"))
    assert desktop.startswith(b"\x89PNG")


async def test_refused_taps_change_nothing(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game, black, watcher = await watched_people_game(fake, bot, browser, alice, bob)
    white = await board_page(browser, bot, fake, game, bob, PHONE)

    for page in (white, watcher):
        await count_moves_sent(page)
    # Not Bob's turn: his first tap is refused at once, with whose turn it is, and no ghost.
    await tap(white, 3, 3)
    assert await note(white) == "Not your turn yet: alice to move."
    assert await white.locator("#turn").text_content() == "You play White. alice to move."
    # A watcher's tap is no move at all.
    await tap(watcher, 4, 4)
    await tap(watcher, 4, 4)
    assert await note(watcher) == "Watching: read-only."
    assert [await moves_sent(page) for page in (white, watcher)] == [0, 0]  # the pages refused
    assert await stored_moves(bot, game.game_id) == 0
    assert await shown_moves(black) == 0


async def test_a_gravity_game_drops_into_the_tapped_column_and_the_ai_answers(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser
) -> None:
    bot = web_bot
    game = await start_ai_game(fake, bot, alice, game="connect4")
    page = await board_page(browser, bot, fake, game, alice, DESKTOP)
    # A tap high up in column 3 drops to its foot.
    await tap(page, 2, 5)
    await tap(page, 2, 5)
    await wait_stored(bot, game.game_id, 2)  # the AI answered
    stored = await bot.service.game(game.game_id)
    assert (stored.board.moves[0].point.x, stored.board.moves[0].point.y) == (2, 0)
    await wait_moves(page, 2)
    await board_caught_up(fake, bot, game.game_id)


async def test_a_finished_game_replays_move_by_move(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser
) -> None:
    bot = web_bot
    game = await start_ai_game(fake, bot, alice)
    page = await board_page(browser, bot, fake, game, alice, PHONE)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    await wait_stored(bot, game.game_id, 2)  # and the AI's reply
    resign = await fake.slash("gomoku resign", user=alice)
    await fake.click(resign.message or 0, f"gomoku:{game.game_id}:resign", user=alice)
    await page.wait_for_function("window.gomoku.state().over === true", timeout=WAIT_MS)
    assert await page.locator("#replay").is_visible()
    assert await page.locator("#ply").text_content() == "Move 2 of 2"
    await page.locator("#first").click()
    assert await page.locator("#ply").text_content() == "Move 0 of 2"
    await page.locator("#next").click()
    assert await page.locator("#ply").text_content() == "Move 1 of 2"
    # a tap while replaying plays nothing (the game is over anyway)
    await tap(page, 3, 3)
    assert "Tap again" not in await note(page)


async def test_the_page_reconnects_by_itself_and_an_expired_link_says_so(
    fake: FakeDiscord,
    web_bot: GomokuBot,
    browser: Any,
    signer: Signer,
    alice: FakeUser,
    bob: FakeUser,
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob)
    page = await board_page(browser, bot, fake, game, alice, PHONE)
    # The server drops every socket (a restart, a proxy timing out), then a move is made: the
    # page comes back by itself and catches up.
    board = bot.web_board
    assert board is not None
    sockets = [socket for pages in board.hub._pages.values() for socket in pages]
    assert sockets
    for socket in sockets:
        await socket.ws.close()  # type: ignore[attr-defined]
    await fake.slash("place", user=alice, options={"cell": "h8"})
    await wait_moves(page, 1)
    await fake.slash("place", user=bob, options={"cell": "h9"})
    await wait_moves(page, 2)
    # An expired pass opens nothing and says why.
    old = signer.mint(game.game_id, alice.id, Role.PLAY, now=time.time() - 7 * 3600)
    expired = await browser.new_page(viewport=PHONE)
    await expired.goto(f"{base_url(bot)}/#{old}")
    await expired.wait_for_function("document.getElementById('note').textContent !== ''")
    assert await note(expired) == "This link has expired: press Open board again."
    assert await expired.evaluate("window.gomoku.state()") is None
    # and the pass is gone from the address bar
    assert "#" not in expired.url


async def pixel(page: Any, x: int, y: int) -> list[int]:
    """The canvas's colour (RGB) at the centre of point (x, y)."""
    return list(
        await page.evaluate(
            """([x, y]) => {
                const [cx, cy] = window.gomoku.centre(x, y);
                const canvas = document.getElementById('board');
                const scale = canvas.width / canvas.getBoundingClientRect().width;
                const data = canvas.getContext('2d')
                    .getImageData(Math.round(cx * scale), Math.round(cy * scale), 1, 1).data;
                return [data[0], data[1], data[2]];
            }""",
            [x, y],
        )
    )


def is_red(rgb: list[int]) -> bool:
    red, green, blue = rgb
    return red > 150 and green < 110 and blue < 110


async def test_renju_forbidden_points_and_the_winning_line_are_drawn(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob, rule="renju")
    channel = fake.default_channel.id
    for turn, cell in enumerate(["h8", "a1", "j8", "a3", "i7", "a5", "i9", "a7"]):
        user = alice if turn % 2 == 0 else bob
        await bot.service.place(channel, user.id, Point.parse(cell))
    page = await board_page(browser, bot, fake, game, alice, DESKTOP)
    assert is_red(await pixel(page, 8, 7))  # i8: Black's double three, crossed out
    assert not is_red(await pixel(page, 8, 8))  # i9: a black stone
    # A five by Black through i8's row, drawn as a red line over the stones.
    for cell, user in [("e1", alice), ("b1", bob), ("f1", alice), ("b2", bob), ("g1", alice)]:
        await bot.service.place(channel, user.id, Point.parse(cell))
    await bot.service.place(channel, bob.id, Point.parse("b3"))
    await bot.service.place(channel, alice.id, Point.parse("h1"))
    await bot.service.place(channel, bob.id, Point.parse("b4"))
    await bot.service.place(channel, alice.id, Point.parse("d1"))
    await page.wait_for_function("window.gomoku.state().over === true", timeout=WAIT_MS)
    assert is_red(await pixel(page, 5, 0))  # f1, inside d1-h1
    assert not is_red(await pixel(page, 8, 7))  # no forbidden points once it is over


async def phone_page(
    browser: Any, bot: GomokuBot, fake: FakeDiscord, game: GameState, user: FakeUser
) -> Any:
    """``user``'s board on a touch phone (390x844, a coarse pointer, taps as touches)."""
    link = await board_link(fake, game, user)
    page = await browser.new_page(
        viewport=PHONE, device_scale_factor=3, has_touch=True, is_mobile=True
    )
    await page.goto(f"{base_url(bot)}/#{link.split('#', 1)[1]}")
    await page.wait_for_function("window.gomoku && window.gomoku.state() !== null")
    return page


async def touch(page: Any, x: int, y: int) -> None:
    """A finger's tap on point (x, y) of the board as it is drawn now."""
    cx, cy = await page.evaluate("([x, y]) => window.gomoku.centre(x, y)", [x, y])
    box = await page.locator("#board").bounding_box()
    await page.touchscreen.tap(box["x"] + cx, box["y"] + cy)


async def test_a_phone_player_zooms_in_with_the_first_tap_and_plays_with_the_second(
    fake: FakeDiscord,
    web_bot: GomokuBot,
    browser: Any,
    alice: FakeUser,
    bob: FakeUser,
    tmp_path: Path,
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob)
    black = await phone_page(browser, bot, fake, game, alice)
    white = await phone_page(browser, bot, fake, game, bob)
    # Who plays what and whose turn it is, in words and drawn stones (no emoji font).
    assert await black.locator("#turn").text_content() == "You play Black. Your turn."
    assert await black.locator("#turn svg").count() == 1
    header = str(await black.locator("header").text_content())
    assert not set(header) & set("\u26ab\u26aa\U0001f534\U0001f7e1\u23ee\u23ed")
    assert await black.evaluate(
        "getComputedStyle(document.documentElement).webkitTapHighlightColor"
    ) in ("rgba(0, 0, 0, 0)", "transparent")

    # Not Bob's turn: his first tap is refused at once, and nothing zooms.
    await touch(white, 3, 3)
    assert await note(white) == "Not your turn yet: alice to move."
    assert not await white.evaluate("window.gomoku.zoomed()")

    # Alice's first tap zooms in around h8: every point there is a finger wide.
    whole = await black.evaluate("window.gomoku.cell()")
    assert whole < 44
    await touch(black, 7, 7)
    assert await black.evaluate("window.gomoku.zoomed()")
    assert await black.evaluate("window.gomoku.cell()") >= 44
    assert await note(black) == "h8 · Tap again to place."
    assert await black.locator("#whole").is_visible()
    # The faint stone's cross runs along its row, past the finger on it.
    assert is_red(await pixel_between(black, 7, 7, 9, 7))
    # A tap beside it moves the faint stone; a tap on it plays it.
    await touch(black, 8, 7)
    assert await note(black) == "i8 · Tap again to place."
    assert await stored_moves(bot, game.game_id) == 0
    folder = Path(os.environ.get(SCREENSHOTS) or tmp_path)
    await black.screenshot(path=str(folder / "web-phone-zoom.png"))
    await touch(black, 8, 7)
    await wait_stored(bot, game.game_id, 1)
    await black.wait_for_function(
        "!window.gomoku.zoomed() && window.gomoku.state().moves.length === 1"
    )
    assert str((await bot.service.game(game.game_id)).board.moves[0].point) == "i8"

    # Bob answers from Discord; the space under the board lists the moves and the players.
    await fake.slash("place", user=bob, options={"cell": "h9"})
    await wait_moves(black, 2)
    assert await black.locator("#turn").text_content() == "You play Black. Your turn."
    assert await black.locator("#moves li").all_text_contents() == ["Black i8", "White h9"]
    players = await black.locator("#players li").all_text_contents()
    assert players == ["Black: alice (you)", "White: bob"]
    board_box = await black.locator("#board").bounding_box()
    panel_box = await black.locator("#panel").bounding_box()
    assert panel_box["y"] >= board_box["y"] + board_box["height"]
    assert panel_box["y"] < PHONE["height"]  # on the first screen
    # Every button is a finger wide.
    for box in [await b.bounding_box() for b in await black.locator("button").all()]:
        if box is not None:  # (hidden ones have none)
            assert min(box["width"], box["height"]) >= 44
    phone = await black.screenshot(path=str(folder / "web-phone.png"))
    assert phone.startswith(b"\x89PNG")


async def pixel_between(page: Any, x1: int, y1: int, x2: int, y2: int) -> list[int]:
    """The canvas's colour (RGB) halfway between the centres of two points."""
    return list(
        await page.evaluate(
            """([x1, y1, x2, y2]) => {
                const [ax, ay] = window.gomoku.centre(x1, y1);
                const [bx, by] = window.gomoku.centre(x2, y2);
                const canvas = document.getElementById('board');
                const scale = canvas.width / canvas.getBoundingClientRect().width;
                const data = canvas.getContext('2d').getImageData(
                    Math.round((ax + bx) / 2 * scale), Math.round((ay + by) / 2 * scale), 1, 1
                ).data;
                return [data[0], data[1], data[2]];
            }""",
            [x1, y1, x2, y2],
        )
    )


async def test_swap2_choices_and_resigning_are_made_on_the_page(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob, opening="swap2")
    first = await board_page(browser, bot, fake, game, alice, DESKTOP)
    second = await board_page(browser, bot, fake, game, bob, DESKTOP)
    for x, y in [(7, 7), (8, 8), (9, 6)]:  # h8 i9 j7: Alice's three opening stones
        await tap(first, x, y)
        await tap(first, x, y)
    await wait_moves(second, 3)
    # Bob's turn to choose: swap2's three options, as buttons on his page only.
    buttons = second.locator("#actions button")
    await second.wait_for_function("window.gomoku.state().choices.length === 3")
    assert await buttons.all_text_contents() == [
        "Take Black", "Take White", "Place two more", "Resign"
    ]  # fmt: skip
    assert await first.locator("#actions button").all_text_contents() == ["Resign"]
    await second.get_by_role("button", name="Place two more").click()
    await second.wait_for_function("window.gomoku.state().choices.length === 0")
    for x, y in [(6, 8), (10, 8)]:  # g9 k9
        await tap(second, x, y)
        await tap(second, x, y)
    await first.wait_for_function("window.gomoku.state().choices.length === 2", timeout=WAIT_MS)
    await first.get_by_role("button", name="Take White").click()
    await first.wait_for_function("window.gomoku.state().you === 1", timeout=WAIT_MS)
    view = await bot.service.game(game.game_id)
    assert not view.in_opening
    assert (view.black.user_id, view.white.user_id) == (bob.id, alice.id)
    await board_caught_up(fake, bot, game.game_id)

    # Resigning asks once, then ends the game; Discord's board shows the result.
    await first.locator("#resign").click()
    assert await note(first) == "Resign this game? Your opponent wins."
    assert (await bot.service.game(game.game_id)).outcome is None
    await first.locator("#resign").click()
    await second.wait_for_function("window.gomoku.state().over === true", timeout=WAIT_MS)
    view = await bot.service.game(game.game_id)
    assert view.outcome is not None
    assert view.outcome.winner is not None
    assert view.outcome.winner.name == "BLACK"  # Bob, who took Black
    await board_caught_up(fake, bot, game.game_id)
    # Only what comes after a game is left.
    assert await second.locator("#actions button").all_text_contents() == [
        "Rematch",
        "Play the AI",
    ]


async def test_a_take_back_is_asked_and_answered_on_the_pages(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob)
    asker = await board_page(browser, bot, fake, game, alice, DESKTOP)
    answerer = await board_page(browser, bot, fake, game, bob, PHONE)
    assert await asker.locator("#undo").count() == 0  # nothing of hers to take back
    await tap(asker, 7, 7)
    await tap(asker, 7, 7)
    await wait_moves(answerer, 1)
    await fake.slash("place", user=bob, options={"cell": "i9"})
    await wait_moves(asker, 2)

    await asker.locator("#undo").click()
    await asker.wait_for_function("document.getElementById('note').textContent !== ''")
    assert await note(asker) == "Waiting for bob to agree."
    await answerer.wait_for_function(
        "document.getElementById('note').textContent.includes('take back')", timeout=WAIT_MS
    )
    assert await note(answerer) == "alice asks to take back their last move."
    # Discord asks too, with its buttons, mentioning Bob.
    await fake.wait_for(
        lambda: any("asks to take back" in m.content for m in fake.channel_messages())
    )
    await answerer.get_by_role("button", name="Allow").click()
    await wait_stored(bot, game.game_id, 0)  # her move and his reply
    await wait_moves(asker, 0)
    await board_caught_up(fake, bot, game.game_id)

    # Asked again and refused: she hears so; the moves stay; Discord's request says so and
    # loses its buttons.
    await tap(asker, 7, 7)
    await tap(asker, 7, 7)
    await wait_stored(bot, game.game_id, 1)
    await answerer.wait_for_function("window.gomoku.state().moves.length === 1")
    await asker.locator("#undo").click()
    await fake.wait_for(lambda: len(undo_messages(fake)) == 2)
    request = undo_messages(fake)[-1]
    assert f"gomoku:{game.game_id}:undo:no" in request.custom_ids()
    await answerer.get_by_role("button", name="Refuse").click()
    await said(asker, "bob refused the takeback.")
    await said(answerer, "Undo refused.")
    assert await answerer.get_by_role("button", name="Allow").count() == 0
    assert await stored_moves(bot, game.game_id) == 1
    await fake.wait_for(lambda: request.buttons() == [])
    assert request.content == f"<@{bob.id}> refused to let <@{alice.id}> take back their last move."

    # Asked in Discord: her page asks her too; refused in Discord, her page's Allow and
    # Refuse go, and both pages say the answer.
    await fake.slash("place", user=bob, options={"cell": "i9"})
    await wait_moves(asker, 2)
    asked = await fake.slash("gomoku undo", user=bob)
    assert asked.message is not None
    await said(asker, "bob asks to take back their last move.")
    assert await asker.get_by_role("button", name="Refuse").count() == 1
    await fake.click(asked.message, f"gomoku:{game.game_id}:undo:no", user=alice)
    await said(asker, "Undo refused.")
    await said(answerer, "alice refused the takeback.")
    assert await asker.get_by_role("button", name="Allow").count() == 0
    assert await asker.get_by_role("button", name="Refuse").count() == 0
    assert await stored_moves(bot, game.game_id) == 2

    # Asked in Discord again: her Allow on the page redraws Discord's board, and the
    # request there says she allowed it.
    asked = await fake.slash("gomoku undo", user=bob)
    assert asked.message is not None
    request = asked.message
    await said(asker, "bob asks to take back their last move.")
    await asker.get_by_role("button", name="Allow").click()
    await wait_stored(bot, game.game_id, 1)
    await wait_moves(answerer, 1)
    await said(answerer, "alice allowed the takeback.")
    await board_caught_up(fake, bot, game.game_id)
    await fake.wait_for(lambda: request.buttons() == [])
    assert request.content == f"<@{alice.id}> allowed <@{bob.id}> to take back their last move."


def undo_messages(fake: FakeDiscord) -> list[Any]:
    """Discord's undo requests, oldest first (answered ones too)."""
    return [m for m in fake.channel_messages() if "take back their last move" in m.content]


async def said(page: Any, text: str) -> None:
    """Wait until the page's note (a live region) says ``text``."""
    await page.wait_for_function(
        "text => document.getElementById('note').textContent === text", arg=text, timeout=WAIT_MS
    )


async def game_shown(page: Any) -> int:
    return int(await page.evaluate("window.gomoku.state().game_id"))


async def test_a_finished_page_starts_a_rematch_and_a_game_against_the_ai(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob)
    page = await board_page(browser, bot, fake, game, alice, DESKTOP)
    assert await page.locator("#rematch").count() == 0  # not while it lasts
    await page.locator("#resign").click()
    await page.locator("#resign").click()
    await page.wait_for_function("window.gomoku.state().over === true", timeout=WAIT_MS)
    # Between people: Rematch (a challenge) or Play the AI.
    assert await page.locator("#actions button").all_text_contents() == [
        "Rematch",
        "Play the AI",
    ]
    await page.locator("#play-ai").click()
    await page.wait_for_function(
        f"window.gomoku.state() && window.gomoku.state().game_id !== {game.game_id}",
        timeout=WAIT_MS,
    )
    ai_game = await bot.service.game(await game_shown(page))
    assert ai_game.status.value == "active"
    assert ai_game.black.is_ai or ai_game.white.is_ai
    assert alice.id in ai_game.humans
    assert ai_game.channel_id == game.channel_id
    await board_caught_up(fake, bot, ai_game.game_id)  # Discord shows the new board
    # The new pass plays: a move on the page, and the AI answers.
    if not await page.evaluate("window.gomoku.state().your_turn"):
        await wait_stored(bot, ai_game.game_id, 1)
        await page.wait_for_function("window.gomoku.state().your_turn", timeout=WAIT_MS)
    before = await stored_moves(bot, ai_game.game_id)
    free = (0, 0) if before else (7, 7)
    await tap(page, *free)
    await tap(page, *free)
    await wait_stored(bot, ai_game.game_id, before + 2)
    # Against the AI: Play again.
    await page.locator("#resign").click()
    await page.locator("#resign").click()
    await page.wait_for_function("window.gomoku.state().over === true", timeout=WAIT_MS)
    assert await page.locator("#actions button").all_text_contents() == ["Play again"]
    await page.locator("#rematch").click()
    await page.wait_for_function(
        f"window.gomoku.state() && window.gomoku.state().game_id > {ai_game.game_id}",
        timeout=WAIT_MS,
    )
    again = await bot.service.game(await game_shown(page))
    assert again.status.value == "active"
    await board_caught_up(fake, bot, again.game_id)


async def test_a_hint_becomes_the_faint_stone_and_the_clock_counts_down(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 5})
    game = await start_people_game(fake, bot, alice, bob)  # friendly: hints allowed
    page = await board_page(browser, bot, fake, game, alice, DESKTOP)
    deadline = await page.evaluate("window.gomoku.state().deadline")
    assert deadline is not None
    # The page's clock 90 s before Alice's time runs out: her row says so.
    await page.clock.set_fixed_time(datetime.fromtimestamp(deadline - 90, UTC))
    await page.wait_for_function(
        "document.querySelector('#players .moving .clock')?.textContent === '1:30 left'"
    )
    await page.locator("#hint").click()
    await page.wait_for_function("document.getElementById('note').textContent !== ''")
    suggested = await note(page)
    assert suggested.startswith("The AI suggests ")
    point = Point.parse(suggested.removeprefix("The AI suggests ").rstrip("."))
    assert await stored_moves(bot, game.game_id) == 0
    # One tap on the suggestion plays it.
    await tap(page, point.x, point.y)
    await wait_stored(bot, game.game_id, 1)
    assert (await bot.service.game(game.game_id)).board.moves[0].point == point
    await wait_moves(page, 1)
    assert await page.locator("#hint").count() == 0  # Bob's turn now
