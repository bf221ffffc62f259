"""Static evaluation: the pattern tables of each rule and a position's score.

The tables are built once per rule by the numba builders in ``engine.search._patterns`` (about a
tenth of a second for the exact-five rules) and kept for the life of the process. This module
knows nothing of search.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.search import _patterns
from engine.types import Color, Rule

if TYPE_CHECKING:
    from engine.board import Board

__all__ = ["PatternTables", "evaluate", "tables"]

_RULE_CODES = {
    Rule.FREESTYLE: _patterns.RULE_FREESTYLE,
    Rule.STANDARD: _patterns.RULE_STANDARD,
    Rule.RENJU: _patterns.RULE_RENJU,
    Rule.CARO: _patterns.RULE_CARO,
}


@dataclass(frozen=True, slots=True)
class PatternTables:
    """Everything the search looks up, for one rule (index 0 Black, 1 White)."""

    rule: int  # the rule's code in the kernels
    half: int  # points seen on each side of a point along a line
    pattern: npt.NDArray[np.uint8]  # [side, line key] -> pattern (NONE..FOUR_FOUR)
    threat: npt.NDArray[np.int8]  # [side, pattern code] -> threat class (P4_*)
    value: npt.NDArray[np.int32]  # [side, pattern code] -> evaluation of the point
    packed: npt.NDArray[np.int32]  # [side, pattern code] -> value << 4 | threat class
    score: npt.NDArray[np.int32]  # [side, pattern code] -> move-ordering score
    maybe_forbidden: npt.NDArray[np.int8]  # [Black's pattern code] -> worth a renju check


@functools.cache
def tables(rule: Rule) -> PatternTables:
    """The tables of ``rule``, built on first use."""
    code = _RULE_CODES[Rule(rule)]
    half = 4 if code == _patterns.RULE_FREESTYLE else 5
    pattern = np.stack([_patterns.build_pattern_table(code, c, half) for c in (1, 2)])
    black = _patterns.build_code_tables(code == _patterns.RULE_RENJU)
    white = _patterns.build_code_tables(False)
    threat = np.stack([black[0], white[0]])
    value = np.stack([black[1], white[1]])
    return PatternTables(
        rule=code,
        half=half,
        pattern=pattern,
        threat=threat,
        value=value,
        packed=(value << 4) | threat.astype(np.int32),
        score=np.stack([black[2], white[2]]),
        maybe_forbidden=black[3],
    )


def evaluate(board: Board) -> int:
    """The static evaluation of a Gomoku position from the side to move's view."""
    from engine.search._position import Position  # built on these tables

    return Position.from_board(board).evaluate()


def side_index(color: Color) -> int:
    """0 for Black, 1 for White: the first index of every table."""
    return 0 if color is Color.BLACK else 1
