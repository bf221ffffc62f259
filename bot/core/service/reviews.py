"""Reviews: the engine's look back at a finished game, run one at a time and stored."""

from __future__ import annotations

from bot.core.review import (
    Analyser,
    Progress,
    Review,
    Reviewer,
    ReviewUnavailableError,
    stored_review,
)
from bot.core.service.shared import ServiceCore
from bot.core.service.states import GameState


class ReviewUseCases(ServiceCore):
    """Stored reviews, and the one reviewer that runs new ones."""

    @property
    def can_analyse(self) -> bool:
        """Whether the AI runner analyses positions (reviews and puzzles need it)."""
        return isinstance(self.ai, Analyser)

    async def stored_review(self, game_id: int) -> Review | None:
        """The game's stored review of the current format, if any."""
        return await stored_review(self.repository, game_id)

    def reviewer(self) -> Reviewer:
        """The process's reviewer (one review at a time; a second waits).

        Raises:
            ReviewUnavailableError: the AI runner cannot analyse.
        """
        if self._reviewer is None:
            if not isinstance(self.ai, Analyser):
                raise ReviewUnavailableError()
            self._reviewer = Reviewer(self.repository, self.ai)
        return self._reviewer

    async def review(self, game: GameState, progress: Progress | None = None) -> Review:
        """``game``'s review: the stored one, or a new one (stored when complete).

        Raises:
            ReviewUnavailableError, NotReviewableError.
        """
        return await self.reviewer().review(game, progress)
