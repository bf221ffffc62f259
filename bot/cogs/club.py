"""``/gomoku-admin tournament create|start|result``, the organiser's commands, and
``/gomoku queue``, the member's way into the pairing queue (``bot.club``).

Members take part through the tournament message's buttons (``bot.club``); the organiser
(Manage Server or the moderator role, checked by ``bot.club.may_organise``) creates a
tournament in a channel, starts it, and corrects a board's result. The rounds, the boards'
threads and the standings follow by themselves (``bot.core.service.tournaments``).
"""

from __future__ import annotations

import unicodedata
from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot import permissions
from bot.club import may_organise, started_line, tournament_message, tournament_view
from bot.cogs.play_choices import RULES, game_choices, hosted_game
from bot.core.club.tournament import read_start_time
from bot.core.service.errors import InvalidOptionError
from bot.host import Interaction, host_of
from bot.text import club_words, i18n
from engine.games import game_spec
from engine.types import Game, Rule
from storage.club import DAY_SECONDS, Format, Result, Tournament
from storage.errors import TournamentNotFoundError

__all__ = ["TournamentCommands", "queue_command", "tournament_create_command"]

_RULES: Final = RULES
_FORMATS: Final = [
    app_commands.Choice(name="Swiss", value=Format.SWISS.value),
    app_commands.Choice(name="Round-robin", value=Format.ROUND_ROBIN.value),
    app_commands.Choice(name="Arena", value=Format.ARENA.value),
]
_ARENA_MINUTES: Final = 60  # an arena's length when the organiser gives none
_LIVE_SECONDS: Final = 300  # a move's time when the organiser gives none
_MARKUP: Final = frozenset("*_~`|<>@#[]()\\:")
_RESULTS: Final = [
    app_commands.Choice(name="Black wins", value=Result.BLACK_WINS.value),
    app_commands.Choice(name="White wins", value=Result.WHITE_WINS.value),
    app_commands.Choice(name="Draw", value=Result.DRAW.value),
    app_commands.Choice(name="Black wins by forfeit", value=Result.BLACK_WINS_BY_FORFEIT.value),
    app_commands.Choice(name="White wins by forfeit", value=Result.WHITE_WINS_BY_FORFEIT.value),
    app_commands.Choice(name="Both forfeit", value=Result.DOUBLE_FORFEIT.value),
]


async def _check_organiser(interaction: Interaction) -> None:
    if not await may_organise(interaction):
        raise app_commands.MissingPermissions(["manage_guild"])


