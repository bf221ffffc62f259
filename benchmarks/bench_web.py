"""Web board load: what open board pages cost the bot's ``/place``.

Run it as ``python -m benchmarks.bench_web [--games 100] [--watchers 200] [--moves 10]
[--think 0.5] [--rounds 1] [--no-pin] [--idle-pages] [--neighbour]``. It prints figures and
asserts nothing (timings on shared machines are noise, not verdicts).

It runs the same load twice, each time on a fresh bot (``create_bot``, a SQLite file, the web
board on): ``--games`` games between two people, each in its own channel, playing ``--moves``
``/place`` commands (at most 120) with ``--think`` seconds (on average) between them. One
run has no pages open; the other opens ``--watchers`` WebSockets on the first game and one on
every game (aiohttp clients speaking the page's protocol, not browsers). The fake Discord
and the players live in a child process, so the CPU measured is the bot's own; the sockets
live in another, at a lower priority (``PAGES_NICENESS``), so the clock that times a
``/place`` shares its event loop with Discord alone.

Real pages run on their readers' machines; here they share the host with the bot. So that
they take nothing from the bot, the bot runs on a core of its own, the first of the bench's,
and its children (Discord and the players; the page clients) on the others, in both runs
(``--no-pin``: every process on every core, where the page clients take CPU from the bot's
cores). ``--idle-pages`` puts the page clients in the kernel's idle class besides: niceness
only weighs shares, and a page client at nice 10 may still finish its slice before the fake
Discord that woke beside it runs. ``--neighbour`` gives the run without pages a control: a
process where the page clients would be, at their priority, that takes as much CPU as they
took in the run with pages just before it (the first run is then the one with pages), so
both runs share the host with as busy a neighbour. None of these moves the kernel's work: on
loopback the receiving end of a page's TCP runs in the context of the bot's send, and is
counted in its system time.

Printed per run: ``/place`` latency (event to answer, at the fake) p50 and p95, the bot
process's CPU over the move phase (user and system time: the kernel's part is mostly its
sockets; its event loop's thread alone; the garbage collector's runs and their CPU), and with
pages, how long a move took from its ``/place`` to reach the pages (p50, p95, and the
slowest), the CPU the bot spent sending the pages their states (the hub's renders and
writes, ``Hub.cpu``): what the pages cost it directly, and the CPU the pages' readers took
meanwhile, which the bot shares the host with here (and not in production); with
``--neighbour``, the CPU the control took. And how long a fixed slice of interpreter work
took (median CPU), run on the bot's event loop ten times a second in both runs (about 0.3%
of a core): the same work, so a slower slice means the bot's core ran slower beside its
neighbours. With ``--rounds``, the summary gives the medians of the rounds' ratios of
``/place`` p95, of the bot's CPU, of the slice's CPU, and of the bot's CPU counted in
slices (its CPU over the slice's): the work it did, whatever the speed its core ran at;
how many rounds' ratios are over +10%; and ``/place``'s p95 over every round's moves
together, a side each, with (from three rounds) a 95% interval for its change: the rounds
drawn again with replacement, 2,000 times.

A single pair of short runs varies by more than the pages cost. For a verdict, make the runs
longer (``--moves 60``: half a minute of moves at the default pace) and repeat them:
``--rounds N`` runs N pairs, alternating which of the two goes first (without, with; with,
without; ...) so that a host getting busier or quieter weighs on both alike, and ends with
the medians of each side and of the pairs' ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import discord
import numpy as np
import yarl

from benchmarks.common import NoAI, cpu_model
from bot.app import create_bot
from bot.cooldown import UserCooldown
from bot.core.ai import lower_priority
from bot.settings import Settings

SECRET = "bench secret for board passes"
MOST_MOVES = 120  # eight rows of 15 stones (``_cell``)
PAGES_NICENESS = 10  # the page clients' process, added to the bench's own niceness


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _cell(ply: int) -> str:
    """The ``ply``-th stone of a game that never makes five: rows 1, 3, ..., 15 filled left to
    right, so a row alternates colours and no two filled rows touch."""
    x, y = ply % 15, 2 * (ply // 15)
    return f"{'abcdefghijklmno'[x]}{y + 1}"


# ---------------------------------------------------------------------- child: Discord and players


def _driver(conn: Connection, args: argparse.Namespace, cores: set[int] | None) -> None:
    if cores is not None:
        os.sched_setaffinity(0, cores)
    asyncio.run(_drive(conn, args))


async def _drive(conn: Connection, args: argparse.Namespace) -> None:
    from tests.fakediscord import FakeDiscord

    fake = FakeDiscord()
    fake.answer_timeout = 60.0
    rng = random.Random(args.seed)
    channels = [fake.default_channel] + [fake.add_channel(f"g{i}") for i in range(args.games - 1)]
    players = [(fake.add_user(f"b{i}"), fake.add_user(f"w{i}")) for i in range(args.games)]
    await fake.start()
    conn.send(fake.port)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, conn.recv)  # the bot is ready

    game_ids: list[int] = []
    for index, (black, white) in enumerate(players):
        start = await fake.slash(
            "gomoku start",
            user=black,
            channel=channels[index],
            options={"opponent": white, "colour": "black", "rated": False},
        )
        assert start.message is not None
        accept = next(c for c in start.message.custom_ids() if c.endswith(":accept"))
        await fake.click(start.message, accept, user=white)
        game_ids.append(int(accept.split(":")[1]))
    conn.send(game_ids)

    # (game, move count) -> when the /place that made it was sent
    sent: dict[tuple[int, int], float] = {}
    latencies: list[float] = []
    failures = 0

    async def play(index: int) -> None:
        nonlocal failures
        black, white = players[index]
        for turn in range(args.moves):
            await asyncio.sleep(rng.uniform(0.5 * args.think, 1.5 * args.think))
            user = black if turn % 2 == 0 else white
            started = time.monotonic()
            sent[(game_ids[index], turn + 1)] = started
            record = await fake.send_slash(
                "place",
                user=user,
                channel=channels[index],
                options={"cell": _cell(turn)},
            )
            reply = await fake.answer(record)
            if "played **" in reply.content:
                latencies.append(time.monotonic() - started)
            else:
                failures += 1

    await loop.run_in_executor(None, conn.recv)  # the pages are open (or there are none)
    started = time.monotonic()
    await asyncio.gather(*(play(i) for i in range(args.games)))
    await asyncio.sleep(1.0)  # the last moves reach the pages
    elapsed = time.monotonic() - started
    cores = sorted(os.sched_getaffinity(0))
    conn.send(
        {
            "latencies": latencies,
            "failures": failures,
            "sent": sent,
            "elapsed": elapsed,
            "cores": cores,
        }
    )
    await loop.run_in_executor(None, conn.recv)  # the bot has stopped
    await fake.close()


# ---------------------------------------------------------------------- child: the pages


def _pages(
    conn: Connection,
    args: argparse.Namespace,
    port: int,
    game_ids: list[int],
    cores: set[int] | None,
) -> None:
    # Below the bot and the fake Discord on a busy host: real pages run on their readers'
    # machines, and here they would otherwise take the CPU the bot's /place waits for.
    _aside(args.idle_pages, cores)
    asyncio.run(_watch(conn, args, port, game_ids))


def _aside(idle: bool, cores: set[int] | None) -> None:
    """This process (the page clients, or the neighbour in their place) below the bot and the
    fake Discord: ``PAGES_NICENESS`` steps lower, with ``idle`` in the kernel's idle class
    too (it gives up the core the moment either wakes), and on ``cores`` when pinned."""
    lower_priority(PAGES_NICENESS, idle=idle)
    if cores is not None:
        os.sched_setaffinity(0, cores)


def _policy() -> str:
    idle = hasattr(os, "sched_getscheduler") and os.sched_getscheduler(0) == os.SCHED_IDLE
    return " (idle class)" if idle else ""


async def _watch(
    conn: Connection, args: argparse.Namespace, port: int, game_ids: list[int]
) -> None:
    """The pages in a process of their own: reading hundreds of sockets would otherwise share
    an event loop with the fake Discord that times each ``/place``. Each arrival is kept as
    ``(game, move count, time.monotonic())``: the clock is the system's, the same in every
    process, so the parent pairs it with the ``/place`` that made it."""
    import aiohttp

    from bot.web.tokens import Role, Signer

    arrivals: list[tuple[int, int, float]] = []
    sockets: list[aiohttp.ClientWebSocketResponse] = []
    readers: list[asyncio.Task[None]] = []
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))  # no cap on sockets
    signer = Signer.from_secrets(SECRET, None)

    async def read(ws: aiohttp.ClientWebSocketResponse, game: int) -> None:
        async for message in ws:
            if message.type is not aiohttp.WSMsgType.TEXT:
                break
            news = message.json()
            if news["type"] == "state":
                stones = len(news["moves"])
            elif news["type"] == "delta":  # the moves kept, then those added
                stones = news["keep"] + len(news["add"])
            else:
                continue
            arrivals.append((game, stones, time.monotonic()))

    watched = [game_ids[0]] * args.watchers + game_ids
    for number, game in enumerate(watched):
        ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws")
        token = signer.mint(game, 10_000 + number, Role.WATCH)
        await ws.send_json({"type": "hello", "token": token})
        await ws.receive()  # the first state
        sockets.append(ws)
        readers.append(asyncio.create_task(read(ws, game)))
    conn.send(len(sockets))
    loop = asyncio.get_running_loop()
    began = time.process_time()
    await loop.run_in_executor(None, conn.recv)  # the moves are over
    cpu = time.process_time() - began
    conn.send((arrivals, cpu, f"{sorted(os.sched_getaffinity(0))}{_policy()}"))
    for task in readers:
        task.cancel()
    for ws in sockets:
        await ws.close()
    await http.close()


# ---------------------------------------------------------------------- parent: the bot


class _Collections:
    """The cyclic garbage collector's runs in the bot's process, and the CPU they took, by
    generation (the youngest first)."""

    def __init__(self) -> None:
        self.runs = [0, 0, 0]
        self.cpu = [0.0, 0.0, 0.0]
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.thread_time()
        else:
            self.runs[info["generation"]] += 1
            self.cpu[info["generation"]] += time.thread_time() - self._began


def _fixed_work() -> None:
    """A fixed slice of interpreter work, of the bot's own sort (dicts, strings, JSON)."""
    for n in range(10):
        record = {f"k{i}": [i, n, str(i)] for i in range(20)}
        json.loads(json.dumps(record))


