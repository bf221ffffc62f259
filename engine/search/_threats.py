"""Threat-space search: continuous fours (VCF) and fours and threes (VCT) for the root,
the local VCF probe at the leaves, and the helpers they share with the tree search."""

from __future__ import annotations

import numpy as np

from engine.search._jit import njit, njit_inline
from engine.search._layout import (
    B3,
    B4,
    F3,
    FIVE,
    G_HALF,
    G_NEXT_CHECK,
    G_NODE_LIMIT,
    G_NODES,
    G_P4,
    G_RULE,
    G_S,
    G_SIDE,
    G_STOP,
    G_TIMED,
    MAX_PLY,
    NP4,
    NPAT,
    P4_B4,
    P4_B4_F3,
    P4_F3,
    P4_FIVE,
    P4_FLEX4,
    PAD,
    R_CODE,
    R_PAT,
    RULE_CARO,
    RULE_RENJU,
    F64Array,
    I8Array,
    I32Array,
    IntArray,
    State,
    _box,
    _shift,
    _steps,
    now,
)
from engine.search._renju import is_forbidden
from engine.search._state import play, undo

# one hash of every kernel file (engine.search._jit), so numba recompiles all after a change
KERNELS_STAMP = "c36f9652438b6287"


@njit
def _scan(
    b: I8Array, cell: I32Array, g: IntArray, p4t: I8Array, ci: int, level: int, out: IntArray
) -> int:
    # the empty points where side ci has a threat class >= level (a three or more: inside
    # _box), in board order; the running counts say how many there are, so the scan stops at
    # the last
    s = g[G_S]
    want = 0
    for c4 in range(level, NP4):
        want += g[G_P4 + ci * NP4 + c4]
    n = 0
    if want == 0:
        return 0
    row = R_CODE + ci
    y0, y1, x0, x1 = _box(g)
    for y in range(y0, y1 + 1):
        base = (y + PAD) * s + PAD
        for x in range(x0, x1 + 1):
            p = base + x
            if b[p] == 0 and p4t[ci, cell[p, row]] >= level:
                out[n] = p
                n += 1
                if n == want:
                    return n
    return n


@njit_inline
def _run_ends(b: I8Array, q: int, sd: int, c: int) -> tuple[int, int]:
    # the points just past the unbroken run of c's stones through q (q counted as c's) along
    # the step sd
    lo = q - sd
    while b[lo] == c:
        lo -= sd
    hi = q + sd
    while b[hi] == c:
        hi += sd
    return lo, hi


@njit_inline
def _caro_five(b: I8Array, s: int, q: int, c: int, blocker: int) -> bool:
    # whether a stone of c on q makes a five in caro, a stone of the other side's on
    # ``blocker`` as well: an exact five with the other side's stones at both ends does not
    # count (the edge does not block); longer lines do
    sts = _steps(s)
    opp = 3 - c
    for d in range(4):
        sd = sts[d]
        lo, hi = _run_ends(b, q, sd, c)
        length = (hi - lo) // sd - 1
        if length > 5:
            return True
        if length == 5:
            left = lo == blocker or b[lo] == opp
            right = hi == blocker or b[hi] == opp
            if not (left and right):
                return True
    return False


@njit_inline
def _leaves_none(b: I8Array, cell: I32Array, g: IntArray, p4t: I8Array, ci: int, p: int) -> bool:
    # whether the other side's stone on p (one of side ci's five points, or an end of the five
    # one of them makes) leaves ci no five point
    s = g[G_S]
    row = R_CODE + ci
    y0, y1, x0, x1 = _box(g)
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            q = (y + PAD) * s + PAD + x
            if q == p or b[q] != 0 or p4t[ci, cell[q, row]] != P4_FIVE:
                continue
            if _caro_five(b, s, q, ci + 1, p):
                return False
    return True


