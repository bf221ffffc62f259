"""The real bot process (``python -m bot``) against a fake Discord in the calling process.

``python -m tests.botprocess [HOST:]PORT [ARGS...]`` points discord.py at the fake on
HOST:PORT (127.0.0.1 by default) and runs ``bot.__main__.main(ARGS)`` unchanged: its settings
from the environment, its logging, its signal handling, its AI pool and its database.
``BotProcess`` starts one and lists its descendant processes from /proc (Linux), so a test can
kill it and look for anything left behind. ``DiscordStandIn`` is what answers on Discord's
address before the fake does (nothing, then 503s, then the fake passed through), for
start-ups that wait for Discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import discord
import yarl

if TYPE_CHECKING:
    from tests.fakediscord import FakeDiscord

ROOT = Path(__file__).resolve().parents[1]

__all__ = [
    "TOKEN",
    "BotProcess",
    "DiscordStandIn",
    "alive",
    "descendants",
    "dying",
    "left_running",
    "pending_signals",
    "shard_processes",
]

# The shape of a bot token (the bot refuses any other before connecting); the fake takes any.
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.fake-token-for-the-fake-discord"


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of ``pid``, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """Every live descendant of ``pid``: pid -> start time (to tell a reused pid apart)."""
    children: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] != "Z":
                children.setdefault(stat[1], []).append(int(entry.name))
                starts[int(entry.name)] = stat[2]
    found: dict[int, int] = {}
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found[child] = starts[child]
            stack.append(child)
    return found


def alive(processes: dict[int, int]) -> list[int]:
    """Which of ``processes`` (from ``descendants``) still run (zombies count as gone)."""
    left = []
    for pid, start in processes.items():
        stat = _stat(pid)
        if stat is not None and stat[0] != "Z" and stat[2] == start:
            left.append(pid)
    return left


def pending_signals(pid: int) -> set[int]:
    """The signals pending for ``pid`` (for it or for its main thread); empty when it is gone."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return set()
    mask = 0
    for line in lines:
        if line.startswith(("SigPnd:", "ShdPnd:")):
            mask |= int(line.split(":")[1], 16)
    return {bit + 1 for bit in range(mask.bit_length()) if mask >> bit & 1}


def dying(pid: int) -> bool:
    """Whether ``pid`` has SIGKILL pending: it will never run its own code again, but it
    ends only once the scheduler gives it a core to exit on."""
    return signal.SIGKILL in pending_signals(pid)


def left_running(
    processes: dict[int, int], grace: float = 5.0, dying_within: float = 120.0
) -> list[int]:
    """Which of ``processes`` still run ``grace`` seconds after the last of them with SIGKILL
    pending ended (none is right); waits at most ``dying_within`` on those.

    The grace counts from there because what a killed process held is let go only as it
    exits (the resource tracker waits for every worker's end of its pipe), and the AI
    workers run in the idle class: beside processes that keep every core busy, one killed
    with 400 MB took 13 s to end."""
    started = time.monotonic()
    deadline = started + grace
    while left := alive(processes):
        now = time.monotonic()
        if now - started < dying_within and any(dying(pid) for pid in left):
            deadline = max(deadline, now + grace)
        elif now >= deadline:
            break
        time.sleep(0.05)  # polling /proc: there is nothing to wait on
    return left


