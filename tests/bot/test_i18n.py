"""Languages (issue 15): the catalogues are complete and consistent, a missing translation
shows English, the current language follows the reader, numbers and spans follow the locale.

``REQUIRED`` in ``bot.text.i18n`` lists every language that must be complete: nothing is skipped.
"""

from __future__ import annotations

import ast
import asyncio
import re
import string
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po
from discord import Locale, app_commands
from discord.app_commands import TranslationContext, TranslationContextLocation

from bot.core.service.errors import NotYourTurnError
from bot.i18n_tools import missing, source_catalog
from bot.settings import Settings
from bot.text import i18n, words
from bot.text.i18n import COMMAND_NAME, LANGUAGES, REQUIRED, TEMPLATE, po_path
from bot.text.refusals import user_message
from bot.translator import CatalogueTranslator
from engine.errors import OccupiedPointError
from engine.types import Point


def _read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale=language)


def _catalogue(language: str) -> Catalog:
    path = po_path(language)
    assert path.is_file(), f"{language} is REQUIRED: python -m bot.i18n_tools init {language}"
    return _read(path, language)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _key(message: Message) -> tuple[str, str | None]:
    ident = message.id if isinstance(message.id, str) else message.id[0]
    return ident, message.context


@pytest.fixture(scope="module")
def template() -> Catalog:
    return _read(TEMPLATE)


def test_template_holds_every_word_of_the_sources(template: Catalog) -> None:
    # Extracted afresh from bot/ and the command tree: a new sentence nobody ran
    # `python -m bot.i18n_tools extract` for fails here, as does one left in the template.
    fresh = {_key(m) for m in source_catalog() if m.id}
    stored = {_key(m) for m in template if m.id}
    assert fresh - stored == set(), "run: python -m bot.i18n_tools extract"
    assert stored - fresh == set(), "run: python -m bot.i18n_tools extract"


def test_required_languages_are_every_language_but_english() -> None:
    assert set(REQUIRED) == set(LANGUAGES) - {"en"}
    assert {"zh_Hans", "zh_Hant", "ja", "ko"} <= set(REQUIRED)


@pytest.mark.parametrize("language", REQUIRED)
def test_catalogue_translates_every_id(language: str, template: Catalog) -> None:
    catalogue = _catalogue(language)
    ids = {_key(m) for m in catalogue if m.id}
    assert {_key(m) for m in template if m.id} - ids == set(), (
        "run: python -m bot.i18n_tools extract"
    )
    assert missing(catalogue) == [], f"{language}: untranslated or fuzzy entries"


@pytest.mark.parametrize("language", REQUIRED)
def test_placeholders_match_the_english(language: str) -> None:
    for message in _catalogue(language):
        if not message.id or not message.string:
            continue
        ids = [str(t) for t in (message.id if isinstance(message.id, tuple) else (message.id,))]
        strings = [
            str(t)
            for t in (message.string if isinstance(message.string, tuple) else (message.string,))
        ]
        wanted = set().union(*(_fields(text) for text in ids))
        for text in filter(None, strings):  # an empty one is the completeness test's business
            # A plural form may leave the count out ("一局" for one game); nothing else.
            found = _fields(text)
            assert found <= wanted, f"{language}: {ids[0]!r} has {found - wanted}"
            assert wanted - found <= {"count"}, f"{language}: {ids[0]!r} lacks {wanted - found}"
            if not isinstance(message.id, tuple):
                assert found == wanted, f"{language}: {ids[0]!r}"


@pytest.mark.parametrize("language", REQUIRED)
def test_command_words_fit_discord(language: str) -> None:
    for message in _catalogue(language):
        if not message.id or not message.string:
            continue
        text = str(message.string)
        if message.context == COMMAND_NAME:
            # Discord: lower case, no spaces, 1-32 letters, digits, - or _.
            assert re.fullmatch(r"[-_\w]{1,32}", text), f"{language}: {text!r}"
            assert text == text.lower(), f"{language}: {text!r}"
        elif any(loc.startswith("commands/") for loc, _ in message.locations):
            assert 1 <= len(text) <= 100, f"{language}: {text!r} is too long for Discord"


