"""Looking back: a member's finished games page by page, and who may see a game.

A game is visible to a user in the guild it was played in, and to its players anywhere.
"""

from __future__ import annotations

from typing import Final

from bot.core.service.errors import NoSuchGameError
from bot.core.service.shared import ServiceCore
from bot.core.service.states import GameState, HistoryPage
from storage.records import GameRecord, GameStatus

PAGE_SIZE: Final = 10  # games per history page
MAX_PAGE: Final = 99  # a deeper page would read too many rows to skip; the buttons stop here


class HistoryUseCases(ServiceCore):
    """History pages, the games a member may look at, their latest."""

    async def history(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        limit: int = 10,
        before_id: int | None = None,
    ) -> list[GameRecord]:
        """A user's finished games, newest first; pass the last id seen as ``before_id`` for
        the next page."""
        return await self.repository.user_games(
            user_id, guild_id=guild_id, limit=limit, before_id=before_id
        )

    async def history_page(
        self, user_id: int, *, guild_id: int | None, page: int = 0
    ) -> HistoryPage:
        """Page ``page`` of ``user_id``'s finished games in ``guild_id`` (None: everywhere)."""
        page = max(0, min(page, MAX_PAGE))
        before: int | None = None
        # Keyset paging over the repository: skip whole pages by their last id.
        for _ in range(page):
            skipped = await self.history(
                user_id, guild_id=guild_id, limit=PAGE_SIZE, before_id=before
            )
            if len(skipped) < PAGE_SIZE:
                return HistoryPage(user_id, page, (), False)
            before = skipped[-1].id
        rows = await self.history(user_id, guild_id=guild_id, limit=PAGE_SIZE + 1, before_id=before)
        has_more = len(rows) > PAGE_SIZE and page < MAX_PAGE
        return HistoryPage(user_id, page, tuple(rows[:PAGE_SIZE]), has_more)

    async def visible_game(self, game_id: int, *, user_id: int, guild_id: int | None) -> GameState:
        """Game ``game_id`` if ``user_id`` may see it from ``guild_id``.

        Raises:
            NoSuchGameError: no such game, or one from elsewhere the user did not play in
                (the same answer, so ids of other servers' games reveal nothing).
        """
        game = await self._view(game_id)
        if game.guild_id != guild_id and user_id not in game.humans:
            raise NoSuchGameError(game_id)
        if game.status in (GameStatus.DECLINED, GameStatus.CANCELLED, GameStatus.EXPIRED):
            raise NoSuchGameError(game_id)  # a challenge nobody played has nothing to show
        return game

    async def latest_game(self, user_id: int, *, guild_id: int | None) -> GameState | None:
        """The user's most recent finished game in the guild, if any."""
        rows = await self.history(user_id, guild_id=guild_id, limit=1)
        return await self._view(rows[0].id) if rows else None
