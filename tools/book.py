"""Make master's opening book: White's answer to every three-stone opening, in resumable shards.

    python tools/book.py --shard K --judge CMD [--nodes 1000000] [--judge-nodes 500000] \\
        [--alternatives 2] [--out data/book] [--resume]
    python tools/book.py --second --shard K --judge CMD [...]     # into data/book/second
    python tools/book.py --black --shard K --judge CMD [...]      # into data/book/black
    python tools/book.py --black --second --shard K --judge CMD [...]  # data/book/black/second
    python tools/book.py --collect-replies FOLDER... [--min-count 2]  # data/book/replies
    python tools/book.py --replies --shard K --judge CMD [...]    # into data/book/replies
    python tools/book.py --collect-replies FOLDER... --black  # data/book/black/replies
    python tools/book.py --black --replies --shard K --judge CMD [...]  # data/book/black/replies
    python tools/book.py --build [--second] [--black] [--out data/book]
    python tools/book.py --list [--first K --count N]

The openings are the 251 of ``tools/check_openings.py``'s candidates (Black in the centre,
White within 2 points of it, Black's second stone within 4, one of each 8 symmetric copies),
the 64 match openings of ``engine.gomocup.openings`` first (in their order), then the rest
in sorted order; shard ``K`` holds openings ``16 K`` to ``16 K + 15`` (``--per-shard``).

For each opening (White to move, 15x15 freestyle):

1. master's search (``engine.search.search``, master's options) with ``--nodes`` nodes gives
   its move and score;
2. its next ``--alternatives`` candidates: every legal point within two of a stone is scored
   by a one-ply search, and the best ``2 * alternatives`` of them (other than the move above)
   get a search of Black's answer with a quarter of ``--nodes`` each; the best by that score
   are kept;
3. the judge (an outside protocol engine; Rapfi honours ``INFO max_node``, so its answers are
   the same on any host) is asked about the position after each candidate with
   ``--judge-nodes`` nodes, and about the opening itself (its own move, kept for reference);
4. the candidate the judge rates best for the side to move becomes the book move (ties:
   master's order).

With ``--second`` the positions are White's second move instead: each opening of the finished
first-move shards (in their order) with its book move and the judge's reply to that move
(Black's best in the judge's view), five stones; their shards go to ``OUT/second``.

With ``--black`` the positions are Black's first free move instead: each opening of the
finished first-move shards (in their order) after each White move its record names, master's
candidates in master's order and then the judge's own move (the answers strong play gives),
four stones; a position met before (the same stones by another opening) is left out. Their
shards go to ``OUT/black``.

With ``--collect-replies`` the positions of White's second move are taken from recorded games
instead (``tools/ab.py``'s ``games.jsonl`` in each FOLDER, plain or packed, 15x15 freestyle):
every game in which master played White and its first move was the shipped book's, after the
opponent's reply, five stones; each position once under the board's symmetries, kept where at
least ``--min-count`` games reached it, the most often reached first. They are written to
``OUT/replies/positions.json`` with the games they came from; ``--replies --shard K`` then
studies them as above, into ``OUT/replies``. Where the judge's reply covers the replies strong
play gives, these cover the ones the opponents measured against actually gave. With
``--black`` as well, the positions are Black's first free move instead: every game in which
master played Black, after the opponent's first stone, four stones, where the shipped book has
no move; ``OUT/black/replies/positions.json``, and ``--black --replies --shard K`` studies them
into ``OUT/black/replies``.

With ``--black --second`` the positions are Black's second free move: each position of the
finished Black shards (in their order) with its book move and the judge's reply to it, six
stones, each position once; their shards go to ``OUT/black/second``.

Everything is a fixed node count, so the same command gives the same book on any host.

A shard is ``shard-KKKKK.json``: the settings, the command, the engine's version and commit,
the judge's command and ``ABOUT``, one record per opening (every candidate with master's and
the judge's score) and its counts. While it is made, ``shard-KKKKK.partial.json`` is kept after
each opening; ``--resume`` continues it (with the same settings). ``--build`` gathers every
finished first-move shard (and with ``--second`` the second move's) into
``engine/search/data/book.json`` (key and move per position, see ``engine.search.book``) and
``book.manifest.json`` (the settings, the shards with their SHA-256, the counts and the
book's SHA-256); ``--build --black`` gathers Black's first free move's shards as well, and
``--build --black --second`` Black's second free move's too (then White's second stays out),
and ``--replies`` the recorded replies' (with Black's first free move's where ``--black`` is
given too; not with White's second move of ``--second``, which may hold the same positions);
``--black-replies`` gathers Black's first free move after recorded first stones as well. Any
of them may be gathered together but White's second move of ``--second``, gathered alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.errors import GomokuError
from engine.gomocup.match import EngineSpec, parse_engine
from engine.gomocup.openings import OPENINGS, offsets
from engine.search.book import BOOK_PATH, FORMAT, canonical, transform
from engine.types import Color, Point, Rule
from tools import shards
from tools.ab import GAMES_FILE, PACKED, RUNS_FILE, record_lines
from tools.check_openings import candidates
from tools.check_openings import canonical as canonical_offsets
from tools.judge import Eval

SIZE = 15
RULE = Rule.FREESTYLE
PER_SHARD = 16
SECOND = "second"  # the folder of White's second move's shards, inside the first move's
BLACK = "black"  # the folder of Black's first free move's shards, inside the first move's
# the folder of White's second move after recorded replies, inside the first move's
REPLIES = "replies"
REPLIES_FILE = "positions.json"
JUDGE_CAP_MS = 120_000  # the judge's turn time: only a cap, the node count binds
MATE = 30000  # a judge's forced result on the scale of its scores
ROOT = shards.ROOT
MANIFEST_PATH = BOOK_PATH.with_name("book.manifest.json")

Offsets = tuple[tuple[int, int], ...]


class BookError(RuntimeError):
    """A shard exists, or its partial file was made with other settings."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What a shard's records depend on."""

    shard: int
    per_shard: int
    nodes: int
    alternatives: int
    judge_nodes: int
    # White's second move: the positions after each first-move record's book move and the
    # judge's reply to it (``second_openings``), in place of the three-stone openings
    second: bool = False
    # Black's first free move: the positions after each first-move record's White moves
    # (``black_openings``)
    black: bool = False
    # White's second move after recorded replies: the SHA-256 of the positions file
    # (``collect_replies``) the shard studies, empty for the other kinds
    replies: str = ""