async def _canary(samples: list[float]) -> None:
    """``_fixed_work`` ten times a second on the bot's event loop, each slice's CPU kept: the
    same work, so what it costs tells how fast the bot's core runs beside its neighbours."""
    while True:
        await asyncio.sleep(0.1)
        began = time.thread_time()
        _fixed_work()
        samples.append(time.thread_time() - began)


def _neighbour(conn: Connection, share: float, idle: bool, cores: set[int] | None) -> None:
    """The control of a run without pages (``--neighbour``): a process at the pages'
    priority, on their cores, that takes ``share`` of a core (the CPU the pages' readers took
    in the run with pages before it) from the moves' start to their end, decoding a page's
    message over and over in slices of a hundredth of a second, so that the bot shares the
    host with as busy a neighbour as it does with pages."""
    _aside(idle, cores)
    message = b'{"type":"delta","version":61,"keep":59,"add":[[7,9]],"turn":0,"status":"x"}'
    conn.send("ready")
    conn.recv()  # the moves begin
    began = time.process_time()
    period = 0.01
    while not conn.poll():
        start, cpu = time.monotonic(), time.thread_time()
        while time.thread_time() - cpu < share * period:
            json.loads(message)
        rest = period - (time.monotonic() - start)
        if rest > 0:
            time.sleep(rest)
    conn.recv()  # the moves are over
    conn.send((time.process_time() - began, f"{sorted(os.sched_getaffinity(0))}{_policy()}"))


