"""Puzzles through the real discord.py against the fake Discord, with the real process pool:
a puzzle solved by another winning line than the stored one, a move that lets the win go
fails it, the rating, run and leaderboard follow, an attempt survives a restart, and the daily
puzzle is posted once a day, restart or not, saying whether it is a win or a hold, and each
server's its own; a member gets the puzzles they have not finished, restart or not."""

from __future__ import annotations

import asyncio
import json
from datetime import date

import pytest

from benchmarks.bench_review import store_game
from bot.client import GomokuBot
from bot.cogs.puzzles import Passes, PuzzleSearch, search_due
from bot.core.ai import AIError, AnalysisRequest, ProcessPoolRunner
from bot.core.puzzles import Attempt, builtin, daily_puzzle, dump_attempt, load_attempt
from engine.search.analysis import Analysis
from engine.types import Point
from storage.records import PuzzlePlayer
from tests.bot.conftest import BotFactory
from tests.bot.test_puzzles import THREE, finished_with_a_vcf
from tests.clock import FakeClock
from tests.fakediscord import FakeDiscord, FakeUser
from tests.fakediscord.model import Message
from tests.runners import CentreRunner


@pytest.mark.slow
async def test_puzzles_solve_fail_rate_and_survive_a_restart(
    fake: FakeDiscord, make_bot: BotFactory, pool: ProcessPoolRunner, alice: FakeUser
) -> None:
    fake.answer_timeout = 120.0  # the review worker starts cold, on a shared machine
    first = make_bot(ai=pool)
    async with fake.running(first):
        repository = first.service.repository
        none = await fake.slash("place", user=alice, options={"cell": "h8"})
        assert none.ephemeral
        assert "no game in this channel" in none.content
        # the stored answer is e8; i8 makes the other open four
        assert str(THREE.answer) == "e8"
        await repository.save_puzzle_player(
            PuzzlePlayer(fake.guild_id, alice.id, attempt=dump_attempt(Attempt(THREE)))
        )
        shown = await fake.slash("gomoku puzzle play", user=alice)
        assert "Black to play and win" in shown.text()
        going = await fake.slash("place", user=alice, options={"cell": "i8"})
        await fake.wait_for(lambda: "engine answered" in going.text() or "gone" in going.text())
        assert "Still winning" in going.text()
        player = await repository.puzzle_player(fake.guild_id, alice.id)
        assert player is not None
        assert player.attempt is not None
        reply = [p for p in ("e8", "j8") if f"answered **{p}**" in going.text()]
        assert reply, going.text()
        five = "j8" if reply[0] == "e8" else "e8"
        solved = await fake.slash("place", user=alice, options={"cell": five})
        await fake.wait_for(lambda: "Solved" in solved.text())
        player = await repository.puzzle_player(fake.guild_id, alice.id)
        assert player is not None
        assert (player.solved, player.streak, player.attempt) == (1, 1, None)
        assert await repository.puzzles_seen(fake.guild_id, alice.id) == {THREE.key}
        assert player.rating > 1200
        # a move that lets the win go
        await repository.save_puzzle_player(
            PuzzlePlayer(
                fake.guild_id,
                alice.id,
                rating=player.rating,
                streak=1,
                best_streak=1,
                solved=1,
                attempt=dump_attempt(Attempt(THREE)),
            )
        )
        wrong = await fake.slash("place", user=alice, options={"cell": "a15"})
        await fake.wait_for(lambda: "gone" in wrong.text())
        assert "**e8**" in wrong.text()  # one winning start is shown
        failed = await repository.puzzle_player(fake.guild_id, alice.id)
        assert failed is not None
        assert (failed.failed, failed.streak, failed.best_streak) == (1, 0, 1)
        assert failed.rating < player.rating
        assert await repository.puzzles_seen(fake.guild_id, alice.id) == {THREE.key}
        board = await fake.slash("gomoku leaderboard", user=alice, options={"game": "puzzles"})
        assert f"<@{alice.id}>" in board.text()
        assert board.message is not None
        mentions = board.message.allowed_mentions
        assert mentions is not None
        assert mentions.get("parse") == []  # the leaderboard pings nobody
        new = await fake.slash("gomoku puzzle play", user=alice)
        title = new.embeds[0]["title"]
    second = make_bot(ai=pool)
    async with fake.running(second):
        again = await fake.slash("gomoku puzzle play", user=alice)
        assert again.embeds[0]["title"] == title  # the same attempt after a restart


