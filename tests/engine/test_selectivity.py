"""Master's selective search (``SearchOptions.selective``): what it may never cut, checked
against the window-by-window oracle, and the gate that keeps the levels below master searching
exactly as before."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.alphabeta import Limits, SearchOptions, SearchResult, search
from engine.search.levels import PRESETS, Level, choose_move, warm_up
from engine.types import Color, Point, Rule

from .oracles import DIRECTIONS, Stones, wins

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIZE = 9


@st.composite
def crowded(draw: st.DrawFn) -> Board:
    """A freestyle 9x9 game of random moves, unfinished, dense enough for threes and fours."""
    board = Board(SIZE, Rule.FREESTYLE)
    for _ in range(draw(st.integers(4, 30))):
        point = Point(draw(st.integers(1, SIZE - 2)), draw(st.integers(1, SIZE - 2)))
        if board[point] is None:
            board.play(point)
            if board.outcome is not None:
                board.undo()
                break
    return board


def _stones(board: Board) -> Stones:
    return {p: c for c in Color for p in board.stones(c)}


def _run(stones: Stones, color: Color, q: Point, d: tuple[int, int]) -> list[Point]:
    # the unbroken line of ``color`` through q along d
    run = [q]
    for sign in (1, -1):
        step = Point(q.x + sign * d[0], q.y + sign * d[1])
        while stones.get(step) is color:
            run.append(step)
            step = Point(step.x + sign * d[0], step.y + sign * d[1])
    return run


def _fives_through(
    stones: Stones,
    color: Color,
    through: Point,
    directions: tuple[tuple[int, int], ...] = DIRECTIONS,
) -> set[Point]:
    # the empty points where ``color`` would complete five or more in a row containing
    # ``through`` along one of ``directions`` (freestyle: an overline wins too)
    found = set()
    for d in directions:
        for i in range(-4, 5):
            q = Point(through.x + d[0] * i, through.y + d[1] * i)
            if i == 0 or not (0 <= q.x < SIZE and 0 <= q.y < SIZE) or q in stones:
                continue
            stones[q] = color
            run = _run(stones, color, q, d)
            if len(run) >= 5 and through in run:
                found.add(q)
            del stones[q]
    return found


def _makes_four_or_more(stones: Stones, color: Color, p: Point) -> bool:
    """By the definitions: a stone of ``color`` on empty ``p`` makes a five, or a four (a
    point then completes a five through ``p``)."""
    stones[p] = color
    try:
        return wins(stones, p, SIZE, SIZE, 5, Rule.FREESTYLE) or bool(
            _fives_through(stones, color, p)
        )
    finally:
        del stones[p]


def _makes_three_or_more(stones: Stones, color: Color, p: Point) -> bool:
    """A five, a four, or an open three: one more stone on p's lines gives two points that
    complete a five through ``p`` (a straight four)."""
    if _makes_four_or_more(stones, color, p):
        return True
    stones[p] = color
    try:
        for dx, dy in DIRECTIONS:
            for i in range(-4, 5):
                q = Point(p.x + dx * i, p.y + dy * i)
                if i == 0 or not (0 <= q.x < SIZE and 0 <= q.y < SIZE) or q in stones:
                    continue
                stones[q] = color
                straight = len(_fives_through(stones, color, p, ((dx, dy),))) >= 2
                del stones[q]
                if straight:
                    return True
        return False
    finally:
        del stones[p]


@given(crowded())
@SETTINGS
def test_no_move_that_makes_a_three_or_stops_a_four_is_ever_cut(board: Board) -> None:
    # late-move pruning skips only moves the kernels call quiet: a move that makes a five, a
    # four or an open three, or takes the point where the opponent would make a five or a
    # four (the blocks of their fours and threes), is always searched
    position = Position.from_board(board)
    cell, p4t = position.st[1], position.st[5]
    mover = board.to_move
    me = 0 if mover is Color.BLACK else 1
    stones = _stones(board)
    for y in range(SIZE):
        for x in range(SIZE):
            p = Point(x, y)
            if p in stones:
                continue
            if _makes_three_or_more(stones, mover, p) or _makes_four_or_more(
                stones, mover.opponent, p
            ):
                assert k._tactical(cell, p4t, me, 1 - me, position.index(p)), p


@given(crowded())
@SETTINGS
def test_no_cut_by_the_static_value_while_a_four_or_an_open_three_is_on_the_board(
    board: Board,
) -> None:
    # futility and razoring trust the static value only when neither side has a five to make
    # or block and neither has an open three (a point that makes a straight four)
    position = Position.from_board(board)
    stones = _stones(board)
    pending = False
    for color in Color:
        for y in range(SIZE):
            for x in range(SIZE):
                q = Point(x, y)
                if q in stones:
                    continue
                stones[q] = color
                if wins(stones, q, SIZE, SIZE, 5, Rule.FREESTYLE):
                    pending = True  # a four on the board
                elif len(_fives_through(stones, color, q)) >= 2:
                    pending = True  # a straight four (or two fours) from an open three
                del stones[q]
    if pending:
        assert not k._calm(position.g)


def test_presets_turn_selectivity_on_for_master_only() -> None:
    assert PRESETS[Level.MASTER].selective
    assert not any(PRESETS[level].selective for level in Level if level is not Level.MASTER)
    assert SearchOptions().selective  # the default is full strength, as pbrain plays


@pytest.mark.parametrize("level", list(Level))
def test_levels_pass_their_selectivity_to_the_search(
    monkeypatch: pytest.MonkeyPatch, level: Level
) -> None:
    import engine.search.alphabeta

    seen: list[bool] = []
    real = engine.search.alphabeta.search

    def spy(board: Board, limits: Limits, options: SearchOptions | None = None) -> SearchResult:
        assert options is not None
        seen.append(options.selective)
        return real(board, Limits(depth=1), options)

    monkeypatch.setattr(engine.search.alphabeta, "search", spy)
    # a four to block: every level searches (none may overlook a four)
    choose_move(Board.from_moves("h8 a1 i8 a2 j8 a3 k8"), level, seed=3)
    assert seen == [level is Level.MASTER]


# (move, score, depth, nodes) each level below master chose with seed 7 on main at 129d176,
# before selectivity existed: the ladder was measured with exactly these searches (they stop on
# node budgets, so the figures do not depend on the machine)
BEFORE = {
    "h8 i9 h9 i10 h10 h11 g9 f10 g10": {
        Level.BEGINNER: ("g12", -909, 2, 181),
        Level.EASY: ("g12", -567, 3, 586),
        Level.MEDIUM: ("g12", -48, 3, 2052),
        Level.HARD: ("g12", -177, 4, 8192),
        Level.EXPERT: ("g12", -387, 7, 120330),
    },
    "h8 h9 i8 i9 g8 j8 g9 g7 f10 e11 i10": {
        Level.BEGINNER: ("h10", -1056, 2, 271),
        Level.EASY: ("f8", -707, 3, 683),
        Level.MEDIUM: ("f8", -1021, 2, 2048),
        Level.HARD: ("f8", -964, 3, 8193),
        Level.EXPERT: ("f8", -1086, 6, 120347),
    },
}


@pytest.mark.parametrize("moves", list(BEFORE))
def test_levels_below_master_search_exactly_as_before(moves: str) -> None:
    warm_up()  # loading the kernels inside a level's time cap would cut its search short
    board = Board.from_moves(moves)
    for level, expected in BEFORE[moves].items():
        result = choose_move(board, level, seed=7)
        assert (str(result.move), result.score, result.depth, result.nodes) == expected, level


def test_selectivity_searches_fewer_nodes_to_the_same_depth() -> None:
    board = Board.from_moves("h8 i9 h9 i10 h10 h11")
    full = search(board, Limits(depth=6), SearchOptions(selective=False))
    selective = search(board, Limits(depth=6), SearchOptions())
    assert selective.nodes < full.nodes
