"""The tree search: the static evaluation (values or the network), the transposition
table, candidate generation and ordering, selectivity, and principal-variation alpha-beta
from the root."""

from __future__ import annotations

import math

import numpy as np

from engine.search._jit import njit, njit_inline
from engine.search._layout import (
    CORR_N,
    CORR_UNIT,
    G_ALPHA_RED,
    G_BEST,
    G_CORR,
    G_CORR_LIMIT,
    G_CORR_RATE,
    G_CORR_T,
    G_COUNTER,
    G_DEBT,
    G_DEEP_VCF,
    G_DEFEND3,
    G_DEFEND43,
    G_DEFEND43_BLACK,
    G_DISTRACT,
    G_EVAL_AVG,
    G_FH_RED,
    G_FOUR_EXT,
    G_FOURS,
    G_FUT_DEPTH,
    G_FUT_OWN,
    G_FUTILITY,
    G_HALF,
    G_HIST_KEY,
    G_HIST_MALUS,
    G_IIR,
    G_KEPT,
    G_KILLER_KEY,
    G_LEAF_NODES,
    G_LMP,
    G_LMP_IMPROVE,
    G_LMP_POW,
    G_LMR,
    G_LMR_DEEPER,
    G_LMR_FOUR,
    G_LMR_GAP,
    G_LMR_IMPROVE,
    G_LMR_OPP,
    G_LMR_QUARTERS,
    G_LMR_TTPV,
    G_LMR_VERIFY,
    G_MINE,
    G_NET,
    G_NET_OUT,
    G_NET_W,
    G_NEXT_CHECK,
    G_NMOVES,
    G_NODES,
    G_NOISE,
    G_NULL,
    G_NULL_CUTS,
    G_NULL_DEPTH,
    G_NULL_PLY,
    G_NULLS,
    G_ONE,
    G_P4,
    G_POL,
    G_POL_B,
    G_POL_CACHE,
    G_POL_CUT,
    G_POL_CUT_HIGH,
    G_POL_CUT_LOW,
    G_POL_CUT_OPP,
    G_POL_D,
    G_POL_E,
    G_POL_IN,
    G_POL_LMP,
    G_POL_RED,
    G_POL_T,
    G_POL_TOP,
    G_POL_U,
    G_POL_Z,
    G_PREV,
    G_PROBE_NODES,
    G_PRUNE_SAFE,
    G_PURE,
    G_PV_TT_RED,
    G_PVAL,
    G_QVCF,
    G_QVCF_DELTA,
    G_RAZOR,
    G_RAZOR_ROOT,
    G_ROOT_LMR,
    G_RULE,
    G_S,
    G_SE_DEPTH,
    G_SE_MARGIN,
    G_SEARCHED,
    G_SEED,
    G_SELDEPTH,
    G_SELECT,
    G_SEVAL,
    G_SIDE,
    G_SKIP,
    G_STOP,
    G_TRIVIAL,
    G_TT_EVAL,
    G_TT_GEN,
    G_TT_WAYS,
    G_VAL,
    G_VCF_DEPTH,
    G_VH_ADD,
    G_VH_B1,
    G_VH_B2,
    G_VH_F,
    G_VH_H,
    G_VH_POOL,
    G_VH_SCALE,
    G_VH_W1,
    G_VH_W2,
    G_WIDTH,
    INF,
    MAX_PLY,
    NCODE4,
    NET_CLIP,
    NET_HIDDEN_MAX,
    NET_IN,
    NET_OUT_SHIFT,
    NET_ROW,
    NET_SHIFT,
    NP4,
    NPAT,
    P4_B4,
    P4_B4_F3,
    P4_B4_PLUS,
    P4_F3,
    P4_F3_F3,
    P4_FIVE,
    P4_FLEX4,
    P4_NONE,
    PAD,
    POL_CACHE,
    POL_DISTANCE,
    POL_KEY_SHIFT,
    POL_MAX,
    POL_NEAR,
    POL_THREAT,
    POL_WINDOW,
    R_CODE,
    R_PAT,
    RULE_FREESTYLE,
    RULE_RENJU,
    SEL_FUTILITY,
    SEL_LMP,
    SEL_LMR,
    SEL_MATE,
    TT_EXACT,
    TT_LOWER,
    TT_PV,
    TT_UPPER,
    VH_HMAX,
    VH_MAX,
    VH_SHIFT,
    VH_Z,
    WIN,
    WIN_HALF,
    WIN_MIN,
    I8Array,
    I32Array,
    IntArray,
    State,
    U64Array,
    _box,
    _steps,
)
from engine.search._renju import is_forbidden
from engine.search._threats import (
    _check_limits,
    _defences,
    _defences43,
    _mk,
    _real_flex4,
    _scan,
    _sort,
    _stopping,
    _um,
    fives_one_stops,
    four_answers,
    threat_search,
    vcf_local,
)

# one hash of every kernel file (engine.search._jit), so numba recompiles all after a change
KERNELS_STAMP = "c36f9652438b6287"

# st = (b, cell, g, pt, ev, p4t, zob, hsh, ms, maybe, sc, tm, near, us, window table)
# sr = (ttk, ttv, killers, hist, mbuf, sbuf, pv, pvlen, tline, vttk, vttd, rootm, counter)


@njit_inline
def _network(g: IntArray, me: int, vme: int, vop: int) -> int:
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
        h += g[row + 2 * NP4] * vme + g[row + 2 * NP4 + 1] * vop
        if h > 0:
            acc += min(h, NET_HIDDEN_MAX) * g[row + NET_IN + 1]
    v = (acc >> (NET_SHIFT + NET_OUT_SHIFT)) + g[G_NET_OUT]
    return int(min(max(v, -NET_CLIP), NET_CLIP))


@njit_inline
def _value(g: IntArray, me: int) -> int:
    # the learned value head over the pooled features of the side to move's view
    # (tools/value.py's fit), in evaluation units: G_VH_SCALE a logit
    nf = g[G_VH_F]
    pool = G_VH_POOL + me * VH_MAX
    acc = 0
    for j in range(g[G_VH_H]):
        z = g[G_VH_B1 + j]
        for f in range(nf):
            z += g[pool + f] * g[G_VH_W1 + f * VH_HMAX + j]
        if z > 0:
            acc += (z >> VH_SHIFT) * g[G_VH_W2 + j]
    logit = acc + g[G_VH_B2]  # in units of 2 ** -VH_Z
    v = ((logit >> 10) * g[G_VH_SCALE]) >> (VH_Z - 10)
    return int(min(max(v, -NET_CLIP), NET_CLIP))


