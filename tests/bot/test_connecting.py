"""Start-up that waits for Discord: ``python -m bot`` started while Discord is unreachable
(nothing listening, a name that does not resolve, a 503) keeps trying with growing pauses, one
WARNING line each and never a traceback, says "connecting" to the health check, and connects
when Discord answers, without a restart. A token of the wrong shape never reaches the network.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import socket
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import discord
import pytest
import yarl

from benchmarks.bench_connect import log_lines
from benchmarks.bench_connect import run as bench_connect
from bot import health
from bot.__main__ import EXIT_CONFIG
from bot.app import OneLineReconnect
from bot.client import Backoff, network_fault
from tests.bot.conftest import BotFactory
from tests.botprocess import BotProcess, DiscordStandIn
from tests.fakediscord import FakeDiscord
from tests.polling import until

T = TypeVar("T")

# Each of the bot's lines while it waits for Discord (discord.py's log format).
WAITING = re.compile(
    r"\[?[\d\- :]+\]? \[?WARNING *\]? bot\.client:? Discord is unreachable \(logging in\): "
    r"(?P<fault>.+); trying again in \d+\.\d s$"
)
FAST = {"GOMOKU_CONNECT_RETRY_MIN_S": "0.05", "GOMOKU_CONNECT_RETRY_MAX_S": "0.4"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _health(metrics_port: int) -> str | None:
    """What the health check says of the bot: None for healthy."""

    def read() -> str:
        url = f"http://127.0.0.1:{metrics_port}/metrics"
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return str(response.read().decode())
        except OSError as error:
            return f"unreachable metrics: {error}"

    page = await asyncio.to_thread(read)
    if page.startswith("unreachable metrics"):
        return page
    return health.check(page, time.time())


async def _within(seconds: float, waiting: Awaitable[T]) -> T:
    async with asyncio.timeout(seconds):
        return await waiting


def _fault(line: str) -> str | None:
    match = WAITING.match(line)
    return None if match is None else match["fault"]


def _waiting_lines(bot: BotProcess) -> Callable[[], Awaitable[list[str]]]:
    async def read() -> list[str]:
        return [line for line in log_lines(bot.errors()) if WAITING.match(line)]

    return read


async def test_a_bot_started_before_discord_answers_connects_once_it_does(
    tmp_path: Path,
) -> None:
    # Discord's address: a port bound but not listening (connection refused), then a server
    # answering 503, then the fake Discord itself.
    stand_in = DiscordStandIn()
    metrics_port = _free_port()
    env = {**FAST, "GOMOKU_METRICS_PORT": str(metrics_port)}
    bot = BotProcess(stand_in.port, tmp_path / "gomoku.sqlite3", env=env)
    try:
        waiting = _waiting_lines(bot)
        await _within(60, until(waiting, lambda lines: len(lines) >= 3))
        await _within(30, until(lambda: _health(metrics_port), lambda said: said is not None
                                and "connecting to Discord" in said))  # fmt: skip
        async with stand_in.listen():
            # The fault itself, not the line: the stand-in's port may hold the digits 503.
            answered = "Discord answered 503 Service Unavailable"
            await _within(60, until(waiting, lambda lines: _fault(lines[-1]) == answered))
            assert bot.process.poll() is None  # still waiting, no restart
            async with FakeDiscord() as fake:
                stand_in.forward_to(fake.port)
                await bot.wait_ready(fake)  # its set-up runs once logged in: slow under load
                await _within(30, until(lambda: _health(metrics_port), lambda said: said is None))
                assert fake.commands()  # set-up ran once logged in: the commands are there
                status = await asyncio.to_thread(bot.terminate)
        errors = bot.errors()
    finally:
        stand_in.close()
        bot.close()
    assert status == 0, errors
    lines = log_lines(errors)
    faults = [match["fault"] for line in lines if (match := WAITING.match(line))]
    assert len(faults) == len(lines), errors  # nothing but the one-line warnings
    assert any("Cannot connect to host" in fault for fault in faults), faults
    assert any(fault == answered for fault in faults), faults
    assert stand_in.unavailable >= 1


async def test_the_connection_benchmark_runs_short(tmp_path: Path) -> None:
    figures = await bench_connect(0, folder=tmp_path, env=FAST, retries=3)
    assert figures.exit_status == 0
    assert len(figures.lines) >= 3
    assert all(WAITING.match(line) for line in figures.lines), figures.lines
    report = figures.report()
    assert "without a restart" in report
    assert "0 tracebacks" in report


async def test_a_name_that_does_not_resolve_is_waited_for_and_a_stop_is_clean(
    tmp_path: Path,
) -> None:
    bot = BotProcess(
        _free_port(), tmp_path / "gomoku.sqlite3", env=FAST, host="gomoku-discord.invalid"
    )
    try:
        await _within(60, until(_waiting_lines(bot), lambda lines: len(lines) >= 2))
        status = await asyncio.to_thread(bot.terminate, 30)
        errors = bot.errors()
    finally:
        bot.close()
    assert status == 0, errors
    lines = log_lines(errors)
    assert all(WAITING.match(line) for line in lines), errors
    assert all("ClientConnectorDNSError" in line for line in lines), errors
    assert "Traceback" not in errors


@pytest.mark.parametrize(
    "token",
    ["not-a-token", "Bot MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abc", "aGVsbG8.GhIjKl.abc", "a.b"],
    ids=["no-dots", "with-prefix", "head-not-an-id", "two-parts"],
)
async def test_a_malformed_token_is_refused_before_any_connection(
    fake: FakeDiscord, tmp_path: Path, token: str
) -> None:
    bot = BotProcess(fake.port, tmp_path / "gomoku.sqlite3", token=token)
    try:
        started = time.monotonic()
        status = await asyncio.to_thread(bot.process.wait, 60)
        took = time.monotonic() - started
        errors = bot.errors()
    finally:
        bot.close()
    assert status == EXIT_CONFIG, errors
    (line,) = log_lines(errors)
    assert "DISCORD_TOKEN is not a Discord bot token" in line
    assert token not in errors
    assert fake.requests == []  # not one request, not even the login
    assert not fake.connected()
    assert not (tmp_path / "gomoku.sqlite3").exists()  # refused before the database, too
    assert took < 30  # at once: an interpreter's start-up, not a wait for Discord


async def test_a_gateway_that_refuses_the_first_connection_is_tried_again(
    fake: FakeDiscord,
    make_bot: BotFactory,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Discord's REST answers but its gateway does not, then does: before the first connection
    # discord.py has no session to resume, and the bot starts its loop again.
    gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    one_line = OneLineReconnect()  # as bot.app.run installs it
    logger = logging.getLogger("discord.client")
    logger.addFilter(one_line)
    bot = make_bot()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        refused = yarl.URL(f"ws://127.0.0.1:{closed.getsockname()[1]}/gateway-ws")
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", refused)
        task = asyncio.create_task(bot.start("fake-token"))
        try:

            async def reconnections() -> list[logging.LogRecord]:
                return [r for r in caplog.records if "reconnecting in" in r.getMessage()]

            (warning, *_) = await _within(30, until(reconnections, bool))
            assert not bot.is_ready()
            monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", gateway)
            await _within(30, bot.wait_until_ready())
            assert fake.connected()
            assert not task.done()  # the same start, not a new one
        finally:
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            logger.removeFilter(one_line)
    assert warning.levelno == logging.WARNING
    assert "Discord's gateway connection failed (" in warning.getMessage()
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_backoff_doubles_to_its_ceiling_with_jitter_in_the_upper_half() -> None:
    backoff = Backoff(1.0, 30.0, random.Random(7))
    delays = [backoff.delay() for _ in range(10)]
    caps = [1, 2, 4, 8, 16, 30, 30, 30, 30, 30]
    for delay, cap in zip(delays, caps, strict=True):
        assert cap / 2 <= delay <= cap
    assert len(set(delays)) == len(delays)  # jittered: no two alike
    assert backoff.attempts == 10
    many = Backoff(1.0, 30.0, random.Random(8))
    for _ in range(2000):  # no overflow however long the outage
        assert many.delay() <= 30.0


def test_a_network_fault_is_one_line() -> None:
    error = OSError(111, "Connect call failed\n('127.0.0.1', 1)")
    expected = "ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 1)"
    assert network_fault(error) == expected
    assert network_fault(TimeoutError()) == "TimeoutError"


def test_a_gateway_reconnection_is_one_warning_line() -> None:
    try:
        raise ConnectionResetError(104, "Connection reset by peer")
    except ConnectionResetError:
        record = logging.LogRecord(
            "discord.client", logging.ERROR, __file__, 1, "Attempting a reconnect in %.2fs",
            (4.321,), sys.exc_info(),
        )  # fmt: skip
    assert OneLineReconnect().filter(record)
    assert record.levelno == logging.WARNING
    assert record.exc_info is None
    text = logging.Formatter("%(levelname)s %(message)s").format(record)
    assert text == (
        "WARNING Discord's gateway connection failed "
        "(ConnectionResetError: [Errno 104] Connection reset by peer); reconnecting in 4.3 s"
    )
    other = logging.LogRecord("discord.client", logging.ERROR, __file__, 1, "x", (), None)
    assert OneLineReconnect().filter(other)
    assert other.levelno == logging.ERROR
