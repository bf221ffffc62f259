"""GameService on the in-memory repository, with in-process AI runners behind the AIRunner seam.

The real process pool is exercised in test_ai.py and test_service_sqlite.py; here the AI is a
deterministic stand-in so that each test is about the service's own behaviour: turns, races,
challenges, clocks, undo and the dropping of stale AI moves.
"""

from __future__ import annotations

import asyncio
import random
from collections import OrderedDict
from datetime import datetime, timedelta
from typing import Any

import pytest

from bot.core import positions
from bot.core.service import GameService
from bot.core.service import errors as service_errors
from bot.core.service.events import UndoAnswered
from bot.core.service.states import ChallengeExpired, GameEnd, TurnWarning, UndoRequest, UndoResult
from engine.board import Board
from engine.errors import (
    ColumnFullError,
    FloatingStoneError,
    ForbiddenMoveError,
    OccupiedPointError,
)
from engine.types import Color, Game, Move, Outcome, Point, Rule, Termination
from storage.memory import InMemoryGameRepository
from storage.records import GameStatus, GuildSettings, Player
from tests.clock import FakeClock
from tests.runners import FailingRunner, FlakyRunner, NearestRunner

ALICE, BOB, CAROL = 101, 202, 303
GUILD, CHANNEL = 9, 77


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def start_pvp(
    service: GameService,
    *,
    rule: Rule | None = Rule.FREESTYLE,
    rated: bool = False,
    accept_on: GameService | None = None,
    **options: Any,
):
    """Alice (Black) challenges Bob (White), Bob accepts (through ``accept_on`` when given,
    another service on the same store): a friendly game unless ``rated`` (then a Gomoku one
    opens with the server's opening rule), with ``service.start``'s other ``options`` (game,
    size, opening)."""
    view = await service.start(
        channel_id=CHANNEL,
        guild_id=GUILD,
        user_id=ALICE,
        opponent=BOB,
        colour="black",
        rule=rule,
        rated=rated,
        **options,
    )
    return await (accept_on or service).accept(view.game_id, BOB)


async def play(service: GameService, moves: str, users=(ALICE, BOB)):
    result = None
    for i, text in enumerate(moves.split()):
        result = await service.place(CHANNEL, users[i % 2], Point.parse(text))
    return result


# ---------------------------------------------------------------- against the AI


async def test_game_against_the_ai_alternates_user_and_ai(service: GameService) -> None:
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="black")
    assert view.status is GameStatus.ACTIVE
    assert not view.is_ai_turn
    assert view.black == Player.human(ALICE)
    assert view.white == Player.ai("medium")
    assert not view.rated

    result = await service.place(CHANNEL, ALICE, Point.parse("a1"))
    assert result.ai_due
    reply = await service.ai_reply(result.game.game_id)
    assert reply is not None
    assert reply.move.color is Color.WHITE
    assert reply.move.point == Point(7, 7)  # the stand-in AI takes the centre
    assert not reply.ai_due
    assert [str(m.point) for m in reply.game.board.moves] == ["a1", "h8"]
    # Nothing left for the AI to do.
    assert await service.ai_reply(result.game.game_id) is None


async def test_ai_moves_first_when_the_user_takes_white(service: GameService) -> None:
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    assert view.is_ai_turn
    with pytest.raises(service_errors.AIThinkingError):
        await service.place(CHANNEL, ALICE, Point(0, 0))
    reply = await service.ai_reply(view.game_id)
    assert reply is not None
    assert reply.move.color is Color.BLACK
    assert reply.game.to_move == Player.human(ALICE)


async def test_coin_toss_gives_both_colours(repo, runner, clock) -> None:
    import random

    seen = set()
    for seed in range(12):
        service = GameService(repo, runner, clock=clock, rng=random.Random(seed))
        view = await service.start(channel_id=1000 + seed, guild_id=GUILD, user_id=ALICE)
        seen.add(view.color_of(ALICE))
    assert seen == {Color.BLACK, Color.WHITE}


async def test_concurrent_ai_replies_share_one_search(service: GameService, runner) -> None:
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    runner.gate = asyncio.Event()
    first = asyncio.create_task(service.ai_reply(view.game_id))
    second = asyncio.create_task(service.ai_reply(view.game_id))
    await runner.held.wait()  # the search is under way, held at the gate
    runner.gate.set()
    results = await asyncio.gather(first, second)
    assert len(runner.calls) == 1
    assert results[0] is results[1]
    assert len((await service.board(CHANNEL)).board.moves) == 1


async def test_ai_move_is_dropped_when_the_game_changed_while_it_thought(
    service: GameService, runner
) -> None:
    await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="black")
    result = await service.place(CHANNEL, ALICE, Point.parse("h8"))
    runner.gate = asyncio.Event()
    thinking = asyncio.create_task(service.ai_reply(result.game.game_id))
    await runner.held.wait()  # the search is under way, held at the gate
    undone = await service.undo(CHANNEL, ALICE)  # takes back h8 while the AI searches
    assert isinstance(undone, UndoResult)
    assert [str(m.point) for m in undone.undone] == ["h8"]
    runner.gate.set()
    assert await thinking is None
    view = await service.board(CHANNEL)
    assert view.board.moves == ()
    assert view.version == undone.game.version


