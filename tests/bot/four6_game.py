"""The tests' game as a game module, the way ``GOMOKU_GAME_MODULES`` names one: importing it
registers the game. Only other processes import it (an AI pool's workers in
``test_game_spec``, a queue worker in ``test_queue_ai``): in the tests' own process a test
registers the game for itself (``tests.bot.four6.registered``)."""

from __future__ import annotations

from bot.core import games as tables
from engine import games as rules
from tests.bot.four6 import RULES, TABLE

rules.register(RULES)
tables.register(TABLE)
