"""Phone play through the real discord.py against the fake Discord (issue 10): tap to play,
turn pings, rematches, Connect Four's one notation, and replies a restart interrupted."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from bot.client import GomokuBot
from bot.core.ai import AIMove, AIRequest
from engine.board import Board
from engine.types import Color, Point, Rule, Termination
from storage.records import GameStatus
from tests.bot.conftest import (
    BotFactory,
    accepted_challenge,
    board_caught_up,
    no_changes,
    record_calls,
)
from tests.fakediscord import FakeDiscord, FakeUser, Message, Reply
from tests.polling import until

_TAP = re.compile(r"gomoku:\d+:tap:(\d+):(\d+):\d+")


def _taps(panel: Message) -> dict[Point, dict[str, Any]]:
    found = {}
    for button in panel.buttons():
        match = _TAP.fullmatch(button["custom_id"])
        if match:
            found[Point(int(match[1]), int(match[2]))] = button
    return found


def _arrow(panel: Message, direction: str) -> dict[str, Any]:
    return next(b for b in panel.buttons() if f":pan:{direction}:" in b["custom_id"])


async def _open(fake: FakeDiscord, board: Message, game_id: int, user: FakeUser) -> Message:
    reply = await fake.click(board, f"gomoku:{game_id}:move", user=user)
    assert reply.ephemeral
    assert reply.message is not None
    assert reply.message.layout  # Components V2: 25 points and a row of arrows
    return reply.message


async def _reach(fake: FakeDiscord, panel: Message, point: Point, user: FakeUser) -> None:
    """Pan ``panel`` with its arrows until ``point`` is one of its buttons."""
    for _ in range(20):
        shown = _taps(panel)
        if point in shown:
            return
        xs = [p.x for p in shown]
        ys = [p.y for p in shown]
        if point.x < min(xs):
            direction = "l"
        elif point.x > max(xs):
            direction = "r"
        elif point.y < min(ys):
            direction = "d"
        else:
            direction = "u"
        edits = panel.edits
        await fake.click(panel, _arrow(panel, direction)["custom_id"], user=user)
        assert panel.edits == edits + 1  # the panel itself moved
    raise AssertionError(f"{point} never came into the panel")


async def _tap(fake: FakeDiscord, board: Message, game_id: int, user: FakeUser, text: str) -> Reply:
    """Play ``text`` with taps only: Move, pan as needed, tap the point."""
    point = Point.parse(text)
    panel = await _open(fake, board, game_id, user)
    await _reach(fake, panel, point, user)
    button = _taps(panel)[point]
    assert button["label"] == text.upper()
    return await fake.click(panel, button["custom_id"], user=user)


def _pings(fake: FakeDiscord) -> list[Message]:
    return [m for m in fake.channel_messages() if "your move in" in m.content]


async def _challenge(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser, **options: object
) -> tuple[int, Message]:
    game_id, board = await accepted_challenge(fake, bot, alice, bob, **options)
    await board_caught_up(fake, bot, game_id)
    return game_id, board


async def test_a_game_between_people_won_by_taps_only_with_one_ping_at_a_time(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, board = await _challenge(fake, bot, alice, bob, size=9)
    for black, white in [("a1", "a9"), ("b1", "b9"), ("c1", "c9"), ("d1", "d9")]:
        for user, other, text in [(alice, bob, black), (bob, alice, white)]:
            reply = await _tap(fake, board, game_id, user, text)
            assert reply.ephemeral
            assert f"played **{text.upper()}**" in reply.text()
            assert reply.message is not None
            assert reply.message.buttons() == []  # nothing left to tap until the next turn
            await board_caught_up(fake, bot, game_id)
            live = [m for m in _pings(fake) if not m.deleted]
            assert len(live) == 1  # the previous ping was replaced, not added to
            assert live[0].content.startswith(other.mention)
            assert live[0].allowed_mentions is not None
            assert [str(u) for u in live[0].allowed_mentions["users"]] == [str(other.id)]
            assert not live[0].allowed_mentions.get("parse")
    await _tap(fake, board, game_id, alice, "e1")
    view = await bot.service.game(game_id)
    assert view.outcome is not None
    assert view.outcome.termination is Termination.FIVE
    assert view.winner is not None
    assert view.winner.user_id == alice.id
    await fake.wait_for(lambda: all(m.deleted for m in _pings(fake)))  # no ping for a won game
    await fake.wait_for(lambda: f"gomoku:{game_id}:rematch" in board.custom_ids())


async def _big_game_against_the_ai(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> tuple[Message, int]:
    """Alice starts a 20x20 game as Black against the AI: its board message and id."""
    start = await fake.slash("gomoku start", user=alice, options={"size": 20, "colour": "black"})
    assert start.message is not None
    return start.message, (await bot.service.board(fake.default_channel.id)).game_id


async def test_against_the_ai_by_taps_on_a_20x20_board_with_no_pings(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    board, game_id = await _big_game_against_the_ai(fake, bot, alice)
    panel = await _open(fake, board, game_id, alice)
    shown = sorted(_taps(panel))
    assert (shown[0], shown[-1]) == (Point(8, 8), Point(12, 12))  # the centre of an empty board
    assert "columns i-m, rows 9-13" in panel.text()
    await _reach(fake, panel, Point(0, 0), alice)
    assert _arrow(panel, "l").get("disabled")
    assert _arrow(panel, "d").get("disabled")
    assert not _arrow(panel, "r").get("disabled")
    assert not _arrow(panel, "u").get("disabled")
    for text in ["a1", "b1", "c1", "d1"]:
        reply = await _tap(fake, board, game_id, alice, text)
        back = reply.message
        assert back is not None
        # Against the AI the panel comes straight back for the next move, where the action is.
        await fake.wait_for(lambda back=back: bool(_taps(back)))  # type: ignore[misc]
    # Black has four on row 1: the panel opens on the winning point.
    panel = await _open(fake, board, game_id, alice)
    assert Point(4, 0) in _taps(panel)
    await fake.click(panel, _taps(panel)[Point(4, 0)]["custom_id"], user=alice)
    view = await bot.service.game(game_id)
    assert view.winner is not None
    assert view.winner.user_id == alice.id
    assert _pings(fake) == []
    await fake.wait_for(lambda: f"gomoku:{game_id}:rematch" in board.custom_ids())
    again = next(b for b in board.buttons() if b["custom_id"].endswith(":rematch"))
    assert again["label"] == "Play again"


async def test_stale_and_foreign_taps_are_refused_privately(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    carol = fake.add_user("carol")
    game_id, board = await _challenge(fake, bot, alice, bob, size=9)
    panel = await _open(fake, board, game_id, alice)
    before = await bot.service.game(game_id)
    for user, words in [(bob, "not your turn"), (carol, "not playing")]:
        with no_changes(fake):
            refused = await fake.click(board, f"gomoku:{game_id}:move", user=user)
        assert refused.ephemeral
        assert words in refused.content
        tap = next(iter(_taps(panel).values()))["custom_id"]
        with no_changes(fake):
            refused = await fake.click(panel, tap, user=user)  # someone else's panel
        assert refused.ephemeral
        assert words in refused.content
    assert (await bot.service.game(game_id)).version == before.version
    # Alice moves with /place and Bob answers: the panel she opened first is now stale.
    await fake.slash("place", user=alice, options={"cell": "e5"})
    await fake.slash("place", user=bob, options={"cell": "a9"})
    await board_caught_up(fake, bot, game_id)
    before = await bot.service.game(game_id)
    free = next(p for p, b in _taps(panel).items() if not b.get("disabled") and p != Point(4, 4))
    for custom_id in [_taps(panel)[free]["custom_id"], _arrow(panel, "u")["custom_id"]]:
        edits = panel.edits
        with no_changes(fake):
            refused = await fake.click(panel, custom_id, user=alice)
        assert refused.ephemeral
        assert "moved on since this panel" in refused.content
        assert panel.edits == edits
    after = await bot.service.game(game_id)
    assert after.version == before.version
    assert after.board[free] is None


async def test_renju_forbidden_points_are_disabled_for_black(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, board = await _challenge(fake, bot, alice, bob, rule="renju")
    moves = ["g8", "a1", "h8", "a3", "i9", "a5", "i10", "a7"]
    for index, text in enumerate(moves):
        user = alice if index % 2 == 0 else bob
        await fake.slash("place", user=user, options={"cell": text})
    position = Board.from_moves(" ".join(moves), rule=Rule.RENJU)
    assert Point.parse("i8") in position.forbidden_points()  # a three-three for Black
    panel = await _open(fake, board, game_id, alice)
    await _reach(fake, panel, Point.parse("i8"), alice)
    button = _taps(panel)[Point.parse("i8")]
    assert button.get("disabled")
    assert button["emoji"]["name"] == "🚫"
    assert not _taps(panel)[Point.parse("j8")].get("disabled")


async def test_rematch_swaps_colours_and_waits_for_the_other_player(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, board = await _challenge(fake, bot, alice, bob, size=7, rule="standard")
    resign = await fake.slash("gomoku resign", user=bob)
    await fake.click(resign.message or 0, f"gomoku:{game_id}:resign", user=bob)
    await fake.wait_for(lambda: f"gomoku:{game_id}:rematch" in board.custom_ids())
    rematch = await fake.click(board, f"gomoku:{game_id}:rematch", user=bob)
    assert rematch.message is not None
    assert not rematch.ephemeral
    assert rematch.message.content == alice.mention  # the challenged player is pinged
    new = await bot.service.board(fake.default_channel.id)
    assert new.game_id != game_id
    assert new.status is GameStatus.PENDING
    assert (new.black.user_id, new.white.user_id) == (bob.id, alice.id)  # colours swapped
    assert (new.board.width, new.rule, new.rated) == (7, Rule.STANDARD, False)
    await fake.click(rematch.message, f"gomoku:{new.game_id}:accept", user=alice)
    assert (await bot.service.game(new.game_id)).status is GameStatus.ACTIVE


async def test_play_again_against_the_ai(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    start = await fake.slash(
        "gomoku start", user=alice, options={"size": 9, "colour": "black", "level": "easy"}
    )
    assert start.message is not None
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    resign = await fake.slash("gomoku resign", user=alice)
    await fake.click(resign.message or 0, f"gomoku:{game_id}:resign", user=alice)
    await fake.wait_for(lambda: f"gomoku:{game_id}:rematch" in start.message.custom_ids())  # type: ignore[union-attr]
    again = await fake.click(start.message, f"gomoku:{game_id}:rematch", user=alice)
    assert again.message is not None
    new = await bot.service.game((await bot.service.board(fake.default_channel.id)).game_id)
    assert new.white.user_id == alice.id  # colours swapped: the AI opens
    assert new.black.level == "easy"
    await fake.wait_for(lambda: "1 move" in again.message.text())  # type: ignore[union-attr]
    assert (await bot.service.game(new.game_id)).to_move == new.white


async def test_connect_four_speaks_in_column_numbers(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    start = await fake.slash(
        "gomoku start", user=alice, options={"game": "connect4", "colour": "black"}
    )
    assert start.message is not None
    assert "1️⃣2️⃣3️⃣4️⃣5️⃣6️⃣7️⃣" in start.message.text()
    assert [b["label"] for b in start.message.buttons()] == [str(n) for n in range(1, 8)]
    played = await fake.slash("place", user=alice, options={"cell": "4"})
    assert "played **column 4**." in played.content
    assert "The AI answered **column" in played.content
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    await board_caught_up(fake, bot, game_id)
    assert re.search(r"last column \d", start.message.text())
    choices = await fake.autocomplete("place", "cell", user=alice, options={"cell": ""})
    assert choices
    assert all(c["value"].isdigit() and c["name"].isdigit() for c in choices)
    for typed in ["d", "d2"]:
        refused = await fake.slash("place", user=alice, options={"cell": typed})
        assert refused.ephemeral
        assert "Columns are numbered here: type one from 1 to 7" in refused.content
    replay = await fake.slash("gomoku history", user=alice, options={"game": game_id})
    assert replay.message is not None
    export = await fake.click(replay.message, f"gomoku:{game_id}:download", user=alice)
    moves = export.content.strip("`\n").split()
    assert moves[0] == "4"
    assert all(move.isdigit() for move in moves)


async def test_a_column_in_gomoku_is_answered_with_a_sentence(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    await fake.slash("gomoku start", user=alice, options={"colour": "black"})
    for typed in ["h", "4"]:
        with no_changes(fake):
            refused = await fake.slash("place", user=alice, options={"cell": typed})
        place = fake.command("place")["id"]
        assert refused.content == (
            f"A move needs a column letter and a row number, like </place:{place}> `h8`."
        )


async def test_pings_can_be_turned_off(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    await fake.slash("gomoku-admin settings", user=fake.owner, options={"pings": False})
    game_id, _ = await _challenge(fake, bot, alice, bob)
    for user, cell in [(alice, "h8"), (bob, "h9")]:
        reply = await fake.slash("place", user=user, options={"cell": cell})
        assert reply.ephemeral  # the answer pings nobody: it stays private
        assert f"played **{cell.upper()}**" in reply.content
    await board_caught_up(fake, bot, game_id)
    assert _pings(fake) == []


async def test_each_player_chooses_the_look_of_their_private_boards(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    board, game_id = await _big_game_against_the_ai(fake, bot, alice)
    preferences = await fake.slash("gomoku preferences", user=alice)
    assert "Emoji: one per point" in preferences.content  # nobody chose: emoji
    emoji = await fake.slash("gomoku board", user=alice, options={"look": "emoji"})
    assert emoji.ephemeral  # with look:, a player too gets a private copy
    assert "(emoji)" in emoji.content
    assert "```" not in emoji.content
    compact = await fake.slash("gomoku board", user=alice, options={"look": "compact"})
    assert compact.ephemeral
    assert "```" in compact.content
    # The same windows as the public boards: 9 emoji rows, 15 compact ones, of the 20.
    assert compact.content.count("\n") > emoji.content.count("\n") + 5
    panel = await _open(fake, board, game_id, alice)
    assert "```" in panel.text()  # the panel's board is in the member's look now
    image = await fake.slash("gomoku board", user=alice, options={"look": "image"})
    assert [a.filename for a in image.attachments] == ["board.png"]
    panel = await _open(fake, board, game_id, alice)
    assert [a.filename for a in panel.attachments] == ["board.png"]
    assert await bot.service.look(alice.id) == "image"
    assert "Image: a picture" in (await fake.slash("gomoku preferences", user=alice)).content
    assert not board.deleted  # none of it touched the public board


class _StuckRunner:
    """An AI that never answers: the process "stops" while it thinks."""

    async def choose_move(self, request: AIRequest) -> AIMove:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        pass


async def test_a_reply_left_thinking_by_a_restart_is_filled_in(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    first = make_bot(ai=_StuckRunner())
    async with fake.running(first):
        await fake.slash("gomoku start", user=alice, options={"size": 9, "colour": "black"})
        record = await fake.send_slash("place", user=alice, options={"cell": "e5"})
        await record.acknowledged.wait()
        await fake.wait_for(
            lambda: (
                bool(record.original and record.original.loading)
                and len(fake.requests_to("PATCH", "/channels/")) > 0
            )
        )
        assert record.original is not None
        async with asyncio.timeout(5):  # the reply is noted in storage right after the deferral
            await until(first.service.repository.pending_replies, bool)
    assert record.original.loading  # "thinking..." for ever, without a fix
    second = make_bot()
    async with fake.running(second):
        await fake.wait_for(lambda: not record.original.loading)  # type: ignore[union-attr]
        assert "restarted" in record.original.content
        view = await second.service.board(fake.default_channel.id)
        assert view.board[Point(4, 4)] is Color.BLACK
        assert len(view.board.moves) == 2  # the AI's move was made on start-up
        async with asyncio.timeout(5):  # and the noted reply goes right after the edit
            await until(second.service.repository.pending_replies, lambda left: not left)


async def test_a_ping_sent_before_a_restart_is_deleted_after_it(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    def live() -> list[Message]:
        return [m for m in _pings(fake) if not m.deleted]

    first = make_bot()
    async with fake.running(first):
        game_id, _board = await _challenge(fake, first, alice, bob, size=9)
        await fake.slash("place", user=alice, options={"cell": "a1"})
        await board_caught_up(fake, first, game_id)
        (before,) = live()
        assert before.content.startswith(bob.mention)
    second = make_bot()
    async with fake.running(second):
        await fake.slash("place", user=bob, options={"cell": "a9"})
        await board_caught_up(fake, second, game_id)
        assert before.deleted  # the last process's ping, replaced by this one's
        (after,) = live()
        assert after.content.startswith(alice.mention)
    third = make_bot()
    async with fake.running(third):
        resign = await fake.slash("gomoku resign", user=alice)
        await fake.click(resign.message or 0, f"gomoku:{game_id}:resign", user=alice)
        await fake.wait_for(lambda: after.deleted)  # the game is over: no ping is left
        assert live() == []
        async with asyncio.timeout(5):  # and its row goes right after the message
            await until(
                lambda: third.service.repository.turn_ping(game_id), lambda row: row is None
            )


async def test_a_game_made_here_is_pinged_without_reading_a_stored_ping(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    bob: FakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game this process offered or started has no ping stored yet: its turns are pinged
    without asking the database for the last process's (the test above: a game from before
    a restart asks once)."""
    reads = record_calls(monkeypatch, bot.service.repository, "turn_ping")
    game_id, _board = await _challenge(fake, bot, alice, bob, size=9)
    await fake.slash("place", user=alice, options={"cell": "a1"})
    await board_caught_up(fake, bot, game_id)
    (ping,) = [m for m in _pings(fake) if not m.deleted]
    assert ping.content.startswith(bob.mention)
    assert reads == []


