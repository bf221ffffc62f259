"""Five-in-a-row engine: board, rules, records and search. Pure and synchronous."""

from engine.errors import (
    ColumnFullError,
    ForbiddenMoveError,
    GameOverError,
    GomokuError,
    IllegalMoveError,
    InvalidPointError,
    InvalidRecordError,
    OccupiedPointError,
    OffBoardError,
)
from engine.types import Color, Game, Move, Outcome, Point, Rule, Termination

__all__ = [
    "Color",
    "ColumnFullError",
    "ForbiddenMoveError",
    "Game",
    "GameOverError",
    "GomokuError",
    "IllegalMoveError",
    "InvalidPointError",
    "InvalidRecordError",
    "Move",
    "OccupiedPointError",
    "OffBoardError",
    "Outcome",
    "Point",
    "Rule",
    "Termination",
]
