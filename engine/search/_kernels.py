"""The numba-compiled heart of the Gomoku search: board state, threats, renju, search.

State lives in a few numpy arrays so numba can keep Python objects out of the hot loops:

* ``b``: int8 cells of a board padded by ``PAD`` off-board points (value 3) on every side;
  a point ``(x, y)`` is index ``(y + PAD) * S + x + PAD`` with ``S = width + 2 * PAD``.
* ``cell``: int32 ``[index, column]``: line keys (columns 0-3, one per direction), the pattern
  of each side in each direction (4-11) and each side's pattern code (12-13), kept up to date
  on play/undo for the points within ``half`` of the stone; one 64-byte line per point.
* ``near``: stones in the 5x5 square around each point (candidates are points with one).
* ``ev`` (in ``st``): per side and pattern code, ``value << 4 | threat class``.
* ``g``: int64 scalars (``G_*``): geometry, rule, side to move, nodes, limits, the running
  evaluation of each side and each side's count of points per threat class.

Everything here is an implementation detail of ``engine.search.alphabeta``. It is one module
of about 1,200 lines on purpose: numba compiles each kernel with the ones it calls, and the
kernels share the array layout above, which a reader checks in one place.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from engine.search._jit import njit, njit_inline

PAD = 5
MAX_PLY = 128
MAX_MOVES = 400
WIN = 30000  # a five now; mate-style scores are WIN - plies
WIN_MIN = WIN - 1000  # anything above is a forced win
INF = 32000

# cell rows
R_PAT = 4
R_CODE = 12
NROWS = 16  # one 64-byte line per point

# g slots
G_W, G_H, G_S, G_RULE, G_HALF, G_SIDE, G_NMOVES, G_NODES = range(8)
G_NODE_LIMIT, G_STOP, G_TIMED, G_NEXT_CHECK, G_VAL, G_VAL_W = range(8, 14)
G_P4 = 14  # 2 * NP4 counters: points of each threat class per side
G_WIDTH = 36  # candidate width (0 = all)
G_BEST = 37  # best root move of the current iteration
G_SELDEPTH = 38
G_VCF_DEPTH = 39  # VCF depth at the leaves (0 = off)
G_SEARCHED = 40  # root moves completely searched in the current iteration
G_NOISE = 41  # evaluation noise amplitude (levels)
G_SEED = 42
# the constant 1, as an int64 read at run time: recursive kernels must always be called with
# the argument types of their own recursive calls, or numba's disk cache crashes on load (a
# literal 1 or an int32 from an int32 array each make another specialization)
G_ONE = 44
G_PURE = 45  # plain alpha-beta: no threat pruning, extensions or tactical shortcuts (tests)
G_DEEP_VCF = 46  # attacking fours of the local VCF (vcf_local) at the leaves (0 = off)
# selectivity of the full-strength search (0 = off: the levels below master search as before)
G_SELECT = 48  # SEL_* bits
G_LMP = 49  # quiet moves searched at a node of depth d: G_LMP + d * d, then the rest are skipped
G_FUTILITY = 50  # reverse futility margin per ply of depth (above beta)
G_RAZOR = 51  # razoring margin per ply of depth (below alpha)
G_LMR = 52  # SEL_LMR: reduction = ln(depth) * ln(move number) * G_LMR / 100 plies
G_MINE = 53  # the evaluation is (G_MINE * mine - 4 * theirs) // 4 (the weights' "mine")
# the evaluation network (0 hidden units: the linear evaluation above). Its inputs are the
# side to move's threat-class counts, the other side's, both sides' linear sums and whether
# Black is to move; each hidden unit is a row of G_NET_W: NET_IN input weights and a bias in
# units of 2 ** -NET_SHIFT, then its output weight
G_NET = 54  # hidden units
G_NET_OUT = 55  # the output's bias, in evaluation units
G_NET_W = 56
NET_IN = 2 * 11 + 3
NET_ROW = NET_IN + 2
NET_MAX = 32
NET_SHIFT = 24
NET_CLIP = 20000  # below WIN_MIN: a network's opinion is never a proof
NET_OUT_SHIFT = 8  # output weights in units of 2 ** -NET_OUT_SHIFT evaluation units
# a hidden unit's value is held below 2 ** 32 (256 in logits); with the loader's bounds on the
# weights (|input weight| < 64, |bias| < 1024, |output weight| < 2 ** 16 evaluation units) no
# sum overflows while the sides' sums of values stay below 2 ** 27 (the learned values' stay
# below 2 ** 16)
NET_HIDDEN_MAX = 1 << 32
NG = G_NET_W + NET_MAX * NET_ROW

SEL_LMP = 1  # late quiet moves are not searched at all
SEL_FUTILITY = 2  # reverse futility and razoring at depth 1-2 in calm positions
SEL_LMR = 4  # late-move reductions growing with depth and move number (_reduction)
SEL_MATE = 8  # mate-distance pruning, and proven results cut off at PV nodes too

RULE_FREESTYLE, RULE_STANDARD, RULE_RENJU, RULE_CARO = range(4)
NONE, B1, F1, B2, F2, B3, F3, B4, F4, FIVE, OVERLINE, FOUR_FOUR = range(12)
NP4 = 11
P4_NONE, P4_TWO, P4_TWO_PLUS, P4_F3, P4_F3_PLUS, P4_F3_F3 = range(6)
P4_B4, P4_B4_PLUS, P4_B4_F3, P4_FLEX4, P4_FIVE = range(6, 11)

TT_EXACT, TT_LOWER, TT_UPPER = 1, 2, 3

IntArray = npt.NDArray[np.int64]
I32Array = npt.NDArray[np.int32]
I8Array = npt.NDArray[np.int8]
U8Array = npt.NDArray[np.uint8]
U64Array = npt.NDArray[np.uint64]
F64Array = npt.NDArray[np.float64]
State = tuple[Any, ...]  # the arrays above, see the module docstring


@njit
def now() -> float:
    """Seconds from a monotonic clock (numba has no clock of its own)."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit_inline
