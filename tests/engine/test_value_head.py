"""The learned value head in the search (``engine.search._kernels._value``): the features the
kernels keep as stones come and go, and the evaluation they give, against the trainer's
forward pass (``tools/mixnet.py``, the oracle) over the weights as the kernels hold them; the
loader's refusals; and that with no head the search evaluates as it did."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.evaluate import (
    ValueHead,
    load_value_head,
    tables,
    value_head,
    value_slots,
    with_value_head,
)
from engine.types import Point, Rule
from tests.engine.test_policy import games as policy_games
from tests.scale import examples
from tools.mixnet import POINTS, SIZE, columns, point_inputs

SETTINGS = settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _npz(**arrays: Any) -> bytes:
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def games() -> st.SearchStrategy[list[int]]:
    """Random games up to the board's edges, the empty board among them."""
    return policy_games(0, SIZE - 1, 0)


@st.composite
def heads(draw: st.DrawFn) -> tuple[dict[str, np.ndarray], ValueHead]:
    """A random fit as ``tools/mixnet.py`` saves one (with the threat pair or without) and
    the head the search's loader makes of it."""
    features = draw(st.integers(1, k.VH_MAX))
    hidden = draw(st.integers(1, k.VH_HMAX))
    threat = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    rows = k.VH_ROWS if threat else k.NPAT * k.NPAT
    fit = {
        "E": rng.normal(0, 0.5, (rows, features)),
        "b": rng.normal(0, 0.5, features),
        "W1": rng.normal(0, 0.3, (features, hidden)),
        "b1": rng.normal(0, 0.5, hidden),
        "w2": rng.normal(0, 0.5, hidden),
        "b2": rng.normal(0, 0.5, 1),
        "inputs": np.array(["threat"] if threat else [], dtype=str),
    }
    return fit, load_value_head(_npz(**fit), "random")


