"""The real bot process (``python -m bot``) against the fake Discord: how it ends.

kill -9 must leave no AI worker and no resource tracker behind (they used to run for ever);
SIGTERM must shut down cleanly: exit status 0, queued writes committed, nothing left running.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

from tests.botprocess import BotProcess
from tests.fakediscord import FakeDiscord

# The pool has one worker per core, plus multiprocessing's resource tracker.
FAMILY = len(os.sched_getaffinity(0)) + 1


async def test_kill_9_leaves_nothing_running(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = BotProcess(fake.port, tmp_path / "gomoku.sqlite3")
    try:
        await bot.wait_ready(fake, workers=FAMILY)
        assert len(bot.family) >= FAMILY
        bot.kill()
        assert await bot.leftovers() == [], "processes outlived the killed bot"
    finally:
        bot.close()


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
        assert "You played **H8**" in reply.content
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
