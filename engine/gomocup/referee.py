"""The referee of one match game: our own ``Board`` judges every move. A five wins, a full board
draws, and an engine that plays an occupied or off-board point, a renju-forbidden point,
answers ``ERROR``, goes silent past its turn time plus a grace period, or dies loses that game.

Like Piskvork with openings, the referee sends each engine the whole position with ``BOARD``
the first time it is to move in a game, then ``TURN`` with the opponent's reply.
"""

from __future__ import annotations

import argparse
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

from engine.board import Board
from engine.errors import ForbiddenMoveError, IllegalMoveError
from engine.gomocup.process import COMMAND_TIMEOUT_S, SETTLE_MS, START_TIMEOUT_S, EngineProcess
from engine.gomocup.protocol import UNLIMITED_MS, gomocup_to_point, point_to_gomocup
from engine.types import Color, Point, Rule

__all__ = ["EngineStats", "GameResult", "MatchConfig", "Verdict", "parse_move", "play_game"]


class Verdict(enum.StrEnum):
    """How a match game ended."""

    FIVE = "five"  # a winning row
    DRAW = "draw"  # full board, or the ply cap
    ILLEGAL = "illegal"  # an occupied or off-board point, or an answer that is not a move
    FORBIDDEN = "forbidden"  # renju: Black played a forbidden point
    TIMEOUT = "timeout"  # no answer within the turn time plus grace
    CRASH = "crash"  # the process died
    ERROR = "error"  # the engine answered ERROR instead of a move


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """What every game of a match shares."""

    size: int = 15  # board side
    rule: Rule = Rule.FREESTYLE  # winning rule
    turn_ms: int = 1000  # INFO timeout_turn
    grace_ms: int = 1000  # lateness forgiven before a timeout loss (pipes, a busy machine)
    depth: int | None = None  # INFO max_depth (Yixin extension) when set
    nodes: int | None = None  # INFO max_node (Yixin extension) when set
    max_plies: int | None = None  # adjudicate a draw after this many moves
    match_ms: int | None = None  # INFO timeout_match: each engine's time for a whole game
    settle_ms: int = SETTLE_MS  # between an engine's answer and the next command to it
    # Each game in new engine processes: nothing an engine keeps (its transposition table)
    # carries from one game into the next, so a fixed-node game replays move for move
    # whichever games came before it.
    fresh_games: bool = False

    @classmethod
    def from_options(cls, options: argparse.Namespace) -> MatchConfig:
        """The config a command line asks for: every field its parsed ``options`` have (the
        rule by its name), the others at their defaults."""
        given = {f.name: getattr(options, f.name) for f in fields(cls) if hasattr(options, f.name)}
        if "rule" in given:
            given["rule"] = Rule(given["rule"])
        return cls(**given)

    def info_lines(self) -> list[str]:
        """The INFO commands sent before each game.

        Without ``match_ms`` the game has no overall clock ("timeout_match 0"), which some
        engines read literally as no time at all; with it they get a real match clock and a
        ``time_left`` before every move, as a Gomocup manager sends them.
        """
        lines = [
            f"INFO timeout_turn {self.turn_ms}",
            f"INFO timeout_match {self.match_ms or 0}",
            f"INFO time_left {self.match_ms or UNLIMITED_MS}",
            "INFO max_memory 0",
            "INFO game_type 1",
            f"INFO rule {self.rule.gomocup_code}",
        ]
        if self.depth is not None:
            lines.append(f"INFO max_depth {self.depth}")
        if self.nodes is not None:
            lines.append(f"INFO max_node {self.nodes}")
        return lines


@dataclass(slots=True)
class EngineStats:
    """Per-engine figures over a match (from its own answers and its MESSAGE lines)."""

    moves: int = 0  # moves answered
    total_ms: float = 0.0  # wall-clock time of those answers
    max_ms: float = 0.0  # the slowest answer
    over_turn: int = 0  # answers slower than the turn time
    nodes: int = 0  # sum of MESSAGE "nodes"
    search_ms: float = 0.0  # sum of MESSAGE "time"
    depth: int = 0  # sum of MESSAGE "depth"
    reports: int = 0  # MESSAGE depth lines seen

    def add(self, other: EngineStats) -> None:
        """Fold in another worker's figures for the same engine."""
        self.moves += other.moves
        self.total_ms += other.total_ms
        self.max_ms = max(self.max_ms, other.max_ms)
        self.over_turn += other.over_turn
        self.nodes += other.nodes
        self.search_ms += other.search_ms
        self.depth += other.depth
        self.reports += other.reports


@dataclass(slots=True)
class GameResult:
    """One game: who played Black, how it ended, and what was played."""

    number: int  # 1-based game number
    opening: int  # index into the openings
    black: int  # 0 if ENGINE1 played Black, else 1
    verdict: Verdict  # how it ended
    winner: int | None  # 0 = ENGINE1, 1 = ENGINE2, None = draw
    board: Board  # the final position (an illegal last move is not on it)
    times_ms: list[int] = field(default_factory=list)  # per move, 0 for opening stones
    detail: str = ""  # the offending answer, for illegal moves and errors


