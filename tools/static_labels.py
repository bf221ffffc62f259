"""Label the judged positions of datagen shards with an outside engine's *static* evaluation.

    python tools/static_labels.py data/selfplay --judge ./pbrain-rapfi --judge-cwd RAPFI_DIR \\
        [--out data/static] [--first 0 --count 200]

For every shard of the folder named (``tools/datagen.py``'s, in manifest order), every judged
position (the rows ``tools.mixnet.samples`` reads, in their order) is set up on the judge with
``YXBOARD`` (no search) and evaluated with ``TRACESEARCH``, whose ``Static Eval[Black]`` line
is the engine's static evaluation from Black's view (Rapfi's classical evaluation: its pattern
values and threat table, no search). The label is that number from the side to move's view.
It costs a few milliseconds a position and depends on nothing but the position, so the same
command makes the same labels on any host.

Each source shard ``K`` becomes ``OUT/<source folder's name>/shard-K.npz`` (one ``int32``
array, ``static``) and ``shard-K.json`` (the source shard's folder, number and SHA-256, the
command, the engine's commit, the judge's command and ``ABOUT``, the count and the array
file's SHA-256). A finished shard is skipped, so a stopped run is continued by running it again.
``load_static`` reads one back, refusing an array that no longer matches its manifest or a
source shard that changed since.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.gomocup.match import EngineSpec, parse_engine
from engine.gomocup.process import EngineProcess
from engine.gomocup.protocol import point_to_gomocup
from engine.types import Point
from tools import shards

FORMAT = 1
SIZE = 15
START_TIMEOUT_S = 30.0
ANSWER_TIMEOUT_S = 10.0
MARK = "Static Eval[Black]:"


class StaticError(RuntimeError):
    """The judge gave no static evaluation, or a labels file does not match its manifest."""


def position_lines(moves: Sequence[int]) -> list[str]:
    """``YXBOARD``'s lines for the position after ``moves`` (point indices, ``y * 15 + x``, Black
    first, in Gomocup's coordinates): each
    stone ``x,y,1`` for the side to move's own, ``x,y,2`` for the other side's, in the order
    played."""
    to_move = len(moves) % 2  # 0: Black to move
    stones = []
    for i, m in enumerate(moves):
        x, y = point_to_gomocup(Point(m % SIZE, m // SIZE), SIZE)
        stones.append(f"{x},{y},{1 if i % 2 == to_move else 2}")
    return ["YXBOARD", *stones, "DONE"]


class StaticJudge:
    """A protocol engine that knows ``YXBOARD`` and ``TRACESEARCH`` (Rapfi), asked for the
    static evaluation of one position at a time."""

    def __init__(self, spec: EngineSpec) -> None:
        # no settling pause: the judge never searches, so it is never printing a move when
        # the next command arrives
        self._engine = EngineProcess(spec, settle_ms=0)
        self._engine.start()
        self._engine.send(f"START {SIZE}")
        answer = self._engine.answer(START_TIMEOUT_S)
        if answer.kind != "line" or answer.text.split(" ", 1)[0].upper() != "OK":
            raise StaticError(f"the judge did not start: {answer.text or answer.kind}")

    def __enter__(self) -> StaticJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self._engine.close()

    def about(self) -> str:
        self._engine.send("ABOUT")
        return self._engine.answer(ANSWER_TIMEOUT_S).text

    def static(self, moves: Sequence[int]) -> int:
        """The judge's static evaluation after ``moves``, from the side to move's view."""
        # ABOUT after TRACESEARCH: its answer line ends the trace's MESSAGE lines
        self._engine.send(*position_lines(moves), "TRACESEARCH", "ABOUT")
        answer = self._engine.answer(ANSWER_TIMEOUT_S)
        if answer.kind != "line":
            raise StaticError(f"the judge did not answer ({answer.kind})")
        for message in answer.messages:
            if MARK in message:
                black = int(message.split(MARK, 1)[1].split()[0])
                return black if len(moves) % 2 == 0 else -black
        raise StaticError("the judge printed no static evaluation")


def _paths(out: Path, source: Path, shard: int) -> tuple[Path, Path]:
    folder = out / source.name
    return folder / f"{shards.name(shard)}.npz", folder / f"{shards.name(shard)}.json"


def label_shard(
    source: Path,
    shard: int,
    out: Path,
    judge: StaticJudge,
    *,
    about: str,
    spec: EngineSpec,
    command: str,
) -> Path:
    """Label one source shard's judged positions into ``out``; returns the manifest's path."""
    from tools.datagen import judged_lines, load_shard

    arrays, _ = load_shard(source, shard)
    values = np.array([judge.static(line) for line in judged_lines(arrays)], dtype=np.int32)
    array, manifest = _paths(out, source, shard)
    array.parent.mkdir(parents=True, exist_ok=True)
    packed = _npz(values)

    def write_array(tmp: Path) -> None:
        tmp.write_bytes(packed)

    shards.replace(array, write_array, suffix=".tmp.npz")
    record = {
        "format": FORMAT,
        "shard": shard,
        "source": shards.source(source, shard),
        "label": "static evaluation, the side to move's view (TRACESEARCH, Static Eval[Black])",
        "command": command,
        "engine": shards.engine(shards.engine_commit()),
        "judge": {"command": shlex.join(spec.argv), "cwd": spec.cwd, "about": about},
        "count": len(values),
        "sha256": shards.sha256(array),
    }
    shards.write_manifest(manifest, record)
    return manifest


def _npz(values: npt.NDArray[np.int32]) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, static=values)
    return buffer.getvalue()


def load_static(out: Path, source: Path, shard: int) -> npt.NDArray[np.int32]:
    """One source shard's static labels.

    Raises:
        StaticError: the labels are missing, their array does not match its manifest, or the
            source shard changed since they were made.
    """
    array, manifest = _paths(out, source, shard)
    shards.checked_labels(
        array, manifest, source, shard, maker="tools/static_labels.py", error=StaticError
    )
    with np.load(array) as data:
        values: npt.NDArray[np.int32] = data["static"]
    return values


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python tools/static_labels.py", description=__doc__)
    parser.add_argument("source", type=Path, help="a folder of datagen shards")
    parser.add_argument("--judge", required=True, help="the judge's command line")
    parser.add_argument("--judge-cwd", help="the judge's working directory")
    parser.add_argument("--out", type=Path, default=shards.ROOT / "data" / "static")
    parser.add_argument("--first", type=int, default=0, help="the first shard number")
    parser.add_argument("--count", type=int, default=100_000, help="how many shard numbers")
    options = parser.parse_args(argv)
    from tools.mixnet import shard_manifests

    try:
        found = [k for _, k in shard_manifests([options.source])]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    chosen = [k for k in found if options.first <= k < options.first + options.count]
    todo = [k for k in chosen if not _paths(options.out, options.source, k)[1].exists()]
    if not todo:
        print(f"nothing to do: {len(chosen)} shard(s) labelled already")
        return 0
    spec = parse_engine(options.judge)
    if options.judge_cwd:
        spec = dataclasses.replace(spec, cwd=options.judge_cwd)
    command = shlex.join(
        ["python", "tools/static_labels.py", *(sys.argv[1:] if argv is None else argv)]
    )
    try:
        with StaticJudge(spec) as judge:
            about = judge.about()
            for k in todo:
                path = label_shard(
                    options.source, k, options.out, judge, about=about, spec=spec, command=command
                )
                print(f"wrote {path}", flush=True)
    except StaticError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
