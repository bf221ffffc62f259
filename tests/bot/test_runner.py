"""The core owns each game's life: the service's events, and the runner that answers for the
AI, runs the clocks and resumes pending work, whatever front end the game is played on. On
the in-memory repository with the fake clock; the runner's clock task is woken by hand
(``wake``) after the clock is moved, and the tests wait on its passes and on events."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import bot
from bot.core.runner import GameRunner
from bot.core.service import GameService
from bot.core.service.errors import GameNotActiveError, NotYourTurnError
from bot.core.service.events import (
    ChallengeIssued,
    Event,
    EventBus,
    GameEnded,
    GameStarted,
    Moved,
    Refreshed,
    TakenBack,
    TurnWarning,
    UndoAnswered,
    UndoAsked,
)
from bot.core.service.inputs import AnswerUndo, AskUndo, Choose, Drop, GameRef, Place, Resign
from bot.core.service.states import GameState, UndoRequest
from bot.terminal import TERMINAL_CHANNEL, Terminal
from bot.web.server import WebBoard
from bot.web.tokens import Role, Signer
from engine.types import Game, Point, Termination
from storage.memory import InMemoryGameRepository
from storage.records import GameStatus, NewGame, Player
from tests.bot.test_service import ALICE, BOB, CHANNEL, GUILD, start_pvp
from tests.clock import FakeClock
from tests.runners import NearestRunner
from tests.web.page import PageView


def recorded(service: GameService) -> list[Event]:
    """Every event of ``service`` from now on, in order."""
    events: list[Event] = []
    service.subscribe(events.append)
    return events


async def event_where(service: GameService, test: Callable[[Event], bool]) -> Event:
    """Wait (5 s at most) for the next event of ``service`` that passes ``test``."""
    found: asyncio.Future[Event] = asyncio.get_running_loop().create_future()

    def watch(event: Event) -> None:
        if test(event) and not found.done():
            found.set_result(event)

    service.subscribe(watch)
    try:
        async with asyncio.timeout(5):
            return await found
    finally:
        service.unsubscribe(watch)


def kinds(events: list[Event]) -> list[str]:
    return [type(event).__name__ for event in events]


async def test_a_game_between_people_publishes_each_change_once_in_order(
    service: GameService, clock: FakeClock
) -> None:
    await service.update_settings(GUILD, turn_seconds=60)
    events = recorded(service)
    view = await start_pvp(service)
    await service.place(CHANNEL, ALICE, Point.parse("h8"), via="web")
    await service.place(CHANNEL, BOB, Point.parse("i9"))
    request = await service.undo(CHANNEL, BOB)
    await service.answer_undo(view.game_id, ALICE, accept=True, via="web")
    clock.advance(50)
    await service.tick()
    await service.resign(CHANNEL, ALICE)
    assert request is not None
    assert kinds(events) == [
        "ChallengeIssued",
        "GameStarted",
        "Moved",
        "Moved",
        "UndoAsked",
        "TakenBack",
        "UndoAnswered",
        "TurnWarning",
        "GameEnded",
    ]
    issued, started, first, second, asked, taken, answered, warned, ended = events
    assert isinstance(issued, ChallengeIssued)
    assert issued.game.status is GameStatus.PENDING
    assert isinstance(started, GameStarted)
    assert started.game.is_active
    assert isinstance(first, Moved)
    assert (str(first.move.point), first.by_ai, first.via) == ("h8", False, "web")
    assert isinstance(second, Moved)
    assert (str(second.move.point), second.via) == ("i9", None)
    assert isinstance(asked, UndoAsked)
    assert (asked.requester, asked.responder, asked.moves, asked.via) == (BOB, ALICE, 1, None)
    assert asked.game.version == second.game.version  # a request changes no move
    assert isinstance(taken, TakenBack)
    assert [str(move.point) for move in taken.undone] == ["i9"]
    assert taken.via == "web"  # the front end of the answer
    assert isinstance(answered, UndoAnswered)
    assert (answered.requester, answered.responder, answered.by) == (BOB, ALICE, ALICE)
    assert (answered.accepted, answered.withdrawn, answered.via) == (True, False, "web")
    assert answered.game == taken.game  # the state after the takeback
    assert isinstance(warned, TurnWarning)
    assert warned.user_id == BOB
    assert isinstance(ended, GameEnded)
    assert not ended.by_clock
    assert ended.game.outcome is not None
    assert ended.game.outcome.termination is Termination.RESIGN
    # Every state is newer than the one before: a subscriber never sees a change twice.
    notes = TurnWarning | UndoAsked | UndoAnswered
    changes = [event for event in events if not isinstance(event, notes)]
    versions = [event.game.version for event in changes]
    assert versions == sorted(set(versions))


async def test_a_read_between_a_moves_commit_and_its_event_loses_no_event(
    service: GameService, repo: InMemoryGameRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another task reads the game after the move is stored and before the move's own event
    (a page, a command): the read is told as ``Refreshed``, and ``Moved`` follows all the
    same, which the front ends draw and the runner answers."""
    view = await start_pvp(service)
    events = recorded(service)
    store = repo.append_move

    async def store_then_read(*args: Any, **kwargs: Any) -> Any:
        stored = await store(*args, **kwargs)
        await service.game(view.game_id)  # learns the move's version first
        return stored

    monkeypatch.setattr(repo, "append_move", store_then_read)
    await service.place(CHANNEL, ALICE, Point.parse("h8"), via="web")
    assert kinds(events) == ["Refreshed", "Moved"]
    read, moved = events
    assert read.game.version == moved.game.version == view.version + 1
    assert isinstance(moved, Moved)
    assert (str(moved.move.point), moved.via) == ("h8", "web")


