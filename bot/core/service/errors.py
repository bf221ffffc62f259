"""The service's refusals: each carries data, never prose (``bot.text.refusals`` words them).

Errors::

    GomokuError (engine.errors)
    └── GameServiceError
        ├── NoActiveGameError          no open game in this channel (.channel_id)
        ├── NoSuchGameError            no game with this id (.game_id)
        ├── GameExistsError            the channel already has a game (.channel_id, .game_id)
        ├── GameNotActiveError         pending, finished or closed (.game_id, .status)
        ├── NotAPlayerError            the user does not play in this game (.user_id, .game_id)
        ├── NotYourTurnError           (.user_id, .game_id)
        ├── AIThinkingError            it is the AI's turn; wait for its move (.game_id)
        ├── ChallengeExpiredError      the challenge ran out before it was answered (.game_id)
        ├── NotChallengedError         only the challenged user may accept (.user_id, .game_id)
        ├── SelfChallengeError         a user challenged themself (.user_id)
        ├── InvalidOptionError         an option out of range (.option, .value, .allowed)
        ├── ChannelNotAllowedError     the guild plays in other channels (.channel_id)
        ├── HintNotAllowedError        no hints in rated games (.game_id)
        ├── NoMoveToUndoError          no move of the user's to take back (.game_id)
        ├── UndoPendingError           an undo request already waits (.game_id)
        ├── NoUndoRequestError         nothing to answer, or the game moved on (.game_id)
        ├── OwnUndoRequestError        the requester allowing their own undo (.user_id, .game_id)
        ├── NotReplaceableError        the game in the way is not the user's own AI game
        │                              (.user_id, .game_id)
        ├── OutOfTimeError             the move came after the mover's deadline: the game
        │                              ended, lost on time (.game_id, .user_id, .end)
        ├── StalePanelError            a tap on a panel drawn before the game moved on
        │                              (.game_id, .version)
        ├── NotationError              a move written the way the other kind of game writes
        │                              them: a column in Gomoku, a point in Connect Four
        │                              (.game, .width, .typed_column)
        ├── RematchError               no rematch of this game: not finished, or the
        │                              channel is busy (.game_id)
        └── AIFailedError              the AI could not produce a move (.game_id)

The refusals that carry only ``.game_id`` share the base ``GameRefusedError``, those that carry
``.user_id`` and ``.game_id`` the base ``UserRefusedError``; both derive from ``GameServiceError``.

"""

from __future__ import annotations

from typing import ClassVar

from bot.core.service.states import GameEnd
from engine.errors import GomokuError
from engine.types import Game
from storage.records import GameStatus


class GameServiceError(GomokuError):
    """Base of the errors the service raises for a request it refuses."""


class GameRefusedError(GameServiceError):
    """A refusal about one game, carrying its id (.game_id)."""

    message: ClassVar[str]  # the log's words, formatted with ``game_id``

    def __init__(self, game_id: int) -> None:
        super().__init__(self.message.format(game_id=game_id))
        self.game_id = game_id


class UserRefusedError(GameServiceError):
    """A refusal of one user's request in one game (.user_id, .game_id)."""

    message: ClassVar[str]  # the log's words, formatted with ``user_id`` and ``game_id``

    def __init__(self, user_id: int, game_id: int) -> None:
        super().__init__(self.message.format(user_id=user_id, game_id=game_id))
        self.user_id = user_id
        self.game_id = game_id


class NoActiveGameError(GameServiceError):
    """The channel has no pending or active game."""

    def __init__(self, channel_id: int) -> None:
        super().__init__(f"no active game in channel {channel_id}")
        self.channel_id = channel_id


class NoSuchGameError(GameRefusedError):
    """No game has this id (a stale button, a typo)."""

    message = "no game {game_id}"


class GameExistsError(GameServiceError):
    """The channel already has a pending or active game."""

    def __init__(self, channel_id: int, game_id: int | None) -> None:
        super().__init__(f"channel {channel_id} already has game {game_id}")
        self.channel_id = channel_id
        self.game_id = game_id  # the game in the way, when known


class GameNotActiveError(GameServiceError):
    """The game is not in a status that allows this (still a challenge, or already over)."""

    def __init__(self, game_id: int, status: GameStatus) -> None:
        super().__init__(f"game {game_id} is {status}")
        self.game_id = game_id
        self.status = status


class OtherChannelError(GameRefusedError):
    """A button of a game that is open, but in another channel than the one pressed in."""

    message = "game {game_id} is open in another channel"


