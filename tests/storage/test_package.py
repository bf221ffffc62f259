"""The storage package's public surface."""

from __future__ import annotations

import tomllib
from pathlib import Path

import storage


def test_package_exports_the_contract_and_the_repositories() -> None:
    assert set(storage.repository.__all__) < set(storage.__all__)
    assert len(set(storage.__all__)) == len(storage.__all__)
    assert all(hasattr(storage, name) for name in storage.__all__)


def test_the_contract_lists_every_public_name() -> None:
    public = {
        name
        for name, value in vars(storage.repository).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == "storage.repository"
    }
    assert public <= set(storage.repository.__all__)


def test_every_migration_ships_with_the_package() -> None:
    root = Path(storage.__file__).parent
    with (root.parent / "pyproject.toml").open("rb") as file:
        globs = tomllib.load(file)["tool"]["setuptools"]["package-data"]["storage"]
    migrations = sorted(root.glob("migrations/*/*.sql"))
    assert {path.parent.name for path in migrations} == {"sqlite", "postgres"}
    shipped = {path for pattern in globs for path in root.glob(pattern)}
    assert set(migrations) <= shipped