@njit_inline
def _add_answer(
    b: I8Array,
    cell: I32Array,
    g: IntArray,
    p4t: I8Array,
    ci: int,
    x: int,
    p: int,
    alone: bool,
    buf: IntArray,
    n: int,
) -> int:
    # n + 1 where the other side's stone on x stops every five of side ci's and x is not in
    # ``buf`` yet (then kept there, where ``buf`` has room: an empty one only counts). Where
    # p is ci's only five point, x stops it on p or by leaving p's five blocked at both ends
    for i in range(min(n, buf.shape[0])):
        if buf[i] == x:
            return n
    if alone:
        if x != p and _caro_five(b, g[G_S], p, ci + 1, x):
            return n
    elif not _leaves_none(b, cell, g, p4t, ci, x):
        return n
    if n < buf.shape[0]:
        buf[n] = x
    return n + 1


@njit_inline
def _caro_answers(
    b: I8Array, cell: I32Array, g: IntArray, p4t: I8Array, ci: int, buf: IntArray, want: int
) -> int:
    # the points where the other side's stone leaves side ci no five, in ``buf``, until
    # ``want`` are found: a five point, or a point just past the exact five one makes whose
    # other end the other side holds already (``OXXXX.`` answered at ``OXXXX.O``: the five
    # would be blocked at both ends). No other stone touches a five.
    s = g[G_S]
    sts = _steps(s)
    c = ci + 1
    opp = 3 - c
    alone = g[G_P4 + ci * NP4 + P4_FIVE] == 1
    n = 0
    y0, y1, x0, x1 = _box(g)
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            p = (y + PAD) * s + PAD + x
            if b[p] != 0 or p4t[ci, cell[p, R_CODE + ci]] != P4_FIVE:
                continue
            n = _add_answer(b, cell, g, p4t, ci, p, p, alone, buf, n)
            for d in range(4):
                lo, hi = _run_ends(b, p, sts[d], c)
                if (hi - lo) // sts[d] - 1 == 5:
                    if b[lo] == 0 and b[hi] == opp:
                        n = _add_answer(b, cell, g, p4t, ci, lo, p, alone, buf, n)
                    if b[hi] == 0 and b[lo] == opp:
                        n = _add_answer(b, cell, g, p4t, ci, hi, p, alone, buf, n)
            if alone or n >= want:
                return n
    return n


@njit
def four_answers(st: State, ci: int, buf: IntArray) -> int:
    """The other side's answers to side ``ci``'s fives, in ``buf``: their number. Under most
    rules a stone on a five point, each of them (where there are two, each leaves the other).
    In caro only the stones that leave ``ci`` no five: on a five point, or just past the five
    it makes where the other end is blocked already (none: nothing stops them)."""
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    if g[G_RULE] != RULE_CARO:
        return _scan(b, cell, g, p4t, ci, P4_FIVE, buf)
    return _caro_answers(b, cell, g, p4t, ci, buf, buf.shape[0])


@njit
def fives_one_stops(st: State, ci: int) -> bool:
    """Whether one stone of the other side's stops every five point side ``ci`` has (asked
    where there are two or more): in caro, where taking one end of a straight four whose far
    side is blocked leaves the other five blocked at both ends, or a stone past a five blocks
    it there (``four_answers``). Under the other rules two five points win."""
    if st[2][G_RULE] != RULE_CARO:
        return False
    g = st[2]
    return _caro_answers(st[0], st[1], g, st[5], ci, g[:0], 1) > 0  # counted, not kept


@njit
def _check_limits(g: IntArray, tm: F64Array) -> None:
    g[G_NEXT_CHECK] = g[G_NODES] + 512
    if (g[G_NODE_LIMIT] > 0 and g[G_NODES] >= g[G_NODE_LIMIT]) or (
        g[G_TIMED] != 0 and now() >= tm[0]
    ):
        g[G_STOP] = 1


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
    # against an open three: our fours and the points where the opponent would make a four,
    # and in caro the other points that stop it (_caro_three_answers)
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    s = g[G_S]
    op = 1 - me
    n = 0
    y0, y1, x0, x1 = _box(g)
    for y in range(y0, y1 + 1):
        base = (y + PAD) * s + PAD
        for x in range(x0, x1 + 1):
            p = base + x
            if b[p] == 0 and (
                p4t[me, cell[p, R_CODE + me]] >= P4_B4 or p4t[op, cell[p, R_CODE + op]] >= P4_B4
            ):
                buf[n] = p
                n += 1
    if g[G_RULE] == RULE_CARO:
        n = _caro_three_answers(st, me, buf, n)
    return n


