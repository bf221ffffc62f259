"""Ask an outside engine where a player's games were lost.

    python tools/judge.py --judge CMD [--cwd DIR] [--turn-ms 500] GAMES...
    python tools/judge.py --judge CMD --moves "h8 i9 ..." [--rule freestyle]
    python tools/judge.py --judge CMD --tactics
    python tools/judge.py --judge CMD --nodes N --partings FOLDER... --base A --arm B

GAMES are the PSQ or SGF records ``python -m engine match ... --psq DIR`` (or ``--sgf``)
writes; a folder is read whole. The judge is any Gomocup protocol engine that reports its
evaluation in its MESSAGE lines (Rapfi: ``MESSAGE Depth 17-31 | Eval -363 | ...``, a forced
result as ``Eval +M11``); some need their own folder as the working directory (``--cwd``).

In each game the player whose name contains ``--player`` lost (every game with ``--all``),
the judge gets the position before each of the player's moves after the opening, as a fresh
``BOARD`` with ``--turn-ms`` to think, and its evaluation is read from the player's side.
The tool prints where the verdict flipped from "not lost" to "lost" for good: the move
number, the move played, the judge's move there, and the evaluation before and after it
(mate distances in plies). With ``--classify`` it also says what the opponent had after the
losing move, by this project's threat search: a win by fours (VCF) or by fours and threes
(VCT) of so many attacking moves, or neither (a quiet mistake), or that the player threw
away a win it had. With ``--recheck 70000,250000`` this project's search is given the position
before the losing move with those node budgets, and the judge says what its move is worth.

``--moves`` asks the judge about one position; ``--tactics`` asks it about the tactics suite's
defences (against a VCF, and the hard ones), before and after each answer (the attacker to
move): a forced win there means the answer stops the attack on the board but does not save
the game.

``--partings`` reads ``tools/ab.py`` run folders: on each slot where two arms' games first
differ at the arms' own move (``tools/ab.py report`` counts those slots), the judge scores the
position after each arm's move there, from the arms' side, as a winning chance (its evaluation
over ``--scale``, Rapfi 0.43.02 classical's 515.6 by default, through the logistic; a forced
result 0 or 1), and says which arm chose better by its lights. ``--nodes`` gives the judge a
node count a position (``INFO max_node``), the same answer on any host.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup.match import EngineProcess, EngineSpec, MatchConfig, parse_engine, parse_move
from engine.gomocup.openings import openings
from engine.gomocup.protocol import point_to_gomocup
from engine.notation import parse_point
from engine.records import from_psq, parse_sgf
from engine.types import Color, Point, Rule
from tools.ab import mean_with_error, parted_slots, read_runs

START_TIMEOUT_S = 120.0  # the judge's first START (loading its weights)
GRACE_S = 10.0  # beyond its turn time before the judge counts as gone
# one MESSAGE field "Eval X" (Rapfi), "eval X" (this project's brain) or "ev X": a signed
# number, or a forced result as M and the plies to it
_EVAL_RE = re.compile(r"\b(?:eval|ev)\s*[:=]?\s*([+-]?)(M?)(\d+)", re.IGNORECASE)
_PSQ_MOVE_RE = re.compile(r"\d+,\d+,-?\d+")


class JudgeError(RuntimeError):
    """The judge did not start, died, or gave no move."""


@dataclass(frozen=True, slots=True)
class Eval:
    """A judge's evaluation from one side's view."""

    score: int = 0  # the judge's own scale; 0 when ``mate`` says it all
    mate: int | None = None  # plies to a forced result: > 0 this side wins, < 0 it loses

    def negated(self) -> Eval:
        """The same evaluation from the other side's view."""
        return Eval(-self.score, None if self.mate is None else -self.mate)

    def clipped(self, clip: int) -> int:
        """A score within +-``clip``, a forced result at the bound."""
        if self.mate is not None:
            return clip if self.mate > 0 else -clip
        return max(-clip, min(clip, self.score))

    def lost(self, threshold: int) -> bool:
        """A forced loss, or a score at or below ``-threshold``."""
        if self.mate is not None:
            return self.mate < 0
        return self.score <= -threshold

    def won(self, threshold: int) -> bool:
        """A forced win, or a score at or above ``threshold``."""
        return self.negated().lost(threshold)

    def __str__(self) -> str:
        if self.mate is not None:
            return f"{'+' if self.mate > 0 else '-'}M{abs(self.mate)}"
        return f"{self.score:+d}"


