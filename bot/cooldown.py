"""``UserCooldown``: how often one user may use commands and buttons, across all of them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from discord import app_commands

__all__ = ["UserCooldown"]


@dataclass(slots=True)
class UserCooldown:
    """A token bucket per user: ``rate`` commands per ``per`` seconds across all commands."""

    rate: int = 5
    per: float = 5.0
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[int, app_commands.Cooldown] = field(default_factory=dict)

    def hit(self, user_id: int) -> app_commands.Cooldown | None:
        """Spend one token for ``user_id``; the exhausted bucket when the user must wait."""
        now = self.clock()
        if len(self._buckets) > 10_000:
            # Forget users whose bucket is full again: they are indistinguishable from new ones.
            self._buckets = {
                uid: bucket
                for uid, bucket in self._buckets.items()
                if bucket.get_tokens(now) < bucket.rate
            }
        bucket = self._buckets.get(user_id)
        if bucket is None:
            bucket = self._buckets[user_id] = app_commands.Cooldown(self.rate, self.per)
        if bucket.update_rate_limit(now) is not None:
            return bucket
        return None

    def retry_after(self, bucket: app_commands.Cooldown) -> float:
        """Seconds until ``bucket`` has a token again."""
        return bucket.get_retry_after(self.clock())