@njit
def _caro_three_answers(st: State, me: int, buf: IntArray, n: int) -> int:
    """Caro, against an open three: the other points after which the opponent has no straight
    four, appended to the first ``n`` of ``buf`` in board order; the new count. A four there
    can be answered past its five where that five's other end is held (``four_answers``), so
    a stone of ours just past a five point it would make stops the three from beyond its four
    points, as far as three points from its stones: White's c3 d4 f6 is stopped at a1, since
    after e5 Black's g7 leaves b2's five blocked at both ends.

    Our stone can only lower the opponent's patterns, and only on the one line it shares with
    a point, so a point stops every straight four where it lies within ``half`` on a line of
    each straight-four point and that line's pattern with our stone on it (read from the
    table, nothing played) leaves the point less than a straight four. The candidates are the
    points on the first straight-four point's lines; the straight-four points are kept at the
    end of ``buf``."""
    b = st[0]
    cell = st[1]
    g = st[2]
    pt = st[3]
    p4t = st[5]
    s = g[G_S]
    half = g[G_HALF]
    steps = _steps(s)
    op = 1 - me
    want = g[G_P4 + op * NP4 + P4_FLEX4] + g[G_P4 + op * NP4 + P4_FIVE]  # as _scan counts
    room = buf.shape[0]
    if want == 0 or n + want + 8 * half >= room:
        return n
    k = _scan(b, cell, g, p4t, op, P4_FLEX4, buf[room - want :])
    flex = buf[room - k :]
    first = n
    for d0 in range(4):
        for k0 in range(-half, half + 1):
            p = flex[0] + k0 * steps[d0]
            if k0 == 0 or b[p] != 0:
                continue  # flex[0] itself is a four point of the opponent's, listed already
            py, px = divmod(p, s)
            stops = True
            for j in range(k):
                f = flex[j]
                if f == p:
                    continue
                fy, fx = divmod(f, s)
                dy = py - fy
                dx = px - fx
                if dy == 0:
                    d = 0
                    off = dx
                elif dx == 0:
                    d = 1
                    off = dy
                elif dy == dx:
                    d = 2
                    off = dy
                elif dy == -dx:
                    d = 3
                    off = dy
                else:
                    stops = False  # off every line of this straight-four point: it keeps it
                    break
                if abs(off) > half:
                    stops = False
                    break
                row = R_PAT + op * 4 + d
                new = pt[cell[f, d] | ((me + 1) << _shift(off, half)), op]
                code = cell[f, R_CODE + op] + (np.int64(new) - cell[f, row]) * NPAT**d
                if p4t[op, code] >= P4_FLEX4:
                    stops = False
                    break
            if not stops:
                continue
            listed = False
            for i in range(n):
                if buf[i] == p:
                    listed = True
                    break
            if listed:
                continue
            # kept in board order among those added: the order the candidates are tried in
            i = n
            while i > first and buf[i - 1] > p:
                buf[i] = buf[i - 1]
                i -= 1
            buf[i] = p
            n += 1
    return n


@njit_inline
def _add(buf: IntArray, n: int, p: int) -> int:
    # p appended to the first n points of buf unless already there; the new count
    for i in range(n):
        if buf[i] == p:
            return n
    buf[n] = p
    return n + 1


@njit
def _stopping(st: State, me: int, buf: IntArray, n: int, scratch: IntArray) -> int:
    """Of ``n`` answers to an open three in ``buf`` (``_defences``: one's own fours and the
    opponent's four points), one's own fours and the points that may take away every straight
    four the opponent can make, kept in order; the new count. A point's patterns are read from
    its lines ``half`` points each way, so a stone off those lines of one of the opponent's
    straight-four points leaves it one, and that move loses to it. ``scratch``: room for them."""
    b = st[0]
    cell = st[1]
    g = st[2]
    p4t = st[5]
    s = g[G_S]
    half = g[G_HALF]
    op = 1 - me
    k = _scan(b, cell, g, p4t, op, P4_FLEX4, scratch)
    m = 0
    for i in range(n):
        p = buf[i]
        keep = True
        if p4t[me, cell[p, R_CODE + me]] < P4_B4:
            py, px = divmod(p, s)
            for j in range(k):
                fy, fx = divmod(scratch[j], s)
                dy = abs(py - fy)
                dx = abs(px - fx)
                if max(dx, dy) > half or (dx != 0 and dy != 0 and dx != dy):
                    keep = False  # off every line of this straight-four point (p is not it)
                    break
        if keep:
            buf[m] = p
            m += 1
    return m


