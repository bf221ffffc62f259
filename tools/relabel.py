"""Judge the judged positions of datagen shards again, at another fixed node count.

    python tools/relabel.py data/selfplay --judge ./pbrain-rapfi --judge-cwd RAPFI_DIR \\
        --nodes 200000 [--out data/relabel] [--first 0 --count 100] [--every 200]

A shard's labels came from its judge at the node count its manifest names (20,000 for the
shards in ``data/``). This asks a judge again about every judged position of every shard of the
folder named (the rows ``tools.mixnet.samples`` reads, in their order), searching ``--nodes``
nodes a position (``INFO max_node``: the same answers on any host), and keeps the three label
arrays a shard has, row for row: ``judge`` (the score from the side to move's view, ``MATE``
for a forced result), ``judge_mate`` (the plies to that result, 0 none) and ``judge_move``
(``y * 15 + x``, -1 none). A position the judge gives no evaluation keeps its shard's labels,
and the manifest counts it.

Each source shard ``K`` becomes ``OUT/<source folder's name>-<nodes>/shard-K.npz`` and
``shard-K.json`` (the source shard's folder, number and SHA-256, the node count, the command,
the engine's commit, the judge's command and ``ABOUT``, the counts and the array file's
SHA-256). Every ``--every`` positions the rows so far are saved beside it
(``shard-K.partial.npz``): running the same command again continues a stopped shard there and
skips the finished ones. ``load_relabels`` reads a shard's labels back, refusing an array that
no longer matches its manifest or a source shard that changed since; ``tools/mixnet.py train
--labels DIR`` fits to them in place of the shards' own.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.gomocup.match import EngineSpec, parse_engine
from engine.types import Point, Rule
from tools import shards

FORMAT = 1
SIZE = 15
JUDGE_CAP_MS = 120_000  # the judge's turn time: only a cap, the node count binds
LABELS = ("judge", "judge_mate", "judge_move")
DTYPES = {"judge": np.int32, "judge_mate": np.int16, "judge_move": np.int16}


class RelabelError(RuntimeError):
    """The judge failed, or a labels file does not match its manifest or its source."""


def folder_for(out: Path, source: Path, nodes: int) -> Path:
    """Where the labels of ``source``'s shards at ``nodes`` nodes go."""
    return out / f"{source.name}-{nodes}"


def _paths(folder: Path, shard: int) -> tuple[Path, Path, Path]:
    name = shards.name(shard)
    return folder / f"{name}.npz", folder / f"{name}.json", folder / f"{name}.partial.npz"


def _npz(rows: dict[str, npt.NDArray[Any]]) -> bytes:
    buffer = io.BytesIO()
    arrays: dict[str, Any] = dict(rows)
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def _write_bytes(path: Path, data: bytes) -> None:
    def write(tmp: Path) -> None:
        tmp.write_bytes(data)

    shards.replace(path, write, suffix=".tmp.npz")


def _arrays(rows: list[tuple[int, int, int]]) -> dict[str, npt.NDArray[Any]]:
    columns = list(zip(*rows, strict=True)) if rows else [(), (), ()]
    return {
        name: np.array(column, dtype=DTYPES[name])
        for name, column in zip(LABELS, columns, strict=True)
    }


