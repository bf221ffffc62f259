"""The slash commands' words in each member's language, from the catalogues (``bot.text.i18n``).

discord.py asks ``CatalogueTranslator`` for every command name, description, option and choice
when it registers the commands; names come from the context ``command name``.
"""

from __future__ import annotations

from typing import Any

from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.text.i18n import DEFAULT, command_text, from_discord, using

__all__ = ["CatalogueTranslator"]

_NAMES = (Where.command_name, Where.group_name, Where.parameter_name)


class CatalogueTranslator(app_commands.Translator):
    """Command names, descriptions, options and choices from the catalogues."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Any,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        """The catalogue's word for ``string`` in ``locale``; None keeps the English."""
        language = from_discord(locale)
        if language is None or language == DEFAULT:
            return None
        render = string.extras.get("render")
        if callable(render):  # words with figures in them: rendered in the language
            with using(language):
                return str(render())
        return command_text(string.message, language, is_name=context.location in _NAMES)