def book_openings() -> list[Offsets]:
    """Every opening the book covers: the match openings first, then the other candidates."""
    match = [canonical_offsets(tuple(offsets(text))) for text in OPENINGS]
    rest = [stones for stones in candidates(2, 4) if stones not in set(match)]
    return match + rest


def second_openings(first: Path, *, once: bool = False) -> list[Offsets]:
    """The positions of the side's second move: each finished shard's openings in ``first``
    in order, with the book's move and the judge's reply to it (the opponent's best by its
    judgement, what a strong opponent most likely plays): five stones after the first-move
    shards (White's second move), six after the Black shards (Black's second free move). An
    opening whose judge gave no reply is left out; with ``once``, so is a position met before
    (White's second move's shards were made without it, and keep their order)."""
    centre = SIZE // 2
    found: list[Offsets] = []
    seen: set[str] = set()
    for path in sorted(first.glob("shard-?????.json")):
        for record in json.loads(path.read_text(encoding="utf-8"))["records"]:
            chosen = next(c for c in record["candidates"] if c["move"] == record["move"])
            if chosen["judge_reply"] is None:
                continue
            stones = list(offsets(record["opening"]))
            for text in (record["move"], chosen["judge_reply"]):
                x, y = (int(v) for v in text.split(","))
                stones.append((x - centre, y - centre))
            board = opening_board(tuple(stones))
            if board.outcome is not None:
                continue
            if once:
                key, _ = canonical(board.stones(Color.BLACK), board.stones(Color.WHITE), SIZE)
                if key in seen:
                    continue
                seen.add(key)
            found.append(tuple(stones))
    return found


