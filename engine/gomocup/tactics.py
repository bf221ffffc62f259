"""The tactical suite: positions with a forced win by continuous fours (VCF), a win by threes,
or the one move that stops the opponent's attack (a VCF, or, harder, a win by fours and threes
from master's lost games against anchor engines), and ``python -m engine tactics``, which
times the search on each. Stopping the attack is not always saving the game: Rapfi 0.43.02
classical at 3 s finds a slower win for the attacker after 109 of the first 115 hard defences
(mate in 7-37 plies) and rates the attacker ahead after the other six (``tools/judge.py
--tactics``).

The VCF and defence positions come from games between the levels (medium against hard,
16 balanced openings per rule): the first position of a game where the side to move has a VCF
(kept when the win takes at least two fours), or where only one move stops the opponent's.
Every winning line is checked by a slow oracle that plays it out on ``Board``
(``tests/engine/test_tactics.py``). The tests search every position at a fixed node limit
and check that each is solved but the few hard defences master misses there; this command
reports the time each takes, against the bar of one second, and the suite's score: every
position but the hard defences whose answer is itself proved lost (``LOST_ANSWERS``), which it
reports apart.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.board import Board
from engine.types import Point, Rule

__all__ = [
    "DEFENCES",
    "HARD_DEFENCES",
    "LOST_ANSWERS",
    "PROOF_NODES",
    "THREE_WINS",
    "VCF_WINS",
    "Puzzle",
    "after_answer",
    "answer_lost",
    "main",
    "scored",
    "solve",
]


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A position and what the side to move must find there."""

    rule: Rule
    moves: str  # the game so far, from the first move
    answer: str | None = None  # the one right move, where only one is right
    wins: bool = True  # the side to move forces a win (False: it must find ``answer`` to live)

    def board(self) -> Board:
        """The position."""
        return Board.from_moves(self.moves, rule=self.rule)


F, S, R = Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU


def _saves(rule: Rule, moves: str, answer: str) -> Puzzle:
    """A defence: ``answer`` is the one move that keeps the side to move alive."""
    return Puzzle(rule, moves, answer=answer, wins=False)


VCF_WINS: tuple[Puzzle, ...] = (
    Puzzle(
        F, "h8 f9 h11 h10 i10 j9 i11 i9 g11 j11 g9 e11 g8 g10 k9 f8 j10 h12 f10 j6 j8 h6 l10 m11"
    ),
    Puzzle(F, "h8 g6 g9 i7 i9 j9 i8 j8 j10 g7 k9 g5 g4 j7 k11 l12 h7"),
    Puzzle(F, "h8 g8 e5 f6 g9 e6 d6 f7 h9 f4 f5 d5 c4 h6 i7 f10 f9 e9 i6 d8"),
    Puzzle(
        F,
        "h8 g7 i11 i7 f8 g8 g9 h10 f7 f9 h7 h6 g5 g11 f5 i5 f6 f4 e5 d5 e7 h4 d6 c5 d8 c9 i4 i9 "
        "j8 f12 e13 j6 k7",
    ),
    Puzzle(F, "h8 f6 e6 e7 f7 g8 g4 g9 f5 d7 g5 h10 f8 g10 g7 f10 e10 g11 g12 e9 g3 g6 g2 g1 h12"),
    Puzzle(
        F, "h8 f7 j11 g6 i11 h7 k11 h11 j10 g7 i7 e8 d9 d7 e7 g8 i9 l12 i8 i10 i6 i5 m11 l11 g9"
    ),
    Puzzle(F, "h8 g8 h5 f7 f5 j5 h7 h6 e6 g7 g4 d7 f3 i6 e4 e7 c7 g6"),
    Puzzle(
        F,
        "h8 g7 e9 i7 e7 i8 e8 e10 d8 j7 h7 i6 i5 h9 g10 h5 k8 k6 l5 j6 h6 j5 f8 g8 e6 e5 c8 b8 j4",
    ),
    Puzzle(F, "h8 f7 e5 f6 g9 g6 f8 e8 h5 h6 e6 e7 j6 i7 g5 f5 h7 e4 j5 d7 b7 c7 g7 f9 g10"),
    Puzzle(
        R,
        "h8 j6 f8 i8 e8 d8 f7 g6 h7 h6 i6 e7 j5 g8 f6 f9 g7 i9 e5 d4 f4 f5 j7 i7 k8 l9 g4 h5 d6 c7 "
        "h2 g3 h4 i4 k4 l3 k9 e9 f10 d9 c9 b6 a5 d11 d10 e10 c12 f11 g12",
    ),
    Puzzle(
        R,
        "h8 f9 i9 g7 h10 g11 k11 g10 h11 g8 g9 h7 i6 i7 j7 e7 f7 e10 d11 h9 j9 j10 i11 j12 j11 l11 "
        "j8 j6 i12 i10 k8 l9 l8 i8 k7 l6 k5 k6 m8 n8 k10 k9 h13 g14 h5 g4 g6 e8 i4 j3 h14 h12 e9 "
        "m6 n6 f11 e12",
    ),
    Puzzle(R, "h8 g7 g11 g9 h11 h7 f11 i11 g10 h10 f8 f7 e7 f9 d11 e11 g8 i8 d8 e8 e9"),
    Puzzle(
        R,
        "h8 g8 e5 i9 e6 g9 g7 f9 h9 h7 i6 g11 d6 g10 g12 f6 f4 c7 e3 e4 g5 e10 d11 h6 g3 h2 f5 d5",
    ),
    Puzzle(R, "h8 f8 k5 f9 j6 g9 i9 e9 h9 h10 e7 f10 f7 g7 l4 i7 m3 n2 h6"),
    Puzzle(R, "h8 f7 k5 e8 h5 e6 j5 i5 j6 i7 j7 j8 j4 j3 i6 k8 k6 h6"),
    Puzzle(
        R,
        "h8 g7 i11 i7 f8 g8 g9 h10 f7 f9 h7 h6 g5 i5 g6 f5 e8 h5 i8 g4 k10 j9 k8 h4 l8 j8 d9 c10 "
        "k7",
    ),
    Puzzle(R, "h8 f8 k6 f10 k5 f9 f7 f11 f12 e9 k8 k7 i8 g8 j7 h9 l5 m4 g9 j6 i6 h5 n5 j5"),
    Puzzle(R, "h8 g8 j5 k5 k4 h7 l5 j7 g7 i9 j3 i2 j4 j2 l3 i6 k3 f9 e10 m3"),
    Puzzle(R, "h8 g7 j11 i7 h9 h6 j8 g8 j9 j7 h7 i5 f8 g6"),
    Puzzle(
        R,
        "h8 g8 h5 f7 f5 j5 h7 h6 e6 d7 e5 g5 g7 f6 e7 e4 i7 j6 j7 k7 i6 g4 i8 i9 j9 g6 k8 l9 h9",
    ),
    Puzzle(
        R,
        "h8 f6 e8 e7 h6 f8 g5 f7 f5 f9 f10 h7 g7 g9 h10 h9 i9 e9 d9 c5 d6 g8 j10 k11 i10 g10 e10 "
        "g11 g12 f11 i8 i6 j5 i11 h11 j9 f4 e3",
    ),
    Puzzle(
        R,
        "h8 g7 f11 g6 g8 f8 h6 f7 h7 h5 e8 f9 f6 h9 g9 i4 j3 i7 i3 g4 i6 j5 h3 g3 g5 h4 f4 j6 i5 "
        "k5 k3 l3 j4 l2 l4 k2 m4 j2 m2 m6 g11 e11 f12 k6 g12 g10 h12",
    ),
)
"""Wins by continuous fours: 9 freestyle and 13 renju positions, two to six fours deep."""

