"""The opening book: its canonical keys agree with a brute-force oracle that turns whole
boards, it answers every turned copy of a position with the correspondingly turned move, its
moves are legal, ``GOMOKU_BOOK=off`` turns it off, the shipped file is the one its manifest
and shards describe, and ``tools/book.py`` makes a shard that resumes."""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.gomocup.match import EngineSpec, main, read_openings
from engine.gomocup.openings import OPENINGS, offsets, openings
from engine.gomocup.pbrain import strongest_searcher
from engine.gomocup.protocol import MoveLimits
from engine.notation import format_moves
from engine.search import book as book_module
from engine.search.alphabeta import Limits, SearchOptions, SearchResult
from engine.search.book import (
    BOOK_PATH,
    Book,
    BookMove,
    book_move,
    book_rules,
    canonical,
    load_book,
    parse_book,
    transform,
    untransform,
)
from engine.search.levels import choose_move
from engine.types import Color, Level, Point, Rule
from tests.scale import examples
from tools import ab, shards
from tools import book as book_tool

SIZE = 15
FAKE = Path(__file__).with_name("fake_judge.py")


# -- the oracle: whole boards turned by numpy ----------------------------------------------


def _grid(black: list[Point], white: list[Point]) -> np.ndarray:
    # grid[y, x]: 1 Black, 2 White
    grid = np.zeros((SIZE, SIZE), dtype=np.int8)
    for p in black:
        grid[p.y, p.x] = 1
    for p in white:
        grid[p.y, p.x] = 2
    return grid


def _key_of_grid(grid: np.ndarray) -> str:
    def stones(colour: int) -> str:
        ys, xs = np.nonzero(grid == colour)
        return ";".join(f"{x},{y}" for x, y in sorted(zip(xs.tolist(), ys.tolist(), strict=True)))

    return f"b{stones(1)}w{stones(2)}"


def _all_turns(grid: np.ndarray) -> list[np.ndarray]:
    # the 8 symmetries of the square: four rotations, each also mirrored
    turns = []
    for k in range(4):
        turned = np.rot90(grid, k)
        turns += [turned, np.fliplr(turned)]
    return turns


def _oracle_key(black: list[Point], white: list[Point]) -> str:
    return min(_key_of_grid(g) for g in _all_turns(_grid(black, white)))


points = st.builds(Point, st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))


@st.composite
def positions(draw: st.DrawFn, least: int = 0, most: int = 8) -> tuple[list[Point], list[Point]]:
    stones = draw(st.lists(points, min_size=least, max_size=most, unique=True))
    return stones[0::2], stones[1::2]


@given(positions())
def test_the_canonical_key_is_the_least_of_the_turned_boards(
    position: tuple[list[Point], list[Point]],
) -> None:
    black, white = position
    key, symmetry = canonical(black, white, SIZE)
    assert key == _oracle_key(black, white)
    turned_black = [transform(p, symmetry, SIZE) for p in black]
    turned_white = [transform(p, symmetry, SIZE) for p in white]
    assert _key_of_grid(_grid(turned_black, turned_white)) == key


@given(points, st.integers(0, 7))
def test_untransform_undoes_transform(point: Point, symmetry: int) -> None:
    assert untransform(transform(point, symmetry, SIZE), symmetry, SIZE) == point
    assert transform(untransform(point, symmetry, SIZE), symmetry, SIZE) == point


def _played(moves: list[Point]) -> Board:
    return Board.from_moves(moves, size=SIZE, rule=Rule.FREESTYLE)


def _same_position(board: Board, one: Point, other: Point) -> bool:
    # two answers are the same move when the positions after them are one up to symmetry
    keys = []
    for move in (one, other):
        after = board.copy()
        after.play(move)
        keys.append(canonical(after.stones(Color.BLACK), after.stones(Color.WHITE), SIZE)[0])
    return keys[0] == keys[1]


def _turned_board(board: Board, symmetry: int) -> Board:
    return _played([transform(m.point, symmetry, SIZE) for m in board.moves])


