"""The real bot process (``python -m bot``) against the fake Discord: how it ends.

SIGTERM must shut down cleanly: exit status 0, queued writes committed, nothing left running
(the terminal game too). kill -9 must leave no AI worker and no resource tracker behind (they
used to run for ever): ``tests/bot/test_chaos.py`` kills the same process twice.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import pytest

from tests.botprocess import ROOT, BotProcess, alive, descendants
from tests.fakediscord import FakeDiscord
from tests.processes import python_m_started

# The pool has one worker per core, plus multiprocessing's resource tracker.
FAMILY = len(os.sched_getaffinity(0)) + 1


@pytest.mark.slow
async def test_sigterm_exits_0_commits_and_leaves_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    path = tmp_path / "gomoku.sqlite3"
    bot = BotProcess(fake.port, path)
    try:
        await bot.wait_ready(fake, workers=FAMILY)
        alice = fake.add_user("alice")
        await fake.slash(
            "gomoku start", user=alice, options={"level": "beginner", "colour": "black"}
        )
        reply = await fake.slash("place", user=alice, options={"cell": "h8"})
        assert "played **H8**" in reply.content
        status = bot.terminate()
        assert status == 0, bot.errors()
        assert await bot.leftovers() == [], "processes outlived the bot"
        assert "Traceback" not in bot.errors()
    finally:
        bot.close()
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        moves = db.execute("SELECT x, y FROM moves ORDER BY seq").fetchall()
    assert moves[0] == (7, 7)
    assert len(moves) == 2  # the AI's answer too: it was acknowledged in the reply


@pytest.mark.slow
def test_the_terminal_game_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["GOMOKU_DB_PATH"] = str(tmp_path / "console.sqlite3")
    with python_m_started("bot", cwd=ROOT, env=env, stdin=subprocess.PIPE) as process:
        try:
            assert process.stdin is not None
            assert process.stdout is not None
            process.stdin.write("new friend 9\ne5\n")
            process.stdin.flush()
            seen = ""
            while "Move 2, last e5" not in seen:
                line = process.stdout.readline()
                assert line, "the terminal game ended early"
                seen += line
            family = descendants(process.pid)
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 0, err
    assert "Bye. Your game is saved." in out
    assert "Traceback" not in err
    deadline = time.monotonic() + 5
    while alive(family) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling /proc
    assert alive(family) == []
