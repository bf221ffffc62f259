"""tools/siblings.py: the sibling pairs counted and ordered, against a slow oracle over every
pair of rows; and the command line on a committed children shard."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scale import examples
from tools.siblings import Ordered, main, ordered_pairs

DATA = Path(__file__).resolve().parents[2] / "data"


def _oracle(
    parent: list[int], chance: list[float], forced: list[bool], evaluation: list[int], margin: float
) -> Ordered:
    # every pair of rows, kept when they share a parent, the judge separates them by the margin
    # and the evaluation does not score them equal; ordered alike when the two differences
    # have the same sign
    n = len(parent)
    kept = [
        (i, j)
        for i in range(n)
        for j in range(i + 1, n)
        if parent[i] == parent[j]
        and abs(chance[i] - chance[j]) >= margin
        and evaluation[i] != evaluation[j]
    ]
    alike = {
        (i, j) for i, j in kept if (chance[i] - chance[j]) * (evaluation[i] - evaluation[j]) > 0
    }
    quiet = [(i, j) for i, j in kept if not forced[i] and not forced[j]]
    return Ordered(len(alike), len(kept), len(alike.intersection(quiet)), len(quiet))


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.62, 0.9, 1.0]),
            st.booleans(),
            st.integers(-3, 3),
        ),
        max_size=30,
    )
)
def test_pairs_are_counted_as_the_oracle_counts_them(
    rows: list[tuple[int, float, bool, int]],
) -> None:
    parent = [r[0] for r in rows]
    chance = [r[1] for r in rows]
    forced = [r[2] for r in rows]
    evaluation = [r[3] for r in rows]
    got = ordered_pairs(
        np.array(parent, dtype=np.int64),
        np.array(chance),
        np.array(forced, dtype=bool),
        np.array(evaluation, dtype=np.float64),
        0.15,
    )
    assert got == _oracle(parent, chance, forced, evaluation, 0.15)


def test_the_command_line_counts_a_committed_children_shard(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([str(DATA / "children"), "--first", "0", "--count", "1"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("the search's evaluation: ")
    agree, pairs = (int(v) for v in line.split(": ")[1].split()[0].split("/"))
    assert 0 < agree <= pairs


def test_a_shard_of_the_games_own_positions_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([str(DATA / "selfplay"), "--first", "0", "--count", "1"]) == 1
    assert "not a children shard" in capsys.readouterr().err