@pytest.fixture
def catalogue_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A locale folder of our own, with a small Japanese catalogue."""
    catalog = Catalog(locale="ja", domain="gomoku")
    catalog.add("It's not your turn.", "あなたの番ではありません。")
    catalog.add("{point} is already taken.", "", flags=["python-brace-format"])  # empty
    catalog.add("That point is off the board.", "盤の外です。", flags=["fuzzy"])
    catalog.add(("{count} win", "{count} wins"), ("",))  # a plural left empty
    catalog.add("start", "かいし", context=COMMAND_NAME)
    catalog.add("Start a game", "対局を始める")
    path = tmp_path / "ja" / "LC_MESSAGES" / "gomoku.po"
    path.parent.mkdir(parents=True)
    with path.open("wb") as file:
        write_po(file, catalog)
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.translations.cache_clear()
    yield tmp_path
    i18n.translations.cache_clear()


def test_missing_translations_fall_back_to_english(catalogue_dir: Path) -> None:
    with i18n.using("ja"):
        assert user_message(NotYourTurnError(1, 2)) == "あなたの番ではありません。"
        # empty, fuzzy, a half-empty plural, and an id no catalogue has: English, never an id
        assert user_message(OccupiedPointError(Point(7, 7))) == "**h8** is already taken."
        assert i18n._("That point is off the board.") == "That point is off the board."
        assert words.record_line(2, 1, 0, 0) == "2 wins, 1 loss"
        assert i18n._("Not in any catalogue.") == "Not in any catalogue."
    with i18n.using("ko"):  # no catalogue at all in this folder
        assert user_message(NotYourTurnError(1, 2)) == "It's not your turn."


async def test_command_translator_reads_the_catalogues(catalogue_dir: Path) -> None:
    translator = CatalogueTranslator()
    name: Any = TranslationContext(TranslationContextLocation.other, None)
    text: Any = TranslationContext(TranslationContextLocation.other, None)
    name.location = TranslationContextLocation.command_name
    text.location = TranslationContextLocation.command_description
    start = app_commands.locale_str("start")
    assert await translator.translate(start, Locale.japanese, name) == "かいし"
    assert await translator.translate(start, Locale.japanese, text) is None  # names have a ctxt
    described = app_commands.locale_str("Start a game")
    assert await translator.translate(described, Locale.japanese, text) == "対局を始める"
    assert await translator.translate(described, Locale.american_english, text) is None
    assert await translator.translate(described, Locale.german, text) is None  # not offered
    assert await translator.translate(app_commands.locale_str("x"), Locale.japanese, text) is None


async def test_the_language_belongs_to_the_task_and_the_block() -> None:
    assert i18n.current() == "en"

    async def reader(language: str) -> list[str]:
        i18n.set_current(language, server="ko")
        await asyncio.sleep(0)
        seen = [i18n.current()]
        with i18n.using("ja"):
            seen.append(i18n.current())
        seen.append(i18n.current())
        return seen

    assert list(await asyncio.gather(reader("zh_Hans"), reader("zh_Hant"))) == [
        ["zh_Hans", "ja", "zh_Hans"],
        ["zh_Hant", "ja", "zh_Hant"],
    ]
    assert i18n.current() == "en"  # the tasks' choices stayed in the tasks
    assert i18n.server_hint() is None
    with i18n.using("xx"):  # a language we do not speak
        assert i18n.current() == "en"


@pytest.mark.parametrize(
    ("discord_locale", "language"),
    [
        (Locale.chinese, "zh_Hans"),
        (Locale.taiwan_chinese, "zh_Hant"),
        (Locale.japanese, "ja"),
        (Locale.korean, "ko"),
        (Locale.american_english, "en"),
        (Locale.british_english, "en"),
        (Locale.german, None),
        ("zh-CN", "zh_Hans"),
        (None, None),
    ],
)
def test_discord_locales_map_to_our_languages(discord_locale: object, language: str) -> None:
    assert i18n.from_discord(discord_locale) == language


@pytest.mark.parametrize(
    ("value", "language"),
    [
        ("zh_CN.UTF-8", "zh_Hans"),
        ("zh_TW.UTF-8", "zh_Hant"),
        ("zh_HK", "zh_Hant"),
        ("ja_JP.UTF-8", "ja"),
        ("ko_KR.eucKR", "ko"),
        ("en_GB.UTF-8", "en"),
        ("de_DE.UTF-8", "en"),
        ("C.UTF-8", "en"),
        ("POSIX", "en"),
    ],
)
def test_the_terminal_follows_the_system_locale(value: str, language: str) -> None:
    assert i18n.from_system(Settings.from_env({"LANG": value}, dotenv=None).system_locale) == (
        language
    )
    both = Settings.from_env({"LANG": value, "LC_ALL": "ja_JP.UTF-8"}, dotenv=None)
    assert i18n.from_system(both.system_locale) == "ja"  # LC_ALL wins over LANG
    assert i18n.from_system(None) == "en"


@pytest.mark.parametrize(
    ("language", "count", "days", "minutes", "day"),
    [
        ("en", "12,345", "7 days", "1 hour", "November 22, 2026"),
        ("zh_Hans", "12,345", "7天", "1小时", "2026年11月22日"),
        ("zh_Hant", "12,345", "7 天", "1 小時", "2026年11月22日"),
        ("ja", "12,345", "7 日", "1 時間", "2026年11月22日"),
        ("ko", "12,345", "7일", "1시간", "2026년 11월 22일"),
    ],
)
def test_numbers_dates_and_spans_follow_the_language(
    language: str, count: str, days: str, minutes: str, day: str
) -> None:
    with i18n.using(language):
        assert i18n.number(12345) == count
        assert i18n.number(1138, grouped=False) == "1138"  # ratings
        assert words.day_name(date(2026, 11, 22)) == day
        assert words.duration(timedelta(days=7)) == days
        assert words.duration(timedelta(minutes=60)) == minutes
        assert "duration" not in words.duration(timedelta(seconds=30))
        assert "duration" not in words.turn_minutes(5)


_SAYS = {  # what discord.py shows to people, by keyword or as the first argument
    "send": ("content",),
    "send_message": ("content",),
    "edit_message": ("content",),
    "edit_original_response": ("content",),
    "Embed": ("title", "description"),
    "add_field": ("name", "value"),
    "set_footer": ("text",),
    "Button": ("label",),
    "button": ("label",),
    "create_thread": ("name",),
}
_WORD = re.compile(r"[A-Za-z]{2,}")


def _literal_words(node: ast.expr) -> str | None:
    """The letters written literally in ``node`` (a string or f-string), if any."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if _WORD.search(node.value) else None
    if isinstance(node, ast.JoinedStr):
        text = "".join(str(v.value) for v in node.values if isinstance(v, ast.Constant))
        return text if _WORD.search(text) else None
    return None


def test_nothing_shown_on_discord_is_written_outside_the_catalogues() -> None:
    # A sentence typed straight into a message, embed, button or thread name would reach
    # every reader in English and never reach the catalogues: words come from bot.text.words,
    # bot.text.refusals, bot.text.opening_words (or _() where they are used).
    found: list[str] = []
    for path in sorted((Path(__file__).resolve().parents[2] / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in _SAYS:
                continue
            shown = [k.value for k in node.keywords if k.arg in _SAYS[name]]
            if "content" in _SAYS[name] and node.args:
                shown.append(node.args[0])
            found.extend(
                f"{path.name}:{node.lineno} {text!r}"
                for text in map(_literal_words, shown)
                if text is not None
            )
    assert found == []
