"""tools/relabel.py: every judged position of a shard is judged again at the node count asked,
row for row; a position the judge gives no evaluation keeps the shard's labels; a stopped shard
continues where it stopped; the fit reads the new labels; labels that no longer match their
manifest or their source refuse to load."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from tests.engine.test_datagen import JUDGE, SETTINGS, _quiet
from tools import mixnet as mx
from tools import tune_eval as te
from tools.datagen import MATE, judged_lines, load_shard, make_shard
from tools.relabel import RelabelError, folder_for, load_relabels, main

FAKE = Path(__file__).with_name("fake_judge.py")
# the new judge: -300 at six stones, a forced win in 3 at eight, no evaluation at ten
AGAIN = f"{sys.executable} {FAKE} 6=-300 8=+M3 10=play7,7"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("data") / "selfplay"
    make_shard(folder, SETTINGS, JUDGE, command="test", log=_quiet)
    return folder


def _run(source: Path, out: Path, judge: str = AGAIN, *more: str) -> int:
    return main([str(source), "--judge", judge, "--nodes", "5000", "--out", str(out), *more])


def test_every_judged_position_is_judged_again_and_one_without_an_answer_keeps_its_labels(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "relabel"
    assert _run(source, out) == 0
    folder = folder_for(out, source, 5000)
    assert folder == out / "selfplay-5000"
    labels = load_relabels(folder, source, SETTINGS.shard)
    arrays, _ = load_shard(source, SETTINGS.shard)
    stones = [len(line) for line in judged_lines(arrays)]
    assert {6, 8, 10} <= set(stones)
    for i, count in enumerate(stones):
        row = tuple(int(labels[name][i]) for name in ("judge", "judge_mate", "judge_move"))
        own = tuple(int(arrays[name][i]) for name in ("judge", "judge_mate", "judge_move"))
        if count == 10:
            assert row == own
        elif count == 6:
            assert row[:2] == (-300, 0)
        elif count == 8:
            assert row[:2] == (MATE, 3)
        else:
            assert row[:2] == (0, 0)
        if count != 10:
            assert row[2] == own[2]  # the fake judge plays the first empty point, as before
    record = json.loads((folder / "shard-00003.json").read_text(encoding="utf-8"))
    assert record["nodes"] == 5000
    assert record["counts"]["positions"] == len(stones)
    assert record["counts"]["kept"] == stones.count(10)
    assert record["judge"]["nodes"] == 5000
    # labelled already: a second run leaves the shard as it is
    before = (folder / "shard-00003.npz").read_bytes()
    assert _run(source, out) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert (folder / "shard-00003.npz").read_bytes() == before


def test_a_stopped_shard_continues_where_it_stopped(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole"
    assert _run(source, whole) == 0
    out = tmp_path / "stopped"
    dying = f"{sys.executable} {FAKE} 6=-300 8=+M3 10=play7,7 12=die"
    assert _run(source, out, dying, "--every", "2") == 1
    folder = folder_for(out, source, 5000)
    assert (folder / "shard-00003.partial.npz").exists()
    assert not (folder / "shard-00003.json").exists()
    with np.load(folder / "shard-00003.partial.npz") as saved:
        done = len(saved["judge"])
    assert done > 0
    assert _run(source, out, AGAIN, "--every", "2") == 0
    assert not (folder / "shard-00003.partial.npz").exists()
    got = load_relabels(folder, source, SETTINGS.shard)
    want = load_relabels(folder_for(whole, source, 5000), source, SETTINGS.shard)
    for name in want:
        assert got[name].tolist() == want[name].tolist()
    # a partial file of another node count is not continued at this one
    assert _run(source, tmp_path / "other", dying, "--every", "2") == 1
    elsewhere = folder_for(tmp_path / "other", source, 6000)
    elsewhere.mkdir(parents=True)
    shutil.copy(
        folder_for(tmp_path / "other", source, 5000) / "shard-00003.partial.npz",
        elsewhere / "shard-00003.partial.npz",
    )
    argv = [str(source), "--judge", AGAIN, "--nodes", "6000", "--out", str(tmp_path / "other")]
    assert main(argv) == 1
    assert "was made at 5000 nodes" in capsys.readouterr().err


def test_the_fit_reads_the_new_labels_in_place_of_the_shards_own(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "relabel"
    assert _run(source, out) == 0
    own, _ = mx.load_samples([source])
    again, _ = mx.load_samples([source], labels=(out, 5000))
    arrays, _ = load_shard(source, SETTINGS.shard)
    stones = [len(line) for line in judged_lines(arrays)]
    for i, count in enumerate(stones):
        if count == 6:
            assert again.value[i] < 0.5 < own.value[i]  # -300 where the shard had +400
        if count == 10:
            assert again.value[i] == own.value[i]
    assert np.array_equal(again.codes, own.codes)
    with pytest.raises(ValueError, match="is missing"):
        mx.load_samples([source], labels=(out, 7000))
    fit = ["train", str(source), "--labels", str(out), "--out", str(tmp_path / "fit.npz")]
    assert mx.main(fit) == 1
    assert "--label-nodes" in capsys.readouterr().err


def test_the_evaluations_fit_reads_the_new_labels_in_place_of_the_shards_own(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "relabel"
    assert _run(source, out) == 0
    own = te.shards_positions([source], tmp_path / "own.npz")
    again = te.shards_positions([source], tmp_path / "again.npz", labels=(out, 5000))
    # the same positions, each with the judgement made again of its row (a six-stone position
    # -300, an eight-stone one a forced win; a ten-stone one keeps its own)
    assert again["counts"].tolist() == own["counts"].tolist()
    assert again["plies"].tolist() == own["plies"].tolist()
    assert {6, 8, 10} <= set(own["plies"].tolist())
    for plies, judge, mate, y, own_judge in zip(
        again["plies"].tolist(),
        again["judge"].tolist(),
        again["mate"].tolist(),
        again["y"].tolist(),
        own["judge"].tolist(),
        strict=True,
    ):
        if plies == 6:
            assert (judge, mate) == (-300, 0)
            assert y < 0.5
        elif plies == 8:
            assert (judge, mate) == (MATE, 3)
        elif plies == 10:
            assert judge == own_judge
    with pytest.raises(ValueError, match="is missing"):
        te.shards_positions([source], tmp_path / "x.npz", labels=(out, 7000))
    argv = ["tune_eval.py", "shards", str(source), "--labels", str(out)]
    with mock.patch.object(sys, "argv", argv), pytest.raises(SystemExit, match="go together"):
        te.main()
    argv += ["--label-nodes", "5000", "--static", str(tmp_path)]
    with mock.patch.object(sys, "argv", argv), pytest.raises(SystemExit, match="name one"):
        te.main()


def test_labels_refuse_to_load_once_their_array_or_source_changed(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "relabel"
    assert _run(source, out) == 0
    folder = folder_for(out, source, 5000)
    array = folder / "shard-00003.npz"
    kept = array.read_bytes()
    np.savez_compressed(array, judge=np.zeros(3, dtype=np.int32))
    with pytest.raises(RelabelError, match="does not match its manifest"):
        load_relabels(folder, source, SETTINGS.shard)
    array.write_bytes(kept)
    moved = tmp_path / "selfplay"
    shutil.copytree(source, moved)
    shard = moved / "shard-00003.npz"
    with np.load(shard) as data:
        changed = {name: data[name] for name in data.files}
    changed["judge"] = changed["judge"] + 1
    np.savez_compressed(shard, **changed)
    with pytest.raises(RelabelError, match="another version of its source"):
        load_relabels(folder, moved, SETTINGS.shard)


# the labels the repository keeps (data/README.md): each must still load against its hash and its
# source shard's, row for row, and agree with its manifest's counts
DATA = Path(__file__).resolve().parents[2] / "data"
KEPT = sorted(
    (folder.name, int(path.stem.removeprefix("shard-")))
    for folder in (DATA / "relabel").glob("*-*")
    for path in folder.glob("shard-[0-9][0-9][0-9][0-9][0-9].json")
)


@pytest.mark.parametrize(("folder", "shard"), KEPT, ids=[f"{f}/{s}" for f, s in KEPT])
def test_committed_labels_load_and_agree_with_their_manifest_and_source(
    folder: str, shard: int
) -> None:
    record = json.loads((DATA / "relabel" / folder / f"shard-{shard:05d}.json").read_text())
    source = DATA.parent / record["source"]["folder"]
    assert folder == f"{source.name}-{record['nodes']}"
    labels = load_relabels(DATA / "relabel" / folder, source, shard)
    arrays, _ = load_shard(source, shard)
    assert record["counts"]["positions"] == len(arrays["judge"])
    assert all(len(labels[name]) == len(arrays["judge"]) for name in labels)
    changed = int((labels["judge_move"] != arrays["judge_move"]).sum())
    assert record["counts"]["moves_changed"] == changed
    forced = labels["judge_mate"] != 0
    assert (np.abs(labels["judge"][forced]) == MATE).all()
    assert (np.abs(labels["judge"][~forced]) < MATE).all()
    assert ((labels["judge_move"] >= -1) & (labels["judge_move"] < 225)).all()
