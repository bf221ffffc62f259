"""Records: SGF and PSQ written and read, including what other tools write."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from renju import RenjuBoard

from engine import (
    Board,
    Color,
    Game,
    InvalidRecordError,
    Outcome,
    Point,
    Rule,
    Termination,
    records,
)
from tests.scale import examples


def random_game(seed: int, game: Game = Game.GOMOKU, rule: Rule = Rule.FREESTYLE) -> Board:
    rng = random.Random(seed)
    board = Board.for_game(game, rule=rule)
    for _ in range(rng.randint(0, 60)):
        if board.outcome is not None:
            break
        board.play(rng.choice(board.legal_moves()))
    return board


@given(st.integers(0, 2**32 - 1), st.sampled_from(list(Game)), st.sampled_from(list(Rule)))
@settings(max_examples=examples(50))
def test_sgf_round_trip_keeps_every_move(seed: int, game: Game, rule: Rule) -> None:
    board = random_game(seed, game, rule)
    text = board.to_sgf(black="Ann [1]", white="Bob\\", date=dt.date(2026, 11, 21))
    record = records.parse_sgf(text)
    assert record.board.moves == board.moves
    assert record.board.game is board.game
    assert record.board.rule is board.rule
    assert record.black == "Ann [1]"
    assert record.white == "Bob\\"


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=examples(30))
def test_psq_round_trip(seed: int) -> None:
    board = random_game(seed)
    assert Board.from_psq(board.to_psq()).moves == board.moves


def test_sgf_counts_rows_from_the_top() -> None:
    board = Board.from_moves("a1 o15 h8")
    text = board.to_sgf()
    assert ";B[ao];W[oa];B[hh]" in text  # a1 is the bottom-left: column a, last row
    assert "SZ[15]" in text
    assert "RU[freestyle]" in text
    assert "C[Gomocup rule 0]" in text


def test_sgf_result_and_properties() -> None:
    board = Board.from_moves("h8 a1 h9 a2 h10 a3 h11 a4 h12", rule=Rule.RENJU)
    text = board.to_sgf(black="me", white="you", date=dt.date(2026, 1, 2))
    for prop in ("FF[4]", "GM[4]", "RU[renju]", "PB[me]", "PW[you]", "RE[B+]", "DT[2026-01-02]"):
        assert prop in text
    resigned = Board.from_moves("h8").to_sgf(outcome=Outcome(Termination.RESIGN, Color.WHITE))
    assert "RE[W+R]" in resigned
    assert "RE[0]" in Board.from_moves("h8").to_sgf(outcome=Outcome(Termination.DRAW, None))


def test_sgf_keeps_a_set_up_position() -> None:
    board = Board.from_stones([Point(1, 1), Point(2, 2)], [Point(3, 3)], to_move=Color.WHITE)
    board.play(Point(4, 4))
    again = Board.from_sgf(board.to_sgf())
    assert again.same_position(board)
    assert again.moves == board.moves


def test_reads_c_gomoku_cli_output() -> None:
    # The shape c-gomoku-cli's export_sgf writes (RULES.md section 6.2): Gomocup rule
    # number in RU, Gomocup coordinates (rows from the top).
    text = (
        "(;FF[4]GM[4]GN[engine1 vs engine2]EV[test]DT[2026-11-21]RO[1]RU[4]SZ[15]"
        "PB[engine1]PW[engine2]RE[B+1]TE[five];B[hh];W[ig];B[ih];W[gg])"
    )
    record = records.parse_sgf(text)
    assert record.board.rule is Rule.RENJU
    assert record.board.move_text() == "h8 i9 i8 g9"
    assert record.black == "engine1"
    assert record.result == "B+1"


def test_reads_the_renju_package_output() -> None:
    theirs = RenjuBoard("h8i9g7h7", rule="renju")
    # The package puts row 1 at the top of its SGF: read its rows from the bottom.
    board = Board.from_sgf(theirs.to_sgf(), rows_from_bottom=True)
    assert board.move_text() == "h8 i9 g7 h7"
    assert board.rule is Rule.RENJU


def test_reads_variations_and_keeps_the_main_line() -> None:
    text = "(;GM[4]SZ[9];B[ee](;W[ff];B[gg])(;W[aa]))"
    assert Board.from_sgf(text).move_text() == "e5 f4 g3"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not sgf",
        "(;GM[1]SZ[19];B[aa])",  # Go
        "(;GM[4]SZ[15];B[hh];B[ii])",  # colours do not alternate
        "(;GM[4]SZ[15];B[hh];W[hh])",  # occupied
        "(;GM[4]SZ[15];B[])",  # pass
        "(;GM[4]SZ[15];B[zz])",  # off the board
        "(;GM[4]SZ[42])",  # size
        "(;GM[4]RU[chess])",
        "(;GM[4]SZ[15];B[hh]",  # unterminated
        "(;GM[4]C[unterminated",
    ],
)
def test_bad_sgf_is_refused_with_a_reason(text: str) -> None:
    with pytest.raises(InvalidRecordError):
        Board.from_sgf(text)


def test_psq_layout_matches_piskvork() -> None:
    board = Board.from_moves("a15 b14", size=20)
    text = records.to_psq(board, times_ms=[0, 532], names=["pbrain-a", "pbrain-b"])
    assert text.splitlines() == [
        "Piskvorky 20x20, 11:11, 0",
        "1,6,0",
        "2,7,532",
        "pbrain-a",
        "pbrain-b",
    ]
    assert Board.from_psq(text + "-1\n").move_text() == "a15 b14"


@pytest.mark.parametrize(
    "text", ["", "Piskvorky 15x12, 11:11, 0\n", "Piskvorky 15x15, 11:11, 0\n8,8,0\n8,8,0\n"]
)
def test_bad_psq_is_refused(text: str) -> None:
    with pytest.raises(InvalidRecordError):
        Board.from_psq(text)
