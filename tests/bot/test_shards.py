"""Shards across processes: two bot processes (each with its own connection pool, AI runner
and shard) on one PostgreSQL database; each resumes, times and moves for its own guilds only.
Two bots in the test process, then two real ``python -m bot`` processes, against a fake
Discord serving two shards."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from pathlib import Path

import pytest

from bot.core.service import GameService
from bot.core.service.tournaments import TournamentService
from bot.shards import OwnedGames, ShardSpec, shard_of
from storage.club import QueueEntry
from storage.memory import InMemoryGameRepository
from storage.postgres import PostgresGameRepository
from storage.records import GameStatus, NewGame, Player, utc_now
from tests.bot.conftest import BotFactory
from tests.bot.test_service import ALICE, BOB
from tests.botprocess import TOKEN, shard_processes
from tests.clock import FakeClock
from tests.fakediscord import FakeDiscord
from tests.polling import until
from tests.processes import python_m
from tests.runners import CentreRunner, NearestRunner

# Discord puts a guild on shard (id >> 22) % count: one guild for each of two shards.
GUILD_ON_0, GUILD_ON_1 = (2 << 22) | 5, (3 << 22) | 5


def test_shard_ranges_parse() -> None:
    assert ShardSpec.parse("0-3", 8).shard_ids == {0, 1, 2, 3}
    assert ShardSpec.parse("1,4-5", 8).shard_ids == {1, 4, 5}
    for bad, count in [("0-8", 8), ("3-1", 8), ("x", 8), ("", 8), ("0", 0)]:
        with pytest.raises(ValueError):  # noqa: PT011 - each message names its own problem
            ShardSpec.parse(bad, count)
    assert (shard_of(GUILD_ON_0, 2), shard_of(GUILD_ON_1, 2)) == (0, 1)
    spec = ShardSpec.parse("0", 2)
    assert spec.owns(GUILD_ON_0)
    assert not spec.owns(GUILD_ON_1)
    assert spec.owns(None)  # terminal games go with shard 0


def test_python_m_bot_refuses_bad_shards() -> None:
    for args in (["--shards", "0-3"], ["--shards", "5", "--shard-count", "2"]):
        result = python_m("bot", *args, cwd="/")
        assert result.returncode == 2
        assert "Configuration error" in result.stderr
        assert "Traceback" not in result.stderr


async def test_a_process_gives_an_outage_back_to_its_own_games_only() -> None:
    clock = FakeClock()
    shared = InMemoryGameRepository(clock=clock)
    deadline = clock.now + timedelta(minutes=1)
    games = {
        guild: await shared.create_game(
            NewGame(
                guild,
                channel,
                black=Player.human(ALICE),
                white=Player.human(BOB),
                deadline=deadline,
                turn_seconds=60,
            )
        )
        for channel, guild in ((10, GUILD_ON_0), (20, GUILD_ON_1))
    }
    mine = OwnedGames.wrap(shared, ShardSpec.parse("0", 2))
    assert await mine.shift_deadlines(timedelta(seconds=30)) == 1
    moved = {guild: (await shared.get_game(g.id)).deadline for guild, g in games.items()}
    assert moved == {GUILD_ON_0: deadline + timedelta(seconds=30), GUILD_ON_1: deadline}


async def test_a_process_reloads_the_pairing_queues_of_its_own_guilds_only() -> None:
    clock = FakeClock()
    shared = InMemoryGameRepository(clock=clock)
    for user_id, guild in ((ALICE, GUILD_ON_0), (BOB, GUILD_ON_1)):
        entry = QueueEntry(
            guild, user_id, "gomoku", "freestyle", 1000.0, clock.now, 10, True, "en", None, None
        )
        assert await shared.add_queue_entry(entry)
    for shard, (guild, user_id) in enumerate(((GUILD_ON_0, ALICE), (GUILD_ON_1, BOB))):
        mine = OwnedGames.wrap(shared, ShardSpec.parse(str(shard), 2))
        service = TournamentService(mine, NearestRunner(), clock=clock)
        assert await service.resume_queues() == 1
        assert service.pairing_queue(guild).ticket(user_id) is not None
        assert [e.user_id for e in await mine.queue_entries(guild)] == [user_id]


async def test_each_process_resumes_and_times_only_its_own_guilds(postgres_url: str) -> None:
    clock = FakeClock()
    async with (
        PostgresGameRepository.open(postgres_url, clock=clock) as shared,
        PostgresGameRepository.open(postgres_url, clock=clock) as other_pool,
    ):
        # Left by a stopped deployment: in each guild, a game where the AI is to move and a
        # game between people whose clock ran out.
        ai_games, timed_games = {}, {}
        for channel, guild in ((10, GUILD_ON_0), (20, GUILD_ON_1)):
            ai_games[guild] = await shared.create_game(
                NewGame(guild, channel, black=Player.ai("medium"), white=Player.human(ALICE))
            )
            timed_games[guild] = await shared.create_game(
                NewGame(
                    guild,
                    channel + 1,
                    black=Player.human(ALICE),
                    white=Player.human(BOB),
                    deadline=clock.now,
                    turn_seconds=60,
                )
            )
        clock.advance(1)
        runners = NearestRunner(), NearestRunner()
        processes = [
            GameService(
                OwnedGames.wrap(repo, ShardSpec.parse(str(shard), 2)),
                runner,
                clock=clock,
                rng=random.Random(shard),
            )
            for shard, (repo, runner) in enumerate(zip((shared, other_pool), runners, strict=True))
        ]

        # Both start at once; each makes the due AI move of its own guild, and only that.
        for process in processes:
            made = await process.resume()
            assert len(made) == 1
        for process in processes:
            assert await process.resume() == []
        assert [len(r.calls) for r in runners] == [1, 1]
        for guild, game in ai_games.items():
            assert (await shared.get_game(game.id)).ply == 1, guild

        # Clocks: each process ends its own guild's game on time, never the other's.
        first = await processes[0].tick()
        assert [e.game.game_id for e in first] == [timed_games[GUILD_ON_0].id]
        assert (await shared.get_game(timed_games[GUILD_ON_1].id)).status is GameStatus.ACTIVE
        second = await processes[1].tick()
        assert [e.game.game_id for e in second] == [timed_games[GUILD_ON_1].id]
        for game in timed_games.values():
            assert (await shared.get_game(game.id)).status is GameStatus.FINISHED


async def test_two_shard_processes_against_one_discord_split_the_guilds(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock, postgres_url: str
) -> None:
    """Two bots, one per shard of two, on one PostgreSQL database, against a fake Discord
    that gives its guild to one shard: each resumes only its own guilds' games, and the
    guild's commands reach only its owner."""
    owner = fake.shard_of_guild(2)
    elsewhere = ((4 + 1 - owner) << 22) | 7  # a guild on the other shard
    alice = fake.add_user("alice")
    async with (
        PostgresGameRepository.open(postgres_url, clock=clock) as first,
        PostgresGameRepository.open(postgres_url, clock=clock) as second,
    ):
        # Left by a stopped deployment: the AI is to move in a game of each shard's guild.
        here = await first.create_game(
            NewGame(
                fake.guild_id,
                fake.default_channel.id,
                black=Player.ai("easy"),
                white=Player.human(alice.id),
            )
        )
        there = await first.create_game(
            NewGame(elsewhere, 424242, black=Player.ai("easy"), white=Player.human(4242))
        )
        runners = [CentreRunner(), CentreRunner()]
        bots = [
            make_bot(repository=repo, ai=runner, shards=ShardSpec(frozenset({shard}), 2))
            for shard, (repo, runner) in enumerate(zip((first, second), runners, strict=True))
        ]
        async with fake.running(bots[0], sync=True), fake.running(bots[1]):
            assert sorted(len(b.guilds) for b in bots) == [0, 1]
            assert len(bots[owner].guilds) == 1

            # Each process's runner resumes its own games once connected, then says so.
            async with asyncio.timeout(30):
                await asyncio.gather(*(b.runner.resumed.wait() for b in bots))
            plies = [(await first.get_game(g.id)).ply for g in (here, there)]
            assert plies == [1, 1]
            assert [r.calls for r in runners] == [1, 1]  # each AI move made once, by its owner

            record = await fake.send_slash(
                "place", user=alice, channel=fake.default_channel, options={"cell": "a1"}
            )
            reply = await fake.answer(record)
            assert "played **" in reply.content
            await fake.wait_for(lambda: runners[owner].calls == 2)
            assert runners[1 - owner].calls == 1  # the other process never saw the command
            assert (await second.get_game(here.id)).ply == 3


