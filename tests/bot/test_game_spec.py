"""A game is a spec: a game registered here, in the tests alone, plays through the service on
a real SQLite file, the terminal, and Discord (the real discord.py over the fake Discord:
started by ``/gomoku start``, played with its board's buttons; offered by the queue, the
leaderboards and the tournaments), with nothing in ``bot/`` naming it. The web board plays it
in ``tests/web/test_game_spec_web.py``, a queue worker in ``test_queue_ai``.

The game is four in a row on a 6x6 board with gravity: columns 1-6, discs, friendly only.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.client import GomokuBot
from bot.cogs import play_choices
from bot.core import games as tables
from bot.core.ai import AIError, AIRequest, ProcessPoolRunner
from bot.core.games import table_spec
from bot.core.service import GameService
from bot.core.service.errors import InvalidOptionError, NotationError
from bot.core.service.inputs import Drop, GameRef, Place
from bot.text import render
from engine import games as rules
from engine.board import Board
from engine.errors import UnsupportedBoardError
from engine.games import game_spec
from engine.types import Game, Level, Point, Rule, Termination
from storage.records import GameStatus, Player
from storage.sqlite import SqliteGameRepository
from tests.bot.conftest import challenge
from tests.bot.four6 import FOUR6, RULES, TABLE, registered
from tests.bot.test_service import ALICE, BOB, CHANNEL, GUILD
from tests.bot.test_terminal import session
from tests.fakediscord import FakeDiscord, FakeUser
from tests.runners import NearestRunner

# What the commands' module offered when imported: the games shipped (the test's game is
# registered per test, after).
_HOSTED_AT_IMPORT = [choice.value for choice in play_choices.game_choices()]

# Black drops in columns 1, 2, 3, 4 and White on top of each: Black's bottom row wins.
WINNING_COLUMNS = (0, 0, 1, 1, 2, 2, 3)


@pytest.fixture(autouse=True)
def four6() -> Iterator[Game]:
    """The test game, registered with the engine and the bot for one test."""
    with registered() as game:
        yield game


def test_the_game_is_a_game_by_its_name() -> None:
    assert Game("four6") is FOUR6
    assert FOUR6 == "four6"
    assert game_spec("four6").gravity
    assert table_spec(FOUR6).name == "Four on six"
    board = Board.for_game(FOUR6)
    assert (board.width, board.height, board.win_length) == (6, 6, 4)
    assert board.drop(5) == Point(5, 0)
    assert board.drop(5) == Point(5, 1)
    with pytest.raises(UnsupportedBoardError):
        Board.for_game(FOUR6, size=7)


def test_a_withdrawn_game_is_refused() -> None:
    rules.unregister(FOUR6)
    try:
        with pytest.raises(UnsupportedBoardError, match="four6"):
            Board.for_game(FOUR6)
    finally:
        rules.register(RULES)


def test_a_hosted_games_rules_are_those_registered_with_it() -> None:
    assert table_spec(FOUR6).rules is RULES
    # Hosted again with other rules (five in a row): those are read, not the first ones.
    wider = dataclasses.replace(RULES, win_length=5)
    tables.unregister(FOUR6)
    rules.unregister(FOUR6)
    try:
        rules.register(wider)
        tables.register(TABLE)
        assert table_spec(FOUR6).rules is wider
    finally:
        tables.unregister(FOUR6)
        rules.unregister(FOUR6)
        rules.register(RULES)
        tables.register(TABLE)
    assert table_spec(FOUR6).rules is RULES


async def test_the_service_plays_it_on_sqlite_to_a_win(tmp_path: Path) -> None:
    async with SqliteGameRepository.open(tmp_path / "g.sqlite3") as repo:
        service = GameService(repo, NearestRunner(), rng=random.Random(0))
        with pytest.raises(InvalidOptionError):
            await service.start(
                channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, game=FOUR6, size=9
            )
        with pytest.raises(InvalidOptionError):
            await service.start(
                channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, game=FOUR6, rule=Rule.RENJU
            )
        pending = await service.start(
            channel_id=CHANNEL,
            guild_id=GUILD,
            user_id=ALICE,
            opponent=BOB,
            game=FOUR6,
            colour="black",
        )
        assert not pending.rated  # the spec names no rated size
        await service.accept(pending.game_id, BOB)
        ref = GameRef(pending.game_id)
        with pytest.raises(NotationError):  # a gravity game takes columns, not points
            await service.act(ref, ALICE, Place(Point.parse("a1"), points_only=True))
        result = None
        for i, column in enumerate(WINNING_COLUMNS):
            result = await service.act(ref, (ALICE, BOB)[i % 2], Drop(column), via="test")
        assert result is not None
        assert result.finished
        assert result.game.winner == Player.human(ALICE)
        assert result.ratings == ()
    async with SqliteGameRepository.open(tmp_path / "g.sqlite3") as repo:
        view = await GameService(repo, NearestRunner()).game(pending.game_id)
    assert view.game is FOUR6
    assert view.status is GameStatus.FINISHED
    assert view.outcome is not None
    assert view.outcome.termination is Termination.FIVE
    assert [str(m.point) for m in view.board.moves][-1] == "d1"
    assert render.game_title(view) == "Four on six"
    assert render.theme_for(view.game) is render.GRAVITY_THEME


async def test_the_terminal_plays_it_by_its_name() -> None:
    typed = [str(c + 1) for c in WINNING_COLUMNS]
    out, _ = await session(["new four6 friend", "7", "a1", *typed, "quit"])
    assert "   1 2 3 4 5 6\n" in out  # six numbered columns, no row numbers
    assert "   * * *[*]. .\n" in out  # the winning row, its last disc in brackets
    assert "That column is not available (choose 1-6)." in out
    assert "'a1' is not a column. Type a column number from 1 to 6, like 4, or 'help'." in out
    assert "Four on six" in out
    assert "Four on six: X Player 1 vs O Player 2. Game over: Player 1 wins." in out


async def test_gomoku_start_offers_it_and_its_column_buttons_play_it(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    """``/gomoku start`` offers the games hosted when the command tree is built (the test's
    game, registered after the bot's modules were imported, among them); the challenge, the
    board, its buttons and every move go through Discord."""
    start = next(o for o in fake.command("gomoku")["options"] if o["name"] == "start")
    offered = next(o for o in start["options"] if o["name"] == "game")["choices"]
    assert [c["value"] for c in offered] == ["gomoku", "tictactoe", "connect4", "gravity3", "four6"]
    assert offered[-1]["name"] == "Four on six"  # no catalogue names it: its spec's name
    board = await challenge(fake, alice, bob, game="four6")
    game_id = (await bot.service.board(fake.default_channel.id)).game_id
    await fake.click(board, f"gomoku:{game_id}:accept", user=bob)
    await fake.wait_for(lambda: len(board.buttons()) == 6)
    assert [b["label"] for b in board.buttons()] == ["1", "2", "3", "4", "5", "6"]
    assert "Four on six" in board.text()
    assert render.GRAVITY_THEME.empty in board.text()
    for i, column in enumerate(WINNING_COLUMNS):
        player = (alice, bob)[i % 2]
        await fake.click(board, f"gomoku:{game_id}:drop:{column}", user=player)
    view = await bot.service.game(game_id)
    assert view.game is FOUR6
    assert view.winner == Player.human(alice.id)
    assert [str(m.point) for m in view.board.moves] == ["a1", "a2", "b1", "b2", "c1", "c2", "d1"]
    await fake.wait_for(lambda: render.GRAVITY_THEME.black_win in board.text())
    assert not any(":drop:" in b["custom_id"] for b in board.buttons())


def _offered(command: dict[str, Any], *path: str) -> list[str]:
    """The values offered for the option at ``path`` (subcommands, then the option)."""
    node = command
    for name in path:
        node = next(o for o in node["options"] if o["name"] == name)
    return [choice["value"] for choice in node["choices"]]


async def test_the_club_and_the_leaderboards_offer_it_and_take_it(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    """The queue, the leaderboards and the tournaments offer the games hosted when the command
    tree is built, the test's game among them (registered after the commands' modules were
    imported), and each command takes it."""
    assert "four6" not in _HOSTED_AT_IMPORT
    shipped = ["gomoku", "tictactoe", "connect4", "gravity3"]
    gomoku, admin = fake.command("gomoku"), fake.command("gomoku-admin")
    assert _offered(gomoku, "queue", "game") == [*shipped, "four6"]
    assert _offered(gomoku, "leaderboard", "game") == [*shipped, "four6", "puzzles"]
    assert _offered(admin, "tournament", "create", "game") == [*shipped, "four6"]

    queued = await fake.slash("gomoku queue", user=alice, options={"game": "four6"})
    assert queued.ephemeral
    assert "You are in the queue for Four on six" in queued.content
    board = await fake.slash("gomoku leaderboard", user=alice, options={"game": "four6"})
    assert [embed["title"] for embed in board.embeds] == ["Four on six leaderboard"]
    fake.allow(fake.default_channel, "create_public_threads")
    organiser = fake.add_user("olga", admin=True)
    created = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Sixes", "format": "swiss", "game": "four6"},
    )
    assert not created.ephemeral, created.content
    (tournament,) = await bot.service.repository.live_tournaments()
    assert tournament.game == "four6"
    # A game nobody hosts (withdrawn since the tree was built, or any text) is refused.
    withdrawn = "That game is not available (choose gomoku, tictactoe, connect4, gravity3)."
    tables.unregister(FOUR6)
    try:
        for command, options in (
            ("gomoku queue", {}),
            ("gomoku leaderboard", {}),
            ("gomoku-admin tournament create", {"name": "Gone", "format": "swiss"}),
        ):
            refused = await fake.slash(
                command, user=organiser, options={**options, "game": "four6"}
            )
            assert refused.ephemeral, command
            assert refused.content == withdrawn, command
    finally:
        tables.register(TABLE)
    assert len(await bot.service.repository.live_tournaments()) == 1


async def test_an_ai_pool_worker_answers_it_once_its_module_is_named() -> None:
    """A pool's worker is a fresh process, with only the games shipped: the game's module
    named (``GOMOKU_GAME_MODULES``'s way) is imported there, and the worker plays it."""
    board = Board.for_game(FOUR6)
    for column in (2, 2, 3):
        board.drop(column)
    request = AIRequest.from_board(board, Level.EASY, seed=1)
    async with await ProcessPoolRunner.start(1, warm=False, idle=False) as bare:
        with pytest.raises(AIError, match="ValueError"):  # "'four6' is not a valid Game"
            await bare.choose_move(request)
        assert bare.replacements == 0  # the worker said so; it did not die of it
    modules = ("tests.bot.four6_game",)
    async with await ProcessPoolRunner.start(
        1, warm=False, idle=False, game_modules=modules
    ) as pool:
        move = await pool.choose_move(request)
    assert move.point is not None
    assert board.is_legal(move.point)  # a disc on top of its column
