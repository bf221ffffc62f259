"""This project's own commands (``python -m ...``, ``python -c ...``) run from the tests: to
the end, with what they print captured as text."""

from __future__ import annotations

import subprocess
import sys
from typing import Any


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
