"""Puzzles: a position where the side to move forces a win, and the solver plays it out
against the engine; or one where only one move stops the opponent's forced win, and the solver
must find it. Free of discord.py (``bot.cogs.puzzles`` holds the commands).

A puzzle is solved when the solver's five is on the board: any winning line counts, not one
stored answer. After each of the solver's moves the engine answers with its most stubborn
defence (its best move in the lost position), then checks that the solver still has a proven
win; if not, the attempt has failed. Every check is an ``analyse`` at a fixed node budget in
the review worker (``bot.core.review.Analyser``), so an attempt is deterministic.

Where puzzles come from: the built-in set (``bot/data/puzzles.json``, made by
``python -m bot.core.puzzles generate``: the engine's own games from fixed openings, and the
engine's tactical suite), a server's own reviewed games (every missed win in a stored
review is a position with a forced win: ``from_review``), and a server's own finished games
(where the winner's forced win began: ``from_game``, searched once per game in the background).
"""

from __future__ import annotations

import argparse
import enum
import functools
import importlib.resources
import json
import zlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Final

from engine.board import Board
from engine.notation import format_moves, parse_moves
from engine.types import Color, Point, Rule
from storage.records import PuzzlePlayer

if TYPE_CHECKING:
    from bot.core.review import Analyser, Review
    from bot.core.service.states import GameState

__all__ = [
    "NODES",
    "PUZZLE_RATING",
    "Attempt",
    "NoPuzzleError",
    "Progress",
    "Puzzle",
    "builtin",
    "daily_puzzle",
    "dump_attempt",
    "from_game",
    "from_review",
    "load_attempt",
    "main",
    "next_puzzle",
    "numbered",
    "play",
    "rated",
]

