"""Load benchmark: many concurrent games through the real bot, against the fake Discord.

Run it as ``python -m benchmarks.bench_load [--games 200] [--moves 8] [--level easy]
[--style image|emoji|compact] [--sync FULL|NORMAL] [--think 2.0]`` (``--help`` lists all). It
prints figures; it asserts nothing (timings on shared machines are noise, not verdicts).

Layout, so that the measurements are the bot's own:

* this process runs the bot exactly as in production (``create_bot``, a SQLite file, the
  spawn-context AI pool with one worker per core) plus an event-loop lag probe;
* a child process runs the fake Discord *and* the load driver, so their CPU is not the bot's.

Half the games are between two people (challenge, accept, then alternating ``/place``), half
against the AI (``/place`` with the first autocomplete suggestion, the AI answering). Games
start spread over the first seconds and players think ``--think`` seconds on average (uniform
from half to one and a half times that) before each move; ``--level medium`` keeps every AI
worker searching all the time.

What is measured (at the fake, from sending an event to seeing the bot's effect):

* ``ack``: event -> the bot's first acknowledgement (defer or reply), every interaction;
  ``ack by a deferral``: the same for those acknowledged by a deferral (its count is theirs), and
  among the failures, ``unanswered in 3 s``: interactions with no acknowledgement in Discord's
  time ("interaction failed" for their players);
* ``place (people)``: event -> the complete answer of a ``/place`` between people, and
  ``place (people), deferred`` the same for those the bot deferred (those answered within 3 s
  would have made Discord's time without their deferral's request);
* ``place (vs AI, own move shown)``: event -> the board showing the player's move, i.e. the
  handling of the command excluding the AI's thinking;
* ``AI reply shown``: event -> the board showing the AI's answer (queueing and search included);

and in this process: the event-loop lag (how late a 10 ms sleep wakes up) while it all runs,
and, on SQLite, the repository's writes, group commits and trips to its connections' threads
per interaction (``SqliteGameRepository.activity``): counts that hold from one machine to the
next, where the timings do not. The bot's CPU is split into its event loop's thread and the
others (SQLite's connection threads above all): ``--profile`` sees only the first.
Games still running ``--deadline`` seconds (600) after they began are stopped and counted
among the failures by what each was waiting for ("unfinished at the deadline (AI reply
shown)"), so that a stuck game costs its figures, not the summary.

``--baseline`` first runs the same load (same seed, same players) on a bare discord.py bot
(``benchmarks.bare_bot``: the same requests per interaction, nothing else) in this process,
then the bot, and prints each one's CPU time per interaction and their ratio: what the bot's
own work costs over Discord's plumbing (DESIGN.md: within 2x). It also compares the requests
route by route; a /place the bot deferred (a slow write or AI) shows there as a difference.
``--bare-only`` runs the bare bot alone, and ``--bare-extra MS`` has it spend MS ms more CPU
on its event loop in each interaction before it answers: how far a bot's cost over the
library may go before the load queues its answers, found without the bot.
``--instant-ai`` puts an in-process stand-in in the AI's place that answers at once, and
``--memory`` the in-memory repository in SQLite's (nothing kept): what each of them costs.

One module of about a thousand lines: the players' driver, the one-process run, the
baseline and the cluster share the samples, the request routes and the printing of both.

``--shard-processes N --postgres [--queue-workers K]`` runs the bot as a cluster instead: N
bot processes (``python -m bot --shards i --shard-count N``'s bot), one shard each, on one
PostgreSQL database, the AI on K queue workers (else a local pool in each process). Each bot
process has its own fake Discord and players, in a process of their own, whose one guild is
on that shard, and 1/N of the games: what Discord would send each shard's process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import dataclasses
import gc
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import discord
import yarl

from bot.app import create_bot, process_runner
from bot.client import GomokuBot
from bot.cooldown import UserCooldown
from bot.core.admission import StartAdmission
from bot.core.ai import WORKER_NICENESS, AIRunner, ProcessPoolRunner
from bot.core.queue_ai import QueueRunner
from bot.settings import Settings
from bot.shards import ShardSpec
from bot.worker import add_idle_option
from engine.types import Rule
from storage.repository import GameRepository
from storage.sqlite import Activity, SqliteGameRepository

# A run stops its games this long after they begin and prints what it has (--deadline): a
# game's waits add up one after another (each up to the fake's 120 s answer timeout), so one
# stuck game would otherwise hold back the whole summary.
DEADLINE_S = 600.0
_STOP_WAIT_S = 60.0  # how long a shard process may take to stop and send its figures


@dataclass
class Samples:
    """Latencies in seconds, by what was measured."""

    values: dict[str, list[float]] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.values.setdefault(name, []).append(seconds)

    def fail(self, name: str) -> None:
        self.failures[name] = self.failures.get(name, 0) + 1


_ROWS = (
    "ack",
    "ack by a deferral",
    "start (board shown)",
    "place (people)",
    "place (people), deferred",
    "place (vs AI, own move shown)",
    "AI reply shown",
)


_CALLBACKS = {4: "message", 5: "deferral", 6: "deferred update", 7: "update", 8: "autocomplete"}


def _route(method: str, path: str, body: Any) -> str:
    """A request as its route (ids and tokens left out); interaction callbacks by type."""
    parts = path.strip("/").split("/")
    if parts[0] in ("interactions", "webhooks") and len(parts) > 2:
        parts[2] = "{token}"  # interaction and webhook tokens
    route = "/".join("{id}" if part.isdigit() else part for part in parts)
    if route.endswith("/callback") and isinstance(body, dict):
        kind = int(body.get("type", 0))
        route += f" ({_CALLBACKS.get(kind, kind)})"
    return f"{method} /{route}"


def _route_rows(routes: Counter[str], interactions: int) -> list[str]:
    """The requests by route, most first, and each route's count per interaction."""
    rows = [f"HTTP requests per interaction (of {interactions}, autocompletes included):"]
    for route, count in routes.most_common():
        rows.append(f"  {count / interactions:5.2f}  {count:>6}  {route}")
    total = sum(routes.values())
    rows.append(f"  {total / interactions:5.2f}  {total:>6}  in all")
    return rows


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def _row(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"{name:<34} n={len(ms):>5}  p50={statistics.median(ms):8.1f} ms  "
        f"p95={_percentile(ms, 0.95):8.1f} ms  max={max(ms):8.1f} ms"
    )


