"""The bot's version, read in one place: the ``version`` of ``pyproject.toml``.

A source tree (a clone, an editable install) reads its own ``pyproject.toml``: an editable
install's metadata keeps the version it was installed with until it is installed again. An
installed wheel has no ``pyproject.toml`` beside the package and reads its metadata.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Final

__all__ = ["DISTRIBUTION", "version"]

DISTRIBUTION: Final = "gomoku-bot"
_PYPROJECT: Final = Path(__file__).resolve().parent.parent / "pyproject.toml"


@functools.cache
def version() -> str:
    """``0.3.0``: this copy's version ("unknown" for a bare copy of the sources)."""
    try:
        with _PYPROJECT.open("rb") as file:
            project = tomllib.load(file).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        project = {}
    if project.get("name") == DISTRIBUTION and isinstance(project.get("version"), str):
        return str(project["version"])
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"
