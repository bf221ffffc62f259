"""Proof-number search over threats: a depth-first proof-number search (df-pn, Nagai 2002,
with Pawlewicz and Lew's 1 + epsilon thresholds) of the same AND/OR tree as
``threat_search`` (the attacker's fours, and with ``vct`` its threes; the defender's blocks,
its own fours and, against an open three, the points that stop it), to a depth of attacking
moves as that search counts them. It follows the lines where the defender has fewest answers
first, so it proves wins of 10-20 attacking moves that the depth-first search cannot finish.

A position of stones has one history of what matters (stones are only added), so the table
may share results between move orders without the graph-history trouble of games with
cycles; the attacking moves left are part of the key, so every stored result is exact for
them. The table lives in two arrays the caller keeps (``pnk``: keys, ``pnv``: packed
proof and disproof numbers and work), four entries a bucket, the least-worked entry replaced.
"""

from __future__ import annotations

import numpy as np

from engine.search._jit import njit, njit_inline
from engine.search._layout import (
    G_NEXT_CHECK,
    G_NODES,
    G_P4,
    G_SIDE,
    G_STOP,
    NP4,
    P4_B4,
    P4_F3,
    P4_FIVE,
    R_CODE,
    IntArray,
    State,
    U64Array,
)
from engine.search._renju import is_forbidden
from engine.search._threats import (
    _check_limits,
    _defences,
    _mk,
    _real_flex4,
    _scan,
    _sort,
    _um,
    fives_one_stops,
    four_answers,
)

# one hash of every kernel file (engine.search._jit), so numba recompiles all after a change
KERNELS_STAMP = "c36f9652438b6287"

INF = 1 << 28  # a proof or disproof number that means "never": the other side has it
_BUCKET = 4
# the 1 + epsilon trick: a child is searched until its number passes the second best's by a
# quarter, so the search does not switch back and forth between two near-equal children
_EPS_NUM = 5
_EPS_DEN = 4
# a packed entry: proof-side number (phi) in bits 0-29, disproof-side (delta) in 30-59
_MASK = (1 << 30) - 1
# the deepest line followed, in plies (the recursion's stack stays small: lines of up to 124
# plies crashed the process, its main thread's stack of 8 MB overrun), and so the most
# attacking moves asked for: each takes a ply and its answer another
PNS_MAX_PLY = 64
PNS_MAX_DEPTH = (PNS_MAX_PLY - 2) // 2


@njit_inline
def _find(pnk: U64Array, key: np.uint64) -> int:
    base = np.int64(key & np.uint64(pnk.shape[0] - 1)) & ~np.int64(_BUCKET - 1)
    for i in range(base, base + _BUCKET):
        if pnk[i] == key:
            return i
    return -1


@njit_inline
def _load(pnk: U64Array, pnv: IntArray, key: np.uint64, phi0: int, delta0: int) -> tuple[int, int]:
    i = _find(pnk, key)
    if i < 0:
        return phi0, delta0
    v = pnv[2 * i]
    return int(v & _MASK), int((v >> 30) & _MASK)


@njit
def _store(pnk: U64Array, pnv: IntArray, key: np.uint64, phi: int, delta: int, work: int) -> None:
    i = _find(pnk, key)
    if i < 0:
        base = np.int64(key & np.uint64(pnk.shape[0] - 1)) & ~np.int64(_BUCKET - 1)
        i = int(base)
        least = pnv[2 * base + 1]
        for j in range(base + 1, base + _BUCKET):
            if pnv[2 * j + 1] < least:
                least = pnv[2 * j + 1]
                i = j
        pnk[i] = key
        pnv[2 * i + 1] = 0
    if phi == 0 or delta == 0:
        work = INF  # a result, kept before any unfinished work
    pnv[2 * i] = np.int64(phi) | (np.int64(delta) << 30)
    if work > pnv[2 * i + 1]:
        pnv[2 * i + 1] = work


