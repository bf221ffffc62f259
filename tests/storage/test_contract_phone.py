"""Contract tests for phone play: guild ping and AI-clock settings,
turn times of open games, users' board views, replies to finish after a restart, and the
turn pings a restart must still delete."""

from __future__ import annotations

from dataclasses import replace

from engine.types import Color, Outcome, Termination
from storage.records import GameStatus, GuildSettings, PendingReply, Player, TurnPing
from storage.repository import GameRepository
from tests.storage.conftest import ALICE, BOB, GUILD, START, new_game


async def test_guild_pings_and_ai_clock_round_trip(repo: GameRepository) -> None:
    defaults = await repo.guild_settings(GUILD)
    assert defaults.turn_pings
    assert not defaults.ai_clock
    changed = replace(GuildSettings(GUILD), turn_pings=False, ai_clock=True, turn_seconds=60)
    await repo.save_guild_settings(changed)
    assert await repo.guild_settings(GUILD) == changed


async def test_open_games_take_a_new_turn_time(repo: GameRepository) -> None:
    people = await repo.create_game(new_game(1, turn_seconds=60))
    ai = await repo.create_game(new_game(2, white=Player.ai("easy"), turn_seconds=60))
    other_guild = await repo.create_game(new_game(3, guild_id=GUILD + 1))
    done = await repo.create_game(new_game(4))
    done = await repo.finish_game(done.id, done.version, Outcome(Termination.RESIGN, Color.WHITE))

    assert await repo.set_open_turn_seconds(GUILD, 300, ai_games=False) == 2
    assert (await repo.get_game(people.id)).turn_seconds == 300
    assert (await repo.get_game(ai.id)).turn_seconds is None  # people only
    assert (await repo.get_game(other_guild.id)).turn_seconds is None
    assert (await repo.get_game(done.id)).turn_seconds is None
    assert (await repo.get_game(people.id)).version == people.version  # no new version
    assert await repo.set_open_turn_seconds(GUILD, 300, ai_games=True) == 1
    assert (await repo.get_game(ai.id)).turn_seconds == 300
    assert await repo.set_open_turn_seconds(GUILD, None, ai_games=True) == 2
    assert (await repo.get_game(people.id)).turn_seconds is None
    assert (await repo.get_game(people.id)).status is GameStatus.ACTIVE


async def test_user_view_round_trip_and_forget(repo: GameRepository) -> None:
    assert await repo.user_view(ALICE) is None
    await repo.save_user_view(ALICE, "phone")
    await repo.save_user_view(ALICE, "image")
    await repo.save_user_view(BOB, "full")
    assert await repo.user_view(ALICE) == "image"
    await repo.delete_user_data(ALICE)
    assert await repo.user_view(ALICE) is None
    assert await repo.user_view(BOB) == "full"


async def test_pending_replies_round_trip(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    first = PendingReply("token-1", game.id, 55, 66, ALICE, START)
    second = PendingReply("token-2", game.id, 55, 67, BOB, START.replace(minute=START.minute + 1))
    await repo.save_pending_reply(second)
    await repo.save_pending_reply(first)
    assert await repo.pending_replies() == [first, second]
    await repo.drop_pending_reply("token-1")
    await repo.drop_pending_reply("unknown")
    assert await repo.pending_replies() == [second]
    await repo.delete_user_data(BOB)
    assert await repo.pending_replies() == []


async def test_turn_pings_one_per_game_replaced_and_dropped(repo: GameRepository) -> None:
    first = await repo.create_game(new_game(1))
    second = await repo.create_game(new_game(2))
    assert await repo.turn_ping(first.id) is None
    ping = TurnPing(first.id, 1, 9_000_000_000_000_000_001, 2)  # snowflakes need 64 bits
    await repo.save_turn_ping(ping)
    other = TurnPing(second.id, 2, 77, 1)
    await repo.save_turn_ping(other)
    assert await repo.turn_ping(first.id) == ping
    newer = TurnPing(first.id, 3, 78, 3)  # the next ping replaces it (even in another channel)
    await repo.save_turn_ping(newer)
    assert await repo.turn_ping(first.id) == newer
    await repo.drop_turn_ping(first.id)
    await repo.drop_turn_ping(first.id)  # nothing left: ignored
    assert await repo.turn_ping(first.id) is None
    assert await repo.turn_ping(second.id) == other
    await repo.delete_user_data(ALICE)  # no user id is kept: forget-me leaves it
    assert await repo.turn_ping(second.id) == other
