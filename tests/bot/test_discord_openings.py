"""Opening rules through the real discord.py against the fake Discord: people, the AI in each
role, a restart in the middle of an opening, and taps by the wrong people."""

from __future__ import annotations

import asyncio

import pytest

from bot.client import GomokuBot
from bot.core.ai import AIMove, AIRequest, ProcessPoolRunner, run_search
from bot.core.service.states import GameState
from engine.opening_rules import Phase, Seat
from engine.types import Level, Point, Rule
from tests.bot.conftest import (
    BotFactory,
    accepted_challenge,
    board_caught_up,
    first_player_makes_five,
    no_changes,
)
from tests.fakediscord import FakeDiscord, FakeUser, Message
from tests.polling import until
from tests.runners import CentreRunner


class OpeningRunner(CentreRunner):
    """The centre stand-in for moves, and the real opening AI (the worker's own entry point,
    run in-process) for opening steps."""

    async def choose_move(self, request: AIRequest) -> AIMove:
        if request.opening is not None:
            self.calls += 1
            return await asyncio.to_thread(run_search, request)
        return await super().choose_move(request)


async def _view(bot: GomokuBot, fake: FakeDiscord) -> GameState:
    return await bot.service.board(fake.default_channel.id)


async def _settled(bot: GomokuBot, fake: FakeDiscord) -> GameState:
    """The game once the AI has taken every step that is its own."""
    async with asyncio.timeout(60):
        view = await until(lambda: _view(bot, fake), lambda view: not view.is_ai_turn)
    await board_caught_up(fake, bot, view.game_id)
    return view


def _board(fake: FakeDiscord, game_id: int) -> Message:
    # the message that shows the game (the last one with its footer)
    shown = [
        m
        for m in fake.channel_messages()
        if any(f"game {game_id}" in e.get("footer", {}).get("text", "") for e in m.embeds)
    ]
    return shown[-1]


async def _wait_buttons(fake: FakeDiscord, bot: GomokuBot, game_id: int, ids: list[str]) -> None:
    await fake.wait_for(lambda: _board(fake, game_id).custom_ids() == ids)


async def _first_three_stones(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser, opening: str
) -> int:
    """Alice challenges Bob to a game with ``opening``, Bob accepts and Alice places the three
    first stones (h8 i9 j7). Returns the game's id."""
    game_id, _ = await accepted_challenge(fake, bot, alice, bob, opening=opening)
    for cell in ("h8", "i9", "j7"):
        await fake.slash("place", user=alice, options={"cell": cell})
    return game_id


async def _step_as(fake: FakeDiscord, bot: GomokuBot, user: FakeUser) -> None:
    """One opening step by ``user`` (it is theirs): a stone, an offer or a pick by /place,
    a choice or a number by the board's buttons."""
    view = await _view(bot, fake)
    opening = view.opening
    assert opening is not None
    if opening.phase in (Phase.PLACE, Phase.OFFER, Phase.PICK):
        point = opening.legal_points()[0]
        reply = await fake.slash("place", user=user, options={"cell": str(point)})
        assert reply.ephemeral
        assert "played **" in reply.content
        return
    word = "2" if opening.phase is Phase.DECLARE else opening.choices()[-1].value
    custom_id = f"gomoku:{view.game_id}:open:{word}"
    await fake.wait_for(lambda: custom_id in _board(fake, view.game_id).custom_ids())
    reply = await fake.click(_board(fake, view.game_id), custom_id, user=user)
    assert not reply.ephemeral, reply.content


async def _open_against_ai(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, options: dict[str, object]
) -> GameState:
    """Start a game against the AI with an opening and play alice's steps until it ends."""
    await fake.slash("gomoku start", user=alice, options=options)
    for _ in range(40):
        view = await _settled(bot, fake)
        if not view.in_opening:
            return view
        actor = view.opening.actor if view.opening is not None else None
        assert actor is not None
        assert view.seat_player(actor).user_id == alice.id
        await _step_as(fake, bot, alice)
    raise AssertionError("the opening did not end")


