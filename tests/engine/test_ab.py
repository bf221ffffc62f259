"""tools/ab.py: alternating rounds of engine versions against an anchor, compared slot by slot.

The arms and the anchor are the match tests' stand-ins: a brain that plays the legal point
nearest the centre, and one that answers every move with garbage (it loses each game at once).
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import math
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.gomocup.referee import MatchConfig
from engine.notation import parse_moves
from tests.engine.test_match import _liar, _standin
from tools import ab


def _game(arm: str, opening: int, colour: str, score: float) -> ab.Game:
    return ab.Game(arm, 1, opening, colour, score, "five", 20)


def _write_run(folder: Path, arm: str, openings: str | None, scores: Sequence[float]) -> None:
    """A run folder: ``arm``'s games as Black from openings 0, 1, ... with these scores, and
    its record naming the openings file it played."""
    folder.mkdir()
    games = [_game(arm, opening, "black", score) for opening, score in enumerate(scores)]
    (folder / ab.GAMES_FILE).write_text("\n".join(ab._record(game) for game in games) + "\n")
    (folder / ab.RUNS_FILE).write_text(json.dumps({"openings": openings}) + "\n")


# a game as (arm, opening, the arm's colour, score)
_ROW = st.tuples(
    st.sampled_from(["a", "b"]),
    st.integers(0, 3),
    st.sampled_from(["black", "white"]),
    st.sampled_from([0.0, 0.5, 1.0]),
)


@given(st.lists(_ROW, max_size=40))
def test_the_paired_difference_is_the_mean_over_shared_slots(
    rows: list[tuple[str, int, str, float]],
) -> None:
    games = [_game(*row) for row in rows]
    result = ab.paired(games, "b", "a")
    # the oracle: every slot spelt out, both arms' scores listed by hand
    differences = []
    for opening in range(4):
        for colour in ("black", "white"):
            a = [s for arm, o, c, s in rows if (arm, o, c) == ("a", opening, colour)]
            b = [s for arm, o, c, s in rows if (arm, o, c) == ("b", opening, colour)]
            if a and b:
                differences.append(sum(b) / len(b) - sum(a) / len(a))
    assert result.slots == len(differences)
    if not differences:
        assert math.isnan(result.difference)
        return
    assert result.difference == pytest.approx(sum(differences) / len(differences))
    if len(differences) > 1:
        mean = sum(differences) / len(differences)
        variance = sum((d - mean) ** 2 for d in differences) / (len(differences) - 1)
        assert result.standard_error == pytest.approx(math.sqrt(variance / len(differences)))
    else:
        assert math.isnan(result.standard_error)


def test_a_slot_replayed_counts_once() -> None:
    # a won twice on one slot and once lost on another; b drew both: the slots weigh alike
    games = [
        _game("a", 0, "black", 1.0),
        _game("a", 0, "black", 1.0),
        _game("a", 1, "white", 0.0),
        _game("b", 0, "black", 0.5),
        _game("b", 1, "white", 0.5),
    ]
    result = ab.paired(games, "b", "a")
    assert (result.difference, result.slots) == (0.0, 2)
    assert result.standard_error == pytest.approx(statistics.stdev([-0.5, 0.5]) / math.sqrt(2))


def test_the_same_games_are_counted_slot_by_slot_where_both_arms_kept_their_moves() -> None:
    def game(arm: str, opening: int, colour: str, moves: str, run: str = "") -> ab.Game:
        return ab.Game(arm, 1, opening, colour, 0.0, "five", 9, moves, run=run)

    games = [
        game("a", 0, "black", "h8 i9 j10"),
        game("b", 0, "black", "h8 i9 j10"),  # the same game
        game("a", 0, "white", "h8 i9 j10 k11"),
        game("b", 0, "white", "h8 i9 j10 k12"),  # another
        game("a", 1, "black", "h8 h9 h10"),
        game("b", 1, "black", ""),  # an older record: no moves, not compared
        game("a", 2, "black", "h8 h9 h10", run="x"),
        game("b", 2, "black", "h8 h9 h10", run="y"),  # other runs: other slots
        game("a", 3, "black", "h8 g9 f10"),
        game("a", 3, "black", "h8 g9 f11"),
        game("b", 3, "black", "h8 g9 f11"),
        game("b", 3, "black", "h8 g9 f10"),  # a slot played twice: the same pair of games
    ]
    assert ab.same_games(games, "b", "a") == (2, 3)
    assert ab.same_games([g for g in games if g.opening == 1], "b", "a") == (0, 0)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_rounds_alternate_the_arms_and_turn_the_openings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = ab.main(
        [
            *("run", str(tmp_path), "--anchor", _standin(), "--anchor-name", "centre"),
            *("--arm", f"good={_standin()}", "--arm", f"bad={_liar('print(1, flush=True)')}"),
            *("--rounds", "2", "--games", "4", "--size", "9", "--turn-ms", "2000", "--jobs", "2"),
        ]
    )
    assert code == 0
    games = ab.load(tmp_path / ab.GAMES_FILE)
    assert [(g.arm, g.round) for g in games] == [
        *[("good", 1)] * 4,
        *[("bad", 1)] * 4,
        *[("good", 2)] * 4,
        *[("bad", 2)] * 4,
    ]
    # round 1 starts at opening 0, round 2 at opening 2 (turned on by games / 2)
    assert [g.opening for g in games if g.arm == "good"] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [g.colour for g in games[:4]] == ["black", "white", "black", "white"]
    assert {(g.score, g.ending) for g in games if g.arm == "bad"} == {(0.0, "illegal")}
    # the same engine as the anchor: each opening's game repeats, so the colours share it
    good = [g.score for g in games if g.arm == "good"]
    assert sum(good) == 4
    out = capsys.readouterr().out
    assert "round 2, bad, from opening 2:" in out
    assert "good: 8 games, W/D/L 4/0/4, 50.0%" in out
    assert "bad: 8 games, W/D/L 0/0/8, 0.0%" in out
    assert "bad - good: -50.0 points over 8 shared slots" in out
    # every game is kept whole, so that two arms' games can be compared move by move
    assert all(len(parse_moves(g.moves)) == g.plies > 3 for g in games if g.arm == "good")
    assert "the same games in 0 of 8 slots" in out
    # and each ply's time, the opening's stones at 0, so that a slow answer names its game
    assert all(len(g.times_ms) == g.plies for g in games if g.arm == "good")
    assert all(g.times_ms[:3] == (0, 0, 0) for g in games)
    assert "  good's slowest move: " in out
    # the report reads the file again, here with the other arm as the base
    assert ab.main(["report", str(tmp_path), "--base", "bad"]) == 0
    assert "good - bad: +50.0 points over 8 shared slots" in capsys.readouterr().out
    assert all(
        set(json.loads(line)) >= {"arm", "opening", "colour", "score"}
        for line in (tmp_path / ab.GAMES_FILE).read_text().splitlines()
    )
    # the run said what it played, to play it again
    (record,) = [json.loads(line) for line in (tmp_path / ab.RUNS_FILE).read_text().splitlines()]
    assert record["arms"]["good"] == {"command": _standin(), "folder": None}
    assert record["arms"]["bad"]["command"] == _liar("print(1, flush=True)")
    assert record["anchor"] == {"name": "centre", "command": _standin(), "folder": None}
    assert (record["rounds"], record["games"], record["openings"]) == ([1, 2], 4, None)
    assert all(record[key] for key in ("commit", "cpu", "started"))
    assert record["argv"][:2] == ["run", str(tmp_path)]  # this run's command line


def test_weights_and_folders_reach_the_arm_command(tmp_path: Path) -> None:
    options = ab._parser().parse_args(
        [
            *("run", str(tmp_path), "--anchor", "anchor-engine"),
            *("--arm", "cand=python -m engine.pbrain", "--weights", "cand=w.json"),
            *("--cwd", f"cand={tmp_path}"),
        ]
    )
    spec = ab._arm_specs(options)["cand"]
    assert "INFO max_node" not in "\n".join(MatchConfig.from_options(options).info_lines())
    assert spec.argv[:2] == ("env", f"GOMOKU_EVAL_WEIGHTS={Path('w.json').resolve()}")
    assert spec.argv[2:] == (sys.executable, "-m", "engine.pbrain")
    assert spec.cwd == str(tmp_path)


def test_a_node_count_reaches_every_engine(tmp_path: Path) -> None:
    options = ab._parser().parse_args(
        ["run", str(tmp_path), "--anchor", "anchor-engine", "--arm", "a=x", "--nodes", "20000"]
    )
    assert "INFO max_node 20000" in MatchConfig.from_options(options).info_lines()


@pytest.mark.parametrize(
    "extra",
    [["--weights", "ghost=w.json"], ["--cwd", "noequals"], ["--games", "3"]],
    ids=["unknown-arm", "not-named", "odd-games"],
)
def test_bad_options_are_refused(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = ab.main(["run", str(tmp_path), "--anchor", "x", "--arm", "a=y", *extra])
    assert code in (1, 2)
    assert "error:" in capsys.readouterr().err
    assert not (tmp_path / ab.GAMES_FILE).exists()
    assert not (tmp_path / ab.RUNS_FILE).exists()


def test_the_slowest_move_is_the_arms_own() -> None:
    # Black plays plies 1, 3, 5 ...: the anchor's slower answers do not count
    black = ab.Game("a", 1, 4, "black", 1.0, "five", 6, times_ms=(0, 0, 0, 900, 120, 800))
    white = ab.Game("a", 2, 7, "white", 0.0, "five", 5, times_ms=(0, 0, 0, 300, 950))
    assert ab.slowest_move([black, white]) == (300, white, 4)
    assert ab.slowest_move([black]) == (120, black, 5)
    assert ab.slowest_move([_game("a", 0, "black", 1.0)]) is None  # an older record
    lines = ab.summary([black, white])
    assert "  a's slowest move: 300 ms, ply 4 of round 2, opening 7, as White" in lines


def test_older_records_without_times_still_load(tmp_path: Path) -> None:
    record = {"arm": "a", "round": 1, "opening": 0, "colour": "black", "score": 1.0}
    (tmp_path / ab.GAMES_FILE).write_text(json.dumps({**record, "ending": "five", "plies": 9}))
    (game,) = ab.load(tmp_path / ab.GAMES_FILE)
    assert game.times_ms == ()
    assert not any("slowest" in line for line in ab.summary([game]))


def _append(folder: Path, games: Sequence[ab.Game]) -> None:
    with (folder / ab.GAMES_FILE).open("a", encoding="utf-8") as out:
        out.write("".join(ab._record(game) + "\n" for game in games))


@given(st.lists(_ROW, max_size=10), st.lists(_ROW, max_size=10))
def test_a_packed_folder_reads_as_written_and_packs_to_the_same_bytes(
    first: list[tuple[str, int, str, float]], later: list[tuple[str, int, str, float]]
) -> None:
    games = [_game(*row) for row in first]
    more = [dataclasses.replace(_game(*row), round=2) for row in later]
    with tempfile.TemporaryDirectory() as name:
        once, twice = Path(name, "once"), Path(name, "twice")
        once.mkdir()
        twice.mkdir()
        _append(once, [*games, *more])
        assert ab.pack(once) == [once / "games.jsonl.gz"]
        # packed, then a run goes on: its games land in a plain file, read after the packed
        _append(twice, games)
        ab.pack(twice)
        _append(twice, more)
        read = ab.load(twice / ab.GAMES_FILE)
        assert read == [dataclasses.replace(g, run=str(twice)) for g in [*games, *more]]
        ab.pack(twice)
        assert sorted(path.name for path in twice.iterdir()) == ["games.jsonl.gz"]
        packed = (twice / "games.jsonl.gz").read_bytes()
        assert packed == (once / "games.jsonl.gz").read_bytes()
        # the oracle: gzip's own reading gives back every line as written
        written = "".join(ab._record(game) + "\n" for game in [*games, *more])
        assert gzip.decompress(packed).decode("utf-8") == written
        assert ab.load(twice / "games.jsonl.gz") == read  # the packed file named itself


def test_a_report_on_packed_folders_is_the_report_on_plain_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two runs on one openings file, one arm each: pairing them needs each folder's
    # runs.jsonl, so packing must keep that record readable too
    (tmp_path / "book.txt").write_text("h8 h9 h10\n")
    openings = str(tmp_path / "book.txt")
    _write_run(tmp_path / "one", "a", openings, (0.0, 1.0, 0.5))
    _write_run(tmp_path / "two", "b", openings, (1.0, 0.5, 0.5))
    folders = [str(tmp_path / "one"), str(tmp_path / "two")]
    argv = ["report", *folders, "--base", "a", "--across-runs"]
    assert ab.main(argv) == 0
    plain = capsys.readouterr().out
    assert "b - a: +16.7 points over 3 shared slots" in plain
    assert ab.main(["pack", *folders]) == 0
    assert capsys.readouterr().out.split() == [
        str(tmp_path / folder / name)
        for folder in ("one", "two")
        for name in ("games.jsonl.gz", "runs.jsonl.gz")
    ]
    assert ab.main(argv) == 0
    assert capsys.readouterr().out == plain
    assert ab.main(["pack", *folders]) == 0  # nothing plain is left to pack
    assert capsys.readouterr().out == ""


def test_packing_or_reading_what_is_not_a_record_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_run(tmp_path / "run", "a", None, (1.0,))
    missing = tmp_path / "missing"
    assert ab.main(["pack", str(tmp_path / "run"), str(missing)]) == 1
    assert capsys.readouterr().err == f"error: {missing} is not a folder\n"
    assert (tmp_path / "run" / ab.GAMES_FILE).is_file()  # nothing packed before the check
    (tmp_path / "run" / "games.jsonl.gz").write_bytes(b"not gzip")
    assert ab.main(["report", str(tmp_path / "run")]) == 1
    assert capsys.readouterr().err.startswith("error: ")
    (tmp_path / "run" / "games.jsonl.gz").write_bytes(gzip.compress(b"{}\n")[:-4])
    assert ab.main(["report", str(tmp_path / "run")]) == 1
    assert capsys.readouterr().err.startswith("error: ")


def test_a_report_of_nothing(tmp_path: Path) -> None:
    assert ab.summary(ab.load(tmp_path / ab.GAMES_FILE)) == ["no games yet"]


def test_runs_pooled_keep_each_runs_openings_apart(tmp_path: Path) -> None:
    # opening 0 of two runs (two opening files) is two slots: b gains +1 on one, -0.5 on the
    # other; read as one run they would be one slot of +0.25
    for folder, (a, b) in {"one": (0.0, 1.0), "two": (1.0, 0.5)}.items():
        (tmp_path / folder).mkdir()
        games = [_game("a", 0, "black", a), _game("b", 0, "black", b)]
        lines = [ab._record(game) for game in games]
        (tmp_path / folder / ab.GAMES_FILE).write_text("\n".join(lines) + "\n")
    pooled = [g for f in ("one", "two") for g in ab.load(tmp_path / f / ab.GAMES_FILE)]
    result = ab.paired(pooled, "b", "a")
    assert (result.difference, result.slots) == (0.25, 2)
    assert result.standard_error == pytest.approx(statistics.stdev([1.0, -0.5]) / math.sqrt(2))
    assert "run" not in (tmp_path / "one" / ab.GAMES_FILE).read_text()  # the folder says it


def test_runs_of_one_arm_each_pair_across_runs_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the base in one folder, the other arm in another, on the same openings: apart they share
    # no slot; with --across-runs opening 0 and 1 pair, b +1.0 and -0.5
    for folder, arm, scores in (("one", "a", (0.0, 1.0)), ("two", "b", (1.0, 0.5))):
        (tmp_path / folder).mkdir()
        games = [_game(arm, opening, "black", score) for opening, score in enumerate(scores)]
        lines = [ab._record(game) for game in games]
        (tmp_path / folder / ab.GAMES_FILE).write_text("\n".join(lines) + "\n")
    folders = [str(tmp_path / "one"), str(tmp_path / "two")]
    assert ab.main(["report", *folders, "--base", "a"]) == 0
    assert "b - a: no slot played by both" in capsys.readouterr().out
    assert ab.main(["report", *folders, "--base", "a", "--across-runs"]) == 0
    assert "b - a: +25.0 points over 2 shared slots" in capsys.readouterr().out


def test_across_runs_an_opening_of_one_file_never_pairs_with_the_same_number_of_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a on both files, b on both, each run in its own folder: opening 0 of "x.txt" and opening
    # 0 of the match openings are other positions, so four slots pair, not two
    runs = (
        ("a-m", "a", None, 0.0),
        ("b-m", "b", None, 1.0),
        ("a-x", "a", "x.txt", 1.0),
        ("b-x", "b", "x.txt", 1.0),
    )
    for folder, arm, openings, score in runs:
        _write_run(tmp_path / folder, arm, openings, (score, score))
    folders = [str(tmp_path / folder) for folder, *_ in runs]
    assert ab.main(["report", *folders, "--base", "a", "--across-runs"]) == 0
    assert "b - a: +50.0 points over 4 shared slots" in capsys.readouterr().out
    assert ab.openings_played(tmp_path / "a-x") == "x.txt"
    assert ab.openings_played(tmp_path) == ""  # no record of its runs: the match openings


def test_folders_pooled_over_two_anchors_are_said_to_be_and_one_anchors_are_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = (("a-p", "a", "./pbrain-p"), ("b-r", "b", "./pbrain-r"), ("b-p", "b", "./pbrain-p"))
    for folder, arm, anchor in runs:
        _write_run(tmp_path / folder, arm, None, (1.0, 0.0))
        record = {"openings": None, "anchor": {"name": "anchor", "command": anchor}}
        (tmp_path / folder / ab.RUNS_FILE).write_text(json.dumps(record) + "\n")
    one = [str(tmp_path / "a-p"), str(tmp_path / "b-p")]
    two = [*one, str(tmp_path / "b-r")]
    assert ab.main(["report", *one, "--base", "a", "--across-runs"]) == 0
    assert "note:" not in capsys.readouterr().out
    for pairing in ("--across-runs", "--by-place"):
        assert ab.main(["report", *two, "--base", "a", pairing]) == 0
        out = capsys.readouterr().out
        assert "note: these folders played 2 anchors (./pbrain-p; ./pbrain-r)" in out
    # each folder its own slots: nothing of two anchors shares one
    assert ab.main(["report", *two, "--base", "a"]) == 0
    assert "note:" not in capsys.readouterr().out
    # a folder without a record of its runs names no anchor
    assert ab.anchors_played(tmp_path) == set()


def test_the_difference_by_colour_takes_that_colours_slots_only() -> None:
    games = [
        _game("a", 0, "black", 1.0),
        _game("b", 0, "black", 1.0),
        _game("a", 0, "white", 0.0),
        _game("b", 0, "white", 1.0),
        _game("a", 1, "white", 0.0),
        _game("b", 1, "white", 0.0),
    ]
    black = ab.paired(games, "b", "a", "black")
    assert (black.difference, black.slots) == (0.0, 1)
    white = ab.paired(games, "b", "a", "white")
    assert (white.difference, white.slots) == (0.5, 2)
    line = ab.summary(games, "a")[-1]
    assert line.startswith("b - a: +33.3 points over 3 shared slots")
    assert line.endswith("as Black +0.0 (nan), as White +50.0 (50.0)")


@given(
    st.lists(st.sampled_from(["h8", "i9", "j10"]), max_size=6),
    st.lists(st.sampled_from(["h8", "i9", "j10"]), max_size=6),
)
def test_two_games_part_at_their_first_different_move(one: list[str], two: list[str]) -> None:
    # the slow reading: the shortest prefix length at which the two lists stop being equal
    if one == two:
        expected = None
    else:
        expected = next(n for n in range(len(one) + len(two) + 1) if one[: n + 1] != two[: n + 1])
    assert ab.first_apart(" ".join(one), " ".join(two)) == expected


def _moves(arm: str, opening: int, colour: str, score: float, moves: str) -> ab.Game:
    return ab.Game(arm, 1, opening, colour, score, "five", len(moves.split()), moves)


def test_the_slots_are_split_by_whose_move_the_arms_games_first_differ_at() -> None:
    games = [
        # as Black the arms part at ply 4 (Black's fifth stone): their own choice
        _moves("a", 0, "black", 0.0, "h8 i9 j10 g7 k11 f6"),
        _moves("b", 0, "black", 1.0, "h8 i9 j10 g7 f6 k11"),
        # as White they part at ply 4 too, the anchor's move: the arms had not yet differed
        _moves("a", 1, "white", 1.0, "h8 i9 j10 g7 k11 f6"),
        _moves("b", 1, "white", 0.5, "h8 i9 j10 g7 g9 f6"),
        _moves("a", 2, "white", 0.0, "h8 i9 j10 g7 k11 f6 e5"),
        _moves("b", 2, "white", 0.0, "h8 i9 j10 g7 k11 e5 f6"),
        # the very same game parts nowhere; a game without moves is not read; a second game on
        # a slot is not either
        _moves("a", 3, "black", 1.0, "h8 i9 j10"),
        _moves("b", 3, "black", 1.0, "h8 i9 j10"),
        _moves("b", 0, "black", 0.0, "h8 i9 j10 g7 k11 f6"),
        _game("a", 4, "black", 0.0),
        _game("b", 4, "black", 1.0),
    ]
    parts = ab.partings(games, "b", "a")
    assert parts["arms"].paired.slots == 2  # opening 0 at ply 4, opening 2 (White) at ply 5
    assert parts["arms"].paired.difference == 0.5
    assert parts["arms"].median_ply == 4.5
    anchor = parts["anchor"]
    assert (anchor.paired.difference, anchor.paired.slots, anchor.median_ply) == (-0.5, 1, 4)
    assert math.isnan(anchor.paired.standard_error)  # one slot: no spread to read
    line = ab.summary(games, "a")[-1]
    assert line == (
        "  where the games first differ: at the arms' move in 2 slots (median ply 4.5),"
        " +50.0 (50.0) points; at the anchor's move in 1 slots (median ply 4), -50.0 (nan) points"
    )


def _two_rounds_of_one_arm(out: Path, *extra: str) -> int:
    """``ab.py run``: two rounds of four games on 9x9, the stand-in against itself."""
    return ab.main(
        [
            *("run", str(out), "--anchor", _standin(), "--arm", f"good={_standin()}"),
            *("--rounds", "2", "--games", "4", "--size", "9", "--turn-ms", "2000", *extra),
        ]
    )


def test_rounds_play_the_openings_of_a_file(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("# one opening: Black in the centre, White beside it\n0,0 1,0 0,1\n")
    out = tmp_path / "out"
    assert _two_rounds_of_one_arm(out, "--openings", str(openings)) == 0
    # every pair of games and every round on the file's one opening (the built-in book's
    # would turn to openings 1, 2 and 3)
    assert [g.opening for g in ab.load(out / ab.GAMES_FILE)] == [0] * 8
    digest = hashlib.sha256(openings.read_bytes()).hexdigest()
    assert ab.openings_played(out) == digest  # the file's content, not where it was kept


def test_by_place_pairs_openings_files_by_each_opening_s_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a on "x.txt", b on its turned image "y.txt": across runs they share no slot, by place
    # opening 0 pairs with opening 0 and 1 with 1 (b +1.0 and +0.0)
    runs = (("a-x", "a", "x.txt", (0.0, 1.0)), ("b-y", "b", "y.txt", (1.0, 1.0)))
    for folder, arm, openings, scores in runs:
        _write_run(tmp_path / folder, arm, openings, scores)
    folders = [str(tmp_path / folder) for folder, *_ in runs]
    assert ab.main(["report", *folders, "--base", "a", "--across-runs"]) == 0
    assert "b - a: no slot played by both" in capsys.readouterr().out
    assert ab.main(["report", *folders, "--base", "a", "--by-place"]) == 0
    assert "b - a: +50.0 points over 2 shared slots" in capsys.readouterr().out


def test_across_runs_one_openings_file_kept_under_two_paths_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "o.txt"
    kept.write_text("0,0 1,0 0,1\n")
    digest = hashlib.sha256(kept.read_bytes()).hexdigest()
    runs = (
        ("a", {"openings": "gone/o.txt", "openings_sha256": digest}),  # noted its file's digest
        ("b", {"openings": str(kept)}),  # recorded without one: the file as it is now
        ("c", {"openings": "gone/o.txt"}),  # without one, its file gone: the path alone
    )
    for arm, record in runs:
        (tmp_path / arm).mkdir()
        game = _game(arm, 0, "black", 1.0 if arm == "a" else 0.0)
        (tmp_path / arm / ab.GAMES_FILE).write_text(ab._record(game) + "\n")
        (tmp_path / arm / ab.RUNS_FILE).write_text(json.dumps(record) + "\n")
    folders = [str(tmp_path / arm) for arm, _ in runs]
    assert ab.main(["report", *folders, "--base", "a", "--across-runs"]) == 0
    out = capsys.readouterr().out
    assert "b - a: -100.0 points over 1 shared slots" in out
    assert "c - a: no slot played by both" in out
    assert ab.openings_played(tmp_path / "c") == "gone/o.txt"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_one_colour_plays_half_of_each_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _two_rounds_of_one_arm(tmp_path, "--colour", "white") == 0
    games = ab.load(tmp_path / ab.GAMES_FILE)
    # each round's two openings, the arm White in both; the rounds still turn by games / 2
    assert [(g.round, g.opening, g.colour) for g in games] == [
        (1, 0, "white"),
        (1, 1, "white"),
        (2, 2, "white"),
        (2, 3, "white"),
    ]
    assert "good: 4 games" in capsys.readouterr().out
    (record,) = [json.loads(line) for line in (tmp_path / ab.RUNS_FILE).read_text().splitlines()]
    assert record["colour"] == "white"


@pytest.mark.parametrize("text", ["0,0 99,99\n", "", None], ids=["off-board", "empty", "missing"])
def test_an_openings_file_that_does_not_fit_is_refused(
    text: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openings = tmp_path / "openings.txt"
    if text is not None:
        openings.write_text(text)
    code = ab.main(
        [
            *("run", str(tmp_path), "--anchor", "x", "--arm", "a=y", "--size", "9"),
            *("--openings", str(openings)),
        ]
    )
    assert code == 1
    assert f"error: --openings {openings}:" in capsys.readouterr().err
    assert not (tmp_path / ab.GAMES_FILE).exists()
    assert not (tmp_path / ab.RUNS_FILE).exists()
