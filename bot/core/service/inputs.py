"""One path in: a player's input to a game, by game reference, from any front end.

``GameService.act(ref, user_id, action, via=...)`` takes every input a player gives a game:
``Place`` a stone, ``Drop`` one in a column, ``Choose`` an opening step, ``Resign``,
``AskUndo`` and ``AnswerUndo``. Slash commands and buttons (``bot.table``, ``bot.views``,
``bot.cogs.play``), the web board's socket and the terminal all come through it. ``ref``
names the game: by id (a button, a web page's pass), by channel (``/place`` names none, the
channel's open game is meant), or both (the id guards against acting on a newer game in the
channel). ``via`` is the front end's name, carried by the events the input causes
(``bot.core.service.events``), so each front end knows what it answered itself.

What happens after the input (the AI's reply, the clocks, the other front ends' drawing) is
the core runner's and the subscribers' (``bot.core.runner``), never the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, overload

from bot.core.service.errors import NoActiveGameError
from bot.core.service.games import GameUseCases
from bot.core.service.moves import MoveUseCases
from bot.core.service.states import GameEnd, MoveResult, UndoRequest, UndoResult
from engine.types import Point

__all__ = [
    "Action",
    "AnswerUndo",
    "AskUndo",
    "Choose",
    "Drop",
    "GameRef",
    "InputUseCases",
    "Place",
    "Reply",
    "Resign",
]


@dataclass(frozen=True, slots=True)
class GameRef:
    """Which game: by ``game_id``, by the open game of ``channel_id``, or both (the id must
    then be the channel's open game)."""

    game_id: int | None = None
    channel_id: int | None = None

    def __post_init__(self) -> None:
        if self.game_id is None and self.channel_id is None:
            raise ValueError("a game reference needs a game id or a channel")


@dataclass(frozen=True, slots=True)
class Place:
    """A stone on ``point`` (an opening's stone too)."""

    point: Point
    version: int | None = None  # a private panel's: refused once the game moved on
    points_only: bool = False  # typed: a gravity game's columns are numbers, not points


@dataclass(frozen=True, slots=True)
class Drop:
    """A stone dropped in ``column`` (0-based) of a gravity game."""

    column: int
    letter: bool = False  # the column was typed as a letter (refused: columns are numbers)


@dataclass(frozen=True, slots=True)
class Choose:
    """An opening step that is not a stone: a colour, "two", "offer", or Soosõrv's count."""

    word: str


@dataclass(frozen=True, slots=True)
class Resign:
    """The player gives up (a user at both sides: for the side to move)."""


@dataclass(frozen=True, slots=True)
class AskUndo:
    """Take back the player's last move (against a person: a request)."""


@dataclass(frozen=True, slots=True)
class AnswerUndo:
    """Agree to (or refuse, or withdraw) the undo request waiting in the game."""

    accept: bool


Action: TypeAlias = Place | Drop | Choose | Resign | AskUndo | AnswerUndo
Reply: TypeAlias = MoveResult | GameEnd | UndoResult | UndoRequest | None


class InputUseCases(GameUseCases, MoveUseCases):
    """``act``: the one entry for a player's input (see the module doc)."""

    @overload
    async def act(
        self, ref: GameRef, user_id: int, action: Place | Drop | Choose, *, via: str | None = None
    ) -> MoveResult: ...
    @overload
    async def act(
        self, ref: GameRef, user_id: int, action: Resign, *, via: str | None = None
    ) -> GameEnd: ...
    @overload
    async def act(
        self, ref: GameRef, user_id: int, action: AskUndo, *, via: str | None = None
    ) -> UndoResult | UndoRequest: ...
    @overload
    async def act(
        self, ref: GameRef, user_id: int, action: AnswerUndo, *, via: str | None = None
    ) -> UndoResult | None: ...
    async def act(
        self, ref: GameRef, user_id: int, action: Action, *, via: str | None = None
    ) -> Reply:
        """Apply ``action`` of ``user_id`` to the game ``ref`` names; what it returns is what
        the per-action use case returns: ``MoveResult`` (Place, Drop, Choose), ``GameEnd``
        (Resign), ``UndoResult`` or ``UndoRequest`` (AskUndo), ``UndoResult`` or None
        (AnswerUndo: refused or withdrawn). Raises what those raise."""
        channel, game = ref.channel_id, ref.game_id
        match action:
            case Place(point, version, points_only):
                return await self.place(
                    channel,
                    user_id,
                    point,
                    game_id=game,
                    version=version,
                    points_only=points_only,
                    via=via,
                )
            case Drop(column, letter):
                return await self.drop(
                    channel, user_id, column, game_id=game, letter=letter, via=via
                )
            case Choose(word):
                return await self.opening_choice(await self._game_of(ref), user_id, word, via=via)
            case Resign():
                return await self.resign(channel, user_id, game_id=game, via=via)
            case AskUndo():
                return await self.undo(channel, user_id, game_id=game, via=via)
            case AnswerUndo(accept):
                game_id = await self._game_of(ref)
                return await self.answer_undo(game_id, user_id, accept=accept, via=via)
        raise TypeError(f"not a player's action: {action!r}")

    async def _game_of(self, ref: GameRef) -> int:
        if ref.game_id is not None:
            return ref.game_id
        assert ref.channel_id is not None
        record = await self.repository.open_game_in_channel(ref.channel_id)
        if record is None:
            raise NoActiveGameError(ref.channel_id)
        return record.id
