"""tools/datagen.py: a shard's arrays and manifest agree with its games, and a shard stopped
part-way and resumed is the shard an uninterrupted run makes."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.board import Board
from engine.gomocup.match import EngineSpec
from engine.gomocup.protocol import gomocup_to_point
from engine.search._position import Position
from engine.types import Color, Point, Rule
from tools.datagen import (
    FIRST_PLY,
    MATE,
    SIZE,
    Check,
    DataGenError,
    Settings,
    check_shard,
    default_folder,
    load_shard,
    main,
    make_shard,
    output_folder,
)

FAKE = Path(__file__).with_name("fake_judge.py")
# the fake judge: +400 at six stones, a forced loss in 5 at seven, no evaluation at nine
JUDGE = EngineSpec("judge", (sys.executable, str(FAKE), "6=+400", "7=-M5", "9=play7,7"))
SETTINGS = Settings(shard=3, games=3, nodes=300, seed=5, judge_nodes=1000, source="selfplay")


def _quiet(_: str) -> None:
    pass


def test_a_shard_holds_its_games_and_the_judges_labels(tmp_path: Path) -> None:
    path = make_shard(tmp_path, SETTINGS, JUDGE, command="test", log=_quiet)
    assert path == tmp_path / "shard-00003.json"
    arrays, manifest = load_shard(tmp_path, 3)
    lengths, results = arrays["lengths"], arrays["results"]
    assert len(lengths) == 3
    assert int(lengths.sum()) == len(arrays["moves"])
    starts = np.concatenate([[0], np.cumsum(lengths)])
    for gi in range(3):
        moves = arrays["moves"][starts[gi] : starts[gi + 1]]
        board = Board.from_moves(
            [Point(int(m) % SIZE, int(m) // SIZE) for m in moves], size=SIZE, rule=Rule.FREESTYLE
        )
        winner = board.outcome.winner if board.outcome is not None else None
        assert int(results[gi]) == {None: 0, Color.BLACK: 1, Color.WHITE: -1}[winner]
        # every position from FIRST_PLY stones to the one before the last move, but the
        # one the judge said nothing about (nine stones)
        plies = arrays["ply"][arrays["game"] == gi].tolist()
        assert plies == [p for p in range(FIRST_PLY, len(moves)) if p != 9]
    judge = dict(zip(arrays["ply"].tolist(), arrays["judge"].tolist(), strict=False))
    mate = dict(zip(arrays["ply"].tolist(), arrays["judge_mate"].tolist(), strict=False))
    assert judge[6] == 400
    assert mate[6] == 0
    assert judge[7] == -MATE
    assert mate[7] == -5
    assert judge[8] == 0
    # the fake plays the first empty point in reading order: Gomocup's 0,0, the top left
    corner = gomocup_to_point(0, 0, SIZE)
    assert set(arrays["judge_move"].tolist()) == {corner.y * SIZE + corner.x}
    counts = manifest["counts"]
    assert counts["games"] == 3
    assert counts["positions"] == len(arrays["game"])
    assert counts["forced"] == 3  # one seven-stone position a game
    assert counts["black_wins"] + counts["white_wins"] + counts["draws"] == 3
    assert manifest["seed"] == 5
    assert manifest["self_play_nodes"] == 300
    assert manifest["judge"]["nodes"] == 1000
    assert manifest["judge"]["about"] == 'name="fake judge", version="1.0"'
    assert manifest["command"] == "test"
    assert manifest["format"] == 1
    assert len(manifest["engine"]["commit"]) >= 7
    assert not (tmp_path / "shard-00003.partial.npz").exists()


def test_a_resumed_shard_is_the_uninterrupted_one(tmp_path: Path) -> None:
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    make_shard(whole, SETTINGS, JUDGE, log=_quiet)
    assert make_shard(parts, SETTINGS, JUDGE, stop_after=1, save_every=1, log=_quiet) is None
    assert (parts / "shard-00003.partial.npz").exists()
    assert not (parts / "shard-00003.npz").exists()
    with pytest.raises(DataGenError, match="--resume"):
        make_shard(parts, SETTINGS, JUDGE, log=_quiet)
    other = Settings(shard=3, games=3, nodes=301, seed=5, judge_nodes=1000, source="selfplay")
    with pytest.raises(DataGenError, match="other settings"):
        make_shard(parts, other, JUDGE, resume=True, log=_quiet)
    make_shard(parts, SETTINGS, JUDGE, resume=True, log=_quiet)
    a, _ = load_shard(whole, 3)
    b, _ = load_shard(parts, 3)
    assert a.keys() == b.keys()
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    with pytest.raises(DataGenError, match="finished"):
        make_shard(parts, SETTINGS, JUDGE, resume=True, log=_quiet)


def test_a_changed_shard_file_no_longer_loads(tmp_path: Path) -> None:
    make_shard(tmp_path, SETTINGS, JUDGE, log=_quiet)
    manifest = tmp_path / "shard-00003.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps(data | {"sha256": "0" * 64}), encoding="utf-8")
    with pytest.raises(DataGenError, match="does not match"):
        load_shard(tmp_path, 3)


def test_the_command_line_refuses_to_overwrite_and_names_the_way_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--shard", "0", "--games", "1", "--nodes", "200", "--out", str(tmp_path)]
    judge = ["--judge", f"{sys.executable} {FAKE}"]
    assert main([*args, *judge]) == 0
    assert (tmp_path / "shard-00000.json").exists()
    assert main([*args, *judge]) == 1
    assert "finished" in capsys.readouterr().err


def test_a_judge_that_dies_leaves_a_shard_that_resumes(tmp_path: Path) -> None:
    dying = EngineSpec("judge", (*JUDGE.argv, "12=die"))
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    make_shard(whole, SETTINGS, JUDGE, log=_quiet)
    with pytest.raises(DataGenError, match="--resume continues"):
        make_shard(broken, SETTINGS, dying, save_every=1, log=_quiet)
    with np.load(broken / "shard-00003.partial.npz") as data:
        assert len(data["lengths"]) == 0  # the first game reached twelve stones: none kept
    make_shard(broken, SETTINGS, JUDGE, resume=True, log=_quiet)
    a, _ = load_shard(whole, 3)
    b, _ = load_shard(broken, 3)
    for name in a:
        assert np.array_equal(a[name], b[name]), name


def test_a_renju_shard_is_played_and_judged_in_renju(tmp_path: Path) -> None:
    renju = Settings(
        shard=1, games=3, nodes=300, seed=5, judge_nodes=1000, source="selfplay", rule=Rule.RENJU
    )
    make_shard(tmp_path, renju, JUDGE, command="test", log=_quiet)
    arrays, manifest = load_shard(tmp_path, 1)
    assert manifest["rule"] == "renju"
    starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
    for gi in range(3):
        moves = [Point(int(m) % SIZE, int(m) // SIZE) for m in arrays["moves"][starts[gi] :]]
        # every stone, the random opening ones too, is legal in renju (no forbidden point for
        # Black: from_moves refuses one), and the result is renju's
        board = Board.from_moves(moves[: arrays["lengths"][gi]], size=SIZE, rule=Rule.RENJU)
        winner = board.outcome.winner if board.outcome is not None else None
        assert int(arrays["results"][gi]) == {None: 0, Color.BLACK: 1, Color.WHITE: -1}[winner]
    # the same seed in freestyle is other games, and its manifest says freestyle
    make_shard(
        tmp_path / "free", dataclasses.replace(renju, rule=Rule.FREESTYLE), JUDGE, log=_quiet
    )
    free, free_manifest = load_shard(tmp_path / "free", 1)
    assert free_manifest["rule"] == "freestyle"
    assert not np.array_equal(free["moves"], arrays["moves"])


def test_a_partial_shard_resumes_only_in_its_rule(tmp_path: Path) -> None:
    renju = dataclasses.replace(SETTINGS, rule=Rule.RENJU)
    assert make_shard(tmp_path, renju, JUDGE, stop_after=1, save_every=1, log=_quiet) is None
    with pytest.raises(DataGenError, match="other settings"):
        make_shard(tmp_path, SETTINGS, JUDGE, resume=True, log=_quiet)
    assert make_shard(tmp_path, renju, JUDGE, resume=True, log=_quiet) is not None


def test_each_rule_has_its_own_default_folder() -> None:
    assert default_folder(Rule.FREESTYLE) == "selfplay"
    assert default_folder(Rule.RENJU) == "selfplay-renju"
    assert default_folder(Rule.STANDARD) == "selfplay-standard"
    # and so does every kind of shard made from them
    for rule in (Rule.FREESTYLE, Rule.RENJU, Rule.STANDARD):
        assert output_folder("selfplay", rule) == default_folder(rule)
    assert output_folder("leaves", Rule.FREESTYLE) == "leaves"
    assert output_folder("leaves", Rule.STANDARD) == "leaves-standard"
    assert output_folder("children", Rule.RENJU) == "children-renju"
    assert output_folder("psq", Rule.FREESTYLE) == "matches"


def test_recorded_games_are_freestyle_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--shard", "0", "--games", "1", "--psq", "x", "--rule", "renju", "--judge", "j"])
    assert "freestyle records only" in capsys.readouterr().err


def test_a_check_asks_a_fresh_judge_and_tells_a_sound_shard_from_a_wrong_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_shard(tmp_path, SETTINGS, JUDGE, log=_quiet)
    arrays, _ = load_shard(tmp_path, 3)
    sound = check_shard(tmp_path, 3, JUDGE, 20, Rule.FREESTYLE)
    assert sound == Check(asked=20, same=20, close=20)
    assert sound.sound
    # a judge that scores every position 1,000 higher (and no forced result) agrees on none
    higher = EngineSpec("judge", (*JUDGE.argv[:2], *(f"{n}=+1000" for n in range(4, 100))))
    wrong = check_shard(tmp_path, 3, higher, len(arrays["game"]), Rule.FREESTYLE)
    assert wrong.asked == len(arrays["game"])
    assert wrong.close == wrong.same == 0
    assert not wrong.sound
    judge = ["--judge", shlex.join(JUDGE.argv)]
    assert main(["--shard", "3", "--check", "10", "--out", str(tmp_path), *judge]) == 0
    assert (
        "10 positions asked again, 10 scored the same, 10 close (sound)" in capsys.readouterr().out
    )
    assert (
        main(
            [
                "--shard",
                "3",
                "--check",
                "10",
                "--out",
                str(tmp_path),
                "--judge",
                shlex.join(higher.argv),
            ]
        )
        == 1
    )
    assert "NOT sound" in capsys.readouterr().out
    assert main(["--shard", "4", "--check", "10", "--out", str(tmp_path), *judge]) == 1
    assert "cannot read shard 4" in capsys.readouterr().err


CHILDREN = Settings(
    shard=3, games=2, nodes=0, seed=5, judge_nodes=1000, source="children", children=2
)


def _source(tmp_path: Path) -> Path:
    """Self-play shard 3 (``SETTINGS``) in its own folder: the games a children shard reads."""
    folder = tmp_path / "source"
    make_shard(folder, SETTINGS, JUDGE, log=_quiet)
    return folder


def _from_source(
    tmp_path: Path, settings: Settings, name: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Shard 3 made with ``settings`` in ``tmp_path / name`` from ``_source``'s games: its
    arrays and manifest; it holds the source's first two games and names the source."""
    source = _source(tmp_path)
    path = make_shard(
        tmp_path / name, settings, JUDGE, source_folder=source, command="c", log=_quiet
    )
    assert path == tmp_path / name / "shard-00003.json"
    arrays, manifest = load_shard(tmp_path / name, 3)
    games, source_manifest = load_shard(source, 3)
    two = int(games["lengths"][:2].sum())
    assert arrays["lengths"].tolist() == games["lengths"][:2].tolist()
    assert arrays["results"].tolist() == games["results"][:2].tolist()
    assert arrays["moves"].tolist() == games["moves"][:two].tolist()
    assert manifest["from"]["shard"] == 3
    assert manifest["from"]["sha256"] == source_manifest["sha256"]
    return arrays, manifest


