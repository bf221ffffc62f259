"""Running on a real server (issue 11) through the real discord.py against the fake Discord:
moderation, idle games, the replacement offer, help, history, replay, export, stats, stored
undo requests and forget-me."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bot.client import GomokuBot
from bot.core.service.inputs import AnswerUndo, GameRef
from bot.version import version
from engine.types import Termination
from storage.records import GameStatus
from tests.bot.conftest import BotFactory, HeldStarts
from tests.bot.test_discord_commands import MEMBER_TREE
from tests.clock import FakeClock
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser, Reply
from tests.fakediscord.model import guild_payload, role_payload
from tests.polling import until


async def _start_ai(fake: FakeDiscord, bot: GomokuBot, user: FakeUser, **options: object) -> int:
    await fake.slash("gomoku start", user=user, options={"colour": "black", **options})
    return (await bot.service.board(fake.default_channel.id)).game_id


async def _accepted(fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser) -> int:
    await fake.slash(
        "gomoku start", user=alice, options={"opponent": bob, "colour": "black", "rated": False}
    )
    board = fake.channel_messages()[-1]
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    await fake.click(board, f"gomoku:{game_id}:accept", user=bob)
    return game_id


async def _finished_ai_game(fake: FakeDiscord, bot: GomokuBot, user: FakeUser, *moves: str) -> int:
    game_id = await _start_ai(fake, bot, user)
    for cell in moves:
        await fake.slash("place", user=user, options={"cell": cell})
    await bot.service.resign(fake.default_channel.id, user.id)
    return game_id


# ---------------------------------------------------------------- moderation


async def test_a_moderator_ends_a_game_and_a_member_cannot(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id = await _accepted(fake, bot, alice, bob)
    carol = fake.add_user("carol")
    refused = await fake.slash("gomoku-admin end", user=carol)
    assert refused.ephemeral
    assert "Manage Messages" in refused.content
    assert (await bot.service.game(game_id)).is_active
    done = await fake.slash("gomoku-admin end", user=fake.owner)
    assert done.ephemeral
    view = await bot.service.game(game_id)
    assert view.status is GameStatus.FINISHED
    assert view.outcome is not None
    assert view.outcome.termination is Termination.ABANDONED
    assert (view.record.ended_by, view.record.end_reason) == (fake.owner.id, "moderator")
    assert await bot.service.stats(alice.id) is None  # no result: nobody rated


async def test_the_servers_moderator_role_may_end_games(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    role = fake.add_role("referee")
    carol = fake.add_user("carol")
    carol.roles.append(role)
    bot = make_bot()
    async with fake.running(bot):
        await bot.service.update_settings(fake.guild_id, moderator_role_id=role)
        game_id = await _start_ai(fake, bot, alice)
        await fake.slash("gomoku-admin end", user=carol)
        assert (await bot.service.game(game_id)).record.ended_by == carol.id


async def test_an_idle_game_ends_by_itself_after_a_restart(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock, alice: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        game_id = await _start_ai(fake, first, alice)
        await fake.slash("place", user=alice, options={"cell": "a1"})
    clock.advance(hours=25)  # the AI default is one day
    second = make_bot()
    async with fake.running(second):

        async def ended() -> bool:
            return (await second.service.game(game_id)).status is GameStatus.FINISHED

        async with asyncio.timeout(10):  # the resume runs right after start-up
            await until(ended, bool)
        view = await second.service.game(game_id)
        assert view.status is GameStatus.FINISHED
        assert view.record.end_reason == "idle"
        # The board message is a day old by now, so it is posted anew.
        await fake.wait_for(
            lambda: any("no move for too long" in m.text() for m in fake.channel_messages())
        )


async def test_a_new_ai_game_offers_to_replace_the_old_one(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    old = await _start_ai(fake, bot, alice)
    taken = await fake.slash("gomoku start", user=bob)
    # someone else's game is not offered: the bystander is told where it is
    assert "A game is being played here" in taken.content
    assert "Anyone may watch it" in taken.content
    offer = await fake.slash("gomoku start", user=alice, options={"level": "easy"})
    assert offer.ephemeral
    assert "Replace it" in str(offer.components)
    assert offer.message is not None
    (button,) = offer.message.custom_ids()
    await fake.click(offer.message, button, user=alice)
    new = await bot.service.board(fake.default_channel.id)
    assert new.game_id != old
    assert new.ai_level == "easy"
    replaced = await bot.service.game(old)
    assert (replaced.record.end_reason, replaced.record.ended_by) == ("replaced", alice.id)
    again = await fake.click(offer.message, button, user=alice)
    assert again.ephemeral
    assert "already over" in again.content
    assert (await bot.service.board(fake.default_channel.id)).game_id == new.game_id


# ---------------------------------------------------------------- help and onboarding


async def test_help_mentions_resolve_to_the_registered_commands(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    reply = await fake.slash("gomoku help", user=alice)
    assert reply.ephemeral
    gomoku, place = fake.command("gomoku")["id"], fake.command("place")["id"]
    admin = fake.command("gomoku-admin")["id"]
    text = reply.text()
    assert f"</gomoku start:{gomoku}>" in text
    assert f"</place:{place}>" in text
    assert f"</gomoku-admin settings:{admin}>" in text
    for line in MEMBER_TREE:  # every other command a member has, the nested ones too
        name = line.removeprefix("/").split(" [")[0]
        if name == "gomoku help":
            continue
        top = fake.command(name.split()[0])["id"]
        assert f"</{name}:{top}>" in text, name
    assert "scores 76.6% against easy" in text  # levels by their measured strength
    assert f"version {version()}" in text
    assert "renju" in text


async def test_a_welcome_on_joining_a_server(fake: FakeDiscord, bot: GomokuBot) -> None:
    guild, channel = 9_000_000_000_000_001, 9_000_000_000_000_002
    everyone = role_payload(guild, "@everyone", (1 << 10) | (1 << 11), 0)  # view, send
    lobby = FakeChannel(channel, guild, "lobby")
    fake.channels[channel] = lobby
    joined = guild_payload(  # no "unavailable" key: a guild just joined, not recovered
        guild,
        "New Guild",
        owner=fake.owner,
        roles=[everyone],
        channels=[lobby],
        members=[fake.bot_user],
        locale="en-US",
        system_channel_id=str(channel),
    )
    await fake.dispatch("GUILD_CREATE", joined)
    await fake.wait_for(lambda: any("Hello!" in m.text() for m in fake.messages.values()))
    (welcome,) = [m for m in fake.messages.values() if "Hello!" in m.text()]
    assert welcome.channel_id == channel
    assert f"</gomoku start:{fake.command('gomoku')['id']}>" in welcome.text()


# ---------------------------------------------------------------- history, replay, export


async def test_history_and_replay_page_and_survive_a_restart(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        ids = [await _finished_ai_game(fake, first, alice) for _ in range(11)]
        played = await _finished_ai_game(fake, first, alice, "a1", "b1")
        history = await fake.slash("gomoku history", user=alice)
        assert history.ephemeral
        assert f"`{played}`" in history.text()
        assert f"`{ids[0]}`" not in history.text()  # on the second page
        assert history.message is not None
        older = f"gomoku:history:{alice.id}:1"
        replay = await fake.slash("gomoku history", user=alice, options={"game": played})
        assert replay.ephemeral
        assert replay.message is not None
        assert "move 0 of 4" in replay.text()
        assert f"gomoku:{played}:download" in replay.message.custom_ids()
    second = make_bot()
    async with fake.running(second):
        # A game of the list opens its replay (the list stays as it was).
        opened = await fake.click(history.message, f"gomoku:{played}:replay", user=alice)
        assert opened.ephemeral
        assert "move 0 of 4" in opened.text()
        assert opened.message is not None
        assert opened.message.id != history.message.id
        page = await fake.click(history.message, older, user=alice)
        assert f"`{ids[0]}`" in page.text()
        assert f"`{played}`" not in page.text()
        assert f"gomoku:{ids[0]}:replay" in history.message.custom_ids()
        message = replay.message
        await fake.click(message, f"gomoku:{played}:replay:next:0", user=alice)
        assert "move 1 of 4" in message.text()
        await fake.click(message, f"gomoku:{played}:replay:last:1", user=alice)
        assert "move 4 of 4" in message.text()
        await fake.click(message, f"gomoku:{played}:replay:prev:4", user=alice)
        assert "move 3 of 4" in message.text()
        await fake.click(message, f"gomoku:{played}:replay:first:3", user=alice)
        assert "move 0 of 4" in message.text()
        disabled = [b["custom_id"] for b in message.buttons() if b.get("disabled")]
        assert sorted(disabled) == [
            f"gomoku:{played}:replay:first:0",
            f"gomoku:{played}:replay:prev:0",
        ]


async def test_the_download_of_a_finished_game_names_players_not_ids(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        game_id = await _accepted(fake, first, alice, bob)
        await fake.slash("place", user=alice, options={"cell": "h8"})
        await first.service.resign(fake.default_channel.id, bob.id)
        carol = fake.add_user("carol")
        replay = await fake.slash("gomoku history", user=carol, options={"game": game_id})
        assert replay.message is not None
    async with fake.running(make_bot()):  # the replay's download button outlives a restart
        export = await fake.click(replay.message, f"gomoku:{game_id}:download", user=carol)
        missing = await fake.slash("gomoku history", user=carol, options={"game": game_id + 100})
    assert export.ephemeral
    sgf, gif = export.attachments
    assert b"PB[alice]" in sgf.data
    assert b"PW[bob]" in sgf.data
    assert str(alice.id).encode() not in sgf.data
    assert str(bob.id).encode() not in sgf.data
    assert gif.data.startswith(b"GIF8")
    assert "no longer exists" in missing.content


# ---------------------------------------------------------------- stats


async def test_stats_count_ai_and_connect_four_games(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    await _finished_ai_game(fake, bot, alice)
    game_id = await _start_ai(fake, bot, alice, game="connect4", level="expert")
    await bot.service.resign(fake.default_channel.id, alice.id)
    assert (await bot.service.game(game_id)).is_over
    stats = await fake.slash("gomoku stats", user=alice)
    text = stats.text()
    assert "Gomoku · freestyle" in text
    assert "medium: 0 wins, 1 loss" in text
    assert "Connect Four" in text
    assert "expert: 0 wins, 1 loss" in text
    assert "rating" not in text  # AI games are never rated


# ---------------------------------------------------------------- undo, privacy


async def test_an_undo_request_survives_a_restart(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        game_id = await _accepted(fake, first, alice, bob)
        await fake.slash("place", user=alice, options={"cell": "h8"})
        request = await fake.slash("gomoku undo", user=alice)
        assert request.message is not None
    second = make_bot()
    async with fake.running(second):
        await fake.click(request.message, f"gomoku:{game_id}:undo:yes", user=bob)
        assert "allowed" in request.message.content
        assert (await second.service.game(game_id)).board.moves == ()


async def test_an_undo_whose_message_is_unknown_is_answered_in_the_channel(
    fake: FakeDiscord, make_bot: BotFactory, db_path: Path, alice: FakeUser, bob: FakeUser
) -> None:
    """A stored request without its message (stored before requests noted it): the answer
    given on the web board after a restart is said in a message of its own, pinging nobody,
    and the request's buttons go at the first press on them. (With its message noted, the
    answer edits it: ``test_discord_undo_restart``.)"""
    first = make_bot()
    async with fake.running(first):
        game_id = await _accepted(fake, first, alice, bob)
        await fake.slash("place", user=alice, options={"cell": "h8"})
        request = await fake.slash("gomoku undo", user=alice)
        assert request.message is not None
    with closing(sqlite3.connect(db_path)) as db, db:
        db.execute("UPDATE undo_requests SET channel_id = NULL, message_id = NULL")
    second = make_bot()
    async with fake.running(second):
        await second.service.act(GameRef(game_id), bob.id, AnswerUndo(False), via="web")
        said = f"<@{bob.id}> refused to let <@{alice.id}> take back their last move."
        await fake.wait_for(lambda: any(m.content == said for m in fake.channel_messages()))
        [message] = [m for m in fake.channel_messages() if m.content == said]
        assert not message.pings_everyone()
        assert message.allowed_mentions is not None
        assert message.allowed_mentions.get("parse") == []
        assert message.allowed_mentions.get("users", []) == []
        assert [str(m.point) for m in (await second.service.game(game_id)).board.moves] == ["h8"]
        # The old request's buttons still show; the first press on them takes them away and
        # tells the presser why, privately.
        asked = request.message
        assert asked.buttons() != []
        pressed = await fake.click(asked, f"gomoku:{game_id}:undo:yes", user=bob)
        followups = pressed.interaction.followups
        await fake.wait_for(lambda: asked.buttons() == [] and followups != [])
        assert asked.content.endswith("asks to take back their last move.")
        [told] = followups
        assert told.content == "There is no undo request to answer (the game has moved on)."
        assert told.ephemeral


def _tables_holding(path: Path, value: int) -> list[str]:
    found = []
    with closing(sqlite3.connect(path)) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type='table'")]
        for table in tables:
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            for column in columns:
                hit = db.execute(
                    f"SELECT 1 FROM {table} WHERE {column} = ? LIMIT 1", (value,)
                ).fetchone()
                if hit:
                    found.append(f"{table}.{column}")
    return found


async def test_forget_me_leaves_no_trace_of_the_user(
    fake: FakeDiscord, bot: GomokuBot, db_path: Path, alice: FakeUser, bob: FakeUser
) -> None:
    game_id = await _accepted(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    await fake.slash("gomoku undo", user=alice)
    await bot.service.resign(fake.default_channel.id, bob.id)
    await _finished_ai_game(fake, bot, alice)
    playing = await _start_ai(fake, bot, alice)
    await fake.slash("place", user=alice, options={"cell": "a1"})
    await bot.service.repository.mark_puzzle_seen(fake.guild_id, alice.id, "builtin:suite:0")
    assert "puzzle_seen.user_id" in _tables_holding(db_path, alice.id)
    preferences = await fake.slash("gomoku preferences", user=alice)
    assert preferences.ephemeral
    assert preferences.message is not None
    (forget,) = [
        b["custom_id"] for b in preferences.message.buttons() if b["label"] == "Forget me…"
    ]
    prompt: Reply = await fake.click(preferences.message, forget, user=alice)
    assert prompt.ephemeral
    assert "Finished games stay" in prompt.content
    assert prompt.message is not None
    (delete,) = [b["custom_id"] for b in prompt.message.buttons() if b["label"] == "Delete my data"]
    await fake.click(prompt.message, delete, user=alice)
    assert "Done" in prompt.message.content
    assert _tables_holding(db_path, alice.id) == []
    assert (await bot.service.game(game_id)).black.is_deleted
    # The open game ended without a result, and its board says so.
    assert (await bot.service.game(playing)).status is GameStatus.FINISHED
    await fake.wait_for(
        lambda: any(
            f"game {playing}" in m.text() and "no result" in m.text()
            for m in fake.channel_messages()
        )
    )


# ---------------------------------------------------------------- threads


async def test_a_game_in_its_own_thread_from_start_to_archive(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    fake.allow(fake.default_channel, "create_public_threads")  # threads: on by default
    general = fake.default_channel
    start = await fake.slash("gomoku start", user=alice, options={"opponent": bob, "rated": False})
    assert start.message is not None
    assert "a new game" in start.content
    # The thread opens and the board goes in it after the command's answer.
    await fake.wait_for(
        lambda: any(c.is_thread and fake.channel_messages(c) for c in fake.channels.values())
    )
    (thread,) = [c for c in fake.channels.values() if c.is_thread]
    assert thread.parent_id == general.id
    assert thread.starter_message_id == start.message.id
    assert thread.name.startswith(("alice vs bob", "bob vs alice"))
    view = await bot.service.board(thread.id)
    assert view.record.parent_channel_id == general.id
    board = fake.channel_messages(thread)[-1]
    await fake.click(board, f"gomoku:{view.game_id}:accept", user=bob)
    # The channel is free for another game meanwhile.
    await fake.slash("gomoku start", user=fake.owner)
    confirm = await fake.slash("gomoku resign", user=alice, channel=thread)
    assert confirm.message is not None
    await fake.click(confirm.message, f"gomoku:{view.game_id}:resign", user=alice)
    await fake.wait_for(lambda: thread.archived)
    lines = [m.text() for m in fake.channel_messages(general)]
    assert any("resignation" in line and f"<#{thread.id}>" in line for line in lines)


@pytest.mark.parametrize("slow", ["write", "name"])
async def test_a_start_in_a_thread_is_acknowledged_while_its_announcement_waits(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
    slow: str,
) -> None:
    """The answer is the channel's line, which needs the game's write and the players' names
    (a member not cached is fetched): a slow one is acknowledged ("thinking...") within
    Discord's 3 s, and the line fills that in."""
    fake.allow(fake.default_channel, "create_public_threads")  # threads: on by default
    members = r"/guilds/\d+/members/\d+$"
    if slow == "write":
        held = HeldStarts(bot, monkeypatch)
        release = held.go_on
    else:
        release = fake.hold("GET", members)
    record = await fake.send_slash(
        "gomoku start", user=alice, options={"opponent": bob, "rated": False}
    )
    if slow == "write":
        async with asyncio.timeout(10):
            await held.entered.wait()
    else:
        await fake.wait_for(lambda: bool(fake.requests_to("GET", members)))
    await fake.wait_for(lambda: record.callback_type is not None)
    assert record.callback_type == 5
    assert [c for c in fake.channels.values() if c.is_thread] == []  # still held
    release.set()
    start = await fake.answer(record)
    assert not start.ephemeral
    assert "a new game" in start.content
    assert start.message is not None
    await fake.wait_for(
        lambda: any(c.is_thread and fake.channel_messages(c) for c in fake.channels.values())
    )
    (thread,) = [c for c in fake.channels.values() if c.is_thread]
    assert thread.starter_message_id == start.message.id
    assert thread.name.startswith(("alice vs bob", "bob vs alice"))


