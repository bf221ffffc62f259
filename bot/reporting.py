"""The one place where a failed interaction is answered: ``GomokuTree.on_error`` and ``report``.

Every error of a slash command, an autocomplete or a button ends here. ``report`` asks
``refusal_message`` for the words and answers privately (ephemeral), through the
initial response when it is still free and through a followup otherwise. An error without
words is a bug: it is logged with its traceback and the player sees one generic line, never
the traceback or the exception text.

The tree also runs the checks every command shares: a per-user cooldown (autocomplete is
exempt: it fires on every keystroke) and, for commands that post in the channel, the bot's own
channel permissions (``interaction.app_permissions``), named when one is missing.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable, Iterable
from typing import Any, Final, TypeVar

import discord
from discord import app_commands

from bot import permissions
from bot.core.service.errors import NoActiveGameError
from bot.host import Interaction, host_of
from bot.outage import discord_down
from bot.text import words
from bot.text.i18n import N_, _, number
from bot.text.refusals import game_in_thread, generic_message, user_message

__all__ = [
    "GomokuTree",
    "MalformedOptionsError",
    "needs_channel_permissions",
    "refusal_message",
    "report",
]

log = logging.getLogger(__name__)

_UNKNOWN_INTERACTION: Final = 10062  # Discord: the interaction's 3 s (or 15 min) are over


T = TypeVar("T")


class GomokuTree(app_commands.CommandTree[discord.Client]):
    """The command tree: shared checks before a command, one error handler after it."""

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        """Refuse options that do not fit the command; apply the per-user cooldown to every
        command (not to autocomplete). First of all, the language of the answer."""
        await host_of(interaction).preferences.set_answer_language(interaction)
        if not self._options_fit(interaction):
            if interaction.type is discord.InteractionType.autocomplete:
                return False  # it can only answer with choices; there are none for this
            raise MalformedOptionsError()
        if interaction.type is discord.InteractionType.autocomplete:
            return True
        cooldown = host_of(interaction).cooldown
        bucket = cooldown.hit(interaction.user.id)
        if bucket is not None:
            raise app_commands.CommandOnCooldown(bucket, cooldown.retry_after(bucket))
        return True

    def _options_fit(self, interaction: Interaction) -> bool:
        data: Any = interaction.data or {}
        name = data.get("name")
        if data.get("type", 1) != 1:
            return True  # context menus: none registered, discord.py refuses them itself
        command = self.get_command(name) if isinstance(name, str) else None
        if command is None and interaction.guild is not None and isinstance(name, str):
            command = self.get_command(name, guild=interaction.guild)
        if command is None:
            return False
        resolved = data.get("resolved") or {}
        return isinstance(resolved, dict) and _options_fit(
            command, data.get("options", []), resolved
        )

    async def on_error(
        self, interaction: Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        """Answer privately with the error's words (discord.py chains the real one with from)."""
        host_of(interaction).dispatch("app_command_failure", interaction)  # for bot.metrics
        await report(interaction, error.__cause__ or error)


class MalformedOptionsError(app_commands.CheckFailure):
    """A command whose options do not fit its declaration (a type, a name, a reference to
    nothing): no Discord client sends that, but a forged request can."""


_RESOLVED: Final = {
    6: ("users",),
    7: ("channels",),
    8: ("roles",),
    9: ("users", "roles"),
    11: ("attachments",),
}
_LONGEST_STRING: Final = 6000  # Discord's own cap on a string option


def _options_fit(command: Any, options: Any, resolved: dict[str, Any]) -> bool:
    """Whether ``options`` (the raw payload) has the names, types and values ``command``
    declares: discord.py trusts the payload, and a mismatch would end in its traceback."""
    if not isinstance(options, list):
        return False
    if isinstance(command, app_commands.Group):
        if len(options) != 1 or not isinstance(options[0], dict):
            return False
        option = options[0]
        name = option.get("name")
        sub = command.get_command(name) if isinstance(name, str) else None
        if sub is None or option.get("type") not in (1, 2):
            return False
        return _options_fit(sub, option.get("options", []), resolved)
    if not isinstance(command, app_commands.Command):
        return False
    kinds, required = _signature(command)
    given = [option.get("name") for option in options if isinstance(option, dict)]
    focused = any(isinstance(option, dict) and option.get("focused") for option in options)
    if len(set(given)) != len(given) or not (focused or required <= set(given)):
        return False  # a repeated option, or a required one missing (autocomplete may)
    for option in options:
        if not isinstance(option, dict):
            return False
        kind = kinds.get(option.get("name"))  # type: ignore[arg-type]
        if kind is None or option.get("type") != kind:
            return False
        value = option.get("value")
        if option.get("focused"):
            if not isinstance(value, str):
                return False
        elif not _value_fits(kind, value, resolved):
            return False
    return True


@functools.cache
def _signature(
    command: app_commands.Command[Any, ..., Any],
) -> tuple[dict[str, int], frozenset[str]]:
    """``command``'s option types by name and its required options: read once per command
    (discord.py builds its parameter list anew on every look, and every command looks)."""
    parameters = command.parameters
    kinds = {parameter.display_name: parameter.type.value for parameter in parameters}
    return kinds, frozenset(p.display_name for p in parameters if p.required)


