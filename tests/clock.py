"""The tests' clock: a UTC time the test moves by hand, shared by a repository, a service and
a bot (each takes a ``clock`` callable that returns an aware ``datetime``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["START", "FakeClock"]

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    """A clock that stands at ``start`` until the test moves it (``advance`` or ``now = ...``).

    ``step``: each reading first moves the clock on by that much (a microsecond keeps every
    stamp a repository writes distinct). ``FakeClock.real_time()`` follows the real time
    instead, shifted by whatever the test adds: the Discord tests need it, because message ids
    carry real timestamps and the bot compares them with its clock.
    """

    def __init__(self, start: datetime = START, *, step: timedelta = timedelta()) -> None:
        self._start: datetime | None = start
        self._offset = timedelta()
        self.step = step

    @classmethod
    def real_time(cls) -> FakeClock:
        """A clock at the real time, moved on only by ``advance``."""
        clock = cls()
        clock._start = None
        return clock

    @property
    def now(self) -> datetime:
        """The clock's time, without moving it."""
        base = datetime.now(UTC) if self._start is None else self._start
        return base + self._offset

    @now.setter
    def now(self, value: datetime) -> None:
        self._offset += value - self.now

    def __call__(self) -> datetime:
        self._offset += self.step
        return self.now

    def advance(self, seconds: float = 0.0, **units: float) -> datetime:
        """Move on (``advance(90)``, ``advance(hours=2)``) and return the new time."""
        self._offset += timedelta(seconds=seconds, **units)
        return self.now
