"""``/gomoku-admin``: ``settings`` (a guild's default rule, turn time, look of boards, allowed
channels, game threads, moderator role and idle times), ``daily-puzzle`` and ``end``.

The admin commands are their own top-level group so that ``default_permissions`` (which
Discord applies to top-level commands only) hides them from members who cannot use them.
"""

from __future__ import annotations

from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.club import ACTIONS as CLUB_ACTIONS
from bot.cogs.club import TournamentCommands, tournament_create_command
from bot.cogs.moderation import EndCommand
from bot.cogs.play_choices import LOOKS, RULES, add_before
from bot.cogs.puzzles import DailyPuzzleCommand
from bot.core.service.errors import InvalidOptionError
from bot.core.service.shared import idle_time
from bot.host import GameHost, Interaction, host_of
from bot.text import i18n, words
from bot.text.opening_words import NO_OPENING, OPENING_CHOICES, rated_opening_field
from engine.types import Rule
from storage.records import COIN_TOSS, GuildSettings

__all__ = [
    "AdminCog",
    "AdminCommands",
    "settings_embed",
    "setup",
]

_RULES: Final = RULES
_LANGUAGES: Final = [
    app_commands.Choice(name=words.SERVER_LANGUAGE_FOLLOW, value="discord"),
    *(app_commands.Choice(name=i18n.LANGUAGE_NAMES[code], value=code) for code in i18n.LANGUAGES),
]
_OPENINGS: Final = [
    app_commands.Choice(name=NO_OPENING, value=COIN_TOSS),
    *(app_commands.Choice(name=name[:100], value=value) for name, value in OPENING_CHOICES),
]