@njit
def _moves(st: State, sr: State, attacker: int, vct: bool, depth: int, ply: int) -> int:
    """The children of a node in ``mbuf[ply]``: their number, or -1 where the side to move
    has won (the node is a result), -2 where it has lost. ``depth``: the attacking moves
    left, as ``threat_search`` counts them."""
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    maybe = st[9]
    sc = st[10]
    buf = sr[4][ply]
    keys = sr[5][ply]
    side = g[G_SIDE]
    me = side - 1
    op = 1 - me
    if side == attacker:
        if g[G_P4 + me * NP4 + P4_FIVE] > 0:
            return -1
        if depth <= 0:
            return -2
        nfive = g[G_P4 + op * NP4 + P4_FIVE]
        if nfive >= 2:
            return -2
        if nfive == 1:
            _scan(b, cell, g, p4t, op, P4_FIVE, buf)
            if not vct and p4t[me, cell[buf[0], R_CODE + me]] < P4_B4:
                return -2
            n = 1
        else:
            n = _scan(b, cell, g, p4t, me, P4_F3 if vct else P4_B4, buf)
            for i in range(n):
                keys[i] = sc[me, cell[buf[i], R_CODE + me]] + sc[op, cell[buf[i], R_CODE + op]] // 2
            _sort(buf, keys, n)
    else:
        if g[G_P4 + me * NP4 + P4_FIVE] > 0:
            return -1
        nfive = g[G_P4 + op * NP4 + P4_FIVE]
        if nfive >= 2 and not fives_one_stops(st, op):
            return -2
        if nfive >= 1:
            n = four_answers(st, op, buf)  # caro: only the stones that stop every five
            if nfive == 1 and n == 1:
                if side == 1 and is_forbidden(b, g, cell, maybe, buf[0]):
                    return -2
                return 1
        elif not vct or _real_flex4(st, op, buf) == 0:
            return -1  # no threat: the defender is free, the attack has failed
        else:
            n = _defences(st, me, buf)
    if side == 1:
        m = 0
        for i in range(n):
            if not is_forbidden(b, g, cell, maybe, buf[i]):
                buf[m] = buf[i]
                m += 1
        n = m
    if n == 0:
        return -2
    return n


@njit_inline
def _key(h: np.uint64, attacker: int, vct: bool, depth: int) -> np.uint64:
    # the table's key: the position (its hash holds the side to move), whose attack, which
    # kind, and the attacking moves left (a result is exact for that many: no path enters it)
    return (
        h
        ^ (np.uint64(0x9E3779B97F4A7C15) * np.uint64(2 * attacker + (1 if vct else 0) + 1))
        ^ (np.uint64(0xC2B2AE3D27D4EB4F) * np.uint64(depth + 1))
    )


