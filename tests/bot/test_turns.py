"""A turn ping that fails: a traceback while the bot runs, one line while it stops."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from bot.turns import TurnPings


class _Host:
    def __init__(self, closed: bool) -> None:
        self.closed = closed

    def is_closed(self) -> bool:
        return self.closed


async def _failed_ping(closed: bool, caplog: pytest.LogCaptureFixture) -> logging.LogRecord:
    pings = TurnPings()

    async def update(bot: Any, view: Any, *, sent: int | None = None) -> None:
        raise RuntimeError("the repository is closed")

    pings.update = update  # type: ignore[method-assign]
    view = SimpleNamespace(game_id=7, channel_id=70, version=3)
    with caplog.at_level(logging.INFO, logger="bot.turns"):
        pings.announce(_Host(closed), view)  # type: ignore[arg-type]
        await pings.drain(within_s=5.0)
    assert pings.pending() == 0
    (record,) = [r for r in caplog.records if r.name == "bot.turns"]
    return record


async def test_a_ping_that_fails_while_the_bot_runs_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    record = await _failed_ping(False, caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None


async def test_a_ping_cut_short_by_stopping_is_one_line(caplog: pytest.LogCaptureFixture) -> None:
    record = await _failed_ping(True, caplog)
    assert record.levelno == logging.INFO
    assert record.exc_info is None
    assert record.getMessage() == (
        "turn ping of game 7 not sent, the bot is stopping: RuntimeError"
    )
