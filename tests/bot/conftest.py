"""Fixtures for the Discord-level tests: a fake Discord, a settable clock, AI runners, bots.

A bot here is the real ``GomokuBot`` on the real discord.py, connected to ``FakeDiscord`` on
127.0.0.1. ``make_bot`` builds one on a SQLite file (a second call with the same file is "the
bot after a restart"); ``bot`` is one already connected, with its commands registered.

``service`` is the game service without Discord, on the in-memory repository with the
deterministic ``runner``; its test modules give it a fixed ``clock`` of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.app import create_bot
from bot.client import GomokuBot
from bot.cooldown import UserCooldown
from bot.core.ai import AIMove, AIRequest, ProcessPoolRunner
from bot.core.service import GameService
from bot.core.service.states import GameState
from bot.settings import Settings
from engine.types import Termination
from storage.memory import InMemoryGameRepository
from tests.clock import FakeClock
from tests.fakediscord import FakeDiscord, FakeUser, Message
from tests.runners import CentreRunner, NearestRunner

BotFactory = Callable[..., GomokuBot]


class GatedRunner(CentreRunner):
    """A ``CentreRunner`` that thinks until the test sets ``release`` (``started``: a search
    has begun)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.started = asyncio.Event()

    async def choose_move(self, request: AIRequest) -> AIMove:
        self.started.set()
        await self.release.wait()
        return await super().choose_move(request)


@pytest.fixture(scope="session")
def pool() -> Iterator[ProcessPoolRunner]:
    """The real spawn-context process pool (one worker, warmed up), shared by the tests that
    need it: starting a worker loads the engine's compiled kernels, which takes seconds."""
    runner = ProcessPoolRunner(workers=1)
    asyncio.run(runner.warm_up())
    yield runner
    asyncio.run(runner.close())


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fresh fake Discord with discord.py pointed at it.

    On the way out it checks what must hold for every test: no message the bot sent pinged
    @everyone, @here or a role.
    """
    async with FakeDiscord() as server:
        yield server
    loud = [m for m in server.messages.values() if m.pinged_everyone or m.pinged_roles]
    assert loud == [], "the bot pinged everyone or a role"


@pytest.fixture
def clock() -> FakeClock:
    """The bot's clock."""
    return FakeClock.real_time()


@pytest.fixture
def repo(clock: FakeClock) -> InMemoryGameRepository:
    return InMemoryGameRepository(clock=clock)


@pytest.fixture
def runner() -> NearestRunner:
    return NearestRunner()


@pytest.fixture
def service(repo: InMemoryGameRepository, runner: NearestRunner, clock: FakeClock) -> GameService:
    return GameService(repo, runner, clock=clock, rng=random.Random(1))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The SQLite file of the bot under test."""
    return tmp_path / "gomoku.sqlite3"


@pytest.fixture
def make_bot(db_path: Path, clock: FakeClock) -> BotFactory:
    """Build (not connect) a bot on ``db_path``; keywords override the defaults."""

    def factory(**options: Any) -> GomokuBot:
        options.setdefault("ai", CentreRunner())
        options.setdefault("clock", clock)
        options.setdefault("rng", random.Random(7))
        options.setdefault("cooldown", UserCooldown(rate=1000, per=1.0))
        options.setdefault("guild_ready_timeout", 0.01)
        options.setdefault("deadline_poll", 0.05)
        return create_bot(Settings(db_path=db_path), **options)

    return factory


@pytest.fixture
async def bot(fake: FakeDiscord, make_bot: BotFactory) -> AsyncIterator[GomokuBot]:
    """A connected bot with its commands registered at the fake."""
    instance = make_bot()
    async with fake.running(instance):
        yield instance


@pytest.fixture
async def pool_bot(
    fake: FakeDiscord, make_bot: BotFactory, pool: ProcessPoolRunner
) -> AsyncIterator[GomokuBot]:
    """A connected bot whose AI is the real process pool."""
    instance = make_bot(ai=pool)
    async with fake.running(instance):
        yield instance


@pytest.fixture
def alice(fake: FakeDiscord) -> FakeUser:
    """A player."""
    return fake.add_user("alice")


@pytest.fixture
def bob(fake: FakeDiscord) -> FakeUser:
    """Another player."""
    return fake.add_user("bob")


async def challenge(
    fake: FakeDiscord, alice: FakeUser, bob: FakeUser, **options: object
) -> Message:
    """Alice challenges Bob, she as Black, to a friendly game unless ``rated=True`` is among
    ``/gomoku start``'s other ``options``: the challenge message (the game's board once
    accepted)."""
    start = await fake.slash(
        "gomoku start",
        user=alice,
        options={"opponent": bob, "colour": "black", "rated": False, **options},
    )
    assert start.message is not None
    return start.message


async def accepted_challenge(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser, **options: object
) -> tuple[int, Message]:
    """``challenge``, and Bob accepts: the game's id and its board message."""
    board = await challenge(fake, alice, bob, **options)
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    await fake.click(board, f"gomoku:{game_id}:accept", user=bob)
    return game_id, board


