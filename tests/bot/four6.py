"""The tests' own game, "four6": four in a row on a 6x6 board with gravity (columns 1-6,
discs, friendly only). Its specs only: registering them is a test's (``test_game_spec``) or,
in another process, the game module's (``tests.bot.four6_game``)."""

from __future__ import annotations

from bot.core.games import Buttons, Pieces, TableSpec
from engine import games as rules
from engine.games import GameSpec

FOUR6 = rules.new_game("four6")
RULES = GameSpec(FOUR6, win_length=4, width=6, height=6, gravity=True)
TABLE = TableSpec(FOUR6, "Four on six", Buttons.COLUMNS, Pieces.DISCS)
