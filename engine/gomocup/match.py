"""``python -m engine match``: two Gomocup protocol engines play each other.

An engine is ``level:NAME`` (``python -m engine.pbrain --level NAME`` in a subprocess) or any
command line that speaks the protocol (``python -m engine.pbrain``, a real pbrain binary).
Each opening of ``engine.gomocup.openings`` is played twice with the colours swapped; the games
are judged by ``engine.gomocup.referee`` and run by engine processes of
``engine.gomocup.process``. It prints W/D/L from ENGINE1's side and the Elo difference with a
95 % error bar (``engine.gomocup.stats``).

Nothing here is random: with engines that are deterministic (fixed ``--depth`` or
``--nodes``, fixed level seeds) the same command plays the same games.

This module schedules a match's games, reports them and is the command line; the names of the
other three that callers use are re-exported here.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.board import MAX_SIZE, MIN_SIZE
from engine.gomocup.openings import offsets, openings
from engine.gomocup.process import Answer, EngineProcess, EngineSpec, parse_engine
from engine.gomocup.referee import (
    EngineStats,
    GameResult,
    MatchConfig,
    Verdict,
    _prepare,
    parse_move,
    play_game,
)
from engine.gomocup.stats import Sprt, elo_difference, expected_score, pair_llr
from engine.records import to_psq, to_sgf
from engine.types import Color, Outcome, Point, Rule, Termination

__all__ = [
    "Answer",
    "EngineProcess",
    "EngineSpec",
    "EngineStats",
    "GameResult",
    "MatchConfig",
    "MatchResult",
    "Sprt",
    "Verdict",
    "elo_difference",
    "expected_score",
    "main",
    "pair_llr",
    "parse_engine",
    "parse_move",
    "play_game",
    "report",
    "run_match",
]


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
    side: int | None = None,
) -> MatchResult:
    """Play ``games`` games, each opening twice with colours swapped.

    ``book`` replaces ``engine.gomocup.openings`` (each entry: moves from Black's first); the
    first pair of games plays opening ``first_opening``, the next the one after it, and so on.
    ``jobs`` games run at the same time, each pair of engines in its own processes (a game
    keeps about one core busy: its two engines take turns); game ``n`` is the same game
    whatever ``jobs`` is, and the results come back in game order. With ``sprt``, no game
    starts once the test has decided; the games already under way are played out. With ``side``
    (0: ENGINE1 has Black, 1: White) only the games of each pair where ENGINE1 has that colour
    are played, numbered as in the whole match: a book for one colour is screened in half the
    time.

    Raises:
        RuntimeError: when an engine cannot start a game at all (e.g. refuses the size).
    """
    chosen = list(openings(config.size) if book is None else book)
    numbers: queue.Queue[int] = queue.Queue()
    for number in range(1, games + 1):
        if side is None or (number - 1) % 2 == side:
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
                    problem = _prepare(engine, config, fresh_start=fresh or config.fresh_games)
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
        count = min(jobs, numbers.qsize())
        threads = [threading.Thread(target=worker, daemon=True) for _ in range(count)]
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
        "--fresh-games",
        action="store_true",
        help="start both engines anew for every game (no table carried over: with --nodes the"
        " same game replays exactly)",
    )
    parser.add_argument(
        "--first-opening",
        type=int,
        default=0,
        metavar="K",
        help="start from opening K (the same openings in another order: short runs see others)",
    )
    parser.add_argument(
        "--openings",
        type=Path,
        metavar="FILE",
        help="play these openings instead: one a line, offsets from the centre as in"
        ' engine/gomocup/openings.py ("0,0 -2,-1 -3,2"); # starts a comment',
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
    book = None
    if options.openings is not None:
        try:
            book = read_openings(options.openings, config.size)
        except (OSError, UnicodeDecodeError, ValueError) as error:
            print(f"error: --openings {options.openings}: {error}", file=sys.stderr)
            return 2
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
            book=book,
        )
    except (RuntimeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for line in report(result, config, sprt):
        print(line)
    return 0


def read_openings(path: Path, size: int) -> list[tuple[Point, ...]]:
    """The openings of a file for ``--openings``, as moves on a ``size`` board.

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not an opening that fits the board, or there is none.
    """
    found = []
    centre = size // 2
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            points = tuple(Point(centre + dx, centre + dy) for dx, dy in offsets(text))
        except ValueError:
            raise ValueError(f"line {number} is not offsets like 0,0 -2,-1 -3,2") from None
        if len(set(points)) != len(points) or not all(p.on_board(size, size) for p in points):
            raise ValueError(f"line {number} does not fit a {size}x{size} board")
        found.append(points)
    if not found:
        raise ValueError("no opening in it")
    return found


def _parse_sprt(text: str) -> Sprt | None:
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except ValueError:
        return None
    return Sprt(elo0, elo1) if elo0 < elo1 else None


if __name__ == "__main__":
    raise SystemExit(main())
