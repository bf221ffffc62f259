"""``python -m bot.i18n_tools extract|init|check``: keep the catalogues in step with the sources.

``extract`` runs Babel's Python extractor over the package (the mapping is ``[tool.babel]`` in
pyproject.toml; keywords ``_``, ``N_``, ``ngettext``, ``pgettext``, ``npgettext``), adds every
slash command's name, description, option and choice as the command tree declares them
(names under the context ``command name``), writes ``bot/locale/gomoku.pot`` and merges it
into each language's ``.po``: new ids come in untranslated, ids gone from the sources go.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from bot.text.i18n import (
    COMMAND_NAME,
    DEFAULT,
    DOMAIN,
    LANGUAGE_NAMES,
    LANGUAGES,
    TEMPLATE,
    po_path,
)

__all__ = ["command_messages", "main", "missing", "source_catalog"]

ROOT = Path(__file__).resolve().parent.parent
_HEADER_COMMENT = (
    "# Messages of gomoku-bot. Edit the .po files; regenerate with python -m bot.i18n_tools."
)


def _method_map() -> list[tuple[str, str]]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        config = tomllib.load(file)
    return [(entry["pattern"], entry["method"]) for entry in config["tool"]["babel"]["mappings"]]


def command_messages() -> Iterator[tuple[str, str | None, str]]:
    """(message, context, where) for every word of the slash commands, from the live tree."""
    return iter(asyncio.run(_command_messages()))


async def _command_messages() -> list[tuple[str, str | None, str]]:
    from discord import app_commands

    from bot.app import EXTENSIONS, create_bot
    from bot.settings import Settings
    from bot.text.words import LEVEL_CHOICES

    rendered = set(LEVEL_CHOICES.values())  # choices with figures, rendered per language

    bot = create_bot(Settings())
    for extension in EXTENSIONS:
        await bot.load_extension(extension)
    found: list[tuple[str, str | None, str]] = []

    def parameters(command: app_commands.Command[Any, ..., Any], where: str) -> None:
        for parameter in command.parameters:
            place = f"{where}:{parameter.name}"
            found.append((parameter.name, COMMAND_NAME, place))
            found.append((str(parameter.description), None, place))
            for choice in parameter.choices:
                if choice.name in LANGUAGE_NAMES.values():  # each language's own name
                    continue
                if choice.name in rendered:  # its template is in the sources
                    continue
                found.append((choice.name, None, place))

    def walk(node: Any, where: str) -> None:
        place = f"{where}/{node.name}"
        found.append((node.name, COMMAND_NAME, place))
        found.append((node.description, None, place))
        if isinstance(node, app_commands.Group):
            for child in node.commands:
                walk(child, place)
        elif isinstance(node, app_commands.Command):
            parameters(node, place)

    for command in bot.tree.get_commands():
        walk(command, "commands")
    await bot.close()
    return found


def source_catalog() -> Catalog:
    """Every message of the sources and the command tree, as a template catalogue."""
    catalog = Catalog(project="gomoku-bot", domain=DOMAIN, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT / "bot"),
        method_map=_method_map(),
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    ):
        catalog.add(
            message,
            None,
            [(f"bot/{filename}", lineno)],
            auto_comments=comments,
            context=context,
            flags=_flags(message),
        )
    for message, context, where in command_messages():
        if not message:
            continue
        comment = (
            "a slash-command name: lower case, no spaces, at most 32 letters"
            if context == COMMAND_NAME
            else "a slash-command description or choice: at most 100 characters"
        )
        catalog.add(message, None, [(where, 0)], auto_comments=[comment], context=context)
    return catalog


def _flags(message: str | tuple[str, ...]) -> Iterable[str]:
    texts = message if isinstance(message, tuple) else (message,)
    if any("{" in text or "%(" in text for text in texts):
        return ("python-brace-format",) if any("{" in t for t in texts) else ("python-format",)
    return ()


def _write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog, width=100, sort_output=False, include_lineno=False)


def extract() -> None:
    """Regenerate the template and merge it into every language's catalogue."""
    template = source_catalog()
    _write(template, TEMPLATE)
    print(f"{len(template)} messages -> {TEMPLATE.relative_to(ROOT)}")
    for language in LANGUAGES:
        path = po_path(language)
        if language == DEFAULT or not path.is_file():
            continue
        with path.open("rb") as file:
            catalog = read_po(file, locale=language, domain=DOMAIN)
        catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
        catalog.obsolete.clear()  # ids gone from the sources stay in git history, not here
        _write(catalog, path)
        print(f"{language}: {len(missing(catalog))} untranslated")


def init(language: str) -> None:
    """Start the catalogue of a new language from the template."""
    path = po_path(language)
    if path.exists():
        raise SystemExit(f"{path} exists already")
    with TEMPLATE.open("rb") as file:
        template = read_po(file)
    catalog = Catalog(locale=language, domain=DOMAIN, project="gomoku-bot", fuzzy=False)
    catalog.update(template, no_fuzzy_matching=True)
    _write(catalog, path)
    print(f"{path.relative_to(ROOT)}: {len(catalog)} messages to translate")


def missing(catalog: Catalog) -> list[str]:
    """The ids of ``catalog`` with no usable translation (empty, partly empty or fuzzy)."""
    lacking = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            lacking.append(str(message.id))
    return lacking


def check() -> int:
    """Print what each catalogue lacks; non-zero when any lacks anything."""
    failed = 0
    for language in LANGUAGES[1:]:
        path = po_path(language)
        if not path.is_file():
            print(f"{language}: no catalogue")
            failed = 1
            continue
        with path.open("rb") as file:
            lacking = missing(read_po(file, locale=language, domain=DOMAIN))
        print(f"{language}: {len(lacking)} untranslated")
        failed |= bool(lacking)
    return failed


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bot.i18n_tools")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("extract", help="sources -> gomoku.pot -> every .po")
    new = sub.add_parser("init", help="a new language's catalogue from the template")
    new.add_argument("language", help="a Babel locale id, e.g. de, pt_BR, zh_Hant")
    sub.add_parser("check", help="what each catalogue still lacks")
    options = parser.parse_args(argv)
    if options.command == "extract":
        extract()
    elif options.command == "init":
        init(options.language)
    else:
        return check()
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
