"""The fault schedule: 50 games between people, each in its own thread, played through real
interactions on the real discord.py against the fake Discord, while Discord fails in every way
the fake knows: a REST outage long enough to pass every turn's deadline, a gateway that drops
and resumes, an invalid session, threads archived after a quiet week, locked, deleted, a
permission taken, and at the end the bot removed from the server.

What must hold: every move a player was told was played is stored, in order; within 10 s of
Discord's return every board shows its game as stored; no thread holds two boards; no game is
lost on time; nothing logs a traceback. The clocks are the test's (the bot's ``FakeClock``,
the fake's ``pass_time``) and every wait is on an event, so the run is fast and repeatable.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from bot.client import GomokuBot
from engine.types import Termination
from storage.records import GameStatus
from tests.bot.conftest import BotFactory
from tests.clock import FakeClock
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser, Message

GAMES = 50
TURN_MINUTES = 5
RECOVERY_S = 10.0  # boards match the database within this long after Discord is back
COLUMNS = "abcdefghijklmno"


@dataclass
class Game:
    """One game of the schedule, as its players and the test know it."""

    black: FakeUser
    white: FakeUser
    thread: FakeChannel | None = None
    game_id: int = 0
    acknowledged: list[str] = field(default_factory=list)  # moves the players were told of
    gone: bool = False  # its thread was deleted, locked or hidden from the bot

    def next_cell(self) -> str:
        """Black along row 1, White along row 15, every other column: nobody makes five."""
        n = len(self.acknowledged)
        row = 1 if n % 2 == 0 else 15
        return f"{COLUMNS[(n // 2) * 2 % 15]}{row}"

    def mover(self) -> FakeUser:
        return self.black if len(self.acknowledged) % 2 == 0 else self.white


@pytest.fixture
async def bot(fake: FakeDiscord, make_bot: BotFactory) -> AsyncIterator[GomokuBot]:
    instance = make_bot()
    async with fake.running(instance):
        instance.table.faults.first_retry_s = 0.02
        instance.table.faults.longest_retry_s = 0.2
        yield instance


async def _start(fake: FakeDiscord, bot: GomokuBot, game: Game) -> None:
    start = await fake.slash(
        "gomoku start",
        user=game.black,
        options={"opponent": game.white, "colour": "black", "rated": False},
    )
    assert start.message is not None
    starter = start.message.id

    def opened() -> FakeChannel | None:
        thread = next((c for c in fake.channels.values() if c.starter_message_id == starter), None)
        return thread if thread is not None and fake.channel_messages(thread) else None

    await fake.wait_for(lambda: opened() is not None)
    thread = opened()
    assert thread is not None
    game.thread = thread
    game.game_id = (await bot.service.board(thread.id)).game_id
    (challenge,) = fake.channel_messages(thread)
    await fake.click(challenge, f"gomoku:{game.game_id}:accept", user=game.white)


async def _move(fake: FakeDiscord, game: Game) -> None:
    if game.gone:
        return
    cell = game.next_cell()
    reply = await fake.slash(
        "place", user=game.mover(), channel=game.thread, options={"cell": cell}
    )
    assert "Something went wrong" not in reply.content
    if f"played **{cell}**" in reply.content.lower():
        game.acknowledged.append(cell)


def _board(fake: FakeDiscord, game: Game) -> list[Message]:
    assert game.thread is not None
    return [
        m
        for m in fake.channel_messages(game.thread)
        if any(
            e.get("footer", {}).get("text", "").startswith(f"game {game.game_id}") for e in m.embeds
        )
    ]


def _shows(fake: FakeDiscord, game: Game, moves: int) -> bool:
    want = f"game {game.game_id} · {moves} move{'s' if moves != 1 else ''}"
    boards = _board(fake, game)
    return len(boards) == 1 and any(
        e.get("footer", {}).get("text", "").startswith(want) for e in boards[0].embeds
    )


async def _boards_match(fake: FakeDiscord, bot: GomokuBot, games: list[Game]) -> float:
    """Wait until every open game's board shows its stored moves; seconds it took."""
    began = time.monotonic()
    for game in games:
        if game.gone:
            continue
        stored = len((await bot.service.game(game.game_id)).board.moves)
        await fake.wait_for(lambda game=game, stored=stored: _shows(fake, game, stored))  # type: ignore[misc]
    return time.monotonic() - began


