"""The quiescence over fours at the leaves (``_tree.qvcf``, GOMOKU_QVCF) against a slow oracle:
the same definition as a plain maximum over every line, each position evaluated afresh and
its fives found by the rules."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.alphabeta import Limits, SearchOptions, search
from engine.types import Color, Point, Rule
from tests.engine.oracles import _fives_for, _passed, _window_points, stopping_answers
from tests.engine.test_threats import crowded
from tests.scale import examples

SETTINGS = settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
WIN = k.WIN
INF = k.INF
# where a four after the first may lie: up to four points along the lines through the side's
# last stone, and the knight's steps around it (the 5x5 square's points off those lines)
LINES = [(dx * i, dy * i) for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)) for i in range(-4, 5)]
NEAR = [d for d in LINES if d != (0, 0)] + [
    (dx, dy) for dx in range(-2, 3) for dy in range(-2, 3) if abs(dx) + abs(dy) == 3
]


def _fives(board: Board, color: Color) -> list[Point]:
    # where ``color`` would make five now (whoever is to move), by the rules
    mover = board if board.to_move is color else _passed(board)
    return _fives_for(mover, color, _window_points(board, color, 4))


def _after(board: Board, point: Point) -> Board:
    out = board.copy()
    out.play(point)
    return out


def oracle(board: Board, ply: int, last: Point | None, fours: int, total: int) -> int:
    """The value the quiescence defines, with no window and no pruning: the static value or the
    best line of fours, every position evaluated from scratch (``Position.from_board``)."""
    me = board.to_move
    op = me.opponent
    if _fives(board, me):
        return WIN - ply
    theirs = _fives(board, op)
    pos = Position.from_board(board)
    if len(theirs) >= 2:
        if stopping_answers(board):
            return pos.evaluate()  # caro: one stone stops them all; no line of fours follows
        return -(WIN - ply - 1)
    if len(theirs) == 1:
        if len(stopping_answers(board)) > 1:
            return pos.evaluate()  # caro: the point past the five stops it too
        q = theirs[0]
        if not board.is_legal(q):
            return -(WIN - ply - 1)  # renju: Black may not block there
        if fours <= 0 or pos.threat(me, q) < k.P4_B4:
            return -Position.from_board(_after(board, q)).evaluate()
        best = -INF
        candidates = [q]
    else:
        empty = [Point(x, y) for y in range(board.height) for x in range(board.width)]
        empty = [p for p in empty if board[p] is None]
        flex = [p for p in empty if pos.threat(me, p) == k.P4_FLEX4 and board.is_legal(p)]
        if flex and not any(pos.threat(op, p) >= k.P4_B4 for p in empty):
            return WIN - ply - 3
        best = pos.evaluate()
        if fours <= 0:
            return best
        least = k.P4_B4 if total - fours < 2 else k.P4_B4_PLUS
        if last is None:
            near = empty
        else:
            near = [Point(last.x + dx, last.y + dy) for dx, dy in NEAR]
            near = [p for p in near if board.on_board(p) and board[p] is None]
        candidates = [p for p in near if pos.threat(me, p) >= least]
    for p in candidates:
        if not board.is_legal(p):
            continue
        after = _after(board, p)
        ours = _fives(after, me)
        if len(ours) >= 2 and not stopping_answers(after):
            v = WIN - ply - 2
        elif len(ours) == 1 and len(stopping_answers(after)) > 1:
            v = -Position.from_board(after).evaluate()  # caro: the point past it stops it too
        elif len(ours) == 1:
            if not after.is_legal(ours[0]):
                v = WIN - ply - 2  # renju: Black may not block there
            else:
                v = oracle(_after(after, ours[0]), ply + 2, p, fours - 1, total)
        else:  # a quiet stone, or (caro) fives one stone stops
            v = -Position.from_board(after).evaluate()
        best = max(best, v)
    return best


def _kernel(board: Board, alpha: int, beta: int, last: Point | None, fours: int) -> int:
    pos = Position.from_board(board)
    pos.g[k.G_QVCF] = fours
    b = pos.b.copy()
    h = int(pos.hsh[0])
    at = -1 if last is None else pos.index(last)
    value = int(k.qvcf(pos.st, pos.sr, alpha, beta, 0, at, fours))
    # every stone put back
    assert (pos.b == b).all()
    assert int(pos.hsh[0]) == h
    return value


@st.composite
def leaves(draw: st.DrawFn) -> tuple[Board, Point | None, int]:
    """A crowded board where the side to move can make a four (else there is nothing to
    search), its last stone (None: a four anywhere may start the line), the fours allowed."""
    board = draw(crowded())
    pos = Position.from_board(board)
    me = 0 if board.to_move is Color.BLACK else 1
    assume(sum(int(pos.g[k.G_P4 + me * k.NP4 + c]) for c in range(k.P4_B4, k.NP4)) > 0)
    own = sorted(board.stones(board.to_move), key=lambda p: (p.y, p.x))
    last = draw(st.sampled_from([None, None, *own])) if own else None
    return board, last, draw(st.integers(1, 3))


@SETTINGS
@given(leaves())
def test_the_full_window_value_is_the_oracles(leaf: tuple[Board, Point | None, int]) -> None:
    board, last, fours = leaf
    assert _kernel(board, -INF, INF, last, fours) == oracle(board, 0, last, fours, fours)


@SETTINGS
@given(leaves(), st.integers(-3000, 3000), st.integers(1, 3000))
def test_a_window_bounds_the_value_fail_soft(
    leaf: tuple[Board, Point | None, int], low: int, width: int
) -> None:
    board, last, fours = leaf
    exact = _kernel(board, -INF, INF, last, fours)
    got = _kernel(board, low, low + width, last, fours)
    if got <= low:
        assert exact <= got
    elif got >= low + width:
        assert exact >= got
    else:
        assert exact == got


# White to move, its last stone on e5, neither side with a four on the board: a line of White's
# fours near e5 ends a logit and more above the static value
LIFT = "g6 k8 k7 g8 e8 i5 h6 h10 g11 f10 i10 i8 e10 e5 f9"


def test_a_four_and_its_block_lift_a_static_value_short_of_a_win() -> None:
    board = Board.from_moves(LIFT)
    stand = Position.from_board(board).evaluate()
    lifted = _kernel(board, -INF, INF, Point.parse("e5"), 2)
    assert stand + 1000 < lifted < k.WIN_MIN  # a logit and more, not a win
    assert lifted == oracle(board, 0, Point.parse("e5"), 2, 2)
    assert _kernel(board, -INF, INF, Point.parse("e5"), 0) == stand


def test_delta_pruning_gives_up_a_leaf_far_below_alpha() -> None:
    pos = Position.from_board(Board.from_moves(LIFT))
    stand = pos.evaluate()
    pos.g[k.G_QVCF] = 2
    pos.g[k.G_QVCF_DELTA] = 100
    alpha = stand + 100
    last = pos.index(Point.parse("e5"))
    assert int(k.qvcf(pos.st, pos.sr, alpha, alpha + 1, 0, last, 2)) == alpha
    pos.g[k.G_QVCF_DELTA] = 0
    assert int(k.qvcf(pos.st, pos.sr, alpha, alpha + 1, 0, last, 2)) > alpha


def test_off_unless_set_and_a_search_with_it_plays_legally(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.search.alphabeta

    board = Board.from_moves("h8 i9 h9 i10 h10 h11", rule=Rule.FREESTYLE)
    shipped = search(board, Limits(depth=7))
    monkeypatch.setattr(engine.search.alphabeta, "_QVCF", 4)
    changed = search(board, Limits(depth=7))
    assert changed.nodes != shipped.nodes
    assert board.is_legal(changed.move)


@pytest.mark.parametrize(
    ("moves", "last", "shift"),
    [
        # a plain four as one of the first two lifts the value (shift +10: none at all)
        ("i11 k12 g5 i4 j7 k8 j8 e12 g11 e4 d12 g7 d11 i7 d8 h5", "d8", 10),
        # a plain four as the third would lift it, and is not played (-10: plain at every step)
        (
            "h8 g8 i6 i9 g9 i7 j7 h9 f7 g6 e7 d6 f6 f5 e5 d4 e9 f10 d7 g7 c9 g5 g4 h5",
            "g4",
            -10,
        ),
    ],
)
def test_plain_fours_only_among_the_first_two(moves: str, last: str, shift: int) -> None:
    board = Board.from_moves(moves)
    point = Point.parse(last)
    value = _kernel(board, -INF, INF, point, 4)
    assert value == oracle(board, 0, point, 4, 4)
    # the oracle's total shifted: the first two fours counted as later ones, or every four
    # counted as one of the first two
    assert value != oracle(board, 0, point, 4, 4 + shift)


def test_only_a_search_that_probes_its_leaves_uses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # the levels below master (the leaves' old threat probe, no local VCF) search as before;
    # with GOMOKU_DEEP_VCF=0 the quiescence takes the local probe's place
    import engine.search.alphabeta

    board = Board.from_moves("h8 i9 h9 i10 h10 h11")
    old = SearchOptions(deep_vcf=0)
    before = search(board, Limits(depth=6), old).nodes
    monkeypatch.setattr(engine.search.alphabeta, "_DEEP_VCF", 0)
    bare = search(board, Limits(depth=6)).nodes
    monkeypatch.setattr(engine.search.alphabeta, "_QVCF", 2)
    assert search(board, Limits(depth=6), old).nodes == before
    assert search(board, Limits(depth=6)).nodes != bare
