"""A burst of game starts (``bot.core.admission``): starts beyond the running ones are acknowledged
at once and answered when their turn comes; beyond the waiting room they are refused, in
words, with nothing made."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot import threads
from bot.client import GomokuBot
from bot.core.admission import StartAdmission
from bot.core.service.states import GameState
from engine.types import Rule
from storage.records import GuildSettings
from tests.bot.conftest import HeldStarts, record_calls
from tests.fakediscord import FakeDiscord, FakeUser


async def test_starts_beyond_the_running_ones_wait_acknowledged_and_beyond_the_queue_are_refused(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    admission = StartAdmission(running=1, waiting=1)
    bot.start_admission = admission
    # The first start stays in its slot until the test lets it go on.
    held = HeldStarts(bot, monkeypatch)
    entered, go_on = held.entered, held.go_on
    bob, carol = fake.add_user("bob"), fake.add_user("carol")
    second, third = fake.add_channel("second"), fake.add_channel("third")
    first_start = await fake.send_slash("gomoku start", user=alice, options={"colour": "black"})
    async with asyncio.timeout(10):
        await entered.wait()
    waiting = await fake.send_slash(
        "gomoku start", user=bob, channel=second, options={"colour": "black"}
    )
    await fake.wait_for(lambda: waiting.callback_type is not None)
    assert waiting.callback_type == 5  # "thinking...": acknowledged, its answer to come
    assert admission.waiting == 1
    refused = await fake.slash("gomoku start", user=carol, channel=third)
    assert refused.ephemeral
    assert refused.text() == "Many games are starting right now. Try again in a few seconds."
    assert admission.refused == 1
    assert await bot.service.repository.open_game_in_channel(third.id) is None
    go_on.set()
    for record, channel in [(first_start, fake.default_channel), (waiting, second)]:
        reply = await fake.answer(record)
        assert reply.message is not None
        assert reply.message.embeds  # the board
        assert await bot.service.repository.open_game_in_channel(channel.id) is not None
    assert admission.waiting == 0
    again = await fake.slash("gomoku start", user=carol, channel=third)  # room again
    assert again.message is not None
    assert again.message.embeds


async def test_a_burst_of_starts_in_a_guild_reads_its_settings_once(
    fake: FakeDiscord, bot: GomokuBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every start first asks whether the guild hosts games in threads: before anything
    answers them, a burst of starts shares one read of the guild's settings (kept until a
    settings command forgets them) instead of queueing hundreds on the database."""
    reads: list[int] = []
    asked, release = asyncio.Event(), asyncio.Event()
    stored = bot.service.settings

    async def slow(guild_id: int) -> GuildSettings:
        reads.append(guild_id)
        asked.set()
        await release.wait()
        return await stored(guild_id)

    monkeypatch.setattr(bot.service, "settings", slow)
    starts = []
    for n in range(3):
        user, channel = fake.add_user(f"player{n}"), fake.add_channel(f"table{n}")
        starts.append(await fake.send_slash("gomoku start", user=user, channel=channel))
    async with asyncio.timeout(10):
        await asked.wait()
    release.set()
    for start in starts:
        reply = await fake.answer(start)
        assert reply.message is not None
        assert reply.message.embeds  # the board
    assert reads == [fake.guild_id]
    bot.forget_settings(fake.guild_id)
    await fake.slash("gomoku start", user=fake.add_user("late"), channel=fake.add_channel("late"))
    assert reads == [fake.guild_id, fake.guild_id]


