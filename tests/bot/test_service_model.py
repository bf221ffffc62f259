"""The service against a slow, obvious model of a two-player game.

Random streams of moves and resignations from the two players and a bystander go through
``GameService`` on the in-memory store; a plain ``Board`` plus three rules (only players act,
only on their turn, only on legal points) predicts what must be accepted and which error every
refusal must be. Every refusal must leave the stored game untouched.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.service import GameService
from bot.core.service.errors import NoActiveGameError, NotAPlayerError, NotYourTurnError
from bot.core.service.states import GameState
from engine.board import Board
from engine.errors import ForbiddenMoveError, OccupiedPointError
from engine.types import Color, Point, Rule, Termination
from storage.memory import InMemoryGameRepository
from storage.records import GameStatus
from tests.runners import FailingRunner
from tests.scale import examples

ALICE, BOB, CAROL = 1, 2, 3
CHANNEL, SIZE = 5, 7


def no_ai() -> FailingRunner:
    """The AI runner of games between people: asking it to move is a failure of the test."""
    return FailingRunner(AssertionError("no AI in games between people"))


@dataclass(frozen=True)
class Place:
    user: int
    point: Point


@dataclass(frozen=True)
class Resign:
    user: int


MOVER = 0  # resolved to whoever is to move, so that games get played, not only refused
users = st.sampled_from([MOVER, MOVER, MOVER, ALICE, BOB, CAROL])
points = st.builds(Point, st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))
actions = st.lists(
    # Resignations are rare (1 in 25) so that most games are played out to the board's end.
    st.tuples(st.integers(0, 24), users, points).map(
        lambda t: Resign(t[1]) if t[0] == 0 else Place(t[1], t[2])
    ),
    min_size=20,
    max_size=100,
)


def expected_error(model: Board, over: bool, action: Place | Resign) -> type[Exception] | None:
    if over:
        return NoActiveGameError
    if action.user not in (ALICE, BOB):
        return NotAPlayerError
    if isinstance(action, Resign):
        return None
    mover = ALICE if model.to_move is Color.BLACK else BOB
    if action.user != mover:
        return NotYourTurnError
    if model[action.point] is not None:
        return OccupiedPointError
    if model.forbidden_reason(action.point) is not None and model.to_move is Color.BLACK:
        return ForbiddenMoveError
    return None


async def run(stream: list[Place | Resign], rule: Rule) -> None:
    repo = InMemoryGameRepository()
    service = GameService(repo, no_ai(), rng=random.Random(0))
    pending = await service.start(
        channel_id=CHANNEL,
        guild_id=None,
        user_id=ALICE,
        opponent=BOB,
        size=SIZE,
        rule=rule,
        colour="black",
    )
    game_id = (await service.accept(pending.game_id, BOB)).game_id
    model = Board.for_game("gomoku", size=SIZE, rule=rule)
    over = False

    async def act(action: Place | Resign) -> GameState:
        """One action through the service; the game as stored after it."""
        if isinstance(action, Place):
            return (await service.place(CHANNEL, action.user, action.point)).game
        return (await service.resign(CHANNEL, action.user)).game

    for action in stream:
        if action.user == MOVER:
            mover = ALICE if model.to_move is Color.BLACK else BOB
            action = Place(mover, action.point) if isinstance(action, Place) else Resign(mover)
        before = await service.game(game_id)
        expected = expected_error(model, over, action)
        if expected is not None:
            with pytest.raises(expected):
                await act(action)
            assert (await service.game(game_id)).version == before.version
            continue
        stored = await act(action)
        if isinstance(action, Place):
            model.play(action.point)
            over = model.outcome is not None
        else:
            over = True
            assert stored.outcome is not None
            assert stored.outcome.termination is Termination.RESIGN
            loser = Color.BLACK if action.user == ALICE else Color.WHITE
            assert stored.outcome.winner is loser.opponent
        assert [m.point for m in stored.board.moves] == [m.point for m in model.moves]
        assert stored.version == before.version + 1
        assert (stored.status is GameStatus.FINISHED) == over
        if model.outcome is not None and isinstance(action, Place):
            assert stored.outcome == model.outcome


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions, st.sampled_from([Rule.FREESTYLE, Rule.RENJU, Rule.STANDARD]))
def test_service_agrees_with_the_model(stream: list[Place | Resign], rule: Rule) -> None:
    asyncio.run(run(stream, rule))


# ---------------------------------------------------------------- clocks against a model

TURN = 100  # seconds per turn in the clock model


@dataclass(frozen=True)
class Wait:
    seconds: int


clock_steps = st.lists(
    st.one_of(
        st.builds(Wait, st.integers(0, 60)),
        st.just("move"),
        st.just("tick"),
    ),
    min_size=5,
    max_size=60,
)


async def run_clock(steps: list[Wait | str]) -> None:
    from datetime import UTC, datetime, timedelta

    from bot.core.service.errors import OutOfTimeError
    from bot.core.service.states import GameEnd, TurnWarning
    from storage.records import GuildSettings

    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    repo = InMemoryGameRepository(clock=lambda: now[0])
    await repo.save_guild_settings(GuildSettings(7, turn_seconds=TURN))
    service = GameService(
        repo,
        no_ai(),
        clock=lambda: now[0],
        rng=random.Random(0),
    )
    pending = await service.start(
        channel_id=CHANNEL, guild_id=7, user_id=ALICE, opponent=BOB, colour="black", rated=False
    )
    await service.accept(pending.game_id, BOB)
    turn_start, warned, over, to_move = now[0], False, False, ALICE
    free = iter(Point(x, y) for y in range(15) for x in range(15) if (x + y) % 3 == 0)
    for step in steps:
        if isinstance(step, Wait):
            now[0] += timedelta(seconds=step.seconds)
        elif step == "move":
            if over:
                with pytest.raises(NoActiveGameError):
                    await service.place(CHANNEL, to_move, next(free))
                continue
            if (now[0] - turn_start).total_seconds() >= TURN:
                # Too late, and no tick saw it yet: the move ends the game, lost on time.
                with pytest.raises(OutOfTimeError) as caught:
                    await service.place(CHANNEL, to_move, next(free))
                outcome = caught.value.end.game.outcome
                assert outcome is not None
                assert outcome.termination is Termination.TIMEOUT
                assert outcome.winner is (Color.WHITE if to_move == ALICE else Color.BLACK)
                over = True
                continue
            await service.place(CHANNEL, to_move, next(free))
            turn_start, warned = now[0], False
            to_move = BOB if to_move == ALICE else ALICE
        else:
            events = await service.tick()
            elapsed = (now[0] - turn_start).total_seconds()
            if over:
                assert events == []
            elif elapsed >= TURN:
                assert len(events) == 1
                end = events[0]
                assert isinstance(end, GameEnd)
                assert end.game.outcome is not None
                assert end.game.outcome.termination is Termination.TIMEOUT
                loser = Color.BLACK if to_move == ALICE else Color.WHITE
                assert end.game.outcome.winner is loser.opponent
                over = True
            elif elapsed >= TURN * 0.8 and not warned:
                assert len(events) == 1
                warning = events[0]
                assert isinstance(warning, TurnWarning)
                assert warning.user_id == to_move
                assert warning.deadline == turn_start + timedelta(seconds=TURN)
                warned = True
            else:
                assert events == []
        expected_next = None
        if not over:
            deadline = turn_start + timedelta(seconds=TURN)
            expected_next = deadline if warned else deadline - timedelta(seconds=TURN * 0.2)
        assert await service.next_deadline() == expected_next


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clock_steps)
def test_clocks_agree_with_the_model(steps: list[Wait | str]) -> None:
    asyncio.run(run_clock(steps))