# ---------------------------------------------------------------------- child: fake + driver


@dataclass(frozen=True)
class Load:
    """What one driver process plays: ``games`` games of ``moves`` moves, at ``level`` against
    the AI, players thinking ``think`` s a move, arriving over ``ramp`` s (else after one
    pause), in the fake's guild ``guild_id`` (its default when None), all over by
    ``deadline`` s."""

    games: int
    moves: int
    level: str
    seed: int
    think: float
    guild_id: int | None = None
    ramp: float | None = None
    deadline: float = DEADLINE_S

    @classmethod
    def of(cls, args: argparse.Namespace) -> Load:
        """The load the command line asks for, in the default guild."""
        return cls(
            args.games,
            args.moves,
            args.level,
            args.seed,
            args.think,
            None,
            args.ramp,
            args.deadline,
        )


def _driver(conn: Connection, plan: Load) -> None:
    asyncio.run(_drive(conn, plan))


def _refused(record: Any) -> bool:
    """Whether the bot answered ``record``, a ``/place``, with something other than the move
    (a refusal, an error): no board edit is coming for it."""
    if not record.answered.is_set():
        return False
    message = record.followups[-1] if record.followups else record.original
    return message is None or "played **" not in message.content


async def _drive(conn: Connection, plan: Load) -> None:
    from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser, Message, Reply

    fake = FakeDiscord(guild_id=plan.guild_id)
    fake.answer_timeout = 120.0
    rng = random.Random(plan.seed)
    channels = [fake.default_channel] + [
        fake.add_channel(f"game-{i}") for i in range(plan.games - 1)
    ]
    players = [(fake.add_user(f"b{i}"), fake.add_user(f"w{i}")) for i in range(plan.games)]
    samples = Samples()
    # What each game waits for now: a game still running at the deadline counts as missing
    # that (a game's waits add up one after another, each up to the fake's answer timeout).
    waiting: dict[int, str] = {}
    await fake.start()
    conn.send(fake.port)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, conn.recv)  # the bot is connected and synced

    def acked(record: Any) -> None:
        if record.latency is not None:
            samples.add("ack", record.latency)

    async def pause() -> None:
        # A player's thinking time: uniform around the mean, so the games drift apart.
        await asyncio.sleep(rng.uniform(0.5 * plan.think, 1.5 * plan.think))

    async def arrive() -> None:
        # Games start spread over the first seconds, as people arrive (over ``ramp`` s).
        if plan.ramp is None:
            await pause()
        else:
            await asyncio.sleep(rng.uniform(0, plan.ramp))

    async def start_game(user: FakeUser, channel: FakeChannel, options: dict[str, Any]) -> Reply:
        # A start refused because too many are starting (no board) is tried again, as a
        # player would, after a pause; each try counts.
        while True:
            started = time.monotonic()
            start = await fake.slash("gomoku start", user=user, channel=channel, options=options)
            acked(start.interaction)
            if start.message is not None and start.message.embeds:
                samples.add("start (board shown)", time.monotonic() - started)
                return start
            samples.fail("start refused, tried again")
            await pause()

    async def board_edit(
        board: Message, after: int, started: float, name: str, record: Any
    ) -> bool:
        # Until the board shows the move, or the move's answer says it was not played (then
        # no edit is coming, and the game goes on without waiting out the timeout for one).
        with contextlib.suppress(TimeoutError):
            await fake.wait_for(lambda: board.edits > after or _refused(record))
        if board.edits <= after:
            samples.fail(name)
            return False
        samples.add(name, time.monotonic() - started)
        return True

    async def people(index: int) -> None:
        black, white = players[index]
        channel = channels[index]
        await arrive()
        waiting[index] = "start (board shown)"
        start = await start_game(
            black, channel, {"opponent": white, "colour": "black", "rated": False}
        )
        board = start.message
        assert board is not None
        accept = next(c for c in board.custom_ids() if c.endswith(":accept"))
        waiting[index] = "accept"
        acked((await fake.click(board, accept, user=white)).interaction)
        for turn in range(plan.moves):
            await pause()
            waiting[index] = "place (people)"
            user = black if turn % 2 == 0 else white
            x, y = turn // 2 * 2, 0 if turn % 2 == 0 else 2  # gaps: nobody makes five
            started = time.monotonic()
            record = await fake.send_slash(
                "place",
                user=user,
                channel=channel,
                options={"cell": f"{'abcdefghijklmno'[x]}{y + 1}"},
            )
            reply = await fake.answer(record)
            acked(record)
            if "played **" in reply.content:
                samples.add("place (people)", time.monotonic() - started)
                if record.deferred:  # answered within 3 s: a deferral that cost a request
                    samples.add("place (people), deferred", time.monotonic() - started)
            else:
                samples.fail("place (people)")

    async def versus_ai(index: int) -> None:
        user = players[index][0]
        channel = channels[index]
        await arrive()
        waiting[index] = "start (board shown)"
        start = await start_game(user, channel, {"level": plan.level, "colour": "black"})
        board = start.message
        assert board is not None
        for _ in range(plan.moves // 2):
            await pause()
            waiting[index] = "suggestions"
            choices = await fake.autocomplete(
                "place", "cell", user=user, channel=channel, options={"cell": ""}
            )
            if not choices:  # none found in time: a player would type the point instead
                samples.fail("suggestions")
                break
            edits = board.edits
            started = time.monotonic()
            name = "place (vs AI, own move shown)"
            waiting[index] = name
            record = await fake.send_slash(
                "place", user=user, channel=channel, options={"cell": choices[0]["value"]}
            )
            if not await board_edit(board, edits, started, name, record):
                continue
            waiting[index] = "AI reply shown"
            reply = await fake.answer(record)
            acked(record)
            if "AI answered" in reply.content:
                samples.add("AI reply shown", time.monotonic() - started)
            elif "played **" not in reply.content:
                samples.fail("AI reply shown")

    async def settle(quiet: float = 0.5, limit: float = 10.0) -> None:
        # The bot's last requests (a board edit, a ping deleted) may follow the answers the
        # players waited for: they are counted too, and the bot's CPU for them.
        until = time.monotonic() + limit
        count = -1
        while count != len(fake.requests) and time.monotonic() < until:
            count = len(fake.requests)
            await asyncio.sleep(quiet)

    first = len(fake.requests)  # the requests of the start-up (login, sync) are not counted
    started = time.monotonic()
    cpu = time.process_time()
    tasks = [
        asyncio.create_task(people(i) if i % 2 == 0 else versus_ai(i)) for i in range(plan.games)
    ]
    _, running = await asyncio.wait(tasks, timeout=plan.deadline)
    for index, task in enumerate(tasks):
        if task in running:
            task.cancel()
            samples.fail(f"unfinished at the deadline ({waiting.get(index, 'arriving')})")
    results = await asyncio.gather(*tasks, return_exceptions=True)
    errors = [
        repr(r)
        for r in results
        if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)
    ]
    elapsed = time.monotonic() - started
    await settle()
    # Discord's 3 s: an interaction without a first answer in time failed for its player (the
    # fake refuses a later one); a deferral's own time shows the margin it left.
    for record in fake.interactions.values():
        if record.callback_at is None:
            samples.fail("unanswered in 3 s")
        elif record.deferred:
            samples.add("ack by a deferral", record.callback_at - record.sent_at)
    load = fake.requests[first:]
    cpu = time.process_time() - cpu
    routes = Counter(_route(r.method, r.path, r.json) for r in load)
    conn.send(
        {
            "samples": samples,
            "errors": errors,
            "elapsed": elapsed,
            "requests": len(load),
            "routes": routes,
            "interactions": len(fake.interactions),
            "cpu": cpu,
        }
    )
    # Serve until the bot has shut down: the last moves' replies may still be on their way.
    await loop.run_in_executor(None, conn.recv)
    await fake.close()


