"""The layers of what is not shipped run one way: the tests' support modules (the fake Discord,
the bot process, the embedded servers, the AI stand-ins, the clock, the board page's client)
import no test and no benchmark; benchmarks import those support modules and no test; tests
may run benchmarks."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUPPORT = (
    "tests.botprocess",
    "tests.clock",
    "tests.fakediscord",
    "tests.postgres_server",
    "tests.redis_server",
    "tests.runners",
    "tests.scale",
    "tests.web.page",
)


def imported(path: Path) -> set[str]:
    """Every absolute module name ``path`` imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def is_support(name: str) -> bool:
    return any(name == module or name.startswith(module + ".") for module in SUPPORT)


def support_files() -> list[Path]:
    files = []
    for module in SUPPORT:
        path = ROOT / Path(*module.split("."))
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")])
    return files


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "benchmarks").rglob("*.py")),
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_benchmarks_use_the_support_modules_and_no_test(path: Path) -> None:
    from_tests = {name for name in imported(path) if name.split(".")[0] == "tests"}
    assert {name for name in from_tests if not is_support(name)} == set()


@pytest.mark.parametrize("path", support_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_support_modules_use_no_test_and_no_benchmark(path: Path) -> None:
    outside = {
        name
        for name in imported(path)
        if name.split(".")[0] == "benchmarks"
        or (name.split(".")[0] == "tests" and not is_support(name))
    }
    assert outside == set()
