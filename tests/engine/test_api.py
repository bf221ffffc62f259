"""The engine's public surface and its purity."""

from __future__ import annotations

import subprocess
import sys

import engine
from engine import errors

BANNED = ("discord", "aiosqlite", "sqlite3", "asyncio", "bot", "storage")


def test_engine_is_pure() -> None:
    code = f"import engine, sys; print([m for m in {BANNED!r} if m in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_importing_the_engine_does_not_load_the_search() -> None:
    """The bot's event-loop process imports the engine for boards; numba stays in workers."""
    code = "import engine, sys; print('numba' in sys.modules); print(engine.Limits(depth=1))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    first, second = result.stdout.splitlines()
    assert first == "False"
    assert second.startswith("Limits(")


def test_all_is_sorted_and_complete() -> None:
    # isort order, as ruff keeps it: CONSTANTS, then Classes, then functions.
    def kind(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert engine.__all__ == sorted(engine.__all__, key=kind)
    for name in engine.__all__:
        assert hasattr(engine, name), name


def test_every_engine_error_is_exported_and_documented() -> None:
    leaves = []
    pending = [errors.GomokuError]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__ == "engine.errors":
            leaves.append(cls)
    for cls in leaves:
        assert cls.__name__ in engine.__all__, cls
        assert cls.__doc__, cls
        assert cls.__name__ in (errors.__doc__ or ""), cls
