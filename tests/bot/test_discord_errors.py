"""Every bad input is answered privately and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from bot.client import GomokuBot
from bot.cooldown import UserCooldown
from tests.bot.conftest import BotFactory, board_caught_up, no_changes
from tests.fakediscord import FakeDiscord, FakeUser


async def _challenge_accepted(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> int:
    await fake.slash(
        "gomoku start", user=alice, options={"opponent": bob, "colour": "black", "rated": False}
    )
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    await fake.click(fake.channel_messages()[-1], f"gomoku:{game_id}:accept", user=bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    await board_caught_up(fake, bot, game_id)
    return game_id


# (who, command, options, words in the answer); "alice" is Black to move after h8 by... see
# _challenge_accepted: Alice (Black) played h8, so Bob (White) is to move.
IN_GAME_CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("bob", "place", {"cell": "z99"}, "is not a point"),
    ("bob", "place", {"cell": "<@&123> @everyone"}, "is not a point"),
    ("bob", "place", {"cell": "h8"}, "already taken"),
    ("bob", "place", {"cell": "p1"}, "off the board"),
    ("alice", "place", {"cell": "j9"}, "not your turn"),
    ("carol", "place", {"cell": "j9"}, "not playing"),
    ("alice", "gomoku start", {}, "already has a game"),
    ("carol", "gomoku start", {}, "A game is being played here: [its board](https://discord.com/"),
    ("bob", "gomoku undo", {}, "no move to take back"),
    ("carol", "gomoku resign", {}, "not playing"),
    ("carol", "gomoku-admin settings", {"look": "emoji"}, "Manage Server"),
]


@pytest.mark.parametrize(
    ("who", "command", "options", "words"),
    IN_GAME_CASES,
    ids=[f"{c[1]}-{c[3][:14]}" for c in IN_GAME_CASES],
)
async def test_refusals_in_a_game(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    bob: FakeUser,
    who: str,
    command: str,
    options: dict[str, Any],
    words: str,
) -> None:
    carol = fake.add_user("carol")
    users = {"alice": alice, "bob": bob, "carol": carol}
    game_id = await _challenge_accepted(fake, bot, alice, bob)
    before = await bot.service.game(game_id)
    with no_changes(fake):
        reply = await fake.slash(command, user=users[who], options=options)
    assert reply.ephemeral
    assert words in reply.content
    assert reply.message is not None
    assert not reply.message.pinged_everyone
    assert not reply.message.pinged_roles
    after = await bot.service.game(game_id)
    assert after.version == before.version


async def test_hints_are_off_in_rated_games(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku start", user=alice, options={"opponent": bob, "colour": "black"})
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    await fake.click(fake.channel_messages()[-1], f"gomoku:{game_id}:accept", user=bob)
    await board_caught_up(fake, bot, game_id)
    with no_changes(fake):
        reply = await fake.slash("gomoku hint", user=alice)
    assert reply.ephemeral
    assert "Hints are off" in reply.content


NO_GAME_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("place", {"cell": "h8"}, "no game in this channel"),
    ("gomoku board", {}, "no game in this channel"),
    ("gomoku resign", {}, "no game in this channel"),
    ("gomoku undo", {}, "no game in this channel"),
    ("gomoku hint", {}, "no game in this channel"),
    ("gomoku history", {"game": 999}, "no longer exists"),
    ("gomoku start", {"game": "tictactoe", "size": 9}, "board size"),
]


@pytest.mark.parametrize(
    ("command", "options", "words"), NO_GAME_CASES, ids=[c[0] for c in NO_GAME_CASES]
)
async def test_refusals_without_a_game(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    command: str,
    options: dict[str, Any],
    words: str,
) -> None:
    with no_changes(fake):
        reply = await fake.slash(command, user=alice, options=options)
    assert reply.ephemeral
    assert words in reply.content
    assert await bot.service.repository.open_game_in_channel(fake.default_channel.id) is None


async def test_refusals_name_commands_by_their_mentions(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    gomoku, place = fake.command("gomoku")["id"], fake.command("place")["id"]
    reply = await fake.slash("place", user=alice, options={"cell": "h8"})
    # Each client shows a mention under the command's name in its own language.
    assert f"Start one with </gomoku start:{gomoku}>." in reply.content
    hanako = fake.add_user("hanako")
    hanako.locale = "ja"
    japanese = await fake.slash("place", user=hanako, options={"cell": "h8"})
    assert f"</gomoku start:{gomoku}>" in japanese.content
    assert "/五目並べ" not in japanese.content  # her client names the command itself
    review = await fake.slash("gomoku review", user=alice)
    assert f"</gomoku review:{gomoku}> `game:12`" in review.content
    await fake.slash("gomoku start", user=alice, options={"game": "connect4"})
    typed = await fake.slash("place", user=alice, options={"cell": "d"})
    assert f"</place:{place}> `4`" in typed.content


async def test_challenging_yourself(fake: FakeDiscord, bot: GomokuBot, alice: FakeUser) -> None:
    with no_changes(fake):
        reply = await fake.slash("gomoku start", user=alice, options={"opponent": alice})
    assert reply.ephemeral
    assert "can't challenge yourself" in reply.content


async def test_stale_and_foreign_buttons(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash(
        "gomoku start",
        user=alice,
        options={"opponent": bob, "game": "tictactoe", "colour": "black"},
    )
    board = fake.channel_messages()[-1]
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    await fake.click(board, f"gomoku:{game_id}:accept", user=bob)
    await board_caught_up(fake, bot, game_id)
    with no_changes(fake):
        reply = await fake.click(board, f"gomoku:{game_id}:cell:1:1", user=bob)
    assert reply.ephemeral
    assert "not your turn" in reply.content
    carol = fake.add_user("carol")
    with no_changes(fake):
        reply = await fake.click(board, f"gomoku:{game_id}:cell:1:1", user=carol)
    assert "not playing" in reply.content


async def test_missing_bot_permission_is_named(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    fake.deny(fake.default_channel, "embed_links")
    with no_changes(fake):
        reply = await fake.slash("gomoku start", user=alice)
    assert reply.ephemeral
    assert "Embed Links" in reply.content
    assert await bot.service.repository.open_game_in_channel(fake.default_channel.id) is None


async def test_cooldown(fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser) -> None:
    bot = make_bot(cooldown=UserCooldown(rate=2, per=60.0))
    async with fake.running(bot):
        for _ in range(2):
            assert not (await fake.slash("gomoku leaderboard", user=alice)).ephemeral
        with no_changes(fake):
            reply = await fake.slash("gomoku leaderboard", user=alice)
        assert reply.ephemeral
        assert "Slow down" in reply.content
        # Autocomplete is not limited: it fires on every keystroke.
        assert await fake.autocomplete("place", "cell", user=alice, options={"cell": "h"}) == []


async def test_unexpected_errors_leak_nothing(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret database path /srv/x")

    monkeypatch.setattr(bot.service, "open_game", broken)
    reply = await fake.slash("gomoku board", user=alice)
    assert reply.ephemeral
    assert "secret" not in reply.content
    assert "Traceback" not in reply.content
    assert "went wrong" in reply.content
    assert "secret database path" in caplog.text  # the bug is logged for us


async def test_games_in_threads_need_the_thread_permission(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    thread = fake.add_thread("gomoku")
    fake.deny(thread, "send_messages")  # a thread needs Send Messages In Threads instead
    bot = make_bot()
    async with fake.running(bot):
        start = await fake.slash("gomoku start", user=alice, channel=thread)
        assert not start.ephemeral
        fake.deny(thread, "send_messages_in_threads")
        with no_changes(fake):
            reply = await fake.slash("gomoku board", user=alice, channel=thread)
        assert reply.ephemeral
        assert "Send Messages In Threads" in reply.content