class BotProcess:
    """``python -m bot`` as a child process, connected to the fake Discord on ``port``."""

    def __init__(
        self,
        port: int,
        db_path: Path,
        *,
        log_level: str = "WARNING",
        token: str = TOKEN,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        """``args``: ``python -m bot``'s (``--shards``...); ``env``: more settings; ``host``:
        where the fake is (a name that does not resolve, for a test of that)."""
        env = {
            **os.environ,
            "DISCORD_TOKEN": token,
            "GOMOKU_DB_PATH": str(db_path),
            "LOG_LEVEL": log_level,
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        env.pop("GOMOKU_DEV_GUILD_ID", None)
        self.stderr_path = db_path.with_name(db_path.name + f".{time.monotonic_ns()}.stderr")
        self._stderr = self.stderr_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.botprocess", f"{host}:{port}", *args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
        )
        self.family: dict[int, int] = {}  # every descendant seen so far

    @property
    def pid(self) -> int:
        """The bot's process id."""
        return self.process.pid

    def note_family(self) -> dict[int, int]:
        """Record the current descendants (AI workers, the resource tracker)."""
        self.family.update(descendants(self.pid))
        return self.family

    async def wait_ready(
        self, fake: FakeDiscord, *, workers: int = 0, within: float = 120.0
    ) -> None:
        """Until the bot is connected to ``fake`` and ``workers`` descendants run."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the bot exited with {self.process.returncode}: {self.errors()}"
                )
            if fake.connected() and len(self.note_family()) >= workers:
                return
            await asyncio.sleep(0.05)
        raise TimeoutError(f"the bot did not get ready: {self.errors()}")

    def errors(self) -> str:
        """What the bot wrote to stderr."""
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL, then reap."""
        self.note_family()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM and wait for the exit status."""
        self.note_family()
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    async def leftovers(self) -> list[int]:
        """Descendants still running after the bot ended (``left_running``; none is right)."""
        return await asyncio.to_thread(left_running, dict(self.family))

    def close(self) -> None:
        """Make sure nothing of it runs any more (also after a failed test)."""
        with contextlib.suppress(ProcessLookupError):
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        for pid in alive(self.family):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self._stderr.close()


SERVICE_UNAVAILABLE = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    b"Content-Length: 2\r\nConnection: close\r\n\r\n{}"
)


def shard_processes(
    port: int, folder: Path, env: Callable[[int], Mapping[str, str]]
) -> list[BotProcess]:
    """Shards 0 and 1 of two as two ``python -m bot`` processes on the fake at ``port``, each
    with a token of its own (so the fake tells them apart) and ``env(shard)`` for settings.
    Their SQLite paths in ``folder`` go unused where ``env`` names a database URL."""
    return [
        BotProcess(
            port,
            folder / f"unused-{shard}.sqlite3",
            token=f"{TOKEN}-{shard}",
            args=["--shards", str(shard), "--shard-count", "2"],
            env=env(shard),
        )
        for shard in (0, 1)
    ]


class DiscordStandIn:
    """Discord's address (``port`` on 127.0.0.1) before the fake Discord answers there: first
    a port bound but not listening (connection refused), then (``listen``) a server answering
    503 to every request, then (``forward_to``) every connection passed on to the fake."""

    def __init__(self) -> None:
        self._closed = socket.socket()
        self._closed.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._closed.bind(("127.0.0.1", 0))
        self.port: int = self._closed.getsockname()[1]
        self.target: int | None = None  # the fake's port, once it is up
        self.unavailable = 0  # requests answered 503

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[None]:
        """Answer on the port (503s until ``forward_to``) until the block ends."""
        self._closed.close()
        server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        try:
            yield
        finally:
            server.close()
            await server.wait_closed()

    def forward_to(self, port: int) -> None:
        """Pass every new connection on to the fake Discord on ``port``."""
        self.target = port

    def close(self) -> None:
        """Release the port where ``listen`` never took it."""
        self._closed.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if self.target is None:
                await reader.readuntil(b"\r\n\r\n")
                self.unavailable += 1
                writer.write(SERVICE_UNAVAILABLE)
                await writer.drain()
                return
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", self.target
            )
            await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        except (OSError, asyncio.IncompleteReadError):
            pass  # the bot or the fake hung up
        finally:
            writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    finally:
        writer.close()


def main(address: str, args: Sequence[str] = ()) -> int:
    """Point discord.py at the fake on ``address`` ([HOST:]PORT), then run the bot's own
    ``main`` with ``args``."""
    if ":" not in address:
        address = f"127.0.0.1:{address}"
    discord.http.Route.BASE = f"http://{address}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://{address}/gateway-ws")
    from bot.__main__ import main as bot_main

    return bot_main(list(args))  # the fake's port is ours, not the bot's


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