def _steps(s: int) -> tuple[int, int, int, int]:
    return (1, s, s + 1, s - 1)


@njit_inline
def _shift(k: int, half: int) -> int:
    # bit offset of the point k steps away (k != 0) inside a line key
    return 2 * (k + half if k < 0 else k + half - 1)


# --------------------------------------------------------------------------- state


@njit
def init_state(
    b: I8Array,
    cell: I32Array,
    g: IntArray,
    pt: U8Array,
    ev: I32Array,
    p4t: I8Array,
) -> None:
    """Fill ``cell`` and the running sums of ``g`` for an empty board (``b`` holds walls only)."""
    w = g[G_W]
    h = g[G_H]
    s = g[G_S]
    half = g[G_HALF]
    st = _steps(s)
    cell[:, :] = 0
    for i in range(2 * NP4):
        g[G_P4 + i] = 0
    g[G_VAL] = 0
    g[G_VAL_W] = 0
    pw = 1
    for d in range(4):
        for y in range(h):
            for x in range(w):
                p = (y + PAD) * s + x + PAD
                key = 0
                for k in range(-half, half + 1):
                    if k != 0:
                        key |= int(b[p + k * st[d]]) << _shift(k, half)
                cell[p, d] = key
                for ci in range(2):
                    pat = pt[ci, key]
                    cell[p, R_PAT + ci * 4 + d] = pat
                    cell[p, R_CODE + ci] += pat * pw
        pw *= 12
    for y in range(h):
        for x in range(w):
            p = (y + PAD) * s + x + PAD
            for ci in range(2):
                pk = ev[ci, cell[p, R_CODE + ci]]
                g[G_VAL + ci] += pk >> 4
                g[G_P4 + ci * NP4 + (pk & 15)] += 1


@njit_inline
def _update(
    cell: I32Array, g: IntArray, pt: U8Array, ev: I32Array, p4t: I8Array, q: int, d: int, pw: int
) -> None:
    key = cell[q, d]
    for ci in range(2):
        new = pt[ci, key]
        row = R_PAT + ci * 4 + d
        old = cell[q, row]
        if new != old:
            cell[q, row] = new
            oc = cell[q, R_CODE + ci]
            nc = oc + (np.int64(new) - old) * pw
            cell[q, R_CODE + ci] = nc
            # ev holds value << 4 | threat class: one lookup per code instead of two
            opk = ev[ci, oc]
            npk = ev[ci, nc]
            g[G_VAL + ci] += (npk >> 4) - (opk >> 4)
            o4 = opk & 15
            n4 = npk & 15
            if o4 != n4:
                g[G_P4 + ci * NP4 + o4] -= 1
                g[G_P4 + ci * NP4 + n4] += 1


@njit
def play(
    b: I8Array,
    cell: I32Array,
    g: IntArray,
    pt: U8Array,
    ev: I32Array,
    p4t: I8Array,
    zob: U64Array,
    hsh: U64Array,
    ms: IntArray,
    near: I32Array,
    p: int,
) -> None:
    """Put a stone of the side to move on ``p`` and pass the turn."""
    c = g[G_SIDE]
    s = g[G_S]
    half = g[G_HALF]
    st = _steps(s)
    for ci in range(2):
        pk = ev[ci, cell[p, R_CODE + ci]]
        g[G_VAL + ci] -= pk >> 4
        g[G_P4 + ci * NP4 + (pk & 15)] -= 1
    b[p] = c
    pw = 1
    for d in range(4):
        sd = st[d]
        for k in range(-half, half + 1):
            if k == 0:
                continue
            q = p - k * sd
            bq = b[q]
            if bq == 3:
                continue  # off the board: its key is never read
            cell[q, d] += c << _shift(k, half)
            if bq == 0:
                _update(cell, g, pt, ev, p4t, q, d, pw)
        pw *= 12
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            near[p + dy * s + dx] += 1
    hsh[0] ^= zob[c - 1, p]
    hsh[0] ^= zob[2, 0]
    ms[g[G_NMOVES]] = p
    g[G_NMOVES] += 1
    g[G_SIDE] = 3 - c
    g[G_NODES] += 1


