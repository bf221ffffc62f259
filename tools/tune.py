"""The evaluation as a model to fit: pattern counts, the logistic loss, Newton's method.

The static evaluation of a position is linear in its weights: every empty point of a side is
worth the sum of its four line patterns' values plus its threat class's value plus the
correction of its multiset of four patterns, and the evaluation is
``(mine * ours - 4 * theirs) // 4`` of those sums (``mine`` = 5 unless the weights say
otherwise). So a position is a row of counts (per side: how many of each pattern and of each
class its empty points have, and how many of each multiset), and fitting the weights to game
outcomes is a logistic regression, ``P(win) = sigmoid(eval / K)`` ("Texel tuning"). The
pattern and class values are fitted first; the multiset corrections then fit what they
leave, each pulled towards zero (that is, towards the value its patterns and class give) by a
ridge, so a rarely seen multiset keeps about its structured value. ``tools/tune_eval.py``
makes the games and writes the weights file.

The evaluation network (``fit_net``) is not linear: one layer of ReLU units over
``net_inputs`` (each side's threat-class counts and its sum of values, from the same counts),
fitted by Adam on the same loss with the logit as its output.
"""

from __future__ import annotations

import json
import math

import numpy as np
import numpy.typing as npt

from engine.search import _kernels as k
from engine.search import _patterns
from engine.search._position import Position
from engine.search.evaluate import Network, Weights

__all__ = [
    "NET_IN",
    "NFEAT",
    "NMULTI",
    "STRUCTURE",
    "accuracy",
    "choose_ridge",
    "design",
    "fit",
    "fit_net",
    "fit_residual",
    "fit_scale",
    "free_mask",
    "loss",
    "multiset_counts",
    "multiset_design",
    "net_inputs",
    "net_json",
    "net_logits",
    "position_counts",
    "quiet",
    "relative_ridge",
    "residual_of",
    "rule_net_json",
    "theta_of",
    "weights_json",
]

NFEAT = _patterns.NPAT + _patterns.NP4  # per side: pattern counts, then threat-class counts
NMULTI = _patterns.NMULTI  # per side: multiset corrections
NET_IN = k.NET_IN  # the evaluation network's inputs (net_inputs)
# weights the data cannot tell: never on a quiet freestyle board (fives, renju shapes), or
# fixed to remove the redundancy of "every point has four patterns and one class"
FIXED_PATTERN = (_patterns.NONE, _patterns.FIVE, _patterns.OVERLINE, _patterns.FOUR_FOUR)
FIXED_THREAT = (_patterns.P4_NONE, _patterns.P4_FIVE)

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
I32 = npt.NDArray[np.int32]


def position_counts(pos: Position) -> I32:
    """``[side, NFEAT]``: each side's pattern counts (its empty points, four directions each)
    and threat-class counts (one per empty point)."""
    empty = np.nonzero(pos.b == 0)[0]
    counts = np.zeros((2, NFEAT), dtype=np.int32)
    threat = pos.tables.threat
    for ci in range(2):
        pats = pos.cell[empty, k.R_PAT + ci * 4 : k.R_PAT + ci * 4 + 4].ravel()
        counts[ci, : _patterns.NPAT] = np.bincount(pats, minlength=_patterns.NPAT)
        classes = threat[ci, pos.cell[empty, k.R_CODE + ci]]
        counts[ci, _patterns.NPAT :] = np.bincount(classes, minlength=_patterns.NP4)
    return counts


def _structure() -> I32:
    # each multiset's pattern counts and threat class (the class depends on the multiset only)
    zeros = np.zeros(max(_patterns.NPAT, _patterns.NP4), dtype=np.int32)
    classes = _patterns.build_code_tables(False, zeros, zeros)[0]
    rows = np.zeros((NMULTI, NFEAT), dtype=np.int32)
    for i, multiset in enumerate(_patterns.MULTISETS):
        for pat in multiset:
            rows[i, pat] += 1
        code = sum(pat * _patterns.NPAT**d for d, pat in enumerate(multiset))
        rows[i, _patterns.NPAT + classes[code]] = 1
    return rows


