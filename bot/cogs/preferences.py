"""``/gomoku preferences [language] [look]``: a member's language and look in one place, and the
way to have the bot forget them (its **Forget me…** button opens the confirmation,
``bot.cogs.moderation.ForgetPrompt``).
"""

from __future__ import annotations

from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.moderation import ForgetPrompt, Owned
from bot.cogs.play_choices import LOOKS
from bot.host import Interaction, host_of
from bot.text import i18n, words

__all__ = ["PreferenceCommands", "PreferencesView"]

# Each language by its own name (never translated), then "follow Discord".
_LANGUAGES: Final = [
    *(app_commands.Choice(name=i18n.LANGUAGE_NAMES[code], value=code) for code in i18n.LANGUAGES),
    app_commands.Choice(name=words.LANGUAGE_FOLLOW, value="discord"),
]


class PreferencesView(Owned):
    """Under the preferences: **Forget me…**, which asks before anything is deleted."""

    def __init__(self, owner: int) -> None:
        super().__init__(owner)
        self.forget.label = words.forget_me_label()  # in the reader's language, not import's

    @discord.ui.button(label="…", style=discord.ButtonStyle.secondary)  # set in __init__
    async def forget(self, interaction: Interaction, _: discord.ui.Button[Any]) -> None:
        """Ask to confirm the deletion (privately)."""
        await interaction.response.send_message(
            words.forget_confirm(), view=ForgetPrompt(interaction.user.id), ephemeral=True
        )


class PreferenceCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``)."""

    @app_commands.command(name="preferences")
    @app_commands.describe(
        language="The language I speak to you in (default: your Discord one)",
        look="How your private boards look (the server chooses its public boards' look)",
    )
    @app_commands.choices(language=_LANGUAGES, look=LOOKS)
    async def preferences(
        self, interaction: Interaction, language: str | None = None, look: str | None = None
    ) -> None:
        """Your language and the look of your boards; or have the bot forget you."""
        bot = host_of(interaction)
        service = bot.service
        user_id = interaction.user.id
        if look is not None:
            await service.set_look(user_id, look)
        if language is not None:
            await service.set_language(user_id, None if language == "discord" else language)
            bot.preferences.forget_language(user_id)
            await bot.preferences.set_answer_language(interaction)  # answer in the new one
        chosen = await service.language(user_id)
        text = words.preferences_text(
            None if chosen is None else i18n.LANGUAGE_NAMES[chosen], await service.look(user_id)
        )
        await interaction.response.send_message(text, view=PreferencesView(user_id), ephemeral=True)