@njit_inline
def _tt_refined(g: IntArray, e: int, tthit: bool, tflag: np.int64, tscore: int) -> int:
    # the node's value for pruning by it: the static value, or the table's where it bounds the
    # node's value more tightly (G_TT_EVAL)
    if (
        g[G_TT_EVAL] != 0
        and tthit
        and abs(tscore) < WIN_MIN
        and (
            tflag == TT_EXACT
            or (tflag == TT_LOWER and tscore > e)
            or (tflag == TT_UPPER and tscore < e)
        )
    ):
        return tscore
    return e


@njit
def evaluate(g: IntArray, hsh: U64Array) -> int:
    """Static evaluation from the side to move's view (plus the level's noise, if any)."""
    me = g[G_SIDE] - 1
    if g[G_VH_F] > 0 and g[G_VH_ADD] == 0:
        v = _value(g, me)
    else:
        vme = g[G_VAL + me]
        vop = g[G_VAL + 1 - me]
        if g[G_EVAL_AVG] != 0:
            vme = (vme + g[G_PVAL + me]) >> 1
            vop = (vop + g[G_PVAL + 1 - me]) >> 1
        v = _network(g, me, vme, vop) if g[G_NET] > 0 else int((g[G_MINE] * vme - 4 * vop) // 4)
        if g[G_VH_F] > 0:
            v = min(max(v + _value(g, me), -NET_CLIP), NET_CLIP)
    amp = g[G_NOISE]
    if amp > 0:
        x = (hsh[0] ^ np.uint64(g[G_SEED])) * np.uint64(0x9E3779B97F4A7C15)
        v += int((x >> np.uint64(40)) % np.uint64(2 * amp + 1)) - amp
    return v


@njit_inline
def _policy(
    g: IntArray,
    cell: I32Array,
    wt: I32Array,
    me: int,
    op: int,
    p: int,
    nf: int,
    x0: int,
    x1: int,
    x2: int,
    wins: int,
) -> int:
    # the learned policy's score of an empty point p for the side to move (tools/mixnet.py's
    # u . relu(E[code0] + ... + E[code3] + E[x0] + E[x1] + E[x2] + W[w0] + ... + W[w3] + b),
    # the x rows its other inputs', ``_inputs``, the w its four windows packed in ``wins``,
    # ``_windows``, where the policy reads them), in units of 2 ** -(2 * POL_SHIFT) logits
    r0 = G_POL_E + (cell[p, R_PAT + me * 4] * NPAT + cell[p, R_PAT + op * 4]) * POL_MAX
    r1 = G_POL_E + (cell[p, R_PAT + me * 4 + 1] * NPAT + cell[p, R_PAT + op * 4 + 1]) * POL_MAX
    r2 = G_POL_E + (cell[p, R_PAT + me * 4 + 2] * NPAT + cell[p, R_PAT + op * 4 + 2]) * POL_MAX
    r3 = G_POL_E + (cell[p, R_PAT + me * 4 + 3] * NPAT + cell[p, R_PAT + op * 4 + 3]) * POL_MAX
    acc = 0
    if (g[G_POL_IN] & POL_WINDOW) != 0:
        # a loop of its own, so that a policy without windows reads no window rows
        w0 = wins & 0xFFFF
        w1 = (wins >> 16) & 0xFFFF
        w2 = (wins >> 32) & 0xFFFF
        w3 = (wins >> 48) & 0xFFFF
        for f in range(nf):
            h = g[G_POL_B + f] + g[r0 + f] + g[r1 + f] + g[r2 + f] + g[r3 + f]
            h += g[x0 + f] + g[x1 + f] + g[x2 + f]
            h += wt[w0, f] + wt[w1, f] + wt[w2, f] + wt[w3, f]
            if h > 0:
                acc += h * g[G_POL_U + f]
        return acc
    for f in range(nf):
        h = g[G_POL_B + f] + g[r0 + f] + g[r1 + f] + g[r2 + f] + g[r3 + f]
        h += g[x0 + f] + g[x1 + f] + g[x2 + f]
        if h > 0:
            acc += h * g[G_POL_U + f]
    return acc


@njit_inline
def _windows(g: IntArray, cell: I32Array, me: int, p: int) -> int:
    # p's four line windows (WIN_HALF points each side, two bits a point, from its line keys)
    # from the side to move's view, 16 bits each, packed into one number (0 where the policy
    # reads no windows): a line key holds 1 for Black, 2 for White and 3 off the board, so for
    # White to move the two sides' bits trade places
    if (g[G_POL_IN] & POL_WINDOW) == 0:
        return 0
    shift = 2 * (g[G_HALF] - WIN_HALF)
    wins = 0
    for d in range(4):
        w = (np.int64(cell[p, d]) >> shift) & 0xFFFF
        if me == 1:
            w = ((w & 0x5555) << 1) | ((w >> 1) & 0x5555)
        wins |= w << (16 * d)
    return wins


@njit_inline
def _last_two(g: IntArray, ms: IntArray) -> tuple[int, int]:
    # the last move and the one before (-1: none): the search's own, then the setup's
    n = g[G_NMOVES]
    if n >= 2:
        return ms[n - 1], ms[n - 2]
    if n == 1:
        return ms[0], g[G_PREV] - 1
    return g[G_PREV] - 1, g[G_PREV + 1] - 1


@njit_inline
def _distance(p: int, q: int, s: int) -> int:
    # the Chebyshev (king-move) distance between two points of a board of stride s
    return max(abs(p // s - q // s), abs(p % s - q % s))


@njit_inline
def _far(p: int, q: int, s: int) -> bool:
    # p more than four points from q; never from no move
    return q >= 0 and _distance(p, q, s) > 4


@njit_inline
def _near(p: int, q: int, s: int) -> int:
    # p's distance bucket to q (POL_DISTANCE): Chebyshev 1 .. POL_NEAR or more as 0 .. POL_NEAR - 1
    if q < 0:
        return POL_NEAR - 1
    return min(max(_distance(p, q, s), 1), POL_NEAR) - 1


@njit_inline
def _inputs(
    g: IntArray, cell: I32Array, p4t: I8Array, me: int, op: int, p: int, last: int, before: int
) -> tuple[int, int, int, int]:
    # the rows of p's other policy inputs (G_POL_Z where the policy has none), and what of them
    # the scores met must be keyed by beside p's two codes (its distance buckets)
    pin = g[G_POL_IN]
    x0 = G_POL_Z
    x1 = G_POL_Z
    x2 = G_POL_Z
    key = 0
    if (pin & POL_DISTANCE) != 0:
        s = g[G_S]
        d0 = _near(p, last, s)
        d1 = _near(p, before, s)
        x0 = G_POL_D + d0 * POL_MAX
        x1 = G_POL_D + (POL_NEAR + d1) * POL_MAX
        key = d0 * POL_NEAR + d1
    if (pin & POL_THREAT) != 0:
        x2 = (
            G_POL_T
            + (p4t[me, cell[p, R_CODE + me]] * NP4 + p4t[op, cell[p, R_CODE + op]]) * POL_MAX
        )
    return x0, x1, x2, key


@njit
def policy_scores(st: State, out: IntArray) -> None:
    """The policy's score (``_policy``) of every empty point for the side to move into
    ``out`` (indexed like the board; 0 elsewhere): for tests and tools."""
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    wt = st[14]
    me = g[G_SIDE] - 1
    last, before = _last_two(g, st[8])
    for p in range(b.shape[0]):
        if b[p] == 0:
            x0, x1, x2, _ = _inputs(g, cell, p4t, me, 1 - me, p, last, before)
            wins = _windows(g, cell, me, p)
            out[p] = _policy(g, cell, wt, me, 1 - me, p, g[G_POL], x0, x1, x2, wins)
        else:
            out[p] = 0


@njit
def _store_proof(st: State, sr: State, ply: int, score: int, move: int) -> None:
    # a proven win goes into the main table as a lower bound of any depth, so that no later
    # visit of this position (a deeper iteration, a transposition) searches it again
    ttk = sr[0]
    ttv = sr[1]
    h = st[7][0]
    g = st[2]
    slot = _tt_slot(ttk, ttv, h, g)
    ttk[slot] = h
    ttv[slot] = (
        (np.int64(_to_tt(score, ply)) << 32)
        | (np.int64(move + 1) << 16)
        | (np.int64(255) << 8)
        | (g[G_TT_GEN] << 3)
        | TT_LOWER
    )


@njit
def _tt_slot(ttk: U64Array, ttv: IntArray, h: np.uint64, g: IntArray) -> np.int64:
    # the entry that holds h, else the one a new entry for h replaces (G_TT_WAYS): with two
    # ways, the one less worth keeping, an entry losing 8 plies of its depth for each search
    # since it was written, so that a finished search's deep entries give way in time
    mask = np.uint64(ttk.shape[0] - 1)
    if g[G_TT_WAYS] < 2:
        return np.int64(h & mask)
    first = np.int64(h & (mask ^ np.uint64(1)))
    if ttk[first] == h:
        return first
    if ttk[first + 1] == h:
        return first + 1
    gen = g[G_TT_GEN]
    a = ttv[first]
    b = ttv[first + 1]
    worth_a = ((a >> 8) & 0xFF) - 8 * ((gen - ((a >> 3) & 31)) & 31)
    worth_b = ((b >> 8) & 0xFF) - 8 * ((gen - ((b >> 3) & 31)) & 31)
    return first if worth_a <= worth_b else first + 1


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
    wt = st[14]
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    buf = mbuf[ply]
    keys = sbuf[ply]
    restricted = False
    listed = False  # the candidates are a list of answers already
    if g[G_PURE] != 0:
        pass
    elif g[G_P4 + op * NP4 + P4_FIVE] > 0:
        n = four_answers(st, op, buf)
        restricted = True
    elif g[G_P4 + op * NP4 + P4_FLEX4] > 0 and _real_flex4(st, op, buf) > 0:
        n = _defences(st, me, buf)
        if g[G_DEFEND3] != 0 and g[G_RULE] == RULE_FREESTYLE:
            n = _stopping(st, me, buf, n, sbuf[ply])  # the keys are written after this
        restricted = True
    elif (
        g[G_DEFEND43] != 0
        and g[G_P4 + op * NP4 + P4_B4_F3] > 0
        and (g[G_RULE] != RULE_RENJU or op == 1 or g[G_DEFEND43_BLACK] != 0)
    ):
        n = _defences43(st, me, buf)
        listed = n > 0
        restricted = listed and g[G_DEFEND43] == 1
    if not restricted and not listed:
        s = g[G_S]
        n = 0
        y0, y1, x0, x1 = _box(g)
        for y in range(y0, y1 + 1):
            base = (y + PAD) * s + PAD
            for x in range(x0, x1 + 1):
                p = base + x
                if b[p] == 0 and near[p] > 0:
                    buf[n] = p
                    n += 1
    k0 = killers[ply, 0]
    k1 = killers[ply, 1]
    hrow = hist[me]
    nf = g[G_POL]
    last, before = _last_two(g, st[8])
    lift = g[G_KILLER_KEY] if nf > 0 else 0
    hkey = g[G_HIST_KEY] if nf > 0 else 0
    counter = -1
    if nf > 0 and g[G_COUNTER] > 0 and last >= 0:
        counter = sr[12][me, last] - 1  # the quiet move that last cut off after ``last``
    top = -INF << 20
    m = 0
    for i in range(n):
        p = buf[i]
        if side == 1 and g[G_RULE] == RULE_RENJU and is_forbidden(b, g, cell, maybe, p):
            continue
        if nf > 0:
            x0, x1, x2, near = _inputs(g, cell, p4t, me, op, p, last, before)
            wins = _windows(g, cell, me, p)
            ck = 1 + (cell[p, R_CODE + me] * NCODE4 + cell[p, R_CODE + op]) * POL_NEAR**2 + near
            hk = (ck ^ (wins * 0x2545F4914F6CDD1D)) * 0x9E3779B1
            slot = G_POL_CACHE + 3 * ((hk >> 16) & (POL_CACHE - 1))
            if g[slot] == ck and g[slot + 1] == wins:
                key = g[slot + 2]
            else:
                key = _policy(g, cell, wt, me, op, p, nf, x0, x1, x2, wins) >> POL_KEY_SHIFT
                g[slot] = ck
                g[slot + 1] = wins
                g[slot + 2] = key
            top = max(top, key)
        else:
            key = sc[me, cell[p, R_CODE + me]] + (sc[op, cell[p, R_CODE + op]] * 3) // 4
        if p == ttmove:
            key += 1 << 28
        elif p == k0:
            key += lift if lift > 0 else 1 << 20
        elif p == k1:
            key += lift >> 1 if lift > 0 else 1 << 19
        elif p == counter:
            key += g[G_COUNTER]
        if hkey > 0:
            key += (max(min(hrow[p], 1 << 16), -(1 << 16)) * hkey) >> 16
        else:
            key += min(hrow[p], 1 << 16) >> 6
        buf[m] = p
        keys[m] = key
        m += 1
    g[G_POL_TOP] = top
    return m, restricted


NOT_LEAF = -INF - 1  # _static: the node must be searched
# G_PRUNE_SAFE 2: the value of a node whose searched moves all lose by force while it skipped
# others: below every evaluation, above every proven loss, and no mate score (so the table
# keeps it as it is and no search stops on it as on a proof)
UNPROVEN = -(WIN_MIN - 1)


@njit_inline
def _no_win_pending(g: IntArray, ci: int) -> bool:
    # side ci (0 Black, 1 White) has no five to make, no open three, no four-three and no
    # double three: nothing it threatens to win with
    base = G_P4 + ci * NP4
    return bool(
        g[base + P4_F3_F3] == 0
        and g[base + P4_B4_F3] == 0
        and g[base + P4_FLEX4] == 0
        and g[base + P4_FIVE] == 0
    )


@njit_inline
def _calm(g: IntArray) -> bool:
    # no win pending for either side: no five to block or make, no point that makes a straight
    # four (an open three on the board), a four-three or a double three; the static value of
    # such a position says little, so the selective cuts leave it to the full search
    return _no_win_pending(g, 0) and _no_win_pending(g, 1)


@njit_inline
def _null_safe(g: IntArray, op: int) -> bool:
    # whether the side to move may pass (null-move pruning): the opponent threatens no win.
    # Against a five to make, an open three, a four-three or a double three a pass loses at
    # once, so the null search would only say so, late
    return _no_win_pending(g, op)


@njit_inline
def _tactical(cell: I32Array, p4t: I8Array, me: int, op: int, p: int, kept: int) -> bool:
    # what late-move pruning never skips: our five, four or open three, and the points where
    # the opponent would make a five or a four (the blocks of their fours and threes); with
    # G_KEPT 1 only our five or four
    if kept == 1:
        return bool(p4t[me, cell[p, R_CODE + me]] >= P4_B4)
    return bool(p4t[me, cell[p, R_CODE + me]] >= P4_F3 or p4t[op, cell[p, R_CODE + op]] >= P4_B4)


@njit_inline
def _flex4_wins(st: State, me: int, op: int, buf: IntArray) -> bool:
    # the side to move can make a straight four and the opponent has no four to make first:
    # a five next move that cannot be stopped (``buf``: scratch for the points)
    g = st[2]
    if g[G_P4 + me * NP4 + P4_FLEX4] == 0:
        return False
    for c4 in range(P4_B4, NP4):
        if g[G_P4 + op * NP4 + c4] > 0:
            return False
    return _real_flex4(st, me, buf) > 0


@njit
def qvcf(st: State, sr: State, alpha: int, beta: int, ply: int, last: int, fours: int) -> int:
    """A leaf's value for the side to move, fail-soft within (``alpha``, ``beta``): its static
    value, or more through a line of its own fours, each answered by the forced block (Rapfi's
    quiescence over fours). At most ``fours`` of them; each within two points of the side's
    previous stone ``last`` or four points along its lines (-1: anywhere), the first two any
    four, the later ones a four that makes more. Where the block makes a four in turn, the side
    blocks it, on only if its block is a four as well."""
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
    if g[G_NODES] >= g[G_NEXT_CHECK]:
        _check_limits(g, tm)
    if g[G_STOP] != 0:
        return 0
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    if g[G_P4 + me * NP4 + P4_FIVE] > 0:
        return WIN - ply
    if ply > g[G_SELDEPTH]:
        g[G_SELDEPTH] = ply
    opfive = g[G_P4 + op * NP4 + P4_FIVE]
    if opfive >= 2:
        if not fives_one_stops(st, op):
            return -(WIN - ply - 1)
        return evaluate(g, hsh)  # caro: one block stops both; no line of fours is followed
    if ply >= MAX_PLY - 4:
        return evaluate(g, hsh)
    renju = g[G_RULE] == RULE_RENJU
    buf = mbuf[ply]
    keys = sbuf[ply]
    if opfive == 1:
        # the block is forced; a quiet one ends the line with the opponent to move
        n = four_answers(st, op, buf)
        if n == 0:
            return -(WIN - ply - 1)
        if n > 1:
            return evaluate(g, hsh)  # caro: the point past the five stops it too
        q = buf[0]
        if side == 1 and renju and is_forbidden(b, g, cell, maybe, q):
            return -(WIN - ply - 1)
        if fours <= 0 or p4t[me, cell[q, R_CODE + me]] < P4_B4:
            _mk(st, q)
            v = -evaluate(g, hsh)
            _um(st)
            return v
        best = -INF
        n = 1
    else:
        if _flex4_wins(st, me, op, buf):
            return WIN - ply - 3
        best = evaluate(g, hsh)
        if best >= beta or fours <= 0:
            return best
        if beta - alpha == 1 and g[G_QVCF_DELTA] > 0 and best + g[G_QVCF_DELTA] <= alpha:
            return alpha  # no line of fours is likely to lift it that far
        if best > alpha:
            alpha = best
        least = P4_B4 if g[G_QVCF] - fours < 2 else P4_B4_PLUS
        n = 0
        if last < 0:
            m = _scan(b, cell, g, p4t, me, P4_B4, buf)
            for i in range(m):
                if p4t[me, cell[buf[i], R_CODE + me]] >= least:
                    buf[n] = buf[i]
                    n += 1
        else:
            s = g[G_S]
            sts = _steps(s)
            for d in range(4):
                for k in range(-4, 5):
                    q = last + k * sts[d]
                    if k != 0 and b[q] == 0 and p4t[me, cell[q, R_CODE + me]] >= least:
                        buf[n] = q
                        n += 1
            for dy in range(-2, 3):
                for dx in range(-2, 3):
                    if abs(dy) + abs(dx) == 3:  # the square's points off the four lines
                        q = last + dy * s + dx
                        if b[q] == 0 and p4t[me, cell[q, R_CODE + me]] >= least:
                            buf[n] = q
                            n += 1
        for i in range(n):
            keys[i] = sc[me, cell[buf[i], R_CODE + me]] + sc[op, cell[buf[i], R_CODE + op]] // 2
        _sort(buf, keys, n)
    for i in range(n):
        p = buf[i]
        if side == 1 and renju and is_forbidden(b, g, cell, maybe, p):
            continue
        _mk(st, p)
        nf = g[G_P4 + me * NP4 + P4_FIVE]
        if nf >= 2 and not fives_one_stops(st, me):
            v = WIN - ply - 2
        elif nf == 1 and four_answers(st, me, mbuf[ply + 1]) > 1:
            v = -evaluate(g, hsh)  # caro: the point past the five stops it too
        elif nf == 1:
            # the opponent had no five (or just lost its only one), so it must block ours
            dbuf = mbuf[ply + 1]
            q = dbuf[0]  # the one answer, which four_answers wrote there in the test above
            if side == 2 and renju and is_forbidden(b, g, cell, maybe, q):
                v = WIN - ply - 2
            else:
                _mk(st, q)
                v = qvcf(st, sr, alpha, beta, ply + 2, p, fours - 1)
                _um(st)
        else:
            v = -evaluate(g, hsh)
        _um(st)
        if g[G_STOP] != 0:
            return 0
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return best


@njit_inline
def _corr_slot(st: State, g: IntArray, table: int, me: int) -> int:
    # the entry of correction table ``table`` (G_CORR) for the node, in g
    if table == 0:
        # both sides' counts of threes and fours, the side to move's first, each up to 7
        h = np.uint64(0)
        for side in (me, 1 - me):
            for c in range(P4_F3, P4_FIVE):
                h = h * np.uint64(8) + np.uint64(min(g[G_P4 + side * NP4 + c], 7))
    else:
        last, before = _last_two(g, st[8])
        h = np.uint64(last + 1)
        if table == 2:
            h = h * np.uint64(4099) + np.uint64(before + 1)
    i = int((h * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(52)) & (CORR_N - 1)
    return G_CORR_T + (table * 2 + me) * CORR_N + i


@njit_inline
def _corrected(st: State, g: IntArray, hsh: U64Array) -> int:
    # the static value, corrected by the correction history's tables (G_CORR)
    v = evaluate(g, hsh)
    bits = g[G_CORR]
    if bits == 0:
        return v
    me = g[G_SIDE] - 1
    c = 0
    for t in range(3):
        if (bits >> t) & 1:
            c += g[_corr_slot(st, g, t, me)]
    return v + c // CORR_UNIT


@njit_inline
def _corr_update(st: State, g: IntArray, depth: int, diff: int) -> None:
    # the named tables' entries move together a share of the way from the corrected value to
    # the searched one: G_CORR_RATE 256ths a ply of depth, at most 8 plies and the whole way
    bits = g[G_CORR]
    me = g[G_SIDE] - 1
    top = g[G_CORR_LIMIT] * CORR_UNIT
    d = min(max(diff, -g[G_CORR_LIMIT]), g[G_CORR_LIMIT])
    tables = (bits & 1) + (bits >> 1 & 1) + (bits >> 2 & 1)
    step = d * CORR_UNIT * min(min(depth, 8) * g[G_CORR_RATE], 256) // (256 * tables)
    for t in range(3):
        if (bits >> t) & 1:
            i = _corr_slot(st, g, t, me)
            g[i] = min(max(g[i] + step, -top), top)


@njit_inline
def _static(st: State, sr: State, depth: int, ply: int, alpha: int, beta: int) -> int:
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
    if opfive >= 2 and not fives_one_stops(st, op):
        return -(WIN - ply - 1)
    if opfive == 0 and depth <= 0:
        if _flex4_wins(st, me, op, mbuf[ply]):
            return WIN - ply - 3
        vd = g[G_VCF_DEPTH]
        if vd > 0:
            nb4 = 0
            for c4 in range(P4_B4, NP4):
                nb4 += g[G_P4 + me * NP4 + c4]
            if nb4 > 0:
                dv = g[G_DEEP_VCF]
                if dv > 0 or g[G_QVCF] > 0:
                    # a win only matters below beta: above it the evaluation cuts off as well
                    # (a fail-soft bound)
                    v = _corrected(st, g, hsh)
                    if v >= beta:
                        return v
                    if dv > 0:
                        before = g[G_NODES]
                        plies = vcf_local(st, sr, dv, ply, -g[G_ONE])
                        g[G_PROBE_NODES] += g[G_NODES] - before
                        if plies > 0:
                            _store_proof(st, sr, ply, WIN - ply - plies, sr[8][ply])
                            return WIN - ply - plies
                    if g[G_QVCF] > 0:
                        # after the probe, from the side's last stone; in its place, from any four
                        mine = -g[G_ONE]
                        if dv > 0:
                            _, mine = _last_two(g, st[8])
                        before = g[G_NODES]
                        v = qvcf(st, sr, alpha, beta, ply, mine, g[G_QVCF])
                        g[G_PROBE_NODES] += g[G_NODES] - before
                    return v  # the probe put every stone back: the same position's value
                else:
                    before = g[G_NODES]
                    won = threat_search(st, sr, side, vd, vd < 0, ply)
                    g[G_PROBE_NODES] += g[G_NODES] - before
                    if won:
                        return int(WIN - ply - 2 * vd - 1)
        return _corrected(st, g, hsh)
    return NOT_LEAF


@njit_inline
def _late_or_cut(i: int, late: int, key: int, cut: int) -> bool:
    # the move at place i, keyed ``key``, is one late-move pruning or the policy's cut would
    # skip, unless it is kept (``_tactical``)
    return i >= late or (i > 0 and key < cut)


@njit_inline
def _history(hist: IntArray, me: int, p: int, bonus: int) -> None:
    # G_HIST_MALUS: a bonus (or, negative, a malus) moves the value less the nearer it already
    # is to +-65,536 in the bonus's direction, so that it stays within them and still follows
    # the latest cut-offs
    h = hist[me, p]
    hist[me, p] = h + bonus - (h * abs(bonus) >> 16)


@njit_inline
def _late(depth: int, i: int, scale: int) -> float:
    # the plies a quiet move at place i of a node at ``depth`` loses, ``scale`` in hundredths
    return math.log(depth) * math.log(i + 1) * scale / 100


@njit_inline
def _reduction(
    cell: I32Array, p4t: I8Array, me: int, op: int, p: int, depth: int, i: int, scale: int
) -> float:
    # SEL_LMR: the plies a late move loses, before the node's own adjustments. A move that
    # makes a four is never reduced (the reply is forced, so its line is cheap and decisive);
    # one that makes an open three or takes the opponent's three point loses a ply less
    own = p4t[me, cell[p, R_CODE + me]]
    if own >= P4_B4:
        return 0.0
    r = _late(depth, i, scale)
    if own >= P4_F3 or p4t[op, cell[p, R_CODE + op]] >= P4_F3:
        r -= 1.0
    return r


@njit_inline
def _reduced(depth: int, debt: int, quarters: int) -> tuple[int, int]:
    # A child searched ``quarters`` quarter plies short of ``depth`` whole plies less the
    # ``debt`` quarters its parent owes: its whole plies rounded up, never below one, and
    # the quarters the rounding added, which it owes in turn
    left = max(depth * 4 - debt - quarters, 4)
    plies = (left + 3) >> 2
    return plies, plies * 4 - left


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
    value = _static(st, sr, depth, ply, alpha, beta)
    if value != NOT_LEAF:
        return value
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    opfive = 0 if g[G_PURE] != 0 else g[G_P4 + op * NP4 + P4_FIVE]
    debt = g[G_DEBT + ply] if g[G_LMR_QUARTERS] != 0 else 0  # quarter plies this node owes
    # G_FOUR_EXT: the answers to fours made on the way here, this node's own counted, and
    # whether this answer is the one of every K that gains a ply
    fourext = False
    if g[G_FOUR_EXT] > 0:
        fours = g[G_FOURS + ply]
        if opfive > 0:
            fours += 1
            fourext = fours % g[G_FOUR_EXT] == 0
        g[G_FOURS + ply + 1] = fours
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
    slot = _tt_slot(ttk, ttv, h, g)
    ttmove = -1
    # a move excluded here (a singular-extension probe of this very node, below): the table's
    # entry is the node's own, so it may not cut the probe off, and the probe stores nothing
    skip = g[G_SKIP + ply] - 1
    tthit = False
    tdepth = np.int64(0)
    tflag = np.int64(0)
    tscore = 0
    ttpv = beta - alpha > 1 and g[G_LMR_TTPV] > 0  # on the PV now or before (G_LMR_TTPV)
    if ttk[slot] == h:
        tthit = True
        data = ttv[slot]
        if (data & TT_PV) != 0:
            ttpv = True
        ttmove = int((data >> 16) & 0xFFFF) - 1
        tdepth = np.int64((data >> 8) & 0xFF)
        tflag = np.int64(data & 0x3)
        tscore = _from_tt(int(data >> 32), ply)
        # a proven result holds at any window (SEL_MATE): a PV node may take it as well
        if skip < 0 and tdepth >= depth and (beta - alpha == 1 or (mate and abs(tscore) > WIN_MIN)):
            if tflag == TT_EXACT:
                return tscore
            if tflag == TT_LOWER and tscore >= beta:
                return tscore
            if tflag == TT_UPPER and tscore <= alpha:
                return tscore
    calm = False
    if select != 0 and opfive == 0 and beta - alpha == 1:
        calm = _calm(g)
    # the node's static value, once asked for (NOT_LEAF: not yet); every search below that
    # returns here puts the position back as it was
    e = NOT_LEAF
    if (
        not calm
        and g[G_FUT_OWN] > 0
        and (select & SEL_FUTILITY) != 0
        and opfive == 0
        and beta - alpha == 1
        and depth <= g[G_FUT_DEPTH]
        and _no_win_pending(g, op)
    ):
        # only the side to move threatens: far above beta it stays there (reverse futility)
        e = _tt_refined(g, _corrected(st, g, hsh), tthit, tflag, tscore) if e == NOT_LEAF else e
        if e - g[G_FUTILITY] * depth >= beta:
            return e
    if calm and (select & SEL_FUTILITY) != 0 and depth <= g[G_FUT_DEPTH]:
        # far above beta, a quiet position stays there (reverse futility); far below alpha,
        # only a threat could save it, and the leaf's own VCF probe looks for one (razoring)
        e = _tt_refined(g, _corrected(st, g, hsh), tthit, tflag, tscore) if e == NOT_LEAF else e
        if e - g[G_FUTILITY] * depth >= beta:
            return e
        razor = g[G_RAZOR_ROOT] if (ply & 1) == 0 else g[G_RAZOR]
        if e + razor * depth <= alpha:
            v = _static(st, sr, 0, ply, alpha, beta)
            if v <= alpha:
                return v
    if (
        g[G_NULL] > 0
        and skip < 0
        and beta - alpha == 1
        and depth >= g[G_NULL_DEPTH]
        and g[G_NULL_PLY] != ply
        and g[G_PURE] == 0
        and abs(beta) < WIN_MIN
        and _null_safe(g, op)
        and evaluate(g, hsh) >= beta
    ):
        # null-move pruning: a quiet position whose static value is above beta, where even a
        # pass keeps the opponent below it at a reduced depth, is taken to fail high. The pass
        # toggles the side to move and the hash's side key; the ply parity of killers and
        # history stays the real game's, and the null child's table entries are the true
        # values of the position with the other side to move
        zob = st[6]
        saved = g[G_NULL_PLY]
        g[G_NULL_PLY] = ply + 1  # the null child may not pass back
        g[G_NULLS] += 1
        g[G_NODES] += 1
        g[G_SIDE] = 3 - side
        hsh[0] ^= zob[2, 0]
        g[G_DEBT + ply + 1] = debt
        v = -alphabeta(st, sr, depth - 1 - g[G_NULL], -beta, -beta + 1, ply + 1)
        g[G_SIDE] = side
        hsh[0] ^= zob[2, 0]
        g[G_NULL_PLY] = saved
        if g[G_STOP] != 0:
            return 0
        if v >= beta:
            g[G_NULL_CUTS] += 1
            if v > WIN_MIN:
                v = beta  # a pass proves nothing: never a mate score from it
            slot = _tt_slot(ttk, ttv, h, g)  # the search below may have filled the pair
            ttk[slot] = h
            ttv[slot] = (
                (np.int64(v) << 32)
                | (np.int64(ttmove + 1) << 16)
                | (np.int64(min(depth, 255)) << 8)
                | (g[G_TT_GEN] << 3)
                | TT_LOWER
            )
            return v
    if (
        ttmove < 0
        and skip < 0
        and g[G_IIR] > 0
        and depth >= g[G_IIR]
        and opfive == 0
        and g[G_PURE] == 0
    ):
        # internal iterative reduction: with no move from the table the order is a guess, so
        # the node is searched a ply shallower (a later visit finds this search's best move)
        depth -= 1
    improving = True
    if g[G_LMP_IMPROVE] > 0 or g[G_LMR_IMPROVE] > 0:
        # the static value here against two plies before (after a five threat, the value before
        # it, turned): where it has not risen, fewer quiet moves are worth a look
        if opfive > 0 and ply - 1 >= g[G_ONE]:
            g[G_SEVAL + ply] = -g[G_SEVAL + ply - 1]
        else:
            g[G_SEVAL + ply] = evaluate(g, hsh)
        if ply - 2 >= g[G_ONE]:
            improving = g[G_SEVAL + ply] > g[G_SEVAL + ply - 2]
    singular = False
    if (
        g[G_SE_DEPTH] > 0
        and skip < 0
        and ttmove >= 0
        and depth >= g[G_SE_DEPTH]
        and opfive == 0
        and g[G_PURE] == 0
        and tthit
        and TT_EXACT <= tflag <= TT_LOWER  # a lower bound or exact
        and tdepth >= depth - 2
        and abs(tscore) < WIN_MIN
    ):
        # singular extension: the table's move failed high here before; if every other move
        # stays below its score less a margin at half the depth, it is the only move and is
        # searched a ply deeper. If another move clears that bar above beta too, the node fails
        # high without it (multi-cut). The probe runs before this node's own list is made: it
        # uses the same ply's buffers
        sbeta = int(tscore - g[G_SE_MARGIN] * depth)
        g[G_SKIP + ply] = ttmove + 1
        sv = alphabeta(st, sr, (depth - 1) // 2, sbeta - 1, sbeta, ply)
        g[G_SKIP + ply] = 0
        pvlen[ply] = ply
        if g[G_STOP] != 0:
            return 0
        if sv < sbeta:
            singular = True
        elif sbeta >= beta:
            return sbeta
    if (
        g[G_PV_TT_RED] > 0
        and beta - alpha > 1
        and skip < 0
        and ttmove >= 0
        and depth > 1
        and tdepth < depth
        and opfive == 0
    ):
        # a PV node whose table move comes from a shallower search: a line new to the PV, not
        # yet worth its full depth (G_PV_TT_RED)
        depth -= min((depth - tdepth) * g[G_PV_TT_RED] // 100, 3, depth - 1)
    n, restricted = _generate(st, sr, ply, ttmove)
    if n == 0:
        if g[G_P4 + op * NP4 + P4_FIVE] > 0 or restricted:
            return -(WIN - ply - 1)  # every answer is forbidden (renju) or none exists
        return 0  # the board is full
    n_all = n
    cut = -INF << 24  # keys below this are quiet moves the policy rules out
    ptop = g[G_POL_TOP]  # the children's _generate overwrites it
    pred = g[G_POL_RED]
    cutwidth = g[G_POL_CUT]
    if g[G_POL_CUT_LOW] > 0 and depth <= 2:
        cutwidth = g[G_POL_CUT_LOW]  # near the horizon a tighter cut
    if g[G_POL_CUT_OPP] > 0 and (ply & 1) == 1:
        cutwidth = g[G_POL_CUT_OPP]  # the root's opponent's moves
    high = g[G_POL_CUT_HIGH] > 0 and depth >= g[G_POL_CUT_HIGH]
    if cutwidth > 0 and not restricted and opfive == 0 and not high:
        cut = ptop - cutwidth
    width = g[G_WIDTH]
    if width > 0 and not restricted and n > width and not high:
        n = width
    # G_PRUNE_SAFE 1: no move is skipped, past the width or by the pruning below, while every
    # move searched so far loses by force; 2: moves are skipped as ever, but a node that skipped
    # any is never called lost by force (``unproven``, below)
    safe = g[G_PRUNE_SAFE] == 1
    capped = g[G_PRUNE_SAFE] == 2
    skipped = n < n_all
    nloop = n_all if safe else n
    late = n
    if (select & SEL_LMP) != 0 and not restricted and opfive == 0:
        grow = depth * depth
        if g[G_LMP_POW] > 0:
            grow = int(depth ** (g[G_LMP_POW] / 100))
        late = (g[G_POL_LMP] if g[G_POL_LMP] > 0 else g[G_LMP]) + grow
        if not improving:
            late = max(late * g[G_LMP_IMPROVE] // 100, 1)
    buf = mbuf[ply]
    keys = sr[5][ply]
    best = -INF
    bestmove = buf[0]
    alpha0 = alpha
    newdepth = depth if opfive > 0 else depth - 1
    if fourext:
        newdepth += 1
    # G_FH_RED: far above beta this node will most likely fail high, so its moves are searched
    # a ply shallower, but for the fours that keep the initiative
    fhred = (
        g[G_FH_RED] > 0
        and beta - alpha == 1
        and opfive == 0
        and depth >= 2
        and skip < 0
        and abs(beta) < WIN_MIN
        and (_tt_refined(g, _corrected(st, g, hsh), tthit, tflag, tscore) if e == NOT_LEAF else e)
        >= beta + g[G_FH_RED] * depth
    )
    lmr = (select & SEL_LMR) != 0 and not restricted and newdepth >= 2
    lmrscale = g[G_LMR_OPP] if g[G_LMR_OPP] > 0 and (ply & 1) == 1 else g[G_LMR]
    pvnode = beta - alpha > 1
    k0 = killers[ply, 0]
    k1 = killers[ply, 1]
    keptmode = g[G_KEPT]
    trivial = g[G_TRIVIAL] > 0 and depth <= g[G_TRIVIAL] and not restricted and opfive == 0
    # G_DISTRACT: the answers to an open three that only delay it, far from the last two moves
    distract = 0
    dlast = -1
    dbefore = -1
    if (
        g[G_DISTRACT] != 0
        and restricted
        and opfive == 0
        and g[G_P4 + op * NP4 + P4_FLEX4] > 0
        and g[G_RULE] != RULE_RENJU
    ):
        distract = g[G_DISTRACT]
        dlast, dbefore = _last_two(g, st[8])
    # the moves late-move pruning would still search (_tactical) among those not yet picked,
    # counted at the first move it skips (-1: not yet): once none is left, every later pick
    # would be skipped as well, so the loop ends there
    tleft = -1
    for i in range(nloop):
        if i >= n and best > -WIN_MIN:
            break  # past the width, once a move has not lost
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
        kept = _tactical(cell, p4t, me, op, p, keptmode)
        if kept and tleft > 0:
            tleft -= 1
        if p == skip:
            continue  # the move a singular-extension probe leaves out
        if _late_or_cut(i, late, kt, cut) and not kept and (not safe or best > -WIN_MIN):
            # SEL_LMP: a late quiet move near the horizon, or one the policy rules out. Every
            # later pick is as late and keyed no higher, so only the kept moves remain to search
            if tleft < 0:
                tleft = 0
                for j in range(i + 1, n_all):
                    if _tactical(cell, p4t, me, op, buf[j], keptmode):
                        tleft += 1
            skipped = True
            if tleft == 0:
                break
            continue
        if (
            trivial
            and i > 0
            and best > -WIN_MIN
            and p4t[me, cell[p, R_CODE + me]] == P4_NONE
            and p4t[op, cell[p, R_CODE + op]] == P4_NONE
        ):
            skipped = True
            continue  # G_TRIVIAL: near the horizon a move that makes nothing for either side
        far = 0
        if distract != 0 and i > 0 and p4t[op, cell[p, R_CODE + op]] < P4_B4:
            fl = _far(p, dlast, g[G_S])
            fb = _far(p, dbefore, g[G_S])
            if fl and fb and depth <= 4 and (distract & 1) != 0:
                skipped = True
                continue
            if (distract & 2) != 0:
                far = (2 if fl else 0) + (1 if fb else 0)
        nd = newdepth + 1 if singular and p == ttmove else newdepth
        if fhred and p4t[me, cell[p, R_CODE + me]] < P4_B4:
            nd -= 1
        _mk(st, p)
        leaf = NOT_LEAF
        if nd <= 0:
            g[G_LEAF_NODES] += 1
            pvlen[ply + 1] = ply + 1
            leaf = _static(st, sr, nd, ply + 1, -beta, -alpha)
        if leaf != NOT_LEAF:
            v = -leaf  # exact: no re-search
        elif i == 0:
            g[G_DEBT + ply + 1] = debt
            v = -alphabeta(st, sr, nd, -beta, -alpha, ply + 1)
        else:
            r = 0
            owed = debt
            if lmr:
                x = _reduction(cell, p4t, me, op, p, depth, i, lmrscale)
                if g[G_LMR_FOUR] > 0 and P4_B4 <= p4t[me, cell[p, R_CODE + me]] <= P4_B4_PLUS:
                    # G_LMR_FOUR: a plain four reduced by a share of a quiet move's plies
                    x = _late(depth, i, lmrscale) * g[G_LMR_FOUR] / 100
                if pvnode:
                    x -= 1.0
                elif not improving and x > 1.0 and g[G_LMR_IMPROVE] > 0:
                    x += g[G_LMR_IMPROVE] / 100  # G_LMR_IMPROVE: the value has not risen
                if p in (k0, k1):
                    x -= 1.0
                if ttpv:
                    x -= g[G_LMR_TTPV] / 100
                if g[G_LMR_GAP] > 0 and ptop > kt and kt < 1 << 19 and x > 0.0:
                    # the policy's distance below the best candidate, in logits (4,096 keys)
                    x += g[G_LMR_GAP] * (ptop - kt) / (100 * 4096)
                if g[G_LMR_QUARTERS] != 0:
                    q = int(x * 4.0 + 0.5)
                    if q > 0:
                        plies, owed = _reduced(nd, debt, q)
                        r = nd - plies
                elif x >= 1.0:
                    r = min(int(x), nd - 1)  # never below depth 1: moves, not a leaf
            elif pred > 0:
                if depth >= 2 and not tactical and not restricted and kt < 1 << 19:
                    r = max(min((ptop - kt) // pred, 2, nd - 1), 0)
            elif depth >= 3 and i >= 4 and not tactical and not restricted:
                r = 1 if i < 12 else 2
            if far > 0:
                r = max(r, min(far, nd - 1))
            g[G_DEBT + ply + 1] = owed
            v = -alphabeta(st, sr, nd - r, -alpha - 1, -alpha, ply + 1)
            if r > 0 and pvnode and v > alpha and g[G_LMR_VERIFY] != 0 and g[G_STOP] == 0:
                g[G_DEBT + ply + 1] = debt
                v = -alphabeta(st, sr, nd, -alpha - 1, -alpha, ply + 1)
                r = 0
            if (
                r > 0
                and g[G_LMR_DEEPER] > 0
                and alpha + g[G_LMR_DEEPER] <= v < WIN_MIN
                and ply < MAX_PLY // 2
            ):
                nd += 1  # far above alpha at the reduced depth: worth a ply more than in full
            if v > alpha and (r > 0 or v < beta):
                g[G_DEBT + ply + 1] = debt
                v = -alphabeta(st, sr, nd, -beta, -alpha, ply + 1)
        _um(st)
        if g[G_STOP] != 0:
            return 0
        if v > best:
            best = v
            bestmove = p
            if v > alpha:
                alpha = v
                pv[ply, ply] = p
                if (
                    (g[G_ALPHA_RED] & 1) != 0
                    and v < beta
                    and 2 < depth < 12
                    and -WIN_MIN < v < WIN_MIN
                ):
                    # G_ALPHA_RED: a move has raised alpha, so the rest need only be refuted,
                    # and a ply less shows that as well
                    depth -= 1
                    newdepth -= 1
                for j in range(ply + 1, pvlen[ply + 1]):
                    pv[ply, j] = pv[ply + 1, j]
                pvlen[ply] = max(pvlen[ply + 1], ply + 1)
                if v >= beta:
                    if not tactical and killers[ply, 0] != p:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = p
                    if not tactical and g[G_COUNTER] > 0:
                        last, _ = _last_two(g, st[8])
                        if last >= 0:
                            sr[12][me, last] = p + 1
                    if g[G_HIST_MALUS] != 0:
                        _history(hist, me, p, depth * depth)
                        for j in range(i):
                            q = buf[j]
                            if q == skip:
                                continue
                            if _late_or_cut(j, late, keys[j], cut) and not _tactical(
                                cell, p4t, me, op, q, keptmode
                            ):
                                continue  # skipped, not searched
                            _history(hist, me, q, -depth * depth)
                    else:
                        hist[me, p] += depth * depth
                    break
    if capped and skipped and best <= -WIN_MIN:
        # G_PRUNE_SAFE 2: every move searched loses, but a skipped one might not: lost by the
        # search's judgement, not by proof (the worst value short of a proven loss)
        best = UNPROVEN
    if skip >= 0:
        return best  # a probe's value is not the node's: the table keeps the node's own
    if (
        g[G_CORR] != 0
        and opfive == 0
        and not restricted
        and UNPROVEN < best < WIN_MIN
        and p4t[me, cell[bestmove, R_CODE + me]] < P4_B4
    ):
        # correction history: where the searched value bounds the node's value on the side
        # away from its corrected static value, the tables learn the difference (a four's
        # line, a forced answer or a proof says nothing of the static value's error)
        cs = _corrected(st, g, hsh) if e == NOT_LEAF or g[G_TT_EVAL] != 0 else e
        if not (best <= alpha0 and best >= cs) and not (best >= beta and best <= cs):
            _corr_update(st, g, depth, best - cs)
    flag = TT_EXACT
    if best <= alpha0:
        flag = TT_UPPER
    elif best >= beta:
        flag = TT_LOWER
    if ttpv:
        flag |= TT_PV
    slot = _tt_slot(ttk, ttv, h, g)  # the search below may have filled the pair
    ttk[slot] = h
    ttv[slot] = (
        (np.int64(_to_tt(best, ply)) << 32)
        | (np.int64(bestmove + 1) << 16)
        | (np.int64(min(depth, 255)) << 8)
        | (g[G_TT_GEN] << 3)
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
    g[G_DEBT + g[G_ONE]] = 0
    g[G_FOURS + g[G_ONE]] = 0
    cell = st[1]
    p4t = st[5]
    me = side - 1
    # G_ROOT_LMR: late root moves are searched shallower first, as inside the tree, a ply
    # less than there for the root's PV window, never one that makes a four
    rootlmr = g[G_ROOT_LMR] if (g[G_SELECT] & SEL_LMR) != 0 and not opfive else 0
    for i in range(n):
        p = rootm[i]
        r = 0
        if rootlmr > 0 and i >= 2 and newdepth >= 2:
            x = _reduction(cell, p4t, me, 1 - me, p, depth, i, rootlmr) - 1.0
            if x >= 1.0:
                r = min(int(x), newdepth - 1)
        _mk(st, p)
        if i == 0:
            v = -alphabeta(st, sr, newdepth, -beta, -alpha, g[G_ONE])
        else:
            v = -alphabeta(st, sr, newdepth - r, -alpha - 1, -alpha, g[G_ONE])
            if r > 0 and v > alpha and g[G_STOP] == 0:
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
                if (
                    (g[G_ALPHA_RED] & 2) != 0
                    and v < beta
                    and 2 < depth < 12
                    and -WIN_MIN < v < WIN_MIN
                ):
                    depth -= 1  # G_ALPHA_RED at the root: the later moves a ply shallower
                    newdepth -= 1
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
