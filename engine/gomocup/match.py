"""``python -m engine match``: two Gomocup protocol engines play each other.

An engine is ``level:NAME`` (``python -m engine.pbrain --level NAME`` in a subprocess) or any
command line that speaks the protocol (``python -m engine.pbrain``, a real pbrain binary).
Each opening of ``engine.gomocup.openings`` is played twice with the colours swapped. The referee is
our own ``Board``: a five wins, a full board draws, and an engine that plays an occupied or
off-board point, a renju-forbidden point, answers ``ERROR``, goes silent past its turn time
plus a grace period, or dies loses that game. It prints W/D/L from ENGINE1's side and the
Elo difference with a 95 % error bar (``elo_difference``).

Like Piskvork with openings, the manager sends each engine the whole position with
``BOARD`` the first time it is to move in a game, then ``TURN`` with the opponent's reply.
Nothing here is random: with engines that are deterministic (fixed ``--depth`` or
``--nodes``, fixed level seeds) the same command plays the same games.

One module of about 900 lines: the referee, the engine processes, the schedule of openings and
the statistics (Elo, SPRT) are read together whenever a figure is questioned.
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import math
import queue
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from engine.board import MAX_SIZE, MIN_SIZE, Board
from engine.errors import ForbiddenMoveError, IllegalMoveError
from engine.gomocup.openings import openings
from engine.gomocup.protocol import UNLIMITED_MS, gomocup_to_point, point_to_gomocup
from engine.records import to_psq, to_sgf
from engine.types import Color, Outcome, Point, Rule, Termination

__all__ = [
    "EngineProcess",
    "EngineSpec",
    "GameResult",
    "MatchConfig",
    "Sprt",
    "Verdict",
    "elo_difference",
    "main",
    "parse_engine",
    "play_game",
    "run_match",
]

START_TIMEOUT_S = 120.0  # first START: process start-up and compiling (or loading) the kernels
COMMAND_TIMEOUT_S = 10.0  # RESTART and friends
# The least time between an engine's answer and the next command it is sent, as a manager's
# own latency gives it. Rapfi 0.43 prints its move a moment before it reads commands again,
# and drops an "INFO" that comes in between ("ERROR Unknown command: TIME_LEFT"): without
# this pause an opponent that answers at once won such games on that error.
SETTLE_MS = 30
Z_95 = 1.959963984540054  # two-sided 95 % quantile of the normal distribution


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
class EngineSpec:
    """How to start one engine."""

    label: str  # what the report calls it
    argv: tuple[str, ...]  # the command line
    cwd: str | None = None  # its working directory (some engines read files beside them)


def parse_engine(text: str, *, seed: int = 0, label: str | None = None) -> EngineSpec:
    """``level:NAME`` or a protocol engine's command line; ``label`` names it in reports.

    A command starting with ``python`` runs under this interpreter.

    Raises:
        ValueError: for an empty command line.
    """
    if text.startswith("level:"):
        name = text.removeprefix("level:")
        command = (sys.executable, "-m", "engine.pbrain", "--level", name, "--seed", str(seed))
        return EngineSpec(label or text, command)
    argv = tuple(shlex.split(text))
    if not argv:
        raise ValueError("empty engine command")
    if argv[0] in ("python", "python3"):
        # The interpreter running the match (the project's venv), not whatever PATH finds.
        argv = (sys.executable, *argv[1:])
    return EngineSpec(label or text, argv)


@dataclass(frozen=True, slots=True)
class Answer:
    """One reply of an engine, with the MESSAGE lines that came before it."""

    kind: str  # "line", "timeout" or "eof"
    text: str = ""  # the reply line (kind "line")
    messages: tuple[str, ...] = ()  # MESSAGE / DEBUG lines read on the way
    elapsed_ms: float = 0.0  # from the request to the reply


class EngineProcess:
    """A protocol engine in a subprocess, read by a thread so that reads can time out."""

    def __init__(self, spec: EngineSpec, settle_ms: int = SETTLE_MS) -> None:
        self.spec = spec
        self.settle_ms = settle_ms  # the least time between an answer and the next command
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._answered = 0.0  # time.monotonic() of the last answer

    @property
    def alive(self) -> bool:
        """Whether the process is running."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start (or restart) the process.

        Raises:
            OSError: when the command cannot be run.
        """
        self.close()
        self._lines = queue.Queue()
        process = subprocess.Popen(
            self.spec.argv,
            cwd=self.spec.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        self._process = process
        threading.Thread(target=self._read, args=(process, self._lines), daemon=True).start()

    @staticmethod
    def _read(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.strip())
        lines.put(None)

    def send(self, *lines: str) -> bool:
        """Write command lines; False when the process is gone."""
        process = self._process
        if process is None or process.stdin is None:
            return False
        pause = self._answered + self.settle_ms / 1000 - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        try:
            for line in lines:
                process.stdin.write(line + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        return True

    def answer(self, timeout_s: float) -> Answer:
        """The next line that is not MESSAGE/DEBUG/SUGGEST, within ``timeout_s``."""
        started = time.monotonic()
        deadline = started + timeout_s
        messages: list[str] = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                return Answer("timeout", "", tuple(messages), _ms_since(started))
            if line is None:
                return Answer("eof", "", tuple(messages), _ms_since(started))
            word = line.split(" ", 1)[0].upper()
            if not line or word in ("MESSAGE", "DEBUG", "SUGGEST"):
                messages.append(line)
                continue
            self._answered = time.monotonic()
            return Answer("line", line, tuple(messages), _ms_since(started))

    def close(self) -> None:
        """Ask the engine to END, then make sure it is gone."""
        process = self._process
        if process is None:
            return
        self._process = None
        if process.poll() is None:
            self._send_end(process)
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    @staticmethod
    def _send_end(process: subprocess.Popen[str]) -> None:
        with contextlib.suppress(OSError, ValueError):
            if process.stdin is not None:
                process.stdin.write("END\n")
                process.stdin.flush()


def _ms_since(started: float) -> float:
    return (time.monotonic() - started) * 1000


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
        answer = engine.answer((wait_ms + config.grace_ms) / 1000)
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


def elo_difference(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Elo difference and its 95 % error bar from a W/D/L score (logistic model).

    The score s = (W + D/2) / N maps to Elo = -400 log10(1/s - 1); the bar is half the
    width of the interval that s +- 1.96 standard errors maps to, the standard error coming
    from the per-game score variance. A score of 0 or 1 gives infinities.
    """
    games = wins + draws + losses
    if games == 0:
        return 0.0, math.inf
    score = (wins + draws / 2) / games
    variance = (
        wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * (0 - score) ** 2
    ) / games
    margin = Z_95 * math.sqrt(variance / games)
    low, high = _elo(score - margin), _elo(score + margin)
    if math.isinf(low) or math.isinf(high):
        return _elo(score), math.inf
    return _elo(score), (high - low) / 2


