"""The board as a Discord Activity: a parent page plays the Discord client's side of the
Embedded App SDK (its postMessage RPC: the handshake, READY, AUTHORIZE, AUTHENTICATE), the
page exchanges the code through the bot's ``/api/token`` against the fake Discord's OAuth2,
gets a pass for the channel's game from the Activity instance, and plays a move.

The SDK's bundle is built by ``make web`` (esbuild from npm); without it these tests skip.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from bot.client import GomokuBot
from bot.core.service.states import GameState
from bot.web.server import STATIC
from tests.fakediscord import FakeDiscord, FakeUser
from tests.web.conftest import WAIT_MS, base_url
from tests.web.test_board_browser import (
    start_ai_game,
    stored_moves,
    tap,
    wait_moves,
    wait_stored,
)

pytestmark = pytest.mark.skipif(
    not (STATIC / "dist" / "activity.js").exists(),
    reason="the Activity bundle is not built (make web: needs npm)",
)

# The Discord client's half of the SDK's RPC, as the client speaks it to the Activity's
# iframe: opcodes 0 HANDSHAKE and 1 FRAME; replies carry the command's nonce.
_PARENT = """<!doctype html>
<html><body style="margin:0">
<iframe id="app" src="%(src)s" style="border:0;width:390px;height:844px"></iframe>
<script>
const setup = %(setup)s;
window.rpc = [];
window.addEventListener("message", (event) => {
  const [opcode, payload] = event.data;
  const app = document.getElementById("app").contentWindow;
  window.rpc.push(opcode === 0 ? "HANDSHAKE" : payload.cmd);
  if (opcode === 0) {
    if (payload.client_id !== setup.client_id || payload.frame_id !== "frame-1") return;
    app.postMessage([1, {cmd: "DISPATCH", evt: "READY", nonce: null, data: {
      v: 1, config: {api_endpoint: "//discord.com/api", environment: "production",
      cdn_host: "cdn.discordapp.com"},
      user: {id: setup.user.id, username: setup.user.username, discriminator: "0"}}}], "*");
    return;
  }
  const reply = {cmd: payload.cmd, evt: null, nonce: payload.nonce, data: null};
  if (payload.cmd === "AUTHORIZE") {
    reply.data = {code: setup.code};
  } else if (payload.cmd === "AUTHENTICATE") {
    reply.data = {access_token: payload.args.access_token,
      user: {...setup.user, discriminator: "0", public_flags: 0},
      scopes: ["identify"], expires: "2100-01-01T00:00:00Z",
      application: {id: setup.client_id, name: "Gomoku", description: ""}};
  }
  app.postMessage([1, reply], "*");
});
</script></body></html>"""


async def activity_page(
    browser: Any, bot: GomokuBot, fake: FakeDiscord, user: FakeUser, instance: str
) -> Any:
    """A page whose iframe is the board launched as the Activity ``instance`` for ``user``."""
    query = (
        f"?frame_id=frame-1&instance_id={instance}&platform=desktop"
        f"&guild_id={fake.guild_id}&channel_id={fake.default_channel.id}"
    )
    setup = {
        "client_id": str(fake.application_id),
        "code": fake.authorize(user),
        "user": {"id": str(user.id), "username": user.name},
    }
    page = await browser.new_page(viewport={"width": 390, "height": 844})
    html = _PARENT % {"src": f"{base_url(bot)}/{query}", "setup": json.dumps(setup)}
    await page.set_content(html)
    return page


async def alices_activity(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> tuple[GameState, str]:
    """Alice's game with the AI in the channel, and the Activity instance she launched there."""
    game = await start_ai_game(fake, bot, alice)
    return game, fake.start_activity(fake.default_channel, alice)


async def test_the_activity_signs_in_through_discord_and_plays(
    fake: FakeDiscord, web_bot: GomokuBot, browser: Any, alice: FakeUser
) -> None:
    bot = web_bot
    game, instance = await alices_activity(fake, bot, alice)
    page = await activity_page(browser, bot, fake, alice, instance)
    frame = page.frame_locator("#app")
    app = next(f for f in page.frames if f != page.main_frame)
    await app.wait_for_function("window.gomoku && window.gomoku.state() !== null", timeout=WAIT_MS)
    rpc = await page.evaluate("window.rpc")
    assert rpc[:3] == ["HANDSHAKE", "AUTHORIZE", "AUTHENTICATE"]
    # The code went through the bot's /api/token to Discord, with the client secret.
    exchanges = fake.requests_to("POST", r"^/oauth2/token$")
    assert len(exchanges) == 1
    assert exchanges[0].json["client_secret"] == fake.client_secret
    assert await app.evaluate("window.gomoku.state().you") == 0  # Alice plays Black

    await tap(app, 7, 7)
    await tap(app, 7, 7)
    await wait_stored(bot, game.game_id, 2)  # her move and the AI's reply
    await wait_moves(app, 2)
    assert await frame.locator("#title").text_content() == "Gomoku 15x15 · freestyle"


async def test_the_activity_refuses_a_user_outside_the_instance(
    fake: FakeDiscord, web_bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game, instance = await alices_activity(fake, web_bot, alice)
    url = base_url(web_bot)
    async with aiohttp.ClientSession() as http:
        # Bob's code, exchanged properly, but Bob is not in Alice's Activity.
        async with http.post(f"{url}/api/token", json={"code": fake.authorize(bob)}) as reply:
            assert reply.status == 200
            token = (await reply.json())["access_token"]
        body = {"access_token": token, "instance_id": instance}
        async with http.post(f"{url}/api/activity", json=body) as reply:
            assert reply.status == 403
            assert "token" not in await reply.json()
        # A code used twice, or made up, gets nothing.
        async with http.post(f"{url}/api/token", json={"code": "made-up"}) as reply:
            assert reply.status == 403
        body = {"access_token": "made-up", "instance_id": instance}
        async with http.post(f"{url}/api/activity", json=body) as reply:
            assert reply.status == 403
    assert await stored_moves(web_bot, game.game_id) == 0


async def test_the_activity_button_launches_the_activity(
    fake: FakeDiscord, web_bot: GomokuBot, alice: FakeUser
) -> None:
    game = await start_ai_game(fake, web_bot, alice)
    board = fake.channel_messages()[-1]
    link = await fake.click(board, f"gomoku:{game.game_id}:web", user=alice)
    assert link.message is not None
    ids = [i.get("custom_id") for row in link.message.components for i in row["components"]]
    assert f"gomoku:{game.game_id}:activity" in ids
    reply = await fake.click(link.message, f"gomoku:{game.game_id}:activity", user=alice)
    assert fake.launched == [reply.interaction.id]
