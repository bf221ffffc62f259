"""The evaluation's weights (the packaged file, the hand-set set, GOMOKU_EVAL_WEIGHTS) and the
model the tuner fits: pattern counts times weights is the kernels' evaluation."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _kernels as k
from engine.search import _patterns
from engine.search._position import Position
from engine.search.evaluate import (
    NET_RULES,
    NET_RULES_ENV,
    POLICY_RULES,
    POLICY_RULES_ENV,
    WEIGHTS_ENV,
    Network,
    Policy,
    Weights,
    build_tables,
    hand_weights,
    load_weights,
    policy,
    tables,
    weights,
    with_policy,
)
from engine.types import Color, Point, Rule
from tests.scale import examples
from tools import tune

SETTINGS = settings(
    max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
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
    # the values fitted to game outcomes (kept beside it) moved towards Rapfi's opinion, at the
    # same tempo and without multiset corrections
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
    # the candidate with multiset corrections (not the default): they and mine reach the tables
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


@pytest.mark.slow
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
    # the sums alone: the packaged network (test_the_network_is_the_kernels_evaluation) off
    linear = dataclasses.replace(weights(), net=None)
    position = Position(15, 15, build_tables(Rule.FREESTYLE, linear), tt_size=16)
    for move in board.moves:
        position.play_index(position.index(move.point))
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


# --------------------------------------------------------------------------- the network


@st.composite
def networks(draw: st.DrawFn) -> dict[str, Any]:
    """A random evaluation network of 1 to 8 units, its input weights sized so that every
    input moves its units (the sums are a thousand times the counts)."""
    hidden = draw(st.integers(1, 8))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    size = np.r_[np.full(2 * 11, 0.3), 3e-4, 3e-4, 1.0]
    return {
        "w1": (rng.normal(size=(hidden, tune.NET_IN)) * size).tolist(),
        "b1": rng.normal(size=hidden).tolist(),
        "w2": rng.normal(size=hidden).tolist(),
        "b2": float(rng.normal()),
        "scale": draw(st.sampled_from([500.0, 1000.0, 1226.0])),
    }


def _with_net(net: dict[str, Any]) -> Weights:
    data = json.loads(PACKAGED.read_text())
    data["net"] = net
    return load_weights(json.dumps(data), "net")


def _fixed_point(slots: np.ndarray, x: list[int]) -> int:
    # the kernels' arithmetic in Python's integers: fixed-point units, ReLU, the cap, the shift
    hidden, bias = int(slots[0]), int(slots[1])
    row = k.NET_ROW
    rows = slots[k.G_NET_W - k.G_NET :][: hidden * row].reshape(hidden, row)
    total = 0
    for unit in rows:
        h = int(unit[k.NET_IN]) + sum(int(w) * v for w, v in zip(unit[: k.NET_IN], x, strict=True))
        if h > 0:
            total += min(h, k.NET_HIDDEN_MAX) * int(unit[k.NET_IN + 1])
    return max(-k.NET_CLIP, min(k.NET_CLIP, (total >> (k.NET_SHIFT + k.NET_OUT_SHIFT)) + bias))


@SETTINGS
@given(games(), networks())
def test_the_network_is_the_kernels_evaluation(board: Board, net: dict[str, Any]) -> None:
    w = _with_net(net)
    assert w.net is not None
    position = Position(15, 15, build_tables(Rule.FREESTYLE, w), tt_size=16)
    for move in board.moves:
        position.play_index(position.index(move.point))
    counts = tune.position_counts(position)[None]
    mover = np.array([0 if board.to_move is Color.BLACK else 1])
    x = tune.net_inputs(counts, mover, w)
    # the inputs the model reads are the kernels' running counts and sums
    g = position.g
    me = int(mover[0])
    mine = k.G_P4 + me * k.NP4
    assert x[0, : k.NP4].tolist() == g[mine : mine + k.NP4].tolist()
    assert x[0, 22:24].tolist() == [g[k.G_VAL + me], g[k.G_VAL + 1 - me]]
    assert x[0, 24] == (board.to_move is Color.BLACK)
    # exactly the fixed-point sum, and within rounding of the floating-point network
    slots = build_tables(Rule.FREESTYLE, w).net
    assert position.evaluate() == _fixed_point(slots, [int(v) for v in x[0]])
    expected = float(tune.net_logits(w.net, x)[0]) * net["scale"]
    # each weight is rounded by at most half its unit: what that moves a unit, times what the
    # unit weighs, plus the output weights' and bias's rounding and the final shift
    unit = 2.0**-k.NET_SHIFT
    hidden = np.maximum(x[0] @ w.net.w1.T + w.net.b1, 0)
    drift = 0.5 * unit * (np.abs(x[0]).sum() + 1)
    bound = 1.5 + float(
        np.sum(np.abs(w.net.w2) * net["scale"] * drift + (hidden + drift) * 2.0**-9)
    )
    assert abs(position.evaluate() - max(-k.NET_CLIP, min(k.NET_CLIP, expected))) <= bound


@SETTINGS
@given(games(), networks())
def test_the_averaged_sums_are_the_trainers(board: Board, net: dict[str, Any]) -> None:
    # GOMOKU_EVAL_AVG: the network reads the mean of the sums before and after the last move,
    # which tools/tune_eval.py net --average fits from the counts of both positions
    w = _with_net(net)
    t = build_tables(Rule.FREESTYLE, w)
    position = Position(15, 15, t, tt_size=16)
    parent = Position(15, 15, t, tt_size=16)
    for i, move in enumerate(board.moves):
        position.play_index(position.index(move.point))
        if i < len(board.moves) - 1:
            parent.play_index(parent.index(move.point))
    mover = np.array([0 if board.to_move is Color.BLACK else 1])
    counts = tune.position_counts(position)[None]
    x = tune.net_inputs(counts, mover, w, tune.position_counts(parent)[None])
    g, me = position.g, int(mover[0])
    sums = [(g[k.G_VAL + s] + parent.g[k.G_VAL + s]) // 2 for s in (me, 1 - me)]
    assert x[0, 22:24].tolist() == sums
    assert x[0, :22].tolist() == tune.net_inputs(counts, mover, w)[0, :22].tolist()
    slots = t.net
    plain = position.evaluate()
    position.g[k.G_EVAL_AVG] = 1
    assert position.evaluate() == _fixed_point(slots, [int(v) for v in x[0]])
    position.g[k.G_EVAL_AVG] = 0
    assert position.evaluate() == plain


def test_a_network_changes_the_evaluation_and_none_leaves_it() -> None:
    board = Board.from_moves("h8 i9 h9 i10 j8")
    plain = Position.from_board(board, tt_size=16)
    net = {"w1": [[0.0] * tune.NET_IN], "b1": [1.0], "w2": [0.5], "b2": -0.25, "scale": 1000}
    w = _with_net(net)
    position = Position(15, 15, build_tables(Rule.FREESTYLE, w), tt_size=16)
    for move in board.moves:
        position.play_index(position.index(move.point))
    assert position.evaluate() == 250  # (relu(1) * 0.5 - 0.25) logits of 1000
    assert plain.evaluate() != 250
    assert build_tables(Rule.FREESTYLE, hand_weights()).net[0] == 0  # none without a network


PACKAGED_ONLY = pytest.mark.skipif(
    WEIGHTS_ENV in os.environ, reason="the packaged weights are not this process's"
)


def test_the_default_network_serves_the_rules_it_was_measured_in() -> None:
    packaged = load_weights(PACKAGED.read_text(), "packaged")
    assert packaged.net is not None
    assert packaged.net.w1.shape == (16, tune.NET_IN)
    fit = json.loads(PACKAGED.read_text())["fit"]
    assert fit["loss_net"] < fit["loss_linear"] - 0.05  # on the judge's held-out positions
    assert {Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU} == NET_RULES
    for rule in Rule:
        assert build_tables(rule, packaged).net[0] == (16 if rule in NET_RULES else 0), rule
        assert not build_tables(rule, packaged).net.any() or rule in NET_RULES
    # renju keeps the network that was measured in its rule; standard plays freestyle's
    assert set(packaged.nets) == {Rule.RENJU}
    assert not np.array_equal(packaged.nets[Rule.RENJU].w1, packaged.net.w1)
    standard = build_tables(Rule.STANDARD, packaged).net
    assert np.array_equal(standard, build_tables(Rule.FREESTYLE, packaged).net)
    assert not np.array_equal(build_tables(Rule.RENJU, packaged).net, standard)


@pytest.mark.parametrize(
    ("setting", "chosen"),
    [
        ("standard", {Rule.STANDARD}),
        ("caro,renju", {Rule.CARO, Rule.RENJU}),
        ("standard,nonsense,", {Rule.STANDARD}),  # names that are no rule are left out
        ("nonsense", None),  # and with none left, the shipped sets
        ("", None),
    ],
)
def test_the_rules_with_the_learned_parts_can_be_chosen_for_measuring(
    monkeypatch: pytest.MonkeyPatch, setting: str, chosen: set[Rule] | None
) -> None:
    packaged = load_weights(PACKAGED.read_text(), "packaged")
    ones = Policy(np.ones((k.NPAT * k.NPAT, 2)), np.zeros(2), np.ones(2), "ones")
    monkeypatch.setenv(NET_RULES_ENV, setting)
    monkeypatch.setenv(POLICY_RULES_ENV, setting)
    for rule in Rule:
        with_net = build_tables(rule, packaged).net[0] == 16
        ordered = with_policy(build_tables(rule, packaged), ones).policy_features == 2
        assert with_net == (rule in (chosen or NET_RULES)), rule
        assert ordered == (rule in (chosen or POLICY_RULES)), rule


@PACKAGED_ONLY
def test_only_master_searches_with_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    # the levels below master were spaced without it: with the network off, a search is the
    # search of the same values without a network, node for node
    from engine.search import _position
    from engine.search.alphabeta import Limits, SearchOptions, search
    from engine.search.levels import PRESETS, Level, choose_move

    assert [level for level, preset in PRESETS.items() if preset.network] == [Level.MASTER]
    # hard stops at its node count, never at its wall-clock cap, on however loaded a host
    monkeypatch.setitem(
        PRESETS, Level.HARD, dataclasses.replace(PRESETS[Level.HARD], time_ms=600_000)
    )
    board = Board.from_moves("h8 i9 h9 i10 j8 g8")
    limits = Limits(nodes=3000)

    def both() -> list[tuple[Any, ...]]:
        results = (
            search(board, limits, SearchOptions(network=False)),
            search(board, limits),
            choose_move(board, Level.HARD, seed=3),
        )
        return [(r.move, r.score, r.depth, r.nodes, r.pv) for r in results]

    with_net = both()
    plain = dataclasses.replace(load_weights(PACKAGED.read_text(), "packaged"), net=None)
    monkeypatch.setattr(
        _position, "tables", lambda rule: with_policy(build_tables(rule, plain), policy())
    )
    without = both()
    assert with_net[0] == without[0]  # off: the same search
    assert with_net[2] == without[2]  # hard: the same move, score and nodes
    assert with_net[1][1] != without[1][1]  # on: another evaluation


@pytest.mark.parametrize(
    "change",
    [
        lambda n: n.__setitem__("w1", [[0.0] * (tune.NET_IN - 1)]),
        lambda n: n.__setitem__("w1", [0.0] * tune.NET_IN),
        lambda n: n.__setitem__("w1", [[0.0] * tune.NET_IN] * (k.NET_MAX + 1)),
        lambda n: n.__setitem__("b1", [0.0, 0.0]),
        lambda n: n.__setitem__("w2", ["x"]),
        lambda n: n.__setitem__("b2", float("nan")),
        lambda n: n["w1"][0].__setitem__(3, 100.0),
        lambda n: n.__setitem__("scale", 0),
        lambda n: n.__setitem__("w2", [70.0]),
        lambda n: n.pop("b1"),
    ],
)
def test_a_bad_network_is_refused(change) -> None:
    net = {"w1": [[0.0] * tune.NET_IN], "b1": [1.0], "w2": [0.5], "b2": 0.0, "scale": 1000}
    change(net)
    data = json.loads(PACKAGED.read_text())
    data["net"] = net
    with pytest.raises(ValueError, match="bad: "):
        load_weights(json.dumps(data), "bad")


def _random_inputs(rng: np.random.Generator, n: int) -> npt.NDArray[np.float64]:
    # n rows of the network's inputs: threat-class counts, the two sums, Black to move
    x = np.zeros((n, tune.NET_IN))
    x[:, :22] = rng.poisson(0.7, size=(n, 22))
    x[:, 22:24] = rng.normal(0, 500, size=(n, 2))
    x[:, 24] = rng.integers(0, 2, n)
    return x


def test_the_network_learns_what_no_sum_can() -> None:
    # the judge's verdict hangs on an interaction: an open three wins for the side to move
    # unless the other side has a four, and the four alone is worth nothing. A logistic
    # regression on the same inputs cannot express it; the network must
    rng = np.random.default_rng(3)
    n = 6000
    x = _random_inputs(rng, n)
    three, four = x[:, k.P4_F3] > 0, x[:, 11 + k.P4_B4] > 0
    y = np.where(three & ~four, 0.95, 0.3)
    valid = np.arange(n) % 5 == 0
    net, epoch, history = tune.fit_net(x, y, valid, hidden=8, epochs=30, seed=1)
    assert 0 <= epoch < 30
    assert len(history) == 30
    held = tune.loss(tune.net_logits(net, x)[valid], y[valid], 1.0)
    floor = tune.loss(np.log(y / (1 - y))[valid], y[valid], 1.0)  # the labels' own entropy
    linear = _best_linear_loss(x[~valid], y[~valid], x[valid], y[valid])
    assert held < floor + 0.02
    assert linear > floor + 0.05


def test_a_rows_weight_is_how_much_its_verdict_counts() -> None:
    # the same inputs judged both ways: rows of one kind won, of the other lost. Counted
    # equally the fit calls them even; the won rows counted three times, three to one
    rng = np.random.default_rng(4)
    n = 4000
    x = _random_inputs(rng, n)
    won = np.arange(n) % 2 == 0
    y = np.where(won, 1.0, 0.0)
    valid = np.arange(n) % 5 == 0
    even, _, _ = tune.fit_net(x, y, valid, hidden=4, epochs=15, seed=2)
    weighted, _, _ = tune.fit_net(
        x, y, valid, hidden=4, epochs=15, seed=2, weight=np.where(won, 3.0, 1.0)
    )
    chance = 1 / (1 + np.exp(-tune.net_logits(even, x)))
    assert abs(float(np.mean(chance)) - 0.5) < 0.05
    chance = 1 / (1 + np.exp(-tune.net_logits(weighted, x)))
    assert abs(float(np.mean(chance)) - 0.75) < 0.05
    # the weighted loss is the mean over rows counted that often
    z = tune.net_logits(weighted, x)
    repeated = np.concatenate([z, z[won], z[won]]), np.concatenate([y, y[won], y[won]])
    assert tune.loss(z, y, 1.0, np.where(won, 3.0, 1.0)) == pytest.approx(tune.loss(*repeated, 1.0))


def _best_linear_loss(x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray) -> float:
    # logistic regression by Newton's method: the best any weighted sum of the inputs does
    mean, spread = x.mean(axis=0), x.std(axis=0) + 1e-9
    a = np.c_[(x - mean) / spread, np.ones(len(x))]
    av = np.c_[(xv - mean) / spread, np.ones(len(xv))]
    theta = np.zeros(a.shape[1])
    for _ in range(25):
        p = 1 / (1 + np.exp(-a @ theta))
        hessian = a.T @ (a * (p * (1 - p))[:, None]) + 1e-6 * np.eye(a.shape[1])
        theta -= np.linalg.solve(hessian, a.T @ (p - y))
    return tune.loss(av @ theta, yv, 1.0)


def test_the_network_file_round_trips() -> None:
    rng = np.random.default_rng(5)
    net = Network(
        rng.normal(size=(3, tune.NET_IN)) * 0.1, rng.normal(size=3), rng.normal(size=3), 0.125, 900
    )
    base = weights()
    text = tune.net_json(tune.theta_of(base), base.mine, net, {"loss_net": 0.5}, "learned")
    loaded = load_weights(text, "net")
    assert loaded.net is not None
    assert loaded.net.scale == 900.0
    for key in ("w1", "b1", "w2"):
        assert np.allclose(getattr(loaded.net, key), getattr(net, key), rtol=1e-5, atol=1e-9)
    assert loaded.net.b2 == 0.125
    assert np.array_equal(tune.theta_of(loaded), tune.theta_of(base))
    assert json.loads(text)["fit"] == {"loss_net": 0.5}


def test_a_rules_own_network_is_what_its_tables_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    own = Network(
        rng.normal(size=(5, tune.NET_IN)) * 0.01, rng.normal(size=5), rng.normal(size=5), 0.5, 700
    )
    text = tune.rule_net_json(PACKAGED.read_text(), "renju", own, {"loss_net": 0.4})
    both = load_weights(text, "renju net")
    packaged = load_weights(PACKAGED.read_text(), "packaged")
    assert set(both.nets) == set(packaged.nets) | {Rule.RENJU}
    assert json.loads(text)["nets"]["renju"]["fit"] == {"loss_net": 0.4}
    mine = both.nets[Rule.RENJU]
    for key in ("w1", "b1", "w2"):
        assert np.allclose(getattr(mine, key), getattr(own, key), rtol=1e-5, atol=1e-9)
    renju = build_tables(Rule.RENJU, both).net
    assert renju[0] == 5  # its units
    alone = dataclasses.replace(both, net=mine, nets={})  # the fit as the only network
    assert np.array_equal(renju, build_tables(Rule.RENJU, alone).net)
    for rule in (Rule.FREESTYLE, Rule.STANDARD):  # the others keep theirs
        assert np.array_equal(build_tables(rule, both).net, build_tables(rule, packaged).net)
    assert not build_tables(Rule.CARO, both).net.any()  # caro evaluates by the sums
    # a search in renju evaluates with it
    board = Board.from_moves("h8 i9 h9 i10 j8 g8", rule=Rule.RENJU)
    evals = []
    for w in (packaged, both):
        position = Position(15, 15, build_tables(Rule.RENJU, w), tt_size=16)
        for move in board.moves:
            position.play_index(position.index(move.point))
        evals.append(position.evaluate())
    assert evals[0] != evals[1]
    # and it is off where the network is off for measuring
    monkeypatch.setenv(NET_RULES_ENV, "freestyle")
    assert not build_tables(Rule.RENJU, both).net.any()


@pytest.mark.parametrize(
    ("nets", "said"),
    [
        ({"renjoo": "NET"}, "'renjoo' is not a rule"),
        ({"Renju": "NET"}, "'Renju' is not a rule"),
        ([1], "nets needs an object"),
        ("renju", "nets needs an object"),
        ({"renju": {"w1": [[0.0]], "b1": [0.0], "w2": [0.0], "b2": 0}}, "nets.renju: w1 needs"),
        ({"renju": 3}, "nets.renju: "),
        ({"standard": {"w1": [[0.0] * tune.NET_IN]}}, "nets.standard: "),
    ],
)
def test_a_bad_rule_network_is_refused(nets: Any, said: str) -> None:
    data = json.loads(PACKAGED.read_text())
    good = data["net"]
    data["nets"] = (
        {name: (good if v == "NET" else v) for name, v in nets.items()}
        if isinstance(nets, dict)
        else nets
    )
    with pytest.raises(ValueError, match=f"bad: .*{said}"):
        load_weights(json.dumps(data), "bad")


def test_a_fit_from_a_network_starts_from_it_and_never_ends_worse() -> None:
    rng = np.random.default_rng(11)
    n = 2000
    x = _random_inputs(rng, n)
    y = np.where(x[:, k.P4_F3] > x[:, 11 + k.P4_F3], 0.9, 0.2)
    valid = np.arange(n) % 4 == 0
    start = Network(
        rng.normal(size=(6, tune.NET_IN)) * 0.05, rng.normal(size=6), rng.normal(size=6), 0.1, 800
    )
    # no epoch: the start itself, read back from the standardised inputs
    same, epoch, history = tune.fit_net(x, y, valid, 6, epochs=0, start=start, scale=800)
    assert (epoch, history) == (-1, [])
    for key in ("w1", "b1", "w2"):
        assert np.allclose(getattr(same, key), getattr(start, key), rtol=1e-9, atol=1e-9)
    assert same.b2 == pytest.approx(start.b2)
    assert np.allclose(tune.net_logits(same, x), tune.net_logits(start, x))
    # some epochs: never worse on the held-out rows than where it started
    fitted, epoch, history = tune.fit_net(x, y, valid, 6, epochs=5, start=start)
    before = tune.loss(tune.net_logits(start, x)[valid], y[valid], 1.0)
    after = tune.loss(tune.net_logits(fitted, x)[valid], y[valid], 1.0)
    assert after <= before + 1e-9
    assert after == pytest.approx(min([before, *history]), abs=1e-9)
    with pytest.raises(ValueError, match="6 units, not 4"):
        tune.fit_net(x, y, valid, 4, epochs=1, start=start)
