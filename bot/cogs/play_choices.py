"""The option choices of the commands, named for people (``bot.text.words`` holds the words).

The games are offered as hosted when the command tree is built (``game_choices``,
``leaderboard_choices``), so a game a module registers after this one was imported is among
them: the commands that offer them are made by their cogs' ``__init__`` (``add_before``).
"""

from __future__ import annotations

import functools
from typing import Any, Final

from discord import app_commands

from bot.core.games import table_specs
from bot.core.service.errors import InvalidOptionError
from bot.text import words
from engine.types import Game, Level, Rule

__all__ = [
    "COLOURS",
    "LEVELS",
    "LOOKS",
    "PUZZLES",
    "RULES",
    "add_before",
    "game_choices",
    "hosted_game",
    "leaderboard_choices",
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


PUZZLES: Final = "puzzles"  # the leaderboard of the puzzle solvers, beside the games'


def leaderboard_choices() -> list[app_commands.Choice[str]]:
    """The hosted games' leaderboards and the puzzle solvers'."""
    return [*game_choices(), app_commands.Choice(name=words.PUZZLE_CHOICE, value=PUZZLES)]


def hosted_game(value: str) -> Game:
    """The hosted game named ``value`` (a request can carry a game withdrawn since the
    command's choices were made, or anything).

    Raises:
        InvalidOptionError: no hosted game has that name.
    """
    hosted = [spec.game for spec in table_specs()]
    for game in hosted:
        if game.value == value:
            return game
    raise InvalidOptionError("game", value, ", ".join(game.value for game in hosted))


def add_before(
    group: app_commands.Group, command: app_commands.Command[Any, ..., Any], name: str
) -> None:
    """Add ``command`` to ``group`` just before its subcommand ``name``: the client lists a
    group's subcommands in their order."""
    children = group.commands
    later = children[[child.name for child in children].index(name) :]
    for child in later:
        group.remove_command(child.name)
    group.add_command(command)
    for child in later:
        group.add_command(child)


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
