"""The pairing queue on a hand-driven clock: who meets whom, when, and the refusals."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.club.errors import AlreadyPlayingError, AlreadyQueuedError, NotQueuedError
from bot.core.club.matchmaking import PairingQueue, Ticket
from tests.clock import START, FakeClock
from tests.scale import examples

GOMOKU = "gomoku:freestyle"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def queue(clock: FakeClock) -> PairingQueue:
    return PairingQueue(
        clock=clock, base_window=100, widen_per_second=5, max_window=400, timeout_s=300
    )


def pairs(queue: PairingQueue) -> list[tuple[int, int]]:
    return [(m.black.user_id, m.white.user_id) for m in queue.pair()]


def test_the_closest_pair_first_and_the_lower_rated_moves_first(queue: PairingQueue) -> None:
    for user_id, rating in [(1, 1500), (2, 1520), (3, 1600), (4, 1610)]:
        queue.join(user_id, GOMOKU, rating)
    # 3-4 (10 apart) before 1-2 (20 apart), although 2-3 are 80 apart and also within reach.
    assert pairs(queue) == [(3, 4), (1, 2)]
    assert len(queue) == 0


def test_the_window_widens_with_waiting(queue: PairingQueue, clock: FakeClock) -> None:
    queue.join(1, GOMOKU, 1500)
    queue.join(2, GOMOKU, 1800)
    clock.advance(39)  # windows 100 + 5 x 39 = 295 < 300
    assert pairs(queue) == []
    clock.advance(1)  # 300: within reach
    assert pairs(queue) == [(1, 2)]


def test_the_narrower_window_decides(queue: PairingQueue, clock: FakeClock) -> None:
    queue.join(1, GOMOKU, 1500)
    clock.advance(50)
    queue.join(2, GOMOKU, 1750)  # 1 reaches 350 now, 2 only 100
    assert pairs(queue) == []
    clock.advance(29)  # 2 reaches 245
    assert pairs(queue) == []
    clock.advance(1)  # 250
    assert pairs(queue) == [(1, 2)]


def test_the_window_stops_widening(queue: PairingQueue, clock: FakeClock) -> None:
    first = queue.join(1, GOMOKU, 1000)
    queue.join(2, GOMOKU, 1401)
    clock.advance(60)  # 100 + 5 x 60 = 400, the cap
    assert queue.window(first) == 400
    clock.advance(200)
    assert queue.window(first) == 400
    assert pairs(queue) == []  # 401 apart


def test_kinds_never_mix(queue: PairingQueue) -> None:
    queue.join(1, GOMOKU, 1500)
    queue.join(2, "connect4", 1500)
    queue.join(3, "connect4", 1510)
    assert pairs(queue) == [(2, 3)]
    assert 1 in queue


def test_waiting_too_long_times_out(queue: PairingQueue, clock: FakeClock) -> None:
    queue.join(1, GOMOKU, 1000)
    clock.advance(100)
    queue.join(2, GOMOKU, 2000)
    clock.advance(199)
    assert queue.expire() == ()
    clock.advance(1)
    assert [t.user_id for t in queue.expire()] == [1]
    assert 1 not in queue
    assert 2 in queue


def test_leaving(queue: PairingQueue) -> None:
    queue.join(1, GOMOKU, 1500)
    assert queue.leave(1).user_id == 1
    with pytest.raises(NotQueuedError) as caught:
        queue.leave(1)
    assert caught.value.user_id == 1
    queue.join(2, GOMOKU, 1500)
    assert pairs(queue) == []


def test_one_ticket_per_member(queue: PairingQueue) -> None:
    queue.join(1, GOMOKU, 1500)
    with pytest.raises(AlreadyQueuedError) as caught:
        queue.join(1, "connect4", 1500)
    assert (caught.value.user_id, caught.value.kind) == (1, GOMOKU)


def test_a_member_playing_cannot_queue_until_their_game_ends(queue: PairingQueue) -> None:
    with pytest.raises(AlreadyPlayingError):
        queue.join(1, GOMOKU, 1500, playing=True)
    queue.join(1, GOMOKU, 1500)
    queue.join(2, GOMOKU, 1500)
    assert pairs(queue) == [(1, 2)]
    with pytest.raises(AlreadyPlayingError) as caught:
        queue.join(2, GOMOKU, 1500)
    assert caught.value.user_id == 2
    queue.game_over(2)
    queue.join(2, GOMOKU, 1500)
    assert 2 in queue


def test_the_same_joins_on_the_same_clock_pair_the_same_way() -> None:
    def run() -> list[list[tuple[int, int]]]:
        clock = FakeClock()
        queue = PairingQueue(clock=clock)
        passes = []
        for step in range(60):
            queue.join(step, GOMOKU, 1000 + (step * 7919) % 1000)
            clock.advance(3)
            passes.append(pairs(queue))
        return passes

    assert run() == run()
    assert sum(len(p) for p in run()) > 0


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([GOMOKU, "connect4"]),
            st.integers(min_value=1000, max_value=2000),
            st.integers(min_value=0, max_value=120),
        ),
        max_size=30,
    ),
    st.integers(min_value=0, max_value=120),
)
def test_a_pass_pairs_acceptable_pairs_closest_first_and_leaves_no_acceptable_pair(
    joins: list[tuple[str, int, int]], wait: int
) -> None:
    clock = FakeClock()
    queue = PairingQueue(clock=clock, base_window=50, widen_per_second=3, max_window=300)
    tickets = []
    for user_id, (kind, rating, delay) in enumerate(sorted(joins, key=lambda j: j[2])):
        clock.now = START + timedelta(seconds=delay)
        tickets.append(queue.join(user_id, kind, rating))
    clock.advance(wait)

    # The slow oracle: every two tickets compared by definition.
    def acceptable(a: Ticket, b: Ticket) -> bool:
        return a.kind == b.kind and abs(a.rating - b.rating) <= min(
            queue.window(a), queue.window(b)
        )

    candidates = [(a, b) for a, b in itertools.combinations(tickets, 2) if acceptable(a, b)]
    matches = queue.pair()
    paired = [u for m in matches for u in (m.black.user_id, m.white.user_id)]
    assert len(paired) == len(set(paired))
    for m in matches:
        assert acceptable(m.black, m.white)
        assert m.black.rating <= m.white.rating
    left = [t for t in tickets if t.user_id not in paired]
    assert not any(acceptable(a, b) for a, b in itertools.combinations(left, 2))
    if candidates:
        closest = min(abs(a.rating - b.rating) for a, b in candidates)
        assert min(abs(m.black.rating - m.white.rating) for m in matches) == closest
    assert len(queue) == len(left)
