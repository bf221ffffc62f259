"""Tournaments run by the core service: every game opened by the service and played through
``GameService.act``, results taken from the games' events, rounds paired as they finish.
On the in-memory repository and on SQLite; the service's task queue is waited on
(``tournaments_settled``), never slept on."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from bot.core.club.errors import AlreadyEnteredError, EntriesClosedError
from bot.core.runner import GameRunner
from bot.core.service import GameService
from bot.core.service.errors import InvalidOptionError
from bot.core.service.events import GameEnded
from bot.core.service.inputs import GameRef, Place
from bot.core.service.tournaments import TournamentService
from engine.types import Point
from storage.club import EntrantStatus, Format, Pairing, Result, Tournament, TournamentStatus
from storage.memory import InMemoryGameRepository
from storage.records import Player
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository
from tests.bot.test_runner import event_where
from tests.clock import START, FakeClock
from tests.runners import NearestRunner
from tests.storage.conftest import new_game

GUILD, CHANNEL, ORGANISER = 500, 10, 99
PLAYERS = (1, 2, 3, 4, 5, 6, 7)
SECONDS = 60


class Threads:
    """The front end's side of ``board_channel``: a new channel id for every board."""

    def __init__(self) -> None:
        self.ids = itertools.count(20_000)
        self.made: list[tuple[int, int, int]] = []  # (round, board, channel)

    async def __call__(self, tournament: Tournament, pairing: Pairing) -> int:
        channel = next(self.ids)
        self.made.append((pairing.round, pairing.board, channel))
        return channel


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START, step=timedelta(microseconds=1))


