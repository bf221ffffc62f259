"""engine.search.levels: presets, legality, determinism, and the beginner's human-like slips."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.board import Board
from engine.errors import GameOverError
from engine.search.alphabeta import Limits, SearchOptions, SearchResult, is_win_score
from engine.search.levels import PRESETS, Level, choose_move
from engine.types import Color, Point, Rule

FAST_LEVELS = [Level.BEGINNER, Level.EASY, Level.MEDIUM]


def test_levels_in_order_with_budgets() -> None:
    assert [level.value for level in Level] == [
        "beginner",
        "easy",
        "medium",
        "hard",
        "expert",
        "master",
    ]
    assert set(PRESETS) == set(Level)
    assert PRESETS[Level.MASTER].time_ms <= 3000
    assert PRESETS[Level.MEDIUM].time_ms <= 1000
    budgets = [PRESETS[level].nodes or 10**9 for level in Level]
    assert budgets == sorted(budgets)


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize(
    ("game", "moves"),
    [("gomoku", "h8 i9 h9"), ("tictactoe", "b2"), ("connect4", ""), ("gravity3", "")],
)
def test_every_level_plays_a_legal_move(level: Level, game: str, moves: str) -> None:
    board = Board.for_game(game)
    for text in moves.split():
        board.play(Point.parse(text))
    # the strong levels think for seconds; a manager's turn time shortens that
    result = choose_move(board, level, seed=1, time_ms=300)
    assert board.is_legal(result.move)


@pytest.mark.parametrize(("given", "expected"), [(None, "preset"), (250, 250), (10**6, "preset")])
def test_turn_time_only_ever_lowers_a_levels_cap(
    monkeypatch: pytest.MonkeyPatch, given: int | None, expected: int | str
) -> None:
    import engine.search.alphabeta

    seen: list[Limits] = []
    real = engine.search.alphabeta.search

    def spy(board: Board, limits: Limits, options: SearchOptions | None = None) -> SearchResult:
        seen.append(limits)
        return real(board, Limits(depth=1), options)

    monkeypatch.setattr(engine.search.alphabeta, "search", spy)
    monkeypatch.setenv("GOMOKU_BOOK", "off")  # the book answers this opening unsearched
    choose_move(Board.from_moves("h8 i9 h9"), Level.MASTER, seed=1, time_ms=given)
    cap = PRESETS[Level.MASTER].time_ms if expected == "preset" else expected
    assert [limits.time_ms for limits in seen] == [cap]


@pytest.mark.parametrize("level", FAST_LEVELS)
def test_renju_black_is_never_given_a_forbidden_point(level: Level) -> None:
    # h8 would be a double-three for Black, and it is the obvious shape move
    board = Board.from_stones(
        black=[Point.parse(t) for t in ("f8", "g8", "h6", "h7")],
        white=[Point.parse(t) for t in ("a1", "a3", "o15", "o13", "g9")],
        rule=Rule.RENJU,
    )
    for seed in range(8):
        result = choose_move(board, level, seed)
        assert board.is_legal(result.move)


@pytest.mark.parametrize("level", FAST_LEVELS)
def test_same_seed_same_move(level: Level, monkeypatch: pytest.MonkeyPatch) -> None:
    # the level's node budget decides its move; its time cap, far above what the budget takes,
    # is lifted so that a loaded machine cannot stop the first search early
    monkeypatch.setitem(PRESETS, level, dataclasses.replace(PRESETS[level], time_ms=600_000))
    board = Board.from_moves("h8 i9 h9 i10 g8 j11 k8")
    first = choose_move(board, level, seed=7)
    second = choose_move(board, level, seed=7)
    assert first.move == second.move


@pytest.mark.parametrize("level", list(Level))
def test_every_level_blocks_a_four(level: Level) -> None:
    board = Board.from_moves("h8 g8 i8 a2 j8 a3 k8")
    for seed in range(3 if level in (Level.EXPERT, Level.MASTER) else 12):
        assert choose_move(board, level, seed).move == Point.parse("l8")


def test_beginner_sometimes_overlooks_an_open_three_but_plays_near_the_stones() -> None:
    board = Board.from_moves("h8 a1 h9 a2 h10")  # Black's open three; White (beginner) to move
    blocks = {Point.parse(t) for t in ("h11", "h7", "h12", "h6")}
    moves = [choose_move(board, Level.BEGINNER, seed).move for seed in range(40)]
    assert any(move in blocks for move in moves)
    assert any(move not in blocks for move in moves)
    stones = [m.point for m in board.moves]
    for move in moves:
        assert min(max(abs(move.x - s.x), abs(move.y - s.y)) for s in stones) <= 2


def test_master_takes_a_forced_win() -> None:
    board = Board.from_moves("h8 g6 g9 i7 i9 j9 i8 j8 j10 g7 k9 g5 g4 j7 k11 l12 h7")
    result = choose_move(board, Level.MASTER, seed=0)
    assert is_win_score(result.score)


def test_finished_game_raises() -> None:
    board = Board.from_moves("h8 a1 i8 a2 j8 a3 k8 a4 l8")
    with pytest.raises(GameOverError):
        choose_move(board, Level.MEDIUM, seed=0)


def test_small_games_levels_differ_only_by_slips() -> None:
    board = Board.for_game("tictactoe")
    board.play(Point.parse("a1"))
    board.play(Point.parse("b1"))
    board.play(Point.parse("a2"))  # X threatens a3
    assert board.to_move is Color.WHITE
    for level in (Level.MEDIUM, Level.MASTER):
        assert choose_move(board, level, seed=3).move == Point.parse("a3")


def test_warm_up_loads_everything() -> None:
    from engine.search.levels import warm_up

    warm_up()  # a worker's initializer: compiled kernels and every rule's tables


def test_after_warm_up_master_s_searches_load_no_kernel() -> None:
    # a fresh process warmed up as a Gomocup brain is: master's searches through a recorded
    # game (a forced answer, the check of its move, a win by fours among them) call no kernel
    # numba has not loaded yet, so none is read from the disk cache while a clock runs
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import numpy as np\n"
        "from numba.core.registry import CPUDispatcher\n"
        "from engine.board import Board\n"
        "from engine.gomocup.pbrain import strongest_searcher, warm_up_for\n"
        "from engine.gomocup.protocol import MoveLimits\n"
        "from engine.notation import format_moves\n"
        "from engine.types import Point\n"
        "def loaded():\n"
        "    return {(m, n): len(f.signatures) for m, mod in list(sys.modules.items())\n"
        "            if m.startswith('engine.search') for n, f in vars(mod).items()\n"
        "            if isinstance(f, CPUDispatcher)}\n"
        "think = strongest_searcher()\n"
        "warm_up_for(think)()\n"
        "before = loaded()\n"
        "games = np.load(sys.argv[1])\n"
        "first = games['moves'][: games['lengths'][0]]\n"
        "moves = [Point(int(m) % 15, int(m) // 15) for m in first]\n"
        "for ply in range(5, len(moves)):\n"
        "    board = Board.from_moves(format_moves(moves[:ply]))\n"
        "    if board.outcome is None:\n"
        "        think(board, MoveLimits(nodes=20000))\n"
        "after = loaded()\n"
        "print(sorted(n for (m, n), count in after.items() if count != before.get((m, n), 0)))\n"
    )
    games = Path(__file__).resolve().parents[2] / "data" / "matches" / "shard-00000.npz"
    out = subprocess.run(
        [sys.executable, "-c", code, str(games)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert out.stdout.strip() == "[]"


def test_warm_up_compiles_the_proof_number_search_a_lost_search_needs() -> None:
    # a fresh process, as a Gomocup manager starts one: the kernel master's lost check calls
    # must be ready before the first move, not compiled in the middle of a game
    import subprocess
    import sys

    code = (
        "from engine.search import _kernels as k\n"
        "from engine.search.levels import warm_up\n"
        "before = len(k.dfpn.signatures)\n"
        "warm_up()\n"
        "print(before, len(k.dfpn.signatures))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    assert out.stdout.split() == ["0", "1"]
