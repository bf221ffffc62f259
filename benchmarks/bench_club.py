"""The club benchmark (``python -m benchmarks.bench_club``): a measurement, not a test.

Swiss: events of 64 players over 9 rounds with seeded random results; every round's pairing
is timed, wall clock and CPU (reading the history included), and the rounds the fallback
matching paired are counted. Queue: a server's pairing queue kept at 200 members across three
kinds of game, a pass every second of a hand-driven clock (expire, then pair), each pass
timed, then refilled; again with one kind and every rating within reach (the worst case).
Event loop: the same Swiss events paired through the service's pairers while a heartbeat
task sleeps 1 ms at a time on the loop; how late it wakes is how long the loop stalled. Once
on the loop (``InlinePairer``), once in the worker process (``WorkerPairer``, the bot's), and
once idle, the loop only waiting as long as each worker round took (the machine's own noise):
the longest stall of each round, the worst of them all, and each round's wall time as
awaited.
It prints the figures with the CPU model; the targets are a Swiss round under 1 s and a queue
pass p95 under 100 ms.

Options: ``--players N --rounds N --events N`` (Swiss), ``--members N --passes N`` (queue),
``--seed N``, ``--no-stall`` (skip the event-loop figures). ``tests/bot/club/test_bench_club.py``
runs a tiny version so it keeps working.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from benchmarks.common import cpu_model
from bot.core.club.card import Player
from bot.core.club.matchmaking import PairingQueue
from bot.core.club.pairer import InlinePairer, RoundPairer, WorkerPairer
from bot.core.club.swiss import swiss_round
from bot.core.club.tournament import RoundPlan
from storage.club import (
    Entrant,
    EntrantStatus,
    Format,
    Pairing,
    Result,
    Tournament,
    TournamentStatus,
)

__all__ = [
    "QueueFigures",
    "StallFigures",
    "SwissFigures",
    "bench_queue",
    "bench_stall",
    "bench_swiss",
    "main",
]

KINDS = ("gomoku:freestyle", "gomoku:renju", "connect4")


@dataclass
class SwissFigures:
    round_s: list[float] = field(default_factory=list)  # wall clock
    round_cpu_s: list[float] = field(default_factory=list)  # this process's CPU time
    boards: int = 0
    by_matching: int = 0  # rounds the fallback matching paired


@dataclass
class QueueFigures:
    pass_s: list[float] = field(default_factory=list)
    matches: int = 0
    expired: int = 0


def bench_swiss(players: int, rounds: int, events: int, seed: int) -> SwissFigures:
    """Play ``events`` Swiss events of ``players`` over ``rounds``, timing each pairing."""
    figures = SwissFigures()
    for event in range(events):
        rng = random.Random(seed * 1000 + event)
        ratings = sorted((rng.gauss(1500, 250) for _ in range(players)), reverse=True)
        field_ = [Player(100 + i, rating, i + 1) for i, rating in enumerate(ratings)]
        strength = {p.user_id: p.rating for p in field_}
        pairings: list[Pairing] = []
        for number in range(1, rounds + 1):
            start, start_cpu = time.perf_counter(), time.process_time()
            paired = swiss_round(field_, pairings, number, total_rounds=rounds)
            figures.round_s.append(time.perf_counter() - start)
            figures.round_cpu_s.append(time.process_time() - start_cpu)
            figures.by_matching += paired.by_matching
            for board, pair in enumerate(paired.pairs, start=1):
                if pair.white is None:
                    result = Result.BYE
                else:
                    result = _game(rng, strength[pair.black], strength[pair.white])
                    figures.boards += 1
                pairings.append(Pairing(1, number, board, pair.black, pair.white, result, None))
    return figures


@dataclass
class StallFigures:
    round_stall_s: list[float] = field(default_factory=list)  # each round's longest stall
    round_s: list[float] = field(default_factory=list)  # each round's wall time, as awaited
    plans: list[RoundPlan] = field(default_factory=list)

    @property
    def max_stall_s(self) -> float:
        return max(self.round_stall_s)


_BEAT_S = 0.001  # the heartbeat's sleep


async def bench_stall(
    pairer: RoundPairer, players: int, rounds: int, events: int, seed: int
) -> StallFigures:
    """Pair ``bench_swiss``'s events through ``pairer`` (as the tournament service does, from
    the stored records) while a heartbeat measures how late the event loop runs it."""
    loop = asyncio.get_running_loop()
    figures = StallFigures()
    worst = 0.0
    beating = True

    async def heartbeat() -> None:
        nonlocal worst
        while beating:
            before = loop.time()
            await asyncio.sleep(_BEAT_S)
            worst = max(worst, loop.time() - before - _BEAT_S)

    beat = asyncio.create_task(heartbeat())
    try:
        for event in range(events):
            rng = random.Random(seed * 1000 + event)
            ratings = sorted((rng.gauss(1500, 250) for _ in range(players)), reverse=True)
            now = datetime(2026, 1, 1, tzinfo=UTC)
            tournament = Tournament(
                1, 1, 1, "bench", Format.SWISS, "gomoku", "freestyle", rounds, 60, None, None,
                None, TournamentStatus.RUNNING, 1, now,
            )  # fmt: skip
            entrants = [
                Entrant(1, 100 + i, rating, i + 1, EntrantStatus.ACTIVE, now)
                for i, rating in enumerate(ratings)
            ]
            strength = {e.user_id: e.rating for e in entrants}
            pairings: list[Pairing] = []
            for _ in range(rounds):
                await asyncio.sleep(_BEAT_S * 3)  # a beat or two before the round
                worst = 0.0
                start = time.perf_counter()
                plan = await pairer.next_round(tournament, entrants, pairings)
                figures.round_s.append(time.perf_counter() - start)
                await asyncio.sleep(_BEAT_S * 3)  # the beat the round held up has come in
                figures.round_stall_s.append(worst)
                assert plan is not None
                figures.plans.append(plan)
                for board in plan.boards:
                    result = board.result
                    if result is None:
                        assert board.white is not None
                        result = _game(rng, strength[board.black], strength[board.white])
                    pairings.append(
                        Pairing(1, plan.round, board.board, board.black, board.white, result, None)
                    )
    finally:
        beating = False
        await beat
    return figures


class _Idle:
    """A "pairer" that waits as long as each worker round took and hands back the worker's
    plan: the heartbeat's lateness with nothing pairing anywhere (the machine's own noise)."""

    def __init__(self, worker: StallFigures) -> None:
        self._rounds = iter(zip(worker.round_s, worker.plans, strict=True))

    async def next_round(
        self, tournament: Tournament, entrants: list[Entrant], pairings: list[Pairing]
    ) -> RoundPlan | None:
        wait, plan = next(self._rounds)
        await asyncio.sleep(wait)
        return plan

    async def close(self) -> None:
        pass


async def bench_stall_both(
    players: int, rounds: int, events: int, seed: int
) -> tuple[StallFigures, StallFigures, StallFigures]:
    """``bench_stall`` on the loop, then in a worker process (started first, not measured),
    then idle for as long as each worker round took."""
    inline = await bench_stall(InlinePairer(), players, rounds, events, seed)
    async with WorkerPairer() as worker:
        await bench_stall(worker, players, 1, 1, seed)  # the worker starts: not measured
        in_worker = await bench_stall(worker, players, rounds, events, seed)
    idle = await bench_stall(_Idle(in_worker), players, rounds, events, seed)
    return inline, in_worker, idle


def _game(rng: random.Random, black: float, white: float) -> Result:
    expected = 1 / (1 + 10 ** ((white - black) / 400))
    draw = 0.15
    roll = rng.random()
    if roll < draw:
        return Result.DRAW
    return Result.BLACK_WINS if roll < draw + (1 - draw) * expected else Result.WHITE_WINS


def bench_queue(
    members: int, passes: int, seed: int, kinds: Sequence[str] = KINDS, spread: float = 350
) -> QueueFigures:
    """Keep a queue at ``members`` (ratings around 1500, ``spread`` their deviation) and run
    ``passes`` passes a clock second apart."""
    rng = random.Random(seed)
    now = datetime(2026, 1, 1, tzinfo=UTC)

    def clock() -> datetime:
        return now

    queue = PairingQueue(clock=clock)
    figures = QueueFigures()
    next_id = 1
    for _ in range(passes):
        while len(queue) < members:
            queue.join(next_id, rng.choice(kinds), rng.gauss(1500, spread))
            next_id += 1
        start = time.perf_counter()
        figures.expired += len(queue.expire())
        matches = queue.pair()
        figures.pass_s.append(time.perf_counter() - start)
        figures.matches += len(matches)
        for match in matches:
            queue.game_over(match.black.user_id)
            queue.game_over(match.white.user_id)
        now += timedelta(seconds=1)
    return figures


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def report_swiss(figures: SwissFigures, players: int, rounds: int) -> str:
    ms = [s * 1000 for s in figures.round_s]
    cpu = [s * 1000 for s in figures.round_cpu_s]
    return (
        f"Swiss {players} players x {rounds} rounds, {len(ms)} rounds paired "
        f"({figures.by_matching} by the fallback matching), {figures.boards} boards:\n"
        f"  per round, wall: median {statistics.median(ms):.1f} ms, "
        f"p95 {_percentile(ms, 0.95):.1f} ms, max {max(ms):.1f} ms (target: under 1000 ms)\n"
        f"  per round, CPU:  median {statistics.median(cpu):.1f} ms, "
        f"p95 {_percentile(cpu, 0.95):.1f} ms, max {max(cpu):.1f} ms"
    )


def report_queue(figures: QueueFigures, members: int, label: str = "") -> str:
    ms = [s * 1000 for s in figures.pass_s]
    return (
        f"Queue of {members} members{label}, {len(ms)} passes, {figures.matches} matches, "
        f"{figures.expired} timed out: per pass median {statistics.median(ms):.2f} ms, "
        f"p95 {_percentile(ms, 0.95):.2f} ms, max {max(ms):.2f} ms (target: p95 under 100 ms)"
    )


def report_stall(figures: StallFigures, heading: str) -> str:
    stall = [s * 1000 for s in figures.round_stall_s]
    wall = [s * 1000 for s in figures.round_s]
    return (
        f"{heading}, {len(stall)} rounds: "
        f"longest stall {max(stall):.1f} ms (per round: median {statistics.median(stall):.1f}, "
        f"p95 {_percentile(stall, 0.95):.1f}); round as awaited: median "
        f"{statistics.median(wall):.1f} ms, p95 {_percentile(wall, 0.95):.1f} ms, "
        f"max {max(wall):.1f} ms"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_club")
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--events", type=int, default=5)
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--passes", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-stall", action="store_true", help="skip the event-loop figures")
    args = parser.parse_args(argv)
    print(f"CPU: {cpu_model()}")
    swiss = bench_swiss(args.players, args.rounds, args.events, args.seed)
    print(report_swiss(swiss, args.players, args.rounds))
    queue = bench_queue(args.members, args.passes, args.seed)
    print(report_queue(queue, args.members, f" in {len(KINDS)} kinds"))
    # The worst case for a pass: one kind, everyone within everyone's window.
    crowded = bench_queue(args.members, args.passes, args.seed, kinds=KINDS[:1], spread=20)
    print(report_queue(crowded, args.members, ", one kind, all within reach"))
    if not args.no_stall:
        inline, in_worker, idle = asyncio.run(
            bench_stall_both(args.players, args.rounds, args.events, args.seed)
        )
        rounds = f"{args.players}-player Swiss rounds"
        print(report_stall(inline, f"Event loop while {rounds} pair on it"))
        print(report_stall(in_worker, f"Event loop while {rounds} pair in the worker"))
        print(report_stall(idle, "Event loop idle as long as each worker round took"))


if __name__ == "__main__":
    main()
