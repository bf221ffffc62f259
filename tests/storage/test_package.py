"""The storage package's public surface."""

from __future__ import annotations

import tomllib
from pathlib import Path

import storage


def test_package_exports_are_sorted_and_real() -> None:
    assert storage.__all__ == sorted(storage.__all__)
    assert all(hasattr(storage, name) for name in storage.__all__)


def test_every_migration_ships_with_the_package() -> None:
    root = Path(storage.__file__).parent
    with (root.parent / "pyproject.toml").open("rb") as file:
        globs = tomllib.load(file)["tool"]["setuptools"]["package-data"]["storage"]
    migrations = sorted(root.glob("migrations/*/*.sql"))
    assert {path.parent.name for path in migrations} == {"sqlite", "postgres"}
    shipped = {path for pattern in globs for path in root.glob(pattern)}
    assert set(migrations) <= shipped
