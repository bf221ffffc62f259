"""``python -m storage copy``: a SQLite community moved to PostgreSQL, everything kept."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from engine.types import Point
from storage.copy import CopyError, copy_database
from storage.postgres import PostgresGameRepository
from storage.records import GameRecord, GuildSettings, Player
from storage.sqlite import SqliteGameRepository
from tests.clock import FakeClock
from tests.processes import python_m
from tests.storage.conftest import new_game
from tests.storage.test_differential import START, outcome_of, random_operation, state


async def fill(path: Path, seed: int = 3, steps: int = 300) -> int:
    """A SQLite file with a history of random play (every kind of write the bot makes);
    returns the highest game id."""
    rng = random.Random(seed)
    clock = FakeClock(START)
    created = [0]
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        for step in range(steps):
            clock.now = START + timedelta(seconds=step, microseconds=rng.randrange(10**6))
            games = await repo.open_games()
            result = await outcome_of(random_operation(rng, games, clock), repo)
            if result[0] == "ok" and isinstance(result[1], GameRecord):
                created.append(result[1].id)
        await repo.save_guild_settings(
            GuildSettings(501, turn_seconds=45, allowed_channel_ids=frozenset({12}))
        )
    return max(created)


async def everything(path: Path | None, url: str | None, last_id: int) -> Any:
    ids = range(1, last_id + 2)
    if path is not None:
        async with SqliteGameRepository.open(path) as repo:
            return await state(repo, ids), await repo.guild_settings(501)
    assert url is not None
    async with PostgresGameRepository.open(url) as pg:
        return await state(pg, ids), await pg.guild_settings(501)


def test_copy_moves_everything_and_the_copy_reads_the_same(
    tmp_path: Path, postgres_url: str
) -> None:
    source = tmp_path / "community.sqlite3"
    last_id = asyncio.run(fill(source))
    result = python_m("storage", "copy", str(source), postgres_url, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "games:" in result.stdout
    assert "moves:" in result.stdout
    assert "player_stats:" in result.stdout
    assert asyncio.run(everything(None, postgres_url, last_id)) == asyncio.run(
        everything(source, None, last_id)
    )

    async def play_on() -> GameRecord:
        async with PostgresGameRepository.open(postgres_url) as pg:
            game = await pg.create_game(new_game(channel_id=999, white=Player.ai("easy")))
            return await pg.append_move(game.id, game.version, Point(7, 7), game.to_move)

    game = asyncio.run(play_on())
    assert game.id == last_id + 1  # ids carry on after the copied ones


def test_a_target_that_holds_games_is_refused_and_left_alone(
    tmp_path: Path, postgres_url: str
) -> None:
    source = tmp_path / "community.sqlite3"
    asyncio.run(fill(source, steps=40))

    async def one_game() -> None:
        async with PostgresGameRepository.open(postgres_url) as pg:
            await pg.create_game(new_game())

    asyncio.run(one_game())
    with pytest.raises(CopyError, match="already holds"):
        copy_database(source, postgres_url)

    async def count() -> int:
        conn = await asyncpg.connect(postgres_url)
        try:
            return int(await conn.fetchval("SELECT count(*) FROM games"))
        finally:
            await conn.close()

    assert asyncio.run(count()) == 1


def test_a_missing_source_or_a_wrong_target_gets_a_sentence(tmp_path: Path) -> None:
    with pytest.raises(CopyError, match="no such file"):
        copy_database(tmp_path / "none.sqlite3", "postgresql://nobody@/nothing")
    result = python_m("storage", "copy", str(tmp_path / "x"), "mysql://u:pw@h/db")
    assert result.returncode == 2
    assert "postgresql://" in result.stderr
    assert "pw" not in result.stderr
    assert "Traceback" not in result.stderr
