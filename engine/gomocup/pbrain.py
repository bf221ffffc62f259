"""``python -m engine.pbrain``: the engine as a Gomocup protocol brain over stdin/stdout.

Full strength by default (``engine.search.alphabeta.search`` with the time the manager allows);
``--level NAME`` plays one of the bot's levels (``engine.search.levels.choose_move``) instead, which
is how ``python -m engine match level:easy level:medium`` runs the ladder. ``--depth`` and
``--nodes`` fix the search limits so that games repeat exactly. The protocol itself lives in
``engine.gomocup.protocol``; this module only wires the search to it and owns the pipes.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from engine.board import Board
from engine.gomocup.protocol import Brain, MoveLimits, Opener, Searcher, Thought
from engine.opening_rules import Opening
from engine.settings import setting
from engine.types import Point

__all__ = [
    "level_opener",
    "level_searcher",
    "main",
    "position_seed",
    "run",
    "strongest_searcher",
    "warm_up_for",
]

WARM_UP_DEPTH = 2  # enough to load every compiled kernel before the first real move
WARM_UP_MOVES = "h8 i9 h9 i8"  # not an empty board: that one may be answered from a book

# 1: after a move chosen before the main search (the book, a forced answer), master searches
# the position it leaves with what is left of the turn (at least _REST_LEAST_MS, or a tenth of
# a node limit), for the table the next move's search starts from (0, the default: it answers
# at once). Off: against Rapfi 0.43.02 classical at 200,000 nodes, master at 320,000 with the
# clock's soft limit (GOMOKU_SOFT_NODES), -0.3 +- 1.7 points a game over three sets of 64
# openings (docs/engine.md, "The rest of a quick move's turn")
_REST = setting("GOMOKU_REST", 0, most=1)
_REST_LEAST_MS = 50


def strongest_searcher() -> Searcher:
    """Full-strength search within the limits the manager allows, after the opening book
    (``engine.search.book``; ``GOMOKU_BOOK=off`` turns it off)."""
    from engine.search.alphabeta import Limits, SearchOptions, is_win_score, search
    from engine.search.book import book_move

    # the transposition table carries over from move to move (and game to game: its keys
    # are whole positions)
    options = SearchOptions(keep_tt=True)

    def think(board: Board, limits: MoveLimits) -> Thought:
        began = time.perf_counter()
        known = book_move(board)
        if known is not None:
            _use_the_rest(board, known.move, limits, began, 0)
            return Thought(known.move, known.score)
        result = search(
            board,
            Limits(
                depth=limits.depth,
                nodes=limits.nodes,
                time_ms=limits.time_ms,
                memory_bytes=limits.memory_bytes,
            ),
            options,
        )
        if result.depth == 0 and not is_win_score(abs(result.score)):
            _use_the_rest(board, result.move, limits, began, result.nodes)
        return Thought(result.move, result.score, result.depth, result.nodes, result.time_ms)

    def _use_the_rest(
        board: Board, move: Point, limits: MoveLimits, began: float, used: int
    ) -> None:
        # A move chosen before the main search (the book, a forced answer) leaves most of the
        # turn unused, and where the turn's limit binds that time is lost: searching the
        # position the move leaves, the opponent to move, fills the kept table for the next
        # move's search.
        if not _REST or not limits.turn_bound:
            return
        rest_ms = None
        if limits.time_ms is not None:
            rest_ms = limits.time_ms - int((time.perf_counter() - began) * 1000)
            if rest_ms < _REST_LEAST_MS:
                return
        rest_nodes = None
        if limits.nodes is not None:
            rest_nodes = limits.nodes - used
            if rest_nodes < limits.nodes // 10:
                return
        after = board.copy()
        after.play(move)
        if after.outcome is not None or after.is_full():
            return
        search(
            after,
            Limits(nodes=rest_nodes, time_ms=rest_ms, memory_bytes=limits.memory_bytes),
            options,
        )

    return think


def position_seed(seed: int, board: Board) -> int:
    """The seed for one move: fixed by the game's seed and the position, so games repeat."""
    return (seed * 1_000_003 + board.key) % 2**63


def level_searcher(level: str, seed: int) -> Searcher:
    """One of the bot's levels: its own depth, node and noise presets, and its own time cap
    or the manager's turn time, whichever is shorter.

    Raises:
        ValueError: for a name that is not a level.
    """
    from engine.search.levels import Level, choose_move

    chosen = Level(level)

    def think(board: Board, limits: MoveLimits) -> Thought:
        result = choose_move(board, chosen, position_seed(seed, board), time_ms=limits.time_ms)
        return Thought(result.move, result.score, result.depth, result.nodes, result.time_ms)

    return think


def level_opener(level: str, seed: int) -> Opener:
    """The AI's opening steps (SWAP2BOARD) at ``level`` (master for full strength), within
    the manager's turn time.

    Raises:
        ValueError: for a name that is not a level.
    """
    from engine.search.opening_ai import opening_step
    from engine.types import Level

    chosen = Level(level)

    def step(opening: Opening, limits: MoveLimits) -> str:
        return opening_step(
            opening, chosen, position_seed(seed, opening.board), time_ms=limits.time_ms
        )

    return step


def warm_up_for(searcher: Searcher) -> Callable[[], None]:
    """Load every compiled kernel and pattern table, then let ``searcher`` think once.

    Compiling (or loading the on-disk cache of) the numba kernels takes from a second to a
    minute; paid at START it does not count against the first move.
    """

    def warm_up() -> None:
        from engine.search.levels import warm_up as load_kernels

        load_kernels()
        searcher(Board.from_moves(WARM_UP_MOVES), MoveLimits(depth=WARM_UP_DEPTH, time_ms=2000))

    return warm_up


def run(
    brain: Brain, stdin: TextIO, stdout: TextIO, warm_up: Callable[[], None] | None = None
) -> None:
    """Answer the manager line by line until END or the end of input; ``warm_up`` runs
    before the first START is answered."""
    warmed = warm_up is None
    while not brain.finished:
        line = stdin.readline()
        if not line:
            return
        if not warmed and line.strip().upper().startswith(("START", "RECTSTART")):
            # Load the compiled search before answering OK, so the first move keeps its time.
            warmed = True
            try:
                if warm_up is not None:
                    warm_up()
            except Exception as error:  # the first move will report the real failure
                stdout.write(f"MESSAGE warm-up failed: {type(error).__name__}\n")
                stdout.flush()
        for answer in brain.handle(line):
            stdout.write(answer + "\n")
            stdout.flush()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine.pbrain", description="Gomocup protocol brain on stdin/stdout."
    )
    parser.add_argument("--level", help="play as this level (beginner ... master)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the level's noise")
    parser.add_argument("--depth", type=int, help="fixed search depth (full strength only)")
    parser.add_argument("--nodes", type=int, help="fixed node limit (full strength only)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the brain; returns the process exit status."""
    options = _parser().parse_args(argv)
    if options.level is not None:
        try:
            searcher = level_searcher(options.level, options.seed)
        except ValueError:
            sys.stderr.write(f"unknown level {options.level!r}\n")
            return 2
    else:
        searcher = strongest_searcher()
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")
    opener = level_opener(options.level or "master", options.seed)
    brain = Brain(searcher, max_depth=options.depth, max_nodes=options.nodes, opener=opener)
    run(brain, sys.stdin, sys.stdout, warm_up=warm_up_for(searcher))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
