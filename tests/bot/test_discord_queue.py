"""The pairing queue through the real discord.py against the fake Discord: ``/gomoku queue``
pairs two members close in rating, opens their rated game in a thread and pings both there;
leaving, asking twice and asking while playing are answered; the queue's tick runs on the bot's
clock (moved by the test, ``Club.wake_queue``): a member times out of the queue, told privately
(their answer to joining is edited), and two members too far apart in rating at first are
paired once their windows have widened.

Across a restart of the bot (a second bot on the same SQLite file): a member who waited is
paired with one who asks after it; waiting time, windows and the timeout count from the
first join; a member who ran out of time while the bot was away is told at start-up (or, the
token dead, simply dropped); asking twice, asking while playing and leaving are answered as
before the restart."""

from __future__ import annotations

import asyncio

from bot.client import GomokuBot
from bot.core.club.matchmaking import PairingQueue
from engine.types import Game, Rule
from storage.records import GameStatus
from tests.bot.conftest import BotFactory
from tests.clock import FakeClock
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser

# The queue's defaults (``bot.club`` keeps them): how long a member waits, how wide a window
# starts and how fast it widens.
_QUEUE = PairingQueue(clock=FakeClock())


TIMED_OUT = "Nobody close to your rating asked for a game in time: you left the queue."


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
    await fake.wait_for(lambda: thread.archived)  # closed like any game's thread
    back = await fake.slash("gomoku queue", user=alice)
    assert "You are in the queue for Gomoku" in back.content


async def _tick(bot: GomokuBot) -> None:
    """One pass of the queue's tick, now (the clock was moved before)."""
    bot.club.wake_queue()
    await bot.club.queue_passed()


async def _rating(bot: GomokuBot, fake: FakeDiscord, user: FakeUser) -> int:
    stats = await bot.service.repository.player_stats(
        user.id, Game.GOMOKU, guild_id=fake.guild_id, rule=await _rule(bot, fake)
    )
    return 1000 if stats is None else stats.display_rating


async def _rule(bot: GomokuBot, fake: FakeDiscord) -> Rule:
    return (await bot.service.settings(fake.guild_id)).default_rule


async def test_a_member_waiting_too_long_leaves_the_queue_and_is_told_privately(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser
) -> None:
    # The start-up's pass over the stored queues done first: one that read Alice's entry
    # would start the tick before her answer's message is noted, and the timeout, found
    # then, would have no message to edit.
    await _resumed(bot)
    waiting = await fake.slash("gomoku queue", user=alice)
    assert "You are in the queue for Gomoku" in waiting.content
    # A pass just short of the limit keeps her waiting.
    clock.advance(_QUEUE.timeout_s - 1)
    await _tick(bot)
    assert waiting.interaction.followups == []
    assert waiting.message is not None
    assert waiting.message.edits == 0
    clock.advance(1)
    await _tick(bot)
    # Her private answer to joining now says so (nobody else sees it).
    await fake.wait_for(lambda: waiting.message is not None and waiting.message.edits == 1)
    assert waiting.ephemeral
    assert waiting.content == TIMED_OUT
    assert waiting.interaction.followups == []
    # She is out: leaving is answered as for anyone not waiting, and she may ask again.
    out = await fake.slash("gomoku queue", user=alice, options={"leave": True})
    assert out.content == "You are not in the queue."
    again = await fake.slash("gomoku queue", user=alice)
    assert "You are in the queue for Gomoku" in again.content


