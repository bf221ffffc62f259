"""The evaluation's weights (the packaged file, the hand-set set, GOMOKU_EVAL_WEIGHTS) and the
model the tuner fits: pattern counts times weights is the kernels' evaluation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _patterns, tune
from engine.search._position import Position
from engine.search.evaluate import (
    WEIGHTS_ENV,
    hand_weights,
    load_weights,
    tables,
    weights,
)
from engine.types import Color, Point, Rule

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PACKAGED = Path(__file__).parents[2] / "engine" / "search" / "data" / "eval_weights.json"


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


@pytest.mark.parametrize("side", [0, 1])
def test_stronger_shapes_are_worth_more(side: int) -> None:
    # a point that makes a straight four beats one that makes a four, which beats an open
    # three, which beats an empty point; a four-three beats a plain four
    flex4 = _point_value(side, _patterns.F4)
    four = _point_value(side, _patterns.B4)
    three = _point_value(side, _patterns.F3)
    assert flex4 > four > three > 0 == _point_value(side, _patterns.NONE)
    four_three = int(tables(Rule.FREESTYLE).value[side, _patterns.B4 + 12 * _patterns.F3])
    assert four_three > four + three


def test_the_hand_set_values_are_the_old_constants() -> None:
    hand = hand_weights()
    assert hand.pattern[0].tolist() == [0, 2, 4, 8, 20, 24, 60, 60, 160, 400, 0, 160]
    assert hand.threat[1].tolist() == [0, 0, 10, 20, 40, 150, 60, 100, 350, 700, 1200]


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["black"]["pattern"].pop(),
        lambda d: d["white"]["threat"].__setitem__(3, 1.5),
        lambda d: d["white"]["threat"].__setitem__(3, 1 << 24),
        lambda d: d.pop("white"),
    ],
)
def test_a_bad_weights_file_is_refused(change) -> None:
    data = json.loads(PACKAGED.read_text())
    change(data)
    with pytest.raises((ValueError, KeyError)):
        load_weights(json.dumps(data), "bad")


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
    x = tune.design(counts[None], mover).astype(np.float64)
    model = float(x[0] @ tune.theta_of(weights()))
    # the kernels divide 5 * mine - 4 * theirs by 4 in integers
    assert abs(model - position.evaluate()) < 1


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