def black_openings(first: Path) -> list[Offsets]:
    """The four-stone positions of Black's first free move: each finished first-move shard's
    openings in order, after each White move the record names (master's candidates in its
    order, then the judge's own move), each position once under the board's symmetries."""
    centre = SIZE // 2
    found: list[Offsets] = []
    seen: set[str] = set()
    for path in sorted(first.glob("shard-?????.json")):
        for record in json.loads(path.read_text(encoding="utf-8"))["records"]:
            moves = [c["move"] for c in record["candidates"]]
            if record["judge_move"] is not None:
                moves.append(record["judge_move"])
            for text in moves:
                x, y = (int(v) for v in text.split(","))
                stones = (*offsets(record["opening"]), (x - centre, y - centre))
                board = opening_board(stones)
                key, _ = canonical(board.stones(Color.BLACK), board.stones(Color.WHITE), SIZE)
                if key not in seen and board.outcome is None:
                    seen.add(key)
                    found.append(stones)
    return found


def collect_replies(
    folders: Sequence[Path], min_count: int = 1, *, black: bool = False
) -> dict[str, Any]:
    """The five-stone positions of White's second move in the recorded games of ``folders``
    (each a ``tools/ab.py`` run: ``games.jsonl``, with ``runs.jsonl`` naming its rule and
    size): every game master played as White whose fourth stone is the shipped book's move,
    after the opponent's reply; each position once under the board's symmetries (its stones
    turned into the frame of its canonical key), kept where ``min_count`` games or more reached
    it, the most often reached first (ties by key). With ``black``, the four-stone positions of
    Black's first free move instead: every game master played as Black, after the opponent's
    first stone, where the shipped book has no move. Returns the positions file's content.

    Raises:
        BookError: a folder without games, or one whose runs name another rule or size.
    """
    from engine.notation import parse_moves
    from engine.search.book import load_book

    book = load_book()
    if book is None:
        raise BookError(f"no book at {BOOK_PATH}")
    side, stones = ("black", 4) if black else ("white", 5)
    centre = SIZE // 2
    counts: dict[str, int] = {}
    stones_of: dict[str, Offsets] = {}
    sources = []
    for folder in folders:
        games_path = folder / GAMES_FILE
        if not games_path.is_file() and not games_path.with_name(GAMES_FILE + PACKED).is_file():
            raise BookError(f"{folder} holds no {GAMES_FILE}")
        runs_path = folder / RUNS_FILE
        for line in record_lines(runs_path):
            try:
                argv = [str(word) for word in json.loads(line).get("argv", [])]
            except (AttributeError, TypeError, ValueError) as error:
                raise BookError(f"{runs_path} holds a line that is not a run: {error}") from error
            for flag, wanted in (("--rule", RULE.value), ("--size", str(SIZE))):
                given = argv[argv.index(flag) + 1 :][:1] if flag in argv else [wanted]
                if given != [wanted]:
                    raise BookError(f"{folder} was played with {flag} {' '.join(given)}")
        used = 0
        lines = record_lines(games_path)
        for number, line in enumerate(lines, 1):
            try:
                game = json.loads(line)
                moves = parse_moves(game.get("moves") or "")
                if game.get("colour") != side or len(moves) < 5:
                    continue
                board = Board.from_moves(moves[:3], size=SIZE, rule=RULE)
                answer = book.lookup(board)
                if not black and (answer is None or answer.move != moves[3]):
                    continue
                board.play(moves[3])
                if black and book.lookup(board) is not None:
                    continue
                if not black:
                    board.play(moves[4])
            except (AttributeError, TypeError, GomokuError, ValueError) as error:
                raise BookError(f"{games_path} line {number} is not a game: {error}") from error
            if board.outcome is not None:
                continue
            key, symmetry = canonical(board.stones(Color.BLACK), board.stones(Color.WHITE), SIZE)
            if key not in stones_of:
                turned = (transform(p, symmetry, SIZE) for p in moves[:stones])
                stones_of[key] = tuple((p.x - centre, p.y - centre) for p in turned)
            counts[key] = counts.get(key, 0) + 1
            used += 1
        sources.append(
            {
                "folder": shards.relative(folder),
                # the plain file's digest, which its lines give back however the folder keeps them
                "sha256": hashlib.sha256(
                    "".join(f"{line}\n" for line in lines).encode()
                ).hexdigest(),
                "games": used,
            }
        )
    kept = sorted(
        (key for key, n in counts.items() if n >= min_count), key=lambda k: (-counts[k], k)
    )
    return {
        "format": FORMAT,
        "min_count": min_count,
        "sources": sources,
        "games": sum(counts.values()),
        "covered": sum(counts[key] for key in kept),
        "positions": [{"stones": _text(stones_of[key]), "games": counts[key]} for key in kept],
    }


