"""tools/tune_order.py: the positions it asks the judge about (from a scripted fake judge,
tests/engine/fake_judge.py), the distance buckets, and a fit that learns a rule the hand-set
ordering cannot know."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.board import Board
from engine.gomocup.openings import openings
from engine.records import to_psq
from engine.types import Point, Rule
from tools import tune_order

FAKE = Path(__file__).with_name("fake_judge.py")
JUDGE = f"{sys.executable} {FAKE}"


def _game(folder: Path, name: str, moves: list[Point]) -> None:
    board = Board.from_moves(moves)
    (folder / name).write_text(to_psq(board, names=["black", "white"]))


def _games(tmp_path: Path) -> Path:
    # a game from match opening 0 (left out by default), one from opening 40, one from none
    folder = tmp_path / "games"
    folder.mkdir()
    tail = [Point(0, 14), Point(14, 14), Point(1, 14), Point(13, 14), Point(2, 14)]
    _game(folder, "a.psq", [*openings(15)[0], *tail])
    _game(folder, "b.psq", [*openings(15)[40], *tail])
    _game(folder, "c.psq", [Point(7, 7), Point(8, 8), Point(6, 6), *tail])
    return folder


def test_gather_asks_about_the_games_beyond_the_held_out_openings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = _games(tmp_path)
    out = tmp_path / "order.jsonl"
    log = tmp_path / "asked.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(log))
    args = ["gather", str(out), str(games), "--judge", JUDGE, "--per-game", "3", "--jobs", "1"]
    assert tune_order.main(args) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    firsts = {tuple(map(tuple, row["m"][:3])) for row in rows}
    kept = {tuple((p.x, p.y) for p in openings(15)[40]), ((7, 7), (8, 8), (6, 6))}
    assert firsts == kept
    assert len(rows) == 6  # three positions from each kept game
    for row in rows:
        assert len(row["m"]) >= 3
        stones = {tuple(p) for p in row["m"]}
        # the fake judge's move: its first empty point, reading from the protocol's top row
        top_first = ((x, 14 - row) for row in range(15) for x in range(15))
        assert tuple(row["b"]) == next(p for p in top_first if p not in stones)
    asked = len(log.read_text().splitlines())
    assert tune_order.main(args) == 0  # a second run asks about nothing new
    assert len(log.read_text().splitlines()) == asked
    assert len(out.read_text().splitlines()) == 6
    everything = ["gather", str(tmp_path / "all.jsonl"), str(games), "--judge", JUDGE]
    assert tune_order.main([*everything, "--per-game", "1", "--from-opening", "0"]) == 0
    assert len((tmp_path / "all.jsonl").read_text().splitlines()) == 3


def test_near_buckets() -> None:
    assert tune_order.near_bucket(7, 7, None) == 8
    assert tune_order.near_bucket(8, 7, (7, 7)) == 1  # next to it, on its row
    assert tune_order.near_bucket(8, 9, (7, 7)) == 2  # a knight's move: 2 away, off its lines
    assert tune_order.near_bucket(9, 9, (7, 7)) == 3  # 2 away on its diagonal
    assert tune_order.near_bucket(7, 0, (7, 7)) == 9  # far, on its column
    assert tune_order.near_bucket(0, 3, (7, 7)) == 8  # far, off its lines


def _rule_rows(count: int, seed: int) -> list[dict[str, list[list[int]] | list[int]]]:
    # random stones near the centre; the "judge" always plays two points up and right of the
    # last stone, which the hand-set ordering (shapes only) cannot know
    rng = random.Random(seed)
    rows: list[dict[str, list[list[int]] | list[int]]] = []
    while len(rows) < count:
        moves: list[tuple[int, int]] = []
        while len(moves) < rng.randint(6, 14):
            point = (rng.randint(4, 10), rng.randint(4, 10))
            if point not in moves:
                moves.append(point)
        target = (moves[-1][0] + 2, moves[-1][1] + 2)
        if target not in moves:
            rows.append({"m": [list(p) for p in moves], "b": list(target)})
    return rows


def test_the_fit_learns_what_the_judge_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    c = tune_order.candidates(_rule_rows(300, 1), 15, Rule.FREESTYLE)
    assert c.count > 280  # a few random positions hold a five and are left out
    train, held = tune_order.split(c, 0.3, 1)
    assert train.count + held.count == c.count
    assert held.count > 50
    w = tune_order.fit(train, 3e-5, 300)
    hand = tune_order.shares(tune_order.ranks(held, held.hand))
    learned = tune_order.shares(tune_order.ranks(held, tune_order.logits(held, w)))
    assert learned[2] >= 0.95  # within the first 10: the judge's move is one of 8 such points
    assert hand[2] < 0.5
    data = tmp_path / "rule.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in _rule_rows(200, 2)))
    out = tmp_path / "tables.json"
    args = ["fit", str(data), "--steps", "300", "--out", str(out), "--scale", "100"]
    assert tune_order.main(args) == 0
    printed = capsys.readouterr().out
    assert "learned   held out" in printed
    assert "hand      fitted" in printed
    tables = json.loads(out.read_text())
    assert [len(tables[name]) for name, _ in tune_order.TABLES] == [121, 144, 100]
    near = np.array(tables["near"]).reshape(10, 10)
    assert int(np.argmax(near.max(axis=1))) == tune_order.near_bucket(9, 9, (7, 7))


def test_positions_of_a_finished_game_and_forced_moves_are_left_out() -> None:
    five = [[7, 7], [0, 0], [8, 7], [0, 2], [9, 7], [0, 4], [10, 7], [0, 6], [11, 7]]
    four = five[:7]  # Black has four in a row: White's move is forced
    quiet = [[7, 7], [8, 8], [6, 6]]
    rows = [
        {"m": five, "b": [1, 1]},
        {"m": four, "b": [11, 7]},
        {"m": quiet, "b": [5, 5]},
    ]
    c = tune_order.candidates(rows, 15, Rule.FREESTYLE)
    assert c.count == 1
    board = Board.from_moves([Point(x, y) for x, y in quiet])
    assert len(c.position) == sum(
        1
        for y in range(15)
        for x in range(15)
        if board.is_legal(Point(x, y))
        and any(max(abs(x - sx), abs(y - sy)) <= 2 for sx, sy in quiet)
    )