THREE_WINS: tuple[Puzzle, ...] = (
    # h8 makes two open threes at once (f8 g8 h8 and h6 h7 h8); in renju it is forbidden
    Puzzle(F, "f8 a1 g8 a3 h6 o15 h7 o13", answer="h8"),
)
"""Wins that need an open three: the search must find them before the fours run out."""

DEFENCES: tuple[Puzzle, ...] = (
    _saves(F, "h8 g8 i8 a2 j8 a3 k8", "l8"),  # a closed four: one block
    _saves(F, "h8 f6 e6 g5 e7 e5 d5 f7 f8 d6 e9 e8 c7 h5", "g6"),
    _saves(F, "h8 g7 j11 i7 g8 i8 i10 h9 j7 e9 j9 f9 g9 f8 h6 f7 j10 j8 j12 j13", "f10"),
    _saves(F, "h8 f6 e8 e7 h6 d6 g5 f8 g9 f7 f5 c5 b4 c7 g7 f10 f9 c6", "g6"),
    _saves(F, "h8 g7 f11 i7 i8 g8 g10 h9 f7 k9 f9 j9 i9 j8 h6 j7 f10 f8 f12 f13", "j10"),
    _saves(R, "h8 f7 k5 e8 h5 g6 d9 g8 j5 i5 j6 g9 g7 e6 h9 f6 h6 h7 j7 d6 c6 c4 d5", "j8"),
    _saves(
        R,
        "h8 f7 j11 f6 g9 g6 f8 e8 h5 e7 i7 j6 h6 h7 g5 j8 f5 d7 g7 i5 f4 e3 e11 f10 c7 e5 e6 d10 "
        "c10 h10 g10 k7",
        "g11",
    ),
    _saves(R, "h8 f7 e5 g5 i7 f6 e7 f8 f9 e9 k5 j6 e6 e4 f4 g7", "h6"),
)
"""One move saves the side to move from the opponent's VCF (the position may still be lost to
a slower attack). Found like the VCF positions: every legal move was tried, and only
``answer`` left the opponent no VCF."""


