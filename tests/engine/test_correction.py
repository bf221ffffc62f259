"""The correction history (``GOMOKU_CORR``, ``_tree._corrected``): each table is keyed by the
trait it names and by the side to move, an entry moves towards the searched value's excess by
its rate and stays within its limit, the leaves and the pruning read the corrected value, and a
search with the tables on fills exactly the tables it names."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _kernels as k
from engine.search import _tree as t
from engine.search import alphabeta
from engine.search._layout import CORR_N, CORR_TABLES, CORR_UNIT, G_CORR_T
from engine.search._position import Position
from engine.search.alphabeta import Limits, SearchOptions, search
from engine.types import Point, Rule
from tests.engine.test_threats import crowded
from tests.scale import examples

SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _traits(board: Board, table: int) -> tuple[int, ...]:
    # what table ``table`` is keyed by, read off the position as the kernels keep it
    pos = Position.from_board(board)
    g = pos.g
    me = int(g[k.G_SIDE]) - 1
    if table == 0:
        counts = tuple(
            min(int(g[k.G_P4 + side * k.NP4 + c]), 7)
            for side in (me, 1 - me)
            for c in range(k.P4_F3, k.P4_FIVE)
        )
        return (me, *counts)
    moves = tuple(pos.index(m.point) for m in board.moves[-2:])
    return (me, moves[-1]) if table == 1 else (me, *moves)


def _slot(board: Board, table: int) -> int:
    pos = Position.from_board(board)
    return int(t._corr_slot(pos.st, pos.g, table, int(pos.g[k.G_SIDE]) - 1))


@SETTINGS
@given(crowded(), crowded(), st.integers(0, CORR_TABLES - 1))
def test_alike_nodes_share_an_entry_and_each_side_has_its_own(
    one: Board, other: Board, table: int
) -> None:
    if not one.moves or not other.moves or one.width != other.width:
        return
    a, b = _slot(one, table), _slot(other, table)
    for board, slot in ((one, a), (other, b)):
        me = 0 if len(board.moves) % 2 == 0 else 1
        start = G_CORR_T + (table * 2 + me) * CORR_N
        assert start <= slot < start + CORR_N
    if _traits(one, table) == _traits(other, table):
        assert a == b


def test_the_threats_table_tells_a_three_from_none() -> None:
    # the same last move and side to move; one position has an open three, the other none
    quiet = Board(15, Rule.FREESTYLE)
    three = Board(15, Rule.FREESTYLE)
    for x, y in ((7, 7), (0, 0), (8, 7), (0, 2), (12, 12)):
        quiet.play(Point(x, y))
    for x, y in ((7, 7), (0, 0), (8, 7), (0, 2), (9, 7)):
        three.play(Point(x, y))
    assert _traits(quiet, 0) != _traits(three, 0)
    assert _slot(quiet, 0) != _slot(three, 0)


def _position(bits: int, rate: int = 16, limit: int = 400) -> Position:
    board = Board(15, Rule.FREESTYLE)
    for x, y in ((7, 7), (8, 8), (7, 8), (6, 6), (9, 6)):
        board.play(Point(x, y))
    pos = Position.from_board(board)
    pos.g[k.G_CORR] = bits
    pos.g[k.G_CORR_RATE] = rate
    pos.g[k.G_CORR_LIMIT] = limit
    return pos


@SETTINGS
@given(st.integers(0, 7), st.lists(st.integers(-25_600, 25_600), min_size=3, max_size=3))
def test_the_static_value_is_corrected_by_the_named_tables(bits: int, entries: list[int]) -> None:
    pos = _position(bits)
    me = int(pos.g[k.G_SIDE]) - 1
    want = 0
    for table, entry in enumerate(entries):
        pos.g[int(t._corr_slot(pos.st, pos.g, table, me))] = entry
        if bits >> table & 1:
            want += entry
    raw = int(t.evaluate(pos.g, pos.hsh))
    assert int(t._corrected(pos.st, pos.g, pos.hsh)) == raw + want // CORR_UNIT
    # a leaf at the horizon (no four on the board, so no probe) returns the corrected value
    assert int(t._static(pos.st, pos.sr, 0, 1, -k.INF, k.INF)) == raw + want // CORR_UNIT


@SETTINGS
@given(
    st.integers(1, 7),
    st.integers(1, 12),
    st.integers(-3_000, 3_000),
    st.integers(1, 256),
    st.integers(1, 1_000),
)
def test_an_update_moves_each_named_entry_by_its_rate_within_the_limit(
    bits: int, depth: int, diff: int, rate: int, limit: int
) -> None:
    pos = _position(bits, rate, limit)
    me = int(pos.g[k.G_SIDE]) - 1
    slots = [int(t._corr_slot(pos.st, pos.g, table, me)) for table in range(CORR_TABLES)]
    before = pos.g.copy()
    t._corr_update(pos.st, pos.g, depth, diff)
    clipped = min(max(diff, -limit), limit)
    tables = bin(bits).count("1")
    step = clipped * CORR_UNIT * min(min(depth, 8) * rate, 256) // (256 * tables)
    for table, slot in enumerate(slots):
        if bits >> table & 1:
            assert pos.g[slot] == min(max(step, -limit * CORR_UNIT), limit * CORR_UNIT)
    changed = set(np.flatnonzero(pos.g != before).tolist())
    assert changed <= {s for table, s in enumerate(slots) if bits >> table & 1}
    # fed the remaining difference from a value, as the search feeds it, the tables' sum comes
    # to that value (each entry within the limit), never passing it by a unit or more
    if rate * min(depth, 8) >= 16:
        for slot in slots:
            pos.g[slot] = 0
        target = min(max(diff, -limit * tables), limit * tables)
        low, high = (min(0, target) - 1) * CORR_UNIT, (max(0, target) + 1) * CORR_UNIT
        for _ in range(600):
            got = int(t._corrected(pos.st, pos.g, pos.hsh)) - int(t.evaluate(pos.g, pos.hsh))
            t._corr_update(pos.st, pos.g, depth, diff - got)
            total = sum(int(pos.g[s]) for i, s in enumerate(slots) if bits >> i & 1)
            assert low <= total <= high
        got = int(t._corrected(pos.st, pos.g, pos.hsh)) - int(t.evaluate(pos.g, pos.hsh))
        assert abs(got - target) <= tables


def _middle_game() -> Board:
    board = Board(15, Rule.FREESTYLE)
    for move in ("h8", "i9", "h9", "i10", "h10", "h11", "j8", "g9", "i8"):
        board.play(Point.parse(move))
    return board


_BUILD = Position.from_board


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[Position]:
    """The positions the searches build, newest last."""
    positions: list[Position] = []

    def spy(board: Board, *args: Any, **kwargs: Any) -> Position:
        pos = _BUILD(board, *args, **kwargs)
        positions.append(pos)
        return pos

    monkeypatch.setattr(Position, "from_board", staticmethod(spy))
    return positions


@pytest.mark.parametrize("bits", [0, 1, 2, 4, 7])
def test_a_search_fills_exactly_the_tables_it_names(
    bits: int, made: list[Position], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(alphabeta, "_CORR", bits)
    # White is lost here: the root defence held to the threes leaves it one move, which is
    # played unsearched, so the defence is held to the fours alone and the main search runs
    result = search(_middle_game(), Limits(nodes=60_000), SearchOptions(then_vct=0))
    assert result.move is not None
    assert result.depth > 0
    g = made[-1].g
    limit = int(g[k.G_CORR_LIMIT]) * CORR_UNIT
    for table in range(CORR_TABLES):
        rows = g[G_CORR_T + table * 2 * CORR_N : G_CORR_T + (table + 1) * 2 * CORR_N]
        assert int(np.abs(rows).max()) <= limit
        assert bool(rows.any()) == bool(bits >> table & 1)


def test_the_levels_below_master_never_correct(monkeypatch: pytest.MonkeyPatch) -> None:
    # the setting is read with the policy only (master's search): a search without it is the
    # search as it was, node for node
    board = _middle_game()
    options = SearchOptions(policy=False)
    plain = search(board, Limits(nodes=30_000), options)
    monkeypatch.setattr(alphabeta, "_CORR", 7)
    corrected = search(board, Limits(nodes=30_000), options)
    assert (corrected.move, corrected.nodes, corrected.score) == (
        plain.move,
        plain.nodes,
        plain.score,
    )


def test_a_search_that_keeps_its_tables_takes_up_the_last_ones(
    made: list[Position], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(alphabeta, "_CORR", 1)
    region = slice(G_CORR_T, k.NG)
    board = _middle_game()
    for keep in (False, True):
        monkeypatch.setattr(alphabeta, "_CORR_KEEP", int(keep))
        alphabeta.forget_tables()
        search(board, Limits(nodes=30_000), SearchOptions(keep_tt=True))
        first = made[-1].g[region].copy()
        assert first.any()
        # the next search, before it learns anything: the last one's tables, or none
        taken = _BUILD(board, keep=True)
        taken.keep_corrections()
        assert np.array_equal(taken.g[region], first) == keep
        assert taken.g[region].any() == keep
