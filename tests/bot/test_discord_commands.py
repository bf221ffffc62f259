"""The command tree as Discord sees it, and single commands through the real discord.py."""

from __future__ import annotations

import inspect
from typing import Any

from discord import app_commands

from bot.client import GomokuBot
from bot.cogs.play import LEVELS
from tests.bot.conftest import BotFactory
from tests.fakediscord import FakeDiscord, FakeUser


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = [node]
    for option in node.get("options", []):
        nodes.extend(_walk(option))
    return nodes


def _member_tree(command: dict[str, Any]) -> list[str]:
    """Every command a member can run under ``command``, by its full name, options in brackets."""
    subs = [o for o in command.get("options", []) if o["type"] in (1, 2)]
    if not subs:
        options = " ".join(f"[{o['name']}]" for o in command.get("options", []))
        return [f"/{command['name']} {options}".rstrip()]
    return [
        line.replace("/", f"/{command['name']} ", 1) for sub in subs for line in _member_tree(sub)
    ]


# The commands a member sees, with their options. A new command or option is a choice to make
# on purpose: members should hold the whole set in their heads (about a dozen, none alike).
MEMBER_TREE = [
    "/place [cell]",
    "/gomoku start [opponent] [game] [rule] [level] [size] [colour] [opening] [rated] [open]"
    " [rating_within]",
    "/gomoku board [look]",
    "/gomoku queue [game] [rule] [leave]",
    "/gomoku resign",
    "/gomoku undo",
    "/gomoku hint",
    "/gomoku puzzle play",
    "/gomoku puzzle daily",
    "/gomoku review [game]",
    "/gomoku history [user] [game]",
    "/gomoku stats [user]",
    "/gomoku leaderboard [game] [rule]",
    "/gomoku preferences [language] [look]",
    "/gomoku help",
]


async def test_registered_tree(fake: FakeDiscord, bot: GomokuBot) -> None:
    gomoku = fake.command("gomoku")
    seen = _member_tree(fake.command("place")) + _member_tree(gomoku)
    print("\n".join(seen))
    assert sorted(seen) == sorted(MEMBER_TREE)
    admin = fake.command("gomoku-admin")
    assert {o["name"] for o in admin["options"]} == {
        "settings",
        "daily-puzzle",
        "end",
        "tournament",
    }
    # Members without Manage Server do not see the admin commands; everyone sees the rest.
    assert str(admin["default_member_permissions"]) == str(1 << 5)
    assert gomoku.get("default_member_permissions") is None
    place = fake.command("place")
    (cell,) = place["options"]
    assert cell["autocomplete"] is True
    assert cell["required"] is True
    for node in _walk(gomoku) + _walk(place):
        assert 1 <= len(node["description"]) <= 100, node["name"]
        assert node["description"] != "…", f"{node['name']} is not described"
    start = next(o for o in gomoku["options"] if o["name"] == "start")
    levels = next(o for o in start["options"] if o["name"] == "level")
    assert [c["value"] for c in levels["choices"]] == list(LEVELS)


def test_callback_docstrings_are_descriptions(bot: GomokuBot) -> None:
    for command in bot.tree.walk_commands():
        if isinstance(command, app_commands.Command):
            doc = inspect.getdoc(command.callback) or ""
            assert doc, command.qualified_name
            assert len(doc) <= 100, command.qualified_name
            assert command.description == doc


async def test_stats_for_a_new_player(fake: FakeDiscord, bot: GomokuBot, alice: FakeUser) -> None:
    reply = await fake.slash("gomoku stats", user=alice)
    assert reply.ephemeral
    assert "has not finished a game yet" in reply.text()
    board = await fake.slash("gomoku leaderboard", user=alice)
    assert "Nobody here has played 3 rated games" in board.text()


async def test_commands_are_registered_only_when_they_change(
    fake: FakeDiscord, make_bot: BotFactory
) -> None:
    first = make_bot()
    async with fake.running(first):
        pass
    assert len(fake.requests_to("PUT", r"/applications/\d+/commands")) == 1
    second = make_bot()
    async with fake.running(second):
        assert await second.sync_commands() is False
    assert len(fake.requests_to("PUT", r"/applications/\d+/commands")) == 1
    # A changed translation is a change too: Discord's copy is compared with its
    # translations (asked for with with_localizations).
    gets = fake.requests_to("GET", r"/applications/\d+/commands")
    assert gets
    assert all(r.query.get("with_localizations") == "true" for r in gets)
    fake.global_commands[0]["description_localizations"] = {"ja": "古い訳"}
    third = make_bot()
    async with fake.running(third):
        pass
    assert len(fake.requests_to("PUT", r"/applications/\d+/commands")) == 2


async def test_a_nested_command_is_named_in_the_members_language(
    fake: FakeDiscord, bot: GomokuBot, alice: FakeUser
) -> None:
    alice.locale = "ja"
    # /gomoku puzzle play, as a Japanese client shows it
    reply = await fake.slash("五目並べ 問題 解く", user=alice)
    assert reply.ephemeral
    assert reply.embeds
    assert "/五目並べ" not in reply.text()  # sentences name commands by mention, never by text
