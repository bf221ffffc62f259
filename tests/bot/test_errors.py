"""Every error a player can cause has words, and those words never carry raw user text."""

from __future__ import annotations

import inspect

import pytest
from discord import app_commands

import storage as store
from bot.core.ai import AIError
from bot.core.club.errors import OwnOpenChallengeError
from bot.core.service import errors as service
from bot.core.service.states import GameEnd
from bot.reporting import refusal_message
from bot.text.refusals import generic_message, quote, user_message
from engine import errors as engine_errors
from engine.board import Board
from engine.types import Game, Point
from tests.bot.test_render import view_of

H8 = Point(7, 7)

EXAMPLES: list[BaseException] = [
    engine_errors.InvalidPointError("z99"),
    engine_errors.InvalidRecordError("(;"),
    engine_errors.UnsupportedBoardError("size 30"),
    engine_errors.NothingToUndoError(),
    engine_errors.OccupiedPointError(H8),
    engine_errors.OffBoardError(Point(30, 2)),
    engine_errors.ColumnFullError(3),
    engine_errors.FloatingStoneError(Point(3, 4), Point(3, 1)),
    engine_errors.ForbiddenMoveError(H8, "double-three"),
    engine_errors.ForbiddenMoveError(H8, "double-four"),
    engine_errors.ForbiddenMoveError(H8, "overline"),
    engine_errors.GameOverError(),
    service.NoActiveGameError(1),
    service.NoSuchGameError(1),
    service.GameExistsError(1, 2),
    service.GameNotActiveError(1, store.GameStatus.FINISHED),
    service.GameNotActiveError(1, store.GameStatus.PENDING),
    service.GameNotActiveError(1, store.GameStatus.EXPIRED),
    service.GameNotActiveError(1, store.GameStatus.ACTIVE),
    service.OtherChannelError(1),
    service.UnknownButtonError(),
    service.NotAPlayerError(1, 2),
    service.OwnUndoRequestError(1, 2),
    service.NotReplaceableError(1, 2),
    service.NotYourTurnError(1, 2),
    service.AIThinkingError(1),
    service.ChallengeExpiredError(1),
    service.NotChallengedError(1, 2),
    service.SelfChallengeError(1),
    OwnOpenChallengeError(1),
    service.InvalidOptionError("size", 30, "5-20"),
    service.StalePanelError(1, 3),
    service.NotationError(Game.CONNECT4, 7, typed_column=False),
    service.NotationError(Game.GOMOKU, 15, typed_column=True),
    service.RematchError(1),
    service.InvalidOptionError("mystery", 1),
    service.ChannelNotAllowedError(1),
    service.HintNotAllowedError(1),
    service.NoMoveToUndoError(1),
    service.UndoPendingError(1),
    service.NoUndoRequestError(1),
    service.OutOfTimeError(1, GameEnd(view_of(Board()))),
    service.AIFailedError(1),
    AIError("BrokenProcessPool"),
    engine_errors.OpeningError(),
    engine_errors.OpeningStepError("choose", "place h8"),
    engine_errors.OpeningStepError("done", "black"),
    engine_errors.OutsideOpeningAreaError(Point(9, 9), 5),
    engine_errors.OutsideOpeningAreaError(Point(9, 9), 1),
    engine_errors.OfferCountError(9, 8),
    engine_errors.SymmetricOfferError(Point(7, 9), Point(9, 7)),
    engine_errors.NotOfferedError(Point(0, 0)),
    store.VersionConflictError(1, 2, 3),
    store.ChannelBusyError(1, 2),
    store.InvalidStatusError(1, store.GameStatus.FINISHED),
    store.GameNotFoundError(1),
]


def leaves(root: type[BaseException]) -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    for sub in root.__subclasses__():
        children = leaves(sub)
        found |= children or {sub}
        if not inspect.isabstract(sub):
            found.add(sub)
    return found


def test_every_engine_and_service_error_has_an_example() -> None:
    ours = {
        cls
        for cls in leaves(engine_errors.GomokuError)
        if cls.__module__ in (engine_errors.__name__, service.__name__)
    }
    covered = {type(e) for e in EXAMPLES}
    missing = {cls.__name__ for cls in ours - covered if cls is not service.GameServiceError}
    # abstract groupings, never raised themselves
    missing -= {"IllegalMoveError", "GameRefusedError", "UserRefusedError"}
    assert not missing, f"add an example (and words) for {sorted(missing)}"


