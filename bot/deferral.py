"""When a slow answer is deferred: as late as its deferral still lands within Discord's 3 s.

Discord drops an interaction that is not acknowledged within 3 s of the event. An answer that
is slow to come is acknowledged by a deferral first, which costs a request more: the deferral,
then an edit of the original response. A deferral sent for an answer that would have made the
3 s on its own is a request wasted, and on a saturated event loop each one loads the loop
more, which makes the next answers later still. So a deferral is due as late as it still
lands in time (``AckClock``):

- The 3 s count from the event, and an interaction spends part of them before the event
  loop reaches its handler (the gateway's delivery, the loop's queue). That part is read
  from the interaction's id, a snowflake that carries the time Discord made it, by this
  host's clock. It is believed up to ``MAX_BEFORE`` beyond the time the loop measured itself
  (``ARRIVED``): a host clock that runs ahead defers early, not at once; one that runs behind
  counts as no time before arrival.
- A deferral lands some time after it is due: its timer fires late on a busy loop, then its
  request goes out and is answered. The clock keeps the longest trip of the recent
  deferrals (from due to Discord's answer) and defers ``SAFETY`` times that before the 3 s,
  never later than ``latest`` after the event nor earlier than ``earliest``. A deferral that
  Discord refused as too late counts as a trip of the whole 3 s: the next ones go at
  ``earliest``. The clock starts at ``earliest`` and earns the later point from
  deferrals that landed quickly. A burst meets a backlog before any deferral has been
  timed in it: an interaction that reached the loop late is deferred earlier by twice the
  time it waited (``BACKLOG_TURNS``: the deferral's timer and its request meet the same
  backlog).
"""

from __future__ import annotations

import time
from collections import deque
from typing import Final

__all__ = [
    "ANSWER_WITHIN",
    "BACKLOG_TURNS",
    "EARLIEST",
    "FIRST_TRIP",
    "LATEST",
    "MAX_BEFORE",
    "SAFETY",
    "TRIPS",
    "AckClock",
]

ANSWER_WITHIN: Final = 3.0  # Discord: the first answer within this many seconds of the event
# The latest a slow answer is deferred, in seconds after the event, when the recent deferrals
# landed quickly: 0.8 s left for this one's trip.
LATEST: Final = 2.2
# The earliest, however long the recent deferrals took: half of Discord's time is left for the
# deferral then (a trip that long is a loop too loaded for the answers to come sooner anyway).
EARLIEST: Final = 1.5
SAFETY: Final = 1.5  # a deferral may take this many times the longest recent trip
# The trip assumed until ``TRIPS`` deferrals were timed: long enough to defer at ``EARLIEST``
# (a burst's first deferrals meet a backlog no deferral has measured yet).
FIRST_TRIP: Final = 1.0
TRIPS: Final = 32  # the recent deferrals whose longest trip counts
MAX_BEFORE: Final = 1.0  # the most time before arrival believed of the host's clock
BACKLOG_TURNS: Final = 2.0  # the loop's waits in a deferral's trip (see ``AckClock.delay``)
DISCORD_EPOCH_MS: Final = 1_420_070_400_000  # a snowflake's time counts from 2015 (Discord's docs)


class AckClock:
    """When each slow answer is deferred (see the module doc); ``note`` times each deferral."""

    def __init__(
        self, *, latest: float = LATEST, earliest: float = EARLIEST, first_trip: float = FIRST_TRIP
    ) -> None:
        self.latest = latest
        self.earliest = min(earliest, latest)
        self._trips: deque[float] = deque([first_trip], maxlen=TRIPS)
        self._after = self._due()

    def _due(self) -> float:
        due = ANSWER_WITHIN - SAFETY * max(self._trips)
        return min(self.latest, max(self.earliest, due))

    def after(self) -> float:
        """Seconds after the event at which a slow answer is deferred now."""
        return self._after

    def delay(self, interaction_id: int, waited: float, *, now: float | None = None) -> float:
        """Seconds from now until the deferral of interaction ``interaction_id`` is due,
        ``waited`` seconds after the event loop reached it; ``now``: this host's wall clock
        (``time.time()``). The time since Discord made it is the host clock's reading against
        the id's, believed up to ``MAX_BEFORE`` beyond ``waited``, and never less than that."""
        made = ((interaction_id >> 22) + DISCORD_EPOCH_MS) / 1000
        age = (time.time() if now is None else now) - made
        before = min(max(0.0, age - waited), MAX_BEFORE)
        # An interaction that reached the loop late shows a backlog that its deferral meets
        # again, twice (its timer, then its request's answer): before any deferral timed it.
        point = min(self._after, ANSWER_WITHIN - BACKLOG_TURNS * before)
        return max(0.0, max(self.earliest, point) - waited - before)

    def note(self, trip: float) -> None:
        """A deferral landed ``trip`` seconds after it was due."""
        self._trips.append(trip)
        self._after = self._due()

    def late(self) -> None:
        """A deferral came too late for Discord."""
        self.note(ANSWER_WITHIN)
