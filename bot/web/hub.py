r"""The hub: every stored change of a game, sent to every page that shows it.

The hub subscribes to the game service's events (``bot.core.service.events``; synchronous, from the
one place every change of a game passes: ``ServiceCore._remember``) and ``publish``\es each
event's state. A game nobody watches costs a dict look-up. For a watched game the newest
state waits in ``_latest`` and a callback of the event loop sends it, in the turn after the
change (the command that stored it goes on to its next wait first), 2 pages a turn: a burst
of changes while a send is under way is sent once, as its newest state, and a page never gets
an older version after a newer one. A callback, not a task: a change of a watched game costs
no task, coroutine or future, however many games change at once. What the pages are sent is
rendered once per kind of page (``bot.web.feed``: the game's ``Feed``, kept while it has
pages).

With shards in several processes, a game may change in another process: the hub follows the
game bus (``bot.core.bus``) and re-reads a watched game whose version there is newer than the
one it sent (``read``: the service's ``game``), one read at a time per game, the newest
version wanted (a burst of changes is read once).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.core.service.events import Event
from bot.core.service.states import GameState
from bot.web.feed import Feed

__all__ = ["Hub", "Page"]

log = logging.getLogger(__name__)

# Pages sent a state in one turn of the event loop: a turn's sends (tens of microseconds each,
# a write to a socket) are what every other command waiting on the loop waits for, so a
# game's hundreds of pages take many short turns rather than a few long ones.
_BATCH = 2


class Page(Protocol):
    """One open board page (a WebSocket)."""

    def show(self, state: GameState, feed: Feed) -> None:
        """Send ``state``, as ``feed`` renders it for this page, without waiting: the game's
        other pages are sent theirs after it, and a page whose reader lags behind is left
        to catch up on its own."""


class Hub:
    """Pages by game, and the sending of each game's newest state to its pages."""

    def __init__(self, read: Callable[[int], Awaitable[GameState]] | None = None) -> None:
        self._pages: dict[int, set[Page]] = {}
        self._feeds: dict[int, Feed] = {}  # watched games: what their pages were sent
        self._latest: dict[int, GameState] = {}  # watched games: the newest state to send
        self._current: dict[int, GameState] = {}  # watched games: the newest state sent
        # watched games being sent: the callback that sends the next batch of pages
        self._sending: dict[int, asyncio.Handle] = {}
        self._read = read
        self._versions: dict[int, int] = {}  # watched games: the newest version published
        self._wanted: dict[int, int] = {}  # games to read again: the newest version heard of
        self._reading: dict[int, asyncio.Task[None]] = {}
        # The CPU the sending of states to pages has taken (the thread's, in seconds; the
        # renders and the writes): what open pages cost, read by ``benchmarks.bench_web``.
        self.cpu = 0.0

    def watchers(self, game_id: int) -> int:
        """How many pages show ``game_id``."""
        return len(self._pages.get(game_id, ()))

    def games(self) -> list[int]:
        """The games some page shows."""
        return list(self._pages)

    def pages(self, game_id: int) -> list[Page]:
        """The pages that show ``game_id``."""
        return list(self._pages.get(game_id, ()))

    def current(self, game_id: int) -> GameState | None:
        """The newest state the pages of ``game_id`` were sent (None: none yet)."""
        return self._current.get(game_id)

    def sent(self, state: GameState) -> None:
        """A page of ``state``'s game was sent ``state`` (a new page its first one)."""
        game_id = state.game_id
        known = self._current.get(game_id)
        if game_id in self._pages and (known is None or known.version < state.version):
            self._current[game_id] = state

    def feed(self, game_id: int) -> Feed:
        """What the pages of ``game_id`` are sent (a new page's first state goes through it
        too, so that the deltas after it follow what it was sent)."""
        feed = self._feeds.get(game_id)
        if feed is None:
            feed = self._feeds[game_id] = Feed()
        return feed

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
            self._versions.pop(game_id, None)
            self._feeds.pop(game_id, None)
            self._current.pop(game_id, None)

    def on_event(self, event: Event) -> None:
        """A subscriber of the service: every event's state goes to the game's pages."""
        self.publish(event.game)

    def publish(self, state: GameState) -> None:
        """A change of a game was stored: send it to the game's pages (in the next turn of the
        loop)."""
        game_id = state.game_id
        if game_id not in self._pages:
            return
        if self._versions.get(game_id, -1) < state.version:
            self._versions[game_id] = state.version
        known = self._latest.get(game_id)
        if known is None or known.version <= state.version:
            self._latest[game_id] = state
        if game_id not in self._sending:
            self._sending[game_id] = asyncio.get_running_loop().call_soon(self._next, game_id)

    def _next(self, game_id: int) -> None:
        """Send the newest state of ``game_id`` waiting (if any) to its pages: the first
        batch now, the others in the turns after."""
        try:
            while (state := self._latest.pop(game_id, None)) is not None:
                pages = list(self._pages.get(game_id, ()))
                known = self._current.get(game_id)
                if not pages or (known is not None and state.version < known.version):
                    continue  # older than what a page was sent (a read that came in late)
                self.sent(state)
                self._batch(game_id, state, self.feed(game_id), pages, 0)
                return
        except Exception:
            # A callback's error would reach only the loop's handler: the game's next change
            # must still be sent, not wait behind a send that will never end.
            log.exception("could not send game %d to its pages", game_id)
        self._sending.pop(game_id, None)

    def _batch(
        self, game_id: int, state: GameState, feed: Feed, pages: list[Page], start: int
    ) -> None:
        began = time.thread_time()
        # A loop, not a task or a coroutine per page: a send is a write to the page's
        # transport, which waits for no reader.
        for page in pages[start : start + _BATCH]:
            try:
                page.show(state, feed)
            except Exception as error:
                log.debug("a board page of game %d dropped: %r", game_id, error)
        self.cpu += time.thread_time() - began
        start += _BATCH
        if start < len(pages):
            # A game with hundreds of watchers: the commands of other games run between its
            # batches instead of waiting for every page's send.
            loop = asyncio.get_running_loop()
            self._sending[game_id] = loop.call_soon(self._batch, game_id, state, feed, pages, start)
        else:
            self._next(game_id)  # a newer state that came meanwhile, or none

    # ---- the game bus (``bot.core.bus.Follower``)

    def changed(self, game_id: int, version: int) -> None:
        """Another process stored ``game_id`` at ``version``: read it if a page shows an
        older one."""
        if game_id not in self._pages or version <= self._versions.get(game_id, -1):
            return
        self._want(game_id, version)

    def resync(self) -> None:
        """Changes may have been missed: read every watched game again."""
        for game_id in self._pages:
            self._want(game_id, self._versions.get(game_id, -1))

    def _want(self, game_id: int, version: int) -> None:
        if self._read is None:
            return
        if self._wanted.get(game_id, -2) < version:
            self._wanted[game_id] = version
        if game_id not in self._reading:
            self._reading[game_id] = asyncio.create_task(self._read_again(game_id))

    async def _read_again(self, game_id: int) -> None:
        assert self._read is not None
        try:
            while self._wanted.pop(game_id, None) is not None and game_id in self._pages:
                try:
                    state = await self._read(game_id)
                except Exception as error:  # a game deleted, the database away: pages wait
                    log.warning(
                        "game %d could not be read for its pages: %s",
                        game_id,
                        type(error).__name__,  # the name alone: an error may quote an address
                    )
                    return
                self.publish(state)
        finally:
            self._reading.pop(game_id, None)
            self._wanted.pop(game_id, None)

    async def close(self) -> None:
        """Stop sending and reading."""
        for handle in self._sending.values():
            handle.cancel()
        self._sending.clear()
        tasks = list(self._reading.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