async def test_ai_move_is_dropped_after_resign(service: GameService, runner) -> None:
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    runner.gate = asyncio.Event()
    thinking = asyncio.create_task(service.ai_reply(view.game_id))
    await runner.held.wait()  # the search is under way, held at the gate
    end = await service.resign(CHANNEL, ALICE)
    runner.gate.set()
    assert await thinking is None
    assert end.game.outcome is not None
    assert end.game.outcome.termination is Termination.RESIGN
    assert end.game.winner == Player.ai("medium")
    assert end.game.board.moves == ()


async def test_failing_ai_leaves_the_game_as_it_was(repo, clock) -> None:
    service = GameService(repo, FailingRunner(), clock=clock)
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    with pytest.raises(service_errors.AIFailedError):
        await service.ai_reply(view.game_id)
    after = await service.board(CHANNEL)
    assert after.version == view.version
    assert after.is_ai_turn


async def test_resume_retries_a_failed_ai_move(repo, clock) -> None:
    runner = FlakyRunner(NearestRunner(), failures=1)
    service = GameService(repo, runner, clock=clock)
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    with pytest.raises(service_errors.AIFailedError):
        await service.ai_reply(view.game_id)
    # What the deadline task does now and then: games idle for a minute.
    assert await service.resume(idle_for=timedelta(minutes=1)) == []
    assert runner.tries == 1
    clock.advance(60)
    made = await service.resume(idle_for=timedelta(minutes=1))
    assert [r.move for r in made] == [Move(Point(7, 7), Color.BLACK)]
    assert runner.tries == 2
    assert await service.resume() == []  # nothing due any more: safe to repeat


async def test_resume_leaves_a_search_in_flight_alone(service: GameService, runner) -> None:
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    runner.gate = asyncio.Event()
    thinking = asyncio.create_task(service.ai_reply(view.game_id))
    await runner.held.wait()  # the search is under way, held at the gate
    assert await service.resume() == []  # its caller will show the move
    runner.gate.set()
    result = await thinking
    assert result is not None
    assert len(runner.calls) == 1


async def test_undo_against_the_ai_takes_back_the_pair(service: GameService) -> None:
    await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="black")
    with pytest.raises(service_errors.NoMoveToUndoError):
        await service.undo(CHANNEL, ALICE)
    for text in ("a1", "b2"):
        result = await service.place(CHANNEL, ALICE, Point.parse(text))
        await service.ai_reply(result.game.game_id)
    undone = await service.undo(CHANNEL, ALICE)
    assert isinstance(undone, UndoResult)
    assert [m.color for m in undone.undone] == [Color.WHITE, Color.BLACK]
    assert undone.undone[1].point == Point.parse("b2")
    assert len(undone.game.board.moves) == 2
    assert undone.game.board.to_move is Color.BLACK


async def test_resume_makes_the_due_ai_move_after_a_restart(repo, runner, clock) -> None:
    before = GameService(repo, runner, clock=clock)
    view = await before.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    assert view.is_ai_turn
    # The process "dies" here; a new service on the same store carries on.
    after = GameService(repo, NearestRunner(), clock=clock)
    made = await after.resume()
    assert [r.game.game_id for r in made] == [view.game_id]
    assert made[0].move.color is Color.BLACK
    assert await after.resume() == []


async def test_hint_for_a_game_against_the_ai(service: GameService) -> None:
    await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="black")
    hint = await service.hint(CHANNEL, ALICE)
    assert hint.point == Point(7, 7)
    assert hint.game.board.moves == ()  # a hint changes nothing


async def test_hint_is_refused_in_rated_games(service: GameService) -> None:
    await start_pvp(service, rated=True)
    with pytest.raises(service_errors.HintNotAllowedError):
        await service.hint(CHANNEL, ALICE)
    with pytest.raises(service_errors.NotYourTurnError):
        await service.hint(CHANNEL, BOB)


# ---------------------------------------------------------------- challenges and turns


async def test_a_rated_challenge_opens_with_swap2_and_updates_the_rules_ratings(
    service: GameService,
) -> None:
    pending = await service.start(
        channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB, colour="black"
    )
    assert pending.status is GameStatus.PENDING
    assert pending.challenger == ALICE
    assert pending.challenged == BOB
    with pytest.raises(service_errors.GameNotActiveError):
        await service.place(CHANNEL, ALICE, Point(7, 7))
    with pytest.raises(service_errors.NotChallengedError):
        await service.accept(pending.game_id, ALICE)
    with pytest.raises(service_errors.NotChallengedError):
        await service.accept(pending.game_id, CAROL)
    active = await service.accept(pending.game_id, BOB)
    assert active.status is GameStatus.ACTIVE
    assert active.rated
    assert active.opening is not None
    assert active.opening.rule.value == "swap2"

    # Swap2: Alice places three stones, Bob chooses his colour (he keeps White), then play.
    await play(service, "h8 a1 h9", users=(ALICE, ALICE))
    chosen = await service.opening_choice(active.game_id, BOB, "white")
    assert (chosen.game.black.user_id, chosen.game.white.user_id) == (ALICE, BOB)
    result = await play(service, "a2 h10 a3 h11 a4 h12", users=(BOB, ALICE))
    assert result is not None
    assert result.finished
    assert result.game.outcome is not None
    assert result.game.outcome.termination is Termination.FIVE
    assert result.game.winner == Player.human(ALICE)
    assert set(result.game.board.winning_line) == {Point(7, y) for y in range(7, 12)}
    changes = {c.user_id: c for c in result.ratings}
    assert changes[ALICE].after > changes[ALICE].before
    assert changes[BOB].after < changes[BOB].before
    stats = await service.stats(ALICE, guild_id=GUILD)
    assert stats is not None
    assert stats.wins == 1
    assert stats.rule is Rule.FREESTYLE
    # each rule is rated apart: nothing under renju
    assert await service.stats(ALICE, guild_id=GUILD, rule=Rule.RENJU) is None
    board = await service.leaderboard(guild_id=GUILD)
    assert [s.user_id for s in board] == [ALICE, BOB]
    # The channel is free again.
    with pytest.raises(service_errors.NoActiveGameError):
        await service.board(CHANNEL)


