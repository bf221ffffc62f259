"""The board: the one mutable type of the engine.

A ``Board`` holds one game of the five-in-a-row family (DESIGN.md section 1): Gomoku on 5x5 to
20x20 under any ``Rule``, tic-tac-toe, Connect Four and gravity three-in-a-row. It knows whose
turn it is, the moves played (for undo and records), a Zobrist key, and the outcome.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Self

import numpy as np

from engine import rules
from engine.errors import (
    ColumnFullError,
    FloatingStoneError,
    ForbiddenMoveError,
    GameOverError,
    IllegalMoveError,
    NothingToUndoError,
    OccupiedPointError,
    OffBoardError,
    UnsupportedBoardError,
)
from engine.games import MAX_SIZE, MIN_SIZE, game_spec
from engine.notation import format_moves, parse_moves
from engine.types import Color, Game, Move, Outcome, Point, Rule, Termination

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["MAX_SIZE", "MIN_SIZE", "Board", "symmetric_point"]

_STONE = {Color.BLACK: rules.BLACK, Color.WHITE: rules.WHITE}
_COLOR = {rules.BLACK: Color.BLACK, rules.WHITE: Color.WHITE}
_COLOR_OF_CELL: tuple[Color | None, ...] = (None, Color.BLACK, Color.WHITE)  # by cell value


@cache
def _points(width: int, height: int) -> tuple[Point, ...]:
    """Every point of a ``width`` x ``height`` board by cell index (row by row from the
    bottom). Points are immutable, and making one costs more than looking it up: the bot
    lists empty points on every autocomplete keystroke and draws every board cell by cell."""
    return tuple(Point(x, y) for y in range(height) for x in range(width))


@cache
def _zobrist(cells: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Random 64-bit keys per cell and colour, plus the side-to-move key; fixed per size."""
    rng = random.Random(0x9E3779B97F4A7C15 ^ cells)
    black = tuple(rng.getrandbits(64) for _ in range(cells))
    white = tuple(rng.getrandbits(64) for _ in range(cells))
    return black, white, rng.getrandbits(64)


def symmetric_point(point: Point, size: int, symmetry: int) -> Point:
    """``point`` under one of the 8 symmetries of a square board (0 is the identity; bit 4
    transposes, 1 mirrors x, 2 mirrors y), the numbering of ``Board.transformed``."""
    x, y = point.x, point.y
    if symmetry & 4:
        x, y = y, x
    if symmetry & 1:
        x = size - 1 - x
    if symmetry & 2:
        y = size - 1 - y
    return Point(x, y)


