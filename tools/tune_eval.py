"""Fit the evaluation's values to game outcomes (logistic "Texel" tuning), and test the fit.

    python tools/tune_eval.py gen --minutes 5 --workers 16 --out games.npz
    python tools/tune_eval.py features games.npz --out positions.npz
    python tools/tune_eval.py train positions.npz --out engine/data/eval_weights.json
    python tools/tune_eval.py duel new.json hand --level hard --matches 16

``gen`` plays fast self-play games (node-limited searches with evaluation noise, from the
match openings turned by a random symmetry plus a few random stones) and keeps their moves
and results. ``features`` replays them and keeps the quiet positions: no four on the board
(the search never evaluates those) and no straight four to come for the side to move that
the opponent cannot answer with a four (the search scores those as wins). For each it counts,
per side, the empty points' line patterns (four directions) and threat classes: the
evaluation is exactly these counts times the weights, ``(5 * mine - 4 * theirs) / 4``.
``train`` fits the weights of both sides by Newton's method on the logistic loss of the
outcome, ``sigmoid(eval / K)``, with K fitted to the hand-set values first so that the new
values keep the old units (the levels' noise, the search's windows), and a light pull
towards the hand-set values for the rarely seen patterns. ``duel`` plays the engine with one
weights file against the engine with another (``hand`` for the hand-set values), through
``python -m engine match``'s machinery, many matches at once.

Freestyle 15x15 only: the other rules use the same weights.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import json
import math
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import _kernels as k
from engine import _patterns
from engine._position import Position
from engine.board import Board
from engine.evaluate import WEIGHTS_ENV, hand_weights, load_weights, tables, weights
from engine.openings import openings
from engine.search import Limits, SearchOptions, search
from engine.types import Color, Point, Rule

SIZE = 15
MAX_PLIES = 160  # a draw after this many moves
FIRST_PLY = 5  # positions from this many stones on
NFEAT = _patterns.NPAT + _patterns.NP4  # pattern counts, then threat-class counts
# weights the data cannot tell (never on a quiet freestyle board, or fixed to remove the
# redundancy of "every point has four patterns and one class"): kept at their old values
FIXED_PATTERN = (_patterns.NONE, _patterns.FIVE, _patterns.OVERLINE, _patterns.FOUR_FOUR)
FIXED_THREAT = (_patterns.P4_NONE, _patterns.P4_FIVE)
SMALL_TT = 160 * 2**20 + 2 * 16 * 2**16  # a memory budget that gives a 64k-entry table

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]


# --------------------------------------------------------------------------- games


def _symmetry(point: Point, s: int) -> Point:
    x, y = point.x, point.y
    if s & 1:
        x = SIZE - 1 - x
    if s & 2:
        y = SIZE - 1 - y
    if s & 4:
        x, y = y, x
    return Point(x, y)


def play_game(rng: random.Random) -> tuple[list[int], int]:
    """One self-play game: its moves (``y * SIZE + x``) and Black's result (1, 0, -1)."""
    book = openings(SIZE)
    turn = rng.randrange(8)
    moves = [_symmetry(p, turn) for p in rng.choice(book)]
    board = Board.from_moves(moves, size=SIZE, rule=Rule.FREESTYLE)
    for _ in range(rng.choice((0, 0, 1, 2))):
        while True:
            point = Point(rng.randrange(4, SIZE - 4), rng.randrange(4, SIZE - 4))
            if board[point] is None:
                board.play(point)
                break
    players = [
        (rng.choice((2_000, 5_000, 12_000, 25_000)), rng.choice((0, 10, 25, 50))) for _ in range(2)
    ]
    while board.outcome is None and len(board.moves) < MAX_PLIES and not board.is_full():
        nodes, noise = players[0 if board.to_move is Color.BLACK else 1]
        options = SearchOptions(width=14, noise=noise, seed=rng.randrange(1 << 30), leaf_vcf=2)
        result = search(board, Limits(nodes=nodes, memory_bytes=SMALL_TT), options)
        board.play(result.move)
    points = [move.point for move in board.moves]
    winner = board.outcome.winner if board.outcome is not None else None
    score = 0 if winner is None else (1 if winner is Color.BLACK else -1)
    return [p.y * SIZE + p.x for p in points], score