HARD_DEFENCES: tuple[Puzzle, ...] = (
    _saves(F, "h8 f7 e5 g7 h7 h6 f8 g6 g8 e8 h5 f9 d7 g5 i7 g9 d9 j8 i6 g4 g3", "i9"),
    _saves(F, "h8 g7 g11 i8 i7 g9 h6 h9 g6 f9 e9 g10", "f11"),
    _saves(F, "h8 g8 e5 h7 i7 i6 f9 j5 k4 j6 j4 h4 h6 i5 g3 g5 h5 f6 i3 g6 g7 f5", "e4"),
    _saves(F, "h8 g7 i11 f8 h6 g9 k9 g8 g6 e7 d6 f7 h7 h9 e6 f6 f9 d8 c9 e9 h4 h5", "f10"),
    _saves(F, "h8 f7 j11 g7 j9 g6 g5 h7", "e7"),
    _saves(F, "h8 g7 e9 g9 g8 i8 d8 e8 e7 c7 c9", "b10"),
    _saves(F, "h8 f8 k5 g9 h10 g7 j8 g8 g10 h6", "i5"),
    _saves(F, "h8 f8 k6 g9 k8 g7 e7 e9", "h6"),
    _saves(F, "h8 g7 f11 i7 h11 h7 j7 g8 g9 i6", "f9"),
    _saves(F, "h8 g7 f11 i7 h7 h6 g5 f7 h9 g6 g10", "i8"),
    _saves(F, "h8 g7 i11 f7 i8 g8 g9 f10 f9 i9 h9 h10 g10 f11 j7 k6 j8", "j9"),
    _saves(
        R,
        "h8 g7 e9 g8 g9 f10 f9 h9 f7 d9 e10 f6 i11 e7 e12 e11 g5 d6 c6 e5 d7 e8 j12 d4 c3 h10",
        "f4",
    ),
    _saves(R, "h8 g7 f11 i8 h7 h6 f8 i6 i7 j6 k6 g6 f6 g4", "g3"),
    # from the lost games kept in data/ab/refit33-pentazen-openings64-500ms (the first three),
    # ship33-rapfi-500ms (the next three) and ship34-pentazen-openings128-500ms (the last)
    _saves(F, "h8 f6 g8 i8 g9 h7 g11 g7 i7", "f10"),
    _saves(F, "h8 f7 d4 e8 d7 c8 d9 d8", "f8"),
    _saves(
        F,
        "h8 f7 e9 g9 h10 g7 h7 h9 g8 i8 e10 f9 e8 e7 f10 c7 d7 d10 g12 h12 f11 h13 h11 j9 i9",
        "g11",
    ),
    _saves(
        F,
        "h8 f8 k7 g9 h10 h9 i9 j8 i10 j10 i11 i8 j7 f9 l7 i7 k8 j9 i6 e9 d9 l9 h5 g4 h6 g10 i12 "
        "i13 h7 h4 n7 m7",
        "f10",
    ),
    _saves(F, "h8 g7 f6 h6 f8 f7 e7 g9 g6 d8 e6 e8 e4", "f5"),
    _saves(F, "h8 f6 f10 g9 h10 h11 g8 g10 f9 f8 g11 e10 i9", "j8"),
    _saves(F, "h8 f8 f7 h7 e9 g8 g9 e8 f9 h9 d8", "f10"),
    # in standard, from the lost games kept in data/ab/std-lmr34-pentazen-500ms (the first
    # three), -openings64-500ms and -openings128-500ms (the `stdlmr` arm, master as it ships)
    _saves(S, "h8 f8 i7 g9 h10 i9 h9 h7 k9 j10 k8 i8 j9", "i10"),
    _saves(S, "h8 g8 f8 g9 g7 h6 f6 e5 g10 g5 h10 f10 h9", "h11"),
    _saves(S, "h8 g7 e7 f9 h6 h9 g9 i7 h7 g6 g5 h4 d8 e8 d6 f8 d7 d5 d10 d9 c9 f6 f7", "f10"),
    _saves(S, "h8 f6 j10 i9 j8 i8 i10 j9 k10 l10 h10 g10 h9", "h11"),
    _saves(S, "h8 f7 i12 f6 f8 e7 g7 g5 h4 e9 e6 e8 d9 d7 c7 c6 f9 d5 f3 d4", "d6"),
    # from the 84 games master as it ships lost to Rapfi 0.43.02 classical at 500 ms a move,
    # kept in data/ab/pns-rapfi-500ms (the `ship` arm): 30 positions found, 6 of them the block
    # of a four
    _saves(F, "h8 f7 e10 g9 g7 g8 h9 h10 f8 e9 g11 f6 f11 h11 d11 d9 c10 g10 c9", "c11"),
    _saves(
        F,
        "h8 f8 d8 f6 f7 e9 g7 h7 d7 d9 e6 d5 g9 g8 f9 f5 i7 j6 i9 g5 j10 k11 e5 e4 i8 g6 d3",
        "i6",
    ),
    _saves(
        F,
        "h8 f7 f10 g9 h10 g10 g11 i9 f9 f11 i8 h7 h12 i13 g8 j8 e12 e9 g12 f12 h11 h9 f13 e14 "
        "g14 d11 j11 h14 j12",
        "j9",
    ),
    _saves(
        F,
        "h8 g8 i6 i9 g9 i7 h10 i11 i10 j10 k9 j7 h7 h9 j9 k8 f10 f9 e10 g10 e11 d12 f11 e9 g12",
        "i8",
    ),
    _saves(
        F,
        "h8 f8 k8 g8 j7 g7 g6 f7 i6 h5 h6 f6 f5 h9 i10 g9 i9 f9 f10 e9 d9 d5 e6 c11 d10 h7 i8 i7 "
        "e7 j8 k9 d11 e10",
        "g10",
    ),
    _saves(F, "h8 g8 f5 f6 e6 g4 e7 e5 d7 g7 c8 b9 c7 b7 c6", "g6"),
    _saves(F, "h8 f6 e9 g9 h10 h9 i9 g11 g8 i8 g10 f10 j10 k11 j7 k10 j8", "j9"),
    _saves(F, "h8 f7 i10 g6 i8 e6 i9 i7 g8 j8 h6", "e8"),
    _saves(
        F,
        "h8 f7 d7 g8 g6 e5 h9 d5 e6 f5 g5 f6 f4 d4 c3 c5 b5 f9 f8 e3 f2 h7 i6 i7 j7 g10 g4 g7 e7 "
        "f3 h4 b6 a7 e4 g2 g3 h3 b7 c6 e10 d11 e2 e1",
        "g9",
    ),
    _saves(
        F,
        "h8 g8 e5 g7 g6 h7 i6 f7 e7 e6 h9 f5 f8 g4 h3 f4 g9 d5 c4 d6 d4 d8 d7 i7 j7 h6 g5 c6 f6 "
        "h4 i4 b6 a6 e9 h10 i11 f10 c9 a5 e4 b7 c7 c8 f9 i8 g2 f3 g10 j8 d11 e10 d9 b9",
        "d12",
    ),
    _saves(F, "h8 f7 j8 g8 i9 g7 h10 g11 i7 g9 g10", "g5"),
    _saves(
        F,
        "h8 g8 f8 g7 g6 f7 e7 g9 h9 i8 g11 h7 i6 h11 e9 d8 f12 e10 d10 e11 e13 h10 c11 b12 d12 "
        "f14 f9 d13 e6 e5 b9 c8 c12 c9 b7 b8 a9 b10 c6 f6 a8 a7 c14 c13 g12 e12 j7 h12 d4 i11 "
        "j10 h14 h13 d14 d5 e4 a11 i13 a12 a10 f11 f10",
        "i14",
    ),
    _saves(F, "h8 f8 e7 d7 g7 f6 g6 h7 f9 g9 i6 i4 i9 j8 k6 k8 j6 h6 i7 i8 l8 l6 k5 l4 k7", "m9"),
    _saves(
        F, "h8 g7 e6 f8 h6 h7 i7 g5 f7 g9 g6 i6 g8 d5 h5 e8 d6 f6 h4 i4 j8 k8 j6 j7 k7 i5 l6", "i9"
    ),
    _saves(F, "h8 f8 k7 g7 j8 g8 g9 f10 j6", "f9"),
    _saves(
        F,
        "h8 g7 g11 i7 h7 h6 i5 j8 k9 k7 i9 g5 f4 g6 g4 h9 g8 j7 j6 e8 i6 j5 h4 i4 k6 e9 h5 f3 h3 "
        "g3 e6 d7 f8 g10 f5 i2 f9 e10 f7 f6 l6 m6",
        "h1",
    ),
    _saves(
        F,
        "h8 g7 e7 i8 e8 i7 i6 g5 j7 h6 f4 g6 g4 h5 e6 e5 f5 h3 e9 e10 h4 i4 f7 f8 d7 c8 f3 f6 d4 "
        "e4 i5 j5 g2 j3 k2 k6 l7 k9 j8",
        "g8",
    ),
    _saves(F, "h8 f6 f10 g9 h10 h11 g8 g10 f9 f8 g11", "e10"),
    _saves(F, "h8 f8 h7 h9 i8 i7 g6 f5 i6 h6 j8 k8 g7 f6 f7 g8 j5 h5 j9 k10 k7 j7 l6", "m5"),
    _saves(F, "h8 g8 d6 f7 e6 h7 f9 e8 g6 f6 e7 c5 f5 g4 g9 i7 j7 e9 j9", "j10"),
    _saves(
        F,
        "h8 f6 g7 f7 f5 g5 h4 g8 h9 f9 h7 h6 i7 g6 e6 e8 d9 j7 f10 j6 i6 j5 j8 h10 i4 i5 d7 j4 j3",
        "k5",
    ),
    _saves(F, "h8 g7 g9 i7 f8 h10 f10 f9 e8 g8 h7 g6 e7 d8 e10 e9 c10 d10 d9", "b11"),
    _saves(
        F,
        "h8 f7 d6 e8 g6 e6 g8 g7 e7 f8 f9 e9 h6 h7 i7 j6 d10 f4 e11 f5 f6 d7 f10 g9 g4 c9 j8 b9 "
        "c8 g5 i9 d9 a9",
        "c10",
    ),
    _saves(
        F,
        "h8 f7 f5 f9 g5 h5 g6 h7 g8 g7 e7 f8 f6 h4 h6 i7 j7 e6 f4 f3 g3 e5 e4 d3 f10 g10 h11 j6 "
        "e11 g4 e2 e9 c9 d8 c11 g9 h9 b8 d11 b11 c10",
        "c8",
    ),
    # from the 61 games master lost in data/ab/lmr200-pentazen-500ms (the `ship` arm)
    _saves(F, "h8 f6 f7 e7 g5 g6 h6 i7 i8 g8 j7 h9 j5", "h5"),
    # from the 239 games master as it ships lost by a five to Rapfi 0.43.02 classical at 500 ms a
    # move, kept in data/ab/ship40-rapfi-500ms, lost-rapfi-openings64-500ms and
    # ship40-rapfi-openings128-500ms (in that order): 66 positions found, one of them hard32
    _saves(
        F,
        "h8 f7 h5 g8 e6 g7 e7 i7 e8 e5 f9 g10 g9 e9 h6 h7 j7 f6 g4 i6 f5 h3 j5 i5 i8 j4 j8 k7 f8 "
        "h10 d4 d6 k6 h9 j11 j10",
        "f10",
    ),
    _saves(
        F,
        "h8 f7 h5 g8 h9 h7 f9 i7 j7 i6 i8 g10 g7 j5 k4 i9 k6 l5 k5 k3 f6 e5 e9 d9 f8 h6 f10 g11 "
        "f12 f11 e11",
        "g9",
    ),
    _saves(
        F,
        "h8 f8 k8 g8 h7 h6 g7 f6 g6 f7 f5 i8 g5 e5 e6 g4 j7 l9 i9 i7 h10 j10 h11 h9 g11",
        "f12",
    ),
    _saves(F, "h8 g8 f5 f6 e6 g4 i7 i4 j6 k5 h7 h4 j4 g7 g9 f10 g5", "e4"),
    _saves(F, "h8 f6 e9 g9 g10 h9 i10 j10 j9 h11 f8 e10 i8 g8 k8 i6 h7 g6 h6", "g7"),
    _saves(F, "h8 g8 e5 g9 g7 f6 f7 h7 f9 e7 d8 i6 j5 i9 i8 j8 f10 h6 j6 i7 k9 h5", "f8"),
    _saves(
        F,
        "h8 g8 e5 g7 g6 h7 f9 i6 i7 j5 k4 j6 j4 k6 l6 h5 l5 l7 i4 h4 i2 m6 i3 m8 n9 m7 i5 i1 m5 "
        "k3 k8 e6 f7 f5 g4 j8 f10 f8 g10 l8 m9 l9 g9 e11 h9 j9 j7 e9 d10 l11 l10 e10 e8 e12 e13",
        "i8",
    ),
    _saves(F, "h8 f7 j8 g8 i9 g7 h10 g11 i7 g9 g10 i10 h9 h7 j9 d7 e7", "g5"),
    _saves(F, "h8 f6 e6 f7 f8 e7 g5 g8 h7 h6 h9 g6 g9 f9 h5 i5 j6 i7 h10 h11 g10 j10 i8", "j7"),
    _saves(F, "h8 f6 e8 e7 g9 f7 h9 f9 f10 i7 h10 h7 g7 d8 g5 b10 c9", "f8"),
    _saves(F, "h8 g8 j8 g9 g7 i9 j9 h7 i6 j7 k6 l7 k7", "j6"),
    _saves(
        F,
        "h8 g7 g11 i8 e9 h7 f10 h12 i7 g9 g6 e8 h6 f6 j6 j7 f12 f9 j8 k9 e5 f4 e13 h10 e11 k6 k5 "
        "l4",
        "c15",
    ),
    _saves(
        F,
        "h8 g7 g11 h7 i7 g9 i8 g8 g6 i6 f9 h5 j5 h4 h3 e7 f7 g4 f3 f8 d6 e9 h6 d10 c11 f6 g5 f4 "
        "e4 c9 e8 e10 c10 d9 d7 h10 i11 g10 f10 d8 b10 i4 j4 a9 b9",
        "d11",
    ),
    _saves(
        F,
        "h8 g7 d6 f7 f8 e7 h7 e8 h9 h10 e9 g6 h5 h6 i6 g8 g9 d7 c7 f9 c6 d11 d10 c10 d9 c11 c9 b9 "
        "e12 g4 g5 g10 h11 e11 f11 e10 c12 e6 f5 i5 d5 e5 e4 b7 i10 j9 i9 i8 j6 i7 j4 d12 b11 b6 "
        "b8 j5 d4 b4 k5 d13 c8 c5 i3 h2 l6 m7 k6 m6 k4 k7 k3 k2 j2",
        "l7",
    ),
    _saves(F, "h8 g7 d8 i7 f7 f8 h6 h7 j7 g6 i8 k8 e9 k6 f10", "g11"),
    _saves(
        F,
        "h8 g7 e7 i7 e8 i6 i8 h7 g8 f8 j7 k6 e6 e9 h6 d7 g5 d10 c11 d8 d9 f7 f11 g10 e11 d11 f10 "
        "d12 h4 f5 f6 i3 g3 g6 d5 e5 e4 f3 e10 c8 f13 f12 g12 h13 h11 i10 d13 e13 e14 d15 e12 c14 "
        "b11 c12 h10 j6 i4 l6 m6 k5 g11 i11 j8 k8 k7 i9 m7 k4 j5 j11 i12 k12 l13 l4 m3 l7 l5 k11 "
        "h2 g4 k9 j13 l10 l12 m11 n12 h5 h3 j12 n11 c10 a12 h12 h9 i13 j14",
        "m4",
    ),
    _saves(
        F,
        "h8 g7 e7 i8 f8 g9 f9 e8 g6 h7 j7 f7 j6 i6 j5 j4 i5 k5 h4 g3 l7 k7 k6 i4 m6 j9 l6 n6 l5",
        "l4",
    ),
    _saves(
        F,
        "h8 g7 f6 h6 f8 g8 g9 e7 h7 h9 f7 f9 i8 j9 i7 j6 j7 i6 k6 l7 i11 h10 k8 k7 i9 i10 l8 j8 "
        "j10 k9 e10 e11 j11 k11 f13 f11 i12 f5 g13 g11 d11",
        "g14",
    ),
    _saves(
        F,
        "h8 g8 h5 f7 e6 h6 g7 f6 f5 g4 i7 j6 i6 i5 k7 j7 i9 i10 j8 h10 j10 k11 k9 f10 e10 i11 g9 "
        "j9 j11 k6 e9 f9 f8 e8 l8 l5 m4 m5 d10 c11 l10 m11 l7 i8 h9 l6 m6 k3 l11 l9 m7 n6",
        "o7",
    ),
    _saves(
        F,
        "h8 g8 h5 f7 h9 h7 g7 f6 f9 f5 f4 g6 e4 e6 d6 g4 h3 d8 e7 c10 e8 i7 h6 i8 j9 i9 i10 d5 c4 "
        "d7 c8",
        "i5",
    ),
    _saves(F, "h8 g7 g10 i8 i7 g9 h6 f9 g5 j8 h5", "h9"),
    _saves(
        F,
        "h8 f8 h7 h9 g6 i8 f7 i6 g7 i7 i9 f6 g5 g4 h5 e8 d5 f5 i5 k5 h4 h6 j6 k7 f3 g3 e4 c6 d4 "
        "d7 g8 g9",
        "e6",
    ),
    _saves(F, "h8 g7 g9 i7 h7 h9 f8 e7 f10 f9 g11", "g10"),
    _saves(
        F,
        "h8 f6 d7 e7 d8 d6 f8 g8 e6 c8 e9 f10 h9 h7 f9 d9 g10 h11 i9 g9 f11 e12 g7 h6 j10 k11 j9",
        "i8",
    ),
    _saves(
        F,
        "h8 g7 e8 f8 e9 e10 f9 g9 g10 d7 e7 e6 f5 h7 d8 f6 g6 h11 c8 c7 j7 f7 k8 d5 b8 a8 c4 e4 "
        "b9 b7 c6 i8 j9 i6 j8",
        "j10",
    ),
    _saves(
        F,
        "h8 f6 d4 g5 e7 f4 f7 d6 h7 g7 h6 h9 g6 h5 f5 i8 j7 e4 e8 e9 f9 c7 e5 c6 d8 f8 d10 c10 j6 "
        "b6 e6 c8 c9 i6 i7 k5 g10 c4 c5 d7 f10 g9 j8",
        "j5",
    ),
    _saves(
        F,
        "h8 f6 d5 f8 e7 g6 h6 h7 f5 e5 d4 f9 f10 d6 g8 i7 g10 e9 g9 g11 f4 d10 c11 d9 c4 e4 c9 j7 "
        "g7 f7 e8 d12 d8 i8 c8 j9 k10 e6 c6 c7 i10 j10 c12 c10 e10 h10",
        "b10",
    ),
    _saves(F, "h8 f6 d10 g5 i7 h4 e7 i5", "j6"),
    _saves(F, "h8 f6 d12 e5 g9 g5 f5 e7 d8 e6 e8 f4 g8 f8 f10 e11", "i7"),
    _saves(
        F,
        "h8 f6 e5 g6 h6 h7 g7 f5 e4 e6 d6 f4 f3 i5 d5 c6 d7 d8 e2 d3 e7 i8 j9 i6 f7 c7",
        "e3",
    ),
    _saves(F, "h8 f6 f8 g9 g10 g8 h11 f9 h9", "h10"),
    _saves(F, "h8 f6 f9 e7 g9 d8 g5 c9 b10", "f10"),
    _saves(F, "h8 f6 h12 g5 g9 i7 h6 e7 h4 f5 h5 h7 g7 f8 f9 f4 f7 e5", "h2"),
    _saves(F, "h8 f6 i12 e7 h9 h7 g9 f9 i7 f10 g8 g10 j8 i8 g5 f7 f8 g7 d7", "k9"),
    _saves(F, "h8 f7 d5 g7 e7 g9 f9 i8 g10 e8 g6 i10 f6 i9 i11 h6 h9 i7 i6 f8", "e9"),
    _saves(F, "h8 f7 d11 g6 h5 h7 g7 f5 e4 f6 f8 h6 i6 e6 d6 i8 j9 g4", "h3"),
    _saves(
        F,
        "h8 f7 d12 g9 f8 e8 d9 g8 g7 e6 d5 e9 e7 g10 h9 g11 g12 f10 d8 e10 h10 h11 d7 d6",
        "h7",
    ),
    _saves(
        F,
        "h8 f7 e4 h6 e7 e5 g5 f6 g6 f5 f4 g4 e6 i6 f8 d4 c3 g9 c5 j7 k8 i8 c6 f3 h5 c7 e8 i9",
        "e9",
    ),
    _saves(F, "h8 f7 e7 g9 f6 g5 i8 g8 g7", "e5"),
    _saves(F, "h8 f7 e12 g6 g8 f6 f8 e8", "h5"),
    _saves(F, "h8 f7 f11 g6 i8 e7 h9 g10 h7 h10 i9 h5 e8 g9 f8 g8 g7 j10 i10 i11 h6 j12 k13", "i4"),
    _saves(
        F,
        "h8 f7 g7 f6 f5 g5 h4 f8 f10 g6 g9 e11 h6 h5 e8 j5 h9 g4 j6 i7 i5 g3 g2 k6 i4 i6 j7 i3 f3 "
        "k3 h10 h7 k4 j9 i9 f9 g8 j3 h3 l3 m3",
        "i8",
    ),
    _saves(
        F,
        "h8 f7 g8 i8 g9 h7 j9 g7 i7 f10 j8 j7 k9 l10 k6 k5 i9 h9 h10 g11 j12 f11 g10 f8 f9",
        "d7",
    ),
    _saves(F, "h8 f7 i12 g6 g9 i7 f8 e8 h5 e7 h6 h7 g7 e9", "e10"),
    _saves(F, "h8 f7 j4 g9 f8 h9 g7 i9 f9 h6 j9 g6 g8 e8 h5 i6 j6 i8", "i7"),
    _saves(
        F,
        "h8 f7 j6 g9 i8 g8 h9 h10 g10 j7 i11 g6 i9 g7 g5 i10 i7 h5 l4 k5 e8 e7 e12 f11 h7 d6 f8 d5",
        "i6",
    ),
    _saves(F, "h8 f7 j12 g9 j9 g7 h7 f8 j10 j11 g6 i8", "f9"),
    _saves(
        F,
        "h8 f7 k5 g9 f9 e7 h7 f8 h10 h9 g8 i6 d6 f6 g6 g5 h4 f5 f4 h6 g4 i4 e5 c7 g7 d8 c9 e9 f10 "
        "e10 e8 i5 i7 j6 j5 d7 b7 l6 k6 k7 f11 j10 f12 f13 g11 i9 j9 d10 h11 d11 d9 b6 a5 j8 m5 "
        "c11 b12 m9 l8",
        "i2",
    ),
    _saves(F, "h8 f7 k9 g6 h9 e8 h5 d9 c10 g7 i7 h6 g9 j6 i6 i8 e9 j9 h7 g8 h10 h11 g11", "g4"),
    _saves(F, "h8 f7 k10 g6 k8 g8 k11 k9 g7 e6 j10 i9 h9 e8 h5 f6", "h6"),
    _saves(
        F,
        "h8 f7 k11 g7 g6 e7 d7 f8 e9 e6 d5 d6 c5 e5 e4 f6 f5 h7 i7 d8 c9 g9 h10 f9 f10 g8 e10 h4 "
        "g5 g10 g11 j4 i9 h6 i5 h5 h3 c6 b6 e8 c8 i10 h9 h11 i12 f12 i6 i8 f3",
        "d4",
    ),
    _saves(F, "h8 f7 l6 g9 i8 g7 h7 f8", "h6"),
    _saves(F, "h8 f7 l9 g6 i7 g9 g5 h5", "e8"),
    _saves(
        F,
        "h8 f8 e5 g7 h6 h7 e7 e6 g8 i8 j7 f5 g6 j6 f4 g5 g4 h4 i5 k5 l4 l6 i3 i4 k6 d6 m4 j4 m5 "
        "m6 c6 f9 d5 e9 e4 f3 b5 f7 f6 c4 b7 a8 f10 f11 k3 j2 n5 n3 j3 l3 e11 g9 h9 i10 n8 n6 i11 "
        "g12 c9 h11 f13 h13 c5 a5 e10 d10 c11 h12",
        "c8",
    ),
    _saves(
        F,
        "h8 f8 f6 g7 e9 g5 g6 e6 i7 g9 e7 g8 g10 f5 h5 e8 d7 d8 c8 i6 h9 f11 h7 h6 j7 k6 k7 l7 j6 "
        "f10 f9 j5 i4 f7 j8 d5 c4 c5 e5 m8 n9",
        "i5",
    ),
    _saves(
        F,
        "h8 f8 f7 h7 g9 f10 g6 g7 i7 i6 e9 h9 e8 d9 e10 e7 j5 j6 g10 g11 j8 k9 k8 l8 k7 l6 k6 i4 "
        "f9 h11 m4 l5 l4 k4 d11 c12 m7 l7 l9 i11 j11 e11 f11 m6 j3 i12 j10 j12 m10 n11 k10 i10 n7 "
        "m8 i13 k13 l14 f12 g12 e13 h10 g13 d10 d12 n10 l10 i8 g8 i14 h13 c6 d7 j9 j7 l11 m12",
        "k12",
    ),
    _saves(F, "h8 f8 f7 h7 g7 g6 e6 e5 i8 i9 d7 d5 f5 g4 g10", "h9"),
    _saves(
        F,
        "h8 f8 g7 f6 g9 h9 i7 j6 g8 g6 h7 i6 h6 j7 g10 g11 f9 h11 j8 k9 h5 h4 g5 f4 f5 e5 e10 d11 "
        "e8 e11 f11 e6 d9 c8 i9 f10 j11 j10 h13 g12 i12 g14 i5 j5 j4 k3 i11 c6 d6 i10 k8 i8 f13 "
        "e4 e7 f7 g4 c4",
        "k10",
    ),
    _saves(
        F,
        "h8 f8 i4 f9 g7 h7 f7 g6 f5 e7 d6 f6 e6 g8 e10 d8 c9 g10 c8 d7 c6 h11 e8 c7 b7 d9 b6 a6 "
        "b8 b9 d5 e4 e2 c5 g5 j5 i6 g9 c4 b3 h5 e5 g4 f3 i2 h3 i3 i5 j7 k8 b5 b4",
        "d3",
    ),
    _saves(
        F,
        "h8 f8 i4 g9 e7 d8 h7 h9 f9 g8 g10 d7 g6 d10 d6 e9 g7 f7 e6 f6 e4 f5 f4 e5 g4 h4 g5 g3 i7 "
        "h6 j7 k7 i6 i5 j6 h5 i10 i8 j4 j5 k5 l4 j10 f2 e1 e8 c8",
        "d11",
    ),
    _saves(F, "h8 f8 i5 f9 h7 h9 g7 i7 i9 f6 f5 g6 e6 e8 d9 d7 g10 e7 k3 h5", "j4"),
    _saves(F, "h8 f8 i8 g8 h7 h9 g6 f5 f7 i7 h5 i4 j8", "i6"),
    _saves(F, "h8 f8 j4 g9 h10 h7 f7 i9 i8 f9 e9 g8 e10 g10 g11 e8 d7 h11 i12 j9 h9 k8", "l7"),
    _saves(
        F,
        "h8 f8 j6 g9 h10 g10 j8 g7 g8 h6 e9 i9 j7 j9 h9 h7 i8 k8 k5 j5 l6 j4 i5 k6 e6 f7 e7 e8 k7 "
        "l8 l4 i7 k3 j2 m3 n2 h4 g3 l3 j3 j1 l5 k2 m5 k4 k1 h11 h12 i4 g5 f4 f9 f6 f11 f10 d9 m4 "
        "n5",
        "e4",
    ),
    _saves(
        F,
        "h8 f8 k4 f9 f7 e8 e9 g10 h11 f10 e10 h10 g9 d6 d7 e5 f11 c8 d8 c7 f4 g11 i9 c5 c6 d5 f5 "
        "f6 d4 b7 b8 g12 j10 k11 e4 c4 h7 b5 a5 d3 e2 g13 g14",
        "e7",
    ),
    _saves(F, "h8 f7 e10 g9 g7 g8 h9 h10 f8 e9 g11 f6 f11 h11 d11 d9 c10 c9 f9", "b9"),
    _saves(
        F,
        "h8 f8 d8 f6 f7 e9 g7 h7 e6 g8 f9 d7 j9 i10 k10 k11 l9 j11 l11 m12 m10 l8 k12 n9 l10",
        "n10",
    ),
    _saves(
        F,
        "h8 f7 f10 g9 h10 g10 g11 i9 f11 h11 f9 f12 g8 i8 h7 i6 h6 h9 i7 k7 j9 h5 j7 j8 l6 l8 i5 "
        "j4 m6 k6 k5 i12 h12 e9 j13 i4 g6 j5 l4 j6 l7 k8 m8 g4 h4 e10 e11 e6 f5 f3 e2 e4 g2 e7 "
        "e8 c7 l3 l5 d7 c6 j14 i13 d8 f8 d11 c11",
        "d10",
    ),
    _saves(F, "h8 f7 f10 g9 h10 g10 g11 i9 f9 f11 i8 h7 h12", "i13"),
    _saves(
        F,
        "h8 g7 e9 f9 g10 e10 g8 f10 i8 f8 f7 h9 j9 j8 k10 l11 f12 i10 j11 l9 j12 g12 l12 j13 k12",
        "i12",
    ),
    _saves(F, "h8 f6 f7 e7 g5 h5 g8 e6 g6", "g9"),
    _saves(
        F,
        "h8 f7 i5 h9 g8 i8 j6 i7 i9 g7 h7 k7 g10 j5 k6 f9 g11 g12 h10 f12 f10 e10 j10 i10 h11 "
        "f11 d9 h12 k11 l12 i12 j11 l6 m6 d12 j13 e11 g9 k12 k13 h6 i6 i13 h5 j7 g4 d11 d10 e8 "
        "f5 f6 g5 g3 f3 e2 d5 e5 e6 d7 e4 g2 c4 b3 f4 d4 i4 h4 f2 f1 j3 g6 k4 c3 b2 c13 b14 l5 "
        "l3 m2 k2 l1 m4 d8 f8 e9 c7",
        "j8",
    ),
    _saves(
        F,
        "h8 g8 f8 g7 g6 g9 g10 i8 f7 f9 e10 e8 f11 h9 i9 d9 e9 e11 i6 h5 k7 j8 k6 j6 j5 k4 f10 "
        "h10 l7 m8 f6 f5 g5 h4 d8 c7 k9 k8 l8 j10 j7 m7 l5 l6 m4 n3 m9 j4 i4 h3 l9 j9 n9 o9 n10 "
        "o11 h6 e6 i7 h7 i3 i5 d10 c10 c11 b12 f4 e3 h12 g11",
        "c9",
    ),
    _saves(F, "h8 g7 e6 g6 g9 f7 e8 f8 h7 g5 g8 f9 f6 i5", "e9"),
    _saves(
        F,
        "h8 f6 e8 e7 h9 d7 d8 f7 f8 g8 c7 h7 g7 i6 j5 e9 j6 j7 h5 k5 i4 j4 h3 g2 g3 g6 h4 h6 e6 "
        "i5 f5 f4 i7 k6 k4 l5 m4 l6 i3 j3 d5 c8 l2 g5 n5 e3 d2 l3 l7 k8 k9 f10 n6 k10 n4 j9 i8 "
        "l9 m10 n7 m8 m7 n8 e10 f9 g10 i2 g4 h10 g12 i11 f11 d9 h12 j12 g9 g11 f12 e12 f13 f14 "
        "g13 k13 l14 i10 i9 l4 o4 n2 n3 h2 h1 j2 k2",
        "k3",
    ),
    _saves(
        F,
        "h8 f6 e8 e7 g5 g8 i7 f7 h6 f4 f5 d7 g7 e5 d6 e4 e6 d4 c4 d5 c6 c3 b2 c7 b7 h4 g4 f8 j7",
        "f10",
    ),
    _saves(F, "h8 f8 k7 g7 j8 g8 g9 f10 j6 f9 f7 h7 e10 i5 h6 f12 f11 g5 i6", "g6"),
    _saves(F, "h8 f7 f5 f9 g7 h9 i9 f6 i8 j8 i10", "i11"),
    _saves(
        F,
        "h8 f6 d7 e7 g5 f8 e6 g9 h10 c8 f9 c7 c9 e8 d8 d9 h9 h7 f7 g8 g10 e11 f11 e12 i10 e10 e9 "
        "j10 i9 c5 d6 e13 e14 c4 c6",
        "a6",
    ),
    _saves(F, "h8 f6 g8 i8 g9 h7 g10 g7 i7", "f10"),
    _saves(F, "h8 f7 d4 g6 h6 h5 i4 g7", "h7"),
    _saves(
        F,
        "h8 f7 e5 g7 g6 f5 f8 g8 h9 h10 g10 d7 e7 e6 g4 i6 d6 c5 f4 g3 i7 c4 d5 c3 c6 c2 c1 e3 f3",
        "e4",
    ),
    _saves(F, "h8 f7 e7 g9 f6 g5 h6 h5 g7", "e5"),
    _saves(F, "h8 f7 e9 g9 h10 g7 h7 h9 g8 i8 e10 f9 e8 e7 f10", "c7"),
    _saves(
        F,
        "h8 f7 e11 g9 f11 f8 h9 h10 e7 g10 g11 h11 f9 d11 e10 e9 d10 f12 j10 g6 g12 h13 c10 b10 "
        "h5 h7 g7 i9 i11 h12 h14 f5",
        "i8",
    ),
    _saves(F, "h8 f7 f4 g9 h6 h9 e6 i9 f9 g8", "g6"),
    _saves(
        F,
        "h8 f7 f4 e6 g8 e7 g7 e8 e5 f6 g6 g5 d8 f9 f8 e9 e10 d7 c6 g10 h11 d9 c9 c10 b11 j8 h9 "
        "h10 i10 j9 j7 g3 i7 g4 h3 i5 j6 h4 i3 k5 j11 k12 i9 f2 e1 g1 g2",
        "b7",
    ),
    _saves(
        F,
        "h8 f7 f9 g9 h10 g8 g10 h11 i9 i10 h9 j8 f11 e12 g12 e10 f12 f10 k9 h7 e11 g11 k8 k10 "
        "d10 c9 g7 j10 j11 f6 d8 f5 f8 e9 g6 j7 f13 e6 i13 g13 d5 d7 j9 l9 c8 l7 f15 f14",
        "e8",
    ),
    _saves(
        F,
        "h8 f7 f11 h7 g9 f10 e7 g8 f9 e9 g11 i10 j11 i9 g12 i8 i7 i11 i12 g10 e10 h13 d11 e11 "
        "d12 d10 f12 e12 e13 d14 c11 e6 h9 b10 d6 f8 h6 g5 g6 j6 d5 c8 d7 d4 b5 e5 d8 d9 b6 i5 "
        "f5 k7 l8 j5 h12 j12 h10 h11 f14 g15 c6 e8 b13 c12 f13 f15",
        "d13",
    ),
    _saves(F, "h8 f7 h12 g6 e9 e8 d9 g9 f10 g11 d10 g7", "g10"),
    _saves(F, "h8 f7 i12 g6 g9 i7 f8 e8", "h5"),
    _saves(F, "h8 f7 j12 g9 j9 g7 h7 f8 j10 j11 g6 i8 f9 e7 h10 d7 c7 h6 e9 d8 h9 h11 d9 f6", "c9"),
    _saves(
        F,
        "h8 f7 k5 g9 g7 f6 f8 h6 g6 g8 h9 f4 g5 e4 g4 g3 f3 e5 d6 e6 e3 g10 c5 h11 d4 f2 d3 d7 "
        "e8 b3 e9 e10 c8 g12 g11 d8 c7 c6 c10 c11 d9 d5 c4 i10 f13 h10 f10 j12 a12 b11 b4 e7 a7 "
        "b6",
        "h12",
    ),
    _saves(F, "h8 f7 k7 g8 h9 h7 f9 g7 e7 e9 g6 e11 j6 e12 e10 i5 i7", "h6"),
    _saves(
        F,
        "h8 f8 d4 e7 d6 e8 d7 d8 c8 e6 e9 d5 f6 e5 e4 i7 c4 f4 c5 e3 g5 h9 i8 j8 k9 j9 j10 i9 "
        "h10 k7 j7 l6 m5 l8 g6 h7 c6 c7 g8 g7 f7 l7 b4 a4",
        "c2",
    ),
    _saves(
        F,
        "h8 f8 d5 e7 d6 f6 f7 d8 g5 c8 g8 e6 e8 g6 f5 e5 c9 e9 g7 e10 f10 d9 f11 b7 a6 d7 b9 b4 "
        "b6 e11 i7 d11 d10 j7 h6 f4 i8 e4 e3 d4 c4",
        "b2",
    ),
    _saves(
        F,
        "h8 f8 d6 g9 g6 i9 e7 e6 f7 d7 g7 h7 g5 g4 f5 f9 h9 i6 g8 h5 f3 f4 e4 c6 g10 i10 i8 j7 "
        "k8 j8 d3 c2 e5 d4 h4 f6 e3 c3 c5 d5 k7 j6 j5 k6 l6 f11 e2 e1 b5 c4 b4 a3 b3 b6 h10 h12 "
        "i11 d9 c9 e10 g12 d11 g3 h3 b1 b2 g11 e12",
        "g14",
    ),
    _saves(
        F,
        "h8 f8 f4 g9 h10 g10 f9 g11 g8 e10 g12 h9 f11 d8 e9 d9 d7 c10 d10 c8 e8 b7 a6 e5 c9 b8 "
        "c5 d4 i8 b5 b6 e4 h7 d5 c6 e6 e3 c3 f6 d2 d3 b2 a1 b4 i6 j5 c4 a5 e1 e2 c2 b3 b1 f2 h5 "
        "g2 h2",
        "h1",
    ),
    _saves(F, "h8 f8 f7 h7 g7 g6 e6 e5 i8 i9 d7 g8 f9 e8 d9", "b9"),
    _saves(
        F,
        "h8 f8 h4 e7 g9 f10 g7 g10 i9 f6 f9 h9 k7 i7 j10 k11 j8 h10 e10 i8 f11 d8 g5 c9 b10",
        "j7",
    ),
    _saves(
        F,
        "h8 f8 j5 g9 e7 h9 f9 i9 g5 h5 f6 h4 g7 e6 f7 d7 h3 i8 f5 i7 e5 d4 i6 i11 i10 j8 f4 f3 "
        "d5 c5 d8 c9 g8 h7 g6 g4 h6 j6",
        "e3",
    ),
    _saves(
        F,
        "h8 f8 k5 g9 h10 g7 e9 g8 g10 h7 e10 f10 e11 e12 f7 g6 g5 e7 f5 e5 e6 i6 j5 i5 h6 i7 i4 "
        "h4 g3 j9 i9 j7 k7 j8 j10 k8 l9 k10 i8 g4 h5 k11 h11 h12 h3 g2 i3 j3 l6 k9 k12 l10 m11 "
        "j4 f9 i12 b9",
        "d6",
    ),
    _saves(
        F,
        "h8 f8 l7 g7 h6 g9 e7 h7 f6 d8 i7 g8 g10 g5 g6 i6 e6 d6 f9 d7 d5 e8 c8 i11 d10 j11 f11 "
        "h9 i10 k11 h11 j9",
        "j13",
    ),
)
"""One move saves the side to move from a forced win, by fours or by threes, in positions from
master's lost games against PentaZen 0.4.17 and Rapfi 0.43 classical (the two renju ones
against Rapfi, the five standard ones against PentaZen), found by
``tools/harvest_defences.py``: the opponent, given a free move, wins; after every legal move
near the stones but ``answer`` the opponent wins (proved by the threat search, or, for the
few moves where the win is by quieter moves, found by Rapfi); after ``answer`` the search finds
none, and a search of the position does not call it lost. Positions whose answer is the only
move the search may consider (a block of a four) are left out; positions master misses are
kept (``tests/engine/test_tactics.py``'s ``UNSOLVED``). Given more nodes, the proof-number
search proves some answers lost as well (``answer_lost``, ``LOST_ANSWERS``): there no move
stops the attack, and the answer is the move whose loss the harvest's budget did not see."""

