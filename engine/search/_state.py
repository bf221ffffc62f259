"""The board state's kernels: filling the pattern rows for a board, and playing and taking
back a stone with every pattern, threat count and running value kept up to date
(the layout is ``engine.search._layout``'s)."""

from __future__ import annotations

import numpy as np

from engine.search._jit import njit, njit_inline
from engine.search._layout import (
    G_H,
    G_HALF,
    G_NMOVES,
    G_NODES,
    G_P4,
    G_S,
    G_SIDE,
    G_VAL,
    G_VAL_W,
    G_W,
    NP4,
    PAD,
    R_CODE,
    R_PAT,
    I8Array,
    I32Array,
    IntArray,
    U8Array,
    U64Array,
    _shift,
    _steps,
)

# one hash of every kernel file (engine.search._jit), so numba recompiles all after a change
KERNELS_STAMP = "e75dca4abadf9113"


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