# ---------------------------------------------------------------------- parent: the bot


def _cpu_wait_s() -> float:
    """Seconds this process's main thread has waited for a CPU while ready to run (Linux's
    schedstat; 0 elsewhere): on a shared machine, the part of the latency that is not ours."""
    try:
        return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def _kernel_s() -> float:
    """CPU seconds this process has spent in the kernel (system calls: the sockets, the
    threads' hand-overs, fsync), which profilers of Python code do not see."""
    return os.times().system


class _GcTimer:
    """A ``gc.callbacks`` entry timing every collection by generation: a collection stops
    the event loop, and one under many commands in flight delays them all."""

    def __init__(self) -> None:
        self.pauses: list[list[float]] = [[], [], []]
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._started)


async def _lag_probe(stop: asyncio.Event, lags: list[float], interval: float = 0.01) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        before = loop.time()
        await asyncio.sleep(interval)
        lags.append(loop.time() - before - interval)


async def _reviews(
    pool: ProcessPoolRunner,
    repository: GameRepository,
    stop: asyncio.Event,
    times: list[float],
) -> Coroutine[Any, Any, None]:
    """Store copies of a 40-move game and return a loop that reviews them one after another
    (``/gomoku review``'s work, in the pool's review worker) until ``stop``."""
    from benchmarks.bench_review import play_game, store_game
    from bot.core.review import Reviewer
    from bot.core.service.states import GameState

    board = await play_game(pool, 40, Rule.FREESTYLE)  # also starts the review worker
    records = [await store_game(repository, board, channel_id=-1 - i) for i in range(100)]
    reviewer = Reviewer(repository, pool)

    async def loop() -> None:
        for record in records:
            if stop.is_set():
                return
            started = time.perf_counter()
            await reviewer.review(GameState(record, board))
            times.append(time.perf_counter() - started)

    return loop()


