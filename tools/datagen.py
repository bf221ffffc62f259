"""Training positions that last: self-play (or recorded match games) at fixed node counts,
labelled by the outcome and by an outside engine's judgement, in resumable shards.

    python tools/datagen.py --shard K --games N --nodes M --judge CMD [--judge-cwd DIR] \\
        [--judge-nodes J] [--rule freestyle|standard|renju] [--seed S] [--out DIR] [--resume]
    python tools/datagen.py --shard K --games N --psq DIR... --judge CMD ... \\
        [--out data/matches] [--resume]
    python tools/datagen.py --shard K --games N --children C [--from DIR] --judge CMD ... \\
        [--out data/children] [--resume]
    python tools/datagen.py --shard K --games N --leaves --nodes M [--from DIR] --judge CMD ... \\
        [--out data/leaves] [--resume]
    python tools/datagen.py --shard K --check ROWS --out DIR --judge CMD ...

A shard is ``shard-KKKKK.npz`` (``np.savez_compressed``) beside ``shard-KKKKK.json``, its
manifest: the command, the rule, the seed, the engine's version and git commit, the judge's command,
``ABOUT`` answer and node count, the counts, and the array file's SHA-256. The arrays:

* ``moves`` (int16, ``y * 15 + x``), ``lengths`` (int32) and ``results`` (int8: Black's
  result, 1 a five by Black, -1 by White, 0 a draw) of the shard's games, 15x15, in the
  shard's rule (``--rule``, freestyle unless said; the manifest's ``rule``);
* one row per judged position: ``game`` (int32, the game in this shard), ``ply`` (int16, the
  stones on the board; the side to move is Black when even), ``judge`` (int32, the judge's
  score from the side to move's view, ``MATE`` or ``-MATE`` for a forced result),
  ``judge_mate`` (int16, plies to that result, signed; 0 when none) and ``judge_move``
  (int16, the judge's move, -1 when none). The move played there is ``moves`` at ``ply``.

Every position from ``FIRST_PLY`` stones to the one before the game's last move is judged.
Self-play game ``i`` of shard ``K`` depends only on ``(seed, K, i)`` and the node count: the
engine searches ``--nodes`` nodes a move (the same game on any host), from a match opening
turned by a random symmetry plus up to two random stones, with a little evaluation noise for
variety; in renju the random stones are never a forbidden point for Black. The games are
played and judged in ``--rule`` (the judge is told it: Rapfi gets ``INFO rule``), and a rule's
shards go to a folder of its own (``data/selfplay`` for freestyle, ``data/selfplay-renju``,
``data/selfplay-standard``), so that ``tools/tune_eval.py shards`` never mixes rules. The
judge searches ``--judge-nodes`` nodes a position (``INFO max_node``; Rapfi honours it, so its
labels are the same on any host too). With ``--psq`` the games are recorded
match games instead (those that end in a five or a full board), shard ``K`` taking the
records ``K * N`` to ``K * N + N - 1`` in file-name order.

With ``--children C`` the positions are the ones a search meets beside a game's line rather
than on it: for every position of source shard ``K``'s games (``--from``, a folder of finished
shards, ``data/selfplay`` unless said; its first ``--games`` games), the first ``C`` of the
search's own root candidates there other than the move the game played (the kernels'
``root_moves`` order, the order master searches them in), each played and the position after
it judged. Such a shard (``data/children`` unless said) keeps the source games whole, as
``moves``, ``lengths`` and ``results``, and one more array, ``child`` (int16, ``y * 15 + x``):
the judged position is the game's first ``ply`` moves then ``child``, so ``ply`` counts the
stones before the child's, and the side to move is the one after it. Its manifest names the
source shard and that shard's array file's SHA-256.

With ``--leaves`` the positions are the leaves of the search's principal variations: for every
position of source shard ``K``'s games (``--from``, as with ``--children``), master searches it
afresh to ``--nodes`` nodes and its principal variation is played out, up to the move that
would end the game; the position at its end, the leaf whose value the search's score came
from, is judged. Such a shard (``data/leaves`` unless said) keeps the source games whole and
two more arrays: ``line`` (int16, ``y * 15 + x``, every row's line one after another) and
``line_len`` (int16, each row's line's length, 1 or more): the judged position is the game's
first ``ply`` moves then the row's line; its manifest's ``self_play_nodes`` is the lines'
searches' node count. ``judged_lines`` reads every kind of shard so.

``--check ROWS`` makes nothing: it asks a fresh judge again about ``ROWS`` of a finished
shard's judged positions, drawn at random, and prints how many it scores the same and how many
close (within ``CLOSE`` or a forced result the same way); it fails when fewer than
``CHECK_SHARE`` of them are close. A judge that keeps its tables between positions does not
repeat itself exactly, but a sound shard agrees closely; a judge that went wrong while making
it does not.

A shard in progress is kept as ``shard-KKKKK.partial.npz`` every ``--save-every`` games;
``--resume`` continues it (the settings must match), and without ``--resume`` the tool
refuses to overwrite it or a finished shard. The format is read back by ``load_shard``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.gomocup.match import EngineSpec, parse_engine
from engine.gomocup.openings import openings
from engine.search import Limits, SearchOptions, search
from engine.types import Color, Point, Rule
from tools import shards

SIZE = 15
FORMAT = 1  # the shard layout above; bump it when the layout changes
FIRST_PLY = 4  # positions from this many stones on are judged
MAX_PLIES = 160  # a self-play game is a draw after this many moves
MATE = 30000  # a judge's forced result, beyond every score it prints
SMALL_TT = 160 * 2**20 + 2 * 16 * 2**16  # the self-play searches' memory (a 64k-entry table)
JUDGE_CAP_MS = 30_000  # the judge's turn time: only a cap, the node count binds
ROOT = shards.ROOT
RULES = (Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU)  # the 15x15 rules the judge knows
CLOSE = 400  # --check: scores this near count as the same judgement
CHECK_SHARE = 0.8  # --check: the share of close judgements a sound shard reaches

Int = npt.NDArray[np.int64]


class DataGenError(RuntimeError):
    """A shard that cannot be made as asked (it exists, or its partial file does not match)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What decides a shard's contents (a partial shard is resumed only with the same)."""

    shard: int
    games: int
    nodes: int  # self-play nodes a move (0 with --psq)
    seed: int
    judge_nodes: int
    # "selfplay", "psq" for recorded games, "children" for positions beside them, "leaves" for
    # the ends of the search's principal variations from them
    source: str
    rule: Rule = Rule.FREESTYLE  # the rule the games are played and judged in
    children: int = 0  # with source "children": the candidates judged a position


