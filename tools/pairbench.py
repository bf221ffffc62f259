"""Two checkouts' search speed compared on one noisy host: ``python -m engine bench`` run in
both at once, each on a core of its own, the cores swapped every round.

    python tools/pairbench.py BASE_DIR NEW_DIR [--rounds 8] [--nodes 1000000]

On a shared host one checkout's bench rate moves by 15% from run to run; the two runs of a
round share the host's state, so the ratio of their rates (NEW over BASE, nodes a CPU second)
moves far less. Printed: each round's rates and ratio, then the mean ratio with its standard
error. A change that is meant to leave the search as it is must leave the total node count as
it is too; a round whose counts differ says so and the tool exits 1. Each checkout runs with
its own interpreter (``DIR/.venv/bin/python`` where there is one) and its own compiled
kernels: warm both first (``python -m engine warm`` in each), or the first round times a
compile. Two checkouts of the very same sources, each compiled on its own, have run 3% apart on
this project's 2-core host (``docs/engine.md``, "Where the time goes now"): compare a checkout
with a copy of itself as well before reading a few percent as a change.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_NODES = re.compile(r"^Total nodes: (\d+)$", re.MULTILINE)
_RATE = re.compile(r"^Nodes/second \(CPU time\): (\d+)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class BenchRun:
    """One bench's total node count and its nodes a CPU second."""

    nodes: int
    rate: int


@dataclass(frozen=True, slots=True)
class Summary:
    """The ratios' mean, their standard deviation and the mean's standard error."""

    mean: float
    sd: float
    se: float
    rounds: int


def parse_bench(text: str) -> BenchRun:
    """The totals of ``python -m engine bench``'s output."""
    nodes = _NODES.search(text)
    rate = _RATE.search(text)
    if nodes is None or rate is None:
        raise ValueError("no bench totals in the output")
    return BenchRun(int(nodes.group(1)), int(rate.group(1)))


def summarize(ratios: Sequence[float]) -> Summary:
    """The mean of ``ratios`` with its spread (the sample standard deviation, n - 1)."""
    n = len(ratios)
    if n == 0:
        raise ValueError("no rounds")
    mean = sum(ratios) / n
    sd = math.sqrt(sum((r - mean) ** 2 for r in ratios) / (n - 1)) if n > 1 else 0.0
    return Summary(mean, sd, sd / math.sqrt(n), n)


def _python(checkout: Path) -> str:
    venv = checkout / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _start(checkout: Path, core: int, nodes: int) -> subprocess.Popen[str]:
    def pin() -> None:
        os.sched_setaffinity(0, {core})

    return subprocess.Popen(
        [_python(checkout), "-m", "engine", "bench", "--nodes", str(nodes)],
        cwd=checkout,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=pin,
    )


def _read(proc: subprocess.Popen[str], out: str, checkout: Path) -> BenchRun:
    # the totals of a bench that has ended, its output ``out``
    if proc.returncode != 0:
        raise ValueError(f"the bench in {checkout} exited with {proc.returncode}:\n{out}")
    try:
        return parse_bench(out)
    except ValueError:
        raise ValueError(f"no bench totals from {checkout}:\n{out}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rounds; print each and the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.nodes < 1:
        parser.error("--rounds and --nodes must be at least 1")
    for checkout in (args.base, args.new):
        if not checkout.is_dir():
            parser.error(f"no checkout at {checkout}")
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        print("pairbench needs two cores", file=sys.stderr)
        return 2
    ratios = []
    same = True
    for i in range(args.rounds):
        base_core, new_core = (cores[0], cores[1]) if i % 2 == 0 else (cores[1], cores[0])
        base_proc = _start(args.base, base_core, args.nodes)
        new_proc = _start(args.new, new_core, args.nodes)
        # both read to their end before either is judged, so that neither is left running
        base_out = base_proc.communicate()[0]
        new_out = new_proc.communicate()[0]
        try:
            base = _read(base_proc, base_out, args.base)
            new = _read(new_proc, new_out, args.new)
        except ValueError as error:
            print(error, file=sys.stderr)
            return 2
        ratio = new.rate / base.rate
        ratios.append(ratio)
        same = same and base.nodes == new.nodes
        print(
            f"round {i + 1}: base {base.rate:,} ({base.nodes:,} nodes, core {base_core})  "
            f"new {new.rate:,} ({new.nodes:,} nodes, core {new_core})  ratio {ratio:.3f}",
            flush=True,
        )
    s = summarize(ratios)
    print(
        f"new / base, nodes a CPU second: {s.mean:.3f} "
        f"(s.e. {s.se:.3f}, sd {s.sd:.3f}, {s.rounds} rounds)"
    )
    if not same:
        print("the node counts differ: not the same search", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
