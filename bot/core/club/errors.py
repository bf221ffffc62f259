"""The club's refusals: each carries data, never prose.

Errors::

    GameServiceError (bot.core.service.errors)
    └── ClubError
        ├── AlreadyQueuedError      the member already waits in the queue (.user_id, .kind)
        ├── NotQueuedError          the member does not wait in the queue (.user_id)
        └── AlreadyPlayingError     the member is playing a game already (.user_id)
"""

from __future__ import annotations

from bot.core.service.errors import GameServiceError


class ClubError(GameServiceError):
    """Base of the club's refusals (the pairing queue, tournaments)."""


class AlreadyQueuedError(ClubError):
    """The member already waits in the queue (for this kind of game or another)."""

    def __init__(self, user_id: int, kind: str) -> None:
        super().__init__(f"user {user_id} already waits for a game of {kind}")
        self.user_id = user_id
        self.kind = kind  # the kind they wait for


class NotQueuedError(ClubError):
    """The member asked to leave a queue they are not in."""

    def __init__(self, user_id: int) -> None:
        super().__init__(f"user {user_id} is not in the queue")
        self.user_id = user_id


class AlreadyPlayingError(ClubError):
    """The member is playing a game and cannot queue for another."""

    def __init__(self, user_id: int) -> None:
        super().__init__(f"user {user_id} is playing already")
        self.user_id = user_id
