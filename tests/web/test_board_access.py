"""The web board without sight: a whole game played from the keyboard, its moves read from
the live region, and axe-core over every page (play, watch, replay, the errors) at WCAG 2.1
AA: no violation."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.client import GomokuBot
from bot.web.tokens import Role, Signer
from tests.fakediscord import FakeDiscord, FakeUser
from tests.web.conftest import WAIT_MS, base_url
from tests.web.test_board_browser import (
    DESKTOP,
    PHONE,
    board_page,
    note,
    phone_page,
    start_people_game,
    wait_moves,
)

WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


async def focus_board(page: Any) -> None:
    """Tab from the top of the page to the board, as a keyboard user does."""
    await page.keyboard.press("Tab")
    assert await page.evaluate("document.activeElement.id") == "board"


async def key_move(page: Any, x: int, y: int) -> None:
    """Walk the cursor to (x, y) with the arrow keys and press Enter."""
    cx, cy = await page.evaluate("window.gomoku.cursor()")
    for _ in range(abs(x - cx)):
        await page.keyboard.press("ArrowRight" if x > cx else "ArrowLeft")
    for _ in range(abs(y - cy)):
        await page.keyboard.press("ArrowUp" if y > cy else "ArrowDown")
    assert await page.evaluate("window.gomoku.cursor()") == [x, y]
    await page.keyboard.press("Enter")


async def heard(page: Any, text: str) -> None:
    """Wait until the live region of moves says ``text``."""
    await page.wait_for_function(
        "text => document.getElementById('announce').textContent === text",
        arg=text,
        timeout=WAIT_MS,
    )


async def test_a_whole_game_is_played_from_the_keyboard_and_heard(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser, bob: FakeUser
) -> None:
    bot = web_bot
    game = await start_people_game(fake, bot, alice, bob)
    black = await board_page(browser, bot, fake, game, alice, DESKTOP)
    white = await board_page(browser, bot, fake, game, bob, DESKTOP)
    await focus_board(black)
    await focus_board(white)
    # The cursor starts in the middle and reads out its point.
    assert await black.evaluate("window.gomoku.cursor()") == [7, 7]
    assert await black.locator("#cursor").text_content() == "h8, empty. Nothing around."
    # Enter out of turn is refused at once.
    await white.keyboard.press("Enter")
    assert await note(white) == "Not your turn yet: alice to move."

    blacks = [(7, 7), (8, 7), (9, 7), (10, 7), (11, 7)]  # h8 … l8: five in a row
    whites = [(7, 9), (8, 9), (9, 9), (10, 9)]
    heard_moves = []
    for turn in range(9):
        page, colour = (black, "Black") if turn % 2 == 0 else (white, "White")
        x, y = (blacks if turn % 2 == 0 else whites)[turn // 2]
        if turn == 2:
            # i8 beside h8: the cursor reads out the point and the stones around it.
            await page.keyboard.press("ArrowRight")
            assert await page.locator("#cursor").text_content() == "i8, empty. Around: h8 Black."
        await key_move(page, x, y)
        said = f"{colour} played {chr(97 + x)}{y + 1}."
        await heard(black, said)
        await heard(white, said)
        heard_moves.append(said)
    assert heard_moves[-1] == "Black played l8."
    await black.wait_for_function("window.gomoku.state().over === true", timeout=WAIT_MS)
    stored = await bot.service.game(game.game_id)
    assert [str(m.point) for m in stored.board.moves] == [
        "h8", "h10", "i8", "i10", "j8", "j10", "k8", "k10", "l8"
    ]  # fmt: skip
    assert stored.outcome is not None
    listed = await white.locator("#moves li").all_text_contents()
    assert listed[0] == "Black h8"
    assert listed[-1] == "Black l8"
    assert len(listed) == 9


async def violations(page: Any) -> list[str]:
    """axe-core's WCAG 2.1 A and AA violations on ``page``: rule, and where."""
    from axe_playwright_python.async_playwright import Axe

    results = await Axe().run(
        page,
        options={"runOnly": {"type": "tag", "values": WCAG_21_AA}, "resultTypes": ["violations"]},
    )
    return [
        f"{v['id']}: {node['target']}"
        for v in results.response["violations"]
        for node in v["nodes"]
    ]


@pytest.mark.slow
async def test_every_page_has_no_wcag_21_aa_violation(
    fake: FakeDiscord,
    web_bot: GomokuBot,
    browser: Any,
    signer: Signer,
    alice: FakeUser,
    bob: FakeUser,
) -> None:
    bot = web_bot
    carol = fake.add_user("carol")
    game = await start_people_game(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    play = await phone_page(browser, bot, fake, game, alice)
    watch = await board_page(browser, bot, fake, game, carol, DESKTOP)
    await wait_moves(play, 1)
    await focus_board(watch)  # the cursor's read-out is in the page too
    pages = {"play (phone)": play, "watch (desktop)": watch}

    resign = await fake.slash("gomoku resign", user=alice)
    await fake.click(resign.message or 0, f"gomoku:{game.game_id}:resign", user=alice)
    await play.wait_for_function("window.gomoku.state().over === true", timeout=WAIT_MS)
    replay = await board_page(browser, bot, fake, game, alice, PHONE)
    await replay.locator("#back").click()
    pages["replay"] = replay

    old = signer.mint(game.game_id, alice.id, Role.PLAY, now=time.time() - 7 * 3600)
    genuine = signer.mint(game.game_id, alice.id, Role.PLAY)
    # One character of the signature changed, never to itself (a tail replaced by "AA" is the
    # genuine pass again when the tail was "AA").
    forged = genuine[:-1] + ("B" if genuine[-1] == "A" else "A")
    assert forged != genuine
    for name, fragment in [("expired", f"#{old}"), ("invalid", f"#{forged}"), ("no pass", "")]:
        page = await browser.new_page(viewport=PHONE)
        await page.goto(f"{base_url(bot)}/{fragment}")
        await page.wait_for_function(
            "document.getElementById('note').textContent !== ''", timeout=WAIT_MS
        )
        pages[name] = page
    assert "press Open board again" in await note(pages["invalid"])

    found = {name: await violations(page) for name, page in pages.items()}
    assert found == {name: [] for name in pages}
    # axe did look: a button without a name on the same page is one violation.
    await play.evaluate("document.body.appendChild(document.createElement('button'))")
    assert len(await violations(play)) == 1
