"""Renju notation: ``h8`` for a point, ``h8 i9 j10`` (or ``h8i9j10``) for a sequence of moves.

Columns are letters from ``a`` (the letter ``i`` included, unlike Go), rows count from 1 at the
bottom (RULES.md section 0 and 6.1). Input is case-insensitive and tolerant of spaces and
leading zeros.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.errors import InvalidPointError
from engine.types import Point

__all__ = ["format_moves", "parse_moves", "parse_point"]

_TOKEN_RE = re.compile(r"([a-z])\s*0*([1-9][0-9]?)", re.IGNORECASE)
_SEPARATORS = " \t\r\n,;"


def parse_point(text: str) -> Point:
    """Parse one point such as ``h8``, ``H8``, ``h 8`` or ``H08``.

    Raises:
        InvalidPointError: when the text is not a point.
    """
    return Point.parse(text)


def parse_moves(text: str) -> list[Point]:
    """Parse a move list: ``h8 i9 j10``, ``h8i9j10``, ``h8, i9; j10``.

    Raises:
        InvalidPointError: carrying the first piece of text that is not a point.
    """
    points: list[Point] = []
    position = 0
    while position < len(text):
        if text[position] in _SEPARATORS:
            position += 1
            continue
        match = _TOKEN_RE.match(text, position)
        if match is None:
            end = position
            while end < len(text) and text[end] not in _SEPARATORS:
                end += 1
            raise InvalidPointError(text[position:end])
        points.append(Point.parse(match.group(0)))
        position = match.end()
    return points


def format_moves(points: Iterable[Point]) -> str:
    """Write points as a space-separated move list (the inverse of ``parse_moves``)."""
    return " ".join(str(point) for point in points)
