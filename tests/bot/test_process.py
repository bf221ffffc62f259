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
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.botprocess import ROOT, BotProcess, descendants, dying, left_running, pending_signals
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
    assert left_running(family) == []


_BLOCKS_SIGUSR1 = """
import signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print("blocked", flush=True)
sys.stdin.read()
"""


def _family_of(child: subprocess.Popen[str] | subprocess.Popen[bytes]) -> dict[int, int]:
    """``child`` as ``descendants`` lists it (with its start time)."""
    family = {pid: start for pid, start in descendants(os.getpid()).items() if pid == child.pid}
    assert list(family) == [child.pid]
    return family


def test_a_blocked_signal_reads_as_pending_and_a_live_process_as_left_running() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", _BLOCKS_SIGUSR1],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == "blocked\n"
            assert pending_signals(child.pid) == set()
            child.send_signal(signal.SIGUSR1)
            assert pending_signals(child.pid) == {signal.SIGUSR1}
            assert not dying(child.pid)
            assert left_running(_family_of(child), grace=0.1) == [child.pid]
        finally:
            child.kill()
    assert pending_signals(child.pid) == set()  # reaped: gone


def test_a_killed_process_is_not_left_running_even_unreaped() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    ) as child:
        try:
            family = _family_of(child)
            os.kill(child.pid, signal.SIGKILL)
            assert left_running(family) == []  # a zombie until reaped, which counts as ended
        finally:
            child.kill()
