"""Compare versions of an engine (arms) by alternating short matches against one anchor.

    python tools/ab.py run OUT --anchor CMD [--anchor-cwd DIR] --arm NAME=CMD [--arm ...]
        [--weights NAME=FILE] [--cwd NAME=DIR] [--rounds 4] [--start 1] [--games 32]
        [--turn-ms 500] [--nodes N] [--match-ms N] [--grace-ms 1000] [--jobs 2]
        [--rule freestyle] [--openings FILE] [--fresh-games] [--colour black|white]
    python tools/ab.py report OUT [OUT ...] [--base NAME] [--across-runs | --by-place]
    python tools/ab.py pack OUT [OUT ...]

``run`` plays, round after round, one ``--games`` match of every arm against the anchor (as
``python -m engine match`` does). On a shared machine the load drifts; runs that take turns
spread the drift over every arm, where one long match per arm would give it to one of them.
In a round every arm starts from the same opening, turned on by games / 2 each round, so that
4 rounds of 32 games play each of the 64 openings with both colours (``--openings FILE``: the
file's instead, one a line as ``python -m engine match --openings`` reads them, e.g. the
output of ``tools/book.py --list``). ``--fresh-games`` starts the engines anew for every game,
so that at ``--nodes`` a game replays exactly whatever was played before it. ``--colour``
plays only the games where the arms have that colour, half of each round: a change that only
one colour's games can meet (a book of Black's moves, say) is screened in half the time.
``--weights``
runs an arm with ``GOMOKU_EVAL_WEIGHTS`` set (values from a file); ``--cwd`` runs it in
another folder, e.g. a git worktree holding a version of the code. Every game is appended to
``OUT/games.jsonl`` as it ends (its moves, and each ply's time as the referee measured it), so
a stopped run goes on with ``--start``; and each run first
appends what it plays to ``OUT/runs.jsonl`` (its command line, every engine's command and
folder, the openings and their file's SHA-256, this checkout's commit, the host's CPU), so that
a folder kept with its results says how to play them again.

``pack`` gzips a finished folder's records into ``games.jsonl.gz`` and ``runs.jsonl.gz`` (the
same lines; byte for byte the same file from the same lines, so a repository keeps them
without churn), about a fifth of their size. Every reader here reads a folder packed, plain,
or both: a run that goes on in a packed folder appends to a plain file beside the packed one,
read after it, until the folder is packed again.

``report`` prints each arm's W/D/L, its score as Black and as White, its slowest move (where
the games kept their times) with the game and ply it was in, and beside the base arm
(``--base``, default the first) the paired difference: for each slot (an opening and the arm's
colour) both played, the arm's mean score there minus the base's, averaged over those slots,
with the standard error of that mean. The slot, not the game, is the unit: the same engines
from the same opening replay much the same game, so two games on one slot are far from
independent, and the openings differ more than the engines do. The difference is also given
for the arm's games as Black and as White apart, with the slots where the arm played the very
games the base played (every game's moves are kept), and split by where the two arms' games
on a slot first differ: at the arms' own move (their choices parted) or at the anchor's, in a
position both arms had reached alike (an anchor that plays by the clock parts the games
itself; from there on the slot's two games are two games, and pairing buys little). Several
folders (runs on other opening files, or at other times) are pooled: a slot is then a folder's
opening and colour, since opening 0 of one file is not opening 0 of another. ``--across-runs``
pairs runs of one openings file across folders; ``--by-place`` pairs every folder's opening
by its place in its file alone, for files that are images of one another under the board's
symmetries (a null screen: the same engine on the openings turned, other games from openings
of the same worth); the very games and where they first differ mean nothing there, as such
games part at the opening's stones. Pooled either way, folders played against other anchors
share slots: the report's last line then names the anchors their ``runs.jsonl`` record.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import math
import os
import shlex
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import cpu_model
from engine.gomocup.match import (
    EngineSpec,
    MatchConfig,
    MatchResult,
    elo_difference,
    parse_engine,
    read_openings,
    report,
    run_match,
)
from engine.gomocup.openings import openings
from engine.notation import format_moves
from engine.search.evaluate import WEIGHTS_ENV
from engine.types import Rule
from tools.shards import engine_commit

GAMES_FILE = "games.jsonl"
COLOURS = ("black", "white")  # the arm's colour, as run_match's side counts it
RUNS_FILE = "runs.jsonl"


@dataclass(frozen=True, slots=True)
class Game:
    """One game of an arm against the anchor, from the arm's side."""

    arm: str
    round: int
    opening: int
    colour: str  # "black" or "white": the arm's
    score: float  # 1 won, 0.5 drawn, 0 lost
    ending: str  # how it ended (engine.gomocup.match.Verdict)
    plies: int
    moves: str = ""  # the whole game, opening included ("h8 i9 ..."); "" in older records
    # each ply's answer in milliseconds as the referee timed it (0 for the opening's stones);
    # empty in older records
    times_ms: tuple[int, ...] = ()
    run: str = ""  # the folder it was read from (not written): each run's openings are its own


