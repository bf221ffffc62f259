"""The kernels' renju check (used inside search) agrees with Board.forbidden_reason."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.errors import GomokuError
from engine.search._position import Position
from engine.types import Color, Point, Rule
from tests.scale import examples

REASONS = {0: None, 1: "overline", 2: "double-four", 3: "double-three"}


@st.composite
def crowded_positions(draw: st.DrawFn) -> Board:
    """Black-heavy positions packed into a corner or the middle, where 3-3, 4-4, overlines and
    fake threes are common."""
    size = draw(st.sampled_from([15, 15, 9]))
    span = draw(st.integers(5, 9))
    ox = draw(st.integers(0, size - span))
    oy = draw(st.integers(0, size - span))
    cells = [Point(ox + x, oy + y) for x in range(span) for y in range(span)]
    chosen = draw(st.lists(st.sampled_from(cells), min_size=6, max_size=30, unique=True))
    ratio = draw(st.floats(0.55, 0.8))
    cut = int(len(chosen) * ratio)
    try:
        board = Board.from_stones(
            black=chosen[:cut], white=chosen[cut:], size=size, rule=Rule.RENJU, to_move=Color.BLACK
        )
    except GomokuError:
        assume(False)
        raise
    return board


@pytest.mark.slow
@given(crowded_positions())
@settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)
def test_kernel_forbidden_check_agrees_with_the_board(board: Board) -> None:
    position = Position.from_board(board)
    for point in board:
        if board[point] is not None:
            continue
        expected = board.forbidden_reason(point)
        event(f"verdict {expected}")
        assert REASONS[position.forbidden(point)] == expected, point
        # the search's pre-filter (pattern tables) must never hide a forbidden point
        assert position.forbidden_index(position.index(point)) == (expected is not None), point


def test_known_shapes() -> None:
    # double-three at j9 (d: h7 i8 . ; h: h9 i9 .), double-four, overline
    cases = {
        ("h7 i8 h9 i9", "j9"): "double-three",
        ("f8 g8 h8 j9 j10", "j8"): None,  # four-three is legal
        ("d8 e8 f8 h8 i8", "g8"): "overline",
    }
    for (stones, point), expected in cases.items():
        board = Board.from_stones(
            black=[Point.parse(t) for t in stones.split()],
            white=[],
            rule=Rule.RENJU,
            to_move=Color.BLACK,
        )
        assert board.forbidden_reason(Point.parse(point)) == expected
        position = Position.from_board(board)
        assert REASONS[position.forbidden(Point.parse(point))] == expected
