"""Playing: ``/gomoku start|board|resign|undo|hint|export`` and ``/place <cell>``.

Each command: transform the input, make one service call, render, respond. The rules live in
the engine, the refusals in the service, the words for refusals in ``bot.errors``.
"""

from __future__ import annotations

import io
from enum import StrEnum
from typing import TYPE_CHECKING, Final, TypeAlias, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.admin import AdminCommands
from bot.cogs.stats import StatsCommands
from bot.reporting import needs_channel_permissions
from bot.service import (
    DEFAULT_LEVEL,
    ColourChoice,
    InvalidOptionError,
    NotAPlayerError,
    UndoResult,
)
from bot.transformers import Cell, PointTransformer
from bot.views import resign_view, undo_view
from engine.types import Game, Level, Rule

if TYPE_CHECKING:
    from bot.client import GomokuBot

__all__ = ["LEVELS", "GomokuCog", "PlaceCog", "setup"]

Interaction: TypeAlias = "discord.Interaction[GomokuBot]"
E = TypeVar("E", bound=StrEnum)

_GAMES: Final = [
    app_commands.Choice(name="Gomoku (five in a row)", value=Game.GOMOKU.value),
    app_commands.Choice(name="Tic-tac-toe", value=Game.TICTACTOE.value),
    app_commands.Choice(name="Connect Four", value=Game.CONNECT4.value),
    app_commands.Choice(name="Gravity three (4x4)", value=Game.GRAVITY3.value),
]
_RULES: Final = [app_commands.Choice(name=rule.value, value=rule.value) for rule in Rule]
LEVELS: Final = tuple(level.value for level in Level)
_LEVELS: Final = [app_commands.Choice(name=level, value=level) for level in LEVELS]
_COLOURS: Final = [app_commands.Choice(name=colour, value=colour) for colour in ColourChoice.ALL]
_MOVE_LIST_LIMIT: Final = 1900  # leaves room for the code fence within Discord's 2000


def _choice(kind: type[E], option: str, value: str) -> E:
    # The client offers only the listed choices, but a request can still carry anything.
    try:
        return kind(value)
    except ValueError:
        raise InvalidOptionError(option, value) from None


