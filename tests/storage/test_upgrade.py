"""Databases written by the released schema (version 12) open and read the same today.

``fixtures/sqlite_v12.sql.gz`` and ``fixtures/postgres_v12.sql.gz`` are gzipped dumps of
databases that the release before the shared SQL repository wrote by running ``populate`` below
(the SQLite one made with ``sqlite3``'s ``iterdump``, the PostgreSQL one with ``pg_dump
--inserts``; data, so they are stored compressed). Each test restores its dump, opens it
with today's repository, and compares everything it reads with the in-memory model fed the
same calls; then it keeps playing on both, so the upgraded database is shown to take new
writes too.

Rebuild a dump only when the released schema changes: ``python -m tests.storage.test_upgrade
sqlite|postgres OUT`` with that release's code.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager, closing, contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from engine.types import Color, Game, Point, Rule
from storage.club import Format, NewTournament, Pairing, QueueEntry, Result
from storage.memory import InMemoryGameRepository
from storage.postgres import PostgresGameRepository
from storage.records import (
    GameRecord,
    GuildSettings,
    NewGame,
    PendingReply,
    Player,
    PlayerStats,
    PuzzlePlayer,
    StoredUndo,
    TurnPing,
)
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository
from tests.clock import FakeClock
from tests.storage.test_differential import (
    START,
    outcome_of,
    random_operation,
    state,
)

FIXTURES = Path(__file__).with_name("fixtures")
APPLICATION_ID = 0x476D6B62
RELEASED_VERSION = 12
STEPS = 160
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _dump(kind: str) -> str:
    """The SQL text of the fixture dump of ``kind``."""
    return gzip.decompress((FIXTURES / f"{kind}_v12.sql.gz").read_bytes()).decode("utf-8")


@contextmanager
def released_sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    """A SQLite file at ``path`` as the released code left it, open for a test to add rows."""
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.executescript(_dump("sqlite"))
        # The file header, which a dump does not carry, as the released code set it.
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {RELEASED_VERSION}")
        yield db


def _write_dump(out: Path, text: str) -> None:
    """Store a dump as the fixtures are stored: gzipped, with no timestamp in the header."""
    out.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))


async def populate(repo: GameRepository, clock: FakeClock) -> list[int]:
    """The calls behind the fixtures: random play (as the differential test makes it), then
    one of every side record. Returns the ids of the games created."""
    rng = random.Random(12)
    created: list[int] = []
    for step in range(STEPS):
        clock.now = START + timedelta(seconds=step)
        answer = await outcome_of(random_operation(rng, await repo.open_games(), clock), repo)
        if answer[0] == "ok" and isinstance(answer[1], GameRecord):
            created.append(answer[1].id)
    clock.now = START + timedelta(days=1)
    first = created[0]
    await repo.save_review(first, '{"review": 1}')
    await repo.save_game_puzzles(first, '[{"puzzle": 1}]')
    await repo.save_puzzle_player(PuzzlePlayer(500, 1, 1234, 2, 3, 4, 1, "try"))
    await repo.mark_puzzle_seen(500, 1, "k1")
    await repo.set_daily_puzzle_channel(500, 12)
    await repo.claim_daily_puzzle(500, "2026-01-02")
    await repo.save_user_language(2, "fr")
    await repo.save_user_view(3, "compact")
    await repo.save_turn_ping(TurnPing(first, 10, 77, 3))
    await repo.save_pending_reply(PendingReply("tok-B", first, 9, 8, 1, clock.now))
    await repo.save_pending_reply(PendingReply("tok-a", first, 9, 7, 2, clock.now))
    await repo.save_guild_settings(
        GuildSettings(
            501,
            turn_seconds=45,
            allowed_channel_ids=frozenset({10, 11}),
            rated_opening="swap2",
            language="de",
            turn_pings=False,
            ai_clock=True,
        )
    )
    opened = await repo.create_game(
        NewGame(500, 40, Player.human(1), Player.human(2), opening="swap")
    )
    await repo.record_opening_step(
        opened.id, opened.version, "3:two", black=Player.human(2), white=Player.human(1)
    )
    created.append(opened.id)
    return created


async def observed(repo: GameRepository, ids: list[int]) -> Any:
    """Everything ``populate`` wrote, read through the contract."""
    first = ids[0]
    return (
        await state(repo, range(1, max(ids) + 2)),
        await repo.review(first),
        await repo.guild_reviews(500),
        await repo.guild_game_puzzles(500),
        await repo.unsearched_games(5),
        await repo.puzzle_player(500, 1),
        await repo.puzzle_leaderboard(500),
        await repo.puzzles_seen(500, 1),
        await repo.daily_puzzle_channels(),
        await repo.user_language(2),
        await repo.user_view(3),
        await repo.turn_ping(first),
        await repo.pending_replies(),
        await repo.guild_settings(501),
        await repo.game_opening(ids[-1]),
    )


# The released ratings, one per player, game kind and scope (0: overall); the upgrade keeps
# each under freestyle, as ``storage/migrations/*/0013_fair_ratings.sql`` says.
RELEASED_RATINGS = """
SELECT scope, game, user_id, mu, sigma, wins_black, wins_white, losses_black, losses_white,
    draws_black, draws_white, streak, best_streak, updated_at