class UnknownButtonError(GameServiceError):
    """A button whose custom id names no action (forged, or from a removed feature)."""


class NotAPlayerError(UserRefusedError):
    """The user does not play in this game (or is not the one who must answer)."""

    message = "user {user_id} does not play in game {game_id}"


class OwnUndoRequestError(UserRefusedError):
    """The user who asked for the undo pressed Allow: only the opponent may allow it."""

    message = "user {user_id} asked for the undo in game {game_id}: the opponent answers"


class NotYourTurnError(UserRefusedError):
    """The user plays in the game but it is the other side's turn."""

    message = "not user {user_id}'s turn in game {game_id}"


class AIThinkingError(GameRefusedError):
    """It is the AI's turn: the request has to wait for its move."""

    message = "the AI is to move in game {game_id}"


class ChallengeExpiredError(GameRefusedError):
    """The challenge was not answered in time."""

    message = "challenge {game_id} expired"


class NotChallengedError(UserRefusedError):
    """Only the challenged user may accept (and only the two of them may decline)."""

    message = "user {user_id} was not challenged in game {game_id}"


class SelfChallengeError(GameServiceError):
    """A user challenged themself."""

    def __init__(self, user_id: int) -> None:
        super().__init__(f"user {user_id} challenged themself")
        self.user_id = user_id


class InvalidOptionError(GameServiceError, ValueError):
    """A start or settings option is out of range."""

    def __init__(self, option: str, value: object, allowed: str = "") -> None:
        super().__init__(f"invalid {option}: {value!r} (allowed: {allowed})")
        self.option = option  # "size", "rule", "level", "turn_time", "look", ...
        self.value = value  # what was asked for
        self.allowed = allowed  # what would be accepted, e.g. "5-20"


class ChannelNotAllowedError(GameServiceError):
    """The guild restricts games to other channels."""

    def __init__(self, channel_id: int, allowed: frozenset[int] = frozenset()) -> None:
        super().__init__(f"games are not allowed in channel {channel_id}")
        self.channel_id = channel_id
        self.allowed = allowed  # the channels where games are allowed


class HintNotAllowedError(GameRefusedError):
    """Hints are refused in rated games."""

    message = "no hints in rated game {game_id}"


class NoMoveToUndoError(GameRefusedError):
    """The user has no move on the board to take back."""

    message = "nothing to undo in game {game_id}"


class UndoPendingError(GameRefusedError):
    """An undo request in this game is already waiting for the opponent."""

    message = "an undo request is pending in game {game_id}"


class NoUndoRequestError(GameRefusedError):
    """No undo request to answer, or the game moved on since it was made."""

    message = "no undo request in game {game_id}"


class OutOfTimeError(GameServiceError):
    """The move came after the mover's deadline (before the runner's clock task saw it): it was not
    played, and the game ended as a loss on time for the mover."""

    def __init__(self, user_id: int, end: GameEnd) -> None:
        super().__init__(f"user {user_id} ran out of time in game {end.game.game_id}")
        self.game_id = end.game.game_id
        self.user_id = user_id  # who moved too late, and lost
        self.end = end  # the finished game (Termination.TIMEOUT), for the front-end to show


class NotReplaceableError(UserRefusedError):
    """Only a player's own game against the AI can be replaced by a new one."""

    message = "user {user_id} may not replace game {game_id}"


class StalePanelError(GameServiceError):
    """A tap on a private panel drawn for an older position of the game."""

    def __init__(self, game_id: int, version: int) -> None:
        super().__init__(f"panel of game {game_id} at version {version} is stale")
        self.game_id = game_id
        self.version = version  # the version the panel was drawn for


class NotationError(GameServiceError):
    """A move in the other notation: a lone column in a point game, or a point (or a column
    letter) where the gravity game numbers its columns."""

    def __init__(self, game: Game, width: int, *, typed_column: bool) -> None:
        super().__init__(f"{game} moves are not written that way")
        self.game = game
        self.width = width  # the board's columns (gravity: the numbers 1..width)
        self.typed_column = typed_column  # a column alone was given (else a point)


class RematchError(GameRefusedError):
    """A rematch was asked of a game that did not finish."""

    message = "no rematch of game {game_id}"


class AIFailedError(GameRefusedError):
    """The AI could not produce a move, even after a retry on a fresh worker."""

    message = "the AI failed in game {game_id}"