async def test_a_friendly_game_changes_no_rating(service: GameService) -> None:
    active = await start_pvp(service, rated=False)
    assert not active.rated
    assert active.opening is None  # freestyle, no opening rule: Alice moves first
    result = await play(service, "h8 a1 h9 a2 h10 a3 h11 a4 h12")
    assert result is not None
    assert result.game.winner == Player.human(ALICE)
    assert result.ratings == ()
    for user in (ALICE, BOB):
        assert await service.stats(user, guild_id=GUILD) is None
        assert await service.stats(user) is None
    assert await service.leaderboard(guild_id=GUILD) == []


@pytest.mark.parametrize(
    ("game", "size"), [(Game.TICTACTOE, None), (Game.GRAVITY3, None), (Game.GOMOKU, 19)]
)
async def test_small_games_and_other_sizes_are_never_rated(
    service: GameService, game: Game, size: int | None
) -> None:
    view = await service.start(
        channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB, game=game, size=size
    )
    assert not view.rated
    assert view.opening is None
    active = await service.accept(view.game_id, BOB)
    end = await service.resign(CHANNEL, active.black.user_id or 0)
    assert isinstance(end, GameEnd)
    assert end.ratings == ()
    for user in (ALICE, BOB):
        assert await service.stats(user, game=game, guild_id=GUILD) is None


async def test_connect_four_is_rated_apart(service: GameService) -> None:
    await start_pvp(service, game=Game.CONNECT4, rated=True)
    end = await service.resign(CHANNEL, BOB)
    assert isinstance(end, GameEnd)
    assert {c.user_id for c in end.ratings} == {ALICE, BOB}
    assert await service.stats(ALICE, game=Game.CONNECT4, guild_id=GUILD) is not None
    assert await service.stats(ALICE, guild_id=GUILD) is None  # Gomoku untouched


async def test_decline_and_withdraw(service: GameService) -> None:
    pending = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB)
    with pytest.raises(service_errors.NotChallengedError):
        await service.decline(pending.game_id, CAROL)
    end = await service.decline(pending.game_id, BOB)
    assert end.game.status is GameStatus.DECLINED
    with pytest.raises(service_errors.GameNotActiveError):
        await service.accept(pending.game_id, BOB)

    again = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB)
    withdrawn = await service.decline(again.game_id, ALICE)
    assert withdrawn.game.status is GameStatus.CANCELLED


async def test_the_deadline_pass_plans_from_the_games_its_tick_left(
    service: GameService, clock: FakeClock
) -> None:
    first = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB)
    clock.advance(60)
    second = await service.start(
        channel_id=CHANNEL + 1, guild_id=GUILD, user_id=CAROL, opponent=BOB
    )
    clock.advance(8 * 60)
    assert await service.tick_and_plan() == ([], first.deadline)
    clock.advance(61)
    events, upcoming = await service.tick_and_plan()
    assert [(type(e), e.game.game_id) for e in events] == [(ChallengeExpired, first.game_id)]
    assert upcoming == second.deadline  # read again: the expired challenge has no deadline
    assert await service.next_deadline() == second.deadline


async def test_challenge_expires(service: GameService, clock: FakeClock) -> None:
    pending = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB)
    clock.advance(9 * 60)
    assert await service.tick() == []
    assert await service.next_deadline() == pending.deadline
    clock.advance(61)
    with pytest.raises(service_errors.ChallengeExpiredError):
        await service.accept(pending.game_id, BOB)
    events = await service.tick()
    assert len(events) == 1
    assert isinstance(events[0], ChallengeExpired)
    assert events[0].game.status is GameStatus.EXPIRED
    with pytest.raises(service_errors.ChallengeExpiredError):
        await service.accept(pending.game_id, BOB)
    assert await service.next_deadline() is None


