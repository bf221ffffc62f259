"""Board: moves, undo, keys, symmetries, gravity, set-up positions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from engine import (
    Board,
    Color,
    ColumnFullError,
    FloatingStoneError,
    Game,
    GameOverError,
    NothingToUndoError,
    OccupiedPointError,
    OffBoardError,
    Point,
    Rule,
    Termination,
    UnsupportedBoardError,
)
from tests.scale import examples


class BoardAgainstModel(RuleBasedStateMachine):
    """Board driven at random and checked against a dict of stones and a list of moves."""

    def __init__(self) -> None:
        super().__init__()
        self.board = Board(7, Rule.FREESTYLE)
        self.stones: dict[Point, Color] = {}
        self.history: list[Point] = []
        self.keys: list[int] = [self.board.key]

    @precondition(lambda self: self.board.outcome is None)
    @rule(x=st.integers(-1, 7), y=st.integers(-1, 7))
    def play(self, x: int, y: int) -> None:
        point = Point(x, y)
        if not (0 <= x < 7 and 0 <= y < 7):
            with pytest.raises(OffBoardError):
                self.board.play(point)
        elif point in self.stones:
            with pytest.raises(OccupiedPointError):
                self.board.play(point)
        else:
            color = self.board.to_move
            self.board.play(point)
            self.stones[point] = color
            self.history.append(point)
            self.keys.append(self.board.key)

    @precondition(lambda self: self.board.outcome is not None)
    @rule()
    def play_after_the_end(self) -> None:
        with pytest.raises(GameOverError):
            self.board.play(Point(0, 0))

    @rule()
    def undo(self) -> None:
        if not self.history:
            with pytest.raises(NothingToUndoError):
                self.board.undo()
            return
        move = self.board.undo()
        point = self.history.pop()
        assert move.point == point
        assert move.color is self.stones.pop(point)
        self.keys.pop()

    @invariant()
    def matches_the_model(self) -> None:
        for point in self.board:
            assert self.board[point] is self.stones.get(point)
        for y in range(self.board.height):
            row = self.board.row(y)
            assert row == tuple(self.stones.get(Point(x, y)) for x in range(self.board.width))
        assert [m.point for m in self.board.moves] == self.history
        assert self.board.to_move is (Color.BLACK if len(self.history) % 2 == 0 else Color.WHITE)
        assert self.board.key == self.keys[-1]
        assert len(self.board) == len(self.stones)


TestBoardAgainstModel = BoardAgainstModel.TestCase
TestBoardAgainstModel.settings = settings(max_examples=examples(60), stateful_step_count=40)


@given(st.integers(0, 2**32 - 1))
def test_key_depends_only_on_the_position(seed: int) -> None:
    rng = random.Random(seed)
    moves = rng.sample([Point(x, y) for x in range(9) for y in range(9)], 10)
    board = Board(9)
    for point in moves:
        board.play(point)
    # The same stones reached in another order (Black's and White's moves each shuffled).
    black, white = moves[0::2], moves[1::2]
    rng.shuffle(black)
    rng.shuffle(white)
    other = Board(9)
    for b, w in zip(black, white, strict=True):
        other.play(b)
        other.play(w)
    assert other.key == board.key
    assert other.same_position(board)
    board.undo()
    assert board.key != other.key


def test_side_to_move_is_part_of_the_key() -> None:
    stones = [Point(1, 1)], [Point(2, 2)]
    black_to_move = Board.from_stones(*stones, to_move=Color.BLACK)
    white_to_move = Board.from_stones(*stones, to_move=Color.WHITE)
    assert black_to_move.key != white_to_move.key


@given(st.integers(0, 2**32 - 1), st.integers(0, 7), st.sampled_from(list(Rule)))
@settings(max_examples=examples(60))
def test_outcomes_and_forbidden_points_are_invariant_under_symmetry(
    seed: int, symmetry: int, rule_: Rule
) -> None:
    rng = random.Random(seed)
    board = Board(9, rule_)
    for _ in range(rng.randint(0, 40)):
        if board.outcome is not None:
            break
        board.play(rng.choice(board.legal_moves()))
    image = board.transformed(symmetry)
    assert image.outcome == board.outcome
    assert len(image.moves) == len(board.moves)
    assert {image.transformed(0).key} == {image.key}
    if symmetry == 0:
        assert image.key == board.key
    forbidden = {str(p) for p in image.forbidden_points()}
    assert len(forbidden) == len(board.forbidden_points())
    # Mapping a symmetry and its inverse returns the original game.
    inverse = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 5, 7: 7}[symmetry]
    back = image.transformed(inverse)
    assert [m.point for m in back.moves] == [m.point for m in board.moves]


def test_the_eight_symmetries_of_a_corner_are_the_four_corners() -> None:
    board = Board.from_moves("a1")
    corners = {board.transformed(s).moves[0].point for s in range(8)}
    assert corners == {Point(0, 0), Point(14, 0), Point(0, 14), Point(14, 14)}


def test_copy_is_independent() -> None:
    board = Board.from_moves("h8 i9")
    copy = board.copy()
    copy.play(Point.parse("h9"))
    assert len(board.moves) == 2
    assert len(copy.moves) == 3
    assert board[Point.parse("h9")] is None


def test_undo_reopens_a_won_game() -> None:
    board = Board.from_moves("h8 a1 h9 a2 h10 a3 h11 a4 h12")
    assert board.outcome is not None
    board.undo()
    assert board.outcome is None
    assert board.winning_line == ()
    assert board.to_move is Color.BLACK


@pytest.mark.parametrize(
    ("game", "width", "height", "k", "gravity"),
    [
        ("gomoku", 15, 15, 5, False),
        ("tictactoe", 3, 3, 3, False),
        ("connect4", 7, 6, 4, True),
        ("gravity3", 4, 4, 3, True),
    ],
)
def test_for_game(game: str, width: int, height: int, k: int, gravity: bool) -> None:
    board = Board.for_game(game)
    assert (board.width, board.height, board.win_length, board.gravity) == (
        width,
        height,
        k,
        gravity,
    )
    assert board.game is Game(game)
    assert len(board.legal_moves()) == (width if gravity else width * height)


@pytest.mark.parametrize("size", [5, 15, 20])
def test_gomoku_sizes(size: int) -> None:
    assert Board(size).size == size
    assert Board.for_game("gomoku", size=size).width == size


@pytest.mark.parametrize("size", [4, 21, 0])
def test_unsupported_sizes(size: int) -> None:
    with pytest.raises(UnsupportedBoardError):
        Board(size)


def test_unknown_game() -> None:
    with pytest.raises(UnsupportedBoardError):
        Board.for_game("chess")
    with pytest.raises(UnsupportedBoardError):
        Board.for_game("connect4", size=9)


def test_gravity_stones_drop_and_columns_fill() -> None:
    board = Board.for_game(Game.GRAVITY3)
    assert board.drop(2) == Point(2, 0)
    with pytest.raises(FloatingStoneError) as caught:
        board.play(Point(2, 3))
    assert caught.value.landing == Point(2, 1)
    board.play(Point(2, 1))
    board.drop(2)
    board.drop(2)
    assert board.landing_point(2) is None
    with pytest.raises(ColumnFullError):
        board.drop(2)
    with pytest.raises(ColumnFullError):
        board.play(Point(2, 3))  # occupied, but the column being full says more
    assert Point(2, 3) not in board.legal_moves()
    with pytest.raises(OffBoardError):
        board.drop(4)


def test_from_stones_sets_up_any_position() -> None:
    black = [Point(7, 7), Point(8, 8), Point(9, 9)]
    board = Board.from_stones(black, [], to_move=Color.BLACK)
    assert board.moves == ()
    assert board.to_move is Color.BLACK
    assert board.stones(Color.BLACK) == sorted(black, key=lambda p: (p.y, p.x))
    with pytest.raises(NothingToUndoError):
        board.undo()
    with pytest.raises(OccupiedPointError):
        Board.from_stones([Point(1, 1)], [Point(1, 1)])


def test_rows_read_left_to_right_and_stop_at_the_edges() -> None:
    board = Board.for_game(Game.CONNECT4)
    board.drop(0)
    board.drop(6)
    assert board.row(0) == (Color.BLACK, None, None, None, None, None, Color.WHITE)
    assert board.row(5) == (None,) * 7
    for y in (-1, 6):
        with pytest.raises(IndexError):
            board.row(y)


def test_from_stones_with_a_five_is_finished() -> None:
    board = Board.from_stones([Point(x, 3) for x in range(5)], [Point(0, 0)])
    assert board.outcome is not None
    assert board.outcome.winner is Color.BLACK
    assert board.outcome.termination is Termination.FIVE
    assert board.legal_moves() == []


def test_to_array_is_indexed_y_then_x() -> None:
    board = Board.from_moves("b1 c4", size=5)
    grid = board.to_array()
    assert grid.shape == (5, 5)
    assert grid[0, 1] == 1
    assert grid[3, 2] == 2
    assert int(grid.sum()) == 3


def test_diagram() -> None:
    board = Board.from_moves("a1 e5", size=5)
    assert str(board).splitlines() == [
        " 5 . . . . O",
        " 4 . . . . .",
        " 3 . . . . .",
        " 2 . . . . .",
        " 1 X . . . .",
        "   a b c d e",
    ]


@given(st.integers(0, 2**32 - 1), st.integers(5, 15), st.sampled_from(list(Rule)))
@settings(max_examples=examples(60))
def test_legal_moves_are_the_empty_points_in_board_order(seed: int, size: int, rule_: Rule) -> None:
    # The slow definition: every point, row by row from the bottom, that is empty and (for
    # Black under renju) not forbidden.
    rng = random.Random(seed)
    board = Board(size, rule_)
    for _ in range(rng.randint(0, size * 2)):
        if board.outcome is not None:
            break
        board.play(rng.choice(board.legal_moves()))
    forbidden = (
        set(board.forbidden_points())
        if rule_ is Rule.RENJU and board.to_move is Color.BLACK
        else set()
    )
    expected = [p for p in board if board[p] is None and p not in forbidden]
    assert board.legal_moves() == ([] if board.outcome is not None else expected)
