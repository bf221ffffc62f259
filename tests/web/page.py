"""The board page's handling of what the server sends, in Python: the whole state, then deltas.

It is the oracle the page's script (``applyDelta`` and ``receive`` in
``bot/web/static/board.js``) is held to, and the client of the tests and benches that speak
the page's protocol without a browser.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PageView", "apply_delta"]


def apply_delta(page: dict[str, Any], change: dict[str, Any]) -> dict[str, Any] | None:
    """``page`` after ``change``; None when ``change`` does not follow the page's version."""
    if change["base"] != page["version"]:
        return None
    after = {**page, **change["set"], "version": change["version"]}
    after["moves"] = page["moves"][: change["keep"]] + change["add"]
    return after


class PageView:
    """The game as one page has it, from the messages its socket receives in order."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.gaps = 0  # deltas that did not follow: the page would have asked again

    def take(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The page's game after ``message`` when it is a state or a delta that follows
        (None for any other message, old news and gaps)."""
        state = self.state
        if message["type"] == "state":
            if state is not None and message["version"] < state["version"]:
                return None
            self.state = message
            return message
        if message["type"] != "delta":
            return None
        if state is not None and message["version"] <= state["version"]:
            return None
        after = None if state is None else apply_delta(state, message)
        if after is None:
            self.gaps += 1
            return None
        self.state = after
        return after