async def _run(
    args: argparse.Namespace, pages: bool, neighbour: float | None = None
) -> dict[str, Any]:
    """One run: the bot in this process, Discord and the players in one child, and with
    ``pages`` the page clients in another (without, and with a ``neighbour``, a process that
    takes that share of a core instead). Pinned (``args.pin``), the bot runs on the first of
    this process's cores and its children on the others."""
    context = multiprocessing.get_context("spawn")
    bot_cores: set[int] | None = None
    others: set[int] | None = None
    if args.pin:
        cores = sorted(os.sched_getaffinity(0))
        bot_cores, others = {cores[0]}, set(cores[1:])
    parent, child = context.Pipe()
    process = context.Process(target=_driver, args=(child, args, others), daemon=True)
    process.start()
    if bot_cores is not None:
        os.sched_setaffinity(0, bot_cores)  # after the spawn: the child starts on every core
    loop = asyncio.get_running_loop()
    port = await loop.run_in_executor(None, parent.recv)
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway-ws")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            db_path=Path(tmp) / "bench.sqlite3",
            web_port=0,
            web_url="http://127.0.0.1",
            web_secret=SECRET,
        )
        bot = create_bot(
            settings,
            ai=NoAI(),
            cooldown=UserCooldown(rate=10_000, per=1.0),
            guild_ready_timeout=0.05,
            freeze_heap=True,
        )
        await bot.login("bench-token")
        runner = asyncio.create_task(bot.connect())
        await bot.wait_until_ready()
        await bot.tree.sync()
        for guild in bot.guilds:
            await bot.service.update_settings(guild.id, look="emoji", turn_pings=False)
        assert bot.web_board is not None
        parent.send("ready")
        game_ids: list[int] = await loop.run_in_executor(None, parent.recv)
        watcher: Any = None
        sockets = 0
        if pages:
            watcher, into = context.Pipe()
            viewer = context.Process(
                target=_pages,
                args=(into, args, bot.web_board.port, game_ids, others),
                daemon=True,
            )
            viewer.start()
            sockets = await loop.run_in_executor(None, watcher.recv)
        elif neighbour is not None:
            watcher, into = context.Pipe()
            viewer = context.Process(
                target=_neighbour, args=(into, neighbour, args.idle_pages, others), daemon=True
            )
            viewer.start()
            await loop.run_in_executor(None, watcher.recv)
            watcher.send("start")
        collections = _Collections()
        gc.callbacks.append(collections)
        slices: list[float] = []
        canary = asyncio.create_task(_canary(slices))
        cpu, loop_cpu = os.times(), time.thread_time()
        fanned = bot.web_board.hub.cpu
        parent.send("start")
        figures: dict[str, Any] = await loop.run_in_executor(None, parent.recv)
        spent, loop_spent = os.times(), time.thread_time()
        canary.cancel()
        figures["canary"] = statistics.median(slices) if slices else float("nan")
        figures["cores"] = {"bot": sorted(os.sched_getaffinity(0)), "Discord": figures["cores"]}
        gc.callbacks.remove(collections)
        figures["collections"] = (collections.runs, collections.cpu)
        figures["loop"] = loop_spent - loop_cpu  # the event loop's thread alone
        figures["fan_out"] = bot.web_board.hub.cpu - fanned
        figures["user"] = spent.user - cpu.user
        figures["system"] = spent.system - cpu.system  # the kernel's part: sockets, mostly
        figures["cpu"] = figures["user"] + figures["system"]
        figures["sockets"] = sockets
        figures["arrivals"] = []
        if pages:
            watcher.send("stop")
            sent: dict[tuple[int, int], float] = figures["sent"]
            arrivals, figures["readers"], cores = await loop.run_in_executor(None, watcher.recv)
            figures["cores"]["pages"] = cores
            for game, stones, arrived in arrivals:
                moved = sent.get((game, stones))
                if moved is not None:
                    figures["arrivals"].append(arrived - moved)
            viewer.join(30)
        elif watcher is not None:
            watcher.send("stop")
            figures["neighbour"], cores = await loop.run_in_executor(None, watcher.recv)
            figures["cores"]["neighbour"] = cores
            viewer.join(30)
        await bot.close()
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
    parent.send("stop")
    process.join(30)
    if bot_cores is not None:
        os.sched_setaffinity(0, bot_cores | (others or set()))
    return figures


