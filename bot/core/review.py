"""Post-game review: the engine goes through a finished Gomoku game and marks where it was won
and lost. Free of discord.py (the review cog draws what this returns).

Every position of the game is analysed in the AI pool's review worker (``ProcessPoolRunner
.analyse``: its own process, below the live searches), one at a time, at a fixed node budget,
so a review is the same on every machine. Then the marks:

- a *blunder*: a move after which the opponent has a proven win, from a position where the
  engine's own best move leaves the opponent none (so the mover was not lost already);
- a *missed win*: the mover had a proven win (VCF or VCT) and played a move after which the
  win is gone (the mover has no proven win at its next turn, or the opponent wins);
- the *turning point*: the last mark of the side that lost (a drawn game: the first mark;
  no marks: the move that lost its mover the most on the graph).

A review is stored as JSON beside the game (``GameRepository.save_review``), so asking again
is instant; ``FORMAT`` bumps when what is stored changes, and older reviews are made again.
"""

from __future__ import annotations

import asyncio
import enum
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol, runtime_checkable

from bot.core.games import table_spec
from engine.board import Board
from engine.types import Color, Point

if TYPE_CHECKING:
    from bot.core.ai import AnalysisRequest
    from bot.core.service.states import GameState
    from engine.search.analysis import Analysis
    from storage.repository import GameRepository

__all__ = [
    "FORMAT",
    "NODES",
    "Analyser",
    "Mark",
    "MarkKind",
    "NoGameToReviewError",
    "NotReviewableError",
    "Review",
    "ReviewUnavailableError",
    "Reviewer",
    "Step",
    "check_reviewable",
    "find_marks",
    "stored_review",
]

FORMAT: Final = 1
NODES: Final = 60_000  # per position: a 40-move game in tens of seconds on a loaded core
TIME_CAP_MS: Final = 2_000  # per position, only for a machine far slower than expected
BUDGET_S: Final = 240.0  # the whole review; a game that needs more is shown unfinished
PROGRESS_EVERY_S: Final = 2.0  # how often the reply is edited while the engine works


class NotReviewableError(Exception):
    """Only finished Gomoku games with moves can be reviewed."""

    def __init__(self, game_id: int) -> None:
        super().__init__(game_id)
        self.game_id = game_id


class NoGameToReviewError(Exception):
    """``/gomoku review`` without a game, from a user with no finished game here."""


class ReviewUnavailableError(Exception):
    """This bot runs no engine that can review (an AI runner without ``analyse``)."""


@runtime_checkable
class Analyser(Protocol):
    """What a review needs from the AI pool (``bot.core.ai.ProcessPoolRunner`` is one)."""

    async def analyse(self, request: AnalysisRequest) -> Analysis:
        """The analysis of one position."""
        ...


class MarkKind(enum.StrEnum):
    """What a mark says about a move."""

    BLUNDER = "blunder"
    MISSED_WIN = "missed_win"


@dataclass(frozen=True, slots=True)
class Step:
    """The engine's view of one position, for the side to move there."""

    side: Color
    verdict: str  # engine.search.analysis.Verdict's value: win, loss, open
    proof: str | None  # vcf, vct, search
    score: int
    best: Point
    line: tuple[Point, ...]
    value: float  # Black's view in [-1, 1] (the graph)

    @classmethod
    def of(cls, analysis: Analysis) -> Step:
        """A step from an analysis."""
        return cls(
            analysis.side,
            analysis.verdict.value,
            None if analysis.proof is None else analysis.proof.value,
            analysis.score,
            analysis.best,
            analysis.line[:12],
            round(analysis.for_black(), 4),
        )

    @property
    def won(self) -> bool:
        """The side to move has a proven win."""
        return self.verdict == "win"

    @property
    def lost(self) -> bool:
        """The side to move is proven lost."""
        return self.verdict == "loss"


@dataclass(frozen=True, slots=True)
class Mark:
    """One marked move: ``ply`` is its number in the game (1 = Black's first move)."""

    ply: int
    kind: MarkKind
    color: Color  # who played it
    played: Point
    better: Point  # the engine's move there
    proof: str | None  # how the win was proven (the mover's missed one; the opponent's after)


