"""A Gomocup protocol engine in a subprocess, as the match referee and the tools drive it:
how to start one (``EngineSpec``, ``parse_engine``), and ``EngineProcess``, whose replies are
read by a thread so that a silent engine times out instead of hanging the match."""

from __future__ import annotations

import contextlib
import queue
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

__all__ = [
    "COMMAND_TIMEOUT_S",
    "SETTLE_MS",
    "START_TIMEOUT_S",
    "Answer",
    "EngineProcess",
    "EngineSpec",
    "parse_engine",
]

START_TIMEOUT_S = 120.0  # first START: process start-up and compiling (or loading) the kernels
COMMAND_TIMEOUT_S = 10.0  # RESTART and friends
# The least time between an engine's answer and the next command it is sent, as a manager's
# own latency gives it. Rapfi 0.43 prints its move a moment before it reads commands again,
# and drops an "INFO" that comes in between ("ERROR Unknown command: TIME_LEFT"): without
# this pause an opponent that answers at once won such games on that error.
SETTLE_MS = 30


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """How to start one engine."""

    label: str  # what the report calls it
    argv: tuple[str, ...]  # the command line
    cwd: str | None = None  # its working directory (some engines read files beside them)


def parse_engine(text: str, *, seed: int = 0, label: str | None = None) -> EngineSpec:
    """``level:NAME`` or a protocol engine's command line; ``label`` names it in reports.

    A command starting with ``python``, or with ``env`` and its settings and then ``python``
    (``env GOMOKU_BOOK=off python -m engine.pbrain``), runs under this interpreter.

    Raises:
        ValueError: for an empty command line.
    """
    if text.startswith("level:"):
        name = text.removeprefix("level:")
        command = (sys.executable, "-m", "engine.pbrain", "--level", name, "--seed", str(seed))
        return EngineSpec(label or text, command)
    argv = tuple(shlex.split(text))
    if not argv:
        raise ValueError("empty engine command")
    at = 0  # where the program's name is: after env and the settings it passes
    if argv[0] == "env":
        at = 1
        while at < len(argv) and "=" in argv[at]:
            at += 1
    if at < len(argv) and argv[at] in ("python", "python3"):
        # The interpreter running the match (the project's venv), not whatever PATH finds.
        argv = (*argv[:at], sys.executable, *argv[at + 1 :])
    return EngineSpec(label or text, argv)


@dataclass(frozen=True, slots=True)
class Answer:
    """One reply of an engine, with the MESSAGE lines that came before it."""

    kind: str  # "line", "timeout" or "eof"
    text: str = ""  # the reply line (kind "line")
    messages: tuple[str, ...] = ()  # MESSAGE / DEBUG lines read on the way
    elapsed_ms: float = 0.0  # from the request to the reply


class EngineProcess:
    """A protocol engine in a subprocess, read by a thread so that reads can time out."""

    def __init__(self, spec: EngineSpec, settle_ms: int = SETTLE_MS) -> None:
        self.spec = spec
        self.settle_ms = settle_ms  # the least time between an answer and the next command
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._answered = 0.0  # time.monotonic() of the last answer
        self.sent_at = 0.0  # time.monotonic() when the last command began to be written

    @property
    def alive(self) -> bool:
        """Whether the process is running."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start (or restart) the process.

        Raises:
            OSError: when the command cannot be run.
        """
        self.close()
        self._lines = queue.Queue()
        process = subprocess.Popen(
            self.spec.argv,
            cwd=self.spec.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        self._process = process
        threading.Thread(target=self._read, args=(process, self._lines), daemon=True).start()

    @staticmethod
    def _read(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.strip())
        lines.put(None)

    def send(self, *lines: str) -> bool:
        """Write command lines; False when the process is gone."""
        process = self._process
        if process is None or process.stdin is None:
            return False
        pause = self._answered + self.settle_ms / 1000 - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        self.sent_at = time.monotonic()
        try:
            for line in lines:
                process.stdin.write(line + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        return True

    def answer(self, timeout_s: float, *, since: float | None = None) -> Answer:
        """The next line that is not MESSAGE/DEBUG/SUGGEST, within ``timeout_s``.

        ``since`` (a ``time.monotonic()`` reading, such as ``sent_at``) starts the clock
        there rather than now: the engine thinks from the moment its command is written, and
        a referee that falls behind before it starts listening must not lend it that time.
        """
        started = time.monotonic() if since is None else since
        deadline = started + timeout_s
        messages: list[str] = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                return Answer("timeout", "", tuple(messages), _ms_since(started))
            if line is None:
                return Answer("eof", "", tuple(messages), _ms_since(started))
            word = line.split(" ", 1)[0].upper()
            if not line or word in ("MESSAGE", "DEBUG", "SUGGEST"):
                messages.append(line)
                continue
            self._answered = time.monotonic()
            return Answer("line", line, tuple(messages), _ms_since(started))

    def close(self) -> None:
        """Ask the engine to END, then make sure it is gone."""
        process = self._process
        if process is None:
            return
        self._process = None
        if process.poll() is None:
            self._send_end(process)
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    @staticmethod
    def _send_end(process: subprocess.Popen[str]) -> None:
        with contextlib.suppress(OSError, ValueError):
            if process.stdin is not None:
                process.stdin.write("END\n")
                process.stdin.flush()


def _ms_since(started: float) -> float:
    return (time.monotonic() - started) * 1000
