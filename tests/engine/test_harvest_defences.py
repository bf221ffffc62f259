"""tools/harvest_defences.py: the lost games it reads from PSQ and ``ab.py`` records, and the
one saving move it finds in a real lost game (a hard defence of the tactical suite, played on
with a move that loses)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.board import Board
from engine.gomocup.tactics import HARD_DEFENCES, LOST_ANSWERS, after_answer
from engine.records import to_psq
from engine.search.alphabeta import wins_by_threats
from engine.types import Color, Point, Rule
from tools import harvest_defences as hd
from tools.ab import load, pack

# one of the suite's hard defences (freestyle: only f10 stops Black)
PUZZLE = next(p for p in HARD_DEFENCES if p.moves == "h8 f8 f7 h7 e9 g8 g9 e8 f9 h9 d8")
# PUZZLE's position, White's losing move and the rest of the game as the search played it
LOST = f"{PUZZLE.moves} d5 f10 c7 i7 e11 j6"
NODES = 100_000  # at 50,000 the search cannot yet prove that c7 loses


def _points(text: str) -> list[Point]:
    return [Point.parse(word) for word in text.split()]


def _record(arm: str, colour: str, score: float, ending: str, moves: str) -> str:
    game = {"arm": arm, "round": 1, "opening": 0, "colour": colour, "score": score}
    return json.dumps(game | {"ending": ending, "plies": len(moves.split()), "moves": moves})


def test_the_lost_game_is_a_loss_for_white() -> None:
    board = Board.from_moves(LOST)
    assert board.outcome is not None
    assert board.outcome.winner is Color.BLACK
    assert str(board.moves[len(_points(PUZZLE.moves))].point) != PUZZLE.answer


def test_psq_records_name_the_loser() -> None:
    board = Board.from_moves(LOST)
    text = to_psq(board, names=["anchor", "master"])
    game = hd.from_psq_text("g.psq", text, "master", Rule.FREESTYLE)
    assert game is not None
    assert game.color is Color.WHITE
    assert game.moves == _points(LOST)
    assert hd.from_psq_text("g.psq", text, "anchor", Rule.FREESTYLE) is None  # it won
    assert hd.from_psq_text("g.psq", text, "other", Rule.FREESTYLE) is None  # not playing
    unfinished = to_psq(Board.from_moves(PUZZLE.moves), names=["anchor", "master"])
    assert hd.from_psq_text("g.psq", unfinished, "master", Rule.FREESTYLE) is None


def test_jsonl_records_keep_the_arms_losses_by_five(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    text = "\n".join(
        [
            _record("ship", "white", 0.0, "five", LOST),
            _record("ship", "black", 1.0, "five", LOST),  # won
            _record("ship", "white", 0.0, "time", PUZZLE.moves),  # lost on time
            _record("ship", "white", 0.5, "full", PUZZLE.moves),  # drawn
            "",
            _record("cand", "black", 0.0, "five", "h8 i9 h9 i10 h10 i11 g7 i12 f6 i13"),
        ]
    )
    path.write_text(text + "\n")
    ship = list(hd.from_ab_games("games.jsonl", load(path), "ship"))
    assert [(game.label, game.color) for game in ship] == [("games.jsonl:1", Color.WHITE)]
    assert ship[0].moves == _points(LOST)
    both = list(hd.from_ab_games("games.jsonl", load(path), None))
    assert [(game.label, game.color) for game in both] == [
        ("games.jsonl:1", Color.WHITE),
        ("games.jsonl:5", Color.BLACK),
    ]


def test_a_record_that_is_no_loss_on_the_board_gives_nothing() -> None:
    won = hd.Lost("x", _points(LOST), Color.BLACK)  # Black made the five
    assert hd.harvest(won, Rule.FREESTYLE, NODES) is None
    unfinished = hd.Lost("x", _points(PUZZLE.moves), Color.WHITE)
    assert hd.harvest(unfinished, Rule.FREESTYLE, NODES) is None


@pytest.mark.parametrize("form", ["psq", "jsonl", "packed"])
def test_the_saving_move_is_found_in_the_lost_game(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    board = Board.from_moves(LOST)
    if form == "psq":
        (tmp_path / "game.psq").write_text(to_psq(board, names=["anchor", "master"]))
        argv = [str(tmp_path)]
    else:
        lines = [
            _record("ship", "white", 0.0, "five", LOST),
            _record("x", "white", 0.0, "five", LOST),
        ]
        (tmp_path / "games.jsonl").write_text("\n".join(lines) + "\n")
        argv = [str(tmp_path / "games.jsonl"), "--arm", "ship"]
        if form == "packed":  # the folder named, as tools/ab.py leaves it: games and runs
            (tmp_path / "runs.jsonl").write_text('{"argv": ["run"], "openings": null}\n')
            assert pack(tmp_path) == [tmp_path / "games.jsonl.gz", tmp_path / "runs.jsonl.gz"]
            argv = [str(tmp_path), "--arm", "ship"]
    monkeypatch.setattr("sys.argv", ["harvest_defences.py", *argv, "--nodes", str(NODES)])
    assert hd.main() == 0
    out, err = capsys.readouterr()
    # c7 loses to a win by quieter moves than threats (Rapfi: f10, +M15; the suite's
    # NOT_BY_THREATS), so its loss rests on the search's claim and the line says so
    assert out.splitlines() == [
        f'Puzzle(F, "{PUZZLE.moves}", answer="{PUZZLE.answer}", wins=False),'
        "  # lost by the search's claim alone: c7"
    ]
    assert [line.rsplit(": ", 1)[1] for line in err.splitlines()] == ["found"]


@pytest.mark.parametrize(("rule", "letter"), [(Rule.FREESTYLE, "F"), (Rule.STANDARD, "S")])
def test_a_puzzle_line_names_the_rule_as_the_suite_does(rule: Rule, letter: str) -> None:
    # engine/gomocup/tactics.py names its rules F, S and R: the line pastes in as it is
    line = hd._line(rule, _points("h8 i9 h9"), Point.parse("h10"))
    assert line == f'Puzzle({letter}, "h8 i9 h9", answer="h10", wins=False),'


def test_only_the_moves_no_proof_covers_rest_on_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # with no proof-number search at all, every losing move rests on the search's claim
    board = PUZZLE.board()
    alive, claimed = hd._survivors(board, NODES)
    assert [str(point) for point in alive] == [PUZZLE.answer]
    assert [str(point) for point in claimed] == ["c7"]
    monkeypatch.setattr(hd, "wins_by_threats", lambda board, nodes: None)
    alive, unproved = hd._survivors(board, NODES)
    assert [str(point) for point in alive] == [PUZZLE.answer]
    assert len(unproved) > 20
    assert set(claimed) < set(unproved)


def test_the_block_of_a_four_is_no_puzzle() -> None:
    # Black h8 i8 j8 k8 (a four: g8 or l8 makes five) against White's scattered stones
    four = Board.from_moves("h8 a1 i8 a3 j8 a5 k8")
    assert hd._faces_four(four)
    assert not hd._faces_four(PUZZLE.board())  # an attack by threes, no four yet
    three = Board.from_moves("h8 a1 i8 a3 j8")  # White to move against an open three
    assert not hd._faces_four(three)


def test_an_answer_the_proof_number_search_proves_lost_is_no_answer() -> None:
    # hard40's h1 looks like the one move that holds at the harvest's own budgets (the search
    # at four times its nodes, the proof at 1,000,000 nodes), and the suite's budget proves it
    # lost; PUZZLE's f10 holds
    after = after_answer(HARD_DEFENCES[40])
    assert hd.PROOF_NODES < LOST_ANSWERS[40] <= hd.ANSWER_NODES
    assert not hd._opponent_wins(after, NODES)
    assert wins_by_threats(after, hd.PROOF_NODES) is None
    assert not hd._holds(after, NODES)
    assert hd._holds(after_answer(PUZZLE), NODES)
