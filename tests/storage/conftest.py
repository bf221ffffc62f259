"""Fixtures for the storage tests: one contract suite runs on every repository."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from engine.types import Game
from storage.memory import InMemoryGameRepository
from storage.postgres import PostgresGameRepository
from storage.records import GameStatus, NewGame, Player
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository
from tests.clock import START as START
from tests.clock import FakeClock as FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START, step=timedelta(microseconds=1))


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def repo(
    request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[GameRepository]:
    if request.param == "memory":
        yield InMemoryGameRepository(clock=clock)
    elif request.param == "sqlite":
        async with SqliteGameRepository.open(tmp_path / "t.sqlite3", clock=clock) as sqlite_repo:
            yield sqlite_repo
    else:
        url = request.getfixturevalue("postgres_url")
        async with PostgresGameRepository.open(url, clock=clock) as postgres_repo:
            yield postgres_repo


ALICE, BOB, CAROL = 1001, 1002, 1003
GUILD = 500


def new_game(
    channel_id: int = 10,
    black: Player | None = None,
    white: Player | None = None,
    *,
    guild_id: int | None = GUILD,
    rated: bool = False,
    status: GameStatus = GameStatus.ACTIVE,
    game: Game = Game.GOMOKU,
    deadline: datetime | None = None,
    turn_seconds: int | None = None,
) -> NewGame:
    """A 15x15 freestyle game between Alice (Black) and Bob (White) unless told otherwise."""
    black = black or Player.human(ALICE)
    return NewGame(
        guild_id=guild_id,
        channel_id=channel_id,
        black=black,
        white=white or Player.human(BOB),
        game=game,
        rated=rated,
        status=status,
        deadline=deadline,
        turn_seconds=turn_seconds,
        created_by=black.user_id,
    )
