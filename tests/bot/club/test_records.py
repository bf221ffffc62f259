"""The records' small rules: points per result and colour, and who sits where."""

from __future__ import annotations

import pytest

from engine.types import Color
from storage.club import Pairing, Result

POINTS = {
    Result.BLACK_WINS: (1.0, 0.0),
    Result.WHITE_WINS: (0.0, 1.0),
    Result.DRAW: (0.5, 0.5),
    Result.BLACK_WINS_BY_FORFEIT: (1.0, 0.0),
    Result.WHITE_WINS_BY_FORFEIT: (0.0, 1.0),
    Result.DOUBLE_FORFEIT: (0.0, 0.0),
    Result.BYE: (1.0, 0.0),
}


@pytest.mark.parametrize("result", list(Result), ids=lambda r: r.name)
def test_points_and_whether_played(result: Result) -> None:
    assert (result.points(Color.BLACK), result.points(Color.WHITE)) == POINTS[result]
    assert result.is_played == (result in (Result.BLACK_WINS, Result.WHITE_WINS, Result.DRAW))
    assert Result(result.value) is result  # stored by value, read back


def test_results_from_the_game() -> None:
    assert Result.of_game(Color.BLACK) is Result.BLACK_WINS
    assert Result.of_game(Color.WHITE) is Result.WHITE_WINS
    assert Result.of_game(None) is Result.DRAW
    assert Result.forfeited_by(Color.BLACK) is Result.WHITE_WINS_BY_FORFEIT
    assert Result.forfeited_by(Color.WHITE) is Result.BLACK_WINS_BY_FORFEIT


def test_a_pairing_knows_its_players() -> None:
    board = Pairing(1, 2, 3, black=10, white=20, result=Result.WHITE_WINS, game_id=7)
    assert board.players() == (10, 20)
    assert (board.colour_of(10), board.colour_of(20)) == (Color.BLACK, Color.WHITE)
    assert (board.opponent_of(10), board.opponent_of(20)) == (20, 10)
    assert (board.points_of(10), board.points_of(20)) == (0.0, 1.0)
    with pytest.raises(ValueError, match="not on board 3"):
        board.colour_of(30)
    bye = Pairing(1, 2, 4, black=30, white=None, result=Result.BYE, game_id=None)
    assert (bye.is_bye, bye.players(), bye.opponent_of(30), bye.points_of(30)) == (
        True,
        (30,),
        None,
        1.0,
    )
    unfinished = Pairing(1, 3, 1, black=10, white=20, result=None, game_id=None)
    assert unfinished.points_of(10) == 0.0
