"""The version comes from pyproject.toml alone: ``python -m bot --version`` and the help
card show it."""

from __future__ import annotations

import tomllib

from bot.text import words
from bot.version import version
from tests.botprocess import ROOT
from tests.processes import python_m


def _pyproject_version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def test_the_version_is_pyprojects() -> None:
    assert version() == _pyproject_version()
    assert version().count(".") == 2


def test_python_m_bot_version() -> None:
    run = python_m("bot", "--version", cwd=ROOT, check=True)
    assert run.stdout == f"gomoku-bot {_pyproject_version()}\n"


def test_the_help_card_shows_the_version() -> None:
    assert words.help_footer().endswith(f"version {_pyproject_version()}")