async def _start_driver(
    args: argparse.Namespace,
) -> tuple[multiprocessing.process.BaseProcess, Connection]:
    """The fake Discord and its players in a child process, discord.py pointed at it."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(
        target=_driver,
        args=(child, Load.of(args)),
        daemon=True,
    )
    process.start()
    port = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway-ws")
    return process, parent


async def _run_bare(args: argparse.Namespace) -> dict[str, Any]:
    """The same load on the bare discord.py bot (``benchmarks.bare_bot``) in this process:
    the driver's report, with this process's CPU time under the load added as ``bot_cpu``."""
    from benchmarks.bare_bot import BareBot

    process, parent = await _start_driver(args)
    loop = asyncio.get_running_loop()
    bare = BareBot(extra_s=args.bare_extra / 1000)
    await bare.login("bench-token")
    runner = asyncio.create_task(bare.connect())
    await bare.wait_until_ready()
    await bare.tree.sync()
    stop = asyncio.Event()
    lags: list[float] = []
    probe = asyncio.create_task(_lag_probe(stop, lags))  # as beside the bot: the same work
    # with --profile, the bare bot's own profile beside the bot's (PROFILE.bare), for
    # benchmarks.profile_diff: what the bot does over the library, function by function
    profile = cProfile.Profile() if args.profile else None
    if profile is not None:
        profile.enable()
    parent.send("go")
    cpu, kernel = time.process_time(), _kernel_s()
    report: dict[str, Any] = await loop.run_in_executor(None, parent.recv)
    report["bot_cpu"] = time.process_time() - cpu
    if profile is not None:
        profile.disable()
        profile.dump_stats(f"{args.profile}.bare")
    report["bot_kernel"] = _kernel_s() - kernel
    report["lags"] = lags
    report["extra_ms"] = args.bare_extra
    stop.set()
    await probe
    await bare.close()
    with contextlib.suppress(asyncio.CancelledError):
        await runner
    parent.send("closed")
    process.join(timeout=10)
    return report


def _bare_rows(bare: dict[str, Any]) -> list[str]:
    """The bare bot's own figures: its wall time, requests, CPU and samples."""
    samples: Samples = bare["samples"]
    extra = f", {bare['extra_ms']:g} ms of CPU more an interaction" if bare["extra_ms"] else ""
    rows = [
        f"baseline, a bare discord.py bot{extra} under the same load: wall time "
        f"{bare['elapsed']:.1f} s, {bare['requests']} HTTP requests, CPU {bare['bot_cpu']:.1f} s "
        f"({bare['bot_kernel']:.1f} s in the kernel; {bare['bot_cpu'] / bare['elapsed']:.0%} "
        f"of a core) (the fake Discord and players {bare['cpu']:.1f} s)"
    ]
    rows += [f"  {_row(n, samples.values[n])}" for n in _ROWS if samples.values.get(n)]
    if samples.failures:
        rows.append(f"  failures: {samples.failures}")
    if bare["errors"]:
        rows.append(f"  {len(bare['errors'])} games raised, first: {bare['errors'][0]}")
    return rows


def _baseline_rows(bare: dict[str, Any], report: dict[str, Any], cpu: float) -> list[str]:
    """The bare bot's figures beside the bot's: CPU per interaction, their ratio, and whether
    both made the same requests."""
    rows = _bare_rows(bare)
    per_bot = cpu / max(1, report["interactions"])
    per_bare = bare["bot_cpu"] / max(1, bare["interactions"])
    rows.append(
        f"CPU per interaction: the bot {per_bot * 1000:.2f} ms ({report['interactions']} "
        f"interactions), the bare bot {per_bare * 1000:.2f} ms ({bare['interactions']}): "
        f"ratio {per_bot / per_bare if per_bare else float('inf'):.2f}"
    )
    # The fake Discord does the same work in both runs (the same requests from the same
    # players), so its CPU measures how fast this host ran each: dividing by it takes out
    # the host's drift between the two runs, which on a shared machine is often larger
    # than the difference being measured.
    if bare["cpu"] and report["cpu"] and bare["bot_cpu"]:
        steady = (cpu / report["cpu"]) / (bare["bot_cpu"] / bare["cpu"])
        rows.append(
            f"the same ratio with each run's CPU counted in units of its fake Discord's: "
            f"{steady:.2f} (the bot {cpu / report['cpu']:.2f}, the bare bot "
            f"{bare['bot_cpu'] / bare['cpu']:.2f})"
        )
        # A reply deferred because its write or its AI was slow costs another request (and a
        # turn's ping of its own): a slow host raises the bot's requests per interaction, and
        # its CPU with them. Per request, that part of the difference between runs goes.
        ours_per = report["requests"] / max(1, report["interactions"])
        bare_per = bare["requests"] / max(1, bare["interactions"])
        rows.append(
            f"HTTP requests per interaction: the bot {ours_per:.2f}, the bare bot "
            f"{bare_per:.2f}; CPU per request in the same units: the bot "
            f"{cpu / report['cpu'] / ours_per:.2f}, the bare bot "
            f"{bare['bot_cpu'] / bare['cpu'] / bare_per:.2f}"
        )
    ours, theirs = Counter(report["routes"]), Counter(bare["routes"])
    if ours == theirs:
        rows.append(f"requests: the same as the bot's, route by route ({sum(ours.values())})")
    else:
        differ = sorted(set(ours) | set(theirs), key=lambda r: -(ours[r] + theirs[r]))
        rows.append("requests: not the same as the bot's (route: the bot's, the bare bot's)")
        rows += [f"  {r}: {ours[r]}, {theirs[r]}" for r in differ if ours[r] != theirs[r]]
    return rows


