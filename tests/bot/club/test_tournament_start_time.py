"""A tournament with a start time starts by itself, from the core runner's clock pass: the
fake clock is moved and the runner woken, and the test waits on the boards' events."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.core.runner import GameRunner
from bot.core.service.events import Event, GameStarted
from storage.club import Format, Tournament, TournamentStatus
from storage.repository import GameRepository
from tests.bot.club.test_tournament_service import (
    Threads,
    clock,
    make_service,
    new_tournament,
    repo,
)
from tests.clock import START, FakeClock

__all__ = ["clock", "repo"]

HOUR = timedelta(hours=1)


async def test_tournaments_start_at_their_time_by_the_runners_clock(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = make_service(repo, clock)
    threads = Threads()
    told: list[tuple[int, TournamentStatus, int, int]] = []  # id, status, players, boards

    async def started(tournament: Tournament, players: int) -> None:
        told.append((tournament.id, tournament.status, players, len(threads.made)))

    await service.run_tournaments(threads, None, started)
    evening = await new_tournament(
        service, (1, 2, 3, 4), format=Format.ROUND_ROBIN, starts_at=START + HOUR
    )
    lonely = await new_tournament(
        service, (5,), format=Format.SWISS, rounds=3, starts_at=START + HOUR
    )
    later = await new_tournament(
        service, (6, 7), format=Format.SWISS, rounds=3, starts_at=START + 2 * HOUR
    )
    by_hand = await new_tournament(service, (8, 9), format=Format.ROUND_ROBIN)

    # Before its time nothing starts, and the clock pass is planned for the first start.
    _events, upcoming = await service.tick_and_plan()
    assert upcoming == START + HOUR
    for made in (evening, lonely, later, by_hand):
        assert (await repo.tournament(made.id)).status is TournamentStatus.OPEN
    assert threads.made == []

    boards: list[GameStarted] = []
    opened = asyncio.Event()

    def watch(event: Event) -> None:
        if isinstance(event, GameStarted):
            boards.append(event)
            if len(boards) == 2:
                opened.set()

    service.subscribe(watch)
    games = GameRunner(service, poll=3600.0)
    games.start()
    try:
        await games.passed()
        clock.advance(HOUR.total_seconds())
        games.wake()
        async with asyncio.timeout(5):
            await opened.wait()
        await service.tournaments_settled()
        await games.passed()  # a whole pass after the start: nothing starts twice
    finally:
        await games.close()
        service.unsubscribe(watch)

    assert (await repo.tournament(evening.id)).status is TournamentStatus.RUNNING
    first = await repo.pairings(evening.id)
    assert [(p.round, p.board) for p in first] == [(1, 1), (1, 2)]
    assert sorted(p.game_id for p in first if p.game_id) == sorted(e.game.game_id for e in boards)
    assert [(r, b) for r, b, _channel in threads.made] == [(1, 1), (1, 2)]
    # One entrant at the start time: nobody to pair, so it is cancelled.
    assert (await repo.tournament(lonely.id)).status is TournamentStatus.CANCELLED
    assert (await repo.tournament(later.id)).status is TournamentStatus.OPEN
    assert (await repo.tournament(by_hand.id)).status is TournamentStatus.OPEN
    # The front end was told of each once, of the start before its boards opened.
    assert sorted(told) == [
        (evening.id, TournamentStatus.RUNNING, 4, 0),
        (lonely.id, TournamentStatus.CANCELLED, 1, 2),
    ]
    # The next pass is planned no later than the next start.
    _events, upcoming = await service.tick_and_plan()
    assert upcoming is not None
    assert upcoming <= START + 2 * HOUR


async def test_a_service_that_does_not_run_the_tournaments_starts_none(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = make_service(repo, clock)
    due = await new_tournament(
        service, (1, 2), format=Format.SWISS, rounds=1, starts_at=START + HOUR
    )
    clock.advance(HOUR.total_seconds())
    assert await service.start_due_tournaments() is None
    assert (await repo.tournament(due.id)).status is TournamentStatus.OPEN
    # The one that runs them starts it at its next pass.
    await service.run_tournaments(Threads())
    await service.start_due_tournaments()
    assert (await repo.tournament(due.id)).status is TournamentStatus.RUNNING
