"""Points and move lists: renju notation in, renju notation out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import InvalidPointError, Point, Rule, format_moves, parse_moves

points = st.builds(Point, st.integers(0, 19), st.integers(0, 19))


@given(points)
def test_parse_is_the_inverse_of_str(point: Point) -> None:
    assert Point.parse(str(point)) == point


@given(st.lists(points, max_size=30), st.sampled_from([" ", "", ", ", ";", "\n"]))
def test_move_lists_round_trip(moves: list[Point], separator: str) -> None:
    assert parse_moves(separator.join(str(p) for p in moves)) == moves
    assert parse_moves(format_moves(moves)) == moves


@pytest.mark.parametrize("text", ["h8", "H8", "h 8", "H08", " h8 ", "h008"])
def test_tolerant_point_input(text: str) -> None:
    assert Point.parse(text) == Point(7, 7)


def test_corners_and_the_letter_i() -> None:
    assert Point.parse("a1") == Point(0, 0)
    assert Point.parse("o15") == Point(14, 14)
    assert Point.parse("i9") == Point(8, 8)  # "i" is a column, unlike in Go
    assert str(Point(8, 0)) == "i1"


@pytest.mark.parametrize(
    "text", ["", "8h", "h", "hh", "h0", "h-1", "h100", "z", "z99", "u1", "h8x", "é5", "99"]
)
def test_bad_points_carry_the_text(text: str) -> None:
    with pytest.raises(InvalidPointError) as caught:
        Point.parse(text)
    assert caught.value.text == text
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("text", "bad"), [("h8 i9 x", "x"), ("h8 ??", "??"), ("h8i9j", "j"), ("h8 0i9", "0i9")]
)
def test_bad_move_lists_name_the_bad_piece(text: str, bad: str) -> None:
    with pytest.raises(InvalidPointError) as caught:
        parse_moves(text)
    assert caught.value.text == bad


def test_concatenated_two_digit_rows() -> None:
    assert format_moves(parse_moves("h8i9j10k11")) == "h8 i9 j10 k11"


def test_gomocup_rule_codes() -> None:
    assert [rule.gomocup_code for rule in Rule] == [0, 1, 4, 8]
    assert [Rule.from_gomocup(code) for code in (0, 1, 4, 8, 9, 2, 6)] == [
        Rule.FREESTYLE,
        Rule.STANDARD,
        Rule.RENJU,
        Rule.CARO,
        Rule.CARO,
        Rule.FREESTYLE,
        Rule.RENJU,
    ]
    with pytest.raises(ValueError, match="unsupported"):
        Rule.from_gomocup(16)


def test_a_list_of_rule_names_names_those_rules_and_ignores_the_rest() -> None:
    assert Rule.named_in("renju, standard,freestyle") == {Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU}
    assert Rule.named_in("chess,,Renju") == frozenset()
    assert Rule.named_in("") == frozenset()
    assert Rule.named_in("caro") == {Rule.CARO}
