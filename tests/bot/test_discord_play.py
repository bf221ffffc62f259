"""Whole games through the real discord.py against the fake Discord."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from bot.client import GomokuBot
from bot.core.service.states import GameState
from bot.deferral import AckClock
from bot.turns import finish_interrupted_replies
from engine.types import Game, Termination
from storage.records import GameStatus
from tests.bot.conftest import (
    BotFactory,
    GatedRunner,
    accepted_challenge,
    challenge,
)
from tests.fakediscord import FakeDiscord, FakeUser, InteractionRecord, Message, Reply
from tests.polling import until


async def _game(bot: GomokuBot, fake: FakeDiscord, game_id: int | None = None) -> GameState:
    if game_id is None:
        return await bot.service.board(fake.default_channel.id)
    return await bot.service.game(game_id)


async def _board_saved(bot: GomokuBot, fake: FakeDiscord) -> GameState:
    # The reply goes out first (Discord gives it its id), then the bot stores that id.
    async with asyncio.timeout(10):
        return await until(
            lambda: _game(bot, fake), lambda view: view.record.message_id is not None
        )


async def _ai_done(bot: GomokuBot, game_id: int) -> GameState:
    # The AI answers after a button press has been acknowledged; wait for it to move.
    async with asyncio.timeout(30):
        return await until(lambda: bot.service.game(game_id), lambda view: not view.is_ai_turn)


def _enabled(message: Message) -> list[str]:
    return [b["custom_id"] for b in message.buttons() if not b.get("disabled")]


def _grid_shows(board: Message, view: GameState) -> Callable[[], bool]:
    # A stone is stored before the grid is redrawn: true once the grid has caught up.
    played = len(view.board.moves)
    return lambda: view.is_over or 9 - len(_enabled(board)) == played


async def _start_against_the_ai(fake: FakeDiscord, alice: FakeUser, **options: object) -> Reply:
    """Alice starts a game with the beginner AI, playing Black, with ``options`` besides."""
    return await fake.slash(
        "gomoku start", user=alice, options={"level": "beginner", "colour": "black", **options}
    )


async def test_gomoku_against_the_ai_to_the_end(
    fake: FakeDiscord, pool_bot: GomokuBot, alice: FakeUser
) -> None:
    start = await _start_against_the_ai(fake, alice, size=7)
    assert not start.ephemeral
    assert start.attachments == []  # the default style is emoji text
    assert "\N{HEAVY PLUS SIGN}" in start.text()
    assert start.message is not None
    view = await _board_saved(pool_bot, fake)
    game_id = view.game_id
    assert view.record.message_id == start.message.id
    for _ in range(30):
        view = await pool_bot.service.game(game_id)
        if view.is_over:
            break
        choices = await fake.autocomplete("place", "cell", user=alice, options={"cell": ""})
        assert 0 < len(choices) <= 25
        move = await fake.slash("place", user=alice, options={"cell": choices[0]["value"]})
        assert move.ephemeral
        assert "played **" in move.content
    assert view.status is GameStatus.FINISHED
    assert view.outcome is not None
    # One board message for the whole game, edited move by move.
    boards = [m for m in fake.channel_messages() if m.embeds]
    assert [m.id for m in boards] == [start.message.id]
    assert boards[0].edits >= len(view.board.moves) // 2
    assert "game" in boards[0].embeds[0]["footer"]["text"]


async def _pending_replies_gone(bot: GomokuBot) -> None:
    async with asyncio.timeout(10):  # the noted reply is dropped once it is filled in
        await until(bot.service.repository.pending_replies, lambda left: not left)


@asynccontextmanager
async def _gated_game(
    fake: FakeDiscord,
    make_bot: BotFactory,
    alice: FakeUser,
    ai_reply_wait: float,
    acks: AckClock | None = None,
) -> AsyncIterator[tuple[GomokuBot, GatedRunner, Message]]:
    """A running bot whose AI thinks until ``release``, Alice (Black) in a game against it:
    the bot, its AI and the game's board message."""
    ai = GatedRunner()
    bot = make_bot(ai=ai, ai_reply_wait=ai_reply_wait, acks=acks)
    async with fake.running(bot):
        start = await fake.slash("gomoku start", user=alice, options={"colour": "black"})
        assert start.message is not None
        yield bot, ai, fake.messages[start.message.id]


