"""The languages the bot speaks: each has a catalogue under ``bot/locale`` (``bot.text.i18n``
loads them); members and servers may choose among them."""

from typing import Final

__all__ = ["LANGUAGES"]

LANGUAGES: Final = ("en", "zh_Hans", "zh_Hant", "ja", "ko")  # English, the sources', first
