"""Settings read from the environment, for measuring the engine (docs/engine.md names each one
beside what it changes): whole numbers, each read once, where the module that uses it is
imported, so a match's arm sets it in the environment of its own process; and lists of rules,
read where they are used, so that a test may change one between searches.
"""

from __future__ import annotations

import os

from engine.types import Rule

__all__ = ["rules_setting", "setting"]


def setting(name: str, default: int, most: int = 400, least: int = 0) -> int:
    """The whole number from ``least`` to ``most`` in the environment variable ``name``, else
    ``default`` (unset, malformed or out of range)."""
    text = os.environ.get(name, "").strip()
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()):  # "²" is a digit that int() refuses
        return default
    return int(text) if least <= int(text) <= most else default


def rules_setting(name: str, default: frozenset[Rule]) -> frozenset[Rule]:
    """The rules the environment variable ``name`` names (a comma-separated list of rule names,
    unknown names ignored), else ``default`` (unset, or naming none)."""
    return Rule.named_in(os.environ.get(name, "")) or default
