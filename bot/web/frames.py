"""What a page may send over its socket: the one shape of a message, and the pace of moves
(and of requests for the whole state); and the frame the server sends a page.

A message of the page is one flat JSON object with a string ``type`` (``hello``, ``move``, …)
and the pass in ``token``. Anything else that reaches the server (binary frames, text that is
not JSON, JSON nested thousands deep, lists, numbers) is refused here with a short reason,
before it can cost more than a scan of its text.
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["MAX_BRACKETS", "MalformedMessageError", "MovePace", "parse_message", "text_frame"]

# A page's message holds one object and no list; a few brackets inside its strings are
# harmless, thousands are an attack on the parser's recursion.
MAX_BRACKETS: Final = 64


_SHORT: Final = struct.Struct("!BB")  # FIN and opcode; a length under 126
_MEDIUM: Final = struct.Struct("!BBH")  # ...; 126, then the length in 16 bits
_LONG: Final = struct.Struct("!BBQ")  # ...; 127, then the length in 64 bits
_FINAL_TEXT: Final = 0x81  # FIN, no extension bits (the board never compresses), opcode 1


def text_frame(payload: bytes) -> bytes:
    """``payload`` (UTF-8 text) as one whole, unmasked WebSocket text frame (RFC 6455 section
    5.2), the bytes a server writes: a state is framed once, then written to every page of
    its kind as it is."""
    size = len(payload)
    if size < 126:
        return _SHORT.pack(_FINAL_TEXT, size) + payload
    if size < 1 << 16:
        return _MEDIUM.pack(_FINAL_TEXT, 126, size) + payload
    return _LONG.pack(_FINAL_TEXT, 127, size) + payload


class MalformedMessageError(ValueError):
    """A frame that is not a message of the page (the reason is safe to send back)."""


def parse_message(text: str) -> dict[str, Any]:
    """The message ``text`` carries.

    Raises:
        MalformedMessageError: not a JSON object with a string ``type``.
    """
    if text.count("[") + text.count("{") > MAX_BRACKETS:
        raise MalformedMessageError("nested too deep")
    try:
        data = json.loads(text)
    except RecursionError as error:  # unreachable under MAX_BRACKETS; kept as a backstop
        raise MalformedMessageError("nested too deep") from error
    except ValueError as error:  # not JSON, or an integer past Python's digit limit
        raise MalformedMessageError("not JSON") from error
    if not isinstance(data, dict):
        raise MalformedMessageError("not an object")
    if not isinstance(data.get("type"), str):
        raise MalformedMessageError("no type")
    return data


@dataclass(slots=True)
class MovePace:
    """A token bucket per link: ``burst`` moves at once, then ``rate`` moves a second.

    A person taps a move a second at most; a script that floods the game service with moves
    gets a refusal instead, and each refusal costs a dict look-up.
    """

    burst: int = 6
    rate: float = 2.0
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[Hashable, tuple[float, float]] = field(default_factory=dict)

    def spend(self, key: Hashable) -> bool:
        """Spend one move of ``key``'s; False when it has none left just now."""
        return self.wait(key) == 0.0

    def wait(self, key: Hashable) -> float:
        """Spend one move of ``key``'s and return 0.0, or, when it has none left just now,
        spend nothing and return the seconds until it has one."""
        now = self.clock()
        if len(self._buckets) > 10_000:
            # Links whose bucket is full again are indistinguishable from new ones.
            self._buckets = {
                k: v for k, v in self._buckets.items() if self._tokens(v, now) < self.burst
            }
        tokens = self._tokens(self._buckets.get(key, (float(self.burst), now)), now)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens - 1.0, now)
        return 0.0

    def _tokens(self, bucket: tuple[float, float], now: float) -> float:
        tokens, then = bucket
        return min(float(self.burst), tokens + max(0.0, now - then) * self.rate)
