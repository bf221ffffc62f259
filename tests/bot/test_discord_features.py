"""Undo, resign, hint, export, board messages, settings, clocks and start-up resumption."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

import pytest

from bot import transformers
from bot.client import GomokuBot
from bot.core.ai import AIError, AIMove, AIRequest
from bot.core.service import GameService
from bot.core.service.states import TimeoutEvent
from storage.records import GameRecord, GameStatus
from tests.bot.conftest import BotFactory, GatedRunner, accepted_challenge, challenge
from tests.clock import FakeClock
from tests.fakediscord import FakeDiscord, FakeUser
from tests.polling import until
from tests.runners import CentreRunner, FlakyRunner


async def _moves(bot: GomokuBot, game_id: int) -> list[str]:
    return [str(move.point) for move in (await bot.service.game(game_id)).board.moves]


async def test_undo_against_the_ai_takes_back_the_pair(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    reply = await fake.slash("place", user=alice, options={"cell": "a1"})
    assert "The AI answered **H8**" in reply.content
    undo = await fake.slash("gomoku undo", user=alice)
    assert undo.ephemeral
    assert "Took back 2 moves" in undo.content
    assert await _moves(bot, game_id) == []


async def test_undo_against_a_person_needs_consent(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, _ = await accepted_challenge(fake, bot, alice, bob)
    await fake.slash("place", user=alice, options={"cell": "h8"})
    request = await fake.slash("gomoku undo", user=alice)
    assert not request.ephemeral
    assert bob.mention in request.content
    assert request.message is not None
    mentions = request.message.allowed_mentions
    assert mentions is not None
    assert mentions["parse"] == []
    assert [int(user) for user in mentions["users"]] == [bob.id]
    own = await fake.click(request.message, f"gomoku:{game_id}:undo:yes", user=alice)
    assert own.ephemeral
    assert own.content == (
        "You asked for this undo, so your opponent decides. Press Refuse to withdraw it."
    )
    assert await _moves(bot, game_id) == ["h8"]
    allowed = await fake.click(request.message, f"gomoku:{game_id}:undo:yes", user=bob)
    assert allowed.message is request.message
    assert "allowed" in request.message.content
    assert request.message.buttons() == []
    assert await _moves(bot, game_id) == []


async def test_resign_asks_first(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, board = await accepted_challenge(fake, bot, alice, bob)
    confirm = await fake.slash("gomoku resign", user=bob)
    assert confirm.ephemeral
    assert (await bot.service.game(game_id)).is_active
    assert confirm.message is not None
    done = await fake.click(confirm.message, f"gomoku:{game_id}:resign", user=bob)
    assert "resigned" in done.content
    view = await bot.service.game(game_id)
    assert view.status is GameStatus.FINISHED
    assert view.winner is not None
    assert view.winner.user_id == alice.id
    await fake.wait_for(lambda: "resignation" in board.text())


async def test_hint_and_export(fake: FakeDiscord, bot: GomokuBot, alice: FakeUser) -> None:
    await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    hint = await fake.slash("gomoku hint", user=alice)
    assert hint.ephemeral
    assert "suggests **H8**" in hint.content
    await fake.slash("place", user=alice, options={"cell": "a1"})
    # The game under way has a replay too (its id is on the board), with the download under it.
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    replay = await fake.slash("gomoku history", user=alice, options={"game": game_id})
    assert replay.ephemeral
    assert replay.message is not None
    export = await fake.click(replay.message, f"gomoku:{game_id}:download", user=alice)
    assert export.ephemeral
    assert "a1 h8" in export.content
    sgf, gif = export.attachments
    assert gif.filename.endswith(".gif")
    assert gif.data.startswith(b"GIF8")
    assert sgf.filename.endswith(".sgf")
    assert sgf.data.startswith(b"(;")
    assert b"GM[4]" in sgf.data


async def test_board_is_reposted_on_request_and_when_old(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser
) -> None:
    start = await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    assert start.message is not None
    first = start.message
    again = await fake.slash("gomoku board", user=alice)
    assert not again.ephemeral
    assert again.message is not None
    await fake.wait_for(lambda: first.deleted)
    game = await bot.service.board(fake.default_channel.id)
    assert game.record.message_id == again.message.id
    await fake.slash("place", user=alice, options={"cell": "a1"})
    assert again.message.edits >= 1  # a fresh message is edited in place
    clock.advance(hours=2)
    await fake.slash("place", user=alice, options={"cell": "a2"})
    await fake.wait_for(lambda: again.message is not None and again.message.deleted)
    (current,) = [m for m in fake.channel_messages() if m.embeds]
    assert current.id != again.message.id
    assert current.interaction_id is None  # posted to the channel, not as a reply


async def test_a_bystander_gets_the_board_privately(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    start = await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    assert start.message is not None
    await fake.slash("place", user=alice, options={"cell": "h8"})
    copy = await fake.slash("gomoku board", user=bob)
    assert copy.ephemeral  # the channel's board stays where it is
    assert "AI (medium)" in copy.content
    assert len(copy.content.splitlines()) > 9  # the status line and the board's rows
    assert not start.message.deleted
    game = await bot.service.board(fake.default_channel.id)
    assert game.record.message_id == start.message.id


async def test_settings_change_the_look_of_boards(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    reply = await fake.slash("gomoku-admin settings", user=fake.owner, options={"look": "image"})
    assert reply.ephemeral
    assert "image" in reply.text()
    start = await fake.slash("gomoku start", user=alice, options={"size": 9, "colour": "black"})
    assert start.attachments[0].filename == "board.png"
    assert start.attachments[0].data.startswith(b"\x89PNG")
    assert "\N{HEAVY PLUS SIGN}" not in start.text()  # no emoji board beside the image
    games = await fake.create_channel("games")
    for _ in range(2):  # explicit: allowing twice keeps it allowed
        allowed = await fake.slash(
            "gomoku-admin settings", user=fake.owner, options={"allow_channel": games}
        )
        assert f"<#{games.id}>" in allowed.text()
    for _ in range(2):
        removed = await fake.slash(
            "gomoku-admin settings", user=fake.owner, options={"disallow_channel": games}
        )
        assert f"<#{games.id}>" not in removed.text()
    assert (await bot.service.settings(fake.guild_id)).allowed_channel_ids == frozenset()


async def test_turn_clock_warns_then_ends_the_game(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
    game_id, board = await accepted_challenge(fake, bot, alice, bob)
    clock.advance(seconds=50)
    bot.runner.wake()
    await fake.wait_for(lambda: any("time runs out" in m.content for m in fake.channel_messages()))
    warning = next(m for m in fake.channel_messages() if "time runs out" in m.content)
    assert alice.mention in warning.content
    assert warning.allowed_mentions is not None
    assert [str(u) for u in warning.allowed_mentions["users"]] == [str(alice.id)]  # only her
    assert not warning.allowed_mentions.get("parse")
    clock.advance(seconds=20)
    bot.runner.wake()
    await fake.wait_for(lambda: "on time" in board.text())
    view = await bot.service.game(game_id)
    assert view.winner is not None
    assert view.winner.user_id == bob.id


async def test_challenge_expires(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku start", user=alice, options={"opponent": bob, "rated": False})
    challenge = fake.channel_messages()[-1]
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    clock.advance(minutes=11)
    bot.runner.wake()
    await fake.wait_for(lambda: challenge.buttons() == [])
    assert (await bot.service.game(game_id)).status is GameStatus.EXPIRED


async def test_connect_four_columns(fake: FakeDiscord, bot: GomokuBot, alice: FakeUser) -> None:
    start = await fake.slash(
        "gomoku start", user=alice, options={"game": "connect4", "colour": "black"}
    )
    assert start.message is not None
    board = start.message
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    assert [len(row["components"]) for row in board.components] == [4, 3]
    await fake.click(board, f"gomoku:{game_id}:drop:0", user=alice)
    await fake.wait_for(lambda: board.edits >= 2)
    typed = await fake.slash("place", user=alice, options={"cell": "1"})
    assert "played **column 1**" in typed.content
    moves = await _moves(bot, game_id)
    assert moves[0] == "a1"
    assert moves[2] == "a2"


async def test_autocomplete_suggests_matching_points(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    await fake.slash("place", user=alice, options={"cell": "a1"})
    choices = await fake.autocomplete("place", "cell", user=alice, options={"cell": "h"})
    assert 0 < len(choices) <= 25
    assert all(choice["value"].startswith("h") for choice in choices)
    assert "h8" not in [choice["value"] for choice in choices]  # the AI's stone is there
    everything = await fake.autocomplete("place", "cell", user=alice, options={"cell": ""})
    assert len(everything) == 25


async def test_suggestions_slow_to_find_are_answered_with_none_in_time(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An autocomplete cannot be deferred: one that would miss Discord's 3 s answers with no
    choices (the player types the point) instead of never."""
    await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    release = asyncio.Event()
    stored = bot.service.repository.open_game_in_channel

    async def slow(channel_id: int) -> GameRecord | None:
        await release.wait()
        return await stored(channel_id)

    monkeypatch.setattr(transformers, "SUGGEST_WAIT", 0.05)
    monkeypatch.setattr(bot.service.repository, "open_game_in_channel", slow)
    assert await fake.autocomplete("place", "cell", user=alice, options={"cell": "h"}) == []
    release.set()
    choices = await fake.autocomplete("place", "cell", user=alice, options={"cell": "h"})
    assert 0 < len(choices) <= 25


