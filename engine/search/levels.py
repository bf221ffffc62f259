"""Difficulty levels: presets of time, depth, nodes, candidate width and noise.

``choose_move(board, level, seed)`` is all the bot's AI worker calls. The low levels are meant
to be beaten by people: they search shallowly with noisy evaluation and, now and then, miss
the opponent's threat and play a plausible shape-building move of their own instead (a human
mistake, never a random move). Master is the full engine, and answers the balanced
three-stone openings from its book (``engine.search.book``; ``GOMOKU_BOOK=off`` turns it off).

Every level below master stops on a node budget, so it is deterministic for a seed; time is
only the outer cap (master <= 3 s, medium <= 1 s per move).

The presets are plain data the bot's own process reads (time budgets); the search and its
compiled kernels load only in the functions that search, so reading a preset never loads numba.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.board import Board
from engine.errors import GameOverError
from engine.types import Level

if TYPE_CHECKING:
    from engine.search.alphabeta import SearchResult

__all__ = ["PRESETS", "Level", "Preset", "choose_move", "warm_up"]


@dataclass(frozen=True, slots=True)
class Preset:
    """What a level is made of."""

    time_ms: int  # wall-clock cap per move
    depth: int | None  # iterative-deepening limit (plies)
    nodes: int | None  # node budget (None: time only)
    width: int  # candidates searched per node (0 = all)
    noise: int  # evaluation noise amplitude
    miss: float  # chance of overlooking the opponent's threat (not a four)
    leaf_vcf: int  # VCF depth probed at the leaves
    root_vct: bool  # search for a win by threes and fours first
    small_depth: int | None  # plies for tic-tac-toe and Connect Four (None: solve)
    defence: bool = False  # root moves limited to those that stop a proven forced win
    keep_tt: bool = False  # reuse the worker's transposition table from its last search
    selective: bool = False  # late-move pruning and futility cuts (master's and hard's)
    deep_vcf: int = 0  # local VCF depth in place of the leaves' probe (0: the leaf_vcf probe)
    network: bool = False  # the evaluation network (master's; the others were spaced without it)
    policy: bool = False  # the learned move order (master's; the others were spaced without it)
    pns: bool = False  # the root's proof-number threat searches as master plays them
    then_vct: bool = False  # the root defence held to the threes after the fours, as master
    lost_check: bool = False  # where proven lost, a move that leaves no win by threats, as master
    verify: bool = False  # the search's move checked against the opponent's threats, as master


# Spaced, with the learned evaluation, so that each level scores at least 75% against the one
# below on all 64 match openings (docs/engine.md, "The levels"). The learned values lift the
# shallow searches most and master's time buys only a few times expert's nodes, so the levels
# below master search few nodes and the low ones slip often. Every step needs a large gap: at
# 8k nodes hard scores only 73% against medium, so it searches 16k nodes selectively and
# without noise (84%), and expert 200k nodes to stay 3 games in 4 above it (83%); hard with
# master's local VCF would come too close to expert.
PRESETS: dict[Level, Preset] = {
    Level.BEGINNER: Preset(300, 2, 400, 6, 400, 0.55, 0, False, 1),
    Level.EASY: Preset(500, 3, 1_500, 10, 200, 0.25, 0, False, 2),
    Level.MEDIUM: Preset(900, 6, 2_000, 10, 150, 0.06, 1, False, 5),
    Level.HARD: Preset(1500, 10, 16_000, 12, 0, 0.0, 2, True, 9, selective=True),
    Level.EXPERT: Preset(2000, 16, 200_000, 14, 0, 0.0, 3, True, 14),
    Level.MASTER: Preset(
        2800,
        None,
        None,
        20,
        0,
        0.0,
        3,
        True,
        None,
        True,
        True,
        selective=True,
        deep_vcf=8,
        network=True,
        policy=True,
        pns=True,
        then_vct=True,
        lost_check=True,
        verify=True,
    ),
}


def warm_up() -> None:
    """Load the compiled kernels and build the pattern tables (for a worker's initializer)."""
    from engine.search.alphabeta import Limits, search, wins_by_threats
    from engine.types import Rule

    for rule in Rule:
        search(Board.from_moves("h8 i9", rule=rule), Limits(depth=1))
    search(Board.for_game("tictactoe"), Limits(depth=1))
    # the proof-number search, which master's search runs only once it proves itself lost:
    # compiled in the middle of a game, it cost whole games on time
    wins_by_threats(Board.from_moves("h8 i9"), nodes=100)
    # the kernels the search calls from Python only on some positions (a forced answer's
    # value, the line of a win by fours, the stones the check of master's move plays and takes
    # back, renju's verdicts on Black's points): numba loads each from its disk cache when it
    # is first called, in the middle of a game unless here
    _load_position_kernels()


def _load_position_kernels() -> None:
    import numpy as np

    from engine.search import _kernels as k
    from engine.search._position import MIN_TT_SIZE, Position
    from engine.types import Point, Rule

    board = Board.from_moves("h8 i9 i8 j9 j8 k9 k8", rule=Rule.RENJU)  # Black's four
    pos = Position.from_board(board, MIN_TT_SIZE)
    pos.play_index(pos.index(Point.parse("l8")))
    pos.undo()
    pos.evaluate()
    k.four_answers(pos.st, 0, np.zeros(k.MAX_MOVES, dtype=np.int64))
    pos.forbidden(Point.parse("g8"))
    pos.forbidden_index(pos.index(Point.parse("g8")))


def choose_move(
    board: Board, level: Level, seed: int, *, time_ms: int | None = None
) -> SearchResult:
    """The move ``level`` plays here; deterministic for a seed (below master, and unless the
    time cap cuts a search short). ``time_ms`` lowers the level's own time cap (a protocol
    manager's turn time); it never raises it.

    Raises:
        GameOverError: the game has ended.
    """
    from engine.search.alphabeta import Limits, SearchOptions, search

    if board.outcome is not None or board.is_full():
        raise GameOverError()
    preset = PRESETS[Level(level)]
    cap_ms = preset.time_ms if time_ms is None else max(1, min(preset.time_ms, time_ms))
    rng = random.Random(seed * 1_000_003 + len(board.moves))
    if board.gravity or board.win_length != 5:
        return _small_move(board, preset, rng, cap_ms)
    if level == Level.MASTER:
        from engine.search.alphabeta import SearchResult
        from engine.search.book import book_move

        known = book_move(board)
        if known is not None:
            return SearchResult(known.move, known.score, 0, 0, 0.0, (known.move,))
    if preset.miss > 0 and board.moves and rng.random() < preset.miss:
        mistake = _overlook(board, rng)
        if mistake is not None:
            return mistake
    limits = Limits(depth=preset.depth, nodes=preset.nodes, time_ms=cap_ms)
    options = SearchOptions(
        width=preset.width,
        noise=preset.noise,
        seed=rng.randrange(1 << 30),
        leaf_vcf=preset.leaf_vcf,
        root_vct=preset.root_vct,
        root_defence=preset.defence,
        keep_tt=preset.keep_tt,
        selective=preset.selective,
        deep_vcf=preset.deep_vcf,
        network=preset.network,
        policy=preset.policy,
        pns=-1 if preset.pns else 0,
        then_vct=-1 if preset.then_vct else 0,
        lost_check=-1 if preset.lost_check else 0,
        verify=-1 if preset.verify else 0,
    )
    return search(board, limits, options)


def _overlook(board: Board, rng: random.Random) -> SearchResult | None:
    # a human slip: not noticing the opponent's open three (or a closed four-three) and going
    # on with one's own plan: one of the best-looking moves by shape. Fours and fives are
    # always seen, so the slip is never absurd.
    from engine.search._position import Position
    from engine.search.alphabeta import SearchResult

    position = Position.from_board(board)
    if position.has_five_point(position.side) or position.has_five_point(position.side.opponent):
        return None  # a four on the board, ours or theirs: everybody sees that
    choices = position.plausible(3, defence=256)  # the opponent's shapes barely register
    if not choices:
        return None
    weights = [3.0, 2.0, 1.0][: len(choices)]
    point, _ = rng.choices(choices, weights=weights)[0]
    return SearchResult(point, 0, 0, 0, 0.0, (point,))


def _small_move(board: Board, preset: Preset, rng: random.Random, cap_ms: int) -> SearchResult:
    # tic-tac-toe, gravity three, Connect Four: the exact solver, shallow for the low levels,
    # with the same chance of a slip (a legal move next to the best one)
    from engine.search.alphabeta import Limits, SearchResult, search

    result = search(board, Limits(depth=preset.small_depth, time_ms=cap_ms))
    if preset.miss > 0 and rng.random() < preset.miss:
        legal = board.legal_moves()
        near = [p for p in legal if abs(p.x - result.move.x) <= 1] or legal
        point = rng.choice(sorted(near))
        return SearchResult(point, 0, 0, result.nodes, result.time_ms, (point,))
    return result