def _position(moves: list[int], head: ValueHead | None) -> Position:
    t = with_value_head(tables(Rule.FREESTYLE), head)
    position = Position(SIZE, SIZE, t, tt_size=16)
    for m in moves:
        position.play_index(position.index(Point(m % SIZE, m // SIZE)))
    return position


def _oracle(fit: dict[str, np.ndarray], moves: list[int]) -> tuple[np.ndarray, float]:
    # the trainer's pooled features (Black to move, then White, as sums of the points'
    # ReLUs) and logit, over the weights rounded as the kernels hold them
    unit, z = float(1 << k.VH_SHIFT), float(1 << k.VH_Z)
    e = np.round(fit["E"] * unit) / unit
    b = np.round(fit["b"] * unit) / unit
    w1 = np.round(fit["W1"] * unit) / unit
    b1 = np.round(fit["b1"] * z) / z
    w2 = np.round(fit["w2"] * unit) / unit
    b2 = float(np.round(fit["b2"][0] * z) / z)
    inputs = tuple(str(x) for x in fit["inputs"])
    codes, extra, empty = point_inputs(moves)
    # the other side's view of the same stones: each code and threat pair with its halves
    # swapped (a code is the side to move's pattern * 12 + the other's)
    other_extra = extra.copy()
    other_extra[:, 2] = (extra[:, 2] % k.NP4) * k.NP4 + extra[:, 2] // k.NP4
    views = [
        (codes, extra),
        (np.where(empty[:, None], (codes % 12) * 12 + codes // 12, 0), other_extra),
    ]
    pooled = []
    for view_codes, view_extra in views:
        cols = columns(view_codes, view_extra, inputs)
        a = np.maximum(e[cols].sum(axis=1) + b, 0) * empty[:, None]
        pooled.append(a.sum(axis=0))
    r = np.maximum(pooled[0] / 16 @ w1 + b1, 0)
    logit = float(r @ w2 + b2)
    black_to_move = len(moves) % 2 == 0
    by_colour = np.stack(pooled if black_to_move else pooled[::-1])
    return by_colour, logit


@given(games(), heads())
@SETTINGS
def test_the_kept_features_and_the_value_are_the_trainers_in_fixed_point(
    moves: list[int], head: tuple[dict[str, np.ndarray], ValueHead]
) -> None:
    fit, loaded = head
    position = _position(moves, loaded)
    features = len(loaded.b)
    want_pool, logit = _oracle(fit, moves)
    got = position.g[k.G_VH_POOL : k.G_VH_POOL + 2 * k.VH_MAX].reshape(2, k.VH_MAX)
    assert np.array_equal(got[:, :features] / (1 << k.VH_SHIFT), want_pool)
    assert (got[:, features:] == 0).all()
    want = np.clip(logit * loaded.scale, -k.NET_CLIP, k.NET_CLIP)
    # the kernels truncate the units' values to 2 ** -12 and the logit to 2 ** -10
    assert abs(position.evaluate() - want) <= 2 + loaded.scale * 2.0**-10 * (1 + features)


@given(games(), heads(), st.data())
@SETTINGS
def test_taking_stones_back_restores_the_features_exactly(
    moves: list[int], head: tuple[dict[str, np.ndarray], ValueHead], data: st.DataObject
) -> None:
    _, loaded = head
    keep = data.draw(st.integers(0, len(moves)))
    position = _position(moves, loaded)
    for _ in range(len(moves) - keep):
        position.undo()
    fresh = _position(moves[:keep], loaded)
    assert np.array_equal(position.g[k.G_VH_POOL :], fresh.g[k.G_VH_POOL :])
    assert np.array_equal(position.cell[:, k.R_VH :], fresh.cell[:, k.R_VH :])
    assert position.evaluate() == fresh.evaluate()


def test_without_a_head_nothing_is_kept_and_the_network_evaluates() -> None:
    moves = [112, 113, 127, 98, 142, 97]
    plain = _position(moves, None)
    assert plain.g[k.G_VH_F] == 0
    assert (plain.cell[:, k.R_VH :] == 0).all()
    assert (plain.g[k.G_VH_F : k.G_ROWS] == 0).all()  # up to the stones' row counts
    assert value_head() is None  # none ships: $GOMOKU_VALUE names one for measuring
    assert plain.evaluate() == Position.from_board(_board(moves)).evaluate()


def _board(moves: list[int]) -> Board:
    board = Board(SIZE, Rule.FREESTYLE)
    for m in moves:
        board.play(Point(m % SIZE, m // SIZE))
    return board


def _fit(
    features: int = 4, hidden: int = 2, change: dict[str, np.ndarray] | None = None
) -> dict[str, np.ndarray]:
    # a fit of zeros without the threat pair, with ``change`` in place of its arrays
    fit = {
        "E": np.zeros((k.NPAT * k.NPAT, features)),
        "b": np.zeros(features),
        "W1": np.zeros((features, hidden)),
        "b1": np.zeros(hidden),
        "w2": np.zeros(hidden),
        "b2": np.zeros(1),
    }
    return {**fit, **(change or {})}


def test_a_head_applies_in_freestyle_only_by_default() -> None:
    rng = np.random.default_rng(1)
    fit = _fit(
        change={
            "E": rng.normal(0, 0.5, (k.NPAT * k.NPAT, 4)),
            "W1": np.ones((4, 2)),
            "w2": np.ones(2),
        }
    )
    loaded = load_value_head(_npz(**fit), "fit")
    assert with_value_head(tables(Rule.FREESTYLE), loaded).value_head[0] == 4
    for rule in (Rule.STANDARD, Rule.RENJU, Rule.CARO):
        assert (with_value_head(tables(rule), loaded).value_head == 0).all()
    slots = value_slots(loaded)
    assert slots[k.G_VH_H - k.G_VH_F] == 2
    assert slots[k.G_VH_SCALE - k.G_VH_F] == 1000


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"E": np.zeros((10, 4))}, "E needs 144 rows"),
        (
            {"W1": np.zeros((4, 40)), "b1": np.zeros(40), "w2": np.zeros(40)},
            "1 to 32 features and 1 to 32 units",
        ),
        ({"b": np.zeros(40), "E": np.zeros((144, 40))}, "1 to 32 features"),
        ({"w2": np.full(2, 100.0)}, "w2 must be finite and below 64"),
        ({"E": np.full((144, 4), np.nan)}, "E must be finite"),
        ({"inputs": np.array(["distance"])}, "codes and the threat pair only"),
    ],
)
def test_the_loader_refuses_what_the_kernels_cannot_hold(
    change: dict[str, np.ndarray], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        load_value_head(_npz(**_fit(change=change)), "fit")
    with pytest.raises(ValueError, match="not a value head"):
        load_value_head(b"not an npz", "fit")


def test_every_point_of_the_board_counts_once() -> None:
    # an empty board: every point's features are those of no pattern in any direction
    ones = {"b": np.ones(1), "W1": np.ones((1, 1)), "w2": np.ones(1)}
    fit = _fit(1, 1, {**ones, "E": np.zeros((k.VH_ROWS, 1)), "inputs": np.array(["threat"])})
    position = _position([], load_value_head(_npz(**fit), "ones"))
    assert position.g[k.G_VH_POOL] == POINTS << k.VH_SHIFT
    position.play_index(position.index(Point(7, 7)))
    assert position.g[k.G_VH_POOL + k.VH_MAX] == (POINTS - 1) << k.VH_SHIFT


@given(games(), heads())
@SETTINGS
def test_a_correction_is_added_to_the_networks_value(
    moves: list[int], head: tuple[dict[str, np.ndarray], ValueHead]
) -> None:
    _, alone = head
    correction = dataclasses.replace(alone, add=True)
    plain = _position(moves, None).evaluate()
    by_itself = _position(moves, alone).evaluate()
    added = _position(moves, correction).evaluate()
    assert (
        added == max(-k.NET_CLIP, min(k.NET_CLIP, plain + by_itself))
        or abs(by_itself) == k.NET_CLIP
    )