@pytest.mark.slow
async def test_two_bot_processes_each_run_their_shard_on_one_database(
    fake: FakeDiscord, tmp_path: Path, postgres_url: str
) -> None:
    """Two real ``python -m bot --shards N --shard-count 2`` processes on one PostgreSQL
    database, against a fake Discord serving both shards: each resumes, times and moves for
    its own shard's guild only, and a guild's command reaches only its owner."""
    owner = fake.shard_of_guild(2)
    guilds = {owner: fake.guild_id, 1 - owner: ((4 + 1 - owner) << 22) | 7}
    assert shard_of(guilds[1 - owner], 2) == 1 - owner
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    # Left by a stopped deployment, in each shard's guild: a game where the AI is to move,
    # and a game between people whose clock ran out.
    ai_games, timed_games = {}, {}
    async with PostgresGameRepository.open(postgres_url) as db:
        for shard, guild in guilds.items():
            ai_channel = fake.default_channel if shard == owner else fake.add_channel("other")
            ai_games[shard] = await db.create_game(
                NewGame(
                    guild, ai_channel.id, black=Player.ai("beginner"), white=Player.human(alice.id)
                )
            )
            timed_games[shard] = await db.create_game(
                NewGame(
                    guild,
                    fake.add_channel(f"timed-{shard}").id,
                    black=Player.human(alice.id),
                    white=Player.human(bob.id),
                    deadline=utc_now() - timedelta(seconds=1),
                    turn_seconds=60,
                )
            )
        bots = shard_processes(fake.port, tmp_path, lambda _: {"GOMOKU_DATABASE_URL": postgres_url})
        # two processes start cold (each its AI worker) on a shared machine: under a loaded
        # host the first board took over a minute
        fake.answer_timeout = 180.0
        try:

            async def shards() -> list[tuple[int, int]]:
                return fake.connected_shards()

            def posted() -> bool:
                # Each board is posted after the write that changed its game (the AI's move,
                # the loss on time): once all are posted, the store holds every change.
                return all(
                    fake.requests_to("POST", rf"/channels/{g.channel_id}/messages$")
                    for g in (*ai_games.values(), *timed_games.values())
                )

            try:
                # Polled: connecting makes no HTTP request for the fake's ``wait_for`` to see.
                async with asyncio.timeout(180):
                    await until(shards, lambda connected: connected == [(0, 2), (1, 2)])
                await fake.wait_for(posted)
            except TimeoutError:
                raise AssertionError([b.errors() for b in bots]) from None
            for bot in bots:
                assert bot.process.poll() is None, f"a bot exited: {bot.errors()}"
            ai = [(await db.get_game(g.id)).ply for g in ai_games.values()]
            timed = [(await db.get_game(g.id)).status for g in timed_games.values()]
            assert ai == [1, 1]
            assert timed == [GameStatus.FINISHED] * 2

            # Every board of a shard's games came from that shard's process, and only once
            # (the AI's move, the loss on time): the other process never touched them.
            for shard in (0, 1):
                for game in (ai_games[shard], timed_games[shard]):
                    posts = fake.requests_to("POST", rf"/channels/{game.channel_id}/messages$")
                    assert [p.token for p in posts] == [f"{TOKEN}-{shard}"], game

            # A command in the fake's guild reaches its owner only, which lets the AI answer.
            reply = await fake.slash("place", user=alice, options={"cell": "a1"})
            assert "played **" in reply.content
            # The AI's reply is drawn on the board after it is stored.
            await fake.wait_for(lambda: any("3 moves" in m.text() for m in fake.channel_messages()))
            assert (await db.get_game(ai_games[owner].id)).ply == 3
            channels = {g.channel_id for g in (*ai_games.values(), *timed_games.values())}
            for request in fake.requests:
                for shard in (0, 1):
                    mine = {g.channel_id for g in (ai_games[shard], timed_games[shard])}
                    if request.token == f"{TOKEN}-{shard}":
                        touched = {c for c in channels if f"/channels/{c}/" in request.path}
                        assert touched <= mine, request
            for bot in bots:
                assert bot.terminate() == 0, bot.errors()
                assert "Traceback" not in bot.errors()
        finally:
            for bot in bots:
                bot.close()