async def test_refusals_change_nothing(service: GameService) -> None:
    with pytest.raises(service_errors.NoActiveGameError):
        await service.place(CHANNEL, ALICE, Point(7, 7))
    with pytest.raises(service_errors.SelfChallengeError):
        await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=ALICE)
    view = await start_pvp(service)
    with pytest.raises(service_errors.GameExistsError):
        await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=CAROL)
    with pytest.raises(service_errors.NotYourTurnError):
        await service.place(CHANNEL, BOB, Point(7, 7))
    with pytest.raises(service_errors.NotAPlayerError):
        await service.place(CHANNEL, CAROL, Point(7, 7))
    await service.place(CHANNEL, ALICE, Point(7, 7))
    with pytest.raises(OccupiedPointError):
        await service.place(CHANNEL, BOB, Point(7, 7))
    with pytest.raises(service_errors.NotAPlayerError):
        await service.resign(CHANNEL, CAROL)
    after = await service.board(CHANNEL)
    assert after.version == view.version + 1
    assert len(after.board.moves) == 1


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"size": 4}, "size"),
        ({"size": 21}, "size"),
        ({"game": Game.CONNECT4, "size": 9}, "size"),
        ({"game": Game.TICTACTOE, "rule": Rule.RENJU}, "rule"),
        ({"level": "grandmaster"}, "level"),
        ({"colour": "green"}, "colour"),
    ],
    ids=["size-4", "size-21", "connect4-size", "tictactoe-renju", "level", "colour"],
)
async def test_invalid_start_options(service: GameService, options, option) -> None:
    with pytest.raises(service_errors.InvalidOptionError) as caught:
        await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, **options)
    assert caught.value.option == option
    with pytest.raises(service_errors.NoActiveGameError):
        await service.board(CHANNEL)


async def test_renju_forbidden_point_is_refused(service: GameService) -> None:
    await start_pvp(service, rule=Rule.RENJU)
    # Black's stones on h8 i8 and h9 i10 (j10 empty): j8 ... a double-three at g9 below.
    await play(service, "h8 a1 i8 a3 h10 a5 i9 a7")
    view = await service.board(CHANNEL)
    forbidden = view.board.forbidden_points()
    assert forbidden, "the position should hold a forbidden point"
    with pytest.raises(ForbiddenMoveError):
        await service.place(CHANNEL, ALICE, forbidden[0])
    assert (await service.board(CHANNEL)).version == view.version


async def test_gravity_games_drop_and_refuse_floating_stones(service: GameService) -> None:
    await start_pvp(service, game=Game.CONNECT4)
    result = await service.drop(CHANNEL, ALICE, 3)
    assert result.move.point == Point(3, 0)
    with pytest.raises(FloatingStoneError):
        await service.place(CHANNEL, BOB, Point(4, 3))
    result = await service.place(CHANNEL, BOB, Point(3, 1))
    assert result.move.color is Color.WHITE
    for i in range(4):
        await service.drop(CHANNEL, (ALICE, BOB)[i % 2], 3)
    with pytest.raises(ColumnFullError):
        await service.drop(CHANNEL, ALICE, 3)


async def test_two_places_at_once_exactly_one_counts(service: GameService) -> None:
    view = await start_pvp(service)
    results = await asyncio.gather(
        service.place(CHANNEL, ALICE, Point.parse("h8")),
        service.place(CHANNEL, ALICE, Point.parse("h9")),
        return_exceptions=True,
    )
    errors = [r for r in results if isinstance(r, BaseException)]
    assert len(errors) == 1
    assert isinstance(errors[0], service_errors.NotYourTurnError)
    after = await service.board(CHANNEL)
    assert len(after.board.moves) == 1
    assert after.version == view.version + 1


async def test_same_point_at_once_in_a_hot_seat_game(service: GameService) -> None:
    await service.start_local(
        channel_id=CHANNEL, black=Player.human(ALICE), white=Player.human(ALICE)
    )
    results = await asyncio.gather(
        service.place(CHANNEL, ALICE, Point.parse("h8")),
        service.place(CHANNEL, ALICE, Point.parse("h8")),
        return_exceptions=True,
    )
    errors = [r for r in results if isinstance(r, BaseException)]
    assert [type(e) for e in errors] == [OccupiedPointError]
    assert len((await service.board(CHANNEL)).board.moves) == 1


async def test_stale_button_does_not_act_on_a_newer_game(service: GameService) -> None:
    old = await start_pvp(service)
    await service.resign(CHANNEL, BOB)
    await start_pvp(service)
    with pytest.raises(service_errors.GameNotActiveError):
        await service.place(CHANNEL, ALICE, Point(7, 7), game_id=old.game_id)
    with pytest.raises(service_errors.GameNotActiveError):
        await service.resign(CHANNEL, ALICE, game_id=old.game_id)


async def test_resign_finishes_a_rated_game(service: GameService) -> None:
    await start_pvp(service, rated=True)
    end = await service.resign(CHANNEL, BOB)
    assert isinstance(end, GameEnd)
    assert end.game.winner == Player.human(ALICE)
    assert {c.user_id for c in end.ratings} == {ALICE, BOB}


# ---------------------------------------------------------------- undo between people


async def test_undo_between_people_needs_consent(service: GameService) -> None:
    await start_pvp(service)
    await play(service, "h8 i9 h9")
    request = await service.undo(CHANNEL, BOB)  # Bob's i9 and Alice's h9 after it
    assert isinstance(request, UndoRequest)
    assert (request.requester, request.responder, request.moves) == (BOB, ALICE, 2)
    with pytest.raises(service_errors.UndoPendingError):
        await service.undo(CHANNEL, BOB)
    with pytest.raises(service_errors.OwnUndoRequestError):
        await service.answer_undo(request.game.game_id, BOB, accept=True)
    with pytest.raises(service_errors.NotAPlayerError):
        await service.answer_undo(request.game.game_id, 999, accept=False)
    result = await service.answer_undo(request.game.game_id, ALICE, accept=True)
    assert result is not None
    assert [str(m.point) for m in result.game.board.moves] == ["h8"]
    with pytest.raises(service_errors.NoUndoRequestError):
        await service.answer_undo(request.game.game_id, ALICE, accept=True)