FROM player_stats ORDER BY scope, game, user_id
"""


RECORD_FIELDS = (
    "mu",
    "sigma",
    "wins_black",
    "wins_white",
    "losses_black",
    "losses_white",
    "draws_black",
    "draws_white",
    "streak",
    "best_streak",
)


def kept_ratings(rows: list[Any]) -> list[PlayerStats]:
    """The released rows as today's ratings: every one kept, under freestyle."""
    kept = []
    for scope, game, user_id, *record, at in rows:
        when = at if isinstance(at, datetime) else EPOCH + timedelta(microseconds=at)
        guild = None if scope == 0 else scope
        counts = dict(zip(RECORD_FIELDS, record, strict=True))
        kept.append(
            PlayerStats(user_id, Game(game), guild, updated_at=when, rule=Rule.FREESTYLE, **counts)
        )
    assert kept, "the fixture has ratings to keep"
    return kept


async def test_a_released_sqlite_database_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with released_sqlite(path) as db:
        released = db.execute(RELEASED_RATINGS).fetchall()
    await reads_the_same(lambda clock: SqliteGameRepository.open(path, clock=clock), released)


async def test_a_released_postgres_database_reads_the_same(postgres_url: str) -> None:
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute(_dump("postgres"))
        await conn.execute("SELECT pg_catalog.set_config('search_path', 'public', false)")
        assert await conn.fetchval("SELECT version FROM gomoku_schema") == RELEASED_VERSION
        released = [tuple(row) for row in await conn.fetch(RELEASED_RATINGS)]
    finally:
        await conn.close()
    await reads_the_same(
        lambda clock: PostgresGameRepository.open(postgres_url, clock=clock), released
    )


async def reads_the_same(
    open_repo: Callable[[FakeClock], AbstractAsyncContextManager[GameRepository]],
    released: list[Any],
) -> None:
    """The restored database answers as the model fed the fixture's calls and holding the
    ``released`` ratings, then plays on."""
    clock = FakeClock(START)
    model = InMemoryGameRepository(clock=clock)
    ids = await populate(model, clock)
    # Today's code rates each rule apart; the released one did not: the model holds the
    # released ratings, so the comparison below shows the upgrade kept every one of them.
    model.load_stats(kept_ratings(released))
    # Guild 501 was saved under the released default, threads off; the model holds today's,
    # threads on, which the upgrade gives every server (``0015_threads_by_default.sql``).
    async with open_repo(clock) as repo:
        assert await observed(repo, ids) == await observed(model, ids)
        # The released requests, stored before requests noted their message
        # (``0020_undo_messages.sql``), read back with none.
        requests = await repo.undo_requests()
        assert requests == await model.undo_requests()
        assert requests
        assert {(r.channel_id, r.message_id) for r in requests} == {(None, None)}
        await play_on(repo, model, clock, ids)


async def play_on(
    repo: GameRepository, model: InMemoryGameRepository, clock: FakeClock, ids: list[int]
) -> None:
    """More calls on the upgraded database and the model: the same answers, the same state."""
    rng = random.Random(99)
    for step in range(120):
        clock.now = START + timedelta(days=2, seconds=step)
        call = random_operation(rng, await model.open_games(), clock)
        expected = await outcome_of(call, model)
        assert await outcome_of(call, repo) == expected, f"step {step}"
        if expected[0] == "ok" and isinstance(expected[1], GameRecord):
            ids.append(expected[1].id)
    game = await model.create_game(NewGame(500, 41, Player.human(3), Player.human(4)))
    assert await repo.create_game(NewGame(500, 41, Player.human(3), Player.human(4))) == game
    for move in (Point(7, 7), Point(8, 8)):
        color = Color.BLACK if game.ply % 2 == 0 else Color.WHITE
        game = await model.append_move(game.id, game.version, move, color)
        assert await repo.append_move(game.id, game.version - 1, move, color) == game
    ids.append(game.id)
    assert await observed(repo, ids) == await observed(model, ids)
    await hold_a_tournament(repo, model, game.id)
    await queue_two_members(repo, model, clock)
    await note_an_undo_message(repo, model, game.id, game.version)
    assert await repo.leaderboard(Game.GOMOKU, limit=100) == await model.leaderboard(
        Game.GOMOKU, limit=100
    )


