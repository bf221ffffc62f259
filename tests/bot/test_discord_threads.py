"""Many games from one channel: each game in its own thread, the default wherever the bot may
open one (the fake's channels deny it Create Public Threads unless a test allows it), through
the real discord.py against the fake Discord."""

from __future__ import annotations

from bot.client import GomokuBot
from storage.records import GameStatus
from tests.bot.conftest import challenge
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser

THREAD_CREATION = r"/channels/\d+/messages/\d+/threads$"


def _threads(fake: FakeDiscord) -> list[FakeChannel]:
    return [c for c in fake.channels.values() if c.is_thread]


async def _thread_of(fake: FakeDiscord, bot: GomokuBot, name: str) -> tuple[FakeChannel, int]:
    """The thread whose name starts with ``name`` once its board is in it, and its game."""

    def opened() -> list[FakeChannel]:
        return [t for t in _threads(fake) if t.name.startswith(name) and fake.channel_messages(t)]

    await fake.wait_for(lambda: len(opened()) == 1)
    (thread,) = opened()
    return thread, (await bot.service.board(thread.id)).game_id


async def _board_shows(fake: FakeDiscord, thread: FakeChannel, game_id: int, moves: int) -> None:
    """Wait until the board message in ``thread`` shows ``game_id`` after ``moves`` moves."""
    footer = f"game {game_id} · {moves} moves"

    def shown() -> bool:
        return any(
            embed.get("footer", {}).get("text", "").startswith(footer)
            for message in fake.channel_messages(thread)
            for embed in message.embeds
        )

    await fake.wait_for(shown)


async def _place(fake: FakeDiscord, user: FakeUser, thread: FakeChannel, cell: str) -> None:
    reply = await fake.slash("place", user=user, channel=thread, options={"cell": cell})
    assert "played **" in reply.content, reply.content


async def _resign(fake: FakeDiscord, user: FakeUser, thread: FakeChannel, game_id: int) -> None:
    confirm = await fake.slash("gomoku resign", user=user, channel=thread)
    assert confirm.message is not None
    await fake.click(confirm.message, f"gomoku:{game_id}:resign", user=user)


