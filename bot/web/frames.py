"""What a page may send over its socket: the one shape of a message, and the pace of moves
(and of requests for the whole state).

A message of the page is one flat JSON object with a string ``type`` (``hello``, ``move``, …)
and the pass in ``token``. Anything else that reaches the server (binary frames, text that is
not JSON, JSON nested thousands deep, lists, numbers) is refused here with a short reason,
before it can cost more than a scan of its text.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["MAX_BRACKETS", "MalformedMessageError", "MovePace", "parse_message"]

# A page's message holds one object and no list; a few brackets inside its strings are
# harmless, thousands are an attack on the parser's recursion.
MAX_BRACKETS: Final = 64


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
