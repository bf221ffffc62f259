"""A Gomoku position in the kernels' array form, built from a ``Board``."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.board import Board
from engine.search import _kernels as k
from engine.search.evaluate import PatternTables, tables
from engine.types import Color, Point

_ZOBRIST = np.random.default_rng(20261121).integers(
    0, 2**63, size=(3, (20 + 2 * k.PAD) ** 2), dtype=np.uint64
)
TT_SIZE = 1 << 20  # entries of 16 bytes: 16 MB
MIN_TT_SIZE = 1 << 12
VTT_SIZE = 1 << 16

# Search buffers kept from one search to the next by searches that ask for it (the protocol
# brain and the master level): the transposition tables are keyed by the full Zobrist hash,
# so what an earlier search proved about a position still holds when it comes up again.
# The key holds the rule too: the hash does not, and a position's value depends on it.
_KEPT: dict[tuple[int, int, int], tuple[Any, ...]] = {}
# the proof-number search's table (``_pns``), kept the same way: a proof or disproof is a fact
# about the position, whichever search found it
_PNS_KEPT: dict[tuple[int, int, int], tuple[Any, Any]] = {}
# the correction history's tables (``_tree._corrected``), kept the same way where asked
_CORR_KEPT: dict[tuple[int, int, int], Any] = {}


# how many searches have taken up the kept tables (the kernels' G_TT_GEN, modulo 32): an entry
# written by an earlier search gives way sooner to a new one
_SEARCHES = [0]


def forget_kept() -> None:
    """Drop this process's kept search tables: the next search that keeps them starts afresh."""
    _KEPT.clear()
    _PNS_KEPT.clear()
    _CORR_KEPT.clear()