def parse_eval(messages: Sequence[str]) -> Eval | None:
    """The last evaluation in a judge's MESSAGE lines (None when it gave none)."""
    found: Eval | None = None
    for line in messages:
        for match in _EVAL_RE.finditer(line):
            sign, mate, digits = match.groups()
            value = -int(digits) if sign == "-" else int(digits)
            # "M0" can only mean the side to move is already lost or won: keep its sign
            mate_in = value or (-1 if sign == "-" else 1)
            found = Eval(0, mate_in) if mate else Eval(value)
    return found


@dataclass(frozen=True, slots=True)
class Opinion:
    """What the judge said about one position (its side to move's view)."""

    move: Point | None  # the judge's move (None: no legal answer)
    eval: Eval | None  # None when the judge printed no evaluation


class Judge:
    """A protocol engine asked about one position at a time (``BOARD`` ... ``DONE``)."""

    def __init__(
        self, spec: EngineSpec, *, turn_ms: int, size: int, rule: Rule, nodes: int | None = None
    ) -> None:
        self.turn_ms = turn_ms  # with ``nodes``, only a cap
        self.size = size
        self.rule = rule
        self.nodes = nodes  # INFO max_node: the same answer on any host (engines that know it)
        self._engine = EngineProcess(spec)
        self._started = False

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> None:
        self._engine.start()
        self._engine.send(f"START {self.size}")
        answer = self._engine.answer(START_TIMEOUT_S)
        if answer.kind != "line" or answer.text.split(" ", 1)[0].upper() != "OK":
            raise JudgeError(f"the judge did not start: {answer.text or answer.kind}")
        config = MatchConfig(size=self.size, rule=self.rule, turn_ms=self.turn_ms, nodes=self.nodes)
        self._engine.send(*config.info_lines())
        self._started = True

    def ask(self, moves: Sequence[Point]) -> Opinion:
        """The judge's move and evaluation for the side to move after ``moves``.

        Raises:
            JudgeError: when the judge cannot start, dies, or answers nonsense.
        """
        if not self._started or not self._engine.alive:
            self._start()
        to_move = len(moves) % 2
        lines = ["BOARD"]
        for index, point in enumerate(moves):
            x, y = point_to_gomocup(point, self.size)
            lines.append(f"{x},{y},{1 if index % 2 == to_move else 2}")
        self._engine.send(*lines, "DONE")
        answer = self._engine.answer(self.turn_ms / 1000 + GRACE_S)
        if answer.kind != "line":
            self._started = False
            self._engine.close()
            raise JudgeError(f"the judge gave no move ({answer.kind})")
        move = parse_move(answer.text, self.size)
        value = parse_eval(answer.messages)
        if value is None and move is not None and self._wins(moves, move):
            value = Eval(0, 1)  # engines often play a five without a word
        return Opinion(move, value)

    def about(self) -> str:
        """The judge's answer to ``ABOUT`` (its name and version), or "" when it gives none.

        Raises:
            JudgeError: when the judge cannot start.
        """
        if not self._started or not self._engine.alive:
            self._start()
        self._engine.send("ABOUT")
        answer = self._engine.answer(GRACE_S)
        return answer.text if answer.kind == "line" else ""

    def _wins(self, moves: Sequence[Point], move: Point) -> bool:
        board = Board.from_moves(moves, size=self.size, rule=self.rule)
        if not board.is_legal(move):
            return False
        board.play(move)
        return board.outcome is not None and board.outcome.winner is not None

    def close(self) -> None:
        """Stop the judge's process."""
        self._engine.close()
        self._started = False