async def alice_asks_to_undo_h8(service: GameService) -> UndoRequest:
    """A game between people where Alice played h8 and asks Bob to take it back."""
    await start_pvp(service)
    await play(service, "h8")
    request = await service.undo(CHANNEL, ALICE)
    assert isinstance(request, UndoRequest)
    return request


async def test_undo_request_goes_stale_when_a_move_is_made(service: GameService) -> None:
    request = await alice_asks_to_undo_h8(service)
    await service.place(CHANNEL, BOB, Point.parse("i9"))
    with pytest.raises(service_errors.NoUndoRequestError):
        await service.answer_undo(request.game.game_id, BOB, accept=True)


async def test_an_undo_requests_message_is_carried_to_its_answer(service: GameService) -> None:
    request = await alice_asks_to_undo_h8(service)
    game_id, version = request.game.game_id, request.game.version
    answers: list[UndoAnswered] = []
    service.subscribe(
        lambda event: answers.append(event) if isinstance(event, UndoAnswered) else None
    )
    assert await service.undo_posted(game_id, version + 1, 70, 71) is False  # not this request
    assert await service.undo_posted(game_id, version, 70, 71) is True
    assert await service.drop_stale_undo_requests() == []  # still answerable: kept
    await service.answer_undo(game_id, BOB, accept=False)
    [answer] = answers
    assert (answer.channel_id, answer.message_id, answer.accepted) == (70, 71, False)
    assert await service.undo_posted(game_id, version, 70, 72) is False  # answered


async def test_a_request_its_game_left_behind_is_dropped(service: GameService) -> None:
    request = await alice_asks_to_undo_h8(service)
    game_id = request.game.game_id
    await service.undo_posted(game_id, request.game.version, 70, 71)
    await service.place(CHANNEL, BOB, Point.parse("i9"))
    [(dropped, guild_id)] = await service.drop_stale_undo_requests(game_id)
    assert (dropped.requester, dropped.channel_id, dropped.message_id) == (ALICE, 70, 71)
    assert guild_id == GUILD
    assert await service.drop_stale_undo_requests() == []  # dropped once


async def test_undo_request_declined(service: GameService) -> None:
    request = await alice_asks_to_undo_h8(service)
    assert await service.answer_undo(request.game.game_id, BOB, accept=False) is None
    assert len((await service.board(CHANNEL)).board.moves) == 1


# ---------------------------------------------------------------- clocks


async def test_turn_clock_warns_at_80_percent_then_ends_the_game(
    service: GameService, repo: InMemoryGameRepository, clock: FakeClock
) -> None:
    await repo.save_guild_settings(GuildSettings(GUILD, turn_seconds=100))
    view = await start_pvp(service)
    assert view.deadline == clock.now + timedelta(seconds=100)
    clock.advance(79)
    assert await service.tick() == []
    clock.advance(2)
    events = await service.tick()
    assert len(events) == 1
    assert isinstance(events[0], TurnWarning)
    assert events[0].user_id == ALICE
    assert await service.tick() == []  # warned once
    # A move restarts the clock for the other player.
    await service.place(CHANNEL, ALICE, Point(7, 7))
    clock.advance(99)
    assert [type(e) for e in await service.tick()] == [TurnWarning]
    clock.advance(1)
    events = await service.tick()
    assert len(events) == 1
    end = events[0]
    assert isinstance(end, GameEnd)
    assert end.game.outcome is not None
    assert end.game.outcome.termination is Termination.TIMEOUT
    assert end.game.winner == Player.human(ALICE)
    assert end.ratings == ()  # a friendly game
    assert await service.tick() == []


async def test_a_move_after_the_deadline_loses_on_time(
    service: GameService, repo: InMemoryGameRepository, clock: FakeClock
) -> None:
    await repo.save_guild_settings(GuildSettings(GUILD, turn_seconds=100))
    view = await start_pvp(service)
    clock.advance(99)
    await service.place(CHANNEL, ALICE, Point.parse("h8"))  # in time: played
    clock.advance(100)  # Bob's deadline is now, and no tick has seen it yet
    with pytest.raises(service_errors.OutOfTimeError) as caught:
        await service.place(CHANNEL, BOB, Point.parse("i9"))
    error = caught.value
    assert (error.game_id, error.user_id) == (view.game_id, BOB)
    assert error.end.game.outcome == Outcome(Termination.TIMEOUT, Color.BLACK)
    assert error.end.ratings == ()  # a friendly game
    stored = await service.game(view.game_id)
    assert stored.status is GameStatus.FINISHED
    assert stored.outcome == Outcome(Termination.TIMEOUT, Color.BLACK)
    assert stored.board.moves == (Move(Point.parse("h8"), Color.BLACK),)  # i9 was not played
    assert await service.tick() == []  # nothing left for the deadline task