async def test_a_subscriber_of_some_kinds_gets_only_those_in_order_with_the_others(
    service: GameService,
) -> None:
    everything = recorded(service)
    calls: list[str] = []
    moves: list[Event] = []

    def of_moves(event: Event) -> None:
        calls.append("moves")
        moves.append(event)

    def of_all(event: Event) -> None:
        calls.append("all")

    def of_ends(event: Event) -> None:
        raise AssertionError("subscribed to ends, called with a start")

    service.subscribe(of_moves, (Moved, GameEnded))
    service.subscribe(of_all)
    service.subscribe(of_ends, (GameEnded,))
    view = await start_pvp(service)
    await service.place(CHANNEL, ALICE, Point.parse("h8"))
    service.unsubscribe(of_ends)  # gone from its kinds too
    await service.place(CHANNEL, BOB, Point.parse("i9"))
    await service.resign(CHANNEL, ALICE)
    assert kinds(everything) == ["ChallengeIssued", "GameStarted", "Moved", "Moved", "GameEnded"]
    assert moves == everything[2:]  # the moves and the end, the same events
    # Called in the order they subscribed, each only for its kinds.
    assert calls == ["all", "all", "moves", "all", "moves", "all", "moves", "all"]
    assert (await service.game(view.game_id)).is_over


def test_a_subscriber_who_joins_during_an_event_gets_the_next_one() -> None:
    bus = EventBus()
    seen: list[str] = []

    def late(event: Event) -> None:
        seen.append("late")

    def first(event: Event) -> None:
        seen.append("first")
        bus.subscribe(late, (Refreshed,))

    bus.subscribe(first, (Refreshed,))
    game = object.__new__(GameState)  # not read by these subscribers
    bus.publish(Refreshed(game))
    assert seen == ["first"]
    bus.unsubscribe(first)
    bus.publish(Refreshed(game))
    assert seen == ["first", "late"]


async def test_a_refused_or_withdrawn_undo_request_is_published_and_changes_nothing(
    service: GameService,
) -> None:
    view = await start_pvp(service)
    await service.place(CHANNEL, ALICE, Point.parse("h8"))
    events = recorded(service)
    await service.undo(CHANNEL, ALICE, via="web")
    assert await service.answer_undo(view.game_id, BOB, accept=False) is None
    await service.undo(CHANNEL, ALICE)
    assert await service.answer_undo(view.game_id, ALICE, accept=False, via="web") is None
    assert kinds(events) == ["UndoAsked", "UndoAnswered", "UndoAsked", "UndoAnswered"]
    _, refused, _, withdrawn = events
    assert isinstance(refused, UndoAnswered)
    assert (refused.by, refused.accepted, refused.withdrawn, refused.via) == (
        BOB, False, False, None
    )  # fmt: skip
    assert isinstance(withdrawn, UndoAnswered)
    assert (withdrawn.by, withdrawn.accepted, withdrawn.withdrawn, withdrawn.via) == (
        ALICE, False, True, "web"
    )  # fmt: skip
    stored = await service.game(view.game_id)
    assert refused.game.version == withdrawn.game.version == stored.version  # nothing moved
    assert [str(move.point) for move in stored.board.moves] == ["h8"]


