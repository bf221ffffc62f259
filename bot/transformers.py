"""Slash-command option types: ``/place cell`` text into a point or a column, with autocomplete.

Discord validates nothing typed into a free-text option, so the transformer parses it here and
the service re-checks legality. Suggestions come from ``GameService.suggest_moves`` (empty
points near the recent moves of the channel's game, else of the member's puzzle, matching what
was typed); at most 25, as Discord allows.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Final

import discord
from discord import app_commands

from bot.host import Interaction, host_of
from engine.errors import InvalidPointError
from engine.types import COLUMNS, Point

__all__ = ["MAX_CHOICES", "Cell", "PointTransformer"]

MAX_CHOICES: Final = 25  # Discord refuses more autocomplete choices
# Suggestions not found in this long are not given at all: an autocomplete cannot be
# deferred, and one answered past Discord's 3 s (a database queueing a burst) is lost anyway.
SUGGEST_WAIT: Final = 1.5
_ECHO_LIMIT: Final = 100  # of a non-text value, only this much is kept for the reply
# ASCII: with Unicode case folding, [a-t] would also match U+017F (long s), U+0131 (dotless i)
# and U+212A (Kelvin sign), which are no column letters; \d would take Arabic-Indic digits.
_COLUMN_ONLY: Final = re.compile(r"\s*([a-t])\s*", re.IGNORECASE | re.ASCII)
_COLUMN_NUMBER: Final = re.compile(r"\s*([0-9]{1,2})\s*", re.ASCII)


@dataclass(frozen=True, slots=True)
class Cell:
    """What a player typed: a point (``h8``), or only a column (``d``) for gravity games."""

    point: Point | None  # set for "h8"
    column: int | None  # set for a column number ("4": gravity games) or a lone letter, 0-based
    letter: bool = False  # the column was typed as a letter (which no game takes alone)

    @classmethod
    def parse(cls, text: str) -> Cell:
        """``h8``/``H 8`` -> a point; ``4`` -> column 3; ``d`` -> column 3, as a letter.

        Raises:
            InvalidPointError: none of these forms (it carries the text).
        """
        number = _COLUMN_NUMBER.fullmatch(text)
        if number is not None:
            return cls(None, int(number.group(1)) - 1)
        match = _COLUMN_ONLY.fullmatch(text)
        if match is not None:
            return cls(None, COLUMNS.index(match.group(1).lower()), letter=True)
        try:
            return cls(Point.parse(text), None)
        except ValueError as error:
            # Point.parse lets letters past "t" through as a bare ValueError ("z9").
            if isinstance(error, InvalidPointError):
                raise
            raise InvalidPointError(text) from error


class PointTransformer(app_commands.Transformer[discord.Client]):
    """``/place cell`` (the one point argument): parses the text into a ``Cell``; suggests empty
    points near the action."""

    async def transform(self, interaction: Interaction, value: str, /) -> Cell:
        """Parse what was typed (errors reach ``report`` chained under TransformerError)."""
        if not isinstance(value, str):
            # Discord sends a string for a string option; a forged request may not.
            raise InvalidPointError(str(value)[:_ECHO_LIMIT])
        return Cell.parse(value)

    async def autocomplete(  # type: ignore[override]
        self, interaction: Interaction, value: str, /
    ) -> list[app_commands.Choice[str]]:
        """Up to 25 legal points that start with what was typed, nearest the last moves: of this
        channel's game, else of the member's puzzle."""
        if interaction.channel_id is None or not isinstance(value, str):
            return []
        try:
            names = await asyncio.wait_for(
                host_of(interaction).service.suggest_moves(
                    interaction.channel_id,
                    value.strip(),
                    limit=MAX_CHOICES,
                    guild_id=interaction.guild_id,
                    user_id=interaction.user.id,
                ),
                SUGGEST_WAIT,
            )
        except TimeoutError:
            return []  # the player types the point instead
        names = names[:MAX_CHOICES]
        return [app_commands.Choice(name=name.upper(), value=name) for name in names]