def _value_fits(kind: int, value: Any, resolved: dict[str, Any]) -> bool:
    if kind == 3:
        return isinstance(value, str) and len(value) <= _LONGEST_STRING
    if kind == 4:
        return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53
    if kind == 5:
        return isinstance(value, bool)
    if kind == 10:
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )
    if kind in _RESOLVED:
        key = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None
        return key is not None and any(
            isinstance(resolved.get(part), dict) and key in resolved[part]
            for part in _RESOLVED[kind]
        )
    return False


def needs_channel_permissions() -> Callable[[T], T]:
    """A check: the bot itself must hold what a game needs in the channel (``bot.permissions``:
    ``GAME``, or ``IN_THREAD`` in a thread), else ``BotMissingPermissions``."""

    def predicate(interaction: discord.Interaction[Any]) -> bool:
        in_thread = isinstance(interaction.channel, discord.Thread)
        permissions.require(interaction, permissions.IN_THREAD if in_thread else permissions.GAME)
        return True

    return app_commands.check(predicate)


async def report(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Tell the user privately what went wrong; log what has no words (a bug)."""
    if isinstance(error, discord.NotFound) and error.code == _UNKNOWN_INTERACTION:
        # Answered too late (Discord was slow to take the answer, or the event came late):
        # there is nothing left to answer through.
        log.warning("interaction %s expired before it was answered", interaction.id)
        return
    message = refusal_message(error)
    if discord_down(error):
        # Discord failed, not the bot: no traceback, and nothing said that may be untrue (a
        # move may have been stored before the failure).
        log.warning("Discord did not answer interaction %s: %r", interaction.id, error)
        message = words.discord_trouble()
    if isinstance(error, NoActiveGameError):
        message = await _in_a_thread(interaction, error.channel_id) or message
    if message is None:
        command = interaction.command.qualified_name if interaction.command else None
        log.error(
            "unexpected error in %s (command %s, custom id %s)",
            interaction.type.name,
            command,
            dict(interaction.data or {}).get("custom_id"),
            exc_info=error,
        )
        message = generic_message()
    if interaction.type is discord.InteractionType.autocomplete:
        return  # autocomplete can only answer with choices
    mentions = discord.AllowedMentions.none()
    try:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True, allowed_mentions=mentions)
        else:
            await interaction.response.send_message(
                message, ephemeral=True, allowed_mentions=mentions
            )
    except discord.HTTPException:
        # The interaction expired or was answered elsewhere; nothing left to tell the user.
        log.warning("could not report %r to user %s", error, interaction.user.id)


async def _in_a_thread(interaction: discord.Interaction[Any], channel_id: int) -> str | None:
    """Where games have threads, a player who types in the channel meant their game's
    thread: say which it is (None when they have no game off ``channel_id``)."""
    try:
        games = await host_of(interaction).service.open_games_of(interaction.user.id)
    except Exception:  # the refusal is worth more than the pointer: fall back to it
        log.warning("could not look up the games of user %s", interaction.user.id, exc_info=True)
        return None
    threads = [g.channel_id for g in games if g.record.parent_channel_id == channel_id]
    return game_in_thread(threads[-1]) if threads else None


_PERMISSIONS: Final = {
    "view_channel": N_("View Channel"),
    "send_messages": N_("Send Messages"),
    "send_messages_in_threads": N_("Send Messages In Threads"),
    "embed_links": N_("Embed Links"),
    "attach_files": N_("Attach Files"),
    "read_message_history": N_("Read Message History"),
    "create_public_threads": N_("Create Public Threads"),
    "manage_threads": N_("Manage Threads"),
    "manage_messages": N_("Manage Messages"),
    "manage_guild": N_("Manage Server"),
}


def _permission_names(names: Iterable[str]) -> str:
    return _(", ").join(
        _(_PERMISSIONS[name])
        if name in _PERMISSIONS
        else name.replace("_", " ").title().replace("Guild", "Server")
        for name in names
    )


def refusal_message(error: BaseException) -> str | None:
    """The words for ``error``: a refusal of the game (``bot.text.refusals.user_message``) or
    of discord.py's command framework (cooldown, missing permissions, no DMs); None for a
    bug."""
    match error:
        case MalformedOptionsError():
            return _("That command came with options it does not take. Pick it from the menu.")
        case app_commands.CommandOnCooldown(retry_after=retry_after):
            seconds = max(1, round(retry_after))
            return _("Slow down: you can use a command again in {seconds} s.").format(
                seconds=number(seconds)
            )
        case app_commands.BotMissingPermissions(missing_permissions=missing):
            return _("I need the {names} permission in this channel to host a game here.").format(
                names=_permission_names(missing)
            )
        case app_commands.MissingPermissions(missing_permissions=missing):
            return _("You need the {names} permission for that.").format(
                names=_permission_names(missing)
            )
        case app_commands.NoPrivateMessage():
            return _("That only works in a server channel.")
        case app_commands.TransformerError(type=discord.AppCommandOptionType.channel):
            # A channel the bot does not know (not in its cache, another server's, forged)
            # or of another kind than the option takes.
            return _("I can't use that channel. Pick a text channel of this server that I can see.")
    return user_message(error)
