"""Fit the evaluation's values to game outcomes or to a judge's opinion, and test the fit.

The shipped ``engine/search/data/eval_weights.json`` (docs/engine.md, "How the weights are
trained") is made in four steps. Master's games against the anchor engines
(``python -m engine match ... --psq DIR``) become a games file; an outside engine (the judge:
Rapfi 0.43.02 classical, 150 ms a position; 16,000 positions take about 35 minutes of one
core) labels their quiet positions with its winning chance; positions of 3 to 10 stones,
judged the same way, come from lines walked from the three-stone openings that are not match
openings (8,996 quiet positions from 374 lines take about 17 minutes with two judges on a
2-core machine); the values are fitted to the labels from a prior's values, and the network
over them to both labelled sets:

    python tools/tune_eval.py psq DIR... --out anchor_games.npz
    python tools/tune_eval.py label anchor_games.npz --judge ./pbrain-rapfi --cwd RAPFI_DIR \
        --turn-ms 150 --positions 16000 --out labelled.npz
    python tools/tune_eval.py opening --judge ./pbrain-rapfi --cwd RAPFI_DIR --turn-ms 150 \
        --lines 2 --jobs 2 --out opening.npz
    python tools/tune_eval.py train labelled.npz --prior learned --scale 1226.3 \
        --ridge 1e-4 1e-3 1e-2 1e-1 --holdout 0.2 --multiset-ridge 0 --out candidate.json
    python tools/tune_eval.py net labelled.npz opening.npz --prior learned --hidden 16 \
        --epochs 40 --holdout 0.2 --scale 1000 --out engine/search/data/eval_weights.json

The same network fitted to the judged positions of ``tools/datagen.py``'s shards in
``data/`` instead (docs/engine.md, "Training data"): ``shards`` writes their distinct quiet
positions as ``label`` writes its own, the judge's score turned into a winning chance the same
way (a forced result as a score of +-``CLIP``, or with ``--certain-mates`` as 1 or 0), and
``net`` prints the packaged network's held-out loss beside the fit's on the same positions:

    python tools/tune_eval.py shards data/selfplay data/matches [--certain-mates] --out shards.npz
    python tools/tune_eval.py net shards.npz --prior learned --hidden 16 --epochs 40 \
        --holdout 0.2 --scale 1000 [--average] --out candidate.json

``shards --labels data/relabel --label-nodes N`` labels the positions with the shards'
judgements made again at N nodes by ``tools/relabel.py`` (every shard named must have them).
``shards`` also keeps each position's counts before its last move (``pcounts``), and ``net
--average`` fits the network to each side's sum as the mean of the two positions' sums, as
the kernels read it under ``GOMOKU_EVAL_AVG=1`` (the fit is played with that setting on).
Given several files, ``net`` prints the held-out losses file by file too, and ``--file-weights
W1 W2 ...`` (one a file) makes each file's positions count that much in the fit (the
search's leaves beside the games, say: ``net shards.npz leaves.npz --file-weights 1 4``).

A rule's own network, from the shards ``tools/datagen.py --rule`` made in that rule: ``shards
--rule`` counts their positions with that rule's tables (Black's lines in renju see
overlines and forbidden shapes) and refuses a shard whose manifest names another rule; ``net
--rule`` fits the network over the prior's values to them and writes the prior's weights
file whole with the fit as that rule's entry of ``"nets"`` (``engine.search.evaluate``), the
other rules' networks untouched. It prints the held-out loss of the network that rule
evaluates with in the prior beside the fit's:

    python tools/tune_eval.py shards --rule renju data/selfplay-renju --certain-mates \
        --out renju.npz
    python tools/tune_eval.py net renju.npz --rule renju --prior learned --hidden 16 \
        --epochs 40 --holdout 0.2 --scale 1000 --out renju_net.json

Values fitted to the games' outcomes instead (``eval_weights_outcomes.json`` holds such a fit
of master's games against Wine 2.1 and PentaZen 0.4.17):

    python tools/tune_eval.py features anchor_games.npz --out anchor_positions.npz
    python tools/tune_eval.py train anchor_positions.npz --prior learned --scale 1226.3 \
        --ridge 1e-5 1e-4 1e-3 1e-2 1e-1 --holdout 0.2 --multiset-ridge 0 --out candidate.json

Self-play from the hand-set values (8,193 games and 155,501 positions take 3.4 minutes on 16
cores; one worker of a 2-core machine plays one or two games a second; the fit itself takes
seconds), and ``eval_weights_multiset.json``, a fit with multiset corrections and mine = 7 to
those games and 4,059 more, which did not play better than the values without them:

    python tools/tune_eval.py gen --minutes 3.4 --workers 16 --out games.npz
    python tools/tune_eval.py features games.npz --out positions.npz --workers 16
    python tools/tune_eval.py train positions.npz --multiset-ridge 0 --out candidate.json
    python tools/tune_eval.py gen --minutes 27 --workers 2 --seed 7 --out games7.npz
    python tools/tune_eval.py features games7.npz --out positions7.npz
    python tools/tune_eval.py train positions.npz positions7.npz --scale 1226.3 --mine 7 \
        --out engine/search/data/eval_weights_multiset.json

Values for the opening alone (fitted to ``opening.npz``; they play worse than the shipped
values, so none ship):

    python tools/tune_eval.py train opening.npz --prior learned --scale 1226.3 --ridge 1e-5 \
        --holdout 0.2 --multiset-ridge 0 --mine 6 --min-seen 50 --out opening.json

A fit is judged in play, never by its loss alone:

    python tools/tune_eval.py duel candidate.json learned --level hard --matches 16

``net`` fits one layer of ReLU units (``tools.tune.fit_net``) to the judge's winning
chances, over what the kernels already keep up to date: each side's threat-class counts and
its sum of point values. The sums are linear; what the network adds is how they combine (an
open three is worth much more to the side to move than to the side that must answer it, and
little beside the opponent's four).

``psq`` keeps the records that end in a five (or a full board): a loss on time says nothing
about who stood better. ``train --prior`` starts from and pulls towards those values (``hand``,
``learned``, or a file), so a few hundred games move only what they must; several ``--ridge``
weights are chosen among by cross-validation over whole training games, and the held-out games'
loss and share of winners called are printed for the hand-set, packaged, prior and fitted
values alike.

``gen`` plays fast self-play games (node-limited searches with evaluation noise, from the
match openings turned by a random symmetry plus a few random stones) and keeps their moves
and results. ``features`` replays them and keeps the quiet positions: no four on the board
(the search never evaluates those) and no straight four to come for the side to move that
the opponent cannot answer with a four (the search scores those as wins). For each it counts,
per side, the empty points' line patterns (four directions) and threat classes, and the
multisets of each point's four patterns: the evaluation is exactly these counts times the
weights, ``(mine * ours - 4 * theirs) / 4``.
``train`` fits the weights of both sides by Newton's method on the logistic loss of the
outcome, ``sigmoid(eval / K)``, with K fitted to the hand-set values first (or given with
``--scale``: 1226.3 is the self-play fit's K, so the values stay in the units the levels'
noise and the search's windows were set in), and a light pull towards the hand-set
values for the rarely seen patterns; then, on top of those values, a correction per multiset
of a point's four patterns, pulled towards zero by ``--multiset-ridge`` (chosen by held-out
loss). ``--mine`` sets how much the side to move's points count: ``(mine * ours - 4 *
theirs) / 4``, 5 unless given. ``duel`` plays the engine with one
weights file against the engine with another (``hand`` for the hand-set values), through
``python -m engine match``'s machinery, many matches at once.

The games of ``gen``, ``psq``, ``label`` and ``opening`` are freestyle 15x15 only; the other rules
use the same values (a duel under renju at level medium: 44-0-20 for the learned ones), and a
rule's own network comes from ``tools/datagen.py --rule`` shards (``shards --rule``, above).

One tool of about a thousand lines: its subcommands hand each other the same arrays and
feature layout, and each step is read beside the one that made its input.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup.match import EngineSpec, parse_engine
from engine.gomocup.openings import openings
from engine.search import Limits, SearchOptions, search
from engine.search._position import Position
from engine.search.evaluate import (
    WEIGHTS_ENV,
    Weights,
    hand_weights,
    load_weights,
    tables,
    weights,
)
from engine.types import Color, Point, Rule
from tools import datagen, tune

SIZE = 15
MAX_PLIES = 160  # a draw after this many moves
FIRST_PLY = 5  # positions from this many stones on
SMALL_TT = 160 * 2**20 + 2 * 16 * 2**16  # a memory budget that gives a 64k-entry table


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
    from engine.search.levels import warm_up

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


def _psq_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.psq")) if path.is_dir() else [path])
    return files


def games_from_psq(paths: list[Path]) -> tuple[dict[str, npt.NDArray[Any]], int]:
    """The games of PSQ records (files, or folders of them) in ``gen``'s form: moves, lengths
    and Black's result, 1 a five by Black, -1 by White, 0 a full board. A record that ends
    otherwise (a loss on time, a crash, an illegal move) says nothing about its positions and
    is left out; returns the games and how many records were left out."""
    from engine.errors import InvalidRecordError
    from engine.records import from_psq

    flat: list[int] = []
    lengths: list[int] = []
    results: list[int] = []
    skipped = 0
    for file in _psq_files(paths):
        try:
            board = from_psq(file.read_text(encoding="utf-8"), rule=Rule.FREESTYLE)
        except InvalidRecordError:
            board = None
        if board is None or board.width != SIZE:
            skipped += 1
            continue
        if board.outcome is not None and board.outcome.winner is not None:
            score = 1 if board.outcome.winner is Color.BLACK else -1
        elif board.is_full():
            score = 0
        else:
            skipped += 1
            continue
        flat.extend(move.point.y * SIZE + move.point.x for move in board.moves)
        lengths.append(len(board.moves))
        results.append(score)
    games: dict[str, npt.NDArray[Any]] = {
        "moves": np.array(flat, dtype=np.int16),
        "lengths": np.array(lengths, dtype=np.int32),
        "results": np.array(results, dtype=np.int8),
    }
    return games, skipped


def psq(paths: list[Path], out: Path) -> None:
    """Turn PSQ match records into a games file for ``features``."""
    games, skipped = games_from_psq(paths)
    _save_games(
        str(out), games["moves"].tolist(), games["lengths"].tolist(), games["results"].tolist()
    )
    results = games["results"]
    print(
        f"{len(results)} games, {int(games['lengths'].sum())} moves ({skipped} records left out: "
        f"no five and no full board); Black won {int((results > 0).sum())}, "
        f"White {int((results < 0).sum())}, drawn {int((results == 0).sum())}"
    )


# --------------------------------------------------------------------------- features


def _quiet_positions(
    moves: npt.NDArray[Any],
    lengths: npt.NDArray[Any],
    starts: npt.NDArray[Any],
    games: Iterable[int],
    t: Any,
) -> Iterator[tuple[int, Position, int]]:
    # each game's quiet positions from FIRST_PLY stones on, before its last move: the game,
    # the position (the same object, played on) and how many moves made it
    for gi in games:
        length = int(lengths[gi])
        game = moves[starts[gi] : starts[gi] + length]
        pos = Position(SIZE, SIZE, t, tt_size=16)
        for ply, m in enumerate(game):
            pos.play_index(pos.index(Point(int(m) % SIZE, int(m) // SIZE)))
            if ply + 1 >= FIRST_PLY and ply + 1 < length and tune.quiet(pos):
                yield gi, pos, ply + 1


class _Rows:
    """The feature rows of positions, as ``features`` writes them."""

    def __init__(self) -> None:
        self.counts: list[npt.NDArray[np.int32]] = []
        self.keys: list[int] = []
        self.movers: list[int] = []
        self.ys: list[float] = []
        self.games: list[int] = []
        self.evals: list[int] = []
        self.multiset_cols: list[npt.NDArray[np.intp]] = []
        self.multiset_vals: list[npt.NDArray[np.int32]] = []

    def add(self, pos: Position, game: int, result: int) -> None:
        """Position ``pos`` of game ``game``, which Black's ``result`` ended."""
        mover = 0 if pos.side is Color.BLACK else 1
        self.counts.append(tune.position_counts(pos))
        self.keys.append(int(pos.hsh[0]))
        self.movers.append(mover)
        self.ys.append((1 + result * (1 if mover == 0 else -1)) / 2)
        self.games.append(game)
        self.evals.append(pos.evaluate())
        flat = tune.multiset_counts(pos).ravel()
        self.multiset_cols.append(np.nonzero(flat)[0])
        self.multiset_vals.append(flat[self.multiset_cols[-1]])

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """The rows as arrays; ``y`` is the side to move's outcome (1, 0.5, 0)."""
        return {
            "counts": np.array(self.counts, dtype=np.int16).reshape(-1, 2, tune.NFEAT),
            "key": np.array(self.keys, dtype=np.uint64),
            "mover": np.array(self.movers, dtype=np.int8),
            "y": np.array(self.ys, dtype=np.float32),
            "game": np.array(self.games, dtype=np.int32),
            "ev": np.array(self.evals, dtype=np.int32),
            # the multiset counts, sparse: how many nonzero columns each position has, and those
            "m_len": np.array([len(c) for c in self.multiset_cols], dtype=np.int32),
            "m_col": np.concatenate([np.zeros(0, np.intp), *self.multiset_cols]).astype(np.int16),
            "m_val": np.concatenate([np.zeros(0, np.int32), *self.multiset_vals]).astype(np.int16),
        }