async def first_player_makes_five(
    fake: FakeDiscord,
    bot: GomokuBot,
    game_id: int,
    players: tuple[FakeUser, FakeUser],
    pairs: list[tuple[str, str]],
    five: str,
) -> GameState:
    """The two ``players`` take turns with /place, each told the move was played, the first
    playing first in each of ``pairs``; then the first player's ``five`` wins. Returns the
    finished game."""
    for cells in pairs:
        for user, cell in zip(players, cells, strict=True):
            reply = await fake.slash("place", user=user, options={"cell": cell})
            assert "played **" in reply.content
    first = players[0]
    await fake.slash("place", user=first, options={"cell": five})
    view = await bot.service.game(game_id)
    assert view.outcome is not None
    assert view.outcome.termination is Termination.FIVE
    assert view.winner is not None
    assert view.winner.user_id == first.id
    return view


async def board_caught_up(fake: FakeDiscord, bot: GomokuBot, game_id: int) -> None:
    """Wait until a board message shows the game's stored position: a move is answered before
    its board is redrawn, so the redraw may still be on its way when the answer arrives (and,
    between people, until the player to move has been pinged)."""
    view = await bot.service.game(game_id)
    moves = len(view.board.moves)
    footer = f"game {game_id}" + (f" · {moves} move{'s' if moves != 1 else ''}" if moves else "")
    if view.black.is_human and view.white.is_human:
        footer += " · rated" if view.rated else " · friendly, not rated"

    def shown() -> bool:
        return any(
            embed.get("footer", {}).get("text") == footer
            for message in fake.channel_messages()
            for embed in message.embeds
        )

    await fake.wait_for(shown)
    mover = view.to_move
    pings = view.guild_id is not None and (await bot.service.settings(view.guild_id)).turn_pings
    if pings and view.is_active and len(view.humans) == 2 and mover is not None:
        # Between people the player to move is pinged (by the answer to a /place, or after
        # the board is drawn) and the previous ping goes: wait for both.
        ping = f"<@{mover.user_id}>, your move"

        def pinged() -> bool:
            live = [
                m.content
                for m in fake.channel_messages()
                if ">, your move" in m.content and not m.deleted
            ]
            return len(live) == 1 and live[0].startswith(ping)

        await fake.wait_for(pinged)


def record_calls(monkeypatch: pytest.MonkeyPatch, target: object, name: str) -> list[Any]:
    """Note the argument of every call of ``target.name`` (a coroutine method of one
    argument, such as a repository read), which still does what it did: how often the bot
    asks the database, and for what."""
    method = getattr(target, name)
    calls: list[Any] = []

    async def recorded(argument: Any) -> Any:
        calls.append(argument)
        return await method(argument)

    monkeypatch.setattr(target, name, recorded)
    return calls


class HeldStarts:
    """``bot.service.start`` held at its door: ``entered`` is set once a start waits there,
    and every start goes on once ``go_on`` is set."""

    def __init__(self, bot: GomokuBot, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entered = asyncio.Event()
        self.go_on = asyncio.Event()
        real = bot.service.start

        async def start(**options: Any) -> Any:
            self.entered.set()
            await self.go_on.wait()
            return await real(**options)

        monkeypatch.setattr(bot.service, "start", start)


@contextlib.contextmanager
def no_changes(fake: FakeDiscord) -> Iterator[None]:
    """Assert that the block changed nothing anyone else sees in the channel."""
    before = [(m.id, m.edits, m.deleted) for m in fake.channel_messages()]
    yield
    after = [(m.id, m.edits, m.deleted) for m in fake.channel_messages()]
    visible_new = [m for m in fake.channel_messages() if m.id not in {i for i, _, _ in before}]
    assert after[: len(before)] == before, "a visible message was edited or deleted"
    assert visible_new == [], "a visible message was posted"


__all__ = ["BotFactory", "GatedRunner", "HeldStarts", "board_caught_up", "no_changes"]