def _report(name: str, figures: dict[str, Any]) -> None:
    latencies = [1000 * v for v in figures["latencies"]]
    cpu_share = 100 * figures["cpu"] / figures["elapsed"]
    runs, collected = figures["collections"]
    generations = ", ".join(
        f"{n} in {1000 * t:.0f} ms" for n, t in zip(runs, collected, strict=True)
    )
    print(
        f"{name:>16}: /place n={len(latencies)} p50 {statistics.median(latencies):.1f} ms"
        f" p95 {_percentile(latencies, 0.95):.1f} ms, failed {figures['failures']};"
        f" bot CPU {figures['cpu']:.2f} s (user {figures['user']:.2f} s, system"
        f" {figures['system']:.2f} s; its event loop's thread {figures['loop']:.2f} s)"
        f" in {figures['elapsed']:.1f} s ({cpu_share:.0f}%);"
        f" the collector ran {sum(runs)} times, {sum(collected):.2f} s ({generations}:"
        f" generations 0, 1, 2); a fixed slice of work took {1e6 * figures['canary']:.0f} us"
    )
    cores = ", ".join(f"{name} {cpus}" for name, cpus in figures["cores"].items())
    print(f"{'':>16}  cores: {cores}")
    if "neighbour" in figures:
        print(f"{'':>16}  the control neighbour took {figures['neighbour']:.2f} s of CPU")
    arrivals = [1000 * v for v in figures["arrivals"]]
    if arrivals:
        print(
            f"{'':>16}  {figures['sockets']} sockets, {len(arrivals)} states delivered:"
            f" p50 {statistics.median(arrivals):.0f} ms p95 {_percentile(arrivals, 0.95):.0f} ms"
            f" max {max(arrivals):.0f} ms after the /place; sending them took"
            f" {figures['fan_out']:.2f} s of the bot's CPU"
            f" ({100 * figures['fan_out'] / figures['cpu']:.1f}%,"
            f" {1e6 * figures['fan_out'] / len(arrivals):.0f} us a state delivered);"
            f" their readers' process took {figures['readers']:.2f} s of CPU on the same host"
        )


