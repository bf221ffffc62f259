"""Tactical suite: forced wins (VCF, VCT) found, forced defences never missed, at fixed node
limits. Wins are checked against a slow threat-space oracle that plays on ``Board`` itself."""

from __future__ import annotations

import time

import pytest

from engine.board import Board
from engine.gomocup import tactics
from engine.gomocup.tactics import (
    DEFENCES,
    HARD_DEFENCES,
    THREE_WINS,
    VCF_WINS,
    Puzzle,
    answer_lost,
    solve,
)
from engine.search import _kernels as k
from engine.search.alphabeta import (
    WIN,
    Limits,
    is_win_score,
    search,
    threat_proof,
    wins_by_threats,
)
from engine.types import Color, Point, Rule

NODES = 200_000  # well under a second at full speed


def _points(text: str) -> list[Point]:
    return [Point.parse(t) for t in text.split()]


def _wins_now(board: Board, point: Point) -> bool:
    if not board.is_legal(point):
        return False
    board.play(point)
    won = board.outcome is not None and board.outcome.winner is not None
    board.undo()
    return won


def _completions(board: Board, color: Color, around: Point | None = None) -> list[Point]:
    """Points where ``color`` would win now (on the lines through ``around``, if given)."""
    turn = Board.from_stones(
        black=board.stones(Color.BLACK),
        white=board.stones(Color.WHITE),
        size=board.size,
        rule=board.rule,
        to_move=color,
    )
    if around is None:
        points = [p for p in turn if turn[p] is None]
    else:
        points = [
            Point(around.x + dx * i, around.y + dy * i)
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1))
            for i in range(-4, 5)
        ]
    empty = [p for p in points if turn.on_board(p) and turn[p] is None]
    return sorted({p for p in empty if _wins_now(turn, p)})


def check_vcf_line(board: Board, line: tuple[Point, ...]) -> None:
    """The line is a win by continuous fours: every attacking move is legal and makes a four,
    the defender has no five of its own, and each reply is the only block (slow, plain)."""
    board = board.copy()
    attacker = board.to_move
    defender = attacker.opponent
    assert not _completions(board, defender), "the defender already has a four"
    for i in range(0, len(line), 2):
        move = line[i]
        assert board.is_legal(move), move
        board.play(move)
        if board.outcome is not None:
            assert board.outcome.winner is attacker
            return
        assert not _completions(board, defender, board.moves[-2].point if i else None)
        blocks = _completions(board, attacker, move)
        assert blocks, f"{move} is not a four"
        if len(blocks) >= 2 or not board.is_legal(blocks[0]):
            return  # two fives to stop, or (renju) Black may not block
        assert i + 1 < len(line)
        assert line[i + 1] == blocks[0]
        board.play(blocks[0])
    raise AssertionError("the line ends before the win")


@pytest.mark.parametrize("puzzle", VCF_WINS, ids=[f"vcf{i}" for i in range(len(VCF_WINS))])
def test_finds_the_vcf_win(puzzle: Puzzle) -> None:
    board = puzzle.board()
    result = search(board, Limits(nodes=NODES))
    assert is_win_score(result.score)
    assert board.is_legal(result.move)
    assert result.pv[0] == result.move
    check_vcf_line(board, result.pv)


@pytest.mark.parametrize("symmetry", range(8))
def test_vcf_win_under_every_symmetry(symmetry: int) -> None:
    board = VCF_WINS[1].board().transformed(symmetry)
    result = search(board, Limits(nodes=NODES))
    assert is_win_score(result.score)
    check_vcf_line(board, result.pv)


@pytest.mark.parametrize("puzzle", THREE_WINS)
def test_finds_the_win_by_threes(puzzle: Puzzle) -> None:
    result = search(puzzle.board(), Limits(nodes=NODES))
    assert str(result.move) == puzzle.answer
    assert is_win_score(result.score)


