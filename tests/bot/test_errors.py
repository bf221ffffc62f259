"""Every error a player can cause has words, and those words never carry raw user text."""

from __future__ import annotations

import inspect

import pytest

from bot import service
from bot.ai import AIError
from bot.errors import GENERIC_MESSAGE, quote, user_message
from engine import errors as engine_errors
from engine.errors import (
    ColumnFullError,
    FloatingStoneError,
    ForbiddenMoveError,
    GameOverError,
    GomokuError,
    InvalidPointError,
    InvalidRecordError,
    NothingToUndoError,
    OccupiedPointError,
    OffBoardError,
    UnsupportedBoardError,
)
from engine.types import Point
from storage.repository import (
    ChannelBusyError,
    GameNotFoundError,
    GameStatus,
    InvalidStatusError,
    VersionConflictError,
)

H8 = Point(7, 7)

EXAMPLES: list[BaseException] = [
    InvalidPointError("z99"),
    InvalidRecordError("(;"),
    UnsupportedBoardError("size 30"),
    NothingToUndoError(),
    OccupiedPointError(H8),
    OffBoardError(Point(30, 2)),
    ColumnFullError(3),
    FloatingStoneError(Point(3, 4), Point(3, 1)),
    ForbiddenMoveError(H8, "double-three"),
    ForbiddenMoveError(H8, "double-four"),
    ForbiddenMoveError(H8, "overline"),
    GameOverError(),
    service.NoActiveGameError(1),
    service.NoSuchGameError(1),
    service.GameExistsError(1, 2),
    service.GameNotActiveError(1, GameStatus.FINISHED),
    service.GameNotActiveError(1, GameStatus.PENDING),
    service.GameNotActiveError(1, GameStatus.EXPIRED),
    service.NotAPlayerError(1, 2),
    service.NotYourTurnError(1, 2),
    service.AIThinkingError(1),
    service.ChallengeExpiredError(1),
    service.NotChallengedError(1, 2),
    service.SelfChallengeError(1),
    service.InvalidOptionError("size", 30, "5-20"),
    service.InvalidOptionError("mystery", 1),
    service.ChannelNotAllowedError(1),
    service.HintNotAllowedError(1),
    service.NoMoveToUndoError(1),
    service.UndoPendingError(1),
    service.NoUndoRequestError(1),
    service.AIFailedError(1),
    AIError("BrokenProcessPool"),
    VersionConflictError(1, 2, 3),
    ChannelBusyError(1, 2),
    InvalidStatusError(1, GameStatus.FINISHED),
    GameNotFoundError(1),
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
        for cls in leaves(GomokuError)
        if cls.__module__ in (engine_errors.__name__, service.__name__)
    }
    covered = {type(e) for e in EXAMPLES}
    missing = {cls.__name__ for cls in ours - covered if cls is not service.GameServiceError}
    missing -= {"IllegalMoveError"}  # abstract grouping, never raised itself
    assert not missing, f"add an example (and words) for {sorted(missing)}"


@pytest.mark.parametrize("error", EXAMPLES, ids=lambda e: f"{type(e).__name__}")
def test_every_error_has_short_words(error: BaseException) -> None:
    message = user_message(error)
    assert message, type(error).__name__
    assert len(message) <= 200
    assert message[0].isupper() or message[0] in "*`"
    assert message.rstrip("*").endswith((".", "?", "!", ")"))


def test_point_errors_name_the_point() -> None:
    assert user_message(OccupiedPointError(H8)) == "**h8** is already taken."
    forbidden = user_message(ForbiddenMoveError(H8, "double-three"))
    assert forbidden is not None
    assert "h8" in forbidden
    assert "three-three" in forbidden
    floating = user_message(FloatingStoneError(Point(3, 4), Point(3, 1)))
    assert floating is not None
    assert "d2" in floating


def test_unknown_errors_have_no_words() -> None:
    assert user_message(RuntimeError("boom")) is None
    assert user_message(KeyError("x")) is None
    assert GENERIC_MESSAGE


@pytest.mark.parametrize(
    "typed",
    ["@everyone", "<@&123456>", "`` ` ``", "**bold**\n# big", "\u202eevil", "x" * 500, ""],
    ids=["everyone", "role", "backticks", "markdown", "bidi", "long", "empty"],
)
def test_user_text_is_never_echoed_raw(typed: str) -> None:
    message = user_message(InvalidPointError(typed))
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