async def test_while_the_clocks_stand_still_lateness_is_judged_at_their_stop(
    service: GameService, repo: InMemoryGameRepository, clock: FakeClock
) -> None:
    await repo.save_guild_settings(GuildSettings(GUILD, turn_seconds=100))
    view = await start_pvp(service)
    stopped: list[datetime] = []
    service.clocks_stopped_at = lambda: stopped[0] if stopped else None
    clock.advance(50)
    stopped.append(clock.now)  # the front end cannot reach its players from here on
    clock.advance(500)  # far past Alice's deadline on the wall clock
    await service.place(CHANNEL, ALICE, Point.parse("h8"))  # her deadline was after the stop
    clock.advance(500)
    stopped[0] = clock.now - timedelta(seconds=101)  # Bob's deadline had passed at the stop
    with pytest.raises(service_errors.OutOfTimeError):
        await service.place(CHANNEL, BOB, Point.parse("i9"))
    stored = await service.game(view.game_id)
    assert stored.outcome == Outcome(Termination.TIMEOUT, Color.BLACK)


async def test_a_late_drop_loses_on_time(
    service: GameService, repo: InMemoryGameRepository, clock: FakeClock
) -> None:
    await repo.save_guild_settings(GuildSettings(GUILD, turn_seconds=30))
    view = await start_pvp(service, game=Game.CONNECT4)
    clock.advance(31)
    with pytest.raises(service_errors.OutOfTimeError):
        await service.drop(CHANNEL, ALICE, 3)
    stored = await service.game(view.game_id)
    assert stored.outcome == Outcome(Termination.TIMEOUT, Color.WHITE)
    assert stored.board.moves == ()


async def test_the_ai_has_no_clock(service, repo, clock) -> None:
    # The guild's clock is for games between people, unless it asks for AI games too.
    await repo.save_guild_settings(GuildSettings(GUILD, turn_seconds=60))
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    assert view.deadline is None
    reply = await service.ai_reply(view.game_id)
    assert reply is not None
    assert reply.game.deadline is None
    await service.resign(CHANNEL, ALICE)
    await repo.save_guild_settings(GuildSettings(GUILD, turn_seconds=60, ai_clock=True))
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    assert view.deadline is None  # the AI moves first, and has no clock
    reply = await service.ai_reply(view.game_id)
    assert reply is not None
    assert reply.game.deadline == clock.now + timedelta(seconds=60)


async def test_a_new_clock_reaches_open_games_from_their_next_turn(service, clock) -> None:
    people = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB)
    await service.accept(people.game_id, BOB)
    ai = await service.start(channel_id=CHANNEL + 1, guild_id=GUILD, user_id=ALICE, colour="black")
    await service.update_settings(GUILD, turn_seconds=120)
    black = (await service.game(people.game_id)).black.user_id
    assert black is not None
    assert (await service.game(people.game_id)).deadline is None  # this turn stays unclocked
    moved = await service.place(CHANNEL, black, Point(7, 7))
    assert moved.game.deadline == clock.now + timedelta(seconds=120)
    mine = await service.place(CHANNEL + 1, ALICE, Point(7, 7))
    reply = await service.ai_reply(mine.game.game_id)
    assert reply is not None
    assert reply.game.deadline is None  # AI games only with ai_clock
    await service.update_settings(GUILD, ai_clock=True)
    mine = await service.place(CHANNEL + 1, ALICE, Point(8, 8))
    reply = await service.ai_reply(ai.game_id)
    assert reply is not None
    assert reply.game.deadline == clock.now + timedelta(seconds=120)


# ---------------------------------------------------------------- reading, export, settings


async def test_export_holds_every_move(service: GameService) -> None:
    await start_pvp(service)
    await play(service, "h8 i9 h9")
    export = await service.export(CHANNEL)
    assert export.moves == "h8 i9 h9"
    assert "SZ[15]" in export.sgf
    assert export.sgf.count(";B[") == 2
    assert export.sgf.count(";W[") == 1
    assert export.filename == f"gomoku-{export.game.game_id}.sgf"
    # A finished game is exported by id.
    await service.resign(CHANNEL, ALICE)
    again = await service.export(CHANNEL, game_id=export.game.game_id)
    assert "RE[W+R]" in again.sgf


async def test_suggest_points(service: GameService) -> None:
    assert await service.suggest_points(CHANNEL, "h") == []
    await start_pvp(service)
    await play(service, "h8")
    near = await service.suggest_points(CHANNEL, "")
    assert len(near) == 25
    assert Point.parse("h8") not in near
    assert all(max(abs(p.x - 7), abs(p.y - 7)) == 1 for p in near[:8])
    assert {str(p) for p in await service.suggest_points(CHANNEL, "H1")} == {
        "h1",
        "h10",
        "h11",
        "h12",
        "h13",
        "h14",
        "h15",
    }
    assert await service.suggest_points(CHANNEL, "zz") == []
    assert [str(p) for p in await service.suggest_points(CHANNEL, "H 09")] == ["h9"]
    row8 = await service.suggest_points(CHANNEL, "08")
    assert {p.y for p in row8} == {7}
    assert len(row8) == 14