PROOF_NODES = 16_000_000
"""The proof-number search's budget under which ``LOST_ANSWERS`` was proved, each answer from a
fresh table (``python -m engine tactics --answer-nodes 16000000`` proves them all again)."""

LOST_ANSWERS: dict[int, int] = {
    1: 18_673,
    3: 26_074,
    4: 6_766,
    6: 49_253,
    7: 463_648,
    8: 33_708,
    9: 73_433,
    10: 33_811,
    11: 107_914,
    12: 9_532,
    16: 126_024,
    20: 97_075,
    23: 42_401,
    28: 1_628_654,
    30: 1_061_860,
    32: 4_121_072,
    38: 1_471_483,
    40: 1_008_750,
    44: 6_196_047,
    45: 1_220_450,
    50: 1_722_272,
    56: 1_992_542,
    61: 1_113_479,
    63: 1_505_963,
    66: 3_219_864,
    71: 1_374_769,
    72: 4_340_112,
    74: 2_351_631,
    76: 1_419_023,
    84: 1_224_970,
    87: 9_896_594,
    90: 13_821_436,
    93: 1_913_044,
    97: 545_956,
    103: 1_374_350,
    109: 1_552_987,
    110: 1_005_778,
    111: 8_957_071,
    121: 29_141,
    122: 77_285,
    136: 63_900,
}
"""The hard defences (by index) whose answer is itself lost, with the nodes the proof takes:
after the answer, the proof-number search proves the opponent's win by fours and threes
(``engine.search.alphabeta.threat_proof``). The puzzle says one move stops that attack, and
here none does: the answer is only the move whose loss the harvest's budget did not see, and
the search's check of its move rightly sets a move proved lost aside. They stay in the suite,
searched and reported apart; the suite's score counts every other position. The other hard
answers the same search disproves (the opponent has no win by threats after them) or leaves
open within ``PROOF_NODES``; those count."""