def settings_embed(settings: GuildSettings) -> discord.Embed:
    """The guild's settings as a card."""
    embed = discord.Embed(title=words.settings_title(), colour=0x5865F2)
    turn = (
        words.no_clock()
        if settings.turn_seconds is None
        else words.turn_minutes(settings.turn_seconds // 60)
    )
    channels = (
        " ".join(f"<#{channel}>" for channel in sorted(settings.allowed_channel_ids))
        or words.any_channel()
    )
    embed.add_field(name=words.setting_rule(), value=words.rule_name(settings.default_rule))
    embed.add_field(name=words.setting_turn(), value=turn)
    embed.add_field(name=words.setting_look(), value=words.look_name(settings.board_style))
    embed.add_field(name=words.setting_pings(), value=words.on_off(settings.turn_pings))
    embed.add_field(name=words.setting_ai_clock(), value=words.on_off(settings.ai_clock))
    name, value = rated_opening_field(settings.rated_opening)
    embed.add_field(name=name, value=value)
    embed.add_field(name=words.setting_channels(), value=channels, inline=False)
    language = i18n.LANGUAGE_NAMES.get(settings.language or "")
    embed.add_field(name=words.setting_language(), value=words.server_language(language))
    embed.add_field(name=words.setting_threads(), value=words.on_off(settings.use_threads))
    role = settings.moderator_role_id
    embed.add_field(
        name=words.setting_moderator(), value=words.moderator_role(f"<@&{role}>" if role else None)
    )
    embed.add_field(
        name=words.setting_idle(),
        value=words.idle_times(
            idle_time(settings, against_ai=False), idle_time(settings, against_ai=True)
        ),
        inline=False,
    )
    return embed


def _in_range(option: str, value: int | None, low: int, high: int) -> None:
    """Refuse ``value`` of ``option`` outside ``low``-``high`` (None: not given)."""
    if value is not None and not low <= value <= high:
        raise InvalidOptionError(option, value, f"{low}-{high}")


class AdminCommands(commands.Cog):
    """Mixed into the ``/gomoku-admin`` group cog (``AdminCog``)."""

    @app_commands.command(name="settings")
    @app_commands.describe(
        rule="Default Gomoku rule for new games",
        turn_minutes="Time per turn in games between people, in minutes (0: no clock)",
        look="How this server's public boards look (each member chooses their private ones)",
        allow_channel="Add this channel to those games may be played in",
        disallow_channel="Remove this channel from those games may be played in",
        anywhere="Allow games in every channel again",
        threads="Host each game in its own thread off the channel",
        moderator_role="This role may end games too (besides Manage Messages)",
        no_moderator_role="Leave ending games to Manage Messages alone",
        idle_hours="Games between people end after this many hours without a move",
        idle_ai_hours="Games against the AI end after this many hours without a move",
        pings="Ping the player to move in games between people (default on)",
        ai_clock="Apply the turn time to games against the AI too (default off)",
        rated_opening="How rated games begin: an opening rule (default swap2) or a coin toss",
        language="Language of boards, results and pings here (default: the server's Discord one)",
    )
    @app_commands.choices(rule=_RULES, look=LOOKS, rated_opening=_OPENINGS, language=_LANGUAGES)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def settings(
        self,
        interaction: Interaction,
        rule: str | None = None,
        turn_minutes: app_commands.Range[int, 0, 10080] | None = None,
        look: str | None = None,
        allow_channel: discord.TextChannel | None = None,
        disallow_channel: discord.TextChannel | None = None,
        anywhere: bool = False,
        threads: bool | None = None,
        moderator_role: discord.Role | None = None,
        no_moderator_role: bool = False,
        idle_hours: app_commands.Range[int, 1, 2160] | None = None,
        idle_ai_hours: app_commands.Range[int, 1, 2160] | None = None,
        pings: bool | None = None,
        ai_clock: bool | None = None,
        rated_opening: str | None = None,
        language: str | None = None,
    ) -> None:
        """Change this server's game settings (needs Manage Server)."""
        service = host_of(interaction).service
        guild_id = interaction.guild_id
        if guild_id is None:
            raise app_commands.NoPrivateMessage()
        changes: dict[str, Any] = {}
        if rule is not None:
            try:
                changes["default_rule"] = Rule(rule)
            except ValueError:
                raise InvalidOptionError("rule", rule) from None
        # Discord checks the ranges of the options; a forged interaction skips that, so the
        # values are checked again here, to be refused in the option's own unit.
        _in_range("turn_minutes", turn_minutes, 0, 10080)
        _in_range("idle_human_hours", idle_hours, 1, 2160)
        _in_range("idle_ai_hours", idle_ai_hours, 1, 2160)
        if turn_minutes == 0:
            changes["clear_turn_time"] = True
        elif turn_minutes is not None:
            changes["turn_seconds"] = turn_minutes * 60
        if look is not None:
            changes["look"] = look
        if allow_channel is not None or disallow_channel is not None or anywhere:
            current = await service.settings(guild_id)
            allowed = set() if anywhere else set(current.allowed_channel_ids)
            if allow_channel is not None:
                allowed.add(allow_channel.id)
            if disallow_channel is not None:
                allowed.discard(disallow_channel.id)
            changes["allowed_channel_ids"] = sorted(allowed)
        if threads is not None:
            changes["use_threads"] = threads
        if no_moderator_role:
            changes["clear_moderator_role"] = True
        elif moderator_role is not None:
            changes["moderator_role_id"] = moderator_role.id
        if idle_hours is not None:
            changes["idle_human_seconds"] = idle_hours * 3600
        if idle_ai_hours is not None:
            changes["idle_ai_seconds"] = idle_ai_hours * 3600
        if pings is not None:
            changes["turn_pings"] = pings
        if ai_clock is not None:
            changes["ai_clock"] = ai_clock
        if rated_opening is not None:
            changes["rated_opening"] = rated_opening
        if language is not None:
            changes["language"] = language
        try:
            updated = await host_of(interaction).table.defer_if_slow(
                interaction,
                service.update_settings(guild_id, **changes),
                ephemeral=True,
                thinking=True,
            )
        finally:
            # also after a failure part way (the settings stored, the open games' clocks
            # not): the starts read the kept settings (``ServiceCore.settings_of``)
            host_of(interaction).forget_settings(guild_id)
        if interaction.response.is_done():  # deferred: the write was slow
            await interaction.edit_original_response(embed=settings_embed(updated))
            return
        await interaction.response.send_message(
            embed=settings_embed(updated),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class AdminCog(
    AdminCommands,
    DailyPuzzleCommand,
    EndCommand,
    TournamentCommands,
    commands.GroupCog,
    group_name="gomoku-admin",
    group_description="Server settings for Gomoku (admins)",
):
    """``/gomoku-admin``: hidden from members without Manage Server (a server can change who
    sees it in Server Settings, Integrations); the check inside still applies."""

    def __init__(self, bot: GameHost) -> None:
        self.bot = bot
        # tournament create offers the games hosted when the command tree is built.
        add_before(self.tournament, tournament_create_command(), "start")


async def setup(bot: GameHost) -> None:
    """Add ``/gomoku-admin`` to ``bot``."""
    await bot.add_cog(AdminCog(bot))
    bot.add_dynamic_items(*CLUB_ACTIONS)
