"""The AI's part in an opening rule: ``opening_step(opening, level, seed) -> word``.

Every opening decision the AI takes goes through this one function, so a new evaluation only
has to be good at judging positions: placing a balanced opening as the first player (several
candidate openings near the centre, each judged by a short search, the closest to even kept,
and never one the threat search finds a forced win in), taking the colour the search
prefers, placing two more stones when the position is close, declaring and offering fifth
moves in renju, and picking the offer that is worst for Black. Lower levels judge with noise,
so they sometimes choose the worse colour, as people do.

Searches go through ``engine.search.levels.choose_move`` (a fixed node budget per level, so
a decision is reproducible for a seed); the level's time budget is an outer cap: candidates are
judged until half of it is spent, and no single search runs past it.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from engine.board import Board
from engine.opening_rules import Choice, Opening, OpeningRule, Phase
from engine.types import Color, Level, Point

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["is_forced_win", "main", "opening_step"]

_JUDGE = Level.MEDIUM  # candidates are judged with this level's search (about 20 ms each)
_CHECK = Level.HARD  # the forced-win check: root VCF (12 plies) and VCT (5) at a fixed budget
# how much a level's judgement wanders, in evaluation units (a strong open three is ~900)
_NOISE = {
    Level.BEGINNER: 300,
    Level.EASY: 150,
    Level.MEDIUM: 60,
    Level.HARD: 20,
    Level.EXPERT: 0,
    Level.MASTER: 0,
}
_CLOSE = 150  # swap2: a position this close to even is worth placing two more stones
_STRONG = 250  # Taraguchi: Black this far ahead offers ten fifth moves instead of one
_OFFER_COST = 60  # Soosõrv: what each extra fifth move offered is worth to White
_SHARE = 0.5  # stop judging candidates after this share of the time budget (one more may run)


def is_forced_win(board: Board) -> bool:
    """Whether the threat search finds a forced win for either side here (at a fixed budget).

    The side to move is searched directly; the other side by its score (a forced loss for
    the side to move shows as a lost score).
    """
    from engine.search.alphabeta import is_win_score
    from engine.search.levels import choose_move

    if board.outcome is not None:
        return True
    return is_win_score(abs(choose_move(board, _CHECK, 0).score))


def opening_step(opening: Opening, level: Level, seed: int, *, time_ms: int | None = None) -> str:
    """The AI's next step in ``opening``, as a word ``Opening.step`` takes (a point, a
    ``Choice`` value or a number). Deterministic for a seed unless the time cap cuts the
    candidates short.

    Raises:
        OpeningStepError: the opening is over.
    """
    from engine.errors import OpeningStepError
    from engine.search.levels import PRESETS

    level = Level(level)
    budget = PRESETS[level].time_ms if time_ms is None else min(time_ms, PRESETS[level].time_ms)
    ai = _Decider(opening, level, random.Random(f"{seed}:{opening}"), budget)
    match opening.phase:
        case Phase.PLACE:
            return str(ai.place())
        case Phase.CHOOSE:
            return ai.choose().value
        case Phase.DECLARE:
            return str(ai.declare())
        case Phase.OFFER:
            return str(ai.offer())
        case Phase.PICK:
            return str(ai.pick())
    raise OpeningStepError("nothing", "an AI step")


class _Decider:
    def __init__(self, opening: Opening, level: Level, rng: random.Random, budget_ms: int):
        self.opening = opening
        self.board = opening.board
        self.level = level
        self.rng = rng
        started = time.perf_counter()
        self.deadline = started + budget_ms / 1000 * _SHARE
        self.cap = started + budget_ms / 1000  # no single search runs past the budget
        self.seed = rng.randrange(1 << 30)

    # -- judging --------------------------------------------------------------------------

    def _late(self) -> bool:
        return time.perf_counter() > self.deadline

    def judge(self, board: Board) -> int:
        """The search's score from Black's view, with the level's noise."""
        from engine.search.levels import choose_move

        if board.outcome is not None:
            return 10**6 if board.outcome.winner is Color.BLACK else -(10**6)
        left_ms = int((self.cap - time.perf_counter()) * 1000)
        score = choose_move(board, _JUDGE, self.seed, time_ms=max(10, left_ms)).score
        black = score if board.to_move is Color.BLACK else -score
        noise = _NOISE[self.level]
        return black + (round(self.rng.gauss(0, noise)) if noise else 0)

    def near(self, area: int | None, limit: int = 2) -> list[Point]:
        """Legal points for the next stone, within ``limit`` of a stone (or the centre)."""
        legal = self.opening.legal_points()
        stones = [m.point for m in self.board.moves] or [_centre(self.board)]
        close = [p for p in legal if _distance(p, stones) <= limit]
        return close or legal

    # -- phases ---------------------------------------------------------------------------

    def place(self) -> Point:
        """A stone that leaves the most even position (the opponent chooses colours next).

        The first player's whole run of stones (three in swap, two more in swap2) is planned
        at once: candidate completions are judged and the first stone of the best is played.
        """
        opening = self.opening
        left = _stones_left(opening)
        plans = self._plans(left)
        best: tuple[int, tuple[Point, ...]] | None = None
        for plan in plans:
            board = self.board.copy()
            for point in plan:
                board.play(point)
            balance = abs(self.judge(board))
            if (best is None or balance < best[0]) and not is_forced_win(board):
                best = (balance, plan)
            if best is not None and self._late():
                break
        if best is None:
            return plans[0][0]
        return best[1][0]

    def _plans(self, left: int) -> list[tuple[Point, ...]]:
        # completions of this run of stones; the first stone obeys the opening's area, the
        # rest follow the same square rules the state machine enforces
        plans: list[tuple[Point, ...]] = []
        seen: set[frozenset[Point]] = set()
        for _ in range(60):
            opening, plan = self.opening, []
            for _ in range(left):
                points = _candidates(opening)
                if not points:
                    break
                point = self.rng.choice(points)
                plan.append(point)
                opening = opening.place(point)
            key = frozenset(plan)
            if len(plan) == left and key not in seen:
                seen.add(key)
                plans.append(tuple(plan))
            if len(plans) >= 16:
                break
        return plans

    def choose(self) -> Choice:
        """Take the colour the search prefers; place two more / offer ten when that fits."""
        opening = self.opening
        choices = opening.choices()
        black = self.judge(self.board)
        if Choice.TWO in choices and abs(black) < _CLOSE:
            return Choice.TWO
        if Choice.OFFER in choices and black > _STRONG:
            return Choice.OFFER
        if opening.rule is OpeningRule.SOOSORV8 and opening.offer_count:
            black -= _OFFER_COST * (opening.offer_count - 1)
        return Choice.BLACK if black > 0 else Choice.WHITE

    def declare(self) -> int:
        """Soosõrv: the better Black stands, the more fifth moves White asks for."""
        black = self.judge(self.board)
        return max(1, min(8, 1 + black // _OFFER_COST // 2))

    def offer(self) -> Point:
        """The next-best fifth move for Black that is not a mirror of an earlier offer."""
        scored = self._scores(self.near(None), best_for=Color.BLACK)
        return scored[0]

    def pick(self) -> Point:
        """The offer worst for Black."""
        return self._scores(self.opening.offers, best_for=Color.WHITE)[0]

    def _scores(self, points: Iterable[Point], *, best_for: Color) -> list[Point]:
        ranked: list[tuple[int, Point]] = []
        points = list(points)
        centre = _centre(self.board)
        points.sort(key=lambda p: (_distance(p, [centre]), p))
        for point in points:
            board = self.board.copy()
            board.play(point)
            score = self.judge(board)
            ranked.append((-score if best_for is Color.BLACK else score, point))
            if self._late():
                break
        ranked.sort()
        return [point for _, point in ranked]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.search.opening_ai``: the AI plays both seats of each opening rule and the
    command prints every step with its time, and whether the threat search finds a forced
    win in the position the opening ends with."""
    import argparse

    from engine.types import Rule

    parser = argparse.ArgumentParser(
        prog="python -m engine.search.opening_ai", description=main.__doc__
    )
    parser.add_argument("--rule", choices=[r.value for r in OpeningRule], action="append")
    parser.add_argument("--level", choices=[lv.value for lv in Level], default="medium")
    parser.add_argument("--seeds", type=int, default=2, help="openings per rule")
    options = parser.parse_args(argv)
    level = Level(options.level)
    for rule in [OpeningRule(r) for r in options.rule or list(OpeningRule)]:
        for seed in range(options.seeds):
            board_rule = Rule.RENJU if rule.is_renju else Rule.FREESTYLE
            opening = Opening.start(rule, board_rule=board_rule)
            times = []
            while not opening.is_done:
                started = time.perf_counter()
                word = opening_step(opening, level, seed)
                times.append((time.perf_counter() - started) * 1000)
                opening = opening.step(word)
            forced = "forced win" if is_forced_win(opening.board) else "no forced win"
            print(
                f"{rule.value:<12} {level.value:<8} seed {seed}: {opening} | {forced} | "
                f"steps {len(times)}, max {max(times):.0f} ms, total {sum(times):.0f} ms"
            )
    return 0


def _centre(board: Board) -> Point:
    return Point(board.width // 2, board.height // 2)


def _distance(point: Point, stones: Iterable[Point]) -> int:
    return min(max(abs(point.x - s.x), abs(point.y - s.y)) for s in stones)


def _stones_left(opening: Opening) -> int:
    """How many stones the actor places in a row from here (before the other acts)."""
    moves = len(opening.board.moves)
    if opening.rule in (OpeningRule.SWAP, OpeningRule.SWAP2, OpeningRule.SOOSORV8):
        if moves < 3:
            return 3 - moves
        if opening.rule is OpeningRule.SWAP2 and moves < 5:
            return 5 - moves
    return 1


def _candidates(opening: Opening) -> list[Point]:
    # points for the next opening stone: inside the area, close to the stones so far
    legal = opening.legal_points()
    stones = [m.point for m in opening.board.moves] or [_centre(opening.board)]
    close = [p for p in legal if _distance(p, stones) <= 2]
    return close or legal


if __name__ == "__main__":
    raise SystemExit(main())
