"""Prometheus metrics (the ``metrics`` extra): commands, their latency, AI searches and the
AI's queue depth, served at ``http://HOST:GOMOKU_METRICS_PORT/metrics``; ``gomoku_up`` is 1
while the bot is connected to Discord, ``gomoku_connecting`` 1 while it is trying to (at start-up
and after a lost connection), and ``gomoku_heartbeat_timestamp_seconds`` is set by the
bot's event loop every few seconds (``python -m bot.health`` checks both).

Nothing here is imported unless ``GOMOKU_METRICS_PORT`` is set: the default bot needs no
prometheus-client.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Final

import discord
from discord.ext import commands, tasks
from prometheus_client import Counter, Gauge, Histogram, start_http_server

from bot.core.ai import AIError, AIMove, AIRequest

if TYPE_CHECKING:
    from bot.core.ai import AIRunner

__all__ = [
    "COMMANDS",
    "CONNECTING",
    "HEARTBEAT",
    "HEARTBEAT_EVERY_S",
    "SEARCHES",
    "UP",
    "MeteredRunner",
    "Timed",
    "record_command",
    "serve",
    "watch",
]

_LATENCY_BUCKETS: Final = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

# How often the event loop sets HEARTBEAT; bot.health calls a heartbeat older than its
# HEARTBEAT_STALE_S a stuck loop.
HEARTBEAT_EVERY_S: Final = 5.0

UP = Gauge("gomoku_up", "1 while the bot is connected to Discord and serving")
CONNECTING = Gauge(
    "gomoku_connecting", "1 while the bot is trying to connect to Discord (or to reconnect)"
)
HEARTBEAT = Gauge(
    "gomoku_heartbeat_timestamp_seconds",
    "Unix time at which the bot's event loop last ran its heartbeat task",
)


class Timed:
    """Events of one kind: a counter by ``label`` and outcome, and a latency histogram by
    ``label``."""

    def __init__(self, name: str, counted: str, label: str, seconds_name: str, timed: str) -> None:
        self.counter = Counter(name, counted, [label, "outcome"])
        self.seconds = Histogram(seconds_name, timed, [label], buckets=_LATENCY_BUCKETS)

    def record(self, label: str, outcome: str, seconds: float) -> None:
        """Count one event and observe how long it took."""
        self.counter.labels(label, outcome).inc()
        self.seconds.labels(label).observe(max(0.0, seconds))


COMMANDS = Timed(
    "gomoku_commands_total",
    "Slash commands handled",
    "command",
    "gomoku_command_seconds",
    "From the interaction's creation at Discord to the command's end",
)
SEARCHES = Timed(
    "gomoku_ai_searches_total",
    "AI searches asked for",
    "level",
    "gomoku_ai_search_seconds",
    "An AI move as the bot waits for it (queueing included)",
)
SEARCHES_WAITING = Gauge(
    "gomoku_ai_queue_depth", "AI searches asked for and not answered yet (queued or running)"
)


def serve(port: int, address: str = "0.0.0.0") -> None:
    """Serve ``/metrics`` from a background thread."""
    start_http_server(port, addr=address)


def record_command(command: str, outcome: str, seconds: float) -> None:
    """Count one command (``outcome`` "ok" or "error") and its latency."""
    COMMANDS.record(command, outcome, seconds)


def _record_interaction(interaction: discord.Interaction[Any], outcome: str) -> None:
    # Timed from the interaction's creation at Discord; a button press counts as "component".
    command = interaction.command
    name = command.qualified_name if command is not None else "component"
    age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
    record_command(name, outcome, age)


def watch(bot: commands.Bot) -> None:
    """Count ``bot``'s commands, follow its connection to Discord, and beat the heartbeat
    from its event loop once it is ready (until it closes).

    The metrics are served from a thread of their own, so ``gomoku_up`` alone would still
    read 1 with the event loop stuck: the heartbeat is what shows the loop runs.
    """

    @tasks.loop(seconds=HEARTBEAT_EVERY_S)
    async def beat() -> None:
        if bot.is_closed():
            beat.stop()
        else:
            HEARTBEAT.set_to_current_time()

    async def completed(interaction: discord.Interaction[Any], command: Any) -> None:
        _record_interaction(interaction, "ok")

    async def failed(interaction: discord.Interaction[Any]) -> None:
        _record_interaction(interaction, "error")

    async def up() -> None:
        UP.set(1)
        CONNECTING.set(0)
        if not beat.is_running():
            beat.start()

    async def down() -> None:
        UP.set(0)
        CONNECTING.set(0 if bot.is_closed() else 1)  # discord.py reconnects unless closing

    bot.add_listener(completed, "on_app_command_completion")
    bot.add_listener(failed, "on_app_command_failure")
    bot.add_listener(up, "on_ready")
    bot.add_listener(up, "on_resumed")
    bot.add_listener(down, "on_disconnect")


class MeteredRunner:
    """An ``AIRunner`` that counts and times the searches of the runner it wraps."""

    def __init__(self, inner: AIRunner) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        # What the wrapped runner offers beyond choose_move (a review's ``analyse``) stays
        # reachable, and a check for it still sees whether the inner runner has it.
        return getattr(self._inner, name)

    async def choose_move(self, request: AIRequest) -> AIMove:
        """The inner runner's move, counted and timed."""
        level = str(request.level)
        started = time.perf_counter()
        SEARCHES_WAITING.inc()
        outcome = "error"
        try:
            move = await self._inner.choose_move(request)
            outcome = "ok"
            return move
        except AIError:
            outcome = "failed"
            raise
        finally:
            SEARCHES_WAITING.dec()
            SEARCHES.record(level, outcome, time.perf_counter() - started)

    async def close(self) -> None:
        """Close the inner runner."""
        await self._inner.close()
