"""``/place``'s suggestions against a slow, obviously correct ordering of every point."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.service.moves import _nearest
from bot.core.service.shared import _legal_points
from engine.board import Board
from engine.errors import GameOverError
from engine.types import Game, Point
from tests.scale import examples


def _oracle(board: Board, legal: list[Point], prefix: str, limit: int) -> list[Point]:
    """Every legal point the typed prefix names, by Chebyshev distance to the nearest of the
    last six moves (the centre on an empty board), then row, then column."""
    anchors = [m.point for m in board.moves[-6:]] or [Point(board.width // 2, board.height // 2)]

    def named(p: Point) -> bool:
        if not prefix:
            return True
        if prefix.isdigit():
            return str(p.x + 1 if board.gravity else p.y + 1).startswith(prefix)
        return str(p).startswith(prefix)

    def key(p: Point) -> tuple[int, int, int]:
        return (min(max(abs(p.x - a.x), abs(p.y - a.y)) for a in anchors), p.y, p.x)

    return sorted((p for p in legal if named(p)), key=key)[:limit]


@st.composite
def positions(draw: st.DrawFn) -> Board:
    game = draw(st.sampled_from([Game.GOMOKU, Game.TICTACTOE, Game.CONNECT4]))
    board = (
        Board.for_game(game) if game is not Game.GOMOKU else Board(draw(st.sampled_from([9, 15])))
    )
    for _ in range(draw(st.integers(0, 20))):
        legal = _legal_points(board)
        if not legal:
            break
        try:
            board.play(draw(st.sampled_from(legal)))
        except GameOverError:
            break
        if board.outcome is not None:
            break
    return board


@settings(max_examples=examples(300), deadline=None)
@given(
    board=positions(),
    typed=st.sampled_from(["", "h", "H 08", "a1", "1", "4", "10", "o", "zz", "e5"]),
    limit=st.integers(1, 30),
)
def test_suggestions_are_the_nearest_named_points(board: Board, typed: str, limit: int) -> None:
    legal = _legal_points(board)
    prefix = {"H 08": "h8"}.get(typed, typed)
    assert _nearest(board, legal, typed, limit) == _oracle(board, legal, prefix, limit)
