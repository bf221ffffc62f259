"""Processes the tests run: this project's own commands (``python -m ...``, ``python -c ...``),
to the end with what they print captured as text or started in the background, and the
servers fixtures keep running."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any, Protocol, TypeVar


class _Server(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...


S = TypeVar("S", bound=_Server)


def running(server: S) -> Iterator[S]:
    """``server`` started for the life of a fixture (``yield from running(...)``), stopped at
    its end, or when it failed to start."""
    try:
        server.start()
        yield server
    finally:
        server.stop()


def python_m(
    *command: str, timeout: float = 60, check: bool = False, **options: Any
) -> subprocess.CompletedProcess[str]:
    """``python -m`` ``command`` in this interpreter; ``options`` as for ``subprocess.run``
    (``env``, ``cwd``, ``input``, ``stdin``)."""
    return subprocess.run(
        [sys.executable, "-m", *command],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
        **options,
    )


def python_c(code: str) -> str:
    """What ``python -c`` ``code`` prints in this interpreter (a failure raises)."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout


def python_m_started(*command: str, **options: Any) -> subprocess.Popen[str]:
    """``python -m`` ``command`` started in this interpreter, its output to pipes as text;
    ``options`` as for ``subprocess.Popen``."""
    return subprocess.Popen(
        [sys.executable, "-m", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **options,
    )
