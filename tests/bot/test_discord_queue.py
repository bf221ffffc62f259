"""The pairing queue through the real discord.py against the fake Discord: ``/gomoku queue``
pairs two members close in rating, opens their rated game in a thread and pings both there;
leaving, asking twice and asking while playing are answered."""

from __future__ import annotations

from bot.client import GomokuBot
from storage.records import GameStatus
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser


def _queue_threads(fake: FakeDiscord) -> list[FakeChannel]:
    return [
        c
        for c in fake.channels.values()
        if c.is_thread and "paired by the queue" in c.name and len(fake.channel_messages(c)) >= 2
    ]


async def test_two_members_are_paired_and_play_in_their_thread(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    carol = fake.add_user("carol")
    waiting = await fake.slash("gomoku queue", user=alice)
    assert waiting.ephemeral
    assert "You are in the queue for Gomoku" in waiting.content
    twice = await fake.slash("gomoku queue", user=alice)
    assert "in the queue already" in twice.content
    # Carol changes her mind; leaving twice is answered too.
    await fake.slash("gomoku queue", user=carol, options={"game": "connect4"})
    left = await fake.slash("gomoku queue", user=carol, options={"leave": True})
    assert left.content == "You left the queue."
    again = await fake.slash("gomoku queue", user=carol, options={"leave": True})
    assert again.content == "You are not in the queue."
    assert _queue_threads(fake) == []
    # Bob asks for the same game: the two are paired at once, in a thread, both pinged.
    await fake.slash("gomoku queue", user=bob)
    await fake.wait_for(lambda: len(_queue_threads(fake)) == 1)
    (thread,) = _queue_threads(fake)
    ping = fake.channel_messages(thread)[0]
    assert ping.content.startswith(f"<@{alice.id}> (black) and <@{bob.id}> (white)")
    game = await bot.service.board(thread.id)
    assert game.status is GameStatus.ACTIVE
    assert game.record.rated
    assert {game.black.user_id, game.white.user_id} == {alice.id, bob.id}
    assert any(m.embeds for m in fake.channel_messages(thread))  # the board is drawn there
    # Playing, Alice may not queue again until her game is over.
    busy = await fake.slash("gomoku queue", user=alice)
    assert "playing a game already" in busy.content
    confirm = await fake.slash("gomoku resign", user=bob, channel=thread)
    assert confirm.message is not None
    await fake.click(confirm.message, f"gomoku:{game.game_id}:resign", user=bob)
    assert (await bot.service.game(game.game_id)).status is GameStatus.FINISHED
    back = await fake.slash("gomoku queue", user=alice)
    assert "You are in the queue for Gomoku" in back.content