NODES: Final = 60_000  # the same budget as a review: what a review proved, a puzzle proves
SEARCH_BACK: Final = 4  # the winner's last turns searched in a finished game (one analysis each)
_DATA: Final = "puzzles.json"


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A position (the moves from the empty board) where the side to move forces a win."""

    key: str  # "builtin:<n>" or "game:<id>:<ply>"
    rule: Rule
    size: int
    moves: tuple[Point, ...]
    proof: str  # how the engine proved the win: vcf or vct (for a defence: the threat's)
    answer: Point  # the engine's first winning move (a hint; other wins count too)
    defend: bool = False  # find the one move that stops the opponent's forced win instead
    # A built-in puzzle's number, shown in its title: unique in the set, and kept by the
    # generator for keys it had before (keys alone repeat numbers: "renju:4", "suite:4").
    number: int | None = None

    def board(self) -> Board:
        """The position."""
        board = Board(self.size, self.rule)
        for point in self.moves:
            board.play(point)
        return board

    @property
    def origin(self) -> tuple[str, int, int]:
        """Where it comes from: ("game", game id, ply) or ("builtin", 0, its number)."""
        parts = self.key.split(":")
        if parts[0] == "game":
            return ("game", int(parts[1]), int(parts[2]))
        if self.number is not None:
            return ("builtin", 0, self.number)
        # A built-in puzzle no longer in the set (an attempt stored before it was regenerated).
        return ("builtin", 0, int(parts[-1]) + 1 if parts[-1].isdigit() else 0)

    @property
    def solver(self) -> Color:
        """Who is to win."""
        return Color.BLACK if len(self.moves) % 2 == 0 else Color.WHITE

    def to_json(self) -> dict[str, object]:
        """The data file's form."""
        return {
            "key": self.key,
            **({"number": self.number} if self.number is not None else {}),
            "rule": self.rule.value,
            "size": self.size,
            "moves": format_moves(self.moves),
            "proof": self.proof,
            "answer": str(self.answer),
            **({"defend": True} if self.defend else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Puzzle:
        """From the data file's form. A built-in puzzle stored without its number (an attempt
        saved before numbers were kept) gets the set's number for its key."""
        key = str(data["key"])
        number = data.get("number")
        if number is None and key.startswith("builtin:"):
            number = _builtin_numbers().get(key)
        return cls(
            key,
            Rule(str(data["rule"])),
            int(str(data["size"])),
            tuple(parse_moves(str(data["moves"]))),
            str(data["proof"]),
            parse_moves(str(data["answer"]))[0],
            bool(data.get("defend", False)),
            None if number is None else int(str(number)),
        )


class NoPuzzleError(Exception):
    """The user has no puzzle going."""


class Progress(enum.StrEnum):
    """Where an attempt stands after a move."""

    GOING = "going"  # the win is still there: the engine has answered, play on
    SOLVED = "solved"  # the solver's five is on the board
    FAILED = "failed"  # the forced win is gone


@dataclass(frozen=True, slots=True)
class Attempt:
    """A puzzle and the moves played since its position (the solver's and the engine's)."""

    puzzle: Puzzle
    played: tuple[Point, ...] = ()
    progress: Progress = Progress.GOING

    def board(self) -> Board:
        """The position now."""
        board = self.puzzle.board()
        for point in self.played:
            board.play(point)
        return board


async def play(attempt: Attempt, move: Point, analyser: Analyser) -> Attempt:
    """The solver plays ``move``; the engine answers while the win is still forced. A
    defence puzzle ends at once: solved when the opponent has no forced win after ``move``.

    Raises:
        GameOverError: the attempt is over already.
        IllegalMoveError: ``move`` is not legal there (nothing changes).
    """
    from bot.core.ai import AnalysisRequest
    from engine.errors import GameOverError

    if attempt.progress is not Progress.GOING:
        raise GameOverError()
    board = attempt.board()
    board.play(move)  # raises on an illegal move, before anything is kept
    played = (*attempt.played, move)
    if board.outcome is not None:
        won = board.outcome.winner is attempt.puzzle.solver
        return Attempt(attempt.puzzle, played, Progress.SOLVED if won else Progress.FAILED)

    def request(points: tuple[Point, ...]) -> AnalysisRequest:
        moves = tuple((p.x, p.y) for p in (*attempt.puzzle.moves, *points))
        return AnalysisRequest(board.width, board.rule, moves, NODES)

    defence = await analyser.analyse(request(played))
    if attempt.puzzle.defend:
        if defence.won:  # the threat goes through: show how
            return Attempt(attempt.puzzle, (*played, defence.best), Progress.FAILED)
        return Attempt(attempt.puzzle, played, Progress.SOLVED)
    if defence.won:
        # the defender wins now: the solver's move threw the win away (and its answer shows it)
        return Attempt(attempt.puzzle, (*played, defence.best), Progress.FAILED)
    board.play(defence.best)
    played = (*played, defence.best)
    if board.outcome is not None:
        return Attempt(attempt.puzzle, played, Progress.FAILED)
    still = await analyser.analyse(request(played))
    return Attempt(attempt.puzzle, played, Progress.GOING if still.won else Progress.FAILED)


def next_puzzle(puzzles: Sequence[Puzzle], seen: Collection[str], finished: int) -> Puzzle:
    """The first of ``puzzles`` the member has not finished (``seen``: their keys), so new
    puzzles arriving ahead in the list neither repeat nor skip any; once every one is seen,
    they come round again in turn (``finished``: how many the member has finished)."""
    for puzzle in puzzles:
        if puzzle.key not in seen:
            return puzzle
    return puzzles[finished % len(puzzles)]


def builtin() -> tuple[Puzzle, ...]:
    """The built-in set, for servers without reviewed games yet."""
    text = (importlib.resources.files("bot") / "data" / _DATA).read_text("utf-8")
    return tuple(Puzzle.from_json(item) for item in json.loads(text))


@functools.cache
def _builtin_numbers() -> dict[str, int]:
    return {p.key: p.number for p in builtin() if p.number is not None}


def numbered(puzzles: Sequence[Puzzle], before: Mapping[str, int]) -> list[Puzzle]:
    """``puzzles`` with their title numbers: a key the set had ``before`` keeps its number,
    a new one gets the next number unused (so a title, once seen, always means one puzzle)."""
    following = max(before.values(), default=0)
    out = []
    for puzzle in puzzles:
        number = before.get(puzzle.key)
        if number is None:
            following += 1
            number = following
        out.append(replace(puzzle, number=number))
    return out


def from_review(view: GameState, review: Review) -> list[Puzzle]:
    """The missed wins of a reviewed game, as puzzles (the position before each)."""
    from bot.core.review import MarkKind

    moves = tuple(m.point for m in view.board.moves)
    found = []
    for mark in review.marks:
        step = review.steps[mark.ply - 1]
        if mark.kind is not MarkKind.MISSED_WIN or step is None or step.proof is None:
            continue
        found.append(
            Puzzle(
                f"game:{view.game_id}:{mark.ply - 1}",
                view.rule,
                view.board.width,
                moves[: mark.ply - 1],
                step.proof,
                step.best,
            )
        )
    return found


async def from_game(view: GameState, analyser: Analyser) -> list[Puzzle]:
    """Where the winner's forced win began in a finished game, as a puzzle (none if the game
    has no winner or the engine proves no win there). The winner's last ``SEARCH_BACK`` turns
    are analysed from the end back while the engine proves a win, so a game costs a few
    analyses, not a review; the earliest proven position that takes more than one move wins."""
    from bot.core.ai import AnalysisRequest

    outcome = view.record.outcome
    if outcome is None or outcome.winner is None:
        return []
    moves = tuple(m.point for m in view.board.moves)
    first = 0 if outcome.winner is Color.BLACK else 1
    turns = [ply for ply in range(len(moves), -1, -1) if ply % 2 == first][:SEARCH_BACK]
    found: Puzzle | None = None
    for ply in turns:
        board = Board(view.board.width, view.rule)
        for point in moves[:ply]:
            board.play(point)
        if board.outcome is not None:
            continue
        request = AnalysisRequest(
            board.width, view.rule, tuple((p.x, p.y) for p in moves[:ply]), NODES
        )
        result = await analyser.analyse(request)
        if not (result.won and result.proof in ("vcf", "vct")):
            break
        board.play(result.best)
        if board.outcome is None:  # a five at once is no puzzle
            key = f"game:{view.game_id}:{ply}"
            found = Puzzle(key, view.rule, board.width, moves[:ply], result.proof, result.best)
    return [] if found is None else [found]


# ---------------------------------------------------------------- the generator


_OPENINGS: Final = (
    "h8 i9 g9 h10 j8",
    "h8 h9 i9 g7 j10",
    "h8 i7 g9 i9 i8",
    "h8 g8 h10 i9 g9 h9",
    "h8 i8 h9 h10 g8",
    "h8 g9 i9 i8 g7",
    "h8 h9 g8 i10 f8",
    "h8 i9 i8 g8 h9 g10",
)


def generate(rule: Rule, limit_moves: int = 60) -> list[Puzzle]:
    """Puzzles from the engine's own games: from each opening the engine plays on (its best
    move at a quarter of the budget, so it misses what the full budget sees), and the first
    position where the full budget proves a win that takes more than one move is kept."""
    from engine.search.analysis import analyse

    found: list[Puzzle] = []
    for number, opening in enumerate(_OPENINGS):
        board = Board(15, rule)
        for point in parse_moves(opening):
            board.play(point)
        while board.outcome is None and len(board.moves) < limit_moves:
            full = analyse(board, nodes=NODES)
            if full.won and full.proof in ("vcf", "vct") and len(full.line) != 1:
                moves = tuple(m.point for m in board.moves)
                key = f"builtin:{rule.value}:{number}"
                found.append(Puzzle(key, rule, 15, moves, full.proof, full.best))
                break
            board.play(analyse(board, nodes=NODES // 4).best)
    return found


def suite() -> list[Puzzle]:
    """The engine's tactical suite's wins by fours (``engine.gomocup.tactics.VCF_WINS``, from
    games between the engine's levels), with the engine's proof and first move."""
    from engine.gomocup.tactics import VCF_WINS
    from engine.search.analysis import analyse

    found = []
    for number, position in enumerate(VCF_WINS):
        board = position.board()
        result = analyse(board, nodes=NODES)
        if result.won and result.proof in ("vcf", "vct"):
            moves = tuple(m.point for m in board.moves)
            key = f"builtin:suite:{number}"
            found.append(Puzzle(key, position.rule, 15, moves, result.proof, result.best))
    return found


def defences() -> list[Puzzle]:
    """The tactical suite's single saving moves (``engine.gomocup.tactics.DEFENCES``), kept
    where the engine agrees: after the answer the opponent has no forced win it can prove."""
    from engine.gomocup.tactics import DEFENCES
    from engine.search.analysis import analyse

    found = []
    for number, position in enumerate(DEFENCES):
        board = position.board()
        assert position.answer is not None
        answer = parse_moves(position.answer)[0]
        after = board.copy()
        after.play(answer)
        if analyse(after, nodes=NODES).won:
            continue
        moves = tuple(m.point for m in board.moves)
        key = f"builtin:defence:{number}"
        found.append(Puzzle(key, position.rule, 15, moves, "vcf", answer, defend=True))
    return found


# ---------------------------------------------------------------- players and days

PUZZLE_RATING: Final = 1500  # every puzzle counts as an opponent of this strength
_K: Final = 32


def rated(player: PuzzlePlayer, solved: bool) -> PuzzlePlayer:
    """``player`` after finishing a puzzle (Elo against ``PUZZLE_RATING``)."""
    expected = 1 / (1 + 10 ** ((PUZZLE_RATING - player.rating) / 400))
    rating = player.rating + round(_K * ((1.0 if solved else 0.0) - expected))
    streak = player.streak + 1 if solved else 0
    return replace(
        player,
        rating=rating,
        streak=streak,
        best_streak=max(player.best_streak, streak),
        solved=player.solved + solved,
        failed=player.failed + (not solved),
        attempt=None,
    )


def dump_attempt(attempt: Attempt) -> str:
    """``attempt`` as stored with its player (``PuzzlePlayer.attempt``)."""
    return json.dumps(
        {
            "puzzle": attempt.puzzle.to_json(),
            "played": format_moves(attempt.played),
            "progress": attempt.progress.value,
        }
    )


def load_attempt(text: str) -> Attempt:
    """The attempt ``dump_attempt`` stored."""
    data = json.loads(text)
    return Attempt(
        Puzzle.from_json(data["puzzle"]),
        tuple(parse_moves(data["played"])),
        Progress(data["progress"]),
    )


def daily_puzzle(day: date, guild_id: int) -> Puzzle:
    """The day's puzzle for the server: the built-in set in turn, each server starting at its
    own place (a stable hash of its id: Python's ``hash`` of a str changes per process), so
    servers do not all post the same one and a restart keeps the server's."""
    puzzles = builtin()
    offset = zlib.crc32(str(guild_id).encode("ascii"))
    return puzzles[(day.toordinal() + offset) % len(puzzles)]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bot.core.puzzles generate [--out FILE]``: write the built-in set."""
    parser = argparse.ArgumentParser(prog="python -m bot.core.puzzles")
    parser.add_argument("command", choices=["generate"])
    parser.add_argument("--out", default=None, help="the data file (default: the package's)")
    options = parser.parse_args(argv)
    puzzles = [p for rule in (Rule.FREESTYLE, Rule.RENJU) for p in generate(rule)]
    puzzles += suite() + defences()
    puzzles = numbered(puzzles, {p.key: p.number for p in builtin() if p.number is not None})
    text = json.dumps([p.to_json() for p in puzzles], indent=1) + "\n"
    out = options.out or str(importlib.resources.files("bot") / "data" / _DATA)
    with open(out, "w", encoding="utf-8") as file:
        file.write(text)
    print(f"{len(puzzles)} puzzles written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