class Board:
    """A position and its history.

    ``Board(15, Rule.RENJU)`` is an empty Gomoku board; ``Board.for_game("connect4")`` the
    others. Black always moves first.
    """

    __slots__ = (
        "_cells",
        "_game",
        "_gravity",
        "_height",
        "_key",
        "_moves",
        "_outcome",
        "_rule",
        "_setup",
        "_setup_to_move",
        "_to_move",
        "_width",
        "_win_length",
        "_winning_line",
    )

    def __init__(
        self, size: int = 15, rule: Rule = Rule.FREESTYLE, *, game: Game = Game.GOMOKU
    ) -> None:
        """An empty board. ``size`` applies to a game whose spec lets the player choose it
        (Gomoku); ``rule`` falls back to the game's own when the game has no such rule.

        Raises:
            UnsupportedBoardError: for a size the game does not take, or an unknown game.
        """
        spec = game_spec(game)
        game = spec.game
        width, height = spec.board_size(size if spec.sizes is not None else None)
        win_length, gravity = spec.win_length, spec.gravity
        if rule not in spec.rules:
            rule = spec.rules[0]
        self._game = game
        self._width = width
        self._height = height
        self._win_length = win_length
        self._gravity = gravity
        self._rule = Rule(rule)
        self._cells = [rules.EMPTY] * (width * height)
        self._moves: list[Move] = []
        self._setup: tuple[tuple[Point, ...], tuple[Point, ...]] = ((), ())
        self._setup_to_move = Color.BLACK
        self._to_move = Color.BLACK
        self._key = 0
        self._outcome: Outcome | None = None
        self._winning_line: tuple[Point, ...] = ()

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def for_game(
        cls, game: Game | str, *, size: int | None = None, rule: Rule = Rule.FREESTYLE
    ) -> Self:
        """An empty board for ``game`` (DESIGN.md section 1).

        Raises:
            UnsupportedBoardError: for an unknown game or a size the game does not take.
        """
        spec = game_spec(game)
        spec.board_size(size)
        return cls(spec.default_size if size is None else size, rule, game=spec.game)

    @classmethod
    def from_moves(
        cls,
        moves: str | Iterable[Point],
        *,
        size: int = 15,
        rule: Rule = Rule.FREESTYLE,
        game: Game = Game.GOMOKU,
    ) -> Self:
        """A board after playing ``moves`` (``"h8 i9 h9"`` or points) from the start.

        Raises:
            InvalidPointError: for text that is not a move list.
            IllegalMoveError: for a move the rules do not allow.
        """
        board = cls(size, rule, game=game)
        for point in parse_moves(moves) if isinstance(moves, str) else moves:
            board.play(point)
        return board

    @classmethod
    def from_stones(
        cls,
        black: Iterable[Point],
        white: Iterable[Point],
        *,
        size: int = 15,
        rule: Rule = Rule.FREESTYLE,
        to_move: Color = Color.BLACK,
        game: Game = Game.GOMOKU,
    ) -> Self:
        """Any position: stones placed without a history (puzzles, the protocol's BOARD).

        Setup stones are not moves: they cannot be undone and are not in ``moves``. When
        the stones already hold a winning row, the board starts finished.

        Raises:
            OffBoardError, OccupiedPointError: for a stone off the board or placed twice.
        """
        board = cls(size, rule, game=game)
        blacks, whites = tuple(black), tuple(white)
        for color, points in ((Color.BLACK, blacks), (Color.WHITE, whites)):
            for point in points:
                board._check_on_board(point)
                if board[point] is not None:
                    raise OccupiedPointError(point)
                board._put(point, color)
        board._setup = (blacks, whites)
        board._setup_to_move = to_move
        board._to_move = to_move
        if to_move is Color.WHITE:
            board._key ^= _zobrist(len(board._cells))[2]
        for color, points in ((Color.BLACK, blacks), (Color.WHITE, whites)):
            for point in points:
                line = board._winning_run(point)
                if line is not None and board._outcome is None:
                    board._outcome = Outcome(Termination.FIVE, color)
                    board._winning_line = line
        if board._outcome is None and (board.is_full() or not board._can_move()):
            board._outcome = Outcome(Termination.DRAW, None)
        return board

    def copy(self) -> Board:
        """An independent copy with the same position and history."""
        other = Board.__new__(Board)
        for name in Board.__slots__:
            setattr(other, name, getattr(self, name))
        other._cells = self._cells.copy()
        other._moves = self._moves.copy()
        return other

    # -- what it is -----------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """Which game this is."""
        return self._game

    @property
    def rule(self) -> Rule:
        """The winning rule (always freestyle on the small boards)."""
        return self._rule

    @property
    def width(self) -> int:
        """Number of columns."""
        return self._width

    @property
    def height(self) -> int:
        """Number of rows."""
        return self._height

    @property
    def size(self) -> int:
        """The side of a square board (the width on Connect Four's 7x6)."""
        return self._width

    @property
    def win_length(self) -> int:
        """How many in a row win (k of the m,n,k game)."""
        return self._win_length

    @property
    def gravity(self) -> bool:
        """Whether stones drop to the lowest empty point of their column."""
        return self._gravity

    # -- the position ---------------------------------------------------------------------

    @property
    def to_move(self) -> Color:
        """The side to play next."""
        return self._to_move

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves played since the start (or since the set-up position)."""
        return tuple(self._moves)

    @property
    def last_move(self) -> Move | None:
        """The most recent move, if any."""
        return self._moves[-1] if self._moves else None

    @property
    def setup(self) -> tuple[tuple[Point, ...], tuple[Point, ...]]:
        """The black and white stones the position was set up with (empty for a normal game)."""
        return self._setup

    @property
    def setup_to_move(self) -> Color:
        """The side to move in the set-up position."""
        return self._setup_to_move

    @property
    def key(self) -> int:
        """A 64-bit Zobrist key of the stones and the side to move."""
        return self._key

    @property
    def outcome(self) -> Outcome | None:
        """None while the game goes on; else who won (None for a draw) and how."""
        return self._outcome

    @property
    def winning_line(self) -> tuple[Point, ...]:
        """The stones of the winning row, empty when there is none."""
        return self._winning_line

    def __getitem__(self, point: Point) -> Color | None:
        stone = self._cells[point.y * self._width + point.x]
        return _COLOR.get(stone)

    def __len__(self) -> int:
        """The number of stones on the board."""
        return sum(1 for stone in self._cells if stone != rules.EMPTY)

    def __iter__(self) -> Iterator[Point]:
        """Every point, row by row from the bottom."""
        return iter(_points(self._width, self._height))

    def stones(self, color: Color) -> list[Point]:
        """The points that hold ``color``'s stones."""
        stone = _STONE[color]
        points = _points(self._width, self._height)
        return [points[index] for index, held in enumerate(self._cells) if held == stone]

    def row(self, y: int) -> tuple[Color | None, ...]:
        """Row ``y``'s points left to right: the stone's colour, None where empty. One call
        per drawn row instead of one lookup per point (the bot draws every board it shows)."""
        if not 0 <= y < self._height:
            raise IndexError(f"row {y} is off a board of {self._height} rows")
        start = y * self._width
        return tuple(map(_COLOR_OF_CELL.__getitem__, self._cells[start : start + self._width]))

    def is_full(self) -> bool:
        """Whether no empty point is left."""
        return rules.EMPTY not in self._cells

    def on_board(self, point: Point) -> bool:
        """Whether ``point`` lies on this board."""
        return point.on_board(self._width, self._height)

    def to_array(self) -> npt.NDArray[np.int8]:
        """The stones as an int8 array indexed ``[y, x]``: 0 empty, 1 black, 2 white."""
        return np.array(self._cells, dtype=np.int8).reshape(self._height, self._width)

    def same_position(self, other: Board) -> bool:
        """Whether both boards hold the same game, stones and side to move (history aside)."""
        return (
            self._game == other._game
            and self._rule == other._rule
            and (self._width, self._height) == (other._width, other._height)
            and self._cells == other._cells
            and self._to_move == other._to_move
        )

    def __repr__(self) -> str:
        moves = format_moves(move.point for move in self._moves)
        return f"<Board {self._game.value} {self._width}x{self._height} {self._rule} [{moves}]>"

    def __str__(self) -> str:
        """A plain diagram: X black, O white, . empty, row 1 at the bottom."""
        rows = []
        for y in reversed(range(self._height)):
            cells = (
                {rules.BLACK: "X", rules.WHITE: "O"}.get(self._cells[y * self._width + x], ".")
                for x in range(self._width)
            )
            rows.append(f"{y + 1:>2} " + " ".join(cells))
        rows.append("   " + " ".join(str(Point(x, 0))[0] for x in range(self._width)))
        return "\n".join(rows)

    # -- moves ----------------------------------------------------------------------------

    def landing_point(self, column: int) -> Point | None:
        """Where a stone dropped into ``column`` lands (gravity games), None when it is full."""
        for y in range(self._height):
            if self._cells[y * self._width + column] == rules.EMPTY:
                return Point(column, y)
        return None

    def forbidden_reason(self, point: Point) -> str | None:
        """Why Black may not play ``point`` under renju: overline, double-four or double-three.

        None when the rule is not renju, the point is taken, or the move is allowed. The
        answer is for Black whoever is to move (the bot draws Black's forbidden points).
        """
        if self._rule is not Rule.RENJU or not self.on_board(point):
            return None
        return rules.forbidden_reason(self._cells, self._width, self._height, point.x, point.y)

    def forbidden_points(self) -> list[Point]:
        """Every empty point Black may not play under renju (empty for other rules)."""
        if self._rule is not Rule.RENJU:
            return []
        found = rules.forbidden_points(self._cells, self._width, self._height)
        return [point for point, _ in found]

    def _check_on_board(self, point: Point) -> None:
        if not self.on_board(point):
            raise OffBoardError(point)

    def check_move(self, point: Point) -> None:
        """Raise the error ``play(point)`` would raise; return quietly for a legal move.

        Raises:
            GameOverError, OffBoardError, OccupiedPointError, ColumnFullError,
            FloatingStoneError, ForbiddenMoveError.
        """
        if self._outcome is not None:
            raise GameOverError
        self._check_on_board(point)
        if self._gravity:
            # In a gravity game a point names its column, so a full column says the most.
            landing = self.landing_point(point.x)
            if landing is None:
                raise ColumnFullError(point.x)
            if landing != point:
                raise FloatingStoneError(point, landing)
        if self[point] is not None:
            raise OccupiedPointError(point)
        if self._rule is Rule.RENJU and self._to_move is Color.BLACK:
            reason = self.forbidden_reason(point)
            if reason is not None:
                raise ForbiddenMoveError(point, reason)

    def is_legal(self, point: Point) -> bool:
        """Whether the side to move may play ``point``."""
        try:
            self.check_move(point)
        except IllegalMoveError:
            return False
        return True

    def legal_moves(self) -> list[Point]:
        """Every point the side to move may play (renju-forbidden points left out for Black)."""
        if self._outcome is not None:
            return []
        if self._gravity:
            landings = (self.landing_point(column) for column in range(self._width))
            return [point for point in landings if point is not None]
        # By index (row by row from the bottom, as iterating the board goes), with no new
        # Point: the bot asks on every autocomplete keystroke.
        points = _points(self._width, self._height)
        empty = [points[index] for index, stone in enumerate(self._cells) if stone == rules.EMPTY]
        if self._rule is Rule.RENJU and self._to_move is Color.BLACK:
            forbidden = set(self.forbidden_points())
            return [point for point in empty if point not in forbidden]
        return empty

    def _put(self, point: Point, color: Color) -> None:
        index = point.y * self._width + point.x
        self._cells[index] = _STONE[color]
        black, white, _ = _zobrist(len(self._cells))
        self._key ^= (black if color is Color.BLACK else white)[index]

    def _winning_run(self, point: Point) -> tuple[Point, ...] | None:
        return rules.winning_run(
            self._cells,
            self._width,
            self._height,
            point.x,
            point.y,
            win_length=self._win_length,
            rule=self._rule,
        )

    def play(self, point: Point) -> None:
        """Place the side to move's stone on ``point`` and pass the turn.

        Raises:
            GameOverError: the game has ended.
            OffBoardError, OccupiedPointError: the point cannot take a stone.
            ColumnFullError, FloatingStoneError: gravity games, not a landing point.
            ForbiddenMoveError: renju, Black's overline, double-four or double-three.
        """
        self.check_move(point)
        color = self._to_move
        self._put(point, color)
        self._moves.append(Move(point, color))
        self._to_move = color.opponent
        self._key ^= _zobrist(len(self._cells))[2]
        line = self._winning_run(point)
        if line is not None:
            self._outcome = Outcome(Termination.FIVE, color)
            self._winning_line = line
        elif self.is_full() or not self._can_move():
            self._outcome = Outcome(Termination.DRAW, None)

    def _can_move(self) -> bool:
        # Renju can leave Black with only forbidden points on a board that is not full;
        # with no pass in the game, that ends it as a draw, like a full board.
        if self._rule is not Rule.RENJU or self._to_move is not Color.BLACK:
            return True
        return rules.black_can_move(self._cells, self._width, self._height)

    def drop(self, column: int) -> Point:
        """Gravity games: drop the side to move's stone into ``column``; return where it landed.

        Raises:
            OffBoardError, ColumnFullError, GameOverError, and for Gomoku boards
            the errors of ``play``.
        """
        if not 0 <= column < self._width:
            raise OffBoardError(Point(column, 0))
        landing = self.landing_point(column)
        if landing is None:
            raise ColumnFullError(column)
        self.play(landing)
        return landing

    def undo(self) -> Move:
        """Take back the last move and return it.

        Raises:
            NothingToUndoError: no move has been played since the start or the set-up.
        """
        if not self._moves:
            raise NothingToUndoError
        move = self._moves.pop()
        index = move.point.y * self._width + move.point.x
        self._cells[index] = rules.EMPTY
        black, white, side = _zobrist(len(self._cells))
        self._key ^= (black if move.color is Color.BLACK else white)[index] ^ side
        self._to_move = move.color
        # Only the last move can end a game, so taking it back reopens the game.
        self._outcome = None
        self._winning_line = ()
        return move

    # -- symmetry -------------------------------------------------------------------------

    def transformed(self, symmetry: int) -> Board:
        """This game under one of the 8 symmetries of a square board (0 is the identity).

        Bit 4 transposes, bit 1 mirrors columns, bit 2 mirrors rows, in that order.

        Raises:
            UnsupportedBoardError: for a board that is not square or has gravity.
        """
        if self._width != self._height or self._gravity:
            raise UnsupportedBoardError("symmetries need a square board without gravity")
        size = self._width
        black, white = (
            [symmetric_point(point, size, symmetry) for point in points] for points in self._setup
        )
        if self._setup != ((), ()):
            board = Board.from_stones(
                black,
                white,
                size=size,
                rule=self._rule,
                to_move=self._setup_to_move,
                game=self._game,
            )
        else:
            board = Board(size, self._rule, game=self._game)
        for move in self._moves:
            board.play(symmetric_point(move.point, size, symmetry))
        return board

    # -- records (engine.records does the work) -------------------------------------------

    def to_sgf(
        self,
        *,
        black: str = "Black",
        white: str = "White",
        outcome: Outcome | None = None,
        date: dt.date | None = None,
    ) -> str:
        """The game as SGF FF[4] GM[4] (see ``engine.records.to_sgf``)."""
        from engine import records

        return records.to_sgf(self, black=black, white=white, outcome=outcome, date=date)

    @classmethod
    def from_sgf(cls, text: str, *, rows_from_bottom: bool = False) -> Board:
        """The board after an SGF game's main line (see ``engine.records.parse_sgf``).

        Raises:
            InvalidRecordError: for text that is not a Gomoku SGF game we can play through.
        """
        from engine import records

        return records.from_sgf(text, rows_from_bottom=rows_from_bottom)

    def to_psq(self) -> str:
        """The game in Piskvork's PSQ format (see ``engine.records.to_psq``)."""
        from engine import records

        return records.to_psq(self)

    @classmethod
    def from_psq(cls, text: str, *, rule: Rule = Rule.FREESTYLE) -> Board:
        """The board after a PSQ record's moves (see ``engine.records.from_psq``).

        Raises:
            InvalidRecordError: for text that is not a PSQ record we can play through.
        """
        from engine import records

        return records.from_psq(text, rule=rule)

    def move_text(self) -> str:
        """The moves played as ``h8 i9 ...``."""
        return format_moves(move.point for move in self._moves)