def passes_of(bot: GomokuBot, cog: str) -> Passes:
    """The passes of a background loop of the cog named ``cog`` (the instance discord.py
    loaded, from a module of its own: its class is not the one imported here)."""
    loaded = bot.get_cog(cog)
    assert loaded is not None
    passes = vars(loaded)["passes"]
    assert type(passes).__name__ == Passes.__name__
    return passes  # type: ignore[no-any-return]


async def test_the_daily_puzzle_is_posted_once_a_day_across_a_restart(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock, alice: FakeUser
) -> None:
    def posts() -> list[Message]:
        return [m for m in fake.channel_messages() if "Puzzle of the day" in m.text()]

    def task(day: date) -> str:
        return "holds" if daily_puzzle(day, fake.guild_id).defend else "play and win"

    first = make_bot()
    async with fake.running(first):
        options = {"channel": fake.default_channel}
        refused = await fake.slash("gomoku-admin daily-puzzle", user=alice, options=options)
        assert refused.ephemeral
        assert "Manage Server" in refused.content
        assert posts() == []
        chosen = await fake.slash("gomoku-admin daily-puzzle", user=fake.owner, options=options)
        assert chosen.ephemeral
        await fake.wait_for(lambda: len(posts()) == 1)
        assert "</gomoku puzzle daily:" in posts()[0].text()  # the command as each client names it
        assert "</place:" in posts()[0].text()
        assert task(clock().date()) in posts()[0].embeds[0]["title"]
    second = make_bot()
    async with fake.running(second):
        daily = passes_of(second, "DailyPuzzle")
        await daily.wait(5)  # several polls of the restarted bot: nothing new today
        assert len(posts()) == 1
        today = await fake.slash("gomoku puzzle daily", user=alice)
        assert "Puzzle #" in today.text()  # a built-in one, whichever the day gives
        player = await second.service.repository.puzzle_player(fake.guild_id, alice.id)
        assert player is not None
        assert player.attempt is not None
        assert load_attempt(player.attempt).puzzle == daily_puzzle(clock().date(), fake.guild_id)
        clock.advance(days=1)
        await fake.wait_for(lambda: len(posts()) == 2)
        assert task(clock().date()) in posts()[1].embeds[0]["title"]
        await daily.wait(4)
        assert len(posts()) == 2
        await fake.slash("gomoku-admin daily-puzzle", user=fake.owner)  # stop
        clock.advance(days=1)
        await daily.wait(4)
        assert len(posts()) == 2


def test_servers_do_not_all_get_the_same_daily_puzzle() -> None:
    day = date(2026, 11, 22)
    assert daily_puzzle(day, 1) == daily_puzzle(day, 1)  # stable: a restart keeps it
    assert len({daily_puzzle(day, guild).key for guild in range(1, 20)}) > 1
    ring = [p.key for p in builtin()]
    for guild in (1, 2, 3):  # each server goes round the whole set, one a day
        keys = [
            daily_puzzle(date.fromordinal(day.toordinal() + n), guild).key for n in range(len(ring))
        ]
        assert sorted(keys) == sorted(ring)