def _summary(rounds: list[dict[bool, dict[str, Any]]]) -> None:
    """The medians over the rounds, and of each round's ratio (with pages / without): of
    ``/place`` p95, of the bot's CPU, of the fixed slice's CPU (how much slower the bot's
    core ran), and of the bot's CPU in slices (its CPU over the slice's: the work it did,
    counted at the speed its core ran in that run)."""

    def p95(figures: dict[str, Any]) -> float:
        return 1000 * _percentile(figures["latencies"], 0.95)

    def slice_us(figures: dict[str, Any]) -> float:
        return 1e6 * float(figures["canary"])

    def in_slices(figures: dict[str, Any]) -> float:
        return float(figures["cpu"]) / float(figures["canary"])

    measures = (
        ("/place p95", p95, "ms"),
        ("bot CPU", _cpu, "s"),
        ("fixed slice", slice_us, "us"),
        ("bot CPU/slice", in_slices, "slices"),
    )
    for label, measure, unit in measures:
        without = [measure(pair[False]) for pair in rounds]
        with_pages = [measure(pair[True]) for pair in rounds]
        ratios = [100 * (w / o - 1) for w, o in zip(with_pages, without, strict=True)]
        print(
            f"{label:>16}: median {statistics.median(without):.2f} {unit} without pages,"
            f" {statistics.median(with_pages):.2f} {unit} with;"
            f" with/without per round {', '.join(f'{r:+.0f}%' for r in ratios)};"
            f" median {statistics.median(ratios):+.1f}%;"
            f" rounds over +10%: {sum(r > 10 for r in ratios)} of {len(ratios)}"
        )
    # Every round's /place latencies together, a side each: a round whose host was busier on
    # one side weighs a round's share, not a whole ratio.
    pooled = {
        side: 1000 * _percentile([v for pair in rounds for v in pair[side]["latencies"]], 0.95)
        for side in (False, True)
    }
    interval = ""
    if len(rounds) >= 3:
        low, high = pooled_p95_interval(
            [pair[False]["latencies"] for pair in rounds],
            [pair[True]["latencies"] for pair in rounds],
        )
        interval = f"; 95% interval over the rounds resampled {low:+.1f}% to {high:+.1f}%"
    print(
        f"{'pooled':>16}: /place p95 {pooled[False]:.2f} ms without pages, {pooled[True]:.2f} ms"
        f" with ({100 * (pooled[True] / pooled[False] - 1):+.1f}%), every round's moves together"
        f"{interval}"
    )


