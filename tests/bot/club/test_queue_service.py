"""The core's pairing queue (``bot.core.service.matchmaking``) on the in-memory repository and
on a real SQLite file: a member waits in one queue at a time, in whichever server; leaving
takes them out wherever they wait; the store decides every race (a member taken out behind
the process's back, by another process or by being forgotten, is not paired, and their
partner waits on); a paired member counts as playing until their game ends; and a second
service on the same file (a restart) reloads the queue with every member's own join time."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence
from datetime import timedelta
from pathlib import Path

import pytest

from bot.core.club.errors import AlreadyPlayingError, AlreadyQueuedError, NotQueuedError
from bot.core.service.matchmaking import QueueMatch
from bot.core.service.tournaments import TournamentService
from engine.types import Game, Rule
from storage.memory import InMemoryGameRepository
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository
from tests.clock import START, FakeClock
from tests.runners import NearestRunner

GUILD, OTHER_GUILD, CHANNEL = 500, 501, 10
ANN, BEN, CAT, DAN = 1, 2, 3, 4


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture(params=["memory", "sqlite"])
async def repo(
    request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[GameRepository]:
    if request.param == "memory":
        yield InMemoryGameRepository(clock=clock)
    else:
        async with SqliteGameRepository.open(tmp_path / "q.sqlite3", clock=clock) as sqlite:
            yield sqlite


def service_on(repo: GameRepository, clock: FakeClock) -> TournamentService:
    return TournamentService(repo, NearestRunner(), clock=clock, rng=random.Random(3))


async def join(
    service: TournamentService, user_id: int, guild_id: int = GUILD, game: Game = Game.GOMOKU
) -> None:
    await service.join_queue(
        guild_id=guild_id,
        user_id=user_id,
        game=game,
        rule=Rule.FREESTYLE,
        channel_id=CHANNEL,
        in_thread=True,
        language="en",
        token=f"token-{user_id}",
    )


def pairs(matches: tuple[QueueMatch, ...]) -> list[tuple[int, int]]:
    return [(m.black.user_id, m.white.user_id) for m in matches]


async def test_a_member_waits_in_one_queue_at_a_time_in_whichever_server(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = service_on(repo, clock)
    await join(service, ANN, GUILD)
    with pytest.raises(AlreadyQueuedError):
        await join(service, ANN, GUILD, Game.CONNECT4)
    with pytest.raises(AlreadyQueuedError):
        await join(service, ANN, OTHER_GUILD)
    # Ben waits in the other server: Ann's place was never taken there, so they do not meet.
    await join(service, BEN, OTHER_GUILD)
    assert (await service.queue_pass()).matches == ()
    # Leaving, from anywhere, takes her out of the queue she waits in.
    left = await service.leave_queue(ANN)
    assert left.guild_id == GUILD
    with pytest.raises(NotQueuedError):
        await service.leave_queue(ANN)
    await join(service, ANN, OTHER_GUILD)
    assert pairs((await service.queue_pass(OTHER_GUILD)).matches) == [(ANN, BEN)]
    assert await repo.queue_entries() == []


async def test_a_paired_member_plays_until_their_game_ends(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = service_on(repo, clock)
    await join(service, ANN)
    await join(service, BEN)
    (match,) = (await service.queue_pass()).matches
    # Paired, before their game is even open: neither may queue.
    with pytest.raises(AlreadyPlayingError):
        await join(service, ANN)
    state = await service.start(
        channel_id=CHANNEL, guild_id=GUILD, user_id=ANN, opponent=BEN, rated=False
    )
    await service.accept(state.game_id, BEN)
    with pytest.raises(AlreadyPlayingError):
        await join(service, BEN)
    await service.resign(None, BEN, game_id=state.game_id)
    await join(service, ANN)
    await join(service, BEN)
    (again,) = (await service.queue_pass()).matches
    with pytest.raises(AlreadyPlayingError):
        await join(service, ANN)
    # A game the front end could not open frees both as well.
    service.queue_match_failed(again)
    await join(service, ANN)
    await join(service, BEN)
    assert match.black.user_id == again.black.user_id == ANN


async def test_a_member_taken_out_behind_the_process_is_not_paired(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = service_on(repo, clock)
    for user_id in (ANN, BEN, CAT):
        await join(service, user_id)
        clock.advance(1)
    # Ben leaves through another process (the store only), and Ann asks to be forgotten.
    assert await repo.take_queue_entries(GUILD, [BEN])
    await service.forget_user(ANN)
    outcome = await service.queue_pass()
    assert outcome.matches == ()
    # Cat, whose partner was gone, waits on and meets the next member.
    await join(service, DAN)
    assert pairs((await service.queue_pass()).matches) == [(CAT, DAN)]
    # Ann and Ben are out for this process too: they may queue again.
    await join(service, ANN)
    await join(service, BEN)


async def test_a_timeout_is_told_once_and_only_for_a_member_still_stored(
    repo: GameRepository, clock: FakeClock
) -> None:
    service = service_on(repo, clock)
    await join(service, ANN)
    await join(service, BEN, game=Game.CONNECT4)
    await service.note_queue_answer(ANN, 77)
    assert await repo.take_queue_entries(GUILD, [BEN])  # gone behind the process's back
    timeout = service.pairing_queue(GUILD).timeout_s
    clock.advance(timeout - 1)
    assert (await service.queue_pass()).timed_out == ()
    clock.advance(1)
    (told,) = (await service.queue_pass()).timed_out
    assert (told.user_id, told.message_id, told.token) == (ANN, 77, f"token-{ANN}")
    assert (await service.queue_pass()).timed_out == ()
    assert not service.anyone_queued()


async def test_a_restarted_service_reloads_the_queue_with_each_members_join_time(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "restart.sqlite3"
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        first = service_on(repo, clock)
        await join(first, ANN)
        clock.advance(100)
        await join(first, BEN, game=Game.CONNECT4)
    timeout = first.pairing_queue(GUILD).timeout_s
    clock.advance(timeout - 100)  # Ann's ten minutes are up, Ben's not
    async with SqliteGameRepository.open(path, clock=clock) as repo:
        second = service_on(repo, clock)
        assert await second.resume_queues() == 2
        assert await second.resume_queues() == 0  # once each
        ticket = second.pairing_queue(GUILD).ticket(BEN)
        assert ticket is not None
        assert ticket.joined_at == START + timedelta(seconds=100)
        assert second.pairing_queue(GUILD).window(ticket) == min(
            second.pairing_queue(GUILD).max_window, 100 + 5.0 * (timeout - 100)
        )
        outcome = await second.queue_pass()
        assert [e.user_id for e in outcome.timed_out] == [ANN]
        assert [e.user_id for e in await repo.queue_entries()] == [BEN]
        # A member who joins after the restart meets the one who waited from before it.
        await join(second, CAT, game=Game.CONNECT4)
        assert pairs((await second.queue_pass()).matches) == [(BEN, CAT)]


class _HeldTake(InMemoryGameRepository):
    """Holds the first take of queue entries until the test lets it go."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock=clock)
        self.holding = asyncio.Event()
        self.go = asyncio.Event()

    async def take_queue_entries(self, guild_id: int, user_ids: Sequence[int]) -> bool:
        if not self.holding.is_set():
            self.holding.set()
            await self.go.wait()
        return await super().take_queue_entries(guild_id, user_ids)


async def test_a_member_who_leaves_while_a_pass_opens_pairs_is_not_paired(
    clock: FakeClock,
) -> None:
    repo = _HeldTake(clock)
    service = service_on(repo, clock)
    # Connect Four's queue passes first: Ann and Ben are taken out first, Cat and Dan after.
    await join(service, ANN, game=Game.CONNECT4)
    await join(service, BEN, game=Game.CONNECT4)
    await join(service, CAT)
    await join(service, DAN)
    passing = asyncio.create_task(service.queue_pass())
    await repo.holding.wait()  # the pass has paired both pairs and takes the first out
    await service.leave_queue(CAT)  # meanwhile Cat, of the second pair, leaves
    repo.go.set()
    outcome = await passing
    assert pairs(outcome.matches) == [(ANN, BEN)]
    # Dan, whose partner left, waits on; Cat is out.
    assert [e.user_id for e in await repo.queue_entries()] == [DAN]
    assert service.pairing_queue(GUILD).ticket(DAN) is not None
    assert service.pairing_queue(GUILD).ticket(CAT) is None
    await join(service, CAT)
    assert pairs((await service.queue_pass()).matches) == [(CAT, DAN)]
