"""A tournament's standings on the web board: the link under the standings posted in Discord
opens a page of its own (a real table, the round's boards with links to watch them), readable
on a phone and a desktop, with no WCAG 2.1 AA violation; a forged or expired link shows
nothing of the tournament."""

from __future__ import annotations

import functools
import os
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from bot.client import GomokuBot
from bot.core.club.arena import arena_standings
from bot.core.club.card import Player
from bot.web.standings import render_standings
from bot.web.tokens import Role, Signer
from engine.types import Game, Rule
from storage.club import Format, Pairing, Result, Tournament, TournamentStatus
from tests.bot.conftest import bot, make_bot
from tests.bot.test_discord_tournaments import _board_threads, _boards_open, _play, _posted, start
from tests.clock import START
from tests.fakediscord import FakeDiscord, FakeUser
from tests.fakediscord.model import Message
from tests.web.conftest import base_url
from tests.web.test_board_access import violations
from tests.web.test_board_browser import DESKTOP, PHONE, SCREENSHOTS

__all__ = ["bot", "make_bot"]

_HEADING = "**Spring Open**: standings after round 1"


def _link(message: Message) -> str:
    """The URL of the one link button under ``message``."""
    urls = [button["url"] for button in message.buttons() if button.get("url")]
    assert len(urls) == 1, message.components
    return str(urls[0])


async def _round_one_played(fake: FakeDiscord, bot: GomokuBot) -> tuple[Message, dict[str, int]]:
    """A round-robin of four created, joined and started in Discord, its first round played
    (Black wins both boards); the standings posted after it, and the members' ids by name."""
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    organiser = fake.add_user("olga", admin=True)
    players = {name: fake.add_user(name) for name in ("ann", "ben", "cat", "dan")}
    by_id: dict[int, FakeUser] = {user.id: user for user in players.values()}
    created = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Spring Open", "format": "round_robin", "seconds": 600},
    )
    assert created.message is not None
    for user in players.values():
        await fake.click(created.message, "gomoku:tournament:1:join", user=user)
    await start(fake, organiser)
    await fake.wait_for(functools.partial(_boards_open, fake, 1))
    for thread in _board_threads(fake, 1):
        game = await bot.service.board(thread.id)
        assert game.black.user_id is not None
        assert game.white.user_id is not None
        black, white = by_id[game.black.user_id], by_id[game.white.user_id]
        await _play(fake, thread, black, white, black)
    await fake.wait_for(lambda: len(_posted(fake, general, _HEADING)) == 1)
    await fake.wait_for(functools.partial(_boards_open, fake, 2))
    await bot.service.tournaments_settled()  # round 2's boards linked to their games
    (posted,) = _posted(fake, general, _HEADING)
    return posted, {name: user.id for name, user in players.items()}


async def _rows(page: Any, selector: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in await row.locator("th, td").all_text_contents()]
        for row in await page.locator(selector).all()
    ]


async def test_the_posted_standings_link_to_a_page_of_their_own(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, signer: Signer, tmp_path: Path
) -> None:
    bot = web_bot
    posted, ids = await _round_one_played(fake, bot)
    link = _link(posted)
    path = urlsplit(link).path
    assert path.startswith("/t/t1.1.")
    names = {user_id: name for name, user_id in ids.items()}
    table = await bot.service.tournament_standings(1)
    pairings = [p for p in await bot.service.repository.pairings(1) if p.round == 2]
    assert len(pairings) == 2
    assert all(p.game_id is not None and p.result is None for p in pairings)

    pages = {}
    for label, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        page = await browser.new_page(viewport=viewport, device_scale_factor=2)
        response = await page.goto(f"{base_url(bot)}{path}")
        assert response is not None
        assert response.status == 200
        pages[label] = page
        assert await page.title() == "Spring Open: standings"
        assert await page.locator("h1").text_content() == "Spring Open: standings"
        assert await page.locator(".meta").text_content() == (
            "Format: round-robin · 600 s per move · Round 2 of 3"
        )
        # The table: headers as the service's tiebreaks for a round-robin, one row a player,
        # the two winners of round 1 on 1 point, the others on 0.
        headers = await page.locator("#standings + .scroll thead th").all_text_contents()
        assert headers == ["Rank", "Player", "Points", "DE", "SB", "Wins", "Played"]
        rows = await _rows(page, "#standings + .scroll tbody tr")
        assert rows == [
            [
                str(line.rank),
                names[line.user_id],
                str(int(line.points)),
                *(str(int(t)) for t in line.tiebreaks),
                str(line.played),
            ]
            for line in table
        ]
        assert sorted(row[2] for row in rows) == ["0", "0", "1", "1"]
        assert [row[6] for row in rows] == ["1", "1", "1", "1"]
        # Round 2's boards, each with a link to watch its game.
        assert await page.locator("#pairings").text_content() == "Pairings of round 2"
        boards = await _rows(page, "#pairings + .scroll tbody tr")
        assert boards == [
            [str(p.board), names[p.black], names[p.white or 0], f"Watch board {p.board}"]
            for p in sorted(pairings, key=lambda p: p.board)
        ]
        # Nothing wider than the screen: the page never scrolls sideways.
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"]

    # A watch link opens the game read-only on the board page.
    phone = pages["phone"]
    first = min(pairings, key=lambda p: p.board)
    await phone.get_by_role("link", name=f"Watch board {first.board}").click()
    await phone.wait_for_function("window.gomoku && window.gomoku.state() !== null")
    state = await phone.evaluate("window.gomoku.state()")
    assert state["game_id"] == first.game_id
    assert await phone.locator("#note").text_content() == "Watching: read-only."

    # Forged, expired, a game's pass in place of a standings pass: a short page, no data.
    forged = path[:-2] + ("AA" if not path.endswith("AA") else "BB")
    expired = "/t/" + signer.mint_standings(1, now=time.time() - 61 * 86400)
    game_pass = "/t/" + signer.mint(first.game_id or 0, ids["ann"], Role.WATCH)
    async with aiohttp.ClientSession() as http:
        for bad in (forged, expired, game_pass, "/t/t1.1"):
            async with http.get(f"{base_url(bot)}{bad}") as reply:
                text = await reply.text()
                assert reply.status == 404
                assert "This link is not valid or has expired" in text
                assert "Spring Open" not in text
                assert "ann" not in text
    invalid = await browser.new_page(viewport=PHONE)
    await invalid.goto(f"{base_url(bot)}{forged}")
    pages["invalid"] = invalid

    found = {name: await violations(page) for name, page in pages.items() if name != "phone"}
    back = await browser.new_page(viewport=PHONE)
    await back.goto(f"{base_url(bot)}{path}")
    found["phone"] = await violations(back)
    assert found == {name: [] for name in found}

    folder = Path(os.environ.get(SCREENSHOTS) or tmp_path)  # an existing folder
    shot = await pages["desktop"].screenshot(path=str(folder / "web-standings.png"))
    assert shot.startswith(b"\x89PNG")


