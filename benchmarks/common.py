"""What several benchmarks share: the CPU's name for their figures, and an AI that is never
asked (for benches whose games are between people)."""

from __future__ import annotations

import platform
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.core.ai import AIMove, AIRequest

__all__ = ["NoAI", "cpu_model"]


def cpu_model() -> str:
    """The CPU's name as /proc/cpuinfo gives it (elsewhere, what ``platform`` knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


class NoAI:
    """The games are between people: the AI is never asked."""

    async def choose_move(self, request: AIRequest) -> AIMove:
        raise RuntimeError("no AI in this bench")

    async def close(self) -> None:
        pass
