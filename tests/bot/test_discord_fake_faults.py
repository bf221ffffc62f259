"""The fake Discord's faults, proven with the real, unmodified discord.py client: each answers
with Discord's status and error code, and the gateway events discord.py acts on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Final

import discord
import pytest
from discord.ext import commands

from tests.fakediscord import FakeDiscord, FakeDiscordError

WEEK: Final = 10080  # minutes: the longest auto-archive duration


class Plain(commands.Bot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.01,
        )


@pytest.fixture
async def plain(fake: FakeDiscord) -> AsyncIterator[Plain]:
    bot = Plain()
    async with fake.running(bot):
        yield bot


async def _post(bot: Plain, channel_id: int, text: str) -> discord.Message:
    guild = bot.guilds[0].id if bot.guilds else None
    return await bot.get_partial_messageable(channel_id, guild_id=guild).send(text)


async def test_an_outage_answers_5xx_on_its_routes_until_it_ends(
    fake: FakeDiscord, plain: Plain
) -> None:
    outage = fake.outage(r"/channels/\d+/messages", method="POST")
    with pytest.raises(discord.DiscordServerError) as raised:
        await _post(plain, fake.default_channel.id, "hello")
    assert raised.value.status == 503
    # Other routes answer meanwhile.
    assert (await plain.fetch_channel(fake.default_channel.id)).id == fake.default_channel.id
    outage.end()
    await _post(plain, fake.default_channel.id, "hello again")
    assert outage.refused == 1
    assert [m.content for m in fake.channel_messages()] == ["hello again"]


async def test_the_gateway_drops_and_the_bot_resumes(fake: FakeDiscord, plain: Plain) -> None:
    await fake.drop_gateway()
    assert (fake.identifies, fake.resumes) == (1, 1)
    thread = fake.add_thread("game")
    # Events reach the resumed session.
    waiter = asyncio.ensure_future(plain.wait_for("raw_thread_update"))
    await fake.archive_thread(thread)
    event = await waiter
    assert event.thread_id == thread.id


async def test_a_member_leaving_is_not_told_to_a_bot_without_the_members_intent(
    fake: FakeDiscord, plain: Plain
) -> None:
    # GUILD_MEMBER_REMOVE belongs to the privileged Server Members intent, which Discord's
    # default intents (and the game bot's) leave out: Discord does not send it.
    assert not plain.intents.members
    carol = fake.add_user("carol")
    assert await fake.remove_member(carol) == 0
    assert carol.id not in fake.users


async def test_an_invalid_session_makes_the_bot_identify_anew(
    fake: FakeDiscord, plain: Plain
) -> None:
    await fake.drop_gateway(invalidate=True)
    assert (fake.identifies, fake.resumes) == (2, 0)
    assert plain.get_guild(fake.guild_id) is not None


async def test_threads_archive_after_their_duration_by_the_fakes_clock(
    fake: FakeDiscord, plain: Plain
) -> None:
    starter = await _post(plain, fake.default_channel.id, "a game")
    fake.allow(fake.default_channel, "create_public_threads")
    thread = await starter.create_thread(name="game", auto_archive_duration=WEEK)
    board = await _post(plain, thread.id, "board")
    assert await fake.pass_time(WEEK * 60 - 1) == []
    updated = plain.wait_for("raw_thread_update")
    (archived,) = await fake.pass_time(1)
    assert archived.id == thread.id
    assert (await updated).data["thread_metadata"]["archived"]
    with pytest.raises(discord.HTTPException) as raised:
        await board.edit(content="board, moved")
    assert (raised.value.status, raised.value.code) == (400, 50083)
    # A message unarchives a thread that is not locked; then edits go through.
    await _post(plain, thread.id, "your turn")
    assert not fake.channels[thread.id].archived
    await board.edit(content="board, moved")


async def test_a_locked_thread_refuses_messages_and_unarchiving(
    fake: FakeDiscord, plain: Plain
) -> None:
    thread = fake.add_thread("game")
    await fake.archive_thread(thread, locked=True)
    with pytest.raises(discord.HTTPException) as raised:
        await _post(plain, thread.id, "hello")
    assert raised.value.code == 50083
    with pytest.raises(discord.Forbidden) as refused:
        await plain.http.edit_channel(thread.id, archived=False)
    assert refused.value.code == 50013
    fake.allow(thread, "manage_threads")
    await plain.http.edit_channel(thread.id, archived=False)
    await _post(plain, thread.id, "hello")


async def test_a_members_message_unarchives_a_thread_unless_it_is_locked(
    fake: FakeDiscord, plain: Plain
) -> None:
    member = fake.add_user("member")
    thread = fake.add_thread("game")
    await fake.archive_thread(thread)
    unarchived = asyncio.ensure_future(
        plain.wait_for(
            "raw_thread_update", check=lambda e: not e.data["thread_metadata"]["archived"]
        )
    )
    await fake.member_posts(thread, member)
    assert (await unarchived).thread_id == thread.id
    assert not thread.archived
    await fake.archive_thread(thread, locked=True)
    with pytest.raises(FakeDiscordError, match="locked"):
        await fake.member_posts(thread, member)
    assert thread.archived


async def test_a_deleted_channel_is_unknown(fake: FakeDiscord, plain: Plain) -> None:
    channel = await fake.create_channel("games")
    thread = fake.add_thread("game", channel)
    message = await _post(plain, thread.id, "board")
    deleted = plain.wait_for("raw_thread_delete")
    await fake.delete_channel(channel)
    assert (await deleted).thread_id == thread.id
    for call in (_post(plain, thread.id, "hello"), message.edit(content="x")):
        with pytest.raises(discord.NotFound) as raised:
            await call
        assert raised.value.code == 10003
    assert thread.id not in fake.channels
    assert channel.id not in fake.channels


async def test_permissions_taken_are_refused_with_discords_codes(
    fake: FakeDiscord, plain: Plain
) -> None:
    fake.deny(fake.default_channel, "send_messages")
    with pytest.raises(discord.Forbidden) as raised:
        await _post(plain, fake.default_channel.id, "hello")
    assert raised.value.code == 50013
    fake.deny(fake.default_channel, "view_channel")
    with pytest.raises(discord.Forbidden) as hidden:
        await _post(plain, fake.default_channel.id, "hello")
    assert hidden.value.code == 50001


async def test_the_bot_removed_from_the_guild(fake: FakeDiscord, plain: Plain) -> None:
    removed = plain.wait_for("guild_remove")
    await fake.remove_bot()
    assert (await removed).id == fake.guild_id
    assert plain.get_guild(fake.guild_id) is None
    with pytest.raises(discord.Forbidden) as raised:
        await _post(plain, fake.default_channel.id, "hello")
    assert raised.value.code == 50001
