"""``python -m benchmarks.bench_load`` keeps working: a run that its games cannot finish in
time still ends with its summary, the unfinished games counted, and the bare discord.py bot of
``--baseline`` answers the same interactions with the same requests as the bot (it prints
figures; the load itself is measured by hand, not here)."""

from __future__ import annotations

import pytest

from benchmarks import bench_load
from tests.processes import python_m


def bench(*args: str) -> str:
    result = python_m("benchmarks.bench_load", *args, timeout=240)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.slow
def test_games_still_running_at_the_deadline_are_counted_and_the_summary_printed() -> None:
    # Players who think 2 s on average arrive after 1 s at the soonest: at a 0.5 s deadline
    # no game has started, and the run stops them rather than waiting for them.
    out = bench(
        *("--games", "4", "--moves", "2", "--style", "emoji"),
        *("--think", "2", "--deadline", "0.5"),
    )
    assert "wall time" in out
    assert "'unfinished at the deadline (arriving)': 4" in out
    assert "games raised" not in out


@pytest.mark.slow
def test_the_bare_bot_makes_the_bots_requests_for_every_interaction() -> None:
    # Two games between people and two against the (instant) AI, every kind of interaction
    # the bench sends: challenge, accept, /place both ways, autocomplete.
    out = bench(
        *("--games", "4", "--moves", "4", "--style", "emoji", "--think", "0.6"),
        *("--instant-ai", "--baseline"),
    )
    assert "failures" not in out, out
    assert "games raised" not in out, out
    same = [line for line in out.splitlines() if line.startswith("requests: the same")]
    # 4 starts, 2 accepts, 8 places between people, 4 autocompletes and 4 places vs the AI:
    # each one callback; besides, each accept a ping, each place between people an edit and
    # a deletion, each place vs the AI two edits.
    assert same == ["requests: the same as the bot's, route by route (48)"], out
    assert "(22 interactions), the bare bot" in out, out
    assert "ms (22): ratio" in out, out
    assert "HTTP requests per interaction: the bot 2.18, the bare bot 2.18;" in out, out  # 48/22
    assert "s on its event loop's thread, " in out, out


@pytest.mark.slow
def test_the_games_run_through_with_storage_in_memory() -> None:
    # --memory: the in-memory repository in SQLite's place, every game played to its end
    out = bench(
        *("--games", "4", "--moves", "4", "--style", "emoji", "--think", "0.6"),
        *("--instant-ai", "--memory"),
    )
    assert "in memory (nothing kept)" in out, out
    assert "failures" not in out, out
    assert "games raised" not in out, out
    assert "SQLite during the load" not in out, out
    assert "place (people)                     n=    8" in out, out


@pytest.mark.slow
def test_the_bare_bot_alone_spends_the_extra_cpu_it_is_given_in_every_interaction() -> None:
    # --bare-only --bare-extra 20: the bare bot alone, each of its 22 interactions holding its
    # event loop for 20 ms of CPU before it answers, so its CPU an interaction is at least that
    out = bench(
        *("--games", "4", "--moves", "4", "--style", "emoji", "--think", "0.6"),
        *("--bare-only", "--bare-extra", "20"),
    )
    assert "a bare discord.py bot, 20 ms of CPU more an interaction" in out, out
    assert "failures" not in out, out
    assert "SQLite during the load" not in out, out  # the bot itself did not run
    line = next(row for row in out.splitlines() if row.startswith("CPU per interaction"))
    assert line.endswith("ms (22)"), out
    assert float(line.split("the bare bot ")[1].split(" ms")[0]) >= 20.0, out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--bare-extra", "1"], "it needs --baseline or --bare-only"),
        (["--bare-only", "--bare-extra", "-1"], "0 or more"),
    ],
)
def test_extra_cpu_for_no_bare_bot_or_below_zero_is_refused(args: list[str], said: str) -> None:
    with pytest.raises(SystemExit, match=said):
        bench_load.main(args)