@pytest.mark.parametrize("error", EXAMPLES, ids=lambda e: f"{type(e).__name__}")
def test_every_error_has_short_words(error: BaseException) -> None:
    message = user_message(error)
    assert message, type(error).__name__
    assert len(message) <= 200
    assert message[0].isupper() or message[0] in "*`"
    assert message.rstrip("*").endswith((".", "?", "!", ")"))


def test_point_errors_name_the_point() -> None:
    assert user_message(engine_errors.OccupiedPointError(H8)) == "**h8** is already taken."
    forbidden = user_message(engine_errors.ForbiddenMoveError(H8, "double-three"))
    assert forbidden is not None
    assert "h8" in forbidden
    assert "three-three" in forbidden
    floating = user_message(engine_errors.FloatingStoneError(Point(3, 4), Point(3, 1)))
    assert floating is not None
    # Gravity games name columns by number; the command by name where its id is unknown.
    assert "/place `4`" in floating


def test_an_active_game_is_never_called_not_played() -> None:
    # A second Accept, an accept on a game already started: the game is being played.
    for error in (
        service.GameNotActiveError(1, store.GameStatus.ACTIVE),
        store.InvalidStatusError(1, store.GameStatus.ACTIVE),
        service.OtherChannelError(1),
    ):
        message = user_message(error)
        assert message is not None
        assert "not being played" not in message


def test_unknown_errors_have_no_words() -> None:
    assert user_message(RuntimeError("boom")) is None
    assert user_message(KeyError("x")) is None
    assert refusal_message(app_commands.CheckFailure("some other check")) is None
    assert generic_message()


def test_a_late_move_says_it_lost_on_time() -> None:
    message = user_message(service.OutOfTimeError(1, GameEnd(view_of(Board()))))
    assert message is not None
    assert "on time" in message


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (app_commands.CommandOnCooldown(app_commands.Cooldown(5, 5.0), 3.4), "again in 3 s."),
        (app_commands.CommandOnCooldown(app_commands.Cooldown(5, 5.0), 0.2), "again in 1 s."),
        (
            app_commands.BotMissingPermissions(["embed_links", "send_messages_in_threads"]),
            "I need the Embed Links, Send Messages In Threads permission in this channel",
        ),
        (
            app_commands.MissingPermissions(["manage_guild"]),
            "You need the Manage Server permission for that.",
        ),
        (app_commands.NoPrivateMessage(), "only works in a server channel."),
    ],
    ids=["cooldown", "cooldown-under-a-second", "bot-permissions", "user-permissions", "dm"],
)
def test_discord_refusals_have_words(error: app_commands.AppCommandError, words: str) -> None:
    message = refusal_message(error)
    assert message is not None
    assert words in message
    assert message[0].isupper()


@pytest.mark.parametrize(
    "typed",
    ["@everyone", "<@&123456>", "`` ` ``", "**bold**\n# big", "\u202eevil", "x" * 500, ""],
    ids=["everyone", "role", "backticks", "markdown", "bidi", "long", "empty"],
)
def test_user_text_is_never_echoed_raw(typed: str) -> None:
    message = user_message(engine_errors.InvalidPointError(typed))
    assert message is not None
    shown = quote(typed)
    assert shown in message
    if shown != "that":
        # One code span with nothing that can close it early; no controls or newlines.
        assert shown.startswith("`")
        assert shown.endswith("`")
        assert "`" not in shown[1:-1]
    assert "\n" not in message
    assert "\u202e" not in message
    assert len(shown) <= 26


def test_opening_refusals_name_the_points() -> None:
    message = user_message(engine_errors.SymmetricOfferError(Point(7, 9), Point(9, 7)))
    assert message is not None
    assert "h10" in message
    assert "j8" in message
    centre = user_message(engine_errors.OutsideOpeningAreaError(Point(9, 9), 1))
    assert centre is not None
    assert "centre" in centre
