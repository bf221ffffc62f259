"""Puzzles on the real engine (in-process): any winning line solves, a move that lets the win
go fails, an illegal move changes nothing; the built-in set and a review's missed wins are
positions the engine proves won."""

from __future__ import annotations

import re

import pytest

from benchmarks.bench_review import store_game
from bot.core.puzzles import (
    SEARCH_BACK,
    Attempt,
    Progress,
    Puzzle,
    builtin,
    from_game,
    from_review,
    next_puzzle,
    numbered,
    play,
)
from bot.core.review import Reviewer
from bot.core.service.states import GameState
from bot.text import words
from engine.board import Board
from engine.errors import GameOverError, OccupiedPointError
from engine.notation import parse_moves
from engine.search.analysis import analyse
from engine.types import Color, Point, Rule
from storage.memory import InMemoryGameRepository
from tests.bot.test_review import InProcess, planted_game


def _p(text: str) -> Point:
    return parse_moves(text)[0]


def _vcf(name: str, moves: str, answer: str, *, defend: bool = False) -> Puzzle:
    """A freestyle 15x15 puzzle of the VCF kind."""
    return Puzzle(
        name, Rule.FREESTYLE, 15, tuple(parse_moves(moves)), "vcf", _p(answer), defend=defend
    )


# Black's open three f8 g8 h8: e8 and i8 both make an open four. White's open three c3 c4 c5
# wins in turn for White if Black lets the moment go (with White's stones out of play instead,
# Black to move would still win after a wasted move and White's block: mate in 13, by Rapfi)
THREE = _vcf("test:three", "f8 c3 g8 c4 h8 c5", "e8")


async def test_another_winning_line_than_the_stored_one_solves() -> None:
    analyser = InProcess()
    other = _p("i8") if THREE.answer == _p("e8") else _p("e8")
    attempt = await play(Attempt(THREE), other, analyser)
    assert attempt.progress is Progress.GOING
    assert len(attempt.played) == 2  # the engine answered
    board = attempt.board()
    five = next(p for p in parse_moves("d8 e8 i8 j8") if board.is_legal(p) and _wins(board, p))
    attempt = await play(attempt, five, analyser)
    assert attempt.progress is Progress.SOLVED
    with pytest.raises(GameOverError):
        await play(attempt, _p("a15"), analyser)


async def test_a_move_that_lets_the_win_go_fails() -> None:
    attempt = await play(Attempt(THREE), _p("a15"), InProcess())
    assert attempt.progress is Progress.FAILED
    assert attempt.played[0] == _p("a15")


# only g6 stops White's five-in-waiting (engine.gomocup.tactics.DEFENCES[1])
HOLD = _vcf("test:hold", "h8 f6 e6 g5 e7 e5 d5 f7 f8 d6 e9 e8 c7 h5", "g6", defend=True)


async def test_a_defence_puzzle_is_solved_by_the_one_move_and_failed_by_another() -> None:
    held = await play(Attempt(HOLD), _p("g6"), InProcess())
    assert held.progress is Progress.SOLVED
    assert held.played == (_p("g6"),)
    broken = await play(Attempt(HOLD), _p("a1"), InProcess())
    assert broken.progress is Progress.FAILED
    assert broken.played == (_p("a1"), _p("g6"))  # and how the attack goes on
    assert Puzzle.from_json(HOLD.to_json()) == HOLD


async def test_an_illegal_move_changes_nothing() -> None:
    attempt = Attempt(THREE)
    with pytest.raises(OccupiedPointError):
        await play(attempt, _p("f8"), InProcess())
    assert attempt.played == ()


