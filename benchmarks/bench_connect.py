"""``python -m benchmarks.bench_connect [--outage S] [--unavailable S]``: ``python -m bot``
started while Discord is unreachable, with the start-up's own backoff (or the one
``GOMOKU_CONNECT_RETRY_MIN_S`` / ``_MAX_S`` give it).

Discord's address refuses connections for ``--outage`` seconds (default 60), then answers 503
to every request for ``--unavailable`` seconds (default 0), then is the fake Discord. Prints
how long after Discord answered the bot connected, how it stopped (SIGTERM: status 0), its
log lines (one warning a retry, no traceback) and the CPU. The tests run it short
(``tests/bot/test_connecting.py``): the outage lasts until the bot has logged a few retries.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory

from benchmarks.common import cpu_model
from tests.botprocess import BotProcess, DiscordStandIn
from tests.fakediscord import FakeDiscord

__all__ = ["Figures", "log_lines", "main", "run"]


@dataclass
class Figures:
    """What one start-up through an outage measured."""

    outage_s: float  # connections refused for this long
    unavailable_s: float  # then 503s for this long
    connected_after_s: float = 0.0  # from Discord answering to the bot's gateway connection
    exit_status: int | None = None  # after SIGTERM
    lines: list[str] = field(default_factory=list)  # what the bot logged (stderr)

    def report(self) -> str:
        """The figures as the benchmark prints them."""
        tracebacks = sum("Traceback" in line for line in self.lines)
        return "\n".join(
            [
                f"CPU: {cpu_model()}",
                f"connection refused for {self.outage_s:.1f} s, then 503 for "
                f"{self.unavailable_s:.1f} s",
                f"connected {self.connected_after_s:.1f} s after Discord answered "
                f"({self.outage_s + self.unavailable_s + self.connected_after_s:.1f} s after "
                "the start), without a restart",
                f"stopped with status {self.exit_status}; {len(self.lines)} log lines, "
                f"{tracebacks} tracebacks:",
                *(f"  {line}" for line in self.lines),
            ]
        )


def log_lines(text: str) -> list[str]:
    """The lines of a log, without discord.py's colours (it uses them where it sees fit)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return [line for line in text.splitlines() if line.strip()]


async def run(
    outage_s: float,
    unavailable_s: float = 0.0,
    *,
    folder: Path,
    env: dict[str, str] | None = None,
    retries: int | None = None,
) -> Figures:
    """Start the bot against a Discord that answers only after ``outage_s`` (then 503s for
    ``unavailable_s``), and measure how it comes through. With ``retries`` the outage lasts
    until the bot has logged that many retries instead."""
    figures = Figures(outage_s, unavailable_s)
    stand_in = DiscordStandIn()
    bot = BotProcess(stand_in.port, folder / "gomoku.sqlite3", env=env)
    started = time.monotonic()
    try:
        if retries is None:
            await asyncio.sleep(outage_s)  # the outage itself: nothing to wait on but time
        else:
            while sum("trying again" in line for line in log_lines(bot.errors())) < retries:
                if bot.process.poll() is not None:
                    raise RuntimeError(f"the bot exited during the outage: {bot.errors()}")
                await asyncio.sleep(0.02)  # polling its log: there is nothing to wait on
            figures.outage_s = time.monotonic() - started
        async with stand_in.listen():
            await asyncio.sleep(unavailable_s)
            if bot.process.poll() is not None:
                raise RuntimeError(f"the bot exited during the outage: {bot.errors()}")
            async with FakeDiscord() as fake:
                stand_in.forward_to(fake.port)
                answered = time.monotonic()
                await bot.wait_ready(fake, within=120)
                figures.connected_after_s = time.monotonic() - answered
                figures.exit_status = await asyncio.to_thread(bot.terminate)
        figures.lines = log_lines(bot.errors())
    finally:
        stand_in.close()
        bot.close()
    return figures


def main() -> None:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_connect")
    parser.add_argument("--outage", type=float, default=60.0, help="seconds refused (60)")
    parser.add_argument("--unavailable", type=float, default=0.0, help="then seconds of 503 (0)")
    args = parser.parse_args()
    with TemporaryDirectory() as folder:
        figures = asyncio.run(run(args.outage, args.unavailable, folder=Path(folder)))
    print(figures.report())


if __name__ == "__main__":
    main()
