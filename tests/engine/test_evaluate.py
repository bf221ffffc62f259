"""The evaluation's weights (the packaged file, the hand-set set, GOMOKU_EVAL_WEIGHTS) and the
model the tuner fits: pattern counts times weights is the kernels' evaluation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _patterns, tune
from engine.search._position import Position
from engine.search.evaluate import (
    WEIGHTS_ENV,
    Weights,
    build_tables,
    hand_weights,
    load_weights,
    tables,
    weights,
)
from engine.types import Color, Point, Rule

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PACKAGED = Path(__file__).parents[2] / "engine" / "search" / "data" / "eval_weights.json"
CANDIDATE = PACKAGED.with_name("eval_weights_multiset.json")
OUTCOMES = PACKAGED.with_name("eval_weights_outcomes.json")


def _point_value(side: int, pattern: int) -> int:
    # the value of an empty point with ``pattern`` in one direction and nothing in the others
    return int(tables(Rule.FREESTYLE).value[side, pattern])


def test_the_packaged_weights_load() -> None:
    loaded = load_weights(PACKAGED.read_text(), "file")
    assert loaded.pattern.shape == (2, _patterns.NPAT)
    assert loaded.threat.shape == (2, _patterns.NP4)
    assert loaded.pattern.dtype == np.int32
    if WEIGHTS_ENV not in os.environ:  # the learned values are the default
        assert np.array_equal(weights().pattern, loaded.pattern)
        assert np.array_equal(weights().threat, loaded.threat)


def test_the_default_is_fitted_to_a_judges_opinion_and_reaches_the_tables() -> None:
    # since the ninth round: the sixth round's values (fitted to game outcomes, kept beside
    # it) moved towards Rapfi's opinion, at the same tempo and without multiset corrections
    judged = load_weights(PACKAGED.read_text(), "judged")
    previous = load_weights(OUTCOMES.read_text(), "outcomes")
    assert judged.mine == previous.mine == 5
    assert not judged.multiset.any()
    assert not previous.multiset.any()
    assert not np.array_equal(judged.threat, previous.threat)
    assert judged.threat[0, -1] == judged.threat[1, -1] == previous.threat[0, -1] == 1200
    built = build_tables(Rule.FREESTYLE, judged)
    for ci in range(2):
        plain = _patterns.build_code_tables(False, judged.pattern[ci], judged.threat[ci])
        assert np.array_equal(built.value[ci], plain[1])
    if WEIGHTS_ENV not in os.environ:
        assert np.array_equal(tables(Rule.FREESTYLE).value, built.value)


def test_the_candidate_with_multiset_corrections_loads_and_is_used() -> None:
    # the fifth round's candidate (not the default): corrections and mine reach the tables
    candidate = load_weights(CANDIDATE.read_text(), "candidate")
    assert candidate.mine == 7
    assert np.count_nonzero(candidate.multiset) > 500
    built = build_tables(Rule.FREESTYLE, candidate)
    assert built.mine == 7
    for ci in range(2):
        plain = _patterns.build_code_tables(False, candidate.pattern[ci], candidate.threat[ci])
        added = built.value[ci] - plain[1]
        assert np.array_equal(added, candidate.multiset[ci][_patterns.code_multisets()])


@pytest.mark.parametrize("side", [0, 1])
def test_stronger_shapes_are_worth_more(side: int) -> None:
    # a point that makes a straight four beats one that makes a four, which beats an open
    # three and an empty point; a four-three beats a plain four and a three together (a lone
    # open three may be worth less than an empty point: the fit's multiset corrections say so)
    flex4 = _point_value(side, _patterns.F4)
    four = _point_value(side, _patterns.B4)
    three = _point_value(side, _patterns.F3)
    assert flex4 > four > max(three, _point_value(side, _patterns.NONE))
    four_three = int(tables(Rule.FREESTYLE).value[side, _patterns.B4 + 12 * _patterns.F3])
    assert four_three > four + three


def test_the_hand_set_values_are_the_old_constants() -> None:
    hand = hand_weights()
    assert hand.pattern[0].tolist() == [0, 2, 4, 8, 20, 24, 60, 60, 160, 400, 0, 160]
    assert hand.threat[1].tolist() == [0, 0, 10, 20, 40, 150, 60, 100, 350, 700, 1200]


def _with_multiset(data: dict[str, Any]) -> dict[str, Any]:
    for side in ("black", "white"):
        data[side].setdefault("multiset", [0] * _patterns.NMULTI)
    return data


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["black"]["pattern"].pop(),
        lambda d: d["white"]["threat"].__setitem__(3, 1.5),
        lambda d: d["white"]["threat"].__setitem__(3, 1 << 24),
        lambda d: d["white"]["threat"].__setitem__(3, True),
        lambda d: d.pop("white"),
        lambda d: d.__setitem__("black", [1, 2]),
        lambda d: d["black"].__setitem__("threat", 7),
        lambda d: _with_multiset(d)["white"]["multiset"].pop(),
        lambda d: _with_multiset(d)["black"]["multiset"].__setitem__(5, "9"),
        lambda d: _with_multiset(d)["black"]["multiset"].__setitem__(5, -(1 << 21)),
        lambda d: d["white"].__setitem__("multiset", {"0": 1}),
        lambda d: d.__setitem__("mine", 3),
        lambda d: d.__setitem__("mine", 5.5),
        lambda d: d.__setitem__("mine", 9),
    ],
)
def test_a_bad_weights_file_is_refused(change) -> None:
    data = json.loads(PACKAGED.read_text())
    change(data)
    with pytest.raises(ValueError, match="bad: "):
        load_weights(json.dumps(data), "bad")


@pytest.mark.parametrize("text", ["", "[]", "null", "{", '{"black": 1, "white": 2}'])
def test_text_that_is_no_weights_file_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="bad: "):
        load_weights(text, "bad")


def test_a_file_without_multisets_evaluates_by_patterns_and_classes() -> None:
    # the format before the multiset corrections: they are all zero, and a point is worth its
    # four patterns' values plus its class's, as build_code_tables gives them
    data = json.loads(PACKAGED.read_text())
    for side in ("black", "white"):
        data[side].pop("multiset", None)
    old = load_weights(json.dumps(data), "old")
    assert old.multiset.shape == (2, _patterns.NMULTI)
    assert not old.multiset.any()
    built = build_tables(Rule.FREESTYLE, old)
    for ci in range(2):
        structured = _patterns.build_code_tables(False, old.pattern[ci], old.threat[ci])[1]
        assert np.array_equal(built.value[ci], structured)


def test_every_code_maps_to_the_multiset_of_its_patterns() -> None:
    which = _patterns.code_multisets()
    index = {multiset: i for i, multiset in enumerate(_patterns.MULTISETS)}
    for code in range(_patterns.NCODE):
        digits = tuple(sorted(code // _patterns.NPAT**d % _patterns.NPAT for d in range(4)))
        assert which[code] == index[digits]
    assert _patterns.NMULTI == 1365 == len(index)


def test_a_multiset_correction_moves_exactly_its_codes() -> None:
    base = hand_weights()
    multiset = np.zeros((2, _patterns.NMULTI), dtype=np.int32)
    three_two = _patterns.MULTISETS.index(
        (_patterns.NONE, _patterns.NONE, _patterns.F2, _patterns.F3)
    )
    multiset[1, three_two] = -37
    corrected = build_tables(Rule.RENJU, Weights(base.pattern, base.threat, "x", multiset))
    plain = build_tables(Rule.RENJU, base)
    moved = np.nonzero(corrected.value != plain.value)
    assert set(moved[0]) == {1}
    assert len(moved[1]) == 12  # the 4!/2! orders of the patterns over the four directions
    assert np.all(corrected.value[moved] - plain.value[moved] == -37)
    assert np.array_equal(corrected.packed & 15, plain.packed & 15)  # classes unchanged


def _source_under(value: str) -> str:
    code = (
        "from engine.search.evaluate import weights; w = weights(); print(w.source, w.threat[0, 9])"
    )
    env = {**os.environ, WEIGHTS_ENV: value}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_environment_picks_the_weights(tmp_path: Path) -> None:
    assert _source_under("hand") == "hand 700"
    learned = load_weights(PACKAGED.read_text(), "file")
    assert _source_under("learned").split()[1] == str(learned.threat[0, 9])
    assert _source_under("") == _source_under("learned")
    data = json.loads(PACKAGED.read_text())
    data["black"]["threat"][9] = 555
    chosen = tmp_path / "w.json"
    chosen.write_text(json.dumps(data))
    assert _source_under(str(chosen)) == f"{chosen} 555"


@st.composite
def games(draw: st.DrawFn) -> Board:
    """A freestyle game of random moves near the centre, not finished."""
    board = Board(15, Rule.FREESTYLE)
    for _ in range(draw(st.integers(1, 40))):
        point = Point(draw(st.integers(3, 11)), draw(st.integers(3, 11)))
        if board[point] is None and board.outcome is None:
            board.play(point)
    if board.outcome is not None:
        board.undo()
    return board


@SETTINGS
@given(games())
def test_counts_times_weights_is_the_evaluation(board: Board) -> None:
    position = Position.from_board(board, tt_size=16)
    counts = tune.position_counts(position)
    mover = np.array([0 if board.to_move is Color.BLACK else 1])
    mine = weights().mine
    x = tune.design(counts[None], mover, mine).astype(np.float64)
    model = float(x[0] @ tune.theta_of(weights()))
    columns = np.arange(2 * tune.NMULTI)
    flat = tune.multiset_counts(position).ravel()
    (col,) = np.nonzero(flat)
    xm = tune.multiset_design(np.zeros_like(col), col, flat[col], mover, columns, mine)
    model += float(xm[0].astype(np.float64) @ tune.residual_of(weights()))
    # the kernels divide 5 * mine - 4 * theirs by 4 in integers
    assert abs(model - position.evaluate()) < 1


def _slow_multiset_counts(position: Position) -> list[list[int]]:
    # each empty point's four patterns, read one by one and looked up as a sorted tuple
    counts = [[0] * _patterns.NMULTI for _ in range(2)]
    for y in range(position.height):
        for x in range(position.width):
            p = position.index(Point(x, y))
            if position.b[p] != 0:
                continue
            for side in range(2):
                pats = sorted(int(position.cell[p, 4 + 4 * side + d]) for d in range(4))
                counts[side][_patterns.MULTISETS.index(tuple(pats))] += 1
    return counts


@SETTINGS
@given(
    games(),
    st.lists(st.integers(-300, 300), min_size=2 * tune.NFEAT, max_size=2 * tune.NFEAT),
    st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, _patterns.NMULTI - 1), st.integers(-500, 500)),
        max_size=40,
    ),
    st.integers(4, 8),
)
def test_multiset_counts_times_any_weights_is_the_evaluation(
    board: Board, theta: list[int], corrections: list[tuple[int, int, int]], mine: int
) -> None:
    # random values for every pattern and class and random corrections, many of them on the
    # multisets the position has: the model built from the counts is the kernels' evaluation
    position = Position.from_board(board, tt_size=16)
    slow = _slow_multiset_counts(position)
    counts = tune.multiset_counts(position)
    assert counts.tolist() == slow
    assert np.array_equal(counts @ tune.STRUCTURE, tune.position_counts(position))
    values = np.array(theta, dtype=np.int32).reshape(2, tune.NFEAT)
    multiset = np.zeros((2, tune.NMULTI), dtype=np.int32)
    present = np.nonzero(counts)
    for side, i, value in corrections:
        multiset[side, i] = value
        j = i % len(present[0])  # and one the position surely has
        multiset[present[0][j], present[1][j]] = value
    w = Weights(values[:, : _patterns.NPAT], values[:, _patterns.NPAT :], "random", multiset, mine)
    replay = Position(15, 15, build_tables(Rule.FREESTYLE, w), tt_size=16)
    for move in board.moves:
        replay.play_index(replay.index(move.point))
    mover = np.array([0 if board.to_move is Color.BLACK else 1])
    x = tune.design(counts[None] @ tune.STRUCTURE, mover, mine).astype(np.float64)
    flat = counts.ravel()
    (col,) = np.nonzero(flat)
    xm = tune.multiset_design(np.zeros_like(col), col, flat[col], mover, col, mine)
    model = float(x[0] @ tune.theta_of(w)) + float(xm[0] @ tune.residual_of(w)[col])
    assert abs(model - replay.evaluate()) < 1


def test_quiet_positions() -> None:
    def quiet(moves: str) -> bool:
        return tune.quiet(Position.from_board(Board.from_moves(moves), tt_size=16))

    assert quiet("h8 i9 h9")
    assert not quiet("h8 a1 h9 a2 h10 a3 h11")  # Black's four: White must block
    assert not quiet("h8 a1 h9 a2 h10 b5")  # Black to move makes a straight four
    assert quiet("h8 a1 h9 a2 h10")  # White to move, and must stop the three


def test_the_fit_finds_planted_weights() -> None:
    rng = np.random.default_rng(7)
    n = 30_000
    counts = rng.poisson(3.0, size=(n, 2, tune.NFEAT)).astype(np.int16)
    mover = rng.integers(0, 2, size=n).astype(np.int8)
    x = tune.design(counts, mover)
    xd = x.astype(np.float64)
    free = tune.free_mask()
    truth = np.where(free, rng.normal(0, 40, size=2 * tune.NFEAT), 5.0)
    scale = 300.0
    p = 1 / (1 + np.exp(-(xd @ truth) / scale))
    y = (rng.random(n) < p).astype(np.float64)
    start = np.where(free, 0.0, 5.0)
    theta, steps = tune.fit(x, y, scale, start, np.zeros(2 * tune.NFEAT))
    assert steps < 50
    assert np.max(np.abs(theta - truth)) < 15  # of values spread over +-100
    assert np.array_equal(theta[~free], start[~free])
    assert tune.loss(xd @ theta, y, scale) <= tune.loss(xd @ truth, y, scale)
    assert abs(tune.fit_scale(xd @ truth, y) - scale) < 0.1 * scale


def test_the_weights_file_round_trips() -> None:
    theta = tune.theta_of(hand_weights()) + 0.4
    loaded = load_weights(tune.weights_json(theta, {"positions": 1}), "new")
    assert np.array_equal(tune.theta_of(loaded), np.round(theta))
    assert not loaded.multiset.any()
    residual = np.random.default_rng(3).normal(0, 50, size=2 * tune.NMULTI)
    text = tune.weights_json(theta, {"positions": 1}, residual)
    loaded = load_weights(text, "new")
    assert np.array_equal(tune.residual_of(loaded), np.round(residual))
    assert np.array_equal(tune.theta_of(loaded), np.round(theta))
    assert '"multiset"' not in tune.weights_json(theta, {}, residual * 0.001)  # all round to 0
    assert loaded.mine == 5
    assert load_weights(tune.weights_json(theta, {}, None, 6), "new").mine == 6


def test_the_residual_fit_finds_planted_corrections() -> None:
    rng = np.random.default_rng(11)
    n, m = 40_000, 12
    x = rng.poisson(2.0, size=(n, m)).astype(np.float32) * rng.choice([1.25, -1.0], size=(n, 1))
    z0 = rng.normal(0, 400, size=n)
    truth = rng.normal(0, 60, size=m)
    scale = 300.0
    y = (rng.random(n) < 1 / (1 + np.exp(-(z0 + x @ truth) / scale))).astype(np.float64)
    r, steps = tune.fit_residual(x, y, scale, z0, 0.0)
    assert steps < 30
    assert np.max(np.abs(r - truth)) < 12
    pulled, _ = tune.fit_residual(x, y, scale, z0, 1e-4)  # a strong pull keeps them near zero
    assert np.max(np.abs(pulled)) < 0.5 * np.max(np.abs(r))