@pytest.fixture(params=["memory", "sqlite"])
async def repo(
    request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[GameRepository]:
    if request.param == "memory":
        yield InMemoryGameRepository(clock=clock)
    else:
        async with SqliteGameRepository.open(tmp_path / "t.sqlite3", clock=clock) as sqlite_repo:
            yield sqlite_repo


def make_service(repo: GameRepository, clock: FakeClock) -> TournamentService:
    return TournamentService(repo, NearestRunner(), clock=clock, rng=random.Random(1))


async def new_tournament(
    service: TournamentService, players: tuple[int, ...], **options: object
) -> Tournament:
    settings: dict[str, object] = {"name": "Club night", "seconds_per_move": SECONDS}
    settings.update(options)
    made = await service.create_tournament(
        guild_id=GUILD,
        channel_id=CHANNEL,
        user_id=ORGANISER,
        **settings,  # type: ignore[arg-type]
    )
    for user in players:
        await service.join_tournament(made.id, user)
    return made


# Black's five on row 8 while White plays row 10; White's five on row 10 while Black's
# stones stay apart on row 1.
BLACK_WINS = [Point(x, 7) for x in range(3, 8)], [Point(x, 9) for x in range(3, 7)]
WHITE_WINS = [Point(x, 0) for x in range(0, 10, 2)], [Point(x, 9) for x in range(3, 8)]


async def play(service: GameService, pairing: Pairing, winner: int) -> None:
    """Play the board's game to a five for ``winner``, move by move through ``act``."""
    assert pairing.game_id is not None
    assert pairing.white is not None
    blacks, whites = BLACK_WINS if winner == pairing.black else WHITE_WINS
    ref = GameRef(game_id=pairing.game_id)
    for index in range(len(blacks) + len(whites)):
        side, stones = (pairing.black, blacks) if index % 2 == 0 else (pairing.white, whites)
        await service.act(ref, side, Place(stones[index // 2]))


async def play_rounds(service: TournamentService, tid: int) -> list[list[Pairing]]:
    """Play every round to its end, the lower user id winning each game; the boards of
    each round as they stood when its games were opened."""
    rounds: list[list[Pairing]] = []
    while (await service.repository.tournament(tid)).status is TournamentStatus.RUNNING:
        pairings = await service.repository.pairings(tid)
        latest = max(p.round for p in pairings)
        current = [p for p in pairings if p.round == latest]
        rounds.append(current)
        for pairing in current:
            if pairing.result is None:
                assert pairing.white is not None
                await play(service, pairing, min(pairing.black, pairing.white))
                await service.tournaments_settled()
    return rounds


async def test_a_swiss_of_seven_plays_three_rounds_with_a_bye_each(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = make_service(repo, clock)
    threads = Threads()
    await service.run_tournaments(threads)
    made = await new_tournament(service, PLAYERS, format=Format.SWISS, rounds=3)
    await service.start_tournament(made.id)

    rounds = await play_rounds(service, made.id)

    assert [len(r) for r in rounds] == [4, 4, 4]
    byes = [next(p.black for p in r if p.is_bye) for r in rounds]
    assert len(set(byes)) == 3  # a bye goes to a player once
    met = [frozenset(p.players()) for r in rounds for p in r if not p.is_bye]
    assert len(met) == len(set(met)) == 9  # nobody meets twice
    pairings = await repo.pairings(made.id)
    assert all(p.result is not None for p in pairings)
    assert len([p for p in pairings if p.game_id is not None]) == 9
    assert len(threads.made) == 9  # one place per game, no more
    assert (await repo.tournament(made.id)).status is TournamentStatus.FINISHED
    assert [r.number for r in await repo.rounds(made.id)] == [1, 2, 3]
    table = await service.tournament_standings(made.id)
    assert sum(s.points for s in table) == 12  # 9 games and 3 byes, one point each
    assert (table[0].user_id, table[0].points) == (1, 3.0)  # the lowest id wins every game


async def test_a_round_robin_of_four_meets_everyone_once(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = make_service(repo, clock)
    await service.run_tournaments(Threads())
    made = await new_tournament(service, (1, 2, 3, 4), format=Format.ROUND_ROBIN)
    with pytest.raises(AlreadyEnteredError):
        await service.join_tournament(made.id, 1)
    await service.start_tournament(made.id)
    with pytest.raises(EntriesClosedError):
        await service.join_tournament(made.id, 5)

    rounds = await play_rounds(service, made.id)

    assert [len(r) for r in rounds] == [2, 2, 2]
    met = {frozenset(p.players()) for r in rounds for p in r}
    assert len(met) == 6
    table = await service.tournament_standings(made.id)
    assert [(s.user_id, s.points) for s in table] == [(1, 3.0), (2, 2.0), (3, 1.0), (4, 0.0)]


async def test_a_player_who_never_moves_forfeits_on_time(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = make_service(repo, clock)
    await service.run_tournaments(Threads())
    games = GameRunner(service, poll=3600.0)
    games.start()
    try:
        made = await new_tournament(service, (1, 2), format=Format.ROUND_ROBIN)
        await service.start_tournament(made.id)
        clock.advance(SECONDS + 1)
        games.wake()  # a pass under way when the clock moved is followed by another
        ended = await event_where(service, lambda event: isinstance(event, GameEnded))
        assert isinstance(ended, GameEnded)
        assert ended.by_clock
        await service.tournaments_settled()
    finally:
        await games.close()

    (pairing,) = await repo.pairings(made.id)
    assert pairing.game_id == ended.game.game_id
    assert pairing.result is Result.WHITE_WINS_BY_FORFEIT  # Black's clock ran out unmoved
    assert (await repo.tournament(made.id)).status is TournamentStatus.FINISHED


async def test_a_withdrawal_resigns_the_game_and_forfeits_the_rest(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = make_service(repo, clock)
    await service.run_tournaments(Threads())
    made = await new_tournament(service, (1, 2, 3, 4), format=Format.ROUND_ROBIN)
    await service.start_tournament(made.id)

    await service.withdraw(made.id, 4)
    await service.tournaments_settled()

    entrants = {e.user_id: e for e in await repo.entrants(made.id)}
    assert entrants[4].status is EntrantStatus.WITHDRAWN
    first = [p for p in await repo.pairings(made.id) if p.round == 1]
    (lost,) = [p for p in first if 4 in p.players()]
    assert lost.result is not None
    assert lost.points_of(4) == 0.0
    assert lost.result.is_played  # a resignation, not a forfeit
    await play_rounds(service, made.id)
    later = [p for p in await repo.pairings(made.id) if p.round > 1 and 4 in p.players()]
    assert [p.game_id for p in later] == [None, None]  # no game opened for a withdrawn player
    assert all(p.points_of(4) == 0.0 and not p.result.is_played for p in later if p.result)
    table = {s.user_id: s.points for s in await service.tournament_standings(made.id)}
    assert table == {1: 3.0, 2: 2.0, 3: 1.0, 4: 0.0}


async def test_a_moderator_corrects_a_result(repo: GameRepository, clock: FakeClock) -> None:
    service = make_service(repo, clock)
    await service.run_tournaments(Threads())
    made = await new_tournament(service, (1, 2), format=Format.ROUND_ROBIN)
    await service.start_tournament(made.id)
    (pairing,) = await repo.pairings(made.id)
    await play(service, pairing, min(pairing.players()))
    await service.tournaments_settled()
    await service.adjust_result(made.id, 1, 1, Result.DRAW)
    table = {s.user_id: s.points for s in await service.tournament_standings(made.id)}
    assert table == {1: 0.5, 2: 0.5}


async def test_a_tournament_is_refused_out_of_range(repo: GameRepository, clock: FakeClock) -> None:
    service = make_service(repo, clock)
    with pytest.raises(InvalidOptionError):
        await new_tournament(service, (), format=Format.SWISS, rounds=0)
    with pytest.raises(InvalidOptionError):
        await new_tournament(service, (), format=Format.ROUND_ROBIN, name="")
    made = await new_tournament(service, (1,), format=Format.ROUND_ROBIN)
    with pytest.raises(InvalidOptionError):
        await service.start_tournament(made.id)  # one entrant: nobody to play
    assert (await repo.tournament(made.id)).status is TournamentStatus.OPEN


async def test_a_restart_mid_round_loses_nothing_and_pairs_once(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "club.sqlite3"
    threads = Threads()
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        before = make_service(repo, clock)
        await before.run_tournaments(threads)
        made = await new_tournament(before, (1, 2, 3, 4), format=Format.ROUND_ROBIN)
        await before.start_tournament(made.id)
        one, two = await repo.pairings(made.id)
        await play(before, one, min(one.players()))
        await before.tournaments_settled()
    # The second game ends while no process runs the tournaments (a crash before its
    # event was handled): a plain service on the same file plays it.
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        await play(GameService(repo, NearestRunner(), clock=clock), two, min(two.players()))
        assert [p.result for p in await repo.pairings(made.id)][1] is None
    async with AsyncExitStack() as stack:
        repo = await stack.enter_async_context(SqliteGameRepository.open(path, clock=clock))
        after = make_service(repo, clock)
        await after.run_tournaments(threads)
        pairings = await repo.pairings(made.id)
        assert [(p.round, p.board) for p in pairings] == [(1, 1), (1, 2), (2, 1), (2, 2)]
        assert [p.game_id for p in pairings[:2]] == [one.game_id, two.game_id]
        assert all(p.result is not None for p in pairings[:2])
        assert all(p.game_id is not None for p in pairings[2:])
        assert len(threads.made) == 4  # two games a round, each opened once
        await after.run_tournaments(threads)  # a second resume finds nothing to do
        assert await repo.pairings(made.id) == pairings
        await play_rounds(after, made.id)
        assert [r.number for r in await repo.rounds(made.id)] == [1, 2, 3]
        table = {s.user_id: s.points for s in await after.tournament_standings(made.id)}
        assert table == {1: 3.0, 2: 2.0, 3: 1.0, 4: 0.0}


async def test_a_game_opened_but_not_linked_before_a_stop_is_linked_on_resume(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "club.sqlite3"
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        # Started by a process that stopped after opening the board's game, before linking it.
        service = make_service(repo, clock)
        made = await new_tournament(service, (1, 2), format=Format.ROUND_ROBIN)
        await service.start_tournament(made.id)
        (pairing,) = await repo.pairings(made.id)
        assert pairing.game_id is None
        assert pairing.white is not None
        black, white = Player.human(pairing.black), Player.human(pairing.white)
        left = await repo.create_game(
            replace(new_game(30_000, black, white, turn_seconds=SECONDS), created_by=ORGANISER)
        )
        await repo.create_game(new_game(30_001, black, white))  # the same players, not the board's
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        threads = Threads()
        await make_service(repo, clock).run_tournaments(threads)
        (pairing,) = await repo.pairings(made.id)
        assert pairing.game_id == left.id
        assert threads.made == []  # no second game for the board