async def test_suggestions_follow_renju_forbidden_points_move_by_move(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    await start_pvp(service, rule=Rule.RENJU)
    await play(service, "h8 a1 i8 a3 h10 a5 i9 a7")  # j8 would be Black's three-three
    computed = 0
    engine_forbidden_points = Board.forbidden_points

    def counting(board: Board) -> list[Point]:
        nonlocal computed
        computed += 1
        return engine_forbidden_points(board)

    monkeypatch.setattr(Board, "forbidden_points", counting)
    monkeypatch.setattr(positions, "_forbidden", OrderedDict())  # other tests' positions out
    j8, i10 = Point.parse("j8"), Point.parse("i10")
    for typed in ("", "j", "j8", "i"):  # keystrokes of one /place: one position
        assert j8 not in await service.suggest_points(CHANNEL, typed, limit=300)
    assert computed == 1
    # White blocks the three at g8: j8 is allowed again (a stale answer would still hide it).
    await play(service, "o1 g8")
    assert await service.suggest_points(CHANNEL, "j8") == [j8]
    # Black's j10 makes i10 a three-three (a stale answer would offer it).
    await play(service, "j10 a9")
    assert await service.suggest_points(CHANNEL, "i10") == []
    view = await service.board(CHANNEL)
    assert engine_forbidden_points(view.board) == [i10]
    assert computed == 3  # once per position


async def test_suggest_columns_in_gravity_games(service: GameService) -> None:
    await start_pvp(service, game=Game.CONNECT4)
    await service.drop(CHANNEL, ALICE, 3)
    assert await service.suggest_points(CHANNEL, "4") == [Point(3, 1)]


async def test_settings_update_and_channel_restriction(service: GameService) -> None:
    settings = await service.update_settings(
        GUILD, default_rule=Rule.RENJU, turn_seconds=3600, allowed_channel_ids=[CHANNEL]
    )
    assert settings.default_rule is Rule.RENJU
    assert await service.settings(GUILD) == settings
    with pytest.raises(service_errors.ChannelNotAllowedError):
        await service.start(channel_id=CHANNEL + 1, guild_id=GUILD, user_id=ALICE)
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE)
    assert view.rule is Rule.RENJU
    with pytest.raises(service_errors.InvalidOptionError):
        await service.update_settings(GUILD, turn_seconds=1)
    with pytest.raises(service_errors.InvalidOptionError):
        await service.update_settings(GUILD, look="ascii-art")
    cleared = await service.update_settings(GUILD, clear_turn_time=True, look="compact")
    assert cleared.turn_seconds is None
    assert cleared.board_style == "compact"
    assert cleared.default_rule is Rule.RENJU


async def test_message_id_is_remembered(service: GameService) -> None:
    view = await start_pvp(service)
    await service.set_message(view.game_id, channel_id=CHANNEL, message_id=555)
    after = await service.game(view.game_id)
    assert after.record.message_id == 555
    assert after.version == view.version


class SlowWrites:
    """Wraps a repository so that the first two moves written meet before either is: two
    services (two bot processes on one database) then both read the same version before
    either writes."""

    def __init__(self, inner: InMemoryGameRepository) -> None:
        self.inner = inner
        self.conflicts = 0
        self.both_read = asyncio.Barrier(2)
        self.writes = 0

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    async def append_move(self, *args, **kwargs):
        self.writes += 1
        if self.writes <= 2:
            async with asyncio.timeout(10):
                await self.both_read.wait()
        try:
            return await self.inner.append_move(*args, **kwargs)
        except Exception:
            self.conflicts += 1
            raise


async def test_two_processes_racing_get_the_right_refusal(repo, clock) -> None:
    shared = SlowWrites(repo)
    one = GameService(shared, NearestRunner(), clock=clock)
    two = GameService(shared, NearestRunner(), clock=clock)
    await start_pvp(one)
    results = await asyncio.gather(
        one.place(CHANNEL, ALICE, Point.parse("h8")),
        two.place(CHANNEL, ALICE, Point.parse("h9")),
        return_exceptions=True,
    )
    assert shared.conflicts == 1  # the loser's compare-and-set failed ...
    errors = [r for r in results if isinstance(r, BaseException)]
    assert [type(e) for e in errors] == [service_errors.NotYourTurnError]  # ... and it was told why
    assert len((await one.board(CHANNEL)).board.moves) == 1


async def test_history_and_forgetting_a_user(service: GameService) -> None:
    await start_pvp(service)
    await service.resign(CHANNEL, BOB)
    games = await service.history(ALICE)
    assert len(games) == 1
    assert games[0].black == Player.human(ALICE)
    assert await service.forget_user(ALICE) == 1
    assert await service.stats(ALICE) is None
    forgotten = await service.game(games[0].id)
    assert forgotten.black.is_deleted


class StaleReads:
    """Returns the channel's game record, then lets the loop run before the caller sees it:
    by then the record may be out of date."""

    def __init__(self, inner: InMemoryGameRepository) -> None:
        self.inner = inner
        self.armed = asyncio.Event()  # the next read waits for this after reading
        self.delay_next = False
        self.held = asyncio.Event()  # set once that read has read and waits

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    async def open_game_in_channel(self, channel_id: int):
        record = await self.inner.open_game_in_channel(channel_id)
        if self.delay_next:
            self.delay_next = False
            self.held.set()
            await self.armed.wait()
        return record