@app_commands.guild_only()
class GomokuCog(
    StatsCommands,
    AdminCommands,
    commands.GroupCog,
    group_name="gomoku",
    group_description="Play Gomoku, tic-tac-toe and Connect Four",
):
    """The ``/gomoku`` group; stats and settings come from their mixins."""

    def __init__(self, bot: GomokuBot) -> None:
        self.bot = bot

    @app_commands.command(name="start")
    @app_commands.describe(
        opponent="Challenge this member (leave empty to play the AI)",
        game="Which game (default Gomoku)",
        rule="Gomoku rule (default: this server's setting)",
        level="AI strength when playing the AI (default medium)",
        size="Gomoku board size, 5 to 20 (default 15)",
        colour="Your colour; black moves first (default: a coin toss)",
    )
    @app_commands.choices(game=_GAMES, rule=_RULES, level=_LEVELS, colour=_COLOURS)
    @needs_channel_permissions()
    async def start(
        self,
        interaction: Interaction,
        opponent: discord.Member | None = None,
        game: str = Game.GOMOKU.value,
        rule: str | None = None,
        level: str = DEFAULT_LEVEL,
        size: app_commands.Range[int, 5, 20] | None = None,
        colour: str = ColourChoice.RANDOM,
    ) -> None:
        """Start a game against the AI, or challenge someone."""
        assert interaction.channel_id is not None  # guild_only
        # Any bot as opponent means "play me": other bots cannot press buttons.
        opponent_id = None if opponent is None or opponent.bot else opponent.id
        start = self.bot.service.start(
            channel_id=interaction.channel_id,
            guild_id=interaction.guild_id,
            user_id=interaction.user.id,
            opponent=opponent_id,
            game=_choice(Game, "game", game),
            rule=None if rule is None else _choice(Rule, "rule", rule),
            level=level,
            size=size,
            colour=colour,
        )
        view = await self.bot.in_time(interaction, start, thinking=True)
        self.bot.wake_deadlines(view)
        if view.is_ai_turn and not interaction.response.is_done():
            await interaction.response.defer(thinking=True)
            await self.bot.respond_with_board(interaction, view)
            await self.bot.play_ai(view.game_id, interaction=interaction)
        else:
            await self.bot.respond_with_board(interaction, view)

    @app_commands.command(name="board")
    @needs_channel_permissions()
    async def board(self, interaction: Interaction) -> None:
        """Post this channel's game board again, at the bottom."""
        assert interaction.channel_id is not None
        view = await self.bot.service.board(interaction.channel_id)
        await self.bot.respond_with_board(interaction, view, replace=True)

    @app_commands.command(name="resign")
    async def resign(self, interaction: Interaction) -> None:
        """Resign this channel's game (asks you to confirm)."""
        assert interaction.channel_id is not None
        view = await self.bot.service.board(interaction.channel_id)
        if interaction.user.id not in view.humans:
            raise NotAPlayerError(interaction.user.id, view.game_id)
        await interaction.response.send_message(
            "Resign this game? Your opponent wins.", view=resign_view(view.game_id), ephemeral=True
        )

    @app_commands.command(name="undo")
    @needs_channel_permissions()
    async def undo(self, interaction: Interaction) -> None:
        """Take back your last move (against a person they must agree)."""
        assert interaction.channel_id is not None
        outcome = await self.bot.in_time(
            interaction,
            self.bot.service.undo(interaction.channel_id, interaction.user.id),
            ephemeral=True,
            thinking=True,
        )
        deferred = interaction.response.is_done()  # privately: the write was slow
        if isinstance(outcome, UndoResult):
            text = f"Took back {len(outcome.undone)} moves."
            if deferred:
                await interaction.edit_original_response(content=text)
            else:
                await interaction.response.send_message(text, ephemeral=True)
            await self.bot.show_game(outcome.game)
            return
        content = (
            f"<@{outcome.responder}>, <@{outcome.requester}> asks to take back their last move."
        )
        view = undo_view(outcome.game.game_id)
        mentions = discord.AllowedMentions(users=[discord.Object(outcome.responder)])
        if not deferred:
            await interaction.response.send_message(content, view=view, allowed_mentions=mentions)
            return
        # The request is for the opponent to see: into the channel, not the private reply.
        channel = self.bot.get_partial_messageable(
            interaction.channel_id, guild_id=interaction.guild_id
        )
        await channel.send(content, view=view, allowed_mentions=mentions)
        await interaction.delete_original_response()

    @app_commands.command(name="hint")
    async def hint(self, interaction: Interaction) -> None:
        """Ask the AI for a move suggestion (not in rated games)."""
        assert interaction.channel_id is not None
        await interaction.response.defer(ephemeral=True, thinking=True)
        hint = await self.bot.service.hint(interaction.channel_id, interaction.user.id)
        await interaction.edit_original_response(
            content=f"The AI suggests **{str(hint.point).upper()}**."
        )

    @app_commands.command(name="export")
    async def export(self, interaction: Interaction) -> None:
        """Download this channel's game as an SGF file with its move list."""
        assert interaction.channel_id is not None
        export = await self.bot.service.export(interaction.channel_id)
        moves = export.moves or "(no moves)"
        if len(moves) > _MOVE_LIST_LIMIT:
            moves = moves[: _MOVE_LIST_LIMIT - 1] + "…"
        await interaction.response.send_message(
            f"```\n{moves}\n```",
            file=discord.File(io.BytesIO(export.sgf.encode()), filename=export.filename),
            ephemeral=True,
        )


class PlaceCog(commands.Cog):
    """``/place``: the one top-level command, so a move is quick to type."""

    def __init__(self, bot: GomokuBot) -> None:
        self.bot = bot

    @app_commands.command(name="place")
    @app_commands.describe(cell="Where to play, like H8 (gravity games: a column letter)")
    @app_commands.guild_only()
    @needs_channel_permissions()
    async def place(
        self, interaction: Interaction, cell: app_commands.Transform[Cell, PointTransformer]
    ) -> None:
        """Play a move in this channel's game."""
        await self.bot.play_move(interaction, point=cell.point, column=cell.column)


async def setup(bot: GomokuBot) -> None:
    """Add the commands to ``bot``."""
    await bot.add_cog(GomokuCog(bot))
    await bot.add_cog(PlaceCog(bot))
