"""The driver of ``deploy/run-local.sh``: the built images against the tests' fake Discord.

``python -m deploy.localrun plain`` runs the image alone (``docker run``, a volume for /data,
SQLite, the image's own health check) and plays a few moves; ``python -m deploy.localrun
compose`` brings up compose.yaml with deploy/compose.local.yaml (bot, two AI workers, the
PostgreSQL and Valkey stand-ins, all on the host's network), plays a whole game against the
AI, checks every move is in PostgreSQL, that the queue workers made the AI's moves and that
every health check says healthy; then dumps the database with pg_dump while the bot runs,
stops the bot (exit status 0), restores the dump into a new database, starts the bot on it
(healthy again), and tears it all down.

The fake Discord (``tests/fakediscord``) listens on 127.0.0.1 in this process; the bot in its
container reaches it through ``tests/botprocess.py`` (mounted read-only), which points
discord.py at it and runs ``python -m bot`` unchanged. Every docker call is awaited as a
subprocess, so the fake keeps answering the bot meanwhile. Needs the project's test extras
(``make test``'s .venv) and a running Docker with docker-compose; not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from engine.types import Point
from tests.botprocess import TOKEN
from tests.fakediscord import FakeDiscord, FakeUser

ROOT: Final = Path(__file__).resolve().parents[1]
PROJECT: Final = "gomoku-local"  # the compose project's name
PLAIN: Final = "gomoku-local-plain"  # the plain run's container and volume
SIZE: Final = 15
SQLITE_MOVES: Final = """
import json, sqlite3
db = sqlite3.connect("file:/data/gomoku.sqlite3?mode=ro", uri=True)
game = db.execute(
    "SELECT id, status, termination, winner FROM games ORDER BY id DESC LIMIT 1").fetchone()
moves = [] if game is None else db.execute(
    "SELECT x, y, color FROM moves WHERE game_id = ? ORDER BY ply", (game[0],)).fetchall()
print(json.dumps({"status": None if game is None else game[1],
    "result": None if game is None else game[2:], "moves": moves}))
"""
POSTGRES_MOVES: Final = """
SELECT json_build_object('status', g.status, 'result', json_build_array(g.termination, g.winner),
    'moves', coalesce(
    (SELECT json_agg(json_build_array(m.x, m.y, m.color) ORDER BY m.ply)
     FROM moves m WHERE m.game_id = g.id), '[]'))
FROM games g ORDER BY g.id DESC LIMIT 1
"""


def say(text: str) -> None:
    """One line of the run's story, with the time since the start."""
    print(f"[{time.monotonic() - STARTED:7.1f} s] {text}", flush=True)


STARTED = time.monotonic()


async def run(
    *args: str, env: Mapping[str, str] | None = None, check: bool = True, limit_s: float = 300
) -> str:
    """Run a command without blocking the event loop (the fake Discord lives on it)."""
    process = await asyncio.create_subprocess_exec(
        *args,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), limit_s)
    text = out.decode(errors="replace")
    if check and process.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {process.returncode}:\n{text[-3000:]}")
    return text


async def run_bytes(*args: str, stdin: bytes | None = None, env: Mapping[str, str]) -> bytes:
    """Run a command that writes or reads binary data (a dump); fail on a non-zero status."""
    process = await asyncio.create_subprocess_exec(
        *args,
        cwd=ROOT,
        env={**os.environ, **env},
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin), 300)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {process.returncode}: {err.decode()[-2000:]}")
    return out


async def until(
    what: str, probe: Callable[[], Awaitable[bool]], *, within: float, every: float = 0.5
) -> float:
    """Wait for ``probe`` to say yes; the seconds it took."""
    started = time.monotonic()
    while not await probe():
        if time.monotonic() - started > within:
            raise TimeoutError(f"{what}: not within {within:.0f} s")
        await asyncio.sleep(every)
    return time.monotonic() - started


@dataclass
class Game:
    """A game as the database holds it."""

    status: str | None
    result: tuple[str | None, str | None] = (None, None)  # termination, winner
    moves: list[tuple[int, int, str]] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> Game:
        data = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
        moves = [(int(x), int(y), str(c)) for x, y, c in data.get("moves", [])]
        termination, winner = data.get("result") or (None, None)
        return cls(data.get("status"), (termination, winner), moves)


def _score(stones: dict[tuple[int, int], str], x: int, y: int, colour: str) -> float:
    """How much a stone of ``colour`` at (x, y) makes of its four lines."""
    total = 0.0
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run, open_ends = 1, 0
        for sign in (1, -1):
            k = 1
            while stones.get((x + sign * k * dx, y + sign * k * dy)) == colour:
                run, k = run + 1, k + 1
            nx, ny = x + sign * k * dx, y + sign * k * dy
            if 0 <= nx < SIZE and 0 <= ny < SIZE and (nx, ny) not in stones:
                open_ends += 1
        if run >= 5:
            total += 1e9
        elif open_ends:
            total += 10.0**run * open_ends
    return total


