"""Typed wrappers around numba's decorator, so mypy --strict sees the real signatures.

The search kernels (``njit``, ``njit_inline``) are compiled without numba's reference counting
(``_nrt=False``): they never allocate, they borrow arrays the Python caller keeps alive, and
with counting on, every array taken out of the state tuples cost an atomic increment and
decrement, which perf showed as 55 % of search time (418k -> 810k nodes/s without it).
Kernels that allocate arrays use ``njit_alloc``.

numba keys a kernel's disk-cache entry on its own source file only, so a kernel that calls a
kernel of another file would keep a stale compiled copy of that callee after the callee's file
changed. Every kernel file (``KERNEL_FILES``) therefore carries one ``KERNELS_STAMP`` line, a
hash of all of them: a change to any kernel file changes every file's stamp, and with it every
kernel's cache key. If the stamps do not match the sources (a kernel edited, not restamped),
this process compiles without the disk cache and says so; ``python -m engine.search._jit``
rewrites the stamps, and ``tests/engine/test_kernel_stamp.py`` fails until it has run.
"""

from __future__ import annotations

import hashlib
import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import numba

__all__ = ["KERNEL_FILES", "kernels_stamp", "njit", "njit_alloc", "njit_inline", "stamps_current"]

KERNEL_FILES = (
    "_layout.py",
    "_state.py",
    "_renju.py",
    "_threats.py",
    "_pns.py",
    "_tree.py",
    "_small.py",
)
_HERE = Path(__file__).resolve().parent
_STAMP = re.compile(r'^KERNELS_STAMP = "([0-9a-f]*)"(.*)\n', re.MULTILINE)


def kernels_stamp(folder: Path = _HERE) -> str:
    """The hash of the kernel files' sources in ``folder``, their stamp lines left out."""
    digest = hashlib.sha256()
    for name in KERNEL_FILES:
        digest.update(_STAMP.sub("", (folder / name).read_text(encoding="utf-8")).encode())
    return digest.hexdigest()[:16]


def stamps_current(folder: Path = _HERE) -> bool:
    """Whether every kernel file in ``folder`` carries exactly one stamp, the current one."""
    stamp = kernels_stamp(folder)
    for name in KERNEL_FILES:
        found = [m.group(1) for m in _STAMP.finditer((folder / name).read_text(encoding="utf-8"))]
        if found != [stamp]:
            return False
    return True


def write_stamps(folder: Path = _HERE) -> str:
    """Rewrite every kernel file's stamp line in ``folder`` to the current hash; return it."""
    stamp = kernels_stamp(folder)
    for name in KERNEL_FILES:
        path = folder / name
        text = path.read_text(encoding="utf-8")
        new = _STAMP.sub(lambda m: f'KERNELS_STAMP = "{stamp}"{m.group(2)}\n', text)
        if new != text:
            path.write_text(new, encoding="utf-8")
    return stamp


def _cache_trusted() -> bool:
    try:
        current = stamps_current()
    except OSError:  # sources not shipped beside the code: nothing can have been edited
        return True
    if not current:
        warnings.warn(
            "engine.search kernels changed since their stamp: compiling without numba's disk "
            "cache (run: python -m engine.search._jit)",
            stacklevel=2,
        )
    return current


# whether kernels may use numba's disk cache in this process
CACHE = _cache_trusted()

F = TypeVar("F", bound=Callable[..., Any])

# numba's own name for the switch; not in its type stubs, hence passed as a mapping
_NO_REFCOUNT: dict[str, Any] = {"_nrt": False}


def njit(fn: F) -> F:
    """Compile ``fn`` in nopython mode, without reference counting, cached on disk."""
    return cast(F, numba.njit(cache=CACHE, **_NO_REFCOUNT)(fn))


def njit_inline(fn: F) -> F:
    """Like ``njit``, and inlined into its callers at numba's IR level (small hot helpers)."""
    return cast(F, numba.njit(cache=CACHE, inline="always", **_NO_REFCOUNT)(fn))


def njit_alloc(fn: F) -> F:
    """Compile ``fn`` with numba's reference counting: for kernels that create arrays."""
    return cast(F, numba.njit(cache=CACHE)(fn))


if __name__ == "__main__":
    print(f"KERNELS_STAMP = {write_stamps()!r}")
    sys.exit(0)
