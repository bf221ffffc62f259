"""``python -m engine bench``: fixed positions searched to a fixed depth.

The total node count is deterministic, a regression signal pinned by a test (rapfi's bench
signature); nodes per second is the speed figure. Change the count on purpose only.

``--games FILE --nodes N`` measures speed where games are played instead: every position from
the fifth stone of recorded freestyle games (a ``tools/datagen.py`` shard's ``.npz``: ``moves``
as ``y * 15 + x`` and ``lengths``), in order, each searched to ``N`` nodes with the
transposition table kept from one search to the next, as the protocol brain keeps it.

``--pns N`` measures the proof-number search alone: in the 8 defences and the first 115 hard
defences of the tactical suite (``python -m engine tactics``; a fixed set, so that its figures
compare as the suite grows), with the suite's answer played, the attacker's win by fours and
threes searched within ``N`` nodes from a fresh table, the question the check of master's move
asks. Its node total and results are deterministic as well.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.board import Board
from engine.gomocup.tactics import DEFENCES, HARD_DEFENCES, after_answer
from engine.search.alphabeta import Limits, SearchOptions, forget_tables, search, threat_proof
from engine.types import Point, Rule

__all__ = [
    "POSITIONS",
    "BenchLine",
    "GamesBench",
    "PnsLine",
    "bench",
    "bench_games",
    "bench_pns",
    "main",
]

DEFAULT_DEPTH = 7

# (rule, moves): openings and middle games of 15x15 Gomoku, both sides to move
POSITIONS: tuple[tuple[Rule, str], ...] = (
    (Rule.FREESTYLE, "h8 i9 h9 i10 h10 h11"),
    (Rule.FREESTYLE, "h8 i9 j8 i8 i7 j6 h7"),
    (Rule.FREESTYLE, "h8 h9 i8 i9 g8 j8 g9 g7 f10 e11 i10"),
    (Rule.FREESTYLE, "h8 j9 i10 j10 j11 k12 h9 h10 i9 g9 i8 i7 k10"),
    (Rule.FREESTYLE, "h8 g9 i7 g7 g8 i9 f8 e8"),
    (Rule.FREESTYLE, "h8 h9 j8 i9 g9 f10 i7"),
    (Rule.STANDARD, "h8 i9 i8 g8 j7 k6 j9 j8"),
    (Rule.RENJU, "h8 i9 j10 h9 h10 i10 i11 g9"),
    (Rule.RENJU, "h8 h9 i9 g7 j10 k11 i10 i8 j8"),
    (Rule.CARO, "h8 g9 i9 j10 i8 i7 j8 k8 h7"),
)


@dataclass(frozen=True, slots=True)
class BenchLine:
    """One position's result."""

    rule: Rule  # the rule it was searched under
    moves: str  # the position as a move list
    move: str  # the move found
    score: int  # its score
    nodes: int  # nodes searched
    time_ms: float  # wall-clock time
    cpu_ms: float  # CPU time of this process (steadier than wall time on a shared machine)
    depth: int = 0  # the deepest iteration completed (0: answered before the main search)


def bench(depth: int = DEFAULT_DEPTH, nodes: int | None = None) -> list[BenchLine]:
    """Search every bench position to ``depth`` plies, or to about ``nodes`` nodes where given
    (then the depth each reaches is the figure: how deep a setting searches for the same work)."""
    limits = Limits(depth=depth) if nodes is None else Limits(nodes=nodes)
    lines = []
    for rule, moves in POSITIONS:
        board = Board.from_moves(moves, rule=rule)
        cpu = time.process_time()
        result = search(board, limits)
        cpu_ms = (time.process_time() - cpu) * 1000
        lines.append(
            BenchLine(
                rule,
                moves,
                str(result.move),
                result.score,
                result.nodes,
                result.time_ms,
                cpu_ms,
                result.depth,
            )
        )
    return lines


@dataclass(frozen=True, slots=True)
class GamesBench:
    """The totals of ``bench_games``."""

    searches: int
    nodes: int
    depth: int  # the completed iterations' depths, summed
    cpu_ms: float  # CPU time of this process in the searches
    # of ``nodes``: those before the main searches (the threat searches at the root), those the
    # leaves' VCF probes played, and the moves into the leaves (SearchResult's counts)
    before: int = 0
    probes: int = 0
    leaves: int = 0


GAMES_SIZE = 15  # the recorded games' board
FIRST_STONES = 4  # positions from the fifth stone on: the three-stone openings are booked


