"""Win detection and renju forbidden points against slow oracles, the reference referee, and
every tricky case RULES.md names."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from renju.check_forbid import get_foul_type

from engine import (
    Board,
    Color,
    ForbiddenMoveError,
    Game,
    Point,
    Rule,
    Termination,
    parse_moves,
    rules,
)
from tests.engine import oracles
from tests.scale import examples

REFEREE_REASONS = {0: None, 1: "double-three", 2: "double-four", 3: "overline"}
STONE = {Color.BLACK: rules.BLACK, Color.WHITE: rules.WHITE}


def cells_of(stones: oracles.Stones, width: int, height: int) -> list[int]:
    cells = [rules.EMPTY] * (width * height)
    for point, color in stones.items():
        cells[point.y * width + point.x] = STONE[color]
    return cells


@st.composite
def positions(draw: st.DrawFn, size: int, low: float, high: float) -> oracles.Stones:
    """A random arrangement of stones, between ``low`` and ``high`` of the board full."""
    count = draw(st.integers(int(size * size * low), int(size * size * high)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    points = rng.sample([Point(x, y) for x in range(size) for y in range(size)], count)
    black_share = draw(st.floats(0.45, 0.7))
    cut = int(count * black_share)
    return {p: Color.BLACK if i < cut else Color.WHITE for i, p in enumerate(points)}


# -- win detection ---------------------------------------------------------------------------

GAMES = [(Game.GOMOKU, rule) for rule in Rule] + [
    (Game.TICTACTOE, Rule.FREESTYLE),
    (Game.CONNECT4, Rule.FREESTYLE),
    (Game.GRAVITY3, Rule.FREESTYLE),
]


@pytest.mark.parametrize(("game", "rule"), GAMES, ids=lambda v: str(v))
@given(data=st.data())
@settings(max_examples=examples(60))
def test_winning_run_agrees_with_oracle_on_random_positions(game, rule, data) -> None:
    board = Board.for_game(game, size=9 if game is Game.GOMOKU else None, rule=rule)
    width, height, k = board.width, board.height, board.win_length
    stones = data.draw(positions(width, 0.2, 0.7) if width == height else st.just({}))
    if width != height:  # Connect Four's 7x6: draw the stones directly
        seed = data.draw(st.integers(0, 2**32 - 1))
        rng = random.Random(seed)
        chosen = rng.sample([Point(x, y) for x in range(width) for y in range(height)], 25)
        stones = {p: Color.BLACK if i % 2 else Color.WHITE for i, p in enumerate(chosen)}
    cells = cells_of(stones, width, height)
    for point in stones:
        line = rules.winning_run(cells, width, height, point.x, point.y, win_length=k, rule=rule)
        assert (line is not None) == oracles.wins(stones, point, width, height, k, rule), point
        if line is not None:
            assert point in line
            assert all(stones[p] is stones[point] for p in line)


def black_is_stuck(board: Board, stones: oracles.Stones) -> bool:
    """Renju: Black to move and every empty point forbidden."""
    if board.rule is not Rule.RENJU or board.to_move is not Color.BLACK:
        return False
    empty = [p for p in board if p not in stones]
    return all(oracles.forbidden(stones, p, board.size) for p in empty)


@pytest.mark.parametrize(("game", "rule"), GAMES, ids=lambda v: str(v))
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=examples(40))
def test_games_end_exactly_when_the_oracle_says(game, rule, seed) -> None:
    rng = random.Random(seed)
    board = Board.for_game(game, size=7 if game is Game.GOMOKU else None, rule=rule)
    while board.outcome is None:
        move = rng.choice(board.legal_moves())
        board.play(move)
        stones = {p: c for p in board if (c := board[p]) is not None}
        won = oracles.wins(stones, move, board.width, board.height, board.win_length, rule)
        if won:
            assert board.outcome is not None
            assert board.outcome.termination is Termination.FIVE
            assert board.outcome.winner is stones[move]
        elif board.is_full() or black_is_stuck(board, stones):
            assert board.outcome is not None
            assert board.outcome.termination is Termination.DRAW
            assert board.outcome.winner is None
        else:
            assert board.outcome is None


@pytest.mark.parametrize(
    ("rule", "moves", "winner"),
    [
        (Rule.FREESTYLE, "a1 a15 b1 b15 c1 c15 d1 d15 f1 f15 e1", Color.BLACK),  # overline wins
        (Rule.STANDARD, "a1 a15 b1 b15 c1 c15 d1 d15 f1 f15 e1", None),  # overline does not
        (Rule.RENJU, "a1 a15 b1 b15 c1 c15 d1 d15 f1 f15 o15 e15", Color.WHITE),  # white 6 wins
        (Rule.CARO, "h8 g8 i8 m8 j8 a1 k8 a3 l8", None),  # O XXXXX O: blocked at both ends
        (Rule.CARO, "a8 m8 b8 a1 c8 a3 d8 a5 e8", Color.BLACK),  # the edge is no block
        (Rule.CARO, "h8 g8 i8 n8 j8 a1 k8 a3 l8", Color.BLACK),  # a block one point off is none
        (Rule.CARO, "h8 g8 i8 n8 j8 a1 l8 a3 m8 a5 k8", Color.BLACK),  # OXXXXXXO still wins
    ],
    ids=[
        "freestyle-overline",
        "standard-overline",
        "renju-white-overline",
        "caro-blocked",
        "caro-edge",
        "caro-gap",
        "caro-blocked-overline",
    ],
)
def test_win_examples(rule: Rule, moves: str, winner: Color | None) -> None:
    board = Board.from_moves(moves, rule=rule)
    if winner is None:
        assert board.outcome is None
    else:
        assert board.outcome is not None
        assert board.outcome.winner is winner


def test_tictactoe_win_on_the_ninth_move_is_a_win() -> None:
    board = Board.from_moves("a1 a2 a3 b1 b2 b3 c2 c1 c3", game=Game.TICTACTOE)
    assert board.outcome is not None
    assert board.outcome.termination is Termination.FIVE
    assert board.outcome.winner is Color.BLACK
    assert board.winning_line == tuple(parse_moves("a1 b2 c3"))


def test_full_board_without_a_row_is_a_draw() -> None:
    board = Board.from_moves("a1 b1 c1 b2 b3 a2 c2 c3 a3", game=Game.TICTACTOE)
    assert board.outcome is not None
    assert board.outcome.termination is Termination.DRAW
    assert board.outcome.winner is None


def test_connect_four_wins_with_five_too() -> None:
    board = Board.for_game("connect4")
    for column in (0, 0, 1, 1, 3, 3, 4, 4):
        board.drop(column)
    board.drop(2)  # X X X X X on the bottom row, made by the middle stone
    assert board.outcome is not None
    assert board.outcome.winner is Color.BLACK
    assert len(board.winning_line) == 5


# -- renju forbidden points ------------------------------------------------------------------


def reason(stones_text: str, point: str, white: str = "") -> str | None:
    board = Board.from_stones(
        parse_moves(stones_text), parse_moves(white), rule=Rule.RENJU, to_move=Color.BLACK
    )
    return board.forbidden_reason(Point.parse(point))


FORBIDDEN_EXAMPLES = {
    # id: (black stones, white stones, point for Black, expected reason)
    "3-3": ("f8 g8 h7 h6", "", "h8", "double-three"),
    "3-3-one-side-closed": ("f8 g8 h7 h6", "e8", "h8", None),  # OXXP..: no straight four
    "4-4": ("f8 g8 i8 h6 h7 h9", "", "h8", "double-four"),
    "4-4-one-line-X.XXX.X": ("d8 f8 g8 j8", "", "h8", "double-four"),
    "4-4-one-line-XX.XX.XX": ("d8 e8 g8 j8 k8", "", "h8", "double-four"),
    "4-4-one-line-XXX.X.XXX": ("c8 d8 e8 i8 j8 k8", "", "g8", "double-four"),
    "4-3-is-legal": ("f8 g8 i8 h6 h7", "", "h8", None),
    "4-4-3": ("f8 g8 i8 h6 h7 h9 g9 f10", "", "h8", "double-four"),
    "4-3-3": ("f8 g8 i8 h6 h7 g7 f6", "", "h8", "double-three"),
    "false-4-4-six-not-five": ("c8 d8 e8 g8 h8", "", "f8", "overline"),
    "overline-at-edge": ("a8 b8 c8 e8 f8", "", "d8", "overline"),
    "overline-vertical-seven": ("h5 h6 h7 h9 h10 h11", "", "h8", "overline"),
    "overline-in-corner": ("a1 b2 c3 e5 f6", "", "d4", "overline"),
    "five-first": ("f8 g8 i8 j8", "", "h8", None),
    "five-beats-overline": ("f8 g8 i8 j8 h3 h4 h5 h6 h7", "", "h8", None),
    "five-beats-4-4": ("f8 g8 i8 j8 h5 h6 h7 g9 f10 e11", "", "h8", None),
    "five-made-in-gap": ("e8 g8 h8 i8 k8", "", "f8", None),
    "edge-three-is-no-three": ("a8 b8 c6 c7", "", "c8", None),  # |XXP.. cannot open
    "one-in-from-edge-is-a-three": ("b8 c8 d6 d7", "", "d8", "double-three"),
    "three-between-whites": ("e8 f8 g6 g7", "c8 i8", "g8", None),  # O.XXP.O
    "three-against-white": ("e8 f8 g6 g7", "h8", "g8", None),  # ..XXPO
    "three-with-a-gap-to-white": ("e8 f8 g6 g7", "i8", "g8", "double-three"),  # ..XXP.O
    "split-three": ("e8 g8 h6 h7", "", "h8", "double-three"),  # X.XP and a plain three
    # i8 makes threes on the column and the g6-h7 diagonal, but with i8 placed every point
    # that would turn one of them into a straight four is itself forbidden: a fake three.
    "fake-three": ("g8 h7 i5 i7 g6 h5 j5", "", "i8", None),
    "occupied": ("f8 g8 h7 h6 h8", "", "h8", None),
}


@pytest.mark.parametrize(
    ("black", "white", "point", "expected"),
    list(FORBIDDEN_EXAMPLES.values()),
    ids=list(FORBIDDEN_EXAMPLES),
)
def test_forbidden_examples(black: str, white: str, point: str, expected: str | None) -> None:
    stones = {p: Color.BLACK for p in parse_moves(black)} | {
        p: Color.WHITE for p in parse_moves(white)
    }
    # The oracle also judges every hand-made example, so a wrong expectation shows up as a
    # disagreement with it rather than as a silent pass.
    if Point.parse(point) not in stones:
        assert oracles.forbidden(stones, Point.parse(point), 15) == expected
    assert reason(black, point, white) == expected


def test_a_forbidden_move_raises_for_black_and_is_fine_for_white() -> None:
    board = Board.from_stones(
        parse_moves("f8 g8 h7 h6"), parse_moves("a1 a3 a5 a7"), rule=Rule.RENJU
    )
    with pytest.raises(ForbiddenMoveError) as caught:
        board.play(Point.parse("h8"))
    assert caught.value.reason == "double-three"
    assert caught.value.point == Point.parse("h8")
    assert Point.parse("h8") not in board.legal_moves()
    assert board[Point.parse("h8")] is None  # unchanged
    board.play(Point.parse("o15"))
    assert board.stones(Color.BLACK)[-1] == Point.parse("o15")
    board.play(Point.parse("h8"))  # White has no forbidden points
    assert board[Point.parse("h8")] is Color.WHITE


def test_forbidden_points_lists_every_forbidden_point_and_nothing_else() -> None:
    board = Board.from_stones(parse_moves("f8 g8 h7 h6 a1 b2 c3 e5 f6"), [], rule=Rule.RENJU)
    cells = [STONE[c] if (c := board[p]) is not None else rules.EMPTY for p in board]
    expected = [
        p for p in board if board[p] is None and rules.forbidden_reason(cells, 15, 15, p.x, p.y)
    ]
    assert board.forbidden_points() == sorted(expected, key=lambda p: (p.y, p.x))
    assert {Point.parse("h8"), Point.parse("d4")} <= set(board.forbidden_points())


def test_other_rules_have_no_forbidden_points() -> None:
    board = Board.from_stones(parse_moves("f8 g8 h7 h6"), [], rule=Rule.FREESTYLE)
    assert board.forbidden_points() == []
    assert board.forbidden_reason(Point.parse("h8")) is None


@pytest.mark.slow
@given(stones=positions(9, 0.15, 0.6))
@settings(max_examples=examples(40))
def test_forbidden_reason_agrees_with_the_definition(stones: oracles.Stones) -> None:
    cells = cells_of(stones, 9, 9)
    for y in range(9):
        for x in range(9):
            point = Point(x, y)
            if point in stones:
                continue
            expected = oracles.forbidden(stones, point, 9)
            assert rules.forbidden_reason(cells, 9, 9, x, y) == expected, point


@pytest.mark.slow
@given(stones=positions(15, 0.08, 0.45))
@settings(max_examples=examples(60))
def test_forbidden_points_agree_with_the_gomocup_referee(stones: oracles.Stones) -> None:
    """The PyPI ``renju`` package ports the Gomocup renju referee (RULES.md section 7)."""
    board = Board.from_stones(
        [p for p, c in stones.items() if c is Color.BLACK],
        [p for p, c in stones.items() if c is Color.WHITE],
        rule=Rule.RENJU,
    )
    grid = [[0] * 15 for _ in range(15)]
    for point, color in stones.items():
        grid[point.x][point.y] = STONE[color]
    referee = {}
    for point in board:
        if point not in stones:
            verdict = REFEREE_REASONS[get_foul_type([row[:] for row in grid], point.x, point.y)]
            if verdict is not None:
                referee[point] = verdict
    assert {p: board.forbidden_reason(p) for p in board.forbidden_points()} == referee
