"""The hub's order and pace: a game's pages are never sent a state older than one they were
sent; a change is sent in the loop's next turn with no task, a burst once as its newest state,
and a game's pages 2 a turn."""

from __future__ import annotations

import asyncio
import dataclasses

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


def _of_game(state: GameState, game_id: int) -> GameState:
    record = dataclasses.replace(state.record, id=game_id)
    return dataclasses.replace(state, record=record)


async def test_changes_of_many_games_are_sent_in_the_next_turn_with_no_task() -> None:
    states = await random_game((Game.GOMOKU, Rule.FREESTYLE, None), [0] * 4)
    first, second = states[-2], states[-1]
    hub = Hub()
    pages = {game_id: _Page() for game_id in range(1, 51)}
    for game_id, page in pages.items():
        hub.join(game_id, page)
    tasks = asyncio.all_tasks()
    for game_id in pages:  # a burst: two changes of each game before the loop turns
        hub.publish(_of_game(first, game_id))
        hub.publish(_of_game(second, game_id))
    assert asyncio.all_tasks() == tasks  # a callback for each game, no task
    assert all(page.shown == [] for page in pages.values())  # the change's command goes first
    await asyncio.sleep(0)
    assert all(page.shown == [second.version] for page in pages.values())  # the newest, once
    await hub.close()


async def test_a_games_pages_are_sent_2_a_turn_and_a_change_meanwhile_after_them() -> None:
    states = await random_game((Game.GOMOKU, Rule.FREESTYLE, None), [0] * 4)
    old, new = states[-2], states[-1]
    hub = Hub()
    pages = [_Page() for _ in range(5)]
    for page in pages:
        hub.join(old.game_id, page)
    hub.publish(old)
    sent = []
    for _ in range(3):
        await asyncio.sleep(0)
        sent.append(sum(old.version in page.shown for page in pages))
        if len(sent) == 1:
            hub.publish(new)  # while the first change is under way
    assert sent == [2, 4, 5]
    for _ in range(3):
        await asyncio.sleep(0)
    assert all(page.shown == [old.version, new.version] for page in pages)
    assert hub.current(old.game_id) is new
    await hub.close()


async def test_a_send_that_fails_leaves_the_next_change_sent() -> None:
    states = await random_game((Game.GOMOKU, Rule.FREESTYLE, None), [0] * 4)
    first, second = states[-2], states[-1]
    hub, page = Hub(), _Page()
    hub.join(first.game_id, page)
    feed = hub.feed

    def broken(game_id: int) -> Feed:
        raise RuntimeError("a render that failed")

    hub.feed = broken  # type: ignore[method-assign]
    hub.publish(first)
    await asyncio.sleep(0)
    assert page.shown == []
    hub.feed = feed  # type: ignore[method-assign]
    hub.publish(second)
    await asyncio.sleep(0)
    assert page.shown == [second.version]
    await hub.close()
