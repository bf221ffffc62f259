"""A typed wrapper around numba's decorator, so mypy --strict sees the real signatures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

__all__ = ["njit", "njit_inline"]

F = TypeVar("F", bound=Callable[..., Any])


def njit(fn: F) -> F:
    """Compile ``fn`` in nopython mode with an on-disk cache; the Python signature is kept."""
    return cast(F, numba.njit(cache=True)(fn))


def njit_inline(fn: F) -> F:
    """Like ``njit``, and inlined into its callers at numba's IR level (small hot helpers)."""
    return cast(F, numba.njit(cache=True, inline="always")(fn))
