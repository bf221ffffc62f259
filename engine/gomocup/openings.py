"""Short balanced openings for engine matches.

Each match game starts from one of these positions; ``python -m engine match`` plays every
opening twice with the colours swapped, so whatever advantage an opening gives one side is
given to both engines in turn. An opening is three stones played as moves (Black, White,
Black; White to move), written as offsets ``dx,dy`` from the centre of the board, so one
list serves every size from 9x9 up (53 of them fit 7x7).

How they were chosen (``python tools/check_openings.py --choose 64 --depths 9,10`` chooses
them again, the same ones): every 3-stone opening with White within 2 points of the centre
stone and Black's second stone within 4, up to the 8 symmetries (251 of them), was searched
by the engine to depths 9 and 10, and the 64 whose larger score lay closest to 0 kept: within
-281..+274 (in the evaluation's units) at both depths. Fewer openings make matches replay the
same few games: with 16, each opening comes back every 32 games and about one game in 20
repeats another exactly. Openings whose stones lie 4
points from the centre do not fit a 7x7 board and are left out there.
"""

from __future__ import annotations

from engine.board import Board
from engine.types import Point, Rule

__all__ = ["OPENINGS", "offsets", "opening_board", "openings"]

# Offsets from the centre, Black first; dy counts upwards like our rows.
OPENINGS: tuple[str, ...] = (
    "0,0 -2,-1 -3,2",
    "0,0 -2,-2 1,2",
    "0,0 -2,0 -4,0",
    "0,0 -2,0 0,-3",
    "0,0 -2,0 -2,-3",
    "0,0 -2,-1 2,1",
    "0,0 -2,-1 -2,2",
    "0,0 -1,0 1,-3",
    "0,0 -1,0 1,-2",
    "0,0 -2,-1 0,-3",
    "0,0 -1,-1 -3,1",
    "0,0 -2,0 3,0",
    "0,0 -1,0 -1,-3",
    "0,0 -2,-1 2,-1",
    "0,0 -2,0 -4,-1",
    "0,0 -2,-2 -2,-1",
    "0,0 -1,-1 0,3",
    "0,0 -2,-2 0,3",
    "0,0 -1,-1 1,2",
    "0,0 -2,0 1,-1",
    "0,0 -1,0 2,-2",
    "0,0 -1,0 -2,-3",
    "0,0 -2,-2 -3,1",
    "0,0 -2,-1 1,2",
    "0,0 -1,-1 -2,2",
    "0,0 -1,0 -3,-2",
    "0,0 -2,-1 1,-3",
    "0,0 -2,-1 -4,-1",
    "0,0 -1,0 -3,-3",
    "0,0 -2,-1 2,0",
    "0,0 -1,0 -3,0",
    "0,0 -2,-1 -3,0",
    "0,0 -1,0 -2,0",
    "0,0 -2,0 -3,-1",
    "0,0 -2,-2 -3,-1",
    "0,0 -1,-1 -3,-2",
    "0,0 -2,-2 -3,-2",
    "0,0 -2,-2 -3,0",
    "0,0 -2,0 3,-1",
    "0,0 -2,-1 0,3",
    "0,0 -1,0 2,0",
    "0,0 -2,0 1,-2",
    "0,0 -1,-1 -1,3",
    "0,0 -1,-1 -4,-2",
    "0,0 -1,-1 -4,0",
    "0,0 -2,-2 -4,-2",
    "0,0 -1,-1 -3,-1",
    "0,0 -1,-1 -2,-2",
    "0,0 -1,0 0,-3",
    "0,0 -1,-1 -1,2",
    "0,0 -2,-2 -2,2",
    "0,0 -2,-2 -3,2",
    "0,0 -1,0 0,-4",
    "0,0 -2,-2 2,2",
    "0,0 -2,0 0,-1",
    "0,0 -1,0 -4,-2",
    "0,0 -2,-2 -1,-1",
    "0,0 -1,0 -2,-4",
    "0,0 -1,-1 -1,1",
    "0,0 -1,-1 0,1",
    "0,0 -2,-1 -4,-2",
    "0,0 -2,-1 -2,-3",
    "0,0 -2,-2 -4,-1",
    "0,0 -1,-1 -3,0",
)


def offsets(text: str) -> list[tuple[int, int]]:
    """An opening's line of ``OPENINGS`` as ``(dx, dy)`` offsets from the centre."""
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
        points = tuple(Point(centre + dx, centre + dy) for dx, dy in offsets(text))
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
