"""Languages: gettext catalogues (Babel) for every word a player reads.

The English text in the sources is the message id, so a word no catalogue has is shown in
English, never as an id. ``_``, ``ngettext``, ``pgettext`` and ``npgettext`` translate into the
*current* language: a context variable set where an interaction comes in (the language of the
person who will read the reply) and switched with ``using(language)`` for messages everyone
reads (the server's language). Module-level words are marked with ``N_`` and translated where
they are used, so they follow the reader, not the import.

Catalogues are ``bot/locale/<language>/LC_MESSAGES/gomoku.po`` (sources, read at first use and
compiled in memory; no ``.mo`` is kept), made from the template ``bot/locale/gomoku.pot``::

    python -m bot.i18n extract          # sources and command tree -> gomoku.pot, update each .po
    python -m bot.i18n init <language>  # a new language's empty catalogue (a Babel locale id)
    python -m bot.i18n check            # what each catalogue still lacks

Slash commands (names, descriptions, options, choices) are translated by ``command_translator()``
from the same catalogues; names under the context ``command name``. Discord's locale codes map
to ours in ``DISCORD_LOCALES``. Nothing here imports discord.py at module level: the terminal
front-end uses the catalogues too.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext
import io
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from babel import Locale, UnknownLocaleError
from babel.dates import format_timedelta
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

if TYPE_CHECKING:
    from discord import app_commands

__all__ = [
    "COMMAND_NAME",
    "DEFAULT",
    "DISCORD_LOCALES",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "N_",
    "REQUIRED",
    "_",
    "command_text",
    "command_translator",
    "current",
    "duration",
    "from_discord",
    "from_system",
    "load_all",
    "ngettext",
    "npgettext",
    "number",
    "pgettext",
    "po_path",
    "server_hint",
    "set_current",
    "translations",
    "using",
]

DOMAIN: Final = "gomoku"
LOCALE_DIR: Final = Path(__file__).parent / "locale"
TEMPLATE: Final = LOCALE_DIR / f"{DOMAIN}.pot"
DEFAULT: Final = "en"  # the sources' language
# Every language the bot speaks; each must have a complete catalogue (tests/bot/test_i18n.py).
LANGUAGES: Final = ("en", "zh_Hans", "zh_Hant", "ja", "ko")
REQUIRED: Final = LANGUAGES[1:]  # the catalogues the completeness test demands
# How each language names itself (the language option's choices).
LANGUAGE_NAMES: Final = {
    "en": "English",
    "zh_Hans": "简体中文",
    "zh_Hant": "繁體中文",
    "ja": "日本語",
    "ko": "한국어",
}
DISCORD_LOCALES: Final = {
    "en-US": "en",
    "en-GB": "en",
    "zh-CN": "zh_Hans",
    "zh-TW": "zh_Hant",
    "ja": "ja",
    "ko": "ko",
}
COMMAND_NAME: Final = "command name"  # msgctxt of command, group and option names

_current: contextvars.ContextVar[str] = contextvars.ContextVar("gomoku_language", default=DEFAULT)
# The server's Discord language as the interaction being answered told it (the fallback of
# public messages when the server chose none and its guild is not cached).
_server: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "gomoku_server_language", default=None
)


def po_path(language: str) -> Path:
    """Where the catalogue of ``language`` lives."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``language`` (English, or a language without a catalogue:
    the identity). Compiled once per process from the ``.po`` file."""
    path = po_path(language)
    if language == DEFAULT or not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as file:
        catalog = read_po(file, locale=language, domain=DOMAIN)
    for message in list(catalog):
        # An entry half-translated (a plural form left empty) is left out whole: English
        # then shows, never an empty string.
        if message.id and isinstance(message.string, tuple) and not all(message.string):
            catalog.delete(message.id, context=message.context)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # fuzzy entries are left out: English shows instead
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def load_all() -> None:
    """Compile every catalogue now (a few tens of ms each), not on some reader's first word."""
    for language in LANGUAGES:
        translations(language)


def current() -> str:
    """The language words are translated into now."""
    return _current.get()


def set_current(language: str, *, server: str | None = None) -> None:
    """Make ``language`` the current one for the rest of this task (the interaction's), and
    remember ``server``, the server's Discord language, for its public messages."""
    _current.set(language if language in LANGUAGES else DEFAULT)
    _server.set(server if server in LANGUAGES else None)


