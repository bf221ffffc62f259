"""engine.search.alphabeta: legality on any position, determinism, limits, and alpha-beta
against a plain minimax oracle."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.errors import GameOverError
from engine.search import _kernels as k
from engine.search import alphabeta
from engine.search._position import MIN_TT_SIZE, TT_SIZE, Position
from engine.search.alphabeta import (
    WIN,
    Limits,
    SearchOptions,
    SearchResult,
    is_win_score,
    search,
    tt_size,
)
from engine.settings import rules_setting, setting
from engine.types import Color, Point, Rule
from tests.scale import examples

from .search_oracles import minimax

SETTINGS = settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def positions(
    draw: st.DrawFn, sizes: tuple[int, int] = (5, 20), rules: tuple[Rule, ...] = tuple(Rule)
) -> Board:
    """A game played with random (legal) moves, not finished."""
    size = draw(st.integers(*sizes))
    rule = draw(st.sampled_from(rules))
    board = Board(size, rule)
    count = draw(st.integers(0, min(40, size * size - 1)))
    centre = size // 2
    spread = draw(st.integers(1, size // 2))
    for _ in range(count):
        x = draw(st.integers(max(0, centre - spread), min(size - 1, centre + spread)))
        y = draw(st.integers(max(0, centre - spread), min(size - 1, centre + spread)))
        point = Point(x, y)
        if board.is_legal(point):
            board.play(point)
            if board.outcome is not None:
                board.undo()
                break
    return board


def test_empty_board_gets_the_centre() -> None:
    result = search(Board(15), Limits(depth=4))
    assert result.move == Point(7, 7)
    assert result.pv == (Point(7, 7),)


def test_finished_game_raises() -> None:
    board = Board.from_moves("h8 a1 i8 a2 j8 a3 k8 a4 l8")
    assert board.outcome is not None
    with pytest.raises(GameOverError):
        search(board, Limits(depth=2))


def test_full_board_raises() -> None:
    board = Board.for_game("tictactoe")
    for text in ["a1", "b1", "c1", "b2", "a2", "a3", "c2", "c3", "b3"]:
        board.play(Point.parse(text))
    assert board.is_full()
    with pytest.raises(GameOverError):
        search(board, Limits(depth=2))


def test_takes_a_five() -> None:
    board = Board.from_moves("h8 a1 i8 a2 j8 a3 k8 a5")
    result = search(board, Limits(depth=4))
    assert result.move in (Point.parse("g8"), Point.parse("l8"))
    assert result.score == WIN - 1


def test_blocks_a_four() -> None:
    board = Board.from_moves("h8 a1 i8 a2 j8 a3 k8")
    result = search(board, Limits(depth=4))
    assert result.move in (Point.parse("g8"), Point.parse("l8"))


def test_blocks_a_closed_four_at_its_only_point() -> None:
    board = Board.from_moves("h8 g8 i8 a2 j8 a3 k8")
    result = search(board, Limits(nodes=5000))
    assert result.move == Point.parse("l8")


def test_loses_against_two_fours_and_says_so() -> None:
    # Black has two separate fours: White can block only one
    board = Board.from_stones(
        black=[Point.parse(t) for t in ["c3", "d3", "e3", "f3", "c10", "d10", "e10", "f10"]],
        white=[Point.parse(t) for t in ["b3", "b10", "m1", "k4", "n7", "l12", "j14", "a14"]],
        to_move=Color.WHITE,
    )
    result = search(board, Limits(depth=3))
    assert result.score < -(WIN - 10)
    assert board.is_legal(result.move)


@given(positions())
@SETTINGS
def test_search_returns_an_empty_legal_point(board: Board) -> None:
    result = search(board, Limits(nodes=1500))
    assert board[result.move] is None
    assert board.is_legal(result.move)
    assert board.forbidden_reason(result.move) is None or board.to_move is Color.WHITE
    assert result.pv[0] == result.move


@given(positions(rules=(Rule.RENJU,)))
@SETTINGS
def test_renju_black_never_gets_a_forbidden_point(board: Board) -> None:
    if board.to_move is Color.WHITE and board.legal_moves():
        board.play(board.legal_moves()[0]) if board.outcome is None else None
    assume(board.outcome is None and board.to_move is Color.BLACK)
    result = search(board, Limits(nodes=1500))
    assert board.forbidden_reason(result.move) is None
    assert board.is_legal(result.move)


@given(positions(sizes=(9, 15)))
@settings(max_examples=examples(10), deadline=None)
def test_fixed_depth_and_nodes_are_deterministic(board: Board) -> None:
    first = search(board, Limits(depth=3))
    second = search(board, Limits(depth=3))
    assert (first.move, first.score, first.nodes, first.pv) == (
        second.move,
        second.score,
        second.nodes,
        second.pv,
    )
    by_nodes = search(board, Limits(nodes=3000))
    again = search(board, Limits(nodes=3000))
    assert (by_nodes.move, by_nodes.score, by_nodes.nodes) == (again.move, again.score, again.nodes)


def test_node_limit_is_respected() -> None:
    board = Board.from_moves("h8 i9 h9 i10 g8 j11")
    result = search(board, Limits(nodes=4000))
    assert result.nodes <= 4000 + 600  # checked every 512 nodes
    assert board.is_legal(result.move)


def test_time_limit_returns_a_move() -> None:
    board = Board.from_moves("h8 i9 h9 i10 g8 j11")
    result = search(board, Limits(time_ms=200))
    assert board.is_legal(result.move)  # how deep it got depends on the machine


def test_no_iteration_starts_after_the_soft_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # a soft limit of nothing: the first iteration completes, and no second one starts
    board = Board.from_moves("h8 i9 j10")  # a quiet position: no forced line, many moves
    assert search(board, Limits(time_ms=10_000, depth=2)).depth == 2
    monkeypatch.setattr(alphabeta, "_SOFT_TIME", 0.0)
    assert search(board, Limits(time_ms=10_000)).depth == 1


def test_a_soft_node_limit_ends_the_search_with_an_iteration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # GOMOKU_SOFT_NODES: past the soft share of the node limit no new iteration starts, so the
    # search is, node for node, the one held to the depth it completed; without it the next
    # iteration runs on into the node limit
    board = Board.from_moves("h8 i9 h9 i10 g8 j11")
    nodes = 20_000
    plain = search(board, Limits(nodes=nodes))
    monkeypatch.setattr(alphabeta, "_SOFT_NODES", 1)
    soft = search(board, Limits(nodes=nodes))
    clocked = search(board, Limits(nodes=nodes, time_ms=60_000))  # as the protocol brain asks
    monkeypatch.setattr(alphabeta, "_SOFT_NODES", 0)
    held = search(board, Limits(nodes=nodes, depth=soft.depth))
    assert (soft.move, soft.score, soft.depth, soft.nodes) == (
        held.move,
        held.score,
        held.depth,
        held.nodes,
    )
    assert (clocked.move, clocked.score, clocked.nodes) == (soft.move, soft.score, soft.nodes)
    assert nodes * alphabeta._SOFT_TIME < soft.nodes < nodes <= plain.nodes


@pytest.mark.parametrize(
    ("text", "value"), [("1000", 1000), ("0", 0), ("1001", 600), ("-5", 600), ("x", 600), ("", 600)]
)
def test_a_setting_is_a_whole_number_in_range(
    text: str, value: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOMOKU_SOFT_TIME", text)
    assert setting("GOMOKU_SOFT_TIME", 600, most=1000) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        *[("-300", -300), (" -2000 ", -2000), ("400", 400), ("-2001", 0), ("--3", 0), ("-", 0)],
        *[("²", 0), ("-²", 0), ("1e3", 0)],
    ],
)
def test_a_signed_setting_is_a_whole_number_in_its_range(
    text: str, value: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOMOKU_RAZOR", text)
    assert setting("GOMOKU_RAZOR", 0, most=2000, least=-2000) == value


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("renju", {Rule.RENJU}),
        (" standard , freestyle,chess", {Rule.STANDARD, Rule.FREESTYLE}),
        ("chess", {Rule.CARO}),
        ("", {Rule.CARO}),
        (",", {Rule.CARO}),
    ],
)
def test_a_rules_setting_names_rules_else_keeps_its_default(
    text: str, rules: set[Rule], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOMOKU_VERIFY_RULES", text)
    assert rules_setting("GOMOKU_VERIFY_RULES", frozenset({Rule.CARO})) == rules
    monkeypatch.delenv("GOMOKU_VERIFY_RULES")
    assert rules_setting("GOMOKU_VERIFY_RULES", frozenset({Rule.CARO})) == {Rule.CARO}


def test_depth_limit_is_the_completed_depth() -> None:
    board = Board.from_moves("h8 i9 h9 i10 g8 j11 k8")
    result = search(board, Limits(depth=3))
    assert result.depth == 3


# -- alpha-beta against plain minimax -------------------------------------------------------


@given(positions(sizes=(7, 7)), st.integers(1, 2))
@settings(max_examples=examples(40), deadline=None)
def test_alpha_beta_equals_minimax_on_7x7(board: Board, depth: int) -> None:
    position = Position.from_board(board)
    assume(board.moves and not position.has_five_point(position.side))
    result = search(board, Limits(depth=depth), SearchOptions(exhaustive=True))
    assert result.score == minimax(position, depth, 0)


@pytest.mark.parametrize(
    ("memory", "entries"),
    [
        (None, TT_SIZE),
        (0, TT_SIZE),
        (350 * 2**20, TT_SIZE),
        (170 * 2**20, 1 << 18),
        (10**6, MIN_TT_SIZE),
    ],
)
def test_memory_budget_sizes_the_hash_table(memory: int | None, entries: int) -> None:
    assert tt_size(memory) == entries


def test_search_within_a_small_memory_budget_still_plays() -> None:
    board = Board.from_moves("h8 i9 h9 i10 h10")
    small = search(board, Limits(depth=4, memory_bytes=10**6))
    assert str(small.move) in {"h6", "h7", "h11", "h12"}  # Black's open three is stopped


def test_win_scores_are_recognised() -> None:
    assert is_win_score(WIN - 5)
    assert not is_win_score(500)


def test_result_is_frozen() -> None:
    result = search(Board.from_moves("h8"), Limits(depth=1))
    assert isinstance(result, SearchResult)
    with pytest.raises(AttributeError):
        result.score = 3  # type: ignore[misc]


def test_fresh_process_loads_the_compiled_kernels() -> None:
    # numba's disk cache once crashed on load (recursive kernels); a new process must work
    code = (
        "from engine.board import Board; from engine.search.alphabeta import search, Limits;"
        "from engine.types import Rule;"
        "b = Board.from_moves('h8 i9 h9 i10 h10', rule=Rule.RENJU);"
        "print(search(b, Limits(depth=3)).move)"
    )
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=240
        )
        assert out.stdout.strip() in ("h11", "h7")


def test_a_kept_table_carries_what_the_last_search_learned() -> None:
    board = Board.from_moves("h8 i9 h9 h10 g8 i8")
    fresh = search(board, Limits(depth=6))
    search(board, Limits(depth=6), SearchOptions(keep_tt=True))  # fills the kept tables
    warm = search(board, Limits(depth=6), SearchOptions(keep_tt=True))
    again = search(board, Limits(depth=6))
    assert warm.move == fresh.move == again.move
    assert warm.nodes < fresh.nodes // 2  # the same position again: mostly table hits
    assert again.nodes == fresh.nodes  # a search that does not ask gets empty tables
    renju = search(
        Board.from_moves("h8 i9 h9 h10 g8 i8", rule=Rule.RENJU),
        Limits(depth=6),
        SearchOptions(keep_tt=True),
    )
    assert renju.nodes > warm.nodes  # another rule's tables are not these


# -- the transposition table's ways (GOMOKU_TT_WAYS, a setting for measuring) ----------------


def _entry(depth: int, generation: int) -> int:
    # a table entry as the kernels pack it: score 0, no move, ``depth``, the search's number
    # among those that keep the table in bits 3-7, an exact bound
    return (depth << 8) | (generation << 3) | k.TT_EXACT


def _ways(ways: int, generation: int) -> np.ndarray:
    g = np.zeros(k.NG, dtype=np.int64)
    g[k.G_TT_WAYS] = ways
    g[k.G_TT_GEN] = generation
    return g


def test_one_way_keeps_one_entry_a_hash() -> None:
    ttk = np.zeros(16, dtype=np.uint64)
    ttv = np.zeros(16, dtype=np.int64)
    for h in (5, 6, 21, 15):
        assert k._tt_slot(ttk, ttv, np.uint64(h), _ways(1, 0)) == h % 16


def test_two_ways_find_the_entry_that_holds_the_hash_in_either_way() -> None:
    ttk = np.zeros(16, dtype=np.uint64)
    ttv = np.zeros(16, dtype=np.int64)
    ttk[4], ttk[5] = 20, 36  # two hashes of the pair 4-5
    ttv[4], ttv[5] = _entry(1, 0), _entry(9, 0)
    assert k._tt_slot(ttk, ttv, np.uint64(20), _ways(2, 0)) == 4
    assert k._tt_slot(ttk, ttv, np.uint64(36), _ways(2, 0)) == 5
    assert k._tt_slot(ttk, ttv, np.uint64(37), _ways(2, 0)) == 4  # a miss: the shallower goes


@pytest.mark.parametrize(
    ("older", "newer", "generation", "replaced"),
    [
        ((12, 0), (3, 0), 0, 5),  # the same search: the deeper entry stays
        ((12, 0), (3, 2), 2, 4),  # two searches on, 12 - 16 is worth less than 3
        ((12, 30), (3, 0), 0, 4),  # the number wraps: 30 was two searches before 0
        ((255, 30), (5, 0), 0, 5),  # a proof outlasts many searches
    ],
)
def test_two_ways_replace_the_entry_less_worth_keeping(
    older: tuple[int, int], newer: tuple[int, int], generation: int, replaced: int
) -> None:
    ttk = np.zeros(16, dtype=np.uint64)
    ttv = np.zeros(16, dtype=np.int64)
    ttk[4], ttk[5] = 20, 36
    ttv[4], ttv[5] = _entry(*older), _entry(*newer)
    assert k._tt_slot(ttk, ttv, np.uint64(52), _ways(2, generation)) == replaced


def test_two_ways_search_as_well_in_a_small_table(monkeypatch: pytest.MonkeyPatch) -> None:
    # the smallest table, filled many times over: the open three is still stopped, and the
    # search differs from the one-way table's only in what it remembers
    board = Board.from_moves("h8 i9 h9 i10 h10")
    one = search(board, Limits(depth=9, memory_bytes=10**6))
    monkeypatch.setattr(alphabeta, "_TT_WAYS", 2)
    two = search(board, Limits(depth=9, memory_bytes=10**6))
    assert str(two.move) in {"h6", "h7", "h11", "h12"}
    assert two.nodes != one.nodes


def test_kept_tables_number_their_searches() -> None:
    first = Position.from_board(Board.from_moves("h8"), keep=True)
    second = Position.from_board(Board.from_moves("h8"), keep=True)
    assert (int(second.g[k.G_TT_GEN]) - int(first.g[k.G_TT_GEN])) % 32 == 1
    assert Position.from_board(Board.from_moves("h8")).g[k.G_TT_GEN] == 0


# -- where the nodes go --------------------------------------------------------------------


def test_a_search_counts_where_its_nodes_went(monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board.from_moves("h8 i9 h9 i10 h10 h11")
    result = search(board, Limits(depth=7))
    parts = (result.before_nodes, result.probe_nodes, result.leaf_nodes)
    assert all(part > 0 for part in parts)
    assert sum(parts) < result.nodes  # the rest: the main search's inner nodes
    monkeypatch.setattr(alphabeta, "_DEEP_VCF", 0)  # no probes at the leaves
    unprobed = search(board, Limits(depth=7))
    assert unprobed.probe_nodes == 0 < unprobed.leaf_nodes
    assert unprobed.before_nodes == result.before_nodes  # the root's threat searches as before


def test_an_answer_without_the_main_search_counts_every_node_before_it() -> None:
    # Black's open three becomes an open four: the win is found before any iteration
    won = search(Board.from_moves("h8 a1 h9 a3 h10 a5 i8 c1 j8 e1"), Limits(depth=5))
    assert is_win_score(won.score)
    assert won.before_nodes == won.nodes
    assert won.probe_nodes == won.leaf_nodes == 0


def test_a_search_told_not_to_keep_tables_starts_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    # GOMOKU_KEEP_TT=0, for measuring: the protocol brain's searches start afresh
    board = Board.from_moves("h8 i9 h9 h10 g8 i8")
    fresh = search(board, Limits(depth=6))
    search(board, Limits(depth=6), SearchOptions(keep_tt=True))
    monkeypatch.setattr(alphabeta, "_KEEP_TT", 0)
    again = search(board, Limits(depth=6), SearchOptions(keep_tt=True))
    assert (again.move, again.nodes) == (fresh.move, fresh.nodes)
