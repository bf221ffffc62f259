"""tools/judge.py: reading a judge's evaluations and finding where a game was lost, against a
scripted fake judge (tests/engine/fake_judge.py), so no outside engine is needed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.board import Board
from engine.gomocup.match import EngineSpec
from engine.gomocup.protocol import point_to_gomocup
from engine.gomocup.tactics import Puzzle
from engine.notation import parse_moves, parse_point
from engine.records import to_psq
from engine.types import Color, Point, Rule
from tools import judge as j

FAKE = Path(__file__).with_name("fake_judge.py")
# White (the player) loses by Black's five on the h file; White's moves are plies 2, 4, 6, 8
GAME = "h8 a1 h9 a2 h10 a3 h11 a4 h12"


def _spec(*evals: str) -> EngineSpec:
    return EngineSpec("fake", (sys.executable, str(FAKE), *evals))


def _game() -> j.Game:
    points = tuple(parse_moves(GAME))
    return j.Game("g", points, "wine", "engine.pbrain", 15, Rule.FREESTYLE)


def _judged(*pairs: tuple[str | None, str | None]) -> list[j.Judged]:
    def value(text: str | None) -> j.Eval | None:
        return None if text is None else j.parse_eval([f"MESSAGE Eval {text}"])

    return [
        j.Judged(2 * i, Point(i, 0), None, value(before), value(after))
        for i, (before, after) in enumerate(pairs)
    ]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["MESSAGE Depth 17-31 | Eval -363 | Time 618ms | J10 I7"], j.Eval(-363)),
        (
            ["MESSAGE Depth 9-20 | Eval +M11 | Time 5ms", "MESSAGE Speed 8K | Eval +M11"],
            j.Eval(0, 11),
        ),
        (["MESSAGE Eval -M12"], j.Eval(0, -12)),
        (["MESSAGE Eval +300", "MESSAGE Eval -M0"], j.Eval(0, -1)),
        (["MESSAGE depth 5 eval 120 nodes 4000 time 30"], j.Eval(120)),
        (["MESSAGE OptiTime 603ms | MaxTime 670ms"], None),
        ([], None),
    ],
)
def test_the_last_evaluation_of_the_messages_is_read(
    lines: list[str], expected: j.Eval | None
) -> None:
    assert j.parse_eval(lines) == expected


def test_evaluations_turn_sides_and_know_lost_from_won() -> None:
    assert j.Eval(0, -7).negated() == j.Eval(0, 7)
    assert str(j.Eval(0, -7)) == "-M7"
    assert str(j.Eval(40)) == "+40"
    assert j.Eval(0, -3).lost(2000)
    assert not j.Eval(0, 3).lost(2000)
    assert j.Eval(-2500).lost(2000)
    assert not j.Eval(-1999).lost(2000)
    assert j.Eval(0, 9).won(2000)
    assert not j.Eval(-10).won(2000)


def test_the_losing_move_is_the_last_flip_to_lost() -> None:
    # lost after move 1, saved by move 2 (the judge changed its mind), lost for good at 3
    judged = _judged(("+10", None), ("-M9", "+5"), ("+5", None), ("-M5", "-M3"))
    assert j.losing_move(judged, 2000) == 2
    # never lost
    assert j.losing_move(_judged(("+10", None), ("+20", "+30")), 2000) is None
    # lost before the first judged move: no move of the player's lost it
    assert j.losing_move(_judged(("-M9", None), ("-M7", "-M5")), 2000) is None
    # a position the judge said nothing about neither flips nor breaks the run: the loss
    # goes to the first move known to be followed by a lost position
    assert j.losing_move(_judged(("+10", None), (None, None), ("-3000", "-M3")), 2000) == 1
    # a large score counts as lost, and the last move's own "after" settles it
    assert j.losing_move(_judged(("+10", "-2500")), 2000) == 0
    assert j.losing_move(_judged(("+10", "-1500")), 2000) is None


def test_a_win_thrown_away_is_found() -> None:
    judged = _judged(("+M7", None), ("+200", None), ("-M3", "-M1"))
    assert j.wasted_wins(judged, 2000) == [0]


def test_the_judge_is_asked_before_each_move_and_after_the_losing_and_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "asked"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(log))
    # White to move with 3 stones is fine, with 5 it is mated: White's a2 (ply 4) lost
    spec = _spec("1=+50", "3=+20", "4=+M5", "5=-M5", "7=-M3", "8=+M1")
    with j.Judge(spec, turn_ms=10, size=15, rule=Rule.FREESTYLE) as judge:
        judged = j.judge_game(judge, _game(), Color.WHITE, threshold=2000)
    assert [item.ply for item in judged] == [1, 3, 5, 7]
    assert judged[0].judge_move == Point(0, 14)  # the fake's first empty point: a15
    index = j.losing_move(judged, 2000)
    assert index == 1
    assert judged[1].move == Point(0, 1)
    assert judged[1].before == j.Eval(20)
    assert judged[1].after == j.Eval(0, -5)
    assert judged[3].after == j.Eval(0, -1)  # after White's last move, Black mates in 1
    assert log.read_text().split() == ["1", "3", "5", "7", "8", "4"]


def test_the_command_line_reports_the_losing_move_of_a_lost_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = Board.from_moves(GAME)
    (tmp_path / "game0001.psq").write_text(to_psq(board, names=["wine", "python -m engine.pbrain"]))
    won = Board.from_moves("h8 a1 h9 a2 h10 a3 h11 a4 b9 a5")
    (tmp_path / "game0002.psq").write_text(to_psq(won, names=["wine", "python -m engine.pbrain"]))
    fake = f"{sys.executable} {FAKE} 3=+20 5=-M5 4=+M5 7=-M3 8=+M1"
    folder = str(tmp_path)
    args = [folder, "--judge", fake, "--cwd", folder, "--turn-ms", "10", "--recheck", "2000"]
    code = j.main(args)
    out = capsys.readouterr().out
    assert code == 0
    assert "game0001.psq: white lost in 9 moves" in out
    assert "LOST move 4 a2 (judge a15) before +20 after -M5" in out
    # the search's move after "h8 a1 h9", whatever it is, leaves 4 stones: +M5 for Black
    assert "    searched with 2k nodes: " in out
    assert out.split("searched with 2k nodes: ")[1].split("\n")[0].endswith("(-M5)")
    assert "game0002" not in out  # a won game is not judged without --all
    assert "judged 1 games" in out


@pytest.mark.slow
def test_a_position_and_the_hard_defences_can_be_asked_about(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake = f"{sys.executable} {FAKE} 3=-M4"
    assert j.main(["--judge", fake, "--moves", "h8 h9 h10"]) == 0
    assert capsys.readouterr().out == "white to move: judge a15 eval -M4\n"
    from engine.gomocup.tactics import DEFENCES, HARD_DEFENCES

    # the fake plays the first hard puzzle's answer wherever it has that puzzle's stone count,
    # and the first empty point (never an answer) elsewhere
    first = HARD_DEFENCES[0]
    stones = len(first.board().moves)
    assert first.answer is not None
    x, y = point_to_gomocup(parse_point(first.answer), 15)
    fake = f"{sys.executable} {FAKE} {stones}=play{x},{y}"
    assert j.main(["--judge", fake, "--tactics", "--turn-ms", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    puzzles = [*DEFENCES, *HARD_DEFENCES]
    assert len(lines) == len(puzzles) + 2
    assert [line.split()[0] for line in lines[: len(puzzles)]] == ["defence"] * len(DEFENCES) + [
        "hard"
    ] * len(HARD_DEFENCES)
    # the fake says +0 after each answer, and nothing where it plays the first puzzle's answer
    silent = [len(p.board().moves) + 1 == stones for p in puzzles]
    for quiet, line in zip(silent, lines, strict=False):
        assert line.endswith("lost" if quiet else "saves")
    hard = lines[len(DEFENCES)]
    assert hard.startswith(f"hard  0 freestyle answer {first.answer}")
    assert f"(judge {first.answer}, the answer)" in hard

    def finds(group: tuple[Puzzle, ...]) -> int:
        return sum(len(p.board().moves) == stones and p.answer == first.answer for p in group)

    assert sum("the answer)" in line for line in lines) == finds(DEFENCES) + finds(HARD_DEFENCES)
    assert lines[-2] == (
        f"the judge plays the answer in {finds(DEFENCES)} of {len(DEFENCES)} defences and"
        f" {finds(HARD_DEFENCES)} of {len(HARD_DEFENCES)} hard defences at 10 ms"
    )
    saved = [not quiet for quiet in silent]
    assert lines[-1] == (
        f"after the answer it finds no forced win in {sum(saved[: len(DEFENCES)])} of the"
        f" defences and {sum(saved[len(DEFENCES) :])} of the hard defences"
    )


def test_a_dead_judge_is_an_error_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert j.main(["--judge", f"{sys.executable} -c pass", "--moves", "h8"]) == 1
    assert "the judge did not start" in capsys.readouterr().err


def test_the_worst_move_is_the_biggest_fall_with_mates_beyond_any_score() -> None:
    judged = _judged(("+10", "-900"), ("-900", "-1500"), ("-1500", "-M9"))
    assert j.biggest_drop(judged) == 2
    assert j.biggest_drop(_judged(("+10", "-900"), ("-900", "-1000"))) == 0
    assert j.biggest_drop(_judged((None, None))) is None


def test_a_five_played_without_a_word_counts_as_mate_in_one() -> None:
    # after White's last move Black's h12 (7,3) makes five; the fake says nothing about it
    spec = _spec("3=+20", "5=-M5", "4=+M5", "7=-M3", "8=play7,3")
    with j.Judge(spec, turn_ms=10, size=15, rule=Rule.FREESTYLE) as judge:
        judged = j.judge_game(judge, _game(), Color.WHITE, threshold=2000)
    assert judged[3].after == j.Eval(0, -1)
    assert j.losing_move(judged, 2000) == 1


def test_where_two_arms_first_chose_differently_the_judge_scores_both_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tools import ab

    def game(arm: str, opening: int, colour: str, moves: str) -> ab.Game:
        return ab.Game(arm, 1, opening, colour, 0.5, "five", len(moves.split()), moves)

    games = [
        # as Black the arms part at ply 4, their own move: judged
        game("ship", 0, "black", "h8 i9 j10 g7 k11 a1"),
        game("new", 0, "black", "h8 i9 j10 g7 f6 a1"),
        # as White they part at ply 4, the anchor's move; the third slot is one game: neither
        game("ship", 1, "white", "h8 i9 j10 g7 k11 a1"),
        game("new", 1, "white", "h8 i9 j10 g7 f6 a1"),
        game("ship", 2, "black", "h8 i9 j10"),
        game("new", 2, "black", "h8 i9 j10"),
    ]
    (tmp_path / ab.GAMES_FILE).write_text("".join(ab._record(g) + "\n" for g in games))
    log = tmp_path / "asked"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(log))
    kx, ky = point_to_gomocup(parse_point("k11"), 15)
    fx, fy = point_to_gomocup(parse_point("f6"), 15)
    # the judge speaks for White, the anchor, to move: ship's k11 leaves it -516 (Black's
    # chance 1 / (1 + e^(-516 / 515.6)), 73.1%), new's f6 a forced win for White
    fake = f"{sys.executable} {FAKE} 5@{kx},{ky}=-516 5@{fx},{fy}=+M9"
    args = ["--judge", fake, "--partings", str(tmp_path), "--arm", "new", "--nodes", "100"]
    assert j.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{tmp_path.name} opening 0 as black, ply 4: ship k11 73.1%, new f6 0.0%",
        "the arms first chose differently in 1 slots: by the judge new's move was the better"
        " in 0, ship's in 1, alike in 0; new - ship: -73.1 points of winning chance"
        " (standard error nan)",
    ]
    assert log.read_text().split() == ["5", "5"]  # the two positions, nothing else


def test_partings_need_the_arm_to_judge(capsys: pytest.CaptureFixture[str]) -> None:
    assert j.main(["--judge", "x", "--partings", "."]) == 2
    assert "--partings needs --arm" in capsys.readouterr().err
