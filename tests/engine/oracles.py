"""Slow, definition-by-definition checkers the engine is tested against.

They work on a dict of stones and look at windows of consecutive points, a different
formulation from the run counting in ``engine.rules``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

from engine import Board, Color, Point, Rule

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
Stones = dict[Point, Color]


def _on(point: Point, width: int, height: int) -> bool:
    return 0 <= point.x < width and 0 <= point.y < height


def _shift(point: Point, d: tuple[int, int], i: int) -> Point:
    return Point(point.x + d[0] * i, point.y + d[1] * i)


@functools.cache
def windows(
    point: Point, length: int, width: int, height: int
) -> tuple[tuple[tuple[int, int], tuple[Point, ...]], ...]:
    """Every window of ``length`` consecutive on-board points containing ``point``, as
    (direction, cells). Kept once computed: the renju checkers ask for the same windows
    hundreds of thousands of times."""
    found = []
    for d in DIRECTIONS:
        for start in range(-length + 1, 1):
            cells = tuple(_shift(point, d, start + i) for i in range(length))
            if all(_on(c, width, height) for c in cells):
                found.append((d, cells))
    return tuple(found)


def wins(stones: Stones, point: Point, width: int, height: int, k: int, rule: Rule) -> bool:
    """Whether the stone on ``point`` completes a winning row, from RULES.md section 1."""
    color = stones[point]
    for d, cells in windows(point, k, width, height):
        if any(stones.get(c) is not color for c in cells):
            continue
        before, after = _shift(cells[0], d, -1), _shift(cells[-1], d, 1)
        longer = stones.get(before) is color or stones.get(after) is color
        exact_only = rule is Rule.STANDARD or (rule is Rule.RENJU and color is Color.BLACK)
        if exact_only and longer:
            continue
        if rule is Rule.CARO and not longer:
            opponent = color.opponent
            if stones.get(before) is opponent and stones.get(after) is opponent:
                continue
        return True
    return False


def _exact_five(stones: Stones, point: Point, size: int) -> bool:
    for d, cells in windows(point, 5, size, size):
        if all(stones.get(c) is Color.BLACK for c in cells):
            ends = (_shift(cells[0], d, -1), _shift(cells[-1], d, 1))
            if all(stones.get(e) is not Color.BLACK for e in ends):
                return True
    return False


def forbidden(stones: Stones, point: Point, size: int) -> str | None:
    """RULES.md section 2.2, clause by clause, for a black stone on the empty ``point``."""
    stones = {**stones, point: Color.BLACK}
    if _exact_five(stones, point, size):
        return None
    for _, cells in windows(point, 6, size, size):
        if all(stones.get(c) is Color.BLACK for c in cells):
            return "overline"
    fours = 0
    for d in DIRECTIONS:
        found = set()
        for wd, cells in windows(point, 5, size, size):
            if wd != d:
                continue
            colors = [stones.get(c) for c in cells]
            if colors.count(Color.BLACK) != 4 or Color.WHITE in colors:
                continue
            ends = (_shift(cells[0], d, -1), _shift(cells[-1], d, 1))
            if any(stones.get(e) is Color.BLACK for e in ends):
                continue  # filling the gap would make six, not five
            found.add(frozenset(c for c in cells if stones.get(c) is Color.BLACK))
        fours += len(found)
    if fours >= 2:
        return "double-four"
    threes = 0
    for d in DIRECTIONS:
        if _has_three(stones, point, d, size):
            threes += 1
    return "double-three" if threes >= 2 else None


def _has_three(stones: Stones, point: Point, d: tuple[int, int], size: int) -> bool:
    for i in range(-4, 5):
        q = _shift(point, d, i)
        if i == 0 or not _on(q, size, size) or q in stones:
            continue
        with_q = {**stones, q: Color.BLACK}
        if _exact_five(with_q, q, size):
            continue
        for wd, cells in windows(point, 6, size, size):
            if wd != d or q not in cells:
                continue
            ends, middle = (cells[0], cells[-1]), cells[1:-1]
            if point not in middle or q not in middle:
                continue
            if any(with_q.get(c) is not Color.BLACK for c in middle):
                continue
            if any(e in with_q for e in ends):
                continue
            beyond = (_shift(cells[0], d, -1), _shift(cells[-1], d, 1))
            if any(with_q.get(b) is Color.BLACK for b in beyond):
                continue
            if forbidden(stones, q, size) is None:
                return True
    return False


def _fives_for(board: Board, color: Color, points: Iterable[Point]) -> list[Point]:
    """The empty points among ``points`` where ``color`` would win at once: each tried on a
    copy of the board with ``color`` to move (the rules' own legality and win)."""
    found = []
    for point in points:
        if not board.on_board(point) or board[point] is not None:
            continue
        trial = board.copy()
        if trial.to_move is not color:
            continue
        if not trial.is_legal(point):
            continue
        trial.play(point)
        if trial.outcome is not None and trial.outcome.winner is color:
            found.append(point)
    return found


def _window_points(board: Board, color: Color, need: int) -> set[Point]:
    """Empty points in some five-window holding ``need`` stones of ``color`` and none of the
    other side: where a move makes a four (``need`` 3) or a five (``need`` 4). Only windows
    through one of ``color``'s stones can hold any, so those are the ones looked at."""
    assert need >= 1
    own = set(board.stones(color))
    other = set(board.stones(color.opponent))
    points: set[Point] = set()
    seen: set[tuple[Point, ...]] = set()
    for stone in own:
        for _, cells in windows(stone, 5, board.width, board.height):
            if cells in seen:
                continue
            seen.add(cells)
            if sum(c in own for c in cells) == need and not any(c in other for c in cells):
                points.update(c for c in cells if c not in own)
    return points


def has_vcf(board: Board, fours: int) -> bool:
    """Whether the side to move wins with at most ``fours`` continuous fours (a five on the
    board counts as none), by trying every four and every block of it: exhaustive and slow."""
    attacker = board.to_move
    if _fives_for(board, attacker, _window_points(board, attacker, 4)):
        return True
    if fours <= 0:
        return False
    defender = attacker.opponent
    for move in sorted(_window_points(board, attacker, 3), key=lambda p: (p.y, p.x)):
        if not board.is_legal(move):
            continue
        after = board.copy()
        after.play(move)
        if after.outcome is not None:
            continue  # no five from three stones; a draw by a full board
        if _fives_for(after, defender, _window_points(after, defender, 4)):
            continue  # the defender completes its own five first
        blocks = _fives_for(_passed(after), attacker, _window_points(after, attacker, 4))
        if not blocks:
            continue  # not a four
        # every block the defender may play (none where the one block is forbidden in renju)
        # leaves a five or a shorter VCF: two fives are two blocks that each leave the other,
        # but in caro a stone on one end of a straight four can leave the other five blocked
        # at both ends (``O.XXXX.`` answered on the right)
        if all(
            reply.outcome is None and has_vcf(reply, fours - 1) for reply in _blocks(after, blocks)
        ):
            return True
    return False


def _blocks(board: Board, fives: list[Point]) -> Iterator[Board]:
    """``board`` after each legal stone of the side to move that might stop the other side's
    ``fives``: a stone on one of them, and in caro also one just past a five whose other end
    it holds (``OXXXX.`` answered at ``OXXXX.O``), which leaves it blocked at both ends. There
    every point within five of a five's point along its lines is tried: no farther stone
    touches that five."""
    for point in _answer_points(board, fives):
        if board.is_legal(point):
            reply = board.copy()
            reply.play(point)
            yield reply


def _answer_points(board: Board, fives: list[Point]) -> list[Point]:
    if board.rule is not Rule.CARO:
        return list(fives)
    near = {
        Point(p.x + dx * i, p.y + dy * i)
        for p in fives
        for dx, dy in DIRECTIONS
        for i in range(-5, 6)
    }
    return sorted(q for q in near if _on(q, board.width, board.height) and board[q] is None)


def stopping_answers(board: Board) -> set[Point]:
    """The points where the side to move's stone leaves the other side no five, by the rules
    on ``Board``: the answers to its fours that hold."""
    attacker = board.to_move.opponent
    fives = _fives_for(_passed(board), attacker, _window_points(board, attacker, 4))
    return {
        reply.moves[-1].point
        for reply in _blocks(board, fives)
        if reply.outcome is None
        and not _fives_for(reply, attacker, _window_points(reply, attacker, 4))
    }


def _passed(board: Board) -> Board:
    """``board`` with the other side to move (a pass), to ask where the mover threatens five."""
    return Board.from_stones(
        board.stones(Color.BLACK),
        board.stones(Color.WHITE),
        size=board.width,
        rule=board.rule,
        to_move=board.to_move.opponent,
    )
