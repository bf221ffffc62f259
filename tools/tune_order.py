"""Fit a move-ordering policy to an outside judge's moves, and measure it against the search's.

    python tools/tune_order.py gather OUT --judge CMD [--cwd DIR] [--turn-ms 80]
        [--per-game 8] [--from-opening 32] [--jobs 2] [--seed 12] GAMES...
    python tools/tune_order.py fit DATA... [--ridge 3e-5] [--holdout 0.2] [--steps 3000]
        [--out FILE --scale 300]

``gather`` picks ``--per-game`` random positions from each game of GAMES (PSQ or SGF records,
as ``tools/judge.py`` reads them), each position once, and appends the judge's move in each to
OUT as a JSON line (``{"m": [[x, y], ...], "b": [x, y]}``); a stopped run goes on where it
stopped. Games from a match opening numbered below ``--from-opening`` are left out, so that
A/B matches on those openings (``tools/ab.py``'s first two rounds) play positions the fit never
saw.

``fit`` scores each candidate point of a position (an empty point within two of a stone, the
search's candidates) as the sum of three tables: the pair of threat classes a stone there would
make for the side to move and for the opponent; per line through the point, the pair of
patterns (own, opponent's); and the distances to the last two stones (Chebyshev, up to 5, and
whether on a line with it). The tables are fitted by softmax regression (the judge's move
against the others, ridge ``--ridge``). It prints how often the search's hand-set ordering
(``engine/search/_kernels.py``, ``_generate``) and the fitted one put the judge's move first
and within the first 5, 10 and 20, on the fitted positions and on the ``--holdout`` share kept
out of the fit. ``--out`` writes the tables, in units of 1 / ``--scale`` of a logit.

The fitted ordering ranks Rapfi's moves better than the hand-set one (35.6% first against
31.0% on held-out positions), but the search ordered by it plays no better: the judge's move
is already among the search's 20 candidates 95.6% of the time (docs/engine.md).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import random
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup.match import parse_engine
from engine.gomocup.openings import openings
from engine.search import _kernels as k
from engine.search._patterns import NP4, NPAT
from engine.search._position import Position
from engine.types import Color, Point, Rule
from tools.judge import Judge, JudgeError, add_judge_options, read_games

Moves = tuple[tuple[int, int], ...]
TOPS = (1, 5, 10, 20)
NEAR = 10  # distance buckets: (distance up to 5 - 1) * 2 + on a line
TABLES = (("threat", NP4 * NP4), ("line", NPAT * NPAT), ("near", NEAR * NEAR))


def pick_positions(
    games: Sequence[Path], per_game: int, from_opening: int, seed: int, size: int, rule: Rule
) -> list[Moves]:
    """Up to ``per_game`` positions of each game (3 stones or more, the game going on after
    them), each once; games from match openings below ``from_opening`` are left out."""
    rng = random.Random(seed)
    starts = [tuple(opening) for opening in openings(size)]
    found: dict[Moves, None] = {}
    for game in read_games(list(games), rule):
        first = tuple(game.moves[:3])
        if first in starts and starts.index(first) < from_opening:
            continue
        plies = list(range(3, len(game.moves)))
        rng.shuffle(plies)
        for count in plies[:per_game]:
            found[tuple((p.x, p.y) for p in game.moves[:count])] = None
    return list(found)


def gather(options: argparse.Namespace) -> int:
    rule = Rule(options.rule)
    todo = pick_positions(
        options.games, options.per_game, options.from_opening, options.seed, options.size, rule
    )
    out: Path = options.out
    done = set()
    if out.exists():
        done = {tuple(map(tuple, json.loads(line)["m"])) for line in out.read_text().splitlines()}
    ask = [moves for moves in todo if moves not in done]
    print(f"{len(todo)} positions, {len(ask)} to ask", flush=True)
    spec = replace(parse_engine(options.judge), cwd=options.cwd)
    lock = threading.Lock()
    jobs = options.jobs
    saved = out.open("a", encoding="utf-8")

    def part(first: int) -> None:
        with Judge(spec, turn_ms=options.turn_ms, size=options.size, rule=rule) as judge:
            for moves in ask[first::jobs]:
                try:
                    move = judge.ask([Point(x, y) for x, y in moves]).move
                except JudgeError as error:
                    print(f"{moves}: {error}", file=sys.stderr)
                    continue
                if move is None:
                    continue
                row = {"m": [list(p) for p in moves], "b": [move.x, move.y]}
                with lock:
                    saved.write(json.dumps(row) + "\n")
                    saved.flush()  # a stopped run keeps what it was told

    with saved, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(part, range(jobs)))
    return 0


# -- the fit ------------------------------------------------------------------------------


def near_bucket(x: int, y: int, last: tuple[int, int] | None) -> int:
    """The distance bucket of point (x, y) from a stone: (Chebyshev distance up to 5 - 1) * 2,
    plus 1 on a line with it; 8 (5 away, off its lines) when there is none."""
    if last is None:
        return 8
    dx, dy = abs(x - last[0]), abs(y - last[1])
    return (min(max(dx, dy), 5) - 1) * 2 + int(dx == 0 or dy == 0 or dx == dy)


@dataclass(frozen=True, slots=True)
class Candidates:
    """The candidates of many positions, one row each, as indexes into the tables."""

    position: npt.NDArray[np.int64]  # [row] -> its position
    threat: npt.NDArray[np.int64]  # [row] -> own class * NP4 + the opponent's
    line: npt.NDArray[np.int64]  # [row, direction] -> own pattern * NPAT + the opponent's
    near: npt.NDArray[np.int64]  # [row] -> bucket from the last stone * NEAR + from the one before
    hand: npt.NDArray[np.int64]  # [row] -> the search's hand-set ordering key
    target: npt.NDArray[np.int64]  # [position] -> the row of the judge's move
    count: int  # positions


def candidates(rows: Sequence[Mapping[str, Any]], size: int, rule: Rule) -> Candidates:
    """The candidates of each row's position where the judge's move is one of them and
    neither side can make five at once (there the move is forced)."""
    parts: dict[str, list[npt.NDArray[np.int64]]] = {
        key: [] for key in ("position", "threat", "line", "near", "hand")
    }
    target: list[int] = []
    total = 0
    for row in rows:
        moves = [Point(int(x), int(y)) for x, y in row["m"]]
        board = Board.from_moves(moves, size=size, rule=rule)
        if board.outcome is not None:
            continue
        pos = Position.from_board(board)
        me = 0 if pos.side is Color.BLACK else 1
        op = 1 - me
        if pos.has_five_point(Color.BLACK) or pos.has_five_point(Color.WHITE):
            continue
        idx = np.nonzero((pos.b == 0) & (pos.near > 0))[0]
        bx, by = row["b"]
        hit = np.nonzero(idx == pos.index(Point(int(bx), int(by))))[0]
        if len(hit) == 0:
            continue
        own = pos.cell[idx, k.R_CODE + me]
        theirs = pos.cell[idx, k.R_CODE + op]
        threat = pos.tables.threat[me, own].astype(np.int64) * NP4 + pos.tables.threat[op, theirs]
        line = np.stack(
            [
                pos.cell[idx, k.R_PAT + me * 4 + d].astype(np.int64) * NPAT
                + pos.cell[idx, k.R_PAT + op * 4 + d]
                for d in range(4)
            ],
            axis=1,
        )
        score = pos.tables.score
        hand = score[me, own].astype(np.int64) + score[op, theirs].astype(np.int64) * 3 // 4
        points = [pos.point(int(i)) for i in idx]
        last = (moves[-1].x, moves[-1].y)
        before = (moves[-2].x, moves[-2].y) if len(moves) >= 2 else None
        near = np.array(
            [near_bucket(p.x, p.y, last) * NEAR + near_bucket(p.x, p.y, before) for p in points],
            dtype=np.int64,
        )
        parts["position"].append(np.full(len(idx), len(target), dtype=np.int64))
        parts["threat"].append(threat)
        parts["line"].append(line)
        parts["near"].append(near)
        parts["hand"].append(hand)
        target.append(total + int(hit[0]))
        total += len(idx)
    if not target:
        raise ValueError("no position with the judge's move among its candidates")
    return Candidates(
        **{key: np.concatenate(value) for key, value in parts.items()},
        target=np.array(target, dtype=np.int64),
        count=len(target),
    )


def split(c: Candidates, share: float, seed: int) -> tuple[Candidates, Candidates]:
    """(the fit's positions, the held-out share of them), chosen at random."""
    rng = np.random.default_rng(seed)
    held = rng.random(c.count) < share
    return _subset(c, ~held), _subset(c, held)


def _subset(c: Candidates, keep: npt.NDArray[np.bool_]) -> Candidates:
    rows = keep[c.position]
    renumber = np.cumsum(keep) - 1
    start = np.cumsum(rows) - 1
    return Candidates(
        renumber[c.position[rows]],
        c.threat[rows],
        c.line[rows],
        c.near[rows],
        c.hand[rows],
        start[c.target[keep]],
        int(keep.sum()),
    )


def logits(c: Candidates, w: Sequence[npt.NDArray[np.float64]]) -> npt.NDArray[np.float64]:
    """Each candidate's score under the tables ``w`` (threat, line, near)."""
    result: npt.NDArray[np.float64] = w[0][c.threat] + w[1][c.line].sum(axis=1) + w[2][c.near]
    return result


def loss_and_gradient(
    c: Candidates, w: Sequence[npt.NDArray[np.float64]], ridge: float
) -> tuple[float, list[npt.NDArray[np.float64]]]:
    """The mean cross-entropy of the judge's moves (plus the ridge) and its gradient."""
    z = logits(c, w)
    top = np.full(c.count, -np.inf)
    np.maximum.at(top, c.position, z)
    e = np.exp(z - top[c.position])
    p = e / np.bincount(c.position, weights=e, minlength=c.count)[c.position]
    loss = float(-np.mean(np.log(p[c.target]))) + ridge * sum(float(np.sum(t * t)) for t in w)
    g = p.copy()
    g[c.target] -= 1
    g /= c.count
    grads = [
        np.bincount(c.threat, weights=g, minlength=w[0].size),
        np.bincount(c.line.ravel(), weights=np.repeat(g, 4), minlength=w[1].size),
        np.bincount(c.near, weights=g, minlength=w[2].size),
    ]
    return loss, [grad + 2 * ridge * t for grad, t in zip(grads, w, strict=True)]


def fit(
    c: Candidates, ridge: float, steps: int, rate: float = 0.05
) -> list[npt.NDArray[np.float64]]:
    """The tables that best predict the judge's moves (Adam from zeros)."""
    w = [np.zeros(size) for _, size in TABLES]
    m = [np.zeros(size) for _, size in TABLES]
    v = [np.zeros(size) for _, size in TABLES]
    for t in range(1, steps + 1):
        _, grads = loss_and_gradient(c, w, ridge)
        for i, grad in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * grad
            v[i] = 0.999 * v[i] + 0.001 * grad * grad
            step = (m[i] / (1 - 0.9**t)) / (np.sqrt(v[i] / (1 - 0.999**t)) + 1e-8)
            w[i] -= rate * step
    return w


def ranks(
    c: Candidates, key: npt.NDArray[np.float64] | npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Each position's rank of the judge's move (0: first); ties count against it."""
    at_least = (key >= key[c.target][c.position]).astype(np.int64)
    result: npt.NDArray[np.int64] = np.bincount(c.position, weights=at_least, minlength=c.count)
    return result.astype(np.int64) - 1


def shares(rank: npt.NDArray[np.int64]) -> list[float]:
    """The share of positions whose judge's move is within the first 1, 5, 10, 20."""
    return [float(np.mean(rank < top)) for top in TOPS]


def fit_command(options: argparse.Namespace) -> int:
    rows = [json.loads(line) for path in options.data for line in path.read_text().splitlines()]
    every = candidates(rows, options.size, Rule(options.rule))
    train, held = split(every, options.holdout, options.seed)
    w = fit(train, options.ridge, options.steps)
    print(f"{train.count} positions fitted, {held.count} held out")
    print("ordering  positions  " + "  ".join(f"top {top:<2}" for top in TOPS))
    for name, c in (("fitted", train), ("held out", held)):
        if c.count == 0:
            continue
        for label, key in (("hand", c.hand), ("learned", logits(c, w))):
            cells = "  ".join(f"{share:6.1%}" for share in shares(ranks(c, key)))
            print(f"{label:8}  {name:9}  {cells}")
    if options.out:
        tables = {
            name: [round(float(value) * options.scale) for value in table]
            for (name, _), table in zip(TABLES, w, strict=True)
        }
        options.out.write_text(json.dumps({**tables, "scale": options.scale}) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``gather`` or ``fit``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python tools/tune_order.py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("gather", help="the judge's move in positions of recorded games")
    p.add_argument("out", type=Path)
    p.add_argument("games", nargs="+", type=Path, help="PSQ/SGF files or folders")
    add_judge_options(p, time_ms=80)
    p.add_argument("--per-game", type=int, default=8)
    p.add_argument("--from-opening", type=int, default=32, help="leave out openings below this")
    p.add_argument("--jobs", type=int, default=2, help="judges at the same time")
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--size", type=int, default=15)
    p.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    p = sub.add_parser("fit", help="fit the tables and compare the orderings")
    p.add_argument("data", nargs="+", type=Path, help="what gather wrote")
    p.add_argument("--ridge", type=float, default=3e-5)
    p.add_argument("--holdout", type=float, default=0.2)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--size", type=int, default=15)
    p.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    p.add_argument("--out", type=Path, help="write the fitted tables here")
    p.add_argument("--scale", type=int, default=300, help="table units per logit")
    options = parser.parse_args(argv)
    return gather(options) if options.command == "gather" else fit_command(options)


if __name__ == "__main__":
    raise SystemExit(main())