async def test_a_whole_swap2_game_between_people(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    carol = fake.add_user("carol")
    start = await fake.slash(
        "gomoku start",
        user=alice,
        options={"opponent": bob, "colour": "black", "opening": "swap2"},
    )
    assert start.message is not None
    game_id = (await _view(bot, fake)).game_id
    await fake.click(start.message, f"gomoku:{game_id}:accept", user=bob)
    board = start.message
    await fake.wait_for(lambda: "Swap2 opening" in board.text())
    assert "places the first stone (black) (1 of 3)" in board.text()
    # bob may not place alice's stones
    refused = await fake.slash("place", user=bob, options={"cell": "h8"})
    assert refused.ephemeral
    assert "not your turn" in refused.content
    for cell in ("h8", "i9", "j7"):
        assert (
            "played **" in (await fake.slash("place", user=alice, options={"cell": cell})).content
        )
    choices = [f"gomoku:{game_id}:open:{w}" for w in ("black", "white", "two")]
    await _wait_buttons(fake, bot, game_id, choices)
    assert [b["label"] for b in board.buttons()] == ["Take Black", "Take White", "Place two more"]
    await board_caught_up(fake, bot, game_id)  # bob, who chooses next, has been pinged
    # taps by the wrong people are refused privately and change nothing
    with no_changes(fake):
        outsider = await fake.click(board, choices[0], user=carol)
        early = await fake.click(board, choices[0], user=alice)
    assert outsider.ephemeral
    assert "not playing in this game" in outsider.content
    assert early.ephemeral
    assert "not your turn" in early.content
    assert (await _view(bot, fake)).opening is not None
    await fake.click(board, choices[2], user=bob)
    await fake.wait_for(lambda: board.custom_ids() == [])
    for cell in ("g9", "k9"):
        assert "played **" in (await fake.slash("place", user=bob, options={"cell": cell})).content
    await _wait_buttons(fake, bot, game_id, [choices[0], choices[1]])
    outsider = await fake.click(board, choices[1], user=bob)
    assert outsider.ephemeral
    await fake.click(board, choices[1], user=alice)  # alice takes White: bob is Black
    view = await _view(bot, fake)
    assert not view.in_opening
    assert (view.black.user_id, view.white.user_id) == (bob.id, alice.id)
    assert view.to_move is not None
    assert view.to_move.user_id == alice.id  # White plays the sixth move
    # the opening's buttons give way to the tap panel's Move button
    move_button = [f"gomoku:{game_id}:move"]
    await fake.wait_for(
        lambda: "Swap2 opening" in board.text() and board.custom_ids() == move_button
    )
    white_black = [("a15", "b2"), ("a14", "b3"), ("a13", "b4"), ("a12", "b5")]
    await first_player_makes_five(fake, bot, game_id, (alice, bob), white_black, "a11")
    export = await bot.service.export(fake.default_channel.id, game_id=game_id)
    assert "GC[opening swap2: h8 i9 j7 two g9 k9 white (first: " in export.sgf
    assert ";B[hh];W[ig];B[ji];W[gg];B[kg];W[aa]" in export.sgf
    assert export.moves.startswith("h8 i9 j7 g9 k9 a15")


@pytest.mark.parametrize("first", ["ai", "alice"])
async def test_swap2_against_the_ai_in_each_role(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, first: str
) -> None:
    runner = OpeningRunner()
    bot = make_bot(ai=runner)
    async with fake.running(bot):
        colour = "black" if first == "alice" else "white"
        options: dict[str, object] = {"colour": colour, "opening": "swap2", "level": "beginner"}
        view = await _open_against_ai(fake, bot, alice, options)
        opening = view.opening
        assert opening is not None
        assert opening.is_done
        starter = view.seat_player(Seat.FIRST)
        assert (starter.user_id == alice.id) == (first == "alice")
        assert runner.calls >= 1
        assert len(view.board.moves) >= 3
        # the game goes on: if it is alice's move she plays; the AI answers
        view = await _settled(bot, fake)
        assert view.to_move is not None
        assert view.to_move.user_id == alice.id
        point = next(p for p in view.board.legal_moves() if p.x == 0)
        reply = await fake.slash("place", user=alice, options={"cell": str(point)})
        assert "played **" in reply.content
        after = await _settled(bot, fake)
        assert len(after.board.moves) == len(view.board.moves) + 2


@pytest.mark.parametrize(
    ("opening", "colour"),
    [("taraguchi10", "black"), ("soosorv8", "white")],
    ids=["taraguchi, alice first", "soosorv, the AI first"],
)
async def test_renju_openings_against_the_ai(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, opening: str, colour: str
) -> None:
    bot = make_bot(ai=OpeningRunner())
    async with fake.running(bot):
        options: dict[str, object] = {
            "rule": Rule.RENJU.value,
            "opening": opening,
            "colour": colour,
            "level": "beginner",
        }
        view = await _open_against_ai(fake, bot, alice, options)
        assert view.opening is not None
        assert view.opening.is_done
        assert str(view.board.moves[0].point) == "h8"
        assert len(view.board.moves) >= 5
        starter = view.seat_player(Seat.FIRST)
        assert (starter.user_id == alice.id) == (colour == "black")


async def test_a_restart_in_the_middle_of_an_opening_carries_on(
    fake: FakeDiscord, make_bot: BotFactory, alice: FakeUser, bob: FakeUser
) -> None:
    first = make_bot()
    async with fake.running(first):
        game_id = await _first_three_stones(fake, first, alice, bob, "swap2")
        await _wait_buttons(
            fake, first, game_id, [f"gomoku:{game_id}:open:{w}" for w in ("black", "white", "two")]
        )
        board = _board(fake, game_id)
        await fake.click(board, f"gomoku:{game_id}:open:two", user=bob)
        await fake.slash("place", user=bob, options={"cell": "g9"})
    # a new process on the same database: the opening resumes where it was
    second = make_bot()
    async with fake.running(second):
        view = await _view(second, fake)
        assert view.in_opening
        assert view.opening is not None
        assert str(view.opening) == "h8 i9 j7 two g9"
        refused = await fake.slash("place", user=alice, options={"cell": "k9"})
        assert "not your turn" in refused.content
        await fake.slash("place", user=bob, options={"cell": "k9"})
        choices = [f"gomoku:{game_id}:open:{w}" for w in ("black", "white")]
        await _wait_buttons(fake, second, game_id, choices)
        await fake.click(_board(fake, game_id), choices[0], user=alice)
        view = await _view(second, fake)
        assert not view.in_opening
        assert view.black.user_id == alice.id
        assert view.to_move is not None
        assert view.to_move.user_id == bob.id


async def test_a_rematch_keeps_the_opening_and_the_other_player_starts_it(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    game_id = await _first_three_stones(fake, bot, alice, bob, "swap")
    choices = [f"gomoku:{game_id}:open:{w}" for w in ("black", "white")]
    await _wait_buttons(fake, bot, game_id, choices)
    await fake.click(_board(fake, game_id), choices[0], user=bob)  # bob takes Black
    view = await _view(bot, fake)
    assert (view.black.user_id, view.white.user_id) == (bob.id, alice.id)
    resign = await fake.slash("gomoku resign", user=alice)
    await fake.click(resign.message or 0, f"gomoku:{game_id}:resign", user=alice)
    rematch_id = f"gomoku:{game_id}:rematch"
    await fake.wait_for(lambda: rematch_id in _board(fake, game_id).custom_ids())
    rematch = await fake.click(_board(fake, game_id), rematch_id, user=alice)
    assert rematch.message is not None
    new = await _view(bot, fake)
    assert new.opening is not None
    assert new.opening.rule.value == "swap"
    # alice started the last opening, so bob starts this one, whatever colours it ended in
    assert new.seat_player(Seat.FIRST).user_id == bob.id
    accepted = await fake.click(rematch.message, f"gomoku:{new.game_id}:accept", user=bob)
    assert not accepted.ephemeral, accepted.content
    await fake.wait_for(lambda: "Swap opening" in _board(fake, new.game_id).text())
    refused = await fake.slash("place", user=alice, options={"cell": "h8"})
    assert "not your turn" in refused.content
    assert "played **" in (await fake.slash("place", user=bob, options={"cell": "h8"})).content
    assert (await _view(bot, fake)).in_opening


async def test_the_pool_answers_an_opening_step(pool: ProcessPoolRunner) -> None:
    # the real worker process: the opening travels in the request and a choice comes back
    from engine.board import Board

    board = Board.from_moves("h8 i9 j7")
    request = AIRequest.from_board(board, Level.BEGINNER, 3)
    request = AIRequest(
        request.game,
        request.size,
        request.rule,
        request.moves,
        request.level,
        3,
        opening=("swap2", ("h8", "i9", "j7")),
    )
    answer = await pool.choose_move(request)
    assert answer.step in ("black", "white", "two")
    assert answer.point == Point(9, 6)  # the last stone: a choice places none