def replies_openings(folder: Path) -> list[Offsets]:
    """The positions of ``folder``'s positions file (``collect_replies``), in its order."""
    data = json.loads((folder / REPLIES_FILE).read_text(encoding="utf-8"))
    return [tuple(offsets(entry["stones"])) for entry in data["positions"]]


def opening_board(stones: Offsets) -> Board:
    """An opening's board, its stones played from the centre of 15x15."""
    centre = SIZE // 2
    return Board.from_moves(
        [Point(centre + dx, centre + dy) for dx, dy in stones], size=SIZE, rule=RULE
    )


def _text(stones: Offsets) -> str:
    return " ".join(f"{dx},{dy}" for dx, dy in stones)


def _point(point: Point) -> str:
    return f"{point.x},{point.y}"


def _back(score: int) -> int:
    # Black's score after a White move, seen from White (a win one ply further away)
    from engine.search.alphabeta import is_win_score

    if is_win_score(score):
        return -(score - 1)
    if is_win_score(-score):
        return -score - 1
    return -score


def _near(board: Board) -> list[Point]:
    # legal points within two of a stone: where every sensible move after an opening is
    seen: set[Point] = set()
    for move in board.moves:
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                p = Point(move.point.x + dx, move.point.y + dy)
                if p not in seen and board.on_board(p) and board.is_legal(p):
                    seen.add(p)
    return sorted(seen, key=lambda p: (p.y, p.x))