def tournament_create_command() -> app_commands.Command[Any, ..., None]:
    """``/gomoku-admin tournament create``, the games hosted now the choices of its ``game``
    option (``AdminCog`` adds it when the command tree is built)."""

    @app_commands.command(name="create")
    @app_commands.describe(
        name="The tournament's name",
        format="Swiss (set rounds), round-robin (all meet all) or arena (paired on for a set time)",
        game="Which game (default Gomoku)",
        rule="Gomoku rule (default freestyle)",
        seconds="Seconds per move (default 300)",
        days="Days per move, for a correspondence tournament (instead of seconds)",
        rounds="Swiss: the number of rounds (default 3)",
        minutes="Arena: how long it pairs, in minutes (default 60)",
        cap="The most players who may join (default: no limit)",
        starts="Start by itself at this UTC time: 2026-05-01 18:00, or <t:1777658400>",
    )
    @app_commands.choices(format=_FORMATS, game=game_choices(), rule=_RULES)
    async def create(
        interaction: Interaction,
        name: app_commands.Range[str, 1, 80],
        format: str,
        game: str = Game.GOMOKU.value,
        rule: str = Rule.FREESTYLE.value,
        seconds: app_commands.Range[int, 10, 604800] | None = None,
        days: app_commands.Range[int, 1, 14] | None = None,
        rounds: app_commands.Range[int, 1, 20] = 3,
        minutes: app_commands.Range[int, 5, 1440] | None = None,
        cap: app_commands.Range[int, 2, 256] | None = None,
        starts: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        """Announce a tournament here, with Join and Leave buttons (organisers)."""
        await _check_organiser(interaction)
        if seconds is not None and days is not None:
            raise InvalidOptionError("seconds_and_days", (seconds, days))
        per_move = DAY_SECONDS * days if days is not None else seconds or _LIVE_SECONDS
        starts_at = None if starts is None else read_start_time(starts)
        if format not in tuple(Format):
            raise InvalidOptionError("format", format, ", ".join(f.value for f in Format))
        chosen = Format(format)
        if chosen is Format.ARENA and minutes is None:
            minutes = _ARENA_MINUTES
        assert interaction.guild_id is not None
        assert interaction.channel_id is not None
        if not isinstance(interaction.channel, discord.TextChannel):
            raise app_commands.CheckFailure("tournaments need a text channel")
        permissions.require(interaction, permissions.THREADS)
        host = host_of(interaction)
        tournament = await host.service.create_tournament(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            user_id=interaction.user.id,
            name=_clean_name(name),
            format=chosen,
            game=hosted_game(game),
            rule=Rule(rule) if rule in tuple(Rule) else Rule.FREESTYLE,
            rounds=rounds,
            seconds_per_move=per_move,
            player_cap=cap,
            starts_at=starts_at,
            arena_minutes=minutes,
        )
        with i18n.using(await host.preferences.server_language(interaction.guild_id)):  # public
            text = tournament_message(tournament, [])
            view = tournament_view(tournament.id)
        await interaction.response.send_message(
            text, view=view, allowed_mentions=discord.AllowedMentions.none()
        )

    return create


class TournamentCommands(commands.Cog):
    """The ``tournament`` subgroup of ``/gomoku-admin`` (mixed into ``AdminCog``)."""

    tournament = app_commands.Group(
        name="tournament", description="Run a tournament in this channel (organisers)"
    )

    @tournament.command(name="start")
    @app_commands.describe(id="The tournament's number (in its message)")
    async def start(self, interaction: Interaction, id: app_commands.Range[int, 1]) -> None:
        """Close entries and pair round 1 (organisers)."""
        await _check_organiser(interaction)
        host = host_of(interaction)
        tournament = await _own_tournament(interaction, id)
        # Pairing round 1 may wait for the pairing worker to start and opens every board:
        # acknowledged first, privately, so that a refusal stays the organiser's.
        await interaction.response.defer(ephemeral=True, thinking=True)
        await host.service.start_tournament(tournament.id)
        players = len(await host.service.repository.entrants(tournament.id))
        started = await host.service.repository.tournament(tournament.id)
        with i18n.using(await host.preferences.server_language(interaction.guild_id)):  # public
            text = await started_line(host, started, players)
        assert interaction.channel_id is not None
        channel = host.get_partial_messageable(
            interaction.channel_id, guild_id=interaction.guild_id
        )
        await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        await interaction.delete_original_response()

    @tournament.command(name="result")
    @app_commands.describe(
        id="The tournament's number",
        round="The round",
        board="The board",
        result="The result to record",
    )
    @app_commands.choices(result=_RESULTS)
    async def result(
        self,
        interaction: Interaction,
        id: app_commands.Range[int, 1],
        round: app_commands.Range[int, 1],
        board: app_commands.Range[int, 1],
        result: str,
    ) -> None:
        """Correct a board's result (organisers)."""
        await _check_organiser(interaction)
        tournament = await _own_tournament(interaction, id)
        if result not in tuple(Result) or result == Result.BYE:
            raise TournamentNotFoundError(tournament.id, round=round, board=board)
        # A result that ends its round pairs the next one before the service returns.
        await interaction.response.defer(ephemeral=True, thinking=True)
        await host_of(interaction).service.adjust_result(
            tournament.id, round, board, Result(result)
        )
        await interaction.edit_original_response(
            content=club_words.result_set(tournament.name, round, board, Result(result))
        )


def _clean_name(name: str) -> str:
    """The organiser's name for the tournament, safe in every message: printable characters,
    none that format, mention or link, spaces collapsed."""
    kept = "".join(
        c if c.isprintable() and c not in _MARKUP else " "
        for c in unicodedata.normalize("NFC", name)
    )
    return " ".join(kept.split()) or "?"


async def _own_tournament(interaction: Interaction, tournament_id: int) -> Tournament:
    """The tournament, if it is this server's (another's is no such tournament here)."""
    tournament = await host_of(interaction).service.repository.tournament(tournament_id)
    if tournament.guild_id != interaction.guild_id:
        raise TournamentNotFoundError(tournament_id)
    return tournament


def queue_command() -> app_commands.Command[Any, ..., None]:
    """``/gomoku queue``, the games hosted now the choices of its ``game`` option
    (``bot.cogs.play.GomokuCog`` adds it when the command tree is built)."""

    @app_commands.command(name="queue")
    @app_commands.describe(
        game="Which game (default Gomoku)",
        rule="Gomoku rule (default: this server's setting)",
        leave="Leave the queue instead",
    )
    @app_commands.choices(game=game_choices(), rule=_RULES)
    async def queue(
        interaction: Interaction,
        game: str = Game.GOMOKU.value,
        rule: str | None = None,
        leave: bool = False,
    ) -> None:
        """Wait for a rated game against someone close to your rating."""
        club = host_of(interaction).club
        if leave:
            await club.leave_queue(interaction)
            return
        assert interaction.guild_id is not None  # guild_only
        chosen_game = hosted_game(game)
        rules = game_spec(chosen_game).rules
        if rule is None:
            settings = await host_of(interaction).service.settings(interaction.guild_id)
            chosen_rule = settings.default_rule if settings.default_rule in rules else rules[0]
        elif rule in tuple(Rule) and Rule(rule) in rules:
            chosen_rule = Rule(rule)
        else:
            raise InvalidOptionError("rule", rule, ", ".join(r.value for r in rules))
        await club.join_queue(interaction, chosen_game, chosen_rule)

    return queue
