"""An arena run by the service, on the in-memory repository and on SQLite: players are paired
as they finish, a late entrant at once, a restart pairs nothing twice, and the clock ends it;
a game that ends after the end does not count."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.core.service.errors import InvalidOptionError
from storage.club import Format, Pairing, Result, TournamentStatus
from storage.repository import GameRepository
from tests.bot.club.test_tournament_service import (
    Threads,
    clock,
    make_service,
    new_tournament,
    play,
    repo,
)
from tests.clock import FakeClock

__all__ = ["clock", "repo"]


def boards(pairings: list[Pairing]) -> list[tuple[int, int, int | None, Result | None]]:
    return [(p.round, p.black, p.white, p.result) for p in pairings]


async def test_an_arena_needs_its_minutes_and_only_an_arena_has_them(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = make_service(repo, clock)
    with pytest.raises(InvalidOptionError) as refused:
        await new_tournament(service, (), format=Format.ARENA)
    assert refused.value.option == "arena_minutes"
    with pytest.raises(InvalidOptionError):
        await new_tournament(service, (), format=Format.SWISS, rounds=3, arena_minutes=30)
    assert await repo.live_tournaments() == []


async def test_an_arena_pairs_as_games_end_and_stops_at_its_time(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = make_service(repo, clock)
    threads = Threads()
    await service.run_tournaments(threads)
    # An hour a move: no game's clock runs out within the arena's half hour.
    made = await new_tournament(
        service, (1, 2, 3), format=Format.ARENA, arena_minutes=30, seconds_per_move=3600
    )
    await service.start_tournament(made.id)
    # All on 0 points and the same rating: 1 and 2 meet (2, equal in Black games, takes
    # Black); 3 waits.
    first = await repo.pairings(made.id)
    assert boards(first) == [(1, 2, 1, None)]
    (arena_round,) = await repo.rounds(made.id)
    assert arena_round.deadline is not None
    ran_for = arena_round.deadline - arena_round.paired_at
    assert timedelta(minutes=30) - timedelta(seconds=1) < ran_for <= timedelta(minutes=30)
    # A late entrant is paired at once with the one who waits.
    await service.join_tournament(made.id, 4)
    await service.tournaments_settled()
    assert boards(await repo.pairings(made.id))[1:] == [(2, 4, 3, None)]

    # 2 beats 1: they met last, so both wait for another player to come free.
    await play(service, first[0], 2)
    await service.tournaments_settled()
    assert len(await repo.pairings(made.id)) == 2
    # 4 beats 3: the four are free; by points 2 (2) and 4 (2) meet, then 1 and 3.
    (second,) = [p for p in await repo.pairings(made.id) if p.round == 2]
    await play(service, second, 4)
    await service.tournaments_settled()
    assert boards(await repo.pairings(made.id))[2:] == [(3, 4, 2, None), (3, 3, 1, None)]

    # A restart: the service after it resumes the arena and pairs nothing again.
    again = make_service(repo, clock)
    await again.run_tournaments(Threads())
    assert len(await repo.pairings(made.id)) == 4

    # 1 beats 3 in time; then the time is up with 4 against 2 under way.
    third = [p for p in await repo.pairings(made.id) if p.round == 3]
    await play(again, third[1], 1)
    await again.tournaments_settled()
    assert len(await repo.pairings(made.id)) == 4  # 3 and 1 met last: they wait
    clock.now = arena_round.deadline + timedelta(seconds=1)
    _events, upcoming = await again.tick_and_plan()
    assert (await repo.tournament(made.id)).status is TournamentStatus.FINISHED
    await play(again, third[0], 4)
    await again.tournaments_settled()
    assert boards(await repo.pairings(made.id)) == [
        (1, 2, 1, Result.BLACK_WINS),
        (2, 4, 3, Result.BLACK_WINS),
        (3, 4, 2, None),  # ended after the arena: not counted
        (3, 3, 1, Result.WHITE_WINS),
    ]
    # By hand: 2 and 4 one win each (2 points), 1 a win after a loss (2), 3 nothing; the ties
    # on points and wins share a rank, listed by pairing number (1, 2, 3 by joining; 4 late).
    table = await again.tournament_standings(made.id)
    assert [(s.rank, s.user_id, s.points, s.tiebreaks, s.played) for s in table] == [
        (1, 1, 2.0, (1.0,), 2),
        (1, 2, 2.0, (1.0,), 1),
        (1, 4, 2.0, (1.0,), 1),
        (4, 3, 0.0, (0.0,), 2),
    ]
    assert upcoming is None or upcoming > arena_round.deadline