def _gen_worker(job: tuple[int, float, str]) -> str:
    seed, deadline, out = job
    rng = random.Random(seed)
    flat: list[int] = []
    lengths: list[int] = []
    results: list[int] = []
    while time.time() < deadline:
        moves, score = play_game(rng)
        flat.extend(moves)
        lengths.append(len(moves))
        results.append(score)
        if len(results) % 20 == 0:
            _save_games(out, flat, lengths, results)
    _save_games(out, flat, lengths, results)
    return out


def _save_games(out: str, flat: list[int], lengths: list[int], results: list[int]) -> None:
    np.savez(
        out,
        moves=np.array(flat, dtype=np.int16),
        lengths=np.array(lengths, dtype=np.int32),
        results=np.array(results, dtype=np.int8),
    )


def gen(minutes: float, workers: int, out: Path, seed: int) -> None:
    """Play games on ``workers`` processes for ``minutes`` and merge them into ``out``."""
    from engine.levels import warm_up

    warm_up()  # compile every kernel once, before forking (and for the duel's brains)
    deadline = time.time() + minutes * 60
    parts = [(seed * 1000 + i, deadline, f"{out}.part{i}.npz") for i in range(workers)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        files = pool.map(_gen_worker, parts)
    data = [np.load(f) for f in files]
    np.savez(
        out,
        moves=np.concatenate([d["moves"] for d in data]),
        lengths=np.concatenate([d["lengths"] for d in data]),
        results=np.concatenate([d["results"] for d in data]),
    )
    for f in files:
        os.remove(f)
    results = np.concatenate([d["results"] for d in data])
    lengths = np.concatenate([d["lengths"] for d in data])
    print(
        f"{len(results)} games, {int(lengths.sum())} moves; Black won {int((results > 0).sum())}, "
        f"White {int((results < 0).sum())}, drawn {int((results == 0).sum())}"
    )


# --------------------------------------------------------------------------- features


def position_features(pos: Position) -> tuple[npt.NDArray[np.int32], int]:
    """The counts per side (``[side, NFEAT]``) of an engine position, and its evaluation
    by the kernels (the check that counts times weights is the evaluation)."""
    empty = np.nonzero(pos.b == 0)[0]
    counts = np.zeros((2, NFEAT), dtype=np.int32)
    threat = pos.tables.threat
    for ci in range(2):
        pats = pos.cell[empty, k.R_PAT + ci * 4 : k.R_PAT + ci * 4 + 4].ravel()
        counts[ci, : _patterns.NPAT] = np.bincount(pats, minlength=_patterns.NPAT)
        classes = threat[ci, pos.cell[empty, k.R_CODE + ci]]
        counts[ci, _patterns.NPAT :] = np.bincount(classes, minlength=_patterns.NP4)
    return counts, int(k.evaluate(pos.g, pos.hsh))


def _quiet(pos: Position) -> bool:
    g = pos.g
    me = int(g[k.G_SIDE]) - 1
    op = 1 - me
    if g[k.G_P4 + k.P4_FIVE] > 0 or g[k.G_P4 + k.NP4 + k.P4_FIVE] > 0:
        return False
    fours = sum(int(g[k.G_P4 + op * k.NP4 + c]) for c in range(k.P4_B4, k.NP4))
    return not (g[k.G_P4 + me * k.NP4 + k.P4_FLEX4] > 0 and fours == 0)


def _feature_worker(job: tuple[str, int, int]) -> dict[str, npt.NDArray[np.generic]]:
    games, first, last = job
    data = np.load(games)
    moves, lengths, results = data["moves"], data["lengths"], data["results"]
    starts = np.concatenate([[0], np.cumsum(lengths)])
    t = tables(Rule.FREESTYLE)
    seen: set[int] = set()
    rows: list[npt.NDArray[np.int32]] = []
    keys: list[int] = []
    movers: list[int] = []
    ys: list[float] = []
    game_ids: list[int] = []
    evals: list[int] = []
    for gi in range(first, last):
        length, result = int(lengths[gi]), int(results[gi])
        game = moves[starts[gi] : starts[gi] + length]
        pos = Position(SIZE, SIZE, t, tt_size=16)
        for ply, m in enumerate(game):
            pos.play_index(pos.index(Point(int(m) % SIZE, int(m) // SIZE)))
            if ply + 1 < FIRST_PLY or ply + 1 == length or not _quiet(pos):
                continue
            key = int(pos.hsh[0])
            if key in seen:
                continue
            seen.add(key)
            counts, ev = position_features(pos)
            mover = int(pos.g[k.G_SIDE]) - 1
            rows.append(counts)
            keys.append(key)
            movers.append(mover)
            ys.append((1 + result * (1 if mover == 0 else -1)) / 2)
            game_ids.append(gi)
            evals.append(ev)
    return {
        "counts": np.array(rows, dtype=np.int16).reshape(-1, 2, NFEAT),
        "key": np.array(keys, dtype=np.uint64),
        "mover": np.array(movers, dtype=np.int8),
        "y": np.array(ys, dtype=np.float32),
        "game": np.array(game_ids, dtype=np.int32),
        "ev": np.array(evals, dtype=np.int32),
    }


def features(games: Path, out: Path, workers: int) -> None:
    """Replay the games and keep each distinct quiet position's counts and outcome."""
    ngames = len(np.load(games)["lengths"])
    bounds = np.linspace(0, ngames, 4 * workers + 1).astype(int)
    jobs = [(str(games), int(a), int(b)) for a, b in itertools.pairwise(bounds)]
    tables(Rule.FREESTYLE)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.map(_feature_worker, jobs)
    merged = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    _, first = np.unique(merged.pop("key"), return_index=True)
    keep = np.sort(first)
    np.savez_compressed(
        out, **{name: value[keep] for name, value in merged.items()}, weights=weights().source
    )
    print(f"{len(keep)} positions from {ngames} games")


# --------------------------------------------------------------------------- training


def design(counts: npt.NDArray[np.int16], mover: npt.NDArray[np.int8]) -> F32:
    """Rows ``x`` with ``eval = x @ theta``, ``theta`` = Black's weights then White's."""
    n = len(mover)
    x = np.zeros((n, 2 * NFEAT), dtype=np.float32)
    for side in range(2):
        mine = mover == side
        cols = slice(side * NFEAT, (side + 1) * NFEAT)
        x[mine, cols] = 1.25 * counts[mine, side]
        x[~mine, cols] = -counts[~mine, side].astype(np.float32)
    return x


def theta_of(w_pattern: npt.NDArray[np.int32], w_threat: npt.NDArray[np.int32]) -> F64:
    """The parameter vector of a weights pair."""
    return np.concatenate([np.concatenate([w_pattern[s], w_threat[s]]) for s in range(2)]).astype(
        np.float64
    )


def loss(z: F64, y: F64, scale: float) -> float:
    """Mean logistic loss of evaluations ``z`` against outcomes ``y`` at ``scale`` K."""
    p = 1 / (1 + np.exp(-np.clip(z / scale, -40, 40)))
    eps = 1e-9
    return float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))


def fit_scale(z: F64, y: F64) -> float:
    """The K that minimises the loss of fixed evaluations (golden-section on log K)."""
    lo, hi = math.log(10.0), math.log(20000.0)
    r = (math.sqrt(5) - 1) / 2
    a, b = hi - r * (hi - lo), lo + r * (hi - lo)
    for _ in range(60):
        if loss(z, y, math.exp(a)) < loss(z, y, math.exp(b)):
            hi = b
        else:
            lo = a
        a, b = hi - r * (hi - lo), lo + r * (hi - lo)
    return math.exp((lo + hi) / 2)


def newton(
    x: F32, y: F64, scale: float, theta0: F64, free: npt.NDArray[np.bool_], ridge: F64
) -> F64:
    """Minimise ``loss(x @ theta) + sum(ridge * (theta - theta0)**2)`` over the free entries."""
    theta = theta0.copy()
    xf = x[:, free].astype(np.float64)
    n = len(y)
    steps = 0
    for steps in range(1, 51):  # noqa: B007 (reported below)
        z = xf @ theta[free] + x[:, ~free] @ theta[~free]
        p = 1 / (1 + np.exp(-np.clip(z / scale, -40, 40)))
        grad = xf.T @ (p - y) / (n * scale) + 2 * ridge[free] * (theta[free] - theta0[free])
        wgt = p * (1 - p) / (n * scale * scale)
        hess = (xf * wgt[:, None]).T @ xf + np.diag(2 * ridge[free])
        delta = np.linalg.solve(hess, grad)
        theta[free] -= delta
        if float(np.max(np.abs(delta))) < 1e-3:
            break
    print(f"  newton: {steps} steps")
    return theta


def train(positions: Path, out: Path, ridge_weight: float, holdout: float) -> None:
    """Fit both sides' weights; print the losses; write the weights file."""
    t0 = time.perf_counter()
    data = np.load(positions)
    counts, mover, y = data["counts"], data["mover"], data["y"].astype(np.float64)
    game = data["game"]
    x = design(counts, mover)
    hand = hand_weights()
    theta_hand = theta_of(hand.pattern, hand.threat)
    # the kernels' evaluation must be the counts times the weights the data was made with
    ref = weights()
    if str(data["weights"]) == ref.source and len(y):
        z_ref = x.astype(np.float64) @ theta_of(ref.pattern, ref.threat)
        worst = float(np.max(np.abs(z_ref - data["ev"])))
        print(f"check: counts x weights against the kernels' evaluation, worst gap {worst:.2f}")
    valid = (game.astype(np.int64) * 2654435761 % 1000) < holdout * 1000
    tr = ~valid
    z_hand = x.astype(np.float64) @ theta_hand
    scale = fit_scale(z_hand[tr], y[tr])
    print(f"{len(y)} positions ({int(tr.sum())} train, {int(valid.sum())} held out)")
    print(f"K (hand-set values): {scale:.1f}")
    print(
        f"hand-set loss: train {loss(z_hand[tr], y[tr], scale):.5f}, held out "
        f"{loss(z_hand[valid], y[valid], scale):.5f}"
    )
    free = np.ones(2 * NFEAT, dtype=bool)
    for s in range(2):
        for pat in FIXED_PATTERN:
            free[s * NFEAT + pat] = False
        for cls in FIXED_THREAT:
            free[s * NFEAT + _patterns.NPAT + cls] = False
    # the pull towards the hand-set values, relative to each value's size: it decides only
    # where the data is thin (a pattern seen in a few hundred positions)
    ridge = ridge_weight / np.maximum(np.abs(theta_hand), 10.0) ** 2
    theta = newton(x[tr], y[tr], scale, theta_hand, free, ridge)
    rounded = np.round(theta)
    z_new = x.astype(np.float64) @ rounded
    print(
        f"fitted loss:   train {loss(z_new[tr], y[tr], scale):.5f}, held out "
        f"{loss(z_new[valid], y[valid], scale):.5f}"
    )
    print(f"K refitted to the new values: {fit_scale(z_new[tr], y[tr]):.1f}")
    names = ["NONE", "B1", "F1", "B2", "F2", "B3", "F3", "B4", "F4", "FIVE", "OVERLINE", "4x4"]
    classes = ["none", "two", "two+", "F3", "F3+", "F3F3", "B4", "B4+", "B4F3", "flex4", "five"]
    used = (counts > 0).sum(axis=0)
    for s, side in enumerate(("black", "white")):
        print(
            f"{side}: "
            + ", ".join(
                f"{name} {int(theta_hand[s * NFEAT + i])}->{int(rounded[s * NFEAT + i])}"
                f" ({int(used[s, i])})"
                for i, name in enumerate(names + classes)
            )
        )
    elapsed = time.perf_counter() - t0
    doc = {
        "about": (
            "Evaluation values fitted to self-play outcomes by tools/tune_eval.py "
            f"(logistic loss, K {scale:.0f}, {int(tr.sum())} positions): per side, a value "
            "per line pattern (NONE B1 F1 B2 F2 B3 F3 B4 F4 FIVE OVERLINE FOUR_FOUR) and per "
            "threat class (P4_NONE .. P4_FIVE)."
        ),
        "fit": {
            "positions": int(tr.sum()),
            "held_out": int(valid.sum()),
            "K": round(scale, 1),
            "loss_hand": round(loss(z_hand[valid], y[valid], scale), 5),
            "loss_fitted": round(loss(z_new[valid], y[valid], scale), 5),
            "seconds": round(elapsed, 1),
        },
    }
    for s, side in enumerate(("black", "white")):
        doc[side] = {
            "pattern": [int(v) for v in rounded[s * NFEAT : s * NFEAT + _patterns.NPAT]],
            "threat": [int(v) for v in rounded[s * NFEAT + _patterns.NPAT : (s + 1) * NFEAT]],
        }
    text = json.dumps(doc, indent=2)
    load_weights(text, str(out))  # what the engine will accept
    out.write_text(_compact(text) + "\n")
    print(f"wrote {out} in {elapsed:.1f} s")


def _compact(text: str) -> str:
    # one line per list of numbers
    doc = json.loads(text)
    lines = ["{"]
    items = list(doc.items())
    for i, (key, value) in enumerate(items):
        end = "," if i < len(items) - 1 else ""
        if isinstance(value, dict) and all(isinstance(v, list) for v in value.values()):
            inner = ",\n".join(f'    "{kk}": {json.dumps(vv)}' for kk, vv in value.items())
            lines.append(f'  "{key}": {{\n{inner}\n  }}{end}')
        else:
            lines.append(f'  "{key}": {json.dumps(value)}{end}')
    lines.append("}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- duel


def duel(first: str, second: str, level: str, matches: int, seed: int, games: int) -> None:
    """``matches`` matches of 32 games (16 openings, both colours) at once, level ``level``
    with ``first``'s weights against ``second``'s; W-D-L from ``first``'s side."""
    from engine.match import EngineSpec, MatchConfig, elo_difference, run_match

    def spec(chosen: str, label: str, s: int) -> EngineSpec:
        argv = ("env", f"{WEIGHTS_ENV}={chosen}", sys.executable, "-m", "engine.pbrain")
        return EngineSpec(label, (*argv, "--level", level, "--seed", str(s)))

    config = MatchConfig(turn_ms=5000, grace_ms=5000)
    book = openings(SIZE)

    def one(i: int) -> tuple[int, int, int]:
        specs = (spec(first, "first", seed + i), spec(second, "second", seed + 1000 + i))
        result = run_match(specs, games=games or 2 * len(book), config=config)
        wins = sum(1 for g in result.games if g.winner == 0)
        losses = sum(1 for g in result.games if g.winner == 1)
        return wins, len(result.games) - wins - losses, losses

    w = d = lo = 0
    with concurrent.futures.ThreadPoolExecutor(matches) as pool:
        for wins, draws, losses in pool.map(one, range(matches)):
            w, d, lo = w + wins, d + draws, lo + losses
            elo, err = elo_difference(w, d, lo)
            score = (w + d / 2) / max(1, w + d + lo)
            print(
                f"{first} vs {second} at level {level}: {w}-{d}-{lo} (W-D-L), "
                f"score {score:.1%}, Elo {elo:+.0f} +/- {err:.0f}",
                flush=True,
            )


def main() -> int:
    """Parse the subcommand and run it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("gen", help="play self-play games")
    p.add_argument("--minutes", type=float, default=5.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("games.npz"))
    p = sub.add_parser("features", help="count the patterns of the quiet positions")
    p.add_argument("games", type=Path)
    p.add_argument("--out", type=Path, default=Path("positions.npz"))
    p.add_argument("--workers", type=int, default=2)
    p = sub.add_parser("train", help="fit the weights")
    p.add_argument("positions", type=Path, nargs="+")
    p.add_argument("--out", type=Path, default=Path("eval_weights.json"))
    p.add_argument("--ridge", type=float, default=1e-4)
    p.add_argument("--holdout", type=float, default=0.1)
    p = sub.add_parser("duel", help="weights file against weights file, by match")
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--level", default="hard")
    p.add_argument("--matches", type=int, default=2)
    p.add_argument("--games", type=int, default=0, help="games per match (0: 32)")
    p.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.command == "gen":
        gen(args.minutes, args.workers, args.out, args.seed)
    elif args.command == "features":
        features(args.games, args.out, args.workers)
    elif args.command == "train":
        train(args.positions[0], args.out, args.ridge, args.holdout)
    else:
        duel(args.first, args.second, args.level, args.matches, args.seed, args.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
