"""Win detection for every rule, and the renju forbidden-point check (RULES.md sections 1, 2).

The functions work on a flat cell list (``cells[y * width + x]``: 0 empty, 1 black, 2 white)
so that ``Board`` can call them without copying. Diagrams use rapfi's vocabulary: ``X`` black,
``O`` white, ``.`` empty, ``P`` the point being judged.

This is the readable reference; the search carries its own compiled copy and a test holds the
two to the same verdicts.
"""

from __future__ import annotations

from typing import Final

from engine.types import Point, Rule

__all__ = [
    "BLACK",
    "DIRECTIONS",
    "EMPTY",
    "WHITE",
    "black_can_move",
    "forbidden_points",
    "forbidden_reason",
    "winning_run",
]

EMPTY: Final = 0
BLACK: Final = 1
WHITE: Final = 2
DIRECTIONS: Final = ((1, 0), (0, 1), (1, 1), (1, -1))

OVERLINE: Final = "overline"
DOUBLE_FOUR: Final = "double-four"
DOUBLE_THREE: Final = "double-three"


def _stone(cells: list[int], width: int, height: int, x: int, y: int) -> int:
    """The stone at (x, y), or -1 off the board (the edge is neither colour)."""
    if 0 <= x < width and 0 <= y < height:
        return cells[y * width + x]
    return -1


def _run(
    cells: list[int], width: int, height: int, x: int, y: int, dx: int, dy: int, stone: int
) -> tuple[int, int]:
    """How many ``stone`` stones extend the point (x, y) backwards and forwards along (dx, dy)."""
    back = 0
    while _stone(cells, width, height, x - (back + 1) * dx, y - (back + 1) * dy) == stone:
        back += 1
    forward = 0
    while _stone(cells, width, height, x + (forward + 1) * dx, y + (forward + 1) * dy) == stone:
        forward += 1
    return back, forward


def winning_run(
    cells: list[int],
    width: int,
    height: int,
    x: int,
    y: int,
    *,
    win_length: int,
    rule: Rule,
) -> tuple[Point, ...] | None:
    """The winning row through the stone at (x, y), if that stone completes one.

    ``win_length`` is k of the m,n,k game: 5 for Gomoku, 3 or 4 on the small boards, where
    the rule is always freestyle (k or more wins).
    """
    stone = cells[y * width + x]
    opponent = WHITE if stone == BLACK else BLACK
    for dx, dy in DIRECTIONS:
        back, forward = _run(cells, width, height, x, y, dx, dy, stone)
        length = back + 1 + forward
        if length < win_length:
            continue
        if rule is Rule.STANDARD or (rule is Rule.RENJU and stone == BLACK):
            wins = length == win_length
        elif rule is Rule.CARO and length == win_length:
            # X at both ends of OOOOO takes the win away; the edge does not (Piskvork game.cpp).
            before = _stone(cells, width, height, x - (back + 1) * dx, y - (back + 1) * dy)
            after = _stone(cells, width, height, x + (forward + 1) * dx, y + (forward + 1) * dy)
            wins = not (before == opponent and after == opponent)
        else:
            wins = True
        if wins:
            return tuple(Point(x + i * dx, y + i * dy) for i in range(-back, forward + 1))
    return None


def _makes_exact_five(cells: list[int], width: int, height: int, x: int, y: int) -> bool:
    """Whether the black stone at (x, y) stands in an unbroken row of exactly five."""
    for dx, dy in DIRECTIONS:
        back, forward = _run(cells, width, height, x, y, dx, dy, BLACK)
        if back + 1 + forward == 5:
            return True
    return False


def _fours(cells: list[int], width: int, height: int, x: int, y: int, dx: int, dy: int) -> int:
    """How many distinct fours through the black stone at (x, y) lie along (dx, dy).

    A four is a set of four stones that one empty point turns into an exact five. ``.XXPX.``
    is one four (both completions use the same stones); ``X.XPX.X`` is two on one line.
    """
    fours: set[frozenset[int]] = set()
    for i in range(-4, 5):
        qx, qy = x + i * dx, y + i * dy
        if i == 0 or _stone(cells, width, height, qx, qy) != EMPTY:
            continue
        cells[qy * width + qx] = BLACK
        back, forward = _run(cells, width, height, qx, qy, dx, dy, BLACK)
        cells[qy * width + qx] = EMPTY
        if back + 1 + forward == 5 and i - back <= 0 <= i + forward:
            fours.add(frozenset(range(i - back, i + forward + 1)) - {i})
    return len(fours)


