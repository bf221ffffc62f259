"""Find "one saving move" positions for the tactical suite in match records.

    python tools/harvest_defences.py RECORDS... [--name master] [--arm A] [--rule R] [--nodes N]

RECORDS are PSQ files written by ``python -m engine match ... --psq DIR`` (folders are read
whole; the engine studied is the player called ``--name``) and ``games.jsonl`` files written by
``python tools/ab.py run``, plain or packed by ``tools/ab.py pack`` (a folder named is read
as its ``games.jsonl``; the games the arm
``--arm`` lost by a five, every arm's without it; ``--rule`` says the rule the run was played
in). In each game the engine lost, the tool walks back from the end to the engine's last move
that did not yet lose, and looks at the position after it: the engine's next move there lost;
the search may prove the loss only late, so the engine's turns before it are examined too (up
to ``LOOK_BACK``). A position is kept when the opponent, given a free move, would force a win,
and exactly one of the legal moves near the stones leaves the opponent without a forced win. A
move loses when the proof-number search over threats proves the opponent's win
(``wins_by_threats``, sound), or else when a search of ``--nodes`` nodes claims it; the main
search's pruning can make such a claim false, so the moves that lose by its claim alone are
named in a comment after the puzzle, for an outside judge to confirm (the suite's
``NOT_BY_THREATS``). The survivor is checked again with four times as many nodes, and with the
proof-number search's budget that decided the suite's ``LOST_ANSWERS``
(``tactics.PROOF_NODES``): where every move is lost, the last one standing is no answer. A
position where the side to move must block a four is no puzzle and is passed over. Prints one
``Puzzle`` line per position found, ready for ``engine/gomocup/tactics.py``;
``tests/engine/test_tactics.py`` re-checks every one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup import tactics
from engine.records import from_psq
from engine.search._position import Position
from engine.search.alphabeta import Limits, is_win_score, search, wins_by_threats
from engine.types import Color, Point, Rule
from tools.ab import GAMES_FILE, PACKED, Game, load

LOOK_BACK = 4  # the engine's turns before its losing move that are examined
PROOF_NODES = 1_000_000  # the proof-number search's nodes for each position
ANSWER_NODES = tactics.PROOF_NODES  # and for the answer, as the suite's list was proved


@dataclass(frozen=True, slots=True)
class Lost:
    """A game the engine studied lost: where it came from, its moves, and the engine's colour."""

    label: str
    moves: list[Point]
    color: Color


def _names(text: str) -> list[str]:
    # to_psq writes the players' names after the moves, Black's first
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return [line for line in lines[1:] if "," not in line][:2]


def from_psq_text(label: str, text: str, name: str, rule: Rule) -> Lost | None:
    """The game of one PSQ record, when the player called ``name`` lost it by a five."""
    names = _names(text)
    final = from_psq(text, rule=rule)
    if name not in names or final.outcome is None or final.outcome.winner is None:
        return None
    color = Color.BLACK if names.index(name) == 0 else Color.WHITE
    if final.outcome.winner is color:
        return None
    return Lost(label, [move.point for move in final.moves], color)


def from_ab_games(label: str, games: Iterable[Game], arm: str | None) -> Iterator[Lost]:
    """The games of a ``tools/ab.py`` record (``tools.ab.load``) that ``arm`` lost by a five
    (every arm's with None), each labelled with its number in the record."""
    for number, game in enumerate(games, 1):
        if arm is not None and game.arm != arm:
            continue
        if game.score != 0.0 or game.ending != "five" or not game.moves:
            continue
        color = Color.BLACK if game.colour == "black" else Color.WHITE
        moves = [Point.parse(word) for word in game.moves.split()]
        yield Lost(f"{label}:{number}", moves, color)


def _lost_games(paths: list[Path], name: str, arm: str | None, rule: Rule) -> Iterator[Lost]:
    for path in paths:
        if path.is_dir():
            files = sorted(path.glob("*.psq"))
            # a run folder's games (its runs.jsonl is no game), plain or packed: tools.ab.load
            # reads both under the plain name
            if any((path / name).is_file() for name in (GAMES_FILE, GAMES_FILE + PACKED)):
                files.append(path / GAMES_FILE)
        else:
            files = [path]
        for file in files:
            if file.name.endswith((".jsonl", ".jsonl.gz")):
                yield from from_ab_games(str(file), load(file), arm)
            else:
                game = from_psq_text(str(file), file.read_text(), name, rule)
                if game is not None:
                    yield game


def _proved(board: Board) -> bool:
    """Whether the side to move has a proved win: a five on the board, or one by threats."""
    if board.outcome is not None:
        return board.outcome.winner is not None
    return wins_by_threats(board, PROOF_NODES) is True