async def test_the_runner_answers_for_the_ai_after_a_players_move(
    service: GameService, runner: NearestRunner
) -> None:
    games = GameRunner(service, poll=3600.0)
    games.subscribe()
    events = recorded(service)
    try:
        view = await service.start(
            channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="black"
        )
        assert await games.answer(view.game_id) is None  # the player moves first
        await service.place(CHANNEL, ALICE, Point.parse("a1"))
        reply = await games.answer(view.game_id)
        assert reply is not None
        assert str(reply.move.point) == "h8"
        assert [(type(e).__name__, getattr(e, "by_ai", None)) for e in events] == [
            ("GameStarted", None),
            ("Moved", False),
            ("Moved", True),
        ]
        assert len(runner.calls) == 1  # one search, whoever waits for it
    finally:
        await games.close()


async def test_a_closed_runner_starts_no_search_for_a_late_caller(
    service: GameService, runner: NearestRunner
) -> None:
    # A move's handler may ask for the AI's answer only after shutting down cancelled the
    # searches (its board was still being drawn): it is told the answer was cancelled, as a
    # caller waiting then was, and no search starts that nothing would stop.
    games = GameRunner(service, poll=3600.0)
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="black")
    await service.place(CHANNEL, ALICE, Point.parse("a1"))
    await games.close()
    with pytest.raises(asyncio.CancelledError):
        await games.answer(view.game_id)
    assert runner.calls == []
    # Open, the same call searches.
    fresh = GameRunner(service, poll=3600.0)
    try:
        reply = await fresh.answer(view.game_id)
        assert reply is not None
        assert len(runner.calls) == 1
    finally:
        await fresh.close()


async def test_the_ai_against_the_ai_plays_on_by_itself(service: GameService) -> None:
    games = GameRunner(service, poll=3600.0)
    games.subscribe()
    try:
        view = await service.start_local(
            channel_id=CHANNEL,
            black=Player.ai("easy"),
            white=Player.ai("easy"),
            game=Game.TICTACTOE,
        )
        ended = await event_where(
            service, lambda event: isinstance(event, Moved) and event.game.is_over
        )
        assert ended.game.game_id == view.game_id
        assert len(ended.game.board.moves) == 9  # the stand-in AI draws tic-tac-toe
    finally:
        await games.close()


async def test_the_runner_resumes_a_due_ai_move_after_a_restart(clock: FakeClock) -> None:
    repository = InMemoryGameRepository(clock=clock)
    # Left by a stopped process: the AI (Black) is to move.
    record = await repository.create_game(
        NewGame(GUILD, CHANNEL, black=Player.ai("easy"), white=Player.human(ALICE))
    )
    ai = NearestRunner()
    service = GameService(repository, ai, clock=clock)
    events = recorded(service)
    games = GameRunner(service, poll=3600.0)
    games.start()
    try:
        async with asyncio.timeout(5):
            await games.resumed.wait()
        assert (await repository.get_game(record.id)).ply == 1
        # The first read of a game this process did not know, then the AI's move.
        assert kinds(events) == ["Refreshed", "Moved"]
        assert isinstance(events[1], Moved)
        assert events[1].by_ai
        assert len(ai.calls) == 1
    finally:
        await games.close()


async def test_the_runners_clock_task_ends_a_game_whose_time_ran_out(
    service: GameService, clock: FakeClock
) -> None:
    await service.update_settings(GUILD, turn_seconds=60)
    games = GameRunner(service, poll=3600.0)
    games.start()
    try:
        view = await start_pvp(service)
        await games.passed()
        clock.advance(61)
        games.wake()
        ended = await event_where(service, lambda event: isinstance(event, GameEnded))
        assert isinstance(ended, GameEnded)
        assert ended.by_clock
        assert ended.game.game_id == view.game_id
        assert ended.game.winner == Player.human(BOB)
    finally:
        await games.close()


async def test_a_terminal_game_times_out_on_its_clock(clock: FakeClock) -> None:
    service = GameService(InMemoryGameRepository(clock=clock), NearestRunner(), clock=clock)
    await service.start_local(
        channel_id=TERMINAL_CHANNEL,
        black=Player.human(1),
        white=Player.human(2),
        turn_seconds=60,
    )
    out = io.StringIO()
    terminal = Terminal(service, out, colour=False)

    async def lines() -> AsyncIterator[str]:
        yield "h8"
        # White thinks for longer than the game's turn: the runner's clock ends it.
        clock.advance(61)
        terminal.runner.wake()
        await event_where(service, lambda event: isinstance(event, GameEnded))

    await terminal.run(lines())
    text = out.getvalue()
    assert "wins on time" in text
    view = await service.game(1)
    assert view.outcome is not None
    assert view.outcome.termination is Termination.TIMEOUT
    assert view.winner == Player.human(1)


