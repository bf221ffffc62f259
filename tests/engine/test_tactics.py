"""Tactical suite: forced wins (VCF, VCT) found, forced defences never missed, at fixed node
limits. Wins are checked against a slow threat-space oracle that plays on ``Board`` itself."""

from __future__ import annotations

import pytest

from engine.board import Board
from engine.search import WIN, Limits, is_win_score, search
from engine.types import Color, Point, Rule

NODES = 200_000  # well under a second at full speed

# positions where the side to move wins by continuous fours (from self-play; minimal depth)
VCF_WINS = [
    (
        Rule.FREESTYLE,
        "h8 f9 h11 h10 i10 j9 i11 i9 g11 j11 g9 e11 g8 g10 k9 f8 j10 h12 f10 j6 j8 h6 l10 m11",
    ),
    (Rule.FREESTYLE, "h8 g6 g9 i7 i9 j9 i8 j8 j10 g7 k9 g5 g4 j7 k11 l12 h7"),
    (
        Rule.RENJU,
        "h8 j6 f8 i8 e8 d8 f7 g6 h7 h6 i6 e7 j5 g8 f6 f9 g7 i9 e5 d4 f4 f5 j7 i7 k8 l9 g4 h5 "
        "d6 c7 h2 g3 h4 i4 k4 l3 k9 e9 f10 d9 c9 b6 a5 d11 d10 e10 c12 f11 g12",
    ),
    (
        Rule.RENJU,
        "h8 f9 i9 g7 h10 g11 k11 g10 h11 g8 g9 h7 i6 i7 j7 e7 f7 e10 d11 h9 j9 j10 i11 j12 j11 "
        "l11 j8 j6 i12 i10 k8 l9 l8 i8 k7 l6 k5 k6 m8 n8 k10 k9 h13 g14 h5 g4 g6 e8 i4 j3 h14 "
        "h12 e9 m6 n6 f11 e12",
    ),
]


def _points(text: str) -> list[Point]:
    return [Point.parse(t) for t in text.split()]


def _wins_now(board: Board, point: Point) -> bool:
    if not board.is_legal(point):
        return False
    board.play(point)
    won = board.outcome is not None and board.outcome.winner is not None
    board.undo()
    return won


def _completions(board: Board, color: Color, around: Point | None = None) -> list[Point]:
    """Points where ``color`` would win now (on the lines through ``around``, if given)."""
    turn = Board.from_stones(
        black=board.stones(Color.BLACK),
        white=board.stones(Color.WHITE),
        size=board.size,
        rule=board.rule,
        to_move=color,
    )
    if around is None:
        points = [p for p in turn if turn[p] is None]
    else:
        points = [
            Point(around.x + dx * i, around.y + dy * i)
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1))
            for i in range(-4, 5)
        ]
    empty = [p for p in points if turn.on_board(p) and turn[p] is None]
    return sorted({p for p in empty if _wins_now(turn, p)})


def check_vcf_line(board: Board, line: tuple[Point, ...]) -> None:
    """The line is a win by continuous fours: every attacking move is legal and makes a four,
    the defender has no five of its own, and each reply is the only block (slow, plain)."""
    board = board.copy()
    attacker = board.to_move
    defender = attacker.opponent
    assert not _completions(board, defender), "the defender already has a four"
    for i in range(0, len(line), 2):
        move = line[i]
        assert board.is_legal(move), move
        board.play(move)
        if board.outcome is not None:
            assert board.outcome.winner is attacker
            return
        assert not _completions(board, defender, board.moves[-2].point if i else None)
        blocks = _completions(board, attacker, move)
        assert blocks, f"{move} is not a four"
        if len(blocks) >= 2 or not board.is_legal(blocks[0]):
            return  # two fives to stop, or (renju) Black may not block
        assert i + 1 < len(line)
        assert line[i + 1] == blocks[0]
        board.play(blocks[0])
    raise AssertionError("the line ends before the win")


@pytest.mark.parametrize(("rule", "moves"), VCF_WINS, ids=[f"vcf{i}" for i in range(len(VCF_WINS))])
def test_finds_the_vcf_win(rule: Rule, moves: str) -> None:
    board = Board.from_moves(moves, rule=rule)
    result = search(board, Limits(nodes=NODES))
    assert is_win_score(result.score)
    assert board.is_legal(result.move)
    assert result.pv[0] == result.move
    check_vcf_line(board, result.pv)


