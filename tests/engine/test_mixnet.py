"""tools/mixnet.py: the point codes are the kernels' patterns from the side to move's view
in the shards' rule, the other inputs are the distances to the last two moves and the
kernels' threat classes, a shard of another rule is refused, and the hand-written gradients
agree with finite differences (the slow oracle)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.evaluate import load_policy, tables
from engine.types import Color, Point, Rule
from tests.scale import examples
from tools import shards
from tools.mixnet import (
    EXTRA,
    INPUTS,
    NCODE,
    NEAR,
    NP4,
    NPAT,
    NWINDOW,
    POINTS,
    SIZE,
    SPAN,
    Samples,
    columns,
    cut_figures,
    export_policy,
    held_out_games,
    init_params,
    input_rows,
    load_samples,
    loss_and_grads,
    main,
    paired,
    point_codes,
    point_inputs,
    policy_figures,
    policy_logits,
    ranks,
    saved_inputs,
    saved_rule,
    train,
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


def test_point_inputs_read_distances_and_threat_classes() -> None:
    # Black h8 i8 j8 (an open three on row 8), White h9 i9; White to move
    moves = [at(7, 7), at(7, 8), at(8, 7), at(8, 8), at(9, 7)]
    codes, extra, empty = point_inputs(moves)
    assert (codes == point_codes(moves)[0]).all()
    assert (extra[~empty] == 0).all()
    # the last move is Black's j8, the one before White's i9: Chebyshev distances 1, 2, 3, 4+
    for x, y, last, before in [(10, 7, 1, 2), (11, 8, 2, 3), (12, 10, 3, 4), (0, 0, 4, 4)]:
        assert extra[at(x, y), 0] == min(last, NEAR) - 1
        assert extra[at(x, y), 1] == min(before, NEAR) - 1
    # the offsets from j8 and from i9, within NEAR of them both ways, else far
    far = SPAN * SPAN
    assert extra[at(10, 7), 3] == NEAR * SPAN + NEAR + 1  # k8: one right of j8
    assert extra[at(6, 7), 3] == NEAR * SPAN + NEAR - 3  # g8: three left of j8
    assert extra[at(6, 7), 4] == (NEAR - 1) * SPAN + NEAR - 2  # a row above i9, two left
    assert extra[at(13, 11), 3] == (2 * NEAR) * SPAN + 2 * NEAR  # n12: 4 down and right of j8
    assert extra[at(14, 7), 3] == far  # o8: five right of j8
    assert (extra[empty][:, 3:5] <= far).all()
    # every empty point's pair is the kernels' threat class for White (to move), then Black's
    pos = Position(SIZE, SIZE, tables(Rule.FREESTYLE), tt_size=16)
    for m in moves:
        pos.play_index(pos.index(Point(m % SIZE, m // SIZE)))
    for p in np.nonzero(empty)[0]:
        point = Point(int(p) % SIZE, int(p) // SIZE)
        pair = pos.threat(Color.WHITE, point) * NP4 + pos.threat(Color.BLACK, point)
        assert extra[p, 2] == pair
    # g8 makes Black's straight four: the other side's for White to move, Black's own after
    assert int(extra[at(6, 7), 2]) % NP4 == k.P4_FLEX4
    _, black, _ = point_inputs([*moves, at(0, 14)])
    assert int(black[at(6, 7), 2]) // NP4 == k.P4_FLEX4
    # no moves: every point is far from both
    _, first, _ = point_inputs([])
    assert (first[:, :2] == NEAR - 1).all()
    assert (first[:, 3:5] == SPAN * SPAN).all()


@given(
    st.lists(st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)), max_size=40),
    st.sampled_from(list(Rule)),
)
@settings(max_examples=examples(30), deadline=None)
def test_the_windows_are_the_four_points_each_side(
    points: list[tuple[int, int]], rule: Rule
) -> None:
    """Each empty point's window row in each direction is its line's four points on each side
    (empty, the side to move's, the other's, off the board) read straight off the board (the
    slow oracle), a window and its mirror image alike."""
    moves = list(dict.fromkeys(at(x, y) for x, y in points))
    _, extra, empty = point_inputs(moves, rule)
    board = np.zeros((SIZE, SIZE), dtype=np.int64)
    for i, m in enumerate(moves):
        board[m // SIZE, m % SIZE] = 1 if i % 2 == len(moves) % 2 else 2  # 1: side to move's
    rows: dict[tuple[int, ...], int] = {}
    for p in np.nonzero(empty)[0]:
        y, x = divmod(int(p), SIZE)
        for d, (dy, dx) in enumerate(((0, 1), (1, 0), (1, 1), (1, -1))):
            cells = []
            for step in (-4, -3, -2, -1, 1, 2, 3, 4):
                yy, xx = y + step * dy, x + step * dx
                cells.append(int(board[yy, xx]) if 0 <= yy < SIZE and 0 <= xx < SIZE else 3)
            window = min(tuple(cells), tuple(reversed(cells)))
            # one row for each window (and its mirror image), another for every other window
            assert rows.setdefault(window, int(extra[p, 5 + d])) == extra[p, 5 + d]
    assert len(set(rows.values())) == len(rows)
    assert all(0 <= row < NWINDOW for row in rows.values())


def _random_extra(rng: np.random.Generator, n: int) -> np.ndarray:
    highs = [NEAR, NEAR, NP4 * NP4, SPAN * SPAN + 1, SPAN * SPAN + 1] + [NWINDOW] * 4
    return np.stack([rng.integers(0, h, size=(n, POINTS)) for h in highs], axis=-1).astype(np.int32)


def test_columns_give_each_input_its_own_rows() -> None:
    rng = np.random.default_rng(3)
    codes = rng.integers(0, NCODE, size=(2, POINTS, 4)).astype(np.int16)
    extra = _random_extra(rng, 2)
    assert columns(codes, extra, ()) is codes
    both = columns(codes, extra, ("threat", "distance"))
    assert both.shape == (2, POINTS, 7)
    assert (both[..., :4] == codes).all()
    assert (both[..., 4] == NCODE + extra[..., 0]).all()
    assert (both[..., 5] == NCODE + NEAR + extra[..., 1]).all()
    assert (both[..., 6] == NCODE + 2 * NEAR + extra[..., 2]).all()
    assert both.max() < input_rows(("distance", "threat")) == NCODE + 2 * NEAR + NP4 * NP4
    threat = columns(codes, extra, ("threat",))
    assert (threat[..., 4] == NCODE + extra[..., 2]).all()
    assert threat.max() < input_rows(("threat",))
    every = columns(codes, extra, tuple(INPUTS))
    assert every.shape == (2, POINTS, 13)
    after = NCODE + 2 * NEAR + NP4 * NP4
    assert (every[..., 7] == after + extra[..., 3]).all()
    assert (every[..., 8] == after + SPAN * SPAN + 1 + extra[..., 4]).all()
    windows = after + 2 * (SPAN * SPAN + 1)
    assert (every[..., 9:] == windows + extra[..., 5:]).all()
    assert every.max() < input_rows(tuple(INPUTS)) == windows + NWINDOW
    # a point's score sums the rows of its inputs, as the kernels would
    params = init_params(3, 2, 0, input_rows(("distance", "threat")))
    e, b, u = params["E"].astype(np.float64), params["b"], params["u"]
    p = 17
    h = e[both[1, p]].sum(axis=0) + b
    assert abs(policy_logits(params, both)[1, p] - np.maximum(h, 0) @ u) < 1e-9


def test_a_fit_names_the_inputs_it_reads() -> None:
    params = init_params(2, 2, 0, input_rows(("threat",)))
    assert saved_inputs({**params, "inputs": np.array(["threat"])}) == ("threat",)
    assert saved_inputs(init_params(2, 2, 0)) == ()
    for wrong in (np.array(["distance"]), np.array(["colour"])):
        try:
            saved_inputs({**params, "inputs": wrong})
        except ValueError:
            continue
        raise AssertionError(f"{wrong} accepted")


def _random_batch(
    rng: np.random.Generator, n: int, inputs: tuple[str, ...] = ()
) -> tuple[np.ndarray, ...]:
    codes: np.ndarray = rng.integers(0, NCODE, size=(n, POINTS, 4)).astype(np.int16)
    if inputs:
        codes = columns(codes, _random_extra(rng, n), inputs)
    empty = rng.random((n, POINTS)) < 0.8
    value = rng.random(n).astype(np.float32)
    move = np.array([int(rng.choice(np.nonzero(e)[0])) for e in empty], dtype=np.int32)
    move[0] = -1  # a position without a judged move
    return codes, empty, value, move


@settings(max_examples=examples(8), deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([(), ("distance",), ("offset",), tuple(INPUTS)]))
@example(seed=996775194, inputs=())  # a point's "b" input 6e-7 from a ReLU's kink
def test_gradients_match_finite_differences(seed: int, inputs: tuple[str, ...]) -> None:
    rng = np.random.default_rng(seed)
    codes, empty, value, move = _random_batch(rng, 3, inputs)
    params = {
        name: w.astype(np.float64)
        for name, w in init_params(4, 3, seed, input_rows(inputs)).items()
    }
    _, _, grads = loss_and_grads(params, codes, empty, value, move, policy_weight=0.7)

    def total(ps: dict[str, np.ndarray]) -> float:
        value_loss, policy_loss, _ = loss_and_grads(
            ps, codes, empty, value, move, policy_weight=0.7
        )
        return value_loss + 0.7 * policy_loss

    here = total(params)

    def close(analytic: float, numeric: float) -> bool:
        return abs(analytic - numeric) <= 1e-5 + 1e-4 * abs(numeric)

    for name, w in params.items():
        flat = w.reshape(-1)
        picks = rng.choice(flat.size, size=min(6, flat.size), replace=False)
        if name == "E" and inputs:
            # and rows of the other inputs' terms that the points read
            used = np.unique(codes[..., 4:])
            picks = np.concatenate([picks, rng.choice(used, size=4) * w.shape[1]])
        for i in picks:
            if name == "E" and not np.isin(i // w.shape[1], codes).any():
                continue
            old = flat[i]
            flat[i] = old + 1e-6
            up = total(params)
            flat[i] = old - 1e-6
            down = total(params)
            flat[i] = old
            numeric = (up - down) / 2e-6
            analytic = float(grads[name].reshape(-1)[i])
            right, left = (up - here) / 1e-6, (here - down) / 1e-6
            if close(right, left):
                assert close(analytic, numeric), name
            else:
                # A ReLU's kink lies within the step (a unit's input within 1e-6 of zero):
                # the gradient is the slope on the side the parameter is on.
                assert close(analytic, right) or close(analytic, left), name


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
    extra = np.zeros((1, POINTS, EXTRA), dtype=np.int32)
    data = Samples(
        codes, extra, empty, np.zeros(1, np.float32), np.array([20]), np.zeros(1, np.int32), history
    )
    assert ranks(params, data).tolist() == [1]
    first = Samples(
        codes, extra, empty, np.zeros(1, np.float32), np.array([10]), np.zeros(1, np.int32), history
    )
    assert ranks(params, first).tolist() == [0]


def _games(games: list[int]) -> Samples:
    n = len(games)
    return Samples(
        np.zeros((n, POINTS, 4), dtype=np.int16),
        np.zeros((n, POINTS, EXTRA), dtype=np.int32),
        np.ones((n, POINTS), dtype=bool),
        np.zeros(n, np.float32),
        np.full(n, -1, dtype=np.int32),
        np.array(games, dtype=np.int32),
        np.full((n, POINTS), -1, dtype=np.int16),
    )


def test_window_rows_start_at_zero_only_those_read_learn_and_the_decay_holds_them_back() -> None:
    # ten games of one position each, the judge's move reading window row 7 in every direction
    # and every other point row 8
    data = _games(list(range(10)))
    data.extra[..., 5:] = 8
    data.extra[:, 3, 5:] = 7
    data.move[:] = 3
    data.value[:] = 0.25
    windows = input_rows(("window",)) - NWINDOW

    def fit(epochs: int, decay: float) -> dict[str, np.ndarray]:
        return train(
            data,
            epochs=epochs,
            features=4,
            hidden=2,
            holdout=0.2,
            seed=1,
            inputs=("window",),
            decay=decay,
            log=lambda line: None,
        )

    start = fit(0, 0.0)
    assert not start["E"][windows:].any()
    assert start["E"][:windows].any()  # the pattern codes' rows are random as ever
    free, held = fit(30, 0.0), fit(30, 1.0)
    assert free["E"][windows + 7].any()  # the two windows the points read have learned
    assert free["E"][windows + 8].any()
    assert not np.delete(free["E"][windows:], [7, 8], axis=0).any()  # the others never moved
    for row in (7, 8):
        assert np.abs(held["E"][windows + row]).sum() < np.abs(free["E"][windows + row]).sum()


@settings(max_examples=examples(20), deadline=None)
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


@settings(max_examples=examples(5), deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_policy_figures_agree_with_the_trainers_loss_and_ranks(seed: int) -> None:
    rng = np.random.default_rng(seed)
    codes, empty, value, move = _random_batch(rng, 7)
    params = init_params(4, 3, seed)
    _, policy_loss, _ = loss_and_grads(params, codes, empty, value, move)
    history = np.full((7, POINTS), -1, dtype=np.int16)
    extra = np.zeros((7, POINTS, EXTRA), dtype=np.int32)
    data = Samples(codes, extra, empty, value, move, np.arange(7, dtype=np.int32), history)
    loss, first, five = policy_figures(params, data, batch=3)
    assert abs(loss - policy_loss) < 1e-6
    r = ranks(params, data)
    assert first == np.mean(r == 0)
    assert five == np.mean(r < 5)


def test_cut_figures_count_what_a_cut_keeps_and_whether_it_leaves_the_judges_move_out() -> None:
    gaps = np.full((2, POINTS + 1), np.nan)
    gaps[0, :4] = [0.5, 0.0, 0.5, 3.5]  # the judge's move 0.5 below the best of three
    gaps[1, :3] = [4.0, 0.0, 4.0]  # 4 below the best of two
    assert cut_figures(gaps, 3.0) == (1.5, 0.5)
    assert cut_figures(gaps, 4.0) == (2.5, 0.0)
    assert cut_figures(gaps[:0], 3.0) == (0.0, 0.0)


def test_paired_counts_the_positions_each_ranks_within() -> None:
    before = np.array([0, 1, 0, 3, 7])
    after = np.array([0, 0, 2, 0, 4])
    # first: the same, gained, lost, gained, neither
    diff, se = paired(before, after)
    assert diff == 0.2
    assert abs(se - np.std([0, 1, -1, 1, 0], ddof=1) / np.sqrt(5)) < 1e-12
    # within 5: only the last position changes, in after's favour
    assert paired(before, after, within=5)[0] == 0.2


# Black d8 e8 f8 h8 i8 on row 8, White in the corners and on h1; Black to move. g8 would make
# six: a five in freestyle, an overline that wins nothing in standard
OVERLINE_BLACK = [at(3, 7), at(4, 7), at(5, 7), at(7, 7), at(8, 7)]
OVERLINE_WHITE = [at(0, 0), at(14, 0), at(0, 14), at(14, 14), at(7, 0)]
OVERLINE = [m for pair in zip(OVERLINE_BLACK, OVERLINE_WHITE, strict=True) for m in pair]


def test_standard_codes_are_standards_kernels_where_an_overline_is_no_five() -> None:
    free, free_extra, _ = point_inputs(OVERLINE)
    codes, extra, empty = point_inputs(OVERLINE, Rule.STANDARD)
    assert (point_codes(OVERLINE, Rule.STANDARD)[0] == codes).all()
    g8 = at(6, 7)
    assert divmod(int(free[g8, 0]), NPAT)[0] == k.FIVE
    assert divmod(int(codes[g8, 0]), NPAT)[0] != k.FIVE
    assert int(free_extra[g8, 2]) // NP4 == k.P4_FIVE
    assert int(extra[g8, 2]) // NP4 != k.P4_FIVE
    # every empty point's codes and threat classes are standard's kernels' own
    pos = Position(SIZE, SIZE, tables(Rule.STANDARD), tt_size=16)
    for m in OVERLINE:
        pos.play_index(pos.index(Point(m % SIZE, m // SIZE)))
    assert pos.side is Color.BLACK
    for p in np.nonzero(empty)[0]:
        point = Point(int(p) % SIZE, int(p) // SIZE)
        cell = pos.cell[pos.index(point)]
        for d in range(4):
            assert codes[p, d] == cell[k.R_PAT + d] * NPAT + cell[k.R_PAT + 4 + d]
        pair = pos.threat(Color.BLACK, point) * NP4 + pos.threat(Color.WHITE, point)
        assert extra[p, 2] == pair


def _shard(folder: Path, rule: str | None, number: int = 0) -> Path:
    # a finished shard as tools/datagen.py writes one, by hand: two games (the overline
    # position's and a shorter one), each judged at two plies; a manifest without a rule is
    # freestyle's
    folder.mkdir(parents=True, exist_ok=True)
    other = [at(7, 7), at(8, 8), at(6, 6), at(9, 9), at(5, 5), at(10, 10)]
    arrays: dict[str, Any] = {
        "moves": np.array(OVERLINE + other, dtype=np.int16),
        "lengths": np.array([len(OVERLINE), len(other)], dtype=np.int32),
        "results": np.array([0, 0], dtype=np.int8),
        "game": np.array([0, 0, 1, 1], dtype=np.int32),
        "ply": np.array([4, 10, 3, 5], dtype=np.int16),
        "judge": np.array([120, -40, 300, 30000], dtype=np.int32),
        "judge_mate": np.array([0, 0, 0, 3], dtype=np.int16),
        "judge_move": np.array([OVERLINE[4], at(6, 7), other[3], other[5]], dtype=np.int16),
    }
    npz = folder / f"{shards.name(number)}.npz"
    np.savez_compressed(npz, **arrays)
    about = {"format": 1, "shard": number, "source": "selfplay", "sha256": shards.sha256(npz)}
    if rule is not None:
        about["rule"] = rule
    manifest = folder / f"{shards.name(number)}.json"
    manifest.write_text(json.dumps(about), encoding="utf-8")
    return manifest


def test_a_standard_shard_is_read_in_standard_and_refused_in_another_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    standard, free = tmp_path / "standard", tmp_path / "free"
    _shard(standard, "standard")
    _shard(free, None)
    data, offsets = load_samples([standard], Rule.STANDARD)
    assert offsets == [0, 2]
    # the overline position (ply 10) is counted with standard's tables
    assert (data.codes[1] == point_inputs(OVERLINE, Rule.STANDARD)[0]).all()
    assert (data.codes[1] != point_inputs(OVERLINE)[0]).any()
    with pytest.raises(ValueError, match="holds standard games, not freestyle"):
        load_samples([standard])
    # nor are the rules mixed, either way round
    with pytest.raises(ValueError, match="holds freestyle games, not standard"):
        load_samples([standard, free], Rule.STANDARD)
    with pytest.raises(ValueError, match="holds standard games, not freestyle"):
        load_samples([free, standard], Rule.FREESTYLE)
    # the command line says so in a line and writes nothing
    out = tmp_path / "fit.npz"
    assert main(["train", str(standard), "--epochs", "1", "--out", str(out)]) == 1
    assert "error: " in capsys.readouterr().err
    assert not out.exists()
    argv = ["evaluate", str(free), str(standard), "--rule", "standard", "--policy", str(out)]
    assert main(argv) == 1
    assert "holds freestyle games, not standard" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", str(standard), "--rule", "caro"])  # not one of datagen's rules


def test_a_fit_and_its_export_name_the_rule_they_were_fitted_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    standard = tmp_path / "standard"
    _shard(standard, "standard")
    fit, policy = tmp_path / "fit.npz", tmp_path / "policy.npz"
    argv = ["train", str(standard), "--rule", "standard", "--epochs", "1", "--holdout", "0.5"]
    assert main([*argv, "--features", "3", "--hidden", "2", "--out", str(fit)]) == 0
    with np.load(fit) as arrays:
        assert saved_rule(arrays) is Rule.STANDARD
    assert export_policy(fit, policy) == 0
    with np.load(policy) as arrays:
        assert sorted(arrays.files) == ["E", "b", "rule", "u"]
        assert saved_rule(arrays) is Rule.STANDARD
    load_policy(policy.read_bytes(), "policy.npz")  # the search's loader passes over it
    assert saved_rule(init_params(2, 2, 0)) is Rule.FREESTYLE  # a file without one
    with pytest.raises(ValueError, match="unknown rule"):
        saved_rule({"rule": np.array("gomoku")})
    capsys.readouterr()
    argv = ["evaluate", str(standard), "--rule", "standard", "--holdout", "0.5"]
    assert main([*argv, "--policy", str(policy)]) == 0
    assert f"{policy} (fitted in standard)" in capsys.readouterr().out
