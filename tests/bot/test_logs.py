"""No token in any log record, at any level.

discord.py logs every gateway event at DEBUG (``INTERACTION_CREATE`` carries the interaction
token) and every REST call (the token is part of the interaction and webhook routes). With
``bot.logs.protect`` installed, as ``bot.app.run`` does, none of it reaches a handler.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import pytest

from bot.logs import REDACTED, TokenFilter, protect, redact
from tests.bot.conftest import BotFactory
from tests.fakediscord import FakeDiscord, FakeUser

BOT_TOKEN = "fake-token"  # what FakeDiscord.running logs in with


@pytest.fixture
def protected() -> Iterator[TokenFilter]:
    token_filter = protect(BOT_TOKEN)
    yield token_filter
    for logger in [logging.getLogger(), *logging.root.manager.loggerDict.values()]:
        if isinstance(logger, logging.Logger):
            logger.removeFilter(token_filter)
    for handler in logging.root.handlers:
        handler.removeFilter(token_filter)


async def test_a_debug_logged_game_carries_no_token(
    fake: FakeDiscord,
    make_bot: BotFactory,
    alice: FakeUser,
    caplog: pytest.LogCaptureFixture,
    protected: TokenFilter,
) -> None:
    caplog.set_level(logging.DEBUG)
    bot = make_bot()
    async with fake.running(bot):
        await fake.slash(
            "gomoku start", user=alice, options={"game": "connect4", "colour": "black"}
        )
        board = fake.channel_messages()[-1]
        await fake.click(board, next(c for c in board.custom_ids() if ":drop:" in c), user=alice)
        await fake.slash("place", user=alice, options={"cell": "zz"})  # a refusal
        await fake.slash("gomoku resign", user=alice)
    tokens = [record.token for record in fake.interactions.values()]
    assert len(tokens) >= 4
    logged = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    # The test sees what it should: the events and routes that carry tokens were logged.
    assert "INTERACTION_CREATE" in logged
    assert "/interactions/" in logged
    assert REDACTED in logged
    for token in [*tokens, BOT_TOKEN]:
        assert token not in logged


@pytest.mark.parametrize(
    "text",
    [
        "{'t': 'INTERACTION_CREATE', 'd': {'id': '1', 'token': 'aW50ZXJhY3Rpb24'}}",
        '{"token": "aW50ZXJhY3Rpb24", "type": 2}',
        "POST https://discord.com/api/v10/interactions/123/aW50ZXJhY3Rpb24/callback",
        "PATCH https://discord.com/api/v10/webhooks/55/aW50ZXJhY3Rpb24/messages/@original",
        "Authorization: Bot aW50ZXJhY3Rpb24aW50ZXJhY3Rpb24",
    ],
    ids=["gateway-dict", "json", "callback-route", "webhook-route", "header"],
)
def test_redact_removes_every_token_shape(text: str) -> None:
    assert "aW50ZXJhY3Rpb24" not in redact(text)


def test_a_traceback_is_redacted_too() -> None:
    token_filter = TokenFilter(("s3cret",))
    try:
        raise RuntimeError("POST /interactions/1/aW50ZXJhY3Rpb24/callback with s3cret")
    except RuntimeError:
        record = logging.LogRecord(
            "discord.http", logging.ERROR, __file__, 1, "failed: %s", ("s3cret",), None
        )
        record.exc_info = sys.exc_info()
    assert token_filter.filter(record)
    shown = logging.Formatter().format(record)
    assert "s3cret" not in shown
    assert "aW50ZXJhY3Rpb24" not in shown
    assert "RuntimeError" in shown
