"""Short balanced openings for engine matches.

Each match game starts from one of these positions; ``python -m engine match`` plays every
opening twice with the colours swapped, so whatever advantage an opening gives one side is
given to both engines in turn. An opening is a few stones placed as moves (Black first), as
offsets ``dx,dy`` from the centre of the board, so one list serves every size from 7x7 up.

The stones are spread out (no two Black stones on one line with nothing between them, no
three-in-a-row shapes), the way Gomocup's opening book keeps the first moves from deciding
the game. They were checked with the engine's own search: none is a forced win in a few
moves for either side at fixed depth (``tests/engine/test_match.py`` replays them).
"""

from __future__ import annotations

from engine.board import Board
from engine.types import Point, Rule

__all__ = ["OPENINGS", "opening_board", "openings"]

# Offsets from the centre, Black first; dy counts upwards like our rows.
OPENINGS: tuple[str, ...] = (
    "0,0 1,1 -2,1",
    "0,0 1,0 -1,2",
    "0,0 0,1 2,1",
    "0,0 1,1 2,-2",
    "0,0 2,0 -1,-2",
    "0,0 1,-1 -1,-3",
    "0,0 2,1 0,-2",
    "0,0 1,2 2,-1",
    "0,0 -1,1 1,2",
    "0,0 0,2 2,1",
    "0,0 2,2 -1,1",
    "0,0 1,0 0,3",
    "0,0 1,1 2,0 0,2",
    "0,0 0,1 1,-1 -1,-1",
    "0,0 2,-1 -1,1 1,2",
    "0,0 -1,-1 1,-2 2,1",
)


def _offsets(text: str) -> list[tuple[int, int]]:
    pairs = []
    for item in text.split():
        dx, dy = item.split(",")
        pairs.append((int(dx), int(dy)))
    return pairs


def openings(size: int = 15) -> list[tuple[Point, ...]]:
    """The openings that fit a ``size`` board, as moves from the first. On boards too small
    for any of them there is one opening: the empty board."""
    centre = size // 2
    found = []
    for text in OPENINGS:
        points = tuple(Point(centre + dx, centre + dy) for dx, dy in _offsets(text))
        if all(point.on_board(size, size) for point in points):
            found.append(points)
    return found or [()]


def opening_board(
    index: int, *, size: int = 15, rule: Rule = Rule.FREESTYLE
) -> tuple[tuple[Point, ...], Board]:
    """Opening ``index`` (wrapping around the list) and the board after it."""
    choices = openings(size)
    moves = choices[index % len(choices)]
    return moves, Board.from_moves(moves, size=size, rule=rule)