async def test_the_page_speaks_the_language_of_its_link(
    fake: FakeDiscord, web_bot: GomokuBot, signer: Signer
) -> None:
    bot = web_bot
    organiser = fake.add_user("olga", admin=True)
    await bot.service.create_tournament(
        guild_id=fake.guild_id,
        channel_id=fake.default_channel.id,
        user_id=organiser.id,
        name="Winter <b>Cup</b>",
        format=Format.SWISS,
        game=Game.GOMOKU,
        rule=Rule.FREESTYLE,
        rounds=3,
        seconds_per_move=600,
        player_cap=None,
    )
    async with aiohttp.ClientSession() as http:
        url = f"{base_url(bot)}/t/{signer.mint_standings(1, language='ja')}"
        async with http.get(url) as reply:
            assert reply.status == 200
            text = await reply.text()
    assert '<html lang="ja">' in text
    # Not started, no players yet: said in Japanese; the name is text, never markup.
    assert "Winter &lt;b&gt;Cup&lt;/b&gt;" in text
    assert "<b>Cup" not in text
    assert "<table" not in text
    from bot.text import i18n
    from bot.text.web_words import standings_words

    with i18n.using("ja"):
        words = standings_words()
    assert words["not_started"] in text
    assert words["no_players"] in text
    assert words["no_players"] != "No players yet."
    # Cancelled by its organiser: the page says so.
    await bot.service.repository.set_tournament_status(
        1, TournamentStatus.OPEN, TournamentStatus.CANCELLED
    )
    async with aiohttp.ClientSession() as http, http.get(url) as reply:
        assert words["cancelled"] in await reply.text()


@pytest.mark.parametrize("junk", ["", "t1", "t1.x", "t1.1.9999999999.en." + "A" * 43])
async def test_junk_after_t_is_a_short_404(web_bot: GomokuBot, junk: str) -> None:
    url = f"{base_url(web_bot)}/t/{junk}"
    async with aiohttp.ClientSession() as http, http.get(url) as reply:
        assert reply.status == 404
        assert "Traceback" not in await reply.text()


async def test_without_the_web_board_the_standings_carry_no_link(
    fake: FakeDiscord, bot: GomokuBot
) -> None:
    posted, _ids = await _round_one_played(fake, bot)
    assert bot.web_board is None
    assert posted.buttons() == []


def test_an_arena_page_says_when_it_ends_and_lists_its_games_in_play_by_number() -> None:
    arena = Tournament(
        3, 1, 2, "Blitz", Format.ARENA, "gomoku", "freestyle", 0, 300, None, None, 30,
        TournamentStatus.RUNNING, 1, START,
    )  # fmt: skip
    # Passes as stored: pass 1 played (game 1); pass 2's two games (2, 3) and pass 3's (4)
    # under way.
    pairings = [
        Pairing(3, 1, 1, 1, 2, Result.BLACK_WINS, 10),
        Pairing(3, 2, 1, 3, 4, None, 11),
        Pairing(3, 2, 2, 5, 6, None, 12),
        Pairing(3, 3, 1, 2, 1, None, 13),
    ]
    table = arena_standings([Player(u, 1500, u) for u in range(1, 7)], pairings)
    names = {u: name for u, name in enumerate(("ann", "ben", "cat", "dan", "eve", "fay"), 1)}
    watch = {(2, 1): "/#w2", (2, 2): "/#w3", (3, 1): "/#w4"}
    ends = datetime(2026, 5, 1, 19, 30, tzinfo=UTC)
    page = render_standings(arena, table, pairings, names, watch, "en", ends)
    assert "Format: arena · 300 s per move · Ends 2026-05-01 19:30 UTC" in page
    assert '<h2 id="pairings">Games in play</h2>' in page
    rows = re.findall(r"<tr><td>(\d+)</td><td>(\w+)</td><td>(\w+)</td><td>(.*?)</td></tr>", page)
    assert rows == [
        ("2", "cat", "dan", '<a href="/#w2">Watch game 2</a>'),
        ("3", "eve", "fay", '<a href="/#w3">Watch game 3</a>'),
        ("4", "ben", "ann", '<a href="/#w4">Watch game 4</a>'),
    ]
    assert "round" not in page.lower()
    assert "board" not in page.lower()
