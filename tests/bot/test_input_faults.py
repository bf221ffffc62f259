"""Every input path answers a sentence, never a traceback: the inputs that used to end in one.

``/place`` text that Unicode case folding maps to a column letter, button ids with huge
numbers or the wrong shape, option values of the wrong type, and terminal commands with
digits that are not ASCII, numbers past int()'s 4,300 digits, NUL bytes and endless lines.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fuzz import fuzz
from bot.client import GomokuBot
from tests.bot.test_terminal import session
from tests.fakediscord import FakeDiscord, FakeUser
from tests.processes import python_m

ROOT = Path(__file__).resolve().parents[2]


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert bad == [], [r.getMessage() for r in bad]


@pytest.mark.parametrize(
    "typed",
    ["\u017f", "\u0131", "\u0130", "\u212a", "\u017f8", "\u00b2", "h\u00b2", "\uff48\uff18"],
    ids=["long-s", "dotless-i", "dotted-I", "kelvin", "long-s-8", "superscript", "h-sup", "wide"],
)
async def test_place_with_look_alike_letters(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    caplog: pytest.LogCaptureFixture,
    typed: str,
) -> None:
    await fake.slash("gomoku start", user=alice, options={"game": "connect4"})
    reply = await fake.slash("place", user=alice, options={"cell": typed})
    assert reply.ephemeral
    assert "is not a point" in reply.content
    no_tracebacks(caplog)


@pytest.mark.parametrize(
    "custom_id",
    [
        "gomoku:99999999999999999999999999:accept",
        "gomoku:1:cell:999999999999999999999:1",
        "gomoku:1:drop:99999999999999999999",
        "gomoku:\u0663:accept",
        "gomoku:1:undo:maybe",
        "gomoku:",
        "gomoku:1:drop:3:4",
        "gomoku:history:9223372036854775808:0",
        "gomoku:history:1:" + "9" * 20,
        "gomoku:9223372036854775808:replay:first:0",
        "gomoku:1:replay:next:" + "9" * 20,
    ],
)
async def test_buttons_with_any_id_answer(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    caplog: pytest.LogCaptureFixture,
    custom_id: str,
) -> None:
    message = fake.plant_button(custom_id)
    reply = await fake.click(message, custom_id, user=alice)
    assert reply.ephemeral
    assert reply.content.endswith(".")
    assert "Something went wrong" not in reply.content
    no_tracebacks(caplog)


async def test_the_unknown_button_takes_only_what_no_other_button_does(bot: GomokuBot) -> None:
    registered = bot._known_items  # every item any cog registered
    assert bot._unknown_item is not None
    unknown = bot._unknown_item.__discord_ui_compiled_template__
    ours = [
        "gomoku:12:accept",
        "gomoku:12:decline",
        "gomoku:12:resign",
        "gomoku:12:undo:yes",
        "gomoku:12:cell:2:1",
        "gomoku:12:drop:6",
        "gomoku:12:move",
        "gomoku:12:tap:2:1:5",
        "gomoku:12:pan:l:0:0:5",
        "gomoku:12:rematch",
        "gomoku:12:open:black",
    ]
    for custom_id in ours:
        takers = [c for c in registered if c.__discord_ui_compiled_template__.fullmatch(custom_id)]
        assert len(takers) == 1, custom_id
        assert unknown.fullmatch(custom_id) is None, custom_id
    for forged in ("gomoku:12:cell:100:1", "gomoku:1:accept:", "gomoku:" + "9" * 19 + ":resign"):
        assert unknown.fullmatch(forged) is not None
        assert not any(c.__discord_ui_compiled_template__.fullmatch(forged) for c in registered)


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("place", [{"name": "cell", "type": 4, "value": 5}]),
        ("place", [{"name": "cell", "type": 3, "value": 5}]),
        ("place", []),
        ("place", [{"name": "cell", "type": 3, "value": "h8"}, {"name": "x", "type": 3}]),
        ("gomoku start", [{"name": "size", "type": 4, "value": "abc"}]),
        ("gomoku start", [{"name": "size", "type": 4, "value": 10**30}]),
        ("gomoku start", [{"name": "opponent", "type": 6, "value": "12345"}]),
        ("gomoku start", [{"name": "level", "type": 3, "value": None}]),
        ("gomoku start", [{"name": "game", "type": 3, "value": ["gomoku"]}]),
    ],
    ids=[
        "int-cell",
        "int-value",
        "no-cell",
        "unknown-option",
        "text-size",
        "huge-size",
        "unresolved-user",
        "null-level",
        "list-game",
    ],
)
async def test_options_of_any_type_answer(
    fake: FakeDiscord,
    bot: GomokuBot,
    alice: FakeUser,
    caplog: pytest.LogCaptureFixture,
    command: str,
    options: list[dict[str, Any]],
) -> None:
    reply = await fake.answer(await fake.send_forged_slash(command, options, user=alice))
    assert reply.ephemeral
    assert reply.content
    assert "Something went wrong" not in reply.content
    no_tracebacks(caplog)


async def test_a_channel_the_bot_does_not_know_is_refused_clearly(
    fake: FakeDiscord, bot: GomokuBot, caplog: pytest.LogCaptureFixture
) -> None:
    unseen = fake.add_channel("unseen")  # no CHANNEL_CREATE: the bot's cache lacks it
    assert bot.get_channel(unseen.id) is None
    for option in ("allow_channel", "disallow_channel"):
        reply = await fake.slash("gomoku-admin settings", user=fake.owner, options={option: unseen})
        assert reply.ephemeral
        assert reply.content == (
            "I can't use that channel. Pick a text channel of this server that I can see."
        )
    assert not (await bot.service.settings(fake.guild_id)).allowed_channel_ids
    no_tracebacks(caplog)


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("idle_hours", 0, "That idle time between people (hours) is not available (choose 1-2160)"),
        ("idle_ai_hours", 2161, "That idle time against the AI (hours) is not available (choose "),
        ("turn_minutes", -1, "That turn time (minutes) is not available (choose 0-10080)."),
    ],
)
async def test_forged_settings_out_of_range_are_refused_in_their_own_unit(
    fake: FakeDiscord,
    bot: GomokuBot,
    caplog: pytest.LogCaptureFixture,
    option: str,
    value: int,
    words: str,
) -> None:
    before = await bot.service.settings(fake.guild_id)
    forged = [{"name": option, "type": 4, "value": value}]
    reply = await fake.answer(
        await fake.send_forged_slash("gomoku-admin settings", forged, user=fake.owner)
    )
    assert reply.ephemeral
    assert reply.content.startswith(words)
    assert reply.content.endswith("-2160)." if "idle" in option else "-10080).")
    assert "seconds" not in reply.content
    assert await bot.service.settings(fake.guild_id) == before
    no_tracebacks(caplog)


async def test_a_second_accept_and_another_channels_button(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser, bob: FakeUser
) -> None:
    board = (
        await fake.slash("gomoku start", user=alice, options={"opponent": bob, "rated": False})
    ).message
    assert board is not None
    accept = next(c for c in board.custom_ids() if c.endswith(":accept"))
    await fake.click(board, accept, user=bob)
    again = await fake.answer(await fake.send_click(fake.plant_button(accept), accept, user=bob))
    assert "already under way" in again.content
    assert "not being played" not in again.content
    game_id = accept.split(":")[1]
    elsewhere = fake.add_channel("elsewhere")
    drop = f"gomoku:{game_id}:drop:2"
    other = await fake.click(fake.plant_button(drop, elsewhere), drop, user=alice)
    assert "another channel" in other.content
    here = await fake.click(fake.plant_button(drop), drop, user=bob)
    assert f"</place:{fake.command('place')['id']}> `h8`" in here.content
    assert "choose" not in here.content


@pytest.mark.parametrize(
    "line",
    [
        "new \u00b2",
        "new " + "9" * 5000,
        "new 12x\u00b2",
        "export a\0b",
        "\u00b2",
        "\0",
        "x" * 70_000,
    ],
    ids=["new-superscript", "new-5000-digits", "new-square", "export-nul", "sup", "nul", "long"],
)
async def test_terminal_lines_answer(
    line: str, caplog: pytest.LogCaptureFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # "export <name>" writes the file here
    out, _ = await session(["new connect4 friend", line, "board", "quit"], friend=False)
    assert out.rstrip().endswith("Bye. Your game is saved.")
    assert "Something went wrong" not in out
    no_tracebacks(caplog)


@pytest.mark.slow
def test_python_m_bot_reads_endless_lines_and_odd_digits(tmp_path: Path) -> None:
    """The real stdin reader: a line of 100 KiB is refused whole, the next line works."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["GOMOKU_DB_PATH"] = str(tmp_path / "console.sqlite3")
    typed = "new connect4 friend\n" + "7" * 100_000 + "\n\u00b2\nnew \u00b2\n4\nquit\n"
    run = python_m("bot", input=typed, env=env, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "That line is too long" in run.stdout
    assert "Move 2, last" in run.stdout  # "4" after it all was played


async def test_a_small_fuzz_finds_nothing() -> None:
    report = await fuzz(60, seed=16)
    assert sum(report.sent.values()) >= 120
    assert report.failures == 0, report.examples