async def test_members_too_far_apart_are_paired_once_their_windows_widen(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    # Alice has a stored rating: she won two rated games against Dave.
    dave = fake.add_user("dave")
    side = fake.add_channel("side")
    for _ in range(2):
        start = await bot.service.start(
            channel_id=side.id, guild_id=fake.guild_id, user_id=alice.id, opponent=dave.id
        )
        await bot.service.accept(start.game_id, dave.id)
        await bot.service.resign(None, dave.id, game_id=start.game_id)
    gap = await _rating(bot, fake, alice) - await _rating(bot, fake, bob)
    assert gap > _QUEUE.base_window
    await _resumed(bot)  # its pass does not pair them before the ticks below
    await fake.slash("gomoku queue", user=alice)
    await fake.slash("gomoku queue", user=bob)
    await _tick(bot)  # no time has passed: still too far apart
    assert _queue_threads(fake) == []
    # Their windows widen with waiting; one second short of reaching the gap, still apart.
    seconds = (gap - _QUEUE.base_window) / _QUEUE.widen_per_second
    clock.advance(seconds - 1)
    await _tick(bot)
    assert _queue_threads(fake) == []
    clock.advance(1)
    await _tick(bot)
    await fake.wait_for(lambda: len(_queue_threads(fake)) == 1)
    (thread,) = _queue_threads(fake)
    game = await bot.service.board(thread.id)
    assert game.record.rated
    # The lower rated moves first.
    assert (game.black.user_id, game.white.user_id) == (bob.id, alice.id)


async def _resumed(bot: GomokuBot) -> None:
    """Wait until the (re)started bot has put the stored members back and made its first
    pass."""
    async with asyncio.timeout(30):
        await bot.club.queue_resumed.wait()


async def _wins_twice(bot: GomokuBot, fake: FakeDiscord, winner: FakeUser) -> None:
    """``winner`` beats a new member twice in rated games: their rating rises above 1000."""
    dave = fake.add_user("dave")
    side = fake.add_channel("side")
    for _ in range(2):
        start = await bot.service.start(
            channel_id=side.id, guild_id=fake.guild_id, user_id=winner.id, opponent=dave.id
        )
        await bot.service.accept(start.game_id, dave.id)
        await bot.service.resign(None, dave.id, game_id=start.game_id)


async def test_a_member_waiting_across_a_restart_is_paired_with_one_who_asks_after_it(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    fake.allow(fake.default_channel, "create_public_threads")
    first = make_bot()
    async with fake.running(first):
        waiting = await fake.slash("gomoku queue", user=alice)
        assert "You are in the queue for Gomoku" in waiting.content
    second = make_bot()
    async with fake.running(second):
        await _resumed(second)
        assert _queue_threads(fake) == []
        # Asking again is answered as before the restart.
        twice = await fake.slash("gomoku queue", user=alice)
        assert "in the queue already" in twice.content
        await fake.slash("gomoku queue", user=bob)
        await fake.wait_for(lambda: len(_queue_threads(fake)) == 1)
        (thread,) = _queue_threads(fake)
        ping = fake.channel_messages(thread)[0]
        assert ping.content.startswith(f"<@{alice.id}> (black) and <@{bob.id}> (white)")
        assert ping.allowed_mentions is not None  # both are pinged
        assert set(ping.allowed_mentions["users"]) == {alice.id, bob.id}
        game = await second.service.board(thread.id)
        assert game.status is GameStatus.ACTIVE
        assert game.record.rated
        assert await second.service.repository.queue_entries() == []
    # Playing, neither may queue again, after another restart too.
    third = make_bot()
    async with fake.running(third):
        await _resumed(third)
        busy = await fake.slash("gomoku queue", user=bob)
        assert "playing a game already" in busy.content


async def test_windows_and_the_timeout_count_from_the_first_join_across_a_restart(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    fake.allow(fake.default_channel, "create_public_threads")
    carol = fake.add_user("carol")
    first = make_bot()
    async with fake.running(first):
        await _wins_twice(first, fake, alice)
        gap = await _rating(first, fake, alice) - await _rating(first, fake, bob)
        assert gap > _QUEUE.base_window
        await fake.slash("gomoku queue", user=alice)
        await fake.slash("gomoku queue", user=bob)
        waiting = await fake.slash("gomoku queue", user=carol, options={"game": "connect4"})
        assert _queue_threads(fake) == []
    # The windows reach the gap this long after the two asked (counted from then, not from
    # the restart); the margin of 20 s covers the real time the restart takes.
    reach = (gap - _QUEUE.base_window) / _QUEUE.widen_per_second
    assert reach > 20
    clock.advance(reach - 20)
    second = make_bot()
    async with fake.running(second):
        await _resumed(second)
        await _tick(second)
        assert _queue_threads(fake) == []
        clock.advance(20)
        await _tick(second)
        await fake.wait_for(lambda: len(_queue_threads(fake)) == 1)
        (thread,) = _queue_threads(fake)
        game = await second.service.board(thread.id)
        assert (game.black.user_id, game.white.user_id) == (bob.id, alice.id)
        # Carol, alone in her game's queue, times out ten minutes after she asked.
        clock.advance(_QUEUE.timeout_s - reach - 20)
        await _tick(second)
        assert waiting.message is not None
        assert waiting.message.edits == 0
        clock.advance(20)
        await _tick(second)
        await fake.wait_for(lambda: waiting.message is not None and waiting.message.edits == 1)
        assert waiting.content == TIMED_OUT
        assert await second.service.repository.queue_entries() == []


async def test_a_member_who_ran_out_of_time_while_the_bot_was_away_is_told_at_start_up(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock, alice: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        waiting = await fake.slash("gomoku queue", user=alice)
    clock.advance(_QUEUE.timeout_s + 60)
    second = make_bot()
    async with fake.running(second):
        await _resumed(second)
        await fake.wait_for(lambda: waiting.message is not None and waiting.message.edits == 1)
        assert waiting.ephemeral
        assert waiting.content == TIMED_OUT
        assert await second.service.repository.queue_entries() == []
        out = await fake.slash("gomoku queue", user=alice, options={"leave": True})
        assert out.content == "You are not in the queue."


async def test_a_member_whose_token_died_while_the_bot_was_away_is_dropped_untold(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        waiting = await fake.slash("gomoku queue", user=alice)
        told = await fake.slash("gomoku queue", user=bob, options={"game": "connect4"})
    # Away 16 minutes: Alice's token is past its 15; Bob's is refused by Discord as well.
    clock.advance(minutes=16)
    fake.expire(told.interaction)
    second = make_bot()
    async with fake.running(second):
        await _resumed(second)
        assert await second.service.repository.queue_entries() == []
        assert fake.requests_to("PATCH", "/webhooks/") == []
        assert waiting.message is not None
        assert waiting.message.edits == 0
        assert "You are in the queue for Gomoku" in waiting.content
        again = await fake.slash("gomoku queue", user=alice)
        assert "You are in the queue for Gomoku" in again.content


async def test_leaving_after_a_restart_takes_the_member_out(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    fake.allow(fake.default_channel, "create_public_threads")
    first = make_bot()
    async with fake.running(first):
        await fake.slash("gomoku queue", user=alice)
    second = make_bot()
    async with fake.running(second):
        await _resumed(second)
        left = await fake.slash("gomoku queue", user=alice, options={"leave": True})
        assert left.content == "You left the queue."
        assert await second.service.repository.queue_entries() == []
        again = await fake.slash("gomoku queue", user=alice, options={"leave": True})
        assert again.content == "You are not in the queue."
        # Bob, asking now, waits: Alice is gone.
        await fake.slash("gomoku queue", user=bob)
        await _tick(second)
        assert _queue_threads(fake) == []
        assert [e.user_id for e in await second.service.repository.queue_entries()] == [bob.id]