async def _run(args: argparse.Namespace) -> int:
    # The bare bot first, so that the bot runs as it does without --baseline.
    bare = await _run_bare(args) if args.baseline or args.bare_only else None
    if args.bare_only and bare is not None:
        per_bare = bare["bot_cpu"] / max(1, bare["interactions"])
        print("\n".join(_bare_rows(bare)))
        print(_row("  event-loop lag (10 ms probe)", bare["lags"]))
        print(
            f"CPU per interaction: the bare bot {per_bare * 1000:.2f} ms ({bare['interactions']})"
        )
        return 0
    process, parent = await _start_driver(args)
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as servers:
        ai: AIRunner
        if args.instant_ai:
            from tests.runners import CentreRunner

            ai = CentreRunner()
            ai_workers = "the AI an instant stand-in"
        elif args.queue_workers:
            # The AI on the task queue: a real Redis and that many `python -m bot.worker`s.
            from tests.redis_server import RedisServer

            redis = RedisServer()
            redis.start()
            servers.callback(redis.stop)
            workers = [
                subprocess.Popen(  # noqa: ASYNC220 - started once, before the load
                    [sys.executable, "-m", "bot.worker", "--redis", redis.url, *_idle_flag(args)]
                )
                for _ in range(args.queue_workers)
            ]
            for worker in workers:
                servers.callback(worker.wait)
                servers.callback(worker.terminate)
            ai = await QueueRunner.connect(redis.url)
            ai_workers = f"{args.queue_workers} queue workers"
        else:
            pool = await ProcessPoolRunner.start(idle=not args.no_idle)
            if args.nice is not None:
                for pid in pool.worker_pids():
                    # An experiment knob: override the runner's own worker priority.
                    os.setpriority(os.PRIO_PROCESS, pid, args.nice)
            ai = pool
            ai_workers = f"{pool.workers} AI workers"
        path = Path(tmp) / "bench.sqlite3"
        repository: GameRepository
        if args.memory:
            from storage.memory import InMemoryGameRepository

            repository = InMemoryGameRepository()
            store = "in memory (nothing kept)"
        elif args.postgres:
            from storage.postgres import PostgresGameRepository
            from tests.postgres_server import PostgresServer

            postgres = PostgresServer()
            postgres.start()
            servers.callback(postgres.stop)
            repository = await PostgresGameRepository.connect(postgres.create_database())
            store = "PostgreSQL (fsync off)"
        else:
            repository = await SqliteGameRepository.connect(path, synchronous=args.sync)
            store = f"SQLite synchronous={args.sync}"
        bot, runner = await _ready_bot(
            Settings(db_path=path),
            repository,
            ai,
            style=args.style,
            pings=not args.no_turn_pings,
        )
        if args.running_starts is not None:
            bot.start_admission = StartAdmission(running=args.running_starts)
        stop = asyncio.Event()
        lags: list[float] = []
        reviews: list[float] = []
        reviewing = None
        if args.review:
            if not isinstance(ai, ProcessPoolRunner):
                raise SystemExit("--review needs the local pool (not --queue-workers)")
            reviewing = asyncio.create_task(await _reviews(ai, repository, stop, reviews))
        probe = asyncio.create_task(_lag_probe(stop, lags))
        collections = _GcTimer() if args.gc else None
        if collections is not None:
            gc.callbacks.append(collections)
        profile = cProfile.Profile() if args.profile else None
        if profile is not None:
            profile.enable()
        parent.send("go")
        before = _activity(repository)
        cpu, waited, kernel = time.process_time(), _cpu_wait_s(), _kernel_s()
        on_loop = time.thread_time()  # this thread runs the event loop
        report = await loop.run_in_executor(None, parent.recv)
        on_loop = time.thread_time() - on_loop
        cpu, waited = time.process_time() - cpu, _cpu_wait_s() - waited
        storage_rows = _activity_rows(before, _activity(repository), report["interactions"])
        kernel = _kernel_s() - kernel
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)
        if collections is not None:
            gc.callbacks.remove(collections)
        stop.set()
        await probe
        if reviewing is not None:
            reviewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reviewing
        await bot.close()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
        retries = ai.retries if isinstance(ai, QueueRunner) else None
        admission = bot.start_admission
        await ai.close()
        await repository.close()
    parent.send("closed")
    process.join(timeout=10)

    samples: Samples = report["samples"]
    cores = len(os.sched_getaffinity(0))
    print(
        f"{args.games} concurrent games ({args.games // 2} between people, "
        f"{args.games - args.games // 2} vs the AI at {args.level}), {args.moves} moves each, "
        f"{cores} cores / {ai_workers}, {args.style} boards, "
        f"players think {args.think:g} s on average{_arrivals(args)}, {store}, "
        f"turn pings {'off' if args.no_turn_pings else 'on'}, "
        f"AI workers at nice {WORKER_NICENESS if args.nice is None else args.nice}"
        f"{'' if args.no_idle else ' in the idle class'}, "
        f"{_loop_name(loop)} event loop, JSON by "
        f"{'orjson' if discord.utils.HAS_ORJSON else 'json'}, "
        f"GIL switch interval {sys.getswitchinterval() * 1000:g} ms"
    )
    print(f"wall time {report['elapsed']:.1f} s, {report['requests']} HTTP requests from the bot")
    if retries is not None:
        print(f"searches enqueued again: {retries}")
    print(
        f"starts that waited for an admission slot ({admission.running} at once): "
        f"{admission.queued} ({admission.waited_s:.1f} s in all, the longest"
        f" {admission.longest_wait_s:.2f} s), refused: {admission.refused}"
    )
    # A saturated fake would measure itself: its CPU is shown beside the bot's.
    print(
        f"CPU: the bot {cpu:.1f} s ({kernel:.1f} s of it in the kernel; "
        f"{on_loop:.2f} s on its event loop's thread, {cpu - on_loop:.2f} s on other threads; "
        f"{cpu / report['elapsed']:.0%} of a core; its event loop "
        f"waited {waited:.1f} s for a core), the fake Discord and players {report['cpu']:.1f} s "
        f"({report['cpu'] / report['elapsed']:.0%})"
    )
    for name in _ROWS:
        if samples.values.get(name):
            print(_row(name, samples.values[name]))
    print(_row("event-loop lag (10 ms probe)", lags))
    if reviews:
        print(_row("review of a 40-move game, back to back", reviews))
    if collections is not None:
        for generation, pauses in enumerate(collections.pauses):
            if pauses:
                print(_row(f"gc gen {generation} ({sum(pauses) * 1000:.0f} ms in all)", pauses))
    print("\n".join(storage_rows))
    if samples.failures:
        print(f"failures: {samples.failures}")
    if report["errors"]:
        print(f"{len(report['errors'])} games raised, first: {report['errors'][0]}")
    if args.routes:
        print("\n".join(_route_rows(report["routes"], report["interactions"])))
    if bare is not None:
        print("\n".join(_baseline_rows(bare, report, cpu)))
    return 0


