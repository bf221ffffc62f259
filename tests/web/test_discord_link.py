"""**Open board** on Discord: under every game's board, a private link with the right pass."""

from __future__ import annotations

import pytest

from bot.client import GomokuBot
from bot.web.tokens import Role, Signer
from tests.fakediscord import FakeDiscord, FakeUser
from tests.web.test_board_browser import board_link


@pytest.mark.parametrize("game", ["gomoku", "tictactoe", "connect4", "gravity3"])
async def test_every_board_carries_open_board_and_a_watcher_gets_a_watch_pass(
    fake: FakeDiscord, web_bot: GomokuBot, signer: Signer, alice: FakeUser, game: str
) -> None:
    await fake.slash("gomoku start", user=alice, options={"game": game, "colour": "black"})
    view = await web_bot.service.board(fake.default_channel.id)
    carol = fake.add_user("carol")
    carol.locale = "ja"
    link = await board_link(fake, view, carol)
    assert link.startswith("http://127.0.0.1/#")
    grant = signer.verify(link.split("#", 1)[1])
    assert (grant.game_id, grant.user_id, grant.role) == (view.game_id, carol.id, Role.WATCH)
    assert grant.language == "ja"
    mine = signer.verify((await board_link(fake, view, alice)).split("#", 1)[1])
    assert (mine.user_id, mine.role, mine.language) == (alice.id, Role.PLAY, "en")


async def test_the_link_is_private_and_in_the_pressers_language(
    fake: FakeDiscord, web_bot: GomokuBot, alice: FakeUser
) -> None:
    await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    view = await web_bot.service.board(fake.default_channel.id)
    alice.locale = "ko"
    board = fake.channel_messages()[-1]
    reply = await fake.click(board, f"gomoku:{view.game_id}:web", user=alice)
    assert reply.message is not None
    assert reply.message.ephemeral
    assert reply.message.content == "내 보드: 이 링크는 나만 볼 수 있고 6시간 동안 유효합니다."