STRUCTURE = _structure()  # [multiset, NFEAT]: its pattern counts, then its class (one-hot)


def multiset_counts(pos: Position) -> I32:
    """``[side, NMULTI]``: how many of each side's empty points have each multiset of patterns
    (``multiset_counts(pos) @ STRUCTURE == position_counts(pos)``)."""
    empty = np.nonzero(pos.b == 0)[0]
    which = _patterns.code_multisets()
    counts = np.zeros((2, NMULTI), dtype=np.int32)
    for ci in range(2):
        counts[ci] = np.bincount(which[pos.cell[empty, k.R_CODE + ci]], minlength=NMULTI)
    return counts


def quiet(pos: Position) -> bool:
    """Whether the search would evaluate this position statically: no four on the board, and
    no straight four to come for the side to move that the opponent cannot meet with a four
    (the search scores that as a win)."""
    g = pos.g
    me = int(g[k.G_SIDE]) - 1
    op = 1 - me
    if g[k.G_P4 + k.P4_FIVE] > 0 or g[k.G_P4 + k.NP4 + k.P4_FIVE] > 0:
        return False
    fours = sum(int(g[k.G_P4 + op * k.NP4 + c]) for c in range(k.P4_B4, k.NP4))
    return not (g[k.G_P4 + me * k.NP4 + k.P4_FLEX4] > 0 and fours == 0)


def design(counts: npt.NDArray[np.integer], mover: npt.NDArray[np.integer], mine: int = 5) -> F32:
    """Rows ``x`` of ``[n, side, NFEAT]`` counts with ``evaluation = x @ theta_of(weights)``
    for side to move ``mover`` (0 Black, 1 White) and the weights' ``mine``, up to the
    kernels' rounding."""
    n = len(mover)
    x = np.zeros((n, 2 * NFEAT), dtype=np.float32)
    for side in range(2):
        ours = mover == side
        cols = slice(side * NFEAT, (side + 1) * NFEAT)
        x[ours, cols] = mine / 4 * counts[ours, side]
        x[~ours, cols] = -counts[~ours, side].astype(np.float32)
    return x


def multiset_design(
    row: npt.NDArray[np.integer],
    col: npt.NDArray[np.integer],
    val: npt.NDArray[np.integer],
    mover: npt.NDArray[np.integer],
    columns: npt.NDArray[np.integer],
    mine: int = 5,
) -> F32:
    """Dense rows for the multiset corrections ``columns`` (``side * NMULTI + multiset``) of
    positions given as sparse counts (position ``row``, column ``col``, count ``val``), with
    ``evaluation = design(...) @ theta + multiset_design(...) @ residual_of(w)[columns]``."""
    where = np.full(2 * NMULTI, -1, dtype=np.int64)
    where[columns] = np.arange(len(columns))
    x = np.zeros((len(mover), len(columns)), dtype=np.float32)
    j = where[col]
    keep = j >= 0
    r = row[keep]
    ours = mover[r] == col[keep] // NMULTI
    x[r, j[keep]] = np.where(ours, mine / 4, -1.0) * val[keep]
    return x


def residual_of(weights: Weights) -> F64:
    """The multiset corrections of weights: Black's, then White's."""
    return weights.multiset.ravel().astype(np.float64)


def theta_of(weights: Weights) -> F64:
    """The parameter vector of weights: Black's patterns and classes, then White's."""
    parts = [np.concatenate([weights.pattern[s], weights.threat[s]]) for s in range(2)]
    return np.concatenate(parts).astype(np.float64)


def free_mask() -> npt.NDArray[np.bool_]:
    """The entries of ``theta`` that the fit may change."""
    free = np.ones(2 * NFEAT, dtype=bool)
    for s in range(2):
        for pat in FIXED_PATTERN:
            free[s * NFEAT + pat] = False
        for cls in FIXED_THREAT:
            free[s * NFEAT + _patterns.NPAT + cls] = False
    return free


