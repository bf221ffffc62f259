"""``python -m bot.health [URL]``: exit 0 if the bot is healthy, 1 (with one line on stderr
saying why) if not; for container health checks and supervisors.

Healthy means both, read from the bot's metrics page (URL defaults to
``http://127.0.0.1:$GOMOKU_METRICS_PORT/metrics``):

- ``gomoku_up`` is 1: the bot is connected to Discord's gateway (while ``gomoku_connecting``
  is 1 instead, the answer is "connecting to Discord": the bot waits for Discord, retrying);
- ``gomoku_heartbeat_timestamp_seconds`` is under ``HEARTBEAT_STALE_S`` old: the bot's event
  loop runs (the metrics are served from a thread of their own, so a page alone proves
  nothing about the loop that answers commands).

It imports neither discord.py nor prometheus-client: it runs every half minute.
"""

from __future__ import annotations

import sys
import time
import urllib.request
from collections.abc import Sequence
from typing import Final

from bot.settings import InvalidSettingError, Settings

__all__ = ["HEARTBEAT_STALE_S", "check", "main"]

# The bot beats every 5 s (bot.metrics.HEARTBEAT_EVERY_S): six beats missed is a stuck loop,
# not a slow moment.
HEARTBEAT_STALE_S: Final = 30.0


def _samples(page: str) -> dict[str, float]:
    """The label-less samples of a Prometheus text page: name -> value."""
    found: dict[str, float] = {}
    for line in page.splitlines():
        if not line or line.startswith("#") or "{" in line:
            continue
        name, _, value = line.partition(" ")
        try:
            found[name] = float(value.split()[0])
        except (ValueError, IndexError):
            continue
    return found


def check(page: str, now: float) -> str | None:
    """Why the bot whose metrics page is ``page`` is unhealthy at ``now``; None if healthy."""
    samples = _samples(page)
    if samples.get("gomoku_up") != 1.0:
        if samples.get("gomoku_connecting") == 1.0:
            return "connecting to Discord"
        return "not connected to Discord"
    beat = samples.get("gomoku_heartbeat_timestamp_seconds")
    if beat is None:
        return "no heartbeat from the event loop yet"
    if now - beat > HEARTBEAT_STALE_S:
        return f"the event loop has not run for {now - beat:.0f} s"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Read the metrics page and judge it."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args:
        url = args[0]
    else:
        try:
            port = Settings.from_env().metrics_port
        except InvalidSettingError as error:
            sys.stderr.write(f"unhealthy: {error}\n")
            return 1
        if port is None:
            sys.stderr.write("unhealthy: GOMOKU_METRICS_PORT is not set\n")
            return 1
        url = f"http://127.0.0.1:{port}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            page = response.read().decode()
    except OSError as error:
        sys.stderr.write(f"unhealthy: {error}\n")
        return 1
    problem = check(page, time.time())
    if problem is not None:
        sys.stderr.write(f"unhealthy: {problem}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