@pytest.mark.parametrize("lacking", ["create_public_threads", "send_messages_in_threads"])
async def test_without_a_thread_permission_the_game_is_played_in_the_channel(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, lacking: str
) -> None:
    """Threads are on (the default), but the bot may not open one or post in it here: the
    game starts in the channel, as it would with threads off, and nobody is refused."""
    fake.allow(fake.default_channel, "create_public_threads", "send_messages_in_threads")
    fake.deny(fake.default_channel, lacking)
    start = await fake.slash("gomoku start", user=alice)
    assert not start.ephemeral
    assert start.message is not None
    assert start.message.embeds  # the board, in the channel
    assert (await bot.service.settings(fake.guild_id)).use_threads
    assert [c for c in fake.channels.values() if c.is_thread] == []
    view = await bot.service.board(fake.default_channel.id)
    assert view.record.parent_channel_id is None


async def test_option_choices_are_described(fake: FakeDiscord, bot: GomokuBot) -> None:
    start = next(o for o in fake.command("gomoku")["options"] if o["name"] == "start")
    for name, values in [
        ("level", ["beginner", "easy", "medium", "hard", "expert", "master"]),
        ("rule", ["freestyle", "standard", "renju", "caro"]),
        ("colour", ["black", "white", "random"]),
        ("game", ["gomoku", "tictactoe", "connect4", "gravity3"]),
    ]:
        option = next(o for o in start["options"] if o["name"] == name)
        assert [c["value"] for c in option["choices"]] == values
        for choice in option["choices"]:
            assert len(choice["name"]) > len(choice["value"]), choice  # more than the bare word


async def test_settings_for_threads_moderators_and_idle_times(
    fake: FakeDiscord, bot: GomokuBot
) -> None:
    role = fake.add_role("referee")
    reply = await fake.slash(
        "gomoku-admin settings",
        user=fake.owner,
        options={"threads": False, "idle_hours": 48, "idle_ai_hours": 2},
    )
    text = reply.text()
    assert "Game threads\noff" in text
    assert "2 days between people, 2 hours against the AI" in text
    settings = await bot.service.settings(fake.guild_id)
    assert (settings.use_threads, settings.idle_human_seconds) == (False, 48 * 3600)
    await bot.service.update_settings(fake.guild_id, moderator_role_id=role)
    reply = await fake.slash("gomoku-admin settings", user=fake.owner)
    assert f"<@&{role}>" in reply.text()  # shown, never pinged (the fixture checks)
    reply = await fake.slash(
        "gomoku-admin settings", user=fake.owner, options={"no_moderator_role": True}
    )
    assert "Manage Messages only" in reply.text()
