"""``/gomoku stats [user]`` and ``/gomoku leaderboard [game] [rule]``: records and ratings, and
the puzzle solvers' table, read-only.

Records count every finished game, by game kind, rule and opponent (each AI level apart);
ratings and leaderboards come from games between people only (AI games are never rated).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.play_choices import PUZZLES, RULES, hosted_game, leaderboard_choices
from bot.cogs.puzzles import puzzle_leaderboard_embed
from bot.core.service.errors import InvalidOptionError
from bot.host import Interaction, host_of
from bot.text import render, words
from engine.games import game_spec, game_specs
from engine.types import Game, Rule
from storage.records import PlayerStats, ResultCount

__all__ = [
    "MIN_LEADERBOARD_GAMES",
    "StatsCommands",
    "leaderboard_command",
    "leaderboard_embed",
    "stats_embed",
]

_COLOUR: Final = 0x5865F2
MIN_LEADERBOARD_GAMES: Final = 3  # rated games a player needs to appear on a leaderboard


def _kind(game: Game, rule: Rule) -> str:
    name = render.game_name(game)
    rated_apart = len(game_spec(game).rules) > 1  # each rule has its own ratings
    return f"{name} · {words.rule_name(rule)}" if rated_apart else name


def stats_embed(
    user_id: int, results: Sequence[ResultCount], ratings: Sequence[PlayerStats]
) -> discord.Embed:
    """A player's card: a field per game kind and rule, one line per opponent, and ratings."""
    embed = discord.Embed(title=words.stats_title(), colour=_COLOUR)
    if not results:
        embed.description = f"<@{user_id}> {words.stats_empty()}"
        return embed
    embed.description = f"<@{user_id}>"
    fields: dict[str, list[str]] = {}
    for line in results:
        opponent = (
            words.vs_people()
            if line.opponent_level is None
            else words.level_name(line.opponent_level)
        )
        record = words.record_line(line.wins, line.losses, line.draws, line.unfinished)
        fields.setdefault(_kind(line.game, line.rule), []).append(f"{opponent}: {record}")
    for name, lines in list(fields.items())[:24]:
        embed.add_field(name=name, value="\n".join(lines)[:1024], inline=False)
    rated = [
        words.rating_line(
            _kind(row.game, row.rule), row.display_rating, row.games, row.streak, row.best_streak
        )
        for row in ratings
        if row.games
    ]
    if rated:
        embed.add_field(name=words.rating_title(), value="\n".join(rated), inline=False)
    return embed


def leaderboard_embed(
    game: Game, rows: Sequence[PlayerStats], rule: Rule = Rule.FREESTYLE
) -> discord.Embed:
    """The best-rated players of ``game`` under ``rule``, one line each."""
    embed = discord.Embed(title=words.leaderboard_title(_kind(game, rule)), colour=_COLOUR)
    embed.set_footer(text=words.leaderboard_footer(MIN_LEADERBOARD_GAMES))
    if not rows:
        embed.description = words.leaderboard_empty(MIN_LEADERBOARD_GAMES)
        return embed
    embed.description = "\n".join(
        f"{rank}. <@{row.user_id}> · **{row.display_rating}** · {row.wins}-{row.losses}-{row.draws}"
        for rank, row in enumerate(rows, start=1)
    )
    return embed


class StatsCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``)."""

    @app_commands.command(name="stats")
    @app_commands.describe(user="Whose statistics to show (default: yours)")
    async def stats(self, interaction: Interaction, user: discord.User | None = None) -> None:
        """Show a player's record against people and each AI level, and their ratings."""
        target = user or interaction.user
        service = host_of(interaction).service
        guild_id = interaction.guild_id
        results = await service.results(target.id, guild_id=guild_id)
        ratings = [
            stats
            for spec in game_specs()
            for rule in spec.rules
            if (
                stats := await service.stats(
                    target.id, game=spec.game, rule=rule, guild_id=guild_id
                )
            )
        ]
        await interaction.response.send_message(
            embed=stats_embed(target.id, results, ratings),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


def leaderboard_command() -> app_commands.Command[Any, ..., None]:
    """``/gomoku leaderboard``, the games hosted now and the puzzle solvers the choices of its
    ``game`` option (``bot.cogs.play.GomokuCog`` adds it when the command tree is built)."""

    @app_commands.command(name="leaderboard")
    @app_commands.describe(
        game="Which game, or the puzzle solvers (default Gomoku)",
        rule="Gomoku rule, each rated apart (default: this server's setting)",
    )
    @app_commands.choices(game=leaderboard_choices(), rule=RULES)
    async def leaderboard(
        interaction: Interaction, game: str = Game.GOMOKU.value, rule: str | None = None
    ) -> None:
        """Show the best-rated players of this server, or its best puzzle solvers."""
        service = host_of(interaction).service
        if game == PUZZLES:
            assert interaction.guild_id is not None  # the group is guild_only
            solvers = await service.puzzle_leaderboard(interaction.guild_id)
            await interaction.response.send_message(
                embed=puzzle_leaderboard_embed(solvers),
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        kind = hosted_game(game)
        rules = game_spec(kind).rules
        try:
            chosen = Rule(rule) if rule is not None else None
        except ValueError:
            raise InvalidOptionError("rule", rule, ", ".join(r.value for r in rules)) from None
        if len(rules) == 1:
            chosen = rules[0]
        elif chosen is None:
            guild_id = interaction.guild_id
            settings = await service.settings(guild_id) if guild_id is not None else None
            chosen = settings.default_rule if settings is not None else Rule.FREESTYLE
        rows = await service.leaderboard(
            game=kind, rule=chosen, guild_id=interaction.guild_id, min_games=MIN_LEADERBOARD_GAMES
        )
        await interaction.response.send_message(
            embed=leaderboard_embed(kind, rows, chosen),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    return leaderboard
