"""Play each level against the level below and print the ladder table of docs/engine.md.

    nice -n 10 python tools/ladder.py --games 8 [--levels beginner,easy,...] [--turn-ms 4000]
        [--seeds 11,12,13,14] [--rule caro] [--jobs 2]

Every pair is a ``python -m engine match level:UPPER level:LOWER`` with the same settings, once
per level seed (``--seeds``; the games of one seed repeat exactly below master, so more games
need more seeds), the results summed; the bar is a score of at least 75 % for the upper
level. Each seed's games start where the previous seed's openings stopped (as
``--first-opening`` does), so ``--games 32 --seeds 11,12,13,14`` plays all 64 match openings
with both colours, where every seed from opening 0 would replay the first 16 four times over
(expert and hard add no noise: their games repeat whatever the seed). ``--rule`` climbs the
ladder of another rule on the same openings; ``--jobs`` plays that many games at once.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.gomocup.match import MatchConfig, elo_difference, parse_engine, report, run_match
from engine.types import Rule

LEVELS = ("beginner", "easy", "medium", "hard", "expert", "master")
BAR = 0.75  # the score each level must reach against the level below


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ladder and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--turn-ms", type=int, default=4000)
    parser.add_argument("--grace-ms", type=int, default=2000)
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", help="comma-separated level seeds (instead of --seed)")
    parser.add_argument(
        "--rule", choices=[rule.value for rule in Rule], default=Rule.FREESTYLE.value
    )
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    options = parser.parse_args(argv)
    levels = options.levels.split(",")
    seeds = [int(s) for s in options.seeds.split(",")] if options.seeds else [options.seed]
    config = MatchConfig(
        size=options.size,
        rule=Rule(options.rule),
        turn_ms=options.turn_ms,
        grace_ms=options.grace_ms,
    )
    rows = []
    for lower, upper in itertools.pairwise(levels):
        wins = draws = losses = 0
        for index, seed in enumerate(seeds):
            specs = (
                parse_engine(f"level:{upper}", seed=seed),
                parse_engine(f"level:{lower}", seed=seed),
            )
            result = run_match(
                specs,
                games=options.games,
                config=config,
                log=print,
                jobs=options.jobs,
                first_opening=index * (options.games // 2),
            )
            for line in report(result, config):
                print(line, flush=True)
            w, d, losing = result.wdl()
            wins, draws, losses = wins + w, draws + d, losses + losing
        score = (wins + draws / 2) / (wins + draws + losses)
        elo, bar = elo_difference(wins, draws, losses)
        elo = elo if math.isinf(elo) else round(elo) + 0.0  # no "-0"
        verdict = "yes" if score >= BAR else "**no**"
        rows.append(
            f"| {upper} vs {lower} | {wins}/{draws}/{losses} | {100 * score:.0f}% |"
            f" {elo:+.0f} ± {bar:.0f} | {verdict} |"
        )
    print()
    print(f"| pair | W/D/L | score | Elo (95%) | ≥ {100 * BAR:.0f}% |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