async def test_a_web_board_game_times_out_on_its_clock(clock: FakeClock) -> None:
    """The web board served over the service and its runner alone, no Discord: a move from
    the page, then the clock ends the game, and the page is shown the end."""
    service = GameService(InMemoryGameRepository(clock=clock), NearestRunner(), clock=clock)
    await service.update_settings(GUILD, turn_seconds=60)
    view = await start_pvp(service)
    games = GameRunner(service, poll=3600.0)
    games.start()
    signer = Signer(b"a test secret for the runner's board")
    board = WebBoard(service, signer)
    port = await board.start(0, host="127.0.0.1")
    try:
        token = signer.mint(view.game_id, ALICE, Role.PLAY)
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws")
            await ws.send_json({"type": "hello", "token": token})
            page = PageView()  # the whole state, then deltas, as the page applies them
            first = page.take(await ws.receive_json(timeout=5))
            assert first is not None
            assert first["your_turn"]
            await ws.send_json({"type": "move", "token": token, "x": 7, "y": 7})
            moved = page.take(await ws.receive_json(timeout=5))
            assert moved is not None
            assert moved["moves"] == [[7, 7, 0]]
            clock.advance(61)
            games.wake()
            ended = page.take(await ws.receive_json(timeout=5))
            assert ended is not None
            assert ended["over"]
            assert "on time" in ended["line"]
            await ws.close()
        stored = await service.game(view.game_id)
        assert stored.winner == Player.human(ALICE)
    finally:
        await board.close()
        await games.close()


async def test_one_path_in_takes_every_input_by_game_reference(service: GameService) -> None:
    events = recorded(service)
    view = await start_pvp(service)
    by_id, by_channel = GameRef(view.game_id), GameRef(channel_id=CHANNEL)
    moved = await service.act(by_id, ALICE, Place(Point.parse("h8")), via="web")
    assert str(moved.move.point) == "h8"
    await service.act(by_channel, BOB, Place(Point.parse("i9")), via="terminal")
    asked = await service.act(by_channel, BOB, AskUndo(), via="discord")
    assert isinstance(asked, UndoRequest)
    undone = await service.act(by_id, ALICE, AnswerUndo(True), via="discord")
    assert undone is not None
    assert [str(m.point) for m in undone.undone] == ["i9"]
    with pytest.raises(NotYourTurnError):
        await service.act(by_id, ALICE, Place(Point.parse("a1")))
    end = await service.act(GameRef(view.game_id, CHANNEL), BOB, Resign(), via="web")
    assert end.game.winner == Player.human(ALICE)
    moves = [e for e in events if isinstance(e, Moved)]
    assert [e.via for e in moves] == ["web", "terminal"]
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.via == "web"
    # A game id that is not open is refused, not taken for the channel's game.
    with pytest.raises(GameNotActiveError):
        await service.act(by_id, BOB, Drop(3))


async def test_one_path_in_takes_an_opening_choice(service: GameService) -> None:
    view = await start_pvp(service, opening="swap2")
    for point in ("h8", "i9", "h9"):  # the first player's three stones
        await service.act(GameRef(view.game_id), ALICE, Place(Point.parse(point)))
    result = await service.act(GameRef(channel_id=CHANNEL), BOB, Choose("white"))
    assert result.step == "white"


# What decides "after a move" (the AI's reply, the clocks, resuming): the core alone.
_AFTER_A_MOVE = re.compile(r"\b(ai_reply|tick_and_plan|tick|resume|wake_deadlines|wake)\(")
# A player's input goes in through ``act`` alone.
_BY_HAND = re.compile(r"service\.(place|drop|resign|opening_choice|undo|answer_undo)\(")


def test_no_front_end_decides_what_happens_after_a_move_or_plays_by_hand() -> None:
    root = Path(bot.__file__).parent
    front_ends = [
        path
        for path in root.rglob("*.py")
        if path.relative_to(root).parts[0] != "core"
        and path.name != "worker.py"  # the AI worker process, which runs searches
    ]
    assert front_ends
    found = {
        f"{path.relative_to(root)}:{number}": line.strip()
        for path in front_ends
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _AFTER_A_MOVE.search(line) or _BY_HAND.search(line)
    }
    assert found == {}
    core = root / "core"
    assert any("def wake(" in p.read_text(encoding="utf-8") for p in core.rglob("*.py"))