def master_candidates(board: Board, nodes: int, alternatives: int) -> list[dict[str, Any]]:
    """Master's move with ``nodes`` nodes, then its best ``alternatives`` other moves, each
    with master's score for White (see the module's text)."""
    from engine.search.alphabeta import Limits, SearchOptions, search

    options = SearchOptions()  # master's, as the protocol brain searches
    main = search(board, Limits(nodes=nodes), options)
    found = [
        {
            "move": _point(main.move),
            "master": main.score,
            "master_depth": main.depth,
            "master_nodes": main.nodes,
            "source": "search",
        }
    ]
    if alternatives <= 0:
        return found

    def after(point: Point) -> Board:
        child = board.copy()
        child.play(point)
        return child

    shallow = SearchOptions(root_vct=False, deep_vcf=0)
    ranked = sorted(
        (p for p in _near(board) if p != main.move),
        key=lambda p: (-_back(search(after(p), Limits(depth=1), shallow).score), p.y, p.x),
    )
    share = max(nodes // 4, 1)
    scored = []
    for point in ranked[: 2 * alternatives]:
        reply = search(after(point), Limits(nodes=share), options)
        scored.append((_back(reply.score), point, reply))
    scored.sort(key=lambda item: (-item[0], item[1].y, item[1].x))
    for score, point, reply in scored[:alternatives]:
        found.append(
            {
                "move": _point(point),
                "master": score,
                "master_depth": reply.depth + 1,
                "master_nodes": reply.nodes,
                "source": "reply",
            }
        )
    return found


def _judge_value(value: Eval) -> int:
    # a judge's Eval as one number: forced results beyond every score, nearer ones larger
    if value.mate:
        return (MATE - abs(value.mate)) * (1 if value.mate > 0 else -1)
    return value.score


def study(board: Board, settings: Settings, judge: Any) -> dict[str, Any]:
    """One opening's record: master's candidates, each judged, and the book's choice."""
    started = time.perf_counter()
    found = master_candidates(board, settings.nodes, settings.alternatives)
    moves = [m.point for m in board.moves]
    for candidate in found:
        x, y = (int(v) for v in candidate["move"].split(","))
        opinion = judge.ask([*moves, Point(x, y)])  # Black to move: its view, turned
        value = None if opinion.eval is None else _judge_value(opinion.eval.negated())
        candidate["judge"] = value
        candidate["judge_reply"] = None if opinion.move is None else _point(opinion.move)
    own = judge.ask(moves)
    rated = [c for c in found if c["judge"] is not None]
    best = max(rated, key=lambda c: c["judge"]) if rated else found[0]
    return {
        "candidates": found,
        "judge_move": None if own.move is None else _point(own.move),
        "judge_score": None if own.eval is None else _judge_value(own.eval),
        "move": best["move"],
        "seconds": round(time.perf_counter() - started, 1),
    }


# --------------------------------------------------------------------------- shards


def _write(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    shards.replace(path, write)


def make_shard(
    folder: Path,
    settings: Settings,
    judge_spec: EngineSpec,
    *,
    resume: bool = False,
    command: str = "",
    log: Any = print,
) -> Path:
    """Make (or, with ``resume``, continue) one shard in ``folder``; returns its path.

    Raises:
        BookError: the shard is finished, its partial file exists without ``resume``, or the
            partial file was made with other settings.
    """
    from tools.judge import Judge, JudgeError

    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{shards.name(settings.shard)}.json"
    partial = folder / f"{shards.name(settings.shard)}.partial.json"
    records: list[dict[str, Any]] = []
    spent = 0.0
    if shards.claim(final, partial, settings.shard, resume=resume, error=BookError):
        saved = json.loads(partial.read_text(encoding="utf-8"))
        if saved["settings"] != dataclasses.asdict(settings):
            raise BookError(f"{partial} was made with other settings: {saved['settings']}")
        records, spent = saved["records"], float(saved["seconds"])
    if settings.replies:
        positions_file = folder / REPLIES_FILE
        if not positions_file.is_file() or shards.sha256(positions_file) != settings.replies:
            raise BookError(f"{positions_file} is missing or not the file the settings name")
        every = replies_openings(folder)
    elif settings.second:
        # White's second move after the first-move shards, Black's after the Black shards
        every = second_openings(folder.parent, once=settings.black)
    elif settings.black:
        every = black_openings(folder.parent)
    else:
        every = book_openings()
    chosen = every[settings.shard * settings.per_shard : (settings.shard + 1) * settings.per_shard]
    if not chosen:
        raise BookError(f"shard {settings.shard} holds no opening ({len(every)} in all)")
    commit = shards.engine_commit()
    clock = time.perf_counter()
    with Judge(
        judge_spec, turn_ms=JUDGE_CAP_MS, size=SIZE, rule=RULE, nodes=settings.judge_nodes
    ) as judge:
        about = judge.about()
        for stones in chosen[len(records) :]:
            try:
                record = study(opening_board(stones), settings, judge)
            except JudgeError as error:
                raise BookError(f"the judge failed ({error}); --resume continues") from error
            record["opening"] = _text(stones)
            records.append(record)
            seconds = spent + time.perf_counter() - clock
            _write(
                partial,
                {"settings": dataclasses.asdict(settings), "records": records, "seconds": seconds},
            )
            log(
                f"shard {settings.shard}: {len(records)}/{len(chosen)} {record['opening']:<16} "
                f"-> {record['move']} ({record['seconds']} s)"
            )
    shard = {
        "format": FORMAT,
        "settings": dataclasses.asdict(settings),
        "command": command,
        "engine": shards.engine(commit),
        "judge": shards.judge(judge_spec.argv, judge_spec.cwd, about, settings.judge_nodes),
        "counts": {
            "openings": len(records),
            "judge_overruled": sum(1 for r in records if r["move"] != r["candidates"][0]["move"]),
        },
        "seconds": round(spent + time.perf_counter() - clock, 1),
        "records": records,
    }
    _write(final, shard)
    partial.unlink(missing_ok=True)
    return final


def _gather(folder: Path, positions: dict[str, dict[str, Any]]) -> dict[str, Any]:
    # one folder's finished shards into ``positions``; their settings and list for the manifest
    made: list[dict[str, Any]] = []
    settings: dict[str, Any] | None = None
    for path in sorted(folder.glob("shard-?????.json")):
        shard = json.loads(path.read_text(encoding="utf-8"))
        mine = {"second": False, "black": False, "replies": ""} | {
            k: v for k, v in shard["settings"].items() if k != "shard"
        }
        if settings is not None and mine != settings:
            raise BookError(f"{path} was made with other settings than the shards before it")
        settings = mine
        made.append(
            {
                "file": path.name,
                "sha256": shards.sha256(path),
                "openings": shard["counts"]["openings"],
                "command": shard["command"],
                "engine": shard["engine"],
                "judge": shard["judge"],
            }
        )
        for record in shard["records"]:
            board = opening_board(tuple(offsets(record["opening"])))
            key, symmetry = canonical(board.stones(Color.BLACK), board.stones(Color.WHITE), SIZE)
            x, y = (int(v) for v in record["move"].split(","))
            move = transform(Point(x, y), symmetry, SIZE)
            chosen = next(c for c in record["candidates"] if c["move"] == record["move"])
            positions[key] = {
                "move": _point(move),
                "master": chosen["master"],
                "judge": chosen["judge"],
            }
    return {"settings": settings, "shards": made}


def build(
    folder: Path,
    book_path: Path = BOOK_PATH,
    *,
    second: bool = False,
    black: bool = False,
    black_second: bool = False,
    replies: bool = False,
    black_replies: bool = False,
) -> dict[str, Any]:
    """Gather the finished shards in ``folder`` (White's first move), with ``second`` those of
    its ``second`` folder (White's second move), with ``black`` those of its ``black`` folder
    (Black's first free move), with ``black_second`` those of ``black/second`` (Black's
    second free move), with ``replies`` those of ``replies`` (White's second move after
    recorded replies) and with ``black_replies`` those of ``black/replies`` (Black's first free
    move after recorded first stones of the opponent's), into the book and its manifest;
    returns the manifest."""
    if second and (replies or black_second):
        # White's second move after the judge's reply may hold a position the recorded replies
        # hold too; and the command line names it --second without --black, Black's second
        # free move --second with it
        raise BookError("White's second move after the judge's reply is gathered apart")
    positions: dict[str, dict[str, Any]] = {}
    first = _gather(folder, positions)
    more = _gather(folder / SECOND, positions) if second else None
    blacks = _gather(folder / BLACK, positions) if black else None
    black_more = _gather(folder / BLACK / SECOND, positions) if black_second else None
    recorded = _gather(folder / REPLIES, positions) if replies else None
    black_recorded = _gather(folder / BLACK / REPLIES, positions) if black_replies else None
    book = {"format": FORMAT, "size": SIZE, "rule": RULE.value, "positions": positions}
    book_path.write_text(json.dumps(book, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    manifest = {
        "format": FORMAT,
        "book": book_path.name,
        "sha256": shards.sha256(book_path),
        "positions": len(positions),
        "match_openings": sum(
            1 for stones in book_openings()[: len(OPENINGS)] if _covered(stones, positions)
        ),
        **first,
        "command": "python tools/book.py --build"
        + (" --second" if second else "")
        + (" --black" if black or black_second else "")
        + (" --second" if black_second else "")
        + (" --replies" if replies else "")
        + (" --black-replies" if black_replies else ""),
    }
    if more is not None:
        manifest["second"] = more
    if blacks is not None:
        manifest["black"] = blacks
    if black_more is not None:
        manifest["black_second"] = black_more
    if recorded is not None:
        manifest["replies"] = recorded
    if black_recorded is not None:
        manifest["black_replies"] = black_recorded
    manifest_path = book_path.with_name("book.manifest.json")
    manifest_path.write_text(
        json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    return manifest


def _covered(stones: Offsets, positions: dict[str, Any]) -> bool:
    board = opening_board(stones)
    key, _ = canonical(board.stones(Color.BLACK), board.stones(Color.WHITE), SIZE)
    return key in positions


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python tools/book.py", description=__doc__)
    parser.add_argument("--shard", type=int, help="make this shard")
    parser.add_argument("--build", action="store_true", help="gather the shards into the book")
    parser.add_argument("--list", action="store_true", help="print openings as match lines")
    parser.add_argument("--first", type=int, default=0, help="--list: the first opening")
    parser.add_argument("--count", type=int, help="--list: how many openings")
    parser.add_argument("--per-shard", type=int, default=PER_SHARD)
    parser.add_argument("--nodes", type=int, default=1_000_000, help="master's nodes")
    parser.add_argument("--alternatives", type=int, default=2, help="master's other candidates")
    parser.add_argument("--judge", help="the judge's command line")
    parser.add_argument("--judge-cwd", help="the judge's working directory")
    parser.add_argument("--judge-nodes", type=int, default=500_000, help="judge nodes a position")
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "book")
    parser.add_argument("--resume", action="store_true", help="continue a partial shard")
    parser.add_argument(
        "--second",
        action="store_true",
        help="White's second move (shards in OUT/second), with --black Black's second free "
        "move (OUT/black/second); with --build, gather them too",
    )
    parser.add_argument(
        "--black",
        action="store_true",
        help="Black's first free move (shards in OUT/black); with --build, gather them too",
    )
    parser.add_argument(
        "--replies",
        action="store_true",
        help="White's second move after the recorded replies of --collect-replies (shards in "
        "OUT/replies), with --black Black's first free move after them (OUT/black/replies); "
        "with --build, gather White's",
    )
    parser.add_argument(
        "--black-replies",
        action="store_true",
        help="--build: gather Black's first free move after recorded replies (OUT/black/replies)",
    )
    parser.add_argument(
        "--collect-replies",
        nargs="+",
        type=Path,
        metavar="FOLDER",
        help="write OUT/replies/positions.json from these tools/ab.py runs' games (with "
        "--black, OUT/black/replies/positions.json)",
    )
    parser.add_argument(
        "--min-count", type=int, default=1, help="--collect-replies: games a position"
    )
    options = parser.parse_args(argv)
    command = shlex.join(["python", "tools/book.py", *(sys.argv[1:] if argv is None else argv)])
    if options.collect_replies:
        try:
            found = collect_replies(
                options.collect_replies, max(1, options.min_count), black=options.black
            )
        except BookError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        found = {"command": command, **found}
        target = (options.out / BLACK if options.black else options.out) / REPLIES / REPLIES_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(target, found)
        print(
            f"wrote {target}: {len(found['positions'])} positions, {found['covered']} of "
            f"{found['games']} games"
        )
        return 0
    if options.list:
        every = book_openings()
        end = len(every) if options.count is None else options.first + options.count
        for stones in every[options.first : end]:
            print(_text(stones))
        return 0
    if options.build:
        try:
            manifest = build(
                options.out,
                second=options.second and not options.black,
                black=options.black,
                black_second=options.second and options.black,
                replies=options.replies,
                black_replies=options.black_replies,
            )
        except BookError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        print(f"wrote {BOOK_PATH} ({manifest['positions']} positions)")
        return 0
    if options.replies and options.second:
        parser.error("--replies is a side's move after recorded replies: not with --second")
    if options.shard is None or options.judge is None:
        parser.error("--shard and --judge are needed (or --build, or --list)")
    if options.shard < 0 or options.nodes < 1 or options.judge_nodes < 1 or options.per_shard < 1:
        parser.error("--shard must be 0 or more; --nodes, --judge-nodes, --per-shard 1 or more")
    settings = Settings(
        shard=options.shard,
        per_shard=options.per_shard,
        nodes=options.nodes,
        alternatives=max(0, options.alternatives),
        judge_nodes=options.judge_nodes,
        second=options.second,
        black=options.black,
    )
    out = options.out / BLACK if options.black else options.out
    if options.second:
        out = out / SECOND
    if options.replies:
        out = (options.out / BLACK if options.black else options.out) / REPLIES
        positions_file = out / REPLIES_FILE
        if not positions_file.is_file():
            print(f"error: {positions_file} is missing: --collect-replies first", file=sys.stderr)
            return 1
        settings = dataclasses.replace(settings, replies=shards.sha256(positions_file))
    judge = dataclasses.replace(parse_engine(options.judge), cwd=options.judge_cwd)
    try:
        path = make_shard(out, settings, judge, resume=options.resume, command=command)
    except BookError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