@njit
def undo(
    b: I8Array,
    cell: I32Array,
    g: IntArray,
    pt: U8Array,
    ev: I32Array,
    p4t: I8Array,
    zob: U64Array,
    hsh: U64Array,
    ms: IntArray,
    near: I32Array,
) -> None:
    """Take back the last stone."""
    g[G_NMOVES] -= 1
    p = ms[g[G_NMOVES]]
    c = b[p]
    g[G_SIDE] = c
    s = g[G_S]
    half = g[G_HALF]
    st = _steps(s)
    b[p] = 0
    pw = 1
    for d in range(4):
        sd = st[d]
        for k in range(-half, half + 1):
            if k == 0:
                continue
            q = p - k * sd
            bq = b[q]
            if bq == 3:
                continue  # off the board: its key is never read
            cell[q, d] -= c << _shift(k, half)
            if bq == 0:
                _update(cell, g, pt, ev, p4t, q, d, pw)
        pw *= 12
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            near[p + dy * s + dx] -= 1
    for ci in range(2):
        pk = ev[ci, cell[p, R_CODE + ci]]
        g[G_VAL + ci] += pk >> 4
        g[G_P4 + ci * NP4 + (pk & 15)] += 1
    hsh[0] ^= zob[c - 1, p]
    hsh[0] ^= zob[2, 0]


# --------------------------------------------------------------------------- renju


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


# --------------------------------------------------------------------------- search

# st = (b, cell, g, pt, ev, p4t, zob, hsh, ms, maybe, sc, tm, near)
# sr = (ttk, ttv, killers, hist, mbuf, sbuf, pv, pvlen, tline, vttk, vttd, rootm)


@njit
def _scan(
    b: I8Array, cell: I32Array, g: IntArray, p4t: I8Array, ci: int, level: int, out: IntArray
) -> int:
    # the empty points where side ci has a threat class >= level
    w = g[G_W]
    h = g[G_H]
    s = g[G_S]
    n = 0
    row = R_CODE + ci
    for y in range(h):
        base = (y + PAD) * s + PAD
        for x in range(w):
            p = base + x
            if b[p] == 0 and p4t[ci, cell[p, row]] >= level:
                out[n] = p
                n += 1
    return n


@njit
def _check_limits(g: IntArray, tm: F64Array) -> None:
    g[G_NEXT_CHECK] = g[G_NODES] + 512
    if (g[G_NODE_LIMIT] > 0 and g[G_NODES] >= g[G_NODE_LIMIT]) or (
        g[G_TIMED] != 0 and now() >= tm[0]
    ):
        g[G_STOP] = 1


@njit_inline
def _network(g: IntArray, me: int) -> int:
    op = 1 - me
    mine = G_P4 + me * NP4
    theirs = G_P4 + op * NP4
    black = 1 if me == 0 else 0
    acc = 0
    for i in range(g[G_NET]):
        row = G_NET_W + i * NET_ROW
        h = g[row + NET_IN] + g[row + 2 * NP4 + 2] * black
        for j in range(NP4):
            h += g[row + j] * g[mine + j] + g[row + NP4 + j] * g[theirs + j]
        h += g[row + 2 * NP4] * g[G_VAL + me] + g[row + 2 * NP4 + 1] * g[G_VAL + op]
        if h > 0:
            acc += min(h, NET_HIDDEN_MAX) * g[row + NET_IN + 1]
    v = (acc >> (NET_SHIFT + NET_OUT_SHIFT)) + g[G_NET_OUT]
    return int(min(max(v, -NET_CLIP), NET_CLIP))


