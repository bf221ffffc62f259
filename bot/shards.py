"""Shards across processes: each bot process runs some of discord.py's shards and owns the
games of their guilds.

``python -m bot --shards 0-3 --shard-count 8`` runs shards 0 to 3 of 8; another process runs
4-7, all on one PostgreSQL database. Discord sends each guild's events to the shard that
holds it, so commands already reach the right process; what a process does *by itself* (resume
games after a restart, enforce clocks and challenge expiry, make due AI moves) must also stay
with the owner, or two processes would each make the same AI move or end the same game. The
service finds that work through ``open_games``, ``games_due``, ``pending_replies`` and
``queue_entries`` (the pairing queues to reload);
``OwnedGames`` narrows those to the process's guilds and passes everything else through.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Self, cast

from storage.errors import GameNotFoundError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from storage.club import QueueEntry
    from storage.records import GameRecord, PendingReply
    from storage.repository import GameRepository

__all__ = ["OwnedGames", "ShardSpec", "shard_of"]


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord gives a guild (its documented formula)."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class ShardSpec:
    """The shards one process runs: ``shard_ids`` out of ``shard_count``."""

    shard_ids: frozenset[int]
    shard_count: int

    def __post_init__(self) -> None:
        if self.shard_count < 1:
            raise ValueError(f"a shard count is at least 1, not {self.shard_count}")
        if not self.shard_ids:
            raise ValueError("no shards given")
        outside = sorted(i for i in self.shard_ids if not 0 <= i < self.shard_count)
        if outside:
            raise ValueError(f"shards {outside} are outside 0-{self.shard_count - 1}")

    @classmethod
    def parse(cls, shards: str, shard_count: int) -> Self:
        """``"0-3"``, ``"4,6"`` or ``"0-1,5"`` out of ``shard_count``.

        Raises:
            ValueError: not a list of shard numbers and ranges within the count.
        """
        ids: set[int] = set()
        for part in shards.split(","):
            first, dash, last = part.strip().partition("-")
            if not first.isdigit() or (dash and not last.isdigit()):
                raise ValueError(f"not a shard or a range of shards: {part.strip()!r}")
            low, high = int(first), int(last) if dash else int(first)
            if high < low:
                raise ValueError(f"an empty range of shards: {part.strip()!r}")
            ids.update(range(low, high + 1))
        return cls(frozenset(ids), shard_count)

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process owns the games of ``guild_id`` (guild-less games, from the
        terminal, go with shard 0)."""
        shard = 0 if guild_id is None else shard_of(guild_id, self.shard_count)
        return shard in self.shard_ids


class OwnedGames:
    """A ``GameRepository`` whose ``open_games`` and ``games_due`` list only the games of
    this process's shards; every other call goes to the shared repository unchanged."""

    def __init__(self, inner: GameRepository, shards: ShardSpec) -> None:
        self._inner = inner
        self.shards = shards

    @classmethod
    def wrap(cls, inner: GameRepository, shards: ShardSpec) -> GameRepository:
        """``inner`` seen from the process running ``shards``."""
        return cast("GameRepository", cls(inner, shards))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def open_games(self) -> list[GameRecord]:
        """This process's pending and active games, oldest first."""
        return [g for g in await self._inner.open_games() if self.shards.owns(g.guild_id)]

    async def unshown_games(self) -> list[GameRecord]:
        """This process's open games whose board may be behind (redrawn at start-up)."""
        return [g for g in await self._inner.unshown_games() if self.shards.owns(g.guild_id)]

    async def games_due(self, now: datetime) -> list[GameRecord]:
        """This process's games whose deadline has come."""
        return [g for g in await self._inner.games_due(now) if self.shards.owns(g.guild_id)]

    async def shift_deadlines(self, by: timedelta, game_ids: Iterable[int] | None = None) -> int:
        """Move the clocks of this process's open games (the other shards' players could
        move: their clocks ran)."""
        mine = {g.id for g in await self.open_games() if g.deadline is not None}
        if game_ids is not None:
            mine &= set(game_ids)
        return await self._inner.shift_deadlines(by, mine)

    async def queue_entries(self, guild_id: int | None = None) -> list[QueueEntry]:
        """The members waiting in this process's servers' pairing queues (reloaded at
        start-up: each server's queue is paired by the process that owns it)."""
        entries = await self._inner.queue_entries(guild_id)
        return [e for e in entries if self.shards.owns(e.guild_id)]

    async def pending_replies(self) -> list[PendingReply]:
        """The interrupted replies of this process's games (finished at start-up)."""
        replies = []
        for reply in await self._inner.pending_replies():
            try:
                game = await self._inner.get_game(reply.game_id)
            except GameNotFoundError:
                continue
            if self.shards.owns(game.guild_id):
                replies.append(reply)
        return replies
