"""The bot's event-loop process stays light: searches (numba) live only in AI workers."""

from __future__ import annotations

from tests.processes import python_c


def test_the_bot_process_does_not_load_the_search() -> None:
    printed = python_c(
        "import sys, bot.app, bot.terminal, bot.cogs.play, bot.core.service\n"
        "from bot.core.ai import level_budget_s\n"
        "from engine import Level\n"
        "assert bot.cogs.play.LEVELS == tuple(level.value for level in Level)\n"
        "assert level_budget_s(Level.MASTER) > level_budget_s(Level.BEGINNER)  # the runner's\n"
        "print('numba' in sys.modules, 'engine.search.alphabeta' in sys.modules)\n"
    )
    assert printed.split() == ["False", "False"]


def test_the_core_the_words_and_the_terminal_do_not_load_discord() -> None:
    # The terminal game, the AI worker and anything else built on bot.core and bot.text run
    # where discord.py is not wanted; import-linter checks the imports, this the running process.
    printed = python_c(
        "import sys\n"
        "import bot.core.service, bot.core.ai, bot.core.queue_ai, bot.core.puzzles\n"
        "import bot.core.review, bot.core.admission, bot.text.render, bot.text.render_png\n"
        "import bot.text.refusals, bot.text.animation, bot.text.review_graph\n"
        "import bot.terminal, bot.worker\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'discord'))\n"
    )
    assert printed.strip() == "[]"