def test_renju_black_does_not_make_the_double_three() -> None:
    board = Board.from_stones(
        black=_points("f8 g8 h6 h7"),
        white=_points("a1 a3 o15 o13"),
        rule=Rule.RENJU,
    )
    result = search(board, Limits(nodes=20_000))
    assert result.move != Point.parse("h8")
    assert board.is_legal(result.move)


def test_black_loses_when_the_only_block_is_forbidden() -> None:
    # White's four h9-h12 can only be stopped at h8, a double-three for Black (row f8 g8 h8,
    # diagonal f6 g7 h8): Black must still play a legal move, and knows the game is lost
    board = Board.from_stones(
        black=_points("f8 g8 f6 g7 h13"),
        white=_points("h9 h10 h11 h12 a1"),
        rule=Rule.RENJU,
    )
    assert board.forbidden_reason(Point.parse("h8")) == "double-three"
    result = search(board, Limits(nodes=20_000))
    assert board.is_legal(result.move)
    assert is_win_score(-result.score)


FORCED_BLOCK = DEFENCES[0]


@pytest.mark.parametrize("symmetry", range(8))
def test_never_misses_the_only_block(symmetry: int) -> None:
    board = FORCED_BLOCK.board().transformed(symmetry)
    after = Board.from_moves(f"{FORCED_BLOCK.moves} {FORCED_BLOCK.answer}")
    block = after.transformed(symmetry).moves[-1].point
    result = search(board, Limits(nodes=2_000))
    assert result.move == block


@pytest.mark.parametrize("puzzle", DEFENCES, ids=[f"defence{i}" for i in range(len(DEFENCES))])
def test_finds_the_only_saving_move(puzzle: Puzzle) -> None:
    result = search(puzzle.board(), Limits(nodes=50_000))
    assert str(result.move) == puzzle.answer


# Each answer is the one move that stops the game's attack (the oracle below checks that every
# other near move loses to fours), not a saving move: Rapfi 0.43.02 classical (1 s) finds a
# slower win for the attacker after 47 of the first 50, mate in 7-43 plies, and rates the
# attacker ahead after the other three (hard14, hard15 and hard25). So only the move is
# checked; a search deep enough to see the slower win scores it as lost, rightly (master with
# its selectivity and local VCF sees it for hard0, 1, 6, 8 and 12 within these nodes).
#
# The positions master as it ships does not solve within these nodes: each plays another move
# (the suite is grown from master's lost games whether or not it solves them; `python -m engine
# tactics` counts them at a second). A change that solves one shows here, to be moved out.
# hard10's, hard122's and hard136's answers are themselves lost to fours and threes
# (tactics.LOST_ANSWERS, proved within 33,811, 77,285 and 63,900 nodes), so the check of the
# search's move sets them aside wherever the search finds them.
UNSOLVED = {
    *("hard10", "hard30", "hard40", "hard44", "hard49"),
    *("hard50", "hard51", "hard52", "hard56", "hard76", "hard79", "hard87", "hard88"),
    *("hard103", "hard109", "hard113"),
    *("hard115", "hard122", "hard134", "hard136", "hard143", "hard144", "hard145", "hard148"),
    *("hard149", "hard151"),
}


@pytest.mark.parametrize(
    "puzzle", HARD_DEFENCES, ids=[f"hard{i}" for i in range(len(HARD_DEFENCES))]
)
def test_finds_the_only_move_against_a_threat_sequence(puzzle: Puzzle) -> None:
    result = search(puzzle.board(), Limits(nodes=NODES))
    name = f"hard{HARD_DEFENCES.index(puzzle)}"
    assert (str(result.move) == puzzle.answer) is (name not in UNSOLVED)


HARD_IDS = [f"hard{i}" for i in range(len(HARD_DEFENCES))]


