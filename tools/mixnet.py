"""A Mixnet-class evaluation for the search: a learned feature vector per point code, summed
over a point's four directions, pooled over the board into a value head, with a policy head
that scores every empty point. Numpy only; fitted on the CPU to ``tools/datagen.py``'s shards.

    python tools/mixnet.py train data/selfplay [data/matches/shard-00000.json ...] [--epochs 8] \\
        [--features 16] [--holdout 0.1] [--inputs distance,threat,offset,window] [--decay L] \\
        [--batch 128] [--rule freestyle] [--out mixnet.npz]

The model reads what the kernels already keep for every empty point: its line pattern in each
of the four directions for the side to move and for the other side (12 patterns each,
``engine.search._layout``), one of 144 codes per direction.

* **Point features**: ``h_p = sum_d E[code(p, d)] + b``, ``a_p = relu(h_p)``: ``F`` numbers a
  point (``E`` is 144 x F). It can be kept incrementally: a move changes the patterns of
  the points within four of it on its lines, and each changed code moves ``h_p`` by the
  difference of two rows of ``E``, as the kernels' running sums of values move today.
* **Other inputs** (``--inputs``, ``INPUTS``): more rows of ``E`` that a point adds to its
  sum, one for each term: its distance to the last move and to the one before (bucketed),
  its threat class for each side as a pair (the four directions together), its exact offset
  from those two moves, and its line window in each direction (the four points on each side,
  each empty, the side to move's, the other's or off the board; a window and its mirror image
  share a row: 32,896 rows, which start at zero and ``--decay`` pulls back towards it). A fit
  saves the names it reads (``inputs``) and ``evaluate`` reads them back. The search's
  kernels read the distances, the threat pair and the windows too
  (``engine.search.evaluate.POLICY_INPUTS`` and ``WINDOW_INPUT``) but not the offsets:
  ``export`` keeps the names in the policy file, and refuses a fit that reads the offsets.
* **Value**: the sum of ``a_p`` over the empty points (over ``POOL``), through one hidden
  ReLU layer, to a logit: the side to move's winning chance, fitted to the judge's
  (``sigmoid(judge / S)``, ``S = JUDGE_SCALE``), a forced result counting as certain.
* **Policy**: ``u . a_p`` over the empty points, a softmax fitted to the judge's move;
  in the search it orders (and prunes) the candidates.

``train`` holds out whole games and prints, each epoch, the held-out value and policy losses
and the share of the judge's moves the policy ranks first and within 5 among the empty points;
then the baselines on the same held-out positions: the value loss of the labels' mean and of
the search's own evaluation, and the hand-set ordering's ranks against the policy's among the
search's candidates. ``--split-after K`` holds out the games of the first K shards named
exactly as a fit to those K alone held them out, so that a refit on more shards can be
compared with that fit on games neither saw. ``--policy-weight`` weighs the policy's loss
beside the value's. ``export`` keeps a fit's policy as the search reads it (the search
orders its candidates by it; its value head is not used yet; docs/engine.md, "The learned
move policy"):

    python tools/mixnet.py export mixnet.npz [--out engine/search/data/policy.npz]

``evaluate`` measures fits or exported policies on the held-out games of the same split
(policy loss, the judge's move first and within 5 among the empty points and among the
search's candidates, and how many candidates a cut of 3 and of 3.5 logits below the best keeps
on average and how often it leaves out the judge's move):

    python tools/mixnet.py evaluate SHARDS... --holdout 0.2 [--split-after K] [--rule standard] \
        --policy engine/search/data/policy.npz --policy mixnet.npz

``--rule`` (``train`` and ``evaluate``; freestyle by default, or another of
``tools.datagen.RULES``) names the rule the shards were played in: their positions are
counted with that rule's tables (in standard an overline is no five; in renju Black's lines
see the forbidden shapes), the search's evaluation and candidates they are measured against
are that rule's, and a shard whose manifest names another rule is refused (a manifest without
a rule is freestyle's), so a fit never mixes rules. A fit records its rule (an array
``rule``) and ``export`` keeps it in the policy file; the search's loader passes over it (the
search orders by the one policy it is given, in each rule of ``POLICY_RULES``,
``engine.search.evaluate``). ``evaluate`` names the rule each policy was fitted in (freestyle
where the file names none), so that one fitted in one rule can be measured on another's games.

``--labels DIR --label-nodes N`` (``train`` and ``evaluate``) reads every shard's judgements
from ``tools/relabel.py``'s labels at N nodes in DIR (``DIR/<shard folder's name>-N``) in place
of the shard's own; a shard without them is refused.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.evaluate import POLICY_INPUTS, WINDOW_INPUT, tables, window_rows
from engine.types import Color, Point, Rule
from tools.datagen import RULES, judged_lines

SIZE = 15
POINTS = SIZE * SIZE
NPAT = 12  # line patterns a side and direction (engine.search._layout: NONE ... FOUR_FOUR)
NCODE = NPAT * NPAT  # a direction's code: the side to move's pattern * 12 + the other's
POOL = 16.0  # the value head reads the sum of the points' features / POOL: a mean over some
# 200 empty points would drown the few that decide a position
JUDGE_SCALE = 515.6  # Rapfi 0.43.02 classical's scale (tools/tune_eval.py's fit)
MATE = 30000
NP4 = 11  # threat classes of a point a side (engine.search._layout: NONE ... FIVE)
NEAR = k.POL_NEAR  # distance buckets: Chebyshev distance 1, 2, 3, 4 or more (or no such move)
SPAN = 2 * NEAR + 1  # offsets: the squares of side SPAN around a move, then one code for far
# the input terms a fit may add to a point's four direction codes, in their order among the
# rows of E after the NCODE direction codes, with their rows: the point's distance to the last
# move and to the one before (the other side's last stone, then one's own), and its threat
# class for each side as a pair (the side to move's * NP4 + the other's, the four directions
# together), its exact offset from the last move and from the one before (within NEAR
# either way, or far), and its line window in each direction (the four points on each side
# from the side to move's view, a window and its mirror image one row: the search's
# ``engine.search.evaluate.window_rows``)
WINDOW_INDEX, NWINDOW = window_rows()
INPUTS = {
    "distance": 2 * NEAR,
    "threat": NP4 * NP4,
    "offset": 2 * (SPAN * SPAN + 1),
    WINDOW_INPUT: NWINDOW,
}
EXTRA = 9  # point_inputs' other inputs a point: distances, threat pair, offsets, windows
# the cuts ``evaluate`` reports on: the search's 3 logits (``GOMOKU_POLICY_CUT``), and 3.5, as
# the same cut orders a policy whose logits are scaled by 6/7
CUTS = (3.0, 3.5)
F32 = npt.NDArray[np.float32]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
Rows = npt.NDArray[np.integer[Any]]  # the rows of E each point sums (``columns``)


# --------------------------------------------------------------------------- features


def point_codes(
    moves: Sequence[int], rule: Rule = Rule.FREESTYLE
) -> tuple[I16, npt.NDArray[np.bool_]]:
    """After ``moves`` (``y * SIZE + x``) in ``rule``, each point's code in each direction
    from the side to move's view (``POINTS x 4``, 0 on occupied points) and which points are
    empty."""
    codes, _, empty = point_inputs(moves, rule)
    return codes, empty


def distance_buckets(move: int) -> npt.NDArray[np.int16]:
    """Each point's Chebyshev distance to ``move`` (-1: none) as a bucket, 0 to NEAR - 1 for a
    distance of 1 to NEAR or more (none counts as far)."""
    if move < 0:
        return np.full(POINTS, NEAR - 1, dtype=np.int16)
    y, x = np.divmod(np.arange(POINTS), SIZE)
    far = np.maximum(np.abs(y - move // SIZE), np.abs(x - move % SIZE))
    buckets: I16 = (np.clip(far, 1, NEAR) - 1).astype(np.int16)
    return buckets


def offsets(move: int) -> npt.NDArray[np.int16]:
    """Each point's offset from ``move`` (-1: none), ``(dy + NEAR) * SPAN + dx + NEAR`` within
    NEAR in both directions, else ``SPAN * SPAN`` (far)."""
    if move < 0:
        return np.full(POINTS, SPAN * SPAN, dtype=np.int16)
    y, x = np.divmod(np.arange(POINTS), SIZE)
    dy, dx = y - move // SIZE, x - move % SIZE
    near = (np.abs(dy) <= NEAR) & (np.abs(dx) <= NEAR)
    code: I16 = np.where(near, (dy + NEAR) * SPAN + dx + NEAR, SPAN * SPAN).astype(np.int16)
    return code


def point_inputs(
    moves: Sequence[int], rule: Rule = Rule.FREESTYLE
) -> tuple[I16, I32, npt.NDArray[np.bool_]]:
    """``point_codes``'s codes, the other inputs (``POINTS x EXTRA``: the distance buckets to
    the last move and to the one before, the threat-class pair from the side to move's view,
    the offsets from the last move and the one before, and the window row of each direction;
    0 on occupied points) and which points are empty. The patterns and threat classes are
    ``rule``'s kernels' (in standard an overline is no five; in renju Black's lines also see
    the forbidden shapes); the windows are read from the kernels' line keys."""
    pos = Position(SIZE, SIZE, tables(rule), tt_size=16)
    for m in moves:
        pos.play_index(pos.index(Point(m % SIZE, m // SIZE)))
    me = 0 if pos.side is Color.BLACK else 1
    threat = [pos.tables.threat[ci, pos.cell[:, k.R_CODE + ci]] for ci in (me, 1 - me)]
    codes = np.zeros((POINTS, 4), dtype=np.int16)
    extra = np.zeros((POINTS, EXTRA), dtype=np.int32)
    shift = 2 * (pos.tables.half - k.WIN_HALF)
    last, before = (moves[-1] if moves else -1), (moves[-2] if len(moves) > 1 else -1)
    extra[:, 0], extra[:, 1] = distance_buckets(last), distance_buckets(before)
    extra[:, 3], extra[:, 4] = offsets(last), offsets(before)
    empty = np.zeros(POINTS, dtype=bool)
    for y in range(SIZE):
        for x in range(SIZE):
            p = pos.index(Point(x, y))
            if pos.b[p] != 0:
                continue
            empty[y * SIZE + x] = True
            for d in range(4):
                mine = int(pos.cell[p, k.R_PAT + me * 4 + d])
                theirs = int(pos.cell[p, k.R_PAT + (1 - me) * 4 + d])
                codes[y * SIZE + x, d] = mine * NPAT + theirs
            extra[y * SIZE + x, 2] = int(threat[0][p]) * NP4 + int(threat[1][p])
            for d in range(4):
                raw = (int(pos.cell[p, d]) >> shift) & 0xFFFF
                if me == 1:  # the line keys hold 1 for Black, 2 for White
                    raw = ((raw & 0x5555) << 1) | ((raw >> 1) & 0x5555)
                extra[y * SIZE + x, 5 + d] = WINDOW_INDEX[raw]
    extra[~empty] = 0
    return codes, extra, empty


def columns(codes: I16, extra: I32, inputs: Sequence[str]) -> Rows:
    """The rows of ``E`` a point sums (``... x POINTS x C``): its four direction codes, then
    one row for each of its other ``inputs`` (names of ``INPUTS``, in that order), each
    term's rows after the last's."""
    parts: list[Rows] = [codes]
    row = NCODE
    for name in INPUTS:
        if name not in inputs:
            continue
        if name == "distance":
            parts += [extra[..., 0:1] + row, extra[..., 1:2] + row + NEAR]
        elif name == "offset":
            parts += [extra[..., 3:4] + row, extra[..., 4:5] + row + SPAN * SPAN + 1]
        elif name == WINDOW_INPUT:
            parts.append(extra[..., 5:9] + row)
        else:
            parts.append(extra[..., 2:3] + row)
        row += INPUTS[name]
    return np.concatenate(parts, axis=-1).astype(np.int32) if len(parts) > 1 else codes


def input_rows(inputs: Sequence[str]) -> int:
    """The rows of ``E`` for ``inputs``: the direction codes' and each term's."""
    return NCODE + sum(rows for name, rows in INPUTS.items() if name in inputs)


def engine_eval(moves: Sequence[int], rule: Rule = Rule.FREESTYLE) -> int:
    """The search's own static evaluation after ``moves`` in ``rule``, from the side to
    move's view."""
    pos = Position(SIZE, SIZE, tables(rule), tt_size=16)
    for m in moves:
        pos.play_index(pos.index(Point(m % SIZE, m // SIZE)))
    return pos.evaluate()


def engine_value_loss(train: Samples, test: Samples, rule: Rule = Rule.FREESTYLE) -> float:
    """The held-out value loss of the search's own evaluation in ``rule``, sigmoid(eval / K)
    with K fitted on ``train``: the figure a learned value must beat."""
    from tools.tune import fit_scale, loss

    scale = fit_scale(engine_evals(train, rule), train.value.astype(np.float64))
    return float(loss(engine_evals(test, rule), test.value.astype(np.float64), scale))


def engine_evals(data: Samples, rule: Rule = Rule.FREESTYLE) -> npt.NDArray[np.float64]:
    """The search's own static evaluation of each position of ``data`` in ``rule``."""
    return np.array(
        [engine_eval([int(m) for m in row if m >= 0], rule) for row in data.history],
        dtype=np.float64,
    )


@dataclass(frozen=True, slots=True)
class Samples:
    """Positions as the model reads them."""

    codes: I16  # N x POINTS x 4
    extra: I32  # N x POINTS x EXTRA: point_inputs' other inputs
    empty: npt.NDArray[np.bool_]  # N x POINTS
    value: F32  # N: the side to move's winning chance
    move: npt.NDArray[np.int32]  # N: the judge's move (-1: none, or not an empty point)
    game: npt.NDArray[np.int32]  # N: the game (held out whole)
    history: I16  # N x POINTS: the moves that made the position, then -1


def samples(arrays: dict[str, Any], game_offset: int = 0, rule: Rule = Rule.FREESTYLE) -> Samples:
    """The judged positions of one shard (``tools.datagen.load_shard``'s arrays, a children
    or leaves shard's too), counted in ``rule``, the rule its games were played in."""
    lines = judged_lines(arrays)
    n = len(arrays["game"])
    codes = np.zeros((n, POINTS, 4), dtype=np.int16)
    extra = np.zeros((n, POINTS, EXTRA), dtype=np.int32)
    empty = np.zeros((n, POINTS), dtype=bool)
    move = np.full(n, -1, dtype=np.int32)
    history = np.full((n, POINTS), -1, dtype=np.int16)
    for i, moves in enumerate(lines):
        history[i, : len(moves)] = moves
        codes[i], extra[i], empty[i] = point_inputs(moves, rule)
        judged = int(arrays["judge_move"][i])
        if judged >= 0 and empty[i, judged]:
            move[i] = judged
    score = np.clip(arrays["judge"].astype(np.float64), -MATE, MATE)
    value = 1 / (1 + np.exp(-score / JUDGE_SCALE))
    return Samples(
        codes,
        extra,
        empty,
        value.astype(np.float32),
        move,
        (arrays["game"] + game_offset).astype(np.int32),
        history,
    )


# --------------------------------------------------------------------------- the model


def init_params(features: int, hidden: int, seed: int, rows: int = NCODE) -> dict[str, F32]:
    """Small random weights, ``rows`` rows of ``E`` (``input_rows``)."""
    rng = np.random.default_rng(seed)

    def r(*shape: int, scale: float) -> F32:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    return {
        "E": r(rows, features, scale=0.3),
        "b": np.zeros(features, dtype=np.float32),
        "W1": r(features, hidden, scale=1 / np.sqrt(features)),
        "b1": np.zeros(hidden, dtype=np.float32),
        "w2": r(hidden, scale=1 / np.sqrt(hidden)),
        "b2": np.zeros(1, dtype=np.float32),
        "u": r(features, scale=0.1),
    }


def loss_and_grads(
    params: Mapping[str, npt.NDArray[np.floating[Any]]],
    codes: Rows,
    empty: npt.NDArray[np.bool_],
    value: F32,
    move: npt.NDArray[np.int32],
    policy_weight: float = 1.0,
) -> tuple[float, float, dict[str, npt.NDArray[np.float64]]]:
    """The mean value loss (cross-entropy against ``value``) and policy loss (cross-entropy
    of the softmax over empty points against ``move``, over the positions that have one),
    and the gradient of ``value loss + policy_weight * policy loss``."""
    p = {name: array.astype(np.float64) for name, array in params.items()}
    n = codes.shape[0]
    mask = empty.astype(np.float64)  # N x P
    count = np.full(n, POOL)  # the pooling's divisor: a sum, in units of POOL points
    h = p["E"][codes].sum(axis=2) + p["b"]  # N x P x F
    a = np.maximum(h, 0.0) * mask[:, :, None]
    pooled = a.sum(axis=1) / count[:, None]  # N x F
    z1 = pooled @ p["W1"] + p["b1"]
    r1 = np.maximum(z1, 0.0)
    logit = r1 @ p["w2"] + p["b2"][0]
    chance = 1 / (1 + np.exp(-logit))
    eps = 1e-9
    v_loss = -np.mean(value * np.log(chance + eps) + (1 - value) * np.log(1 - chance + eps))
    # the derivative of that loss itself (eps included), chance's own being chance * (1 - chance)
    d_logit = (
        -(value / (chance + eps) - (1 - value) / (1 - chance + eps)) * chance * (1 - chance) / n
    )
    # policy
    scores = a @ p["u"]  # N x P
    scores = np.where(empty, scores, -np.inf)
    has = move >= 0
    m = max(int(has.sum()), 1)
    top = scores.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    ex = np.where(empty, np.exp(scores - top), 0.0)
    soft = ex / np.maximum(ex.sum(axis=1, keepdims=True), eps)
    rows = np.nonzero(has)[0]
    p_loss = float(-np.sum(np.log(soft[rows, move[rows]] + eps)) / m)
    d_scores = soft.copy()
    d_scores[rows, move[rows]] -= 1.0
    # the loss reads log(p + eps): its gradient is p / (p + eps) times log p's, which matters
    # where the move judged is one the policy all but rules out
    picked = soft[rows, move[rows]]
    d_scores[rows] = d_scores[rows] * (picked / (picked + eps))[:, None]
    d_scores[~has] = 0.0
    d_scores *= policy_weight / m
    # backward
    grads: dict[str, npt.NDArray[np.float64]] = {}
    grads["b2"] = np.array([d_logit.sum()])
    grads["w2"] = r1.T @ d_logit
    d_r1 = np.outer(d_logit, p["w2"]) * (z1 > 0)
    grads["W1"] = pooled.T @ d_r1
    grads["b1"] = d_r1.sum(axis=0)
    d_pooled = d_r1 @ p["W1"].T  # N x F
    grads["u"] = np.einsum("np,npf->f", d_scores, a)
    d_a = d_pooled[:, None, :] / count[:, None, None] + d_scores[:, :, None] * p["u"]
    d_h = d_a * (h > 0) * mask[:, :, None]  # N x P x F
    grads["b"] = d_h.sum(axis=(0, 1))
    grads["E"] = row_grads(p["E"], codes, d_h)
    return float(v_loss), p_loss, grads


def row_grads(
    e: npt.NDArray[np.float64], rows: npt.NDArray[np.integer[Any]], d_h: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """The gradient of ``e`` (its rows a point sums) from each point's gradient ``d_h`` (``N x
    POINTS x F``), through the rows each point reads (``rows``, ``N x POINTS x C``)."""
    d_e = np.zeros_like(e)
    flat_rows = rows.reshape(-1, rows.shape[-1])
    flat_dh = d_h.reshape(-1, d_h.shape[-1])
    moved = np.any(flat_dh != 0, axis=1)  # occupied points and dead features add nothing
    flat_rows, flat_dh = flat_rows[moved], flat_dh[moved]
    # one bincount a column and feature: np.add.at is many times slower over 30,000 rows
    for column in range(flat_rows.shape[1]):
        for feature in range(flat_dh.shape[1]):
            d_e[:, feature] += np.bincount(
                flat_rows[:, column], weights=flat_dh[:, feature], minlength=e.shape[0]
            )
    return d_e


def policy_logits(
    params: Mapping[str, npt.NDArray[np.floating[Any]]], codes: Rows
) -> npt.NDArray[np.float64]:
    """The policy's score of every point (``... x POINTS``) from the rows of ``E`` it sums
    (``... x POINTS x C``, ``columns``): the forward pass the search's kernels
    (``engine.search._kernels._policy``) repeat in fixed point."""
    e = np.asarray(params["E"], dtype=np.float64)
    h = e[codes].sum(axis=-2) + np.asarray(params["b"], dtype=np.float64)
    out: npt.NDArray[np.float64] = np.maximum(h, 0.0) @ np.asarray(params["u"], dtype=np.float64)
    return out


def ranks(
    params: dict[str, F32], data: Samples, inputs: Sequence[str] = ()
) -> npt.NDArray[np.int64]:
    """The rank (0 = first) the policy gives the judge's move, for the positions with one."""
    scores = np.where(
        data.empty, policy_logits(params, columns(data.codes, data.extra, inputs)), -np.inf
    )
    rows = np.nonzero(data.move >= 0)[0]
    chosen = scores[rows, data.move[rows]]
    better: npt.NDArray[np.int64] = (scores[rows] > chosen[:, None]).sum(axis=1).astype(np.int64)
    return better


def subset(data: Samples, rows: npt.NDArray[np.int64]) -> Samples:
    """The samples ``rows``."""
    return Samples(*(getattr(data, name)[rows] for name in Samples.__slots__))


def held_out_games(
    data: Samples, holdout: float, seed: int, split_at: int = 0
) -> npt.NDArray[np.bool_]:
    """Which samples belong to the held-out share of whole games. With ``split_at`` (a game
    number), the games below it are held out exactly as a fit to those games alone holds
    them out, and the others by the same rule among themselves: a refit on more shards keeps
    an earlier fit's held-out games out of its training, so the two compare on games
    neither saw."""
    games = np.unique(data.game)
    held: list[npt.NDArray[np.int32]] = []
    for part in (games[games < split_at], games[games >= split_at]):
        rng = np.random.default_rng(seed)
        held.append(rng.choice(part, size=int(len(part) * holdout), replace=False))
    return np.isin(data.game, np.concatenate(held))


def against_hand(
    params: Mapping[str, F32],
    data: Samples,
    inputs: Sequence[str] = (),
    rule: Rule = Rule.FREESTYLE,
) -> tuple[int, list[float], list[float]]:
    """The policy against the search's hand-set ordering (``tools.tune_order``) on the
    positions where that ordering is defined (no five to make, the judge's move among the
    candidates: the empty points within two of a stone): how many, and for each ordering the
    share of judge's moves ranked first and within 5, ties counted against it. The positions
    are ``rule``'s."""
    hand, ours, _ = candidate_ranks(params, data, inputs, rule)

    def tops(r: npt.NDArray[np.int64]) -> list[float]:
        return [float(np.mean(r < 1)), float(np.mean(r < 5))] if len(r) else [0.0, 0.0]

    return len(hand), tops(hand), tops(ours)


def paired(
    before: npt.NDArray[np.int64], after: npt.NDArray[np.int64], within: int = 1
) -> tuple[float, float]:
    """How much more often ``after``'s ranks than ``before``'s (the same positions) are below
    ``within``, as a share, and the standard error of that paired difference."""
    diff = (after < within).astype(np.float64) - (before < within).astype(np.float64)
    return float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(len(diff)))


def candidate_ranks(
    params: Mapping[str, F32],
    data: Samples,
    inputs: Sequence[str] = (),
    rule: Rule = Rule.FREESTYLE,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The ranks (0 = first, ties against it) of the judge's move by the hand-set ordering
    and by the policy among the search's candidates, on the positions of ``against_hand``
    (``rule``'s: which positions are over, and where a five can be made, depend on it); and
    the gaps ``cut_figures`` reads (``N x (POINTS + 1)``, in logits): for each of those
    positions the policy's score of its best candidate less its score of the judge's move,
    then less its score of each candidate, NaN past the position's candidates."""
    from tools.tune_order import candidates
    from tools.tune_order import ranks as hand_ranks

    policy = policy_logits(params, columns(data.codes, data.extra, inputs))
    hand: list[int] = []
    ours: list[int] = []
    gaps: list[npt.NDArray[np.float64]] = []
    for i in np.nonzero(data.move >= 0)[0]:
        moves = [int(m) for m in data.history[i] if m >= 0]
        judged = int(data.move[i])
        row = {"m": [[m % SIZE, m // SIZE] for m in moves], "b": [judged % SIZE, judged // SIZE]}
        try:
            c = candidates([row], SIZE, rule)
        except ValueError:
            continue
        hand.append(int(hand_ranks(c, c.hand)[0]))
        stones = np.zeros((SIZE + 4, SIZE + 4), dtype=bool)
        for m in moves:
            stones[m // SIZE + 2, m % SIZE + 2] = True
        near = np.zeros((SIZE, SIZE), dtype=bool)
        for dy in range(5):
            for dx in range(5):
                near |= stones[dy : dy + SIZE, dx : dx + SIZE]
        candidate = near.reshape(-1) & data.empty[i]
        scores = policy[i][candidate]
        ours.append(int((scores >= policy[i, judged]).sum()) - 1)
        gap = np.full(POINTS + 1, np.nan)
        gap[0] = scores.max() - policy[i, judged]
        gap[1 : 1 + len(scores)] = scores.max() - scores
        gaps.append(gap)
    return (
        np.array(hand, dtype=np.int64),
        np.array(ours, dtype=np.int64),
        np.array(gaps).reshape(-1, POINTS + 1),
    )


def cut_figures(gaps: npt.NDArray[np.float64], cut: float) -> tuple[float, float]:
    """From ``candidate_ranks``'s gaps: how many candidates a cut of ``cut`` logits below the
    best keeps on average (the search never cuts some of them: fours, threes, answers), and
    the share of positions where it leaves out the judge's move."""
    if not len(gaps):
        return 0.0, 0.0
    kept = (gaps[:, 1:] <= cut).sum(axis=1)  # NaN compares false
    return float(kept.mean()), float(np.mean(gaps[:, 0] > cut))


def train(
    data: Samples,
    *,
    epochs: int,
    features: int,
    hidden: int,
    holdout: float,
    seed: int,
    batch: int = 128,
    rate: float = 0.01,
    split_at: int = 0,
    policy_weight: float = 1.0,
    inputs: Sequence[str] = (),
    decay: float = 0.0,
    log: Any = print,
) -> dict[str, F32]:
    """Adam on whole shuffled batches, whole games held out (``held_out_games``); prints each
    epoch's figures. ``inputs`` names the terms of ``INPUTS`` the points read beside their
    four direction codes. The window rows (``--inputs window``) start at zero and are pulled
    back towards it by an L2 penalty of ``decay``: most of their 32,896 windows are rare, and a
    rare window should add nothing to what its pattern codes already say."""
    rng = np.random.default_rng(seed)
    test = held_out_games(data, holdout, seed, split_at)
    train_rows, test_rows = np.nonzero(~test)[0], np.nonzero(test)[0]
    if len(test_rows):
        mean = float(np.clip(data.value[train_rows].mean(), 1e-6, 1 - 1e-6))
        y = data.value[test_rows]
        constant = -np.mean(y * np.log(mean) + (1 - y) * np.log(1 - mean))
        log(f"held-out value loss of the training labels' mean: {constant:.4f}")
    params = init_params(features, hidden, seed, input_rows(inputs))
    windows = input_rows(inputs) - NWINDOW if WINDOW_INPUT in inputs else len(params["E"])
    params["E"][windows:] = 0.0
    moments = {name: (np.zeros_like(w), np.zeros_like(w)) for name, w in params.items()}
    step = 0
    for epoch in range(epochs):
        rng.shuffle(train_rows)
        for start in range(0, len(train_rows), batch):
            rows = train_rows[start : start + batch]
            _, _, grads = loss_and_grads(
                params,
                columns(data.codes[rows], data.extra[rows], inputs),
                data.empty[rows],
                data.value[rows],
                data.move[rows],
                policy_weight,
            )
            if decay:
                grads["E"][windows:] += decay * params["E"][windows:]
            step += 1
            adam_step(params, grads, moments, step, rate)
        if len(test_rows):
            v_loss, p_loss, _ = loss_and_grads(
                params,
                columns(data.codes[test_rows], data.extra[test_rows], inputs),
                data.empty[test_rows],
                data.value[test_rows],
                data.move[test_rows],
            )
            r = ranks(params, subset(data, test_rows), inputs)
            log(
                f"epoch {epoch + 1}: held-out value loss {v_loss:.4f}, policy loss {p_loss:.3f},"
                f" judge's move first {np.mean(r == 0):.1%}, within 5 {np.mean(r < 5):.1%}"
            )
    return params


def adam_step(
    params: dict[str, Any],
    grads: Mapping[str, npt.NDArray[np.float64]],
    moments: Mapping[str, tuple[Any, Any]],
    step: int,
    rate: float,
) -> None:
    """One step of Adam (the usual 0.9, 0.999, 1e-8) on ``params`` in place, ``step`` counted
    from 1, the moments kept in ``moments`` (zeros at first)."""
    for name, grad in grads.items():
        m, v = moments[name]
        m *= 0.9
        m += 0.1 * grad
        v *= 0.999
        v += 0.001 * grad * grad
        m_hat = m / (1 - 0.9**step)
        v_hat = v / (1 - 0.999**step)
        params[name] -= (rate * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(params[name].dtype)


def export_policy(fit: Path, out: Path) -> int:
    """Keep the policy's arrays (``E``, ``b``, ``u``) of a fit, checked by the search's own
    loader (``engine.search.evaluate.load_policy``), as float32, the other inputs it reads
    (``inputs``: those the kernels keep, ``POLICY_INPUTS``; a fit reading another is refused)
    and the rule the fit names (``rule``; the loader passes over it, so the file says what it
    was fitted to)."""
    from engine.search.evaluate import load_policy

    with np.load(fit) as arrays:
        reads = saved_inputs(arrays)
        if unread := [name for name in reads if name not in (*POLICY_INPUTS, WINDOW_INPUT)]:
            print(f"error: {fit} reads {', '.join(unread)}, which the search does not")
            return 1
        kept: dict[str, npt.NDArray[Any]] = {
            name: np.asarray(arrays[name], dtype=np.float32) for name in ("E", "b", "u")
        }
        if reads:
            kept["inputs"] = np.array(reads, dtype=str)
        try:
            rule = saved_rule(arrays)
        except ValueError as exc:
            print(f"error: {fit}: {exc}")
            return 1
        if "rule" in arrays:
            kept["rule"] = np.array(rule.value)
    np.savez_compressed(out, **dict[str, Any](kept))
    load_policy(out.read_bytes(), str(out))
    print(
        f"wrote {out} ({out.stat().st_size} bytes, {kept['b'].shape[0]} features,"
        f" fitted in {rule.value})"
    )
    return 0


def saved_rule(arrays: Mapping[str, npt.NDArray[Any]]) -> Rule:
    """The rule a saved fit or exported policy was fitted in: its ``rule`` array, or
    freestyle where it names none (as a shard's manifest without a rule is freestyle's).

    Raises:
        ValueError: the name is not a rule's.
    """
    if "rule" not in arrays:
        return Rule.FREESTYLE
    name = str(arrays["rule"])
    try:
        return Rule(name)
    except ValueError:
        raise ValueError(f"unknown rule {name!r}") from None


def saved_inputs(arrays: Mapping[str, npt.NDArray[Any]]) -> tuple[str, ...]:
    """The input terms a saved fit reads (its ``inputs`` array; none in an exported policy).

    Raises:
        ValueError: a name that is not one of ``INPUTS``, or ``E``'s rows do not match.
    """
    names = tuple(str(name) for name in arrays["inputs"]) if "inputs" in arrays else ()
    unknown = [name for name in names if name not in INPUTS]
    if unknown:
        raise ValueError(f"unknown inputs {', '.join(unknown)}")
    if arrays["E"].shape[0] != input_rows(names):
        raise ValueError(f"E needs {input_rows(names)} rows for inputs {names or 'none'}")
    return names


def policy_figures(
    params: Mapping[str, npt.NDArray[np.floating[Any]]],
    data: Samples,
    batch: int = 512,
    inputs: Sequence[str] = (),
) -> tuple[float, float, float]:
    """The policy's loss (cross-entropy of its softmax over the empty points against the
    judge's move) and the share of judge's moves it ranks first and within 5, over the
    positions of ``data`` that have a judged move. Reads only ``E``, ``b`` and ``u``, so an
    exported policy is measured as a whole fit is."""
    total, first, five, count = 0.0, 0, 0, 0
    for start in range(0, len(data.move), batch):
        part = subset(data, np.arange(start, min(start + batch, len(data.move))))
        rows = np.nonzero(part.move >= 0)[0]
        if not len(rows):
            continue
        scores = np.where(
            part.empty[rows],
            policy_logits(params, columns(part.codes[rows], part.extra[rows], inputs)),
            -np.inf,
        )
        top = scores.max(axis=1, keepdims=True)
        log_sum = np.log(np.exp(scores - top).sum(axis=1)) + top[:, 0]
        chosen = scores[np.arange(len(rows)), part.move[rows]]
        total += float(np.sum(log_sum - chosen))
        better = (scores > chosen[:, None]).sum(axis=1)
        first += int((better == 0).sum())
        five += int((better < 5).sum())
        count += len(rows)
    return total / max(count, 1), first / max(count, 1), five / max(count, 1)


def shard_manifests(paths: Sequence[Path]) -> list[tuple[Path, int]]:
    """The shards named (folders of shards, or shards' manifests), in the order named: each
    one's folder and number.

    Raises:
        ValueError: a file that is not a shard's manifest.
    """
    found: list[tuple[Path, int]] = []
    for path in paths:
        manifests = [path] if path.suffix == ".json" else sorted(path.glob("shard-*.json"))
        for manifest in manifests:
            shard = manifest.stem.removeprefix("shard-")
            if not shard.isdigit():
                raise ValueError(f"{manifest} is not a shard's manifest")
            found.append((manifest.parent, int(shard)))
    return found


def load_samples(
    paths: Sequence[Path],
    rule: Rule = Rule.FREESTYLE,
    labels: tuple[Path, int] | None = None,
) -> tuple[Samples, list[int]]:
    """The positions of the shards named (folders of shards, or shards' manifests), in the
    order named, each shard's games numbered after the previous shard's; and the number of
    games before each shard. Every shard must have been played in ``rule`` (a manifest
    without a rule is freestyle's), whose tables count its positions. With ``labels`` (a
    folder and a node count), every shard's judgements are those ``tools/relabel.py`` made
    there at that count, in place of its own.

    Raises:
        ValueError: a path names no shard, a file that is not a shard's manifest, a shard
            of another rule, or, with ``labels``, a shard not labelled again or whose labels
            refuse to load.
    """
    from tools.datagen import load_shard
    from tools.relabel import RelabelError, folder_for, load_relabels

    parts: list[Samples] = []
    offsets: list[int] = []
    offset = 0
    for folder, shard in shard_manifests(paths):
        arrays, _ = load_shard(folder, shard, rule)
        if labels is not None:
            out, nodes = labels
            try:
                arrays |= load_relabels(folder_for(out, folder, nodes), folder, shard)
            except RelabelError as exc:
                raise ValueError(str(exc)) from exc
        parts.append(samples(arrays, offset, rule))
        offsets.append(offset)
        offset += len(arrays["lengths"])
    if not parts:
        raise ValueError("no shards found")
    data = Samples(*(np.concatenate([getattr(s, f) for s in parts]) for f in Samples.__slots__))
    offsets.append(offset)
    return data, offsets


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python tools/mixnet.py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    fit = sub.add_parser("train", help="fit the model to shards")
    measure = sub.add_parser("evaluate", help="measure policies on the held-out games")
    for command in (fit, measure):
        command.add_argument(
            "folders", type=Path, nargs="+", help="folders of datagen shards, or shards' manifests"
        )
        command.add_argument("--holdout", type=float, default=0.1)
        command.add_argument("--seed", type=int, default=1)
        command.add_argument(
            "--split-after",
            type=int,
            default=0,
            metavar="K",
            help="hold out the games of the first K shards as a fit to them alone did",
        )
        command.add_argument(
            "--labels",
            type=Path,
            help="a folder of tools/relabel.py's labels: fit to them in place of the shards' own",
        )
        command.add_argument(
            "--label-nodes", type=int, help="--labels: the node count they were judged at"
        )
        command.add_argument(
            "--rule",
            choices=[rule.value for rule in RULES],
            default=Rule.FREESTYLE.value,
            help="the rule the shards were played in (their positions are counted in it)",
        )
    fit.add_argument("--epochs", type=int, default=8)
    fit.add_argument("--features", type=int, default=16)
    fit.add_argument("--hidden", type=int, default=16)
    fit.add_argument("--rate", type=float, default=0.01, help="Adam's step size")
    fit.add_argument("--batch", type=int, default=128, help="positions a step")
    fit.add_argument("--decay", type=float, default=0.0, help="the L2 penalty on the window rows")
    fit.add_argument(
        "--policy-weight",
        type=float,
        default=1.0,
        help="the policy loss's weight beside the value's",
    )
    fit.add_argument(
        "--inputs",
        default="",
        help=f"input terms beside the direction codes, comma-separated: {', '.join(INPUTS)}",
    )
    fit.add_argument("--out", type=Path, default=Path("mixnet.npz"))
    measure.add_argument(
        "--policy",
        type=Path,
        action="append",
        required=True,
        help="a fit or an exported policy (repeatable)",
    )
    export = sub.add_parser("export", help="write a fit's policy as the search reads it")
    export.add_argument("fit", type=Path, help="an npz that train wrote")
    export.add_argument("--out", type=Path, default=Path("engine/search/data/policy.npz"))
    options = parser.parse_args(argv)
    if options.command == "export":
        return export_policy(options.fit, options.out)
    inputs = tuple(name for name in getattr(options, "inputs", "").split(",") if name)
    if unknown := [name for name in inputs if name not in INPUTS]:
        print(f"error: unknown inputs {', '.join(unknown)}", file=sys.stderr)
        return 1
    rule = Rule(options.rule)
    labels = None
    if options.labels is not None:
        if options.label_nodes is None:
            print("error: --labels needs --label-nodes", file=sys.stderr)
            return 1
        labels = (options.labels, options.label_nodes)
    try:
        data, offsets = load_samples(options.folders, rule, labels)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not 0 <= options.split_after < len(offsets):
        print(f"error: --split-after needs 0 to {len(offsets) - 1} shards", file=sys.stderr)
        return 1
    split_at = offsets[options.split_after] if options.split_after else 0
    test = held_out_games(data, options.holdout, options.seed, split_at)
    held = subset(data, np.nonzero(test)[0])
    print(
        f"{len(data.value)} {rule.value} positions from {offsets[-1]} games of"
        f" {len(offsets) - 1} shards; held out {len(held.value)} positions of"
        f" {len(np.unique(held.game))} games"
    )
    if options.command == "evaluate":
        first_ranks: npt.NDArray[np.int64] | None = None
        for path in options.policy:
            with np.load(path) as arrays:
                params = {name: np.asarray(arrays[name]) for name in ("E", "b", "u")}
                try:
                    reads = saved_inputs(arrays)
                    fitted = saved_rule(arrays)
                except ValueError as exc:
                    print(f"error: {path}: {exc}", file=sys.stderr)
                    return 1
            loss_, first, five = policy_figures(params, held, inputs=reads)
            _, ours, gaps = candidate_ranks(params, held, reads, rule)
            print(
                f"{path} (fitted in {fitted.value}): policy loss {loss_:.4f},"
                f" judge's move first {first:.1%},"
                f" within 5 {five:.1%}; among the search's candidates ({len(ours)} positions)"
                f" first {np.mean(ours < 1):.1%}, within 5 {np.mean(ours < 5):.1%}"
            )
            for cut in CUTS:
                kept, missed = cut_figures(gaps, cut)
                print(
                    f"  a cut {cut:g} logits below the best candidate keeps {kept:.2f} on"
                    f" average and leaves out the judge's move in {missed:.1%}"
                )
            if first_ranks is None:
                first_ranks = ours
                continue
            gains = [paired(first_ranks, ours, within) for within in (1, 5)]
            print(
                "  against the first policy, paired: first "
                + ", within 5 ".join(
                    f"{d * 100:+.2f} (s.e. {e * 100:.2f}) points" for d, e in gains
                )
            )
        return 0
    params = train(
        data,
        epochs=options.epochs,
        features=options.features,
        hidden=options.hidden,
        holdout=options.holdout,
        seed=options.seed,
        rate=options.rate,
        split_at=split_at,
        policy_weight=options.policy_weight,
        inputs=inputs,
        batch=options.batch,
        decay=options.decay,
    )
    own = engine_value_loss(subset(data, np.nonzero(~test)[0]), held, rule)
    print(f"held-out value loss of the search's own evaluation: {own:.4f}")
    count, by_hand, by_policy = against_hand(params, held, inputs, rule)
    print(
        f"{count} held-out positions with the judge's move among the search's candidates:"
        f" first {by_hand[0]:.1%} / within 5 {by_hand[1]:.1%} by the hand-set ordering,"
        f" {by_policy[0]:.1%} / {by_policy[1]:.1%} by the policy"
    )
    np.savez_compressed(
        options.out,
        inputs=np.array(inputs, dtype=str),
        rule=np.array(rule.value),
        **dict[str, Any](params),
    )
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