@njit
def _mid(
    st: State,
    sr: State,
    pnk: U64Array,
    pnv: IntArray,
    attacker: int,
    vct: bool,
    depth: int,
    ply: int,
    thphi: int,
    thdelta: int,
) -> int:
    # a node searched until its (phi, delta), from the side to move's view, reaches a
    # threshold; the table holds it after. Returned packed, phi + delta << 32
    g = st[2]
    p4t = st[5]
    cell = st[1]
    zob = st[6]
    hsh = st[7]
    if g[G_NODES] >= g[G_NEXT_CHECK]:
        _check_limits(g, st[11])
    if g[G_STOP] != 0:
        return 1 | (1 << 32)
    key = _key(hsh[0], attacker, vct, depth)
    n = -2  # past the buffers (dfpn's depth keeps every line shorter)
    if ply < PNS_MAX_PLY:
        n = _moves(st, sr, attacker, vct, depth, ply)
    if n < 0:
        # a result: stored, so that the parent reads it back
        phi = 0 if n == -1 else INF
        _store(pnk, pnv, key, phi, INF - phi, 1)
        return phi | ((INF - phi) << 32)
    buf = sr[4][ply]
    side = g[G_SIDE]
    me = side - 1
    cz = zob[2, 0]
    attacking = side == attacker
    cdepth = depth - 1 if attacking else depth
    start = g[G_NODES]
    phi = INF
    delta = 0
    while True:
        # the children's numbers, from their side to move's view: phi(node) is the least
        # delta(child), delta(node) the sum of phi(child)
        phi = INF
        delta = 0
        best = -1
        cphi = 0
        second = INF
        for i in range(n):
            p = buf[i]
            d0 = 1
            if attacking and p4t[me, cell[p, R_CODE + me]] < P4_B4:
                d0 = 3  # a three leaves the defender several answers, a four one
            f, d = _load(pnk, pnv, _key(hsh[0] ^ zob[me, p] ^ cz, attacker, vct, cdepth), 1, d0)
            delta += f
            if d < phi:
                second = phi
                phi = d
                best = i
                cphi = f
            elif d < second:
                second = d
        if delta >= INF:
            # "never" only where a child is proved (then phi is 0); a sum of unproved
            # children merely grown that large stays one below it, or the root (whose
            # thresholds are INF) would stop as though answered with nothing proved. Under a
            # threshold of INF the best child is then given one above its own number, so each
            # pass of this loop searches below it or raises that number: the loop still ends
            delta = INF if phi == 0 else INF - 1
        if phi >= thphi or delta >= thdelta:
            break
        # the best child is searched until it stops being best (by a margin) or the node's
        # own thresholds are reached
        tphi = thdelta - (delta - cphi)
        if tphi > INF:
            tphi = INF
        tdelta = thphi
        lim = second * _EPS_NUM // _EPS_DEN + 1
        if second >= INF:
            lim = INF
        if lim < tdelta:
            tdelta = lim
        _mk(st, buf[best])
        _mid(st, sr, pnk, pnv, attacker, vct, cdepth, ply + 1, tphi, tdelta)
        _um(st)
        if g[G_STOP] != 0:
            return phi | (delta << 32)
    _store(pnk, pnv, key, phi, delta, g[G_NODES] - start + 1)
    return phi | (delta << 32)


@njit
def dfpn(
    st: State, sr: State, pnk: U64Array, pnv: IntArray, attacker: int, vct: bool, depth: int
) -> int:
    """Whether ``attacker`` (to move) wins by fours (and, with ``vct``, threes) within
    ``depth`` attacking moves (at most ``PNS_MAX_DEPTH``), as ``threat_search`` defines it,
    searched until proved or disproved or the node limit or the clock stops it: 1 a win (its
    first move in ``sr``'s ``tline[0]``), 0 no win, -1 not known (stopped)."""
    g = st[2]
    hsh = st[7]
    zob = st[6]
    if g[G_SIDE] != attacker:
        return 0
    depth = min(depth, PNS_MAX_DEPTH)
    # every argument typed as the recursive calls type theirs (int64, from arithmetic): a
    # literal here would give the outer call another signature, and numba's disk cache loads
    # such a recursive kernel broken (a numba bug, numba/numba#6713)
    zero = depth - depth
    inf = zero + INF
    both = _mid(st, sr, pnk, pnv, attacker, vct, depth, zero, inf, inf)
    phi = both & 0xFFFFFFFF
    delta = both >> 32
    if phi != 0:
        return 0 if delta == 0 else -1
    n = _moves(st, sr, attacker, vct, depth, 0)
    if n == -1:
        # a five on the board
        _scan(st[0], st[1], g, st[5], attacker - 1, P4_FIVE, sr[8])
        return 1
    buf = sr[4][0]
    for i in range(n):
        p = buf[i]
        child = _key(hsh[0] ^ zob[attacker - 1, p] ^ zob[2, 0], attacker, vct, depth - 1)
        if _load(pnk, pnv, child, 1, 1)[1] == 0:
            sr[8][0] = p
            return 1
    return -1  # proved, but the proving child's entry was replaced: not known which
