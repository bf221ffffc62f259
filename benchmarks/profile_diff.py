"""Two cProfile dumps of the bot under the same load, side by side, per interaction.

``python -m benchmarks.profile_diff NEW.prof:N OLD.prof:M [--by part|file|function]``: ``N``
and ``M`` are each run's interactions (``bench_load``'s ``ack`` count), so runs of different
lengths compare. Each row is a part of the code (the project's top-level packages, each
library, the standard library, the interpreter's builtins), a file, or a function, with its
calls and its own time (tottime) per interaction in each run, the largest time difference
first. Paths are taken relative to each dump's checkout (``--new-root``, ``--old-root``;
by default whatever precedes a project package), so the same file matches across worktrees.

The calls are the steadier figure: they do not depend on the machine's speed, where a
profile's times on a shared host do. A coroutine's calls count its resumptions. Only the
profiled thread is seen: work on other threads (SQLite's connections) is not in a dump, and
``bench_load`` prints its CPU apart.
"""

from __future__ import annotations

import argparse
import pstats
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["Row", "compare", "main", "part_of"]

_PACKAGES: Final = ("bot", "engine", "storage", "benchmarks", "tools", "tests")
_SITE: Final = re.compile(r".*/(?:site|dist)-packages/")
_STDLIB: Final = re.compile(r".*/lib/python3\.\d+/")
_PROJECT: Final = re.compile(rf".*?/(?=(?:{'|'.join(_PACKAGES)})/)")


@dataclass(frozen=True, slots=True)
class Row:
    """One part, file or function: calls and own seconds per interaction in each run."""

    key: str
    new_calls: float
    old_calls: float
    new_ms: float
    old_ms: float

    @property
    def delta_ms(self) -> float:
        return self.new_ms - self.old_ms


def _file(path: str, root: str | None) -> str:
    """``path`` as the same file reads in every checkout: ``lib:aiohttp/client.py``,
    ``std:asyncio/tasks.py``, ``bot/table.py``, or ``~`` for builtins."""
    if path == "~":
        return "~"
    if (site := _SITE.match(path)) is not None:
        return "lib:" + path[site.end() :]
    if (stdlib := _STDLIB.match(path)) is not None:
        return "std:" + path[stdlib.end() :]
    if root is not None and path.startswith(root):
        return path[len(root) :].lstrip("/")
    if (project := _PROJECT.match(path)) is not None:
        return path[project.end() :]
    return path


def part_of(file: str) -> str:
    """The part of the code a file (as ``_file`` names it) belongs to: a project package, a
    library (``lib:aiohttp``), ``std`` or ``~``."""
    if file.startswith("lib:"):
        return file.split("/", 1)[0].removesuffix(".py")
    if file.startswith(("std:", "<")):
        return "std"
    head = file.split("/", 1)[0]
    return head if head in _PACKAGES else file


def _load(path: str, root: str | None, by: str) -> dict[str, tuple[int, float]]:
    """Calls and own seconds of the dump at ``path``, summed by ``by``."""
    stats: dict[tuple[str, int, str], tuple[int, int, float, float, object]]
    stats = pstats.Stats(path).stats  # type: ignore[attr-defined]
    key: Callable[[str, str], str] = {
        "part": lambda file, _name: part_of(file),
        "file": lambda file, _name: file,
        "function": lambda file, name: f"{file}:{name}",
    }[by]
    sums: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for (path_, _line, name), (_primitive, calls, own, _cumulative, _callers) in stats.items():
        entry = sums[key(_file(path_, root), name)]
        entry[0] += calls
        entry[1] += own
    return {name: (int(calls), own) for name, (calls, own) in sums.items()}


def compare(
    new: dict[str, tuple[int, float]],
    new_interactions: int,
    old: dict[str, tuple[int, float]],
    old_interactions: int,
) -> list[Row]:
    """Every key of either run, per interaction, the largest time difference first."""
    rows = []
    for key in new.keys() | old.keys():
        new_calls, new_s = new.get(key, (0, 0.0))
        old_calls, old_s = old.get(key, (0, 0.0))
        rows.append(
            Row(
                key,
                new_calls / new_interactions,
                old_calls / old_interactions,
                new_s * 1000 / new_interactions,
                old_s * 1000 / old_interactions,
            )
        )
    rows.sort(key=lambda row: (-row.delta_ms, row.key))
    return rows


def _run(spec: str) -> tuple[str, int]:
    path, _, count = spec.rpartition(":")
    if not path or not count.isdigit() or int(count) < 1:
        raise argparse.ArgumentTypeError(f"{spec!r}: want PROFILE:INTERACTIONS")
    return path, int(count)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_diff", description=__doc__)
    parser.add_argument("new", type=_run, help="NEW.prof:INTERACTIONS")
    parser.add_argument("old", type=_run, help="OLD.prof:INTERACTIONS")
    parser.add_argument("--by", choices=("part", "file", "function"), default="part")
    parser.add_argument("--new-root", help="the new dump's checkout (stripped from paths)")
    parser.add_argument("--old-root", help="the old dump's checkout (stripped from paths)")
    parser.add_argument("--top", type=int, default=30, help="rows shown at each end")
    args = parser.parse_args(argv)
    (new_path, new_n), (old_path, old_n) = args.new, args.old
    new = _load(new_path, args.new_root, args.by)
    old = _load(old_path, args.old_root, args.by)
    rows = compare(new, new_n, old, old_n)
    total = compare(
        {"all": (sum(c for c, _ in new.values()), sum(s for _, s in new.values()))},
        new_n,
        {"all": (sum(c for c, _ in old.values()), sum(s for _, s in old.values()))},
        old_n,
    )[0]
    print(
        f"per interaction: calls {total.new_calls:.1f} (new) against {total.old_calls:.1f} "
        f"(old), own time {total.new_ms:.3f} against {total.old_ms:.3f} ms"
    )
    print(f"{'calls new':>10} {'old':>8} {'ms new':>8} {'old':>7} {'diff':>7}  {args.by}")
    shown = rows if len(rows) <= 2 * args.top else [*rows[: args.top], None, *rows[-args.top :]]
    for row in shown:
        if row is None:
            print("  ...")
            continue
        print(
            f"{row.new_calls:10.2f} {row.old_calls:8.2f} {row.new_ms:8.3f} {row.old_ms:7.3f} "
            f"{row.delta_ms:+7.3f}  {row.key}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
