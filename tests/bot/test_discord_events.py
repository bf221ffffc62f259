"""The Discord table as a subscriber of the core's events: the AI's moves, started by the core
runner as soon as they are due, are drawn once, on the one board, even when the AI has moved
before the handler that waits for its reply has posted that board; undo requests and
takebacks made on another front end (the web board) are asked and drawn in Discord."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bot.client import GomokuBot
from bot.core.bus import UndoAnswer
from bot.core.service import GameService
from bot.core.service.events import Event, Moved
from bot.core.service.inputs import AnswerUndo, AskUndo, GameRef, Place
from bot.table import Table
from engine.types import Point
from storage.sqlite import SqliteGameRepository
from tests.bot.conftest import accepted_challenge, board_caught_up
from tests.fakediscord import FakeDiscord, FakeUser, InteractionRecord, Message
from tests.polling import until
from tests.runners import CentreRunner


def board_after_the_ai(bot: GomokuBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hold back the board a start or a rematch answers with until the AI's move is stored
    (the AI is quicker than Discord): the board must still be the only one, and show it."""
    moved = asyncio.Event()

    def watch(event: Event) -> None:
        if isinstance(event, Moved) and event.by_ai:
            moved.set()

    bot.service.subscribe(watch)
    respond = Table.respond_with_board

    async def later(table: Table, interaction: Any, game: Any, **options: Any) -> None:
        if game.is_ai_turn:
            async with asyncio.timeout(5):
                await moved.wait()
        await respond(table, interaction, game, **options)

    monkeypatch.setattr(Table, "respond_with_board", later)


