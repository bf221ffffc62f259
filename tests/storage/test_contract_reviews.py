"""Contract for stored reviews and puzzle players, run on every repository."""

from __future__ import annotations

import pytest

from engine.types import Color, Game, Outcome, Point, Termination
from storage.errors import GameNotFoundError
from storage.records import GameStatus, PuzzlePlayer
from storage.repository import GameRepository
from tests.storage.conftest import ALICE, BOB, CAROL, GUILD, new_game


async def test_a_review_is_stored_and_replaced(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    assert await repo.review(game.id) is None
    await repo.save_review(game.id, '{"format": 1}')
    assert await repo.review(game.id) == '{"format": 1}'
    await repo.save_review(game.id, '{"format": 2}')
    assert await repo.review(game.id) == '{"format": 2}'


async def test_a_review_of_no_game_is_refused(repo: GameRepository) -> None:
    with pytest.raises(GameNotFoundError):
        await repo.save_review(999, "{}")
    assert await repo.review(999) is None


async def test_puzzle_players_are_kept_per_guild_and_ranked(repo: GameRepository) -> None:
    assert await repo.puzzle_player(GUILD, ALICE) is None
    alice = PuzzlePlayer(GUILD, ALICE, rating=1250, streak=2, best_streak=3, solved=5, failed=1)
    await repo.save_puzzle_player(alice)
    await repo.save_puzzle_player(PuzzlePlayer(GUILD, BOB, rating=1300, solved=1))
    await repo.save_puzzle_player(PuzzlePlayer(GUILD, CAROL, attempt='{"key": "x"}'))  # none yet
    await repo.save_puzzle_player(PuzzlePlayer(GUILD + 1, CAROL, rating=2000, solved=9))
    assert await repo.puzzle_player(GUILD, ALICE) == alice
    assert await repo.puzzle_player(GUILD + 1, ALICE) is None
    board = await repo.puzzle_leaderboard(GUILD)
    assert [p.user_id for p in board] == [BOB, ALICE]  # Carol has finished none here
    assert [p.user_id for p in await repo.puzzle_leaderboard(GUILD, limit=1)] == [BOB]
    carol = await repo.puzzle_player(GUILD, CAROL)
    assert carol is not None
    assert carol.attempt == '{"key": "x"}'
    await repo.delete_user_data(ALICE)
    assert await repo.puzzle_player(GUILD, ALICE) is None


async def test_a_guilds_reviews_newest_first(repo: GameRepository) -> None:
    first = await repo.create_game(new_game(channel_id=1))
    second = await repo.create_game(new_game(channel_id=2))
    elsewhere = await repo.create_game(new_game(channel_id=3, guild_id=GUILD + 1))
    await repo.save_review(second.id, "b")
    await repo.save_review(first.id, "a")
    await repo.save_review(elsewhere.id, "c")
    assert await repo.guild_reviews(GUILD) == [(first.id, "a"), (second.id, "b")]
    assert await repo.guild_reviews(GUILD, limit=1) == [(first.id, "a")]
    assert await repo.guild_reviews(GUILD + 2) == []


async def test_the_daily_puzzle_is_claimed_once_a_day(repo: GameRepository) -> None:
    assert await repo.daily_puzzle_channels() == []
    assert not await repo.claim_daily_puzzle(GUILD, "2026-01-01")  # no channel chosen
    await repo.set_daily_puzzle_channel(GUILD, 77)
    assert await repo.daily_puzzle_channels() == [(GUILD, 77, None)]
    assert await repo.claim_daily_puzzle(GUILD, "2026-01-01")
    assert not await repo.claim_daily_puzzle(GUILD, "2026-01-01")
    await repo.set_daily_puzzle_channel(GUILD, 78)  # another channel: the day stays claimed
    assert await repo.daily_puzzle_channels() == [(GUILD, 78, "2026-01-01")]
    assert not await repo.claim_daily_puzzle(GUILD, "2026-01-01")
    assert await repo.claim_daily_puzzle(GUILD, "2026-01-02")
    await repo.set_daily_puzzle_channel(GUILD, None)
    assert await repo.daily_puzzle_channels() == []


async def test_the_puzzles_a_member_finished_are_kept_per_guild(repo: GameRepository) -> None:
    assert await repo.puzzles_seen(GUILD, ALICE) == frozenset()
    await repo.mark_puzzle_seen(GUILD, ALICE, "builtin:suite:0")
    await repo.mark_puzzle_seen(GUILD, ALICE, "game:7:12")
    await repo.mark_puzzle_seen(GUILD, ALICE, "game:7:12")  # again: no change, no error
    await repo.mark_puzzle_seen(GUILD + 1, ALICE, "builtin:suite:1")
    await repo.mark_puzzle_seen(GUILD, BOB, "builtin:suite:2")
    assert await repo.puzzles_seen(GUILD, ALICE) == {"builtin:suite:0", "game:7:12"}
    assert await repo.puzzles_seen(GUILD + 1, ALICE) == {"builtin:suite:1"}
    assert await repo.puzzles_seen(GUILD, BOB) == {"builtin:suite:2"}
    await repo.delete_user_data(ALICE)
    assert await repo.puzzles_seen(GUILD, ALICE) == frozenset()
    assert await repo.puzzles_seen(GUILD + 1, ALICE) == frozenset()
    assert await repo.puzzles_seen(GUILD, BOB) == {"builtin:suite:2"}


async def _finished(
    repo: GameRepository, channel: int, *, guild_id: int | None = GUILD, game: Game = Game.GOMOKU
) -> int:
    """A game with one move, then resigned."""
    record = await repo.create_game(new_game(channel, guild_id=guild_id, game=game))
    record = await repo.append_move(record.id, record.version, Point(7, 7), Color.BLACK)
    win = Outcome(Termination.RESIGN, Color.BLACK)
    done = await repo.finish_game(record.id, record.version, win)
    return done.id


async def test_finished_games_are_searched_for_puzzles_once(repo: GameRepository) -> None:
    assert await repo.unsearched_games() == []
    first = await _finished(repo, 1)
    second = await _finished(repo, 2)
    await _finished(repo, 3, game=Game.TICTACTOE)  # not Gomoku
    await _finished(repo, 4, guild_id=None)  # the terminal's
    await repo.create_game(new_game(5))  # still going
    empty = await repo.create_game(new_game(6))  # finished without a move
    await repo.finish_game(empty.id, empty.version, Outcome(Termination.RESIGN, Color.WHITE))
    await repo.create_game(new_game(7, status=GameStatus.PENDING))
    assert await repo.unsearched_games(limit=5) == [second, first]  # the newest first
    assert await repo.unsearched_games() == [second]
    await repo.save_game_puzzles(second, "[]")  # searched, nothing found
    assert await repo.unsearched_games(limit=5) == [first]
    await repo.save_game_puzzles(first, '[{"key": "game"}]')
    assert await repo.unsearched_games(limit=5) == []
    elsewhere = await _finished(repo, 8, guild_id=GUILD + 1)
    await repo.save_game_puzzles(elsewhere, "[1]")
    assert await repo.guild_game_puzzles(GUILD) == [(second, "[]"), (first, '[{"key": "game"}]')]
    assert await repo.guild_game_puzzles(GUILD, limit=1) == [(second, "[]")]
    assert await repo.guild_game_puzzles(GUILD + 1) == [(elsewhere, "[1]")]
    await repo.save_game_puzzles(second, "[2]")  # replaced
    assert (await repo.guild_game_puzzles(GUILD))[0] == (second, "[2]")
    with pytest.raises(GameNotFoundError):
        await repo.save_game_puzzles(999, "[]")
