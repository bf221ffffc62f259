"""The small games: tic-tac-toe and gravity three played perfectly, Connect Four tactics."""

from __future__ import annotations

import functools

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search.alphabeta import Limits, search
from engine.types import Color, Point
from tests.scale import examples


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


def _value(board: Board) -> int:
    """Exact game value for the side to move: +1 win, 0 draw, -1 loss (plain memoized minimax)."""
    cells = tuple(int(v) for v in board.to_array().reshape(-1))
    side = 1 if board.to_move is Color.BLACK else 2
    return _solve(board.width, board.height, board.win_length, board.gravity, cells, side)


def _wins(cells: tuple[int, ...], width: int, height: int, k: int, at: int) -> bool:
    x0, y0 = at % width, at // width
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            x, y = x0 + sign * dx, y0 + sign * dy
            while 0 <= x < width and 0 <= y < height and cells[y * width + x] == cells[at]:
                run += 1
                x, y = x + sign * dx, y + sign * dy
        if run >= k:
            return True
    return False


@functools.cache
def _solve(w: int, h: int, k: int, gravity: bool, cells: tuple[int, ...], side: int) -> int:
    if gravity:
        moves = []
        for x in range(w):
            free = [y for y in range(h) if cells[y * w + x] == 0]
            if free:
                moves.append(min(free) * w + x)
    else:
        moves = [i for i, v in enumerate(cells) if v == 0]
    if not moves:
        return 0
    best = -1
    for move in moves:
        after = (*cells[:move], side, *cells[move + 1 :])
        if _wins(after, w, h, k, move):
            return 1
        best = max(best, -_solve(w, h, k, gravity, after, 3 - side))
    return best


@st.composite
def games(draw: st.DrawFn, game: str, min_moves: int) -> Board:
    """A game of ``game`` after random legal moves, not finished."""
    board = Board.for_game(game)
    for _ in range(draw(st.integers(min_moves, board.width * board.height - 1))):
        moves = board.legal_moves()
        if not moves:
            break
        board.play(draw(st.sampled_from(moves)))
        if board.outcome is not None:
            board.undo()
            break
    return board


def _check_perfect(board: Board) -> None:
    assume(board.outcome is None and not board.is_full())
    result = search(board, Limits())
    expected = _value(board)
    assert _sign(result.score) == expected
    board.play(result.move)
    if board.outcome is not None:
        achieved = 0 if board.outcome.winner is None else 1
    else:
        achieved = -_value(board)
    assert achieved == expected


def test_tictactoe_from_the_start_is_a_draw() -> None:
    result = search(Board.for_game("tictactoe"), Limits())
    assert result.score == 0


@given(games("tictactoe", 0))
@settings(max_examples=examples(60), deadline=None)
def test_tictactoe_is_played_perfectly(board: Board) -> None:
    _check_perfect(board)


@given(games("gravity3", 4))
@settings(max_examples=examples(40), deadline=None)
def test_gravity_three_is_played_perfectly(board: Board) -> None:
    _check_perfect(board)


def test_connect_four_takes_the_win_and_blocks() -> None:
    board = Board.for_game("connect4")
    for column in (3, 3, 4, 4, 5, 5):  # Black d1 e1 f1, White d2 e2 f2: Black wins at c1/g1
        board.drop(column)
    result = search(board, Limits(depth=6))
    assert result.move in (Point(2, 0), Point(6, 0))
    board = Board.for_game("connect4")
    for column in (0, 3, 0, 4, 6, 5):  # White d1 e1 f1 (g1 is Black's): Black must take c1
        board.drop(column)
    result = search(board, Limits(depth=6))
    assert result.move == Point(2, 0)


def test_connect_four_finds_a_forced_win_in_its_horizon() -> None:
    # Black to move wins by making two threats at once (c1 then either c1-f1 end)
    board = Board.for_game("connect4")
    for column in (3, 3, 4, 4):  # Black d1 e1, White d2 e2
        board.drop(column)
    result = search(board, Limits(depth=8))
    assert result.score > 0
    assert result.move in (Point(2, 0), Point(5, 0))
