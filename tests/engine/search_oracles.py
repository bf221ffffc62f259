"""Slow, obviously correct searches that the kernels' alpha-beta is checked against."""

from __future__ import annotations

from engine.search import _kernels as k
from engine.search._position import Position


def minimax(position: Position, depth: int, ply: int = 0) -> int:
    """The definition: best score over every candidate, static evaluation at the horizon."""
    side = position.side
    if position.has_five_point(side):
        return k.WIN - ply
    if depth == 0:
        return position.evaluate()
    candidates = [p for p, _ in position.plausible(10_000)]
    if not candidates:
        return 0
    best = -(10**9)
    for point in candidates:
        position.play_index(position.index(point))
        best = max(best, -minimax(position, depth - 1, ply + 1))
        position.undo()
    return best
