"""The club's refusals: each carries data, never prose.

Errors::

    GameServiceError (bot.core.service.errors)
    └── ClubError
        ├── AlreadyQueuedError      the member already waits in the queue (.user_id, .kind)
        ├── NotQueuedError          the member does not wait in the queue (.user_id)
        ├── AlreadyPlayingError     the member is playing a game already (.user_id)
        ├── AlreadyEnteredError     the member is in the tournament already
        │                           (.tournament_id, .user_id)
        ├── TournamentFullError     the player cap is reached (.tournament_id, .cap)
        ├── EntriesClosedError      the tournament takes no more entries: a round-robin
        │                           under way, or it is over (.tournament_id, .status)
        ├── RoundUnderWayError      a game of the current round has no result yet
        │                           (.tournament_id, .round)
        ├── OutsideRatingError      an open challenge's rating window leaves the member
        │                           out (.user_id, .low, .high)
        ├── OwnOpenChallengeError   the challenger pressed Accept on their own open
        │                           challenge (.user_id)
        └── StartTimeError          a tournament's start time that cannot be used:
                                    unreadable, passed, or too far ahead (.text, .reason)
"""

from __future__ import annotations

import enum

from bot.core.service.errors import GameServiceError
from storage.club import TournamentStatus


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


class AlreadyEnteredError(ClubError):
    """The member is in the tournament already."""

    def __init__(self, tournament_id: int, user_id: int) -> None:
        super().__init__(f"user {user_id} is in tournament {tournament_id} already")
        self.tournament_id = tournament_id
        self.user_id = user_id


class TournamentFullError(ClubError):
    """The tournament has as many players as its cap."""

    def __init__(self, tournament_id: int, cap: int) -> None:
        super().__init__(f"tournament {tournament_id} is full ({cap} players)")
        self.tournament_id = tournament_id
        self.cap = cap


class EntriesClosedError(ClubError):
    """The tournament takes no more entries."""

    def __init__(self, tournament_id: int, status: TournamentStatus) -> None:
        super().__init__(f"tournament {tournament_id} takes no entries ({status})")
        self.tournament_id = tournament_id
        self.status = status


class RoundUnderWayError(ClubError):
    """The next round cannot be paired: a game of the current one has no result yet."""

    def __init__(self, tournament_id: int, round_: int) -> None:
        super().__init__(f"round {round_} of tournament {tournament_id} is under way")
        self.tournament_id = tournament_id
        self.round = round_


class OutsideRatingError(ClubError):
    """An open challenge asks for players within a rating window the member is outside of."""

    def __init__(self, user_id: int, low: int, high: int) -> None:
        super().__init__(f"user {user_id} is rated outside {low}-{high}")
        self.user_id = user_id
        self.low = low  # the window, inclusive
        self.high = high


class OwnOpenChallengeError(ClubError):
    """The challenger pressed Accept on their own open challenge."""

    def __init__(self, user_id: int) -> None:
        super().__init__(f"user {user_id} tried to accept their own open challenge")
        self.user_id = user_id


class StartTimeError(ClubError, ValueError):
    """A tournament's start time that cannot be used."""

    class Reason(enum.StrEnum):
        """What is wrong with it."""

        UNREADABLE = "unreadable"  # neither ISO 8601 nor a Discord timestamp
        PASSED = "passed"  # not in the future
        TOO_FAR = "too_far"  # further ahead than ``MAX_START_AHEAD``

    def __init__(self, text: str, reason: StartTimeError.Reason) -> None:
        super().__init__(f"start time {text!r}: {reason}")
        self.text = text  # as given (or the time, written out)
        self.reason = reason
