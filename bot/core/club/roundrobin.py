"""Round-robin pairing by the FIDE Berger tables (Handbook C.05, Annex 1), from pairing-core.

With an odd number of players the table for one more is used and whoever meets the highest
number has the bye. The table's first-named player moves first (our Black).
"""

from __future__ import annotations

from collections.abc import Sequence

import pairing_core

from bot.core.club.card import Pair, Player


def berger_table(size: int) -> tuple[tuple[tuple[int, int | None], ...], ...]:
    """The Berger table for ``size`` players: per round, (first, second or None) seed pairs.

    Raises:
        ValueError: fewer than two players.
    """
    if size < 2:
        raise ValueError(f"a round-robin needs two players or more, not {size}")
    table: tuple[tuple[tuple[int, int | None], ...], ...] = pairing_core.round_robin(size)
    return table


def rounds_of(size: int) -> int:
    """How many rounds a single round-robin of ``size`` players takes."""
    return size if size % 2 else size - 1


def pair_round_robin(players: Sequence[Player], round_number: int) -> tuple[Pair, ...]:
    """Round ``round_number`` of a round-robin among ``players`` (every entrant, by seed 1..n).

    A withdrawn entrant stays in the table (their games are forfeits), so the table never
    changes once the event has started.

    Raises:
        ValueError: seeds are not 1..n, or the round is outside the table.
    """
    by_seed = {p.seed: p.user_id for p in players}
    if sorted(by_seed) != list(range(1, len(players) + 1)):
        raise ValueError("round-robin seeds must be 1..n")
    table = berger_table(len(players))
    if not 1 <= round_number <= len(table):
        raise ValueError(f"round {round_number} is outside a {len(table)}-round table")
    boards = table[round_number - 1]
    pairs = [
        Pair(by_seed[first], None if second is None else by_seed[second])
        for first, second in boards
    ]
    pairs.sort(key=lambda pair: pair.is_bye)  # the bye last, as in a Swiss
    return tuple(pairs)
