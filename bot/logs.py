"""Logging without secrets: ``TokenFilter`` and ``protect(*secrets)``.

discord.py logs at DEBUG every gateway event (``INTERACTION_CREATE`` carries the
interaction's ``token``) and every REST route (``/interactions/<id>/<token>/callback``,
``/webhooks/<app>/<token>/...``). An interaction token lets anyone answer as the bot for 15
minutes, so no record may carry one at any level. The filter rewrites each record's text
(message, arguments and traceback) before any handler sees it; it sits on every ``discord``
logger (a record is filtered by the logger that makes it, not by the ones it propagates
through) and on the root handlers (for loggers made later).
"""

from __future__ import annotations

import logging
import re
from typing import Final

__all__ = ["REDACTED", "TokenFilter", "protect", "redact"]

REDACTED: Final = "<redacted>"

_PATTERNS: Final = (
    # "token": "..." in a JSON payload or a dict repr
    (re.compile(r"""(["']token["']\s*:\s*)(["'])[^"']*\2"""), rf"\1\2{REDACTED}\2"),
    # the token segment of the interaction and webhook routes
    (re.compile(r"(/interactions/\d+/)[^/\s'\"?]+"), rf"\1{REDACTED}"),
    (re.compile(r"(/webhooks/\d+/)[^/\s'\"?]+"), rf"\1{REDACTED}"),
    # a web board pass or an OAuth2 code in a query string or URL fragment
    (re.compile(r"([?&#](?:token|code|access_token)=)[^&\s'\"]+"), rf"\1{REDACTED}"),
    (re.compile(r"v1\.[0-9]+\.[0-9]+\.[pw]\.[0-9]+\.[A-Za-z_]+\.[A-Za-z0-9_-]{43}"), REDACTED),
    # Authorization headers, should a library ever log them
    (re.compile(r"(Bot |Bearer )[A-Za-z0-9._\-]{20,}"), rf"\1{REDACTED}"),
)


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` without interaction tokens, webhook tokens and the given ``secrets``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class TokenFilter(logging.Filter):
    """Rewrites a record so that no token survives in it; never drops a record."""

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.secrets = secrets  # literal values to hide too (the bot token)

    def filter(self, record: logging.LogRecord) -> bool:
        """Render the message now, redacted (the arguments may hold the payload)."""
        if getattr(record, "_redacted", False):
            return True
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = f"{record.msg!r} {record.args!r}"
        record.msg = redact(message, self.secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
            # The handler would format the traceback again from exc_info, unredacted.
            record.exc_info = None
        record._redacted = True
        return True


def protect(*secrets: str) -> TokenFilter:
    """Install one ``TokenFilter`` on every ``discord`` logger and every root handler."""
    token_filter = TokenFilter(tuple(s for s in secrets if s))
    names = [n for n in logging.root.manager.loggerDict if n.startswith("discord.")]
    for name in ["discord", *names]:
        logger = logging.getLogger(name)
        if token_filter not in logger.filters:
            logger.addFilter(token_filter)
    for handler in logging.root.handlers:
        if token_filter not in handler.filters:
            handler.addFilter(token_filter)
    return token_filter
