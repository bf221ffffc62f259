"""The tap-to-play window: which 5x5 part of a Gomoku board the private panel shows.

Discord allows 25 buttons in a grid, so a phone player plays through a 5x5 window of the board.
It opens where the action is: on a point that wins or must be blocked (a five for either side),
else on one that makes a four, else between the last two moves, else in the centre. Arrows pan
it by ``STEP`` points, clamped inside the board. No rules live here beyond counting stones in a
row: what is legal comes from the engine's ``Board`` (and ``bot.core.positions.forbidden_points``).
"""

from __future__ import annotations

import enum
from typing import Final

from bot.text.render import Window
from engine.board import Board
from engine.types import Color, Point

__all__ = ["PANEL", "STEP", "Pan", "can_pan", "centred", "focus", "pan", "panel_window", "threats"]

PANEL: Final = 5  # the window's side: Discord's 5 buttons a row, and 5 rows for the grid
STEP: Final = 3  # points an arrow moves the window (two rows or columns stay in view)
_DIRECTIONS: Final = ((1, 0), (0, 1), (1, 1), (1, -1))


class Pan(enum.StrEnum):
    """An arrow of the panel (the value goes in the button's custom id)."""

    LEFT = "l"
    UP = "u"
    DOWN = "d"
    RIGHT = "r"
    CENTRE = "c"  # back to where the action is


def _run(board: Board, point: Point, color: Color, dx: int, dy: int) -> int:
    """Stones of ``color`` in a row through the empty ``point`` if ``color`` played there."""
    length = 1
    for sign in (1, -1):
        x, y = point.x + sign * dx, point.y + sign * dy
        while 0 <= x < board.width and 0 <= y < board.height and board[Point(x, y)] is color:
            length += 1
            x, y = x + sign * dx, y + sign * dy
    return length


def threats(board: Board, length: int) -> list[Point]:
    """Empty points where either side would make ``length`` or more in a row, nearest the last
    move first (``length = board.win_length`` finds wins and the blocks they force)."""
    if board.outcome is not None or not board.moves:
        return []
    found = [
        point
        for point in board
        if board[point] is None
        and any(
            _run(board, point, color, dx, dy) >= length
            for color in (Color.BLACK, Color.WHITE)
            for dx, dy in _DIRECTIONS
        )
    ]
    last = board.moves[-1].point
    return sorted(found, key=lambda p: (max(abs(p.x - last.x), abs(p.y - last.y)), p.y, p.x))


def _threat(board: Board) -> Point | None:
    for length in (board.win_length, board.win_length - 1):
        found = threats(board, length)
        if found:
            return found[0]
    return None


def focus(board: Board) -> Point:
    """Where the panel opens: a five to make or stop, a four, the last moves, the centre."""
    threat = _threat(board)
    if threat is not None:
        return threat
    recent = [move.point for move in board.moves[-2:]]
    if not recent:
        return Point(board.width // 2, board.height // 2)
    return Point(
        round(sum(p.x for p in recent) / len(recent)), round(sum(p.y for p in recent) / len(recent))
    )


def panel_window(board: Board, x0: int, y0: int) -> Window:
    """The ``PANEL``-sided window whose lower-left corner is (``x0``, ``y0``), moved inside the
    board (a board smaller than the panel is shown whole)."""
    w, h = min(PANEL, board.width), min(PANEL, board.height)
    x0 = max(0, min(x0, board.width - w))
    y0 = max(0, min(y0, board.height - h))
    return Window(x0, y0, x0 + w - 1, y0 + h - 1)


def centred(board: Board) -> Window:
    """The window around ``focus``; without a threat it always holds the last move."""
    centre = focus(board)
    window = panel_window(board, centre.x - PANEL // 2, centre.y - PANEL // 2)
    last = board.last_move
    if last is None or last.point in window or _threat(board) is not None:
        return window
    # Slide just enough to bring the last move in (the two last moves were far apart).
    x0 = max(last.point.x - (window.x1 - window.x0), min(window.x0, last.point.x))
    y0 = max(last.point.y - (window.y1 - window.y0), min(window.y0, last.point.y))
    return panel_window(board, x0, y0)


def pan(board: Board, window: Window, direction: Pan) -> Window:
    """``window`` moved one step in ``direction`` (or re-centred), kept on the board."""
    if direction is Pan.CENTRE:
        return centred(board)
    dx, dy = {Pan.LEFT: (-STEP, 0), Pan.RIGHT: (STEP, 0), Pan.UP: (0, STEP), Pan.DOWN: (0, -STEP)}[
        direction
    ]
    return panel_window(board, window.x0 + dx, window.y0 + dy)


def can_pan(board: Board, window: Window, direction: Pan) -> bool:
    """Whether the arrow would move the window at all (an arrow at the edge is disabled)."""
    return pan(board, window, direction) != window
