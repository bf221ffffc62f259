"""``python -m engine bench`` (speed and node-count signature), ``python -m engine tactics``
(time to solve the tactical suite), ``python -m engine match`` and ``python -m engine warm``
(compile the search kernels into numba's on-disk cache, as ``make`` does at set-up)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a subcommand: ``bench``, ``tactics`` or ``match``."""
    args = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m engine {bench,tactics,match,warm} [options]"
    if not args or args[0] in ("-h", "--help"):
        print(usage)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "bench":
        from engine.gomocup.bench import main as bench_main

        return bench_main(rest)
    if command == "tactics":
        from engine.gomocup.tactics import main as tactics_main

        return tactics_main(rest)
    if command == "warm":
        return warm()
    if command == "match":
        from engine.gomocup.match import (
            main as match_main,  # the match tool lives in its own module
        )

        result: int = match_main(rest)
        return result
    print(usage, file=sys.stderr)
    return 2


def warm() -> int:
    """Compile (or load) every search kernel once, saying so: on a fresh clone numba needs
    about half a minute, which would otherwise fall on the first AI move."""
    import time

    started = time.perf_counter()
    print("Compiling the engine's search kernels (numba, once per checkout)...", flush=True)
    from engine.search.levels import warm_up

    warm_up()
    print(f"Engine ready ({time.perf_counter() - started:.1f} s).", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
