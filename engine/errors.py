"""Errors raised by the engine. They carry data, never prose for players.

::

    GomokuError
    ├── InvalidPointError (also ValueError)  "z99", "h", off the board (.text)
    ├── InvalidRecordError (also ValueError) a move list, SGF or PSQ we cannot read (.text)
    ├── UnsupportedBoardError (also ValueError) a size or game we do not play (.detail)
    ├── NothingToUndoError                   undo on a board with no moves
    ├── OpeningError                         a step the opening rule does not allow now
    │   ├── OpeningStepError                 not this kind of step now (.expected, .given)
    │   ├── OutsideOpeningAreaError          outside the central square allowed (.point, .area)
    │   ├── OfferCountError                  renju: more or fewer fifth moves (.count, .most)
    │   ├── SymmetricOfferError              renju: a fifth move symmetric to another (.point,
    │   │                                    .twin)
    │   └── NotOfferedError                  renju: picking a fifth move not offered (.point)
    └── IllegalMoveError
        ├── OccupiedPointError               the point holds a stone (.point)
        ├── OffBoardError                    outside this board (.point)
        ├── ColumnFullError                  gravity: the column is full (.column)
        ├── FloatingStoneError               gravity: not the landing point (.point, .landing)
        ├── ForbiddenMoveError               renju 3-3 / 4-4 / overline for Black (.point, .reason)
        └── GameOverError                    the game has already ended

The bot adds ``GameServiceError`` and its children in ``bot/core/service``; the words players see
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
    "NotOfferedError",
    "NothingToUndoError",
    "OccupiedPointError",
    "OffBoardError",
    "OfferCountError",
    "OpeningError",
    "OpeningStepError",
    "OutsideOpeningAreaError",
    "SymmetricOfferError",
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


class OpeningError(GomokuError):
    """A step that the opening rule (swap, swap2, Soosõrv, Taraguchi) does not allow now."""


class OpeningStepError(OpeningError):
    """The opening waits for another kind of step (a stone, a choice, a number, a pick)."""

    def __init__(self, expected: str, given: str) -> None:
        super().__init__(f"the opening expects {expected}, not {given}")
        self.expected = expected  # an ``engine.opening_rules.Phase`` value, or "nothing"
        self.given = given  # what was tried: "place", "choose black", "declare 3" ...


class OutsideOpeningAreaError(OpeningError):
    """Renju openings: this stone must lie inside a central square."""

    def __init__(self, point: Point, area: int) -> None:
        super().__init__(f"{point} is outside the central {area}x{area} square")
        self.point = point
        self.area = area  # the side of the central square (3, 5, 7 or 9)


class OfferCountError(OpeningError):
    """Soosõrv: the number of fifth moves declared is out of range."""

    def __init__(self, count: int, most: int) -> None:
        super().__init__(f"{count} fifth moves: declare 1 to {most}")
        self.count = count  # what was declared
        self.most = most  # the rule's N


class SymmetricOfferError(OpeningError):
    """Renju: a fifth-move offer that mirrors one already offered."""

    def __init__(self, point: Point, twin: Point) -> None:
        super().__init__(f"{point} is symmetric to the offer {twin}")
        self.point = point
        self.twin = twin  # the offer it mirrors


class NotOfferedError(OpeningError):
    """Renju: White picks a fifth move that Black did not offer."""

    def __init__(self, point: Point) -> None:
        super().__init__(f"{point} was not offered")
        self.point = point


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
