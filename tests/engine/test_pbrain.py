"""The Gomocup protocol brain: commands in-process, a property test over command sequences,
and the real ``python -m engine.pbrain`` as a subprocess."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.gomocup.protocol import (
    ABOUT,
    Brain,
    MoveLimits,
    Opener,
    Thought,
    TimeControl,
    fallback_move,
    gomocup_to_point,
    point_to_gomocup,
)
from engine.opening_rules import Opening
from engine.types import Color, Point, Rule
from tests.scale import examples

ROOT = Path(__file__).resolve().parents[2]


def nearest_centre(board: Board, limits: MoveLimits) -> Thought:
    """Stand-in search for these tests: the legal point nearest the centre."""
    centre = (board.size - 1) / 2
    move = min(board.legal_moves(), key=lambda p: (abs(p.x - centre) + abs(p.y - centre), p))
    return Thought(move, score=7, depth=3, nodes=42, time_ms=1.4)


def play(brain: Brain, *lines: str) -> list[str]:
    answers: list[str] = []
    for line in lines:
        answers.extend(brain.handle(line))
    return answers


def moves_of(answers: list[str]) -> list[str]:
    return [line for line in answers if line[:1].isdigit()]


# -- coordinates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gomocup", "size", "point"),
    [((0, 0), 15, "a15"), ((0, 14), 15, "a1"), ((7, 7), 15, "h8"), ((19, 0), 20, "t20")],
    ids=["top-left", "bottom-left", "centre", "20x20 top-right"],
)
def test_gomocup_rows_count_from_the_top(gomocup: tuple[int, int], size: int, point: str) -> None:
    assert gomocup_to_point(*gomocup, size) == Point.parse(point)
    assert point_to_gomocup(Point.parse(point), size) == gomocup


# -- commands ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "answer"),
    [("5", "OK"), ("15", "OK"), ("20", "OK"), ("4", "ERROR"), ("21", "ERROR"), ("x", "ERROR")],
)
def test_start_accepts_sizes_5_to_20(size: str, answer: str) -> None:
    assert Brain(nearest_centre).handle(f"START {size}")[0].split()[0] == answer


def test_begin_answers_a_message_then_the_move() -> None:
    answers = play(Brain(nearest_centre), "START 15", "BEGIN")
    assert answers == ["OK", "MESSAGE depth 3 eval 7 nodes 42 time 1", "7,7"]


def test_turn_places_the_opponent_then_answers() -> None:
    brain = Brain(nearest_centre)
    answers = play(brain, "START 15", "TURN 7,7")
    assert moves_of(answers) == ["6,7"]  # nearest free point to the centre, ties by (x, y)
    assert brain.board is not None
    assert brain.board[Point.parse("h8")] is Color.BLACK
    assert brain.board[gomocup_to_point(6, 7, 15)] is Color.WHITE


def test_commands_are_case_insensitive_and_cr_lf_tolerant() -> None:
    answers = play(Brain(nearest_centre), "start 15\r\n", "turn 0,0\r\n")
    assert answers[0] == "OK"
    assert moves_of(answers) == ["7,7"]


@pytest.mark.parametrize(
    "turn",
    ["TURN 15,0", "TURN -1,3", "TURN 3", "TURN a,b", "TURN 1,2,3"],
    ids=["off-board", "negative", "one number", "letters", "three numbers"],
)
def test_bad_turn_is_an_error_and_changes_nothing(turn: str) -> None:
    brain = Brain(nearest_centre)
    answers = play(brain, "START 15", turn)
    assert answers[-1].startswith("ERROR")
    assert brain.board is not None
    assert len(brain.board) == 0


def test_turn_on_an_occupied_point_is_an_error() -> None:
    brain = Brain(nearest_centre)
    play(brain, "START 15", "BEGIN")
    answers = play(brain, "TURN 7,7")
    assert answers[0].startswith("ERROR")
    assert brain.board is not None
    assert len(brain.board) == 1


def test_commands_before_start_are_errors() -> None:
    brain = Brain(nearest_centre)
    for line in ("BEGIN", "TURN 1,1", "RESTART", "TAKEBACK 1,1", "YXSHOWFORBID"):
        assert brain.handle(line)[0].startswith("ERROR"), line
    assert play(brain, "BOARD", "1,1,1", "DONE")[0].startswith("ERROR")


def test_board_sets_the_position_and_our_colour() -> None:
    brain = Brain(nearest_centre)
    answers = play(brain, "START 15", "BOARD", "7,7,2", "8,8,1", "7,8,2", "DONE")
    board = brain.board
    assert board is not None
    # The opponent has one stone more: we are White, and the move history was kept.
    assert board[gomocup_to_point(7, 7, 15)] is Color.BLACK
    assert board[gomocup_to_point(8, 8, 15)] is Color.WHITE
    assert len(board.moves) == 4
    assert moves_of(answers)
    assert board.to_move is Color.BLACK


def test_board_in_any_order_still_gets_a_history() -> None:
    brain = Brain(nearest_centre)
    play(brain, "START 15", "BOARD", "1,1,1", "2,2,1", "5,5,2", "6,6,2", "DONE")
    assert brain.board is not None
    assert len(brain.board.moves) == 5  # four given (interleaved) and our answer


def test_board_with_a_five_is_game_over() -> None:
    lines = ["START 15", "BOARD", *(f"{x},3,2" for x in range(5)), "0,9,1", "1,9,1", "DONE"]
    answers = play(Brain(nearest_centre), *lines)
    assert answers[-1] == "ERROR the game is over"


def test_full_board_is_an_error_not_a_move() -> None:
    # 5x5 filled so that no row of five exists: columns alternate in pairs.
    lines = ["START 5", "BOARD"]
    for x in range(5):
        for y in range(5):
            own = ((x // 2) + y) % 2 == 0
            lines.append(f"{x},{y},{1 if own else 2}")
    answers = play(Brain(nearest_centre), *lines, "DONE")
    assert answers[-1] in ("ERROR no legal move", "ERROR the game is over")
    assert not moves_of(answers)


def test_continuous_game_never_plays_a_blocked_point() -> None:
    brain = Brain(nearest_centre)
    play(brain, "START 15", "INFO rule 2")  # freestyle, continuous
    answers = play(brain, "BOARD", "7,7,3", "6,7,3", "0,0,2", "DONE")
    assert brain.blocked == {gomocup_to_point(7, 7, 15), gomocup_to_point(6, 7, 15)}
    (move,) = moves_of(answers)  # the stand-in wants 7,7, which is blocked
    assert move not in ("7,7", "6,7", "0,0")


def test_takeback_undoes_the_last_move_or_removes_any_stone() -> None:
    brain = Brain(nearest_centre)
    play(brain, "START 15", "TURN 0,0")
    assert brain.handle("TAKEBACK 7,7") == ["OK"]
    assert brain.handle("TAKEBACK 0,0") == ["OK"]
    assert brain.board is not None
    assert len(brain.board) == 0
    play(brain, "TURN 0,0")
    assert brain.handle("TAKEBACK 0,0") == ["OK"]  # not the last move: rebuilt without it
    assert brain.board is not None
    assert len(brain.board) == 1
    assert brain.board.to_move is Color.BLACK
    assert brain.handle("TAKEBACK 3,3")[0].startswith("ERROR")


def test_about_end_and_unknown() -> None:
    brain = Brain(nearest_centre)
    assert brain.handle("ABOUT") == [ABOUT]
    assert 'name="' in ABOUT
    assert 'version="' in ABOUT
    assert 'country="' in ABOUT
    assert brain.handle("FROBNICATE now") == ["UNKNOWN FROBNICATE"]
    assert brain.handle("END") == []
    assert brain.finished


def test_info_rule_sets_the_rule_and_rejects_unknown_codes() -> None:
    brain = Brain(nearest_centre)
    play(brain, "INFO rule 4", "START 15")
    assert brain.rule is Rule.RENJU
    board = brain.board
    assert board is not None
    assert board.rule is Rule.RENJU
    assert play(brain, "INFO rule 1") == []
    assert brain.board is not None
    assert _rule_of(brain) is Rule.STANDARD
    assert brain.board.rule is Rule.STANDARD
    assert brain.handle("INFO rule 16")[0].startswith("ERROR")
    assert _rule_of(brain) is Rule.STANDARD
    assert play(brain, "INFO rule 9") == []
    assert _rule_of(brain) is Rule.CARO


def _rule_of(brain: Brain) -> Rule:
    return brain.rule  # a call, so that mypy forgets what the last assert narrowed


# Black to move; h8 would make two open threes (h8-h9-h10 and h8-i8-j8): a 3-3.
DOUBLE_THREE = "h9 a1 h10 a3 i8 a5 j8 a7"


def _board_lines(board: Board) -> list[str]:
    lines = ["BOARD"]
    for move in board.moves:
        x, y = point_to_gomocup(move.point, board.size)
        lines.append(f"{x},{y},{1 if move.color is board.to_move else 2}")
    return [*lines, "DONE"]


def test_renju_brain_never_plays_a_forbidden_point() -> None:
    board = Board.from_moves(DOUBLE_THREE, rule=Rule.RENJU)
    assert board.forbidden_reason(Point.parse("h8")) == "double-three"

    def into_forbidden(position: Board, limits: MoveLimits) -> Thought:
        return Thought(Point.parse("h8"))

    answers = play(Brain(into_forbidden), "INFO rule 4", "START 15", *_board_lines(board))
    assert moves_of(answers)
    assert moves_of(answers) != ["7,7"]
    assert any("not playable" in line for line in answers)


def test_yxshowforbid_lists_black_forbidden_points() -> None:
    board = Board.from_moves(DOUBLE_THREE, rule=Rule.RENJU)
    forbidden = sorted(board.forbidden_points(), key=lambda p: (14 - p.y, p.x))
    assert Point.parse("h8") in forbidden
    brain = Brain(nearest_centre)
    yxboard = ["YXBOARD", *_board_lines(board)[1:]]
    assert play(brain, "INFO rule 4", "START 15", *yxboard) == ["OK"]  # and no move
    expected = "".join("{:02d}{:02d}".format(*point_to_gomocup(p, 15)) for p in forbidden)
    assert brain.handle("YXSHOWFORBID") == [f"FORBID {expected}."]
    brain.handle("TURN 0,0")  # now Black has moved: White to move has nothing forbidden
    assert brain.handle("YXSHOWFORBID") == ["FORBID ."]


def test_a_failing_search_still_yields_a_legal_move() -> None:
    def broken(board: Board, limits: MoveLimits) -> Thought:
        raise RuntimeError("boom")

    answers = play(Brain(broken), "START 15", "TURN 7,7")
    assert len(moves_of(answers)) == 1
    assert any(line.startswith("MESSAGE search failed") for line in answers)


def test_fallback_wins_then_blocks() -> None:
    board = Board.from_moves("h8 a1 h9 a2 h10 a3 h11 a4")
    assert fallback_move(board, board.legal_moves()) in (Point.parse("h7"), Point.parse("h12"))
    board = Board.from_moves("h8 a1 h9 a2 h10 a3 o15 a4")
    assert fallback_move(board, board.legal_moves()) == Point.parse("a5")


# -- time --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "budget", "turn_binds"),
    [
        (TimeControl(turn_ms=500), 470, True),
        (TimeControl(turn_ms=5000), 4880, True),
        (TimeControl(turn_ms=0), 29, True),
        (TimeControl(turn_ms=30000, match_ms=180000, left_ms=20000), 960, False),
        (TimeControl(turn_ms=1000, match_ms=180000, left_ms=20000), 960, True),
        (TimeControl(turn_ms=1000, left_ms=2147483647), 960, True),
        (TimeControl(turn_ms=1000, left_ms=-5), 10, False),
        (TimeControl(), 960, True),
    ],
    ids=[
        "turn 500",
        "turn 5000",
        "as fast",
        "match left",
        "turn equals the match's share",
        "unlimited",
        "overdrawn",
        "untold",
    ],
)
def test_budget_keeps_a_margin_under_every_limit(
    control: TimeControl, budget: int, turn_binds: bool
) -> None:
    assert control.budget_ms() == budget
    # time a move leaves unused is lost only where the turn, not the match, sets the budget
    assert control.turn_binds() is turn_binds


def test_search_gets_the_budget_less_the_time_already_spent() -> None:
    seen: list[MoveLimits] = []
    now = [100.0]

    def record(board: Board, limits: MoveLimits) -> Thought:
        seen.append(limits)
        return nearest_centre(board, limits)

    def clock() -> float:
        now[0] += 0.1  # every reading is 100 ms later
        return now[0]

    brain = Brain(record, clock=clock)
    play(brain, "INFO timeout_turn 1000", "INFO max_depth 6", "START 15", "BEGIN")
    assert seen == [MoveLimits(time_ms=860, depth=6, nodes=None, turn_bound=True)]


@pytest.mark.parametrize(
    ("ms", "permille", "budget"),
    [("50", "50", 425), ("0", "0", 500), ("-5", "²", 470), ("1001", "501", 470), ("", " 7 ", 476)],
    ids=["the margin before", "none", "malformed", "out of range", "spaced"],
)
def test_the_margin_is_read_from_the_environment(ms: str, permille: str, budget: int) -> None:
    # read once at import, so a fresh interpreter reads it
    env = {**os.environ, "GOMOKU_MARGIN_MS": ms, "GOMOKU_MARGIN_PERMILLE": permille}
    code = (
        "from engine.gomocup.protocol import TimeControl;"
        " print(TimeControl(turn_ms=500).budget_ms())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(budget)


@pytest.mark.parametrize(("given", "expected"), [("0", None), ("170000000", 170_000_000)])
def test_max_memory_reaches_the_search(given: str, expected: int | None) -> None:
    seen: list[MoveLimits] = []

    def record(board: Board, limits: MoveLimits) -> Thought:
        seen.append(limits)
        return nearest_centre(board, limits)

    play(Brain(record), "START 15", f"INFO max_memory {given}", "BEGIN")
    assert [limits.memory_bytes for limits in seen] == [expected]


# -- property: any command sequence ------------------------------------------------------------

# Mostly points of a small board, so that games fill up, fives appear and renju bites.
_COORD = st.one_of(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6), st.integers(-2, 21))
_SIZE = st.sampled_from([5, 6, 7, 7, 8, 15, 20, 4, 21])


def _board_block(word: str) -> st.SearchStrategy[list[str]]:
    line = st.builds(lambda x, y, f: f"{x},{y},{f}", _COORD, _COORD, st.sampled_from([1, 2, 3, 0]))
    return st.builds(
        lambda lines, done: [word, *lines, *(["DONE"] if done else [])],
        st.lists(line, max_size=30),
        st.booleans(),
    )


_COMMAND = st.one_of(
    st.builds(lambda n: [f"START {n}"], _SIZE),
    st.just(["RESTART"]),
    st.just(["BEGIN"]),
    st.builds(lambda x, y: [f"TURN {x},{y}"], _COORD, _COORD),
    st.builds(lambda x, y: [f"TAKEBACK {x},{y}"], _COORD, _COORD),
    _board_block("BOARD"),
    _board_block("YXBOARD"),
    st.builds(lambda r: [f"INFO rule {r}"], st.sampled_from([0, 1, 2, 3, 4, 5, 6, 8, 9, 16])),
    st.builds(
        lambda key, value: [f"INFO {key} {value}"],
        st.sampled_from(["timeout_turn", "time_left", "timeout_match", "max_memory", "foo"]),
        st.one_of(st.integers(-10, 10**6).map(str), st.just("zz")),
    ),
    st.just(["YXSHOWFORBID"]),
    st.just(["ABOUT"]),
    st.just(["DONE"]),
    st.text(max_size=12).map(lambda text: [text]),
)


@pytest.mark.slow
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    opening=st.builds(
        lambda rule, size: [f"INFO rule {rule}", f"START {size}"],
        st.sampled_from([0, 1, 4, 8, 2, 6]),
        _SIZE,
    ),
    scripts=st.lists(
        st.one_of(
            _COMMAND,
            st.lists(st.builds(lambda x, y: f"TURN {x},{y}", _COORD, _COORD), max_size=20),
        ),
        min_size=1,
        max_size=40,
    ),
    chaos=st.randoms(use_true_random=False),
)
def test_no_command_sequence_crashes_or_plays_illegally(
    opening: list[str], scripts: list[list[str]], chaos: random.Random
) -> None:
    given_boards: list[Board] = []

    def wild(board: Board, limits: MoveLimits) -> Thought:
        """A search that answers anything: good moves, taken points, off-board, or raises."""
        given_boards.append(board.copy())
        roll = chaos.random()
        if roll < 0.1:
            raise ValueError("search bug")
        if roll < 0.6 and board.legal_moves():
            return Thought(chaos.choice(board.legal_moves()))
        return Thought(Point(chaos.randint(-1, board.size), chaos.randint(-1, board.size)))

    brain = Brain(wild)
    for script in [opening, *scripts]:
        for line in script:
            before = len(given_boards)
            answers = brain.handle(line)
            assert not any(answer.startswith("ERROR internal") for answer in answers), answers
            assert all("\n" not in answer and "\r" not in answer for answer in answers)
            moves = moves_of(answers)
            assert len(moves) <= 1
            if not moves:
                continue
            # Exactly one search ran; its position is where our move was played.
            assert len(given_boards) == before + 1
            position = given_boards[-1]
            index = answers.index(moves[0])
            assert answers[index - 1].startswith("MESSAGE depth ")
            x, y = (int(n) for n in moves[0].split(","))
            point = gomocup_to_point(x, y, position.size)
            assert position.on_board(point)
            assert position[point] is None
            assert point not in brain.blocked
            if position.rule is Rule.RENJU and position.to_move is Color.BLACK:
                assert position.forbidden_reason(point) is None
            assert position.outcome is None
            assert brain.board is not None
            assert brain.board[point] is position.to_move
        if brain.finished:
            break


# -- the real process --------------------------------------------------------------------------


def _pbrain(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "engine.pbrain", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def _converse(process: subprocess.Popen[str], lines: list[str]) -> list[str]:
    """Send one command at a time (CR LF, as managers do) and read until its answer."""
    assert process.stdin is not None
    assert process.stdout is not None
    answers: list[str] = []
    for line in lines:
        process.stdin.write(line + "\r\n")
        process.stdin.flush()
        if line.split()[0] in ("INFO", "END") or line[:1].isdigit() or line == "BOARD":
            continue
        while True:
            answer = process.stdout.readline().rstrip("\r\n")
            assert answer, f"no answer to {line!r}; stderr: {process.stderr}"
            answers.append(answer)
            if not answer.startswith("MESSAGE"):
                break
    return answers


@pytest.mark.timeout(120)
def test_real_pbrain_plays_a_short_game_over_pipes() -> None:
    with _pbrain("--depth", "2") as process:
        answers = _converse(
            process,
            [
                "INFO timeout_turn 2000",
                "INFO rule 0",
                "START 20",
                "ABOUT",
                "BEGIN",
                "TURN 10,11",
                "BOARD",
                "10,10,1",
                "10,11,2",
                "DONE",
                "TURN 99,99",
                "END",
            ],
        )
        assert process.wait(timeout=30) == 0
    assert answers[0] == "OK"
    assert answers[1].startswith('name="')
    moves = [a for a in answers if a[:1].isdigit()]
    assert len(moves) == 3
    messages = [a for a in answers if a.startswith("MESSAGE depth")]
    assert len(messages) == 3
    for message in messages:
        words = message.split()
        assert words[1::2] == ["depth", "eval", "nodes", "time"]
        assert all(w.lstrip("-").isdigit() for w in words[2::2])
    assert answers[-1].startswith("ERROR")


@pytest.mark.timeout(120)
def test_real_pbrain_rejects_bad_sizes_and_exits_at_end_of_input() -> None:
    with _pbrain("--depth", "1") as process:
        out, _ = process.communicate("START 21\nSTART 4\nSTART 5\nBEGIN\n", timeout=90)
    lines = out.splitlines()
    assert lines[0].startswith("ERROR")
    assert lines[1].startswith("ERROR")
    assert lines[2] == "OK"
    x, y = (int(n) for n in lines[-1].split(","))
    assert 0 <= x < 5
    assert 0 <= y < 5
    assert process.returncode == 0


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_real_pbrain_level_option() -> None:
    with _pbrain("--level", "beginner", "--seed", "3") as process:
        out, _ = process.communicate("START 15\nTURN 7,7\nEND\n", timeout=90)
    assert process.returncode == 0
    assert [line for line in out.splitlines() if line[:1].isdigit()]
    bad = subprocess.run(
        [sys.executable, "-m", "engine.pbrain", "--level", "grandmaster"],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert bad.returncode == 2


# -- SWAP2BOARD (the swap2 opening) ------------------------------------------------------------


def scripted(*words: str) -> Opener:
    """An opener that takes the given steps in order (checking the phase it is asked in)."""
    queue = list(words)

    def step(opening: Opening, limits: MoveLimits) -> str:
        assert limits.time_ms is not None
        return queue.pop(0)

    return step


def swap2(brain: Brain, *stones: str) -> list[str]:
    return play(brain, "SWAP2BOARD", *stones, "DONE")


def test_swap2board_without_an_opener_is_an_error() -> None:
    brain = Brain(nearest_centre)
    play(brain, "START 15")
    assert swap2(brain, "7,7", "8,7", "9,9") == ["ERROR SWAP2BOARD is not supported"]


def test_swap2board_case_1_places_three_stones_in_gomocup_coordinates() -> None:
    brain = Brain(nearest_centre, opener=scripted("h8", "i8", "j6"))
    play(brain, "START 15")
    assert swap2(brain) == ["7,7 8,7 9,9"]


@pytest.mark.parametrize(
    ("steps", "answer"),
    [(("black",), ["SWAP"]), (("two", "h7", "h9"), ["7,8 7,6"])],
    ids=["swap", "two more"],
)
def test_swap2board_case_2_answers_swap_or_two_stones(
    steps: tuple[str, ...], answer: list[str]
) -> None:
    brain = Brain(nearest_centre, opener=scripted(*steps))
    play(brain, "START 15")
    assert swap2(brain, "7,7", "8,7", "9,9") == answer


def test_swap2board_staying_white_plays_the_next_move_by_search() -> None:
    brain = Brain(nearest_centre, opener=scripted("white"))
    play(brain, "START 15")
    answers = swap2(brain, "7,7", "8,7", "9,9")
    assert answers[0].startswith("MESSAGE depth")
    assert answers[1] == "6,7"  # nearest the centre, not taken: g8
    brain = Brain(nearest_centre, opener=scripted("white"))
    play(brain, "START 15")
    assert moves_of(swap2(brain, "7,7", "8,7", "9,9", "7,8", "7,6")) == ["6,7"]
    brain = Brain(nearest_centre, opener=scripted("black"))
    play(brain, "START 15")
    assert swap2(brain, "7,7", "8,7", "9,9", "7,8", "7,6") == ["SWAP"]


@pytest.mark.parametrize(
    "stones",
    [("7,7",), ("7,7", "8,7", "9,9", "1,1"), ("7,7", "7,7", "9,9"), ("7,7", "7,x", "9,9")],
    ids=["one", "four", "twice", "garbage"],
)
def test_swap2board_with_a_wrong_block_is_an_error(stones: tuple[str, ...]) -> None:
    brain = Brain(nearest_centre, opener=scripted())
    play(brain, "START 15")
    answers = swap2(brain, *stones)
    assert answers
    assert all(a.startswith("ERROR") for a in answers)
    assert brain.handle("ABOUT") == [ABOUT]  # back to commands


@pytest.mark.timeout(180)
def test_real_pbrain_answers_swap2board() -> None:
    with _pbrain("--level", "beginner", "--seed", "3") as process:
        out, _ = process.communicate(
            "START 15\nSWAP2BOARD\nDONE\nSWAP2BOARD\n7,7\n8,7\n9,9\nDONE\nEND\n", timeout=150
        )
    lines = [line for line in out.splitlines() if not line.startswith("MESSAGE")]
    assert lines[0] == "OK"
    first = [tuple(int(n) for n in pair.split(",")) for pair in lines[1].split()]
    assert len(set(first)) == 3
    assert all(0 <= n < 15 for pair in first for n in pair)
    answer = lines[2]
    assert answer == "SWAP" or 1 <= len(answer.split()) <= 2
    taken = {(7, 7), (8, 7), (9, 9)}
    if answer != "SWAP":
        for pair in answer.split():
            point = tuple(int(n) for n in pair.split(","))
            assert point not in taken


# -- the rest of a turn ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "turn_bound", "searched_first", "rest_searched"),
    [
        ("h8 h7 h9 a1 h10 a2 h11", True, True, True),  # White's one answer, h12
        ("h8 i9 j10", True, False, True),  # an opening the book answers
        ("h8 h7 h9 h6 h10 h5 h11 h4", True, True, False),  # Black's five ends the game
        ("h8 h7 h9 a1 h10 a2 h11", False, True, False),  # the match's clock binds: keep the time
    ],
    ids=["forced answer", "book move", "a win", "match time binds"],
)
def test_a_quick_move_leaves_the_rest_of_the_turn_to_the_position_after_it(
    monkeypatch: pytest.MonkeyPatch,
    moves: str,
    turn_bound: bool,
    searched_first: bool,
    rest_searched: bool,
) -> None:
    import engine.gomocup.pbrain as pbrain
    import engine.search.alphabeta as alphabeta

    real = alphabeta.search
    searched: list[tuple[str, int | None]] = []

    def spy(
        board: Board, limits: alphabeta.Limits, options: alphabeta.SearchOptions | None = None
    ) -> alphabeta.SearchResult:
        searched.append((board.move_text(), limits.nodes))
        return real(board, limits, options)

    monkeypatch.setattr(alphabeta, "search", spy)
    monkeypatch.setattr(pbrain, "_REST", 1)
    monkeypatch.delenv("GOMOKU_BOOK", raising=False)
    thought = pbrain.strongest_searcher()(
        Board.from_moves(moves), MoveLimits(nodes=3000, turn_bound=turn_bound)
    )
    after = Board.from_moves(moves)
    after.play(thought.move)
    expected = [(moves, 3000)] if searched_first else []
    if rest_searched:
        # the position the move leaves, the opponent to move, within the nodes left
        expected.append((after.move_text(), 3000 - thought.nodes))
    assert searched == expected
    if moves.endswith("h11"):
        assert thought.move == Point.parse("h12")
