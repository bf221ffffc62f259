"""The tap panel's window (bot.text.panel): where it opens and how it pans, on the smallest and the
largest boards."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.text.panel import PANEL, Pan, can_pan, centred, focus, pan, panel_window
from bot.text.render import Window
from engine.board import Board
from engine.types import Game, Point, Rule


def _board(size: int, moves: str = "") -> Board:
    board = Board.for_game(Game.GOMOKU, size=size, rule=Rule.FREESTYLE)
    for text in moves.split():
        board.play(Point.parse(text))
    return board


def test_a_5x5_board_is_one_window_that_never_pans() -> None:
    board = _board(5, "a1 e5")
    window = centred(board)
    assert window == Window(0, 0, 4, 4)
    for direction in Pan:
        assert not can_pan(board, window, direction)
        assert pan(board, window, direction) == window


def test_an_empty_board_opens_in_the_centre() -> None:
    assert centred(_board(20)) == Window(8, 8, 12, 12)
    assert centred(_board(15)) == Window(5, 5, 9, 9)


def test_the_window_follows_the_last_moves_into_a_corner() -> None:
    board = _board(20, "a1 t20 b1")
    # The last two moves are t20 and b1, far apart: the window slides from between them
    # until it holds the last move, b1.
    assert focus(board) == Point(round((1 + 19) / 2), round((0 + 19) / 2))
    assert centred(board) == Window(1, 0, 5, 4)
    corner = _board(20, "a1 b2 b1")
    assert centred(corner) == Window(0, 0, 4, 4)  # clamped at the edge, never off the board


def test_threats_come_before_the_last_moves() -> None:
    # Black has four in a row on row 1 (a1-d1) and White just played far away at t20:
    # the panel opens on e1, where Black wins (and White must block).
    board = _board(20, "a1 t20 b1 t19 c1 t18 d1 q10")
    assert focus(board) == Point(4, 0)
    window = centred(board)
    assert Point(4, 0) in window
    assert window.y0 == 0


def test_panning_stops_at_every_edge_of_a_20x20_board() -> None:
    board = _board(20)
    window = panel_window(board, 0, 0)
    assert not can_pan(board, window, Pan.LEFT)
    assert not can_pan(board, window, Pan.DOWN)
    assert can_pan(board, window, Pan.RIGHT)
    assert can_pan(board, window, Pan.UP)
    for _ in range(10):
        window = pan(board, window, Pan.RIGHT)
        window = pan(board, window, Pan.UP)
    assert window == Window(15, 15, 19, 19)
    assert not can_pan(board, window, Pan.RIGHT)
    assert not can_pan(board, window, Pan.UP)
    assert pan(board, window, Pan.LEFT) == Window(12, 15, 16, 19)
    assert pan(board, window, Pan.DOWN) == Window(15, 12, 19, 16)


@given(
    st.integers(5, 20),
    st.integers(-30, 30),
    st.integers(-30, 30),
    st.lists(st.sampled_from(list(Pan)), max_size=12),
)
def test_any_pan_keeps_a_full_window_on_the_board(
    size: int, x0: int, y0: int, moves: list[Pan]
) -> None:
    board = _board(size)
    window = panel_window(board, x0, y0)
    for direction in moves:
        window = pan(board, window, direction)
        assert 0 <= window.x0 <= window.x1 < size
        assert 0 <= window.y0 <= window.y1 < size
        assert window.x1 - window.x0 + 1 == PANEL
        assert window.y1 - window.y0 + 1 == PANEL


@pytest.mark.parametrize("size", [5, 6, 15, 20])
def test_the_centred_window_always_holds_the_last_move(size: int) -> None:
    board = _board(size)
    for point in [Point(0, 0), Point(size - 1, size - 1), Point(size - 1, 0), Point(2, 3)]:
        if board[point] is None:
            board.play(point)
            assert board.last_move is not None
            window = centred(board)
            assert window.x1 - window.x0 + 1 == min(PANEL, size)
            assert board.last_move.point in window
