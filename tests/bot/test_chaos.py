"""A short chaos run as a test (``python -m tests.chaos`` runs the long one and prints figures):
the real bot process killed twice, once while starting on a fresh database and once mid-play,
then stopped with SIGTERM."""

from __future__ import annotations

from tests.chaos import chaos


async def test_two_kills_lose_nothing_and_leave_nothing() -> None:
    report = await chaos(2, games=4, level="beginner", seed=16)
    assert report.kills == 2
    assert report.problems == []
    assert report.ok
    assert report.acknowledged > 0
