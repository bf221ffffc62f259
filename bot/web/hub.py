r"""The hub: every stored change of a game, sent to every page that shows it.

The hub subscribes to the game service's events (``bot.core.service.events``; synchronous, from the
one place every change of a game passes: ``ServiceCore._remember``) and ``publish``\es each
event's state. A game nobody watches costs a dict
look-up. For a watched game the newest state waits in ``_latest`` and one task per game sends
it: a burst of changes while a send is under way is sent once, as its newest state, and a
page never gets an older version after a newer one.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from bot.core.service.events import Event
from bot.core.service.states import GameState

__all__ = ["Hub", "Page"]

log = logging.getLogger(__name__)


class Page(Protocol):
    """One open board page (a WebSocket)."""

    async def show(self, state: GameState, cache: dict[object, str]) -> None:
        """Send ``state`` (``cache``: payloads already built for this state, by viewer)."""


class Hub:
    """Pages by game, and the sending of each game's newest state to its pages."""

    def __init__(self) -> None:
        self._pages: dict[int, set[Page]] = {}
        self._latest: dict[int, GameState] = {}
        self._sending: dict[int, asyncio.Task[None]] = {}

    def watchers(self, game_id: int) -> int:
        """How many pages show ``game_id``."""
        return len(self._pages.get(game_id, ()))

    def pages(self, game_id: int) -> list[Page]:
        """The pages that show ``game_id``."""
        return list(self._pages.get(game_id, ()))

    def join(self, game_id: int, page: Page) -> None:
        """``page`` shows ``game_id`` from now on."""
        self._pages.setdefault(game_id, set()).add(page)

    def leave(self, game_id: int, page: Page) -> None:
        """``page`` is closed."""
        pages = self._pages.get(game_id)
        if pages is None:
            return
        pages.discard(page)
        if not pages:
            del self._pages[game_id]

    def on_event(self, event: Event) -> None:
        """A subscriber of the service: every event's state goes to the game's pages."""
        self.publish(event.game)

    def publish(self, state: GameState) -> None:
        """A change of a game was stored: send it to the game's pages (soon, in a task)."""
        game_id = state.game_id
        if game_id not in self._pages:
            return
        known = self._latest.get(game_id)
        if known is None or known.version <= state.version:
            self._latest[game_id] = state
        if game_id not in self._sending:
            self._sending[game_id] = asyncio.create_task(self._send(game_id))

    async def _send(self, game_id: int) -> None:
        try:
            while (state := self._latest.pop(game_id, None)) is not None:
                cache: dict[object, str] = {}
                pages = list(self._pages.get(game_id, ()))
                results = await asyncio.gather(
                    *(page.show(state, cache) for page in pages), return_exceptions=True
                )
                for result in results:
                    if isinstance(result, Exception):
                        log.debug("a board page of game %d dropped: %r", game_id, result)
        finally:
            self._sending.pop(game_id, None)

    async def close(self) -> None:
        """Stop sending."""
        for task in list(self._sending.values()):
            task.cancel()
        await asyncio.gather(*self._sending.values(), return_exceptions=True)
