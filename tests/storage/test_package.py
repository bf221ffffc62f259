"""The storage package's public surface."""

from __future__ import annotations

import storage


def test_package_exports_are_sorted_and_real() -> None:
    assert storage.__all__ == sorted(storage.__all__)
    assert all(hasattr(storage, name) for name in storage.__all__)