# -- where a game was lost -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Judged:
    """One of the player's moves with the judge's view from the player's side."""

    ply: int  # the move's index in the game (0 = Black's first)
    move: Point  # what the player played
    judge_move: Point | None  # what the judge would play there
    before: Eval | None  # the position before the move (the player to move)
    after: Eval | None = None  # after it (None: read from the player's next turn)


def after_of(judged: Sequence[Judged], index: int) -> Eval | None:
    """The evaluation after move ``index``: its own, else the one before the player's next."""
    own = judged[index].after
    if own is not None or index + 1 >= len(judged):
        return own
    return judged[index + 1].before


def losing_move(judged: Sequence[Judged], threshold: int) -> int | None:
    """The index of the move after which the judge's verdict turned to lost and stayed so
    (None when the game was never lost in the judge's eyes, or lost before the first move).

    A missing evaluation counts as "no change": it neither flips nor breaks a run.
    """
    found: int | None = None
    known: bool | None = None  # whether the last evaluation seen said "lost"
    for i, item in enumerate(judged):
        if item.before is not None:
            known = item.before.lost(threshold)
        after = after_of(judged, i)
        if after is None:
            continue
        if not after.lost(threshold):
            found = None
        elif known is False:
            found = i
        known = after.lost(threshold)
    return found


def wasted_wins(judged: Sequence[Judged], threshold: int) -> list[int]:
    """The indexes of moves played from a won position that left it not won."""
    found = []
    for i, item in enumerate(judged):
        after = after_of(judged, i)
        if (
            item.before is not None
            and item.before.won(threshold)
            and after is not None
            and not after.won(threshold)
        ):
            found.append(i)
    return found


def _scale(value: Eval) -> int:
    # mates beyond any score, nearer ones further out
    if value.mate is None:
        return value.score
    return (100_000 - abs(value.mate)) * (1 if value.mate > 0 else -1)


def biggest_drop(judged: Sequence[Judged]) -> int | None:
    """The index of the move whose evaluation fell the most (a mate counts beyond any score);
    None when no move has both evaluations."""
    best: int | None = None
    best_drop = 0
    for i, item in enumerate(judged):
        after = after_of(judged, i)
        if item.before is None or after is None:
            continue
        drop = _scale(item.before) - _scale(after)
        if best is None or drop > best_drop:
            best, best_drop = i, drop
    return best


@dataclass(frozen=True, slots=True)
class Game:
    """A recorded game: the moves from Black's first, and who played them."""

    name: str  # where it came from
    moves: tuple[Point, ...]
    black: str
    white: str
    size: int
    rule: Rule

    def board(self, plies: int | None = None) -> Board:
        """The position after the first ``plies`` moves (all by default)."""
        return Board.from_moves(self.moves[:plies], size=self.size, rule=self.rule)


def read_games(paths: Sequence[Path], rule: Rule) -> Iterator[Game]:
    """The games of PSQ/SGF files and folders of them."""
    for path in paths:
        files = sorted([*path.glob("*.psq"), *path.glob("*.sgf")]) if path.is_dir() else [path]
        for file in files:
            text = file.read_text(encoding="utf-8", errors="replace")
            if file.suffix.lower() == ".sgf":
                record = parse_sgf(text)
                board = record.board
                black, white = record.black or "", record.white or ""
            else:
                board = from_psq(text, rule=rule)
                names = [
                    line.strip()
                    for line in text.splitlines()[1:]
                    if line.strip() and not _PSQ_MOVE_RE.fullmatch(line.strip())
                ]
                black, white = [*names, "", ""][:2]
            moves = tuple(move.point for move in board.moves)
            yield Game(str(file), moves, black, white, board.width, board.rule)


