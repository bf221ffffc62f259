"""Analysis: what a position is worth, and whether that is proven.

``analyse(board, nodes=...)`` answers with an ``Analysis``: a forced win for the side to move
(found by the threat-space solver: continuous fours, VCF, or fours and threes, VCT), a forced
loss (the search saw every move lose), or a heuristic score, with the best move and its line;
``multipv`` adds the next best moves. Built on the public ``search`` only, so it follows the
search as it gets stronger. At a fixed node limit (no ``time_ms``) the answer is a pure
function of the position; results are small frozen dataclasses, picklable for a worker pool.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, replace

from engine.board import Board
from engine.errors import GameOverError
from engine.search.alphabeta import WIN, Limits, SearchOptions, SearchResult, is_win_score, search
from engine.types import Color, Point

__all__ = ["DEFAULT_NODES", "Analysis", "Line", "Proof", "Verdict", "analyse", "win_chance"]

DEFAULT_NODES = 60_000  # a few tenths of a second: a 40-move game is reviewed in seconds
_VCF_SHARE = 4  # the VCF probe gets this share (1/n) of the node budget
_SCORE_SCALE = 600.0  # the evaluation's score at which a side is about three times as likely
# process budgets that give these searches small transposition tables (see ``tt_size``): a
# few tens of thousands of nodes never fill the full 16 MB one, and clearing it costs time
_PROBE_MEMORY = 162 * 2**20
_MAIN_MEMORY = 168 * 2**20
# the leaves' depth-3 VCF probe, not master's deeper local one: reviews and puzzles are
# calibrated with it, and with the deeper probe a defence puzzle's answer that only delays
# the loss (builtin defence 1, g6) is seen as lost within the puzzle's budget
_OPTIONS = SearchOptions(deep_vcf=0)


class Verdict(enum.StrEnum):
    """What the side to move can expect."""

    WIN = "win"  # a proven forced win
    LOSS = "loss"  # a proven forced loss
    OPEN = "open"  # nothing proven: the score is the evaluation's guess


class Proof(enum.StrEnum):
    """How a win or loss was proven."""

    VCF = "vcf"  # victory by continuous fours (a five on the board counts: zero fours)
    VCT = "vct"  # fours and threes, found by the root's threat-space solver
    SEARCH = "search"  # the alpha-beta search saw it within its horizon


@dataclass(frozen=True, slots=True)
class Line:
    """One candidate move with its score and expected continuation."""

    move: Point
    score: int  # the side to move's view
    line: tuple[Point, ...]  # starts with ``move``


@dataclass(frozen=True, slots=True)
class Analysis:
    """What ``analyse`` found for the side to move (``side``)."""

    side: Color
    verdict: Verdict
    proof: Proof | None  # None when the verdict is OPEN
    score: int  # the side to move's view; |score| > WIN - 1000 for proven results
    best: Point
    line: tuple[Point, ...]  # the expected line from ``best`` (the forced win, for VCF)
    nodes: int
    others: tuple[Line, ...] = ()  # the next best moves, best first (MultiPV)

    @property
    def won(self) -> bool:
        """The side to move forces a win."""
        return self.verdict is Verdict.WIN

    @property
    def lost(self) -> bool:
        """The side to move loses against best play."""
        return self.verdict is Verdict.LOSS

    def for_black(self) -> float:
        """The position from Black's view in [-1, 1]: +-1 proven, else ``win_chance``."""
        value = 1.0 if self.won else -1.0 if self.lost else win_chance(self.score)
        return value if self.side is Color.BLACK else -value


def win_chance(score: int) -> float:
    """A heuristic score mapped into (-1, 1), monotone, for graphs."""
    return math.tanh(score / _SCORE_SCALE)