@settings(max_examples=examples(60))
@given(st.lists(points, min_size=3, max_size=7, unique=True), st.integers(0, 7))
def test_every_turned_copy_gets_the_turned_move(stones: list[Point], stored_at: int) -> None:
    *opening, answer = stones
    board = _played(opening)
    # the book holds the answer as it was found on one of the turned copies
    found_on = _turned_board(board, stored_at)
    key, symmetry = canonical(found_on.stones(Color.BLACK), found_on.stones(Color.WHITE), SIZE)
    stored = transform(transform(answer, stored_at, SIZE), symmetry, SIZE)
    book = Book(SIZE, Rule.FREESTYLE, {key: BookMove(stored, 7)})
    for turn in range(8):
        turned = _turned_board(board, turn)
        expected = transform(answer, turn, SIZE)
        got = book.lookup(turned)
        assert got is not None
        assert got.score == 7
        assert turned.is_legal(got.move)
        assert _same_position(turned, got.move, expected)


# -- the shipped book ----------------------------------------------------------------------


def _shipped() -> Book:
    book = load_book()
    assert book is not None, f"{BOOK_PATH} is missing or unreadable"
    return book


def test_the_book_answers_every_match_opening_turned_any_way_with_a_legal_move() -> None:
    book = _shipped()
    assert book.rule is Rule.FREESTYLE
    assert book.size == SIZE
    for moves in openings(SIZE):
        board = _played(list(moves))
        answer = book.lookup(board)
        assert answer is not None, moves
        assert board.is_legal(answer.move)
        for turn in range(8):
            turned = _turned_board(board, turn)
            got = book.lookup(turned)
            assert got is not None
            assert turned.is_legal(got.move)
            assert _same_position(turned, got.move, transform(answer.move, turn, SIZE))


def test_every_position_of_the_book_gets_a_legal_move_near_its_stones() -> None:
    book = _shipped()
    for key in book.moves:
        black_text, white_text = key[1:].split("w")
        stones = [
            [Point(*map(int, pair.split(","))) for pair in text.split(";") if pair]
            for text in (black_text, white_text)
        ]
        moves = [stones[0][0], stones[1][0], *stones[0][1:], *stones[1][1:]]
        board = _played(moves)
        answer = book.lookup(board)
        assert answer is not None
        assert board.is_legal(answer.move)
        assert min(max(abs(answer.move.x - p.x), abs(answer.move.y - p.y)) for p in moves) <= 2


def test_the_book_is_read_in_freestyle_and_in_the_rules_the_setting_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GOMOKU_BOOK_RULES", raising=False)
    assert book_rules() is None
    moves = list(openings(SIZE)[0])
    freestyle = book_move(_played(moves))
    assert freestyle is not None
    standard = Board.from_moves(moves, size=SIZE, rule=Rule.STANDARD)
    renju = Board.from_moves(moves, size=SIZE, rule=Rule.RENJU)
    assert book_move(standard) is None
    assert book_move(renju) is None
    assert book_move(Board.from_moves([Point(p.x - 1, p.y - 1) for p in moves], size=13)) is None
    # the setting chooses the rules, for measuring; unknown names are ignored
    monkeypatch.setenv("GOMOKU_BOOK_RULES", "freestyle, standard, chess")
    assert book_rules() == frozenset({Rule.FREESTYLE, Rule.STANDARD})
    assert book_move(standard) == freestyle
    assert book_move(renju) is None
    assert _shipped().lookup(standard) is None  # a book alone answers its own rule
    monkeypatch.setenv("GOMOKU_BOOK_RULES", "renju")
    assert book_move(renju) == freestyle
    assert book_move(_played(moves)) is None
    monkeypatch.setenv("GOMOKU_BOOK_RULES", "chess")
    assert book_rules() is None
    assert book_move(_played(moves)) == freestyle


def test_the_book_file_matches_its_manifest_and_its_shards(tmp_path: Path) -> None:
    manifest = json.loads(book_tool.MANIFEST_PATH.read_text(encoding="utf-8"))
    assert manifest["sha256"] == shards.sha256(BOOK_PATH)
    assert manifest["positions"] == len(_shipped().moves)
    assert manifest["match_openings"] == len(OPENINGS)
    folder = book_tool.ROOT / "data" / "book"
    for shard in manifest["shards"]:
        assert shards.sha256(folder / shard["file"]) == shard["sha256"]
    # the shards build the same file again
    rebuilt = tmp_path / "book.json"
    book_tool.build(
        folder,
        rebuilt,
        second="second" in manifest,
        black="black" in manifest,
        black_second="black_second" in manifest,
        replies="replies" in manifest,
        black_replies="black_replies" in manifest,
    )
    assert rebuilt.read_bytes() == BOOK_PATH.read_bytes()


