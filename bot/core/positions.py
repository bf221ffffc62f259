"""Facts about a position that several readers want: the renju points forbidden to Black.

The service's ``/place`` suggestions and every renderer (emoji, PNG, the tap panel) ask about
the same few positions again and again; the engine works each answer out in pure Python.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

from engine.board import Board
from engine.types import Point, Rule

__all__ = ["forbidden_points"]

_FORBIDDEN_CACHE: Final = 1024  # renju positions whose forbidden points are kept

_forbidden: OrderedDict[tuple[int, int, int], frozenset[Point]] = OrderedDict()
_forbidden_lock = threading.Lock()  # the PNG renderer asks from worker threads


def forbidden_points(board: Board) -> frozenset[Point]:
    """The renju points forbidden to Black in this position (empty for other rules), worked
    out once per position: every render and every ``/place`` suggestion of one position asks,
    and the engine takes milliseconds of pure Python for it.

    Positions are told apart by size and Zobrist key (stones and side to move), so a board
    that gets a move, an undo or a copy gets its own answer.
    """
    if board.rule is not Rule.RENJU:
        return frozenset()
    key = (board.width, board.height, board.key)
    with _forbidden_lock:
        found = _forbidden.get(key)
        if found is not None:
            _forbidden.move_to_end(key)
            return found
    found = frozenset(board.forbidden_points())
    with _forbidden_lock:
        _forbidden[key] = found
        while len(_forbidden) > _FORBIDDEN_CACHE:
            _forbidden.popitem(last=False)
    return found