@njit
def evaluate(g: IntArray, hsh: U64Array) -> int:
    """Static evaluation from the side to move's view (plus the level's noise, if any)."""
    me = g[G_SIDE] - 1
    if g[G_NET] > 0:
        v = _network(g, me)
    else:
        v = int((g[G_MINE] * g[G_VAL + me] - 4 * g[G_VAL + 1 - me]) // 4)
    amp = g[G_NOISE]
    if amp > 0:
        x = (hsh[0] ^ np.uint64(g[G_SEED])) * np.uint64(0x9E3779B97F4A7C15)
        v += int((x >> np.uint64(40)) % np.uint64(2 * amp + 1)) - amp
    return v


@njit
def _real_flex4(st: State, ci: int, buf: IntArray) -> int:
    # how many points give side ci a straight four (renju: not counting Black's forbidden ones)
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    maybe = st[9]
    n = int(g[G_P4 + ci * NP4 + P4_FLEX4])
    if n == 0 or ci == 1 or g[G_RULE] != RULE_RENJU:
        return n
    m = _scan(b, cell, g, p4t, ci, P4_FLEX4, buf)
    real = 0
    for i in range(m):
        p = buf[i]
        if p4t[ci, cell[p, R_CODE]] == P4_FLEX4 and not is_forbidden(b, g, cell, maybe, p):
            real += 1
    return real


@njit
def _defences(st: State, me: int, buf: IntArray) -> int:
    # against an open three: our fours and the points where the opponent would make a four
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    w = g[G_W]
    h = g[G_H]
    s = g[G_S]
    op = 1 - me
    n = 0
    for y in range(h):
        base = (y + PAD) * s + PAD
        for x in range(w):
            p = base + x
            if b[p] == 0 and (
                p4t[me, cell[p, R_CODE + me]] >= P4_B4 or p4t[op, cell[p, R_CODE + op]] >= P4_B4
            ):
                buf[n] = p
                n += 1
    return n


@njit_inline
def _mk(st: State, p: int) -> None:
    b = st[0]
    cell = st[1]
    g = st[2]
    pt = st[3]
    ev = st[4]
    p4t = st[5]
    zob = st[6]
    hsh = st[7]
    ms = st[8]
    play(b, cell, g, pt, ev, p4t, zob, hsh, ms, st[12], p)


@njit_inline
def _um(st: State) -> None:
    b = st[0]
    cell = st[1]
    g = st[2]
    pt = st[3]
    ev = st[4]
    p4t = st[5]
    zob = st[6]
    hsh = st[7]
    ms = st[8]
    undo(b, cell, g, pt, ev, p4t, zob, hsh, ms, st[12])


@njit
def _sort(buf: IntArray, keys: IntArray, n: int) -> None:
    # insertion sort by key, largest first (lists are short)
    for i in range(1, n):
        p = buf[i]
        k = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            buf[j + 1] = buf[j]
            keys[j + 1] = keys[j]
            j -= 1
        buf[j + 1] = p
        keys[j + 1] = k


@njit
def threat_search(st: State, sr: State, attacker: int, depth: int, vct: bool, ply: int) -> bool:
    """Threat-space search: can ``attacker`` force a five with fours (and, with ``vct``,
    open threes) within ``depth`` attacking moves? Attacking moves are stored in ``tline``."""
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    hsh = st[7]
    maybe = st[9]
    sc = st[10]
    tm = st[11]
    mbuf = sr[4]
    sbuf = sr[5]
    tline = sr[8]
    vttk = sr[9]
    vttd = sr[10]
    if g[G_NODES] >= g[G_NEXT_CHECK]:
        _check_limits(g, tm)
    if g[G_STOP] != 0 or ply >= MAX_PLY - 2:
        return False
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    buf = mbuf[ply]
    keys = sbuf[ply]
    if side == attacker:
        if g[G_P4 + me * NP4 + P4_FIVE] > 0:
            n = _scan(b, cell, g, p4t, me, P4_FIVE, buf)
            tline[ply] = buf[0]
            return True
        if depth <= 0:
            return False
        slot = np.int64(hsh[0] ^ np.uint64(0x5BD1E995 + (3 if vct else 7))) & (vttk.shape[0] - 1)
        tag = hsh[0] ^ np.uint64(0xA5A5 if vct else 0x5A5A)
        if vttk[slot] == tag and vttd[slot] >= depth:
            return False
        if g[G_P4 + op * NP4 + P4_FIVE] > 0:
            n = _scan(b, cell, g, p4t, op, P4_FIVE, buf)
            if n >= 2:
                return False
            if not vct and p4t[me, cell[buf[0], R_CODE + me]] < P4_B4:
                return False
            n = 1
        else:
            n = _scan(b, cell, g, p4t, me, P4_F3 if vct else P4_B4, buf)
            for i in range(n):
                keys[i] = sc[me, cell[buf[i], R_CODE + me]] + sc[op, cell[buf[i], R_CODE + op]] // 2
            _sort(buf, keys, n)
        for i in range(n):
            p = buf[i]
            if side == 1 and is_forbidden(b, g, cell, maybe, p):
                continue
            _mk(st, p)
            won = threat_search(st, sr, attacker, depth - 1, vct, ply + 1)
            _um(st)
            if won:
                tline[ply] = p
                return True
            if g[G_STOP] != 0:
                return False
        vttk[slot] = tag
        vttd[slot] = depth
        return False
    # the defender to move
    if g[G_P4 + me * NP4 + P4_FIVE] > 0:
        return False
    nfive = g[G_P4 + op * NP4 + P4_FIVE]
    if nfive >= 2:
        return True
    if nfive == 1:
        n = _scan(b, cell, g, p4t, op, P4_FIVE, buf)
        if side == 1 and is_forbidden(b, g, cell, maybe, buf[0]):
            return True
    else:
        if not vct or _real_flex4(st, op, buf) == 0:
            return False
        n = _defences(st, me, buf)
    for i in range(n):
        p = buf[i]
        if side == 1 and is_forbidden(b, g, cell, maybe, p):
            continue
        _mk(st, p)
        won = threat_search(st, sr, attacker, depth, vct, ply + 1)
        _um(st)
        if not won:
            return False
    return bool(g[G_STOP] == 0)


@njit
def vcf_local(st: State, sr: State, depth: int, ply: int, last: int) -> int:
    """A VCF for the side to move within ``depth`` attacking fours, every four after the first
    within four points of the attacker's previous one on its lines (the lines a continuous-four
    attack lives on, as strong engines restrict it; this loses completeness, never soundness).
    Returns the plies up to and including the five (0: none found); the attacker's moves and
    the forced blocks are stored in ``tline`` from ``ply`` on. ``last`` is the previous four
    (-1: none, every four is tried)."""
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    hsh = st[7]
    maybe = st[9]
    sc = st[10]
    tm = st[11]
    mbuf = sr[4]
    sbuf = sr[5]
    tline = sr[8]
    vttk = sr[9]
    vttd = sr[10]
    if g[G_NODES] >= g[G_NEXT_CHECK]:
        _check_limits(g, tm)
    if g[G_STOP] != 0 or ply >= MAX_PLY - 4:
        return 0
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    buf = mbuf[ply]
    keys = sbuf[ply]
    if g[G_P4 + me * NP4 + P4_FIVE] > 0:
        _scan(b, cell, g, p4t, me, P4_FIVE, buf)
        tline[ply] = buf[0]
        return 1
    opfive = g[G_P4 + op * NP4 + P4_FIVE]
    if opfive == 0 and g[G_P4 + me * NP4 + P4_FLEX4] > 0:
        # a straight four (or four-four) when the defender cannot make five: two fives next
        n = _scan(b, cell, g, p4t, me, P4_FLEX4, buf)
        for i in range(n):
            if p4t[me, cell[buf[i], R_CODE + me]] == P4_FLEX4 and not (
                side == 1 and is_forbidden(b, g, cell, maybe, buf[i])
            ):
                tline[ply] = buf[i]
                return 3
    if depth <= 0 or opfive >= 2:
        return 0
    slot = np.int64(hsh[0] ^ np.uint64(0x2F6B3A1D)) & (vttk.shape[0] - 1)
    tag = hsh[0] ^ np.uint64(0xC3C3) ^ (np.uint64(last + 1) * np.uint64(0x9E3779B97F4A7C15))
    if vttk[slot] == tag and vttd[slot] >= depth:
        return 0
    if opfive == 1:
        # block the defender's four, and only with a four of our own
        _scan(b, cell, g, p4t, op, P4_FIVE, buf)
        if p4t[me, cell[buf[0], R_CODE + me]] < P4_B4:
            return 0
        n = 1
    else:
        n = 0
        if last < 0:
            n = _scan(b, cell, g, p4t, me, P4_B4, buf)
        else:
            sts = _steps(g[G_S])
            for d in range(4):
                for k in range(-4, 5):
                    q = last + k * sts[d]
                    if k != 0 and b[q] == 0 and p4t[me, cell[q, R_CODE + me]] >= P4_B4:
                        buf[n] = q
                        n += 1
        for i in range(n):
            keys[i] = sc[me, cell[buf[i], R_CODE + me]] + sc[op, cell[buf[i], R_CODE + op]] // 2
        _sort(buf, keys, n)
    for i in range(n):
        p = buf[i]
        if side == 1 and is_forbidden(b, g, cell, maybe, p):
            continue
        _mk(st, p)
        # the defender to move: it has no five (we had none to leave it), so it must block ours
        won = 0
        nf = g[G_P4 + me * NP4 + P4_FIVE]
        if nf >= 2:
            won = 3
        elif nf == 1:
            dbuf = mbuf[ply + 1]
            _scan(b, cell, g, p4t, me, P4_FIVE, dbuf)
            q = dbuf[0]
            if side == 2 and is_forbidden(b, g, cell, maybe, q):
                won = 3  # renju: Black may not block there
            else:
                _mk(st, q)
                r = vcf_local(st, sr, depth - 1, ply + 2, p)
                _um(st)
                if r > 0:
                    tline[ply + 1] = q
                    won = r + 2
        _um(st)
        if won > 0:
            tline[ply] = p
            return won
        if g[G_STOP] != 0:
            return 0
    vttk[slot] = tag
    vttd[slot] = depth
    return 0


@njit
def _store_proof(st: State, sr: State, ply: int, score: int, move: int) -> None:
    # a proven win goes into the main table as a lower bound of any depth, so that no later
    # visit of this position (a deeper iteration, a transposition) searches it again
    ttk = sr[0]
    ttv = sr[1]
    h = st[7][0]
    slot = _tt_slot(ttk, h)
    ttk[slot] = h
    ttv[slot] = (
        (np.int64(_to_tt(score, ply)) << 32)
        | (np.int64(move + 1) << 16)
        | (np.int64(255) << 8)
        | TT_LOWER
    )


@njit
def _tt_slot(ttk: U64Array, h: np.uint64) -> int:
    return int(h & np.uint64(ttk.shape[0] - 1))


@njit
def _to_tt(v: int, ply: int) -> int:
    if v > WIN_MIN:
        return v + ply
    if v < -WIN_MIN:
        return v - ply
    return v


@njit
def _from_tt(v: int, ply: int) -> int:
    if v > WIN_MIN:
        return v - ply
    if v < -WIN_MIN:
        return v + ply
    return v


@njit
def _generate(st: State, sr: State, ply: int, ttmove: int) -> tuple[int, bool]:
    # fills mbuf[ply]/sbuf[ply] with ordered candidates; returns (count, tactical-only)
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    maybe = st[9]
    sc = st[10]
    killers = sr[2]
    hist = sr[3]
    mbuf = sr[4]
    sbuf = sr[5]
    near = st[12]
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    buf = mbuf[ply]
    keys = sbuf[ply]
    restricted = False
    if g[G_PURE] != 0:
        pass
    elif g[G_P4 + op * NP4 + P4_FIVE] > 0:
        n = _scan(b, cell, g, p4t, op, P4_FIVE, buf)
        restricted = True
    elif g[G_P4 + op * NP4 + P4_FLEX4] > 0 and _real_flex4(st, op, buf) > 0:
        n = _defences(st, me, buf)
        restricted = True
    if not restricted:
        w = g[G_W]
        h = g[G_H]
        s = g[G_S]
        n = 0
        for y in range(h):
            base = (y + PAD) * s + PAD
            for x in range(w):
                p = base + x
                if b[p] == 0 and near[p] > 0:
                    buf[n] = p
                    n += 1
    k0 = killers[ply, 0]
    k1 = killers[ply, 1]
    hrow = hist[me]
    m = 0
    for i in range(n):
        p = buf[i]
        if side == 1 and g[G_RULE] == RULE_RENJU and is_forbidden(b, g, cell, maybe, p):
            continue
        key = sc[me, cell[p, R_CODE + me]] + (sc[op, cell[p, R_CODE + op]] * 3) // 4
        if p == ttmove:
            key += 1 << 28
        elif p == k0:
            key += 1 << 20
        elif p == k1:
            key += 1 << 19
        key += min(hrow[p], 1 << 16) >> 6
        buf[m] = p
        keys[m] = key
        m += 1
    return m, restricted


NOT_LEAF = -INF - 1  # _static: the node must be searched


@njit_inline
def _calm(g: IntArray) -> bool:
    # no win pending for either side: no five to block or make, no point that makes a straight
    # four (an open three on the board), a four-three or a double three; the static value of
    # such a position says little, so the selective cuts leave it to the full search
    for ci in range(2):
        base = G_P4 + ci * NP4
        if (
            g[base + P4_F3_F3] > 0
            or g[base + P4_B4_F3] > 0
            or g[base + P4_FLEX4] > 0
            or g[base + P4_FIVE] > 0
        ):
            return False
    return True


@njit_inline
def _tactical(cell: I32Array, p4t: I8Array, me: int, op: int, p: int) -> bool:
    # what late-move pruning never skips: our five, four or open three, and the points where
    # the opponent would make a five or a four (the blocks of their fours and threes)
    return bool(p4t[me, cell[p, R_CODE + me]] >= P4_F3 or p4t[op, cell[p, R_CODE + op]] >= P4_B4)


@njit_inline
def _static(st: State, sr: State, depth: int, ply: int, beta: int) -> int:
    # the value of a node that needs no move loop (a five, a lost position, the horizon), or
    # NOT_LEAF; inlined into the parent so that leaves cost no recursive call
    g = st[2]
    hsh = st[7]
    mbuf = sr[4]
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    if g[G_P4 + me * NP4 + P4_FIVE] > 0:
        return WIN - ply
    if ply > g[G_SELDEPTH]:
        g[G_SELDEPTH] = ply
    if ply >= MAX_PLY - 4:
        return evaluate(g, hsh)
    opfive = g[G_P4 + op * NP4 + P4_FIVE]
    if g[G_PURE] != 0:
        opfive = 0
        if depth <= 0:
            return evaluate(g, hsh)
    if opfive >= 2:
        return -(WIN - ply - 1)
    if opfive == 0 and depth <= 0:
        if g[G_P4 + me * NP4 + P4_FLEX4] > 0 and g[G_P4 + op * NP4 + P4_B4] == 0:
            nb4 = 0
            for c4 in range(P4_B4, NP4):
                nb4 += g[G_P4 + op * NP4 + c4]
            if nb4 == 0 and _real_flex4(st, me, mbuf[ply]) > 0:
                return WIN - ply - 3
        vd = g[G_VCF_DEPTH]
        if vd > 0:
            nb4 = 0
            for c4 in range(P4_B4, NP4):
                nb4 += g[G_P4 + me * NP4 + c4]
            if nb4 > 0:
                dv = g[G_DEEP_VCF]
                if dv > 0:
                    # a win only matters below beta: above it the evaluation cuts off as well
                    # (a fail-soft bound)
                    v = evaluate(g, hsh)
                    if v >= beta:
                        return v
                    plies = vcf_local(st, sr, dv, ply, -g[G_ONE])
                    if plies > 0:
                        _store_proof(st, sr, ply, WIN - ply - plies, sr[8][ply])
                        return WIN - ply - plies
                elif threat_search(st, sr, side, vd, vd < 0, ply):
                    return int(WIN - ply - 2 * vd - 1)
        return evaluate(g, hsh)
    return NOT_LEAF


@njit_inline
def _reduction(
    g: IntArray, cell: I32Array, p4t: I8Array, me: int, op: int, p: int, depth: int, i: int
) -> float:
    # SEL_LMR: the plies a late move loses, before the node's own adjustments. A move that
    # makes a four is never reduced (the reply is forced, so its line is cheap and decisive);
    # one that makes an open three or takes the opponent's three point loses a ply less
    own = p4t[me, cell[p, R_CODE + me]]
    if own >= P4_B4:
        return 0.0
    r: float = math.log(depth) * math.log(i + 1) * g[G_LMR] / 100
    if own >= P4_F3 or p4t[op, cell[p, R_CODE + op]] >= P4_F3:
        r -= 1.0
    return r


@njit
def alphabeta(st: State, sr: State, depth: int, alpha: int, beta: int, ply: int) -> int:
    """Principal-variation alpha-beta from the side to move's view."""
    cell = st[1]
    g = st[2]
    p4t = st[5]
    hsh = st[7]
    tm = st[11]
    ttk = sr[0]
    ttv = sr[1]
    killers = sr[2]
    hist = sr[3]
    mbuf = sr[4]
    pv = sr[6]
    pvlen = sr[7]
    pvlen[ply] = ply
    if g[G_NODES] >= g[G_NEXT_CHECK]:
        _check_limits(g, tm)
    if g[G_STOP] != 0:
        return 0
    value = _static(st, sr, depth, ply, beta)
    if value != NOT_LEAF:
        return value
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    opfive = 0 if g[G_PURE] != 0 else g[G_P4 + op * NP4 + P4_FIVE]
    if depth < 0:
        depth = 0
    select = g[G_SELECT]
    mate = (select & SEL_MATE) != 0
    if mate:
        # no line from here ends sooner than a five made now or one the opponent makes next
        if beta > WIN - ply:
            beta = WIN - ply
            if alpha >= beta:
                return beta
        if alpha < -(WIN - ply - 1):
            alpha = -(WIN - ply - 1)
            if alpha >= beta:
                return alpha
    # transposition table
    h = hsh[0]
    slot = _tt_slot(ttk, h)
    ttmove = -1
    if ttk[slot] == h:
        data = ttv[slot]
        ttmove = int((data >> 16) & 0xFFFF) - 1
        tdepth = np.int64((data >> 8) & 0xFF)
        tflag = np.int64(data & 0x3)
        tscore = _from_tt(int(data >> 32), ply)
        # a proven result holds at any window (SEL_MATE): a PV node may take it as well
        if tdepth >= depth and (beta - alpha == 1 or (mate and abs(tscore) > WIN_MIN)):
            if tflag == TT_EXACT:
                return tscore
            if tflag == TT_LOWER and tscore >= beta:
                return tscore
            if tflag == TT_UPPER and tscore <= alpha:
                return tscore
    calm = False
    if select != 0 and opfive == 0 and beta - alpha == 1:
        calm = _calm(g)
    if calm and (select & SEL_FUTILITY) != 0 and depth <= 2:
        # far above beta, a quiet position stays there (reverse futility); far below alpha,
        # only a threat could save it, and the leaf's own VCF probe looks for one (razoring)
        e = evaluate(g, hsh)
        if e - g[G_FUTILITY] * depth >= beta:
            return e
        if e + g[G_RAZOR] * depth <= alpha:
            v = _static(st, sr, 0, ply, beta)
            if v <= alpha:
                return v
    n, restricted = _generate(st, sr, ply, ttmove)
    if n == 0:
        if g[G_P4 + op * NP4 + P4_FIVE] > 0 or restricted:
            return -(WIN - ply - 1)  # every answer is forbidden (renju) or none exists
        return 0  # the board is full
    n_all = n
    width = g[G_WIDTH]
    if width > 0 and not restricted and n > width:
        n = width
    late = n
    if (select & SEL_LMP) != 0 and not restricted and opfive == 0:
        late = g[G_LMP] + depth * depth
    buf = mbuf[ply]
    keys = sr[5][ply]
    best = -INF
    bestmove = buf[0]
    alpha0 = alpha
    newdepth = depth if opfive > 0 else depth - 1
    lmr = (select & SEL_LMR) != 0 and not restricted and newdepth >= 2
    pvnode = beta - alpha > 1
    k0 = killers[ply, 0]
    k1 = killers[ply, 1]
    for i in range(n):
        # pick the best remaining candidate: cut-offs come early, a full sort is wasted work
        top = i
        for j in range(i + 1, n_all):
            if keys[j] > keys[top]:
                top = j
        p = buf[top]
        buf[top] = buf[i]
        buf[i] = p
        kt = keys[top]
        keys[top] = keys[i]
        keys[i] = kt
        tactical = p4t[me, cell[p, R_CODE + me]] >= P4_F3 or p4t[op, cell[p, R_CODE + op]] >= P4_F3
        if i >= late and not _tactical(cell, p4t, me, op, p):
            continue  # SEL_LMP: a late quiet move near the horizon
        _mk(st, p)
        leaf = NOT_LEAF
        if newdepth <= 0:
            pvlen[ply + 1] = ply + 1
            leaf = _static(st, sr, newdepth, ply + 1, -alpha)
        if leaf != NOT_LEAF:
            v = -leaf  # exact: no re-search
        elif i == 0:
            v = -alphabeta(st, sr, newdepth, -beta, -alpha, ply + 1)
        else:
            r = 0
            if lmr:
                x = _reduction(g, cell, p4t, me, op, p, depth, i)
                if pvnode:
                    x -= 1.0
                if p in (k0, k1):
                    x -= 1.0
                if x >= 1.0:
                    r = min(int(x), newdepth - 1)  # never below depth 1: moves, not a leaf
            elif depth >= 3 and i >= 4 and not tactical and not restricted:
                r = 1 if i < 12 else 2
            v = -alphabeta(st, sr, newdepth - r, -alpha - 1, -alpha, ply + 1)
            if v > alpha and (r > 0 or v < beta):
                v = -alphabeta(st, sr, newdepth, -beta, -alpha, ply + 1)
        _um(st)
        if g[G_STOP] != 0:
            return 0
        if v > best:
            best = v
            bestmove = p
            if v > alpha:
                alpha = v
                pv[ply, ply] = p
                for j in range(ply + 1, pvlen[ply + 1]):
                    pv[ply, j] = pv[ply + 1, j]
                pvlen[ply] = max(pvlen[ply + 1], ply + 1)
                if v >= beta:
                    if not tactical and killers[ply, 0] != p:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = p
                    hist[me, p] += depth * depth
                    break
    flag = TT_EXACT
    if best <= alpha0:
        flag = TT_UPPER
    elif best >= beta:
        flag = TT_LOWER
    ttk[slot] = h
    ttv[slot] = (
        (np.int64(_to_tt(best, ply)) << 32)
        | (np.int64(bestmove + 1) << 16)
        | (np.int64(min(depth, 255)) << 8)
        | flag
    )
    return best


@njit
def root_moves(st: State, sr: State) -> int:
    """Generate and order the root candidates into ``rootm``; returns their count."""
    mbuf = sr[4]
    rootm = sr[11]
    n, _ = _generate(st, sr, 0, -1)
    _sort(mbuf[0], sr[5][0], n)
    for i in range(n):
        rootm[i] = mbuf[0, i]
    return n


@njit
def root_search(st: State, sr: State, n: int, depth: int, alpha: int, beta: int) -> int:
    """One iteration over the ``n`` root moves; the best lands in ``rootm[0]`` and ``g[G_BEST]``.

    When the limits stop it, ``G_SEARCHED`` says how many moves were finished; the score of an
    unfinished iteration is meaningless unless a move beat the previous best.
    """
    g = st[2]
    pv = sr[6]
    pvlen = sr[7]
    rootm = sr[11]
    g[G_SEARCHED] = 0
    pvlen[0] = 0
    best = -INF
    besti = 0
    side = g[G_SIDE]
    op = 2 - side
    opfive = g[G_P4 + op * NP4 + P4_FIVE] > 0 and g[G_PURE] == 0
    newdepth = depth if opfive else depth - 1
    for i in range(n):
        p = rootm[i]
        _mk(st, p)
        if i == 0:
            v = -alphabeta(st, sr, newdepth, -beta, -alpha, g[G_ONE])
        else:
            v = -alphabeta(st, sr, newdepth, -alpha - 1, -alpha, g[G_ONE])
            if v > alpha and v < beta and g[G_STOP] == 0:
                v = -alphabeta(st, sr, newdepth, -beta, -alpha, g[G_ONE])
        _um(st)
        if g[G_STOP] != 0:
            break
        g[G_SEARCHED] = i + 1
        if v > best:
            best = v
            besti = i
            g[G_BEST] = p
            if v > alpha:
                alpha = v
                pv[0, 0] = p
                for j in range(1, pvlen[1]):
                    pv[0, j] = pv[1, j]
                pvlen[0] = max(pvlen[1], 1)
                if v >= beta:
                    break
    if besti > 0:
        p = rootm[besti]
        for j in range(besti, 0, -1):
            rootm[j] = rootm[j - 1]
        rootm[0] = p
    return best