async def hold_a_tournament(
    repo: GameRepository, model: InMemoryGameRepository, game_id: int
) -> None:
    """The tables the upgrade adds (``0018_tournaments.sql``) take a tournament as the model
    does, its round linked to a game of the upgraded database."""
    new = NewTournament(500, 40, "After the upgrade", Format.SWISS, "gomoku", "freestyle", 2, 60, 1)
    tournament = await model.create_tournament(new)
    assert await repo.create_tournament(new) == tournament
    tid = tournament.id
    for user in (3, 4, 5):
        assert await repo.add_entrant(tid, user, 1500) == await model.add_entrant(tid, user, 1500)
    boards = [Pairing(tid, 1, 1, 3, 4, None, None), Pairing(tid, 1, 2, 5, None, Result.BYE, None)]
    assert await repo.store_round(tid, 1, boards) == await model.store_round(tid, 1, boards)
    for store in (repo, model):
        assert await store.set_pairing_game(tid, 1, 1, game_id)
        assert await store.set_pairing_result(tid, 1, 1, Result.BLACK_WINS)
    for read in ("entrants", "rounds", "pairings"):
        assert await getattr(repo, read)(tid) == await getattr(model, read)(tid), read
    assert await repo.live_tournaments() == await model.live_tournaments() == [tournament]


async def queue_two_members(
    repo: GameRepository, model: InMemoryGameRepository, clock: FakeClock
) -> None:
    """The table the upgrade adds (``0019_pairing_queue.sql``) keeps the queue as the model
    does: two places, one taken out."""
    for user, seconds in ((3, 0), (4, 5)):
        entry = QueueEntry(
            500, user, "gomoku", "freestyle", 1012.5, clock.now + timedelta(seconds=seconds),
            40, True, "de", f"t{user}", 900 + user,
        )  # fmt: skip
        assert await repo.add_queue_entry(entry) == await model.add_queue_entry(entry) is True
    assert await repo.take_queue_entries(500, [3]) == await model.take_queue_entries(500, [3])
    assert await repo.queue_entries() == await model.queue_entries()
    assert [e.user_id for e in await repo.queue_entries(500)] == [4]


async def note_an_undo_message(
    repo: GameRepository, model: InMemoryGameRepository, game_id: int, version: int
) -> None:
    """The columns the upgrade adds (``0020_undo_messages.sql``) note where a request was
    posted, as the model does."""
    request = StoredUndo(game_id, 3, 4, version, 1, START + timedelta(days=3))
    for store in (repo, model):
        await store.save_undo_request(request)
        assert await store.set_undo_message(game_id, version, 41, 2**62 + 5)
    assert await repo.undo_request(game_id) == await model.undo_request(game_id)
    assert (await repo.undo_request(game_id)) == replace(
        request, channel_id=41, message_id=2**62 + 5
    )
    assert await repo.undo_requests() == await model.undo_requests()


def _build(kind: str, out: Path) -> None:
    """Write the fixture dump of ``kind`` to ``out`` with the code checked out now."""
    clock = FakeClock(START)
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "fixture.sqlite3")
            asyncio.run(_fill_sqlite(path, clock))
            with closing(sqlite3.connect(path)) as db:
                header = [
                    db.execute(f"PRAGMA {p}").fetchone()[0]
                    for p in ("application_id", "user_version")
                ]
                assert header == [APPLICATION_ID, RELEASED_VERSION], header
                _write_dump(out, "\n".join(db.iterdump()) + "\n")
        return
    from tests.postgres_server import PostgresServer

    server = PostgresServer()
    server.start()
    try:
        url = server.create_database()
        asyncio.run(_fill_postgres(url, clock))
        dump = subprocess.run(
            [str(server.binaries / "pg_dump"), "--inserts", "--no-owner", "--no-privileges", url],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        server.stop()
    # psql's own commands (``\\restrict``) are not SQL: a plain connection runs the rest.
    _write_dump(out, "".join(line for line in dump.splitlines(True) if line[:1] != "\\"))


async def _fill_sqlite(path: Path, clock: FakeClock) -> None:
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        await populate(repo, clock)


async def _fill_postgres(url: str, clock: FakeClock) -> None:
    async with PostgresGameRepository.open(url, clock=clock) as repo:
        await populate(repo, clock)


if __name__ == "__main__":
    _build(sys.argv[1], Path(sys.argv[2]))