def _feature_worker(job: tuple[str, int, int]) -> dict[str, npt.NDArray[np.generic]]:
    games, first, last = job
    data = np.load(games)
    moves, lengths, results = data["moves"], data["lengths"], data["results"]
    starts = np.concatenate([[0], np.cumsum(lengths)])
    t = tables(Rule.FREESTYLE)
    seen: set[int] = set()
    rows = _Rows()
    for gi, pos, _plies in _quiet_positions(moves, lengths, starts, range(first, last), t):
        key = int(pos.hsh[0])
        if key not in seen:
            seen.add(key)
            rows.add(pos, gi, int(results[gi]))
    return rows.arrays()


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
    flat = np.repeat(np.isin(np.arange(len(merged["m_len"])), keep), merged["m_len"])
    sparse = {name: merged.pop(name)[flat] for name in ("m_col", "m_val")}
    kept: dict[str, Any] = {name: value[keep] for name, value in merged.items()} | sparse
    np.savez_compressed(out, **kept, weights=weights().source)
    print(f"{len(keep)} positions from {ngames} games")


MATE = 30000  # a judge's forced result, in its own units (beyond every score it prints)
CLIP = 3000  # judge scores beyond this are as good as won (or lost) for the winning chance


def label(
    games: Path,
    out: Path,
    judge: EngineSpec,
    turn_ms: int,
    count: int,
    seed: int,
    jobs: int,
) -> None:
    """Ask an outside engine (the judge) about ``count`` of the games' distinct quiet
    positions, chosen at random; write them as ``features`` does, with the judge's score
    (``judge``, its side to move's view, a forced result as +-MATE; ``plies``, the stones on
    the board), the game's outcome
    (``outcome``) and as ``y`` the judge's winning chance: sigmoid(score / S), the scale S
    fitted to the games' outcomes. A stronger engine's searched opinion of a position says
    more about it than the result of one game played from it by weaker ones."""
    from tools.judge import Judge, JudgeError

    data = np.load(games)
    moves, lengths, results = data["moves"], data["lengths"], data["results"]
    starts = np.concatenate([[0], np.cumsum(lengths)])
    t = tables(Rule.FREESTYLE)
    seen: set[int] = set()
    chosen: list[tuple[int, int]] = []
    for gi, pos, plies in _quiet_positions(moves, lengths, starts, range(len(lengths)), t):
        if int(pos.hsh[0]) not in seen:
            seen.add(int(pos.hsh[0]))
            chosen.append((gi, plies))
    random.Random(seed).shuffle(chosen)
    chosen = chosen[:count]
    print(
        f"{len(seen)} distinct quiet positions in {len(lengths)} games; asking about {len(chosen)}"
    )

    def points(gi: int, plies: int) -> list[Point]:
        game = moves[starts[gi] : starts[gi] + plies]
        return [Point(int(m) % SIZE, int(m) // SIZE) for m in game]

    scores: dict[int, int] = {}
    t0 = time.perf_counter()

    def ask(part: int) -> None:
        with Judge(judge, turn_ms=turn_ms, size=SIZE, rule=Rule.FREESTYLE) as asked:
            for i in range(part, len(chosen), jobs):
                try:
                    opinion = asked.ask(points(*chosen[i]))
                except JudgeError as error:
                    print(f"position {i}: {error}")
                    continue
                value = opinion.eval
                if value is not None:
                    mate = value.mate
                    scores[i] = value.score if mate is None else (MATE if mate > 0 else -MATE)
                if part == 0 and len(scores) % 500 < jobs:
                    print(f"{len(scores)} asked, {time.perf_counter() - t0:.0f} s", flush=True)

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(ask, range(jobs)))
    rows = _Rows()
    judged: list[int] = []
    asked: list[int] = []
    for i, (gi, plies) in enumerate(chosen):
        if i in scores:
            asked.append(plies)
            pos = Position(SIZE, SIZE, t, tt_size=16)
            for point in points(gi, plies):
                pos.play_index(pos.index(point))
            rows.add(pos, gi, int(results[gi]))
            judged.append(scores[i])
    arrays: dict[str, Any] = rows.arrays()
    del arrays["key"]
    outcome = arrays["y"].astype(np.float64)
    score = np.clip(np.array(judged, dtype=np.float64), -CLIP, CLIP)
    scale = tune.fit_scale(score, outcome)
    arrays["judge"] = np.array(judged, dtype=np.int32)
    arrays["plies"] = np.array(asked, dtype=np.int16)
    arrays["outcome"] = outcome.astype(np.float32)
    arrays["y"] = (1 / (1 + np.exp(-score / scale))).astype(np.float32)
    np.savez_compressed(out, **arrays, weights=weights().source)
    forced = int(np.sum(np.abs(arrays["judge"]) >= MATE))
    own = arrays["ev"].astype(np.float64)
    print(
        f"{len(judged)} positions ({forced} forced results) from {len(np.unique(arrays['game']))}"
        f" games; S {scale:.1f}: the judge calls {tune.accuracy(score, outcome):.1%} of the"
        f" winners, the engine's own evaluation {tune.accuracy(own, outcome):.1%}"
    )


JUDGE_SCALE = 515.6  # S of the shipped fit's ``label`` run (Rapfi's units), for ``opening``
OPENING_STEPS = 4  # White's turns a line of ``opening`` walks (plies 3, 5, 7 and 9)
OPENING_TRIES = 7  # other White moves judged beside the judge's own at each of them


def _near(stones: list[Point], reach: int = 2) -> list[Point]:
    taken = set(stones)
    found = {
        Point(p.x + dx, p.y + dy)
        for p in stones
        for dx in range(-reach, reach + 1)
        for dy in range(-reach, reach + 1)
    }
    return sorted(q for q in found if q.on_board(SIZE, SIZE) and q not in taken)


def opening(
    out: Path,
    judge: EngineSpec,
    turn_ms: int,
    lines: int,
    seed: int,
    jobs: int,
    first: int = 0,
) -> None:
    """Positions of 3 to 10 stones judged by an outside engine, for the opening values.

    Each line starts from a three-stone opening that is not one of the match openings (so a
    match against them measures the values on positions they were not fitted to), turned by
    a random symmetry. At each of White's first ``OPENING_STEPS`` turns the judge is asked
    about the position, about the position after its own move and after ``OPENING_TRIES``
    random moves within two points of the stones (good and bad answers: the values must tell
    them apart); the line goes on with the judge's move or, half the time, one of the random
    ones, and Black answers with the judge's move. Labels are the judge's winning chance for
    the side to move, sigmoid(score / ``JUDGE_SCALE``); ``game`` is the line, so ``train``
    holds out whole lines. ``first``: only so many of the openings (0: all 187)."""
    from tools.check_openings import turned, unused
    from tools.judge import Judge, JudgeError, Opinion

    starts = unused()[: first or None]
    work = [(stones, line) for stones in starts for line in range(lines)]
    random.Random(seed).shuffle(work)
    print(f"{len(starts)} openings outside the match set, {len(work)} lines", flush=True)
    found: dict[int, tuple[int, list[Point], int]] = {}  # hash -> line, moves, judge score
    t = tables(Rule.FREESTYLE)
    t0 = time.perf_counter()

    def keep(index: int, moves: list[Point], opinion: Opinion) -> bool:
        value = opinion.eval
        if value is None:
            return False
        pos = Position(SIZE, SIZE, t, tt_size=16)
        for point in moves:
            pos.play_index(pos.index(point))
        score = value.score if value.mate is None else (MATE if value.mate > 0 else -MATE)
        if tune.quiet(pos):
            found.setdefault(int(pos.hsh[0]), (index, moves, score))
        return value.mate is None

    def walk(part: int) -> None:
        with Judge(judge, turn_ms=turn_ms, size=SIZE, rule=Rule.FREESTYLE) as asked:
            for index in range(part, len(work), jobs):
                stones, _ = work[index]
                rng = random.Random(seed * 1_000_003 + index)
                centre = SIZE // 2
                moves = [
                    Point(centre + dx, centre + dy) for dx, dy in turned(stones, rng.randrange(8))
                ]
                try:
                    for _ in range(OPENING_STEPS):
                        root = asked.ask(moves)
                        if not keep(index, moves, root) or root.move is None:
                            break
                        tries = rng.sample(_near(moves), OPENING_TRIES)
                        if root.move not in tries:
                            tries.append(root.move)
                        answers = {move: asked.ask([*moves, move]) for move in tries}
                        for move, answer in answers.items():
                            keep(index, [*moves, move], answer)
                        white = root.move if rng.random() < 0.5 else rng.choice(tries)
                        reply = answers[white]
                        if reply.move is None or reply.eval is None or reply.eval.mate is not None:
                            break
                        moves = [*moves, white, reply.move]
                except JudgeError as error:
                    print(f"line {index}: {error}", flush=True)
                if part == 0 and index % 50 < jobs:
                    print(
                        f"line {index}: {len(found)} positions, {time.perf_counter() - t0:.0f} s",
                        flush=True,
                    )

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(walk, range(jobs)))
    rows = _Rows()
    judged: list[int] = []
    plies: list[int] = []
    for index, moves, score in found.values():
        pos = Position(SIZE, SIZE, t, tt_size=16)
        for point in moves:
            pos.play_index(pos.index(point))
        rows.add(pos, index, 0)
        judged.append(score)
        plies.append(len(moves))
    arrays: dict[str, Any] = rows.arrays()
    del arrays["key"]
    clipped = np.clip(np.array(judged, dtype=np.float64), -CLIP, CLIP)
    arrays["judge"] = np.array(judged, dtype=np.int32)
    arrays["plies"] = np.array(plies, dtype=np.int16)
    arrays["y"] = (1 / (1 + np.exp(-clipped / JUDGE_SCALE))).astype(np.float32)
    np.savez_compressed(out, **arrays, weights=weights().source)
    forced = int(np.sum(np.abs(arrays["judge"]) >= MATE))
    print(
        f"{len(judged)} quiet positions ({forced} forced results) from {len(work)} lines in "
        f"{time.perf_counter() - t0:.0f} s"
    )


