"""What only the PostgreSQL repository promises: its schema steps, refusing databases that are
not ours, and two processes (two pools) sharing one database without lost updates."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from engine.types import Outcome, Point, Termination
from storage.errors import (
    ChannelBusyError,
    DatabaseTooNewError,
    ForeignDatabaseError,
    VersionConflictError,
)
from storage.postgres import APPLICATION_ID, LATEST_VERSION, MIGRATIONS, PostgresGameRepository
from storage.records import Player, TurnPing
from storage.repository import GameRepository
from storage.sqlite import MIGRATIONS as SQLITE_MIGRATIONS
from tests.storage.conftest import ALICE, BOB, GUILD, new_game


async def sql(url: str, statement: str) -> object:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(statement)
    finally:
        await conn.close()


def test_migrations_are_numbered_as_sqlites() -> None:
    assert [m.version for m in MIGRATIONS] == [m.version for m in SQLITE_MIGRATIONS]
    assert [m.name for m in MIGRATIONS] == [m.name for m in SQLITE_MIGRATIONS]


async def test_a_fresh_database_is_migrated_and_marked(postgres_url: str) -> None:
    async with PostgresGameRepository.open(postgres_url):
        pass
    assert await sql(postgres_url, "SELECT application_id, version FROM gomoku_schema") == [
        (APPLICATION_ID, LATEST_VERSION)
    ]
    async with PostgresGameRepository.open(postgres_url) as repo:  # opening again is a no-op
        assert await repo.open_games() == []


async def test_two_processes_opening_a_fresh_database_apply_each_step_once(
    postgres_url: str,
) -> None:
    async def open_close() -> None:
        async with PostgresGameRepository.open(postgres_url):
            pass

    await asyncio.gather(*(open_close() for _ in range(4)))
    assert await sql(postgres_url, "SELECT version FROM gomoku_schema") == [(LATEST_VERSION,)]


async def test_someone_elses_database_is_refused_untouched(postgres_url: str) -> None:
    await sql(postgres_url, "CREATE TABLE invoices (id integer)")
    with pytest.raises(ForeignDatabaseError):
        await PostgresGameRepository.connect(postgres_url)
    tables = await sql(postgres_url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    assert tables == [("invoices",)]


async def test_a_newer_schema_is_refused(postgres_url: str) -> None:
    async with PostgresGameRepository.open(postgres_url):
        pass
    await sql(postgres_url, f"UPDATE gomoku_schema SET version = {LATEST_VERSION + 1}")
    with pytest.raises(DatabaseTooNewError) as caught:
        await PostgresGameRepository.connect(postgres_url)
    assert (caught.value.found, caught.value.supported) == (LATEST_VERSION + 1, LATEST_VERSION)


async def test_moves_are_append_only(postgres_url: str) -> None:
    async with PostgresGameRepository.open(postgres_url) as repo:
        game = await repo.create_game(new_game())
        await repo.append_move(game.id, game.version, Point(7, 7), game.to_move)
    with pytest.raises(asyncpg.RaiseError, match="append-only"):
        await sql(postgres_url, "UPDATE moves SET x = 0")
    with pytest.raises(asyncpg.RaiseError, match="append-only"):
        await sql(postgres_url, "DELETE FROM moves")


# --- two bot processes on one database --------------------------------------------------


async def test_racing_writers_in_two_processes_one_wins(postgres_url: str) -> None:
    async with (
        PostgresGameRepository.open(postgres_url) as one,
        PostgresGameRepository.open(postgres_url) as two,
    ):
        game = await one.create_game(new_game())
        results = await asyncio.gather(
            one.append_move(game.id, game.version, Point(7, 7), game.to_move),
            two.append_move(game.id, game.version, Point(8, 8), game.to_move),
            return_exceptions=True,
        )
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, VersionConflictError)]
        assert (len(won), len(lost)) == (1, 1)
        assert len((await two.load_game(game.id)).moves) == 1


async def test_one_open_game_per_channel_across_processes(postgres_url: str) -> None:
    async with (
        PostgresGameRepository.open(postgres_url) as one,
        PostgresGameRepository.open(postgres_url) as two,
    ):
        results = await asyncio.gather(
            *(repo.create_game(new_game(channel_id=77)) for repo in [one, two] * 3),
            return_exceptions=True,
        )
        assert sum(not isinstance(r, BaseException) for r in results) == 1
        assert all(isinstance(r, ChannelBusyError) for r in results if isinstance(r, BaseException))


async def test_ratings_from_two_processes_are_not_lost(postgres_url: str) -> None:
    """Alice finishes many rated games at once, half through each process: every one counts."""
    games = 12
    async with (
        PostgresGameRepository.open(postgres_url) as one,
        PostgresGameRepository.open(postgres_url) as two,
    ):
        created = [
            await one.create_game(
                new_game(channel_id=100 + i, white=Player.human(BOB + i), rated=True)
            )
            for i in range(games)
        ]

        async def win(repo: GameRepository, index: int) -> None:
            game = created[index]
            await repo.finish_game(game.id, game.version, Outcome(Termination.RESIGN, game.to_move))

        await asyncio.gather(*(win(one if i % 2 else two, i) for i in range(games)))
        stats = await one.player_stats(ALICE)
        in_guild = await two.player_stats(ALICE, guild_id=GUILD)
    assert stats is not None
    assert in_guild is not None
    assert (stats.wins, in_guild.wins) == (games, games)
    assert stats.streak == games


async def test_a_move_and_the_reads_around_it_are_one_round_trip_each(postgres_url: str) -> None:
    """A pooled connection is held for each round trip, so under load the round trips bound
    how many operations a pool completes: a move is one statement (no BEGIN, no COMMIT), and
    returning a connection to the pool sends nothing."""
    async with PostgresGameRepository.open(postgres_url, max_size=1) as repo:
        game = await repo.create_game(new_game())
        sent: list[str] = []
        async with repo._pool.acquire() as conn:  # the pool's only connection
            conn.add_query_logger(lambda record: sent.append(record.query))
        moved = await repo.append_move(game.id, game.version, Point(7, 7), game.to_move)
        assert await repo.get_game(game.id) == moved
        assert await repo.open_game_in_channel(game.channel_id) == moved
        await repo.save_turn_ping(TurnPing(game.id, game.channel_id, 99, moved.version))
        await repo.drop_turn_ping(game.id)
        assert len(sent) == 5, sent
        with pytest.raises(VersionConflictError):  # the stale move changes nothing
            await repo.append_move(game.id, game.version, Point(8, 8), game.to_move)
        assert [(m.ply, m.point) for m in await repo.move_history(game.id)] == [(0, Point(7, 7))]
        assert await repo.get_game(game.id) == moved