async def test_two_games_at_once_from_one_channel_each_in_its_own_thread(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    carol = fake.add_user("carol")
    # Bob challenges Carol; while the challenge waits, Alice starts a game against the AI
    # from the same channel. Neither holds the channel: each went into a thread of its own.
    line = await challenge(fake, bob, carol)
    assert "a new game, in the thread below" in line.content
    people, people_id = await _thread_of(fake, bot, "bob vs carol")
    assert (await bot.service.game(people_id)).status is GameStatus.PENDING
    assert await bot.service.open_game(general.id) is None
    ai_line = await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    assert ai_line.message is not None
    assert "a new game, in the thread below" in ai_line.content
    ai, ai_id = await _thread_of(fake, bot, "alice vs AI")
    assert ai.starter_message_id == ai_line.message.id
    assert people.parent_id == ai.parent_id == general.id
    assert people_id != ai_id
    # Carol accepts in her thread, where she was pinged.
    challenge_board = fake.channel_messages(people)[-1]
    assert f"<@{carol.id}>" in challenge_board.content
    await fake.click(challenge_board, f"gomoku:{people_id}:accept", user=carol)
    # Moves in both threads, interleaved; the AI answers Alice in hers.
    await _place(fake, alice, ai, "a1")
    await _place(fake, bob, people, "h8")
    await _place(fake, carol, people, "i9")
    await _place(fake, alice, ai, "b1")
    await _place(fake, bob, people, "h9")
    await _place(fake, alice, ai, "c1")
    await _place(fake, carol, people, "i10")
    ai_game = await bot.service.game(ai_id)
    people_game = await bot.service.game(people_id)
    assert [str(m.point) for m in ai_game.board.moves] == ["a1", "h8", "b1", "h7", "c1", "g8"]
    assert [str(m.point) for m in people_game.board.moves] == ["h8", "i9", "h9", "i10"]
    assert (ai_game.channel_id, people_game.channel_id) == (ai.id, people.id)
    await _board_shows(fake, ai, ai_id, 6)
    await _board_shows(fake, people, people_id, 4)
    # The channel itself holds no game: its messages are the two start lines, no board.
    assert await bot.service.open_game(general.id) is None
    assert all(not m.embeds for m in fake.channel_messages(general))
    # A player's command in the channel is sent to their game's thread; anyone else is told
    # the channel has no game.
    pointed = await fake.slash("gomoku board", user=alice)
    assert pointed.ephemeral
    assert f"<#{ai.id}>" in pointed.content
    misplaced = await fake.slash("place", user=bob, options={"cell": "a1"})
    assert misplaced.ephemeral
    assert f"<#{people.id}>" in misplaced.content
    nothing = await fake.slash("place", user=fake.add_user("dave"), options={"cell": "a1"})
    assert nothing.ephemeral
    assert "There is no game in this channel" in nothing.content
    assert [str(m.point) for m in (await bot.service.game(people_id)).board.moves] == [
        "h8",
        "i9",
        "h9",
        "i10",
    ]


async def test_challenges_wait_side_by_side_and_a_declined_one_closes_its_thread(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    carol, dave = fake.add_user("carol"), fake.add_user("dave")
    await challenge(fake, alice, bob)
    await challenge(fake, carol, dave)  # a second pair, while the first challenge waits
    first, first_id = await _thread_of(fake, bot, "alice vs bob")
    second, second_id = await _thread_of(fake, bot, "carol vs dave")
    for game_id in (first_id, second_id):
        assert (await bot.service.game(game_id)).status is GameStatus.PENDING
    await fake.click(fake.channel_messages(second)[-1], f"gomoku:{second_id}:decline", user=dave)
    await fake.wait_for(lambda: second.archived)
    assert any(f"<#{second.id}>" in m.content for m in fake.channel_messages(general))
    await fake.click(fake.channel_messages(first)[-1], f"gomoku:{first_id}:accept", user=bob)
    assert (await bot.service.game(first_id)).status is GameStatus.ACTIVE
    assert not first.archived


async def test_a_bystander_in_a_games_thread_is_sent_to_the_channel(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    await challenge(fake, alice, bob)
    thread, game_id = await _thread_of(fake, bot, "alice vs bob")
    board = fake.channel_messages(thread)[-1]
    told = await fake.slash("gomoku start", user=fake.add_user("carol"), channel=thread)
    assert told.ephemeral
    # Where the game is (its board, in the thread), that anyone may watch, and where to start
    # one's own: the channel, where it gets a thread too.
    assert f"/channels/{fake.guild_id}/{thread.id}/{board.id})" in told.content
    assert "Anyone may watch it" in told.content
    assert f"in <#{general.id}>, where each game gets a thread of its own" in told.content
    assert (await bot.service.game(game_id)).status is GameStatus.PENDING


async def test_starts_at_the_same_moment_in_one_channel_each_get_a_thread(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    """A new game is made in the channel and moved into its thread a few requests later: a
    start meanwhile waits for the move (acknowledged, "thinking..."), never told the channel
    is taken."""
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    opening = fake.hold("POST", THREAD_CREATION)
    first = await fake.send_slash("gomoku start", user=alice)
    await fake.wait_for(lambda: bool(fake.requests_to("POST", THREAD_CREATION)))
    second = await fake.send_slash("gomoku start", user=bob)
    await fake.wait_for(lambda: second.callback_type is not None)
    assert second.callback_type == 5  # deferred while the first game leaves the channel
    opening.set()
    for record in (first, second):
        reply = await fake.answer(record)
        assert not reply.ephemeral
        assert "a new game, in the thread below" in reply.content
    alices, _ = await _thread_of(fake, bot, "alice vs AI")
    bobs, _ = await _thread_of(fake, bot, "bob vs AI")
    assert alices.id != bobs.id
    assert await bot.service.open_game(general.id) is None


async def test_threads_are_on_by_default_and_off_keeps_games_in_the_channel(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    fake.allow(fake.default_channel, "create_public_threads")
    assert (await bot.service.settings(fake.guild_id)).use_threads
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"threads": False})
    start = await fake.slash("gomoku start", user=alice)
    assert start.message is not None
    assert start.message.embeds  # the board, in the channel
    assert _threads(fake) == []
    assert (await bot.service.board(fake.default_channel.id)).record.parent_channel_id is None


async def test_a_rematch_is_played_in_the_games_thread(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    thread, game_id = await _thread_of(fake, bot, "alice vs AI")
    await _resign(fake, alice, thread, game_id)
    await fake.wait_for(lambda: thread.archived)
    board = fake.channel_messages(thread)[-1]
    again = await fake.click(board, f"gomoku:{game_id}:rematch", user=alice)
    assert again.message is not None
    assert again.message.channel_id == thread.id
    rematch = await bot.service.board(thread.id)
    assert rematch.game_id != game_id
    assert rematch.record.parent_channel_id == general.id
    # Its end is announced in the channel too.
    await _resign(fake, alice, thread, rematch.game_id)

    def ends() -> list[str]:
        return [m.content for m in fake.channel_messages(general) if f"<#{thread.id}>" in m.content]

    await fake.wait_for(lambda: len(ends()) == 2)