SHARD_GAMES = 1000  # ``shards``: game id (folder * 1000 + shard) * SHARD_GAMES + game


def _shard_manifests(path: Path) -> list[Path]:
    # a shard's manifest, or every finished shard's manifest in a folder, in name order
    manifests = [path] if path.suffix == ".json" else sorted(path.glob("shard-*.json"))
    for manifest in manifests:
        if not manifest.stem.removeprefix("shard-").isdigit():
            raise ValueError(f"{manifest} is not a shard's manifest")
    return manifests


def shards_positions(
    paths: list[Path],
    out: Path,
    judge_scale: float = JUDGE_SCALE,
    certain_mates: bool = False,
    rule: Rule = Rule.FREESTYLE,
    static: tuple[Path, float] | None = None,
    labels: tuple[Path, int] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """The judged positions of ``tools/datagen.py`` shards (folders of them, or their
    manifests) as ``label`` writes them, for ``net`` and ``train``: each distinct quiet
    position's counts (the search evaluates no other), the side to move's winning chance by
    the judge, sigmoid(score / ``judge_scale``), its score clipped to +-``CLIP`` (a forced
    result, +-``MATE``, counts as +-``CLIP``, or with ``certain_mates`` as a chance of 1 or
    0), and the game's outcome. ``game`` numbers every
    game of every shard apart (``SHARD_GAMES``), so a held-out split by game keeps whole games
    apart; ``mate`` is the judge's mate distance (0 none). A leaves shard's positions
    (``tools/datagen.py --leaves``) are its lines' ends, their games numbered as that shard's
    own, apart from their source's. The positions are counted with
    ``rule``'s tables, and every shard must have been played in ``rule`` (a manifest without
    a rule is freestyle's). With ``static`` (a folder of ``tools/static_labels.py``'s labels and
    their S, their units a logit) each position's score is its static label in the judge's units
    (label * ``judge_scale`` / S) and no result is forced. With ``labels`` (a folder and a
    node count) every shard's judgements are those ``tools/relabel.py`` made there at that
    count, in place of its own. Writes ``out`` (with ``rule``) and returns its arrays.

    Raises:
        ValueError: no shards, a shard of another rule, a children shard, or, with
            ``labels``, a shard not labelled again or whose labels refuse to load.
    """
    from tools.datagen import judged_lines, load_shard
    from tools.relabel import RelabelError, folder_for, load_relabels

    t = tables(rule)
    rows = _Rows()
    judged: list[int] = []
    mates: list[int] = []
    plies: list[int] = []
    parents: list[npt.NDArray[np.int32]] = []
    seen: set[int] = set()
    total = 0
    names: list[str] = []
    for folder, path in enumerate(paths):
        for manifest in _shard_manifests(path):
            shard = int(manifest.stem.removeprefix("shard-"))
            arrays, _ = load_shard(manifest.parent, shard, rule)
            if "child" in arrays:
                raise ValueError(
                    f"{manifest} is a children shard (positions beside its games' lines, not on"
                    " them): tools/value.py and tools/mixnet.py read those"
                )
            names.append(str(manifest))
            if labels is not None:
                try:
                    arrays |= load_relabels(
                        folder_for(labels[0], manifest.parent, labels[1]), manifest.parent, shard
                    )
                except RelabelError as exc:
                    raise ValueError(str(exc)) from exc
            if static is not None:
                from tools.static_labels import load_static

                values = load_static(static[0], manifest.parent, shard).astype(np.float64)
                arrays["judge"] = np.round(values * judge_scale / static[1]).astype(np.int32)
                arrays["judge_mate"] = np.zeros_like(arrays["judge_mate"])
            total += len(arrays["game"])
            if "line" in arrays:
                # a leaves shard: each row's position is its own line's end
                for k, line in enumerate(judged_lines(arrays)):
                    gi = int(arrays["game"][k])
                    ident = (folder * 1000 + shard) * SHARD_GAMES + gi
                    pos = Position(SIZE, SIZE, t, tt_size=16)
                    for m in line[:-1]:
                        pos.play_index(pos.index(Point(m % SIZE, m // SIZE)))
                    parent = tune.position_counts(pos)
                    pos.play_index(pos.index(Point(line[-1] % SIZE, line[-1] // SIZE)))
                    if not tune.quiet(pos) or int(pos.hsh[0]) in seen:
                        continue
                    seen.add(int(pos.hsh[0]))
                    rows.add(pos, ident, int(arrays["results"][gi]))
                    parents.append(parent)
                    judged.append(int(arrays["judge"][k]))
                    mates.append(int(arrays["judge_mate"][k]))
                    plies.append(len(line))
                continue
            starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
            wanted: dict[int, dict[int, int]] = {}  # game -> ply -> row
            for i, (gi, ply) in enumerate(zip(arrays["game"], arrays["ply"], strict=True)):
                wanted.setdefault(int(gi), {})[int(ply)] = i
            for gi, at in sorted(wanted.items()):
                game = arrays["moves"][starts[gi] : starts[gi] + arrays["lengths"][gi]]
                result = int(arrays["results"][gi])
                ident = (folder * 1000 + shard) * SHARD_GAMES + gi
                pos = Position(SIZE, SIZE, t, tt_size=16)
                for ply, m in enumerate(game[: max(at)]):
                    row = at.get(ply + 1)
                    # the counts before the position's last move: the averaged sums' other half
                    before = tune.position_counts(pos) if row is not None else None
                    pos.play_index(pos.index(Point(int(m) % SIZE, int(m) // SIZE)))
                    if before is None or not tune.quiet(pos) or int(pos.hsh[0]) in seen:
                        continue
                    seen.add(int(pos.hsh[0]))
                    rows.add(pos, ident, result)
                    parents.append(before)
                    judged.append(int(arrays["judge"][row]))
                    mates.append(int(arrays["judge_mate"][row]))
                    plies.append(ply + 1)
    if not names:
        raise ValueError("no shards found")
    data: dict[str, Any] = rows.arrays()
    del data["key"]
    outcome = data["y"].astype(np.float64)
    score = np.clip(np.array(judged, dtype=np.float64), -CLIP, CLIP)
    data["judge"] = np.array(judged, dtype=np.int32)
    data["mate"] = np.array(mates, dtype=np.int16)
    data["plies"] = np.array(plies, dtype=np.int16)
    data["pcounts"] = np.array(parents, dtype=np.int16).reshape(-1, 2, tune.NFEAT)
    data["outcome"] = outcome.astype(np.float32)
    chance = 1 / (1 + np.exp(-score / judge_scale))
    mated = np.abs(data["judge"]) >= MATE
    if certain_mates:
        chance[mated] = data["judge"][mated] > 0
    data["y"] = chance.astype(np.float32)
    np.savez_compressed(
        out, **data, weights=weights().source, shards=np.array(names), rule=np.array(rule.value)
    )
    forced = int(mated.sum())
    print(
        f"{len(judged)} distinct quiet positions ({forced} forced results) of {total} judged, "
        f"from {len(np.unique(data['game']))} games of {len(names)} shards; S {judge_scale:g} "
        f"(fitted to the outcomes: {tune.fit_scale(score, outcome):.1f}); the judge calls "
        f"{tune.accuracy(score, outcome):.1%} of the winners, the engine's own evaluation "
        f"{tune.accuracy(data['ev'].astype(np.float64), outcome):.1%}"
    )
    return data


# --------------------------------------------------------------------------- training


def _load_positions(files: list[Path]) -> dict[str, npt.NDArray[Any]]:
    # several feature files as one; game ids are kept apart per file (the held-out split is
    # by game), and the multiset counts only where every file has them
    parts = [dict(np.load(f)) for f in files]
    for i, part in enumerate(parts):
        part["game"] = part["game"].astype(np.int64) + i * 10_000_000
    names = set.intersection(*(set(part) for part in parts)) - {"weights", "rule", "shards"}
    data = {name: np.concatenate([part[name] for part in parts]) for name in names}
    data["file"] = np.concatenate([np.full(len(part["y"]), i) for i, part in enumerate(parts)])
    data["weights"] = parts[0]["weights"] if len(parts) == 1 else np.array("mixed")
    # the rule the positions were counted in: freestyle's unless a file says (shards --rule)
    rules = {str(part.get("rule", Rule.FREESTYLE.value)) for part in parts}
    if len(rules) > 1:
        raise ValueError(f"positions of several rules: {', '.join(sorted(rules))}")
    data["rule"] = np.array(rules.pop())
    return data


def named_weights(name: str) -> Weights:
    """``hand``, ``learned`` (the packaged file, whatever ``$GOMOKU_EVAL_WEIGHTS`` says) or a
    weights file."""
    if name == "hand":
        return hand_weights()
    return load_weights(_weights_text(name), name)


def _weights_text(name: str) -> str:
    # the text of the weights file ``name`` names (the hand-set values written as one)
    if name == "hand":
        return tune.weights_json(tune.theta_of(hand_weights()), {})
    if name == "learned":
        packaged = resources.files("engine.search").joinpath("data", "eval_weights.json")
        return packaged.read_text(encoding="utf-8")
    return Path(name).read_text(encoding="utf-8")


def train(
    positions: list[Path],
    out: Path,
    ridges: list[float],
    holdout: float,
    multiset_ridge: float,
    mine: int,
    fixed_scale: float = 0.0,
    prior: str = "hand",
    min_seen: int = 0,
) -> None:
    """Fit both sides' weights, starting from and pulled towards ``prior``'s (the ridge chosen
    by cross-validation over the training games when there are several); print the held-out
    losses of the hand-set, packaged, prior and fitted values; write the weights file."""
    t0 = time.perf_counter()
    data = _load_positions(positions)
    counts, mover, y = data["counts"], data["mover"], data["y"].astype(np.float64)
    game = data["game"]
    x = tune.design(counts, mover, mine)
    xd = x.astype(np.float64)
    multiset = multiset_ridge > 0 and "m_len" in data
    if multiset:
        row = np.repeat(np.arange(len(y)), data["m_len"])
        col = data["m_col"].astype(np.int64)
        columns = np.nonzero(np.bincount(col, minlength=2 * tune.NMULTI))[0]  # those ever seen
        xm = tune.multiset_design(row, col, data["m_val"], mover, columns, mine)
    ref = weights()
    if str(data["weights"]) == ref.source and len(y) and ref.net is None:
        # the model's evaluation against the kernels', for the weights the data was made with
        model = tune.design(counts, mover, ref.mine).astype(np.float64) @ tune.theta_of(ref)
        if multiset:
            model += (
                tune.multiset_design(row, col, data["m_val"], mover, columns, ref.mine)
                @ tune.residual_of(ref)[columns]
            )
        worst = float(np.max(np.abs(model - data["ev"])))
        print(f"check: counts x weights against the kernels' evaluation, worst gap {worst:.2f}")
    valid = (game.astype(np.int64) * 2654435761 % 1000) < holdout * 1000  # by game
    tr = ~valid
    start = named_weights(prior)
    if start.multiset.any():
        sys.exit(f"{prior}: a prior with multiset corrections is not supported")
    theta0 = tune.theta_of(start)
    theta_hand = tune.theta_of(hand_weights())
    # K is fitted to the hand-set values as the engine has always mixed them (mine = 5), so the
    # new values keep the units the search's windows and the levels' noise are set in
    z_hand = tune.design(counts, mover).astype(np.float64) @ theta_hand
    scale = fixed_scale or tune.fit_scale(z_hand[tr], y[tr])
    print(
        f"{len(y)} positions ({int(tr.sum())} train, {int(valid.sum())} held out) from "
        f"{len(np.unique(game))} games ({len(np.unique(game[valid]))} held out)"
    )
    print(f"K ({'given' if fixed_scale else 'hand-set values'}): {scale:.1f}")
    # the pull towards the prior's values, relative to each value's size: with little data it
    # moves only what the data insists on (a pattern seen in a few hundred positions keeps
    # about its value)
    ridge_weight = ridges[0]
    if len(ridges) > 1:
        ridge_weight, cv = tune.choose_ridge(x[tr], y[tr], game[tr], scale, theta0, ridges)
        print(
            "ridge by 5-fold cross-validation over the training games: "
            + ", ".join(f"{r:g} {c:.5f}" for r, c in zip(ridges, cv, strict=True))
            + f"; chosen {ridge_weight:g}"
        )
    theta, steps = tune.fit(x[tr], y[tr], scale, theta0, tune.relative_ridge(theta0, ridge_weight))
    seen = (counts > 0).sum(axis=0)
    # a value met in a handful of positions (a four-three among openings) says nothing: the
    # fit would move it wherever its few positions' other values leave room
    rare = seen.ravel() < min_seen
    theta[rare] = theta0[rare]
    z_new = xd @ np.round(theta)
    print(f"fitted towards {prior}'s values ({steps} Newton steps, ridge {ridge_weight:g})")
    # every candidate on the same held-out games, each with its own mix
    rivals = {"hand": hand_weights(), "learned": named_weights("learned")}
    rivals.setdefault(prior, start)
    held: dict[str, tuple[float, float, float]] = {}
    for name, w in rivals.items():
        z = tune.design(counts, mover, w.mine).astype(np.float64) @ tune.theta_of(w)
        held[name] = _figures(z, y, tr, valid, scale)
    held["fitted"] = _figures(z_new, y, tr, valid, scale)
    for name, (train_loss, held_loss, right) in held.items():
        print(
            f"{name:>8}: loss train {train_loss:.5f}, held out {held_loss:.5f}; "
            f"held-out winner called {right:.1%}"
        )
    print(f"K refitted to the new values: {tune.fit_scale(z_new[tr], y[tr]):.1f}")
    names = ["NONE", "B1", "F1", "B2", "F2", "B3", "F3", "B4", "F4", "FIVE", "OVERLINE", "4x4"]
    classes = ["none", "two", "two+", "F3", "F3+", "F3F3", "B4", "B4+", "B4F3", "flex4", "five"]
    for s, side in enumerate(("black", "white")):
        print(
            f"{side} ({prior}->new, positions with one): "
            + ", ".join(
                f"{name} {int(theta0[s * tune.NFEAT + i])}->{round(theta[s * tune.NFEAT + i])}"
                f" ({int(seen[s, i])})"
                for i, name in enumerate(names + classes)
            )
        )
    info: dict[str, float | int] = {
        "positions": int(tr.sum()),
        "held_out": int(valid.sum()),
        "K": round(scale, 1),
        "loss_hand": round(held["hand"][1], 5),
        "loss_fitted": round(held["fitted"][1], 5),
    }
    if prior != "hand":
        info |= {"loss_prior": round(held[prior][1], 5), "ridge": ridge_weight}
    residual = None
    if multiset:
        # the multiset corrections on top of the rounded structured values, each pulled
        # towards zero: where the data is thin a point keeps its patterns' and class's value
        r, steps = tune.fit_residual(xm[tr], y[tr], scale, z_new[tr], multiset_ridge)
        residual = np.zeros(2 * tune.NMULTI)
        residual[columns] = np.round(r)
        z_multi = z_new + xm.astype(np.float64) @ residual[columns]
        loss_multi = (
            tune.loss(z_multi[tr], y[tr], scale),
            tune.loss(z_multi[valid], y[valid], scale),
        )
        print(
            f"with multiset corrections ({len(columns)} seen, ridge {multiset_ridge:g}, {steps} "
            f"Newton steps): train {loss_multi[0]:.5f}, held out {loss_multi[1]:.5f}; "
            f"largest {int(np.abs(residual).max())}, rms {float(np.sqrt(np.mean(r**2))):.1f}"
        )
        info |= {"multiset_ridge": multiset_ridge, "loss_multiset": round(loss_multi[1], 5)}
    elapsed = time.perf_counter() - t0
    if mine != 5:
        info["mine"] = mine
    text = tune.weights_json(theta, info, residual, mine)
    load_weights(text, str(out))  # what the engine will accept
    out.write_text(text)
    print(f"wrote {out} in {elapsed:.1f} s")


def net(
    positions: list[Path],
    out: Path,
    prior: str,
    hidden: int,
    epochs: int,
    holdout: float,
    scale: float,
    seed: int,
    rule: Rule = Rule.FREESTYLE,
    from_prior: bool = False,
    average: bool = False,
    file_weights: list[float] | None = None,
) -> None:
    """Fit the evaluation network over ``prior``'s values to the judge's winning chances of
    ``positions``; print the held-out losses of the linear evaluation and the network; write
    ``prior``'s values with the network as a weights file. For freestyle the network is the
    file's ``"net"``; for another rule the file is the prior's, whole, with the network as
    that rule's entry of ``"nets"``. With ``from_prior`` the fit starts from the network the
    rule evaluates with in the prior (and keeps it if no epoch does better on the held-out
    games). With ``average`` the network reads each side's sum as the mean of the position's and
    the one's before its last move (``GOMOKU_EVAL_AVG``; the positions need ``pcounts``,
    which ``shards`` writes), and the prior's network is scored on the position's own sums.
    ``file_weights`` (one a file of ``positions``) makes each file's positions count that much
    in the fit and in the held-out loss that picks its epoch. With several files the held-out
    losses are also printed file by file.

    Raises:
        ValueError: the positions were counted in another rule than ``rule``, or the
            file weights are not one a file, each above zero.
    """
    t0 = time.perf_counter()
    if file_weights is not None and (len(file_weights) != len(positions) or min(file_weights) <= 0):
        raise ValueError("give one weight above zero for each file of positions")
    data = _load_positions(positions)
    if str(data["rule"]) != rule.value:
        raise ValueError(f"the positions are {data['rule']}'s, not {rule.value}'s")
    counts, mover, y = data["counts"], data["mover"], data["y"].astype(np.float64)
    game, source = data["game"], data["file"]
    valid = (game.astype(np.int64) * 2654435761 % 1000) < holdout * 1000  # by game
    weight = None if file_weights is None else np.asarray(file_weights, np.float64)[source]

    def by_file(logits: npt.NDArray[np.float64]) -> str:
        if len(positions) == 1:
            return ""
        held = []
        for i, path in enumerate(positions):
            rows = valid & (source == i)
            if rows.any():
                held.append(f"{path.name} {tune.loss(logits[rows], y[rows], 1.0):.5f}")
        return " (" + ", ".join(held) + ")"

    base = named_weights(prior)
    x = tune.net_inputs(counts, mover, base)
    if average and "pcounts" not in data:
        raise ValueError("averaged sums need the counts before each last move (shards writes them)")
    fit_x = tune.net_inputs(counts, mover, base, data["pcounts"]) if average else x
    print(
        f"{len(y)} positions ({int((~valid).sum())} train, {int(valid.sum())} held out) from "
        f"{len(np.unique(game))} games"
    )
    linear = tune.design(counts, mover, base.mine).astype(np.float64) @ tune.theta_of(base)
    k_linear = tune.fit_scale(linear[~valid], y[~valid])
    print(
        f"{prior} values, linear (K {k_linear:.0f}): held out "
        f"{tune.loss(linear[valid], y[valid], k_linear):.5f}"
    )
    prior_net = base.net_for(rule)
    if prior_net is not None:
        # the network the rule evaluates with in the prior, on the same held-out positions:
        # the figure to beat
        shipped = tune.net_logits(prior_net, x)
        print(
            f"{prior} network for {rule.value}, {len(prior_net.b1)} units: train "
            f"{tune.loss(shipped[~valid], y[~valid], 1.0):.5f}, held out "
            f"{tune.loss(shipped[valid], y[valid], 1.0):.5f}{by_file(shipped)}"
        )
    if from_prior and prior_net is None:
        raise ValueError(f"{prior} has no network to start from")
    start = prior_net if from_prior else None
    fitted, epoch, history = tune.fit_net(
        fit_x, y, valid, hidden, epochs, seed, scale=scale, start=start, weight=weight
    )
    print(
        "network held-out loss by epoch: "
        + " ".join(f"{h:.4f}" for h in history)
        + f"; kept epoch {epoch + 1}"
    )
    logits = tune.net_logits(fitted, fit_x)
    held = tune.loss(logits[valid], y[valid], 1.0)
    print(
        f"network, {hidden} units: train {tune.loss(logits[~valid], y[~valid], 1.0):.5f}, "
        f"held out {held:.5f}{by_file(logits)}"
    )
    info = {
        "positions": int((~valid).sum()),
        "held_out": int(valid.sum()),
        "loss_linear": round(tune.loss(linear[valid], y[valid], k_linear), 5),
        "loss_net": round(held, 5),
        "epoch": epoch + 1,
    }
    if average:
        info["average"] = True
    if file_weights is not None:
        for path, w in zip(positions, file_weights, strict=True):
            info[f"weight of {path.name}"] = w
    if rule is Rule.FREESTYLE:
        text = tune.net_json(tune.theta_of(base), base.mine, fitted, info, prior)
    else:
        text = tune.rule_net_json(_weights_text(prior), rule.value, fitted, info)
    load_weights(text, str(out))  # what the engine will accept
    out.write_text(text)
    print(f"wrote {out} in {time.perf_counter() - t0:.1f} s")


def _figures(
    z: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    tr: npt.NDArray[np.bool_],
    valid: npt.NDArray[np.bool_],
    scale: float,
) -> tuple[float, float, float]:
    # training loss, held-out loss, held-out share of winners called
    return (
        tune.loss(z[tr], y[tr], scale),
        tune.loss(z[valid], y[valid], scale),
        tune.accuracy(z[valid], y[valid]),
    )


# --------------------------------------------------------------------------- duel


def duel(
    first: str,
    second: str,
    level: str,
    matches: int,
    seed: int,
    games: int,
    rule: Rule,
    turn_ms: int,
) -> None:
    """``matches`` matches (every match opening, both colours) at once, level ``level``
    with ``first``'s weights against ``second``'s; W-D-L from ``first``'s side."""
    from engine.gomocup.match import MatchConfig, elo_difference, run_match

    def spec(chosen: str, label: str, s: int) -> EngineSpec:
        argv = ("env", f"{WEIGHTS_ENV}={chosen}", sys.executable, "-m", "engine.pbrain")
        return EngineSpec(label, (*argv, "--level", level, "--seed", str(s)))

    config = MatchConfig(rule=rule, turn_ms=turn_ms, grace_ms=max(2000, turn_ms))
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
                f"{first} vs {second}, level {level}, {rule.value}: {w}-{d}-{lo} (W-D-L), "
                f"score {score:.1%}, Elo {elo:+.0f} +/- {err:.0f}",
                flush=True,
            )


def main() -> int:
    """Parse the subcommand and run it."""
    from tools.judge import add_judge_options

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("gen", help="play self-play games")
    p.add_argument("--minutes", type=float, default=5.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("games.npz"))
    p = sub.add_parser("psq", help="turn PSQ match records into a games file")
    p.add_argument("records", type=Path, nargs="+", help="PSQ files or folders of them")
    p.add_argument("--out", type=Path, default=Path("games.npz"))
    p = sub.add_parser("features", help="count the patterns of the quiet positions")
    p.add_argument("games", type=Path)
    p.add_argument("--out", type=Path, default=Path("positions.npz"))
    p.add_argument("--workers", type=int, default=2)
    p = sub.add_parser("label", help="a judge engine's opinion of the quiet positions")
    p.add_argument("games", type=Path)
    add_judge_options(p, time_ms=150)
    p.add_argument("--positions", type=int, default=16000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="judges asked at the same time")
    p.add_argument("--out", type=Path, default=Path("labelled.npz"))
    p = sub.add_parser("opening", help="judged positions of 3 to 10 stones, for opening values")
    add_judge_options(p, time_ms=150)
    p.add_argument("--lines", type=int, default=2, help="lines walked from each opening")
    p.add_argument("--openings", type=int, default=0, help="the first N openings only (0: all)")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--jobs", type=int, default=1, help="judges asked at the same time")
    p.add_argument("--out", type=Path, default=Path("opening.npz"))
    p = sub.add_parser("train", help="fit the weights")
    p.add_argument("positions", type=Path, nargs="+")
    p.add_argument("--out", type=Path, default=Path("engine/search/data/eval_weights.json"))
    p.add_argument(
        "--ridge",
        type=float,
        nargs="+",
        default=[1e-4],
        help="pull towards the prior's values; several: chosen by cross-validation",
    )
    p.add_argument(
        "--prior",
        default="hand",
        help="values the fit starts from and is pulled towards: hand, learned or a file",
    )
    p.add_argument("--holdout", type=float, default=0.1)
    p.add_argument(
        "--multiset-ridge",
        type=float,
        default=1e-8,
        help="pull of the multiset corrections towards zero (0: fit none)",
    )
    p.add_argument(
        "--mine", type=int, default=5, help="evaluate (MINE * ours - 4 * theirs) / 4 (5: as ever)"
    )
    p.add_argument(
        "--scale",
        type=float,
        default=0.0,
        help="K, given (for labels sharper than game outcomes); 0: fit it to the hand-set values",
    )
    p.add_argument(
        "--min-seen",
        type=int,
        default=0,
        help="values met in fewer positions than this keep the prior's",
    )
    p = sub.add_parser("net", help="fit the evaluation network over a set of values")
    p.add_argument("positions", type=Path, nargs="+")
    p.add_argument("--out", type=Path, default=Path("eval_weights_net.json"))
    p.add_argument("--prior", default="learned", help="the values under it: learned or a file")
    p.add_argument("--hidden", type=int, default=16, help="hidden units")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--holdout", type=float, default=0.2)
    p.add_argument("--scale", type=float, default=1000.0, help="evaluation units a logit")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--rule",
        choices=[r.value for r in datagen.RULES],
        default="freestyle",
        help="the rule the positions are of: beside freestyle, written as that rule's network",
    )
    p.add_argument(
        "--from-prior",
        action="store_true",
        help="start from the prior's network for the rule (its units) instead of random weights",
    )
    p.add_argument(
        "--average",
        action="store_true",
        help="the sums as the mean of the position's and the one's before (GOMOKU_EVAL_AVG)",
    )
    p.add_argument(
        "--file-weights",
        type=float,
        nargs="+",
        help="how much each file's positions count, one a file (1 each unless given)",
    )
    p = sub.add_parser("shards", help="datagen shards' judged positions, for net and train")
    p.add_argument("paths", type=Path, nargs="+", help="folders of shards, or shards' manifests")
    p.add_argument("--out", type=Path, default=Path("labelled.npz"))
    p.add_argument("--judge-scale", type=float, default=JUDGE_SCALE, help="S of sigmoid(score / S)")
    p.add_argument(
        "--static", type=Path, help="label with the static labels in this folder (static_labels.py)"
    )
    p.add_argument(
        "--static-scale",
        type=float,
        default=443.3,
        help="the static labels' units a logit of the judge's (tools/value.py --static prints it)",
    )
    p.add_argument(
        "--certain-mates",
        action="store_true",
        help="a forced result is a winning chance of 1 or 0 (default: a score of +-CLIP)",
    )
    p.add_argument(
        "--labels",
        type=Path,
        help="the shards' judgements made again by tools/relabel.py in this folder (data/relabel)",
    )
    p.add_argument("--label-nodes", type=int, help="the node count of --labels' judgements")
    p.add_argument(
        "--rule",
        choices=[r.value for r in datagen.RULES],
        default="freestyle",
        help="the rule the shards were played in (their positions are counted in it)",
    )
    p = sub.add_parser("duel", help="weights file against weights file, by match")
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--level", default="hard")
    p.add_argument("--matches", type=int, default=2)
    p.add_argument("--games", type=int, default=0, help="games per match (0: all openings)")
    p.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    p.add_argument("--turn-ms", type=int, default=5000, help="time per move (master's limit)")
    p.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.command == "gen":
        gen(args.minutes, args.workers, args.out, args.seed)
    elif args.command == "psq":
        psq(args.records, args.out)
    elif args.command == "features":
        features(args.games, args.out, args.workers)
    elif args.command == "label":
        spec = parse_engine(args.judge, label="judge")
        judge = EngineSpec(spec.label, spec.argv, args.cwd)
        label(args.games, args.out, judge, args.turn_ms, args.positions, args.seed, args.jobs)
    elif args.command == "opening":
        spec = parse_engine(args.judge, label="judge")
        judge = EngineSpec(spec.label, spec.argv, args.cwd)
        opening(args.out, judge, args.turn_ms, args.lines, args.seed, args.jobs, args.openings)
    elif args.command == "train":
        train(
            args.positions,
            args.out,
            args.ridge,
            args.holdout,
            args.multiset_ridge,
            args.mine,
            args.scale,
            args.prior,
            args.min_seen,
        )
    elif args.command == "net":
        try:
            net(
                args.positions,
                args.out,
                args.prior,
                args.hidden,
                args.epochs,
                args.holdout,
                args.scale,
                args.seed,
                Rule(args.rule),
                args.from_prior,
                args.average,
                args.file_weights,
            )
        except ValueError as error:
            sys.exit(f"error: {error}")
    elif args.command == "shards":
        if (args.labels is None) != (args.label_nodes is None):
            sys.exit("error: --labels and --label-nodes go together")
        if args.labels is not None and args.static is not None:
            sys.exit("error: --labels and --static each replace the judgements: name one")
        try:
            shards_positions(
                args.paths,
                args.out,
                args.judge_scale,
                args.certain_mates,
                Rule(args.rule),
                None if args.static is None else (args.static, args.static_scale),
                None if args.labels is None else (args.labels, args.label_nodes),
            )
        except (ValueError, RuntimeError) as error:
            sys.exit(f"error: {error}")
    else:
        duel(
            args.first,
            args.second,
            args.level,
            args.matches,
            args.seed,
            args.games,
            Rule(args.rule),
            args.turn_ms,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
