"""Slash-command option types: ``/place cell`` text into a point or a column, with autocomplete.

Discord validates nothing typed into a free-text option, so the transformer parses it here and
the service re-checks legality. Suggestions come from ``GameService.suggest_points`` (empty
points near the recent moves, matching what was typed); at most 25, as Discord allows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import discord
from discord import app_commands

from engine.errors import InvalidPointError
from engine.types import COLUMNS, Point

if TYPE_CHECKING:
    from bot.client import GomokuBot

__all__ = ["MAX_CHOICES", "Cell", "PointTransformer"]

MAX_CHOICES: Final = 25  # Discord refuses more autocomplete choices
_ECHO_LIMIT: Final = 100  # of a non-text value, only this much is kept for the reply
# ASCII: with Unicode case folding, [a-t] would also match U+017F (long s), U+0131 (dotless i)
# and U+212A (Kelvin sign), which are no column letters.
_COLUMN_ONLY: Final = re.compile(r"\s*([a-t])\s*", re.IGNORECASE | re.ASCII)


@dataclass(frozen=True, slots=True)
class Cell:
    """What a player typed: a point (``h8``), or only a column (``d``) for gravity games."""

    point: Point | None  # set for "h8"
    column: int | None  # set for a lone column letter, 0-based

    @classmethod
    def parse(cls, text: str) -> Cell:
        """``h8``/``H 8`` -> a point; ``d`` -> column 3.

        Raises:
            InvalidPointError: neither form (it carries the text).
        """
        match = _COLUMN_ONLY.fullmatch(text)
        if match is not None:
            return cls(None, COLUMNS.index(match.group(1).lower()))
        try:
            return cls(Point.parse(text), None)
        except ValueError as error:
            # Point.parse lets letters past "t" through as a bare ValueError ("z9").
            if isinstance(error, InvalidPointError):
                raise
            raise InvalidPointError(text) from error


class PointTransformer(app_commands.Transformer["GomokuBot"]):
    """``/place cell``: parses the text into a ``Cell``; suggests empty points near the action."""

    async def transform(self, interaction: discord.Interaction[GomokuBot], value: str, /) -> Cell:
        """Parse what was typed (errors reach ``report`` chained under TransformerError)."""
        if not isinstance(value, str):
            # Discord sends a string for a string option; a forged request may not.
            raise InvalidPointError(str(value)[:_ECHO_LIMIT])
        return Cell.parse(value)

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[GomokuBot], value: str, /
    ) -> list[app_commands.Choice[str]]:
        """Up to 25 legal points of this channel's game that start with what was typed."""
        if interaction.channel_id is None or not isinstance(value, str):
            return []
        points = await interaction.client.service.suggest_points(
            interaction.channel_id, value.strip(), limit=MAX_CHOICES
        )
        names = [str(point) for point in points[:MAX_CHOICES]]
        return [app_commands.Choice(name=name.upper(), value=name) for name in names]
