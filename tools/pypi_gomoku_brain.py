"""Gomocup protocol adapter for third-party Python alpha-beta Gomoku AIs from PyPI.

Their code is not part of this repository: install a package into a folder of its own and
point ``--path`` at it (they ship generic top-level names such as ``libs`` and ``gomoku``,
which must not land in the project's environment)::

    pip install --no-deps --target /tmp/ext/site-gomokubench gomokubench
    pip install --no-deps --target /tmp/ext/site-gomoku-terminal gomoku-terminal

    python -m engine match "python tools/pypi_gomoku_brain.py --ai gomokubench:hard \\
        --path /tmp/ext/site-gomokubench" "python -m engine.pbrain" --turn-ms 500 ...

AIs (both play fixed-depth alpha-beta and ignore the time limit; the match tool's grace
period decides whether they are late):

* ``gomokubench:LEVEL`` (PyPI ``gomokubench``, ``libs.ai.get_best_move``): minimax with
  alpha-beta over the neighbours of stones, LEVEL easy (depth 1) / standard (2) / hard (3).
* ``gomoku-terminal:LEVEL`` (PyPI ``gomoku-terminal``, ``gomoku.ai.GomokuAI``): win/block
  checks then minimax with alpha-beta over 15-20 candidates, LEVEL easy / medium / hard.

The protocol side is ours (``engine.gomocup.protocol.Brain``), so the adapter inherits its checks:
a move the AI proposes that is not legal is replaced by a safe legal one (and reported in a
MESSAGE line, which the match log keeps).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup.pbrain import run
from engine.gomocup.protocol import Brain, MoveLimits, Thought
from engine.types import Color, Point


def gomokubench(level: str, seed: int) -> Callable[[Board, MoveLimits], Thought]:
    """``gomokubench``'s AI at ``level``."""
    import numpy as np
    from libs import piece  # type: ignore[import-not-found]
    from libs.ai import AI_LEVELS, get_best_move  # type: ignore[import-not-found]
    from libs.board import BoardState  # type: ignore[import-not-found]

    settings = AI_LEVELS[level]

    def think(board: Board, limits: MoveLimits) -> Thought:
        np.random.seed(seed + len(board))
        size = board.size
        values = np.full((size, size), piece.EMPTY)
        for color, stone in ((Color.BLACK, piece.BLACK), (Color.WHITE, piece.WHITE)):
            for point in board.stones(color):
                values[size - 1 - point.y, point.x] = stone
        black_to_move = board.to_move is Color.BLACK
        # Its state remembers the colour that moved last.
        state = BoardState(size, values=values, color=piece.WHITE if black_to_move else piece.BLACK)
        started = time.monotonic()
        answer: Any = get_best_move(
            state,
            settings["depth"],
            black_to_move,
            candidate_count=settings["candidate_count"],
            random_top_n=settings["random_top_n"],
        )
        row, column = (int(value) for value in answer[0])
        score = answer[1] if isinstance(answer[1], int | float) else 0
        return Thought(
            Point(column, size - 1 - row),
            score=int(score if black_to_move else -score),
            depth=settings["depth"],
            time_ms=(time.monotonic() - started) * 1000,
        )

    return think


def gomoku_terminal(level: str, seed: int) -> Callable[[Board, MoveLimits], Thought]:
    """``gomoku-terminal``'s AI at ``level``."""
    from gomoku.ai import GomokuAI  # type: ignore[import-not-found]
    from gomoku.board import Board as TerminalBoard  # type: ignore[import-not-found]

    ai = GomokuAI(level)

    def think(board: Board, limits: MoveLimits) -> Thought:
        random.seed(seed + len(board))
        size = board.size
        grid = TerminalBoard()
        grid.SIZE = size
        grid.board = [[grid.EMPTY] * size for _ in range(size)]
        for color, stone in ((Color.BLACK, grid.BLACK), (Color.WHITE, grid.WHITE)):
            for point in board.stones(color):
                grid.board[size - 1 - point.y][point.x] = stone
        grid.move_count = len(board)
        me = grid.BLACK if board.to_move is Color.BLACK else grid.WHITE
        started = time.monotonic()
        move = ai.get_move(grid, me)
        elapsed = (time.monotonic() - started) * 1000
        if move is None:
            return Thought(Point(-1, -1), time_ms=elapsed)  # the brain substitutes a move
        row, column = move
        return Thought(Point(column, size - 1 - row), time_ms=elapsed)

    return think


BACKENDS = {"gomokubench": gomokubench, "gomoku-terminal": gomoku_terminal}


def main() -> int:
    """Run the adapter on stdin/stdout."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--ai", required=True, help="gomokubench:LEVEL or gomoku-terminal:LEVEL")
    parser.add_argument("--path", required=True, help="folder the package was installed into")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    sys.path.insert(0, options.path)
    backend, _, level = options.ai.partition(":")
    searcher = BACKENDS[backend](level, options.seed)
    about = f'name="{options.ai}", version="pypi", author="third party", country="-"'
    run(Brain(searcher, about=about), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
