"""Renju's forbidden points for Black (RULES.md section 2.2): overlines, double fours and
double threes, fake threes included, as numba kernels over the padded board."""

from __future__ import annotations

from engine.search._jit import njit
from engine.search._layout import (
    G_RULE,
    G_S,
    R_CODE,
    RULE_RENJU,
    I8Array,
    I32Array,
    IntArray,
    _steps,
)

# one hash of every kernel file (engine.search._jit), so numba recompiles all after a change
KERNELS_STAMP = "c36f9652438b6287"


@njit
def _exact_five_dir(b: I8Array, p: int, sd: int) -> bool:
    # black stone on p: exactly five black in a row through p along sd
    return _run_len(b, p, sd) == 5


@njit
def _run_len(b: I8Array, p: int, sd: int) -> int:
    n = 1
    q = p - sd
    while b[q] == 1:
        n += 1
        q -= sd
    q = p + sd
    while b[q] == 1:
        n += 1
        q += sd
    return n


@njit
def _fours_dir(b: I8Array, p: int, sd: int) -> int:
    # fours through black p along sd: points that complete an exact five containing p
    count = 0
    first = 0
    second = 0
    for k in range(-4, 5):
        if k == 0:
            continue
        q = p + k * sd
        if b[q] != 0:
            continue
        # every point between p and q must be black for the five to contain p
        ok = True
        step = 1 if k > 0 else -1
        for j in range(step, k, step):
            if b[p + j * sd] != 1:
                ok = False
                break
        if not ok:
            continue
        b[q] = 1
        if _run_len(b, q, sd) == 5:
            count += 1
            if count == 1:
                first = k
            else:
                second = k
        b[q] = 0
    if count == 2:
        # a straight four (.XXXX.) is one four: both completions are the ends of one run
        lo = 0
        while b[p + (lo - 1) * sd] == 1:
            lo -= 1
        hi = 0
        while b[p + (hi + 1) * sd] == 1:
            hi += 1
        if hi - lo + 1 == 4 and first == lo - 1 and second == hi + 1:
            return 1
    return count


@njit
def _three_point(b: I8Array, s: int, p: int, q: int, sd: int) -> bool:
    # with black on p and on empty q (same line): does q turn p's three into a straight four,
    # without making a five anywhere? (whether q itself is forbidden is checked by the caller)
    st = _steps(s)
    b[q] = 1
    good = True
    for d in range(4):
        if _exact_five_dir(b, q, st[d]):
            good = False
            break
    if good:
        lo = 0
        while b[q + (lo - 1) * sd] == 1:
            lo -= 1
        hi = 0
        while b[q + (hi + 1) * sd] == 1:
            hi += 1
        kp = (p - q) // sd
        left = q + (lo - 1) * sd
        right = q + (hi + 1) * sd
        good = (
            hi - lo + 1 == 4
            and lo <= kp <= hi
            and b[left] == 0
            and b[right] == 0
            and b[left - sd] != 1
            and b[right + sd] != 1
        )
    b[q] = 0
    return good


@njit
def renju_forbidden(b: I8Array, s: int, p: int) -> int:
    """Why a black stone on empty ``p`` is forbidden: 0 it is not, 1 overline,
    2 double-four, 3 double-three (RULES.md section 2.2, including fake threes)."""
    # one self-recursive function: numba's disk cache mishandles mutual recursion
    st = _steps(s)
    b[p] = 1
    for d in range(4):
        if _exact_five_dir(b, p, st[d]):
            b[p] = 0
            return 0
    for d in range(4):
        if _run_len(b, p, st[d]) >= 6:
            b[p] = 0
            return 1
    fours = 0
    for d in range(4):
        fours += _fours_dir(b, p, st[d])
    if fours >= 2:
        b[p] = 0
        return 2
    threes = 0
    for d in range(4):
        sd = st[d]
        for k in range(-3, 4):
            q = p + k * sd
            if k == 0 or b[q] != 0 or not _three_point(b, s, p, q, sd):
                continue
            if renju_forbidden(b, s, q) == 0:
                threes += 1
                break
        if threes >= 2:
            break
    b[p] = 0
    return 3 if threes >= 2 else 0


@njit
def is_forbidden(b: I8Array, g: IntArray, cell: I32Array, maybe: I8Array, p: int) -> bool:
    """Whether Black may not play ``p`` (renju only; a table flag skips most points)."""
    if g[G_RULE] != RULE_RENJU:
        return False
    if maybe[cell[p, R_CODE]] == 0:
        return False
    # int64 arguments, as in renju_forbidden's own recursive call (see G_ONE); int()
    # keeps an int32 an int32 in numba, so move buffers are int64 throughout
    return renju_forbidden(b, g[G_S], p) != 0
