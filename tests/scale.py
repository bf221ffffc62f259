"""How hard property tests try: ``GOMOKU_TEST_SCALE=50 make test`` for a thorough run."""

from __future__ import annotations

import os

SCALE = max(1, int(os.environ.get("GOMOKU_TEST_SCALE", "1")))


def examples(count: int) -> int:
    """``count`` hypothesis examples, times the scale."""
    return count * SCALE
