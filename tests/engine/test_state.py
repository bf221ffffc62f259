"""Taking stones back: after any walk of plays and undos, the kernels' state is exactly the
state of the same stones played forward from an empty board."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.evaluate import tables
from engine.types import Rule
from tests.scale import examples

SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
RULES = (Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU, Rule.CARO)


@st.composite
def walks(draw: st.DrawFn) -> tuple[Rule, int, list[int | None]]:
    """A rule, a board size and a walk: a point to play (an index into the empty points, so
    stones may crowd an edge or a corner) or ``None`` to take the last stone back."""
    rule = draw(st.sampled_from(RULES))
    size = draw(st.sampled_from((15, 9)))
    steps = draw(st.lists(st.one_of(st.integers(0, size * size - 1), st.none()), max_size=60))
    return rule, size, steps


def _forward(rule: Rule, size: int, stones: list[int]) -> Position:
    position = Position(size, size, tables(rule))
    for index in stones:
        position.play_index(index)
    return position


def _empty_points(position: Position, size: int) -> list[int]:
    return [
        (y + k.PAD) * position.stride + x + k.PAD
        for y in range(size)
        for x in range(size)
        if position.b[(y + k.PAD) * position.stride + x + k.PAD] == 0
    ]


def _walked(rule: Rule, size: int, steps: list[int | None]) -> tuple[Position, list[int]]:
    # the position after a walk's plays and undos, and the stones on it in the order played
    position = Position(size, size, tables(rule))
    stones: list[int] = []
    for step in steps:
        if step is None:
            if stones:
                position.undo()
                stones.pop()
            continue
        empty = _empty_points(position, size)
        if empty:
            index = empty[step % len(empty)]
            position.play_index(index)
            stones.append(index)
    return position, stones


@given(walks())
@SETTINGS
def test_any_walk_of_plays_and_undos_leaves_the_state_of_its_stones_played_forward(
    walk: tuple[Rule, int, list[int | None]],
) -> None:
    rule, size, steps = walk
    position, stones = _walked(rule, size, steps)
    want = _forward(rule, size, stones)
    assert np.array_equal(position.b, want.b)
    assert np.array_equal(position.cell, want.cell)
    assert np.array_equal(position.near, want.near)
    assert position.hsh[0] == want.hsh[0]
    assert position.side is want.side
    moved = int(position.g[k.G_NMOVES])
    assert moved == len(stones)
    assert np.array_equal(position.ms[:moved], want.ms[:moved])
    counted = np.ones(k.NG, dtype=bool)
    counted[k.G_NODES] = False  # an undo takes no node back
    assert np.array_equal(position.g[counted], want.g[counted])
    assert position.evaluate() == want.evaluate()


@given(walks())
@example((Rule.CARO, 15, [121, 0, 120, 0, 119]))  # Black's open three b9 c9 d9: g9 stops it
@SETTINGS
def test_the_scans_find_every_threat_point_and_every_candidate_in_board_order(
    walk: tuple[Rule, int, list[int | None]],
) -> None:
    rule, size, steps = walk
    position, _ = _walked(rule, size, steps)
    threat = position.tables.threat
    board = [(y + k.PAD) * position.stride + x + k.PAD for y in range(size) for x in range(size)]
    empty = [p for p in board if position.b[p] == 0]
    out = np.zeros(k.MAX_MOVES, dtype=np.int64)
    for ci in range(2):
        for level in (k.P4_F3, k.P4_B4, k.P4_FLEX4, k.P4_FIVE):
            n = k._scan(position.b, position.cell, position.g, threat, ci, level, out)
            want = [p for p in empty if threat[ci, position.cell[p, k.R_CODE + ci]] >= level]
            assert out[:n].tolist() == want
    want = [
        p
        for p in empty
        if max(threat[c, position.cell[p, k.R_CODE + c]] for c in range(2)) >= k.P4_B4
    ]
    for me in range(2):
        n = k._defences(position.st, me, out)
        assert out[: len(want)].tolist() == want
        # caro adds the points that stop an open three from beyond its four points, after
        # the scan's (tests/engine/test_exact_defences.py checks them by the rules); they are
        # there only where the opponent has a straight-four point
        beyond = out[len(want) : n].tolist()
        straight = [
            p for p in empty if threat[1 - me, position.cell[p, k.R_CODE + 1 - me]] >= k.P4_FLEX4
        ]
        if rule is not Rule.CARO or not straight:
            assert beyond == []
        assert not set(beyond) & set(want)
        assert len(set(beyond)) == len(beyond)
    y0, y1, x0, x1 = k._box(position.g)
    inside = {
        (y + k.PAD) * position.stride + x + k.PAD
        for y in range(y0, y1 + 1)
        for x in range(x0, x1 + 1)
    }
    assert {p for p in empty if position.near[p] > 0} <= inside


@given(walks())
@SETTINGS
def test_the_sums_before_the_last_move_are_its_stones_but_the_last_played_forward(
    walk: tuple[Rule, int, list[int | None]],
) -> None:
    rule, size, steps = walk
    position, stones = _walked(rule, size, steps)
    before = _forward(rule, size, stones[:-1])
    assert list(position.g[k.G_PVAL : k.G_PVAL + 2]) == list(before.g[k.G_VAL : k.G_VAL + 2])
    # averaged, the evaluation reads the mean of the two positions' sums and nothing else
    position.g[k.G_EVAL_AVG] = 1
    averaged = position.evaluate()
    for side in range(2):
        position.g[k.G_VAL + side] = (position.g[k.G_VAL + side] + before.g[k.G_VAL + side]) >> 1
    position.g[k.G_EVAL_AVG] = 0
    assert position.evaluate() == averaged


@given(st.sampled_from(RULES), st.lists(st.integers(0, 10_000), max_size=30))
@SETTINGS
def test_a_search_roots_sums_before_the_last_move_are_the_board_s_without_it(
    rule: Rule, picks: list[int]
) -> None:
    board = Board(15, rule)
    for pick in picks:
        legal = board.legal_moves()
        if board.outcome is not None or not legal:
            break
        board.play(legal[pick % len(legal)])
    root = Position.from_board(board)
    stones = [root.index(move.point) for move in board.moves]
    want = list(_forward(rule, 15, stones[:-1]).g[k.G_VAL : k.G_VAL + 2])
    assert list(root.g[k.G_PVAL : k.G_PVAL + 2]) == want
    # a move searched and taken back leaves the root as it was
    empty = _empty_points(root, 15)
    root.play_index(empty[0])
    root.undo()
    assert list(root.g[k.G_PVAL : k.G_PVAL + 2]) == want
