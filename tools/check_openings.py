"""Score every match opening with the engine's own search, to keep the set balanced.

    python tools/check_openings.py [--depth 6] [--size 15] [--rule freestyle]

Prints each opening with the search's score for the side to move (positive: that side is
better) and the move it would play. An opening whose score is a forced win (``WIN`` range)
or far from 0 gives the match a foregone pair of games and should be replaced.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup.openings import OPENINGS, openings
from engine.search.alphabeta import Limits, is_win_score, search
from engine.types import Rule


def main() -> int:
    """Print one line per opening."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--nodes", type=int)
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    options = parser.parse_args()
    for text, moves in zip(OPENINGS, openings(options.size), strict=False):
        board = Board.from_moves(moves, size=options.size, rule=Rule(options.rule))
        result = search(board, Limits(depth=options.depth, nodes=options.nodes))
        flag = " FORCED" if is_win_score(result.score) else ""
        print(
            f"{text:<24} {board.to_move.value:<5} to move: score {result.score:+6d}{flag}"
            f"  best {result.move}  depth {result.depth}  nodes {result.nodes}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