def opening_length(moves: Sequence[Point], size: int) -> int:
    """How many of the first moves are one of the match openings (0 if none)."""
    best = 0
    for opening in openings(size):
        if len(opening) > best and tuple(moves[: len(opening)]) == tuple(opening):
            best = len(opening)
    return best


def judge_game(judge: Judge, game: Game, player: Color, *, threshold: int) -> list[Judged]:
    """Ask the judge about every one of ``player``'s moves after the opening, then about the
    positions after the losing move and after the player's last move."""
    parity = 0 if player is Color.BLACK else 1
    judged: list[Judged] = []
    for ply in range(opening_length(game.moves, game.size), len(game.moves)):
        if ply % 2 != parity:
            continue
        opinion = judge.ask(game.moves[:ply])
        judged.append(Judged(ply, game.moves[ply], opinion.move, opinion.eval))
    if not judged:
        return judged
    judged[-1] = _with_after(judge, game, judged[-1])
    index = losing_move(judged, threshold)
    if index is not None and judged[index].after is None:
        judged[index] = _with_after(judge, game, judged[index])
    return judged


def _with_after(judge: Judge, game: Game, item: Judged) -> Judged:
    if game.board(item.ply + 1).outcome is not None:
        return item  # a five or a full board: nothing to ask
    opinion = judge.ask(game.moves[: item.ply + 1])
    return replace(item, after=None if opinion.eval is None else opinion.eval.negated())


# -- what the opponent had -----------------------------------------------------------------


def threat_depth(board: Board, attacker: Color, *, vct: bool, max_depth: int, budget: int) -> int:
    """The fewest attacking moves (fours; with ``vct`` fours and threes) by which
    ``attacker`` forces a five by this project's threat search, given the move if it is not
    theirs; 0 when none is found within ``max_depth`` and ``budget`` nodes a depth."""
    from engine.search import _kernels as k
    from engine.search._position import Position

    position = Position.from_board(board, 1 << 12)
    g = position.g
    side = 1 if attacker is Color.BLACK else 2
    if int(g[k.G_SIDE]) != side:
        g[k.G_SIDE] = side
        position.hsh[0] ^= position.st[6][2, 0]
    for depth in range(1, max_depth + 1):
        g[k.G_STOP] = 0
        g[k.G_NODES] = 0
        g[k.G_NEXT_CHECK] = 0
        g[k.G_NODE_LIMIT] = budget
        g[k.G_TIMED] = 0
        if k.threat_search(position.st, position.sr, side, depth, vct, 0):
            return depth
        if g[k.G_STOP]:
            return 0
    return 0


def classify(game: Game, judged: Sequence[Judged], index: int, threshold: int) -> str:
    """Why move ``index`` lost: a win thrown away, the opponent's VCF or VCT missed, or a
    quiet mistake (the judge's mate lies beyond what the threat search finds)."""
    item = judged[index]
    if item.before is not None and item.before.won(threshold):
        before = game.board(item.ply)
        own = threat_depth(before, before.to_move, vct=True, max_depth=9, budget=3_000_000)
        return f"own win wasted (own VCT {'depth ' + str(own) if own else 'not found'})"
    after = game.board(item.ply + 1)
    if after.outcome is not None:
        return "game over"
    opponent = after.to_move
    fours = threat_depth(after, opponent, vct=False, max_depth=20, budget=2_000_000)
    if fours:
        return f"missed opponent VCF ({fours} fours)"
    threes = threat_depth(after, opponent, vct=True, max_depth=9, budget=3_000_000)
    if threes:
        return f"missed opponent VCT (depth {threes})"
    return "quiet (no VCT within depth 9)"


def recheck(judge: Judge, game: Game, item: Judged, nodes: int) -> tuple[Point, Eval | None]:
    """This project's full-strength search of the position before ``item`` with ``nodes``
    nodes: its move, and the judge's evaluation after it from the player's side (a move the
    player would find with more time is a loss to time, not to knowledge)."""
    from engine.search.alphabeta import Limits, search

    move = search(game.board(item.ply), Limits(nodes=nodes)).move
    opinion = judge.ask((*game.moves[: item.ply], move))
    return move, None if opinion.eval is None else opinion.eval.negated()


