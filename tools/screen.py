"""Screen a change to the engine in minutes: an outside judge rates the moves it picks.

    python tools/screen.py run OUT --judge CMD [--cwd DIR] [--judge-ms 300] [--nodes 150000]
        [--engine CMD [--engine-cwd DIR] [--turn-ms 500]] [--plies 5,7,9] [--cache FILE]
        [--jobs 2] [GAMES...]
    python tools/screen.py compare BASE OTHER [OTHER...]

The positions: each match opening (3 stones, White to move), and every game of GAMES (PSQ or
SGF records, as ``tools/judge.py`` reads them) after each of ``--plies`` moves, each position
once. ``run`` picks a move in each, with this project's search at a fixed node budget (so the
moves do not depend on the machine's load; ``GOMOKU_EVAL_WEIGHTS`` picks the values, a copy of
the tree the code), or with a protocol engine (``--engine``, a fresh process for each position,
``--turn-ms`` a move), then asks the judge about the position after the move. It writes one
JSON line per position: the moves before, the move picked and the judge's score for the side
that moved (a forced result as +-``CLIP``; null when the judge said nothing). ``--cache``
keeps the judge's answers in a file, so a second arm asks only about the moves that differ.

``compare`` prints each file's mean winning chance for the side that moved,
sigmoid(score / ``JUDGE_SCALE``), and beside the first file each other's paired difference
over the positions both rated, with its standard error and how many moves were the same.

For scale: master at 16k nodes against itself at 150k, on White's first moves of games
against PentaZen, reads about -1.7 +- 0.4 points; a variant takes about five minutes on a
2-core machine where an A/B of 128 games (``tools/ab.py``) takes twenty-five.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import statistics
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup.match import EngineSpec, parse_engine
from engine.gomocup.openings import openings
from engine.types import Point, Rule
from tools.judge import Judge, JudgeError, add_judge_options, read_games
from tools.tune_eval import CLIP, JUDGE_SCALE

Moves = tuple[tuple[int, int], ...]


def positions(games: Sequence[Path], plies: Sequence[int], size: int, rule: Rule) -> list[Moves]:
    """The match openings, then each game after each of ``plies`` moves (while it goes on
    past them), each position once, in that order."""
    found: dict[Moves, None] = {}
    for opening in openings(size):
        found[tuple((p.x, p.y) for p in opening)] = None
    for game in read_games(list(games), rule):
        for count in plies:
            if count < len(game.moves):
                found[tuple((p.x, p.y) for p in game.moves[:count])] = None
    return list(found)


def _points(moves: Moves) -> list[Point]:
    return [Point(x, y) for x, y in moves]


def our_moves(todo: list[Moves], nodes: int, size: int, rule: Rule) -> list[tuple[int, int]]:
    """This project's full-strength search at ``nodes`` in each position."""
    from engine.search.alphabeta import Limits, search

    picked = []
    for moves in todo:
        board = Board.from_moves(_points(moves), size=size, rule=rule)
        move = search(board, Limits(nodes=nodes)).move
        picked.append((move.x, move.y))
    return picked


def engine_moves(
    todo: list[Moves], spec: EngineSpec, turn_ms: int, size: int, rule: Rule, jobs: int
) -> list[tuple[int, int] | None]:
    """A protocol engine's move in each position, a fresh process each time (some engines
    do not take one ``BOARD`` after another)."""
    picked: list[tuple[int, int] | None] = [None] * len(todo)

    def part(first: int) -> None:
        for i in range(first, len(todo), jobs):
            try:
                with Judge(spec, turn_ms=turn_ms, size=size, rule=rule) as engine:
                    move = engine.ask(_points(todo[i])).move
            except JudgeError as error:
                print(f"position {i}: {error}", file=sys.stderr)
                continue
            picked[i] = None if move is None else (move.x, move.y)

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(part, range(jobs)))
    return picked


def _key(moves: Moves) -> str:
    return " ".join(f"{x},{y}" for x, y in moves)


def judge_after(
    todo: list[Moves],
    spec: EngineSpec,
    turn_ms: int,
    size: int,
    rule: Rule,
    jobs: int,
    cache: Path | None,
) -> dict[str, int | None]:
    """The judge's score for the side that moved last in each of ``todo`` (``CLIP`` for a
    forced win, None when it gave no evaluation), from ``cache`` where it has them."""
    known: dict[str, int | None] = {}
    if cache is not None and cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            known[row["m"]] = row["score"]
    ask = [moves for moves in dict.fromkeys(todo) if _key(moves) not in known]
    lock = threading.Lock()
    saved = None if cache is None else cache.open("a", encoding="utf-8")

    def part(first: int) -> None:
        with Judge(spec, turn_ms=turn_ms, size=size, rule=rule) as judge:
            for moves in ask[first::jobs]:
                try:
                    value = judge.ask(_points(moves)).eval
                except JudgeError as error:
                    print(f"{_key(moves)}: {error}", file=sys.stderr)
                    continue
                score = None
                if value is not None:  # the judge speaks for the side to move: negate
                    score = value.negated().clipped(CLIP)
                with lock:
                    known[_key(moves)] = score
                    if saved is not None:
                        saved.write(json.dumps({"m": _key(moves), "score": score}) + "\n")
                        saved.flush()  # a stopped run keeps what it was told

    try:
        if ask:
            with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
                list(pool.map(part, range(jobs)))
    finally:
        if saved is not None:
            saved.close()
    return known


