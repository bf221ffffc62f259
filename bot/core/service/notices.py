"""What the front-ends note about their own messages so that a restart can finish them: each
game's newest turn ping, and the replies an AI move is still to fill in."""

from __future__ import annotations

from bot.core.service.shared import ServiceCore
from storage.records import PendingReply, TurnPing


class NoticeUseCases(ServiceCore):
    """Turn pings and pending replies, kept in storage."""

    async def turn_ping(self, game_id: int) -> TurnPing | None:
        """The game's newest turn ping, if one is stored."""
        return await self.repository.turn_ping(game_id)

    async def save_turn_ping(self, ping: TurnPing) -> None:
        """Keep ``ping`` as its game's newest."""
        await self.repository.save_turn_ping(ping)

    async def drop_turn_ping(self, game_id: int) -> None:
        """The game's ping is gone (deleted, or the game is over)."""
        await self.repository.drop_turn_ping(game_id)

    async def save_pending_reply(self, reply: PendingReply) -> None:
        """Note a reply the AI's move is to fill in."""
        await self.repository.save_pending_reply(reply)

    async def pending_replies(self) -> list[PendingReply]:
        """Every reply noted and not yet filled in."""
        return await self.repository.pending_replies()

    async def drop_pending_reply(self, token: str) -> None:
        """The reply was filled in (or its token has expired)."""
        await self.repository.drop_pending_reply(token)
