"""The option choices of the commands, named for people (``bot.text.words`` holds the words)."""

from __future__ import annotations

import functools
from typing import Final

from discord import app_commands

from bot.core.games import table_specs
from bot.text import words
from engine.types import Level, Rule

__all__ = [
    "COLOURS",
    "GAMES",
    "LEADERBOARDS",
    "LEVELS",
    "LOOKS",
    "PUZZLES",
    "RULES",
    "game_choices",
]


def game_choices() -> list[app_commands.Choice[str]]:
    """The games hosted now (``bot.core.games``), in the order registered: a game the
    catalogues name by their words, another by its spec's name."""
    return [
        app_commands.Choice(
            name=words.GAME_CHOICES.get(spec.game, spec.name), value=spec.game.value
        )
        for spec in table_specs()
    ]


GAMES: Final = game_choices()  # the games shipped (the club's and leaderboard's commands)
PUZZLES: Final = "puzzles"  # the leaderboard of the puzzle solvers, beside the games'
LEADERBOARDS: Final = [*GAMES, app_commands.Choice(name=words.PUZZLE_CHOICE, value=PUZZLES)]
LOOKS: Final = [
    app_commands.Choice(name=name, value=value) for value, name in words.LOOK_CHOICES.items()
]
RULES: Final = [
    app_commands.Choice(name=words.RULE_CHOICES[rule], value=rule.value) for rule in Rule
]
# The level choices quote figures: each language's line is rendered, not looked up.
LEVELS: Final = [
    app_commands.Choice(
        name=app_commands.locale_str(
            words.LEVEL_CHOICES[level], render=functools.partial(words.level_choice, level)
        ),
        value=level.value,
    )
    for level in Level
]
COLOURS: Final = [
    app_commands.Choice(name=name, value=value) for value, name in words.COLOUR_CHOICES.items()
]
