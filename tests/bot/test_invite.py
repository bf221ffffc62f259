"""The invite link asks for every permission the bot checks at run time: the checks and the
link read the same constants (``bot.permissions``), and no check reads any other."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot import permissions
from bot.__main__ import EXIT_CONFIG
from tests.botprocess import ROOT
from tests.processes import python_m

CONSTANTS = {
    name: value
    for name, value in vars(permissions).items()
    if isinstance(value, discord.Permissions)
}


def _names(value: discord.Permissions) -> set[str]:
    return set(permissions.missing(discord.Permissions.none(), value))


def test_the_invite_asks_for_what_a_game_needs() -> None:
    assert _names(permissions.INVITE_WITHOUT_THREADS) == {
        "view_channel",
        "send_messages",
        "send_messages_in_threads",  # a game in a thread players opened
        "embed_links",
        "attach_files",
        "read_message_history",
    }
    assert permissions.INVITE_WITHOUT_THREADS.value == 274_878_024_704
    # A thread for each game is the default: the invite asks for what it needs.
    assert _names(permissions.INVITE) == _names(permissions.INVITE_WITHOUT_THREADS) | {
        "create_public_threads"
    }
    assert permissions.INVITE.value == 309_237_763_072


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_every_constant_is_in_the_invite(name: str) -> None:
    value = CONSTANTS[name]
    assert value.value != 0
    assert value.is_subset(permissions.INVITE)
    if name not in ("THREADS", "INVITE"):
        # a game in a server that keeps games in channels
        assert value.is_subset(permissions.INVITE_WITHOUT_THREADS)


def _bot_sources() -> list[Path]:
    return [p for p in sorted((ROOT / "bot").rglob("*.py")) if p.name != "permissions.py"]


def test_bot_permissions_are_read_only_through_the_constants() -> None:
    # A check that read the bot's permissions itself (app_permissions, permissions_for, a
    # Permissions of its own) could ask for one the invite lacks: each goes through
    # bot.permissions.require, .missing or .has with one of its constants.
    found: list[str] = []
    for path in _bot_sources():
        tree = ast.parse(path.read_text("utf-8"))
        # `case BotMissingPermissions(...)` words the refusal (bot.reporting); it checks nothing.
        patterns = {id(n.cls) for n in ast.walk(tree) if isinstance(n, ast.MatchClass)}
        for node in ast.walk(tree):
            if id(node) in patterns:
                continue
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Attribute) and node.attr in (
                "app_permissions",
                "Permissions",
                "BotMissingPermissions",
                "bot_has_permissions",
            ):
                found.append(f"{where} {node.attr}")
            if isinstance(node, ast.Name) and node.id in ("Permissions", "BotMissingPermissions"):
                found.append(f"{where} {node.id}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name = node.func.attr
                if name == "permissions_for":
                    parent = _outer_call(path, node)
                    if parent != "permissions.missing":
                        found.append(f"{where} permissions_for outside permissions.missing")
                if (
                    isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "permissions"
                    and name in ("require", "missing", "has")
                ):
                    needed = node.args[-1]
                    constants = [
                        n.attr
                        for n in ast.walk(needed)
                        if isinstance(n, ast.Attribute)
                        and isinstance(n.value, ast.Name)
                        and n.value.id == "permissions"
                    ]
                    if not constants or set(constants) - set(CONSTANTS):
                        found.append(f"{where} {ast.unparse(needed)}")
                    names = {n.id for n in ast.walk(needed) if isinstance(n, ast.Name)}
                    if names - {"permissions", "in_thread"}:
                        found.append(f"{where} {ast.unparse(needed)}")
    assert found == []


def _outer_call(path: Path, inner: ast.Call) -> str | None:
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Call) and any(
            isinstance(arg, ast.Call) and ast.dump(arg) == ast.dump(inner) for arg in node.args
        ):
            return ast.unparse(node.func)
    return None


def test_the_checks_use_the_constants() -> None:
    # The run-time checks name these constants: the game commands, the thread setting and
    # the welcome. (If one went away, the test above would not see it.)
    uses = {
        path.name: ast.unparse(ast.parse(path.read_text("utf-8")))
        for path in _bot_sources()
        if "permissions." in path.read_text("utf-8")
    }
    assert "permissions.GAME" in uses["reporting.py"]
    assert "permissions.IN_THREAD" in uses["reporting.py"]
    assert "permissions.THREADS" in uses["threads.py"]
    assert "permissions.WELCOME" in uses["onboarding.py"]


def _invite(*args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    if token is not None:
        env["DISCORD_TOKEN"] = token
    # cwd: no .env there, and no package named bot
    return python_m(
        "bot", "invite", *args, env={**env, "PYTHONPATH": str(ROOT)}, cwd=ROOT / "engine"
    )


def test_python_m_bot_invite_prints_the_link() -> None:
    base = "https://discord.com/oauth2/authorize?client_id=42&scope=bot+applications.commands"
    plain = _invite("--client-id", "42")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == f"{base}&permissions={permissions.INVITE.value}\n"
    channels = _invite("--client-id", "42", "--no-threads")
    assert channels.returncode == 0, channels.stderr
    assert channels.stdout == f"{base}&permissions={permissions.INVITE_WITHOUT_THREADS.value}\n"


def test_the_client_id_comes_from_the_token() -> None:
    # A bot token's first part is its user id in base64; a portal-made bot's is the app's.
    run = _invite(token="MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.secret-part")
    assert run.returncode == 0, run.stderr
    assert "client_id=123456789012345678&" in run.stdout
    assert "secret-part" not in run.stdout + run.stderr


@pytest.mark.parametrize("token", [None, "not-a-token"], ids=["none", "odd"])
def test_no_client_id_is_one_line(token: str | None) -> None:
    run = _invite(token=token)
    assert run.returncode == EXIT_CONFIG
    assert run.stdout == ""
    (line,) = run.stderr.splitlines()
    assert "--client-id" in line
    assert "Traceback" not in run.stderr
    if token is None:
        assert "set DISCORD_TOKEN" in line
    else:  # set, but not a bot token: say so, not "set DISCORD_TOKEN"
        assert "DISCORD_TOKEN is not a Discord bot token" in line
        assert "set DISCORD_TOKEN" not in line
        assert token not in line


@given(
    have=st.integers(min_value=0, max_value=discord.Permissions.all().value),
    name=st.sampled_from(sorted(CONSTANTS)),
)
def test_has_is_nothing_missing(have: int, name: str) -> None:
    needed = CONSTANTS[name]
    interaction: Any = SimpleNamespace(app_permissions=discord.Permissions(have))
    assert permissions.has(interaction, needed) is (
        not permissions.missing(discord.Permissions(have), needed)
    )