def bench_games(path: Path, games: int, nodes: int, every: int = 8) -> GamesBench:
    """Search the positions of every ``every``-th recorded game of ``path``, ``games`` games in
    all, each position to ``nodes`` nodes with the table kept from the first search on (see
    the module's text): the same totals on every run."""
    with np.load(path) as data:
        moves = data["moves"].astype(np.int64)
        lengths = data["lengths"].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    options = SearchOptions(keep_tt=True)
    forget_tables()  # the first search starts with empty tables, as in a fresh process
    searches = total = depth = before = probes = leaves = 0
    cpu_ms = 0.0
    for index in range(0, min(games * every, len(lengths)), every):
        line = [int(m) for m in moves[starts[index] : starts[index + 1]]]
        points = [Point(m % GAMES_SIZE, m // GAMES_SIZE) for m in line]
        for ply in range(FIRST_STONES, len(points) - 1):
            board = Board.from_moves(points[:ply], size=GAMES_SIZE, rule=Rule.FREESTYLE)
            if board.outcome is not None:
                break
            cpu = time.process_time()
            result = search(board, Limits(nodes=nodes), options)
            cpu_ms += (time.process_time() - cpu) * 1000
            searches += 1
            total += result.nodes
            depth += result.depth
            before += result.before_nodes
            probes += result.probe_nodes
            leaves += result.leaf_nodes
    return GamesBench(searches, total, depth, cpu_ms, before, probes, leaves)


@dataclass(frozen=True, slots=True)
class PnsLine:
    """One defence's proof."""

    name: str  # the suite's name for it: defence2, hard40
    found: int  # 1 the answer proved lost, 0 proved to hold against threats, -1 not known
    nodes: int
    cpu_ms: float


PNS_HARD = 115  # the hard defences the proof-number bench searches: the suite's first ones


def bench_pns(nodes: int) -> list[PnsLine]:
    """The proof-number search in the suite's defences (see the module's text)."""
    lines = []
    for group, puzzles in (("defence", DEFENCES), ("hard", HARD_DEFENCES[:PNS_HARD])):
        for i, puzzle in enumerate(puzzles):
            board = after_answer(puzzle)
            cpu = time.process_time()
            found, used = threat_proof(board, nodes)
            cpu_ms = (time.process_time() - cpu) * 1000
            lines.append(PnsLine(f"{group}{i}", found, used, cpu_ms))
    return lines


def _print_pns(nodes: int) -> None:
    lines = bench_pns(nodes)
    for line in lines:
        result = {1: "lost", 0: "holds", -1: "not known"}[line.found]
        print(f"{line.name:10} {result:9} nodes {line.nodes:9} cpu {line.cpu_ms:8.1f} ms")
    total = sum(line.nodes for line in lines)
    cpu_ms = sum(line.cpu_ms for line in lines)
    counts = [sum(line.found == found for line in lines) for found in (1, 0, -1)]
    print(f"Positions: {len(lines)} (lost {counts[0]}, holds {counts[1]}, not known {counts[2]})")
    print(f"Total nodes: {total}")
    print(f"Nodes/second (CPU time): {total * 1000 / max(cpu_ms, 1e-9):.0f}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bench and print one line per position, then the totals."""
    parser = argparse.ArgumentParser(prog="python -m engine bench", description=__doc__)
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="plies per position")
    parser.add_argument(
        "--nodes",
        type=int,
        help="search each position to about this many nodes instead, and total the depths",
    )
    parser.add_argument(
        "--games",
        type=Path,
        help="a shard's .npz of recorded games: search their positions instead (with --nodes)",
    )
    parser.add_argument("--count", type=int, default=8, help="--games: how many games")
    parser.add_argument(
        "--pns",
        type=int,
        metavar="N",
        help="time the proof-number search instead: the tactical suite's defences (its first "
        "123), N nodes each",
    )
    args = parser.parse_args(argv)
    if args.pns is not None:
        if args.pns < 1:
            parser.error("--pns must be at least 1")
        from engine.search.levels import warm_up

        warm_up()  # the proof-number search's kernel too, before the first clock starts
        _print_pns(args.pns)
        return 0
    if args.nodes is not None and args.nodes < 1:
        parser.error("--nodes must be at least 1")
    if args.games is not None:
        if args.nodes is None:
            parser.error("--games needs --nodes")
        if not args.games.is_file():
            parser.error(f"no such file: {args.games}")
        search(Board.from_moves("h8 i9", rule=Rule.FREESTYLE), Limits(depth=1))  # warm
        try:
            games = bench_games(args.games, args.count, args.nodes)
        except (OSError, KeyError, ValueError) as error:
            parser.error(f"{args.games} holds no recorded games ({type(error).__name__})")
        print(f"Searches: {games.searches}")
        print(f"Total nodes: {games.nodes}")
        print(f"Total depth: {games.depth}")
        print(f"Nodes/second (CPU time): {games.nodes * 1000 / max(games.cpu_ms, 1e-9):.0f}")
        share = 100 / max(games.nodes, 1)
        print(f"Before the main search: {games.before * share:.1f}% of the nodes")
        print(f"In the leaves' VCF probes: {games.probes * share:.1f}%")
        print(f"Moves into the leaves: {games.leaves * share:.1f}%")
        return 0
    start = time.perf_counter()
    warm = Board.from_moves("h8 i9", rule=Rule.FREESTYLE)
    search(warm, Limits(depth=1))  # load the compiled kernels before timing anything
    for rule in Rule:
        search(Board.from_moves("h8 i9", rule=rule), Limits(depth=1))
    warmup_ms = (time.perf_counter() - start) * 1000
    lines = bench(args.depth, args.nodes)
    total_nodes = sum(line.nodes for line in lines)
    total_ms = sum(line.time_ms for line in lines)
    cpu_ms = sum(line.cpu_ms for line in lines)
    for line in lines:
        print(
            f"{line.rule.value:9} {line.moves:48} -> {line.move:4} score {line.score:6} "
            f"nodes {line.nodes:9} depth {line.depth:2} time {line.time_ms:8.1f} ms"
        )
    print(f"warm-up (load kernels, build tables): {warmup_ms:.0f} ms")
    print(f"Total nodes: {total_nodes}")
    if args.nodes is not None:
        print(f"Total depth: {sum(line.depth for line in lines)}")
    print(f"Total time: {total_ms:.0f} ms")
    print(f"Nodes/second: {total_nodes * 1000 / max(total_ms, 1e-9):.0f}")
    print(f"Nodes/second (CPU time): {total_nodes * 1000 / max(cpu_ms, 1e-9):.0f}")
    return 0