def analyse(
    board: Board,
    *,
    nodes: int = DEFAULT_NODES,
    time_ms: int | None = None,
    multipv: int = 1,
) -> Analysis:
    """Evaluate the side to move's position within ``nodes`` (and ``time_ms``, which makes
    the result depend on the machine). Gomoku only.

    First a VCF probe with a share of the budget (a win by fours is the strongest proof and
    gives the whole line), then the full search (its root solver finds VCT wins; its horizon
    sees short losses). ``multipv`` > 1 scores the next few moves by searching the opponent's
    answer to each with an equal share of the budget.

    Raises:
        GameOverError: the game has ended.
    """
    if board.outcome is not None or board.is_full():
        raise GameOverError()
    side = board.to_move
    probe_nodes = max(nodes // _VCF_SHARE, 1)
    # depth 1 after the root's VCF: no VCT, no defence filtering, a one-ply look
    vcf = search(
        board,
        Limits(depth=1, nodes=probe_nodes, time_ms=time_ms, memory_bytes=_PROBE_MEMORY),
        SearchOptions(root_vct=False, root_defence=False, deep_vcf=0),
    )
    spent = vcf.nodes
    if is_win_score(vcf.score) and (vcf.depth == 0 or vcf.score == WIN - 1):
        main = _verdict(vcf, side, spent, Proof.VCF)
    else:
        rest = max(nodes - spent, 1)
        result = search(
            board, Limits(nodes=rest, time_ms=time_ms, memory_bytes=_MAIN_MEMORY), _OPTIONS
        )
        spent += result.nodes
        main = _verdict(result, side, spent, None)
    if multipv <= 1:
        return main
    return replace(main, others=_others(board, main, multipv - 1, nodes))


def _verdict(result: SearchResult, side: Color, nodes: int, proof: Proof | None) -> Analysis:
    if is_win_score(result.score):
        verdict = Verdict.WIN
        # the root's VCT answer is one move; the main search's VCF carries the full line
        proof = proof or (Proof.VCT if result.depth == 0 else Proof.SEARCH)
    elif is_win_score(-result.score):
        verdict, proof = Verdict.LOSS, Proof.SEARCH
    else:
        verdict, proof = Verdict.OPEN, None
    return Analysis(side, verdict, proof, result.score, result.move, result.pv, nodes)


def _others(board: Board, main: Analysis, count: int, nodes: int) -> tuple[Line, ...]:
    # each alternative is scored by the opponent's answer to it: an equal share of the budget
    share = max(nodes // (count + 1), 1)
    tried: list[Line] = []
    excluded = {main.best}
    candidates = [p for p in _near(board) if p not in excluded]
    # a first cheap pass orders the neighbours; the best few get the real search
    ranked = sorted(candidates, key=lambda p: (-_shallow(board, p), p.y, p.x))
    for point in ranked[: count * 2]:
        after = board.copy()
        after.play(point)
        if after.outcome is not None:
            score = WIN - 1 if after.outcome.winner is board.to_move else 0
            tried.append(Line(point, score, (point,)))
            continue
        reply = search(after, Limits(nodes=share, memory_bytes=_MAIN_MEMORY), _OPTIONS)
        tried.append(Line(point, _back(reply.score), (point, *reply.pv)))
    tried.sort(key=lambda line: (-line.score, line.move.y, line.move.x))
    return tuple(tried[:count])


def _back(score: int) -> int:
    # the opponent's score one ply later, seen from the mover (a win one ply further away)
    if is_win_score(score):
        return -(score - 1)
    if is_win_score(-score):
        return -score - 1
    return -score


def _shallow(board: Board, point: Point) -> int:
    after = board.copy()
    after.play(point)
    if after.outcome is not None:
        return WIN
    return _back(
        search(
            after,
            Limits(depth=1, memory_bytes=_PROBE_MEMORY),
            SearchOptions(root_vct=False, deep_vcf=0),
        ).score
    )


def _near(board: Board) -> list[Point]:
    # legal points within two of a stone: where every sensible Gomoku move is
    stones = [m.point for m in board.moves] + list(board.setup[0]) + list(board.setup[1])
    seen: set[Point] = set()
    for stone in stones:
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                p = Point(stone.x + dx, stone.y + dy)
                if p not in seen and board.on_board(p) and board.is_legal(p):
                    seen.add(p)
    return sorted(seen, key=lambda p: (p.y, p.x))
