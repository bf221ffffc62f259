"""Contract for stored reviews (issue 12), run on both repositories."""

from __future__ import annotations

import pytest

from storage.repository import GameNotFoundError, GameRepository
from tests.storage.conftest import new_game


async def test_a_review_is_stored_and_replaced(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    assert await repo.review(game.id) is None
    await repo.save_review(game.id, '{"format": 1}')
    assert await repo.review(game.id) == '{"format": 1}'
    await repo.save_review(game.id, '{"format": 2}')
    assert await repo.review(game.id) == '{"format": 2}'


async def test_a_review_of_no_game_is_refused(repo: GameRepository) -> None:
    with pytest.raises(GameNotFoundError):
        await repo.save_review(999, "{}")
    assert await repo.review(999) is None
