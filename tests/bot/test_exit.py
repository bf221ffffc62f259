"""How ``python -m bot`` ends when it cannot serve: one line on stderr and its own exit
status (the table in ``bot.__main__``), never a traceback or a hang."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

from bot.__main__ import EXIT_CONFIG, EXIT_TOKEN
from tests.botprocess import ROOT, BotProcess
from tests.fakediscord import FakeDiscord
from tests.processes import python_m


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_no_token_and_no_terminal_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # systemd's default standard input, and docker run without -i: /dev/null.
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["GOMOKU_DB_PATH"] = str(tmp_path / "gomoku.sqlite3")
    started = time.monotonic()
    # cwd: no .env there to read a token from
    run = python_m("bot", stdin=subprocess.DEVNULL, env=env, cwd=tmp_path)
    assert time.monotonic() - started < 30
    assert run.returncode == EXIT_CONFIG
    (line,) = _lines(run.stderr)
    assert "DISCORD_TOKEN is not set" in line
    assert "needs a terminal" in line
    assert run.stdout == ""  # no board: the terminal game did not start
    assert not (tmp_path / "gomoku.sqlite3").exists()


async def test_a_refused_token_is_one_line_and_exit_3(fake: FakeDiscord, tmp_path: Path) -> None:
    token = "MTIzNDU2Nzg5MDEyMzQ1Njc4.revoked.token"
    fake.refused_tokens.add(token)
    bot = BotProcess(fake.port, tmp_path / "gomoku.sqlite3", token=token)
    try:
        # In a thread: the fake answers on this event loop meanwhile.
        status = await asyncio.to_thread(bot.process.wait, 120)
        errors = bot.errors()
    finally:
        bot.close()
    assert status == EXIT_TOKEN, errors
    (line,) = _lines(errors)
    assert "Discord refused DISCORD_TOKEN" in line
    assert token not in errors
    assert any(r.path == "/users/@me" and r.status == 401 for r in fake.requests)


def test_the_exit_table_names_each_status_once() -> None:
    from bot.__main__ import EXIT_CODES, EXIT_DATABASE

    statuses = [EXIT_CONFIG, EXIT_TOKEN, *EXIT_CODES.values(), EXIT_DATABASE]
    assert len(statuses) == len(set(statuses))
    assert 1 not in statuses  # Python's own status for an uncaught exception
    doc = (ROOT / "bot" / "__main__.py").read_text("utf-8")
    for status in statuses:
        assert f"\n{status} " in doc, f"exit status {status} is not in the table"
