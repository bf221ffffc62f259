"""Score the match openings with the engine's own search, or choose a new balanced set.

    python tools/check_openings.py [--depth 6] [--size 15] [--rule freestyle]
    python tools/check_openings.py --choose 64 --depths 9,10 --jobs 16

The first form prints each opening of ``engine.gomocup.openings`` with the search's score for
the side to move (positive: that side is better) and the move it would play. An opening whose
score is a forced win (``WIN`` range) or far from 0 gives the match a foregone pair of games
and should be replaced.

``--choose N`` scores every three-stone opening (Black in the centre, White within
``--white-radius`` points of it, Black's second stone within ``--black-radius``), one of each
8 symmetric copies, at each of ``--depths`` (one odd and one even depth, because the score of
the side to move swings between them), and prints the N whose largest score is closest to 0,
as lines for ``OPENINGS``. The search is deterministic, so the same command chooses the same
set.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup.openings import OPENINGS, offsets, openings
from engine.search.alphabeta import Limits, is_win_score, search
from engine.types import Point, Rule

Offsets = tuple[tuple[int, int], ...]


def _turned(x: int, y: int, symmetry: int) -> tuple[int, int]:
    # the 8 rotations and reflections of the board about its centre
    if symmetry & 4:
        x, y = y, x
    if symmetry & 2:
        x = -x
    if symmetry & 1:
        y = -y
    return x, y


def turned(stones: Offsets, symmetry: int) -> Offsets:
    """``stones`` turned by one of the 8 symmetries (0: as they are)."""
    return tuple(_turned(x, y, symmetry) for x, y in stones)


def canonical(stones: Offsets) -> Offsets:
    """One opening of each class of 8 symmetric copies (the least of them)."""
    return min(turned(stones, k) for k in range(8))


def candidates(white_radius: int, black_radius: int) -> list[Offsets]:
    """Every opening Black (0,0), White, Black within the radii, one per symmetry class."""
    seen: set[Offsets] = set()
    found: list[Offsets] = []
    for wx in range(-white_radius, white_radius + 1):
        for wy in range(-white_radius, white_radius + 1):
            for bx in range(-black_radius, black_radius + 1):
                for by in range(-black_radius, black_radius + 1):
                    if (wx, wy) == (0, 0) or (bx, by) in ((0, 0), (wx, wy)):
                        continue
                    first = canonical(((0, 0), (wx, wy), (bx, by)))
                    if first not in seen:
                        seen.add(first)
                        found.append(first)
    return sorted(found)


def unused(white_radius: int = 2, black_radius: int = 4) -> list[Offsets]:
    """The candidates that are not (up to symmetry) one of the match openings: positions to
    learn from that a match against the openings does not replay."""
    used = {canonical(tuple(offsets(text))) for text in OPENINGS}
    return [stones for stones in candidates(white_radius, black_radius) if stones not in used]


def _board(stones: Offsets, size: int, rule: Rule) -> Board:
    centre = size // 2
    return Board.from_moves(
        [Point(centre + dx, centre + dy) for dx, dy in stones], size=size, rule=rule
    )


def _scores(job: tuple[Offsets, tuple[int, ...], int, str]) -> tuple[Offsets, list[int]]:
    stones, depths, size, rule = job
    board = _board(stones, size, Rule(rule))
    return stones, [search(board, Limits(depth=depth)).score for depth in depths]


def choose(options: argparse.Namespace) -> int:
    """Score every candidate and print the most balanced ``options.choose`` of them."""
    depths = tuple(int(depth) for depth in options.depths.split(","))
    pool = candidates(options.white_radius, options.black_radius)
    print(f"# {len(pool)} openings up to symmetry, depths {depths}", flush=True)
    jobs = [(stones, depths, options.size, options.rule) for stones in pool]
    scored: list[tuple[int, Offsets, list[int]]] = []
    with ProcessPoolExecutor(options.jobs) as executor:
        for stones, values in executor.map(_scores, jobs):
            text = " ".join(f"{dx},{dy}" for dx, dy in stones)
            print(f"# {text:<24} {' '.join(f'{v:+6d}' for v in values)}", flush=True)
            if not any(is_win_score(value) for value in values):
                scored.append((max(abs(value) for value in values), stones, values))
    scored.sort()
    for worst, stones, values in scored[: options.choose]:
        text = " ".join(f"{dx},{dy}" for dx, dy in stones)
        print(f'    "{text}",  # {" ".join(f"{v:+d}" for v in values)} (max {worst})')
    return 0


def main() -> int:
    """Print one line per opening, or choose a new set with ``--choose``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--nodes", type=int)
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    parser.add_argument("--choose", type=int, help="choose this many balanced openings")
    parser.add_argument("--depths", default="9,10", help="search depths for --choose")
    parser.add_argument("--white-radius", type=int, default=2)
    parser.add_argument("--black-radius", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2, help="searches at the same time")
    options = parser.parse_args()
    if options.choose:
        return choose(options)
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
