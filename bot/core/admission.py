"""Admitting game starts: a burst of starts must not cost their answers.

Discord drops an interaction not acknowledged within 3 s. A start does more work than any
other command (the settings, a new game written, its board drawn), so a burst of them, say a
community event opening, queues on the event loop until the later ones miss their 3 s and fail
with nothing said. ``StartAdmission`` lets ``running`` starts work at once; each start beyond
them is acknowledged straight away (Discord's "thinking...", one cheap request) and waits for a
turn; beyond ``waiting`` of those, a start is refused at once with a short private sentence
(``StartsBusyError``), which is better than an answer that never comes.

A slot bounds the start's durable write, the part that queues on storage: the start gives it
back as soon as its game is stored (``Slot.release``), and draws its board, a Discord round
trip that costs no more than any other command's answer, outside it. Held through that round trip
(and the board's second write), a slot would last seconds under load, and a burst of 2,000
would wait on the few such slots at a time: the queue, not the work, would set their answer's time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Final

from engine.errors import GomokuError

__all__ = ["RUNNING_STARTS", "WAITING_STARTS", "Slot", "StartAdmission", "StartsBusyError"]

# Starts writing at once: a burst's worth. A start that waits for a slot is deferred at once
# (a request more, at the burst's busiest moment) and answered by an edit (one more), so a
# low bound makes a burst slower, not safer: in a burst of 2,000 (bench_load, quiet 2-core
# AMD EPYC, alternating) 2,048 at once answered the starts in 1.4 and 2.3 s at p95, 512 at
# once in 2.8 and 4.5 s (``docs/performance.md``). SQLite's group commit takes up to 512
# writes a batch.
RUNNING_STARTS: Final = 2048
# Starts waiting beyond those: under a minute of queue at the starts a second one process
# manages in such a burst, well inside an interaction token's 15 minutes.
WAITING_STARTS: Final = 1000


class StartsBusyError(GomokuError):
    """Too many games are starting at this moment: this start was refused, nothing made."""

    def __init__(self) -> None:
        super().__init__("too many games starting at once")


class Slot:
    """One admitted start's turn; ``release`` gives it back early (once its game is stored)."""

    __slots__ = ("_released", "_slots")

    def __init__(self, slots: asyncio.Semaphore) -> None:
        self._slots = slots
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._slots.release()


class StartAdmission:
    """How many starts run and wait; ``admit`` is the gate."""

    def __init__(self, running: int = RUNNING_STARTS, waiting: int = WAITING_STARTS) -> None:
        self.running = running
        self.limit_waiting = waiting
        self._slots = asyncio.Semaphore(running)
        self.waiting = 0  # starts acknowledged and waiting for a slot
        self.queued = 0  # starts that waited for a slot, since start-up (diagnostics)
        self.refused = 0  # since start-up (diagnostics)
        # The seconds those starts waited, in all and the longest (diagnostics: the part of a
        # start's answer that the queue, not the work, set; from its acknowledgement's start).
        self.waited_s = 0.0
        self.longest_wait_s = 0.0

    @contextlib.asynccontextmanager
    async def admit(self, acknowledge: Callable[[], Awaitable[None]]) -> AsyncIterator[Slot]:
        """Hold a slot for a start inside the block, or until ``Slot.release``. With every
        slot taken the start is acknowledged (``acknowledge``: Discord's "thinking...") before
        waiting; with a full queue it is refused instead: ``StartsBusyError``."""
        if self._slots.locked():
            if self.waiting >= self.limit_waiting:
                self.refused += 1
                raise StartsBusyError
            self.waiting += 1
            self.queued += 1
            loop = asyncio.get_running_loop()
            began = loop.time()
            try:
                await acknowledge()
                await self._slots.acquire()
            finally:
                self.waiting -= 1
                waited = loop.time() - began
                self.waited_s += waited
                self.longest_wait_s = max(self.longest_wait_s, waited)
        else:
            await self._slots.acquire()
        slot = Slot(self._slots)
        try:
            yield slot
        finally:
            slot.release()