@njit
def _defences43(st: State, me: int, buf: IntArray) -> int:
    """Against the opponent's four-three point: the moves that may stop it, and
    none other but one's own fours; 0 where no list is needed (Rapfi's exact defences).

    Once the opponent plays its four-three point q, the side must block the four at its five
    point f, and then the open three becomes a straight four. So the side may only take q, or
    f, or a point of the three's line that leaves q no open three there, or a point that makes
    f a four of its own (its block then gains the tempo back: the empty points along f's lines,
    past its own stones, where it would make a closed three or more), or make a four now. If f
    is already a four point of the side's, its block answers the four with a four and the list
    is not needed. One four-three point is answered; any other needs no fewer moves.

    In caro the four is answered just past its five as well, where the five's other end is
    held (``four_answers``): every point of the four's line whose stone leaves q no four there
    is a block, each with the points that would make it a four of ours.

    Against Black in renju, q must be one Black may play and after which it has a straight
    four it may play (``_real43``); and where a point that stops the three on one side is
    forbidden to Black once q is played, the three can only grow the other way, so the first
    empty point past that side's stopping points stops it too (as Rapfi's ``findB4F3Defence``).
    """
    b = st[0]
    cell = st[1]
    g = st[2]
    pt = st[3]
    p4t = st[5]
    s = g[G_S]
    half = g[G_HALF]
    op = 1 - me
    steps = _steps(s)
    renju_black = g[G_RULE] == RULE_RENJU and op == 0
    n = _scan(b, cell, g, p4t, op, P4_B4_F3, buf)
    q = -1
    for i in range(n):
        p = buf[i]
        if p4t[op, cell[p, R_CODE + op]] == P4_B4_F3 and (
            not renju_black or _real43(st, p, buf[n:])
        ):
            q = p
            break
    if q < 0:
        return 0
    n = 0
    buf[n] = q
    n += 1
    for d in range(4):
        pat = cell[q, R_PAT + op * 4 + d]
        step = steps[d]
        if pat == F3:
            # a stone of ours at r that leaves q no open three on this line
            for k in range(-half, half + 1):
                r = q + k * step
                if k == 0 or b[r] != 0:
                    continue
                key = cell[q, d] | ((me + 1) << _shift(k, half))
                if pt[key, op] != F3:
                    n = _add(buf, n, r)
            if renju_black:
                n = _one_sided(st, q, d, buf, n)
        elif pat == B4:  # a four-three's one four (no F4 or FOUR_FOUR: that is a FLEX4)
            f = -1
            for k in range(-half, half + 1):
                r = q + k * step
                if k == 0 or b[r] != 0:
                    continue
                # r is the five point if the opponent's stone at q makes it one
                key = cell[r, d] | ((op + 1) << _shift(-k, half))
                if pt[key, op] == FIVE:
                    f = r
                    break
            if f < 0:
                continue
            if p4t[me, cell[f, R_CODE + me]] >= P4_B4:
                return 0  # the forced block is a four of ours: no list needed
            n = _add_block(b, cell, steps, half, me, f, buf, n)
            if g[G_RULE] == RULE_CARO:
                # caro: the four is also answered just past its five where the five's other
                # end is held (four_answers); a stone of ours there now leaves q no four
                key0 = cell[q, d]
                for k in range(-half, half + 1):
                    r = q + k * step
                    if k == 0 or b[r] != 0 or r == f:
                        continue
                    if pt[key0 | ((me + 1) << _shift(k, half)), op] < B4:
                        if p4t[me, cell[r, R_CODE + me]] >= P4_B4:
                            return 0  # that block is a four of ours: no list needed
                        n = _add_block(b, cell, steps, half, me, r, buf, n)
    # and one's own fours
    end = n + _scan(b, cell, g, p4t, me, P4_B4, buf[n:])
    for i in range(n, end):
        n = _add(buf, n, buf[i])  # n <= i: each point is read before anything overwrites it
    return n