async def test_a_panel_opened_before_a_restart_still_plays(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        start = await fake.slash(
            "gomoku start", user=alice, options={"size": 15, "colour": "black"}
        )
        assert start.message is not None
        game_id = (await first.service.board(fake.default_channel.id)).game_id
        panel = await _open(fake, start.message, game_id, alice)
    second = make_bot()
    async with fake.running(second):
        # The buttons carry everything in their custom ids: the new process rebuilds them.
        await fake.click(panel, _arrow(panel, "r")["custom_id"], user=alice)
        assert Point.parse("k8") in _taps(panel)
        played = await fake.click(panel, _taps(panel)[Point.parse("k8")]["custom_id"], user=alice)
        assert played.ephemeral
        view = await second.service.game(game_id)
        assert view.board[Point.parse("k8")] is Color.BLACK


async def test_turns_that_come_while_a_ping_is_on_its_way_are_announced_once_by_the_newest(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, _board = await _challenge(fake, bot, alice, bob, size=9)
    posts = r"/channels/\d+/messages$"
    before = len(fake.requests_to("POST", posts))
    # Discord slow to take the old ping away: the pings of the next turns queue behind it.
    release = fake.hold("DELETE", r"/channels/\d+/messages/\d+$")
    replies = []
    for user, cell in [(alice, "a1"), (bob, "a9"), (alice, "b1")]:
        reply = await fake.slash("place", user=user, options={"cell": cell})
        assert "played **" in reply.text()  # answered while the old ping waits
        assert reply.message is not None
        replies.append(reply.message)
    footer = f"game {game_id} · 3 moves · friendly, not rated"
    await fake.wait_for(
        lambda: any(
            e.get("footer", {}).get("text") == footer
            for m in fake.channel_messages()
            for e in m.embeds
        )
    )
    release.set()
    await bot.table.turn_pings.drain(within_s=5.0)
    assert bot.table.turn_pings.pending() == 0
    # Each answer pinged the player to move: no ping was posted besides them.
    assert len(fake.requests_to("POST", posts)) == before
    assert [m.content.split(",")[0] for m in replies] == [bob.mention, alice.mention, bob.mention]
    # Only the newest is left; the one for a9, overtaken while the first waited, went too.
    live = [m for m in _pings(fake) if not m.deleted]
    assert [m.id for m in live] == [replies[-1].id]
    stored = await bot.service.repository.turn_ping(game_id)
    assert stored is not None
    assert stored.message_id == live[0].id
    assert stored.version == (await bot.service.game(game_id)).version


async def test_a_player_who_acts_again_keeps_the_ping_that_told_them(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id, _board = await _challenge(fake, bot, alice, bob, opening="swap2")
    (first,) = [m for m in _pings(fake) if not m.deleted]  # alice places the first stones
    assert first.content.startswith(alice.mention)
    posts = r"/channels/\d+/messages$"
    posted = len(fake.requests_to("POST", posts))
    for cell in ("h8", "i9"):
        reply = await fake.slash("place", user=alice, options={"cell": cell})
        assert reply.ephemeral  # she acts again next: her answer pings nobody
        await board_caught_up(fake, bot, game_id)
    await bot.table.turn_pings.drain(within_s=5.0)
    # The ping that told her still says so; she is not notified of her own turn again.
    assert not first.deleted
    assert len(fake.requests_to("POST", posts)) == posted
    reply = await fake.slash("place", user=alice, options={"cell": "j7"})
    assert not reply.ephemeral  # bob chooses next: the answer is his ping
    assert reply.content.startswith(f"{bob.mention}, your move")
    await board_caught_up(fake, bot, game_id)
    assert first.deleted
