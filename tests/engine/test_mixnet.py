"""tools/mixnet.py: the point codes are the kernels' patterns from the side to move's view,
and the hand-written gradients agree with finite differences (the slow oracle)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.search import _kernels as k
from tools.mixnet import (
    NCODE,
    NPAT,
    POINTS,
    SIZE,
    Samples,
    held_out_games,
    init_params,
    loss_and_grads,
    point_codes,
    policy_figures,
    ranks,
)


def at(x: int, y: int) -> int:
    return y * SIZE + x


def test_point_codes_read_the_side_to_moves_patterns() -> None:
    # Black h8 i8 j8 (an open three on row 8), White h9 i9; White to move
    moves = [at(7, 7), at(7, 8), at(8, 7), at(8, 8), at(9, 7)]
    codes, empty = point_codes(moves)
    assert empty.sum() == POINTS - 5
    assert not empty[at(7, 7)]
    assert (codes[~empty] == 0).all()
    # g8 would make Black's three an open four along the row (direction 0): for White to
    # move that is the other side's pattern, the code's second
    mine, theirs = divmod(int(codes[at(6, 7)][0]), NPAT)
    assert theirs == k.F4
    assert mine != k.F4
    # after one more White move, far away, Black is to move and the four is its own
    codes_black, _ = point_codes([*moves, at(0, 0)])
    mine, theirs = divmod(int(codes_black[at(6, 7)][0]), NPAT)
    assert mine == k.F4


def _random_batch(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    codes = rng.integers(0, NCODE, size=(n, POINTS, 4)).astype(np.int16)
    empty = rng.random((n, POINTS)) < 0.8
    value = rng.random(n).astype(np.float32)
    move = np.array([int(rng.choice(np.nonzero(e)[0])) for e in empty], dtype=np.int32)
    move[0] = -1  # a position without a judged move
    return codes, empty, value, move


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_gradients_match_finite_differences(seed: int) -> None:
    rng = np.random.default_rng(seed)
    codes, empty, value, move = _random_batch(rng, 3)
    params = {name: w.astype(np.float64) for name, w in init_params(4, 3, seed).items()}
    _, _, grads = loss_and_grads(params, codes, empty, value, move, policy_weight=0.7)

    def total(ps: dict[str, np.ndarray]) -> float:
        value_loss, policy_loss, _ = loss_and_grads(
            ps, codes, empty, value, move, policy_weight=0.7
        )
        return value_loss + 0.7 * policy_loss

    for name, w in params.items():
        flat = w.reshape(-1)
        for i in rng.choice(flat.size, size=min(6, flat.size), replace=False):
            if name == "E" and not np.isin(i // w.shape[1], codes).any():
                continue
            old = flat[i]
            flat[i] = old + 1e-6
            up = total(params)
            flat[i] = old - 1e-6
            down = total(params)
            flat[i] = old
            numeric = (up - down) / 2e-6
            assert abs(grads[name].reshape(-1)[i] - numeric) <= 1e-5 + 1e-4 * abs(numeric), name


def test_ranks_count_the_points_the_policy_prefers() -> None:
    params = init_params(2, 2, 0)
    params["E"][:] = 0
    params["b"][:] = 1.0
    params["u"][:] = [1.0, 0.0]
    codes = np.zeros((1, POINTS, 4), dtype=np.int16)
    codes[0, 10, 0] = 5
    codes[0, 20, 0] = 6
    params["E"][5, 0] = 2.0  # point 10 scores 3, point 20 scores 2, the rest 1
    params["E"][6, 0] = 1.0
    empty = np.ones((1, POINTS), dtype=bool)
    history = np.full((1, POINTS), -1, dtype=np.int16)
    data = Samples(
        codes, empty, np.zeros(1, np.float32), np.array([20]), np.zeros(1, np.int32), history
    )
    assert ranks(params, data).tolist() == [1]
    first = Samples(
        codes, empty, np.zeros(1, np.float32), np.array([10]), np.zeros(1, np.int32), history
    )
    assert ranks(params, first).tolist() == [0]


def _games(games: list[int]) -> Samples:
    n = len(games)
    return Samples(
        np.zeros((n, POINTS, 4), dtype=np.int16),
        np.ones((n, POINTS), dtype=bool),
        np.zeros(n, np.float32),
        np.full(n, -1, dtype=np.int32),
        np.array(games, dtype=np.int32),
        np.full((n, POINTS), -1, dtype=np.int16),
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 60), st.integers(0, 60), st.integers(0, 2**31 - 1))
def test_a_refit_keeps_the_earlier_fits_held_out_games(old: int, new: int, seed: int) -> None:
    # two positions a game; the first ``old`` games are an earlier fit's shards
    earlier = _games([g for g in range(old) for _ in range(2)])
    everything = _games([g for g in range(old + new) for _ in range(2)])
    before = held_out_games(earlier, 0.2, seed)
    after = held_out_games(everything, 0.2, seed, split_at=old)
    assert (after[: 2 * old] == before).all()
    assert after[2 * old :].sum() == 2 * int(new * 0.2)
    # whole games only
    assert (after[0::2] == after[1::2]).all()


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_policy_figures_agree_with_the_trainers_loss_and_ranks(seed: int) -> None:
    rng = np.random.default_rng(seed)
    codes, empty, value, move = _random_batch(rng, 7)
    params = init_params(4, 3, seed)
    _, policy_loss, _ = loss_and_grads(params, codes, empty, value, move)
    history = np.full((7, POINTS), -1, dtype=np.int16)
    data = Samples(codes, empty, value, move, np.arange(7, dtype=np.int32), history)
    loss, first, five = policy_figures(params, data, batch=3)
    assert abs(loss - policy_loss) < 1e-6
    r = ranks(params, data)
    assert first == np.mean(r == 0)
    assert five == np.mean(r < 5)