# Each outcome value a pair of games can have gets this much of a game besides what was
# played, so that a hypothesis whose mean lies beyond every observed pair (all won, say) still
# has a likelihood: the regularisation fishtest's GSPRT uses.
_PRIOR_PAIRS = 1e-3
_PAIR_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential probability ratio test: is ENGINE1 ``elo1`` stronger (H1) rather than
    ``elo0`` (H0)? Errors of the first and second kind at most ``alpha`` and ``beta``.

    The test counts pairs of games (one opening, both colours) as one sample scoring 0, 1/4,
    ... 1 for ENGINE1: the pair shares its opening, so its two games are not independent. The
    log-likelihood ratio is the generalised one (Van den Bergh's GSPRT, as in fishtest): each
    hypothesis' most likely distribution of pair scores whose mean is that hypothesis' score.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def bounds(self) -> tuple[float, float]:
        """The LLR below which H0 is accepted and above which H1 is."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, games: Sequence[GameResult]) -> float:
        """The log-likelihood ratio of H1 against H0 after the complete pairs in ``games``."""
        return pair_llr(_pair_counts(games), expected_score(self.elo0), expected_score(self.elo1))

    def verdict(self, games: Sequence[GameResult]) -> str | None:
        """ "H1" or "H0" once the LLR has left its bounds, else None."""
        low, high = self.bounds()
        value = self.llr(games)
        return "H1" if value >= high else "H0" if value <= low else None


def expected_score(elo: float) -> float:
    """The score an Elo difference predicts (logistic model)."""
    return 1 / (1 + 10 ** (-elo / 400))


def _pair_counts(games: Sequence[GameResult]) -> list[float]:
    by_pair: dict[int, list[float]] = {}
    for game in games:
        score = 0.5 if game.winner is None else 1.0 - game.winner
        by_pair.setdefault((game.number - 1) // 2, []).append(score)
    counts = [0.0] * len(_PAIR_VALUES)
    for scores in by_pair.values():
        if len(scores) == 2:
            counts[round(2 * sum(scores))] += 1
    return counts


def pair_llr(counts: Sequence[float], s0: float, s1: float) -> float:
    """log L(s1) - log L(s0): ``counts[i]`` pairs scored ``i / 4``, and each side's likelihood
    is that of the most likely distribution of pair scores with mean ``s``."""
    regular = [count + _PRIOR_PAIRS for count in counts]
    return _max_log_likelihood(regular, s1) - _max_log_likelihood(regular, s0)


def _max_log_likelihood(counts: Sequence[float], mean: float) -> float:
    # The maximum of sum n_i log p_i over distributions p with sum p_i a_i = mean is at
    # p_i = f_i / (1 + lam (a_i - mean)), where lam makes that mean come out: the sum below
    # falls as lam grows, between the poles where some 1 + lam d_i reaches 0. Values never
    # scored get no probability, so ``mean`` must lie strictly between the lowest and the
    # highest value scored (``pair_llr``'s prior sees to that).
    total = sum(counts)
    seen = [
        (count / total, value - mean)
        for count, value in zip(counts, _PAIR_VALUES, strict=True)
        if count > 0
    ]
    low = -1 / max(d for _, d in seen)
    high = -1 / min(d for _, d in seen)

    def slope(lam: float) -> float:
        return sum(f * d / (1 + lam * d) for f, d in seen)

    for _ in range(200):
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    lam = (low + high) / 2
    return total * sum(f * math.log(f / (1 + lam * d)) for f, d in seen)


def _elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


@dataclass(slots=True)
class MatchResult:
    """A finished match."""

    labels: tuple[str, str]  # ENGINE1, ENGINE2
    games: list[GameResult]  # in order
    stats: tuple[EngineStats, EngineStats]  # per engine

    def wdl(self) -> tuple[int, int, int]:
        """Wins, draws and losses of ENGINE1."""
        wins = sum(1 for game in self.games if game.winner == 0)
        losses = sum(1 for game in self.games if game.winner == 1)
        return wins, len(self.games) - wins - losses, losses


def run_match(
    specs: tuple[EngineSpec, EngineSpec],
    *,
    games: int,
    config: MatchConfig,
    records: Path | None = None,
    record_format: str = "sgf",
    log: Callable[[str], None] | None = None,
    book: Sequence[Sequence[Point]] | None = None,
    jobs: int = 1,
    sprt: Sprt | None = None,
    first_opening: int = 0,
) -> MatchResult:
    """Play ``games`` games, each opening twice with colours swapped.

    ``book`` replaces ``engine.gomocup.openings`` (each entry: moves from Black's first); the
    first pair of games plays opening ``first_opening``, the next the one after it, and so on.
    ``jobs`` games run at the same time, each pair of engines in its own processes (a game
    keeps about one core busy: its two engines take turns); game ``n`` is the same game
    whatever ``jobs`` is, and the results come back in game order. With ``sprt``, no game
    starts once the test has decided; the games already under way are played out.

    Raises:
        RuntimeError: when an engine cannot start a game at all (e.g. refuses the size).
    """
    chosen = list(openings(config.size) if book is None else book)
    numbers: queue.Queue[int] = queue.Queue()
    for number in range(1, games + 1):
        numbers.put(number)
    results: dict[int, GameResult] = {}
    stats = (EngineStats(), EngineStats())
    failures: list[RuntimeError] = []
    lock = threading.Lock()

    def worker() -> None:
        engines = (
            EngineProcess(specs[0], config.settle_ms),
            EngineProcess(specs[1], config.settle_ms),
        )
        mine = (EngineStats(), EngineStats())
        fresh = True
        try:
            while not failures:
                try:
                    number = numbers.get_nowait()
                except queue.Empty:
                    return
                for index, engine in enumerate(engines):
                    problem = _prepare(engine, config, fresh_start=fresh)
                    if problem is not None:
                        raise RuntimeError(f"{specs[index].label} cannot start: {problem}")
                fresh = False
                pair, second = divmod(number - 1, 2)
                pair += first_opening
                game = play_game(
                    engines,
                    number=number,
                    opening=pair % len(chosen),
                    moves=chosen[pair % len(chosen)],
                    black=second,
                    config=config,
                    stats=mine,
                )
                with lock:
                    results[number] = game
                    if records is not None:
                        _write_record(records, game, specs, record_format, config)
                    if log is not None:
                        log(_describe(game, specs))
                    if sprt is not None and sprt.verdict(list(results.values())):
                        with contextlib.suppress(queue.Empty):
                            while True:
                                numbers.get_nowait()
        except RuntimeError as error:
            failures.append(error)
        finally:
            for engine in engines:
                engine.close()
            with lock:
                for total, part in zip(stats, mine, strict=True):
                    total.add(part)

    if jobs <= 1:
        worker()
    else:
        threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(jobs, games))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if failures:
        raise failures[0]
    ordered = [results[number] for number in sorted(results)]
    return MatchResult((specs[0].label, specs[1].label), ordered, stats)


def _describe(game: GameResult, specs: Sequence[EngineSpec]) -> str:
    black, white = specs[game.black].label, specs[1 - game.black].label
    result = {None: "1/2-1/2", game.black: "1-0"}.get(game.winner, "0-1")
    detail = f" ({game.detail})" if game.detail else ""
    return (
        f"game {game.number:3d} opening {game.opening:2d}  {black} - {white}  {result}"
        f"  {game.verdict.value} after {len(game.board.moves)} moves{detail}"
    )


def _write_record(
    folder: Path,
    game: GameResult,
    specs: Sequence[EngineSpec],
    record_format: str,
    config: MatchConfig,
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    black, white = specs[game.black].label, specs[1 - game.black].label
    if record_format == "psq":
        text = to_psq(game.board, times_ms=game.times_ms, names=[black, white])
    else:
        winner: Color | None = None
        if game.winner is not None:
            winner = Color.BLACK if game.winner == game.black else Color.WHITE
        termination = {
            Verdict.FIVE: Termination.FIVE,
            Verdict.DRAW: Termination.DRAW,
            Verdict.FORBIDDEN: Termination.FORBIDDEN,
            Verdict.TIMEOUT: Termination.TIMEOUT,
        }.get(game.verdict, Termination.RESIGN)
        text = to_sgf(
            game.board,
            black=black,
            white=white,
            outcome=Outcome(termination, winner),
            event=f"engine match, {config.rule.value} {config.size}x{config.size}",
        )
    (folder / f"game{game.number:04d}.{record_format}").write_text(text, encoding="utf-8")


def report(result: MatchResult, config: MatchConfig, sprt: Sprt | None = None) -> list[str]:
    """The summary lines: W/D/L, Elo, the SPRT's state, how games ended, each engine's timing."""
    wins, draws, losses = result.wdl()
    games = wins + draws + losses
    elo, bar = elo_difference(wins, draws, losses)
    score = (wins + draws / 2) / games if games else 0.0
    first, second = result.labels
    lines = [
        f"{first} vs {second}: {games} games, {config.rule.value} {config.size}x{config.size},"
        f" {config.turn_ms} ms/move"
        + (f", {config.match_ms} ms/game" if config.match_ms is not None else ""),
        f"W/D/L {wins}/{draws}/{losses}  score {100 * score:.1f}%"
        f"  Elo {_signed(elo)} +- {_signed(bar, sign=False)} (95%)",
    ]
    if sprt is not None:
        low, high = sprt.bounds()
        verdict = sprt.verdict(result.games)
        outcome = {
            "H1": f"H1 accepted: {first} is stronger by {_signed(sprt.elo1, sign=False)} Elo",
            "H0": f"H0 accepted: {first} is not stronger by {_signed(sprt.elo1, sign=False)} Elo",
        }.get(verdict or "", "no decision yet")
        lines.append(
            f"SPRT elo0 {_signed(sprt.elo0)} elo1 {_signed(sprt.elo1)}"
            f" (alpha {sprt.alpha}, beta {sprt.beta}): LLR {sprt.llr(result.games):+.2f}"
            f" in [{low:+.2f}, {high:+.2f}], {outcome}"
        )
    endings: dict[str, int] = {}
    for game in result.games:
        endings[game.verdict.value] = endings.get(game.verdict.value, 0) + 1
    lines.append("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items())))
    for label, figures in zip(result.labels, result.stats, strict=True):
        if not figures.moves:
            continue
        line = (
            f"{label}: {figures.moves} moves, mean {figures.total_ms / figures.moves:.0f} ms,"
            f" max {figures.max_ms:.0f} ms, {figures.over_turn} over {config.turn_ms} ms"
        )
        if figures.reports and figures.search_ms > 0 and figures.nodes > 0:
            line += (
                f", mean depth {figures.depth / figures.reports:.1f},"
                f" {figures.nodes / figures.search_ms:.0f}k nodes/s"
            )
        lines.append(line)
    return lines


def _signed(value: float, *, sign: bool = True) -> str:
    if math.isinf(value):
        return ("+" if value > 0 else "-") + "inf" if sign else "inf"
    value = round(value) + 0.0  # no "-0"
    return f"{value:+.0f}" if sign else f"{value:.0f}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine match",
        description="Play two Gomocup protocol engines (or two levels) against each other.",
    )
    parser.add_argument("engine1", help='"level:NAME" or a protocol engine command line')
    parser.add_argument("engine2", help='"level:NAME" or a protocol engine command line')
    parser.add_argument("--games", type=int, default=2, help="number of games (default 2)")
    parser.add_argument("--turn-ms", type=int, default=1000, help="time per move (ms)")
    parser.add_argument("--grace-ms", type=int, default=1000, help="lateness before a loss")
    parser.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    parser.add_argument("--size", type=int, default=15, help=f"board side {MIN_SIZE}..{MAX_SIZE}")
    parser.add_argument("--depth", type=int, help="send INFO max_depth (fixed-depth play)")
    parser.add_argument("--nodes", type=int, help="send INFO max_node (fixed-node play)")
    parser.add_argument("--max-plies", type=int, help="adjudicate a draw after this many moves")
    parser.add_argument(
        "--match-ms",
        type=int,
        help="each engine's clock for a whole game (real timeout_match and time_left)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="games played at the same time")
    parser.add_argument(
        "--first-opening",
        type=int,
        default=0,
        metavar="K",
        help="start from opening K (the same openings in another order: short runs see others)",
    )
    parser.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="stop once an SPRT (alpha = beta = 0.05, over pairs of games) decides whether"
        " ENGINE1 is ELO1 stronger rather than ELO0; --games is then the most to play",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of level:NAME engines")
    parser.add_argument("--name1", help="what to call ENGINE1 in the report")
    parser.add_argument("--name2", help="what to call ENGINE2 in the report")
    parser.add_argument("--sgf", type=Path, help="write each game as SGF into this folder")
    parser.add_argument("--psq", type=Path, help="write each game as PSQ into this folder")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a match from the command line; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["match"]:
        args = args[1:]
    options = _parser().parse_args(args)
    sprt = _parse_sprt(options.sprt) if options.sprt else None
    if options.sprt and sprt is None:
        print(
            "error: --sprt takes two Elo values, the first below the second: 0,10", file=sys.stderr
        )
        return 2
    if (
        not MIN_SIZE <= options.size <= MAX_SIZE
        or options.games < 1
        or options.turn_ms < 0
        or options.jobs < 1
        or (options.match_ms is not None and options.match_ms <= 0)
    ):
        print(
            "error: need 5 <= --size <= 20, --games >= 1, --turn-ms >= 0, --jobs >= 1,"
            " --match-ms > 0",
            file=sys.stderr,
        )
        return 2
    config = MatchConfig.from_options(options)
    specs = (
        parse_engine(options.engine1, seed=options.seed, label=options.name1),
        parse_engine(options.engine2, seed=options.seed, label=options.name2),
    )
    records, record_format = (options.psq, "psq") if options.psq else (options.sgf, "sgf")

    def log(line: str) -> None:
        if not options.quiet:
            print(line, flush=True)

    try:
        result = run_match(
            specs,
            games=options.games,
            config=config,
            records=records,
            record_format=record_format,
            log=log,
            jobs=options.jobs,
            sprt=sprt,
            first_opening=options.first_opening,
        )
    except (RuntimeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for line in report(result, config, sprt):
        print(line)
    return 0


def _parse_sprt(text: str) -> Sprt | None:
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except ValueError:
        return None
    return Sprt(elo0, elo1) if elo0 < elo1 else None


if __name__ == "__main__":
    raise SystemExit(main())