@dataclass(frozen=True, slots=True)
class Paired:
    """An arm against the base arm, slot by slot."""

    difference: float  # mean over the shared slots of (arm's mean score - base's)
    standard_error: float  # of that mean (nan with fewer than two slots)
    slots: int


def games_of(result: MatchResult, arm: str, round_number: int) -> list[Game]:
    """The match's games from ENGINE1's (the arm's) side."""
    return [
        Game(
            arm=arm,
            round=round_number,
            opening=game.opening,
            colour=COLOURS[game.black],
            score={None: 0.5, 0: 1.0}.get(game.winner, 0.0),
            ending=game.verdict.value,
            plies=len(game.board.moves),
            moves=format_moves(move.point for move in game.board.moves),
            times_ms=tuple(game.times_ms),
        )
        for game in result.games
    ]


PACKED = ".gz"  # the suffix ``pack`` gives a record file


def _file_lines(path: Path) -> list[str]:
    if path.name.endswith(PACKED):
        with gzip.open(path, "rt", encoding="utf-8") as packed:
            return packed.read().splitlines()
    return path.read_text(encoding="utf-8").splitlines()


def record_lines(path: Path) -> list[str]:
    """The lines of a record file: for ``games.jsonl``, those of ``games.jsonl.gz`` where the
    folder was packed, then the plain file's, where a run appended after; for a path that
    ends in ``.gz``, that file's alone. No file at all is no lines."""
    if path.name.endswith(PACKED):
        return _file_lines(path)
    return [
        line
        for file in (path.with_name(path.name + PACKED), path)
        if file.is_file()
        for line in _file_lines(file)
    ]


