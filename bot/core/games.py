"""What a front end needs to host each game, beside the engine's rules (``engine.games``).

A table spec says how a player enters a move (a Move panel, one button per column, or a
button per cell), what the pieces look like (stones, X and O, coloured discs), which games
between people may be rated, and whether opening rules apply. The service, the renderers,
the Discord views, the web board and the terminal read it instead of asking which game is
on the table, so a new game is an ``engine.games.register`` call and a ``register`` here.

A game defined outside the bot is a module that makes both calls when imported; every
process that meets the game imports it (``load_game_modules``): the bot and the terminal at
start-up, each AI pool worker in its initializer, each queue worker
(``GOMOKU_GAME_MODULES``, see docs/development.md).
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.board import Board
from engine.errors import UnsupportedBoardError
from engine.games import GameSpec, game_spec
from engine.types import Game

__all__ = [
    "Buttons",
    "GameModuleError",
    "Pieces",
    "TableSpec",
    "game_named",
    "load_game_modules",
    "register",
    "table_spec",
    "table_specs",
    "unregister",
]


class Buttons(enum.Enum):
    """How a player enters a move on the Discord board."""

    PANEL = "panel"  # one Move button opening a panel to pick a cell (boards of any size)
    COLUMNS = "columns"  # one button per column: the stone drops (gravity games)
    GRID = "grid"  # the board is the buttons: one per cell (up to 5x5)


class Pieces(enum.Enum):
    """What the pieces look like, for every renderer."""

    STONES = "stones"  # black and white stones on a wooden board
    MARKS = "marks"  # X and O in a grid
    DISCS = "discs"  # red and yellow discs in a blue frame


@dataclass(frozen=True, slots=True)
class TableSpec:
    """How the bot hosts one game. ``name`` is the game's English name, the one shown when the
    catalogues (``bot.text.words``) have none for it."""

    game: Game
    name: str
    buttons: Buttons
    pieces: Pieces
    rated_sizes: frozenset[int] = field(default_factory=frozenset)  # board widths rated
    openings: bool = False  # an opening rule (swap2, ...) may be chosen
    move_numbers: bool = False  # the image may number the stones in the order played
    aliases: frozenset[str] = field(default_factory=frozenset)  # more names a player may type
    reviewable: bool = False  # /gomoku review can analyse a finished game

    @property
    def rules(self) -> GameSpec:
        """The engine's spec of the game (read where every board is drawn: the one noted
        when the game was registered here, without converting the name to a ``Game``)."""
        rules = _RULES.get(self.game)
        return game_spec(self.game) if rules is None else rules

    def ratable(self, board: Board) -> bool:
        """Whether a game between people on ``board`` may be rated."""
        return board.width in self.rated_sizes


_SPECS: dict[str, TableSpec] = {}  # by Game, which is a str: its name finds it too
_RULES: dict[str, GameSpec] = {}  # the engine's spec of each game hosted, as registered


class GameModuleError(Exception):
    """A module named to register games could not be imported."""

    def __init__(self, module: str, error: BaseException) -> None:
        super().__init__(
            f"GOMOKU_GAME_MODULES: cannot import {module!r} ({type(error).__name__}: {error})"
        )
        self.module = module


def load_game_modules(modules: Iterable[str]) -> None:
    """Import each of ``modules``, which register their games when imported (once per
    process: Python imports a module once).

    Raises:
        GameModuleError: one could not be imported (its own error is the cause).
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception as error:
            raise GameModuleError(module, error) from error


def register(spec: TableSpec) -> TableSpec:
    """Host ``spec``'s game (its rules must be registered with ``engine.games`` first)."""
    _RULES[spec.game] = game_spec(spec.game)
    _SPECS[spec.game] = spec
    return spec


def unregister(game: Game) -> None:
    """Stop hosting ``game`` (a test's own game, say)."""
    _SPECS.pop(game, None)
    _RULES.pop(game, None)


def table_specs() -> tuple[TableSpec, ...]:
    """Every game the bot hosts, in the order they were registered."""
    return tuple(_SPECS.values())


def game_named(word: str) -> Game | None:
    """The game a player means by ``word`` (its name or an alias, any case), if any."""
    word = word.lower()
    for spec in _SPECS.values():
        if word == spec.game.value or word in spec.aliases:
            return spec.game
    return None


def table_spec(game: Game | str) -> TableSpec:
    """How the bot hosts ``game``.

    Raises:
        UnsupportedBoardError: for a game nobody registered.
    """
    spec = _SPECS.get(game)  # a Game or its name: they hash and compare alike
    if spec is not None:  # every board drawn asks, several times: no conversion
        return spec
    try:
        return _SPECS[game_spec(game).game]
    except KeyError:
        raise UnsupportedBoardError(f"game {game!r}") from None


# Gomoku on 15x15 is rated (each rule apart), and Connect Four: tic-tac-toe and gravity three
# are solved, and other Gomoku sizes are played too seldom to rank anyone by.
register(
    TableSpec(
        Game.GOMOKU,
        "Gomoku",
        Buttons.PANEL,
        Pieces.STONES,
        rated_sizes=frozenset({15}),
        openings=True,
        move_numbers=True,
        reviewable=True,
    )
)
register(
    TableSpec(
        Game.TICTACTOE,
        "Tic-tac-toe",
        Buttons.GRID,
        Pieces.MARKS,
        aliases=frozenset({"tic-tac-toe", "ttt"}),
    )
)
register(
    TableSpec(
        Game.CONNECT4,
        "Connect Four",
        Buttons.COLUMNS,
        Pieces.DISCS,
        rated_sizes=frozenset({7}),
        aliases=frozenset({"connectfour", "c4"}),
    )
)
register(TableSpec(Game.GRAVITY3, "Gravity three", Buttons.COLUMNS, Pieces.DISCS))