def chance(score: int) -> float:
    """The judge's winning chance for a score, as ``tools/tune_eval.py`` labels it."""
    return 1 / (1 + math.exp(-max(-CLIP, min(CLIP, score)) / JUDGE_SCALE))


@dataclass(frozen=True, slots=True)
class Rated:
    """One line of a ``run`` file."""

    moves: str  # the position, as "x,y x,y ..." from Black's first move
    move: str  # the move picked there, "x,y"
    score: int | None  # the judge's score for the side that moved, after it


def read(path: Path) -> dict[str, Rated]:
    """A ``run`` file's rows by position."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {row["moves"]: Rated(row["moves"], row["move"], row["score"]) for row in rows}


def compare(paths: Sequence[Path]) -> list[str]:
    """Each file's mean winning chance, and each other file's paired difference from the
    first (points of winning chance, standard error, same moves)."""
    files = [read(path) for path in paths]
    lines = []
    for path, rows in zip(paths, files, strict=True):
        rated = [chance(row.score) for row in rows.values() if row.score is not None]
        mean = 100 * statistics.fmean(rated) if rated else float("nan")
        lines.append(f"{path}: {len(rated)} positions rated, mean winning chance {mean:.2f}%")
    base = files[0]
    for path, rows in zip(paths[1:], files[1:], strict=True):
        pairs: list[tuple[int, int, bool]] = []
        for key, first in base.items():
            other = rows.get(key)
            if other is not None and first.score is not None and other.score is not None:
                pairs.append((first.score, other.score, first.move == other.move))
        if len(pairs) < 2:
            lines.append(f"{path} - {paths[0]}: fewer than 2 positions rated by both")
            continue
        diffs = [100 * (chance(after) - chance(before)) for before, after, _ in pairs]
        same = sum(alike for _, _, alike in pairs)
        error = statistics.stdev(diffs) / math.sqrt(len(diffs))
        lines.append(
            f"{path} - {paths[0]}: {statistics.fmean(diffs):+.2f} +- {error:.2f} points over "
            f"{len(pairs)} positions; same move in {same}"
        )
    return lines


def run(options: argparse.Namespace) -> int:
    """Pick a move in every position and have the judge rate it; write OUT."""
    rule = Rule(options.rule)
    plies = [int(part) for part in options.plies.split(",") if part]
    todo = positions(options.games, plies, options.size, rule)
    print(f"{len(todo)} positions", flush=True)
    if options.engine:
        spec = parse_engine(options.engine, label="engine")
        spec = EngineSpec(spec.label, spec.argv, options.engine_cwd)
        picked: Sequence[tuple[int, int] | None] = engine_moves(
            todo, spec, options.turn_ms, options.size, rule, options.jobs
        )
    else:
        picked = our_moves(todo, options.nodes, options.size, rule)
    after = [(*moves, move) for moves, move in zip(todo, picked, strict=True) if move is not None]
    judge = parse_engine(options.judge, label="judge")
    judge = EngineSpec(judge.label, judge.argv, options.cwd)
    scores = judge_after(
        after, judge, options.judge_ms, options.size, rule, options.jobs, options.cache
    )
    with options.out.open("w", encoding="utf-8") as out:
        for moves, move in zip(todo, picked, strict=True):
            if move is None:
                continue
            score = scores.get(_key((*moves, move)))
            out.write(json.dumps({"moves": _key(moves), "move": _key((move,)), "score": score}))
            out.write("\n")
    print("\n".join(compare([options.out])))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``run`` or ``compare``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python tools/screen.py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="pick a move in every position and have the judge rate it")
    p.add_argument("out", type=Path)
    p.add_argument("games", nargs="*", type=Path, help="PSQ/SGF files or folders")
    add_judge_options(p, time_ms=300, flag="--judge-ms")
    p.add_argument("--nodes", type=int, default=150_000, help="this project's search budget")
    p.add_argument("--engine", help="a protocol engine's command line, instead of ours")
    p.add_argument("--engine-cwd", help="the engine's working directory")
    p.add_argument("--turn-ms", type=int, default=500, help="the engine's time a move")
    p.add_argument("--plies", default="5,7,9", help="positions after these many moves")
    p.add_argument("--cache", type=Path, help="keep the judge's answers in this file")
    p.add_argument("--jobs", type=int, default=2, help="judges (engines) at the same time")
    p.add_argument("--size", type=int, default=15)
    p.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    p = sub.add_parser("compare", help="mean winning chances and paired differences")
    p.add_argument("files", nargs="+", type=Path)
    options = parser.parse_args(argv)
    if options.command == "compare":
        print("\n".join(compare(options.files)))
        return 0
    return run(options)


if __name__ == "__main__":
    raise SystemExit(main())
