"""The games the engine plays, each described by a spec, in the manner of python-chess's
variants: a new m,n,k game is one ``register`` call, and every layer reads the spec rather
than branching on the game's name.

A spec holds what the rules need: the board's size (fixed, or a square side the player
chooses), how many in a row win, whether stones drop down columns, and which ``Rule`` the
game may be played under. ``bot.core.games`` adds what a front end needs (buttons, looks,
rating).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import UnsupportedBoardError
from engine.types import Game, Rule, add_game

__all__ = [
    "MAX_SIZE",
    "MIN_SIZE",
    "GameSpec",
    "game_spec",
    "game_specs",
    "new_game",
    "register",
    "unregister",
]

MIN_SIZE = 5  # smallest Gomoku board offered
MAX_SIZE = 20  # Gomocup's freestyle board


@dataclass(frozen=True, slots=True)
class GameSpec:
    """The rules of one game.

    ``sizes`` is the range of square sides a player may choose (``default_size`` when none
    is named); None means the board is always ``width`` x ``height``.
    """

    game: Game
    win_length: int  # stones in a row that win
    width: int
    height: int
    gravity: bool = False  # a move names a column and the stone drops to its lowest empty cell
    sizes: range | None = None
    rules: tuple[Rule, ...] = (Rule.FREESTYLE,)  # the first is the game's own

    @property
    def default_size(self) -> int:
        """The side of the board when none is named (the width for a fixed board)."""
        return self.width

    @property
    def column_notation(self) -> bool:
        """Whether a move is written as a column number (gravity) rather than a cell name."""
        return self.gravity

    def board_size(self, size: int | None) -> tuple[int, int]:
        """The (width, height) of a board of side ``size`` (None: the default).

        Raises:
            UnsupportedBoardError: for a size the game does not take.
        """
        if self.sizes is None:
            if size is not None and size != self.width:
                raise UnsupportedBoardError(f"{self.game.value} is played on one size only")
            return self.width, self.height
        side = self.default_size if size is None else size
        if side not in self.sizes:
            first, last = self.sizes[0], self.sizes[-1]
            name = self.game.value.capitalize()
            raise UnsupportedBoardError(f"size {side} ({name} takes {first}..{last})")
        return side, side


_SPECS: dict[Game, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    """Add ``spec`` to the games every layer offers (replacing one of the same name)."""
    _SPECS[spec.game] = spec
    return spec


def unregister(game: Game) -> None:
    """Withdraw ``game`` (a test's own game, say); its ``Game`` value keeps its name."""
    _SPECS.pop(game, None)


def game_spec(game: Game | str) -> GameSpec:
    """The spec of ``game``.

    Raises:
        UnsupportedBoardError: for a game nobody registered.
    """
    try:
        return _SPECS[Game(game)]
    except (ValueError, KeyError):
        raise UnsupportedBoardError(f"game {game!r}") from None


def game_specs() -> tuple[GameSpec, ...]:
    """Every registered game, in the order they were registered."""
    return tuple(_SPECS.values())


def new_game(name: str) -> Game:
    """The ``Game`` value for a game defined outside the engine (pass it to a ``GameSpec``)."""
    return add_game(name)


register(GameSpec(Game.GOMOKU, 5, 15, 15, sizes=range(MIN_SIZE, MAX_SIZE + 1), rules=tuple(Rule)))
register(GameSpec(Game.TICTACTOE, 3, 3, 3))
register(GameSpec(Game.CONNECT4, 4, 7, 6, gravity=True))
register(GameSpec(Game.GRAVITY3, 3, 4, 4, gravity=True))