def _activity(repository: GameRepository) -> Activity | None:
    return repository.activity() if isinstance(repository, SqliteGameRepository) else None


def _activity_rows(before: Activity | None, after: Activity | None, interactions: int) -> list[str]:
    """The SQLite repository's work during the load, in all and per interaction: counts that
    do not depend on the machine's speed (the batching of commits does, a little)."""
    if before is None or after is None:
        return []
    per = max(1, interactions)
    counts = [
        ("writes", after.writes - before.writes),
        ("group commits", after.commits - before.commits),
        ("trips to its threads", after.trips - before.trips),
        ("of them sent ahead of answers", after.ahead - before.ahead),
        ("batches behind the last one's end", after.behind - before.behind),
        ("the writer's waits for answers", after.waits - before.waits),
        ("reads on the event loop", after.inline_reads - before.inline_reads),
    ]
    return [
        "SQLite during the load, in all and per interaction: "
        + ", ".join(f"{name} {count} ({count / per:.2f})" for name, count in counts)
    ]


async def _ready_bot(
    settings: Settings,
    repository: GameRepository,
    ai: AIRunner,
    *,
    style: str,
    pings: bool,
    shards: ShardSpec | None = None,
) -> tuple[GomokuBot, asyncio.Task[None]]:
    """The bot connected to the fake, its commands synced and every guild set to ``style``
    boards with turn pings ``pings`` (one process, or one shard process of a cluster)."""
    bot = create_bot(
        settings,
        shards=shards,
        repository=repository,
        ai=ai,
        cooldown=UserCooldown(rate=10_000, per=1.0),
        guild_ready_timeout=0.05,
        freeze_heap=True,  # as serve() runs it
    )
    await bot.login("bench-token")
    runner = asyncio.create_task(bot.connect())
    await bot.wait_until_ready()
    await bot.tree.sync()
    for guild in bot.guilds:
        await bot.service.update_settings(guild.id, look=style, turn_pings=pings)
    return bot, runner


# ---------------------------------------------------------------------- shard processes


def _guild_on(shard: int, shard_count: int) -> int:
    """A guild id that Discord puts on ``shard`` of ``shard_count``."""
    return ((1000 * shard_count + shard) << 22) | 5


def _shard_bot(loop: str, *args: Any) -> None:
    """A shard process's entry point: ``_serve_shard(*args)`` run as ``python -m bot`` runs
    its process (``bot.app.process_runner``: uvloop, the short GIL switch interval), or with
    ``loop="asyncio"`` on asyncio's own loop and Python's default interval."""
    if loop == "asyncio":
        asyncio.run(_serve_shard(*args))
        return
    with process_runner() as runner:
        runner.run(_serve_shard(*args))


async def _serve_shard(
    conn: Connection,
    port: int,
    shard: int,
    shard_count: int,
    database_url: str,
    queue_url: str | None,
    style: str,
    pings: bool,
) -> None:
    """One bot process running ``shard``, connected to its own fake (whose one guild is on
    that shard): what ``python -m bot --shards N --shard-count M`` runs, plus a lag probe."""
    from storage.postgres import PostgresGameRepository

    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway-ws")
    loop = asyncio.get_running_loop()
    repository = await PostgresGameRepository.connect(database_url)
    ai: AIRunner
    if queue_url is not None:
        ai = await QueueRunner.connect(queue_url)
    else:
        ai = await ProcessPoolRunner.start()
    bot, runner = await _ready_bot(
        Settings(),
        repository,
        ai,
        style=style,
        pings=pings,
        shards=ShardSpec(frozenset({shard}), shard_count),
    )
    conn.send("ready")
    await loop.run_in_executor(None, conn.recv)  # go
    stop = asyncio.Event()
    lags: list[float] = []
    probe = asyncio.create_task(_lag_probe(stop, lags))
    cpu = time.process_time()
    await loop.run_in_executor(None, conn.recv)  # stop
    cpu = time.process_time() - cpu
    stop.set()
    await probe
    await bot.close()
    with contextlib.suppress(asyncio.CancelledError):
        await runner
    retries = ai.retries if isinstance(ai, QueueRunner) else 0
    await ai.close()
    await repository.close()
    conn.send(
        {
            "lags": lags,
            "cpu": cpu,
            "loop": _loop_name(loop),
            "switch_ms": sys.getswitchinterval() * 1000,
            "retries": retries,
        }
    )