def test_the_builtin_set_is_proven() -> None:
    puzzles = builtin()
    assert len(puzzles) >= 4
    assert {p.rule for p in puzzles} == {Rule.FREESTYLE, Rule.RENJU}
    assert any(p.defend for p in puzzles)
    assert len({p.key for p in puzzles}) == len(puzzles)
    for puzzle in puzzles[:: max(1, len(puzzles) // 3)]:
        assert puzzle.board().is_legal(puzzle.answer)
        if puzzle.defend:
            after = puzzle.board()
            after.play(puzzle.answer)
            assert not analyse(after, nodes=60_000).won
        else:
            assert analyse(puzzle.board(), nodes=60_000).won


def test_builtin_titles_have_unique_numbers_that_stay_put() -> None:
    puzzles = builtin()
    titles = [words.puzzle_title(p.origin, p.solver.value, defend=p.defend) for p in puzzles]
    numbers = [int(re.fullmatch(r"Puzzle #(\d+): .*", t)[1]) for t in titles]  # type: ignore[index]
    assert sorted(numbers) == list(range(1, len(puzzles) + 1))
    by_key = {p.key: p.number or 0 for p in puzzles}
    # keys share their last part ("renju:4", "suite:4"); the titles do not
    assert (by_key["builtin:renju:4"], by_key["builtin:suite:4"]) == (4, 9)
    # an attempt stored before numbers were kept gets the same title
    old_form = {k: v for k, v in puzzles[8].to_json().items() if k != "number"}
    assert Puzzle.from_json(old_form) == puzzles[8]
    # regenerating keeps every number a key had and gives new keys new numbers
    new = Puzzle("builtin:suite:99", Rule.FREESTYLE, 15, (), "vcf", _p("h8"))
    again = numbered([new, *reversed(puzzles[1:])], by_key)  # one dropped, order changed
    assert {p.key: p.number for p in again} == {
        **{k: n for k, n in by_key.items() if k != puzzles[0].key},
        new.key: len(puzzles) + 1,
    }


def test_the_next_puzzle_is_the_first_not_finished_whatever_arrives_ahead() -> None:
    puzzles = builtin()[:4]
    keys = [p.key for p in puzzles]
    assert next_puzzle(puzzles, set(), 0) == puzzles[0]
    assert next_puzzle(puzzles, {keys[0], keys[2]}, 2) == puzzles[1]
    # a new puzzle (a review) arrives at the head: it comes next, and nothing seen repeats
    arrived = [THREE, *puzzles]
    assert next_puzzle(arrived, {keys[0], keys[1]}, 2) == THREE
    assert next_puzzle(arrived, {keys[0], keys[1], THREE.key}, 3) == puzzles[2]
    # every one finished: they come round again in turn
    assert next_puzzle(puzzles, set(keys), 5) == puzzles[1]


def finished_with_a_vcf() -> Board:
    """Black makes an open three (f8 g8 h8), then an open four (e8), then five (i8)."""
    board = Board(15, Rule.FREESTYLE)
    for point in parse_moves("f8 a1 g8 a3 h8 o15 e8 a5 i8"):
        board.play(point)
    return board


async def test_where_a_finished_games_forced_win_began_becomes_a_puzzle() -> None:
    board = finished_with_a_vcf()
    assert board.outcome is not None
    assert board.outcome.winner is Color.BLACK
    view = GameState(await store_game(InMemoryGameRepository(), board), board)
    engine = InProcess()
    (puzzle,) = await from_game(view, engine)
    assert engine.calls <= SEARCH_BACK
    assert puzzle.solver is Color.BLACK
    assert len(puzzle.moves) <= 6  # at the open three or before it, not the open four
    assert puzzle.key == f"game:{view.game_id}:{len(puzzle.moves)}"
    assert puzzle.moves == tuple(m.point for m in board.moves)[: len(puzzle.moves)]
    assert analyse(puzzle.board(), nodes=60_000).won
    assert not _wins(puzzle.board(), puzzle.answer)  # more than a five at once


async def test_a_finished_game_without_a_proven_win_gives_none() -> None:
    board = Board(15, Rule.FREESTYLE)
    for point in parse_moves("h8 i9"):
        board.play(point)
    view = GameState(await store_game(InMemoryGameRepository(), board), board)  # Black resigns
    engine = InProcess()
    assert await from_game(view, engine) == []
    assert engine.calls == 1  # White's one turn


@pytest.mark.slow
async def test_a_reviewed_missed_win_becomes_a_puzzle() -> None:
    board = planted_game()
    repo = InMemoryGameRepository()
    record = await store_game(repo, board)
    view = GameState(record, board)
    review = await Reviewer(repo, InProcess()).review(view)
    puzzles = from_review(view, review)
    missed = next(p for p in puzzles if len(p.moves) == 17)
    assert missed.solver is Color.WHITE
    assert missed.proof == "vcf"
    assert str(missed.answer) == "h6"


def _wins(board: Board, point: Point) -> bool:
    trial = board.copy()
    trial.play(point)
    return trial.outcome is not None and trial.outcome.winner is Color.BLACK