# The moves after which the proof-number threat search proves no win for the opponent, though
# one exists by quieter moves: Rapfi 0.43.02 classical at 3 s a position finds it (its move
# and mate). For these alone the main search's claim stands in for a proof.
NOT_BY_THREATS = {
    ("hard10", "d7"): "h7, +M11",
    ("hard19", "c7"): "f10, +M15",
    ("hard28", "d9"): "f13, +M19",
    ("hard30", "c9"): "e9, +M15",
    ("hard32", "h5"): "e8, +M17",
    ("hard39", "f7"): "f9, +M19",
    ("hard39", "f11"): "f9, +M15",
    ("hard49", "i5"): "j6, +M19",
    ("hard51", "g13"): "g12, +M13",
    ("hard59", "g6"): "f8, +M17",
    ("hard61", "h9"): "i11, +M13",
    ("hard64", "c7"): "g10, +M11",
    ("hard76", "j8"): "b8, +M15",
    ("hard79", "i7"): "j5, +M17",
    ("hard79", "i9"): "j5, +M17",
    ("hard90", "i5"): "k9, +M17",
    ("hard96", "h6"): "h9, +M15",
    ("hard127", "i7"): "j9, +M19",
    ("hard145", "k8"): "i6, +M15",
    ("hard151", "c8"): "f12, +M11",
    ("hard151", "d7"): "f12, +M9",
}


@pytest.mark.parametrize(
    ("name", "puzzle"),
    [(f"defence{i}", p) for i, p in enumerate(DEFENCES) if i > 0]
    + [(f"hard{i}", p) for i, p in enumerate(HARD_DEFENCES)],
    ids=[f"defence{i}" for i in range(1, len(DEFENCES))] + HARD_IDS,
)
def test_every_other_move_loses(name: str, puzzle: Puzzle) -> None:
    # what makes the puzzle one: near the stones, every move but the answer lets the opponent
    # win, proved by fours and threes (a four of our own only delays that, and the opponent's
    # forced block ends the search early: left out; no other four of ours can exist, as the
    # puzzles start with none on the board). The main search's proofs may be false (its
    # pruning skips moves from a node's first on: docs/engine.md, "Wins that were not"), so
    # they count only where an outside judge has found the win too
    board = puzzle.board()
    stones = [move.point for move in board.moves]
    near = [
        point
        for point in board.legal_moves()
        if str(point) != puzzle.answer
        and any(max(abs(point.x - s.x), abs(point.y - s.y)) <= 2 for s in stones)
    ]
    assert len(near) > 20
    unproved = []
    for point in near:
        after = board.copy()
        after.play(point)
        if _completions(after, after.to_move.opponent, point):
            continue
        # proved by fours and threes, every defender's answer that could hold searched
        if not wins_by_threats(after):
            unproved.append(point)
            assert is_win_score(search(after, Limits(nodes=NODES)).score), point
    assert {(name, str(point)) for point in unproved} == {
        key for key in NOT_BY_THREATS if key[0] == name
    }


@pytest.mark.parametrize(
    ("rule", "wins"),
    [(Rule.FREESTYLE, True), (Rule.STANDARD, False), (Rule.RENJU, False), (Rule.CARO, True)],
)
def test_an_overline_wins_only_where_the_rule_says(rule: Rule, wins: bool) -> None:
    # Black d8 e8 f8 g8 . i8 (c8 is White's): h8 makes six
    board = Board.from_stones(
        black=_points("d8 e8 f8 g8 i8 c3"), white=_points("c8 a3 a5 o1 o3 o5"), rule=rule
    )
    result = search(board, Limits(depth=2))
    assert (result.move == Point.parse("h8") and result.score == WIN - 1) == wins


@pytest.mark.parametrize(("rule", "wins"), [(Rule.FREESTYLE, True), (Rule.CARO, False)])
def test_caro_five_blocked_at_both_ends_does_not_win(rule: Rule, wins: bool) -> None:
    board = Board.from_stones(
        black=_points("d8 e8 f8 g8 c3 m3"), white=_points("c8 i8 a1 a3 o1 o3"), rule=rule
    )
    result = search(board, Limits(depth=2))
    assert (result.move == Point.parse("h8") and result.score == WIN - 1) == wins


