"""What a game's pages are sent: each version of the game rendered once per kind of page.

Two pages of one game differ only by their language and their viewer's part in it: Black's
player, White's, or a watcher (``Kind``). A ``Feed`` keeps, for each kind among the game's
pages, the newest version it rendered: the page's object (``bot.web.state.game_payload``),
encoded once as a whole state and once as the delta from the kind's version before, each
framed once as a WebSocket frame (``bot.web.frames.text_frame``). Every page of a kind is
written the same bytes. A page that has the version before gets the delta; any
other (a new page, one that asked again, one of another kind before a swap of colours) the
whole state.

A long game's state is a few kB (every move, every word of the page) where its delta is a
few hundred bytes, and a game watched by hundreds of pages sends that once per page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from bot.web.frames import text_frame
from bot.web.state import Reuse, delta

__all__ = ["Feed", "Kind", "Rendition"]

Kind = tuple[str, int | None]  # the page's language, and its viewer's colour (None: a watcher)


class Rendition:
    """One version of a game for one kind of page: its object, its delta from ``base`` (the
    kind's version before; None for the first), and the whole state (encoded when first
    wanted: while pages keep up, none is), each also as the frame pages are written."""

    __slots__ = ("_whole", "_whole_frame", "base", "delta", "delta_frame", "payload", "version")

    def __init__(
        self, version: int, payload: dict[str, Any], base: int | None, change: bytes | None
    ) -> None:
        self.version = version
        self.payload = payload
        self.base = base
        self.delta = change
        self.delta_frame = None if change is None else text_frame(change)
        self._whole: bytes | None = None
        self._whole_frame: bytes | None = None

    @property
    def whole(self) -> bytes:
        """The whole state (``{"type": "state", ...}``), encoded."""
        if self._whole is None:
            self._whole = orjson.dumps(self.payload)
        return self._whole

    @property
    def whole_frame(self) -> bytes:
        """The whole state as a WebSocket frame."""
        if self._whole_frame is None:
            self._whole_frame = text_frame(self.whole)
        return self._whole_frame

    def for_page(self, version: int, kind: Kind, own: Kind | None) -> bytes:
        """The frame a page of ``own`` kind that has ``version`` is written (``kind``: this
        one's): the delta where it has the version before, else the whole state."""
        if self.delta_frame is not None and version == self.base and own == kind:
            return self.delta_frame
        return self.whole_frame


class Feed:
    """The newest rendition of one game for each kind of page it has."""

    __slots__ = ("_newest", "_reuse")

    def __init__(self) -> None:
        self._newest: dict[Kind, Rendition] = {}
        self._reuse: dict[Kind, Reuse] = {}  # what a kind's renders share

    def rendition(
        self, kind: Kind, version: int, render: Callable[[Reuse], dict[str, Any]]
    ) -> Rendition:
        """``version`` for pages of ``kind``: ``render``\\ed once (given what the kind's
        renders before left to reuse), kept while it is the newest.

        A version older than the kind's newest (a page opened with a state read before a
        newer one was sent) is rendered for its page alone, whole.
        """
        newest = self._newest.get(kind)
        if newest is not None and newest.version == version:
            return newest
        reuse = self._reuse.get(kind)
        if reuse is None:
            reuse = self._reuse[kind] = Reuse()
        payload = render(reuse)
        if newest is None or newest.version > version:
            rendition = Rendition(version, payload, None, None)
            if newest is None:
                self._newest[kind] = rendition
            return rendition
        change = orjson.dumps(delta(newest.payload, payload))
        rendition = Rendition(version, payload, newest.version, change)
        self._newest[kind] = rendition
        return rendition