def _opponent_wins(board: Board, nodes: int) -> bool:
    """Whether the side to move forces a win: proved by threats, or the search's claim."""
    return _proved(board) or is_win_score(search(board, Limits(nodes=nodes)).score)


def _free_move(board: Board) -> Board:
    """The position with the other side to move."""
    return Board.from_stones(
        black=board.stones(Color.BLACK),
        white=board.stones(Color.WHITE),
        size=board.size,
        rule=board.rule,
        to_move=board.to_move.opponent,
    )


def _faces_four(board: Board) -> bool:
    """Whether the opponent of the side to move has a four: a point where its stone makes five."""
    return Position.from_board(board).has_five_point(board.to_move.opponent)


def _survivors(board: Board, nodes: int, enough: int = 2) -> tuple[list[Point], list[Point]]:
    """The moves near the stones that leave the opponent no forced win (up to ``enough``),
    and those that lose by the search's claim alone; none at all where a move wins at once."""
    stones = [move.point for move in board.moves]
    near = [
        point
        for point in board.legal_moves()
        if any(max(abs(point.x - s.x), abs(point.y - s.y)) <= 2 for s in stones)
    ]
    alive: list[Point] = []
    claimed: list[Point] = []
    for point in near:
        after = board.copy()
        after.play(point)
        if after.outcome is not None and after.outcome.winner is not None:
            return [], []  # the side to move wins at once: no defence puzzle
        if _proved(after):
            continue
        if is_win_score(search(after, Limits(nodes=nodes)).score):
            claimed.append(point)
            continue
        alive.append(point)
        if len(alive) >= enough:
            break
    return alive, claimed


def harvest(game: Lost, rule: Rule, nodes: int) -> str | None:
    """The puzzle line of one lost game, or None."""
    moves, color = game.moves, game.color
    final = Board.from_moves(moves, rule=rule)
    if final.outcome is None or final.outcome.winner is None or final.outcome.winner is color:
        return None  # a record that does not end in the engine's loss on the board
    # the engine's moves, last first: find the first (from the end) that did not lose
    plies = [i for i, move in enumerate(final.moves) if move.color is color]
    losing: int | None = None
    for ply in reversed(plies):
        after = Board.from_moves(moves[: ply + 1], rule=rule)
        if not _opponent_wins(after, nodes):
            break
        losing = ply
    if losing is None:
        return None
    # the search may see the loss only late: look at the engine's last few turns before it
    for ply in [p for p in reversed(plies) if p <= losing][:LOOK_BACK]:
        if ply < 8:
            break
        board = Board.from_moves(moves[:ply], rule=rule)
        if _faces_four(board):
            continue  # the block of a four: forced, no puzzle
        if _opponent_wins(board, nodes) or not _opponent_wins(_free_move(board), nodes):
            continue  # won for us, or nothing to defend against
        alive, claimed = _survivors(board, nodes)
        if len(alive) != 1:
            continue
        after = board.copy()
        after.play(alive[0])
        if _holds(after, nodes):
            return _line(rule, moves[:ply], alive[0], claimed)
    return None


def _holds(after: Board, nodes: int) -> bool:
    """Whether the survivor ``after`` was played on stands as the puzzle's answer: neither the
    search with four times ``nodes`` claims the opponent's win after it, nor the proof-number
    search proves it within ``ANSWER_NODES``."""
    if _opponent_wins(after, 4 * nodes):
        return False
    return wins_by_threats(after, ANSWER_NODES) is not True


def _line(rule: Rule, moves: list[Point], answer: Point, claimed: Sequence[Point] = ()) -> str:
    played = " ".join(str(point) for point in moves)
    letter = {Rule.FREESTYLE: "F", Rule.STANDARD: "S", Rule.RENJU: "R"}.get(
        rule, f"Rule.{rule.name}"
    )
    line = f'Puzzle({letter}, "{played}", answer="{answer}", wins=False),'
    if claimed:
        line += f"  # lost by the search's claim alone: {', '.join(map(str, claimed))}"
    return line


def main() -> int:
    """Print the puzzles found."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("records", nargs="+", type=Path)
    parser.add_argument("--name", default="master", help="the engine whose losses to study (PSQ)")
    parser.add_argument("--arm", help="the arm whose losses to study (games.jsonl; every arm's)")
    parser.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    parser.add_argument("--nodes", type=int, default=100_000)
    options = parser.parse_args()
    rule = Rule(options.rule)
    for game in _lost_games(options.records, options.name, options.arm, rule):
        line = harvest(game, rule, options.nodes)
        print(f"# {game.label}: {'found' if line else '-'}", file=sys.stderr, flush=True)
        if line:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
