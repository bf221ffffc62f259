"""The durable repositories against the model: random operation sequences, identical answers.

The in-memory repository is the obvious model (dictionaries, no SQL); every answer a durable
repository (SQLite, PostgreSQL) gives, record or error, must be the same, and so must the
final state.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine.types import Color, Game, Outcome, Point, Rule, Termination
from storage.memory import InMemoryGameRepository
from storage.postgres import PostgresGameRepository
from storage.records import (
    CHALLENGE_CLOSINGS,
    GameRecord,
    GameStatus,
    GuildSettings,
    NewGame,
    Player,
    StoredUndo,
)
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository
from tests.clock import FakeClock

USERS = [1, 2, 3, 4]
LEVELS = ["easy", "master"]
GUILDS = [None, 500, 501]
CHANNELS = [10, 11, 12, 13, 14]
START = datetime(2026, 1, 1, tzinfo=UTC)


async def outcome_of(call: Callable[[GameRepository], Awaitable[Any]], repo: GameRepository) -> Any:
    try:
        return ("ok", await call(repo))
    except Exception as error:  # the error itself is the answer being compared
        return ("error", type(error).__name__, str(error))


def random_player(rng: random.Random) -> Player:
    if rng.random() < 0.25:
        return Player.ai(rng.choice(LEVELS))
    return Player.human(rng.choice(USERS))


def random_operation(
    rng: random.Random, games: list[Any], clock: FakeClock
) -> Callable[[GameRepository], Awaitable[Any]]:
    """One call, chosen against the current state (``games``: the model's records)."""
    later = clock.now + timedelta(seconds=rng.randrange(1, 600))
    game = rng.choice(games) if games and rng.random() < 0.95 else None
    game_id = game.id if game else rng.randrange(1, 50)
    version = game.version if game else 1
    if game and rng.random() < 0.1:
        version -= rng.choice([1, -1])  # stale or from the future: a conflict
    kind = rng.choices(
        ["create", "move", "takeback", "finish", "accept", "close", "deadline", "warn",
         "message", "due", "delete", "settings", "thread", "undo", "undo-drop"],
        weights=[12, 40, 6, 5, 5, 3, 3, 3, 2, 3, 1, 2, 2, 2, 1],
    )[0]  # fmt: skip
    if kind == "create" or game is None:
        black, white = random_player(rng), random_player(rng)
        rated = black.is_human and white.is_human and black != white and rng.random() < 0.7
        new = NewGame(
            guild_id=rng.choice(GUILDS),
            channel_id=rng.choice(CHANNELS),
            black=black,
            white=white,
            game=rng.choice(list(Game)),
            rule=rng.choice(list(Rule)),
            rated=rated,
            status=rng.choice([GameStatus.ACTIVE, GameStatus.ACTIVE, GameStatus.PENDING]),
            deadline=later if rng.random() < 0.5 else None,
            turn_seconds=rng.choice([None, 60]),
            created_by=black.user_id,
        )
        return lambda repo: repo.create_game(new)
    if kind == "move":
        color = game.to_move if rng.random() < 0.9 else game.to_move.opponent
        point = Point(rng.randrange(15), rng.randrange(15))
        outcome = None
        if rng.random() < 0.08:
            outcome = Outcome(Termination.FIVE, color)
        elif rng.random() < 0.02:
            outcome = Outcome(Termination.DRAW, None)
        deadline = later if rng.random() < 0.5 else None
        return lambda repo: repo.append_move(
            game_id, version, point, color, deadline=deadline, outcome=outcome
        )
    if kind == "takeback":
        count = rng.randrange(0, 4)
        return lambda repo: repo.take_back(game_id, version, count, deadline=later)
    if kind == "finish":
        termination = rng.choice(list(Termination))
        winner = rng.choice([Color.BLACK, Color.WHITE, None])
        ended_by = rng.choice([None, *USERS])
        reason = rng.choice([None, "moderator", "idle", "replaced", "nonsense"])
        return lambda repo: repo.finish_game(
            game_id, version, Outcome(termination, winner), ended_by=ended_by, end_reason=reason
        )
    if kind == "thread":
        thread = rng.choice([*CHANNELS, 20, 21])
        return lambda repo: repo.move_game(game_id, thread, parent_channel_id=10)
    if kind == "undo":
        request = StoredUndo(game_id, rng.choice(USERS), rng.choice(USERS), version, 1, later)
        return lambda repo: repo.save_undo_request(request)
    if kind == "undo-drop":
        return lambda repo: repo.drop_undo_request(game_id)
    if kind == "accept":
        return lambda repo: repo.accept_challenge(game_id, version, deadline=later)
    if kind == "close":
        status = rng.choice(sorted(CHALLENGE_CLOSINGS))
        return lambda repo: repo.close_challenge(game_id, version, status)
    if kind == "deadline":
        return lambda repo: repo.set_deadline(game_id, version, later)
    if kind == "warn":
        return lambda repo: repo.mark_warning_sent(game_id, version)
    if kind == "message":
        message = rng.randrange(1000)
        return lambda repo: repo.set_message(game_id, channel_id=99, message_id=message)
    if kind == "due":
        return lambda repo: repo.games_due(later)
    if kind == "delete":
        user = rng.choice(USERS)
        return lambda repo: repo.delete_user_data(user)
    settings = GuildSettings(
        500,
        default_rule=rng.choice(list(Rule)),
        turn_seconds=rng.choice([None, 30, 90]),
        allowed_channel_ids=frozenset(rng.sample(CHANNELS, rng.randrange(3))),
        use_threads=rng.random() < 0.5,
        moderator_role_id=rng.choice([None, 77]),
        idle_human_seconds=rng.choice([None, 3600]),
        idle_ai_seconds=rng.choice([None, 600]),
    )
    return lambda repo: repo.save_guild_settings(settings)


async def state(repo: GameRepository, game_ids: range) -> Any:
    """Everything observable, read through the public contract."""
    snapshots = []
    for game_id in game_ids:
        snapshots.append(await outcome_of(lambda r: r.load_game(game_id), repo))  # noqa: B023
        snapshots.append(await outcome_of(lambda r: r.move_history(game_id), repo))  # noqa: B023
        snapshots.append(await repo.undo_request(game_id))
    boards: list[Any] = []
    for game in Game:
        for guild in GUILDS:
            boards.append(await repo.leaderboard(game, guild_id=guild, limit=100))
            boards.append(await repo.leaderboard(game, guild_id=guild, min_games=2))
            for user in USERS:
                boards.append(await repo.player_stats(user, game, guild_id=guild))
    histories: list[Any] = []
    for user in USERS:
        for guild in GUILDS:
            histories.append(await repo.user_games(user, guild_id=guild, limit=7))
            histories.append(await repo.user_results(user, guild_id=guild))
            page = await repo.user_games(user, guild_id=guild, limit=3)
            if page:
                histories.append(
                    await repo.user_games(user, guild_id=guild, limit=3, before_id=page[-1].id)
                )
    return (
        snapshots,
        boards,
        histories,
        await repo.open_games(),
        [await repo.open_game_in_channel(c) for c in CHANNELS],
        await repo.guild_settings(500),
    )


@asynccontextmanager
async def durable(
    kind: str, request: pytest.FixtureRequest, clock: FakeClock
) -> AsyncIterator[Any]:
    if kind == "sqlite":
        path = request.getfixturevalue("tmp_path") / "t.sqlite3"
        async with SqliteGameRepository.open(path, clock=clock) as repo:
            yield repo
    else:
        url = request.getfixturevalue("postgres_url")
        async with PostgresGameRepository.open(url, clock=clock) as repo:
            yield repo


@pytest.mark.parametrize(
    ("kind", "seed"), [("sqlite", seed) for seed in range(6)] + [("postgres", s) for s in range(4)]
)
async def test_durable_answers_like_the_model(
    request: pytest.FixtureRequest, kind: str, seed: int
) -> None:
    rng = random.Random(seed)
    clock = FakeClock(START)
    model = InMemoryGameRepository(clock=clock)
    async with durable(kind, request, clock) as durable_repo:
        created: list[int] = []
        for step in range(250):
            clock.now = START + timedelta(seconds=step)
            games = await model.open_games()
            if created and rng.random() < 0.2:  # now and then, aim at a closed game
                games.append(await model.get_game(rng.choice(created)))
            call = random_operation(rng, games, clock)
            expected = await outcome_of(call, model)
            assert await outcome_of(call, durable_repo) == expected, f"step {step}"
            if expected[0] == "ok" and isinstance(expected[1], GameRecord):
                created.append(expected[1].id)
        ids = range(1, max(created, default=0) + 2)
        assert await state(durable_repo, ids) == await state(model, ids)
        assert len(set(created)) > 10  # the run did build up some games