def server_hint() -> str | None:
    """The server's Discord language as the current interaction gave it (or None)."""
    return _server.get()


@contextlib.contextmanager
def using(language: str | None) -> Iterator[None]:
    """Translate into ``language`` inside the block (a public message: the server's)."""
    token = _current.set(language if language in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """``message`` (English) in the current language."""
    return translations(_current.get()).gettext(message)


def N_(message: str) -> str:  # noqa: N802 (gettext's conventional name)
    """Mark ``message`` for the catalogues without translating it (translated where used)."""
    return message


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form for ``count`` in the current language (its own plural rules)."""
    return translations(_current.get()).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart by ``context`` (one English word
    that needs two translations)."""
    return translations(_current.get()).pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, count: int) -> str:
    """``ngettext`` with a context."""
    return translations(_current.get()).npgettext(context, singular, plural, count)


def from_discord(code: object) -> str | None:
    """Our language for a Discord locale (``discord.Locale`` or its value), or None."""
    value = getattr(code, "value", code)
    if not isinstance(value, str):
        return None
    if value in DISCORD_LOCALES:
        return DISCORD_LOCALES[value]
    return "en" if value.startswith("en") else None


def from_system(value: str | None) -> str:
    """Our language for a POSIX locale (``zh_TW.UTF-8``: the terminal's ``LC_ALL``,
    ``LC_MESSAGES`` or ``LANG``, which ``bot.settings`` reads), else English."""
    if not value:
        return DEFAULT
    return _closest(value.split(".")[0].split("@")[0])


def _closest(identifier: str) -> str:
    """One of ``LANGUAGES`` for a POSIX locale name such as ``zh_TW`` or ``ja_JP``."""
    try:
        parsed = Locale.parse(identifier.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return DEFAULT
    if parsed.language == "zh":
        script = parsed.script or ("Hant" if parsed.territory in ("TW", "HK", "MO") else "Hans")
        return f"zh_{script}"
    return parsed.language if parsed.language in LANGUAGES else DEFAULT


def _babel_locale() -> str:
    return _current.get()


def number(value: float, *, grouped: bool = True) -> str:
    """``value`` as the current language writes numbers (``12,345``); ratings are written
    ungrouped (``1138``), as players write them."""
    return _number(value, _babel_locale(), grouped)


@functools.lru_cache(maxsize=4096, typed=True)
def _number(value: float, locale: str, grouped: bool) -> str:
    # Every board drawn writes its move number and ratings this way, and Babel parses the
    # locale's pattern each time: under load that was 1.3% of the bot's time. Few values recur.
    return format_decimal(value, locale=locale, group_separator=grouped)


def duration(span: timedelta, *, threshold: float = 1.0) -> str:
    """A span of time in words: ``3 hours``, ``7天``, ``20분`` (the largest whole unit)."""
    return format_timedelta(span, threshold=threshold, locale=_babel_locale())


# ---------------------------------------------------------------- slash commands


def command_translator() -> app_commands.Translator:
    """The translator for ``CommandTree.set_translator`` (imports discord.py: the terminal,
    which also reads the catalogues, never calls this)."""
    from discord import app_commands

    class _CatalogueTranslator(app_commands.Translator):
        """Command names, descriptions, options and choices from the catalogues."""

        async def translate(
            self,
            string: app_commands.locale_str,
            locale: Any,
            context: app_commands.TranslationContextTypes,
        ) -> str | None:
            language = from_discord(locale)
            if language is None or language == DEFAULT:
                return None
            render = string.extras.get("render")
            if callable(render):  # words with figures in them: rendered in the language
                with using(language):
                    return str(render())
            return command_text(string.message, language, is_name=_is_name(context))

    return _CatalogueTranslator()


def _is_name(context: Any) -> bool:
    from discord.app_commands import TranslationContextLocation as Where

    return context.location in (Where.command_name, Where.group_name, Where.parameter_name)


def command_text(message: str, language: str, *, is_name: bool) -> str | None:
    """A command's word in ``language``, or None where the catalogue has none."""
    catalogue = translations(language)
    found = catalogue.pgettext(COMMAND_NAME, message) if is_name else catalogue.gettext(message)
    return None if found == message else found


if __name__ == "__main__":
    from bot.i18n_tools import main

    raise SystemExit(main())
