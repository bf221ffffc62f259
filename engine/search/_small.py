"""Exact search for the small m,n,k games: tic-tac-toe, gravity three, Connect Four.

A plain negamax with alpha-beta, a transposition table and iterative deepening over an int8
board; wins are detected exactly, so it never misses a forced win within its horizon, and the
3x3 and 4x4 games are solved outright (their whole tree fits in the table).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.search._jit import njit_alloc
from engine.search._kernels import now

# one hash of every kernel file (engine.search._jit), so numba recompiles all after a change
KERNELS_STAMP = "c36f9652438b6287"

if TYPE_CHECKING:
    from engine.board import Board
    from engine.search.alphabeta import SearchResult

WIN = 30000
WIN_MIN = WIN - 1000
INF = 32000
TT_SIZE = 1 << 20

# g slots
S_W, S_H, S_K, S_GRAV, S_NODES, S_LIMIT, S_STOP, S_TIMED, S_NEXT = range(9)

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]


@njit_alloc
def _wins(b: I8, w: int, h: int, kk: int, x: int, y: int) -> bool:
    c = b[y * w + x]
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        xx, yy = x + dx, y + dy
        while 0 <= xx < w and 0 <= yy < h and b[yy * w + xx] == c:
            n += 1
            xx += dx
            yy += dy
        xx, yy = x - dx, y - dy
        while 0 <= xx < w and 0 <= yy < h and b[yy * w + xx] == c:
            n += 1
            xx -= dx
            yy -= dy
        if n >= kk:
            return True
    return False


@njit_alloc
def _heuristic(b: I8, w: int, h: int, kk: int, side: int) -> int:
    # open windows of k points: more stones of one colour and none of the other is better
    score = 0
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for y in range(h):
            for x in range(w):
                ex = x + dx * (kk - 1)
                ey = y + dy * (kk - 1)
                if not (0 <= ex < w and 0 <= ey < h):
                    continue
                mine = 0
                theirs = 0
                for i in range(kk):
                    v = b[(y + dy * i) * w + x + dx * i]
                    if v == side:
                        mine += 1
                    elif v != 0:
                        theirs += 1
                if theirs == 0 and mine > 0:
                    score += 1 << (2 * mine)
                elif mine == 0 and theirs > 0:
                    score -= 1 << (2 * theirs)
    return score


@njit_alloc
def _moves(b: I8, w: int, h: int, grav: int, out: I64) -> int:
    # centre first: better cut-offs in every one of these games
    n = 0
    cx = (w - 1) / 2.0
    cy = (h - 1) / 2.0
    keys = np.empty(w * h, dtype=np.float64)
    if grav:
        for x in range(w):
            for y in range(h):
                if b[y * w + x] == 0:
                    out[n] = y * w + x
                    keys[n] = abs(x - cx)
                    n += 1
                    break
    else:
        for p in range(w * h):
            if b[p] == 0:
                out[n] = p
                keys[n] = abs(p % w - cx) + abs(p // w - cy)
                n += 1
    for i in range(1, n):
        m = out[i]
        kv = keys[i]
        j = i - 1
        while j >= 0 and keys[j] > kv:
            out[j + 1] = out[j]
            keys[j + 1] = keys[j]
            j -= 1
        out[j + 1] = m
        keys[j + 1] = kv
    return n


@njit_alloc
def _negamax(
    b: I8,
    g: I64,
    tm: F64,
    zob: U64,
    ttk: U64,
    ttv: I64,
    h0: np.uint64,
    side: int,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    best_out: I64,
) -> int:
    w = g[S_W]
    h = g[S_H]
    kk = g[S_K]
    g[S_NODES] += 1
    if g[S_NODES] >= g[S_NEXT]:
        g[S_NEXT] = g[S_NODES] + 1024
        if g[S_LIMIT] > 0 and g[S_NODES] >= g[S_LIMIT]:
            g[S_STOP] = 1
        if g[S_TIMED] != 0 and now() >= tm[0]:
            g[S_STOP] = 1
    if g[S_STOP] != 0:
        return 0
    moves = np.empty(w * h, dtype=np.int64)
    n = _moves(b, w, h, g[S_GRAV], moves)
    if n == 0:
        return 0
    # a win now
    for i in range(n):
        p = moves[i]
        b[p] = side
        won = _wins(b, w, h, kk, p % w, p // w)
        b[p] = 0
        if won:
            best_out[ply] = p
            return WIN - ply - 1
    if depth <= 0:
        return _heuristic(b, w, h, kk, side) // 4
    slot = np.int64(h0 & np.uint64(TT_SIZE - 1))
    ttmove = -1
    if ttk[slot] == h0:
        data = ttv[slot]
        tdepth = (data >> 8) & 0xFF
        flag = data & 3
        score = int(data >> 32)
        if score > WIN_MIN:
            score -= ply
        elif score < -WIN_MIN:
            score += ply
        ttmove = ((data >> 16) & 0xFFFF) - 1
        cut = flag == 1 or (flag == 2 and score >= beta) or (flag == 3 and score <= alpha)
        if tdepth >= depth and cut:
            best_out[ply] = ttmove
            return score
    if ttmove >= 0:
        for i in range(n):
            if moves[i] == ttmove:
                for j in range(i, 0, -1):
                    moves[j] = moves[j - 1]
                moves[0] = ttmove
                break
    alpha0 = alpha
    best = -INF
    bestmove = moves[0]
    for i in range(n):
        p = moves[i]
        b[p] = side
        h1 = h0 ^ zob[side - 1, p] ^ zob[2, 0]
        v = -_negamax(
            b, g, tm, zob, ttk, ttv, h1, 3 - side, depth - 1, -beta, -alpha, ply + 1, best_out
        )
        b[p] = 0
        if g[S_STOP] != 0:
            return 0
        if v > best:
            best = v
            bestmove = p
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    best_out[ply] = bestmove
    flag = 1
    if best <= alpha0:
        flag = 3
    elif best >= beta:
        flag = 2
    stored = best
    if stored > WIN_MIN:
        stored += ply
    elif stored < -WIN_MIN:
        stored -= ply
    ttk[slot] = h0
    ttv[slot] = (np.int64(stored) << 32) | (np.int64(bestmove + 1) << 16) | (depth << 8) | flag
    return best


_ZOB = np.random.default_rng(7).integers(0, 2**63, size=(3, 64), dtype=np.uint64)


def search(
    board: Board, depth: int | None, nodes: int | None, deadline: float | None, start: float
) -> SearchResult:
    """Search a small game; solved outright when no limit is given."""
    from engine.search.alphabeta import SearchResult  # search imports this module
    from engine.types import Color, Point

    w, h = board.width, board.height
    b = board.to_array().reshape(-1).copy()
    side = 1 if board.to_move is Color.BLACK else 2
    empties = int((b == 0).sum())
    g = np.zeros(16, dtype=np.int64)
    g[S_W], g[S_H], g[S_K], g[S_GRAV] = w, h, board.win_length, int(board.gravity)
    g[S_LIMIT] = nodes or 0
    g[S_TIMED] = 0 if deadline is None else 1
    tm = np.array([deadline or 0.0])
    key = np.uint64(0)
    for p in np.nonzero(b)[0]:
        key ^= _ZOB[int(b[p]) - 1, int(p)]
    if side == 2:
        key ^= _ZOB[2, 0]
    ttk = np.zeros(TT_SIZE, dtype=np.uint64)
    ttv = np.zeros(TT_SIZE, dtype=np.int64)
    best_out = np.zeros(64, dtype=np.int64)
    max_depth = empties if depth is None else min(depth, empties)
    best_move = -1
    best_score = 0
    done = 0
    for d in range(1, max_depth + 1):
        v = int(_negamax(b, g, tm, _ZOB, ttk, ttv, key, side, d, -INF, INF, 0, best_out))
        if g[S_STOP] != 0:
            break
        best_move, best_score, done = int(best_out[0]), v, d
        if abs(v) > WIN_MIN:
            break  # proven
    if best_move < 0:
        moves = np.empty(w * h, dtype=np.int64)
        _moves(b, w, h, int(board.gravity), moves)
        best_move = int(moves[0])
    point = Point(best_move % w, best_move // w)
    nodes_done = int(g[S_NODES])
    elapsed = (time.perf_counter() - start) * 1000
    return SearchResult(point, best_score, done, nodes_done, elapsed, (point,))
