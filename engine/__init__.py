"""Five-in-a-row engine: board, rules, records and search. Pure and synchronous.

The search names (``Limits``, ``SearchOptions``, ``SearchResult``, ``choose_move``)
load on first use: they bring numba, which the bot's own process never needs (its searches
run in worker processes).
"""

from typing import TYPE_CHECKING, Any

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
    NotOfferedError,
    OccupiedPointError,
    OffBoardError,
    OfferCountError,
    OpeningError,
    OpeningStepError,
    OutsideOpeningAreaError,
    SymmetricOfferError,
    UnsupportedBoardError,
)
from engine.notation import format_moves, parse_moves, parse_point
from engine.types import Color, Game, Level, Move, Outcome, Point, Rule, Termination

if TYPE_CHECKING:
    from engine.levels import choose_move
    from engine.search import Limits, SearchOptions, SearchResult, is_win_score

_LAZY = {
    "choose_move": "engine.levels",
    "Limits": "engine.search",
    "SearchOptions": "engine.search",
    "SearchResult": "engine.search",
    "is_win_score": "engine.search",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


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
    "Level",
    "Limits",
    "Move",
    "NotOfferedError",
    "NothingToUndoError",
    "OccupiedPointError",
    "OffBoardError",
    "OfferCountError",
    "OpeningError",
    "OpeningStepError",
    "Outcome",
    "OutsideOpeningAreaError",
    "Point",
    "Rule",
    "SearchOptions",
    "SearchResult",
    "SymmetricOfferError",
    "Termination",
    "UnsupportedBoardError",
    "choose_move",
    "format_moves",
    "is_win_score",
    "parse_moves",
    "parse_point",
]
