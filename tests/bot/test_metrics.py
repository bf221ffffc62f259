"""Prometheus metrics: AI searches counted and timed, the queue depth back to zero, the
heartbeat a connected bot's event loop beats, and the health check reading ``gomoku_up`` and
the heartbeat from a real metrics endpoint."""

from __future__ import annotations

import asyncio
import threading
import time
from wsgiref.simple_server import WSGIServer

import pytest
from prometheus_client import REGISTRY, start_http_server

from bot import health, metrics
from bot.core.ai import AIError, AIRequest
from bot.settings import InvalidSettingError, Settings
from engine.board import Board
from engine.types import Game, Level, Rule
from tests.bot.conftest import BotFactory
from tests.fakediscord import FakeDiscord
from tests.runners import FailingRunner, NearestRunner


def sample(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, labels)
    return 0.0 if value is None else value


def request() -> AIRequest:
    board = Board.for_game(Game.GOMOKU, size=15, rule=Rule.FREESTYLE)
    return AIRequest.from_board(board, Level.EASY, 1)


async def test_searches_are_counted_timed_and_leave_the_queue() -> None:
    before_ok = sample("gomoku_ai_searches_total", level="easy", outcome="ok")
    before_failed = sample("gomoku_ai_searches_total", level="easy", outcome="failed")
    before_timed = sample("gomoku_ai_search_seconds_count", level="easy")
    await metrics.MeteredRunner(NearestRunner()).choose_move(request())
    with pytest.raises(AIError):
        await metrics.MeteredRunner(FailingRunner()).choose_move(request())
    assert sample("gomoku_ai_searches_total", level="easy", outcome="ok") == before_ok + 1
    assert sample("gomoku_ai_searches_total", level="easy", outcome="failed") == before_failed + 1
    assert sample("gomoku_ai_search_seconds_count", level="easy") == before_timed + 2
    assert sample("gomoku_ai_queue_depth") == 0


def test_a_metered_pool_can_still_review_and_a_metered_queue_cannot() -> None:
    from bot.core.review import Analyser

    class Pool(NearestRunner):
        async def analyse(self, request: object) -> object:
            return request

    assert isinstance(metrics.MeteredRunner(Pool()), Analyser)
    assert not isinstance(metrics.MeteredRunner(NearestRunner()), Analyser)


def test_commands_are_counted_by_outcome() -> None:
    before = sample("gomoku_commands_total", command="place", outcome="error")
    metrics.record_command("place", "error", 0.02)
    assert sample("gomoku_commands_total", command="place", outcome="error") == before + 1


def test_the_health_check_reads_gomoku_up_and_the_heartbeat_from_the_endpoint() -> None:
    server, thread = start_http_server(0, addr="127.0.0.1")
    assert isinstance(server, WSGIServer)
    assert isinstance(thread, threading.Thread)
    url = f"http://127.0.0.1:{server.server_port}/metrics"
    try:
        metrics.UP.set(1)
        metrics.HEARTBEAT.set(time.time() - 1)
        assert health.main([url]) == 0
        metrics.HEARTBEAT.set(time.time() - health.HEARTBEAT_STALE_S - 5)
        assert health.main([url]) == 1  # connected, but the event loop is stuck
        metrics.HEARTBEAT.set_to_current_time()
        metrics.UP.set(0)
        assert health.main([url]) == 1
    finally:
        server.shutdown()
        server.server_close()
    assert health.main([url]) == 1  # nothing listening: unhealthy, no traceback


def test_the_health_check_wants_both_signs() -> None:
    now = 1_000_000.0
    fresh = f"gomoku_up 1.0\ngomoku_heartbeat_timestamp_seconds {now - 2:e}\n"
    assert health.check(fresh, now) is None
    assert health.check("gomoku_up 1.0\n", now) == "no heartbeat from the event loop yet"
    assert health.check(fresh.replace("up 1.0", "up 0.0"), now) == "not connected to Discord"
    assert health.check("", now) == "not connected to Discord"
    waiting = "gomoku_up 0.0\ngomoku_connecting 1.0\n"
    assert health.check(waiting, now) == "connecting to Discord"
    assert health.check(fresh + "gomoku_connecting 0.0\n", now) is None
    stale = health.check(fresh, now + health.HEARTBEAT_STALE_S + 10)
    assert stale is not None
    assert "has not run" in stale


async def test_a_watched_bot_beats_from_its_event_loop_once_connected(
    fake: FakeDiscord, make_bot: BotFactory
) -> None:
    metrics.UP.set(0)
    metrics.HEARTBEAT.set(0)
    bot = make_bot()
    metrics.watch(bot)
    async with fake.running(bot):
        deadline = time.monotonic() + 10
        while sample("gomoku_heartbeat_timestamp_seconds") == 0:  # set by the bot's loop
            assert time.monotonic() < deadline, "no heartbeat"
            await asyncio.sleep(0.02)
        assert sample("gomoku_up") == 1
        assert time.time() - sample("gomoku_heartbeat_timestamp_seconds") < 5
        page = "".join(
            f"{m.name} {s.value}\n" for m in REGISTRY.collect() for s in m.samples if not s.labels
        )
        assert health.check(page, time.time()) is None


def test_the_metrics_port_is_a_port() -> None:
    assert Settings.from_env({"GOMOKU_METRICS_PORT": "9100"}, dotenv=None).metrics_port == 9100
    with pytest.raises(InvalidSettingError):
        Settings.from_env({"GOMOKU_METRICS_PORT": "http"}, dotenv=None)
