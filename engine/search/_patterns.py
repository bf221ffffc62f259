"""Line patterns and the tables built from them once per rule (numba-compiled builders).

A *line key* is the content of the ``2 * half`` points around an empty point on one line
(``half`` = 4 for freestyle, 5 for the exact-five rules, which must see one point further to
tell a five from an overline), two bits each: 0 empty, 1 black, 2 white, 3 off the board.
``pattern_table(rule, color)[key]`` says what a stone of ``color`` on that point makes on that
line, from the rapfi vocabulary (X ours, O theirs, _ empty, . the point)::

    FIVE      XX.XX        five (by the rule: exact five, caro ends, ...)
    F4        _XX.X_       straight four: two points make five
    B4        OXX.X_       four: one point makes five
    F3        __X.X__      three: one more stone makes a straight four
    B3        OX.X__       closed three: one more stone makes a four
    F2, B2    __X.__       two: one stone away from F3 / B3
    F1, B1                 one: two stones away
    OVERLINE  XXX.XX       Black under renju: six or more (a forbidden shape)
    FOUR_FOUR X.X.X_X      Black under renju: two fours on one line (a forbidden shape)

The four patterns around a point combine into a *pattern code* ``sum(p[d] * 12**d)``; the
code tables give its threat class (``P4_*``), its evaluation and its move-ordering score.
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt

from engine.search._jit import njit_alloc

NONE, B1, F1, B2, F2, B3, F3, B4, F4, FIVE, OVERLINE, FOUR_FOUR = range(12)
NPAT = 12  # patterns per direction
NCODE = NPAT**4  # combined pattern codes of one point
# The codes' multisets of four patterns, in this order (sorted tuples, lexicographic): a
# point's threat class and its value depend only on which patterns it has, not on which
# direction holds which, so the learned evaluation has a value per multiset, not per code.
MULTISETS = tuple(itertools.combinations_with_replacement(range(NPAT), 4))
NMULTI = len(MULTISETS)  # 1365

RULE_FREESTYLE, RULE_STANDARD, RULE_RENJU, RULE_CARO = range(4)

# Threat class of a point for one side, strongest last (rapfi's Pattern4).
(
    P4_NONE,  # nothing worth naming
    P4_TWO,  # one closed three or open two
    P4_TWO_PLUS,  # two of them
    P4_F3,  # makes one open three
    P4_F3_PLUS,  # open three plus a closed three or open two
    P4_F3_F3,  # double open three (3-3; forbidden for Black under renju if both are real)
    P4_B4,  # makes a four
    P4_B4_PLUS,  # four plus a closed three or open two
    P4_B4_F3,  # four and open three (4-3): wins unless answered by fours
    P4_FLEX4,  # straight four or double four: wins next move
    P4_FIVE,  # makes five now
) = range(11)
NP4 = 11

# The hand-set evaluation (before the learned weights of ``engine/data/eval_weights.json``):
# per-direction values summed into the value of an empty point, plus one per threat class.
HAND_EVAL_DIR = np.array([0, 2, 4, 8, 20, 24, 60, 60, 160, 400, 0, 160], dtype=np.int32)
HAND_EVAL_P4 = np.array([0, 0, 10, 20, 40, 150, 60, 100, 350, 700, 1200], dtype=np.int32)
# Move-ordering score of a point for its own side; the defence score is a fraction of it.
_SCORE_DIR = np.array([0, 1, 2, 4, 10, 12, 30, 32, 120, 400, 0, 120], dtype=np.int32)
_SCORE_P4 = np.array([0, 20, 60, 400, 700, 2500, 600, 1200, 8000, 30000, 200000], dtype=np.int32)


@njit_alloc
def _run(line: npt.NDArray[np.int8], pos: int, c: int) -> tuple[int, int]:
    """The first and last points of the unbroken run of ``c`` stones through ``pos``."""
    n = line.shape[0]
    lo = pos
    while lo > 0 and line[lo - 1] == c:
        lo -= 1
    hi = pos
    while hi < n - 1 and line[hi + 1] == c:
        hi += 1
    return lo, hi


@njit_alloc
def _is_five(line: npt.NDArray[np.int8], pos: int, c: int, rule: int, contain: int) -> bool:
    """Whether the stone of ``c`` on ``pos`` completes a five (by ``rule``) through ``contain``."""
    n = line.shape[0]
    lo, hi = _run(line, pos, c)
    if contain < lo or contain > hi:
        return False
    length = hi - lo + 1
    if length < 5:
        return False
    if rule == RULE_FREESTYLE:
        return True
    if rule == RULE_STANDARD or (rule == RULE_RENJU and c == 1):
        return length == 5
    if rule == RULE_RENJU or length > 5:
        return True
    # caro: an exact five with opponent stones on both ends does not count; the edge does not block
    opp = 3 - c
    left = line[lo - 1] if lo > 0 else 3
    right = line[hi + 1] if hi < n - 1 else 3
    return not (left == opp and right == opp)


@njit_alloc
def _one_block_answers(line: npt.NDArray[np.int8], c: int, rule: int, half: int) -> bool:
    """Whether the opponent's stone on one of the five points through ``half`` leaves ``c`` no
    other: in caro a five blocked at both ends does not count, so taking one end of a straight
    four whose far side is already blocked can kill the other five (``O.XXXX._`` answered at
    the right end leaves ``O.XXXXO``)."""
    for pos in range(half - 4, half + 5):
        if line[pos] != 0:
            continue
        line[pos] = c
        five = _is_five(line, pos, c, rule, half)
        line[pos] = 3 - c
        left = 0
        if five:
            for q in range(half - 4, half + 5):
                if q != pos and line[q] == 0:
                    line[q] = c
                    left += _is_five(line, q, c, rule, half)
                    line[q] = 0
        line[pos] = 0
        if five and left == 0:
            return True
    return False


@njit_alloc
def _classify(
    key: int, line: npt.NDArray[np.int8], out: npt.NDArray[np.uint8], c: int, rule: int, half: int
) -> int:
    for i in range(2 * half):
        pos = i if i < half else i + 1
        line[pos] = (key >> (2 * i)) & 3
    line[half] = c
    if _is_five(line, half, c, rule, half):
        return FIVE
    lo, hi = _run(line, half, c)
    if hi - lo + 1 >= 6 and rule == RULE_RENJU and c == 1:
        return OVERLINE
    count = 0
    first = -1
    second = -1
    for pos in range(half - 4, half + 5):
        if line[pos] == 0:
            line[pos] = c
            if _is_five(line, pos, c, rule, half):
                count += 1
                if first < 0:
                    first = pos
                else:
                    second = pos
            line[pos] = 0
    if count >= 2 and rule == RULE_CARO and _one_block_answers(line, c, rule, half):
        return B4
    if count >= 2:
        if hi - lo + 1 == 4 and first == lo - 1 and second == hi + 1:
            return F4
        return FOUR_FOUR if (rule == RULE_RENJU and c == 1) else F4
    if count == 1:
        return B4
    best = NONE
    for pos in range(half - 4, half + 5):
        if pos == half or line[pos] != 0:
            continue
        i = pos if pos < half else pos - 1
        t = out[key | (c << (2 * i))]
        level = NONE
        if t == F4:
            level = F3
        elif t in (B4, FOUR_FOUR):
            level = B3
        elif t == F3:
            level = F2
        elif t == B3:
            level = B2
        elif t == F2:
            level = F1
        elif t == B2:
            level = B1
        best = max(best, level)
    return best


@njit_alloc
def _valid_side(cells: int, n: int) -> bool:
    # off-board points (3) can only be a run at the far end of one side of a line
    seen_wall = False
    for i in range(n):
        v = (cells >> (2 * i)) & 3
        if v == 3:
            seen_wall = True
        elif seen_wall:
            return False
    return True


@njit_alloc
def build_pattern_table(rule: int, c: int, half: int) -> npt.NDArray[np.uint8]:
    """The pattern of a stone of colour ``c`` (1 black, 2 white) for every line key.

    Only keys a board can produce are classified (off-board points at the line ends), about
    an eighth of them for the exact-five rules; the others stay NONE.
    """
    nkeys = 1 << (4 * half)
    side = 1 << (2 * half)
    out = np.zeros(nkeys, dtype=np.uint8)
    # the near side (points -1..-half, stored high to low) and the far side (+1..+half)
    left = np.zeros(side, dtype=np.int64)
    right = np.zeros(side, dtype=np.int64)
    nl = 0
    nr = 0
    for cells in range(side):
        reversed_cells = 0
        for i in range(half):
            reversed_cells |= ((cells >> (2 * i)) & 3) << (2 * (half - 1 - i))
        if _valid_side(reversed_cells, half):
            left[nl] = cells
            nl += 1
        if _valid_side(cells, half):
            right[nr] = cells
            nr += 1
    keys = np.empty(nl * nr, dtype=np.int64)
    own = np.empty(nl * nr, dtype=np.int64)
    n = 0
    for i in range(nl):
        for j in range(nr):
            key = left[i] | (right[j] << (2 * half))
            k = 0
            for b in range(2 * half):
                if (key >> (2 * b)) & 3 == c:
                    k += 1
            keys[n] = key
            own[n] = -k
            n += 1
    # a key's class depends on keys with one more own stone, so fill those first
    order = np.argsort(own, kind="mergesort")
    line = np.zeros(2 * half + 1, dtype=np.int8)
    for idx in order:
        key = keys[idx]
        out[key] = _classify(key, line, out, c, rule, half)
    return out


@njit_alloc
def build_code_tables(
    renju_black: bool,
    eval_dir: npt.NDArray[np.int32],
    eval_p4: npt.NDArray[np.int32],
) -> tuple[
    npt.NDArray[np.int8], npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int8]
]:
    """Threat class, evaluation, ordering score and maybe-forbidden flag per pattern code.

    A code's evaluation is ``eval_dir`` summed over its four patterns plus ``eval_p4`` of its
    threat class (arrays, not module constants, so a learned set needs no recompiling).
    """
    p4 = np.zeros(NCODE, dtype=np.int8)
    ev = np.zeros(NCODE, dtype=np.int32)
    sc = np.zeros(NCODE, dtype=np.int32)
    maybe = np.zeros(NCODE, dtype=np.int8)
    cnt = np.zeros(NPAT, dtype=np.int32)
    for code in range(NCODE):
        cnt[:] = 0
        rest = code
        ev_sum = 0
        sc_sum = 0
        for _ in range(4):
            pat = rest % NPAT
            rest //= NPAT
            cnt[pat] += 1
            ev_sum += eval_dir[pat]
            sc_sum += _SCORE_DIR[pat]
        fours = cnt[B4] + cnt[F4] + 2 * cnt[FOUR_FOUR]
        minor = cnt[B3] + cnt[F2]
        if cnt[FIVE] > 0:
            cls = P4_FIVE
        elif cnt[F4] > 0 or fours >= 2:
            cls = P4_FLEX4
        elif fours == 1 and cnt[F3] > 0:
            cls = P4_B4_F3
        elif fours == 1 and minor > 0:
            cls = P4_B4_PLUS
        elif fours == 1:
            cls = P4_B4
        elif cnt[F3] >= 2:
            cls = P4_F3_F3
        elif cnt[F3] == 1 and minor > 0:
            cls = P4_F3_PLUS
        elif cnt[F3] == 1:
            cls = P4_F3
        elif minor >= 2:
            cls = P4_TWO_PLUS
        elif minor == 1:
            cls = P4_TWO
        else:
            cls = P4_NONE
        shape = cnt[OVERLINE] > 0 or fours >= 2 or cnt[F3] >= 2
        if renju_black and cnt[FIVE] == 0 and shape:
            maybe[code] = 1
        p4[code] = cls
        ev[code] = ev_sum + eval_p4[cls]
        sc[code] = sc_sum + _SCORE_P4[cls]
    return p4, ev, sc, maybe


def code_multisets() -> npt.NDArray[np.int32]:
    """``[code] -> index in MULTISETS`` of its four patterns."""
    codes = np.arange(NCODE)
    digits = np.sort(np.stack([(codes // NPAT**d) % NPAT for d in range(4)], axis=1), axis=1)
    lookup = np.zeros(NCODE, dtype=np.int32)
    for i, multiset in enumerate(MULTISETS):
        lookup[sum(p * NPAT**d for d, p in enumerate(multiset))] = i
    result: npt.NDArray[np.int32] = lookup[digits @ (NPAT ** np.arange(4))]
    return result