def _sigmoid(z: F64) -> F64:
    result: F64 = 1 / (1 + np.exp(-np.clip(z, -40, 40)))
    return result


def loss(z: F64, y: F64, scale: float, weight: F64 | None = None) -> float:
    """Mean logistic loss of evaluations ``z`` against outcomes ``y`` (1 win, 0.5 draw, 0 loss,
    for the side to move) at scale ``K``; with ``weight``, each row's loss counts that much."""
    p = _sigmoid(z / scale)
    eps = 1e-9
    each = y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)
    return float(-np.average(each, weights=weight))


def accuracy(z: F64, y: F64) -> float:
    """The share of decided games whose winner the evaluation's sign calls (a zero counts
    half; drawn games are left out)."""
    decided = y != 0.5
    if not decided.any():
        return 0.0
    right = np.where(z[decided] == 0, 0.5, (z[decided] > 0) == (y[decided] > 0.5))
    return float(np.mean(right))


def fit_scale(z: F64, y: F64) -> float:
    """The ``K`` that minimises the loss of fixed evaluations (golden section on log K)."""
    lo, hi = math.log(10.0), math.log(20000.0)
    r = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - r * (hi - lo), lo + r * (hi - lo)
        if loss(z, y, math.exp(a)) < loss(z, y, math.exp(b)):
            hi = b
        else:
            lo = a
    return math.exp((lo + hi) / 2)


def fit(x: F32, y: F64, scale: float, theta0: F64, ridge: F64) -> tuple[F64, int]:
    """Minimise ``loss(x @ theta) + sum(ridge * (theta - theta0)**2)`` by Newton's method over
    the free entries (the loss is convex in ``theta``); returns ``theta`` and the steps taken.
    A step that would raise the objective is halved until it does not (far from the optimum,
    as when the evaluation's mix changes, a full step can overshoot into saturation)."""
    free = free_mask()
    theta = theta0.copy()
    xf = x[:, free].astype(np.float64)
    fixed = x[:, ~free].astype(np.float64) @ theta0[~free]
    n = len(y)
    pull = 2 * ridge[free]

    def objective(t: F64) -> float:
        penalty = float(np.sum(ridge[free] * (t - theta0[free]) ** 2))
        return loss(xf @ t + fixed, y, scale) + penalty

    steps = 0
    while steps < 50:
        steps += 1
        p = _sigmoid((xf @ theta[free] + fixed) / scale)
        grad = xf.T @ (p - y) / (n * scale) + pull * (theta[free] - theta0[free])
        weight = p * (1 - p) / (n * scale * scale)
        hess = (xf * weight[:, None]).T @ xf + np.diag(pull)
        delta = np.linalg.solve(hess, grad)
        now = objective(theta[free])
        for _ in range(20):
            if objective(theta[free] - delta) <= now:
                break
            delta /= 2
        theta[free] -= delta
        if float(np.max(np.abs(delta))) < 1e-3:
            break
    return theta, steps


def relative_ridge(theta0: F64, weight: float) -> F64:
    """A pull towards ``theta0`` relative to each value's size (at least 10): the penalty is
    ``weight * sum(((theta - theta0) / size)**2)``, so a large value may move as far, in
    proportion, as a small one."""
    result: F64 = weight / np.maximum(np.abs(theta0), 10.0) ** 2
    return result


def choose_ridge(
    x: F32,
    y: F64,
    groups: npt.NDArray[np.integer],
    scale: float,
    theta0: F64,
    candidates: list[float],
    folds: int = 5,
) -> tuple[float, list[float]]:
    """The weight of ``relative_ridge`` towards ``theta0`` with the least loss over
    ``folds``-fold cross-validation that keeps each group (a game) whole; returns it and each
    candidate's mean held-out loss (every fold's positions counted alike)."""
    fold = groups.astype(np.int64) * 2654435761 % 1_000_003 % folds
    xd = x.astype(np.float64)
    losses = []
    for weight in candidates:
        ridge = relative_ridge(theta0, weight)
        total = 0.0
        for f in range(folds):
            out = fold == f
            if not out.any() or out.all():
                continue
            theta, _ = fit(x[~out], y[~out], scale, theta0, ridge)
            total += loss(xd[out] @ theta, y[out], scale) * int(out.sum())
        losses.append(total / len(y))
    return candidates[int(np.argmin(losses))], losses


