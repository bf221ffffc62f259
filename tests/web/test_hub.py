"""The hub's order: a game's pages are never sent a state older than one they were sent."""

from __future__ import annotations

import asyncio

from bot.core.service.states import GameState
from bot.web.feed import Feed
from bot.web.hub import Hub
from engine.types import Game, Rule
from tests.web.test_feed import random_game


class _Page:
    def __init__(self) -> None:
        self.shown: list[int] = []

    def show(self, state: GameState, feed: Feed) -> None:
        self.shown.append(state.version)


async def test_a_state_read_late_is_not_sent_after_a_newer_one() -> None:
    states = await random_game((Game.GOMOKU, Rule.FREESTYLE, None), [0] * 8)
    assert [s.version for s in states] == sorted({s.version for s in states})
    old, new, newest = states[2], states[5], states[6]
    hub, page = Hub(), _Page()
    hub.join(new.game_id, page)
    hub.publish(new)
    await asyncio.sleep(0)  # one turn: the game's send task runs to its end
    assert page.shown == [new.version]
    hub.publish(old)  # a read that began before ``new`` was stored, answered after it
    await asyncio.sleep(0)
    hub.publish(newest)
    await asyncio.sleep(0)
    assert page.shown == [new.version, newest.version]
    assert hub.current(new.game_id) is newest
    await hub.close()
