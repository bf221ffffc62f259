"""A learned value for the search: ``tools/mixnet.py``'s point features (each direction's code
and the point's threat pair, from the side to move's view), summed over the empty points,
through one layer of ReLU units to a logit of the side to move's winning chance. Fitted to the
judge's winning chances of ``tools/datagen.py``'s shards (numpy, the CPU); the search reads the
file it writes with ``GOMOKU_VALUE=FILE`` (``engine.search.evaluate.ValueHead``), in freestyle.

    python tools/value.py data/selfplay data/matches --features 16 --hidden 16 --epochs 6 \\
        --forced-share 0.25 --scale 2000 --out value.npz

Half the judged positions have a result the judge found forced; their labels are certain.
``--forced-share`` trains each epoch on every other position and that share of the forced
ones (drawn anew each epoch): all of them teach a fit to see wins the search finds by its
threat searches anyway, at the cost of the quiet positions, and none leaves it blind to
threats (a search with such a value loses nearly every game). ``--unforced`` leaves them out
of training and testing alike. Each epoch prints the held-out loss on all positions, on the
forced ones and on the others; the epoch with the lowest loss on all is kept. Then the search's
own evaluation on the same held-out positions, sigmoid(eval / K) with K fitted to 20,000
training positions, which a fit must beat on both. ``--scale`` is the evaluation units a logit
in the search (the search's margins were set in units of its evaluation: on these positions
K is about 2,000). Held-out games are ``tools/mixnet.py``'s (``held_out_games``).

``--residual`` fits a correction instead: the fit's logit is added to the search's own
evaluation's, sigmoid(eval / K + logit), with K fitted as above, and the fit starts as no
correction; the file says so (``add``) and its scale is K, so that the search adds it to its
network's value in the same units (``docs/engine.md``, "A learned value").

``--static DIR`` fits to an outside engine's static evaluation instead of the judge's winning
chances (``tools/static_labels.py``'s labels in ``DIR``, e.g. ``data/static``): each position's
label is sigmoid(static / S), S fitted to the judge's chances of the unforced training
positions, and every position is trained on alike (a static evaluation sees no forced result).
With ``--residual`` the correction is fitted to that target. Then, on the held-out games'
unforced positions, the rank correlation (Spearman) with the judge's scores of the search's
evaluation, of the static labels and of the fit, overall and by the stones on the board: how
each orders the games' quiet positions as the judge's search does (a screen, not a forecast of
play: ``docs/engine.md``, "A learned value").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.types import Rule
from tools import mixnet as mx

F64 = npt.NDArray[np.float64]
INPUTS = ("threat",)  # what the search's kernels keep beside the direction codes


def init_params(features: int, hidden: int, seed: int) -> dict[str, F64]:
    """Small random weights: ``E`` a row for each direction code and threat pair."""
    rng = np.random.default_rng(seed)
    return {
        "E": rng.standard_normal((mx.input_rows(INPUTS), features)) * 0.3,
        "b": np.zeros(features),
        "W1": rng.standard_normal((features, hidden)) / np.sqrt(features),
        "b1": np.zeros(hidden),
        "w2": rng.standard_normal(hidden) / np.sqrt(hidden),
        "b2": np.zeros(1),
    }


def logits(
    params: Mapping[str, F64], cols: npt.NDArray[np.integer[Any]], empty: npt.NDArray[np.bool_]
) -> F64:
    """The value's logit for each position (``cols``: ``mx.columns``'s rows of ``E``)."""
    return _forward(params, cols, empty)[-1]


def _forward(
    p: Mapping[str, F64], cols: npt.NDArray[np.integer[Any]], empty: npt.NDArray[np.bool_]
) -> tuple[F64, F64, F64, F64, F64, F64]:
    mask = empty.astype(np.float64)
    h = p["E"][cols].sum(axis=2) + p["b"]  # N x P x F
    a = np.maximum(h, 0.0) * mask[:, :, None]
    pooled = a.sum(axis=1) / mx.POOL
    z1 = pooled @ p["W1"] + p["b1"]
    r1 = np.maximum(z1, 0.0)
    out: F64 = r1 @ p["w2"] + p["b2"][0]
    return h, mask, pooled, z1, r1, out


def loss_and_grads(
    params: Mapping[str, F64],
    cols: npt.NDArray[np.integer[Any]],
    empty: npt.NDArray[np.bool_],
    value: npt.NDArray[np.floating[Any]],
    offset: F64 | None = None,
) -> tuple[float, dict[str, F64]]:
    """The mean cross-entropy against ``value`` (the side to move's winning chance) of the
    logit plus ``offset`` (the network's own, for a correction), and its gradient."""
    h, mask, pooled, z1, r1, logit = _forward(params, cols, empty)
    if offset is not None:
        logit = logit + offset
    y = value.astype(np.float64)
    chance = 1 / (1 + np.exp(-logit))
    eps = 1e-12
    loss = float(-np.mean(y * np.log(chance + eps) + (1 - y) * np.log(1 - chance + eps)))
    d_logit = (chance - y) / len(y)
    grads: dict[str, F64] = {"b2": np.array([d_logit.sum()]), "w2": r1.T @ d_logit}
    d_z1 = np.outer(d_logit, params["w2"]) * (z1 > 0)
    grads["W1"] = pooled.T @ d_z1
    grads["b1"] = d_z1.sum(axis=0)
    d_h = (d_z1 @ params["W1"].T / mx.POOL)[:, None, :] * (h > 0) * mask[:, :, None]
    grads["b"] = d_h.sum(axis=(0, 1))
    grads["E"] = mx.row_grads(params["E"], cols, d_h)
    return loss, grads


def cross_entropy(chance: F64, value: npt.NDArray[np.floating[Any]]) -> float:
    """The mean cross-entropy of ``chance`` against the labels ``value``."""
    c = np.clip(chance, 1e-12, 1 - 1e-12)
    y = value.astype(np.float64)
    return float(-np.mean(y * np.log(c) + (1 - y) * np.log(1 - c)))


def chances(
    params: Mapping[str, F64], data: mx.Samples, batch: int = 2048, offset: F64 | None = None
) -> F64:
    """The fit's winning chance for each position of ``data`` (its logit plus ``offset``)."""
    out = [
        logits(
            params,
            mx.columns(data.codes[s : s + batch], data.extra[s : s + batch], INPUTS),
            data.empty[s : s + batch],
        )
        for s in range(0, len(data.value), batch)
    ]
    logit = np.concatenate(out) if out else np.zeros(0)
    if offset is not None:
        logit = logit + offset
    result: F64 = 1 / (1 + np.exp(-logit))
    return result


def split_losses(
    chance: F64, value: npt.NDArray[np.floating[Any]], forced: npt.NDArray[np.bool_]
) -> tuple[float, float, float]:
    """The loss on all positions, on the forced ones and on the others (nan where none)."""

    def part(rows: npt.NDArray[np.bool_]) -> float:
        return cross_entropy(chance[rows], value[rows]) if rows.any() else float("nan")

    return part(np.ones_like(forced)), part(forced), part(~forced)


def fit(
    data: mx.Samples,
    forced: npt.NDArray[np.bool_],
    test: npt.NDArray[np.bool_],
    *,
    features: int,
    hidden: int,
    epochs: int,
    rate: float,
    forced_share: float,
    seed: int,
    batch: int = 256,
    base: F64 | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, F64]:
    """Adam, the rate halved each epoch after the second; each epoch trains on every
    unforced training position and ``forced_share`` of the forced ones; returns the weights of
    the epoch with the lowest held-out loss on all positions. ``base``: a logit for each
    position that the fit's is added to (a correction of the network's; its weights start
    at zero output)."""
    rng = np.random.default_rng(seed)
    train_rows = np.nonzero(~test)[0]
    held = mx.subset(data, np.nonzero(test)[0])
    held_forced = forced[test]
    params = init_params(features, hidden, seed)
    if base is not None:
        params["w2"][:] = 0.0  # a correction starts as none
    held_base = None if base is None else base[test]
    moments = {name: (np.zeros_like(w), np.zeros_like(w)) for name, w in params.items()}
    step, best, kept = 0, np.inf, {name: w.copy() for name, w in params.items()}
    for epoch in range(epochs):
        step_size = rate * 0.5 ** max(0, epoch - 1)
        chosen = train_rows[~forced[train_rows] | (rng.random(len(train_rows)) < forced_share)]
        rng.shuffle(chosen)
        for start in range(0, len(chosen), batch):
            rows = chosen[start : start + batch]
            cols = mx.columns(data.codes[rows], data.extra[rows], INPUTS)
            offset = None if base is None else base[rows]
            _, grads = loss_and_grads(params, cols, data.empty[rows], data.value[rows], offset)
            step += 1
            mx.adam_step(params, grads, moments, step, step_size)
        if not len(held.value):
            kept = {name: w.copy() for name, w in params.items()}
            continue
        every, on_forced, others = split_losses(
            chances(params, held, offset=held_base), held.value, held_forced
        )
        log(
            f"epoch {epoch + 1}: held-out loss {every:.4f}, forced {on_forced:.4f},"
            f" others {others:.4f} ({len(chosen)} positions trained on)"
        )
        if every < best:
            best, kept = every, {name: w.copy() for name, w in params.items()}
    return kept


def search_chances(
    train: mx.Samples, held: mx.Samples, rule: Rule, sample: int = 20000, seed: int = 0
) -> F64:
    """The search's own evaluation of ``held`` as winning chances, sigmoid(eval / K), K fitted
    to ``sample`` positions of ``train``."""
    from tools.tune import fit_scale

    some = mx.subset(train, np.random.default_rng(seed).permutation(len(train.value))[:sample])
    scale = fit_scale(mx.engine_evals(some, rule), some.value.astype(np.float64))
    out: F64 = 1 / (1 + np.exp(-mx.engine_evals(held, rule) / scale))
    return out


def forced_results(paths: Sequence[Path], rule: Rule) -> npt.NDArray[np.bool_]:
    """For each judged position of the shards named (in ``mx.load_samples``'s order), whether
    the judge found its result forced."""
    from tools.datagen import load_shard

    parts = [
        np.asarray(load_shard(folder, shard, rule)[0]["judge_mate"]) != 0
        for folder, shard in mx.shard_manifests(paths)
    ]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def static_targets(
    paths: Sequence[Path], folder: Path, judge: F64, train: npt.NDArray[np.bool_]
) -> tuple[F64, F64, float]:
    """The static labels of the shards named (``tools.static_labels.load_static``, from
    ``folder``), the winning chances they give, sigmoid(static / S), and S, fitted to the
    judge's chances ``judge`` of the ``train`` rows."""
    from tools.static_labels import load_static
    from tools.tune import fit_scale

    static = np.concatenate(
        [load_static(folder, source, shard) for source, shard in mx.shard_manifests(paths)]
    ).astype(np.float64)
    scale = float(fit_scale(static[train], judge[train]))
    target: F64 = 1 / (1 + np.exp(-np.clip(static / scale, -40, 40)))
    return static, target, scale


def _ranks(values: F64) -> F64:
    ranks: F64 = np.empty(len(values))
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values), dtype=np.float64)
    return ranks


