"""The tests' own game, "four6": four in a row on a 6x6 board with gravity (columns 1-6,
discs, friendly only). Its specs only: registering them is a test's (``registered``) or, in
another process, the game module's (``tests.bot.four6_game``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from bot.core import games as tables
from bot.core.games import Buttons, Pieces, TableSpec
from engine import games as rules
from engine.games import GameSpec
from engine.types import Game

FOUR6 = rules.new_game("four6")
RULES = GameSpec(FOUR6, win_length=4, width=6, height=6, gravity=True)
TABLE = TableSpec(FOUR6, "Four on six", Buttons.COLUMNS, Pieces.DISCS)


@contextlib.contextmanager
def registered() -> Iterator[Game]:
    """The test game, registered with the engine and the bot until the block ends."""
    rules.register(RULES)
    tables.register(TABLE)
    try:
        yield FOUR6
    finally:
        tables.unregister(FOUR6)
        rules.unregister(FOUR6)
