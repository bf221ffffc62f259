"""Rating and statistics arithmetic shared by every repository (no I/O).

OpenSkill's Plackett-Luce model (the ``openskill`` package, Weng & Lin 2011) rates the games.
Why OpenSkill rather than Glicko-2: it is actively maintained, typed (ships ``py.typed``), pure
Python with no state beyond (mu, sigma) per player, and its update is deterministic, so the
SQLite and in-memory repositories compute bit-identical ratings. Glicko-2 needs rating
periods and a volatility iteration, and the Python packages for it are small, mostly
unmaintained ports. For two players, Plackett-Luce behaves like a Bayesian Elo with an
uncertainty that shrinks as games are played; ``ordinal`` (mu - 3 sigma) is what we rank by.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from openskill.models import PlackettLuce

from engine.types import Color, Game, Rule
from storage.records import PlayerStats

__all__ = ["INITIAL_MU", "INITIAL_SIGMA", "MODEL", "new_stats", "rate_game"]

MODEL = PlackettLuce()  # default mu 25, sigma 25/3, beta 25/6, tau 25/300
INITIAL_MU: float = MODEL.mu
INITIAL_SIGMA: float = MODEL.sigma


def new_stats(
    user_id: int, game: Game, guild_id: int | None, rule: Rule = Rule.FREESTYLE
) -> PlayerStats:
    """The statistics of a player before their first rated game of ``game`` under ``rule``."""
    return PlayerStats(
        user_id=user_id,
        game=game,
        guild_id=guild_id,
        mu=INITIAL_MU,
        sigma=INITIAL_SIGMA,
        rule=rule,
    )


def _record(stats: PlayerStats, color: Color, winner: Color | None, at: datetime) -> PlayerStats:
    black = color is Color.BLACK
    if winner is None:
        return replace(
            stats,
            draws_black=stats.draws_black + black,
            draws_white=stats.draws_white + (not black),
            streak=0,
            updated_at=at,
        )
    if winner is color:
        streak = stats.streak + 1 if stats.streak > 0 else 1
        return replace(
            stats,
            wins_black=stats.wins_black + black,
            wins_white=stats.wins_white + (not black),
            streak=streak,
            best_streak=max(stats.best_streak, streak),
            updated_at=at,
        )
    return replace(
        stats,
        losses_black=stats.losses_black + black,
        losses_white=stats.losses_white + (not black),
        streak=stats.streak - 1 if stats.streak < 0 else -1,
        updated_at=at,
    )


def rate_game(
    black: PlayerStats, white: PlayerStats, winner: Color | None, at: datetime
) -> tuple[PlayerStats, PlayerStats]:
    """Both players' statistics after a rated game (``winner`` None = a draw)."""
    # Plackett-Luce ranks: lower is better, equal ranks are a draw.
    ranks: list[float] = [1.0, 1.0] if winner is None else [1.0, 2.0]
    if winner is Color.WHITE:
        ranks.reverse()
    [[new_black], [new_white]] = MODEL.rate(
        [
            [MODEL.rating(mu=black.mu, sigma=black.sigma)],
            [MODEL.rating(mu=white.mu, sigma=white.sigma)],
        ],
        ranks=ranks,
    )
    return (
        replace(_record(black, Color.BLACK, winner, at), mu=new_black.mu, sigma=new_black.sigma),
        replace(_record(white, Color.WHITE, winner, at), mu=new_white.mu, sigma=new_white.sigma),
    )
