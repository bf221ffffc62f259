"""How strong each AI level is: the one table the level picker, the level descriptions of
``/gomoku help`` and the README's level table (``python -m bot levels --markdown``) quote.

Each level played the level below it on 15x15 freestyle, all 64 balanced match openings of
``engine/gomocup/openings.py`` each with both colours (``python tools/ladder.py``, or
``python -m engine match level:A level:B``), and the three strongest played the Gomocup engine
Wine 2.1 at 500 ms a move (``python -m engine match level:NAME WINE``; master as
``python -m engine.pbrain``, as it ships). ``docs/engine.md`` has the commands in full.
A draw counts half. Master's time cap is its preset's (``engine.search.levels``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.text.i18n import N_
from engine.search.levels import PRESETS
from engine.types import Level

__all__ = [
    "OPPONENT",
    "OPPONENT_TURN_MS",
    "STRENGTH",
    "Score",
    "Strength",
    "below",
    "markdown",
    "plain",
    "time_cap_s",
]

OPPONENT: Final = "Wine 2.1"  # the Gomocup engine the strong levels are measured against
OPPONENT_TURN_MS: Final = 500  # its time a move, and the level's, in those matches


@dataclass(frozen=True, slots=True)
class Score:
    """A match's result from the level's side."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """How many games were played."""
        return self.wins + self.draws + self.losses

    @property
    def share(self) -> float:
        """The share of the points won, a draw counting half (0.766 for 196/0/60)."""
        return (self.wins + self.draws / 2) / self.games

    def __str__(self) -> str:
        return f"{self.wins}/{self.draws}/{self.losses}"


@dataclass(frozen=True, slots=True)
class Strength:
    """One level's row: how it plays and what it scored."""

    plays: str  # how it plays, for the catalogues ({seconds}: its time cap)
    choice: str  # the picker's line ({below}, {engine}, {opponent}, {seconds}), ≤ 100 chars
    below: Score | None  # against the level below it
    engine: Score | None  # against OPPONENT at OPPONENT_TURN_MS a move


STRENGTH: Final[dict[Level, Strength]] = {
    Level.BEGINNER: Strength(
        N_("overlooks your threats half the time: for learning the game"),
        N_("Beginner: misses threats, for learning"),
        None,
        None,
    ),
    Level.EASY: Strength(
        N_("sees fours, often misses an open three"),
        N_("Easy: scores {below} against beginner"),
        Score(196, 0, 60),
        None,
    ),
    Level.MEDIUM: Strength(
        N_("solid tactics, the odd slip"),
        N_("Medium (default): scores {below} against easy"),
        Score(196, 0, 60),
        None,
    ),
    Level.HARD: Strength(
        N_("looks for a forced win first and never slips"),
        N_("Hard: scores {below} against medium, {engine} against {opponent}"),
        Score(216, 0, 40),
        Score(30, 0, 98),
    ),
    Level.EXPERT: Strength(
        N_("a deep search that never slips"),
        N_("Expert: scores {below} against hard, {engine} against {opponent}"),
        Score(106, 0, 22),
        Score(67, 1, 60),
    ),
    Level.MASTER: Strength(
        N_("full strength, up to {seconds} s a move"),
        N_("Master: up to {seconds} s a move; {below} against expert, {engine} against {opponent}"),
        Score(117, 0, 11),
        Score(110, 1, 17),
    ),
}


def below(level: Level) -> Level | None:
    """The level one step weaker than ``level`` (None for the weakest)."""
    levels = list(Level)
    index = levels.index(level)
    return levels[index - 1] if index else None


def time_cap_s(level: Level) -> float:
    """The level's longest think a move, in seconds (its preset's cap)."""
    return PRESETS[level].time_ms / 1000


def _percent(score: Score | None) -> str:
    return "—" if score is None else f"{score.share:.1%} ({score})"


def _name(level: Level) -> str:
    return f"{level.value} (default)" if level is Level.MEDIUM else level.value


def markdown() -> str:
    """The README's level table, in English."""
    rows = [
        f"| level | how it plays | against the level below | against {OPPONENT}, "
        f"{OPPONENT_TURN_MS} ms a move |",
        "|---|---|---|---|",
    ]
    for level, strength in STRENGTH.items():
        plays = strength.plays.format(seconds=f"{time_cap_s(level):g}")
        rows.append(
            f"| {_name(level)} | {plays} | {_percent(strength.below)} "
            f"| {_percent(strength.engine)} |"
        )
    return "\n".join(rows)


def plain() -> str:
    """The levels in plain English lines, one a level."""
    lines = []
    for level, strength in STRENGTH.items():
        lower = below(level)
        line = f"{_name(level)}: {strength.plays.format(seconds=f'{time_cap_s(level):g}')}"
        if strength.below is not None and lower is not None:
            line += f"; against {lower.value} {_percent(strength.below)}"
        if strength.engine is not None:
            line += f"; against {OPPONENT} {_percent(strength.engine)}"
        lines.append(line)
    return "\n".join(lines)
