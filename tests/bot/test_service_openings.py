"""GameService with opening rules, on the in-memory repository (no Discord)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.service import GameService
from bot.core.service.errors import (
    HintNotAllowedError,
    InvalidOptionError,
    NoMoveToUndoError,
    NotYourTurnError,
)
from engine.errors import OpeningStepError, OutsideOpeningAreaError
from engine.opening_rules import Phase, Seat
from engine.types import Color, Point, Rule, Termination
from storage.records import COIN_TOSS, GuildSettings
from tests.bot.test_service import ALICE, BOB, CHANNEL, GUILD, start_pvp
from tests.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def place(service: GameService, user: int, *cells: str):
    result = None
    for cell in cells:
        result = await service.place(CHANNEL, user, Point.parse(cell))
    return result


async def rated_opening(service: GameService) -> str:
    """The opening rule a rated game between Alice and Bob opens with (Alice then resigns)."""
    view = await start_pvp(service, rated=True)
    assert view.opening is not None
    await service.resign(CHANNEL, ALICE)
    return str(view.opening.rule.value)


async def test_rated_games_get_the_servers_opening_and_games_with_the_ai_do_not(
    service: GameService,
) -> None:
    view = await start_pvp(service, rated=True)  # no choice made: swap2
    assert view.rated
    assert view.opening is not None
    assert view.opening.rule.value == "swap2"
    assert view.in_opening
    await service.resign(CHANNEL, ALICE)
    await service.update_settings(GUILD, rated_opening="swap")
    assert await rated_opening(service) == "swap"
    ai = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="black")
    assert ai.opening is None
    await service.abandon(CHANNEL)
    friendly = await start_pvp(service)
    assert not friendly.rated
    assert friendly.opening is None
    await service.resign(CHANNEL, ALICE)
    # a renju opening gives way to swap2 on a freestyle game
    await service.update_settings(GUILD, rated_opening="soosorv8")
    assert await rated_opening(service) == "swap2"
    with pytest.raises(InvalidOptionError):
        await service.update_settings(GUILD, rated_opening="pie")
    assert (await service.settings(GUILD)).rated_opening == "soosorv8"
    # no opening rule: the colours are a coin toss, whatever the challenger asked for
    await service.update_settings(GUILD, rated_opening=COIN_TOSS)
    assert await service.settings(GUILD) == GuildSettings(GUILD, rated_opening=COIN_TOSS)
    blacks = set()
    for _ in range(12):
        view = await start_pvp(service, rated=True)
        assert view.rated
        assert view.opening is None
        blacks.add(view.black.user_id)
        await service.resign(CHANNEL, ALICE)
    assert blacks == {ALICE, BOB}


@pytest.mark.parametrize(
    ("options", "allowed"),
    [
        ({"opening": "taraguchi10"}, "renju"),
        ({"opening": "soosorv8", "rule": Rule.RENJU, "size": 19}, "renju"),
        ({"opening": "swap", "game": "tictactoe"}, "Gomoku"),
        ({"opening": "pie"}, "swap2"),
    ],
    ids=["renju opening, freestyle", "renju opening, 19x19", "not gomoku", "unknown"],
)
async def test_openings_a_game_cannot_have_are_refused(
    service: GameService, options: dict[str, Any], allowed: str
) -> None:
    with pytest.raises(InvalidOptionError) as refused:
        await start_pvp(service, **options)
    assert refused.value.option == "opening"
    assert allowed in refused.value.allowed


async def test_steps_are_checked_and_the_stones_are_never_taken_back(service: GameService) -> None:
    view = await start_pvp(service, opening="soosorv8", rule=Rule.RENJU)
    with pytest.raises(OutsideOpeningAreaError):
        await place(service, ALICE, "i9")
    with pytest.raises(NotYourTurnError):
        await place(service, BOB, "h8")
    result = await place(service, ALICE, "h8", "i9", "j10")
    assert result is not None
    with pytest.raises(NoMoveToUndoError):
        await service.undo(CHANNEL, ALICE)
    with pytest.raises(HintNotAllowedError):
        await service.hint(CHANNEL, BOB)
    with pytest.raises(OpeningStepError):
        await service.opening_choice(view.game_id, BOB, "3")  # a choice is due, not a number
    after = await service.opening_choice(view.game_id, BOB, "black")  # Bob takes Black
    assert after.step == "black"
    assert (after.game.black.user_id, after.game.white.user_id) == (BOB, ALICE)
    assert after.game.opening is not None
    assert after.game.opening.phase is Phase.PLACE
    assert after.game.seat_player(Seat.FIRST).user_id == ALICE
    suggested = await service.suggest_points(CHANNEL, "")
    assert len(suggested) == 25  # anywhere on the board: the 4th is free
    await place(service, ALICE, "k8")  # White's 4th
    declared = await service.opening_choice(view.game_id, ALICE, "2")
    assert declared.game.opening is not None
    assert declared.game.opening.offer_count == 2
    kept = await service.opening_choice(view.game_id, BOB, "black")
    assert kept.game.opening is not None
    assert kept.game.opening.phase is Phase.OFFER
    await place(service, BOB, "g7", "a1")
    assert await service.suggest_points(CHANNEL, "") == [Point(6, 6), Point(0, 0)]
    done = await place(service, ALICE, "a1")  # White picks the far one
    assert done is not None
    assert not done.game.in_opening
    assert [str(m.point) for m in done.game.board.moves] == ["h8", "i9", "j10", "k8", "a1"]
    assert done.game.to_move is not None
    assert done.game.to_move.user_id == ALICE  # White plays the sixth
    await place(service, ALICE, "o15")
    with pytest.raises(NoMoveToUndoError):
        await service.undo(CHANNEL, BOB)  # Black's last stone is the fifth: the opening's


async def test_running_out_of_time_in_an_opening_loses_for_whoever_had_to_act(
    service: GameService, clock: FakeClock
) -> None:
    await service.update_settings(GUILD, turn_seconds=60)
    view = await start_pvp(service, opening="swap")
    await place(service, ALICE, "h8", "i9", "j10")
    # Bob must choose; Alice holds Black (tentatively) and Bob White until then
    clock.advance(61)
    events = await service.tick()
    assert len(events) == 1
    ended = await service.game(view.game_id)
    assert ended.outcome is not None
    assert ended.outcome.termination is Termination.TIMEOUT
    assert ended.winner is not None
    assert ended.winner.user_id == ALICE
    assert ended.outcome.winner is Color.BLACK


async def test_playing_the_ai_again_keeps_the_opening_and_the_ai_starts_it(
    service: GameService,
) -> None:
    view = await service.start(
        channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="black", opening="swap2"
    )
    assert view.seat_player(Seat.FIRST).user_id == ALICE
    await service.resign(CHANNEL, ALICE)
    again = await service.rematch(view.game_id, ALICE)
    assert again.opening is not None
    assert again.opening.rule.value == "swap2"
    assert again.in_opening
    assert again.seat_player(Seat.FIRST).level is not None  # the AI places the first stones
    assert again.is_ai_turn