def parse_move(text: str, size: int) -> Point | None:
    """An engine's ``x,y`` answer as a point on a ``size`` board (None: not a point on it)."""
    parts = text.split(",")
    if len(parts) != 2:
        return None
    try:
        x, y = (int(part.strip()) for part in parts)
    except ValueError:
        return None
    if not (0 <= x < size and 0 <= y < size):
        return None
    return gomocup_to_point(x, y, size)


def _record_message(stats: EngineStats, messages: Sequence[str]) -> None:
    for message in messages:
        words = message.split()
        if len(words) < 9 or words[1].lower() != "depth":
            continue
        values = dict(zip(words[1::2], words[2::2], strict=False))
        try:
            stats.depth += int(values["depth"])
            stats.nodes += int(values["nodes"])
            stats.search_ms += float(values["time"])
        except (KeyError, ValueError):
            continue
        stats.reports += 1


def _prepare(engine: EngineProcess, config: MatchConfig, fresh_start: bool) -> str | None:
    """START (or RESTART) one engine for a new game; None when it is ready, else why not."""
    if fresh_start or not engine.alive:
        engine.start()
        engine.send(f"START {config.size}")
        answer = engine.answer(START_TIMEOUT_S)
    else:
        engine.send("RESTART")
        answer = engine.answer(COMMAND_TIMEOUT_S)
        if answer.kind != "line" or answer.text.upper() != "OK":
            engine.start()
            engine.send(f"START {config.size}")
            answer = engine.answer(START_TIMEOUT_S)
    if answer.kind != "line" or answer.text.split(" ", 1)[0].upper() != "OK":
        return answer.text or answer.kind
    engine.send(*config.info_lines())
    return None


def play_game(
    engines: Sequence[EngineProcess],
    *,
    number: int,
    opening: int,
    moves: Sequence[Point],
    black: int,
    config: MatchConfig,
    stats: Sequence[EngineStats],
) -> GameResult:
    """Play one game from the opening ``moves``; ``black`` is the index of the engine that
    plays Black (``opening`` is only recorded).

    Both engines must be ready (``prepare_engines``). An engine that timed out or crashed
    is left dead; the next ``prepare`` restarts it.
    """
    board = Board.from_moves(moves, size=config.size, rule=config.rule)
    times = [0] * len(moves)
    informed = [False, False]
    used_ms = [0.0, 0.0]  # each engine's clock, when the match has one

    def finish(verdict: Verdict, winner: int | None, detail: str = "") -> GameResult:
        return GameResult(number, opening, black, verdict, winner, board, times, detail)

    while board.outcome is None:
        if config.max_plies is not None and len(board.moves) >= config.max_plies:
            return finish(Verdict.DRAW, None, "ply cap")
        side = board.to_move
        index = black if side is Color.BLACK else 1 - black
        engine = engines[index]
        wait_ms = float(config.turn_ms)
        if config.match_ms is not None:
            left_ms = config.match_ms - used_ms[index]
            wait_ms = min(wait_ms, max(left_ms, 0.0))
            engine.send(f"INFO time_left {max(int(left_ms), 0)}")
        if informed[index]:
            last = board.last_move
            assert last is not None  # the other engine has moved since
            x, y = point_to_gomocup(last.point, config.size)
            sent = engine.send(f"TURN {x},{y}")
        elif not board.moves:
            sent = engine.send("BEGIN")
        else:
            lines = ["BOARD"]
            for move in board.moves:
                x, y = point_to_gomocup(move.point, config.size)
                lines.append(f"{x},{y},{1 if move.color is side else 2}")
            sent = engine.send(*lines, "DONE")
        informed[index] = True
        if not sent:
            return finish(Verdict.CRASH, 1 - index, "broken pipe")
        answer = engine.answer((wait_ms + config.grace_ms) / 1000, since=engine.sent_at)
        used_ms[index] += answer.elapsed_ms
        figures = stats[index]
        _record_message(figures, answer.messages)
        if answer.kind == "timeout":
            engine.close()
            return finish(Verdict.TIMEOUT, 1 - index, f"{answer.elapsed_ms:.0f} ms")
        if answer.kind == "eof":
            engine.close()
            return finish(Verdict.CRASH, 1 - index, "process ended")
        figures.moves += 1
        figures.total_ms += answer.elapsed_ms
        figures.max_ms = max(figures.max_ms, answer.elapsed_ms)
        figures.over_turn += answer.elapsed_ms > config.turn_ms
        word = answer.text.split(" ", 1)[0].upper()
        if word in ("ERROR", "UNKNOWN"):
            return finish(Verdict.ERROR, 1 - index, answer.text[:80])
        point = parse_move(answer.text, config.size)
        if point is None:
            return finish(Verdict.ILLEGAL, 1 - index, answer.text[:80])
        try:
            board.play(point)
        except ForbiddenMoveError as error:
            return finish(Verdict.FORBIDDEN, 1 - index, f"{point} {error.reason}")
        except IllegalMoveError:
            return finish(Verdict.ILLEGAL, 1 - index, f"{point} {answer.text[:40]}")
        times.append(round(answer.elapsed_ms))
    outcome = board.outcome
    assert outcome is not None  # the loop ends only when the game has
    if outcome.winner is None:
        return finish(Verdict.DRAW, None)
    return finish(Verdict.FIVE, black if outcome.winner is Color.BLACK else 1 - black)