async def test_a_quick_ai_answer_is_the_reply_itself_and_the_board_shows_the_move_first(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    # "quick": within the wait, however slow the test
    async with _gated_game(fake, make_bot, alice, 30.0) as (bot, ai, board):
        game_id = (await _board_saved(bot, fake)).game_id
        # A slow Discord on the answer: the board does not wait for it.
        release = fake.hold("POST", r"/interactions/\d+/[^/]+/callback")
        record = await fake.send_slash("place", user=alice, options={"cell": "h8"})
        await fake.wait_for(lambda: "last h8" in board.text())
        assert record.callback_type is None  # nothing answered the command yet
        release.set()
        ai.release.set()
        reply = await fake.answer(record)
        # One message: no deferral ("thinking..."), no edit of it, no reply noted in storage.
        assert reply.ephemeral
        assert not reply.deferred
        assert "You played **H8**. The AI answered **" in reply.content
        assert fake.requests_to("PATCH", rf"/webhooks/\d+/{record.token}/messages/@original") == []
        assert await bot.service.repository.pending_replies() == []
        assert len((await bot.service.game(game_id)).board.moves) == 2


async def test_a_slow_ai_answer_fills_in_a_deferred_reply_noted_until_then(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    async with _gated_game(fake, make_bot, alice, 0.05) as (bot, ai, board):
        record = await fake.send_slash("place", user=alice, options={"cell": "h8"})
        await fake.wait_for(lambda: record.callback_type is not None)
        assert record.callback_type == 5  # "thinking...", while the AI still thinks
        assert "last h8" in board.text()  # the stone showed before the deferral
        async with asyncio.timeout(10):  # noted, so that a restart could still fill it in
            await until(bot.service.repository.pending_replies, bool)
        ai.release.set()
        reply = await fake.answer(record)
        assert reply.deferred
        assert "You played **H8**. The AI answered **" in reply.content
        await _pending_replies_gone(bot)


async def test_the_start_ups_fill_in_leaves_the_replies_of_this_process_alone(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    """The start-up's fill-in of the replies the last process left "thinking..." may run
    after the first interactions (a slow start on a busy host): a reply this process noted
    is its own, filled in by the AI's move, not told that the bot restarted."""
    async with _gated_game(fake, make_bot, alice, 0.05) as (bot, ai, _board):
        record = await fake.send_slash("place", user=alice, options={"cell": "h8"})
        await fake.wait_for(lambda: record.callback_type is not None)
        async with asyncio.timeout(10):
            await until(bot.service.repository.pending_replies, bool)
        assert await finish_interrupted_replies(bot) == 0  # as if start-up came only now
        assert len(await bot.service.repository.pending_replies()) == 1
        ai.release.set()
        reply = await fake.answer(record)
        assert "You played **H8**. The AI answered **" in reply.content
        assert "restarted" not in reply.content
        await _pending_replies_gone(bot)

        async def own() -> set[str]:
            return bot.table.own_replies

        async with asyncio.timeout(5):  # settled once its row is dropped: none kept for ever
            await until(own, lambda tokens: not tokens)


async def test_a_patient_ai_wait_still_defers_in_time_for_discord(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    # A wait for the AI far beyond Discord's 3 s: the deferral goes when the acknowledgement
    # clock says it must (here soon after the event, so that a loaded host still lands it in
    # time), not when the wait ends.
    acks = AckClock(latest=0.2, earliest=0.2)
    async with _gated_game(fake, make_bot, alice, 600.0, acks) as (bot, ai, _):
        record = await fake.send_slash("place", user=alice, options={"cell": "h8"})
        await ai.started.wait()
        await fake.wait_for(lambda: record.callback_type is not None)
        assert record.callback_type == 5  # "thinking...", while the AI still thinks
        assert record.latency is not None
        assert record.latency < fake.interaction_deadline
        ai.release.set()
        reply = await fake.answer(record)
        assert reply.deferred
        assert "You played **H8**. The AI answered **" in reply.content
        await _pending_replies_gone(bot)


async def test_stopping_while_the_ai_thinks_still_answers_the_move(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    # No deferral before the stop, however slow the host (a loaded one defers sooner)
    acks = AckClock(latest=60.0, earliest=60.0)
    async with _gated_game(fake, make_bot, alice, 30.0, acks) as (_, ai, _):
        record = await fake.send_slash("place", user=alice, options={"cell": "h8"})
        await ai.started.wait()
        assert record.callback_type is None
    # The bot stopped before the AI answered and before any deferral: the command is still
    # answered (else Discord says the application did not respond), with the move played.
    reply = await fake.answer(record)
    assert reply.ephemeral
    assert reply.content == "You played **H8**."


async def test_tictactoe_with_buttons_against_the_ai(
    fake: FakeDiscord, pool_bot: GomokuBot, alice: FakeUser
) -> None:
    start = await _start_against_the_ai(fake, alice, game="tictactoe")
    assert start.message is not None
    board = start.message
    game_id = (await _game(pool_bot, fake)).game_id
    assert len(board.buttons()) == 9
    for _ in range(5):
        view = await pool_bot.service.game(game_id)
        if view.is_over:
            break
        clicked = await fake.click(board, _enabled(board)[0], user=alice)
        assert clicked.message is board  # the grid itself is edited
        view = await _ai_done(pool_bot, game_id)
        await fake.wait_for(_grid_shows(board, view))
    view = await pool_bot.service.game(game_id)
    assert view.is_over
    assert view.game is Game.TICTACTOE
    # A finished grid is all disabled; only "Play again" is left to press.
    await fake.wait_for(lambda: _enabled(board) == [f"gomoku:{game_id}:rematch"])
    assert len([m for m in fake.channel_messages() if m.interaction_id is None]) == 0


def _own_requests(fake: FakeDiscord, record: InteractionRecord) -> list[str]:
    """The requests that answered ``record``: its callbacks, and its token's webhook calls."""
    return [
        f"{r.method} {r.path}"
        for r in fake.requests
        if f"/interactions/{record.id}/" in r.path or f"/{record.token}/" in r.path
    ]


async def test_a_square_tapped_on_the_board_is_answered_by_the_boards_redraw(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, board = await accepted_challenge(fake, bot, alice, bob, game="tictactoe")
    edits = board.edits
    reply = await fake.click(board, f"gomoku:{game_id}:cell:1:1", user=alice)
    record = reply.interaction
    # One request: the tap's own callback redraws the board (no deferral, then no edit).
    assert record.callback_type == 7
    assert _own_requests(fake, record) == [
        f"POST /interactions/{record.id}/{record.token}/callback"
    ]
    assert reply.message is board
    assert board.edits == edits + 1
    square = next(b for b in board.buttons() if b["custom_id"] == f"gomoku:{game_id}:cell:1:1")
    assert square["label"] == "X"
    assert square.get("disabled")
    view = await bot.service.game(game_id)
    assert [str(move.point) for move in view.board.moves] == ["b2"]
    # The next tap is answered the same way, with both marks on the board.
    second = await fake.click(board, f"gomoku:{game_id}:cell:0:0", user=bob)
    assert second.interaction.callback_type == 7
    assert len(_enabled(board)) == 7
    assert len(_own_requests(fake, record)) == 1  # nothing came after for the first tap


async def test_a_refused_tap_on_the_board_is_answered_privately_and_changes_nothing(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, board = await accepted_challenge(fake, bot, alice, bob, game="tictactoe")
    edits = board.edits
    reply = await fake.click(board, f"gomoku:{game_id}:cell:1:1", user=bob)  # alice's turn
    assert reply.ephemeral
    assert "not your turn" in reply.content
    assert reply.interaction.callback_type == 4  # one request, not a deferral and a follow-up
    assert board.edits == edits
    assert len((await bot.service.game(game_id)).board.moves) == 0


async def test_a_rated_challenge_opens_with_swap2_and_updates_ratings(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    challenged = await challenge(fake, alice, bob, rated=True)
    assert bob.mention in challenged.content
    assert challenged.custom_ids() == [
        f"gomoku:{(await _game(bot, fake)).game_id}:accept",
        f"gomoku:{(await _game(bot, fake)).game_id}:decline",
    ]
    game_id = (await _game(bot, fake)).game_id
    refused = await fake.click(challenged, f"gomoku:{game_id}:accept", user=alice)
    assert refused.ephemeral
    assert "Only the challenged player" in refused.content
    assert refused.interaction.callback_type == 4  # one private message, no deferral first
    accepted = await fake.click(challenged, f"gomoku:{game_id}:accept", user=bob)
    assert accepted.message is challenged
    # The challenge's redraw as the game is the button's own answer: one request.
    assert accepted.interaction.callback_type == 7
    assert len(_own_requests(fake, accepted.interaction)) == 1
    # Gomoku is played with /place or through the private panel the Move button opens.
    assert "· rated" in challenged.text()
    # Swap2, the opening of rated games: Alice places three stones, Bob keeps White.
    for cell in ("h8", "a1", "i8"):
        assert (
            "played **" in (await fake.slash("place", user=alice, options={"cell": cell})).content
        )
    keep_white = f"gomoku:{game_id}:open:white"
    await fake.wait_for(lambda: keep_white in challenged.custom_ids())
    await fake.click(challenged, keep_white, user=bob)
    for white, black in [("a2", "j8"), ("a3", "k8"), ("a4", "l8")]:
        assert "played **" in (await fake.slash("place", user=bob, options={"cell": white})).content
        assert (
            "played **" in (await fake.slash("place", user=alice, options={"cell": black})).content
        )
    view = await bot.service.game(game_id)
    assert view.outcome is not None
    assert view.outcome.termination is Termination.FIVE
    assert view.winner is not None
    assert view.winner.user_id == alice.id
    await fake.wait_for(lambda: "Rating" in challenged.text())
    stats = await fake.slash("gomoku stats", user=bob, options={"user": alice})
    assert "rating **" in stats.text()
    assert "rating **1000**" not in stats.text()
    board = await fake.slash("gomoku leaderboard", user=bob)
    assert "Nobody here has played 3 rated games" in board.text()  # one game is too few


async def _posted_again_slowly(fake: FakeDiscord, user: FakeUser) -> tuple[Message, asyncio.Event]:
    """``/gomoku board`` posts the board again, and Discord is slow to delete the old copy,
    which holds the game's redraws until it is gone (the copy stays clickable meanwhile).
    Returns the new board and the event that lets the deletion through."""
    deletes = r"/channels/\d+/messages/\d+$"
    release = fake.hold("DELETE", deletes)
    again = await fake.slash("gomoku board", user=user)
    assert again.message is not None
    await fake.wait_for(lambda: bool(fake.requests_to("DELETE", deletes)))
    return again.message, release


async def test_an_accept_on_an_older_copy_of_the_challenge_is_acknowledged_before_the_redraw(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    old = await challenge(fake, alice, bob)
    game_id = (await _board_saved(bot, fake)).game_id
    board, release = await _posted_again_slowly(fake, alice)
    accept = await fake.send_click(old, f"gomoku:{game_id}:accept", user=bob)
    # The board is another message: the button is acknowledged at once, not after that
    # message's redraw (which waits for the deletion).
    await fake.wait_for(lambda: accept.callback_type is not None)
    assert accept.callback_type == 6
    assert not old.deleted
    assert board.custom_ids() == [f"gomoku:{game_id}:accept", f"gomoku:{game_id}:decline"]
    release.set()
    await fake.wait_for(lambda: board.custom_ids() == [f"gomoku:{game_id}:move"])
    assert old.deleted
    assert (await bot.service.game(game_id)).is_active


async def test_a_tap_on_an_older_copy_of_the_board_is_acknowledged_before_the_redraw(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, old = await accepted_challenge(fake, bot, alice, bob, game="tictactoe")
    board, release = await _posted_again_slowly(fake, alice)
    tap = await fake.send_click(old, f"gomoku:{game_id}:cell:1:1", user=alice)
    await fake.wait_for(lambda: tap.callback_type is not None)
    assert tap.callback_type == 6
    assert len(_enabled(board)) == 9  # not redrawn yet
    release.set()
    await fake.wait_for(lambda: len(_enabled(board)) == 8)
    assert old.deleted
    assert [str(m.point) for m in (await bot.service.game(game_id)).board.moves] == ["b2"]


async def test_restart_mid_game_carries_on_and_old_buttons_work(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        start = await fake.slash(
            "gomoku start",
            user=alice,
            options={"opponent": bob, "game": "tictactoe", "colour": "black"},
        )
        assert start.message is not None
        board = start.message
        game_id = (await _game(first, fake)).game_id
        await fake.click(board, f"gomoku:{game_id}:accept", user=bob)
        await fake.click(board, f"gomoku:{game_id}:cell:1:1", user=alice)
    # A new process on the same database; the message and its buttons are from before.
    second = make_bot()
    async with fake.running(second):
        reply = await fake.click(board, f"gomoku:{game_id}:cell:0:0", user=bob)
        assert not reply.ephemeral
        place = await fake.slash("place", user=alice, options={"cell": "c3"})
        assert "played **C3**" in place.content
        view = await second.service.game(game_id)
        assert [str(move.point) for move in view.board.moves] == ["b2", "a1", "c3"]
        await fake.wait_for(lambda: len(_enabled(board)) == 6)
        assert _enabled(board) == [
            f"gomoku:{game_id}:cell:{x}:{y}"
            for x, y in [(0, 2), (1, 2), (0, 1), (2, 1), (1, 0), (2, 0)]
        ]


async def test_two_simultaneous_places_count_once(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash(
        "gomoku start", user=alice, options={"opponent": bob, "colour": "black", "rated": False}
    )
    game_id = (await _game(bot, fake)).game_id
    challenge = fake.channel_messages()[-1]
    await fake.click(challenge, f"gomoku:{game_id}:accept", user=bob)
    first = await fake.send_slash("place", user=alice, options={"cell": "h8"})
    second = await fake.send_slash("place", user=alice, options={"cell": "j10"})
    replies = [await fake.answer(first), await fake.answer(second)]
    played = [reply for reply in replies if "played **" in reply.content]
    refused = [reply for reply in replies if "not your turn" in reply.content]
    assert len(played) == 1
    assert len(refused) == 1
    assert refused[0].ephemeral
    # The move's answer is public: it is the ping of the player to move, and only of them.
    assert not played[0].ephemeral
    assert played[0].content.startswith(f"{bob.mention}, your move")
    # It names the mover (who is not pinged): "You played" would read as the pinged player's.
    assert f"{alice.mention} played **" in played[0].content
    assert "You played" not in played[0].content
    assert played[0].message is not None
    mentions = played[0].message.allowed_mentions
    assert mentions is not None
    assert [str(u) for u in mentions["users"]] == [str(bob.id)]
    assert not mentions.get("parse")
    view = await bot.service.game(game_id)
    assert len(view.board.moves) == 1