# -- the command line ----------------------------------------------------------------------


def _player_colour(game: Game, player: str) -> Color | None:
    if player.lower() in game.black.lower():
        return Color.BLACK
    if player.lower() in game.white.lower():
        return Color.WHITE
    return None


def _show(point: Point | None) -> str:
    return "-" if point is None else str(point)


def _show_chance(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _show_eval(value: Eval | None) -> str:
    return "?" if value is None else str(value)


def report_game(
    judge: Judge,
    game: Game,
    player: Color,
    *,
    threshold: int,
    trace: bool,
    classify_it: bool,
    recheck_nodes: Sequence[int] = (),
) -> list[str]:
    """The lines printed for one game."""
    judged = judge_game(judge, game, player, threshold=threshold)
    outcome = game.board().outcome
    result = "unfinished"
    if outcome is not None:
        result = (
            "draw" if outcome.winner is None else ("won" if outcome.winner is player else "lost")
        )
    lines = [f"{game.name}: {player.value} {result} in {len(game.moves)} moves"]
    if trace:
        for i, item in enumerate(judged):
            lines.append(
                f"  {item.ply + 1:3d} {_show(item.move):4s} judge {_show(item.judge_move):4s}"
                f" before {_show_eval(item.before):>7s} after {_show_eval(after_of(judged, i)):>7s}"
            )
    index = losing_move(judged, threshold)
    if index is None:
        first = judged[0].before if judged else None
        if first is not None and first.lost(threshold):
            lines.append(f"  lost before move {judged[0].ply + 1} (judge {first})")
        else:
            lines.append("  no losing move")
    else:
        item = judged[index]
        line = (
            f"  LOST move {item.ply + 1} {item.move} (judge {_show(item.judge_move)})"
            f" before {_show_eval(item.before)} after {_show_eval(after_of(judged, index))}"
        )
        if classify_it:
            line += f"  [{classify(game, judged, index, threshold)}]"
        lines.append(line)
        for nodes in recheck_nodes:
            move, value = recheck(judge, game, item, nodes)
            lines.append(f"    searched with {nodes // 1000}k nodes: {move} ({_show_eval(value)})")
    for i in wasted_wins(judged, threshold):
        if i != index:
            item = judged[i]
            line = (
                f"  wasted win move {item.ply + 1} {item.move} (judge {_show(item.judge_move)})"
                f" before {_show_eval(item.before)} after {_show_eval(after_of(judged, i))}"
            )
            if classify_it:
                line += f"  [{classify(game, judged, i, threshold)}]"
            lines.append(line)
    drop = biggest_drop(judged)
    if drop is not None and drop != index:
        item = judged[drop]
        lines.append(
            f"  worst move {item.ply + 1} {item.move} (judge {_show(item.judge_move)})"
            f" before {_show_eval(item.before)} after {_show_eval(after_of(judged, drop))}"
        )
    return lines


def _tactics(judge_spec: EngineSpec, turn_ms: int) -> Iterator[str]:
    from engine.gomocup.tactics import DEFENCES, HARD_DEFENCES

    found: dict[str, int] = {}
    saved: dict[str, int] = {}
    for group, puzzles in (("defence", DEFENCES), ("hard", HARD_DEFENCES)):
        found[group] = saved[group] = 0
        for i, puzzle in enumerate(puzzles):
            board = puzzle.board()
            assert puzzle.answer is not None  # every defence has its one answer
            moves = [move.point for move in board.moves]
            answer = parse_point(puzzle.answer)
            with Judge(judge_spec, turn_ms=turn_ms, size=board.width, rule=board.rule) as judge:
                before = judge.ask(moves)
                after = judge.ask([*moves, answer])
            saves = after.eval is not None and after.eval.mate is None
            saved[group] += saves
            # the judge's own move in the puzzle, so that the suite's rate has a yardstick
            finds = before.move == answer
            found[group] += finds
            yield (
                f"{group} {i:2d} {puzzle.rule.value:9s} answer {puzzle.answer:4s}"
                f" before {_show_eval(before.eval):>7s} (judge {_show(before.move)}"
                f"{', the answer' if finds else ''})"
                f"  after, attacker to move {_show_eval(after.eval):>7s}"
                f"  {'saves' if saves else 'lost'}"
            )
    yield (
        f"the judge plays the answer in {found['defence']} of {len(DEFENCES)} defences and"
        f" {found['hard']} of {len(HARD_DEFENCES)} hard defences at {turn_ms} ms"
    )
    yield (
        f"after the answer it finds no forced win in {saved['defence']} of the defences and"
        f" {saved['hard']} of the hard defences"
    )


@dataclass(frozen=True, slots=True)
class Parted:
    """A slot where two arms first chose differently, and the judge's view of either move."""

    slot: str  # the opening and the arms' colour
    ply: int  # the move's index in the game
    base_move: str
    arm_move: str
    base: float | None  # the arms' winning chance after the base arm's move (None: no eval)
    arm: float | None


def chance(value: Eval, scale: float) -> float:
    """A judge's evaluation as its side's winning chance: a forced result 0 or 1, a score
    through the logistic, ``scale`` evaluation units a logit."""
    if value.mate is not None:
        return 1.0 if value.mate > 0 else 0.0
    return 1 / (1 + math.exp(-value.score / scale))


def partings(
    judge: Judge, folders: Sequence[Path], base: str, arm: str, *, across_runs: bool, scale: float
) -> Iterator[Parted]:
    """The judge's view of both arms' moves on every slot where their games first differ at
    the arms' own move (``tools.ab.parted_slots``)."""
    games = read_runs(folders, across_runs=across_runs)
    for game, other, ply, whose in parted_slots(games, arm, base):
        mine, theirs = game.moves.split(), other.moves.split()
        if whose != "arms" or ply >= min(len(mine), len(theirs)):
            continue  # the anchor parted them, or one game ended where the other went on
        before = [parse_point(text) for text in mine[:ply]]
        views = []
        for move in (theirs[ply], mine[ply]):
            value = judge.ask([*before, parse_point(move)]).eval  # the anchor to move
            views.append(None if value is None else chance(value.negated(), scale))
        label = f"{Path(game.run).name or 'match'} opening {game.opening} as {game.colour}"
        yield Parted(label, ply, theirs[ply], mine[ply], views[0], views[1])


def _partings_report(parted: Sequence[Parted], base: str, arm: str) -> str:
    gains = [p.arm - p.base for p in parted if p.arm is not None and p.base is not None]
    if not gains:
        return f"the arms first chose differently in {len(parted)} slots; the judge scored none"
    mean = mean_with_error(gains)
    better = sum(gain > 0 for gain in gains)
    worse = sum(gain < 0 for gain in gains)
    return (
        f"the arms first chose differently in {len(parted)} slots: by the judge {arm}'s move"
        f" was the better in {better}, {base}'s in {worse}, alike in {len(gains) - better - worse};"
        f" {arm} - {base}: {100 * mean.difference:+.1f} points of winning chance"
        f" (standard error {100 * mean.standard_error:.1f})"
    )


def add_judge_options(
    parser: argparse.ArgumentParser, *, time_ms: int, flag: str = "--turn-ms"
) -> None:
    """The judge engine's options: its command line (Gomocup protocol), working directory and
    time a position (``flag``, ``time_ms`` by default)."""
    parser.add_argument(
        "--judge", required=True, help="the judge's command line (Gomocup protocol)"
    )
    parser.add_argument("--cwd", help="the judge's working directory")
    parser.add_argument(flag, type=int, default=time_ms, help="the judge's time a position")


def main(argv: Sequence[str] | None = None) -> int:
    """Judge games, a position or the defences; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python tools/judge.py", description=__doc__)
    parser.add_argument("games", nargs="*", type=Path, help="PSQ/SGF files or folders")
    add_judge_options(parser, time_ms=500)
    parser.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    parser.add_argument("--player", default="engine.pbrain", help="part of the player's name")
    parser.add_argument("--all", action="store_true", help="judge won games too")
    parser.add_argument("--lost", type=int, default=2000, help="judge score counted as lost")
    parser.add_argument("--trace", action="store_true", help="print every judged move")
    parser.add_argument("--classify", action="store_true", help="name the losing move's kind")
    parser.add_argument(
        "--recheck",
        default="",
        help="node counts (70000,250000) this project's search is given at the losing move",
    )
    parser.add_argument("--moves", help="judge the position after these moves (h8 i9 ...)")
    parser.add_argument("--tactics", action="store_true", help="judge the defences")
    parser.add_argument(
        "--partings", type=Path, nargs="+", help="tools/ab.py run folders: judge the arms' partings"
    )
    parser.add_argument("--base", default="ship", help="--partings: the arm compared with")
    parser.add_argument("--size", type=int, default=15, help="--partings: the runs' board size")
    parser.add_argument("--arm", help="--partings: the arm judged against --base")
    parser.add_argument(
        "--across-runs", action="store_true", help="--partings: as tools/ab.py report's"
    )
    parser.add_argument("--nodes", type=int, help="the judge's nodes a position (INFO max_node)")
    parser.add_argument(
        "--scale", type=float, help="the judge's evaluation units a logit (Rapfi's: 515.6)"
    )
    options = parser.parse_args(argv)
    if options.scale is None:
        from tools.tune_eval import JUDGE_SCALE  # Rapfi 0.43.02 classical's, fitted there

        options.scale = JUDGE_SCALE
    spec = parse_engine(options.judge)
    spec = EngineSpec(spec.label, spec.argv, options.cwd)
    rule = Rule(options.rule)
    try:
        if options.partings:
            if not options.arm:
                print("error: --partings needs --arm", file=sys.stderr)
                return 2
            parted = []
            with Judge(
                spec, turn_ms=options.turn_ms, size=options.size, rule=rule, nodes=options.nodes
            ) as judge:
                for item in partings(
                    judge,
                    options.partings,
                    options.base,
                    options.arm,
                    across_runs=options.across_runs,
                    scale=options.scale,
                ):
                    parted.append(item)
                    print(
                        f"{item.slot}, ply {item.ply}: {options.base} {item.base_move}"
                        f" {_show_chance(item.base)}, {options.arm} {item.arm_move}"
                        f" {_show_chance(item.arm)}",
                        flush=True,
                    )
            print(_partings_report(parted, options.base, options.arm))
            return 0
        if options.tactics:
            for line in _tactics(spec, options.turn_ms):
                print(line, flush=True)
            return 0
        if options.moves is not None:
            board = Board.from_moves(options.moves, rule=rule)
            with Judge(spec, turn_ms=options.turn_ms, size=board.width, rule=rule) as judge:
                opinion = judge.ask([move.point for move in board.moves])
            print(f"{board.to_move.value} to move: judge {_show(opinion.move)}", end="")
            print(f" eval {_show_eval(opinion.eval)}")
            return 0
        losses = 0
        for game in read_games(options.games, rule):
            player = _player_colour(game, options.player)
            if player is None:
                print(f"{game.name}: no player named like {options.player!r}")
                continue
            outcome = game.board().outcome
            if not options.all and (outcome is None or outcome.winner in (None, player)):
                continue
            losses += 1
            with Judge(spec, turn_ms=options.turn_ms, size=game.size, rule=game.rule) as judge:
                for line in report_game(
                    judge,
                    game,
                    player,
                    threshold=options.lost,
                    trace=options.trace,
                    classify_it=options.classify,
                    recheck_nodes=[int(part) for part in options.recheck.split(",") if part],
                ):
                    print(line, flush=True)
        print(f"judged {losses} games")
    except JudgeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
