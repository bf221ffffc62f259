"""When a slow answer is deferred (``bot.deferral``): as late as the deferral still lands
within Discord's 3 s, counted from the event, on the measured trips of the recent deferrals.

The clock is read with the times given (the interaction's id carries Discord's; the wall clock
is passed in): no timer runs here. The Discord test of the same (a write held past the point is
deferred at it, and within the 3 s) is in ``test_slow_storage.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import discord
import pytest

from bot.deferral import (
    ANSWER_WITHIN,
    BACKLOG_TURNS,
    EARLIEST,
    FIRST_TRIP,
    LATEST,
    MAX_BEFORE,
    SAFETY,
    TRIPS,
    AckClock,
)

MADE = 1_800_000_000.0  # when Discord made the interaction, by the wall clock (seconds)


def _id_made_at(seconds: float) -> int:
    """A snowflake whose time is ``seconds`` (Unix time, ms precision), as discord.py makes
    one."""
    return discord.utils.time_snowflake(datetime.fromtimestamp(seconds, UTC))


def quick(clock: AckClock, trip: float = 0.05) -> AckClock:
    """``clock`` after ``TRIPS`` deferrals that each landed ``trip`` after they were due."""
    for _ in range(TRIPS):
        clock.note(trip)
    return clock


def test_a_fresh_clock_defers_early_until_deferrals_land_quickly() -> None:
    clock = AckClock()
    assert FIRST_TRIP * SAFETY >= ANSWER_WITHIN - EARLIEST  # what the default assumes
    assert clock.after() == EARLIEST
    for _ in range(TRIPS - 1):
        clock.note(0.05)
    assert clock.after() == EARLIEST  # the assumed trip is among the recent ones still
    clock.note(0.05)
    assert clock.after() == LATEST
    assert LATEST > EARLIEST


def test_the_deferral_point_follows_the_longest_recent_trip() -> None:
    clock = quick(AckClock())
    clock.note(0.8)  # a loaded loop: the deferral landed 0.8 s after it was due
    assert clock.after() == pytest.approx(ANSWER_WITHIN - SAFETY * 0.8)
    clock.note(0.1)  # a shorter trip does not hide the long one
    assert clock.after() == pytest.approx(ANSWER_WITHIN - SAFETY * 0.8)
    quick(clock)  # the long one is out of the window: back to the latest point
    assert clock.after() == LATEST


def test_a_deferral_too_late_brings_the_next_ones_to_the_earliest_point() -> None:
    clock = quick(AckClock())
    clock.late()
    assert clock.after() == EARLIEST
    clock.note(5.0)  # never earlier than that, however long the trips
    assert clock.after() == EARLIEST


def test_the_time_before_arrival_comes_off_the_delay() -> None:
    clock = quick(AckClock())
    made = _id_made_at(MADE)
    # Reached at once and just now: the whole point is ahead.
    assert clock.delay(made, 0.0, now=MADE) == pytest.approx(LATEST)
    # The loop reached it 0.4 s after Discord made it, and 0.2 s have passed since.
    assert clock.delay(made, 0.2, now=MADE + 0.6) == pytest.approx(LATEST - 0.6)
    # Past the point already: at once.
    assert clock.delay(made, 2.5, now=MADE + 2.5) == 0.0


def test_a_host_clock_that_runs_ahead_defers_early_but_not_at_once() -> None:
    # The host's clock is 10 s ahead: believed only up to MAX_BEFORE before arrival, which
    # brings the point to the earliest.
    delay = quick(AckClock()).delay(_id_made_at(MADE), 0.2, now=MADE + 10.2)
    assert delay == pytest.approx(EARLIEST - 0.2 - MAX_BEFORE)
    assert delay > 0


def test_an_interaction_that_reached_a_backlogged_loop_is_deferred_earlier() -> None:
    # A burst: nothing deferred yet, but the interaction waited 0.5 s before the loop reached
    # it. Its deferral meets that backlog twice (timer, request): due at 3 - 2 x 0.5 = 2 s.
    clock = quick(AckClock())
    assert clock.delay(_id_made_at(MADE), 0.0, now=MADE + 0.5) == pytest.approx(
        ANSWER_WITHIN - BACKLOG_TURNS * 0.5 - 0.5
    )
    assert ANSWER_WITHIN - BACKLOG_TURNS * 0.5 < LATEST
    # Never before the earliest point.
    assert clock.delay(_id_made_at(MADE), 0.0, now=MADE + 0.9) == pytest.approx(EARLIEST - 0.9)


def test_a_host_clock_that_runs_behind_counts_the_loops_own_time() -> None:
    # The host's clock is 10 s behind: the interaction looks younger than the loop knows it is.
    delay = quick(AckClock()).delay(_id_made_at(MADE), 0.7, now=MADE - 9.3)
    assert delay == pytest.approx(LATEST - 0.7)


def test_the_earliest_point_is_never_after_the_latest() -> None:
    clock = AckClock(latest=0.5)
    clock.late()
    assert clock.after() == 0.5