def test_a_malformed_book_is_refused() -> None:
    good = {"format": 1, "size": 15, "rule": "freestyle", "positions": {"b7,7w": {"move": "1,2"}}}
    assert parse_book(good).moves["b7,7w"] == BookMove(Point(1, 2), 0)
    for bad in (
        {**good, "format": 9},
        {**good, "positions": []},
        {**good, "positions": {"k": {"move": "x"}}},
        {**good, "positions": {"k": {}}},
        {**good, "rule": "chess"},
    ):
        with pytest.raises(ValueError, match="book"):
            parse_book(bad)


# -- where master consults it --------------------------------------------------------------


def test_master_plays_the_book_move_and_off_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.search.alphabeta

    board = _played(list(openings(SIZE)[0]))
    expected = _shipped().lookup(board)
    assert expected is not None
    searched: list[int] = []
    real = engine.search.alphabeta.search

    def spy(board: Board, limits: Limits, options: SearchOptions | None = None) -> SearchResult:
        searched.append(len(board.moves))
        return real(board, Limits(depth=1), options)

    monkeypatch.setattr(engine.search.alphabeta, "search", spy)
    monkeypatch.delenv("GOMOKU_BOOK", raising=False)
    chosen = choose_move(board, Level.MASTER, 1)
    assert (chosen.move, chosen.nodes) == (expected.move, 0)
    thought = strongest_searcher()(board, MoveLimits(nodes=2000))
    assert (thought.move, thought.nodes) == (expected.move, 0)
    assert searched == []
    # the levels below master never read it
    choose_move(board, Level.EXPERT, 1)
    assert searched == [3]
    monkeypatch.setenv("GOMOKU_BOOK", "off")
    assert book_move(board) is None
    choose_move(board, Level.MASTER, 1)
    strongest_searcher()(board, MoveLimits(nodes=2000))
    assert searched == [3, 3, 3]


