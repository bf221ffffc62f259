"""What happens to games, as the service stores it: typed, frozen events, and their bus.

``ServiceCore`` publishes one event for every stored change of a game, synchronously, from
the one place every change passes (``ServiceCore._remember``), and a ``TurnWarning`` when a
player is warned. Every event carries ``game``, the state after it.

The events:

- ``ChallengeIssued``: a challenge waits for its answer (its expiry clock runs).
- ``GameStarted``: a game became active: against the AI, an accepted challenge, a rematch,
  a terminal game. The AI may be to move first.
- ``Moved``: a stone or an opening step was stored, a player's (``via`` names the front end
  it came through, when the caller said) or the AI's (``by_ai``).
- ``TakenBack``: moves were taken back (an undo).
- ``UndoAsked``: a player asked the opponent to let moves be taken back; no move changed.
- ``UndoAnswered``: the request was answered: allowed (after its ``TakenBack``), refused by
  the opponent, or withdrawn by the player who asked.
- ``GameEnded``: a game finished (five, resignation, time, idle, a moderator) or a
  challenge closed (declined, withdrawn, expired); ``by_clock`` when time ended it.
- ``TurnWarning`` (``bot.core.service.states``): a player has used 80% of their turn time.
- ``Refreshed``: this process read a newer state than it knew (another process wrote it, or
  a bookkeeping change such as the board's message moved).

Who subscribes: ``bot.core.runner.GameRunner`` (starts the AI when it is due after a
player's move or a start, and re-plans the clocks), the web board's hub (sends every state to
the pages that show it), the web board (asks the opponent's pages to answer an undo request,
and tells both players' pages the answer),
the Discord table (draws what no interaction of its own answers: the AI's moves, the clocks'
ends and warnings, moves, takebacks and undo requests made on the web board, and the answers
given there to a request it shows), the game bus (tells other processes) and the terminal
(prints what the clocks did). Subscribers are called synchronously under the game's lock: they
only note things and start tasks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeAlias

from bot.core.service.states import GameState, RatingChange, TurnWarning
from engine.types import Move

__all__ = [
    "ChallengeIssued",
    "Event",
    "EventBus",
    "GameEnded",
    "GameStarted",
    "Moved",
    "Refreshed",
    "Subscriber",
    "TakenBack",
    "TurnWarning",
    "UndoAnswered",
    "UndoAsked",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ChallengeIssued:
    """A challenge was stored; it expires at ``game.deadline``."""

    game: GameState


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A game became active (its first turn's clock, if any, runs)."""

    game: GameState


@dataclass(frozen=True, slots=True)
class Moved:
    """A stone or an opening step was stored."""

    game: GameState  # after the move; finished if it ended the game
    move: Move  # the stone (after an opening step that placed none: the last stone)
    ratings: tuple[RatingChange, ...] = ()  # when the move finished a rated game
    step: str | None = None  # an opening step that placed no stone ("white", "two", "3")
    by_ai: bool = False
    via: str | None = None  # the front end a player's move came through ("web", ...)


@dataclass(frozen=True, slots=True)
class TakenBack:
    """Moves were taken back."""

    game: GameState
    undone: tuple[Move, ...]  # last first
    via: str | None = None  # the front end of the undo, or of the request's answer


@dataclass(frozen=True, slots=True)
class UndoAsked:
    """A player asked to take back moves; the opponent answers (``AnswerUndo``)."""

    game: GameState  # unchanged by the request
    requester: int
    responder: int
    moves: int  # how many moves would go
    via: str | None = None  # the front end the request came through


@dataclass(frozen=True, slots=True)
class UndoAnswered:
    """An undo request was answered: allowed (published after its ``TakenBack``), refused by
    the opponent, or withdrawn by the player who asked (``by == requester``)."""

    game: GameState  # after the answer: the takeback's state when it was allowed
    requester: int
    responder: int
    by: int  # who answered: the responder, or the requester withdrawing the request
    accepted: bool
    via: str | None = None  # the front end the answer came through
    # The Discord message that posted the request, as stored (None: not noted): a process
    # that does not remember it, a restarted one, edits it all the same.
    channel_id: int | None = None
    message_id: int | None = None

    @property
    def withdrawn(self) -> bool:
        """The player who asked took the request back."""
        return self.by == self.requester and self.by != self.responder


@dataclass(frozen=True, slots=True)
class GameEnded:
    """A game finished or a challenge closed without a move."""

    game: GameState
    ratings: tuple[RatingChange, ...] = ()
    by_clock: bool = False  # a turn's time, an idle game or a challenge's expiry ended it
    via: str | None = None  # the front end of a resignation, or of a move that came too late


@dataclass(frozen=True, slots=True)
class Refreshed:
    """A newer state of a game than this process knew."""

    game: GameState


Event: TypeAlias = (
    ChallengeIssued
    | GameStarted
    | Moved
    | TakenBack
    | UndoAsked
    | UndoAnswered
    | GameEnded
    | TurnWarning
    | Refreshed
)
Subscriber: TypeAlias = Callable[[Event], None]


class EventBus:
    """The subscribers of one service, called in the order they subscribed. A subscriber may
    name the kinds of event it acts on: it is not called for the others (a move reaches only
    the subscribers of moves). The subscribers of each kind are listed once, when someone
    subscribes or leaves, not at each event."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[Subscriber, tuple[type[Event], ...] | None]] = []
        self._by_kind: dict[type, tuple[Subscriber, ...]] = {}

    def subscribe(self, subscriber: Subscriber, kinds: Iterable[type[Event]] | None = None) -> None:
        """Call ``subscriber`` with every event from now on, or only with those of ``kinds``."""
        self._subscribers.append((subscriber, None if kinds is None else tuple(kinds)))
        self._by_kind = {}

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Stop calling ``subscriber`` (no error if it was not subscribed)."""
        for index, (subscribed, _) in enumerate(self._subscribers):
            if subscribed == subscriber:
                del self._subscribers[index]
                self._by_kind = {}
                return

    def _of_kind(self, kind: type) -> tuple[Subscriber, ...]:
        subscribers = tuple(
            subscriber
            for subscriber, kinds in self._subscribers
            if kinds is None or issubclass(kind, kinds)
        )
        self._by_kind[kind] = subscribers
        return subscribers

    def publish(self, event: Event) -> None:
        """Hand ``event`` to every subscriber of its kind. One that fails is logged and the
        others still get it: the change is stored whatever a subscriber does. One that
        subscribes or leaves meanwhile takes effect from the next event."""
        kind = type(event)
        subscribers = self._by_kind.get(kind)
        if subscribers is None:
            subscribers = self._of_kind(kind)
        for subscriber in subscribers:
            try:
                subscriber(event)
            except Exception:
                log.exception("a subscriber failed on %s", kind.__name__)
