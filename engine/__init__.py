"""Five-in-a-row engine: board, rules, records and search. Pure and synchronous."""

from engine.board import MAX_SIZE, MIN_SIZE, Board
from engine.errors import (
    ColumnFullError,
    FloatingStoneError,
    ForbiddenMoveError,
    GameOverError,
    GomokuError,
    IllegalMoveError,
    InvalidPointError,
    InvalidRecordError,
    NothingToUndoError,
    OccupiedPointError,
    OffBoardError,
    UnsupportedBoardError,
)
from engine.notation import format_moves, parse_moves, parse_point
from engine.types import Color, Game, Move, Outcome, Point, Rule, Termination

__all__ = [
    "MAX_SIZE",
    "MIN_SIZE",
    "Board",
    "Color",
    "ColumnFullError",
    "FloatingStoneError",
    "ForbiddenMoveError",
    "Game",
    "GameOverError",
    "GomokuError",
    "IllegalMoveError",
    "InvalidPointError",
    "InvalidRecordError",
    "Move",
    "NothingToUndoError",
    "OccupiedPointError",
    "OffBoardError",
    "Outcome",
    "Point",
    "Rule",
    "Termination",
    "UnsupportedBoardError",
    "format_moves",
    "parse_moves",
    "parse_point",
]