async def test_starts_use_the_kept_settings_and_a_settings_command_reaches_the_next_start(
    fake: FakeDiscord, bot: GomokuBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game a start makes takes the guild's settings from the copy the bot keeps: the
    database is asked once for a guild, not once a start; a change made with the settings
    command reaches the next start."""
    reads = record_calls(monkeypatch, bot.service.repository, "guild_settings")
    for n in range(3):
        user, channel = fake.add_user(f"player{n}"), fake.add_channel(f"table{n}")
        reply = await fake.slash("gomoku start", user=user, channel=channel)
        assert reply.message is not None
        game = await bot.service.repository.open_game_in_channel(channel.id)
        assert game is not None
        assert game.rule is Rule.FREESTYLE
    assert reads == [fake.guild_id]
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"rule": "renju"})
    reads.clear()
    channel = fake.add_channel("after")
    await fake.slash("gomoku start", user=fake.add_user("after"), channel=channel)
    game = await bot.service.repository.open_game_in_channel(channel.id)
    assert game is not None
    assert game.rule is Rule.RENJU
    assert reads == [fake.guild_id]


async def test_a_start_in_a_thread_waits_for_its_turn_acknowledged_too(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer of a start in a thread is the channel's line, which fills in the deferral
    ("thinking...") of a start that waited: it waits like any other, not refused."""
    fake.allow(fake.default_channel, "create_public_threads")  # threads: on by default
    admission = StartAdmission(running=1, waiting=1)
    bot.start_admission = admission
    held = HeldStarts(bot, monkeypatch)
    entered, go_on = held.entered, held.go_on
    first = await fake.send_slash("gomoku start", user=alice, options={"colour": "black"})
    async with asyncio.timeout(10):
        await entered.wait()
    second = fake.add_channel("second")
    fake.allow(second, "create_public_threads")
    waiting = await fake.send_slash(
        "gomoku start", user=fake.add_user("bob"), channel=second, options={"colour": "black"}
    )
    await fake.wait_for(lambda: waiting.callback_type is not None)
    assert waiting.callback_type == 5
    assert admission.waiting == 1
    go_on.set()
    for record in (first, waiting):
        reply = await fake.answer(record)
        assert not reply.ephemeral
        assert "a new game" in reply.content
    await fake.wait_for(lambda: len([c for c in fake.channels.values() if c.is_thread]) == 2)
    assert admission.refused == 0
    # the one start that waited, and for how long (it waited while the first was held)
    assert admission.queued == 1
    assert admission.waited_s > 0
    assert admission.longest_wait_s == admission.waited_s


async def test_a_start_gives_its_turn_back_once_its_game_is_stored(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start holds its turn for its write only: while the first start's board is still on
    its way to Discord, a second start finds the one slot free: it neither waits nor is
    acknowledged first, and both boards arrive."""
    admission = StartAdmission(running=1, waiting=1)
    bot.start_admission = admission
    drawing, go_on = asyncio.Event(), asyncio.Event()
    respond = bot.table.respond_with_board

    async def held(interaction: Any, game: GameState, **options: Any) -> None:
        if interaction.user.id == alice.id:
            drawing.set()
            await go_on.wait()
        await respond(interaction, game, **options)

    monkeypatch.setattr(bot.table, "respond_with_board", held)
    first = await fake.send_slash("gomoku start", user=alice, options={"colour": "black"})
    async with asyncio.timeout(10):
        await drawing.wait()
    second = fake.add_channel("second")
    reply = await fake.slash(
        "gomoku start", user=fake.add_user("bob"), channel=second, options={"colour": "black"}
    )
    assert reply.message is not None
    assert reply.message.embeds
    assert (admission.queued, admission.waiting, admission.refused) == (0, 0, 0)
    go_on.set()
    answered = await fake.answer(first)
    assert answered.message is not None
    assert answered.message.embeds
    for channel in (fake.default_channel, second):
        assert await bot.service.repository.open_game_in_channel(channel.id) is not None


async def test_a_start_in_a_thread_gives_its_turn_back_once_its_game_is_stored(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Likewise for a game hosted in a thread: the channel's line, the thread and its board
    come after the start has let go of its turn."""
    fake.allow(fake.default_channel, "create_public_threads")  # threads: on by default
    admission = StartAdmission(running=1, waiting=1)
    bot.start_admission = admission
    hosting, go_on = asyncio.Event(), asyncio.Event()
    host = threads.host_in_thread

    async def held(interaction: Any, view: GameState, announced: Any) -> GameState:
        if interaction.user.id == alice.id:
            hosting.set()
            await go_on.wait()
        return await host(interaction, view, announced)

    monkeypatch.setattr(threads, "host_in_thread", held)
    first = await fake.send_slash("gomoku start", user=alice, options={"colour": "black"})
    async with asyncio.timeout(10):
        await hosting.wait()
    second = fake.add_channel("second")
    fake.allow(second, "create_public_threads")
    reply = await fake.slash(
        "gomoku start", user=fake.add_user("bob"), channel=second, options={"colour": "black"}
    )
    assert "a new game" in reply.content
    assert (admission.queued, admission.waiting, admission.refused) == (0, 0, 0)
    go_on.set()
    assert "a new game" in (await fake.answer(first)).content
    await fake.wait_for(lambda: len([c for c in fake.channels.values() if c.is_thread]) == 2)
