"""Board passes: signed, expiring tokens that let one user play or watch one game.

A pass reads ``v1.<game>.<user>.<role>.<expires>.<language>.<signature>``: the game id, the
Discord user id, ``p`` (play) or ``w`` (watch), the expiry in Unix seconds, the language the
board speaks to that user, and an HMAC-SHA256 of everything before it (URL-safe base64, no
padding). A game id alone opens nothing; the server checks the pass on every message.

A standings pass reads ``t1.<tournament>.<expires>.<language>.<signature>``: it shows one
tournament's standings page, read-only, to whoever holds the link (it is posted in the
tournament's channel). Its own prefix is signed with it, so neither kind of pass reads as
the other.

The key is ``GOMOKU_WEB_SECRET`` when set, otherwise derived from the bot token (an HMAC of a
fixed label: HKDF's extract step), so a pass never reveals the bot token and no secret needs
configuring for a single bot.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import re
import time
from dataclasses import dataclass
from typing import Final, Self

__all__ = [
    "DEFAULT_TTL",
    "STANDINGS_TTL",
    "BadPassError",
    "ExpiredPassError",
    "Pass",
    "Role",
    "Signer",
    "StandingsPass",
]

DEFAULT_TTL: Final = 6 * 3600  # seconds: a link lasts an evening of play
STANDINGS_TTL: Final = 60 * 86400  # seconds: a correspondence event's rounds take weeks
_VERSION: Final = "v1"
_SHAPE: Final = re.compile(
    r"v1\.(?P<game>[0-9]{1,19})\.(?P<user>[0-9]{1,20})\.(?P<role>[pw])\.(?P<expires>[0-9]{1,12})"
    r"\.(?P<language>[A-Za-z_]{2,10})\.(?P<signature>[A-Za-z0-9_-]{43})"
)
_STANDINGS_VERSION: Final = "t1"
_STANDINGS_SHAPE: Final = re.compile(
    r"t1\.(?P<tournament>[0-9]{1,19})\.(?P<expires>[0-9]{1,12})"
    r"\.(?P<language>[A-Za-z_]{2,10})\.(?P<signature>[A-Za-z0-9_-]{43})"
)
_LABEL: Final = b"gomoku web board pass v1"


class Role(enum.StrEnum):
    """What a pass allows."""

    PLAY = "p"  # a player of the game: moves as that user
    WATCH = "w"  # anyone who can see the channel: read-only


class BadPassError(ValueError):
    """A pass that is malformed or whose signature does not match."""


class ExpiredPassError(BadPassError):
    """A genuine pass past its expiry."""


@dataclass(frozen=True, slots=True)
class Pass:
    """What a verified pass says."""

    game_id: int
    user_id: int
    role: Role
    expires: int  # Unix seconds
    language: str  # one of bot.core.languages.LANGUAGES

    @property
    def can_play(self) -> bool:
        """The holder may move (as ``user_id``)."""
        return self.role is Role.PLAY


@dataclass(frozen=True, slots=True)
class StandingsPass:
    """What a verified standings pass says."""

    tournament_id: int
    expires: int  # Unix seconds
    language: str  # one of bot.core.languages.LANGUAGES


class Signer:
    """Mints and verifies passes with one key."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the board pass key needs at least 16 bytes")
        self._key = key

    @classmethod
    def from_secrets(cls, web_secret: str | None, bot_token: str | None) -> Self:
        """The key from ``GOMOKU_WEB_SECRET``, else derived from the bot token.

        Raises:
            ValueError: neither is set.
        """
        material = web_secret or bot_token
        if not material:
            raise ValueError("board passes need GOMOKU_WEB_SECRET or DISCORD_TOKEN")
        return cls(hmac.new(_LABEL, material.encode(), hashlib.sha256).digest())

    def _sign(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def _checked(
        self, token: object, shape: re.Pattern[str], not_one: str, now: float | None
    ) -> tuple[re.Match[str], int]:
        """``token``'s fields by ``shape`` and its expiry, once its signature and time hold.

        Raises:
            BadPassError: not of ``shape`` (``not_one`` says so), or not signed with this key.
            ExpiredPassError: signed, but past its expiry.
        """
        if not isinstance(token, str):
            raise BadPassError("no pass")
        match = shape.fullmatch(token)
        if match is None:
            raise BadPassError(not_one)
        body = token.rsplit(".", 1)[0]
        if not hmac.compare_digest(self._sign(body), match["signature"]):
            raise BadPassError("bad signature")
        expires = int(match["expires"])
        if expires <= (time.time() if now is None else now):
            raise ExpiredPassError("expired")
        return match, expires

    def mint(
        self,
        game_id: int,
        user_id: int,
        role: Role,
        *,
        language: str = "en",
        ttl: int = DEFAULT_TTL,
        now: float | None = None,
    ) -> str:
        """A pass for ``user_id`` to ``role`` game ``game_id`` for ``ttl`` seconds."""
        expires = int(time.time() if now is None else now) + ttl
        body = f"{_VERSION}.{game_id}.{user_id}.{role.value}.{expires}.{language}"
        return f"{body}.{self._sign(body)}"

    def verify(self, token: object, *, now: float | None = None) -> Pass:
        """The pass ``token`` carries.

        Raises:
            BadPassError: not a pass, or not signed with this key.
            ExpiredPassError: signed, but past its expiry.
        """
        match, expires = self._checked(token, _SHAPE, "not a pass", now)
        return Pass(
            int(match["game"]), int(match["user"]), Role(match["role"]), expires, match["language"]
        )

    def mint_standings(
        self,
        tournament_id: int,
        *,
        language: str = "en",
        ttl: int = STANDINGS_TTL,
        now: float | None = None,
    ) -> str:
        """A pass to tournament ``tournament_id``'s standings page for ``ttl`` seconds."""
        expires = int(time.time() if now is None else now) + ttl
        body = f"{_STANDINGS_VERSION}.{tournament_id}.{expires}.{language}"
        return f"{body}.{self._sign(body)}"

    def verify_standings(self, token: object, *, now: float | None = None) -> StandingsPass:
        """The standings pass ``token`` carries.

        Raises:
            BadPassError: not a standings pass, or not signed with this key.
            ExpiredPassError: signed, but past its expiry.
        """
        match, expires = self._checked(token, _STANDINGS_SHAPE, "not a standings pass", now)
        return StandingsPass(int(match["tournament"]), expires, match["language"])
