"""The board state's kernels: filling the pattern rows for a board, and playing and taking
back a stone with every pattern, threat count and running value kept up to date
(the layout is ``engine.search._layout``'s)."""

from __future__ import annotations

import numpy as np

from engine.search._jit import njit, njit_inline
from engine.search._layout import (
    G_COLS,
    G_H,
    G_HALF,
    G_NMOVES,
    G_NODES,
    G_P4,
    G_PVAL,
    G_PVAL0,
    G_ROWS,
    G_S,
    G_SIDE,
    G_VAL,
    G_VAL_W,
    G_VH_B,
    G_VH_E,
    G_VH_F,
    G_VH_POOL,
    G_W,
    NP4,
    NPAT,
    PAD,
    R_CODE,
    R_PAT,
    R_VH,
    U_COUNT,
    U_POINTS,
    U_SUMS,
    VH_MAX,
    I8Array,
    I32Array,
    IntArray,
    U8Array,
    U64Array,
    _shift,
    _steps,
)

# one hash of every kernel file (engine.search._jit), so numba recompiles all after a change
KERNELS_STAMP = "c36f9652438b6287"


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
                    pat = pt[key, ci]
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
    g[G_PVAL] = g[G_VAL]
    g[G_PVAL + 1] = g[G_VAL + 1]
    g[G_PVAL0] = g[G_VAL]
    g[G_PVAL0 + 1] = g[G_VAL + 1]
    for i in range(2 * VH_MAX):
        g[G_VH_POOL + i] = 0
    nf = g[G_VH_F]
    if nf > 0:
        for y in range(h):
            for x in range(w):
                p = (y + PAD) * s + x + PAD
                t0 = ev[0, cell[p, R_CODE]] & 15
                t1 = ev[1, cell[p, R_CODE + 1]] & 15
                for side in range(2):
                    other = 1 - side
                    pair = t0 * NP4 + t1 if side == 0 else t1 * NP4 + t0
                    for f in range(nf):
                        v = g[G_VH_B + f] + g[G_VH_E + (NPAT * NPAT + pair) * VH_MAX + f]
                        for d in range(4):
                            mine = cell[p, R_PAT + side * 4 + d]
                            theirs = cell[p, R_PAT + other * 4 + d]
                            v += g[G_VH_E + (mine * NPAT + theirs) * VH_MAX + f]
                        cell[p, R_VH + side * VH_MAX + f] = v
                        if b[p] == 0:
                            g[G_VH_POOL + side * VH_MAX + f] += max(v, 0)


@njit_inline
def _vh_move(cell: I32Array, g: IntArray, q: int, side: int, old: int, new: int) -> None:
    # the value head's features of empty point q for ``side`` to move: row ``old`` of its sum
    # becomes row ``new``, and the pooled sum follows the ReLU's change
    col = R_VH + side * VH_MAX
    pool = G_VH_POOL + side * VH_MAX
    eo = G_VH_E + old * VH_MAX
    en = G_VH_E + new * VH_MAX
    for f in range(g[G_VH_F]):
        was = cell[q, col + f]
        now = was + g[en + f] - g[eo + f]
        cell[q, col + f] = now
        g[pool + f] += max(now, 0) - max(was, 0)


@njit_inline
def _vh_point(cell: I32Array, g: IntArray, p: int, sign: int) -> None:
    # point p's features enter (sign 1: it was emptied) or leave (-1: a stone) the pooled sums
    for side in range(2):
        col = R_VH + side * VH_MAX
        pool = G_VH_POOL + side * VH_MAX
        for f in range(g[G_VH_F]):
            g[pool + f] += sign * max(cell[p, col + f], 0)


@njit_inline
def _update(
    cell: I32Array, g: IntArray, pt: U8Array, ev: I32Array, p4t: I8Array, q: int, d: int, pw: int
) -> None:
    key = cell[q, d]
    for ci in range(2):
        new = pt[key, ci]
        row = R_PAT + ci * 4 + d
        old = cell[q, row]
        if new != old:
            vh = g[G_VH_F] > 0
            if vh:
                # the direction's code for each side to move: its own pattern * NPAT + the
                # other side's, whose pattern is what it is now
                them = cell[q, R_PAT + (1 - ci) * 4 + d]
                _vh_move(cell, g, q, ci, old * NPAT + them, new * NPAT + them)
                _vh_move(cell, g, q, 1 - ci, them * NPAT + old, them * NPAT + new)
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
                if vh:
                    t = ev[1 - ci, cell[q, R_CODE + 1 - ci]] & 15
                    base = NPAT * NPAT
                    _vh_move(cell, g, q, ci, base + o4 * NP4 + t, base + n4 * NP4 + t)
                    _vh_move(cell, g, q, 1 - ci, base + t * NP4 + o4, base + t * NP4 + n4)


