"""The analysis API against the slow VCF oracle: a proven win by fours is one the oracle finds,
a win the oracle finds is proven, and a move that lets the opponent's VCF through is seen as
lost for its mover. Fixed node limits, so every answer is deterministic."""

from __future__ import annotations

import pickle

import pytest

from engine import Board, Point, Rule
from engine.gomocup.tactics import DEFENCES, VCF_WINS, Puzzle
from engine.search.analysis import Analysis, Proof, Verdict, analyse
from tests.engine.oracles import has_vcf
from tests.engine.test_tactics import check_vcf_line

NODES = 40_000
ORACLE_FOURS = 3  # deep enough for the suite's short wins, shallow enough to stay quick


def _short_vcf_positions() -> list[Puzzle]:
    return [p for p in VCF_WINS if len(analyse(p.board(), nodes=NODES).line) <= 2 * ORACLE_FOURS]


@pytest.mark.parametrize("puzzle", VCF_WINS, ids=[f"vcf{i}" for i in range(len(VCF_WINS))])
def test_a_vcf_is_proven_with_its_line(puzzle: Puzzle) -> None:
    board = puzzle.board()
    result = analyse(board, nodes=NODES)
    assert result.verdict is Verdict.WIN
    assert result.proof is Proof.VCF
    assert result.best == result.line[0]
    check_vcf_line(board, result.line)


@pytest.mark.slow
def test_agrees_with_the_oracle_around_short_wins() -> None:
    # every position of the last plies before each short win: wins and non-wins both
    checked = 0
    for puzzle in _short_vcf_positions()[:4]:
        full = puzzle.board()
        moves = [m.point for m in full.moves]
        for back in range(4):
            board = Board.from_moves(moves[: len(moves) - back], rule=puzzle.rule)
            oracle = has_vcf(board, ORACLE_FOURS)
            result = analyse(board, nodes=NODES)
            if oracle:
                assert result.won, (puzzle.moves, back)
            if result.proof is Proof.VCF and len(result.line) <= 2 * ORACLE_FOURS:
                assert oracle, (puzzle.moves, back)
            checked += 1
    assert checked >= 8


@pytest.mark.slow
@pytest.mark.parametrize("puzzle", DEFENCES[:3], ids=[f"defence{i}" for i in range(3)])
def test_a_move_that_lets_a_vcf_through_is_lost(puzzle: Puzzle) -> None:
    board = puzzle.board()
    assert not has_vcf(board, 0)  # nothing to finish at once
    answer = board.copy()
    assert puzzle.answer is not None
    answer.play(_point(puzzle.answer))
    assert not analyse(answer, nodes=NODES).won  # the saving move saves (from VCF at least)
    wrong = [p for p in _neighbours(board) if str(p) != puzzle.answer][:2]
    for move in wrong:
        after = board.copy()
        after.play(move)
        if after.outcome is not None:
            continue
        oracle = has_vcf(after, ORACLE_FOURS)
        result = analyse(after, nodes=NODES)
        if oracle:
            assert result.won, move
        if result.proof is Proof.VCF and len(result.line) <= 2 * ORACLE_FOURS:
            assert oracle, move


def test_deterministic_and_picklable_with_multipv() -> None:
    board = DEFENCES[1].board()
    first = analyse(board, nodes=NODES, multipv=3)
    again = analyse(board, nodes=NODES, multipv=3)
    assert first == again
    assert pickle.loads(pickle.dumps(first)) == first
    assert isinstance(first, Analysis)
    assert len(first.others) == 2
    assert first.best not in {line.move for line in first.others}
    assert all(line.line[0] == line.move for line in first.others)


def test_a_quiet_opening_is_open_and_renju_analyses() -> None:
    result = analyse(Board.from_moves("h8 i9", rule=Rule.RENJU), nodes=5_000)
    assert result.verdict is Verdict.OPEN
    assert result.proof is None
    assert -1 < result.for_black() < 1


def _point(text: str) -> Point:
    from engine import parse_point

    return parse_point(text)


def _neighbours(board: Board) -> list[Point]:
    last = board.moves[-1].point
    points = [
        Point(last.x + dx, last.y + dy)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dx, dy) != (0, 0)
    ]
    return [p for p in points if board.on_board(p) and board.is_legal(p)]