@pytest.mark.parametrize("symmetry", range(8))
def test_vcf_win_under_every_symmetry(symmetry: int) -> None:
    board = Board.from_moves(VCF_WINS[1][1]).transformed(symmetry)
    result = search(board, Limits(nodes=NODES))
    assert is_win_score(result.score)
    check_vcf_line(board, result.pv)


def test_finds_a_double_three_win_in_freestyle() -> None:
    # h8 makes two open threes (f8 g8 h8 and h6 h7 h8): a win by threes, not by fours
    board = Board.from_stones(
        black=_points("f8 g8 h6 h7"),
        white=_points("a1 a3 o15 o13"),
    )
    result = search(board, Limits(nodes=NODES))
    assert result.move == Point.parse("h8")
    assert is_win_score(result.score)


def test_renju_black_does_not_make_the_double_three() -> None:
    board = Board.from_stones(
        black=_points("f8 g8 h6 h7"),
        white=_points("a1 a3 o15 o13"),
        rule=Rule.RENJU,
    )
    result = search(board, Limits(nodes=20_000))
    assert result.move != Point.parse("h8")
    assert board.is_legal(result.move)


def test_black_loses_when_the_only_block_is_forbidden() -> None:
    # White's four h9-h12 can only be stopped at h8, a double-three for Black (row f8 g8 h8,
    # diagonal f6 g7 h8): Black must still play a legal move, and knows the game is lost
    board = Board.from_stones(
        black=_points("f8 g8 f6 g7 h13"),
        white=_points("h9 h10 h11 h12 a1"),
        rule=Rule.RENJU,
    )
    assert board.forbidden_reason(Point.parse("h8")) == "double-three"
    result = search(board, Limits(nodes=20_000))
    assert board.is_legal(result.move)
    assert is_win_score(-result.score)


@pytest.mark.parametrize("symmetry", range(8))
def test_never_misses_the_only_block(symmetry: int) -> None:
    base = Board.from_moves("h8 g8 i8 a2 j8 a3 k8")
    board = base.transformed(symmetry)
    block = Board.from_moves("h8 g8 i8 a2 j8 a3 k8 l8").transformed(symmetry).moves[-1].point
    result = search(board, Limits(nodes=2_000))
    assert result.move == block


@pytest.mark.parametrize(
    "moves",
    [
        "h8 a1 h9 a2 h10",  # open three in a column
        "h8 a1 i9 a2 k11",  # split three on a diagonal
        "h8 a1 i8 o15 j8 a3 h9 o13",  # three plus a two: a four-three next move
    ],
)
def test_defends_so_the_opponent_has_no_forced_win(moves: str) -> None:
    board = Board.from_moves(moves)
    result = search(board, Limits(nodes=50_000))
    assert not is_win_score(-result.score)
    board.play(result.move)
    reply = search(board, Limits(nodes=NODES))
    assert not is_win_score(reply.score)


@pytest.mark.parametrize(
    ("rule", "wins"),
    [(Rule.FREESTYLE, True), (Rule.STANDARD, False), (Rule.RENJU, False), (Rule.CARO, True)],
)
def test_an_overline_wins_only_where_the_rule_says(rule: Rule, wins: bool) -> None:
    # Black d8 e8 f8 g8 . i8 (c8 is White's): h8 makes six
    board = Board.from_stones(
        black=_points("d8 e8 f8 g8 i8 c3"), white=_points("c8 a3 a5 o1 o3 o5"), rule=rule
    )
    result = search(board, Limits(depth=2))
    assert (result.move == Point.parse("h8") and result.score == WIN - 1) == wins


@pytest.mark.parametrize(("rule", "wins"), [(Rule.FREESTYLE, True), (Rule.CARO, False)])
def test_caro_five_blocked_at_both_ends_does_not_win(rule: Rule, wins: bool) -> None:
    board = Board.from_stones(
        black=_points("d8 e8 f8 g8 c3 m3"), white=_points("c8 i8 a1 a3 o1 o3"), rule=rule
    )
    result = search(board, Limits(depth=2))
    assert (result.move == Point.parse("h8") and result.score == WIN - 1) == wins
