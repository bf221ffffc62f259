"""Fixtures for the storage tests: one contract suite runs on every repository."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.types import Game, Rule
from storage.memory import InMemoryGameRepository
from storage.postgres import PostgresGameRepository
from storage.repository import GameRepository, GameStatus, NewGame, Player
from storage.sqlite import SqliteGameRepository

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    """A clock the test moves by hand (microsecond steps keep every stamp distinct)."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)
        return self.now

    def advance(self, seconds: float) -> datetime:
        """Move on by ``seconds`` and return the new time."""
        self.now += timedelta(seconds=seconds)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


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
    """A game between Alice (Black) and Bob (White) unless told otherwise."""
    black = black or Player.human(ALICE)
    return NewGame(
        guild_id=guild_id,
        channel_id=channel_id,
        black=black,
        white=white or Player.human(BOB),
        game=game,
        width=15,
        height=15,
        rule=Rule.FREESTYLE,
        rated=rated,
        status=status,
        deadline=deadline,
        turn_seconds=turn_seconds,
        created_by=black.user_id,
    )
