"""Five-in-a-row engine: board, rules, records and search. Pure and synchronous.

Three layers, imported one way only: this package's own modules are the rules core (board,
rules, notation, records, types, errors); ``engine.search`` is the numba search built on them;
``engine.gomocup`` holds the tools around the search (the Gomocup protocol brain, the match
referee, openings, the tactical suite, the bench).

The search names (``Limits``, ``SearchOptions``, ``SearchResult``, ``choose_move``,
``analyse``, ``Analysis``)
load on first use: they bring numba, which the bot's own process never needs (its searches
run in worker processes).
"""

from typing import TYPE_CHECKING

from engine._lazy import lazy_names
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
    from engine.search.alphabeta import Limits, SearchOptions, SearchResult
    from engine.search.analysis import Analysis, analyse
    from engine.search.levels import choose_move

_LAZY = {
    "Analysis": "engine.search.analysis",
    "analyse": "engine.search.analysis",
    "choose_move": "engine.search.levels",
    "Limits": "engine.search.alphabeta",
    "SearchOptions": "engine.search.alphabeta",
    "SearchResult": "engine.search.alphabeta",
}

__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "MAX_SIZE",
    "MIN_SIZE",
    "Analysis",
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
    "analyse",
    "choose_move",
    "format_moves",
    "parse_moves",
    "parse_point",
]
