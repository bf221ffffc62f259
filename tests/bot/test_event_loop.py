"""The bot process's event loop: uvloop where it is installed, asyncio's own where it is not
(Windows, or an install without it), and the same bot either way."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pytest

from bot.app import SWITCH_INTERVAL_S, loop_factory, process_runner


@pytest.fixture(autouse=True)
def _switch_interval() -> Iterator[None]:
    # process_runner sets the process's GIL switch interval: give the other tests theirs back.
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


async def _loop_module() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__


def test_the_bot_runs_on_uvloop_where_it_is_installed() -> None:
    pytest.importorskip("uvloop")  # a project dependency except on Windows
    with process_runner() as runner:
        assert runner.run(_loop_module()).startswith("uvloop")
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL_S)


def test_without_uvloop_it_runs_on_asyncios_own_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # ``import uvloop`` now fails
    assert loop_factory() is None
    with process_runner() as runner:
        assert runner.run(_loop_module()).startswith("asyncio")
