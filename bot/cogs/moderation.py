"""``/gomoku-admin end`` for moderators, the offer to replace one's own AI game, and the
confirmation of forgetting a member (opened from ``/gomoku preferences``).

Who may end a game is decided here, like who may change settings: members who can manage
messages in the channel, or who hold the role the server chose (``/gomoku-admin settings``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import permissions
from bot.cogs.onboarding import command_mentions
from bot.core.service.errors import GameExistsError, NoActiveGameError
from bot.host import Interaction, host_of
from bot.reporting import report
from bot.text import words

__all__ = [
    "EndCommand",
    "ForgetPrompt",
    "Owned",
    "ReplaceOffer",
    "offer_replacement",
    "tell_bystander",
]

log = logging.getLogger(__name__)


async def _may_moderate(interaction: Interaction) -> bool:
    return interaction.permissions.manage_messages or await permissions.has_moderator_role(
        interaction
    )


class Owned(discord.ui.View):
    """A private prompt's buttons: only the user it was made for may press them."""

    def __init__(self, owner: int) -> None:
        super().__init__(timeout=600)
        self.owner = owner

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        await host_of(interaction).preferences.set_answer_language(interaction)
        return interaction.user.id == self.owner

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: Any, /
    ) -> None:
        await report(interaction, error)


class ReplaceOffer(Owned):
    """ "Replace it": end the user's own AI game, then start the new one as asked."""

    def __init__(
        self, owner: int, old_game_id: int, start: Callable[[Interaction], Awaitable[None]]
    ) -> None:
        super().__init__(owner)
        self.old_game_id = old_game_id
        self.start = start
        self.replace.label = words.replace_button()  # in the reader's language, not import's

    @discord.ui.button(label="…", style=discord.ButtonStyle.primary)  # set in __init__
    async def replace(self, interaction: Interaction, _: discord.ui.Button[Any]) -> None:
        """End the old game and start the new one."""
        # The prompt keeps its button: a second press is refused in words ("already over")
        # rather than failing silently on a stopped view.
        bot = host_of(interaction)
        # A slow write defers publicly with "thinking": the new game's board fills it in.
        end = await bot.table.defer_if_slow(
            interaction,
            bot.service.replace_ai_game(self.old_game_id, interaction.user.id),
            thinking=True,
        )
        await bot.table.show_game(end.game)
        await self.start(interaction)


async def offer_replacement(
    interaction: Interaction,
    error: GameExistsError,
    start: Callable[[Interaction], Awaitable[None]],
) -> bool:
    """When the game in the way is the user's own game against the AI, offer to replace it
    (privately) and return True; otherwise False (the caller reports the refusal)."""
    if error.game_id is None:
        return False
    view = await host_of(interaction).service.game(error.game_id)
    if not view.is_active or view.humans != (interaction.user.id,) or view.ai_level is None:
        return False
    await interaction.response.send_message(
        words.replace_offer(),
        view=ReplaceOffer(interaction.user.id, view.game_id, start),
        ephemeral=True,
    )
    return True


async def tell_bystander(interaction: Interaction, error: GameExistsError) -> bool:
    """When the game in the way is not the user's, tell them (privately) where it is and how
    to watch it or play their own, and return True; otherwise False."""
    if error.game_id is None or interaction.guild_id is None:
        return False
    view = await host_of(interaction).service.game(error.game_id)
    if interaction.user.id in view.humans:
        return False
    record = view.record
    link = None
    if record.message_channel_id is not None and record.message_id is not None:
        link = (
            f"https://discord.com/channels/{interaction.guild_id}/"
            f"{record.message_channel_id}/{record.message_id}"
        )
    mention = await command_mentions(host_of(interaction))
    parent = None if record.parent_channel_id is None else f"<#{record.parent_channel_id}>"
    text = words.game_here_for_bystander(link, mention("gomoku start"), parent)
    await interaction.response.send_message(text, ephemeral=True)
    return True


class ForgetPrompt(Owned):
    """The confirmation of forgetting a member (**Forget me…** under ``/gomoku preferences``)."""

    def __init__(self, owner: int) -> None:
        super().__init__(owner)
        # The decorators' labels are fixed at import; these follow the reader's language.
        self.confirm.label = words.forget_button()
        self.cancel.label = words.forget_cancel()

    @discord.ui.button(label="…", style=discord.ButtonStyle.danger)  # set in __init__
    async def confirm(self, interaction: Interaction, _: discord.ui.Button[Any]) -> None:
        """Delete the user's data."""
        self.stop()
        bot = host_of(interaction)
        service = bot.service
        playing = await service.open_games_of(interaction.user.id)
        touched = await bot.table.defer_if_slow(
            interaction, service.forget_user(interaction.user.id)
        )
        if interaction.response.is_done():  # deferred: the write was slow
            await interaction.edit_original_response(content=words.forgotten(touched), view=None)
        else:
            await interaction.response.edit_message(content=words.forgotten(touched), view=None)
        for view in playing:
            # Their open games ended without a result: show that where they are played.
            try:
                await bot.table.show_game(await service.game(view.game_id))
            except discord.HTTPException:
                log.warning("could not redraw game %s after forget-me", view.game_id)

    @discord.ui.button(label="…", style=discord.ButtonStyle.secondary)  # set in __init__
    async def cancel(self, interaction: Interaction, _: discord.ui.Button[Any]) -> None:
        """Keep everything."""
        self.stop()
        await interaction.response.edit_message(content=words.forget_kept(), view=None)


class EndCommand(commands.Cog):
    """Mixed into the ``/gomoku-admin`` group cog (``bot.cogs.admin.AdminCog``): hidden from
    members as the group is, and checked here (a server can show the group to its moderator
    role in Server Settings, Integrations)."""

    @app_commands.command(name="end")
    async def end(self, interaction: Interaction) -> None:
        """End this channel's game without a result (moderators)."""
        assert interaction.channel_id is not None
        if not await _may_moderate(interaction):
            raise app_commands.MissingPermissions(["manage_messages"])
        bot = host_of(interaction)
        end = await bot.table.defer_if_slow(
            interaction,
            bot.service.abandon(
                interaction.channel_id, ended_by=interaction.user.id, reason="moderator"
            ),
            ephemeral=True,
            thinking=True,
        )
        if end is None:
            raise NoActiveGameError(interaction.channel_id)
        text = words.ended_by_moderator(end.game.game_id)
        if interaction.response.is_done():  # privately deferred: the write was slow
            await interaction.edit_original_response(content=text)
        else:
            await interaction.response.send_message(text, ephemeral=True)
        await bot.table.show_game(end.game)