async def _run_cluster(args: argparse.Namespace) -> int:
    """``--shard-processes N``: N bot processes, one shard each, on one PostgreSQL database
    (and the AI on the task queue with ``--queue-workers``, else a local pool in each). Each
    has its own fake Discord and players in a process of their own, its guild on its shard,
    and 1/N of the games: what Discord would send each shard's process."""
    from tests.postgres_server import PostgresServer

    if not args.postgres:
        raise SystemExit("--shard-processes needs --postgres (the processes share a database)")
    context = multiprocessing.get_context("spawn")
    loop = asyncio.get_running_loop()
    count = args.shard_processes

    async def recv(conn: Connection) -> Any:
        return await loop.run_in_executor(None, conn.recv)

    with contextlib.ExitStack() as servers:
        postgres = PostgresServer()
        postgres.start()
        servers.callback(postgres.stop)
        database_url = postgres.create_database()
        queue_url = None
        if args.queue_workers:
            from tests.redis_server import RedisServer

            redis = RedisServer()
            redis.start()
            servers.callback(redis.stop)
            queue_url = redis.url
            for _ in range(args.queue_workers):
                worker = subprocess.Popen(  # noqa: ASYNC220 - started once, before the load
                    [sys.executable, "-m", "bot.worker", "--redis", redis.url, *_idle_flag(args)]
                )
                servers.callback(worker.wait)
                servers.callback(worker.terminate)
        drivers: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        bots: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        for shard in range(count):
            games = args.games // count + (1 if shard < args.games % count else 0)
            parent, child = context.Pipe()
            driver = context.Process(
                target=_driver,
                args=(
                    child,
                    dataclasses.replace(
                        Load.of(args),
                        games=games,
                        seed=args.seed + shard,
                        guild_id=_guild_on(shard, count),
                    ),
                ),
                daemon=True,
            )
            driver.start()
            drivers.append((driver, parent))
        for shard, (_, driver_conn) in enumerate(drivers):
            port = await recv(driver_conn)
            parent, child = context.Pipe()
            # Not a daemon: a local AI pool is its children.
            bot = context.Process(
                target=_shard_bot,
                args=(
                    args.loop,
                    child,
                    port,
                    shard,
                    count,
                    database_url,
                    queue_url,
                    args.style,
                    not args.no_turn_pings,
                ),
            )
            bot.start()
            bots.append((bot, parent))
        for _, bot_conn in bots:
            if await recv(bot_conn) != "ready":
                raise RuntimeError("a bot process did not start")
        for _, conn in drivers + bots:
            conn.send("go")
        reports = [await recv(conn) for _, conn in drivers]
        for _, bot_conn in bots:
            bot_conn.send("stop")
        bot_reports = []
        for process, bot_conn in bots:
            # A bot process that does not stop in time (or died) costs its own figures, not
            # the run's.
            if await loop.run_in_executor(None, bot_conn.poll, _STOP_WAIT_S):
                with contextlib.suppress(EOFError):
                    bot_reports.append(bot_conn.recv())
            else:
                process.kill()
        for process, conn in drivers:
            conn.send("closed")
            process.join(timeout=10)
        for process, _ in bots:
            process.join(timeout=30)

    elapsed = max(r["elapsed"] for r in reports)
    samples = Samples()
    for report in reports:
        for name, values in report["samples"].values.items():
            samples.values.setdefault(name, []).extend(values)
        for name, failed in report["samples"].failures.items():
            samples.failures[name] = samples.failures.get(name, 0) + failed
    cores = len(os.sched_getaffinity(0))
    ai_workers = (
        f"{args.queue_workers} queue workers" if args.queue_workers else "a local AI pool each"
    )
    loops = sorted(
        {f"{r['loop']} event loop, GIL switch interval {r['switch_ms']:g} ms" for r in bot_reports}
    )
    print(
        f"{args.games} concurrent games ({args.games // 2} between people, "
        f"{args.games - args.games // 2} vs the AI at {args.level}), {args.moves} moves each, "
        f"{cores} cores, {count} shard processes / {ai_workers}, {args.style} boards, "
        f"turn pings {'off' if args.no_turn_pings else 'on'}, "
        f"players think {args.think:g} s on average{_arrivals(args)}, PostgreSQL (fsync off), "
        f"{'; '.join(loops) or 'no bot process reported'}"
    )
    requests = sum(r["requests"] for r in reports)
    print(f"wall time {elapsed:.1f} s, {requests} HTTP requests from the bots")
    if len(bot_reports) < count:
        print(
            f"{count - len(bot_reports)} bot processes sent no figures (died, or killed "
            f"when not stopped in {_STOP_WAIT_S:g} s)"
        )
    if args.queue_workers:
        print(f"searches enqueued again: {sum(r['retries'] for r in bot_reports)}")
    bots_cpu = ", ".join(f"{r['cpu']:.1f} s ({r['cpu'] / elapsed:.0%})" for r in bot_reports)
    fakes_cpu = sum(r["cpu"] for r in reports)
    print(
        f"CPU: the bots {bots_cpu}; the fakes and players {fakes_cpu:.1f} s "
        f"({fakes_cpu / elapsed:.0%} of a core)"
    )
    for name in _ROWS:
        if samples.values.get(name):
            print(_row(name, samples.values[name]))
    print(_row("event-loop lag (10 ms probe)", [lag for r in bot_reports for lag in r["lags"]]))
    if samples.failures:
        print(f"failures: {samples.failures}")
    errors = [e for r in reports for e in r["errors"]]
    if errors:
        print(f"{len(errors)} games raised, first: {errors[0]}")
    if args.routes:
        routes = sum((Counter(r["routes"]) for r in reports), Counter[str]())
        print("\n".join(_route_rows(routes, sum(r["interactions"] for r in reports))))
    return 0


