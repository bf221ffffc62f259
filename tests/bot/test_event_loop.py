"""The bot process's event loop: uvloop where it is installed, asyncio's own where it is not
(Windows, or an install without it), and the same bot either way; and its heap, frozen out of
the garbage collector's sight once the bot is ready, and what each full collection leaves
after that, thawed again now and then (``bot.heap``)."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

import bot.app
from bot.app import SWITCH_INTERVAL_S, loop_factory, process_runner, serve
from bot.heap import HeapKeeper
from bot.settings import Settings
from tests.bot.conftest import BotFactory
from tests.fakediscord import FakeDiscord


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


@pytest.fixture
async def _thawed() -> AsyncIterator[None]:
    # A frozen heap would stay frozen for every later test in this process: thaw it again.
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.fixture
def freezes(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Set when the process's heap is frozen (``gc.freeze`` runs as it would, and says so)."""
    frozen = asyncio.Event()
    freeze = gc.freeze

    def freeze_and_say() -> None:
        freeze()
        frozen.set()

    monkeypatch.setattr(gc, "freeze", freeze_and_say)
    return frozen


@pytest.mark.usefixtures("_thawed")
async def test_a_bot_told_to_freeze_its_heap_does_so_once_ready(
    fake: FakeDiscord, make_bot: BotFactory, freezes: asyncio.Event
) -> None:
    instance = make_bot(freeze_heap=True)
    async with fake.running(instance):
        async with asyncio.timeout(10):  # the freeze runs in a task of its own once ready
            await freezes.wait()
        assert instance.is_ready()
        assert gc.get_freeze_count() > 0
        # What start-up built (the service, say) is out of the collector's generations.
        assert not _tracked(instance.service)
        assert HeapKeeper._collected in gc.callbacks
    assert HeapKeeper._collected not in gc.callbacks  # stopped with the bot, and thawed
    assert gc.get_freeze_count() == 0


class _Node:
    """An object the collector tracks; in a cycle with itself once ``me`` is set."""

    def __init__(self) -> None:
        self.me: _Node | None = None


def _tracked(obj: object) -> bool:
    """Whether ``obj`` is in one of the collector's generations (not frozen)."""
    return any(tracked is obj for tracked in gc.get_objects())


@pytest.fixture
def _collections_by_hand() -> Iterator[None]:
    # Only the test's own gc.collect() calls: an automatic one between two of its steps would
    # freeze or free what a step is about to look at.
    gc.disable()
    yield
    gc.enable()


@pytest.mark.usefixtures("_thawed", "_collections_by_hand")
async def test_what_a_full_collection_leaves_is_frozen_until_the_heap_is_thawed() -> None:
    keeper = HeapKeeper(thaw_every=3600.0)
    keeper.start()
    try:
        kept, gone = _Node(), _Node()
        gone.me = gone
        dead = weakref.ref(gone)
        gc.collect()  # both live through it
        assert not _tracked(kept)  # frozen: no collection walks it any more
        del gone
        gc.collect()
        assert dead() is not None  # garbage that died frozen waits for the thaw
        keeper.thaw()
        assert _tracked(kept)
        gc.collect()
        assert dead() is None  # freed by the first full collection after the thaw
        assert not _tracked(kept)  # and what lives on is frozen again
    finally:
        keeper.stop()
    assert gc.get_freeze_count() == 0  # stopped: thawed
    alone = _Node()
    gc.collect()
    assert _tracked(alone)  # and a full collection freezes nothing


@pytest.mark.usefixtures("_thawed", "_collections_by_hand")
async def test_the_heap_is_thawed_every_so_often() -> None:
    keeper = HeapKeeper(thaw_every=0.01)
    thawed = asyncio.Event()
    thaw = keeper.thaw

    def thaw_and_say() -> None:
        thaw()
        thawed.set()

    keeper.thaw = thaw_and_say  # type: ignore[method-assign]
    keeper.start()
    try:
        assert gc.get_freeze_count() > 0
        for _ in range(2):  # and again after that
            thawed.clear()
            async with asyncio.timeout(10):
                await thawed.wait()
            assert gc.get_freeze_count() == 0
            gc.collect()
            assert gc.get_freeze_count() > 0
    finally:
        keeper.stop()


@pytest.mark.usefixtures("_thawed")
async def test_a_bot_in_a_shared_process_leaves_the_heap_alone(
    fake: FakeDiscord, make_bot: BotFactory, freezes: asyncio.Event
) -> None:
    instance = make_bot()
    async with fake.running(instance):
        # Ready, and a command answered since: a freeze due once ready would have run.
        await instance.wait_until_ready()
        assert (await fake.slash("gomoku help", user=fake.add_user("ann"))).message is not None
        assert not freezes.is_set()
        assert gc.get_freeze_count() == 0


async def test_serve_runs_the_bot_with_a_frozen_heap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    class BuiltError(Exception):
        pass

    def create_bot(settings: Settings, **options: Any) -> Any:
        seen.update(options)
        raise BuiltError

    monkeypatch.setattr(bot.app, "create_bot", create_bot)
    with pytest.raises(BuiltError):
        await serve(Settings(discord_token="never-used", db_path=tmp_path / "gomoku.sqlite3"))
    assert seen["freeze_heap"] is True
