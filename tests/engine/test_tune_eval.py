"""tools/tune_eval.py on match records: PSQ games become training positions labelled from the
side to move, and the fit is pulled towards a prior's values (an endless pull keeps them); on
datagen shards: their quiet judged positions become the network's inputs as the kernels count
them, labelled by the judge."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.gomocup.match import EngineSpec
from engine.notation import parse_moves
from engine.records import to_psq
from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.evaluate import build_tables, hand_weights, load_weights, tables, weights
from engine.types import Point, Rule
from tests.scale import examples
from tools import tune
from tools import tune_eval as te

# quiet openings, then five in a row on the h file: Black's in the first, White's in the second
BLACK_WINS = "h8 a15 j10 o1 c3 o15 m4 b13 e12 n10 h9 a1 h10 a2 h11 a3 h12"
WHITE_WINS = "a15 h8 o1 j10 o15 b13 c3 n10 m4 h9 e12 h10 a1 h11 a3 h12"
UNFINISHED = "h8 h9 j10 g7"  # a loss on time: the board says nothing of who was winning
NAMES = ["env PYTHONPATH=. python -m engine.pbrain", "/tmp/anchors/bin/pbrain-wine"]


def _write(folder: Path, *games: str) -> None:
    folder.mkdir(exist_ok=True)
    for i, moves in enumerate(games):
        board = Board.from_moves(moves)
        (folder / f"game{i + 1:04d}.psq").write_text(to_psq(board, names=NAMES))


def test_psq_records_become_games_and_unfinished_ones_are_left_out(tmp_path: Path) -> None:
    _write(tmp_path / "a", BLACK_WINS, UNFINISHED)
    _write(tmp_path / "b", WHITE_WINS)
    (tmp_path / "b" / "notes.txt").write_text("not a record")
    games, skipped = te.games_from_psq([tmp_path / "a", tmp_path / "b" / "game0001.psq"])
    assert skipped == 1
    assert games["results"].tolist() == [1, -1]
    assert games["lengths"].tolist() == [17, 16]
    played = [Point(int(m) % 15, int(m) // 15) for m in games["moves"]]
    assert played == [*parse_moves(BLACK_WINS), *parse_moves(WHITE_WINS)]


def test_every_position_is_labelled_by_the_outcome_for_its_side_to_move(tmp_path: Path) -> None:
    _write(tmp_path, BLACK_WINS, WHITE_WINS)
    te.psq([tmp_path], tmp_path / "games.npz")
    rows = te._feature_worker((str(tmp_path / "games.npz"), 0, 2))
    winner = {0: 0, 1: 1}  # game -> the winner's side (0 Black, 1 White)
    assert set(rows["game"].tolist()) == {0, 1}
    assert set(rows["mover"].tolist()) == {0, 1}  # both colours' positions
    for game, mover, y in zip(rows["game"], rows["mover"], rows["y"], strict=True):
        assert y == (1.0 if mover == winner[int(game)] else 0.0)


def _planted(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    rng = np.random.default_rng(seed)
    counts = rng.poisson(3.0, size=(n, 2, tune.NFEAT)).astype(np.int16)
    mover = rng.integers(0, 2, size=n).astype(np.int8)
    x = tune.design(counts, mover)
    truth = tune.theta_of(hand_weights()) * 0.3 + np.where(
        tune.free_mask(), rng.normal(0, 30, size=2 * tune.NFEAT), 0.0
    )
    scale = 300.0
    p = 1 / (1 + np.exp(-(x.astype(np.float64) @ truth) / scale))
    y = (rng.random(n) < p).astype(np.float64)
    return x, y, truth, scale


@settings(max_examples=examples(5), deadline=None)
@given(st.integers(0, 2**16))
def test_an_endless_pull_keeps_the_prior_and_a_stronger_pull_stays_closer(seed: int) -> None:
    x, y, _, scale = _planted(2_000, seed)
    prior = tune.theta_of(hand_weights())
    kept, _ = tune.fit(x, y, scale, prior, tune.relative_ridge(prior, 1e15))
    assert np.max(np.abs(kept - prior)) < 1e-6
    gaps = []
    for weight in (1e-5, 1e-3, 1e-1):
        theta, _ = tune.fit(x, y, scale, prior, tune.relative_ridge(prior, weight))
        gaps.append(float(np.sum(((theta - prior) / np.maximum(np.abs(prior), 10)) ** 2)))
    assert gaps[0] > gaps[1] > gaps[2]


def test_the_ridge_is_relative_to_each_values_size() -> None:
    prior = np.array([0.0, 5.0, -20.0, 400.0])
    assert tune.relative_ridge(prior, 2.0).tolist() == [0.02, 0.02, 0.005, 2.0 / 160_000]


def test_cross_validation_pulls_weakly_to_a_wrong_prior_and_hard_to_the_truth() -> None:
    x, y, truth, scale = _planted(6_000, 3)
    games = np.arange(len(y)) // 20  # positions of a game are held out together
    candidates = [1e-5, 1e-2, 10.0]
    wrong = np.where(tune.free_mask(), 0.0, truth)
    assert tune.choose_ridge(x, y, games, scale, wrong, candidates)[0] == 1e-5
    best, losses = tune.choose_ridge(x, y, games, scale, truth, candidates)
    assert best == 10.0
    assert losses == sorted(losses, reverse=True)


def test_accuracy_counts_decided_games_and_half_for_a_zero() -> None:
    z = np.array([10.0, -3.0, 0.0, 5.0, 7.0])
    y = np.array([1.0, 1.0, 0.0, 0.5, 0.0])
    assert tune.accuracy(z, y) == pytest.approx((1 + 0 + 0.5 + 0) / 4)
    assert tune.accuracy(z[3:4], y[3:4]) == 0.0


def test_a_judge_labels_quiet_positions_with_its_winning_chance(tmp_path: Path) -> None:
    _write(tmp_path, BLACK_WINS, WHITE_WINS)
    te.psq([tmp_path], tmp_path / "games.npz")
    fake = Path(__file__).with_name("fake_judge.py")
    judge = EngineSpec("judge", (sys.executable, str(fake), "6=+400", "7=-M5", "8=-250"))
    te.label(tmp_path / "games.npz", tmp_path / "l.npz", judge, 200, 1000, seed=3, jobs=2)
    labelled = dict(np.load(tmp_path / "l.npz"))
    every = te._feature_worker((str(tmp_path / "games.npz"), 0, 2))
    assert len(labelled["y"]) == len(every["y"])  # all of them, each once
    expected = {6: 400, 7: -te.MATE, 8: -250}
    for plies, judged, y in zip(labelled["plies"], labelled["judge"], labelled["y"], strict=True):
        assert judged == expected.get(int(plies), 0)
        assert (y > 0.5) == (judged > 0)
        assert (y < 0.5) == (judged < 0)
    # the side to move's outcome, as features labels it, rides along
    assert sorted(labelled["outcome"].tolist()) == sorted(every["y"].tolist())
    te.train([tmp_path / "l.npz"], tmp_path / "w.json", [1.0], 0.5, 0, 5, 1226.3, "learned")
    assert load_weights((tmp_path / "w.json").read_text(), "fitted").mine == 5


@pytest.fixture(scope="module")
def positions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("records")
    _write(folder, BLACK_WINS, WHITE_WINS)
    te.psq([folder], folder / "games.npz")
    te.features(folder / "games.npz", folder / "positions.npz", workers=1)
    return folder / "positions.npz"


def test_train_with_an_endless_pull_writes_the_prior(tmp_path: Path, positions: Path) -> None:
    prior = tmp_path / "prior.json"
    theta = tune.theta_of(hand_weights()) + np.where(tune.free_mask(), 7, 0)
    prior.write_text(tune.weights_json(theta, {}))
    out = tmp_path / "fitted.json"
    te.train([positions], out, [1e15], 0.5, 0.0, 5, 1226.3, str(prior))
    fitted = load_weights(out.read_text(), "fitted")
    assert np.array_equal(tune.theta_of(fitted), theta)
    assert json.loads(out.read_text())["fit"]["K"] == 1226.3


def test_a_prior_with_multiset_corrections_is_refused(tmp_path: Path, positions: Path) -> None:
    prior = tmp_path / "prior.json"
    residual = np.ones(2 * tune.NMULTI)
    prior.write_text(tune.weights_json(tune.theta_of(hand_weights()), {}, residual))
    with pytest.raises(SystemExit, match="multiset"):
        te.train([positions], tmp_path / "o.json", [1.0], 0.5, 0, 5, 0, str(prior))


def test_the_values_fitted_to_anchor_games_load() -> None:
    # values fitted to the outcomes of master's games against the anchors (not the default)
    data = Path(te.__file__).parents[1] / "engine" / "search" / "data"
    path = data / "eval_weights_outcomes.json"
    fitted = load_weights(path.read_text(), str(path))
    assert fitted.mine == 5
    assert not fitted.multiset.any()
    assert fitted.threat[0, -1] == 1200  # a five's value is fixed, as in every weights file


def test_the_opening_lines_start_outside_the_match_openings() -> None:
    from engine.gomocup.openings import OPENINGS, offsets
    from tools.check_openings import candidates, canonical, unused

    used = {canonical(tuple(offsets(text))) for text in OPENINGS}
    assert len(used) == len(OPENINGS)
    left = unused()
    assert len(left) == len(candidates(2, 4)) - len(OPENINGS)
    assert not used & set(left)


def test_opening_walks_judged_lines_of_white_turns(tmp_path: Path) -> None:
    fake = Path(__file__).with_name("fake_judge.py")
    # scripted by stone count; the judge answers with the first empty point in reading order
    # (a corner, far from the fight), and a forced result at 7 stones ends every line there
    judge = EngineSpec("judge", (sys.executable, str(fake), "4=+300", "6=-200", "7=+M3"))
    te.opening(tmp_path / "o.npz", judge, 100, lines=1, seed=2, jobs=2, first=3)
    data = dict(np.load(tmp_path / "o.npz"))
    plies = data["plies"].tolist()
    assert set(plies) == {3, 4, 5, 6, 7}
    assert set(data["game"].tolist()) == {0, 1, 2}  # one line from each of 3 openings
    expected = {4: 300, 6: -200, 7: te.MATE}
    for count, judged, y in zip(plies, data["judge"], data["y"], strict=True):
        assert judged == expected.get(count, 0)
        assert y == pytest.approx(1 / (1 + np.exp(-min(judged, te.CLIP) / te.JUDGE_SCALE)))
    # at each White turn: the position itself, then the judge's answer and 7 other moves
    assert plies.count(3) == plies.count(5) == plies.count(7) == 3
    assert 3 * 7 <= plies.count(4) <= 3 * 8
    assert 3 * 7 <= plies.count(6) <= 3 * 8


def test_values_met_in_too_few_positions_keep_the_priors(tmp_path: Path, positions: Path) -> None:
    data = dict(np.load(positions))
    seen = (data["counts"] > 0).sum(axis=0).ravel()
    some = int(np.max(seen[(seen > 0) & (seen < seen.max())]))  # a value met in some positions
    out, kept = tmp_path / "free.json", tmp_path / "kept.json"
    te.train([positions], out, [1e-6], 0.5, 0.0, 5, 1226.3, "learned")
    te.train([positions], kept, [1e-6], 0.5, 0.0, 5, 1226.3, "learned", min_seen=some + 1)
    prior = tune.theta_of(te.named_weights("learned"))
    free = tune.theta_of(load_weights(out.read_text(), "free"))
    rare = tune.theta_of(load_weights(kept.read_text(), "kept"))
    rare_but_met = (seen > 0) & (seen <= some)
    assert (free[rare_but_met] != prior[rare_but_met]).any()  # the free fit moves them
    assert np.array_equal(rare[seen <= some], prior[seen <= some])
    assert np.array_equal(rare[seen > some], free[seen > some])


def test_net_writes_the_values_with_a_network_the_engine_takes(
    tmp_path: Path, positions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "net.json"
    te.net([positions], out, "learned", hidden=4, epochs=3, holdout=0.5, scale=800.0, seed=0)
    fitted = load_weights(out.read_text(), "net")
    assert fitted.net is not None
    assert fitted.net.w1.shape == (4, tune.NET_IN)
    assert fitted.net.scale == 800.0
    learned = te.named_weights("learned")
    assert np.array_equal(tune.theta_of(fitted), tune.theta_of(learned))
    fit = json.loads(out.read_text())["fit"]
    assert fit["epoch"] in (1, 2, 3)
    printed = capsys.readouterr().out
    assert f"held out {fit['loss_net']:.5f}" in printed
    assert f"held out {fit['loss_linear']:.5f}" in printed
    # the packaged network on the same held-out positions, the figure a refit must beat
    data = np.load(positions)
    x = tune.net_inputs(data["counts"], data["mover"], learned)
    assert learned.net is not None
    logits = tune.net_logits(learned.net, x)
    held = (data["game"].astype(np.int64) * 2654435761 % 1000) < 500
    shipped = tune.loss(logits[held], data["y"][held].astype(np.float64), 1.0)
    assert f"learned network for freestyle, {len(learned.net.b1)} units: train " in printed
    assert f"held out {shipped:.5f}" in printed
    # averaged sums need the counts before each last move, which these positions lack
    with pytest.raises(ValueError, match="before each last move"):
        te.net([positions], out, "learned", 4, 3, 0.5, 800.0, 0, average=True)


def test_net_reads_each_files_held_out_loss_and_weighs_files(
    tmp_path: Path, positions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two files of positions: the same positions, the second's verdicts turned round
    data = dict(np.load(positions))
    turned = tmp_path / "turned.npz"
    np.savez(turned, **(data | {"y": 1.0 - data["y"]}))
    out = tmp_path / "net.json"
    te.net([positions, turned], out, "learned", 4, 3, 0.5, 800.0, 0)
    printed = capsys.readouterr().out
    learned = te.named_weights("learned")
    assert learned.net is not None
    logits = tune.net_logits(learned.net, tune.net_inputs(data["counts"], data["mover"], learned))
    held = (data["game"].astype(np.int64) * 2654435761 % 1000) < 500
    y = data["y"][held].astype(np.float64)
    # file by file, beside the held-out loss of both (the second file's game ids moved)
    mine = tune.loss(logits[held], y, 1.0)
    assert f"({positions.name} {mine:.5f}, turned.npz " in printed
    assert json.loads(out.read_text())["fit"].get(f"weight of {positions.name}") is None
    # a file counted nine times: the fit leans to its verdicts, whichever it is
    x = tune.net_inputs(data["counts"], data["mover"], learned)
    for heavy in (0, 1):
        weighs = [9.0 if i == heavy else 1.0 for i in (0, 1)]
        te.net([positions, turned], out, "learned", 4, 30, 0.5, 800.0, 0, file_weights=weighs)
        fit = json.loads(out.read_text())["fit"]
        assert [fit[f"weight of {positions.name}"], fit["weight of turned.npz"]] == weighs
        net = load_weights(out.read_text(), "net").net
        assert net is not None
        losses = [
            tune.loss(tune.net_logits(net, x), verdicts.astype(np.float64), 1.0)
            for verdicts in (data["y"], 1.0 - data["y"])
        ]
        assert losses[heavy] < losses[1 - heavy]
    for wrong in ([1.0], [1.0, 0.0]):
        with pytest.raises(ValueError, match="one weight above zero for each file"):
            te.net([positions, turned], out, "learned", 4, 3, 0.5, 800.0, 0, file_weights=wrong)


def test_shard_positions_are_the_kernels_inputs_labelled_by_the_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tools.datagen import Settings, load_shard, make_shard

    fake = Path(__file__).with_name("fake_judge.py")
    judge = EngineSpec("judge", (sys.executable, str(fake), "6=+400", "7=-M5", "8=+M3"))
    for shard in (3, 4):
        settings = Settings(shard, games=2, nodes=300, seed=5, judge_nodes=1000, source="selfplay")
        make_shard(tmp_path, settings, judge, command="test", log=lambda _: None)
    data = te.shards_positions([tmp_path], tmp_path / "labelled.npz")
    assert dict(np.load(tmp_path / "labelled.npz"))["y"].tolist() == data["y"].tolist()
    t = tables(Rule.FREESTYLE)
    expected: dict[tuple[int, int], Position] = {}  # every distinct quiet judged position
    for shard in (3, 4):
        arrays, _ = load_shard(tmp_path, shard)
        starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
        for gi, ply in zip(arrays["game"].tolist(), arrays["ply"].tolist(), strict=True):
            pos = Position(15, 15, t, tt_size=16)
            for m in arrays["moves"][starts[gi] : starts[gi] + ply]:
                pos.play_index(pos.index(Point(int(m) % 15, int(m) // 15)))
            keys = {int(p.hsh[0]) for p in expected.values()}
            if tune.quiet(pos) and int(pos.hsh[0]) not in keys:
                expected[(shard * te.SHARD_GAMES + gi, ply)] = pos
    kept = list(zip(data["game"].tolist(), data["plies"].tolist(), strict=True))
    assert sorted(kept) == sorted(expected)
    assert {6, 7, 8} <= set(data["plies"].tolist())
    x = tune.net_inputs(data["counts"], data["mover"], weights())
    averaged = tune.net_inputs(data["counts"], data["mover"], weights(), data["pcounts"])
    for i, key in enumerate(kept):
        g = expected[key].g
        me = int(g[k.G_SIDE]) - 1
        assert int(data["mover"][i]) == me
        # the network's inputs are the kernels' running threat-class counts and value sums
        ours, theirs = k.G_P4 + me * k.NP4, k.G_P4 + (1 - me) * k.NP4
        assert x[i, : k.NP4].tolist() == g[ours : ours + k.NP4].tolist()
        assert x[i, k.NP4 : 2 * k.NP4].tolist() == g[theirs : theirs + k.NP4].tolist()
        assert x[i, 22:24].tolist() == [g[k.G_VAL + me], g[k.G_VAL + 1 - me]]
        # and averaged, the mean with the sums before the last move (the kernels' G_PVAL)
        assert averaged[i, 22:24].tolist() == [
            (g[k.G_VAL + s] + g[k.G_PVAL + s]) // 2 for s in (me, 1 - me)
        ]
        assert x[i, 24] == (me == 0)
        assert int(data["ev"][i]) == expected[key].evaluate()
    # the judge's chance: sigmoid(score / S), a mate as a score of +-CLIP
    chance = {
        6: 1 / (1 + np.exp(-400 / te.JUDGE_SCALE)),
        7: 1 / (1 + np.exp(te.CLIP / te.JUDGE_SCALE)),
        8: 1 / (1 + np.exp(-te.CLIP / te.JUDGE_SCALE)),
    }
    mate = {7: -5, 8: 3}
    for plies, y, m in zip(data["plies"].tolist(), data["y"], data["mate"], strict=True):
        assert y == pytest.approx(chance.get(plies, 0.5), abs=1e-6)
        assert m == mate.get(plies, 0)
    assert "forced results" in capsys.readouterr().out
    # or, asked so, a mate as a certain result and the rest as before
    certain = te.shards_positions([tmp_path], tmp_path / "certain.npz", certain_mates=True)
    chance |= {7: 0.0, 8: 1.0}
    for plies, y in zip(certain["plies"].tolist(), certain["y"], strict=True):
        assert y == pytest.approx(chance.get(plies, 0.5), abs=1e-6)
    assert certain["counts"].tolist() == data["counts"].tolist()
    te.net([tmp_path / "labelled.npz"], tmp_path / "net.json", "learned", 2, 1, 0.5, 1000.0, 0)
    assert load_weights((tmp_path / "net.json").read_text(), "net").net is not None
    assert "average" not in json.loads((tmp_path / "net.json").read_text())["fit"]
    te.net(
        [tmp_path / "labelled.npz"],
        tmp_path / "avg.json",
        "learned",
        2,
        1,
        0.5,
        1000.0,
        0,
        average=True,
    )
    assert json.loads((tmp_path / "avg.json").read_text())["fit"]["average"] is True


def test_shard_positions_take_static_labels_in_the_judges_units(tmp_path: Path) -> None:
    from tests.engine.test_static_labels import fake_static_value
    from tools.datagen import Settings, load_shard, make_shard
    from tools.static_labels import main as label

    fake = Path(__file__).with_name("fake_judge.py")
    folder = tmp_path / "selfplay"
    judge = EngineSpec("judge", (sys.executable, str(fake), "6=+400", "7=-M5"))
    settings = Settings(3, games=2, nodes=300, seed=5, judge_nodes=1000, source="selfplay")
    make_shard(folder, settings, judge, command="test", log=lambda _: None)
    static = tmp_path / "static"
    assert label([str(folder), "--judge", f"{sys.executable} {fake}", "--out", str(static)]) == 0
    judged = te.shards_positions([folder], tmp_path / "judged.npz")
    data = te.shards_positions([folder], tmp_path / "static.npz", static=(static, 250.0))
    # the same positions; each score the fake's static value from the side to move's view, in
    # the judge's units
    assert data["plies"].tolist() == judged["plies"].tolist()
    assert data["counts"].tolist() == judged["counts"].tolist()
    arrays, _ = load_shard(folder, 3)
    starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
    for gi, plies, score, mate in zip(
        (data["game"] % te.SHARD_GAMES).tolist(),
        data["plies"].tolist(),
        data["judge"].tolist(),
        data["mate"].tolist(),
        strict=True,
    ):
        moves = arrays["moves"][starts[gi] : starts[gi] + plies].tolist()
        assert score == round(fake_static_value(moves) * te.JUDGE_SCALE / 250.0)
        assert mate == 0  # a static value knows no forced result
    with pytest.raises(RuntimeError, match="is missing"):
        te.shards_positions([folder], tmp_path / "x.npz", static=(tmp_path / "none", 250.0))


def test_shards_refuses_a_folder_without_shards(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no shards"):
        te.shards_positions([tmp_path], tmp_path / "labelled.npz")


def test_shards_refuses_a_children_shard(tmp_path: Path) -> None:
    from tools.datagen import Settings, make_shard

    fake = EngineSpec("judge", (sys.executable, str(Path(__file__).with_name("fake_judge.py"))))
    games = Settings(0, games=1, nodes=200, seed=5, judge_nodes=1000, source="selfplay")
    make_shard(tmp_path / "games", games, fake, log=lambda _: None)
    children = Settings(
        0, games=1, nodes=0, seed=5, judge_nodes=1000, source="children", children=1
    )
    make_shard(
        tmp_path / "children", children, fake, source_folder=tmp_path / "games", log=lambda _: None
    )
    with pytest.raises(ValueError, match="is a children shard"):
        te.shards_positions([tmp_path / "children"], tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()


@pytest.fixture(scope="module")
def renju_shard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tools.datagen import Settings, make_shard

    folder = tmp_path_factory.mktemp("renju")
    fake = Path(__file__).with_name("fake_judge.py")
    judge = EngineSpec("judge", (sys.executable, str(fake), "6=+400", "7=-300", "8=+M3"))
    settings = Settings(
        2, games=3, nodes=300, seed=5, judge_nodes=1000, source="selfplay", rule=Rule.RENJU
    )
    make_shard(folder, settings, judge, command="test", log=lambda _: None)
    return folder


def test_renju_shard_positions_are_the_renju_kernels_inputs(
    tmp_path: Path, renju_shard: Path
) -> None:
    from tools.datagen import load_shard

    data = te.shards_positions([renju_shard], tmp_path / "renju.npz", rule=Rule.RENJU)
    assert str(np.load(tmp_path / "renju.npz")["rule"]) == "renju"
    arrays, _ = load_shard(renju_shard, 2)
    starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
    x = tune.net_inputs(data["counts"], data["mover"], weights())
    differ = 0
    for i, (ident, plies) in enumerate(zip(data["game"], data["plies"], strict=True)):
        gi = int(ident) % te.SHARD_GAMES
        moves = arrays["moves"][starts[gi] : starts[gi] + int(plies)]
        both = {r: Position(15, 15, tables(r), tt_size=16) for r in (Rule.RENJU, Rule.FREESTYLE)}
        for pos in both.values():
            for m in moves:
                pos.play_index(pos.index(Point(int(m) % 15, int(m) // 15)))
        g = both[Rule.RENJU].g
        me = int(g[k.G_SIDE]) - 1
        # the inputs are what renju's kernels keep: its threat-class counts and value sums
        ours, theirs = k.G_P4 + me * k.NP4, k.G_P4 + (1 - me) * k.NP4
        assert x[i, : k.NP4].tolist() == g[ours : ours + k.NP4].tolist()
        assert x[i, k.NP4 : 2 * k.NP4].tolist() == g[theirs : theirs + k.NP4].tolist()
        assert x[i, 22:24].tolist() == [g[k.G_VAL + me], g[k.G_VAL + 1 - me]]
        assert int(data["ev"][i]) == both[Rule.RENJU].evaluate()
        assert data["counts"][i].tolist() == tune.position_counts(both[Rule.RENJU]).tolist()
        differ += data["counts"][i].tolist() != tune.position_counts(both[Rule.FREESTYLE]).tolist()
    assert differ > len(data["plies"]) // 2  # renju's lines see further: other counts


def test_shards_of_another_rule_are_refused(
    tmp_path: Path, renju_shard: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tools.datagen import Settings, make_shard

    free = tmp_path / "free"
    settings = Settings(0, games=1, nodes=200, seed=5, judge_nodes=1000, source="selfplay")
    fake = Path(__file__).with_name("fake_judge.py")
    make_shard(free, settings, EngineSpec("judge", (sys.executable, str(fake))), log=print)
    with pytest.raises(ValueError, match="holds freestyle games, not renju"):
        te.shards_positions([free], tmp_path / "x.npz", rule=Rule.RENJU)
    with pytest.raises(ValueError, match="holds renju games, not freestyle"):
        te.shards_positions([renju_shard], tmp_path / "x.npz")
    with pytest.raises(ValueError, match="holds freestyle games, not standard"):
        te.shards_positions([free], tmp_path / "x.npz", rule=Rule.STANDARD)
    assert not (tmp_path / "x.npz").exists()
    # the command line says so in a line
    argv = ["tune_eval.py", "shards", str(free), "--rule", "renju", "--out", str(tmp_path / "y")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "argv", argv)
        with pytest.raises(SystemExit, match=r"error: .*holds freestyle games, not renju"):
            te.main()


def test_net_for_renju_writes_the_shipped_file_with_renju_s_network(
    tmp_path: Path, renju_shard: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labelled = tmp_path / "renju.npz"
    te.shards_positions([renju_shard], labelled, rule=Rule.RENJU)
    out = tmp_path / "renju_net.json"
    te.net([labelled], out, "learned", 3, 2, 0.5, 1000.0, 0, Rule.RENJU)
    fitted = load_weights(out.read_text(), "renju net")
    learned = te.named_weights("learned")
    assert set(fitted.nets) == set(learned.nets) | {Rule.RENJU}
    assert fitted.nets[Rule.RENJU].w1.shape == (3, tune.NET_IN)
    # everything else is the shipped file's: its values, its network and the other rules' own
    assert np.array_equal(tune.theta_of(fitted), tune.theta_of(learned))
    assert fitted.net is not None
    assert learned.net is not None
    assert np.array_equal(fitted.net.w1, learned.net.w1)
    packaged = Path(__file__).parents[2] / "engine" / "search" / "data" / "eval_weights.json"
    shipped = json.loads(packaged.read_text(encoding="utf-8"))
    written = json.loads(out.read_text())
    assert {key: v for key, v in written.items() if key != "nets"} == {
        key: v for key, v in shipped.items() if key != "nets"
    }
    others = {rule: v for rule, v in written["nets"].items() if rule != "renju"}
    assert others == {rule: v for rule, v in shipped.get("nets", {}).items() if rule != "renju"}
    assert written["nets"]["renju"]["fit"]["epoch"] in (1, 2)
    # renju's tables evaluate with the fit, freestyle's with the shipped network
    assert np.array_equal(
        build_tables(Rule.RENJU, fitted).net,
        build_tables(Rule.RENJU, dataclasses.replace(learned, nets=fitted.nets)).net,
    )
    for rule in (Rule.FREESTYLE, Rule.STANDARD):
        assert np.array_equal(build_tables(rule, fitted).net, build_tables(rule, learned).net)
    # the network renju evaluates with today, on the same held-out positions
    assert "learned network for renju, 16 units: train " in capsys.readouterr().out
    # from renju's network in the shipped file: never worse on the held-out games than it
    tuned = tmp_path / "tuned.json"
    te.net([labelled], tuned, "learned", 16, 2, 0.5, 1000.0, 0, Rule.RENJU, from_prior=True)
    fit = json.loads(tuned.read_text())["nets"]["renju"]["fit"]
    data = np.load(labelled)
    held = (data["game"].astype(np.int64) * 2654435761 % 1000) < 500
    x = tune.net_inputs(data["counts"], data["mover"], learned)
    shipped_loss = tune.loss(
        tune.net_logits(learned.net, x)[held], data["y"][held].astype(np.float64), 1.0
    )
    assert fit["loss_net"] <= round(shipped_loss, 5)
    with pytest.raises(ValueError, match="16 units, not 3"):
        te.net([labelled], tuned, "learned", 3, 1, 0.5, 1000.0, 0, Rule.RENJU, from_prior=True)
    with pytest.raises(ValueError, match="hand has no network"):
        te.net([labelled], tuned, "hand", 16, 1, 0.5, 1000.0, 0, Rule.RENJU, from_prior=True)
    # positions of one rule fit no other rule's network
    with pytest.raises(ValueError, match="renju's, not freestyle's"):
        te.net([labelled], tmp_path / "x.json", "learned", 3, 1, 0.5, 1000.0, 0)
    assert not (tmp_path / "x.json").exists()
