"""A match's statistics: the Elo difference with its 95 % error bar (logistic model) and the
sequential probability ratio test over pairs of games on one opening (fishtest's GSPRT)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.gomocup.referee import GameResult

__all__ = ["Z_95", "Sprt", "elo_difference", "expected_score", "pair_llr"]

Z_95 = 1.959963984540054  # two-sided 95 % quantile of the normal distribution


def elo_difference(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Elo difference and its 95 % error bar from a W/D/L score (logistic model).

    The score s = (W + D/2) / N maps to Elo = -400 log10(1/s - 1); the bar is half the
    width of the interval that s +- 1.96 standard errors maps to, the standard error coming
    from the per-game score variance. A score of 0 or 1 gives infinities.
    """
    games = wins + draws + losses
    if games == 0:
        return 0.0, math.inf
    score = (wins + draws / 2) / games
    variance = (
        wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * (0 - score) ** 2
    ) / games
    margin = Z_95 * math.sqrt(variance / games)
    low, high = _elo(score - margin), _elo(score + margin)
    if math.isinf(low) or math.isinf(high):
        return _elo(score), math.inf
    return _elo(score), (high - low) / 2


# Each outcome value a pair of games can have gets this much of a game besides what was
# played, so that a hypothesis whose mean lies beyond every observed pair (all won, say) still
# has a likelihood: the regularisation fishtest's GSPRT uses.
_PRIOR_PAIRS = 1e-3
_PAIR_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential probability ratio test: is ENGINE1 ``elo1`` stronger (H1) rather than
    ``elo0`` (H0)? Errors of the first and second kind at most ``alpha`` and ``beta``.

    The test counts pairs of games (one opening, both colours) as one sample scoring 0, 1/4,
    ... 1 for ENGINE1: the pair shares its opening, so its two games are not independent. The
    log-likelihood ratio is the generalised one (Van den Bergh's GSPRT, as in fishtest): each
    hypothesis' most likely distribution of pair scores whose mean is that hypothesis' score.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def bounds(self) -> tuple[float, float]:
        """The LLR below which H0 is accepted and above which H1 is."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, games: Sequence[GameResult]) -> float:
        """The log-likelihood ratio of H1 against H0 after the complete pairs in ``games``."""
        return pair_llr(_pair_counts(games), expected_score(self.elo0), expected_score(self.elo1))

    def verdict(self, games: Sequence[GameResult]) -> str | None:
        """ "H1" or "H0" once the LLR has left its bounds, else None."""
        low, high = self.bounds()
        value = self.llr(games)
        return "H1" if value >= high else "H0" if value <= low else None


def expected_score(elo: float) -> float:
    """The score an Elo difference predicts (logistic model)."""
    return 1 / (1 + 10 ** (-elo / 400))


def _pair_counts(games: Sequence[GameResult]) -> list[float]:
    by_pair: dict[int, list[float]] = {}
    for game in games:
        score = 0.5 if game.winner is None else 1.0 - game.winner
        by_pair.setdefault((game.number - 1) // 2, []).append(score)
    counts = [0.0] * len(_PAIR_VALUES)
    for scores in by_pair.values():
        if len(scores) == 2:
            counts[round(2 * sum(scores))] += 1
    return counts


def pair_llr(counts: Sequence[float], s0: float, s1: float) -> float:
    """log L(s1) - log L(s0): ``counts[i]`` pairs scored ``i / 4``, and each side's likelihood
    is that of the most likely distribution of pair scores with mean ``s``."""
    regular = [count + _PRIOR_PAIRS for count in counts]
    return _max_log_likelihood(regular, s1) - _max_log_likelihood(regular, s0)


def _max_log_likelihood(counts: Sequence[float], mean: float) -> float:
    # The maximum of sum n_i log p_i over distributions p with sum p_i a_i = mean is at
    # p_i = f_i / (1 + lam (a_i - mean)), where lam makes that mean come out: the sum below
    # falls as lam grows, between the poles where some 1 + lam d_i reaches 0. Values never
    # scored get no probability, so ``mean`` must lie strictly between the lowest and the
    # highest value scored (``pair_llr``'s prior sees to that).
    total = sum(counts)
    seen = [
        (count / total, value - mean)
        for count, value in zip(counts, _PAIR_VALUES, strict=True)
        if count > 0
    ]
    low = -1 / max(d for _, d in seen)
    high = -1 / min(d for _, d in seen)

    def slope(lam: float) -> float:
        return sum(f * d / (1 + lam * d) for f, d in seen)

    for _ in range(200):
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    lam = (low + high) / 2
    return total * sum(f * math.log(f / (1 + lam * d)) for f, d in seen)


def _elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)
