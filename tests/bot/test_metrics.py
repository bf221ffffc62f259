"""Prometheus metrics: AI searches counted and timed, the queue depth back to zero, and the
health check reading ``gomoku_up`` from a real metrics endpoint."""

from __future__ import annotations

import threading
from wsgiref.simple_server import WSGIServer

import pytest
from prometheus_client import REGISTRY, start_http_server

from bot import health, metrics
from bot.ai import AIError, AIRequest
from bot.settings import InvalidSettingError, Settings
from engine.board import Board
from engine.types import Game, Level, Rule
from tests.bot.test_service import FailingRunner
from tests.runners import NearestRunner


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
    from bot.review import Analyser

    class Pool(NearestRunner):
        async def analyse(self, request: object) -> object:
            return request

    assert isinstance(metrics.MeteredRunner(Pool()), Analyser)
    assert not isinstance(metrics.MeteredRunner(NearestRunner()), Analyser)


def test_commands_are_counted_by_outcome() -> None:
    before = sample("gomoku_commands_total", command="place", outcome="error")
    metrics.record_command("place", "error", 0.02)
    assert sample("gomoku_commands_total", command="place", outcome="error") == before + 1


def test_the_health_check_reads_gomoku_up_from_the_endpoint() -> None:
    server, thread = start_http_server(0, addr="127.0.0.1")
    assert isinstance(server, WSGIServer)
    assert isinstance(thread, threading.Thread)
    url = f"http://127.0.0.1:{server.server_port}/metrics"
    try:
        metrics.UP.set(1)
        assert health.main([url]) == 0
        metrics.UP.set(0)
        assert health.main([url]) == 1
    finally:
        server.shutdown()
        server.server_close()
    assert health.main([url]) == 1  # nothing listening: unhealthy, no traceback


def test_the_metrics_port_is_a_port() -> None:
    assert Settings.from_env({"GOMOKU_METRICS_PORT": "9100"}, dotenv=None).metrics_port == 9100
    with pytest.raises(InvalidSettingError):
        Settings.from_env({"GOMOKU_METRICS_PORT": "http"}, dotenv=None)
