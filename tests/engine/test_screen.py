"""tools/screen.py: the positions it screens, the judge's scores for the side that moved (from a
scripted fake judge, tests/engine/fake_judge.py), its cache, and the paired comparison."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from engine.board import Board
from engine.gomocup.openings import openings
from engine.records import to_psq
from engine.types import Point
from tools import screen
from tools.tune_eval import CLIP, JUDGE_SCALE

FAKE = Path(__file__).with_name("fake_judge.py")
GAME = "h8 a1 h9 a2 h10 a3 h11 a4 h12"  # nine moves: positions after 5 and 7 of them


def _games(folder: Path) -> Path:
    folder.mkdir()
    board = Board.from_moves(GAME)
    (folder / "game0001.psq").write_text(to_psq(board, names=["black", "white"]))
    return folder


def _run(tmp_path: Path, out: str, *extra: str) -> dict[str, screen.Rated]:
    # after White's move on an opening (4 stones) the judge gives Black -250, after 6 stones
    # it sees Black's forced win, after 8 it says nothing
    judge = f"{sys.executable} {FAKE} 4=-250 6=+M5 8=play0,0"
    games = tmp_path / "games"
    if not games.exists():
        _games(games)
    code = screen.main(
        ["run", str(tmp_path / out), str(games), "--judge", judge, "--plies", "5,7,9", *extra]
    )
    assert code == 0
    return screen.read(tmp_path / out)


def test_the_positions_are_the_openings_then_the_games_each_once(tmp_path: Path) -> None:
    games = _games(tmp_path / "games")
    found = screen.positions([games, games], [5, 7, 9], 15, Board.from_moves("").rule)
    first = [tuple((p.x, p.y) for p in opening) for opening in openings(15)]
    assert found[: len(first)] == first
    moves = [(m.point.x, m.point.y) for m in Board.from_moves(GAME).moves]
    assert found[len(first) :] == [tuple(moves[:5]), tuple(moves[:7])]  # the game ends at 9


def test_the_judge_scores_our_moves_for_the_side_that_moved(tmp_path: Path) -> None:
    rows = _run(tmp_path, "a.jsonl", "--nodes", "300", "--jobs", "2")
    assert len(rows) == len(openings(15)) + 2
    scores = [row.score for row in rows.values()]
    assert scores[: len(openings(15))] == [250] * len(openings(15))
    assert scores[-2:] == [-CLIP, None]
    for row in rows.values():
        board = Board.from_moves([Point(*map(int, item.split(","))) for item in row.moves.split()])
        assert board.is_legal(Point(*map(int, row.move.split(","))))


def test_the_cache_spares_the_judge_a_second_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "asked.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(log))
    cache = str(tmp_path / "cache.jsonl")
    first = _run(tmp_path, "a.jsonl", "--nodes", "300", "--cache", cache)
    asked = len(log.read_text().split())
    assert asked == len(first)  # every move differs, so each position after it is asked once
    again = _run(tmp_path, "b.jsonl", "--nodes", "300", "--cache", cache)
    assert len(log.read_text().split()) == asked
    assert again == first


@pytest.mark.slow
def test_another_engine_can_pick_the_moves(tmp_path: Path) -> None:
    # the fake judge as the engine: it plays the first empty point in reading order, the
    # top-left corner (a15: our rows count upwards)
    rows = _run(tmp_path, "e.jsonl", "--engine", f"{sys.executable} {FAKE}", "--turn-ms", "200")
    assert {row.move for row in rows.values()} == {"0,14"}


def _file(path: Path, rows: list[tuple[str, str, int | None]]) -> Path:
    path.write_text(
        "".join(json.dumps({"moves": m, "move": mv, "score": s}) + "\n" for m, mv, s in rows)
    )
    return path


def test_compare_pairs_the_positions_both_rated(tmp_path: Path) -> None:
    base = _file(tmp_path / "base", [("a", "1,1", 0), ("b", "2,2", 0), ("c", "3,3", None)])
    better = _file(tmp_path / "better", [("a", "1,1", 516), ("b", "4,4", 516), ("c", "3,3", -3000)])
    even = _file(tmp_path / "even", [("a", "1,1", 3000), ("b", "2,2", -3000)])
    lines = screen.compare([base, better, even])
    assert lines[0].endswith("2 positions rated, mean winning chance 50.00%")
    gain = 100 * (1 / (1 + math.exp(-516 / JUDGE_SCALE)) - 0.5)
    assert f"{gain:+.2f} +- 0.00 points over 2 positions; same move in 1" in lines[3]
    assert "+0.00 +- " in lines[4]
    assert lines[4].endswith("over 2 positions; same move in 2")
