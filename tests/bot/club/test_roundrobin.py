"""Round-robin pairing against the Berger tables as FIDE publishes them (Handbook C.05, Annex 1;
the same tables as printed at c.w.fox.tripod.com/chess/berger.html): 4-10 players, the odd
sizes by the next even table with its highest number as the bye."""

from __future__ import annotations

import itertools

import pytest

from bot.core.club.card import Pair, Player
from bot.core.club.roundrobin import berger_table, pair_round_robin, rounds_of

# Per size, one line per round: "first-second" boards in the published order.
PUBLISHED = {
    4: """
        1-4 2-3
        4-3 1-2
        2-4 3-1
    """,
    6: """
        1-6 2-5 3-4
        6-4 5-3 1-2
        2-6 3-1 4-5
        6-5 1-4 2-3
        3-6 4-2 5-1
    """,
    8: """
        1-8 2-7 3-6 4-5
        8-5 6-4 7-3 1-2
        2-8 3-1 4-7 5-6
        8-6 7-5 1-4 2-3
        3-8 4-2 5-1 6-7
        8-7 1-6 2-5 3-4
        4-8 5-3 6-2 7-1
    """,
    10: """
        1-10 2-9 3-8 4-7 5-6
        10-6 7-5 8-4 9-3 1-2
        2-10 3-1 4-9 5-8 6-7
        10-7 8-6 9-5 1-4 2-3
        3-10 4-2 5-1 6-9 7-8
        10-8 9-7 1-6 2-5 3-4
        4-10 5-3 6-2 7-1 8-9
        10-9 1-8 2-7 3-6 4-5
        5-10 6-4 7-3 8-2 9-1
    """,
}


def published(size: int) -> list[list[tuple[int, int]]]:
    rows = PUBLISHED[size].split("\n")
    return [
        [(int(a), int(b)) for a, b in (board.split("-") for board in row.split())]
        for row in rows
        if row.strip()
    ]


@pytest.mark.parametrize("size", sorted(PUBLISHED))
def test_even_tables_are_the_published_ones(size: int) -> None:
    assert [list(r) for r in berger_table(size)] == published(size)


@pytest.mark.parametrize("size", [5, 7, 9])
def test_odd_sizes_use_the_next_table_with_its_highest_number_as_the_bye(size: int) -> None:
    ghost = size + 1
    for number, row in enumerate(published(ghost), start=1):
        players = [
            Player(user_id=100 + seed, rating=2000 - seed, seed=seed) for seed in range(1, size + 1)
        ]
        pairs = pair_round_robin(players, number)
        expected = [Pair(100 + a, 100 + b) for a, b in row if ghost not in (a, b)]
        (bye_holder,) = [a if b == ghost else b for a, b in row if ghost in (a, b)]
        assert pairs == (*expected, Pair(100 + bye_holder, None))


@pytest.mark.parametrize("size", range(2, 17))
def test_everyone_meets_everyone_once_with_balanced_colours(size: int) -> None:
    players = [Player(user_id=seed, rating=0, seed=seed) for seed in range(1, size + 1)]
    met: list[frozenset[int]] = []
    firsts = dict.fromkeys(range(1, size + 1), 0)
    byes = dict.fromkeys(range(1, size + 1), 0)
    for number in range(1, rounds_of(size) + 1):
        pairs = pair_round_robin(players, number)
        seated = [u for pair in pairs for u in (pair.black, pair.white) if u is not None]
        assert sorted(seated) == list(range(1, size + 1))
        for pair in pairs:
            if pair.white is None:
                byes[pair.black] += 1
            else:
                met.append(frozenset((pair.black, pair.white)))
                firsts[pair.black] += 1
    assert sorted(met, key=sorted) == sorted(
        (frozenset(c) for c in itertools.combinations(range(1, size + 1), 2)), key=sorted
    )
    assert all(abs(2 * firsts[u] - (size - 1)) <= 1 for u in firsts)
    assert set(byes.values()) == ({0} if size % 2 == 0 else {1})


def test_refusals() -> None:
    with pytest.raises(ValueError, match="two players"):
        berger_table(1)
    players = [Player(user_id=1, rating=0, seed=1), Player(user_id=2, rating=0, seed=3)]
    with pytest.raises(ValueError, match="seeds"):
        pair_round_robin(players, 1)
    players = [Player(user_id=1, rating=0, seed=1), Player(user_id=2, rating=0, seed=2)]
    with pytest.raises(ValueError, match="outside"):
        pair_round_robin(players, 2)