def choose(game: Game, me: str) -> Point:
    """The driver's move: a greedy player that makes its longest line or blocks the AI's."""
    stones = {(x, y): c for x, y, c in game.moves}
    if not stones:
        return Point(SIZE // 2, SIZE // 2)
    other = "white" if me == "black" else "black"
    best: tuple[float, int, int] | None = None
    for x in range(SIZE):
        for y in range(SIZE):
            if (x, y) in stones or not any(
                (x + dx, y + dy) in stones for dx in range(-2, 3) for dy in range(-2, 3)
            ):
                continue
            value = _score(stones, x, y, me) + 0.9 * _score(stones, x, y, other)
            if best is None or value > best[0]:
                best = (value, x, y)
    assert best is not None, "no empty point near the stones"
    return Point(best[1], best[2])


async def play(
    fake: FakeDiscord,
    read: Callable[[], Awaitable[Game]],
    *,
    level: str,
    max_moves: int,
) -> tuple[Game, list[str], float]:
    """``/gomoku start`` against the AI as black, then ``/place`` until the game ends or after
    ``max_moves`` of ours; the game, the moves' names and the slowest wait for an AI reply."""
    alice: FakeUser = fake.add_user("alice")
    reply = await fake.slash(
        "gomoku start", user=alice, options={"level": level, "colour": "black"}
    )
    say(f"/gomoku start level={level} colour=black -> {reply.content[:80]!r}")
    await until("the game in the database", lambda: _has_game(read), within=30)
    names: list[str] = []
    slowest = 0.0
    last = time.monotonic()
    game = await read()
    for _ in range(max_moves):
        if game.status != "active":
            break
        point = choose(game, "black")
        # A person's pace: the bot allows 5 commands in 5 s (bot.reporting.UserCooldown).
        await asyncio.sleep(max(0.0, last + 1.1 - time.monotonic()))
        last = time.monotonic()
        reply = await fake.slash("place", user=alice, options={"cell": str(point)})
        if "played **" not in reply.content:
            raise RuntimeError(f"/place {point}: {reply.content!r}")
        names.append(str(point))
        plies = len(game.moves) + 2
        started = time.monotonic()

        async def answered(plies: int = plies) -> bool:
            nonlocal game
            game = await read()
            return len(game.moves) >= plies or game.status != "active"

        await until(f"the AI's answer to {point}", answered, within=120, every=0.2)
        slowest = max(slowest, time.monotonic() - started)
        if len(game.moves) >= plies:
            x, y, _ = game.moves[plies - 1]
            names.append(str(Point(x, y)))
    return game, names, slowest


async def _has_game(read: Callable[[], Awaitable[Game]]) -> bool:
    return (await read()).status is not None


async def health(container: str) -> str:
    """Docker's health status of ``container``."""
    out = await run("docker", "inspect", "--format", "{{.State.Health.Status}}", container)
    return out.strip()


async def all_healthy(containers: list[str], *, within: float) -> float:
    """Wait until every container reports healthy; the seconds it took."""

    async def probe() -> bool:
        return all([await health(c) == "healthy" for c in containers])

    return await until("healthy", probe, within=within, every=1.0)


async def connected(
    fake: FakeDiscord, *, within: float, check: Callable[[], Awaitable[None]]
) -> float:
    """Wait until the bot is connected to ``fake`` with its commands registered."""

    async def probe() -> bool:
        await check()
        return fake.connected() and bool(fake.commands())

    return await until("the bot connected to the fake Discord", probe, within=within)


async def running(container: str, called: str) -> None:
    """Raise, with the end of its logs, unless ``container`` is running."""
    state = (await run("docker", "inspect", "--format", "{{.State.Status}}", container)).strip()
    if state != "running":
        logs = await run("docker", "logs", container, check=False)
        raise RuntimeError(f"{called} is {state}:\n{logs[-3000:]}")


def report(summary: dict[str, object]) -> None:
    """Print the summary and keep it in deploy/.run/."""
    folder = ROOT / "deploy" / ".run"
    folder.mkdir(exist_ok=True)
    (folder / f"{summary['mode']}.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2), flush=True)


async def plain(image: str, level: str, moves: int) -> None:
    """The image alone: SQLite in a volume, the image's own health check, no compose."""
    await run("docker", "rm", "-f", PLAIN, check=False)
    await run("docker", "volume", "rm", "-f", PLAIN, check=False)
    async with FakeDiscord() as fake:
        fake.answer_timeout = 60.0
        metrics_port = 19101
        await run(
            "docker", "run", "--detach", "--name", PLAIN, "--init", "--network", "host",
            "--volume", f"{PLAIN}:/data",
            "--env", f"DISCORD_TOKEN={TOKEN}", "--env", f"GOMOKU_METRICS_PORT={metrics_port}",
            # The image's health check, asked every 5 s rather than 30 for a shorter run.
            "--health-interval", "5s",
            "--volume", f"{ROOT / 'tests'}:/opt/fakediscord/tests:ro",
            "--env", "PYTHONPATH=/opt/fakediscord",
            image, "python", "-m", "tests.botprocess", str(fake.port),
        )  # fmt: skip

        async def alive() -> None:
            await running(PLAIN, "the container")

        try:
            ready = await connected(fake, within=180, check=alive)
            say(f"plain: connected to the fake Discord after {ready:.1f} s")

            async def read() -> Game:
                out = await run("docker", "exec", PLAIN, "python", "-c", SQLITE_MOVES)
                return Game.parse(out)

            game, names, slowest = await play(fake, read, level=level, max_moves=moves)
            say(
                f"plain: {len(game.moves)} moves in SQLite, status {game.status}: {' '.join(names)}"
            )
            took = await all_healthy([PLAIN], within=120)
            say(f"plain: healthy ({took:.1f} s after the game)")
            owner = await run(
                "docker", "exec", PLAIN, "stat", "-c", "%U %a", "/data/gomoku.sqlite3"
            )
            started = time.monotonic()
            await run("docker", "stop", "--time", "60", PLAIN)
            stop_s = time.monotonic() - started
            code = await run("docker", "inspect", "--format", "{{.State.ExitCode}}", PLAIN)
            logs = await run("docker", "logs", PLAIN, check=False)
            if len(game.moves) < 2 or code.strip() != "0" or "Traceback" in logs:
                raise RuntimeError(f"plain run: exit {code.strip()}, logs:\n{logs[-3000:]}")
            report({
                "mode": "plain", "image": image, "database": "SQLite /data/gomoku.sqlite3",
                "data_file_owner_mode": owner.strip(), "connect_s": round(ready, 1),
                "moves": names, "moves_in_db": len(game.moves), "status": game.status,
                "slowest_ai_reply_s": round(slowest, 2), "health": "healthy",
                "docker_stop_s": round(stop_s, 1), "exit_status": int(code),
            })  # fmt: skip
        finally:
            await run("docker", "rm", "-f", PLAIN, check=False)
            await run("docker", "volume", "rm", "-f", PLAIN, check=False)


async def compose(level: str, moves: int, keep: bool) -> None:
    """compose.yaml with deploy/compose.local.yaml: bot, 2 workers, PostgreSQL, Valkey."""
    files = ["-f", "compose.yaml", "-f", "deploy/compose.local.yaml"]
    base = ["docker-compose", "--project-name", PROJECT, *files]
    async with FakeDiscord() as fake:
        fake.answer_timeout = 60.0
        env = {
            "DISCORD_TOKEN": TOKEN,
            "POSTGRES_PASSWORD": secrets.token_urlsafe(18),
            "FAKE_DISCORD_PORT": str(fake.port),
            "LOG_LEVEL": "INFO",
        }
        await run(*base, "down", "--volumes", env=env, check=False)
        started = time.monotonic()
        await run(*base, "up", "--detach", "--no-build", env=env, limit_s=600)
        say(f"compose: up in {time.monotonic() - started:.1f} s")

        async def ids(service: str) -> list[str]:
            out = await run(*base, "ps", "--quiet", service, env=env)
            return out.split()

        async def bot_alive() -> None:
            (bot,) = await ids("bot")
            await running(bot, "the bot's container")

        try:
            ready = await connected(fake, within=240, check=bot_alive)
            say(f"compose: the bot connected to the fake Discord after {ready:.1f} s")
            (postgres,) = await ids("postgres")

            async def read() -> Game:
                out = await run(
                    "docker", "exec", postgres, "psql", "--username=gomoku", "--dbname=gomoku",
                    "--tuples-only", "--no-align", "--command", POSTGRES_MOVES,
                )  # fmt: skip
                return Game.parse(out)

            game, names, slowest = await play(fake, read, level=level, max_moves=moves)
            say(f"compose: {len(game.moves)} moves in PostgreSQL, status {game.status}")
            say(f"compose: moves {' '.join(names)}")
            containers = {s: await ids(s) for s in ("bot", "worker", "postgres", "valkey")}
            everyone = [c for found in containers.values() for c in found]
            if len(containers["worker"]) != 2:
                raise RuntimeError(f"workers: {containers['worker']}")
            took = await all_healthy(everyone, within=180)
            names_of = {
                c: f"{s}_{i}" for s, found in containers.items() for i, c in enumerate(found, 1)
            }
            statuses = {names_of[c]: await health(c) for c in everyone}
            say(f"compose: all healthy ({took:.1f} s after the game): {statuses}")

            # Who searched: each worker logs its jobs; the bot has no pool of its own.
            jobs = {}
            for worker in containers["worker"]:
                logs = await run("docker", "logs", worker, check=False)
                jobs[names_of[worker]] = sum(":search ●" in line for line in logs.splitlines())
            metrics_port = os.environ.get("LOCAL_METRICS_PORT", "19100")
            page = await run(
                "python3", "-c",
                "import urllib.request,sys;"
                f"sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:{metrics_port}/metrics').read().decode())",
            )  # fmt: skip
            searched = sum(
                float(line.split()[-1])
                for line in page.splitlines()
                if line.startswith("gomoku_ai_searches_total{") and 'outcome="ok"' in line
            )
            ai_moves = sum(1 for _, _, c in game.moves if c == "white")
            say(f"compose: worker jobs {jobs}; bot metrics: {searched:.0f} AI searches ok")

            # The backup recipe of docs/deploy.md: dump while the bot runs, stop it, restore
            # into a new database, and start the bot on it.
            dump = await run_bytes(
                *base, "exec", "-T", "postgres",
                "pg_dump", "--username=gomoku", "--format=custom", "gomoku", env=env,
            )  # fmt: skip
            say(f"compose: pg_dump --format=custom while the bot runs: {len(dump)} bytes")
            (bot,) = containers["bot"]
            started = time.monotonic()
            await run(*base, "stop", "--timeout", "60", "bot", env=env)
            stop_s = time.monotonic() - started
            code = (await run("docker", "inspect", "--format", "{{.State.ExitCode}}", bot)).strip()
            logs = await run("docker", "logs", bot, check=False)
            for step in (
                ["dropdb", "--username=gomoku", "--maintenance-db=postgres", "gomoku"],
                ["createdb", "--username=gomoku", "--maintenance-db=postgres", "gomoku"],
            ):
                await run(*base, "exec", "-T", "postgres", *step, env=env)
            await run_bytes(
                *base, "exec", "-T", "postgres",
                "pg_restore", "--username=gomoku", "--dbname=gomoku", stdin=dump, env=env,
            )  # fmt: skip
            restored = await read()
            say(f"compose: restored into a new database: {len(restored.moves)} moves")
            await run(*base, "start", "bot", env=env)
            back = await all_healthy([bot], within=180)
            say(f"compose: the bot started again on the restored database: healthy in {back:.1f} s")
            await run(*base, "stop", "--timeout", "60", "bot", env=env)
            second = (
                await run("docker", "inspect", "--format", "{{.State.ExitCode}}", bot)
            ).strip()
            problems = []
            if game.status != "finished":
                problems.append(f"the game did not end in {moves} moves of ours")
            if sum(jobs.values()) < ai_moves:
                problems.append(f"{ai_moves} AI moves but {sum(jobs.values())} worker jobs")
            if code != "0" or second != "0" or "Traceback" in logs:
                problems.append(f"the bot exited {code}, then {second}")
            if restored.moves != game.moves:
                problems.append("the restored database lost moves")
            report({
                "mode": "compose", "services": {k: len(v) for k, v in containers.items()},
                "connect_s": round(ready, 1), "level": level, "moves": names,
                "moves_in_postgres": len(game.moves), "ai_moves": ai_moves,
                "status": game.status, "termination": game.result[0], "winner": game.result[1],
                "slowest_ai_reply_s": round(slowest, 2),
                "worker_jobs": jobs, "bot_ai_searches_ok": searched, "health": statuses,
                "pg_dump_bytes": len(dump), "moves_after_restore": len(restored.moves),
                "healthy_after_restore_s": round(back, 1),
                "bot_stop_s": round(stop_s, 1), "bot_exit_status": int(code),
                "problems": problems,
            })  # fmt: skip
            if problems:
                raise RuntimeError("; ".join(problems) + f"\n{logs[-3000:]}")
        finally:
            if keep:
                say(
                    f"compose: left running (docker-compose -p {PROJECT} {' '.join(files)} down -v)"
                )
            else:
                await run(*base, "down", "--volumes", env=env, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.localrun", description=__doc__)
    parser.add_argument("mode", choices=["plain", "compose"])
    parser.add_argument("--image", default="gomoku-bot:local", help="plain: the image to run")
    parser.add_argument("--level", default="easy", help="the AI's level")
    parser.add_argument("--moves", type=int, default=60, help="our moves at most (compose)")
    parser.add_argument("--keep", action="store_true", help="compose: leave the stack up")
    args = parser.parse_args()
    if args.mode == "plain":
        asyncio.run(plain(args.image, args.level, min(args.moves, 3)))
    else:
        asyncio.run(compose(args.level, args.moves, args.keep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
