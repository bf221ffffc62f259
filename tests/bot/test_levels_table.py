"""One truth about strength: the level picker, the help's level descriptions and the README's
level table all quote ``bot.text.levels_table``."""

from __future__ import annotations

import pytest

from bot.cogs.play_choices import LEVELS
from bot.text import i18n, levels_table, words
from bot.translator import CatalogueTranslator
from engine.search.levels import PRESETS
from engine.types import Level
from tests.botprocess import ROOT
from tests.processes import python_m

HEADER = "| level | how it plays | against the level below | against Wine 2.1, 500 ms a move |"


def test_the_figures_are_the_measured_ones() -> None:
    strength = levels_table.STRENGTH
    assert [str(s.below) for s in strength.values()] == [
        "None",
        "196/0/60",
        "196/0/60",
        "216/0/40",
        "106/0/22",
        "117/0/11",
    ]
    assert [str(s.engine) for s in strength.values()] == [
        "None",
        "None",
        "None",
        "30/0/98",
        "67/1/60",
        "110/1/17",
    ]
    # Each level scores at least 3 games in 4 against the one below (how they are spaced).
    assert all(s.below.share >= 0.75 for s in strength.values() if s.below is not None)
    assert levels_table.time_cap_s(Level.MASTER) == PRESETS[Level.MASTER].time_ms / 1000


def test_the_picker_and_the_help_quote_the_table() -> None:
    assert words.LEVEL_CHOICES[Level.EASY] == "Easy: scores 76.6% against beginner"
    assert words.LEVEL_CHOICES[Level.MASTER] == (
        f"Master: up to {PRESETS[Level.MASTER].time_ms / 1000:g} s a move; "
        "91.4% against expert, 86.3% against Wine 2.1"
    )
    for level, strength in levels_table.STRENGTH.items():
        described = words.LEVEL_WORDS[level]()
        for score in (strength.below, strength.engine):
            if score is not None:
                assert f"{score.share:.1%}" in words.LEVEL_CHOICES[level]
                assert f"{score.share:.1%}" in described
    help_levels = dict(words.help_sections(lambda name: f"/{name}"))[
        "AI levels (measured, each against the one below)"
    ]
    assert "**hard**: " + words.level_description(Level.HARD) in help_levels
    assert "23.4% against the Gomocup engine Wine 2.1 at 0.5 s a move" in help_levels


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_level_choices_fit_discord_in_every_language(language: str) -> None:
    with i18n.using(language):
        for level in Level:
            choice = words.level_choice(level)
            assert 1 <= len(choice) <= 100, choice
            assert "{" not in choice
            assert "{" not in words.level_description(level)


async def test_the_picker_is_translated_with_its_figures() -> None:
    translator = CatalogueTranslator()
    (master,) = [c for c in LEVELS if c.value == "master"]
    assert master.name == words.LEVEL_CHOICES[Level.MASTER]
    payload = await master.get_translated_payload(translator)
    japanese = payload["name_localizations"]["ja"]
    with i18n.using("ja"):
        assert japanese == words.level_choice(Level.MASTER)
    assert "86.3%" in japanese
    assert japanese != master.name
    assert "en-US" not in payload["name_localizations"]


def _levels_markdown() -> str:
    run = python_m("bot", "levels", "--markdown", cwd=ROOT, check=True)
    return run.stdout


def test_python_m_bot_levels_markdown() -> None:
    lines = _levels_markdown().splitlines()
    assert lines[0] == HEADER
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        "| beginner",
        "| easy",
        "| medium (default)",
        "| hard",
        "| expert",
        "| master",
    ]
    assert lines[2].endswith("| — | — |")
    assert "| 84.4% (216/0/40) | 23.4% (30/0/98) |" in lines[5]


def test_the_readme_holds_the_level_table() -> None:
    table = _levels_markdown().strip()
    assert table in (ROOT / "README.md").read_text("utf-8"), (
        "paste: python -m bot levels --markdown"
    )
