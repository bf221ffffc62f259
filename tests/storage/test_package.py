"""The storage package's public surface."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import storage

CONTRACT = (storage.repository, storage.records, storage.club, storage.errors)


def test_package_exports_the_contract_and_the_repositories() -> None:
    for module in CONTRACT:
        assert set(module.__all__) < set(storage.__all__)
    assert len(set(storage.__all__)) == len(storage.__all__)
    assert all(hasattr(storage, name) for name in storage.__all__)


@pytest.mark.parametrize("module", CONTRACT, ids=lambda module: module.__name__)
def test_the_contract_lists_every_public_name(module: ModuleType) -> None:
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
    }
    assert public <= set(module.__all__)


def test_every_migration_ships_with_the_package() -> None:
    root = Path(storage.__file__).parent
    with (root.parent / "pyproject.toml").open("rb") as file:
        globs = tomllib.load(file)["tool"]["setuptools"]["package-data"]["storage"]
    migrations = sorted(root.glob("migrations/*/*.sql"))
    assert {path.parent.name for path in migrations} == {"sqlite", "postgres"}
    shipped = {path for pattern in globs for path in root.glob(pattern)}
    assert set(migrations) <= shipped
