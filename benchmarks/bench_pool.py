"""The local AI pool's own cost: the bot process's CPU and the wall time per search, for searches
so small (tic-tac-toe, beginner) that what is measured is the runner's handing out of tasks
and collecting of answers, not the engine.

``python -m benchmarks.bench_pool [--searches 400] [--workers 2] [--rounds 3]`` prints the
figures per round. ``--against FILE`` loads another version of ``bot/core/ai.py`` (for
example ``git show main:bot/core/ai.py > /tmp/ai_main.py``) and alternates the two in one run,
so that both see the same machine. It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import resource
import sys
import time
from pathlib import Path
from types import ModuleType

from engine.board import Board
from engine.types import Game, Level


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # this process only, not the workers
    return usage.ru_utime + usage.ru_stime


def _load(path: Path) -> ModuleType:
    """The runner module in ``path``, importable by name in the spawned workers too."""
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


async def measure(module: ModuleType, searches: int, workers: int) -> tuple[float, float]:
    """(bot CPU ms, wall ms) per search through ``module.ProcessPoolRunner``."""
    runner = module.ProcessPoolRunner(workers)
    try:
        await runner.warm_up()
        request = module.AIRequest.from_board(Board.for_game(Game.TICTACTOE), Level.BEGINNER, 1)
        await runner.choose_move(request)  # each worker has loaded the search
        cpu, wall = _cpu_s(), time.perf_counter()
        await asyncio.gather(*(runner.choose_move(request) for _ in range(searches)))
        cpu, wall = _cpu_s() - cpu, time.perf_counter() - wall
    finally:
        await runner.close()
    return cpu / searches * 1000, wall / searches * 1000


def main(argv: list[str] | None = None) -> None:
    """Parse the options and print a line per round and runner."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_pool", description=__doc__)
    parser.add_argument("--searches", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another bot/core/ai.py to alternate with")
    args = parser.parse_args(argv)

    import bot.core.ai

    runners = {"this": bot.core.ai}
    if args.against is not None:
        runners[str(args.against)] = _load(args.against.resolve())
    info = Path("/proc/cpuinfo")
    lines = info.read_text(encoding="utf-8").splitlines() if info.exists() else []
    model = next((line.split(":", 1)[1].strip() for line in lines if "model name" in line), "?")
    print(f"{args.searches} searches on {args.workers} workers per round; CPU: {model}")
    for round_ in range(1, args.rounds + 1):
        for name, module in runners.items():
            cpu_ms, wall_ms = asyncio.run(measure(module, args.searches, args.workers))
            print(f"round {round_}  {name:>20}: bot CPU {cpu_ms:.3f} ms, wall {wall_ms:.3f} ms")


if __name__ == "__main__":
    main()