@dataclass(slots=True)
class Shard:
    """A shard's games and judged positions, as lists while it grows."""

    moves: list[int] = dataclasses.field(default_factory=list)
    lengths: list[int] = dataclasses.field(default_factory=list)
    results: list[int] = dataclasses.field(default_factory=list)
    game: list[int] = dataclasses.field(default_factory=list)
    ply: list[int] = dataclasses.field(default_factory=list)
    judge: list[int] = dataclasses.field(default_factory=list)
    judge_mate: list[int] = dataclasses.field(default_factory=list)
    judge_move: list[int] = dataclasses.field(default_factory=list)
    child: list[int] | None = None  # a children shard's: the move after ``ply`` moves
    # a leaves shard's: each row's principal variation, played after ``ply`` moves (flat), and
    # its length
    line: list[int] | None = None
    line_len: list[int] | None = None

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The arrays of the shard file."""
        arrays: dict[str, npt.NDArray[Any]] = {
            "moves": np.array(self.moves, dtype=np.int16),
            "lengths": np.array(self.lengths, dtype=np.int32),
            "results": np.array(self.results, dtype=np.int8),
            "game": np.array(self.game, dtype=np.int32),
            "ply": np.array(self.ply, dtype=np.int16),
            "judge": np.array(self.judge, dtype=np.int32),
            "judge_mate": np.array(self.judge_mate, dtype=np.int16),
            "judge_move": np.array(self.judge_move, dtype=np.int16),
        }
        if self.child is not None:
            arrays["child"] = np.array(self.child, dtype=np.int16)
        if self.line is not None and self.line_len is not None:
            arrays["line"] = np.array(self.line, dtype=np.int16)
            arrays["line_len"] = np.array(self.line_len, dtype=np.int16)
        return arrays

    def add(
        self,
        index: int,
        moves: Sequence[int],
        result: int,
        rows: list[tuple[int, int, int, int]],
        children: Sequence[int] | None = None,
        lines: Sequence[Sequence[int]] | None = None,
    ) -> None:
        """Game ``index`` with its judged positions (``judge_game``'s rows; in a children
        shard, ``children`` names each row's child, in a leaves shard ``lines`` its line)."""
        self.moves.extend(moves)
        self.lengths.append(len(moves))
        self.results.append(result)
        for ply, score, mate, move in rows:
            self.game.append(index)
            self.ply.append(ply)
            self.judge.append(score)
            self.judge_mate.append(mate)
            self.judge_move.append(move)
        if children is not None:
            assert self.child is not None, "children go in a children shard"
            assert len(children) == len(rows)
            self.child.extend(children)
        if lines is not None:
            assert self.line is not None, "lines go in a leaves shard"
            assert self.line_len is not None, "lines go in a leaves shard"
            assert len(lines) == len(rows)
            for line in lines:
                self.line.extend(line)
                self.line_len.append(len(line))

    @classmethod
    def from_arrays(cls, data: Any) -> Shard:
        """A shard read back from ``arrays``' form."""
        found = {f.name: data[f.name].tolist() for f in dataclasses.fields(cls) if f.name in data}
        return cls(**found)


def load_shard(
    folder: Path, shard: int, rule: Rule | None = None
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
    """A finished shard's arrays and manifest; with ``rule``, only a shard played in that
    rule (a manifest without a rule is freestyle's), so a fit never mixes rules.

    Raises:
        DataGenError: when the array file does not match its manifest's hash.
        ValueError: the shard was played in another rule than ``rule``.
    """
    path = folder / f"{shards.name(shard)}.npz"
    manifest = json.loads((folder / f"{shards.name(shard)}.json").read_text(encoding="utf-8"))
    played = manifest.get("rule", Rule.FREESTYLE.value)
    if rule is not None and played != rule.value:
        raise ValueError(
            f"{folder / shards.name(shard)}.json holds {played} games, not {rule.value}"
            f" (--rule {played})"
        )
    if shards.sha256(path) != manifest["sha256"]:
        raise DataGenError(f"{path} does not match its manifest")
    with np.load(path) as data:
        return {name: data[name] for name in data.files}, manifest


# --------------------------------------------------------------------------- games


def _symmetry(point: Point, s: int) -> Point:
    x, y = point.x, point.y
    if s & 1:
        x = SIZE - 1 - x
    if s & 2:
        y = SIZE - 1 - y
    if s & 4:
        x, y = y, x
    return Point(x, y)


def selfplay_game(settings: Settings, index: int) -> tuple[list[int], int]:
    """Self-play game ``index`` of the shard: its moves (``y * SIZE + x``) and Black's result.
    It depends only on the settings' seed, shard and node count and on ``index``."""
    rng = random.Random(f"{settings.seed}:{settings.shard}:{index}")
    turn = rng.randrange(8)
    board = Board.from_moves(
        [_symmetry(p, turn) for p in rng.choice(openings(SIZE))], size=SIZE, rule=settings.rule
    )
    for _ in range(rng.choice((0, 0, 1, 2))):
        while True:
            point = Point(rng.randrange(4, SIZE - 4), rng.randrange(4, SIZE - 4))
            # empty, and in renju never a forbidden point for Black
            if board.is_legal(point):
                board.play(point)
                break
    noise = [rng.choice((0, 0, 10, 25)) for _ in range(2)]
    while board.outcome is None and len(board.moves) < MAX_PLIES and not board.is_full():
        side = 0 if board.to_move is Color.BLACK else 1
        options = SearchOptions(noise=noise[side], seed=rng.randrange(1 << 30))
        result = search(board, Limits(nodes=settings.nodes, memory_bytes=SMALL_TT), options)
        board.play(result.move)
    winner = board.outcome.winner if board.outcome is not None else None
    score = 0 if winner is None else (1 if winner is Color.BLACK else -1)
    return [m.point.y * SIZE + m.point.x for m in board.moves], score


def recorded_games(paths: Sequence[Path], settings: Settings) -> list[tuple[list[int], int]]:
    """The shard's slice of the PSQ records under ``paths`` that end in a five or a full
    board, in ``selfplay_game``'s form."""
    from tools.tune_eval import games_from_psq

    games, _ = games_from_psq(list(paths))
    starts = np.concatenate([[0], np.cumsum(games["lengths"])])
    first = settings.shard * settings.games
    found: list[tuple[list[int], int]] = []
    for gi in range(first, min(first + settings.games, len(games["lengths"]))):
        moves = games["moves"][starts[gi] : starts[gi + 1]]
        found.append(([int(m) for m in moves], int(games["results"][gi])))
    return found


# --------------------------------------------------------------------------- labels


def judge_game(judge: Any, moves: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """Ask the judge about every position of a game from ``FIRST_PLY`` stones to the one
    before its last move: per position that got an evaluation, its ply, the judge's score
    (``MATE`` for a forced result), the plies to that result (0 none) and the judge's move
    (-1 none)."""
    points = [Point(m % SIZE, m // SIZE) for m in moves]
    rows: list[tuple[int, int, int, int]] = []
    for ply in range(FIRST_PLY, len(points)):
        row = label_row(ply, judge.ask(points[:ply]))
        if row is not None:
            rows.append(row)
    return rows


def label_row(ply: int, opinion: Any) -> tuple[int, int, int, int] | None:
    """A judged position's row: ``ply``, the judge's score (``MATE`` for a forced result),
    the plies to that result (0 none) and the judge's move (-1 none); None when the judge
    printed no evaluation (no label)."""
    value = opinion.eval
    if value is None:
        return None
    mate = value.mate or 0
    score = value.score if mate == 0 else (MATE if mate > 0 else -MATE)
    move = opinion.move
    return ply, score, mate, -1 if move is None else move.y * SIZE + move.x


def candidates(moves: Sequence[int], rule: Rule, count: int, leave_out: int) -> list[int]:
    """The first ``count`` root candidates of the search in the position after ``moves``, in
    the order it searches them, other than ``leave_out``."""
    from engine.search import _kernels as kernels
    from engine.search._position import Position

    board = Board.from_moves([Point(m % SIZE, m // SIZE) for m in moves], size=SIZE, rule=rule)
    position = Position.from_board(board, tt_size=16)
    found = int(kernels.root_moves(position.st, position.sr))
    chosen: list[int] = []
    for index in position.sr[11][:found]:
        point = position.point(int(index))
        if point.y * SIZE + point.x != leave_out:
            chosen.append(point.y * SIZE + point.x)
            if len(chosen) == count:
                break
    return chosen


def judge_children(
    judge: Any, moves: Sequence[int], rule: Rule, count: int
) -> tuple[list[tuple[int, int, int, int]], list[int]]:
    """Ask the judge about the positions beside a game's line: after each position from
    ``FIRST_PLY`` stones to the one before its last move, each of the search's first
    ``count`` candidates but the game's move (``candidates``); ``judge_game``'s rows (``ply``:
    the stones before the child's) and each row's child."""
    points = [Point(m % SIZE, m // SIZE) for m in moves]
    rows: list[tuple[int, int, int, int]] = []
    children: list[int] = []
    for ply in range(FIRST_PLY, len(points)):
        for child in candidates(moves[:ply], rule, count, moves[ply]):
            row = label_row(ply, judge.ask([*points[:ply], Point(child % SIZE, child // SIZE)]))
            if row is not None:
                rows.append(row)
                children.append(child)
    return rows, children


def principal_line(moves: Sequence[int], rule: Rule, nodes: int) -> list[int]:
    """The search's principal variation in the position after ``moves``, searched afresh to
    ``nodes`` nodes (the same line on any host), up to the move that would end the game: the
    line to the leaf whose value the search's score came from."""
    board = Board.from_moves([Point(m % SIZE, m // SIZE) for m in moves], size=SIZE, rule=rule)
    result = search(board, Limits(nodes=nodes, memory_bytes=SMALL_TT))
    line: list[int] = []
    for point in result.pv:
        if not board.is_legal(point):
            break
        board.play(point)
        if board.outcome is not None or board.is_full():
            break
        line.append(point.y * SIZE + point.x)
    return line


def judge_leaves(
    judge: Any, moves: Sequence[int], rule: Rule, nodes: int
) -> tuple[list[tuple[int, int, int, int]], list[list[int]]]:
    """Ask the judge about the leaves of the search's principal variations: for each position
    of a game from ``FIRST_PLY`` stones to the one before its last move, the position at the
    end of ``principal_line`` (none where the line is empty); ``judge_game``'s rows (``ply``:
    the game's stones before the line) and each row's line."""
    points = [Point(m % SIZE, m // SIZE) for m in moves]
    rows: list[tuple[int, int, int, int]] = []
    lines: list[list[int]] = []
    for ply in range(FIRST_PLY, len(points)):
        line = principal_line(moves[:ply], rule, nodes)
        if not line:
            continue
        row = label_row(
            ply, judge.ask([*points[:ply], *(Point(m % SIZE, m // SIZE) for m in line)])
        )
        if row is not None:
            rows.append(row)
            lines.append(line)
    return rows, lines


def source_games(folder: Path, settings: Settings) -> tuple[list[tuple[list[int], int]], str]:
    """The first ``settings.games`` games of source shard ``settings.shard`` in ``folder``
    (played in the settings' rule), in ``selfplay_game``'s form, and its array file's
    SHA-256.

    Raises:
        DataGenError: the folder holds no such finished shard, or one of another rule.
    """
    if not (folder / f"{shards.name(settings.shard)}.json").is_file():
        raise DataGenError(f"no finished shard {settings.shard} in {folder}")
    try:
        arrays, manifest = load_shard(folder, settings.shard, settings.rule)
    except ValueError as error:
        raise DataGenError(str(error)) from error
    starts = np.concatenate([[0], np.cumsum(arrays["lengths"])])
    games = [
        ([int(m) for m in arrays["moves"][starts[gi] : starts[gi + 1]]], int(arrays["results"][gi]))
        for gi in range(min(settings.games, len(arrays["lengths"])))
    ]
    return games, str(manifest["sha256"])


# --------------------------------------------------------------------------- the shard


def _save(path: Path, arrays: dict[str, Any]) -> None:
    shards.replace(path, lambda tmp: np.savez_compressed(tmp, **arrays), ".tmp.npz")


def _settings_array(settings: Settings) -> npt.NDArray[np.str_]:
    fields = dataclasses.asdict(settings)
    # freestyle's partial files name no rule, as they did before there was a choice
    if settings.rule is Rule.FREESTYLE:
        del fields["rule"]
    else:
        fields["rule"] = settings.rule.value
    if not settings.children:  # nor do the partial files of shards of whole games
        del fields["children"]
    return np.array(json.dumps(fields, sort_keys=True))


def make_shard(
    folder: Path,
    settings: Settings,
    judge_spec: EngineSpec,
    *,
    resume: bool = False,
    psq: Sequence[Path] = (),
    source_folder: Path | None = None,
    save_every: int = 5,
    stop_after: int | None = None,
    command: str = "",
    log: Any = print,
) -> Path | None:
    """Make (or, with ``resume``, continue) one shard in ``folder``; returns the manifest's
    path, or None when ``stop_after`` games were played this run and the shard is unfinished.
    A children shard (``settings.children``) reads its games from ``source_folder``.

    Raises:
        DataGenError: the shard exists, its partial file exists without ``resume``, or the
            partial file was made with other settings.
    """
    from tools.judge import Judge, JudgeError

    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{shards.name(settings.shard)}.npz"
    partial = folder / f"{shards.name(settings.shard)}.partial.npz"
    leaves = settings.source == "leaves"
    shard = Shard(
        child=[] if settings.children else None,
        line=[] if leaves else None,
        line_len=[] if leaves else None,
    )
    if shards.claim(final, partial, settings.shard, resume=resume, error=DataGenError):
        with np.load(partial) as data:
            if str(data["settings"]) != str(_settings_array(settings)):
                raise DataGenError(f"{partial} was made with other settings: {data['settings']}")
            shard = Shard.from_arrays(data)
            started = float(data["seconds"])
    else:
        started = 0.0
    recorded = recorded_games(psq, settings) if settings.source == "psq" else None
    source_hash = None
    if settings.children or leaves:
        assert source_folder is not None, "a children or leaves shard reads its games from a folder"
        recorded, source_hash = source_games(source_folder, settings)
    total = settings.games if recorded is None else len(recorded)
    done = len(shard.lengths)
    if done:
        log(f"shard {settings.shard}: resuming after {done} of {total} games")
    commit = shards.engine_commit()  # the code that plays and labels, as it was at the start
    clock = time.perf_counter()
    played = 0

    def seconds() -> float:
        return started + time.perf_counter() - clock

    def save_partial() -> None:
        extra = {"settings": _settings_array(settings), "seconds": np.array(seconds())}
        _save(partial, shard.arrays() | extra)

    with Judge(
        judge_spec, turn_ms=JUDGE_CAP_MS, size=SIZE, rule=settings.rule, nodes=settings.judge_nodes
    ) as judge:
        about = judge.about()
        for index in range(done, total):
            if stop_after is not None and played >= stop_after:
                break
            moves, result = (
                recorded[index] if recorded is not None else selfplay_game(settings, index)
            )
            children = None
            lines = None
            try:
                if settings.children:
                    rows, children = judge_children(judge, moves, settings.rule, settings.children)
                elif leaves:
                    rows, lines = judge_leaves(judge, moves, settings.rule, settings.nodes)
                else:
                    rows = judge_game(judge, moves)
            except JudgeError as error:
                save_partial()
                raise DataGenError(
                    f"the judge failed in game {index} ({error}); --resume continues"
                ) from error
            shard.add(index, moves, result, rows, children, lines)
            played += 1
            if (index + 1) % save_every == 0 or index + 1 == total:
                save_partial()
                log(
                    f"shard {settings.shard}: {index + 1}/{total} games, "
                    f"{len(shard.game)} positions, {seconds():.0f} s"
                )
    if len(shard.lengths) < total:
        save_partial()
        return None
    _save(final, shard.arrays())
    results = np.array(shard.results)
    manifest = {
        "format": FORMAT,
        "shard": settings.shard,
        "source": settings.source,
        "rule": settings.rule.value,
        "command": command,
        "seed": settings.seed,
        "self_play_nodes": settings.nodes,
        **(
            {
                **({"children": settings.children} if settings.children else {}),
                "from": {
                    "folder": shards.relative(source_folder),
                    "shard": settings.shard,
                    "sha256": source_hash,
                },
            }
            if (settings.children or leaves) and source_folder is not None
            else {}
        ),
        "engine": shards.engine(commit),
        "judge": shards.judge(judge_spec.argv, judge_spec.cwd, about, settings.judge_nodes),
        "counts": {
            "games": len(shard.lengths),
            "moves": len(shard.moves),
            "positions": len(shard.game),
            "forced": int(sum(1 for m in shard.judge_mate if m != 0)),
            "black_wins": int((results > 0).sum()),
            "white_wins": int((results < 0).sum()),
            "draws": int((results == 0).sum()),
        },
        "seconds": round(seconds(), 1),
        "sha256": shards.sha256(final),
    }
    path = folder / f"{shards.name(settings.shard)}.json"
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    partial.unlink(missing_ok=True)
    return path


def judged_lines(arrays: dict[str, npt.NDArray[Any]]) -> list[list[int]]:
    """The moves (point indices, Black first) that make each judged position of a shard's
    ``arrays`` (``load_shard``'s), in row order: its game's first ``ply`` moves, then a
    children shard's ``child`` or a leaves shard's ``line``."""
    starts = np.concatenate([[0], np.cumsum(arrays["lengths"])]).tolist()
    moves = arrays["moves"].tolist()
    children = arrays.get("child")
    pv = arrays["line"].tolist() if "line" in arrays else None
    pv_at = np.concatenate([[0], np.cumsum(arrays["line_len"])]).tolist() if pv is not None else []
    lines = []
    for i, (gi, ply) in enumerate(
        zip(arrays["game"].tolist(), arrays["ply"].tolist(), strict=True)
    ):
        line = moves[starts[gi] : starts[gi] + ply]
        if children is not None:
            line.append(int(children[i]))
        if pv is not None:
            line.extend(pv[pv_at[i] : pv_at[i + 1]])
        lines.append(line)
    return lines


@dataclass(frozen=True, slots=True)
class Check:
    """How a fresh judge's scores compare with a shard's (``check_shard``)."""

    asked: int  # positions asked again (those it gave no evaluation are left out)
    same: int  # scored exactly as the shard has them
    close: int  # within ``CLOSE``, or a forced result for the same side

    @property
    def sound(self) -> bool:
        """Whether enough of the judgements are close."""
        return self.asked > 0 and self.close >= CHECK_SHARE * self.asked


def check_shard(
    folder: Path, shard: int, judge_spec: EngineSpec, rows: int, rule: Rule, *, seed: int = 0
) -> Check:
    """Ask a fresh judge again about ``rows`` of the shard's judged positions, drawn at random
    (``seed``), at the node count its manifest names.

    Raises:
        DataGenError: the shard does not load, or the judge failed.
    """
    from tools.judge import Judge, JudgeError

    try:
        arrays, manifest = load_shard(folder, shard, rule)
    except (OSError, ValueError) as error:
        raise DataGenError(f"cannot read shard {shard} in {folder}: {error}") from error
    lines = judged_lines(arrays)
    chosen = np.random.default_rng(seed).permutation(len(arrays["game"]))[:rows]
    asked = same = close = 0
    nodes = int(manifest["judge"]["nodes"])
    try:
        with Judge(judge_spec, turn_ms=JUDGE_CAP_MS, size=SIZE, rule=rule, nodes=nodes) as judge:
            for i in sorted(chosen.tolist()):
                line = lines[i]
                row = label_row(
                    int(arrays["ply"][i]), judge.ask([Point(m % SIZE, m // SIZE) for m in line])
                )
                if row is None:
                    continue
                asked += 1
                stored = int(arrays["judge"][i])
                same += row[1] == stored
                forced = abs(row[1]) == MATE or abs(stored) == MATE
                close += row[1] == stored if forced else abs(row[1] - stored) <= CLOSE
    except JudgeError as error:
        raise DataGenError(f"the judge failed ({error})") from error
    return Check(asked, same, close)


def default_folder(rule: Rule) -> str:
    """The folder under ``data/`` that holds the self-play shards of ``rule``."""
    return "selfplay" if rule is Rule.FREESTYLE else f"selfplay-{rule.value}"


def output_folder(source: str, rule: Rule) -> str:
    """The folder under ``data/`` a shard made from ``source`` in ``rule`` goes to: each
    folder holds one rule's shards (``data/leaves-standard/`` beside ``data/leaves/``)."""
    named = {"psq": "matches", "children": "children", "leaves": "leaves"}.get(source)
    if named is None:
        return default_folder(rule)
    return named if rule is Rule.FREESTYLE else f"{named}-{rule.value}"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python tools/datagen.py", description=__doc__)
    parser.add_argument("--shard", type=int, required=True, help="the shard's number")
    parser.add_argument("--games", type=int, help="games in the shard")
    parser.add_argument("--nodes", type=int, default=20_000, help="self-play nodes a move")
    parser.add_argument("--psq", type=Path, nargs="+", help="recorded games instead")
    parser.add_argument(
        "--children",
        type=int,
        default=0,
        help="judge this many of the search's candidates beside each position of a shard's games",
    )
    parser.add_argument(
        "--leaves",
        action="store_true",
        help="judge the end of the search's principal variation (--nodes) from each position of"
        " a shard's games",
    )
    parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        help="with --children or --leaves: the folder of the source shard (default data/selfplay)",
    )
    parser.add_argument("--judge", required=True, help="the judge's command line")
    parser.add_argument("--judge-cwd", help="the judge's working directory")
    parser.add_argument("--judge-nodes", type=int, default=20_000, help="judge nodes a position")
    parser.add_argument(
        "--rule",
        choices=[rule.value for rule in RULES],
        default=Rule.FREESTYLE.value,
        help="the rule the games are played and judged in",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--out", type=Path, help="default data/selfplay (-RULE beside freestyle) or data/matches"
    )
    parser.add_argument("--save-every", type=int, default=5, help="games between saves")
    parser.add_argument("--resume", action="store_true", help="continue a partial shard")
    parser.add_argument(
        "--check", type=int, metavar="ROWS", help="ask a fresh judge again about ROWS positions"
    )
    options = parser.parse_args(argv)
    rule = Rule(options.rule)
    judge = dataclasses.replace(parse_engine(options.judge), cwd=options.judge_cwd)
    if options.check is not None:
        if options.out is None or options.check < 1:
            parser.error("--check needs --out, the shard's folder, and 1 row or more")
        try:
            check = check_shard(options.out, options.shard, judge, options.check, rule)
        except DataGenError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        print(
            f"shard {options.shard}: {check.asked} positions asked again, {check.same} scored the"
            f" same, {check.close} close ({'sound' if check.sound else 'NOT sound'})"
        )
        return 0 if check.sound else 1
    if options.games is None:
        parser.error("--games is needed to make a shard")
    if options.shard < 0 or options.games < 1 or options.nodes < 1 or options.judge_nodes < 1:
        parser.error("--shard must be 0 or more; --games, --nodes and --judge-nodes 1 or more")
    if options.psq and rule is not Rule.FREESTYLE:
        parser.error("--psq reads freestyle records only")
    if options.children < 0 or (options.children and options.psq):
        parser.error("--children must be 0 or more, and reads shards, not --psq records")
    if options.leaves and (options.children or options.psq):
        parser.error("--leaves reads shards, and goes with neither --children nor --psq")
    if options.source is not None and not (options.children or options.leaves):
        parser.error("--from goes with --children or --leaves")
    source = (
        "psq"
        if options.psq
        else "children"
        if options.children
        else "leaves"
        if options.leaves
        else "selfplay"
    )
    settings = Settings(
        shard=options.shard,
        games=options.games,
        nodes=0 if options.psq or options.children else options.nodes,
        seed=options.seed,
        judge_nodes=options.judge_nodes,
        source=source,
        rule=rule,
        children=options.children,
    )
    source_folder = options.source or ROOT / "data" / default_folder(rule)
    folder = options.out or ROOT / "data" / output_folder(source, rule)
    command = shlex.join(["python", "tools/datagen.py", *(sys.argv[1:] if argv is None else argv)])
    try:
        path = make_shard(
            folder,
            settings,
            judge,
            resume=options.resume,
            psq=options.psq or (),
            source_folder=source_folder if options.children or options.leaves else None,
            save_every=max(1, options.save_every),
            command=command,
        )
    except DataGenError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
