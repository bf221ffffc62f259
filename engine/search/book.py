"""The opening book: White's answer to the balanced three-stone openings and Black's first free
move after White's answers to them, read before a search.

``book_move(board)`` is the move the book holds for ``board`` up to the 8 symmetries of the
square board (rotations and reflections about its centre), turned back onto the board as it
lies, or None: not in the book, another rule or size than the book's, stones set up rather
than played, or the book turned off (``GOMOKU_BOOK=off`` in the environment, for A/B
matches; ``GOMOKU_BOOK=FILE`` reads another book; ``GOMOKU_BOOK_RULES``, comma-separated
rule names, reads it in those rules instead of its own). Master consults
it in ``engine.search.levels.choose_move`` and in the protocol brain; no other level does.

The book is ``engine/search/data/book.json``, made by ``tools/book.py`` (long fixed-node
searches of this engine, each candidate checked by an outside judge; its provenance is in
``book.manifest.json`` beside it). A position's key lists its stones, Black's then White's,
each as sorted ``x,y`` pairs; the book stores the least key of the 8 turned copies and the
move in that copy's frame.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engine.board import Board, symmetric_point
from engine.settings import rules_setting
from engine.types import Color, Point, Rule

__all__ = [
    "BOOK_PATH",
    "Book",
    "BookMove",
    "book_enabled",
    "book_move",
    "book_rules",
    "canonical",
    "load_book",
    "position_key",
    "transform",
    "untransform",
]

BOOK_PATH = Path(__file__).resolve().parent / "data" / "book.json"
FORMAT = 1  # the layout of book.json; bump it when it changes
_ENV = "GOMOKU_BOOK"
_OFF = {"off", "0", "no", "false"}
# The rules whose games read the book, for measuring (by default the book's own rule: the
# shipped one's, freestyle, the rule it was made and judged in). Read in standard, its White
# moves gained node for node against Rapfi in standard (+0.068 +- 0.032 a White game over 192)
# but not at 500 ms a move against PentaZen (-0.016 +- 0.043 over 64); in renju they gained
# in neither (docs/engine.md, "Standard" and "Renju")
_RULES_ENV = "GOMOKU_BOOK_RULES"


def _mirrors_swapped(symmetry: int) -> int:
    """``symmetry`` with its two mirror bits swapped: the same symmetry in
    ``engine.board``'s numbering (mirrors commute, so only the bits' names differ)."""
    return (symmetry & 4) | (symmetry & 2) >> 1 | (symmetry & 1) << 1


def transform(point: Point, symmetry: int, size: int) -> Point:
    """``point`` turned by one of the 8 symmetries of a ``size`` board (0: as it is): bit 4
    swaps x and y, then bit 2 mirrors x and bit 1 mirrors y."""
    return symmetric_point(point, size, _mirrors_swapped(symmetry))


def untransform(point: Point, symmetry: int, size: int) -> Point:
    """The inverse of ``transform``. A symmetry without the swap is its own inverse; with
    it, the mirrors land on the other axis: the inverse of "swap, then mirror x" is "swap,
    then mirror y"."""
    return transform(point, _mirrors_swapped(symmetry) if symmetry & 4 else symmetry, size)


def position_key(black: Iterable[Point], white: Iterable[Point]) -> str:
    """A position's key: ``b`` and Black's stones, ``w`` and White's, each sorted by (x, y)."""

    def stones(points: Iterable[Point]) -> str:
        return ";".join(f"{p.x},{p.y}" for p in sorted(points, key=lambda p: (p.x, p.y)))

    return f"b{stones(black)}w{stones(white)}"


def canonical(black: Iterable[Point], white: Iterable[Point], size: int) -> tuple[str, int]:
    """The least key of the 8 turned copies of a position, and the symmetry that gives it
    (the lowest one when several do)."""
    black, white = list(black), list(white)
    best: tuple[str, int] | None = None
    for symmetry in range(8):
        key = position_key(
            (transform(p, symmetry, size) for p in black),
            (transform(p, symmetry, size) for p in white),
        )
        if best is None or key < best[0]:
            best = (key, symmetry)
    assert best is not None
    return best


@dataclass(frozen=True, slots=True)
class BookMove:
    """A book's answer: the move, and master's score for it (the side to move's view)."""

    move: Point
    score: int


@dataclass(frozen=True, slots=True)
class Book:
    """Moves by canonical position, for one rule and board size."""

    size: int
    rule: Rule
    moves: Mapping[str, BookMove]  # canonical key -> the move in the canonical frame

    def lookup(self, board: Board, rules: frozenset[Rule] | None = None) -> BookMove | None:
        """The book's move for ``board`` turned onto it, or None (see the module's text).
        ``rules``: the rules whose boards it answers (by default the book's own)."""
        if (
            board.rule not in (rules if rules is not None else {self.rule})
            or board.width != self.size
            or board.height != self.size
            or board.gravity
            or board.win_length != 5
            or board.setup[0]
            or board.setup[1]
            or board.outcome is not None
        ):
            return None
        key, symmetry = canonical(board.stones(Color.BLACK), board.stones(Color.WHITE), self.size)
        stored = self.moves.get(key)
        if stored is None:
            return None
        move = untransform(stored.move, symmetry, self.size)
        return BookMove(move, stored.score) if board.is_legal(move) else None


def parse_book(data: Mapping[str, object]) -> Book:
    """A book from ``book.json``'s parsed content.

    Raises:
        ValueError: the content is not a book of this format.
    """
    if data.get("format") != FORMAT:
        raise ValueError(f"not a book of format {FORMAT}")
    size = data.get("size")
    rule = data.get("rule")
    entries = data.get("positions")
    if not isinstance(size, int) or not isinstance(rule, str) or not isinstance(entries, dict):
        raise ValueError("a book needs size, rule and positions")
    moves: dict[str, BookMove] = {}
    try:
        for key, entry in entries.items():
            x, y = (int(v) for v in entry["move"].split(","))
            moves[str(key)] = BookMove(Point(x, y), int(entry.get("master") or 0))
        return Book(size, Rule(rule), moves)
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise ValueError(f"a malformed book: {error}") from error


@cache
def load_book(path: Path = BOOK_PATH) -> Book | None:
    """The book at ``path`` (read once a process), or None when there is none or it cannot be
    read: without a book master searches every move, which is never wrong."""
    try:
        return parse_book(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def book_enabled() -> bool:
    """False when ``GOMOKU_BOOK`` is ``off`` (or ``0``, ``no``, ``false``)."""
    return os.environ.get(_ENV, "on").strip().lower() not in _OFF


def book_rules() -> frozenset[Rule] | None:
    """The rules ``GOMOKU_BOOK_RULES`` names (for A/B matches; unknown names are ignored), or
    None when it names none: then a book answers its own rule alone."""
    return rules_setting(_RULES_ENV, frozenset()) or None


def book_move(board: Board) -> BookMove | None:
    """Master's book move for ``board``, or None (see the module's text). ``GOMOKU_BOOK`` may
    also name another book file (for A/B matches)."""
    if not book_enabled():
        return None
    chosen = os.environ.get(_ENV, "").strip()
    book = load_book(Path(chosen)) if chosen and chosen.lower() != "on" else load_book()
    return None if book is None else book.lookup(board, book_rules())