@dataclass(frozen=True, slots=True)
class Review:
    """A whole game's review. ``steps[i]`` is the position after ``i`` moves (None: the game
    was over there, or the review ran out of time before it)."""

    game_id: int
    steps: tuple[Step | None, ...]
    marks: tuple[Mark, ...]
    turning: int | None  # the ply of the turning point
    complete: bool  # every position was analysed
    seconds: float  # how long the engine took

    def mark_at(self, ply: int) -> Mark | None:
        """The mark on move ``ply``, if any."""
        return next((mark for mark in self.marks if mark.ply == ply), None)

    def to_json(self) -> str:
        """The stored form."""
        return json.dumps(
            {
                "format": FORMAT,
                "nodes": NODES,
                "game": self.game_id,
                "steps": [None if s is None else _step_json(s) for s in self.steps],
                "marks": [
                    [m.ply, m.kind.value, m.color.value, _pt(m.played), _pt(m.better), m.proof]
                    for m in self.marks
                ],
                "turning": self.turning,
                "complete": self.complete,
                "seconds": round(self.seconds, 2),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Review | None:
        """A stored review, or None if it is of another format or budget (make it again)."""
        data = json.loads(text)
        if data.get("format") != FORMAT or data.get("nodes") != NODES:
            return None
        steps = tuple(None if s is None else _step_from(s) for s in data["steps"])
        marks = tuple(
            Mark(ply, MarkKind(kind), Color(color), Point(*played), Point(*better), proof)
            for ply, kind, color, played, better, proof in data["marks"]
        )
        return cls(data["game"], steps, marks, data["turning"], data["complete"], data["seconds"])


def _pt(point: Point) -> list[int]:
    return [point.x, point.y]


def _step_json(step: Step) -> list[object]:
    return [
        step.side.value,
        step.verdict,
        step.proof,
        step.score,
        _pt(step.best),
        [_pt(p) for p in step.line],
        step.value,
    ]


def _step_from(data: list[object]) -> Step:
    side, verdict, proof, score, best, line, value = data
    assert isinstance(best, list)
    assert isinstance(line, list)
    return Step(
        Color(str(side)),
        str(verdict),
        None if proof is None else str(proof),
        int(str(score)),
        Point(*best),
        tuple(Point(*p) for p in line),
        float(str(value)),
    )


# ---------------------------------------------------------------- marks (pure)


def find_marks(
    moves: tuple[Point, ...],
    steps: tuple[Step | None, ...],
    winner: Color | None,
    refuted: Callable[[int], bool | None] = lambda ply: None,
) -> tuple[tuple[Mark, ...], int | None]:
    """The marks and the turning point of a game whose positions are ``steps`` (``winner``:
    who won the game, None for a draw or an end without a result).

    ``refuted(i)`` says whether the engine's best move in position ``i`` also leaves the
    opponent a proven win (True: the mover was lost already, so no blunder; None: unknown,
    counted as not lost).
    """
    marks: list[Mark] = []
    for i, played in enumerate(moves):
        if i + 1 >= len(steps):
            break  # not analysed (out of time)
        before, after = steps[i], steps[i + 1]
        if before is None or after is None:
            continue  # the move ended the game
        mover = before.side
        if before.won and played != before.best:
            if after.lost:
                still = True
            elif i + 2 < len(steps):
                later = steps[i + 2]  # None: the reply ended the game
                still = later is not None and later.won
            else:
                still = not after.won  # the game ended after this move: only a loss shows
            if not still:
                marks.append(
                    Mark(i + 1, MarkKind.MISSED_WIN, mover, played, before.best, before.proof)
                )
                continue
        if not before.won and not before.lost and after.won and refuted(i) is not True:
            marks.append(Mark(i + 1, MarkKind.BLUNDER, mover, played, before.best, after.proof))
    return tuple(marks), _turning(moves, steps, marks, winner)


def _turning(
    moves: tuple[Point, ...],
    steps: tuple[Step | None, ...],
    marks: list[Mark],
    winner: Color | None,
) -> int | None:
    if marks:
        if winner is None:
            return marks[0].ply
        losers = [m for m in marks if m.color is not winner]
        return (losers or marks)[-1].ply
    worst, drop = None, 0.0
    for i in range(min(len(moves), len(steps) - 1)):
        before, after = steps[i], steps[i + 1]
        if before is None or after is None:
            continue
        sign = 1.0 if before.side is Color.BLACK else -1.0
        loss = (before.value - after.value) * sign
        if loss > drop:
            worst, drop = i + 1, loss
    return worst


# ---------------------------------------------------------------- running a review


Progress = Callable[[int, int], Awaitable[None]]  # (positions done, positions in all)


class Reviewer:
    """Runs reviews one at a time (a second waits for the first), storing each."""

    def __init__(
        self,
        repository: GameRepository,
        analyser: Analyser,
        *,
        progress_every_s: float = PROGRESS_EVERY_S,
    ) -> None:
        self.repository = repository
        self.analyser = analyser
        self.progress_every_s = progress_every_s
        self._lock = asyncio.Lock()

    @property
    def busy(self) -> bool:
        """A review is running (the next one waits)."""
        return self._lock.locked()

    async def stored(self, view: GameState) -> Review | None:
        """The game's stored review of the current format, if any."""
        return await stored_review(self.repository, view.game_id)

    async def review(self, view: GameState, progress: Progress | None = None) -> Review:
        """The game's review: the stored one, or a new one (stored when complete).

        Raises:
            NotReviewableError: not a finished Gomoku game with moves.
        """
        check_reviewable(view)
        stored = await self.stored(view)
        if stored is not None:
            return stored
        async with self._lock:
            stored = await self.stored(view)  # made while this one waited
            if stored is not None:
                return stored
            review = await self._run(view, progress)
        if review.complete:
            await self.repository.save_review(view.game_id, review.to_json())
        return review

    async def _run(self, view: GameState, progress: Progress | None) -> Review:
        from bot.core.ai import AnalysisRequest

        board = view.board
        moves = tuple(m.point for m in board.moves)
        started = time.monotonic()
        last_progress = started
        positions = len(moves) + 1
        analyses: list[Analysis | None] = []
        replay = Board(board.width, board.rule)
        complete = True

        def request(points: tuple[Point, ...]) -> AnalysisRequest:
            return AnalysisRequest(
                board.width, board.rule, tuple((p.x, p.y) for p in points), NODES, TIME_CAP_MS
            )

        for i in range(positions):
            if i:
                replay.play(moves[i - 1])
            if replay.outcome is not None or replay.is_full():
                analyses.append(None)
                continue
            if time.monotonic() - started > BUDGET_S:
                complete = False
                break
            analyses.append(await self.analyser.analyse(request(moves[:i])))
            now = time.monotonic()
            if progress is not None and now - last_progress >= self.progress_every_s:
                last_progress = now
                await progress(i + 1, positions)
        steps = tuple(None if a is None else Step.of(a) for a in analyses)
        # a blunder counts only if the engine's own move there keeps the opponent from a win
        refutations: dict[int, bool] = {}
        for i, played in enumerate(moves):
            if i + 1 >= len(steps):
                break
            before, after = steps[i], steps[i + 1]
            if before is None or after is None or before.won or before.lost or not after.won:
                continue
            if played == before.best or time.monotonic() - started > BUDGET_S:
                refutations[i] = played == before.best
                continue
            answer = await self.analyser.analyse(request((*moves[:i], before.best)))
            refutations[i] = answer.won
        outcome = view.record.outcome
        winner = None if outcome is None else outcome.winner
        marks, turning = find_marks(moves, steps, winner, refutations.get)
        return Review(view.game_id, steps, marks, turning, complete, time.monotonic() - started)


async def stored_review(repository: GameRepository, game_id: int) -> Review | None:
    """The game's stored review of the current format, if any."""
    text = await repository.review(game_id)
    return None if text is None else Review.from_json(text)


def check_reviewable(view: GameState) -> None:
    """Raise ``NotReviewableError`` unless ``view`` is a finished Gomoku game with moves."""
    from storage.records import GameStatus

    if not table_spec(view.game).reviewable or view.status is not GameStatus.FINISHED:
        raise NotReviewableError(view.game_id)
    if not view.board.moves:
        raise NotReviewableError(view.game_id)