@njit_inline
def _update_kept(
    cell: I32Array,
    g: IntArray,
    pt: U8Array,
    ev: I32Array,
    q: int,
    d: int,
    pw: int,
    row: IntArray,
    m: int,
) -> None:
    # _update without the value head, writing what it changes to the undo stack's row at m:
    # 14 bits of the point and direction, 4 of each pattern, 20 of each code
    key = cell[q, d]
    o0 = np.int64(cell[q, R_PAT + d])
    o1 = np.int64(cell[q, R_PAT + 4 + d])
    c0 = np.int64(cell[q, R_CODE])
    c1 = np.int64(cell[q, R_CODE + 1])
    row[m] = (q * 4 + d) | o0 << 14 | o1 << 18 | c0 << 22 | c1 << 42
    n0 = np.int64(pt[key, 0])
    n1 = np.int64(pt[key, 1])
    if n0 != o0:
        nc = c0 + (n0 - o0) * pw
        cell[q, R_PAT + d] = n0
        cell[q, R_CODE] = nc
        opk = ev[0, c0]
        npk = ev[0, nc]
        g[G_VAL] += (npk >> 4) - (opk >> 4)
        if (opk & 15) != (npk & 15):
            g[G_P4 + (opk & 15)] -= 1
            g[G_P4 + (npk & 15)] += 1
    if n1 != o1:
        nc = c1 + (n1 - o1) * pw
        cell[q, R_PAT + 4 + d] = n1
        cell[q, R_CODE + 1] = nc
        opk = ev[1, c1]
        npk = ev[1, nc]
        g[G_VAL + 1] += (npk >> 4) - (opk >> 4)
        if (opk & 15) != (npk & 15):
            g[G_P4 + NP4 + (opk & 15)] -= 1
            g[G_P4 + NP4 + (npk & 15)] += 1


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
    us: IntArray,
    p: int,
) -> None:
    """Put a stone of the side to move on ``p`` and pass the turn."""
    c = g[G_SIDE]
    s = g[G_S]
    half = g[G_HALF]
    st = _steps(s)
    vh = g[G_VH_F] > 0
    # what the move changes goes on the undo stack, so that taking it back costs no lookups
    # (with the value head on, undo works its changes out again)
    row = us[g[G_NMOVES]]
    g[G_PVAL] = g[G_VAL]
    g[G_PVAL + 1] = g[G_VAL + 1]
    if not vh:
        for i in range(U_SUMS):
            row[i] = g[G_VAL + i]
    else:
        # the two sums alone, for G_PVAL once this move's successor is taken back
        row[0] = g[G_VAL]
        row[1] = g[G_VAL + 1]
        _vh_point(cell, g, p, -1)
    for ci in range(2):
        pk = ev[ci, cell[p, R_CODE + ci]]
        g[G_VAL + ci] -= pk >> 4
        g[G_P4 + ci * NP4 + (pk & 15)] -= 1
    b[p] = c
    pw = 1
    m = U_POINTS
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
                if vh:
                    _update(cell, g, pt, ev, p4t, q, d, pw)
                else:
                    _update_kept(cell, g, pt, ev, q, d, pw, row, m)
                    m += 1
        pw *= 12
    row[U_COUNT] = m
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            near[p + dy * s + dx] += 1
    y = p // s
    g[G_ROWS + y] += 1
    g[G_COLS + p - y * s] += 1
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
    us: IntArray,
) -> None:
    """Take back the last stone."""
    g[G_NMOVES] -= 1
    p = ms[g[G_NMOVES]]
    c = b[p]
    g[G_SIDE] = c
    s = g[G_S]
    half = g[G_HALF]
    st = _steps(s)
    vh = g[G_VH_F] > 0
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
            if bq == 0 and vh:
                _update(cell, g, pt, ev, p4t, q, d, pw)
        pw *= 12
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            near[p + dy * s + dx] -= 1
    y = p // s
    g[G_ROWS + y] -= 1
    g[G_COLS + p - y * s] -= 1
    if vh:
        for ci in range(2):
            pk = ev[ci, cell[p, R_CODE + ci]]
            g[G_VAL + ci] += pk >> 4
            g[G_P4 + ci * NP4 + (pk & 15)] += 1
        _vh_point(cell, g, p, 1)
    else:
        # the stack's row: every touched point's patterns and codes, and the sums, as they were
        row = us[g[G_NMOVES]]
        for i in range(U_POINTS, row[U_COUNT]):
            v = row[i]
            q = (v & 0x3FFF) >> 2
            d = v & 3
            cell[q, R_PAT + d] = (v >> 14) & 15
            cell[q, R_PAT + 4 + d] = (v >> 18) & 15
            cell[q, R_CODE] = (v >> 22) & 0xFFFFF
            cell[q, R_CODE + 1] = v >> 42
        for i in range(U_SUMS):
            g[G_VAL + i] = row[i]
    # the sums before the move now last on the board (at the root, the setup's: G_PVAL0)
    n = g[G_NMOVES]
    if n > 0:
        g[G_PVAL] = us[n - 1, 0]
        g[G_PVAL + 1] = us[n - 1, 1]
    else:
        g[G_PVAL] = g[G_PVAL0]
        g[G_PVAL + 1] = g[G_PVAL0 + 1]
    hsh[0] ^= zob[c - 1, p]
    hsh[0] ^= zob[2, 0]
