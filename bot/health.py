"""``python -m bot.health [URL]``: exit 0 if the bot's metrics say it is up (for container
health checks); URL defaults to ``http://127.0.0.1:$GOMOKU_METRICS_PORT/metrics``."""

from __future__ import annotations

import sys
import urllib.request
from collections.abc import Sequence

from bot.settings import Settings

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Read the metrics page and look for ``gomoku_up 1.0``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args:
        url = args[0]
    else:
        port = Settings.from_env().metrics_port
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
    if "\ngomoku_up 1.0\n" not in f"\n{page}":
        sys.stderr.write("unhealthy: not connected to Discord\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
