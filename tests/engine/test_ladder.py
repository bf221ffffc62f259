"""tools/ladder.py: each level against the one below, the seeds turning the openings."""

from __future__ import annotations

import re

import pytest

from tools import ladder


@pytest.mark.slow
def test_each_seed_starts_where_the_last_seed_s_openings_stopped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert ladder.main(["--levels", "beginner,easy", "--games", "2", "--seeds", "3,4"]) == 0
    out = capsys.readouterr().out
    openings = [int(n) for n in re.findall(r"^game +\d+ opening +(\d+) ", out, re.MULTILINE)]
    assert sorted(openings) == [0, 0, 1, 1]  # seed 3: opening 0 (both colours), seed 4: 1
    row = next(line for line in out.splitlines() if line.startswith("| easy vs beginner |"))
    wins, draws, losses = (int(n) for n in row.split("|")[2].split("/"))
    assert wins + draws + losses == 4


@pytest.mark.slow
def test_the_ladder_of_another_rule_plays_that_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert ladder.main(["--levels", "beginner,easy", "--games", "2", "--rule", "caro"]) == 0
    out = capsys.readouterr().out
    assert "2 games, caro 15x15" in out
    assert "freestyle" not in out