def pack(folder: Path) -> list[Path]:
    """Gzip the folder's ``games.jsonl`` and ``runs.jsonl`` into their ``.gz`` files (lines
    already packed first), leaving no plain file; the packed files it wrote."""
    written = []
    for name in (GAMES_FILE, RUNS_FILE):
        plain = folder / name
        if not plain.is_file():
            continue
        packed = plain.with_name(name + PACKED)
        text = "".join(line + "\n" for line in record_lines(plain))
        partial = packed.with_name(packed.name + ".partial")
        # no name and no time in the header: the same lines give the same bytes
        with (
            partial.open("wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out,
        ):
            out.write(text.encode("utf-8"))
        os.replace(partial, packed)
        plain.unlink()
        written.append(packed)
    return written


def load(path: Path) -> list[Game]:
    """The games written to ``path`` (one JSON object a line; packed, plain or both, as
    ``record_lines`` reads them), each marked with its folder."""
    lines = record_lines(path)
    run = str(path.parent)
    games = []
    for line in lines:
        if line.strip():
            record = json.loads(line)
            record["times_ms"] = tuple(record.get("times_ms", ()))
            games.append(Game(**record, run=run))
    return games


def read_runs(
    folders: Sequence[Path], *, across_runs: bool = False, by_place: bool = False
) -> list[Game]:
    """The games of run folders pooled, each slot a folder's (``across_runs``: an openings
    file's, so that runs of one arm each on the same openings pair; ``by_place``: the
    opening's place in its file, whatever the file)."""
    games = [game for folder in folders for game in load(folder / GAMES_FILE)]
    if by_place:
        games = [dataclasses.replace(game, run="") for game in games]
    elif across_runs:
        # a slot is then an opening of an openings file: runs on other files stay apart
        played = {str(folder): openings_played(folder) for folder in folders}
        games = [dataclasses.replace(game, run=played[game.run]) for game in games]
    return games


def _record(game: Game) -> str:
    fields = dataclasses.asdict(game)
    del fields["run"]  # a file's games are its run's
    return json.dumps(fields)


def _slots(games: Iterable[Game]) -> dict[tuple[str, int, str], list[float]]:
    slots: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    for game in games:
        slots[(game.run, game.opening, game.colour)].append(game.score)
    return slots


def _openings_key(record: dict[str, str | None]) -> str:
    # the file's SHA-256 as the run noted it, or as the file named holds it now (a run
    # recorded before the digest was), else the path: "" for the built-in match openings
    path = record.get("openings") or ""
    if record.get("openings_sha256"):
        return str(record["openings_sha256"])
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""
    except OSError:
        return path


def openings_played(folder: Path) -> str:
    """The openings file a run folder's runs played, as its ``runs.jsonl`` records it: the
    file's SHA-256 (the same openings under any path; for a run recorded without it, the
    file's as it is now where it still is), else its path; "" for the built-in match openings,
    or where the folder has no record of its runs."""
    try:
        lines = record_lines(folder / RUNS_FILE)
        named = {_openings_key(json.loads(line)) for line in lines if line.strip()}
    except (OSError, EOFError, ValueError, AttributeError):
        return ""
    return named.pop() if len(named) == 1 else "|".join(sorted(named))


def anchors_played(folder: Path) -> set[str]:
    """The opponents' command lines a run folder's runs played, as its ``runs.jsonl`` records
    them (none where it has no record of its runs)."""
    try:
        lines = record_lines(folder / RUNS_FILE)
        return {str(json.loads(line)["anchor"]["command"]) for line in lines if line.strip()}
    except (OSError, EOFError, ValueError, KeyError, TypeError):
        return set()


def pooled_anchors(folders: Sequence[Path]) -> list[str]:
    """The report's warning where folders pooled slot by slot (``--across-runs``,
    ``--by-place``) played more than one opponent: their games then share slots, and where
    two arms' games first differ is read from each slot's first game of either arm."""
    anchors = sorted(set().union(*(anchors_played(folder) for folder in folders)))
    if len(anchors) < 2:
        return []
    return [
        f"note: these folders played {len(anchors)} anchors ({'; '.join(anchors)}): a slot"
        " pools their games, and where the games first differ pairs each slot's first game"
        " of either arm; report each anchor's folders apart to pair within one"
    ]


def paired(games: Sequence[Game], arm: str, base: str, colour: str | None = None) -> Paired:
    """``arm`` against ``base`` over the slots both played (``colour``: the arm's games with
    that colour only)."""
    chosen = [g for g in games if colour is None or g.colour == colour]
    mine = _slots(g for g in chosen if g.arm == arm)
    theirs = _slots(g for g in chosen if g.arm == base)
    differences = [
        statistics.fmean(scores) - statistics.fmean(theirs[slot])
        for slot, scores in mine.items()
        if slot in theirs
    ]
    return mean_with_error(differences)


def mean_with_error(differences: Sequence[float]) -> Paired:
    """The mean of paired differences with its standard error (nan with fewer than two)."""
    if not differences:
        return Paired(math.nan, math.nan, 0)
    error = math.nan
    if len(differences) > 1:
        error = statistics.stdev(differences) / math.sqrt(len(differences))
    return Paired(statistics.fmean(differences), error, len(differences))


def same_games(games: Sequence[Game], arm: str, base: str) -> tuple[int, int]:
    """(slots where ``arm`` played the very games ``base`` played, slots both played with
    their moves recorded). With ``--fresh-games`` at a fixed node count a setting that never
    changes a search leaves every slot the same."""
    moves: dict[str, dict[tuple[str, int, str], list[str]]] = {arm: {}, base: {}}
    for game in games:
        if game.arm in moves and game.moves:
            moves[game.arm].setdefault((game.run, game.opening, game.colour), []).append(game.moves)
    shared = moves[arm].keys() & moves[base].keys()
    same = sum(1 for slot in shared if sorted(moves[arm][slot]) == sorted(moves[base][slot]))
    return same, len(shared)


def first_apart(moves: str, other: str) -> int | None:
    """The index of the first move where two recorded games differ (0 = Black's first stone;
    where one game is the start of the other, the shorter one's length); None when they are
    the same game."""
    mine, theirs = moves.split(), other.split()
    for ply, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            return ply
    return None if len(mine) == len(theirs) else min(len(mine), len(theirs))


@dataclass(frozen=True, slots=True)
class Parting:
    """The slots where an arm's game and the base's first differ at one side's move."""

    paired: Paired  # the arm's difference over those slots alone
    median_ply: float  # where they part (nan with no slot)


def parted_slots(
    games: Sequence[Game], arm: str, base: str
) -> Iterator[tuple[Game, Game, int, str]]:
    """Each shared slot with recorded moves where the two arms' games differ, in slot order:
    the arm's game, the base's (each slot's first of either), the ply where they first differ,
    and whose move that is, ``"arms"`` (the engines compared chose differently) or ``"anchor"``
    (it did, in the very position both arms had reached, so their choices had not yet
    differed)."""
    first: dict[str, dict[tuple[str, int, str], Game]] = {arm: {}, base: {}}
    for game in games:
        if game.arm in first and game.moves:
            first[game.arm].setdefault((game.run, game.opening, game.colour), game)
    for slot in sorted(first[arm].keys() & first[base].keys()):
        mine, theirs = first[arm][slot], first[base][slot]
        ply = first_apart(mine.moves, theirs.moves)
        if ply is not None:
            # Black plays the even plies (0, 2, ...): the arms' own when they hold Black
            whose = "arms" if (ply % 2 == 0) == (slot[2] == "black") else "anchor"
            yield mine, theirs, ply, whose


def partings(games: Sequence[Game], arm: str, base: str) -> dict[str, Parting]:
    """The shared slots split by whose move the two arms' games first differ at
    (``parted_slots``), each part with the arm's paired difference over its slots. At a time
    control an anchor that reads the clock parts the games itself, and a slot is then paired
    only up to there."""
    split: dict[str, list[tuple[float, int]]] = {"arms": [], "anchor": []}
    for mine, theirs, ply, whose in parted_slots(games, arm, base):
        split[whose].append((mine.score - theirs.score, ply))
    result = {}
    for whose, rows in split.items():
        median = statistics.median(ply for _, ply in rows) if rows else math.nan
        result[whose] = Parting(mean_with_error([difference for difference, _ in rows]), median)
    return result


def _score(games: Sequence[Game]) -> str:
    if not games:
        return "-"
    return f"{100 * statistics.fmean(g.score for g in games):.1f}% ({len(games)})"


def summary(games: Sequence[Game], base: str | None = None) -> list[str]:
    """The report's lines: every arm's figures, then each arm beside ``base``."""
    arms = list(dict.fromkeys(g.arm for g in games))
    if not arms:
        return ["no games yet"]
    base = base or arms[0]
    lines = []
    for arm in arms:
        own = [g for g in games if g.arm == arm]
        wins = sum(1 for g in own if g.score == 1)
        losses = sum(1 for g in own if g.score == 0)
        draws = len(own) - wins - losses
        elo, bar = elo_difference(wins, draws, losses)
        score = statistics.fmean(g.score for g in own)
        lines.append(
            f"{arm}: {len(own)} games, W/D/L {wins}/{draws}/{losses}, {100 * score:.1f}%,"
            f" Elo {elo:+.0f} +- {bar:.0f};"
            f" as Black {_score([g for g in own if g.colour == 'black'])},"
            f" as White {_score([g for g in own if g.colour == 'white'])}"
        )
        slowest = slowest_move(own)
        if slowest is not None:
            ms, game, ply = slowest
            lines.append(
                f"  {arm}'s slowest move: {ms} ms, ply {ply} of round {game.round},"
                f" opening {game.opening}, as {game.colour.capitalize()}"
            )
    for arm in arms:
        if arm == base:
            continue
        result = paired(games, arm, base)
        if result.slots == 0:
            lines.append(f"{arm} - {base}: no slot played by both")
            continue
        sides = [
            f"as {colour.capitalize()} {_points(paired(games, arm, base, colour))}"
            for colour in ("black", "white")
        ]
        same, recorded = same_games(games, arm, base)
        if recorded:
            sides.append(f"the same games in {same} of {recorded} slots")
        lines.append(
            f"{arm} - {base}: {100 * result.difference:+.1f} points over {result.slots} shared"
            f" slots, standard error {100 * result.standard_error:.1f}; {', '.join(sides)}"
        )
        if recorded:
            parts = partings(games, arm, base)
            lines.append(
                f"  where the games first differ: at the arms' move in"
                f" {_parting(parts['arms'])}; at the anchor's move in {_parting(parts['anchor'])}"
            )
    return lines


def slowest_move(games: Iterable[Game]) -> tuple[int, Game, int] | None:
    """The arm's slowest answer over ``games`` (its own plies, by the referee's clock): the
    milliseconds, its game and its ply (1-based), the first where two tie; None where no game
    kept its times."""
    found: tuple[int, Game, int] | None = None
    for game in games:
        own = 0 if game.colour == "black" else 1  # Black plays the odd plies, 1-based
        for index in range(own, len(game.times_ms), 2):
            if found is None or game.times_ms[index] > found[0]:
                found = (game.times_ms[index], game, index + 1)
    return found


def _parting(part: Parting) -> str:
    if part.paired.slots == 0:
        return "no slot"
    return (
        f"{part.paired.slots} slots (median ply {part.median_ply:g}), {_points(part.paired)} points"
    )


def _points(result: Paired) -> str:
    if result.slots == 0:
        return "-"
    return f"{100 * result.difference:+.1f} ({100 * result.standard_error:.1f})"


def _named(pairs: Sequence[str], what: str) -> dict[str, str]:
    named = {}
    for text in pairs:
        name, sep, value = text.partition("=")
        if not sep or not name or not value:
            raise ValueError(f"{what} takes NAME=VALUE, not {text!r}")
        named[name] = value
    return named


def _arm_specs(options: argparse.Namespace) -> dict[str, EngineSpec]:
    commands = _named(options.arm, "--arm")
    weights = _named(options.weights, "--weights")
    folders = _named(options.cwd, "--cwd")
    unknown = (set(weights) | set(folders)) - set(commands)
    if unknown:
        raise ValueError(f"no --arm named {', '.join(sorted(unknown))}")
    specs = {}
    for name, command in commands.items():
        spec = parse_engine(command, label=name)
        if name in weights:
            path = Path(weights[name]).resolve()
            spec = dataclasses.replace(spec, argv=("env", f"{WEIGHTS_ENV}={path}", *spec.argv))
        if name in folders:
            spec = dataclasses.replace(spec, cwd=str(Path(folders[name]).resolve()))
        specs[name] = spec
    return specs


def _engine_record(spec: EngineSpec) -> dict[str, object]:
    return {"command": shlex.join(spec.argv), "folder": spec.cwd}


def _run_record(
    options: argparse.Namespace,
    arms: dict[str, EngineSpec],
    anchor: EngineSpec,
    book: Sequence[object],
) -> dict[str, object]:
    """What one ``run`` plays, for ``OUT/runs.jsonl``."""
    return {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "argv": options.argv,
        "arms": {name: _engine_record(spec) for name, spec in arms.items()},
        "anchor": {"name": options.anchor_name, **_engine_record(anchor)},
        "rounds": [options.start, options.start + options.rounds - 1],
        "games": options.games,
        "colour": options.colour,
        "openings": options.openings and str(options.openings),
        # what the file held, so that a report pairs runs of one file wherever it was kept
        "openings_sha256": options.openings
        and hashlib.sha256(options.openings.read_bytes()).hexdigest(),
        "opening_count": len(book),
        "commit": engine_commit(),
        "cpu": cpu_model(),
    }


def run(options: argparse.Namespace) -> int:
    """Play the rounds, appending every game to OUT/games.jsonl."""
    arms = _arm_specs(options)
    anchor = parse_engine(options.anchor, label=options.anchor_name)
    if options.anchor_cwd:
        anchor = dataclasses.replace(anchor, cwd=str(Path(options.anchor_cwd).resolve()))
    config = MatchConfig.from_options(options)
    if options.openings is None:
        book = openings(options.size)
    else:
        try:
            book = read_openings(options.openings, options.size)
        except (OSError, ValueError) as error:  # a file that is not text is a ValueError too
            raise ValueError(f"--openings {options.openings}: {error}") from error
    options.out.mkdir(parents=True, exist_ok=True)
    with (options.out / RUNS_FILE).open("a", encoding="utf-8") as runs:
        runs.write(json.dumps(_run_record(options, arms, anchor, book)) + "\n")
    path = options.out / GAMES_FILE
    for round_number in range(options.start, options.start + options.rounds):
        first = (round_number - 1) * (options.games // 2) % len(book)
        for name, spec in arms.items():
            result = run_match(
                (spec, anchor),
                games=options.games,
                config=config,
                jobs=options.jobs,
                book=book,
                first_opening=first,
                side=None if options.colour is None else COLOURS.index(options.colour),
            )
            with path.open("a", encoding="utf-8") as out:
                for game in games_of(result, name, round_number):
                    out.write(_record(game) + "\n")
            print(f"round {round_number}, {name}, from opening {first}:", flush=True)
            for line in report(result, config):
                print("  " + line, flush=True)
    for line in summary(load(path), options.base):
        print(line)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("run", help="play alternating rounds")
    play.add_argument("out", type=Path, help="folder for games.jsonl")
    play.add_argument("--anchor", required=True, help="the opponent's command line")
    play.add_argument("--anchor-name", default="anchor")
    play.add_argument("--anchor-cwd", help="the opponent's working directory")
    play.add_argument("--arm", action="append", default=[], help="NAME=COMMAND", required=True)
    play.add_argument("--weights", action="append", default=[], help="NAME=FILE")
    play.add_argument("--cwd", action="append", default=[], help="NAME=FOLDER")
    play.add_argument("--rounds", type=int, default=4)
    play.add_argument("--start", type=int, default=1, help="the first round's number")
    play.add_argument("--games", type=int, default=32, help="games per arm and round (even)")
    play.add_argument("--turn-ms", type=int, default=500)
    play.add_argument("--nodes", type=int, help="INFO max_node: a fixed node count a move")
    play.add_argument("--match-ms", type=int, help="each engine's clock for a whole game")
    play.add_argument("--grace-ms", type=int, default=1000)
    play.add_argument("--jobs", type=int, default=2)
    play.add_argument(
        "--fresh-games",
        action="store_true",
        help="new engine processes for every game: with --nodes each game replays exactly",
    )
    play.add_argument(
        "--colour", choices=COLOURS, help="play only the games where the arms have this colour"
    )
    play.add_argument("--size", type=int, default=15)
    play.add_argument("--rule", choices=[rule.value for rule in Rule], default="freestyle")
    play.add_argument("--base", help="the arm the others are compared with (default: first)")
    play.add_argument(
        "--openings", type=Path, help="play these openings, one a line (engine match's format)"
    )
    show = commands.add_parser("report", help="summarise OUT/games.jsonl, pooling folders")
    show.add_argument("out", type=Path, nargs="+")
    show.add_argument("--base", help="the arm the others are compared with (default: first)")
    pairing = show.add_mutually_exclusive_group()
    pairing.add_argument(
        "--across-runs",
        action="store_true",
        help="pair the arms' games across the folders, slot by opening and colour: for runs"
        " that played the same openings at a fixed node count (one arm in each, say)",
    )
    pairing.add_argument(
        "--by-place",
        action="store_true",
        help="pair the arms' games across the folders by the opening's place in its file,"
        " whatever the file: for openings files that are turned images of one another",
    )
    packing = commands.add_parser("pack", help="gzip finished folders' records")
    packing.add_argument("out", type=Path, nargs="+")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run, report or pack; returns the exit status."""
    options = _parser().parse_args(argv)
    options.argv = list(sys.argv[1:] if argv is None else argv)  # for OUT/runs.jsonl
    if options.command == "pack":
        for folder in options.out:
            if not folder.is_dir():
                print(f"error: {folder} is not a folder", file=sys.stderr)
                return 1
        try:
            for folder in options.out:
                for path in pack(folder):
                    print(path)
        except (OSError, EOFError, ValueError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        return 0
    if options.command == "report":
        try:
            games = read_runs(
                options.out, across_runs=options.across_runs, by_place=options.by_place
            )
        except (OSError, EOFError, ValueError, TypeError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        lines = summary(games, options.base)
        if options.across_runs or options.by_place:
            lines += pooled_anchors(options.out)
        for line in lines:
            print(line)
        return 0
    if options.games < 2 or options.games % 2 or options.rounds < 1 or options.jobs < 1:
        print("error: need an even --games >= 2, --rounds >= 1, --jobs >= 1", file=sys.stderr)
        return 2
    try:
        return run(options)
    except (ValueError, RuntimeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
