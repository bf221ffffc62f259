"""The AI's opening decisions: legal in every state, and its openings never a forced win."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Level, Rule
from engine.opening_rules import Opening, OpeningRule, Phase
from engine.search.opening_ai import is_forced_win, opening_step
from tests.scale import examples


def start(rule: OpeningRule) -> Opening:
    return Opening.start(rule, board_rule=Rule.RENJU if rule.is_renju else Rule.FREESTYLE)


def random_step(opening: Opening, rng: random.Random) -> str:
    # a legal step chosen at random (people who play oddly)
    match opening.phase:
        case Phase.CHOOSE:
            return rng.choice(opening.choices()).value
        case Phase.DECLARE:
            return str(rng.randint(1, 8))
    points = opening.legal_points()
    centre = [p for p in points if abs(p.x - 7) <= 3 and abs(p.y - 7) <= 3] or points
    return str(rng.choice(centre))


@settings(max_examples=examples(12))
@given(
    rule=st.sampled_from(list(OpeningRule)),
    level=st.sampled_from(list(Level)),
    walk=st.integers(0, 30),
    seed=st.integers(0, 2**16),
)
def test_the_ai_step_is_legal_in_every_state(
    rule: OpeningRule, level: Level, walk: int, seed: int
) -> None:
    rng = random.Random(seed)
    opening = start(rule)
    for _ in range(walk):
        if opening.is_done:
            break
        opening = opening.step(random_step(opening, rng))
    if opening.is_done:
        return
    word = opening_step(opening, level, seed, time_ms=60)
    after = opening.step(word)  # raises if the AI's step were not allowed
    assert after.log[-1] == word


@pytest.mark.parametrize("rule", [OpeningRule.SWAP, OpeningRule.SWAP2], ids=str)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_ais_opening_is_varied_and_never_a_forced_win(rule: OpeningRule, seed: int) -> None:
    openings: list[str] = []
    for level in (Level.BEGINNER, Level.HARD):
        opening = start(rule)
        while opening.phase is Phase.PLACE:
            opening = opening.step(opening_step(opening, level, seed * 10 + len(openings)))
        assert len(opening.board.moves) == 3
        assert not is_forced_win(opening.board), str(opening)
        openings.append(str(opening))
    assert openings[0] != openings[1]


def test_swap2_two_more_stones_are_not_a_forced_win() -> None:
    opening = Opening.replay(OpeningRule.SWAP2, "h8 i9 j7 two")
    while opening.phase is Phase.PLACE:
        opening = opening.step(opening_step(opening, Level.MEDIUM, 5))
    assert len(opening.board.moves) == 5
    assert not is_forced_win(opening.board)


def test_the_forced_win_check_sees_an_open_four_in_the_making() -> None:
    # Black has an open three and White nothing: Black wins by force
    from engine import Board

    assert is_forced_win(Board.from_moves("h8 a1 i8 a3 j8 a15"))
    assert not is_forced_win(Board.from_moves("h8 i9 j7"))


def test_the_ai_picks_the_offer_worst_for_black() -> None:
    # one offer makes an open four's shape for Black (h8 i8 j8 + g8); the other is far away
    opening = Opening.replay(
        OpeningRule.SOOSORV8, "h8 i7 i8 black f6 2 black j8 a1", board_rule=Rule.RENJU
    )
    assert opening.phase is Phase.PICK
    assert opening_step(opening, Level.EXPERT, 0) == "a1"