class Position:
    """Board arrays plus search buffers; ``st`` and ``sr`` are what the kernels take."""

    def __init__(
        self,
        width: int,
        height: int,
        t: PatternTables,
        tt_size: int = TT_SIZE,
        *,
        keep: bool = False,
    ) -> None:
        """An empty position of the given size; ``tt_size`` (a power of two) sizes the
        transposition table; with ``keep`` the search buffers are this process's kept ones
        (the tables of earlier searches, killers cleared and history aged)."""
        self.width = width
        self.height = height
        self.stride = width + 2 * k.PAD
        cells = self.stride * (height + 2 * k.PAD)
        self.tables = t
        b = np.full(cells, 3, dtype=np.int8)
        for y in range(height):
            start = (y + k.PAD) * self.stride + k.PAD
            b[start : start + width] = 0
        g = np.zeros(k.NG, dtype=np.int64)
        g[k.G_W] = width
        g[k.G_H] = height
        g[k.G_S] = self.stride
        g[k.G_RULE] = t.rule
        g[k.G_HALF] = t.half
        g[k.G_SIDE] = 1
        g[k.G_ONE] = 1
        g[k.G_MINE] = t.mine
        g[k.G_NET : k.G_POL_E] = t.net
        g[k.G_POL_E : k.G_VH_F] = t.policy
        g[k.G_VH_F :] = t.value_head
        g[k.G_POL] = t.policy_features
        if keep:
            _SEARCHES[0] += 1
            g[k.G_TT_GEN] = _SEARCHES[0] & 31
        cell = np.zeros((cells, k.NROWS), dtype=np.int32)
        k.init_state(b, cell, g, t.pattern, t.packed, t.threat)
        self.b = b
        self.cell = cell
        self.g = g
        self.hsh = np.zeros(1, dtype=np.uint64)
        self.ms = np.zeros(cells + 8, dtype=np.int64)
        self.tm = np.zeros(1, dtype=np.float64)
        self.near = np.zeros(cells, dtype=np.int32)
        # the undo stack packs a point and its direction in 14 bits (``_state.play``)
        assert cells * 4 <= 1 << 14, "board too large for the kernels"
        self.us = np.zeros((cells + 8, k.U_ROW), dtype=np.int64)
        zob = _ZOBRIST[:, :cells].copy()
        self.st = (
            b,
            cell,
            g,
            t.pattern,
            t.packed,
            t.threat,
            zob,
            self.hsh,
            self.ms,
            t.maybe_forbidden,
            t.score,
            self.tm,
            self.near,
            self.us,
            t.window,
        )
        self.tt_size = tt_size
        self.keep = keep
        self._sr: tuple[Any, ...] | None = None
        self._pns: tuple[Any, Any] | None = None

    @classmethod
    def from_board(cls, board: Board, tt_size: int = TT_SIZE, *, keep: bool = False) -> Position:
        """The position of a Gomoku ``board`` with its side to move (``keep``: see above)."""
        position = cls(board.width, board.height, tables(board.rule), tt_size, keep=keep)
        array = board.to_array()
        # the last move's stone goes on last, so that the sums before it are the root's
        # G_PVAL (the evaluation's mean over two plies, GOMOKU_EVAL_AVG)
        last = board.moves[-1].point if board.moves else None
        stones = [Point(int(x), int(y)) for y, x in zip(*np.nonzero(array), strict=True)]
        if last is not None and last in stones:
            stones.remove(last)
            stones.append(last)
        for point in stones:
            position.g[k.G_SIDE] = int(array[point.y, point.x])
            position.play_index(position.index(point))
        position.g[k.G_SIDE] = 1 if board.to_move is Color.BLACK else 2
        position.g[k.G_NMOVES] = 0  # setup stones are never taken back
        position.g[k.G_PVAL0] = position.g[k.G_PVAL]
        position.g[k.G_PVAL0 + 1] = position.g[k.G_PVAL + 1]
        # the last two moves, for a policy that reads the distance to them
        for slot, move in enumerate(reversed(board.moves[-2:])):
            position.g[k.G_PREV + slot] = position.index(move.point) + 1
        position.g[k.G_NODES] = 0
        return position

    def keep_corrections(self, *, save: bool = False) -> None:
        """Take up (or, with ``save``, put back) the correction history's tables of this
        process's last search that kept its tables; a search that does not keep them has its
        own from nothing."""
        if not self.keep:
            return
        key = (self.b.shape[0], self.tt_size, int(self.g[k.G_RULE]))
        tables = self.g[k.G_CORR_T : k.NG]
        if save:
            _CORR_KEPT[key] = tables.copy()
        elif key in _CORR_KEPT:
            tables[:] = _CORR_KEPT[key]

    @property
    def sr(self) -> tuple[Any, ...]:
        """The search buffers (transposition tables, killers, history, move lists)."""
        if self._sr is None:
            cells = self.b.shape[0]
            key = (cells, self.tt_size, int(self.g[k.G_RULE]))
            kept = _KEPT.get(key) if self.keep else None
            if kept is not None:
                killers, history = kept[2], kept[3]
                killers[:] = 0  # they belong to the last position's plies
                kept[12][:] = 0  # the counter-moves too: answers to this search's moves
                history //= 8  # a hint, fading
                self._sr = kept
                return kept
            self._sr = (
                np.zeros(self.tt_size, dtype=np.uint64),
                np.zeros(self.tt_size, dtype=np.int64),
                np.zeros((k.MAX_PLY, 2), dtype=np.int64),
                np.zeros((2, cells), dtype=np.int64),
                np.zeros((k.MAX_PLY, k.MAX_MOVES), dtype=np.int64),
                np.zeros((k.MAX_PLY, k.MAX_MOVES), dtype=np.int64),
                np.zeros((k.MAX_PLY, k.MAX_PLY), dtype=np.int64),
                np.zeros(k.MAX_PLY, dtype=np.int64),
                np.zeros(k.MAX_PLY, dtype=np.int64),
                np.zeros(VTT_SIZE, dtype=np.uint64),
                np.zeros(VTT_SIZE, dtype=np.int64),
                np.zeros(k.MAX_MOVES, dtype=np.int64),
                np.zeros((2, cells), dtype=np.int64),
            )
            if self.keep:
                _KEPT.clear()  # one set of tables per process
                _KEPT[key] = self._sr
        return self._sr

    @property
    def pns(self) -> tuple[Any, Any]:
        """The proof-number search's table: keys, and two words an entry (half as many
        entries as the transposition table's, 24 bytes each), made on first use only; a
        process memory budget (``tt_size``) does not count it yet."""
        if self._pns is None:
            size = max(self.tt_size // 2, 1 << 10)
            key = (self.b.shape[0], size, int(self.g[k.G_RULE]))
            kept = _PNS_KEPT.get(key) if self.keep else None
            if kept is None:
                kept = (np.zeros(size, dtype=np.uint64), np.zeros(2 * size, dtype=np.int64))
                if self.keep:
                    _PNS_KEPT.clear()
                    _PNS_KEPT[key] = kept
            self._pns = kept
        return self._pns

    def index(self, point: Point) -> int:
        """The kernels' index of ``point``."""
        return (point.y + k.PAD) * self.stride + point.x + k.PAD

    def point(self, index: int) -> Point:
        """The point of a kernels' index."""
        y, x = divmod(int(index), self.stride)
        return Point(x - k.PAD, y - k.PAD)

    @property
    def side(self) -> Color:
        """The side to move."""
        return Color.BLACK if self.g[k.G_SIDE] == 1 else Color.WHITE

    def play_index(self, index: int) -> None:
        """Play the side to move on an empty index (no rule checks)."""
        k.play(*self.st[:9], self.near, self.us, index)

    def undo(self) -> None:
        """Take back the last stone played here."""
        k.undo(*self.st[:9], self.near, self.us)

    def evaluate(self) -> int:
        """The static evaluation from the side to move's view."""
        return int(k.evaluate(self.g, self.hsh))

    def threat(self, color: Color, point: Point) -> int:
        """The threat class (``P4_*``) a stone of ``color`` on ``point`` would make."""
        ci = 0 if color is Color.BLACK else 1
        return int(self.tables.threat[ci, self.cell[self.index(point), k.R_CODE + ci]])

    def forbidden(self, point: Point) -> int:
        """The renju verdict for Black on empty ``point``: 0 legal, 1 overline, 2 4-4, 3 3-3."""
        return int(k.renju_forbidden(self.b, self.stride, self.index(point)))

    def plausible(self, count: int, defence: int = 3) -> list[tuple[Point, int]]:
        """The ``count`` best-looking points near the stones by shape alone (own shapes plus the
        opponent's divided by ``defence``), best first, leaving out Black's forbidden points."""
        me = 0 if self.side is Color.BLACK else 1
        op = 1 - me
        near = (self.b == 0) & (self.near > 0)
        idx = np.nonzero(near)[0]
        own = self.tables.score[me, self.cell[idx, k.R_CODE + me]]
        theirs = self.tables.score[op, self.cell[idx, k.R_CODE + op]]
        values = own.astype(np.int64) + theirs.astype(np.int64) // defence
        order = np.lexsort((idx, -values))
        found: list[tuple[Point, int]] = []
        for i in order:
            index = int(idx[i])
            if me == 0 and self.g[k.G_RULE] == k.RULE_RENJU and self.forbidden_index(index):
                continue
            found.append((self.point(index), int(values[i])))
            if len(found) >= count:
                break
        return found

    def five_points(self, color: Color) -> list[int]:
        """The indexes where ``color`` would make five now."""
        ci = 0 if color is Color.BLACK else 1
        threat = self.tables.threat[ci, self.cell[:, k.R_CODE + ci]]
        return [int(i) for i in np.nonzero((self.b == 0) & (threat == k.P4_FIVE))[0]]

    def has_five_point(self, color: Color) -> bool:
        """Whether ``color`` could make five with one stone (it has a four on the board)."""
        ci = 0 if color is Color.BLACK else 1
        return bool(self.g[k.G_P4 + ci * k.NP4 + k.P4_FIVE] > 0)

    def forbidden_index(self, index: int) -> bool:
        """Whether Black may not play ``index`` under renju (False under other rules)."""
        return bool(k.is_forbidden(self.b, self.g, self.cell, self.tables.maybe_forbidden, index))