def spearman(a: F64, b: F64) -> float:
    """The rank correlation of ``a`` and ``b`` (ties in the order given)."""
    if len(a) < 2:
        return float("nan")
    return float(np.corrcoef(_ranks(a), _ranks(b))[0, 1])


STONE_BANDS = ((0, 10), (10, 20), (20, 40), (40, 10**6))


def rank_report(
    evaluations: Mapping[str, F64], judge: F64, stones: npt.NDArray[np.integer[Any]]
) -> list[str]:
    """One line per evaluation: its rank correlation with ``judge`` (chances) overall and in
    each band of ``STONE_BANDS``."""
    y = np.clip(judge, 1e-6, 1 - 1e-6)
    score = np.log(y / (1 - y))
    lines = []
    for name, values in evaluations.items():
        parts = [f"all {spearman(values, score):.3f}"]
        for lo, hi in STONE_BANDS:
            rows = (stones >= lo) & (stones < hi)
            label = f"{lo}+" if hi > 1000 else f"{lo}-{hi - 1}"
            parts.append(f"{label} {spearman(values[rows], score[rows]):.3f} ({int(rows.sum())})")
        lines.append(f"{name}: " + ", ".join(parts))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python tools/value.py", description=__doc__)
    parser.add_argument(
        "folders", type=Path, nargs="+", help="folders of datagen shards, or manifests"
    )
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--rate", type=float, default=0.003, help="Adam's first step size")
    parser.add_argument("--forced-share", type=float, default=0.25)
    parser.add_argument("--unforced", action="store_true", help="leave the forced positions out")
    parser.add_argument(
        "--residual",
        action="store_true",
        help="fit a correction added to the search's evaluation (its scale: that evaluation's K)",
    )
    parser.add_argument(
        "--static",
        type=Path,
        help="fit to the static labels in this folder (tools/static_labels.py's)",
    )
    parser.add_argument("--holdout", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scale", type=float, default=2000.0, help="evaluation units a logit")
    parser.add_argument("--out", type=Path, default=Path("value.npz"))
    options = parser.parse_args(argv)
    if options.static is not None and options.unforced:
        parser.error("--static trains on every position: leave out --unforced")
    rule = Rule.FREESTYLE  # the search reads a value in freestyle only
    try:
        data, offsets = mx.load_samples(options.folders, rule)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    forced = forced_results(options.folders, rule)
    if options.unforced:
        keep = np.nonzero(~forced)[0]
        data, forced = mx.subset(data, keep), forced[keep]
    test = mx.held_out_games(data, options.holdout, options.seed)
    held = mx.subset(data, np.nonzero(test)[0])
    print(
        f"{len(data.value)} positions ({int(forced.sum())} forced) from {offsets[-1]} games;"
        f" held out {len(held.value)} of {len(np.unique(held.game))} games"
    )
    judge = data.value.astype(np.float64)
    train_forced = forced
    if options.static is not None:
        try:
            static, target, static_scale = static_targets(
                options.folders, options.static, judge, ~test & ~forced
            )
        except (OSError, RuntimeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(
            f"static labels, S = {static_scale:.1f} of their units a logit of the judge's;"
            " the losses below are against them"
        )
        data = mx.Samples(
            data.codes,
            data.extra,
            data.empty,
            target.astype(np.float32),
            data.move,
            data.game,
            data.history,
        )
        held = mx.subset(data, np.nonzero(test)[0])
        train_forced = np.zeros_like(forced)  # a static label knows no forced result
    base = None
    scale = options.scale
    if options.residual:
        from tools.tune import fit_scale

        evals = mx.engine_evals(data, rule)
        train_rows = np.random.default_rng(0).permutation(np.nonzero(~test)[0])[:20000]
        scale = float(fit_scale(evals[train_rows], data.value[train_rows].astype(np.float64)))
        base = evals / scale
        print(f"a correction of the search's evaluation, K = {scale:.1f}")
    params = fit(
        data,
        train_forced,
        test,
        base=base,
        features=options.features,
        hidden=options.hidden,
        epochs=options.epochs,
        rate=options.rate,
        forced_share=options.forced_share,
        seed=options.seed,
    )
    own = split_losses(
        search_chances(mx.subset(data, np.nonzero(~test)[0]), held, rule), held.value, forced[test]
    )
    fitted = split_losses(
        chances(params, held, offset=None if base is None else base[test]),
        held.value,
        forced[test],
    )
    for name, (every, on_forced, others) in (("the search's evaluation", own), ("the fit", fitted)):
        print(f"{name}: held-out loss {every:.4f}, forced {on_forced:.4f}, others {others:.4f}")
    if options.static is not None:
        quiet = ~forced[test]
        chance = np.clip(
            chances(params, held, offset=None if base is None else base[test]), 1e-9, 1 - 1e-9
        )
        print("rank correlation with the judge, held-out unforced positions:")
        evaluations = {
            "the search's evaluation": mx.engine_evals(held)[quiet],
            "the static labels": static[test][quiet],
            "the fit": np.log(chance / (1 - chance))[quiet],
        }
        stones = (held.history[quiet] >= 0).sum(axis=1)
        for line in rank_report(evaluations, judge[test][quiet], stones):
            print(f"  {line}")
    np.savez_compressed(
        options.out,
        inputs=np.array(INPUTS, dtype=str),
        rule=np.array(rule.value),
        scale=np.array(scale),
        add=np.array(options.residual),
        **dict[str, Any](params),
    )
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
