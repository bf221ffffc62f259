"""The cyclic garbage collector's full collections, kept short in the bot's own process.

A full collection walks every object the collector tracks, and every command in flight waits
for it. With numba, the engine, the catalogues and discord.py's caches, what start-up builds
took 60-110 ms a walk under ``bench_load`` at 500 games; what a running bot keeps for long (the
web board's open pages, about a hundred objects each, the games' states, discord.py's caches)
grows the walk as it runs: 300 open pages made each full collection 20-35 ms instead of 2-6.
Most of what has lived through one full collection lives on, so ``HeapKeeper``:

- freezes (``gc.freeze``) what exists once the bot is ready, after collecting the garbage;
- freezes what survives each full collection: the next one walks only what came since;
- thaws it all every ``THAW_EVERY_S``: the next full collection walks everything again and
  frees what died while frozen (a page closed, a game's state replaced), so garbage waits for
  its collection that long at most.

For a process that is the bot's alone (``GomokuBot(freeze_heap=True)``, as ``python -m bot``
runs it): freezing is process-wide.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Final

__all__ = ["THAW_EVERY_S", "HeapKeeper"]

THAW_EVERY_S: Final = 600.0


class HeapKeeper:
    """Freezes the long-lived heap (see the module doc); ``start`` on the event loop, ``stop``
    on the way out."""

    def __init__(self, thaw_every: float = THAW_EVERY_S) -> None:
        self.thaw_every = thaw_every
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        gc.collect()  # the garbage first: none of it is frozen
        gc.freeze()
        gc.callbacks.append(self._collected)
        self._timer = asyncio.get_running_loop().call_later(self.thaw_every, self._thaw_later)

    def stop(self) -> None:
        """Stop freezing, and thaw: a process that goes on without the bot (a test, a bench's
        next run) collects what the bot left."""
        if self._collected in gc.callbacks:
            gc.callbacks.remove(self._collected)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.thaw()

    def thaw(self) -> None:
        """Give the frozen objects back to the oldest generation: the next full collection
        walks them, and frees those that died meanwhile."""
        gc.unfreeze()

    def _thaw_later(self) -> None:
        self.thaw()
        self._timer = asyncio.get_running_loop().call_later(self.thaw_every, self._thaw_later)

    @staticmethod
    def _collected(phase: str, info: dict[str, int]) -> None:
        # Called by the collector as a full collection ends (in whichever thread's allocation
        # set it off): the younger generations were merged into the oldest for it and are
        # empty, so what is frozen is exactly what survived.
        if phase == "stop" and info["generation"] == 2:
            gc.freeze()