def test_another_book_file_is_read_where_the_setting_names_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    board = _played(list(openings(SIZE)[0]))
    key, symmetry = canonical(board.stones(Color.BLACK), board.stones(Color.WHITE), SIZE)
    shipped = _shipped().lookup(board)
    assert shipped is not None
    other = next(
        Point(x, y) for x in range(SIZE) for y in range(SIZE) if board.is_legal(Point(x, y))
    )
    assert other != shipped.move
    stored = transform(other, symmetry, SIZE)
    path = tmp_path / "other.json"
    path.write_text(
        json.dumps(
            {
                "format": 1,
                "size": SIZE,
                "rule": "freestyle",
                "positions": {key: {"move": f"{stored.x},{stored.y}", "master": 5}},
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("GOMOKU_BOOK", str(path))
    assert book_move(board) == BookMove(other, 5)
    monkeypatch.setenv("GOMOKU_BOOK", "on")
    assert book_move(board) == shipped


def test_without_a_book_file_master_searches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(book_module, "load_book", lambda: load_book(tmp_path / "none.json"))
    assert book_move(_played(list(openings(SIZE)[0]))) is None


# -- tools/book.py -------------------------------------------------------------------------


def test_the_book_covers_every_candidate_once_the_match_openings_first() -> None:
    every = book_tool.book_openings()
    assert len(every) == 251
    boards = [book_tool.opening_board(stones) for stones in every]
    keys = {canonical(b.stones(Color.BLACK), b.stones(Color.WHITE), SIZE)[0] for b in boards}
    assert len(keys) == 251
    for stones, moves in zip(every, openings(SIZE), strict=False):
        played = book_tool.opening_board(stones)
        original = _played(list(moves))
        assert (
            canonical(played.stones(Color.BLACK), played.stones(Color.WHITE), SIZE)[0]
            == canonical(original.stones(Color.BLACK), original.stones(Color.WHITE), SIZE)[0]
        )


def test_a_shard_keeps_the_judges_choice_and_resumes(tmp_path: Path) -> None:
    # the fake judge rates every position after White's move alike: master's first choice
    # stays; its own move is the first empty point
    judge = EngineSpec("judge", (sys.executable, str(FAKE), "4=-120", "3=+40"))
    settings_ = book_tool.Settings(
        shard=1, per_shard=2, nodes=3000, alternatives=1, judge_nodes=100
    )
    whole = book_tool.make_shard(tmp_path / "a", settings_, judge, log=lambda _: None)
    data = json.loads(whole.read_text(encoding="utf-8"))
    assert [r["opening"] for r in data["records"]] == [
        book_tool._text(s) for s in book_tool.book_openings()[2:4]
    ]
    for record in data["records"]:
        assert len(record["candidates"]) == 2
        assert [c["judge"] for c in record["candidates"]] == [120, 120]
        assert record["move"] == record["candidates"][0]["move"]
        assert record["judge_score"] == 40
    # stopped after one opening, then resumed: the same records
    partial_dir = tmp_path / "b"
    partial_dir.mkdir()
    first = {**data, "records": data["records"][:1]}
    (partial_dir / "shard-00001.partial.json").write_text(
        json.dumps({"settings": data["settings"], "records": first["records"], "seconds": 1.0})
    )
    with pytest.raises(book_tool.BookError, match="--resume"):
        book_tool.make_shard(partial_dir, settings_, judge, log=lambda _: None)
    resumed = book_tool.make_shard(partial_dir, settings_, judge, resume=True, log=lambda _: None)
    again = json.loads(resumed.read_text(encoding="utf-8"))

    def moves(shard: dict[str, Any]) -> list[tuple[str, str, list[Any]]]:
        return [(r["opening"], r["move"], r["candidates"]) for r in shard["records"]]

    assert moves(again) == moves(data)
    with pytest.raises(book_tool.BookError, match="finished"):
        book_tool.make_shard(partial_dir, settings_, judge, resume=True, log=lambda _: None)


def test_the_second_move_follows_the_book_move_and_the_judges_reply(tmp_path: Path) -> None:
    # the fake judge replies on a chosen point (Black's fifth stone), then White's second move
    # is studied there, and the build answers both positions
    judge = EngineSpec("judge", (sys.executable, str(FAKE), "4=play9,5"))
    folder = tmp_path / "book"
    first = book_tool.Settings(shard=0, per_shard=2, nodes=2000, alternatives=0, judge_nodes=100)
    data = json.loads(
        book_tool.make_shard(folder, first, judge, log=lambda _: None).read_text(encoding="utf-8")
    )
    second = replace(first, second=True)
    made = book_tool.make_shard(folder / book_tool.SECOND, second, judge, log=lambda _: None)
    shard = json.loads(made.read_text(encoding="utf-8"))
    records = shard["records"]
    assert len(records) == 2
    with (book_tool.ROOT / "pyproject.toml").open("rb") as project:
        assert shard["engine"]["version"] == tomllib.load(project)["project"]["version"]
    for before, after in zip(data["records"], records, strict=True):
        assert before["candidates"][0]["judge_reply"] == "9,9"  # (9, 5) from the top row
        board = book_tool.opening_board(tuple(offsets(after["opening"])))
        assert [_text(m.point) for m in board.moves] == [
            *(
                _text(m.point)
                for m in book_tool.opening_board(tuple(offsets(before["opening"]))).moves
            ),
            before["move"],
            "9,9",
        ]
        assert board.to_move is Color.WHITE
    assert book_tool.build(folder, tmp_path / "book.json")["positions"] == 2
    built = book_tool.build(folder, tmp_path / "book.json", second=True)
    assert built["positions"] == 4
    assert len(built["second"]["shards"]) == 1
    assert built["second"]["settings"]["second"]
    _answers_every_record(tmp_path / "book.json", records)
    with pytest.raises(book_tool.BookError, match="finished"):
        book_tool.make_shard(folder / book_tool.SECOND, second, judge, log=lambda _: None)


def test_black_s_first_free_move_follows_each_white_move_of_the_first_shards(
    tmp_path: Path,
) -> None:
    # the first-move shard names master's two candidates and the judge's own move (9, 9) for
    # each opening; Black's first free move is studied after each of them, once a position
    judge = EngineSpec("judge", (sys.executable, str(FAKE), "3=play9,5", "4=+30", "5=-200"))
    folder = tmp_path / "book"
    first = book_tool.Settings(shard=0, per_shard=2, nodes=2000, alternatives=1, judge_nodes=100)
    data = json.loads(
        book_tool.make_shard(folder, first, judge, log=lambda _: None).read_text(encoding="utf-8")
    )
    expected: list[str] = []
    keys: set[str] = set()
    for record in data["records"]:
        assert record["judge_move"] == "9,9"  # (9, 5) from the top row
        for move in [*(c["move"] for c in record["candidates"]), record["judge_move"]]:
            board = book_tool.opening_board(tuple(offsets(record["opening"])))
            board.play(Point(*(int(v) for v in move.split(","))))
            key = _oracle_key(list(board.stones(Color.BLACK)), list(board.stones(Color.WHITE)))
            if key not in keys:
                keys.add(key)
                expected.append(" ".join(_text(m.point) for m in board.moves))
    assert len(expected) >= 4
    found = book_tool.black_openings(folder)
    assert [" ".join(_text(m.point) for m in book_tool.opening_board(s).moves) for s in found] == (
        expected
    )
    black = replace(first, per_shard=len(found), black=True)
    made = book_tool.make_shard(folder / book_tool.BLACK, black, judge, log=lambda _: None)
    records = json.loads(made.read_text(encoding="utf-8"))["records"]
    assert [r["opening"] for r in records] == [book_tool._text(s) for s in found]
    for record in records:
        board = book_tool.opening_board(tuple(offsets(record["opening"])))
        assert len(board.moves) == 4
        assert board.to_move is Color.BLACK
        assert [c["judge"] for c in record["candidates"]] == [200, 200]  # Black's view
        assert record["judge_score"] == 30
    built = book_tool.build(folder, tmp_path / "book.json", black=True)
    assert built["positions"] == 2 + len(found)
    assert built["black"]["settings"]["black"]
    assert not built["settings"]["black"]
    _answers_every_record(tmp_path / "book.json", records)
    with pytest.raises(book_tool.BookError, match="finished"):
        book_tool.make_shard(folder / book_tool.BLACK, black, judge, log=lambda _: None)


def test_black_s_second_free_move_follows_the_black_book_move_and_the_judges_reply(
    tmp_path: Path,
) -> None:
    # the fake judge replies on a chosen point (White's sixth stone) after each of Black's
    # book moves; the command line studies Black's second free move there, in black/second
    judge = EngineSpec("judge", (sys.executable, str(FAKE), "5=play2,12"))
    folder = tmp_path / "book"
    first = book_tool.Settings(shard=0, per_shard=1, nodes=2000, alternatives=0, judge_nodes=100)
    book_tool.make_shard(folder, first, judge, log=lambda _: None)
    black = replace(first, per_shard=2, black=True)
    made = book_tool.make_shard(folder / book_tool.BLACK, black, judge, log=lambda _: None)
    blacks = json.loads(made.read_text(encoding="utf-8"))["records"]
    expected = []
    for record in blacks:
        chosen = next(c for c in record["candidates"] if c["move"] == record["move"])
        assert chosen["judge_reply"] == "2,2"  # (2, 12) from the top row
        board = book_tool.opening_board(tuple(offsets(record["opening"])))
        expected.append([*(_text(m.point) for m in board.moves), record["move"], "2,2"])
    argv = [
        *("--black", "--second", "--shard", "0", "--per-shard", "2", "--nodes", "2000"),
        *("--alternatives", "0", "--judge-nodes", "100", "--out", str(folder)),
        *("--judge", shlex.join(judge.argv)),
    ]
    assert book_tool.main(argv) == 0
    path = folder / book_tool.BLACK / book_tool.SECOND / "shard-00000.json"
    shard = json.loads(path.read_text(encoding="utf-8"))
    assert shard["settings"]["black"]
    assert shard["settings"]["second"]
    records = shard["records"]
    for record, stones in zip(records, expected, strict=True):
        board = book_tool.opening_board(tuple(offsets(record["opening"])))
        assert [_text(m.point) for m in board.moves] == stones
        assert board.to_move is Color.BLACK
    built = book_tool.build(folder, tmp_path / "book.json", black=True, black_second=True)
    assert built["positions"] == 1 + len(blacks) + len(records)
    assert built["black_second"]["settings"]["second"]
    assert built["command"] == "python tools/book.py --build --black --second"
    _answers_every_record(tmp_path / "book.json", records)
    with pytest.raises(book_tool.BookError, match="apart"):
        book_tool.build(folder, tmp_path / "book.json", second=True, black_second=True)


def test_a_second_move_two_positions_reach_is_studied_once_where_asked(tmp_path: Path) -> None:
    # Black (7,7) (7,9) (8,9) with White (8,7) (10,10), reached by two openings: the second is
    # left out with ``once``; without it (White's second move's shards) the order stays as
    # made. A record whose judge gave no reply is left out either way
    shard = {
        "records": [
            {
                "opening": "0,0 1,0 0,2",
                "move": "10,10",
                "candidates": [{"move": "10,10", "judge_reply": "8,9"}],
            },
            {
                "opening": "0,0 3,3 0,2",
                "move": "8,7",
                "candidates": [{"move": "8,7", "judge_reply": "8,9"}],
            },
            {
                "opening": "0,0 3,3 0,2",
                "move": "6,6",
                "candidates": [{"move": "6,6", "judge_reply": None}],
            },
        ]
    }
    (tmp_path / "shard-00000.json").write_text(json.dumps(shard), encoding="utf-8")
    one = ((0, 0), (1, 0), (0, 2), (3, 3), (1, 2))
    other = ((0, 0), (3, 3), (0, 2), (1, 0), (1, 2))
    assert book_tool.second_openings(tmp_path) == [one, other]
    assert book_tool.second_openings(tmp_path, once=True) == [one]


def test_a_position_two_openings_reach_is_studied_once(tmp_path: Path) -> None:
    # Black (7,7) (7,9) with White (8,7) then (10,10), or White (10,10) then (8,7): one position
    shard = {
        "records": [
            {"opening": "0,0 1,0 0,2", "candidates": [{"move": "10,10"}], "judge_move": "6,6"},
            {"opening": "0,0 3,3 0,2", "candidates": [{"move": "8,7"}], "judge_move": None},
        ]
    }
    (tmp_path / "shard-00000.json").write_text(json.dumps(shard), encoding="utf-8")
    assert book_tool.black_openings(tmp_path) == [
        ((0, 0), (1, 0), (0, 2), (3, 3)),
        ((0, 0), (1, 0), (0, 2), (-1, -1)),
    ]


def _recorded_games(folder: Path, games: list[dict[str, Any]], argv: list[str]) -> Path:
    # a tools/ab.py run folder: its games and the command it was run with
    folder.mkdir(parents=True)
    lines = [json.dumps({"arm": "a", "score": 0.5, **game}) for game in games]
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "runs.jsonl").write_text(json.dumps({"argv": argv}) + "\n", encoding="utf-8")
    return folder


def _assert_collected(
    found: dict[str, Any], lines: list[list[Point]], to_move: Color
) -> list[Board]:
    # the positions file holds the lines' last positions in order, each turned any way, with
    # ``to_move`` to move; returns their boards
    boards = []
    for entry, line in zip(found["positions"], lines, strict=True):
        board = book_tool.opening_board(tuple(offsets(entry["stones"])))
        expected = Board.from_moves(line)
        assert _oracle_key(board.stones(Color.BLACK), board.stones(Color.WHITE)) == (
            _oracle_key(expected.stones(Color.BLACK), expected.stones(Color.WHITE))
        )
        assert board.to_move is to_move
        boards.append(board)
    return boards


def _studied_shard(folder: Path, found: dict[str, Any]) -> dict[str, Any]:
    # the first shard of recorded positions: it names its positions file and studied the
    # position most games reached, each candidate judged 50 (the fake judge's -50, turned)
    shard: dict[str, Any] = json.loads((folder / "shard-00000.json").read_text("utf-8"))
    assert shard["settings"]["replies"] == shards.sha256(folder / "positions.json")
    records = shard["records"]
    assert [r["opening"] for r in records] == [found["positions"][0]["stones"]]
    assert [c["judge"] for c in records[0]["candidates"]] == [50, 50]
    return shard


def _turned(moves: list[Point], symmetry: int) -> str:
    return format_moves(transform(p, symmetry, 15) for p in moves)


def test_white_s_second_move_after_recorded_replies(tmp_path: Path) -> None:
    # master's White games through the shipped book's move: one reply reached twice (once
    # turned), one once; a game as Black, one off the book and the short ones are not counted
    shipped = _shipped()
    opening = book_tool.opening_board(book_tool.book_openings()[0])
    start = [m.point for m in opening.moves]
    book_answer = shipped.lookup(opening)
    assert book_answer is not None
    white = [*start, book_answer.move]
    replies = [p for p in book_tool._near(opening) if p != book_answer.move]
    twice, once, off_book = replies[0], replies[1], replies[2]
    line = [*white, twice, Point(0, 0)]
    games = [
        {"colour": "white", "moves": _turned(line, 0)},
        {"colour": "white", "moves": _turned(line, 5)},
        {"colour": "white", "moves": _turned([*white, once], 3)},
        {"colour": "black", "moves": _turned([*white, once], 0)},
        {"colour": "white", "moves": _turned([*start, off_book, once], 0)},
        {"colour": "white", "moves": format_moves(start)},
        {"colour": "white", "moves": ""},
    ]
    folder = _recorded_games(tmp_path / "run", games, ["run", "OUT", "--jobs", "2"])
    found = book_tool.collect_replies([folder], min_count=1)
    # the same folder packed (tools/ab.py pack) gives the same positions and the same digest
    packed = _recorded_games(tmp_path / "packed", games, ["run", "OUT", "--jobs", "2"])
    ab.pack(packed)
    assert not (packed / "games.jsonl").exists()
    from_packed = book_tool.collect_replies([packed])
    assert {**from_packed, "sources": found["sources"]} == found
    assert [source["sha256"] for source in from_packed["sources"]] == [
        shards.sha256(folder / "games.jsonl")
    ]
    assert found["games"] == 3
    assert [entry["games"] for entry in found["positions"]] == [2, 1]
    _assert_collected(found, [[*white, twice], [*white, once]], Color.WHITE)
    assert book_tool.collect_replies([folder], min_count=2)["covered"] == 2
    other = _recorded_games(tmp_path / "renju", games, ["run", "OUT", "--rule", "renju"])
    with pytest.raises(book_tool.BookError, match="--rule renju"):
        book_tool.collect_replies([other])
    for bad in ('{"colour": "white", "moves": "h8 h8 i9 j9 k9"}', "[1]", "{"):
        broken = tmp_path / f"broken{len(bad)}"
        broken.mkdir()
        (broken / "games.jsonl").write_text(bad + "\n", encoding="utf-8")
        with pytest.raises(book_tool.BookError, match="line 1 is not a game"):
            book_tool.collect_replies([broken])
    assert book_tool.main(["--collect-replies", str(tmp_path / "broken1")]) == 1
    # the command line writes the positions file, then studies them into OUT/replies
    out = tmp_path / "book"
    argv = ["--collect-replies", str(folder), "--min-count", "2", "--out", str(out)]
    assert book_tool.main(argv) == 0
    judge = EngineSpec("judge", (sys.executable, str(FAKE), "6=-50"))
    first = book_tool.Settings(shard=0, per_shard=1, nodes=2000, alternatives=0, judge_nodes=100)
    book_tool.make_shard(out, first, judge, log=lambda _: None)
    study = [
        *("--replies", "--shard", "0", "--per-shard", "4", "--nodes", "2000"),
        *("--alternatives", "1", "--judge-nodes", "100", "--out", str(out)),
        *("--judge", shlex.join(judge.argv)),
    ]
    assert book_tool.main(study) == 0
    shard = _studied_shard(out / "replies", found)  # Black's -50, turned
    records = shard["records"]
    built = book_tool.build(out, tmp_path / "book.json", replies=True)
    assert built["positions"] == 2
    assert built["command"] == "python tools/book.py --build --replies"
    _answers_every_record(tmp_path / "book.json", records)
    # a positions file changed under the shards is refused
    (out / "replies" / "positions.json").write_text("{}", encoding="utf-8")
    resumed = replace(first, shard=1, replies=shard["settings"]["replies"])
    with pytest.raises(book_tool.BookError, match="not the file"):
        book_tool.make_shard(out / "replies", resumed, judge, log=lambda _: None)
    for extra in ({"replies": True}, {"black_second": True}):
        with pytest.raises(book_tool.BookError, match="apart"):
            book_tool.build(out, tmp_path / "book.json", second=True, **extra)
    # the recorded replies gather with Black's moves, which never hold a five-stone position
    both = book_tool.build(out, tmp_path / "both.json", black_second=True, replies=True)
    assert both["command"] == "python tools/book.py --build --black --second --replies"


def test_black_s_first_free_move_after_recorded_first_stones(tmp_path: Path) -> None:
    # master's Black games: one first stone of the opponent's off the book reached twice (once
    # turned), one once; a stone the book answers, a game as White and the short ones are not
    # counted
    shipped = _shipped()
    opening = book_tool.opening_board(book_tool.book_openings()[0])
    start = [m.point for m in opening.moves]

    def answered(point: Point) -> bool:
        after = opening.copy()
        after.play(point)
        return shipped.lookup(after) is not None

    near = book_tool._near(opening)
    in_book = next(p for p in near if answered(p))
    twice, once = [p for p in near if not answered(p)][:2]
    line = [*start, twice, Point(0, 0)]
    games = [
        {"colour": "black", "moves": _turned(line, 0)},
        {"colour": "black", "moves": _turned(line, 6)},
        {"colour": "black", "moves": _turned([*start, once, Point(0, 0)], 2)},
        {"colour": "black", "moves": _turned([*start, in_book, Point(0, 0)], 0)},
        {"colour": "white", "moves": _turned([*start, once, Point(0, 0)], 0)},
        {"colour": "black", "moves": format_moves([*start, once])},
        {"colour": "black", "moves": ""},
    ]
    folder = _recorded_games(tmp_path / "run", games, ["run", "OUT", "--jobs", "2"])
    found = book_tool.collect_replies([folder], min_count=1, black=True)
    assert found["games"] == 3
    assert [entry["games"] for entry in found["positions"]] == [2, 1]
    for board in _assert_collected(found, [[*start, twice], [*start, once]], Color.BLACK):
        assert shipped.lookup(board) is None
    # the command line writes the positions file, then studies them into OUT/black/replies
    out = tmp_path / "book"
    argv = ["--collect-replies", str(folder), "--black", "--min-count", "2", "--out", str(out)]
    assert book_tool.main(argv) == 0
    positions = out / "black" / "replies" / "positions.json"
    assert json.loads(positions.read_text(encoding="utf-8"))["covered"] == 2
    judge = EngineSpec("judge", (sys.executable, str(FAKE), "5=-50"))
    study = [
        *("--black", "--replies", "--shard", "0", "--per-shard", "4", "--nodes", "2000"),
        *("--alternatives", "1", "--judge-nodes", "100", "--out", str(out)),
        *("--judge", shlex.join(judge.argv)),
    ]
    assert book_tool.main(study) == 0
    shard = _studied_shard(out / "black" / "replies", found)  # White's -50, turned
    assert shard["settings"]["black"] is True
    records = shard["records"]
    built = book_tool.build(out, tmp_path / "book.json", black_replies=True)
    assert built["positions"] == 1
    assert built["command"] == "python tools/book.py --build --black-replies"
    _answers_every_record(tmp_path / "book.json", records)


def _text(point: Point) -> str:
    return f"{point.x},{point.y}"


def _answers_every_record(path: Path, records: list[dict[str, Any]]) -> None:
    # the built book answers each shard record's position with the record's move, a legal one
    book = load_book(path)
    assert book is not None
    for record in records:
        board = book_tool.opening_board(tuple(offsets(record["opening"])))
        answer = book.lookup(board)
        assert answer is not None
        assert _text(answer.move) == record["move"]
        assert board.is_legal(answer.move)


# -- the match's --openings ----------------------------------------------------------------


def test_a_match_reads_its_openings_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("# held out\n0,0 -2,-1 -3,2\n\n0,0 1,1  # a comment\n", encoding="utf-8")
    assert read_openings(path, 15) == [
        (Point(7, 7), Point(5, 6), Point(4, 9)),
        (Point(7, 7), Point(8, 8)),
    ]
    for text in ("0,0 x,1\n", "0,0 9,0\n", "0,0 0,0\n", "# nothing\n"):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=r"line \d|no opening"):
            read_openings(path, 15)
        assert main(["a", "b", "--openings", str(path)]) == 2
    assert main(["a", "b", "--openings", str(tmp_path / "missing.txt")]) == 2