@njit_inline
def _add_block(
    b: I8Array,
    cell: I32Array,
    steps: tuple[int, int, int, int],
    half: int,
    me: int,
    f: int,
    buf: IntArray,
    n: int,
) -> int:
    # a block ``f`` of the opponent's four appended to the first n of buf, and the points that
    # would make it a four of ours (its block then gains the tempo back: the empty points along
    # f's lines, past our own stones, where we would make a closed three or more); the new count
    n = _add(buf, n, f)
    for d2 in range(4):
        for sign in range(-1, 2, 2):
            r = f
            for _ in range(half):
                r += sign * steps[d2]
                if b[r] == me + 1:
                    continue
                if b[r] == 0 and cell[r, R_PAT + me * 4 + d2] >= B3:
                    n = _add(buf, n, r)
                    continue
                break
    return n


@njit
def _real43(st: State, q: int, buf: IntArray) -> bool:
    """Renju: whether Black's four-three point ``q`` is one, by playing it: Black may play
    it, and then has a straight four it may play (its three is a true one). ``buf``: room
    for the straight-four points."""
    g = st[2]
    if is_forbidden(st[0], g, st[1], st[9], q):
        return False
    side = g[G_SIDE]
    g[G_SIDE] = 1
    _mk(st, q)
    real = _real_flex4(st, 0, buf) > 0
    _um(st)
    g[G_SIDE] = side
    return real


@njit
def _one_sided(st: State, q: int, d: int, buf: IntArray, n: int) -> int:
    """Renju, against Black's four-three point ``q``: where a point that stops its three on
    line ``d`` (White's stone there leaves q no F3) on one side of q is forbidden to Black
    once q is played, the three can grow only the other way, so the first empty point past
    a run of stopping points on that other side stops it too (Rapfi's ``findB4F3Defence``).
    Those points appended to the first ``n`` of ``buf``; the new count."""
    b = st[0]
    cell = st[1]
    g = st[2]
    pt = st[3]
    half = g[G_HALF]
    step = _steps(g[G_S])[d]
    key0 = cell[q, d]  # read with q empty
    past0 = -1
    past1 = -1
    for side in range(2):
        sign = 2 * side - 1
        run = False
        for j in range(1, half + 1):
            r = q + sign * j * step
            if b[r] != 0:
                continue
            if pt[key0 | (2 << _shift(sign * j, half)), 0] != F3:
                run = True
            elif run:
                if side == 0:
                    past0 = r
                else:
                    past1 = r
                run = False
    if past0 < 0 and past1 < 0:
        return n
    # only now is q played (a move counts as a node): the forbidden check needs Black's stone
    forbidden0 = False
    forbidden1 = False
    turn = g[G_SIDE]
    g[G_SIDE] = 1
    _mk(st, q)
    for side in range(2):
        sign = 2 * side - 1
        for j in range(1, half + 1):
            r = q + sign * j * step
            if b[r] != 0 or pt[key0 | (2 << _shift(sign * j, half)), 0] == F3:
                continue
            if is_forbidden(b, g, cell, st[9], r):
                if side == 0:
                    forbidden0 = True
                else:
                    forbidden1 = True
                break
    _um(st)
    g[G_SIDE] = turn
    if forbidden0 and past1 >= 0:
        n = _add(buf, n, past1)
    if forbidden1 and past0 >= 0:
        n = _add(buf, n, past0)
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
    play(b, cell, g, pt, ev, p4t, zob, hsh, ms, st[12], st[13], p)


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
    undo(b, cell, g, pt, ev, p4t, zob, hsh, ms, st[12], st[13])


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
    if nfive >= 2 and not fives_one_stops(st, op):
        return True
    if nfive >= 1:
        n = four_answers(st, op, buf)
        if n == 0 or (nfive == 1 and side == 1 and is_forbidden(b, g, cell, maybe, buf[0])):
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
        q = -1
        if nf >= 2 and not fives_one_stops(st, me):
            won = 3
        elif nf >= 1:
            dbuf = mbuf[ply + 1]
            m = four_answers(st, me, dbuf)
            if m == 0:
                won = 3
            elif m == 1:
                q = dbuf[0]
            # several answers (caro: a five point, or the point past it): the line stops
        if q >= 0:
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