async def test_a_refusal_never_rests_on_a_stale_read(repo, clock) -> None:
    stale = StaleReads(repo)
    service = GameService(stale, NearestRunner(), clock=clock)
    await start_pvp(service)
    await service.place(CHANNEL, ALICE, Point.parse("h8"))
    # Alice's next move is read while Bob is to move; Bob moves before she gets the lock.
    stale.delay_next = True
    alice = asyncio.create_task(service.place(CHANNEL, ALICE, Point.parse("h9")))
    await stale.held.wait()
    await service.place(CHANNEL, BOB, Point.parse("a1"))
    stale.armed.set()
    result = await alice
    assert [str(m.point) for m in result.game.board.moves] == ["h8", "a1", "h9"]


# ---------------------------------------------------------------- phone play


async def test_rematch_needs_a_finished_game_and_a_player(service) -> None:
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB)
    await service.accept(view.game_id, BOB)
    with pytest.raises(service_errors.RematchError):
        await service.rematch(view.game_id, ALICE)
    await service.resign(CHANNEL, BOB)
    with pytest.raises(service_errors.NotAPlayerError):
        await service.rematch(view.game_id, CAROL)
    again = await service.rematch(view.game_id, ALICE)
    assert again.status is GameStatus.PENDING
    assert (again.black, again.white) == (view.white, view.black)
    assert again.challenged == BOB
    with pytest.raises(service_errors.GameExistsError):
        await service.rematch(view.game_id, BOB)  # the channel is busy with the rematch


async def test_no_rematch_against_a_deleted_player(service) -> None:
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB)
    await service.accept(view.game_id, BOB)
    await service.resign(CHANNEL, BOB)
    await service.forget_user(BOB)
    with pytest.raises(service_errors.RematchError):
        await service.rematch(view.game_id, ALICE)


async def test_a_panel_tap_on_an_old_version_changes_nothing(service) -> None:
    view = await start_pvp(service)
    await service.place(CHANNEL, ALICE, Point(7, 7), version=view.version)
    moved = await service.place(CHANNEL, BOB, Point(8, 8))
    with pytest.raises(service_errors.StalePanelError):
        await service.place(CHANNEL, ALICE, Point(9, 9), version=view.version)
    assert (await service.game(view.game_id)).version == moved.game.version
    assert (await service.panel(view.game_id, ALICE)).version == moved.game.version
    with pytest.raises(service_errors.NotYourTurnError):
        await service.panel(view.game_id, BOB)


async def test_looks_are_remembered_and_checked(service) -> None:
    assert await service.look(ALICE) == "emoji"
    await service.set_look(ALICE, "compact")
    assert await service.look(ALICE) == "compact"
    await service.set_look(ALICE, "image")
    assert await service.look(ALICE) == "image"
    with pytest.raises(service_errors.InvalidOptionError) as refused:
        await service.set_look(ALICE, "phone")  # one vocabulary: the server's looks, no other
    assert refused.value.option == "look"


async def test_suggestions_are_ordered_by_distance_to_the_last_moves_then_row_then_column(
    service: GameService,
) -> None:
    # The slow definition: every legal point, nearest (in king moves) to any of the last six
    # moves first (to the centre before any move), then by row, then by column.
    await start_pvp(service)

    def expected(board: Board) -> list[Point]:
        anchors = [m.point for m in board.moves[-6:]] or [Point(7, 7)]
        return sorted(
            board.legal_moves(),
            key=lambda p: (min(max(abs(p.x - a.x), abs(p.y - a.y)) for a in anchors), p.y, p.x),
        )

    rng = random.Random(5)
    for turn in range(14):
        board = (await service.board(CHANNEL)).board
        assert await service.suggest_points(CHANNEL, "", limit=300) == expected(board)
        assert await service.suggest_points(CHANNEL, "") == expected(board)[:25]
        nearby = [p for p in board.legal_moves() if abs(p.x - 7) < 4 and abs(p.y - 7) < 4]
        await service.place(CHANNEL, (ALICE, BOB)[turn % 2], rng.choice(nearby))


class NotedWhileRead:
    """Returns the game's undo request, then notes its posted message before the caller sees
    it, as ``undo_posted`` may between two reads."""

    def __init__(self, inner: InMemoryGameRepository) -> None:
        self.inner = inner
        self.note: tuple[int, int, int, int] | None = None  # noted after the next read

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    async def undo_request(self, game_id: int):
        request = await self.inner.undo_request(game_id)
        if self.note is not None:
            note, self.note = self.note, None
            assert await self.inner.set_undo_message(*note)
        return request


async def test_a_request_left_behind_is_dropped_though_its_message_is_noted_meanwhile(
    repo, clock
) -> None:
    noted = NotedWhileRead(repo)
    service = GameService(noted, NearestRunner(), clock=clock)
    request = await alice_asks_to_undo_h8(service)
    game_id = request.game.game_id
    await service.place(CHANNEL, BOB, Point.parse("i9"))
    noted.note = (game_id, request.game.version, 70, 71)
    [(dropped, _)] = await service.drop_stale_undo_requests(game_id)
    assert (dropped.requester, dropped.channel_id, dropped.message_id) == (ALICE, 70, 71)
    assert await repo.undo_request(game_id) is None
