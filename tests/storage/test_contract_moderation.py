"""The contract for moderation (who ended a game and why), threads, stored undo requests,
result counts and minimum-games leaderboards, on every repository (``repo`` in conftest)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.types import Color, Game, Outcome, Rule, Termination
from storage.errors import ChannelBusyError, InvalidStatusError
from storage.records import GameStatus, GuildSettings, Player, ResultCount, StoredUndo
from storage.repository import GameRepository
from tests.storage.conftest import ALICE, BOB, CAROL, GUILD, START, new_game

ABANDONED = Outcome(Termination.ABANDONED, None)


async def test_an_ended_game_records_who_and_why(repo: GameRepository) -> None:
    game = await repo.create_game(new_game(rated=True))
    ended = await repo.finish_game(
        game.id, game.version, ABANDONED, ended_by=CAROL, end_reason="moderator"
    )
    assert (ended.status, ended.outcome) == (GameStatus.FINISHED, ABANDONED)
    assert (ended.ended_by, ended.end_reason) == (CAROL, "moderator")
    assert await repo.get_game(game.id) == ended
    assert await repo.player_stats(ALICE) is None  # ended without a result: nobody rated


async def test_an_unknown_end_reason_is_refused(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    with pytest.raises(ValueError, match="end reason"):
        await repo.finish_game(game.id, game.version, ABANDONED, end_reason="boredom")
    assert (await repo.get_game(game.id)).is_open


async def test_a_game_moves_into_its_thread(repo: GameRepository) -> None:
    game = await repo.create_game(new_game(channel_id=10))
    await repo.move_game(game.id, 99, parent_channel_id=10)
    moved = await repo.get_game(game.id)
    assert (moved.channel_id, moved.parent_channel_id, moved.version) == (99, 10, game.version)
    assert await repo.open_game_in_channel(10) is None  # the channel is free for another
    assert await repo.open_game_in_channel(99) == moved
    other = await repo.create_game(new_game(channel_id=10))
    with pytest.raises(ChannelBusyError):
        await repo.move_game(other.id, 99, parent_channel_id=10)
    finished = await repo.finish_game(other.id, other.version, ABANDONED)
    with pytest.raises(InvalidStatusError):
        await repo.move_game(finished.id, 98, parent_channel_id=10)


async def test_undo_requests_are_stored(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    assert await repo.undo_request(game.id) is None
    request = StoredUndo(game.id, ALICE, BOB, game.version, 1, START)
    await repo.save_undo_request(request)
    assert await repo.undo_request(game.id) == request
    newer = replace(request, version=game.version + 2, moves=2)
    await repo.save_undo_request(newer)
    assert await repo.undo_request(game.id) == newer
    await repo.drop_undo_request(game.id)
    await repo.drop_undo_request(game.id)  # twice is fine
    assert await repo.undo_request(game.id) is None


async def test_an_undo_requests_message_is_noted(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    other = await repo.create_game(new_game(channel_id=11))
    assert await repo.set_undo_message(game.id, game.version, 10, 500) is False  # none asked
    request = StoredUndo(game.id, ALICE, BOB, game.version, 1, START)
    await repo.save_undo_request(request)
    assert await repo.undo_request(game.id) == request  # not posted yet: no message
    assert (request.channel_id, request.message_id) == (None, None)
    assert await repo.set_undo_message(game.id, game.version + 1, 10, 500) is False  # replaced
    assert await repo.undo_request(game.id) == request
    assert await repo.set_undo_message(game.id, game.version, 10, 2**62) is True
    posted = replace(request, channel_id=10, message_id=2**62)
    assert await repo.undo_request(game.id) == posted
    second = StoredUndo(other.id, BOB, ALICE, other.version, 2, START, 11, 7)
    await repo.save_undo_request(second)  # saved with its message at once
    assert await repo.undo_requests() == [posted, second]
    newer = replace(request, version=game.version + 2)
    await repo.save_undo_request(newer)  # a new request: the old message is not its own
    assert await repo.undo_request(game.id) == newer
    await repo.drop_undo_request(game.id)
    assert await repo.undo_requests() == [second]


async def test_results_count_every_finished_game_by_opponent(repo: GameRepository) -> None:
    async def finish(black: Player, white: Player, outcome: Outcome, **options: object) -> None:
        game = await repo.create_game(new_game(black=black, white=white, **options))  # type: ignore[arg-type]
        await repo.finish_game(game.id, game.version, outcome)

    alice, bob = Player.human(ALICE), Player.human(BOB)
    await finish(alice, Player.ai("expert"), Outcome(Termination.RESIGN, Color.BLACK))
    await finish(Player.ai("expert"), alice, Outcome(Termination.RESIGN, Color.WHITE))
    await finish(Player.ai("expert"), alice, Outcome(Termination.TIMEOUT, Color.BLACK))
    await finish(alice, bob, Outcome(Termination.DRAW, None), rated=True)
    await finish(bob, alice, ABANDONED, game=Game.CONNECT4)
    await finish(alice, bob, Outcome(Termination.RESIGN, Color.WHITE), guild_id=GUILD + 1)
    assert await repo.user_results(ALICE, guild_id=GUILD) == [
        ResultCount(Game.CONNECT4, Rule.FREESTYLE, None, unfinished=1),
        ResultCount(Game.GOMOKU, Rule.FREESTYLE, None, draws=1),
        ResultCount(Game.GOMOKU, Rule.FREESTYLE, "expert", wins=2, losses=1),
    ]
    overall = await repo.user_results(ALICE)
    assert sum(line.games for line in overall) == 6
    assert await repo.user_results(CAROL) == []


async def test_leaderboard_minimum_games(repo: GameRepository) -> None:
    for _ in range(2):
        game = await repo.create_game(new_game(rated=True))
        await repo.finish_game(game.id, game.version, Outcome(Termination.RESIGN, Color.BLACK))
    game = await repo.create_game(
        new_game(black=Player.human(ALICE), white=Player.human(CAROL), rated=True)
    )
    await repo.finish_game(game.id, game.version, Outcome(Termination.RESIGN, Color.BLACK))
    everyone = await repo.leaderboard(guild_id=GUILD)
    assert {row.user_id for row in everyone} == {ALICE, BOB, CAROL}
    regulars = await repo.leaderboard(guild_id=GUILD, min_games=2)
    assert [row.user_id for row in regulars] == [ALICE, BOB]


async def test_new_guild_settings_round_trip(repo: GameRepository) -> None:
    assert await repo.guild_settings(GUILD) == GuildSettings(GUILD)
    settings = GuildSettings(
        GUILD,
        use_threads=True,
        moderator_role_id=77,
        idle_human_seconds=3600,
        idle_ai_seconds=600,
    )
    await repo.save_guild_settings(settings)
    assert await repo.guild_settings(GUILD) == settings


async def test_forgetting_a_user_clears_ends_and_undo_requests(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    await repo.save_undo_request(StoredUndo(game.id, ALICE, BOB, game.version, 1, START))
    other = await repo.create_game(new_game(channel_id=11, black=Player.human(BOB)))
    await repo.finish_game(
        other.id, other.version, ABANDONED, ended_by=ALICE, end_reason="moderator"
    )
    assert await repo.delete_user_data(ALICE) == 2
    assert await repo.undo_request(game.id) is None
    assert (await repo.get_game(other.id)).ended_by is None