def _is_three(cells: list[int], width: int, height: int, x: int, y: int, dx: int, dy: int) -> bool:
    """Whether the black stone at (x, y) makes a true three along (dx, dy).

    True when some empty Q on the line, not itself a five point, turns P into a straight four
    ``.XXXX.`` (both ends completing an exact five) and Q is not forbidden for Black.
    """
    for i in range(-3, 4):
        qx, qy = x + i * dx, y + i * dy
        if i == 0 or _stone(cells, width, height, qx, qy) != EMPTY:
            continue
        q = qy * width + qx
        cells[q] = BLACK
        try:
            if _makes_exact_five(cells, width, height, qx, qy):
                continue
            back, forward = _run(cells, width, height, qx, qy, dx, dy, BLACK)
            if back + 1 + forward != 4 or not i - back <= 0 <= i + forward:
                continue
            # The run is ``.XXXX.``: each end must be empty and must not touch another X,
            # or that completion would be an overline, not a five.
            ends_ok = True
            for step, far in ((-(back + 1), -(back + 2)), (forward + 1, forward + 2)):
                ex, ey = qx + step * dx, qy + step * dy
                fx, fy = qx + far * dx, qy + far * dy
                if (
                    _stone(cells, width, height, ex, ey) != EMPTY
                    or _stone(cells, width, height, fx, fy) == BLACK
                ):
                    ends_ok = False
                    break
            if not ends_ok:
                continue
        finally:
            cells[q] = EMPTY
        if _forbidden(cells, width, height, qx, qy) is None:
            return True
    return False


def _forbidden(cells: list[int], width: int, height: int, x: int, y: int) -> str | None:
    """The forbidden shape a black stone on the empty point (x, y) would make, or None."""
    p = y * width + x
    cells[p] = BLACK
    try:
        runs = [_run(cells, width, height, x, y, dx, dy, BLACK) for dx, dy in DIRECTIONS]
        lengths = [back + 1 + forward for back, forward in runs]
        if 5 in lengths:
            return None  # a five wins, whatever else it makes
        if any(length > 5 for length in lengths):
            return OVERLINE
        fours = sum(_fours(cells, width, height, x, y, dx, dy) for dx, dy in DIRECTIONS)
        if fours >= 2:
            return DOUBLE_FOUR
        threes = 0
        for dx, dy in DIRECTIONS:
            if _is_three(cells, width, height, x, y, dx, dy):
                threes += 1
                if threes >= 2:
                    return DOUBLE_THREE
        return None
    finally:
        cells[p] = EMPTY


def forbidden_reason(cells: list[int], width: int, height: int, x: int, y: int) -> str | None:
    """Why Black may not play the empty point (x, y) under renju, or None when it may.

    The label follows the order overline, double-four, double-three (RULES.md section 2.2).
    ``cells`` is changed during the call and restored before it returns.
    """
    if cells[y * width + x] != EMPTY:
        return None
    return _forbidden(cells, width, height, x, y)


def _black_neighbours(cells: list[int], width: int, height: int, x: int, y: int) -> int:
    """Black stones within four points of (x, y) along its four lines."""
    count = 0
    for dx, dy in DIRECTIONS:
        for sign in (-1, 1):
            for i in range(1, 5):
                if _stone(cells, width, height, x + sign * i * dx, y + sign * i * dy) == BLACK:
                    count += 1
    return count


def black_can_move(cells: list[int], width: int, height: int) -> bool:
    """Whether some empty point is not forbidden for Black (stops at the first one)."""
    for y in range(height):
        for x in range(width):
            if cells[y * width + x] != EMPTY:
                continue
            if _black_neighbours(cells, width, height, x, y) < 4:
                return True
            if _forbidden(cells, width, height, x, y) is None:
                return True
    return False


def forbidden_points(cells: list[int], width: int, height: int) -> list[tuple[Point, str]]:
    """Every empty point Black may not play under renju, with the reason, in (y, x) order."""
    found = []
    for y in range(height):
        for x in range(width):
            # Every forbidden shape needs at least four other black stones on P's lines
            # (3-3: two and two; 4-4 on one line: four; overline: five), so skip the rest.
            if cells[y * width + x] != EMPTY or _black_neighbours(cells, width, height, x, y) < 4:
                continue
            reason = _forbidden(cells, width, height, x, y)
            if reason is not None:
                found.append((Point(x, y), reason))
    return found