def relabel_shard(
    source: Path,
    shard: int,
    folder: Path,
    judge: Any,
    *,
    nodes: int,
    every: int,
    about: str,
    spec: EngineSpec,
    command: str,
    log: Any = print,
) -> Path:
    """Label one source shard's judged positions again into ``folder`` (continuing its partial
    file if there is one); returns the manifest's path."""
    from tools.datagen import judged_lines, label_row, load_shard

    arrays, _ = load_shard(source, shard)
    lines = judged_lines(arrays)
    array, manifest, partial = _paths(folder, shard)
    folder.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[int, int, int]] = []
    if partial.exists():
        with np.load(partial) as saved:
            if int(saved["nodes"]) != nodes:
                raise RelabelError(f"{partial} was made at {int(saved['nodes'])} nodes")
            rows = list(zip(*(saved[name].tolist() for name in LABELS), strict=True))
    kept = 0
    for i in range(len(rows), len(lines)):
        opinion = judge.ask([Point(m % SIZE, m // SIZE) for m in lines[i]])
        row = label_row(0, opinion)
        if row is None:  # no evaluation: the shard's own labels stay
            kept += 1
            rows.append(tuple(int(arrays[name][i]) for name in LABELS))  # type: ignore[arg-type]
        else:
            rows.append(row[1:])
        if (i + 1) % every == 0 and i + 1 < len(lines):
            _write_bytes(partial, _npz({**_arrays(rows), "nodes": np.array(nodes)}))
            log(f"shard {shard}: {i + 1}/{len(lines)}")
    labels = _arrays(rows)
    _write_bytes(array, _npz(labels))
    record = {
        "format": FORMAT,
        "shard": shard,
        "source": shards.source(source, shard),
        "nodes": nodes,
        "command": command,
        "engine": shards.engine(shards.engine_commit()),
        "judge": shards.judge(spec.argv, spec.cwd, about, nodes),
        "counts": {
            "positions": len(rows),
            "kept": kept,
            "moves_changed": int(np.sum(labels["judge_move"] != arrays["judge_move"])),
        },
        "sha256": shards.sha256(array),
    }
    shards.write_manifest(manifest, record)
    partial.unlink(missing_ok=True)
    return manifest


def load_relabels(folder: Path, source: Path, shard: int) -> dict[str, npt.NDArray[Any]]:
    """One source shard's labels from ``folder`` (``folder_for``'s): ``judge``, ``judge_mate``
    and ``judge_move``, row for row with the shard's own.

    Raises:
        RelabelError: the labels are missing, their array does not match its manifest, or the
            source shard changed since they were made.
    """
    array, manifest, _ = _paths(folder, shard)
    shards.checked_labels(
        array, manifest, source, shard, maker="tools/relabel.py", error=RelabelError
    )
    with np.load(array) as data:
        return {name: data[name] for name in LABELS}


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python tools/relabel.py", description=__doc__)
    parser.add_argument("source", type=Path, help="a folder of datagen shards")
    parser.add_argument("--judge", required=True, help="the judge's command line")
    parser.add_argument("--judge-cwd", help="the judge's working directory")
    parser.add_argument("--nodes", type=int, required=True, help="the judge's nodes a position")
    parser.add_argument("--out", type=Path, default=shards.ROOT / "data" / "relabel")
    parser.add_argument("--first", type=int, default=0, help="the first shard number")
    parser.add_argument("--count", type=int, default=100_000, help="how many shard numbers")
    parser.add_argument("--every", type=int, default=200, help="positions between saves")
    options = parser.parse_args(argv)
    if options.nodes < 1 or options.every < 1:
        parser.error("--nodes and --every must be at least 1")
    from tools.judge import Judge, JudgeError
    from tools.mixnet import shard_manifests

    try:
        found = [k for _, k in shard_manifests([options.source])]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    folder = folder_for(options.out, options.source, options.nodes)
    chosen = [k for k in found if options.first <= k < options.first + options.count]
    todo = [k for k in chosen if not _paths(folder, k)[1].exists()]
    if not todo:
        print(f"nothing to do: {len(chosen)} shard(s) labelled already")
        return 0
    spec = parse_engine(options.judge)
    if options.judge_cwd:
        spec = dataclasses.replace(spec, cwd=options.judge_cwd)
    command = shlex.join(["python", "tools/relabel.py", *(sys.argv[1:] if argv is None else argv)])
    try:
        with Judge(
            spec, turn_ms=JUDGE_CAP_MS, size=SIZE, rule=Rule.FREESTYLE, nodes=options.nodes
        ) as judge:
            about = judge.about()
            for k in todo:
                path = relabel_shard(
                    options.source,
                    k,
                    folder,
                    judge,
                    nodes=options.nodes,
                    every=options.every,
                    about=about,
                    spec=spec,
                    command=command,
                )
                print(f"wrote {path}", flush=True)
    except (JudgeError, RelabelError) as exc:
        print(f"error: {exc}; running the command again continues", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
