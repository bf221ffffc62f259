"""How often an evaluation orders sibling positions as the judge does: how well it compares the
positions a search compares, one move apart.

    python tools/siblings.py data/children [--first K --count N] [--static data/static]
    GOMOKU_EVAL_WEIGHTS=FILE python tools/siblings.py data/children ...     # other weights

A children shard (``tools/datagen.py --children``) holds, beside each position of a game, the
positions after the search's first candidates: siblings, each judged from the side to move's
view (the same side in all of them). For every pair of siblings that the judge's winning
chances separate by at least ``--margin`` (0.15), the pair counts as ordered when the
evaluation puts the better one higher (pairs it scores equal are left out). Printed: the
share ordered over all such pairs and over the pairs where neither result is forced, for the
search's own static evaluation (the weights and value head the environment chooses, as the
search would), and with ``--static`` for ``tools/static_labels.py``'s labels of the same shards.
Like the held-out losses it is a screen before play, not a verdict: a fit that orders more
siblings than the shipped evaluation has still lost in play (``docs/engine.md``, "A learned
value").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@dataclass(frozen=True, slots=True)
class Ordered:
    """Pairs ordered as the judge orders them, of those counted."""

    agree: int
    pairs: int
    agree_unforced: int
    pairs_unforced: int

    def __add__(self, other: Ordered) -> Ordered:
        return Ordered(
            self.agree + other.agree,
            self.pairs + other.pairs,
            self.agree_unforced + other.agree_unforced,
            self.pairs_unforced + other.pairs_unforced,
        )


def ordered_pairs(
    parent: npt.NDArray[np.integer],
    chance: npt.NDArray[np.floating],
    forced: npt.NDArray[np.bool_],
    evaluation: npt.NDArray[np.floating],
    margin: float,
) -> Ordered:
    """The siblings (rows with the same ``parent``) that ``chance`` (the judge's) separates by
    ``margin`` or more, and of them those ``evaluation`` orders the same way; pairs it scores
    equal are not counted."""
    agree = pairs = agree_q = pairs_q = 0
    order = np.argsort(parent, kind="stable")
    bounds = np.flatnonzero(np.diff(parent[order])) + 1
    for group in np.split(order, bounds):
        for a in range(len(group)):
            for b in range(a + 1, len(group)):
                i, j = int(group[a]), int(group[b])
                judged = float(chance[i]) - float(chance[j])
                if abs(judged) < margin or evaluation[i] == evaluation[j]:
                    continue
                same = (judged > 0) == (evaluation[i] > evaluation[j])
                pairs += 1
                agree += same
                if not forced[i] and not forced[j]:
                    pairs_q += 1
                    agree_q += same
    return Ordered(agree, pairs, agree_q, pairs_q)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    from engine.types import Rule
    from tools import mixnet as mx
    from tools.datagen import load_shard

    parser = argparse.ArgumentParser(prog="python tools/siblings.py", description=__doc__)
    parser.add_argument("folder", type=Path, help="a folder of children shards")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--margin", type=float, default=0.15)
    parser.add_argument("--static", type=Path, help="also the static labels in this folder")
    options = parser.parse_args(argv)
    found = [
        (folder, k)
        for folder, k in mx.shard_manifests([options.folder])
        if options.first <= k < options.first + options.count
    ]
    own = Ordered(0, 0, 0, 0)
    static = Ordered(0, 0, 0, 0)
    for folder, k in found:
        arrays, _ = load_shard(folder, k, Rule.FREESTYLE)
        if "child" not in arrays:
            print(f"error: {folder}/shard-{k:05d} is not a children shard", file=sys.stderr)
            return 1
        data = mx.samples(arrays)
        parent = arrays["game"].astype(np.int64) * 1000 + arrays["ply"].astype(np.int64)
        forced = np.asarray(arrays["judge_mate"]) != 0
        chance = data.value.astype(np.float64)
        evaluation = mx.engine_evals(data).astype(np.float64)
        own = own + ordered_pairs(parent, chance, forced, evaluation, options.margin)
        if options.static is not None:
            from tools.static_labels import StaticError, load_static

            try:
                labels = load_static(options.static, folder, k).astype(np.float64)
            except StaticError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 1
            static = static + ordered_pairs(parent, chance, forced, labels, options.margin)
    if not found:
        print("error: no shards found", file=sys.stderr)
        return 1
    rows = [("the search's evaluation", own)]
    if options.static is not None:
        rows.append(("the static labels", static))
    for name, got in rows:
        print(
            f"{name}: {got.agree}/{got.pairs} sibling pairs ordered as the judge"
            f" ({got.agree / max(got.pairs, 1):.3f}); neither forced"
            f" {got.agree_unforced}/{got.pairs_unforced}"
            f" ({got.agree_unforced / max(got.pairs_unforced, 1):.3f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
