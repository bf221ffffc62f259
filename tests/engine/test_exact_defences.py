"""The exact answers to the opponent's four-three point (``_threats._defences43``,
GOMOKU_DEFEND43) and to its open three (``_threats._stopping``, GOMOKU_DEFEND3): every move
left off either list loses to a short VCF, by oracles that try every move by the rules (the
four-three's in freestyle, standard, renju and caro, in renju against either side's)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.alphabeta import Limits, SearchOptions, search
from engine.settings import rules_setting
from engine.types import Color, Point, Rule
from tests.engine.oracles import (
    _fives_for,
    _passed,
    _window_points,
    has_vcf,
    stopping_answers,
)
from tests.scale import examples

SETTINGS = settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


@st.composite
def four_three(draw: st.DrawFn) -> Board:
    """A small board, in freestyle, standard, renju or caro, where
    the side not to move has a four-three point: a broken four and a three through one point,
    then other stones of both sides around it at random (which may spoil the shape or make
    others); no five on it."""
    rule = draw(st.sampled_from((Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU, Rule.CARO)))
    size = draw(st.integers(9, 11))
    q = (draw(st.integers(3, size - 4)), draw(st.integers(3, size - 4)))
    d4, d3 = draw(st.permutations(DIRECTIONS))[:2]
    # the four: a five-window through q with one gap inside it, the rest the attacker's
    start = draw(st.integers(-4, 0))
    gap = draw(st.sampled_from([i for i in range(start + 1, start + 4) if i != 0]))
    four = [i for i in range(start, start + 5) if i not in (0, gap)]
    three = draw(st.sampled_from(((-2, -1), (-1, 1), (1, 2), (-3, -1), (1, 3), (-1, 2))))
    mine = {(q[0] + d4[0] * i, q[1] + d4[1] * i) for i in four}
    mine |= {(q[0] + d3[0] * i, q[1] + d3[1] * i) for i in three}
    return _with_others(draw, size, mine, {q}, 18, 3, rule)


@st.composite
def open_three(draw: st.DrawFn, rule: Rule = Rule.FREESTYLE) -> Board:
    """A small board where the side not to move has an open three (three stones in a row, or
    with one gap, both ends free), then other stones of both sides around it at random; no
    five on it."""
    size = draw(st.integers(9, 11))
    q = (draw(st.integers(2, size - 3)), draw(st.integers(2, size - 3)))
    d = draw(st.sampled_from(DIRECTIONS))
    shape = draw(st.sampled_from(((0, 1, 2), (0, 1, 3), (0, 2, 3))))
    mine = {(q[0] + d[0] * i, q[1] + d[1] * i) for i in shape}
    return _with_others(draw, size, mine, set(), 20, 2, rule)


def _with_others(
    draw: st.DrawFn,
    size: int,
    mine: set[tuple[int, int]],
    empty: set[tuple[int, int]],
    most: int,
    every: int,
    rule: Rule = Rule.FREESTYLE,
) -> Board:
    # the attacker's shape ``mine`` (its points off the board dropped) with up to ``most`` other
    # stones at random, one in ``every`` the attacker's, ``empty`` kept free; the attacker's
    # opponent to move, no five on the board
    points = [(x, y) for x in range(size) for y in range(size)]
    extra = draw(st.lists(st.sampled_from(points), max_size=most, unique=True))
    taken = mine | empty
    theirs: set[tuple[int, int]] = set()
    for i, point in enumerate(extra):
        if point not in taken:
            (mine if i % every == 0 else theirs).add(point)
            taken.add(point)
    attacker = draw(st.sampled_from(tuple(Color)))
    on = [pt for pt in mine if 0 <= pt[0] < size and 0 <= pt[1] < size]
    black, white = (on, theirs) if attacker is Color.BLACK else (theirs, on)
    board = Board.from_stones(
        [Point(*p) for p in black],
        [Point(*p) for p in white],
        size=size,
        rule=rule,
        to_move=attacker.opponent,
    )
    assume(board.outcome is None)
    return board


def _near(board: Board) -> list[Point]:
    # the candidates a list replaces: the points the side to move may play with a stone in their
    # 5x5 square
    return [
        Point(x, y)
        for y in range(board.height)
        for x in range(board.width)
        if board.is_legal(Point(x, y))
        and any(
            board.on_board(Point(x + dx, y + dy)) and board[Point(x + dx, y + dy)] is not None
            for dx in range(-2, 3)
            for dy in range(-2, 3)
        )
    ]


def _straight_four_wins(board: Board) -> bool:
    """Whether the side to move makes a straight four (a move leaving fives to make that no
    one stone of the other side's stops, or a five at once) while the other side has no five
    of its own: by the rules alone. Under most rules that is two five points; in caro one
    stone may stop two, and a stone just past a five may stop it (``stopping_answers``)."""
    attacker = board.to_move
    if _fives(board, attacker):
        return True
    if _fives(board, attacker.opponent):
        return False
    for point in _window_points(board, attacker, 3):
        if not board.is_legal(point):
            continue  # renju: a point forbidden to Black
        trial = board.copy()
        trial.play(point)
        if trial.outcome is not None:
            continue
        fives = _fives(trial, attacker)
        if len(fives) >= 2 and (board.rule is not Rule.CARO or not stopping_answers(trial)):
            return True
    return False


def _facing_an_open_three(board: Board) -> tuple[Position, int]:
    # the position and the side to move's index, where the opponent has a straight four to
    # make and neither side a five (the search answers those first); other boards are skipped
    pos = Position.from_board(board)
    me = int(pos.g[k.G_SIDE]) - 1
    op = 1 - me
    assume(_count(pos, op, k.P4_FLEX4) > 0)
    assume(_count(pos, op, k.P4_FIVE) == 0 and _count(pos, me, k.P4_FIVE) == 0)
    return pos, me


@SETTINGS
@given(open_three())
def test_every_move_off_the_open_three_answers_loses(board: Board) -> None:
    pos, me = _facing_an_open_three(board)
    buf = np.zeros(k.MAX_MOVES, dtype=np.int64)
    scratch = np.zeros(k.MAX_MOVES, dtype=np.int64)
    n = int(k._defences(pos.st, me, buf))
    wide = {pos.point(int(i)) for i in buf[:n]}
    n = int(k._stopping(pos.st, me, buf, n, scratch))
    answers = [pos.point(int(i)) for i in buf[:n]]
    assert set(answers) <= wide
    event(f"{len(wide) - len(answers)} points fewer")
    for point in _near(board):
        if point in answers:
            continue
        after = board.copy()
        after.play(point)
        assert _straight_four_wins(after), f"{point} stops the open three"


@SETTINGS
@given(open_three(Rule.CARO))
def test_in_caro_every_move_off_the_answers_to_an_open_three_loses(board: Board) -> None:
    # caro's list is exact: every move off it, near the stones or not, leaves the opponent a
    # straight four by the rules, and each point it adds beyond the four points of either side
    # leaves none
    pos, me = _facing_an_open_three(board)
    buf = np.zeros(k.MAX_MOVES, dtype=np.int64)
    n = int(k._defences(pos.st, me, buf))
    answers = [pos.point(int(i)) for i in buf[:n]]
    assert len(set(answers)) == len(answers)
    fours = _window_points(board, Color.BLACK, 3) | _window_points(board, Color.WHITE, 3)
    beyond = [p for p in answers if p not in fours]
    event(f"{len(beyond)} answers beyond the four points")
    everywhere = [
        Point(x, y)
        for y in range(board.height)
        for x in range(board.width)
        if board.is_legal(Point(x, y))
    ]
    for point in everywhere:
        after = board.copy()
        after.play(point)
        if point in beyond:
            assert not _straight_four_wins(after), f"{point} leaves a straight four"
        elif point not in answers:
            assert _straight_four_wins(after), f"{point} stops the open three"


@pytest.mark.parametrize(
    ("black", "white", "answer"),
    [
        # after e5 Black's g7 leaves the five b2-f6 blocked at a1 and g7
        (("j10",), ("c3", "d4", "f6"), "a1"),
        # d1 e1 f1, where b1 is already blocked at a1: after g1, Black's c1 leaves the five
        # d1-h1 blocked at c1 and i1, three points from White's nearest stone
        (("a1", "a2"), ("d1", "e1", "f1"), "i1"),
    ],
)
def test_caro_s_open_three_stopped_from_beyond(
    black: tuple[str, ...], white: tuple[str, ...], answer: str
) -> None:
    # each a stone that stops the three in caro and no other rule
    for rule, listed in ((Rule.CARO, True), (Rule.FREESTYLE, False)):
        board = Board.from_stones(
            [Point.parse(p) for p in black],
            [Point.parse(p) for p in white],
            size=10,
            rule=rule,
            to_move=Color.BLACK,
        )
        pos = Position.from_board(board)
        buf = np.zeros(k.MAX_MOVES, dtype=np.int64)
        n = int(k._defences(pos.st, 0, buf))
        answers = {pos.point(int(i)) for i in buf[:n]}
        point = Point.parse(answer)
        assert (point in answers) is listed
        after = board.copy()
        after.play(point)
        assert _straight_four_wins(after) is not listed


def _count(pos: Position, ci: int, cls: int) -> int:
    return int(pos.g[k.G_P4 + ci * k.NP4 + cls])


def _answers(board: Board) -> tuple[Position, list[Point]] | None:
    """The list for the side to move where the opponent has a four-three point and nothing
    stronger, and the side no five to make (the search answers those first); None elsewhere."""
    pos = Position.from_board(board)
    me = int(pos.g[k.G_SIDE]) - 1
    op = 1 - me
    if _count(pos, op, k.P4_B4_F3) == 0:
        return None
    if _count(pos, op, k.P4_FIVE) or _count(pos, op, k.P4_FLEX4) or _count(pos, me, k.P4_FIVE):
        return None
    buf = np.zeros(k.MAX_MOVES, dtype=np.int64)
    n = int(k._defences43(pos.st, me, buf))
    return pos, [pos.point(int(i)) for i in buf[:n]]


@SETTINGS
@given(four_three())
def test_every_move_off_the_list_loses_to_a_vcf(board: Board) -> None:
    found = _answers(board)
    assume(found is not None)  # a four-three point alone, the shape the list answers
    assert found is not None
    pos, answers = found
    assert len(set(answers)) == len(answers)
    if not answers:
        # no list: the opponent's four is blocked on one of the side's own four points
        event("no list needed")
        return
    assert all(board[p] is None for p in answers)
    q = answers[0]  # the four-three point answered comes first
    assert pos.threat(board.to_move.opponent, q) == k.P4_B4_F3
    event(f"{len(answers)} answers")
    event(board.rule.value)
    _off_the_list_loses(board, answers)


def _off_the_list_loses(board: Board, answers: list[Point]) -> None:
    # every near move but the answers loses to the four-three at answers[0] or a short VCF
    q = answers[0]
    for point in _near(board):
        if point in answers:
            continue
        after = board.copy()
        after.play(point)
        assert after.outcome is None
        # the opponent's four-three, the block, the straight four: a VCF of two fours
        assert _four_three_wins(after, q) or has_vcf(after, 2), (
            f"{point} answers the four-three at {q} on {board.stones(Color.BLACK)}, "
            f"{board.stones(Color.WHITE)}"
        )


def _four_three_wins(board: Board, q: Point) -> bool:
    """Whether the side to move wins by playing ``q`` (a four), the one block, then a move that
    leaves two fives to make, the other side never having a five of its own: the line the
    list stands on, tried by the rules alone. False says nothing (the full oracle decides)."""
    attacker = board.to_move
    defender = attacker.opponent
    if not board.is_legal(q):
        return False
    after = board.copy()
    after.play(q)
    if after.outcome is not None or _fives(after, defender):
        return False
    blocks = _fives(after, attacker)
    if board.rule is not Rule.CARO:
        if len(blocks) != 1:
            return len(blocks) >= 2
        answers = blocks
    else:
        # caro: every stone that leaves no five answers the four, one may stop two fives
        if not blocks:
            return False
        answers = sorted(stopping_answers(after), key=lambda p: (p.y, p.x))
    for answer in answers:
        if not after.is_legal(answer):
            # renju: Black may not block on a forbidden point, and the five follows
            continue
        blocked = after.copy()
        blocked.play(answer)
        if blocked.outcome is not None or not _straight_four_wins(blocked):
            return False
    return True


def _fives(board: Board, color: Color) -> list[Point]:
    # where ``color`` would make five now, whoever is to move
    mover = board if board.to_move is color else _passed(board)
    return _fives_for(mover, color, _window_points(board, color, 4))


def test_the_list_in_a_fixed_position() -> None:
    # Black's four-three point at h11: the four h8-h11 against White's h7, five at h12, and
    # the open three f11-h11, stopped only at e11 or i11; White to move, with no four of its own
    board = Board.from_moves("h8 h7 h9 a1 h10 o1 f11 o15 g11", rule=Rule.FREESTYLE)
    found = _answers(board)
    assert found is not None
    assert sorted(found[1]) == sorted(Point.parse(s) for s in ("h11", "h12", "e11", "i11"))
    # with White's j12 and k12, a White stone at g12, i12 or l12 makes the block at h12 a four
    # of White's, which wins back the tempo (m12 would not)
    board = Board.from_moves("h8 h7 h9 j12 h10 k12 f11 o15 g11", rule=Rule.FREESTYLE)
    found = _answers(board)
    assert found is not None
    expected = ("h11", "h12", "e11", "i11", "g12", "i12", "l12")
    assert sorted(found[1]) == sorted(Point.parse(s) for s in expected)
    for point, loses in (("g12", False), ("i12", False), ("l12", False), ("m12", True)):
        after = board.copy()
        after.play(Point.parse(point))
        assert has_vcf(after, 4) is loses


def test_the_list_in_caro_answers_the_four_past_its_five() -> None:
    # the same shape in caro: the five h8-h12 would be blocked at h7 already, so White's h13
    # answers the four as well as h12 does, and a stone there now leaves h11 no four
    board = Board.from_moves("h8 h7 h9 a1 h10 o1 f11 o15 g11", rule=Rule.CARO)
    found = _answers(board)
    assert found is not None
    answers = found[1]
    assert Point.parse("h13") in answers
    assert set(Point.parse(s) for s in ("h11", "h12", "e11", "i11")) <= set(answers)
    _off_the_list_loses(board, answers)
    after = board.copy()
    after.play(Point.parse("h13"))
    assert not _four_three_wins(after, Point.parse("h11"))


def test_no_list_where_the_block_is_a_four_of_ones_own() -> None:
    # the block at h12 of Black's four makes White's e12-h12 a four: it answers the four with
    # a four, so no list is needed
    board = Board.from_moves("h8 h7 h9 e12 h10 f12 f11 g12 g11", rule=Rule.FREESTYLE)
    found = _answers(board)
    assert found is not None
    assert found[1] == []


def _renju(black: str, white: str) -> Board:
    # a renju position on 15x15, White to move
    return Board.from_stones(
        [Point.parse(p) for p in black.split()],
        [Point.parse(p) for p in white.split()],
        size=15,
        rule=Rule.RENJU,
        to_move=Color.WHITE,
    )


def test_no_list_against_a_four_three_point_black_may_not_play() -> None:
    # Black's h11 makes the four h8-h11 (White's h7 below) and two open threes, f11-h11 and
    # h11-j13: a double three, forbidden; Black's only four-three point, so White needs no list
    board = _renju("h8 h9 h10 f11 g11 i12 j13", "h7 a1 o1 a15 o15 b1 n1")
    pos = Position.from_board(board)
    assert pos.threat(Color.BLACK, Point.parse("h11")) == k.P4_B4_F3
    assert board.forbidden_reason(Point.parse("h11")) == "double-three"
    found = _answers(board)
    assert found is not None
    assert found[1] == []


def test_a_black_three_whose_straight_fours_are_forbidden_is_no_threat() -> None:
    # h11 gives Black the four h8-h11 and the three g11-i11, but once h11 is Black's, both of
    # the three's straight-four points are forbidden (f11 by the threes through d9-e10 and
    # d13-e12, j11 by those through k10-l9 and k12-l13): h11 threatens nothing there
    board = _renju(
        "h8 h9 h10 g11 i11 e10 d9 e12 d13 k12 l13 k10 l9",
        "h7 a1 o1 a15 o15 b1 n1 a2 o2 a3 o3 a4",
    )
    pos = Position.from_board(board)
    q = pos.index(Point.parse("h11"))
    assert pos.threat(Color.BLACK, Point.parse("h11")) == k.P4_B4_F3
    assert board.forbidden_reason(Point.parse("h11")) is None
    stones, key = pos.b.copy(), int(pos.hsh[0])
    assert not k._real43(pos.st, q, np.zeros(k.MAX_MOVES, dtype=np.int64))
    assert (pos.b == stones).all()
    assert int(pos.hsh[0]) == key
    assert int(pos.g[k.G_SIDE]) == 2  # the probe's move taken back, White still to move
    assert not _four_three_wins(_black_to_move(board), Point.parse("h11"))
    # without the stones that forbid j11 the three is a true one
    board = _renju("h8 h9 h10 g11 i11 e10 d9 e12 d13", "h7 a1 o1 a15 o15 b1 n1 a2 o2")
    pos = Position.from_board(board)
    assert k._real43(pos.st, pos.index(Point.parse("h11")), np.zeros(k.MAX_MOVES, dtype=np.int64))
    assert _four_three_wins(_black_to_move(board), Point.parse("h11"))


def test_a_black_three_that_can_grow_one_way_is_stopped_past_it() -> None:
    # Black's four-three point h11 (the four h8-h11, the three g11-i11); once h11 is Black's,
    # f11 is forbidden (threes through d9-e10 and d13-e12), so the three becomes a straight
    # four only at j11, and White's k11 (past j11) stops it as well as f11 and j11 do
    board = _renju("h8 h9 h10 g11 i11 e10 d9 e12 d13", "h7 a1 o1 a15 o15 b1 n1 a2 o2")
    pos = Position.from_board(board)
    q = pos.index(Point.parse("h11"))
    buf = np.zeros(k.MAX_MOVES, dtype=np.int64)
    (d,) = [d for d in range(4) if pos.cell[q, k.R_PAT + d] == k.F3]  # Black's three
    n = int(k._one_sided(pos.st, q, d, buf, 0))
    assert [pos.point(int(i)) for i in buf[:n]] == [Point.parse("k11")]
    for white, stops in (("k11", True), ("j11", True), ("f11", True), ("e11", False)):
        after = _black_to_move(board, Point.parse(white))
        assert _four_three_wins(after, Point.parse("h11")) is not stops, white
    # with White's c8 and f10, h11 is Black's first four-three point, and the list has k11
    board = _renju("h8 h9 h10 g11 i11 e10 d9 e12 d13", "h7 a1 o1 a15 o15 b1 n1 c8 f10")
    found = _answers(board)
    assert found is not None
    answers = found[1]
    assert answers == [Point.parse(p) for p in ("h11", "f11", "j11", "k11", "h12")]
    _off_the_list_loses(board, answers)
    assert not _four_three_wins(_black_to_move(board, Point.parse("k11")), Point.parse("h11"))
    # where both ways are open, nothing is added
    board = _renju("h8 h9 h10 g11 i11", "h7 a1 o1 a15 o15")
    pos = Position.from_board(board)
    q = pos.index(Point.parse("h11"))
    assert int(k._one_sided(pos.st, q, d, buf, 0)) == 0


def _black_to_move(board: Board, *white: Point) -> Board:
    # ``board`` with Black to move, White's ``white`` stones added
    return Board.from_stones(
        board.stones(Color.BLACK),
        board.stones(Color.WHITE) + list(white),
        size=board.width,
        rule=board.rule,
        to_move=Color.BLACK,
    )


@pytest.mark.parametrize(
    ("name", "modes"), [("_DEFEND43", (0, 2)), ("_DEFEND3", (1,)), ("_DISTRACT", (1, 2, 3))]
)
def test_settings_change_master_alone(
    monkeypatch: pytest.MonkeyPatch, name: str, modes: tuple[int, ...]
) -> None:
    # the four-three's answers are on (1) by default, in freestyle and renju (there Black's in
    # White's searches, 2), the open three's and the distracting defences off: each other mode
    # changes master's search and leaves hard's as it was
    import engine.search.alphabeta as ab

    assert (ab._DEFEND43, ab._DEFEND3, ab._DISTRACT, ab._DEFEND43_BLACK) == (1, 0, 0, 2)
    monkeypatch.delenv("GOMOKU_DEFEND43_RULES", raising=False)
    assert rules_setting("GOMOKU_DEFEND43_RULES", ab._DEFEND43_RULES) == {
        Rule.FREESTYLE,
        Rule.RENJU,
    }
    board = Board.from_moves("h8 h9 i8 i9 g8 j8 g9 g7 f10 e11 i10", rule=Rule.FREESTYLE)
    shipped = search(board, Limits(depth=6)).nodes
    hard = SearchOptions(policy=False, network=False, deep_vcf=0)  # hard's selective search
    before = search(board, Limits(depth=6), hard).nodes
    for mode in modes:
        monkeypatch.setattr(ab, name, mode)
        result = search(board, Limits(depth=6))
        assert result.nodes != shipped
        assert board.is_legal(result.move)
        assert search(board, Limits(depth=6), hard).nodes == before


@pytest.mark.parametrize(
    ("rule", "moves", "black", "answered"),
    [
        # Black's four-three point at h11, White to move
        (Rule.STANDARD, "h8 h7 h9 a1 h10 o1 f11 o15 g11", 2, True),
        (Rule.RENJU, "h8 h7 h9 a1 h10 o1 f11 o15 g11", 2, True),  # GOMOKU_DEFEND43_BLACK
        (Rule.RENJU, "h8 h7 h9 a1 h10 o1 f11 o15 g11", 0, False),
        (Rule.CARO, "h8 h7 h9 a1 h10 o1 f11 o15 g11", 2, True),
        # the same shape in White's stones, Black to move
        (Rule.RENJU, "h7 h8 a1 h9 o1 h10 o15 f11 b15 g11", 0, True),
    ],
)
def test_the_rules_the_setting_names(
    monkeypatch: pytest.MonkeyPatch, rule: Rule, moves: str, black: int, answered: bool
) -> None:
    # GOMOKU_DEFEND43_RULES names the rules whose master answers a four-three point with the
    # list: in renju White's always, Black's as GOMOKU_DEFEND43_BLACK says
    import engine.search.alphabeta as ab

    monkeypatch.setattr(ab, "_DEFEND43_BLACK", black)
    # the side to move is lost by threes whatever it plays; held to the threes, the root
    # defence would keep only the move whose loss lies beyond its probe's depth
    monkeypatch.setattr(ab, "_DEFENCE_THEN_VCT", 0)
    board = Board.from_moves(moves, rule=rule)
    monkeypatch.setenv("GOMOKU_DEFEND43_RULES", "freestyle")
    before = search(board, Limits(depth=3))
    monkeypatch.setenv("GOMOKU_DEFEND43_RULES", f"freestyle,{rule.value}")
    after = search(board, Limits(depth=3))
    assert (after.nodes != before.nodes) is answered
    assert after.move == before.move == Point.parse("h11")


@pytest.mark.parametrize("mode", [1, 2])
def test_black_s_four_three_points_in_renju_by_the_setting(
    monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    # GOMOKU_DEFEND43_BLACK answers Black's four-three points in renju too (1 in every search,
    # 2 in White's alone): against 0, master's search changes, hard's does not, and the move
    # stays the one that stops it
    import engine.search.alphabeta as ab

    monkeypatch.setattr(ab, "_DEFEND43_BLACK", 0)
    monkeypatch.setattr(ab, "_DEFENCE_THEN_VCT", 0)  # lost by threes: as the test above says
    board = Board.from_moves("h8 h7 h9 a1 h10 o1 f11 o15 g11", rule=Rule.RENJU)  # White to move
    monkeypatch.delenv("GOMOKU_DEFEND43_RULES", raising=False)
    before = search(board, Limits(depth=3))
    hard = SearchOptions(policy=False, network=False, deep_vcf=0)
    hard_before = search(board, Limits(depth=3), hard).nodes
    monkeypatch.setattr(ab, "_DEFEND43_BLACK", mode)
    after = search(board, Limits(depth=3))
    assert after.nodes != before.nodes
    assert after.move == before.move == Point.parse("h11")
    assert search(board, Limits(depth=3), hard).nodes == hard_before


@pytest.mark.parametrize(("mode", "changed"), [(1, True), (2, False)])
def test_black_s_own_search_by_the_setting(
    monkeypatch: pytest.MonkeyPatch, mode: int, changed: bool
) -> None:
    # Black to move (a position of the bench): its search meets Black's four-three points with
    # White to move; against 0, 1 narrows White's answers there, 2 leaves Black's search as it
    # was
    import engine.search.alphabeta as ab

    board = Board.from_moves("h8 i9 j10 h9 h10 i10 i11 g9", rule=Rule.RENJU)
    monkeypatch.delenv("GOMOKU_DEFEND43_RULES", raising=False)
    monkeypatch.setattr(ab, "_DEFEND43_BLACK", 0)
    before = search(board, Limits(depth=7)).nodes
    monkeypatch.setattr(ab, "_DEFEND43_BLACK", mode)
    assert (search(board, Limits(depth=7)).nodes != before) is changed
