"""Open challenges through the real discord.py against the fake Discord: ``/gomoku start
open:True`` posts a challenge any member may accept with its button; the game opens in its
thread when someone does; the challenger may cancel; it expires like other challenges; one with
a rating window refuses a member rated outside it."""

from __future__ import annotations

from datetime import timedelta

from bot.client import GomokuBot
from engine.types import Game
from storage.records import GameStatus
from tests.clock import FakeClock
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.fakediscord.model import Message


async def _open(fake: FakeDiscord, user: FakeUser, **options: object) -> Message:
    reply = await fake.slash(
        "gomoku start",
        user=user,
        options={"open": True, "colour": "black", "rated": False, **options},
    )
    assert reply.message is not None
    assert not reply.ephemeral
    return reply.message


def _button(message: Message, action: str) -> str:
    (custom_id,) = [c for c in message.custom_ids() if c.endswith(f":{action}")]
    return custom_id


def _game_threads(fake: FakeDiscord) -> list[FakeChannel]:
    return [c for c in fake.channels.values() if c.is_thread and fake.channel_messages(c)]


async def test_an_open_challenge_is_accepted_by_a_third_member_and_opens_its_thread(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    carol = fake.add_user("carol")
    challenge = await _open(fake, alice)
    accept, cancel = _button(challenge, "accept"), _button(challenge, "cancel")
    assert f"<@{alice.id}> offers a game of Gomoku to anyone" in challenge.content
    assert [c.rsplit(":", 1)[1] for c in challenge.custom_ids()] == ["accept", "cancel"]
    # Nothing is stored until someone accepts.
    assert await bot.service.open_game(general.id) is None
    # Alice cannot accept her own; Bob cannot cancel hers.
    own = await fake.click(challenge, accept, user=alice)
    assert own.ephemeral
    assert own.content == (
        "This is your own open challenge: wait for someone to accept it, or cancel it."
    )
    theirs = await fake.click(challenge, cancel, user=bob)
    assert theirs.ephemeral
    # Carol accepts: the game is Alice (black) against Carol, in a thread of its own.
    await fake.click(challenge, accept, user=carol)
    await fake.wait_for(lambda: len(_game_threads(fake)) == 1)
    (thread,) = _game_threads(fake)
    assert thread.name.startswith("alice vs carol")
    game = await bot.service.board(thread.id)
    assert game.status is GameStatus.ACTIVE
    assert (game.black.user_id, game.white.user_id) == (alice.id, carol.id)
    # The challenge says who took it and has no buttons left; a late press is refused.
    await fake.wait_for(lambda: not fake.messages[challenge.id].custom_ids())
    taken = fake.messages[challenge.id]
    assert taken.content == f"<@{carol.id}> accepted <@{alice.id}>'s open challenge."
    assert taken.custom_ids() == []
    # (A client that still shows the old buttons.)
    late = await fake.click(fake.plant_button(accept), accept, user=bob)
    assert late.ephemeral
    assert "already under way" in late.content
    assert len(_game_threads(fake)) == 1
    # They play in the thread with their own /place.
    for user, cell in ((alice, "h8"), (carol, "j10")):
        reply = await fake.slash("place", user=user, channel=thread, options={"cell": cell})
        assert "played **" in reply.content
    moves = (await bot.service.game(game.game_id)).board.moves
    assert [str(m.point) for m in moves] == ["h8", "j10"]


async def test_the_challenger_cancels_and_an_old_one_expires(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    cancelled = await _open(fake, alice)
    answer = await fake.click(cancelled, _button(cancelled, "cancel"), user=alice)
    assert answer.message is not None
    assert fake.messages[cancelled.id].content == f"<@{alice.id}> withdrew the open challenge."
    assert fake.messages[cancelled.id].custom_ids() == []
    expiring = await _open(fake, alice, rating_within=100)
    assert "anyone rated within 100 points" in expiring.content
    clock.now += bot.service.challenge_ttl + timedelta(seconds=1)
    expired = await fake.click(expiring, _button(expiring, "accept"), user=bob)
    assert expired.ephemeral
    assert "expired" in expired.content
    assert await bot.service.open_game(fake.default_channel.id) is None


async def _rating(bot: GomokuBot, fake: FakeDiscord, user: FakeUser) -> int:
    rule = (await bot.service.settings(fake.guild_id)).default_rule
    stats = await bot.service.repository.player_stats(
        user.id, Game.GOMOKU, guild_id=fake.guild_id, rule=rule
    )
    return 1000 if stats is None else stats.display_rating


async def test_a_rating_window_refuses_a_member_rated_outside_it(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    # Stored ratings: Alice won two rated games against Dave; Bob has never played (1000).
    dave = fake.add_user("dave")
    side = fake.add_channel("side")
    for _ in range(2):
        start = await bot.service.start(
            channel_id=side.id, guild_id=fake.guild_id, user_id=alice.id, opponent=dave.id
        )
        await bot.service.accept(start.game_id, dave.id)
        await bot.service.resign(None, dave.id, game_id=start.game_id)
    alice_rating, bob_rating = await _rating(bot, fake, alice), await _rating(bot, fake, bob)
    dave_rating = await _rating(bot, fake, dave)
    assert dave_rating < bob_rating < alice_rating
    # A window that just reaches Bob leaves Dave out.
    within = alice_rating - bob_rating
    challenge = await _open(fake, alice, rating_within=within)
    refused = await fake.click(challenge, _button(challenge, "accept"), user=dave)
    assert refused.ephemeral
    low, high = alice_rating - within, alice_rating + within
    assert refused.content == f"This open challenge is for players rated {low:,} to {high:,}."
    assert await bot.service.open_game(fake.default_channel.id) is None
    assert fake.messages[challenge.id].custom_ids() == challenge.custom_ids()  # still open
    # Bob, at the window's edge, may accept.
    await fake.click(challenge, _button(challenge, "accept"), user=bob)
    await fake.wait_for(lambda: not fake.messages[challenge.id].custom_ids())
    game = await bot.service.open_game(fake.default_channel.id)
    assert game is not None
    assert (game.black.user_id, game.white.user_id) == (alice.id, bob.id)
