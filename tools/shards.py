"""What the shard makers share (``tools/datagen.py``, ``tools/book.py``, and the labellers
``tools/static_labels.py`` and ``tools/relabel.py``): the file names, the rules for a finished
or partial shard, the provenance a manifest records, and the checks a labels file passes."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# engine.search.evaluate's name for it: importing that module here would load numba and the
# kernels into every tool that only writes a manifest
WEIGHTS_ENV = "GOMOKU_EVAL_WEIGHTS"


def name(shard: int) -> str:
    """The stem of shard ``shard``'s files."""
    return f"shard-{shard:05d}"


def relative(folder: Path) -> str:
    """``folder`` as a manifest names it: from the repository's root when under it."""
    resolved = folder.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(folder)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def replace(path: Path, write: Callable[[Path], None], suffix: str = ".tmp") -> None:
    """Write ``path`` through ``write`` beside it, then rename: an interrupted save never
    leaves a torn file."""
    tmp = path.with_name(path.name + suffix)
    write(tmp)
    os.replace(tmp, path)


def claim(final: Path, partial: Path, shard: int, *, resume: bool, error: type[Exception]) -> bool:
    """Whether to continue ``partial``; raises ``error`` when the shard is finished, or when its
    partial file exists and ``resume`` was not asked for."""
    if final.exists():
        raise error(f"{final} exists: shard {shard} is finished")
    if partial.exists() and not resume:
        raise error(f"{partial} exists: --resume continues it (or delete it)")
    return partial.exists()


def engine_commit() -> str:
    """This checkout's git commit (with ``-dirty`` when a file of ``engine/`` or ``tools/``
    differs from it), or "unknown"."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.strip()
        dirty = subprocess.run(
            # the code that plays and labels: edits elsewhere (docs, tests) do not count
            [
                "git",
                "-C",
                str(ROOT),
                "status",
                "--porcelain",
                "--untracked-files=no",
                "engine",
                "tools",
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def engine(commit: str) -> dict[str, str]:
    """The manifest's ``engine``: the checkout's version (``pyproject.toml``'s, which an
    installed copy's metadata may lag behind) and ``commit``; and where the evaluation's
    values come from a file (``$GOMOKU_EVAL_WEIGHTS``), that file and its SHA-256, since
    they change every search the shard's engine makes."""
    try:
        with (ROOT / "pyproject.toml").open("rb") as file:
            number = str(tomllib.load(file)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        number = "unknown"
    record = {"version": number, "commit": commit}
    chosen = os.environ.get(WEIGHTS_ENV, "")
    if chosen and Path(chosen).is_file():
        record["weights"] = relative(Path(chosen))
        record["weights_sha256"] = sha256(Path(chosen))
    elif chosen:
        record["weights"] = chosen  # a name (hand, learned)
    return record


def judge(argv: Sequence[str], cwd: str | None, about: Any, nodes: int) -> dict[str, Any]:
    """The manifest's ``judge``: its command line, folder, ABOUT answer and node count."""
    return {"command": shlex.join(argv), "cwd": cwd, "about": about, "nodes": nodes}


def source(folder: Path, shard: int) -> dict[str, Any]:
    """A labels manifest's ``source``: the shard it labels, by folder, number and SHA-256."""
    return {
        "folder": relative(folder),
        "shard": shard,
        "sha256": sha256(folder / f"{name(shard)}.npz"),
    }


def write_manifest(path: Path, record: dict[str, Any]) -> None:
    """Write a manifest as indented JSON, whole or not at all (``replace``)."""
    text = json.dumps(record, indent=2) + "\n"

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    replace(path, write)


def checked_labels(
    array: Path, manifest: Path, folder: Path, shard: int, *, maker: str, error: type[Exception]
) -> dict[str, Any]:
    """The manifest of a labels file made from shard ``shard`` of ``folder``, once it is there,
    its ``array`` still matches it and the source shard is the one it was made from; else
    ``error`` saying which (``maker`` names the command that makes it)."""
    if not manifest.exists():
        raise error(f"{manifest} is missing: {maker} makes it")
    record: dict[str, Any] = json.loads(manifest.read_text(encoding="utf-8"))
    if sha256(array) != record["sha256"]:
        raise error(f"{array} does not match its manifest")
    if sha256(folder / f"{name(shard)}.npz") != record["source"]["sha256"]:
        raise error(f"{manifest} was made from another version of its source shard")
    return record