def fit_residual(
    x: F32, y: F64, scale: float, z0: F64, ridge: float, steps: int = 30
) -> tuple[F64, int]:
    """Minimise ``loss(z0 + x @ r) + ridge * sum(r**2)`` by Newton's method from ``r = 0``
    (convex); returns ``r`` and the steps taken. The Hessian is summed in blocks of rows, so
    ``x`` may be large."""
    n, m = x.shape
    r = np.zeros(m)
    done = 0
    block = max(1, 2**25 // max(1, m))  # rows per block: about 256 MB of float64
    while done < steps:
        done += 1
        z = z0 + _blocks_dot(x, r, block)
        p = _sigmoid(z / scale)
        grad = 2 * ridge * r
        hess = np.diag(np.full(m, 2 * ridge))
        for a in range(0, n, block):
            xb = x[a : a + block].astype(np.float64)
            pb = p[a : a + block]
            grad += xb.T @ (pb - y[a : a + block]) / (n * scale)
            hess += (xb * (pb * (1 - pb) / (n * scale * scale))[:, None]).T @ xb
        delta = np.linalg.solve(hess, grad)
        r -= delta
        if float(np.max(np.abs(delta))) < 1e-2:
            break
    return r, done


def _blocks_dot(x: F32, r: F64, block: int) -> F64:
    return np.concatenate(
        [x[a : a + block].astype(np.float64) @ r for a in range(0, len(x), block)]
    )


def net_inputs(
    counts: npt.NDArray[np.integer],
    mover: npt.NDArray[np.integer],
    weights: Weights,
    parent: npt.NDArray[np.integer] | None = None,
) -> F64:
    """``[n, NET_IN]``: the evaluation network's inputs for ``[n, side, NFEAT]`` counts with
    side to move ``mover``, as the kernels read them (``engine.search._kernels._network``):
    the side to move's threat-class counts, the other side's, each side's sum of its points'
    values under ``weights`` and whether Black is to move. With ``parent`` (the counts before
    each position's last move) each sum is the mean of the two positions' sums, rounded
    down, as the kernels take it under ``GOMOKU_EVAL_AVG``."""
    if weights.multiset.any():
        raise ValueError("the network's inputs need values without multiset corrections")
    table = np.concatenate([weights.pattern, weights.threat], axis=1).astype(np.float64)
    sums = np.einsum("nsf,sf->ns", counts.astype(np.float64), table)
    if parent is not None:
        sums = np.floor((sums + np.einsum("nsf,sf->ns", parent.astype(np.float64), table)) / 2)
    rows = np.arange(len(mover))
    ours = np.asarray(mover, dtype=np.int64)
    return np.concatenate(
        [
            counts[rows, ours, _patterns.NPAT :],
            counts[rows, 1 - ours, _patterns.NPAT :],
            sums[rows, ours, None],
            sums[rows, 1 - ours, None],
            (ours == 0)[:, None],
        ],
        axis=1,
        dtype=np.float64,
    )


def net_logits(net: Network, x: F64) -> F64:
    """The network's logit for each row of inputs ``x`` (in floating point: the kernels round
    the weights to fixed point)."""
    hidden = np.maximum(x @ net.w1.T + net.b1, 0.0)
    return np.asarray(hidden @ net.w2 + net.b2, dtype=np.float64)


def fit_net(
    x: F64,
    y: F64,
    valid: npt.NDArray[np.bool_],
    hidden: int,
    epochs: int = 40,
    seed: int = 0,
    rate: float = 3e-3,
    decay: float = 1e-4,
    scale: float = 1000.0,
    start: Network | None = None,
    weight: F64 | None = None,
) -> tuple[Network, int, list[float]]:
    """A network of ``hidden`` ReLU units fitted to winning chances ``y`` by the logistic loss
    (Adam, batches of 256, weight decay ``decay``) on the rows outside ``valid``, stopped at the
    epoch with the lowest loss on ``valid``; its weights read the raw inputs (the inputs'
    standardisation is folded into the first layer), ``scale`` evaluation units a logit. Also
    returns that epoch and each epoch's held-out loss. With ``start`` (of ``hidden`` units) the
    fit starts from that network instead of random weights, and keeps it (epoch -1) when no
    epoch loses less on ``valid``. With ``weight`` each row's loss counts that much, in the
    fit and in the held-out loss that picks the epoch."""
    rng = np.random.default_rng(seed)
    train = np.nonzero(~valid)[0]
    mean = x[train].mean(axis=0)
    spread = x[train].std(axis=0)
    spread[spread < 1e-6] = 1.0  # an input that never varies reads 0 once centred
    z = (x - mean) / spread
    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=np.float64)
    held_w = w[valid]
    n_in = x.shape[1]
    params = [
        rng.normal(0.0, 1 / math.sqrt(n_in), (n_in, hidden)),
        np.zeros(hidden),
        rng.normal(0.0, 1 / math.sqrt(hidden), hidden),
        np.zeros(1),
    ]
    best: tuple[float, list[F64], int] = (math.inf, [p.copy() for p in params], -1)
    if start is not None:
        if len(start.b1) != hidden:
            raise ValueError(f"the starting network has {len(start.b1)} units, not {hidden}")
        # the same function of the standardised inputs: w1 . x = (w1 * spread) . z + w1 . mean
        params = [
            (start.w1 * spread).T.copy(),
            start.b1 + start.w1 @ mean,
            start.w2.copy(),
            np.array([start.b2]),
        ]
        act = np.maximum(z[valid] @ params[0] + params[1], 0.0)
        held = (
            loss(act @ params[2] + params[3][0], y[valid], 1.0, held_w) if valid.any() else math.inf
        )
        best = (held, [p.copy() for p in params], -1)
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    history: list[float] = []
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(train)
        for at in range(0, len(order), 256):
            batch = order[at : at + 256]
            pre = z[batch] @ params[0] + params[1]
            act = np.maximum(pre, 0.0)
            p = _sigmoid(act @ params[2] + params[3][0])
            dz = w[batch] * (p - y[batch]) / len(batch)
            dpre = np.outer(dz, params[2]) * (pre > 0)
            grads = [
                z[batch].T @ dpre + decay * params[0],
                dpre.sum(axis=0),
                act.T @ dz + decay * params[2],
                np.array([dz.sum()]),
            ]
            step += 1
            for i, grad in enumerate(grads):
                first[i] = 0.9 * first[i] + 0.1 * grad
                second[i] = 0.999 * second[i] + 0.001 * grad * grad
                corrected = first[i] / (1 - 0.9**step)
                params[i] -= rate * corrected / (np.sqrt(second[i] / (1 - 0.999**step)) + 1e-8)
        act = np.maximum(z[valid] @ params[0] + params[1], 0.0)
        held = loss(act @ params[2] + params[3][0], y[valid], 1.0, held_w) if valid.any() else 0.0
        history.append(held)
        if held < best[0] or not valid.any():
            best = (held, [p.copy() for p in params], epoch)
    w1, b1, w2, b2 = best[1]
    net = Network((w1 / spread[:, None]).T, b1 - (mean / spread) @ w1, w2, float(b2[0]), scale)
    return net, best[2], history


