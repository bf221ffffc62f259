"""tools/value.py: the hand-written gradients agree with finite differences (the slow oracle),
the forced positions are read from the judge's mates and trained on in the share asked, and
a fit on a committed shard writes a file the search's loader reads and evaluates with as the
trainer does; a fit to static labels reports how each evaluation ranks quiet positions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.evaluate import load_value_head, tables, with_value_head
from engine.types import Point, Rule
from tests.scale import examples
from tools import mixnet as mx
from tools import value

SELFPLAY = Path(__file__).resolve().parents[2] / "data" / "selfplay"
STATIC = SELFPLAY.parent / "static"


def _batch(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    codes = rng.integers(0, mx.NCODE, size=(n, mx.POINTS, 4)).astype(np.int16)
    pair = rng.integers(0, mx.NP4 * mx.NP4, size=(n, mx.POINTS, 1)).astype(np.int16)
    cols = np.concatenate([codes, pair + mx.NCODE], axis=-1)
    empty = rng.random((n, mx.POINTS)) < 0.8
    return cols, empty, rng.random(n)


@settings(max_examples=examples(8), deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_gradients_match_finite_differences(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cols, empty, labels = _batch(rng, 3)
    params = value.init_params(4, 3, seed)
    here, grads = value.loss_and_grads(params, cols, empty, labels)

    def close(analytic: float, numeric: float) -> bool:
        return abs(analytic - numeric) <= 1e-5 + 1e-4 * abs(numeric)

    for name, w in params.items():
        flat = w.reshape(-1)
        picks = rng.choice(flat.size, size=min(6, flat.size), replace=False)
        if name == "E":
            picks = np.concatenate([picks, rng.choice(np.unique(cols), size=4) * w.shape[1]])
        for i in picks:
            old = flat[i]
            flat[i] = old + 1e-6
            up = value.loss_and_grads(params, cols, empty, labels)[0]
            flat[i] = old - 1e-6
            down = value.loss_and_grads(params, cols, empty, labels)[0]
            flat[i] = old
            analytic = float(grads[name].reshape(-1)[i])
            right, left = (up - here) / 1e-6, (here - down) / 1e-6
            if close(right, left):
                assert close(analytic, (up - down) / 2e-6), name
            else:  # a ReLU's kink within the step: the slope on the parameter's side
                assert close(analytic, right) or close(analytic, left), name


def test_forced_positions_are_those_with_a_mate_and_trained_on_in_their_share() -> None:
    manifest = SELFPLAY / "shard-00000.json"
    data, _ = mx.load_samples([manifest])
    forced = value.forced_results([manifest], Rule.FREESTYLE)
    assert forced.shape == data.value.shape
    # a forced result's label is certain; the others' are the judge's chances
    assert np.all((data.value[forced] > 0.999) | (data.value[forced] < 0.001))
    assert np.all((data.value[~forced] > 0.001) & (data.value[~forced] < 0.999))
    test = mx.held_out_games(data, 0.2, 1)
    lines: list[str] = []
    value.fit(
        data,
        forced,
        test,
        features=2,
        hidden=2,
        epochs=1,
        rate=0.003,
        forced_share=0.0,
        seed=1,
        batch=100_000,
        log=lines.append,
    )
    trained_on = int(lines[0].split("(")[1].split()[0])
    assert trained_on == int((~forced & ~test).sum())


def test_a_fit_is_read_by_the_search_and_evaluates_as_the_trainer_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "value.npz"
    argv = [str(SELFPLAY / "shard-00000.json"), "--features", "4", "--hidden", "3"]
    assert value.main([*argv, "--epochs", "1", "--scale", "1500", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "the search's evaluation: held-out loss" in printed
    assert "the fit: held-out loss" in printed
    head = load_value_head(out.read_bytes(), str(out))
    assert head.scale == 1500
    with np.load(out) as arrays:
        params = {
            name: np.asarray(arrays[name], dtype=np.float64) for name in value.init_params(1, 1, 0)
        }
    moves = [112, 113, 127, 98, 142, 97, 157]
    position = Position(15, 15, with_value_head(tables(Rule.FREESTYLE), head), tt_size=16)
    for m in moves:
        position.play_index(position.index(Point(m % 15, m // 15)))
    codes, extra, empty = mx.point_inputs(moves)
    logit = value.logits(params, mx.columns(codes, extra, value.INPUTS)[None], empty[None])[0]
    # within the kernels' rounding of the weights (2 ** -8) of the trainer's logit
    assert abs(position.evaluate() - np.clip(logit * 1500, -k.NET_CLIP, k.NET_CLIP)) < 0.05 * 1500


def test_a_correction_is_fitted_to_the_searchs_own_evaluation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "correction.npz"
    argv = [str(SELFPLAY / "shard-00000.json"), "--features", "2", "--hidden", "2"]
    assert value.main([*argv, "--epochs", "1", "--residual", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    scale = float(printed.split("K = ")[1].split()[0])
    head = load_value_head(out.read_bytes(), str(out))
    assert head.add
    assert head.scale == pytest.approx(scale, abs=0.05)
    # the fit starts as no correction: its first epoch moves it only a little
    with np.load(out) as arrays:
        assert abs(float(arrays["b2"][0])) < 0.5


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.integers(-(10**6), 10**6), min_size=3, max_size=40, unique=True), st.randoms())
def test_the_rank_correlation_is_spearmans_formula_for_distinct_values(
    values: list[int], shuffle: Any
) -> None:
    other = list(values)
    shuffle.shuffle(other)
    n = len(values)
    rank_a = {v: r for r, v in enumerate(sorted(values))}
    rank_b = {v: r for r, v in enumerate(sorted(other))}
    d2 = sum((rank_a[a] - rank_b[b]) ** 2 for a, b in zip(values, other, strict=True))
    expected = 1 - 6 * d2 / (n * (n * n - 1))
    got = value.spearman(np.array(values, dtype=float), np.array(other, dtype=float))
    assert got == pytest.approx(expected, abs=1e-9)


def test_a_fit_to_static_labels_reports_each_evaluations_ranks_by_stones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "static.npz"
    argv = [str(SELFPLAY / "shard-00000.json"), "--static", str(STATIC), "--residual"]
    argv += ["--features", "2", "--hidden", "2", "--epochs", "1", "--out", str(out)]
    assert value.main(argv) == 0
    printed = capsys.readouterr().out
    assert "static labels, S = " in printed
    lines = printed.split("rank correlation with the judge")[1].splitlines()
    names = [line.strip().split(":")[0] for line in lines[1:4]]
    assert names == ["the search's evaluation", "the static labels", "the fit"]
    for line in lines[1:4]:
        assert line.count("(") == len(value.STONE_BANDS)
    head = load_value_head(out.read_bytes(), str(out))
    assert head.add


def test_static_labels_refuse_unforced_only() -> None:
    with pytest.raises(SystemExit) as stop:
        value.main([str(SELFPLAY / "shard-00000.json"), "--static", str(STATIC), "--unforced"])
    assert stop.value.code == 2