def _resumes_as_made_at_once(tmp_path: Path, settings: Settings, source: Path) -> Path:
    """Shard 3 made with ``settings`` at once and again stopped after a game and resumed:
    the same arrays. Returns the stopped one's folder."""
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    make_shard(whole, settings, JUDGE, source_folder=source, log=_quiet)
    stopped = make_shard(
        parts, settings, JUDGE, source_folder=source, stop_after=1, save_every=1, log=_quiet
    )
    assert stopped is None
    make_shard(parts, settings, JUDGE, source_folder=source, resume=True, log=_quiet)
    a, _ = load_shard(whole, 3)
    b, _ = load_shard(parts, 3)
    assert a.keys() == b.keys()
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    return parts


def test_a_children_shard_judges_the_searchs_candidates_beside_each_position(
    tmp_path: Path,
) -> None:
    arrays, manifest = _from_source(tmp_path, CHILDREN, "children")
    starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
    rows = list(zip(arrays["game"].tolist(), arrays["ply"].tolist(), strict=True))
    full = 0  # positions with both children
    for gi in range(2):
        moves = arrays["moves"][starts[gi] : starts[gi + 1]].tolist()
        for ply in range(FIRST_PLY, len(moves)):
            picked = [
                c
                for (g, p), c in zip(rows, arrays["child"].tolist(), strict=True)
                if (g, p) == (gi, ply)
            ]
            if ply + 1 == 9:  # the judge says nothing about nine stones: no rows
                assert picked == []
                continue
            # distinct candidates, each an empty point that is not the game's move: two,
            # unless a five to make or to stop leaves the search fewer
            board = Board.from_moves([Point(m % SIZE, m // SIZE) for m in moves[:ply]], size=SIZE)
            assert len(picked) == len(set(picked)) <= 2
            if len(picked) < 2:
                position = Position.from_board(board)
                assert position.has_five_point(Color.BLACK) or position.has_five_point(Color.WHITE)
            else:
                full += 1
            for child in picked:
                assert child not in moves[: ply + 1]
                assert board.is_legal(Point(child % SIZE, child // SIZE))
    assert full >= 10
    # the labels are the judge's on the position after the child: six stones +400, seven a
    # forced loss (the child's stone counted)
    judge = dict(zip(arrays["ply"].tolist(), arrays["judge"].tolist(), strict=False))
    assert judge[5] == 400
    assert judge[6] == -MATE
    assert manifest["source"] == "children"
    assert manifest["children"] == 2
    assert manifest["counts"]["positions"] == len(arrays["child"]) == len(arrays["game"])


def test_a_children_shard_resumes_and_reads_only_a_finished_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _source(tmp_path)
    _resumes_as_made_at_once(tmp_path, CHILDREN, source)
    other = tmp_path / "other"
    stopped = make_shard(
        other, CHILDREN, JUDGE, source_folder=source, stop_after=1, save_every=1, log=_quiet
    )
    assert stopped is None
    with pytest.raises(DataGenError, match="other settings"):
        make_shard(
            other,
            dataclasses.replace(CHILDREN, children=3),
            JUDGE,
            source_folder=source,
            resume=True,
            log=_quiet,
        )
    judge = ["--judge", f"{sys.executable} {FAKE}"]
    args = ["--shard", "4", "--games", "1", "--children", "2", "--out", str(tmp_path / "x")]
    assert main([*args, "--from", str(source), *judge]) == 1
    assert "no finished shard 4" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--shard", "3", "--games", "1", "--from", str(source), *judge])
    assert "--from goes with --children" in capsys.readouterr().err


def test_a_children_shards_positions_are_read_with_their_child(tmp_path: Path) -> None:
    from tools.mixnet import samples

    source = _source(tmp_path)
    make_shard(tmp_path / "children", CHILDREN, JUDGE, source_folder=source, log=_quiet)
    arrays, _ = load_shard(tmp_path / "children", 3)
    data = samples(arrays)
    starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
    for i in range(0, len(arrays["game"]), 7):
        gi, ply = int(arrays["game"][i]), int(arrays["ply"][i])
        line = [*arrays["moves"][starts[gi] : starts[gi] + ply].tolist(), int(arrays["child"][i])]
        assert data.history[i, : ply + 1].tolist() == line
        assert (data.history[i, ply + 1 :] == -1).all()
        assert not data.empty[i, line].any()
        assert data.empty[i].sum() == SIZE * SIZE - ply - 1


LEAVES = Settings(shard=3, games=2, nodes=300, seed=5, judge_nodes=1000, source="leaves")


def test_a_leaves_shard_judges_the_end_of_the_searchs_line_from_each_position(
    tmp_path: Path,
) -> None:
    from engine.search import Limits, search
    from tools.datagen import SMALL_TT, judged_lines

    arrays, manifest = _from_source(tmp_path, LEAVES, "leaves")
    starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
    lengths = arrays["line_len"].tolist()
    assert sum(lengths) == len(arrays["line"])
    assert min(lengths) >= 1
    lines = judged_lines(arrays)
    seen = set()
    for i, (gi, ply) in enumerate(
        zip(arrays["game"].tolist(), arrays["ply"].tolist(), strict=True)
    ):
        game = arrays["moves"][starts[gi] : starts[gi + 1]].tolist()
        prefix, line = lines[i][:ply], lines[i][ply:]
        assert prefix == game[:ply]
        assert len(line) == lengths[i]
        # the line is the start of the principal variation of a fresh search of the position,
        # every move legal and none ending the game
        board = Board.from_moves([Point(m % SIZE, m // SIZE) for m in prefix], size=SIZE)
        pv = search(board, Limits(nodes=300, memory_bytes=SMALL_TT)).pv
        assert [p.y * SIZE + p.x for p in pv[: len(line)]] == line
        for m in line:
            board.play(Point(m % SIZE, m // SIZE))
            assert board.outcome is None
        # the judge's label is of the line's end: six stones +400, seven a forced loss, and
        # none at nine
        stones = ply + len(line)
        assert stones != 9
        if stones == 6:
            assert int(arrays["judge"][i]) == 400
        if stones == 7:
            assert int(arrays["judge"][i]) == -MATE
        seen.add((gi, ply))
    # a row for every position of the two games but those whose line ends on nine stones
    assert len(seen) == len(arrays["game"]) >= 20
    assert manifest["source"] == "leaves"
    assert manifest["self_play_nodes"] == 300
    assert "children" not in manifest
    # read back as their lines, by the policy's trainer and by the network's
    from tools import tune
    from tools.mixnet import samples
    from tools.tune_eval import shards_positions

    data = samples(arrays)
    for i, line in enumerate(lines):
        assert data.history[i, : len(line)].tolist() == line
        assert (data.history[i, len(line) :] == -1).all()
    counted = shards_positions([tmp_path / "leaves"], tmp_path / "leaves.npz")
    assert 0 < len(counted["plies"]) <= len(lines)
    for i in range(len(counted["plies"])):
        # each kept position is the end of one of the lines, counted with the one before it
        matches = [
            line
            for line in lines
            if len(line) == counted["plies"][i]
            and tune.position_counts(_played(line)).tolist() == counted["counts"][i].tolist()
        ]
        assert matches
        assert any(
            tune.position_counts(_played(line[:-1])).tolist() == counted["pcounts"][i].tolist()
            for line in matches
        )


def _played(line: list[int]) -> Position:
    from engine.search.evaluate import tables

    position = Position(SIZE, SIZE, tables(Rule.FREESTYLE), tt_size=16)
    for m in line:
        position.play_index(position.index(Point(m % SIZE, m // SIZE)))
    return position


def test_a_leaves_shard_resumes_and_its_options_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _resumes_as_made_at_once(tmp_path, LEAVES, _source(tmp_path))
    judge = ["--judge", f"{sys.executable} {FAKE}"]
    with pytest.raises(SystemExit):
        main(["--shard", "3", "--games", "1", "--leaves", "--children", "2", *judge])
    assert "--leaves reads shards" in capsys.readouterr().err


# The data the repository keeps for fitting (data/README.md): each folder holds one rule's
# shards, and every committed shard must still load and agree with what its manifest says.
DATA = Path(__file__).resolve().parents[2] / "data"
FOLDER_RULES = {
    "selfplay": Rule.FREESTYLE,
    "selfplay-standard": Rule.STANDARD,
    "selfplay-renju": Rule.RENJU,
    "matches": Rule.FREESTYLE,
    "children": Rule.FREESTYLE,
    "leaves": Rule.FREESTYLE,
    "leaves-refit1": Rule.FREESTYLE,
    "leaves-refit2": Rule.FREESTYLE,
    "leaves-standard": Rule.STANDARD,
}
COMMITTED = sorted(
    (folder, int(path.stem.removeprefix("shard-")))
    for folder in FOLDER_RULES
    for path in (DATA / folder).glob("shard-[0-9][0-9][0-9][0-9][0-9].json")
)


def test_the_repository_keeps_shards_of_every_source() -> None:
    assert {folder for folder, _ in COMMITTED} == set(FOLDER_RULES)


@pytest.mark.parametrize(("folder", "shard"), COMMITTED, ids=[f"{f}/{s}" for f, s in COMMITTED])
def test_a_committed_shard_agrees_with_its_manifest_and_its_games(folder: str, shard: int) -> None:
    rule = FOLDER_RULES[folder]
    arrays, manifest = load_shard(DATA / folder, shard, rule)  # its hash, and its rule
    lengths, results, moves = arrays["lengths"], arrays["results"], arrays["moves"]
    game, ply = arrays["game"], arrays["ply"]
    counts = manifest["counts"]
    assert counts["games"] == len(lengths) == len(results)
    assert counts["moves"] == len(moves) == int(lengths.sum())
    assert counts["positions"] == len(game) == len(ply) == len(arrays["judge"])
    assert len(arrays["judge_mate"]) == len(arrays["judge_move"]) == len(game)
    assert counts["forced"] == int((arrays["judge_mate"] != 0).sum())
    assert counts["black_wins"] == int((results > 0).sum())
    assert counts["white_wins"] == int((results < 0).sum())
    assert counts["draws"] == int((results == 0).sum())
    # every judged position is one of its game's, from FIRST_PLY stones to before the last move
    assert ((game >= 0) & (game < len(lengths))).all()
    assert ((ply >= FIRST_PLY) & (ply < lengths[game])).all()
    made_by = manifest["engine"]
    if "weights_sha256" in made_by:
        # the values its engine evaluated with are kept, as they were
        kept = (DATA.parent / made_by["weights"]).read_bytes()
        assert hashlib.sha256(kept).hexdigest() == made_by["weights_sha256"]
    if "line" in arrays:
        # a leaves shard's: its source's games, and each line a game that goes on from the
        # row's position to a position where the game has not ended
        origin = manifest["from"]
        source, _ = load_shard(DATA.parent / origin["folder"], origin["shard"], rule)
        assert source["moves"][: len(moves)].tolist() == moves.tolist()
        assert (arrays["line_len"] >= 1).all()
        assert int(arrays["line_len"].sum()) == len(arrays["line"])
        from tools.datagen import judged_lines

        for line in judged_lines(arrays)[::50]:
            board = Board(SIZE, rule)
            for m in line:
                board.play(Point(m % SIZE, m // SIZE))
            assert board.outcome is None
    if "child" in arrays:
        # a children shard's: its source's games, and each child a point not yet played there
        # other than the game's own move
        origin = manifest["from"]
        source, source_manifest = load_shard(DATA.parent / origin["folder"], origin["shard"], rule)
        assert origin["sha256"] == source_manifest["sha256"]
        games = len(lengths)
        assert source["lengths"][:games].tolist() == lengths.tolist()
        assert source["moves"][: len(moves)].tolist() == moves.tolist()
        flat, starts = moves.tolist(), [0, *np.cumsum(lengths).tolist()]
        for gi, at, child in zip(
            game.tolist(), ply.tolist(), arrays["child"].tolist(), strict=True
        ):
            assert child not in flat[starts[gi] : starts[gi] + at + 1]
    # a forced result is scored as one, and only a forced result
    assert (np.abs(arrays["judge"][arrays["judge_mate"] != 0]) == MATE).all()
    # the shard's first game, replayed in its rule, ends as its result says
    first = [Point(int(m) % SIZE, int(m) // SIZE) for m in moves[: lengths[0]]]
    board = Board.from_moves(first, size=SIZE, rule=rule)
    winner = board.outcome.winner if board.outcome is not None else None
    assert int(results[0]) == (0 if winner is None else 1 if winner is Color.BLACK else -1)


def test_a_manifest_names_the_weights_its_engine_evaluated_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.search import evaluate
    from tools import shards

    assert shards.WEIGHTS_ENV == evaluate.WEIGHTS_ENV
    monkeypatch.delenv(evaluate.WEIGHTS_ENV, raising=False)
    assert set(shards.engine("c")) == {"version", "commit"}
    values = tmp_path / "values.json"
    values.write_text('{"about": "x"}\n')
    monkeypatch.setenv(evaluate.WEIGHTS_ENV, str(values))
    record = shards.engine("c")
    assert record["weights"] == str(values)
    assert record["weights_sha256"] == hashlib.sha256(values.read_bytes()).hexdigest()
    monkeypatch.setenv(evaluate.WEIGHTS_ENV, "hand")
    assert shards.engine("c")["weights"] == "hand"
    assert "weights_sha256" not in shards.engine("c")