def _loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """``uvloop`` or ``asyncio``: the package of ``loop``'s class."""
    return type(loop).__module__.split(".")[0]


def _arrivals(args: argparse.Namespace) -> str:
    return "" if args.ramp is None else f", games start over {args.ramp:g} s"


def _idle_flag(args: argparse.Namespace) -> list[str]:
    return ["--no-idle"] if args.no_idle else []


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the benchmark."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_load", description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="concurrent games")
    parser.add_argument("--moves", type=int, default=8, help="moves per game")
    parser.add_argument("--level", default="easy", help="AI level in the games against it")
    parser.add_argument("--seed", type=int, default=1, help="pauses between moves")
    parser.add_argument(
        "--think", type=float, default=2.0, help="mean seconds a player thinks (0: flat out)"
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=None,
        help="games start uniformly over this many seconds (default: one thinking pause)",
    )
    parser.add_argument(
        "--deadline",
        type=float,
        default=DEADLINE_S,
        help="seconds after the games begin at which the ones still running are stopped and "
        "counted as unfinished, by what each waited for (default %(default)g)",
    )
    parser.add_argument(
        "--sync", default="FULL", choices=["FULL", "NORMAL"], help="SQLite synchronous mode"
    )
    parser.add_argument(
        "--nice", type=int, default=None, help="niceness of the AI workers (default: the runner's)"
    )
    backend = parser.add_mutually_exclusive_group()
    backend.add_argument(
        "--postgres", action="store_true", help="store on a PostgreSQL server started for the run"
    )
    backend.add_argument(
        "--memory", action="store_true", help="store in memory (what SQLite's storage costs)"
    )
    parser.add_argument(
        "--queue-workers",
        type=int,
        default=0,
        help="the AI on the task queue with this many workers (0: the local process pool)",
    )
    parser.add_argument(
        "--shard-processes",
        type=int,
        default=0,
        help="run the bot as this many shard processes on PostgreSQL (needs --postgres)",
    )
    add_idle_option(parser)
    parser.add_argument(
        "--gc", action="store_true", help="time the bot process's garbage collections"
    )
    parser.add_argument(
        "--profile",
        help="write a cProfile of the bot process under load here (with --baseline, the bare"
        " bot's beside it, as PROFILE.bare)",
    )
    parser.add_argument(
        "--routes",
        action="store_true",
        help="print the bot's HTTP requests by route, per interaction (the request mix)",
    )
    parser.add_argument(
        "--review",
        action="store_true",
        help="review a 40-move game after another in the AI pool while the games run",
    )
    parser.add_argument(
        "--style", default="image", choices=["image", "emoji", "compact"], help="board style"
    )
    parser.add_argument(
        "--no-turn-pings",
        action="store_true",
        help="the guild's turn pings off (each move between people then sends two fewer requests)",
    )
    parser.add_argument(
        "--loop",
        default="bot",
        choices=["bot", "asyncio"],
        help="the bot's process (each shard process's with --shard-processes) as `python -m "
        "bot` runs it (uvloop where installed, a short GIL switch interval), or asyncio's own "
        "loop and Python's default interval",
    )
    parser.add_argument(
        "--instant-ai",
        action="store_true",
        help="the AI replaced by an in-process stand-in that answers at once (the nearest "
        "point to the centre): no search is ever slow enough to defer a /place",
    )
    parser.add_argument(
        "--running-starts",
        type=int,
        help="starts admitted to work at once (bot.core.admission; default: the bot's "
        "RUNNING_STARTS), to measure another admission than the shipped one",
    )
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="first run the same load on a bare discord.py bot (benchmarks.bare_bot) and print "
        "the bot's CPU per interaction beside the bare bot's, with their ratio",
    )
    parser.add_argument(
        "--bare-only",
        action="store_true",
        help="run the load on the bare discord.py bot alone (what --baseline runs first)",
    )
    parser.add_argument(
        "--bare-extra",
        type=float,
        default=0.0,
        metavar="MS",
        help="the bare bot spends this many ms of CPU on its event loop in each interaction "
        "before it answers: where a bot's cost over the library starts to queue its answers",
    )
    args = parser.parse_args(argv)
    if args.bare_extra < 0:
        raise SystemExit("--bare-extra is a number of milliseconds, 0 or more")
    if args.bare_extra and not (args.baseline or args.bare_only):
        raise SystemExit("--bare-extra is the bare bot's: it needs --baseline or --bare-only")
    if (args.baseline or args.bare_only) and args.shard_processes:
        raise SystemExit("--baseline runs one bot process (not --shard-processes)")
    if args.shard_processes:
        # This process only starts the others and gathers their figures: the bots' processes
        # run as --loop says (_shard_bot).
        return asyncio.run(_run_cluster(args))
    if args.loop == "asyncio":
        return asyncio.run(_run(args))
    with process_runner() as runner:
        return runner.run(_run(args))


if __name__ == "__main__":
    sys.exit(main())
