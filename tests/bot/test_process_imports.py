"""The bot's event-loop process stays light: searches (numba) live only in AI workers."""

from __future__ import annotations

import subprocess
import sys


def test_the_bot_process_does_not_load_the_search() -> None:
    code = (
        "import sys, bot.app, bot.terminal, bot.cogs.play, bot.core.service\n"
        "from bot.core.ai import level_budget_s\n"
        "from engine import Level\n"
        "assert bot.cogs.play.LEVELS == tuple(level.value for level in Level)\n"
        "assert level_budget_s(Level.MASTER) > level_budget_s(Level.BEGINNER)  # the runner's\n"
        "print('numba' in sys.modules, 'engine.search.alphabeta' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False"]