async def test_rate_limited_edits_are_retried(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    _, board = await accepted_challenge(fake, bot, alice, bob)
    fake.rate_limit("PATCH", r"/channels/\d+/messages/\d+", times=2, retry_after=0.02)
    reply = await fake.slash("place", user=alice, options={"cell": "h8"})
    assert "played **" in reply.content
    await fake.wait_for(lambda: "last h8" in board.text())
    statuses = [r.status for r in fake.requests_to("PATCH", r"/channels/\d+/messages/")]
    assert statuses[-3:] == [429, 429, 200]


class _StuckRunner(GatedRunner):
    """Thinks until released, then fails: the process dies mid-search."""

    async def choose_move(self, request: AIRequest) -> AIMove:
        await super().choose_move(request)
        raise AIError("stopped")


async def test_due_ai_move_is_made_after_a_restart(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    stuck = _StuckRunner()
    first = make_bot(ai=stuck)
    async with fake.running(first):
        record = await fake.send_slash("gomoku start", user=alice, options={"colour": "white"})
        await stuck.started.wait()
        await fake.wait_for(lambda: record.original is not None and not record.original.loading)
    stuck.release.set()
    board = record.original
    assert board is not None
    edits = board.edits
    second = make_bot()
    async with fake.running(second):
        await fake.wait_for(lambda: board.edits > edits)
        view = await second.service.board(fake.default_channel.id)
        assert [str(move.point) for move in view.board.moves] == ["h8"]
        assert view.record.message_id == board.id


async def test_challenging_the_bot_plays_the_ai(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    start = await fake.slash(
        "gomoku start", user=alice, options={"opponent": fake.bot_user, "colour": "black"}
    )
    assert start.custom_ids() == ["gomoku:1:move"]  # no challenge to accept, a game to play
    view = await bot.service.board(fake.default_channel.id)
    assert view.is_active
    assert view.ai_level == "medium"


async def test_deadline_task_retries_a_failed_ai_move(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock, alice: FakeUser
) -> None:
    runner = FlakyRunner(CentreRunner(), failures=1)
    bot = make_bot(ai=runner, resume_every=600.0)
    async with fake.running(bot):
        start = await fake.slash("gomoku start", user=alice, options={"colour": "black"})
        assert start.message is not None
        board = start.message
        reply = await fake.slash("place", user=alice, options={"cell": "a1"})
        assert "The AI could not move" in reply.content
        view = await bot.service.board(fake.default_channel.id)
        assert view.is_ai_turn
        assert runner.tries == 1
        # The clock task starts once the bot is ready, beside the test's commands: a pass of
        # it has begun its ten minutes before the clock moves on (else they would count from
        # after the move).
        await bot.runner.passed()
        # Ten minutes on, the deadline task resumes the game: the AI moves without a restart.
        clock.advance(minutes=11)
        await fake.wait_for(lambda: "2 moves" in board.text())
        view = await bot.service.board(fake.default_channel.id)
        assert [str(move.point) for move in view.board.moves] == ["a1", "h8"]
        assert runner.tries == 2


def _on_each_pass(
    monkeypatch: pytest.MonkeyPatch, after: Callable[[int], None] = lambda n: None
) -> list[int]:
    """``after(n)`` runs once the clock task's pass n has read the games and planned. Returns
    a list whose one item counts the passes begun: a pass begins on the clock task's first turn
    once woken, before it reads anything."""
    passes = [0]
    plan = GameService.tick_and_plan

    async def counted(service: GameService) -> tuple[list[TimeoutEvent], datetime | None]:
        passes[0] += 1
        planned = await plan(service)
        after(passes[0])
        return planned

    monkeypatch.setattr(GameService, "tick_and_plan", counted)
    return passes


async def _round_trip(fake: FakeDiscord) -> None:
    """A command to the bot and its answer: many turns of the bot's loop, over real sockets.
    A clock task woken before it would have begun its pass by the end."""
    assert (await fake.slash("gomoku help", user=fake.owner)).message is not None


async def _reach(bot: GomokuBot, n: int) -> None:
    """Wait (5 s at most) until the clock task has finished ``n`` passes."""

    async def count() -> int:
        return bot.runner.passes

    async with asyncio.timeout(5):
        await until(count, lambda seen: seen >= n)


async def test_a_wake_up_during_a_deadline_pass_starts_another(
    fake: FakeDiscord, make_bot: BotFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The clock task sleeps for an hour unless woken: a deadline set while a pass was
    # reading the games (a move, a challenge) must not wait for the next poll.
    bot = make_bot(deadline_poll=3600.0)

    def wake_during_the_first(n: int) -> None:
        if n == 1:
            bot.runner.wake()

    begun = _on_each_pass(monkeypatch, wake_during_the_first)
    async with fake.running(bot):
        await _reach(bot, 2)
        await _round_trip(fake)
        assert begun == [2]  # the wake-up started one pass, not one after another
        assert bot.runner.passes == 2


async def test_a_clock_due_after_the_planned_pass_does_not_wake_the_deadline_task(
    fake: FakeDiscord,
    make_bot: BotFactory,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each pass reads every open game. The task plans its next pass within resume_every
    # (60 s): a challenge expiring in 10 minutes is read then; a turn warned after 48 s is due
    # before it, and wakes the task.
    bot = make_bot(deadline_poll=3600.0)
    begun = _on_each_pass(monkeypatch)

    async def passes_begun_by_now() -> int:
        await _round_trip(fake)
        return begun[0]

    async with fake.running(bot):
        await _reach(bot, 1)
        await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
        board = await challenge(fake, alice, bob)
        assert await passes_begun_by_now() == 1
        game_id = (await bot.service.board(fake.default_channel.id)).game_id
        await fake.click(board, f"gomoku:{game_id}:accept", user=bob)
        await _reach(bot, 2)
        # Black's first move: the next turn is due no earlier than the pass just planned.
        await fake.slash("place", user=alice, options={"cell": "h8"})
        assert await passes_begun_by_now() == 2


async def test_a_move_after_the_deadline_loses_on_time(
    fake: FakeDiscord,
    make_bot: BotFactory,
    clock: FakeClock,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The deadline task stands still from the clock's jump on: the late move itself must end
    # the game. A pass that read the games after the jump would end it on time first, so
    # every pass that begins after it waits at the gate, before it reads anything.
    bot = make_bot(deadline_poll=3600.0)
    frozen = asyncio.Event()
    never = asyncio.Event()
    reading = [0]  # the passes past the gate
    plan = GameService.tick_and_plan

    async def gated(service: GameService) -> tuple[list[TimeoutEvent], datetime | None]:
        if frozen.is_set():
            await never.wait()
        reading[0] += 1
        return await plan(service)

    monkeypatch.setattr(GameService, "tick_and_plan", gated)
    async with fake.running(bot):
        await _reach(bot, 1)
        await fake.slash("gomoku-admin settings", user=fake.owner, options={"turn_minutes": 1})
        game_id, board = await accepted_challenge(fake, bot, alice, bob)
        await fake.slash("place", user=alice, options={"cell": "h8"})
        frozen.set()
        # every pass past the gate has finished reading before the clock jumps
        await _reach(bot, reading[0])
        clock.advance(seconds=61)
        late = await fake.slash("place", user=bob, options={"cell": "i9"})
        assert late.ephemeral
        assert "lost the game on time" in late.content
        assert "on time" in board.text()  # the board shows the end
        view = await bot.service.game(game_id)
        assert view.winner is not None
        assert view.winner.user_id == alice.id
        assert [str(move.point) for move in view.board.moves] == ["h8"]
