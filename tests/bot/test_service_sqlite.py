"""GameService on real SQLite files: a rated game to the end, races between two connections
(two bot processes on one database), and a restart that makes the AI move that was due, with
the real process pool."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.core.ai import ProcessPoolRunner
from bot.core.service import GameService
from bot.core.service.errors import NotYourTurnError
from engine.types import Color, Point, Termination
from storage.records import GameStatus, Player
from storage.sqlite import SqliteGameRepository
from tests.bot.test_service import ALICE, BOB, CHANNEL, GUILD, start_pvp
from tests.runners import NearestRunner


async def test_rated_game_to_the_end(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "g.sqlite3") as repo:
        service = GameService(repo, NearestRunner(), rng=random.Random(0))
        pending = await service.start(
            channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB, colour="black"
        )
        await service.accept(pending.game_id, BOB)
        moves = ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"]
        # Swap2, the opening of rated games: Alice places three stones, Bob keeps White.
        for text in moves[:3]:
            await service.place(CHANNEL, ALICE, Point.parse(text))
        await service.opening_choice(pending.game_id, BOB, "white")
        result = None
        for i, text in enumerate(moves[3:]):
            result = await service.place(CHANNEL, (BOB, ALICE)[i % 2], Point.parse(text))
        assert result is not None
        assert result.finished
        assert result.game.winner == Player.human(ALICE)
        assert {c.user_id for c in result.ratings} == {ALICE, BOB}
        export = await service.export(CHANNEL, game_id=pending.game_id)
        assert export.moves == " ".join(moves)
    # Everything is on disk.
    async with SqliteGameRepository.open(tmp_path / "g.sqlite3") as repo:
        view = await GameService(repo, NearestRunner()).game(pending.game_id)
        assert view.status is GameStatus.FINISHED
        assert view.outcome is not None
        assert view.outcome.termination is Termination.FIVE
        assert len(view.board.moves) == 9


async def test_two_connections_racing_one_counts(tmp_path: Path) -> None:
    path = tmp_path / "race.sqlite3"
    async with (
        SqliteGameRepository.open(path) as first_repo,
        SqliteGameRepository.open(path) as second_repo,
    ):
        one = GameService(first_repo, NearestRunner())
        two = GameService(second_repo, NearestRunner())
        await start_pvp(one, accept_on=two)
        for _ in range(5):
            view = await one.board(CHANNEL)
            mover = view.to_move
            assert mover is not None
            assert mover.user_id is not None
            free = [p for p in view.board.legal_moves() if p.x in (0, 14)]
            results = await asyncio.gather(
                one.place(CHANNEL, mover.user_id, free[0]),
                two.place(CHANNEL, mover.user_id, free[1]),
                one.place(CHANNEL, mover.user_id, free[2]),
                return_exceptions=True,
            )
            errors = [r for r in results if isinstance(r, BaseException)]
            assert [type(e) for e in errors] == [NotYourTurnError, NotYourTurnError]
            after = await two.board(CHANNEL)
            assert len(after.board.moves) == len(view.board.moves) + 1


@pytest.mark.slow
async def test_restart_makes_the_due_ai_move_with_the_real_pool(tmp_path: Path) -> None:
    path = tmp_path / "restart.sqlite3"
    async with SqliteGameRepository.open(path) as repo:
        before = GameService(repo, NearestRunner())
        view = await before.start(
            channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white", level="beginner"
        )
        assert view.is_ai_turn
        # The bot stops here, before the AI has moved.
    async with (
        SqliteGameRepository.open(path) as repo,
        ProcessPoolRunner(workers=1) as pool,
    ):
        after = GameService(repo, pool)
        made = await after.resume()
        assert len(made) == 1
        assert made[0].move.color is Color.BLACK
        assert made[0].game.to_move == Player.human(ALICE)
        reply = await after.place(CHANNEL, ALICE, next(iter(made[0].game.board.legal_moves())))
        assert reply.ai_due
        answer = await after.ai_reply(view.game_id)
        assert answer is not None
        assert len(answer.game.board.moves) == 3