async def test_a_member_gets_the_puzzles_they_have_not_finished_across_a_restart(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    puzzles = builtin()
    unseen = next(p for p in reversed(puzzles) if p.defend)
    first = make_bot()
    async with fake.running(first):
        for puzzle in puzzles:
            if puzzle is not unseen:
                await first.service.repository.mark_puzzle_seen(fake.guild_id, alice.id, puzzle.key)
    second = make_bot()
    async with fake.running(second):
        shown = await fake.slash("gomoku puzzle play", user=alice)
        assert shown.ephemeral
        assert "find the one move that holds" in shown.embeds[0]["title"]
        player = await second.service.repository.puzzle_player(fake.guild_id, alice.id)
        assert player is not None
        assert player.attempt is not None
        assert load_attempt(player.attempt).puzzle == unseen
        # another member has finished none: the first of the list
        await fake.slash("gomoku puzzle play", user=bob)
        other = await second.service.repository.puzzle_player(fake.guild_id, bob.id)
        assert other is not None
        assert other.attempt is not None
        assert load_attempt(other.attempt).puzzle == puzzles[0]


async def test_a_finished_game_of_the_server_becomes_its_puzzle(
    fake: FakeDiscord,
    make_bot: BotFactory,
    pool: ProcessPoolRunner,
    alice: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake.answer_timeout = 120.0  # the review worker starts cold, on a shared machine
    bot = make_bot(ai=pool)
    async with fake.running(bot):
        # The search loop was started at its interval by the cog discord.py loaded (a module
        # of its own, not the one imported here): start it again, searching every 50 ms.
        search = bot.get_cog(PuzzleSearch.__name__)
        assert search is not None
        await bot.remove_cog(PuzzleSearch.__name__)
        monkeypatch.setattr(search, "every", 0.05)
        await bot.add_cog(search)
        repository = bot.service.repository
        board = finished_with_a_vcf()
        game = await store_game(repository, board, fake.default_channel.id, fake.guild_id)
        async with asyncio.timeout(fake.answer_timeout):  # the background search, in the worker
            while await repository.unsearched_games() != []:
                await passes_of(bot, PuzzleSearch.__name__).wait()
        ((game_id, text),) = await repository.guild_game_puzzles(fake.guild_id)
        assert game_id == game.id
        assert len(json.loads(text)) == 1
        shown = await fake.slash("gomoku puzzle play", user=alice)
        assert f"Puzzle from game {game.id}" in shown.embeds[0]["title"]
        assert "Black to play and win" in shown.embeds[0]["title"]


class Failing(CentreRunner):
    """Moves as ``CentreRunner``; analyses fail: first as a dead worker, then as a bug."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[Exception] = [AIError("worker died"), RuntimeError("bug")]

    async def analyse(self, request: AnalysisRequest) -> Analysis:
        raise self.errors.pop(0)


async def test_a_game_the_search_fails_on_is_tried_again_or_skipped(
    fake: FakeDiscord, make_bot: BotFactory
) -> None:
    bot = make_bot(ai=Failing())
    async with fake.running(bot):
        repository = bot.service.repository
        game = await store_game(repository, finished_with_a_vcf(), 1, fake.guild_id)
        assert await search_due(bot) is None  # the worker died: again later
        assert await repository.unsearched_games() == [game.id]
        assert await search_due(bot) == game.id  # a bug: skipped, not retried forever
        assert await repository.guild_game_puzzles(fake.guild_id) == [(game.id, "[]")]
        assert await search_due(bot) is None  # nothing left


async def test_place_suggests_the_empty_points_of_the_members_puzzle(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    await bot.service.repository.save_puzzle_player(
        PuzzlePlayer(fake.guild_id, alice.id, attempt=dump_attempt(Attempt(THREE)))
    )
    board = Attempt(THREE).board()
    choices = await fake.autocomplete("place", "cell", user=alice, options={"cell": ""})
    names = [choice["value"] for choice in choices]
    assert len(names) == 25
    assert all(board[Point.parse(name)] is None for name in names)
    assert {"e8", "i8"} <= set(names)  # beside the three, where the action is
    typed = await fake.autocomplete("place", "cell", user=alice, options={"cell": "e"})
    column = [choice["value"] for choice in typed]
    assert all(name.startswith("e") for name in column)
    assert set(column[:3]) == {"e7", "e8", "e9"}  # the e points beside the three first
    # Bob has no puzzle and the channel no game: nothing to suggest.
    assert await fake.autocomplete("place", "cell", user=bob, options={"cell": ""}) == []