async def _round(fake: FakeDiscord, games: list[Game]) -> None:
    await asyncio.gather(*(_move(fake, game) for game in games))


async def test_fifty_games_through_every_fault(
    fake: FakeDiscord,
    bot: GomokuBot,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    ended: set[int] = set()
    bot.service.subscribe(
        lambda event: ended.add(event.game.game_id) if event.game.is_over else None
    )
    fake.answer_timeout = 30.0  # fifty games at once on a shared, loaded host
    fake.allow(fake.default_channel, "create_public_threads")
    await fake.slash(
        "gomoku-admin settings", user=fake.owner, options={"turn_minutes": TURN_MINUTES}
    )
    games = [Game(fake.add_user(f"black{n}"), fake.add_user(f"white{n}")) for n in range(GAMES)]
    for game in games:
        await _start(fake, bot, game)
    await _round(fake, games)
    recoveries = [await _boards_match(fake, bot, games)]

    # 1. Discord's REST is down for longer than every turn's clock: moves are answered
    # (interaction callbacks still work), boards and pings wait; then nobody moves while the
    # clocks would have run out, and they stand still instead.
    outage = fake.outage(r"/channels/")
    await _round(fake, games)
    await fake.wait_for(bot.table.faults.paused)
    clock.advance(minutes=TURN_MINUTES + 1)
    bot.runner.wake()
    outage.end()
    recoveries.append(await _boards_match(fake, bot, games))
    await bot.table.faults.clocks_running()
    await _round(fake, games)

    # 2. The gateway drops and the bot resumes; then its session is invalidated.
    await fake.drop_gateway()
    await _round(fake, games)
    await fake.drop_gateway(invalidate=True)
    await _round(fake, games)
    recoveries.append(await _boards_match(fake, bot, games))

    # 3. A quiet week: Discord archives every thread; a player's message reopens each (its
    # clients offer no commands in an archived thread), then the next moves are played.
    archived = await fake.pass_time(7 * 24 * 3600)
    assert len(archived) == GAMES
    for game in games:
        assert game.thread is not None
        await fake.member_posts(game.thread, game.mover())
    await _round(fake, games)
    recoveries.append(await _boards_match(fake, bot, games))

    # 4. Threads deleted or locked under games: those games end without a result.
    for game in games[:3]:
        assert game.thread is not None
        game.gone = True
        await fake.delete_channel(game.thread)
    for game in games[3:5]:
        assert game.thread is not None
        await fake.archive_thread(game.thread, locked=True)  # nobody can move there now
    for game in games[:5]:
        game.gone = True
        await fake.wait_for(lambda game=game: game.game_id in ended)  # type: ignore[misc]
    # View Channel taken in two threads: their players are told, and those games wait.
    for game in games[5:7]:
        assert game.thread is not None
        fake.deny(game.thread, "view_channel")
        cell = game.next_cell()
        refused = await fake.slash(
            "place", user=game.mover(), channel=game.thread, options={"cell": cell}
        )
        assert refused.ephemeral
        assert "View Channel" in refused.content
    await _round(fake, games[7:])
    recoveries.append(await _boards_match(fake, bot, games))
    recoveries.append(await _boards_match(fake, bot, games))

    # Every acknowledged move is stored, in order; no game was lost on time.
    for game in games:
        view = await bot.service.game(game.game_id)
        assert [str(m.point) for m in view.board.moves] == game.acknowledged
        assert view.outcome is None or view.outcome.termination is not Termination.TIMEOUT
        if not game.gone:
            assert view.status is GameStatus.ACTIVE
            assert len(_board(fake, game)) == 1  # no thread holds two boards
    # 5. The bot is removed from the server: its games end, nothing raises.
    await fake.remove_bot()
    await fake.wait_for(lambda: bot.get_guild(fake.guild_id) is None)

    moves = sum(len(game.acknowledged) for game in games)
    print(
        f"\nfault schedule: {GAMES} games, {moves} acknowledged moves, 0 lost; "
        f"{bot.table.faults.outages} outage(s); slowest recovery "
        f"{max(recoveries):.2f} s (target {RECOVERY_S:.0f} s)"
    )
    assert max(recoveries) < RECOVERY_S
    traced = [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert traced == []