def pooled_p95_interval(
    without: list[list[float]], with_pages: list[list[float]], draws: int = 2000, seed: int = 1
) -> tuple[float, float]:
    """A 95% interval, in percent, for the pooled ``/place`` p95's change with pages: the
    rounds drawn again with replacement (each round's pair together, as it ran), the pooled
    p95 of each side taken as ``_percentile`` does, the ratio's 2.5th and 97.5th percentiles
    over ``draws`` such draws. Rounds vary by more than a round's moves do, so the round is
    what is drawn."""
    rng = np.random.default_rng(seed)
    sides = [[np.asarray(r, dtype=float) for r in rounds] for rounds in (without, with_pages)]
    count = len(without)
    changes = np.empty(draws)
    for draw in range(draws):
        picked = rng.integers(0, count, count)
        p95 = [_nearest_rank(np.concatenate([side[i] for i in picked]), 0.95) for side in sides]
        changes[draw] = 100 * (p95[1] / p95[0] - 1)
    low, high = np.percentile(changes, [2.5, 97.5])
    return float(low), float(high)


def _nearest_rank(values: np.ndarray, fraction: float) -> float:
    """``_percentile`` over an array: the value at rank ``fraction`` of the ordered values."""
    rank = min(len(values) - 1, int(fraction * len(values)))
    return float(np.partition(values, rank)[rank])


def _cpu(figures: dict[str, Any]) -> float:
    return float(figures["cpu"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--watchers", type=int, default=200, help="sockets on the first game")
    parser.add_argument(
        "--moves", type=int, default=10, help=f"/place per game (at most {MOST_MOVES})"
    )
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds between moves")
    parser.add_argument(
        "--rounds", type=int, default=1, help="pairs of runs, the first of each pair alternating"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the bot on one core; Discord, the players and the pages on the others"
        " (the default where there are two cores or more)",
    )
    parser.add_argument(
        "--idle-pages",
        action="store_true",
        help="the page clients (and the neighbour) in the kernel's idle class (Linux)",
    )
    parser.add_argument(
        "--neighbour",
        action="store_true",
        help="without pages, a process as busy as the pages' readers were in the run before",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.moves <= MOST_MOVES:
        parser.error(f"--moves is 1 to {MOST_MOVES}")
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds are at least 1")
    if args.pin is None:
        args.pin = len(os.sched_getaffinity(0)) >= 2
    if args.pin and len(os.sched_getaffinity(0)) < 2:
        parser.error("--pin needs two cores")
    print(f"CPU: {cpu_model()}")
    if args.pin:
        first, *rest = sorted(os.sched_getaffinity(0))
        print(f"pinned: the bot on core {first}; Discord, players, pages on {rest}")
    else:
        print("not pinned: every process on every core")
    readers: dict[str, Any] = {}
    rounds: list[dict[bool, dict[str, Any]]] = []
    for number in range(args.rounds):
        pair: dict[bool, dict[str, Any]] = {}
        # With a neighbour the first run has pages: the runs without take after the one before.
        order = (False, True) if (number % 2 == 0) != args.neighbour else (True, False)
        for pages in order:
            share = None
            if args.neighbour and not pages:
                share = readers["readers"] / readers["elapsed"]
            pair[pages] = asyncio.run(_run(args, pages, share))
            if pages:
                readers = pair[pages]
            _report("with pages" if pages else "without pages", pair[pages])
        rounds.append(pair)
    if args.rounds > 1:
        _summary(rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