async def test_an_ai_that_moves_first_is_drawn_on_the_one_board(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    board_after_the_ai(bot, monkeypatch)
    record = await fake.send_slash("gomoku start", user=alice, options={"colour": "white"})
    await fake.wait_for(lambda: record.original is not None and "1 move" in record.original.text())
    view = await bot.service.board(fake.default_channel.id)
    assert [str(move.point) for move in view.board.moves] == ["h8"]
    boards = [m for m in fake.channel_messages() if m.embeds]
    assert boards == [record.original]
    assert fake.requests_to("POST", rf"/channels/{fake.default_channel.id}/messages$") == []


async def test_a_rematch_against_an_ai_that_moves_first_is_drawn_once(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    assert start.message is not None
    first = start.message
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    confirm = await fake.slash("gomoku resign", user=alice)
    assert confirm.message is not None
    await fake.click(confirm.message, f"gomoku:{game_id}:resign", user=alice)
    assert (await bot.service.game(game_id)).is_over
    await fake.wait_for(lambda: f"gomoku:{game_id}:rematch" in first.custom_ids())
    board_after_the_ai(bot, monkeypatch)
    rematch = await fake.click(first, f"gomoku:{game_id}:rematch", user=alice)
    assert rematch.message is not None
    board = rematch.message
    await fake.wait_for(lambda: "1 move" in board.text())
    view = await bot.service.board(fake.default_channel.id)
    assert view.game_id != game_id
    assert [str(move.point) for move in view.board.moves] == ["h8"]  # the AI is Black now
    assert [m for m in fake.channel_messages() if m.embeds and m.id != first.id] == [board]


def undo_requests(fake: FakeDiscord) -> list[Message]:
    """The undo requests' messages in the channel, oldest first (answered ones too)."""
    return [m for m in fake.channel_messages() if "take back their last move" in m.content]


async def a_move_each(fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser) -> int:
    """Alice and Bob play a move each (their board drawn): the game's id."""
    game_id, _board = await accepted_challenge(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    await fake.slash("place", user=bob, options={"cell": "i9"})
    await board_caught_up(fake, bot, game_id)
    return game_id


async def bob_asks_to_undo(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> tuple[int, Message]:
    """Alice and Bob play a move each and Bob asks, with ``/gomoku undo``, to take his back:
    the game's id and the request's message."""
    game_id = await a_move_each(fake, bot, alice, bob)
    await fake.slash("gomoku undo", user=bob)
    [first] = undo_requests(fake)
    return game_id, first


async def test_an_undo_asked_or_answered_on_the_web_is_told_in_discord(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    # Asked in Discord: the command posts the request itself, once.
    game_id, first = await bob_asks_to_undo(fake, bot, alice, bob)
    assert f"gomoku:{game_id}:undo:no" in first.custom_ids()
    # Refused on the web: the request's message says so and its buttons go.
    await bot.service.act(GameRef(game_id), alice.id, AnswerUndo(False), via="web")
    await fake.wait_for(lambda: first.buttons() == [])
    assert first.content == f"<@{alice.id}> refused to let <@{bob.id}> take back their last move."
    assert not first.pings_everyone()
    # Asked on the web: the table posts it, with the buttons that answer it, pinging Alice.
    await bot.service.act(GameRef(game_id), bob.id, AskUndo(), via="web")
    await fake.wait_for(lambda: len(undo_requests(fake)) == 2)
    asked = undo_requests(fake)[-1]
    assert asked.content.startswith(f"<@{alice.id}>")
    assert "asks to take back" in asked.content
    assert f"gomoku:{game_id}:undo:yes" in asked.custom_ids()
    assert not asked.pings_everyone()
    assert not asked.pings_roles()
    # Allowed on the web: Discord's board shows the move gone, the request says who allowed it.
    await bot.service.act(GameRef(game_id), alice.id, AnswerUndo(True), via="web")
    await board_caught_up(fake, bot, game_id)
    view = await bot.service.game(game_id)
    assert [str(move.point) for move in view.board.moves] == ["h8"]
    await fake.wait_for(lambda: asked.buttons() == [])
    assert asked.content == f"<@{alice.id}> allowed <@{bob.id}> to take back their last move."
    # Asked on the web and withdrawn there.
    await fake.slash("place", user=bob, options={"cell": "i9"})
    await bot.service.act(GameRef(game_id), bob.id, AskUndo(), via="web")
    await fake.wait_for(lambda: len(undo_requests(fake)) == 3)
    third = undo_requests(fake)[-1]
    await bot.service.act(GameRef(game_id), bob.id, AnswerUndo(False), via="web")
    await fake.wait_for(lambda: third.buttons() == [])
    assert third.content == f"<@{bob.id}> withdrew the request to take back their last move."
    assert len(undo_requests(fake)) == 3  # each answer edits its request: no new message


async def test_an_answer_heard_late_from_another_process_leaves_a_later_request_open(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    """The process that hears an answer edits the request's message noted in storage, and
    tells the bus which message it was: that note, heard here only after a second request
    was posted, leaves the second one open, and the next move closes it."""
    game_id, first = await bob_asks_to_undo(fake, bot, alice, bob)
    await bot.service.act(GameRef(game_id), alice.id, AnswerUndo(False), via="web")
    await fake.wait_for(lambda: first.buttons() == [])
    second = (await fake.slash("gomoku undo", user=bob)).message
    assert second is not None
    assert second.id != first.id
    async with asyncio.timeout(10):  # posted: noted with the stored request
        await until(
            lambda: bot.service.repository.undo_request(game_id),
            lambda request: request is not None and request.message_id == second.id,
        )
    version = (await bot.service.game(game_id)).version
    late = UndoAnswer("elsewhere", game_id, version, bob.id, alice.id, alice.id, False, "web")
    bot.table.undo(msgspec.structs.replace(late, message_id=first.id))
    await fake.slash("place", user=alice, options={"cell": "j10"})
    await fake.wait_for(lambda: second.buttons() == [])
    assert second.content == (
        f"<@{bob.id}>'s request to take back their last move is closed: the game moved on."
    )


async def undo_asked_while_discord_holds_the_post(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> tuple[int, asyncio.Event, InteractionRecord]:
    """Alice and Bob play a move each and Bob asks, with ``/gomoku undo``, to take his back,
    with Discord slow to answer the post of the request's message: the game's id, the event
    that lets Discord answer, and the command's record."""
    game_id = await a_move_each(fake, bot, alice, bob)
    release = fake.hold("POST", r"/interactions/\d+/[^/]+/callback")
    record = await fake.send_slash("gomoku undo", user=bob)
    # the request is stored before its message is posted
    await fake.wait_for(
        lambda: fake.requests_to("POST", rf"/interactions/\d+/{record.token}/callback") != []
    )
    return game_id, release, record


async def says_once_posted(
    fake: FakeDiscord,
    bot: GomokuBot,
    record: InteractionRecord,
    content: str,
    *,
    gone: int | None = None,
) -> None:
    """Discord answers the post of the request: once its message is known here it says
    ``content`` and loses its buttons, and nothing is said anew; the stored request of the
    game ``gone`` is gone."""
    asked = (await fake.answer(record)).message
    assert asked is not None
    await fake.wait_for(lambda: asked.buttons() == [])
    assert asked.content == content
    assert undo_requests(fake) == [asked]
    if gone is not None:
        assert await bot.service.repository.undo_request(gone) is None


async def test_a_web_answer_given_while_the_request_is_posted_edits_its_message(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    """Refused on the web before Discord answered the post of the request: once the message
    is known here it says the refusal and loses its buttons, and nothing is said anew."""
    game_id, release, record = await undo_asked_while_discord_holds_the_post(fake, bot, alice, bob)
    await bot.service.act(GameRef(game_id), alice.id, AnswerUndo(False), via="web")
    release.set()
    refused = f"<@{alice.id}> refused to let <@{bob.id}> take back their last move."
    await says_once_posted(fake, bot, record, refused, gone=game_id)


async def test_an_answer_heard_from_another_process_while_the_request_is_posted_edits_it(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    """Another process's answer heard on the bus before Discord answered the post of the
    request (the message not yet noted with the request, so nobody else edits it): once the
    message is known here it says the answer and loses its buttons."""
    game_id, release, record = await undo_asked_while_discord_holds_the_post(fake, bot, alice, bob)
    version = (await bot.service.game(game_id)).version
    withdrawn = UndoAnswer("elsewhere", game_id, version, bob.id, alice.id, bob.id, False, "web")
    bot.table.undo(withdrawn)
    release.set()
    withdrew = f"<@{bob.id}> withdrew the request to take back their last move."
    await says_once_posted(fake, bot, record, withdrew)


async def closes_once_posted(
    fake: FakeDiscord, bot: GomokuBot, record: InteractionRecord, game_id: int, bob: FakeUser
) -> None:
    """Discord answers the post of Bob's request, which a move has left behind: its message
    loses its buttons and says why, and the stored request is gone."""
    closed = f"<@{bob.id}>'s request to take back their last move is closed: the game moved on."
    await says_once_posted(fake, bot, record, closed, gone=game_id)


async def test_a_web_move_made_while_the_request_is_posted_closes_its_message(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    """Alice moves on the web instead of answering, before Discord answered the post of
    Bob's request: once the message is known here it loses its buttons and says why."""
    game_id, release, record = await undo_asked_while_discord_holds_the_post(fake, bot, alice, bob)
    await bot.service.act(GameRef(game_id), alice.id, Place(Point(9, 9)), via="web")
    release.set()
    await closes_once_posted(fake, bot, record, game_id, bob)


async def test_a_move_heard_from_another_process_while_the_request_is_posted_closes_it(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser, db_path: Path
) -> None:
    """The same move stored by another process (a web board served elsewhere), its change
    heard on the bus before Discord answered the post: the message closes once known."""
    game_id, release, record = await undo_asked_while_discord_holds_the_post(fake, bot, alice, bob)
    async with SqliteGameRepository.open(db_path) as db:
        moved = await GameService(db, CentreRunner()).act(
            GameRef(game_id), alice.id, Place(Point(9, 9)), via="web"
        )
    bot.table.changed(game_id, moved.game.version)
    release.set()
    await closes_once_posted(fake, bot, record, game_id, bob)


async def test_a_request_dropped_elsewhere_while_posted_closes_though_an_older_one_is_known(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser, db_path: Path
) -> None:
    """Bob's first request was refused in another process whose answer was not heard here,
    so its message is still the one known; his second, asked while Discord holds its post,
    is left behind by a move stored there too. The second's message closes once known."""
    game_id, first = await bob_asks_to_undo(fake, bot, alice, bob)
    async with SqliteGameRepository.open(db_path) as db:
        await GameService(db, CentreRunner()).act(
            GameRef(game_id), alice.id, AnswerUndo(False), via="web"
        )
    release = fake.hold("POST", r"/interactions/\d+/[^/]+/callback")
    record = await fake.send_slash("gomoku undo", user=bob)
    await fake.wait_for(
        lambda: fake.requests_to("POST", rf"/interactions/\d+/{record.token}/callback") != []
    )
    async with SqliteGameRepository.open(db_path) as db:
        moved = await GameService(db, CentreRunner()).act(
            GameRef(game_id), alice.id, Place(Point(9, 9)), via="web"
        )
    bot.table.changed(game_id, moved.game.version)
    async with asyncio.timeout(10):  # the change heard here drops the second request
        await until(lambda: bot.service.repository.undo_request(game_id), lambda r: r is None)
    release.set()
    second = (await fake.answer(record)).message
    assert second is not None
    await fake.wait_for(lambda: second.buttons() == [] and first.buttons() == [])
    assert second.content == (
        f"<@{bob.id}>'s request to take back their last move is closed: the game moved on."
    )


async def test_a_web_answer_then_a_move_while_the_request_is_posted_says_the_answer(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    """Refused on the web and then moved on there, all before Discord answered the post of
    Bob's request: once known, its message says the refusal and loses its buttons."""
    game_id, release, record = await undo_asked_while_discord_holds_the_post(fake, bot, alice, bob)
    await bot.service.act(GameRef(game_id), alice.id, AnswerUndo(False), via="web")
    await bot.service.act(GameRef(game_id), alice.id, Place(Point(9, 9)), via="web")
    release.set()
    refused = f"<@{alice.id}> refused to let <@{bob.id}> take back their last move."
    await says_once_posted(fake, bot, record, refused, gone=game_id)