@pytest.mark.parametrize(
    ("answer", "wins", "solved"), [("l8", False, True), ("g7", False, False), ("l8", True, False)]
)
def test_tactics_command_tells_a_miss(answer: str, wins: bool, solved: bool) -> None:
    # the block is right, another move is not, and blocking is no win
    puzzle = Puzzle(Rule.FREESTYLE, FORCED_BLOCK.moves, answer=answer, wins=wins)
    assert solve(puzzle, time_ms=500)[0] is solved


def test_a_defence_s_answer_is_told_lost_where_the_opponent_still_wins_by_threats() -> None:
    # hard10's j9 loses to fours and threes (the proof takes 33,811 nodes); after hard13's f10
    # the opponent has none
    assert answer_lost(HARD_DEFENCES[10], 200_000) is True
    assert answer_lost(HARD_DEFENCES[13], 200_000) is False
    with pytest.raises(ValueError, match="only a defence"):
        answer_lost(VCF_WINS[0], 200_000)


LISTED_NODES = 50_000  # every hard answer searched to here: nine listed proofs finish


def test_the_answers_listed_lost_are_those_the_proof_number_search_proves() -> None:
    # within the budget, an answer is proved lost exactly where the list says, in exactly the
    # listed nodes; past it, no listed answer is disproved (python -m engine tactics
    # --answer-nodes 16000000 proves the whole list)
    proved = {}
    for i, puzzle in enumerate(HARD_DEFENCES):
        found, nodes = threat_proof(tactics.after_answer(puzzle), LISTED_NODES)
        if found == 1:
            proved[i] = nodes
        elif i in tactics.LOST_ANSWERS:
            assert found == -1, f"hard{i}"
    assert proved == {i: n for i, n in tactics.LOST_ANSWERS.items() if n <= LISTED_NODES}
    assert len(proved) == 9
    assert max(tactics.LOST_ANSWERS.values()) <= tactics.PROOF_NODES


def test_the_score_counts_every_position_but_the_hard_defences_whose_answer_is_lost() -> None:
    groups = {"vcf": VCF_WINS, "three": THREE_WINS, "defence": DEFENCES, "hard": HARD_DEFENCES}
    counted = [(g, i) for g, ps in groups.items() for i in range(len(ps)) if tactics.scored(g, i)]
    assert len(counted) == len(SUITE) - len(tactics.LOST_ANSWERS) == 143
    assert ("hard", 10) not in counted
    assert {("hard", 13), ("defence", 2), ("vcf", 10)} <= set(counted)