def scored(group: str, index: int) -> bool:
    """Whether the suite's score counts the position ``index`` of ``group`` (one of "vcf",
    "three", "defence", "hard"): every one but the hard defences of ``LOST_ANSWERS``."""
    return not (group == "hard" and index in LOST_ANSWERS)


def solve(puzzle: Puzzle, time_ms: int) -> tuple[bool, Point, float, int]:
    """Search ``puzzle`` for ``time_ms``: (solved, the move, milliseconds, nodes)."""
    from engine.search.alphabeta import Limits, is_win_score, search

    board = puzzle.board()
    started = time.perf_counter()
    result = search(board, Limits(time_ms=time_ms))
    elapsed = (time.perf_counter() - started) * 1000
    solved = puzzle.answer is None or str(result.move) == puzzle.answer
    if puzzle.wins:
        solved = solved and is_win_score(result.score)
    return solved, result.move, elapsed, result.nodes


def answer_lost(puzzle: Puzzle, nodes: int) -> bool | None:
    """Whether a defence's answer is itself lost by threats: the opponent's win by fours and
    threes after it proved (True) or disproved (False) by the proof-number search, or not
    known within ``nodes`` nodes (None). Where it is proved, no move holds the attack, and the
    puzzle asks only for the move whose loss the harvest's budget did not see."""
    from engine.search.alphabeta import wins_by_threats

    return wins_by_threats(after_answer(puzzle), nodes)


