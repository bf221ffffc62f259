"""Errors raised by the engine. They carry data, never prose for players.

::

    GomokuError
    ├── InvalidPointError (also ValueError)  "z99", "h", off the board (.text)
    ├── InvalidRecordError (also ValueError) a move list, SGF or PSQ we cannot read (.text)
    ├── UnsupportedBoardError (also ValueError) a size or game we do not play (.detail)
    ├── NothingToUndoError                   undo on a board with no moves
    └── IllegalMoveError
        ├── OccupiedPointError               the point holds a stone (.point)
        ├── OffBoardError                    outside this board (.point)
        ├── ColumnFullError                  gravity: the column is full (.column)
        ├── FloatingStoneError               gravity: not the landing point (.point, .landing)
        ├── ForbiddenMoveError               renju 3-3 / 4-4 / overline for Black (.point, .reason)
        └── GameOverError                    the game has already ended

The bot adds ``GameServiceError`` and its children in ``bot/service.py``; the words players see
live only in ``bot/errors.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.types import Point

__all__ = [
    "ColumnFullError",
    "FloatingStoneError",
    "ForbiddenMoveError",
    "GameOverError",
    "GomokuError",
    "IllegalMoveError",
    "InvalidPointError",
    "InvalidRecordError",
    "NothingToUndoError",
    "OccupiedPointError",
    "OffBoardError",
    "UnsupportedBoardError",
]


class GomokuError(Exception):
    """Base of every error the engine raises."""


class InvalidPointError(GomokuError, ValueError):
    """Text that does not name a point."""

    def __init__(self, text: str) -> None:
        super().__init__(f"not a point: {text!r}")
        self.text = text  # what was typed


class InvalidRecordError(GomokuError, ValueError):
    """A game record (move list, SGF, PSQ) that cannot be read."""

    def __init__(self, text: str, detail: str = "") -> None:
        super().__init__(f"cannot read record: {detail or text!r}")
        self.text = text  # the offending fragment
        self.detail = detail  # what was wrong with it


class UnsupportedBoardError(GomokuError, ValueError):
    """A board size or game kind that is not offered."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"unsupported board: {detail}")
        self.detail = detail  # what was asked for


class NothingToUndoError(GomokuError):
    """Undo on a board that has no moves to take back."""

    def __init__(self) -> None:
        super().__init__("no move to undo")


class IllegalMoveError(GomokuError):
    """A move the rules do not allow in this position."""


class OccupiedPointError(IllegalMoveError):
    """The point already holds a stone."""

    def __init__(self, point: Point) -> None:
        super().__init__(f"{point} is occupied")
        self.point = point


class OffBoardError(IllegalMoveError):
    """The point lies outside the board."""

    def __init__(self, point: Point) -> None:
        super().__init__(f"{point!r} is off the board")
        self.point = point


class ColumnFullError(IllegalMoveError):
    """Gravity games: no room left in the column."""

    def __init__(self, column: int) -> None:
        super().__init__(f"column {column} is full")
        self.column = column  # 0-based column index


class FloatingStoneError(IllegalMoveError):
    """Gravity games: a stone must go to the lowest empty point of its column."""

    def __init__(self, point: Point, landing: Point) -> None:
        super().__init__(f"{point} is not where a stone lands; {landing} is")
        self.point = point  # what was asked for
        self.landing = landing  # where a stone in that column would land


class ForbiddenMoveError(IllegalMoveError):
    """Renju: Black may not play here."""

    def __init__(self, point: Point, reason: str) -> None:
        super().__init__(f"{point} is forbidden for Black ({reason})")
        self.point = point
        self.reason = reason  # "overline", "double-four" or "double-three"


class GameOverError(IllegalMoveError):
    """The game has already ended."""

    def __init__(self) -> None:
        super().__init__("the game is over")
