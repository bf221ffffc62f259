"""The proof-number search over threats (``_pns.dfpn``): the same answers as the depth-first
threat search at every depth it can finish, the same as the slow VCF oracle, each claimed win
checked against every answer the defender has, the long wins it proves that the depth-first
search cannot, and how the root uses it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.errors import GameOverError
from engine.gomocup.tactics import HARD_DEFENCES, THREE_WINS, VCF_WINS, after_answer
from engine.search import _kernels as k
from engine.search._position import Position
from engine.search.alphabeta import (
    PNS_ATTACK,
    PNS_DEFENCE,
    Limits,
    SearchOptions,
    search,
    threat_proof,
    wins_by_threats,
)
from engine.search.levels import PRESETS, Level
from engine.types import Color, Point
from tests.engine.oracles import _fives_for, _passed, _window_points, has_vcf
from tests.engine.test_threats import THROWN_AWAY, crowded
from tests.scale import examples

SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
_TABLE = 1 << 16


def _dfpn(
    board: Board, vct: bool, depth: int, nodes: int = 2_000_000, *, passed: bool = False
) -> tuple[int, int, Point | None]:
    # (1 win / 0 none / -1 not known, nodes, the first move of a win) from a fresh table
    pos = Position.from_board(board)
    g = pos.g
    if passed:
        g[k.G_SIDE] = 3 - g[k.G_SIDE]
        pos.hsh[0] ^= pos.st[6][2, 0]
    pnk = np.zeros(_TABLE, dtype=np.uint64)
    pnv = np.zeros(2 * _TABLE, dtype=np.int64)
    g[k.G_NODE_LIMIT] = nodes
    found = int(k.dfpn(pos.st, pos.sr, pnk, pnv, int(g[k.G_SIDE]), vct, depth))
    move = pos.point(int(pos.sr[8][0])) if found == 1 else None
    return found, int(g[k.G_NODES]), move


def _depth_first(
    board: Board, vct: bool, depth: int, nodes: int = 0, *, attacker: Color | None = None
) -> tuple[bool, int]:
    # the depth-first threat search for ``attacker`` (the side to move unless given)
    pos = Position.from_board(board)
    g = pos.g
    g[k.G_NODE_LIMIT] = nodes
    side = 1 if (attacker or board.to_move) is Color.BLACK else 2
    found = bool(k.threat_search(pos.st, pos.sr, side, depth, vct, 0))
    assert nodes or g[k.G_STOP] == 0
    return found, int(g[k.G_NODES])


@SETTINGS
@given(crowded(), st.integers(1, 4), st.booleans())
def test_the_same_answer_as_the_depth_first_threat_search(
    board: Board, depth: int, vct: bool
) -> None:
    # the same tree, searched in another order: the same answer at every depth
    found, _, move = _dfpn(board, vct, depth)
    assert found != -1
    assert (found == 1) == _depth_first(board, vct, depth)[0]
    if move is not None and not _fives_for(
        board, board.to_move, _window_points(board, board.to_move, 4)
    ):
        # the first move is one the depth-first search wins with too
        after = board.copy()
        after.play(move)
        assert (
            after.outcome is not None
            or _depth_first(after, vct, depth - 1, attacker=board.to_move)[0]
        )


@SETTINGS
@given(crowded(), st.integers(0, 4))
def test_a_vcf_is_what_the_slow_oracle_says(board: Board, fours: int) -> None:
    assert (_dfpn(board, False, fours)[0] == 1) == has_vcf(board, fours)


def _wins_whatever(board: Board, depth: int) -> bool:
    """Whether the side to move wins within ``depth`` moves of its own (the five not counted)
    whatever the defender answers: every legal answer tried, on ``Board`` (slow, plain)."""
    attacker = board.to_move
    if _fives_for(board, attacker, _window_points(board, attacker, 4)):
        return True
    if depth <= 0:
        return False
    defender = attacker.opponent
    empty = [p for p in board if board[p] is None]
    for move in empty:
        if not board.is_legal(move):
            continue
        after = board.copy()
        after.play(move)
        if after.outcome is not None:
            if after.outcome.winner is attacker:
                return True
            continue
        if _fives_for(after, defender, _window_points(after, defender, 4)):
            continue  # the defender makes five first
        if _holds_everywhere(after, depth - 1):
            return True
    return False


def _holds_everywhere(after: Board, depth: int) -> bool:
    # the defender to move: every legal answer leaves the attacker a win within ``depth``
    if depth == 0:
        # no move of its own left: the attacker needs a five after any answer, so two five
        # points (or one the defender may not take) and none of the defender's
        attacker = after.to_move.opponent
        fives = _fives_for(_passed(after), attacker, _window_points(after, attacker, 4))
        return len(fives) >= 2 or (len(fives) == 1 and not after.is_legal(fives[0]))
    for answer in [p for p in after if after[p] is None]:
        if not after.is_legal(answer):
            continue
        reply = after.copy()
        reply.play(answer)
        if reply.outcome is not None or not _wins_whatever(reply, depth):
            return False
    return True


# about one example in six claims a win, so 60 check some ten claims
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowded(), st.integers(1, 2))
def test_every_claimed_win_holds_against_every_answer(board: Board, depth: int) -> None:
    # the defender's answers are narrowed (its fours and the points that stop the three); a
    # win claimed within one or two attacking moves is checked against all of them, the
    # claimed first move in particular
    found, _, move = _dfpn(board, True, depth)
    if found != 1 or move is None:
        return
    if _fives_for(board, board.to_move, _window_points(board, board.to_move, 4)):
        return
    after = board.copy()
    after.play(move)
    assert after.outcome is not None or _holds_everywhere(after, depth - 1)


@pytest.mark.parametrize("index", range(len(VCF_WINS)))
def test_proves_every_vcf_of_the_suite(index: int) -> None:
    board = VCF_WINS[index].board()
    found, _, move = _dfpn(board, False, k.PNS_MAX_DEPTH)
    assert found == 1
    assert move is not None
    assert board.is_legal(move)


@pytest.mark.parametrize("index", range(len(THREE_WINS)))
def test_proves_every_win_by_threes_of_the_suite(index: int) -> None:
    # the win it finds may be a longer one than the suite's: its first move is checked by
    # the depth-first search with room to spare
    board = THREE_WINS[index].board()
    found, _, move = _dfpn(board, True, k.PNS_MAX_DEPTH)
    assert found == 1
    assert move is not None
    after = board.copy()
    after.play(move)
    assert _depth_first(after, True, 8, attacker=board.to_move)[0]


@pytest.mark.parametrize("index", range(len(HARD_DEFENCES)))
def test_sees_every_hard_defences_threat(index: int) -> None:
    # in each hard defence the opponent, given a free move, wins by fours and threes
    assert _dfpn(HARD_DEFENCES[index].board(), True, 12, passed=True)[0] == 1


def test_proves_the_long_win_in_fewer_nodes_than_the_depth_first_search() -> None:
    # Rapfi 0.43.02 classical reports +M15 here (tests/engine/test_threats.py): a win by
    # threes 7 attacking moves deep, which the root's depth-first search (5) does not see.
    # The proof-number search, asked for any depth, proves it with the move Rapfi plays in
    # 3,626 nodes; the depth-first search needs 23,728 at depth 7, the depth it takes
    board = Board.from_moves(THROWN_AWAY)
    found, nodes, move = _dfpn(board, True, k.PNS_MAX_DEPTH)
    assert (found, str(move), nodes) == (1, "e5", 3_626)
    assert _depth_first(board, True, 5)[0] is False
    assert _depth_first(board, True, 7) == (True, 23_728)


def test_a_stopped_search_says_so() -> None:
    board = Board.from_moves(THROWN_AWAY)
    assert _dfpn(board, True, k.PNS_MAX_DEPTH, nodes=200)[0] == -1


def test_not_known_only_where_the_limit_stops_it() -> None:
    # after hard97's answer the root's children's proof numbers sum past the number that
    # means "never" within 224,314 nodes, though none is proved; the search must go on to its
    # limit (it proves the attacker's win in 545,956), not stop there as though answered
    board = after_answer(HARD_DEFENCES[97])
    assert threat_proof(board, 400_000) == (-1, 400_384)


def test_the_public_answer_says_proved_none_or_not_known() -> None:
    board = Board.from_moves(THROWN_AWAY)
    assert wins_by_threats(board) is True
    assert wins_by_threats(board, nodes=200) is None
    assert wins_by_threats(Board.from_moves("h8 i9 h9")) is False  # two stones: no threats yet
    with pytest.raises(GameOverError):
        wins_by_threats(Board.from_moves("h8 a1 i8 a2 j8 a3 k8 a4 l8"))


def test_the_table_is_kept_like_the_transposition_tables() -> None:
    board = Board.from_moves(THROWN_AWAY)
    kept = Position.from_board(board, keep=True).pns
    assert Position.from_board(board, keep=True).pns[0] is kept[0]
    assert Position.from_board(board).pns[0] is not kept[0]


def test_the_root_plays_the_proved_win() -> None:
    board = Board.from_moves(THROWN_AWAY)
    options = SearchOptions(pns=PNS_ATTACK)
    result = search(board, Limits(nodes=200_000), options)
    assert str(result.move) == "e5"
    assert result.depth == 0  # proved before the main search
    assert result.score == k.WIN - 2 * k.PNS_MAX_DEPTH - 1
    assert search(board, Limits(nodes=200_000), SearchOptions(pns=0)).depth > 0


def test_the_root_defence_keeps_only_moves_after_which_the_long_win_is_gone() -> None:
    # the same position with White to move (Black's stones as they are): Black's e5 win is
    # a threat that the depth-limited defence does not see and the proof-number one does
    board = Board.from_moves(THROWN_AWAY + " a1")
    assert board.to_move is Color.WHITE
    deep = search(board, Limits(nodes=300_000), SearchOptions(pns=PNS_DEFENCE))
    after = board.copy()
    after.play(deep.move)
    assert _dfpn(after, True, k.PNS_MAX_DEPTH)[0] == 0


def test_only_master_proves_by_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    # master follows the process's setting; the levels below never prove by numbers
    from engine.search import alphabeta

    for level in Level:
        assert PRESETS[level].pns is (level is Level.MASTER)
    board = Board.from_moves(THROWN_AWAY)
    monkeypatch.setattr(alphabeta, "_PNS", PNS_ATTACK)
    assert str(search(board, Limits(nodes=100_000)).move) == "e5"
    assert search(board, Limits(nodes=100_000), SearchOptions(pns=0)).depth > 0
    monkeypatch.setattr(alphabeta, "_PNS", 0)
    assert search(board, Limits(nodes=100_000)).depth > 0


def test_a_process_loading_the_compiled_search_from_the_disk_cache_runs_it() -> None:
    # the tests above compiled the search and left it in numba's disk cache; a new process
    # loads it from there (a recursive kernel whose outer call was typed unlike its own
    # recursive calls crashed there, and only there)
    code = (
        "from engine.board import Board\n"
        "from engine.search.alphabeta import PNS_ATTACK, Limits, SearchOptions, search\n"
        f"board = Board.from_moves({THROWN_AWAY!r})\n"
        "print(search(board, Limits(nodes=100_000), SearchOptions(pns=PNS_ATTACK)).move)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "e5"