def after_answer(puzzle: Puzzle) -> Board:
    """A defence's position with its answer played: the opponent to move."""
    if puzzle.wins or puzzle.answer is None:
        raise ValueError("only a defence has an answer that may be lost")
    board = puzzle.board()
    board.play(Point.parse(puzzle.answer))
    return board


def main(argv: Sequence[str] | None = None) -> int:
    """Solve every puzzle within the time limit and print what each took; exit 1 where the
    suite's score (``scored``) misses one."""
    parser = argparse.ArgumentParser(
        prog="python -m engine tactics", description="Time the search on the tactical suite."
    )
    parser.add_argument("--time-ms", type=int, default=1000, help="limit per position")
    parser.add_argument(
        "--answer-nodes",
        type=int,
        default=0,
        metavar="N",
        help="also prove again, within N nodes, whether each defence's answer is itself lost "
        "by threats, and name the hard defences where that disagrees with the suite's list "
        f"(0, the default: not asked; {PROOF_NODES} proves the whole list)",
    )
    options = parser.parse_args(argv)
    if options.answer_nodes < 0:
        parser.error("--answer-nodes must be 0 or more")
    from engine.search.levels import warm_up

    warm_up()  # compile or load the kernels before the first clock starts
    groups = (
        ("vcf", VCF_WINS),
        ("three", THREE_WINS),
        ("defence", DEFENCES),
        ("hard", HARD_DEFENCES),
    )
    failures = total = 0  # over the positions the score counts
    lost = lost_missed = 0  # the hard defences whose answer is proved lost (not counted)
    unlisted: list[str] = []  # proved lost here, not in LOST_ANSWERS
    unproved: list[str] = []  # in LOST_ANSWERS within the nodes asked, not proved here
    for name, puzzles in groups:
        times = []
        for i, puzzle in enumerate(puzzles):
            solved, move, elapsed, nodes = solve(puzzle, options.time_ms)
            times.append(elapsed)
            counted = scored(name, i)
            if counted:
                failures += not solved
                total += 1
            else:
                lost += 1
                lost_missed += not solved
            note = "" if counted else "  answer lost"
            if options.answer_nodes and not puzzle.wins:
                proved = answer_lost(puzzle, options.answer_nodes)
                if counted and proved is not False:
                    note = "  answer lost" if proved else "  answer not known"
                if name == "hard" and counted and proved:
                    unlisted.append(f"{name}{i}")
                if not counted and not proved and LOST_ANSWERS[i] <= options.answer_nodes:
                    unproved.append(f"{name}{i}")
            print(
                f"{name:7s} {i:2d} {puzzle.rule.value:9s} {'ok ' if solved else 'MISSED'} "
                f"{move!s:4s} {elapsed:7.1f} ms {nodes:9d} nodes{note}"
            )
        print(f"{name}: {len(puzzles)} positions, slowest {max(times):.1f} ms")
    print(f"missed: {failures} of {total}")
    print(
        f"hard defences whose answer is itself proved lost (not counted): {lost}, "
        f"{lost_missed} of them answered otherwise"
    )
    if options.answer_nodes:
        print(f"proved lost within {options.answer_nodes} nodes, not listed: {_names(unlisted)}")
        print(
            f"listed as proved within {options.answer_nodes} nodes, not proved: {_names(unproved)}"
        )
    return 1 if failures else 0


def _names(names: list[str]) -> str:
    return " ".join(names) if names else "none"
