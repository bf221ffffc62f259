"""An undo request's message across a restart of the bot (a second bot on the same SQLite
file): the message is stored with the request, so an answer given after the restart (on the
web board) takes its buttons away and says the answer, and a request that ended while the bot
was away (its game moved on) loses its buttons at start-up, as one left behind by a move does
at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.client import GomokuBot
from bot.core.service.inputs import AnswerUndo, GameRef
from engine.types import Outcome, Termination
from storage.sqlite import SqliteGameRepository
from tests.bot.conftest import BotFactory, accepted_challenge, board_caught_up
from tests.bot.test_discord_events import undo_requests
from tests.fakediscord import FakeDiscord, FakeUser, Message


async def _request_posted(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, Message]:
    """Alice and Bob play a move each; Bob asks to take his back with ``/gomoku undo``: the
    game's id and the request's message, once it is noted with the stored request."""
    noted = asyncio.Event()
    note = bot.service.undo_posted

    async def noting(*args: int) -> bool:
        stored = await note(*args)
        noted.set()
        return stored

    monkeypatch.setattr(bot.service, "undo_posted", noting)
    game_id, _board = await accepted_challenge(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    await fake.slash("place", user=bob, options={"cell": "i9"})
    await board_caught_up(fake, bot, game_id)
    await fake.slash("gomoku undo", user=bob)
    [request] = undo_requests(fake)
    assert f"gomoku:{game_id}:undo:yes" in request.custom_ids()
    async with asyncio.timeout(10):
        await noted.wait()
    stored = await bot.service.repository.undo_request(game_id)
    assert stored is not None
    assert (stored.channel_id, stored.message_id) == (request.channel_id, request.id)
    return game_id, request


@pytest.mark.parametrize("allowed", [True, False])
async def test_an_answer_on_the_web_after_a_restart_edits_the_request(
    fake: FakeDiscord,
    make_bot: BotFactory,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
    allowed: bool,
) -> None:
    first = make_bot()
    async with fake.running(first):
        game_id, request = await _request_posted(fake, first, alice, bob, monkeypatch)
    second = make_bot()
    async with fake.running(second):
        await second.service.act(GameRef(game_id), alice.id, AnswerUndo(allowed), via="web")
        await fake.wait_for(lambda: request.buttons() == [])
        assert request.content == (
            f"<@{alice.id}> allowed <@{bob.id}> to take back their last move."
            if allowed
            else f"<@{alice.id}> refused to let <@{bob.id}> take back their last move."
        )
        assert request.allowed_mentions == {"parse": []}  # the edit pings nobody
        assert undo_requests(fake) == [request]  # edited, not said anew
        view = await second.service.game(game_id)
        moves = [str(move.point) for move in view.board.moves]
        assert moves == (["h8"] if allowed else ["h8", "i9"])
        assert await second.service.repository.undo_request(game_id) is None


async def test_a_request_whose_game_ended_while_the_bot_was_away_loses_its_buttons(
    fake: FakeDiscord,
    make_bot: BotFactory,
    db_path: Path,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = make_bot()
    async with fake.running(first):
        game_id, request = await _request_posted(fake, first, alice, bob, monkeypatch)
    # Away, the game ends (another process, a moderator): the request can no longer be answered.
    async with SqliteGameRepository.open(db_path) as repo:
        game = await repo.get_game(game_id)
        await repo.finish_game(game_id, game.version, Outcome(Termination.ABANDONED, None))
    second = make_bot()
    async with fake.running(second):
        await fake.wait_for(lambda: request.buttons() == [])
        assert request.content == (
            f"<@{bob.id}>'s request to take back their last move is closed: the game moved on."
        )
        assert request.allowed_mentions == {"parse": []}
        assert await second.service.repository.undo_requests() == []
        assert undo_requests(fake) == [request]


async def test_a_request_left_behind_by_a_move_loses_its_buttons(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game_id, request = await _request_posted(fake, bot, alice, bob, monkeypatch)
    await fake.slash("place", user=alice, options={"cell": "j10"})  # instead of answering
    await fake.wait_for(lambda: request.buttons() == [])
    assert request.content == (
        f"<@{bob.id}>'s request to take back their last move is closed: the game moved on."
    )
    assert await bot.service.repository.undo_request(game_id) is None
    assert undo_requests(fake) == [request]
