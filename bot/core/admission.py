"""Admitting game starts: a burst of starts must not cost their answers.

Discord drops an interaction not acknowledged within 3 s. A start does more work than any
other command (the settings, a new game written, its board drawn), so a burst of them, say a
community event opening, queues on the event loop until the later ones miss their 3 s and fail
with nothing said. ``StartAdmission`` lets ``running`` starts work at once; each start beyond
them is acknowledged straight away (Discord's "thinking...", one cheap request) and waits for a
turn; beyond ``waiting`` of those, a start is refused at once with a short private sentence
(``StartsBusyError``), which is better than an answer that never comes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Final

from engine.errors import GomokuError

__all__ = ["RUNNING_STARTS", "WAITING_STARTS", "StartAdmission", "StartsBusyError"]

RUNNING_STARTS: Final = 64  # starts worked on at once; each waits mostly on storage and Discord
# Starts waiting beyond those: at the 30-40 starts a second one process managed in a burst of
# 2,000 on a shared two-core machine (bench_load), under a minute of queue, well inside an
# interaction token's 15 minutes.
WAITING_STARTS: Final = 1000


class StartsBusyError(GomokuError):
    """Too many games are starting at this moment: this start was refused, nothing made."""

    def __init__(self) -> None:
        super().__init__("too many games starting at once")


class StartAdmission:
    """How many starts run and wait; ``admit`` is the gate."""

    def __init__(self, running: int = RUNNING_STARTS, waiting: int = WAITING_STARTS) -> None:
        self.limit_waiting = waiting
        self._slots = asyncio.Semaphore(running)
        self.waiting = 0  # starts acknowledged and waiting for a slot
        self.refused = 0  # since start-up (diagnostics)

    @contextlib.asynccontextmanager
    async def admit(self, acknowledge: Callable[[], Awaitable[None]]) -> AsyncIterator[None]:
        """Hold a slot for a start inside the block. With every slot taken the start is
        acknowledged (``acknowledge``: Discord's "thinking...") before waiting; with a full
        queue it is refused instead: ``StartsBusyError``."""
        if self._slots.locked():
            if self.waiting >= self.limit_waiting:
                self.refused += 1
                raise StartsBusyError
            self.waiting += 1
            try:
                await acknowledge()
                await self._slots.acquire()
            finally:
                self.waiting -= 1
        else:
            await self._slots.acquire()
        try:
            yield
        finally:
            self._slots.release()
