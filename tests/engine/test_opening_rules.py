"""The opening rules' state machines against the slow oracle in ``opening_oracle``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Color, GomokuError, IllegalMoveError, Point, Rule, UnsupportedBoardError, errors
from engine.opening_rules import Choice, Opening, OpeningRule, Phase, Seat
from tests.engine.opening_oracle import FIRST, Oracle, Step
from tests.scale import examples

RULES = list(OpeningRule)


def start(rule: OpeningRule) -> Opening:
    board_rule = Rule.RENJU if rule.is_renju else Rule.FREESTYLE
    return Opening.start(rule, board_rule=board_rule)


def apply(opening: Opening, step: Step) -> Opening:
    match step.kind:
        case "place":
            assert step.point is not None
            return opening.place(step.point)
        case "choose":
            return opening.choose(Choice(step.word))
        case "declare":
            return opening.declare(step.number)
        case "offer":
            assert step.point is not None
            return opening.offer(step.point)
    assert step.point is not None
    return opening.pick(step.point)


def same_state(opening: Opening, oracle: Oracle) -> None:
    table = oracle.table
    assert opening.is_done == oracle.done
    stones = {m.point: m.color for m in opening.board.moves}
    assert stones == table.stones
    assert opening.black.value == table.black
    assert list(opening.offers) == table.offers
    if oracle.expect is not None:
        assert opening.phase.value == oracle.expect.kind
        assert opening.actor is not None
        assert opening.actor.value == oracle.expect.by
        if oracle.expect.kind == "choose":
            assert {c.value for c in opening.choices()} == oracle.expect.options
    else:
        assert opening.phase is Phase.DONE
        assert opening.actor is None


# Points near the centre, where the central squares and mirror images are.
near = st.builds(Point, st.integers(2, 12), st.integers(2, 12))
words = st.sampled_from([c.value for c in Choice])


def any_step(draw: Callable[[st.SearchStrategy[Any]], Any]) -> Step:
    kind = draw(st.sampled_from(["place", "choose", "declare", "offer", "pick"]))
    return Step(kind, point=draw(near), word=draw(words), number=draw(st.integers(0, 11)))


def likely_step(draw: Callable[[st.SearchStrategy[Any]], Any], oracle: Oracle) -> Step:
    # mostly the kind of step expected, so that runs get deep into each rule
    expect = oracle.expect
    if expect is None or draw(st.integers(0, 9)) == 0:
        return any_step(draw)
    if expect.kind == "pick" and draw(st.booleans()):
        return Step("pick", point=draw(st.sampled_from(oracle.table.offers)))
    if expect.kind == "offer" and draw(st.booleans()):
        # a mirror image of an earlier offer, or a fresh point
        return Step("offer", point=draw(near))
    if expect.kind == "place" and expect.area is not None:
        # mostly inside the square, sometimes on the ring just outside it
        c, half = 7, expect.area // 2 + (draw(st.integers(0, 3)) == 0)
        point = Point(draw(st.integers(c - half, c + half)), draw(st.integers(c - half, c + half)))
        return Step("place", point=point)
    return Step(
        expect.kind,
        point=draw(near),
        word=draw(st.sampled_from(sorted(expect.options)) if expect.options else words),
        number=draw(st.integers(0, 9)),
    )


@pytest.mark.slow
@settings(max_examples=examples(80))
@given(rule=st.sampled_from(RULES), data=st.data())
def test_state_machine_agrees_with_the_oracle(rule: OpeningRule, data: st.DataObject) -> None:
    opening, oracle = start(rule), Oracle(rule.value)
    for _ in range(60):
        step = likely_step(data.draw, oracle)
        allowed = oracle.allows(step)
        refused: GomokuError | None = None
        try:
            after = apply(opening, step)
        except (errors.OpeningError, IllegalMoveError) as error:
            refused = error
        assert (refused is None) == allowed, f"{step}: oracle {allowed}, engine {refused!r}"
        if refused is None:
            oracle.take(step)
            opening = after
        same_state(opening, oracle)
        replayed = Opening.replay(rule, str(opening), board_rule=opening.board.rule)
        assert replayed.log == opening.log
        assert replayed.stage == opening.stage
        assert replayed.black == opening.black
        assert replayed.offers == opening.offers
        if opening.is_done:
            break


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_legal_points_are_exactly_the_points_the_step_accepts(rule: OpeningRule) -> None:
    # walk one fixed path; at each stone or offer, every point is tried
    paths = {
        OpeningRule.SWAP: "h8 i9 j10",
        OpeningRule.SWAP2: "h8 i9 j10 two g7",
        OpeningRule.SOOSORV8: "h8 i9 j10 black k11 2 white h10",
        OpeningRule.TARAGUCHI10: "h8 white i8 black h9 black h6 offer h11",
    }
    opening = start(rule)
    for word in paths[rule].split():
        if opening.phase in (Phase.PLACE, Phase.OFFER):
            legal = set(opening.legal_points())
            for point in opening.board:
                try:
                    (opening.place if opening.phase is Phase.PLACE else opening.offer)(point)
                except GomokuError:
                    assert point not in legal
                else:
                    assert point in legal
        opening = opening.step(word)


def test_a_whole_swap2_opening() -> None:
    o = start(OpeningRule.SWAP2)
    assert (o.phase, o.actor, o.choices()) == (Phase.PLACE, Seat.FIRST, ())
    o = o.place(Point.parse("h8")).place(Point.parse("i9")).place(Point.parse("j7"))
    assert (o.phase, o.actor) == (Phase.CHOOSE, Seat.SECOND)
    assert o.choices() == (Choice.BLACK, Choice.WHITE, Choice.TWO)
    o = o.choose(Choice.TWO).place(Point.parse("g9")).place(Point.parse("k9"))
    assert (o.phase, o.actor, o.choices()) == (
        Phase.CHOOSE,
        Seat.FIRST,
        (Choice.BLACK, Choice.WHITE),
    )
    o = o.choose(Choice.WHITE)
    assert o.is_done
    assert o.black is Seat.SECOND
    assert o.board.to_move is Color.WHITE
    assert o.holder(Color.WHITE) is Seat.FIRST
    assert str(o) == "h8 i9 j7 two g9 k9 white"


def test_soosorv_errors_carry_their_data() -> None:
    o = start(OpeningRule.SOOSORV8)
    with pytest.raises(errors.OutsideOpeningAreaError) as area:
        o.place(Point.parse("i9"))
    assert area.value.area == 1
    o = Opening.replay(OpeningRule.SOOSORV8, "h8 i9 j10 white", board_rule=Rule.RENJU)
    with pytest.raises(errors.OpeningStepError) as step:
        o.choose(Choice.BLACK)
    assert step.value.expected == "place"
    o = o.place(Point.parse("g9"))
    with pytest.raises(errors.OfferCountError) as count:
        o.declare(9)
    assert (count.value.count, count.value.most) == (9, 8)
    assert o.declare(2).choose(Choice.BLACK).phase is Phase.OFFER
    # every stone on the h8-j10 diagonal: mirroring across it keeps them, so h10 ~ j8
    s = Opening.replay(OpeningRule.SOOSORV8, "h8 i9 j10 white g7 2 black", board_rule=Rule.RENJU)
    s = s.offer(Point.parse("h10"))
    with pytest.raises(errors.SymmetricOfferError) as twin:
        s.offer(Point.parse("j8"))
    assert twin.value.twin == Point.parse("h10")
    s = s.offer(Point.parse("h9"))
    with pytest.raises(errors.NotOfferedError):
        s.pick(Point.parse("k5"))
    assert s.pick(Point.parse("h9")).is_done


def test_renju_openings_need_a_renju_board() -> None:
    with pytest.raises(UnsupportedBoardError):
        Opening.start(OpeningRule.TARAGUCHI10, board_rule=Rule.FREESTYLE)
    with pytest.raises(UnsupportedBoardError):
        Opening.start(OpeningRule.SOOSORV8, size=19, board_rule=Rule.RENJU)


def test_oracle_seats_match_the_engine_names() -> None:
    assert Seat.FIRST.value == FIRST


def test_taraguchi_single_fifth_lies_inside_the_9x9() -> None:
    o = Opening.replay(
        OpeningRule.TARAGUCHI10, "h8 black i9 white j10 black g7 black", board_rule=Rule.RENJU
    )
    assert (o.phase, o.area) == (Phase.PLACE, 9)
    with pytest.raises(errors.OutsideOpeningAreaError) as outside:
        o.place(Point.parse("m8"))
    assert outside.value.area == 9
    o = o.place(Point.parse("l8"))
    assert (o.phase, o.choices()) == (Phase.CHOOSE, (Choice.BLACK, Choice.WHITE))
    assert o.actor is o.holder(Color.WHITE)
    assert o.choose(Choice.BLACK).is_done