def test_tactics_command_counts_apart_the_positions_whose_answer_is_lost(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # three hard defences, the first two listed lost: one solved, one missed; the third,
    # counted, missed. A defence against fours, solved; and two wins, whose answers are never
    # asked about
    defences = (HARD_DEFENCES[10], HARD_DEFENCES[30], HARD_DEFENCES[13])
    solved = {HARD_DEFENCES[10].moves, VCF_WINS[0].moves, THREE_WINS[0].moves}
    solved.add(DEFENCES[0].moves)
    proofs: dict[str, bool | None] = {}
    asked: list[Puzzle] = []

    def fake_solve(puzzle: Puzzle, time_ms: int) -> tuple[bool, Point, float, int]:
        return puzzle.moves in solved, Point.parse("h8"), 1.0, 10

    def fake_lost(puzzle: Puzzle, nodes: int) -> bool | None:
        assert nodes == 5000
        asked.append(puzzle)
        return proofs.get(puzzle.moves, False)

    monkeypatch.setattr(tactics, "VCF_WINS", VCF_WINS[:1])
    monkeypatch.setattr(tactics, "THREE_WINS", THREE_WINS[:1])
    monkeypatch.setattr(tactics, "DEFENCES", DEFENCES[:1])
    monkeypatch.setattr(tactics, "HARD_DEFENCES", defences)
    monkeypatch.setattr(tactics, "LOST_ANSWERS", {0: 4_000, 1: 3_000})
    monkeypatch.setattr(tactics, "solve", fake_solve)
    monkeypatch.setattr(tactics, "answer_lost", fake_lost)
    assert tactics.main([]) == 1
    out = capsys.readouterr().out
    assert asked == []
    assert "missed: 1 of 4" in out
    assert "proved lost (not counted): 2, 1 of them answered otherwise" in out
    assert out.count("answer lost") == 2
    assert "not listed" not in out

    # the proofs made again: hard0 as listed; hard1's not finished; hard2's answer proved
    # lost too, though the list does not have it
    proofs.update({defences[0].moves: True, defences[1].moves: None, defences[2].moves: True})
    assert tactics.main(["--answer-nodes", "5000"]) == 1
    out = capsys.readouterr().out
    assert asked == [DEFENCES[0], *defences]
    assert "proved lost within 5000 nodes, not listed: hard2" in out
    assert "listed as proved within 5000 nodes, not proved: hard1" in out

    # a miss among the listed positions alone fails nothing
    solved.add(defences[2].moves)
    assert tactics.main(["--answer-nodes", "5000"]) == 0
    assert "missed: 0 of 4" in capsys.readouterr().out


SUITE = VCF_WINS + THREE_WINS + DEFENCES + HARD_DEFENCES
SUITE_IDS = (
    [f"vcf{i}" for i in range(len(VCF_WINS))]
    + [f"three{i}" for i in range(len(THREE_WINS))]
    + [f"defence{i}" for i in range(len(DEFENCES))]
    + HARD_IDS
)


# the selectivity settings that are off in master (engine.search.alphabeta), each at the value
# screened against Rapfi: null-move pruning (GOMOKU_NULL_MOVE) never passes against a threat,
# internal iterative reduction (GOMOKU_IIR) only makes a node shallower, futility to depth 3
# (GOMOKU_FUTILITY_DEPTH) acts only in calm positions and the tighter policy cut near the horizon
# (GOMOKU_POLICY_CUT_LOW) never cuts a tactical move, so no defence may be lost to any but those of
# MISSED_OFF_IN_MASTER, each a move other than the answer within these nodes (one more reason they
# stay off): in standard, IIR from depth 4 and futility to depth 3 on hard22; in freestyle, null
# moves, IIR from depth 4 and futility to depth 3 on four of the defences from the games lost to
# Rapfi at 500 ms, and IIR from depth 4 and the tighter cut on hard42 (whose answer master finds by
# checking its move once the score falls). The guard searches the suite up to hard49: the 65 newest
# defences would add four searches each and take the whole suite past ten minutes (with them,
# hard74, 90 and 96 are lost with one of the settings or another)
OFF_IN_MASTER = {
    "null2": ("_NULL_R", 2),
    "iir4": ("_IIR", 4),
    "fut3": ("_FUT_DEPTH", 3),
    "cutlow2": ("_POL_CUT_LOW", 2),
}
MISSED_OFF_IN_MASTER = {
    ("hard22", "iir4"),
    ("hard22", "fut3"),
    ("hard28", "iir4"),
    ("hard35", "null2"),
    ("hard35", "fut3"),
    ("hard37", "null2"),
    ("hard42", "iir4"),
    ("hard42", "cutlow2"),
    ("hard45", "null2"),
}
GUARDED = len(SUITE) - len(HARD_DEFENCES) + 50


@pytest.mark.parametrize("setting", list(OFF_IN_MASTER))
@pytest.mark.parametrize("puzzle", SUITE[:GUARDED], ids=SUITE_IDS[:GUARDED])
def test_the_suite_is_solved_with_each_setting_off_in_master(
    puzzle: Puzzle, setting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.search.alphabeta

    monkeypatch.setattr(engine.search.alphabeta, *OFF_IN_MASTER[setting])
    board = puzzle.board()
    result = search(board, Limits(nodes=NODES))
    assert board.is_legal(result.move)
    name = SUITE_IDS[SUITE.index(puzzle)]
    missed = (name, setting) in MISSED_OFF_IN_MASTER
    if puzzle.answer is not None and name not in UNSOLVED:
        assert (str(result.move) == puzzle.answer) is not missed
    if puzzle.wins:
        assert is_win_score(result.score)


@pytest.mark.parametrize("field", ["then_vct", "lost_check", "verify"])
def test_only_master_holds_the_defence_to_the_threes_and_checks_its_moves(field: str) -> None:
    # the levels below master keep the search they were spaced with
    from engine.search.levels import PRESETS, Level

    for level in Level:
        assert getattr(PRESETS[level], field) is (level is Level.MASTER)


@pytest.mark.parametrize(("setting", "option", "then_vct"), [(0, -1, 0), (1, -1, 1), (1, 0, 0)])
def test_the_defence_can_hold_the_moves_that_stop_fours_to_the_threes(
    setting: int, option: int, then_vct: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hard41: the opponent, given a free move, wins by fours, and every root candidate stops
    # that; all but the answer leave it a win by threes. Held to the threes (master's
    # default, GOMOKU_DEFENCE_THEN_VCT) the root keeps the answer alone (and plays it);
    # without (the setting 0, or SearchOptions.then_vct=0 as the levels below master ask),
    # every candidate
    import engine.search.alphabeta as ab

    monkeypatch.setattr(ab, "_DEFENCE_THEN_VCT", setting)
    puzzle = HARD_DEFENCES[41]
    searcher = ab._Searcher(
        puzzle.board(),
        Limits(nodes=500_000),
        ab.SearchOptions(then_vct=option),
        time.perf_counter(),
        None,
    )
    n = int(k.root_moves(searcher.pos.st, searcher.pos.sr))
    kept = searcher._defend(n)
    moves = [str(searcher.pos.point(int(i))) for i in searcher.pos.sr[11][:kept]]
    if then_vct:
        assert moves == [puzzle.answer]
        assert str(search(puzzle.board(), Limits(nodes=500_000)).move) == puzzle.answer
    else:
        assert kept == n > 1
        assert puzzle.answer in moves


@pytest.mark.parametrize(("setting", "option", "checked"), [(0, -1, 0), (1, -1, 1), (1, 0, 0)])
def test_a_search_that_proves_itself_lost_plays_a_move_that_leaves_no_win_by_threats(
    setting: int, option: int, checked: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hard47: the search proves every root move lost and prefers i8, after which the opponent
    # wins by fours and threes; after the answer, c10, the proof-number search proves it has
    # no such win (Rapfi 0.43.02 classical finds a slower one). With the check (master's
    # default, GOMOKU_LOST_CHECK) the search plays c10; without (the setting 0, or
    # SearchOptions.lost_check=0 as the levels below master ask), i8. The check of the
    # search's move (SearchOptions.verify) is off here: it too sets i8 aside
    import engine.search.alphabeta as ab

    monkeypatch.setattr(ab, "_LOST_CHECK", setting)
    puzzle = HARD_DEFENCES[47]
    options = ab.SearchOptions(lost_check=option, verify=0)
    result = search(puzzle.board(), Limits(nodes=1_000_000), options)
    assert is_win_score(-result.score)  # the search's own verdict either way
    after = puzzle.board()
    after.play(result.move)
    assert wins_by_threats(after) is (not checked)
    assert (str(result.move) == puzzle.answer) is bool(checked)


def _verify(monkeypatch: pytest.MonkeyPatch, thousands: int) -> None:
    import engine.search.alphabeta as ab

    monkeypatch.setattr(ab, "_VERIFY", thousands)


@pytest.mark.parametrize(
    ("index", "setting", "on", "unchecked"),
    [(44, "_VERIFY", 200, "j8"), (42, "_VERIFY_WHEN", 2, "i9")],
    ids=["threatened", "at-the-bar"],
)
def test_the_check_of_the_chosen_move_gives_way_to_one_not_proved_lost(
    index: int, setting: str, on: int, unchecked: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hard44 at 300,000 nodes: the root defence finds the opponent's threat; unchecked, the
    # search plays j8, after which the opponent wins by fours and threes; checked, j8 is
    # proved lost, then the first attack of that proof (h10), then the first attack against
    # h10, the answer j10, which is not. hard42: the probe (four attacking moves) misses the
    # opponent's win after a free move, which takes six, and only the check once an
    # iteration's score falls to the bar (GOMOKU_VERIFY_WHEN=2) runs: i9 is proved lost, and
    # the first attack of that proof, the answer e10, is not
    import engine.search.alphabeta as ab

    puzzle = HARD_DEFENCES[index]
    limits = Limits(nodes=300_000)
    monkeypatch.setattr(ab, setting, 0)
    move = search(puzzle.board(), limits).move
    assert str(move) == unchecked
    board = puzzle.board()
    board.play(move)
    assert wins_by_threats(board) is True
    monkeypatch.setattr(ab, setting, on)
    assert str(search(puzzle.board(), limits).move) == puzzle.answer


def test_the_check_changes_the_search_s_move_only_where_it_is_proved_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every move the check sets aside loses to the opponent's fours and threes by a proof of
    # its own, made afresh; where the opponent has no such threat the search is untouched
    import engine.search.alphabeta as ab

    searched: list[Point] = []
    iterate = ab._Searcher._iterate

    def main_search(self: ab._Searcher, n: int) -> ab.SearchResult:
        result = iterate(self, n)
        searched.append(result.move)
        return result

    monkeypatch.setattr(ab._Searcher, "_iterate", main_search)
    _verify(monkeypatch, 200)
    changed = 0
    for puzzle in HARD_DEFENCES[::4]:
        searched.clear()
        move = search(puzzle.board(), Limits(nodes=NODES)).move
        if searched and searched[0] != move:
            changed += 1
            board = puzzle.board()
            board.play(searched[0])
            assert wins_by_threats(board) is True
    assert changed >= 1  # hard44

    def seen(result: ab.SearchResult) -> tuple[object, ...]:
        return result.move, result.score, result.depth, result.nodes, result.pv

    for moves, threatened in (
        ("h8 i9", False),
        ("h8 i9 g7 h7 i8", False),
        ("h8 h9 i8 g8 j8 k8 i9 i7", False),
        (HARD_DEFENCES[44].moves, True),
    ):
        board = Board.from_moves(moves)
        _verify(monkeypatch, 200)
        checked = seen(search(board, Limits(nodes=50_000)))
        _verify(monkeypatch, 0)
        assert (seen(search(board, Limits(nodes=50_000))) != checked) is threatened


def test_the_check_at_the_bar_waits_for_a_score_at_the_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # hard42's search scores i9 below the bar (GOMOKU_VERIFY_BELOW); with a bar no score
    # reaches, nothing is checked and i9 stands
    import engine.search.alphabeta as ab

    board = HARD_DEFENCES[42].board()
    limits = Limits(nodes=300_000)
    monkeypatch.setattr(ab, "_VERIFY_WHEN", 0)
    unchecked = search(board, limits)
    assert unchecked.score <= -ab._VERIFY_BELOW
    monkeypatch.setattr(ab, "_VERIFY_WHEN", 2)
    monkeypatch.setattr(ab, "_VERIFY_BELOW", WIN)
    assert search(board, limits).move == unchecked.move


def test_the_check_at_the_bar_leaves_every_other_search_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a search whose iterations never score as low as the bar, and a threatened one (checked
    # already, its share kept back from the start), search exactly as without it
    import engine.search.alphabeta as ab

    def seen(result: ab.SearchResult) -> tuple[object, ...]:
        return result.move, result.score, result.depth, result.nodes, result.pv

    for moves in ("h8 i9", "h8 i9 g7 h7 i8", "h8 h9 i8 g8 j8 k8 i9 i7", HARD_DEFENCES[44].moves):
        board = Board.from_moves(moves)
        monkeypatch.setattr(ab, "_VERIFY_WHEN", 2)
        checked = seen(search(board, Limits(nodes=100_000)))
        monkeypatch.setattr(ab, "_VERIFY_WHEN", 0)
        assert seen(search(board, Limits(nodes=100_000))) == checked