def weights_json(
    theta: F64, fit_info: dict[str, float | int], residual: F64 | None = None, mine: int = 5
) -> str:
    """The weights file for ``theta`` and the multiset corrections ``residual`` (rounded to
    integers; none when absent or all zero), one line per list."""
    about = (
        "Evaluation values fitted to self-play outcomes by tools/tune_eval.py (logistic loss): "
        "per side, a value per line pattern (NONE B1 F1 B2 F2 B3 F3 B4 F4 FIVE OVERLINE "
        "FOUR_FOUR) and per threat class (P4_NONE .. P4_FIVE)"
    )
    rounded = None if residual is None else np.round(residual).astype(np.int64)
    if rounded is not None and rounded.any():
        about += (
            ", plus a correction per multiset of a point's four patterns (in the order of "
            "itertools.combinations_with_replacement(range(12), 4))"
        )
    else:
        rounded = None
    if mine != 5:
        about += f"; the evaluation is ({mine} * mine - 4 * theirs) / 4"
    about += "; see tools/tune.py."
    lines = ["{", f'  "about": {json.dumps(about)},', f'  "fit": {json.dumps(fit_info)},']
    if mine != 5:
        lines.append(f'  "mine": {int(mine)},')
    for s, side in enumerate(("black", "white")):
        values = [int(v) for v in np.round(theta[s * NFEAT : (s + 1) * NFEAT])]
        lines.append(f'  "{side}": {{')
        lines.append(f'    "pattern": {json.dumps(values[: _patterns.NPAT])},')
        lines.append(
            f'    "threat": {json.dumps(values[_patterns.NPAT :])}'
            + ("," if rounded is not None else "")
        )
        if rounded is not None:
            part = rounded[s * NMULTI : (s + 1) * NMULTI]
            lines.append(f'    "multiset": {json.dumps([int(v) for v in part])}')
        lines.append("  }," if s == 0 else "  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def net_json(
    theta: F64, mine: int, net: Network, fit_info: dict[str, float | int], prior: str
) -> str:
    """The weights file for the values ``theta`` (named ``prior`` in its about line) with the
    evaluation network ``net``, one line per list."""
    text = weights_json(theta, fit_info, None, mine)
    about = (
        "Per side, a value per line pattern (NONE B1 F1 B2 F2 B3 F3 B4 F4 FIVE OVERLINE "
        f"FOUR_FOUR) and per threat class (P4_NONE .. P4_FIVE), the prior's ({prior}); and an "
        "evaluation network over them, fitted by tools/tune_eval.py net to a judge's winning "
        "chances (fit: its held-out loss and the linear evaluation's). Its inputs: the side "
        "to move's threat-class counts, the other side's, both sides' sums of their points' "
        "values and whether Black is to move; 'scale' evaluation units a logit. See "
        "tools/tune.py and engine/search/_kernels.py."
    )
    lines = text.rstrip().splitlines()[:-1]  # all but the closing brace
    lines[1] = f'  "about": {json.dumps(about)},'
    lines[-1] = "  },"
    lines.append(f'  "net": {_dump(_net_object(net), 2)}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _net_object(net: Network) -> dict[str, object]:
    # a network as a weights file writes it, its numbers to six figures
    def short(values: npt.NDArray[np.float64]) -> list[float]:
        return [float(f"{v:.6g}") for v in values]

    return {
        "scale": net.scale,
        "w1": [short(row) for row in net.w1],
        "b1": short(net.b1),
        "w2": short(net.w2),
        "b2": float(f"{net.b2:.6g}"),
    }


def _dump(value: object, indent: int = 0) -> str:
    # JSON with an object's keys one a line and a list of numbers on one line (a list of
    # lists, a row a line), as the weights files are written
    pad = " " * indent
    if isinstance(value, dict):
        items = [f"{pad}  {json.dumps(key)}: {_dump(v, indent + 2)}" for key, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        rows = [f"{pad}  {json.dumps(row)}" for row in value]
        return "[\n" + ",\n".join(rows) + f"\n{pad}]"
    return json.dumps(value)


def rule_net_json(text: str, rule: str, net: Network, fit_info: dict[str, float | int]) -> str:
    """The weights file ``text`` with ``net`` as the network of ``rule`` (its ``"nets"``
    entry, with ``fit_info`` as its ``"fit"``), everything else as it was."""
    data = json.loads(text)
    nets = data.setdefault("nets", {})
    nets[rule] = _net_object(net) | {"fit": fit_info}
    return _dump(data) + "\n"
