"""Discord's own faults under games, through the real discord.py against the fake Discord:
REST outages, a gateway that drops, threads archived, locked or deleted, permissions taken,
the bot removed from the server. No acknowledged move is lost, boards catch up, no clock runs
out while nobody can move, nothing logs a traceback."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from bot.client import GomokuBot
from bot.threads import ARCHIVE_AFTER
from engine.types import Termination
from storage.records import GameStatus
from tests.bot.conftest import BotFactory, GatedRunner, accepted_challenge, board_caught_up
from tests.clock import FakeClock
from tests.fakediscord import FakeChannel, FakeDiscord, FakeDiscordError, FakeUser, Message

MESSAGES = r"/channels/\d+/messages"


@pytest.fixture
async def bot(fake: FakeDiscord, make_bot: BotFactory) -> AsyncIterator[GomokuBot]:
    """A connected bot that retries a board Discord did not take at once, not after seconds."""
    instance = make_bot()
    async with fake.running(instance):
        instance.table.faults.first_retry_s = 0.01
        instance.table.faults.longest_retry_s = 0.05
        yield instance


async def ended_by(bot: GomokuBot, game_id: int) -> Termination | None:
    """How the game ended, as stored (None while it is on)."""
    outcome = (await bot.service.game(game_id)).outcome
    return outcome.termination if outcome is not None else None


@pytest.fixture(autouse=True)
def no_tracebacks(caplog: pytest.LogCaptureFixture) -> object:
    """Every test here: Discord's faults are logged as one line each, never a traceback."""
    caplog.set_level(logging.WARNING)
    yield None
    traced = [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert traced == []


async def _in_thread(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> tuple[int, FakeChannel, Message]:
    """Alice challenges Bob in a thread of the default channel, Bob accepts: the game, its
    thread and its board."""
    fake.allow(fake.default_channel, "create_public_threads")
    await fake.slash(
        "gomoku start", user=alice, options={"opponent": bob, "colour": "black", "rated": False}
    )
    await fake.wait_for(
        lambda: any(c.is_thread and fake.channel_messages(c) for c in _threads(fake))
    )
    (thread,) = _threads(fake)
    game_id = (await bot.service.board(thread.id)).game_id
    (board,) = fake.channel_messages(thread)
    await fake.click(board, f"gomoku:{game_id}:accept", user=bob)
    await fake.wait_for(
        lambda: any("your move" in m.content for m in fake.channel_messages(thread))
    )
    return game_id, thread, board


def _threads(fake: FakeDiscord) -> list[FakeChannel]:
    return [c for c in fake.channels.values() if c.is_thread]


async def test_a_game_thread_lives_a_week_and_is_reopened_to_show_the_result(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, thread, board = await _in_thread(fake, bot, alice, bob)
    assert thread.auto_archive_duration == ARCHIVE_AFTER == 10080
    # A quiet week: Discord archives the thread; then Alice's clock runs out.
    (archived,) = await fake.pass_time(ARCHIVE_AFTER * 60)
    assert archived is thread
    clock.advance(seconds=61)
    bot.runner.wake()
    await fake.wait_for(lambda: "on time" in board.text())
    refused = [r for r in fake.requests_to("PATCH", rf"{MESSAGES}/{board.id}$") if r.status == 400]
    assert len(refused) == 1  # 50083, then the thread was reopened and the edit went through
    assert fake.requests_to("PATCH", rf"/channels/{thread.id}$")[0].json == {"archived": False}
    assert await ended_by(bot, game_id) is Termination.TIMEOUT


async def test_an_archived_game_thread_takes_commands_once_a_member_writes_in_it(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, thread, board = await _in_thread(fake, bot, alice, bob)
    (archived,) = await fake.pass_time(ARCHIVE_AFTER * 60)  # a quiet week
    assert archived is thread
    with pytest.raises(FakeDiscordError, match="archived"):  # Discord's client offers none
        await fake.send_slash("place", user=alice, channel=thread, options={"cell": "h8"})
    await fake.member_posts(thread, alice)  # her message unarchives it
    assert not thread.archived
    reply = await fake.slash("place", user=alice, channel=thread, options={"cell": "h8"})
    assert "played **h8**" in reply.content.lower()
    await fake.wait_for(lambda: "last h8" in board.text())  # its board, edited in place
    view = await bot.service.game(game_id)
    assert view.status is GameStatus.ACTIVE
    assert [str(m.point) for m in view.board.moves] == ["h8"]
    assert bot.table.faults.behind() == frozenset()


async def test_a_locked_thread_ends_its_game_at_once_and_the_channel_is_told(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, thread, _board = await _in_thread(fake, bot, alice, bob)
    # A moderator locked it: nobody can move there, so nobody loses on time for it.
    await fake.archive_thread(thread, locked=True)
    told = f"game {game_id} ended without a result"
    await fake.wait_for(lambda: any(told in m.content for m in fake.channel_messages()))
    view = await bot.service.game(game_id)
    assert view.outcome is not None
    assert view.outcome.termination is Termination.ABANDONED
    clock.advance(seconds=61)
    await bot.runner.passed(2)
    assert (await bot.service.game(game_id)).outcome == view.outcome


async def test_a_thread_result_line_discord_did_not_take_is_sent_once_it_answers(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, thread, board = await _in_thread(fake, bot, alice, bob)
    # The parent channel's messages fail; the thread's board takes edits.
    outage = fake.outage(rf"/channels/{fake.default_channel.id}/messages")
    clock.advance(seconds=61)
    bot.runner.wake()
    await fake.wait_for(lambda: "on time" in board.text())
    await fake.wait_for(lambda: outage.refused > 1)  # the line, then the catch-up's first try
    assert bot.table.faults.paused()

    def lines() -> list[Message]:
        return [m for m in fake.channel_messages() if f"<#{thread.id}>" in m.content]

    assert lines() == []
    outage.end()
    await fake.wait_for(lambda: len(lines()) == 1)
    await bot.table.faults.clocks_running()
    (line,) = lines()
    assert "on time" in line.content
    assert line.channel_id == fake.default_channel.id
    await fake.wait_for(lambda: thread.archived)
    assert await ended_by(bot, game_id) is Termination.TIMEOUT


async def test_a_deleted_thread_ends_its_game_and_the_channel_is_told(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, thread, _board = await _in_thread(fake, bot, alice, bob)
    await fake.delete_channel(thread)
    await fake.wait_for(lambda: any("thread is gone" in m.content for m in fake.channel_messages()))
    line = next(m for m in fake.channel_messages() if "thread is gone" in m.content)
    assert f"game {game_id} ended without a result" in line.content
    assert line.allowed_mentions == {"parse": []}
    view = await bot.service.game(game_id)
    assert view.status is GameStatus.FINISHED
    assert view.outcome is not None
    assert view.outcome.termination is Termination.ABANDONED
    # /place in the channel no longer points to the deleted thread.
    reply = await fake.slash("place", user=alice, options={"cell": "h8"})
    assert reply.ephemeral
    assert f"<#{thread.id}>" not in reply.content


async def test_view_channel_taken_mid_game_ends_it_quietly(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, board = await accepted_challenge(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    await board_caught_up(fake, bot, game_id)
    fake.deny(fake.default_channel, "view_channel")
    clock.advance(seconds=61)
    bot.runner.wake()
    await fake.wait_for(
        lambda: any(r.status == 403 for r in fake.requests_to("PATCH", rf"{MESSAGES}/{board.id}$"))
    )
    view = await bot.service.game(game_id)
    assert view.winner is not None
    assert view.winner.user_id == alice.id  # Bob's clock ran out; the result stands


async def test_the_bot_removed_from_the_server_ends_its_games(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, _board = await accepted_challenge(fake, bot, alice, bob)
    ended = asyncio.Event()
    bot.service.subscribe(lambda event: ended.set() if event.game.is_over else None)
    await fake.remove_bot()
    async with asyncio.timeout(10):
        await ended.wait()
    assert await ended_by(bot, game_id) is Termination.ABANDONED


async def test_an_outage_loses_no_move_and_the_board_catches_up(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, board = await accepted_challenge(fake, bot, alice, bob)
    outage = fake.outage(MESSAGES)  # posts, edits and deletes of channel messages: 503
    cells = [("h8", "i9"), ("h9", "i10"), ("h10", "i11")]
    for black, white in cells:
        for user, cell in ((alice, black), (bob, white)):
            reply = await fake.slash("place", user=user, options={"cell": cell})
            assert f"played **{cell}**" in reply.content.lower()
            assert "Something went wrong" not in reply.content
    assert outage.refused > 0
    assert bot.table.faults.behind() == {game_id}
    back = time.monotonic()
    outage.end()
    await board_caught_up(fake, bot, game_id)
    assert time.monotonic() - back < 10.0
    view = await bot.service.game(game_id)
    assert [str(m.point) for m in view.board.moves] == [c for pair in cells for c in pair]
    boards = [m for m in fake.channel_messages() if m.embeds and m.buttons()]
    assert boards == [board]  # edited, never posted twice
    assert bot.table.faults.outages == 1
    assert bot.table.faults.behind() == frozenset()


async def test_no_game_is_lost_on_time_while_discord_is_down(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, board = await accepted_challenge(fake, bot, alice, bob)
    outage = fake.outage(r"/channels/")
    clock.advance(seconds=50)  # the warning is due: Discord does not take it
    bot.runner.wake()
    await fake.wait_for(lambda: outage.refused > 0)
    await fake.wait_for(lambda: bot.table.faults.paused())
    clock.advance(seconds=25)  # 75 s in all: past the deadline, during the outage
    bot.runner.wake()
    outage.end()
    await bot.table.faults.clocks_running()
    view = await bot.service.game(game_id)
    assert view.status is GameStatus.ACTIVE
    assert view.deadline is not None
    assert view.deadline > clock.now  # moved on by the outage's length
    reply = await fake.slash("place", user=alice, options={"cell": "h8"})
    assert "played **h8**" in reply.content.lower()
    await board_caught_up(fake, bot, game_id)
    assert "h8" in board.text() or "1 move" in board.text()


async def test_a_move_while_the_clocks_stand_still_is_not_late(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    """REST down, interaction callbacks working: a /place past the deadline as the wall
    clock reads it is a move, not a loss on time, and so is one after Discord is back but
    before the clocks were moved on."""
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, _board = await accepted_challenge(fake, bot, alice, bob)
    clock.advance(seconds=30)
    outage = fake.outage(r"/channels/")
    reply = await fake.slash("place", user=alice, options={"cell": "h8"})
    assert "played **h8**" in reply.content.lower()
    await fake.wait_for(bot.table.faults.paused)  # her board edit failed: the clocks stop
    stopped = bot.table.faults.stopped_at()
    assert stopped is not None
    clock.advance(seconds=90)  # Bob's minute is past on the wall clock
    reply = await fake.slash("place", user=bob, options={"cell": "i9"})
    assert "played **i9**" in reply.content.lower()
    clock.advance(seconds=90)
    held = fake.hold("PATCH", MESSAGES)  # Discord is back, the catch-up not through yet
    edits = len(fake.requests_to("PATCH", MESSAGES))
    outage.end()
    await fake.wait_for(lambda: len(fake.requests_to("PATCH", MESSAGES)) > edits)
    assert bot.table.faults.paused()
    reply = await fake.slash("place", user=alice, options={"cell": "h9"})
    assert "played **h9**" in reply.content.lower()
    held.set()
    await bot.table.faults.clocks_running()
    view = await bot.service.game(game_id)
    assert view.status is GameStatus.ACTIVE
    assert [str(m.point) for m in view.board.moves] == ["h8", "i9", "h9"]
    assert view.deadline is not None
    assert view.deadline > clock.now  # Bob's clock: moved on by the outage


async def test_an_outage_given_back_warns_nobody_twice_and_keeps_the_turn(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, _board = await accepted_challenge(fake, bot, alice, bob)
    clock.advance(seconds=5)
    other = fake.add_channel("second-board")
    carol, dave = fake.add_user("carol"), fake.add_user("dave")
    start = await fake.slash(
        "gomoku start",
        user=carol,
        channel=other,
        options={"opponent": dave, "colour": "black", "rated": False},
    )
    assert start.message is not None
    other_id = (await bot.service.board(other.id)).game_id
    await fake.click(start.message, f"gomoku:{other_id}:accept", user=dave)

    def warnings() -> list[Message]:
        return [m for m in fake.channel_messages() if "your time runs out" in m.content]

    clock.advance(seconds=45)  # 50 s into Alice's minute: she is warned
    bot.runner.wake()
    await fake.wait_for(lambda: len(warnings()) == 1)
    before = await bot.service.game(game_id)
    assert before.record.warning_sent

    outage = fake.outage(MESSAGES)
    clock.advance(seconds=5)  # Carol's warning is due: Discord does not take it
    bot.runner.wake()
    await fake.wait_for(lambda: bot.table.faults.paused())
    clock.advance(seconds=30)
    outage.end()
    await bot.table.faults.clocks_running()
    passes = bot.runner.passes
    await bot.runner.passed(2)  # the clock task ran with the moved deadlines
    assert bot.runner.passes >= passes + 2

    after = await bot.service.game(game_id)
    assert after.status is GameStatus.ACTIVE
    assert after.version == before.version  # the same turn: a panel opened before still works
    assert after.record.warning_sent
    assert before.deadline is not None
    assert after.deadline is not None
    given_back = after.deadline - before.deadline  # the outage: 30 s, and the time it took
    assert timedelta(seconds=30) <= given_back < timedelta(seconds=31)
    assert [m.content.split(",")[0] for m in warnings()] == [f"<@{alice.id}>"]  # not again
    reply = await fake.slash("place", user=alice, options={"cell": "h8"})
    assert "played **h8**" in reply.content.lower()


async def test_the_gateway_drops_and_resumes_mid_game(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, _board = await accepted_challenge(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    await fake.drop_gateway()
    await fake.slash("place", user=bob, options={"cell": "i9"})
    await fake.drop_gateway(invalidate=True)
    await fake.slash("place", user=alice, options={"cell": "h9"})
    assert fake.resumes == 1
    assert fake.identifies == 2
    await board_caught_up(fake, bot, game_id)
    view = await bot.service.game(game_id)
    assert [str(m.point) for m in view.board.moves] == ["h8", "i9", "h9"]


async def test_a_member_who_leaves_leaves_the_game_to_his_clock(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, board = await accepted_challenge(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    # The bot has no Server Members intent: Discord does not tell it that Bob left.
    assert await fake.remove_member(bob) == 0
    reply = await fake.slash("place", user=alice, options={"cell": "h9"})
    assert "not your turn" in reply.content.lower()
    view = await bot.service.game(game_id)
    assert view.status is GameStatus.ACTIVE  # it waits: his clock (or the idle time) decides
    clock.advance(seconds=61)
    bot.runner.wake()
    await fake.wait_for(lambda: "on time" in board.text())
    view = await bot.service.game(game_id)
    assert view.winner is not None
    assert view.winner.user_id == alice.id


async def test_a_reply_whose_token_expired_is_said_in_the_games_channel(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    ai = GatedRunner()
    bot = make_bot(ai=ai, ai_reply_wait=0.05)
    async with fake.running(bot):
        await fake.slash("gomoku start", user=alice, options={"colour": "black"})
        record = await fake.send_slash("place", user=alice, options={"cell": "h8"})
        await fake.wait_for(lambda: record.callback_type == 5)  # "thinking..."
        fake.expire(record)  # the AI outlived the token's 15 minutes
        ai.release.set()
        await fake.wait_for(
            lambda: any("The AI answered" in m.content for m in fake.channel_messages())
        )
    said = next(m for m in fake.channel_messages() if "The AI answered" in m.content)
    assert said.content.startswith(f"<@{alice.id}> You played **H8**.")
    assert said.allowed_mentions is not None
    assert [str(u) for u in said.allowed_mentions["users"]] == [str(alice.id)]
    refused = fake.requests_to("PATCH", rf"/webhooks/\d+/{record.token}/messages/@original")
    assert [r.status for r in refused] == [401]


async def test_a_board_behind_its_game_is_redrawn_at_start_up(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        first.table.faults.first_retry_s = 3600.0  # it stops before it would retry
        game_id, board = await accepted_challenge(fake, first, alice, bob)
        await board_caught_up(fake, first, game_id)
        outage = fake.outage(rf"{MESSAGES}/{board.id}$", method="PATCH")
        reply = await fake.slash("place", user=alice, options={"cell": "h8"})
        assert "played **h8**" in reply.content.lower()
        await fake.wait_for(lambda: outage.refused == 1)
    outage.end()
    assert "1 move" not in board.text()  # the board is a move behind the game
    # A new process on the same database: it redraws the board without anyone moving.
    second = make_bot()
    async with fake.running(second):
        await board_caught_up(fake, second, game_id)
    assert "last h8" in board.text()


async def test_a_move_whose_answer_discord_refused_is_kept_and_shown_later(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, board = await accepted_challenge(fake, bot, alice, bob)
    await board_caught_up(fake, bot, game_id)
    outage = fake.outage()  # everything, the interaction callbacks too
    record = await fake.send_slash("place", user=alice, options={"cell": "h8"})
    await fake.wait_for(lambda: outage.refused >= 2)  # the answer, then the report of it
    assert record.callback_type is None  # Discord took no answer: the player saw it fail
    outage.end()
    await board_caught_up(fake, bot, game_id)  # the stored move shows, Bob is pinged
    assert "last h8" in board.text()


async def test_boards_drawn_together_are_noted_in_one_write_by_a_stop_at_the_latest(
    fake: FakeDiscord,
    make_bot: BotFactory,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = make_bot()
    notes: list[dict[int, int]] = []
    async with fake.running(first):
        first.table.note_every = 3600.0  # nothing is noted before the bot stops
        mark_shown = first.service.mark_shown

        async def noted(shown: dict[int, int]) -> None:
            notes.append(dict(shown))
            await mark_shown(shown)

        monkeypatch.setattr(first.service, "mark_shown", noted)
        game_id, _ = await accepted_challenge(fake, first, alice, bob)
        await board_caught_up(fake, first, game_id)
        await fake.slash("place", user=alice, options={"cell": "h8"})
        await board_caught_up(fake, first, game_id)
        assert notes == []
        assert [g.game_id for g in await first.service.unshown_games()] == [game_id]
        version = (await first.service.game(game_id)).version
    assert notes == [{game_id: version}]  # the challenge, its acceptance, a move: one write
    second = make_bot()
    async with fake.running(second):
        assert await second.service.unshown_games() == []  # nothing to redraw
