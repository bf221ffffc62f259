"""Swiss pairing, FIDE Dutch system: score groups, then rating; no repeat pairings; colour
balance; the bye to the lowest-ranked player who has not had one; floaters.

The pairing is pairing-core's Dutch kernel (``dutch-till2026-compat``, FIDE C.04.3), tried
with the players' float history and then without it. Where it still finds none (its step
budget spent on a large bracket, or nothing left under its absolute criteria, which happens
late in small fields and, wrongly, in some large ones), a weighted perfect matching over the
whole field pairs the round, bending the rules in this order of reluctance: a repeat pairing or
a second bye, then an absolute colour rule (a difference over 2, three in a row), then the
score groups. A round is always paired.

The last round relaxes the colour rules for topscorers (C.04.3 A.7 and C.3: players with over
half the points that could be scored before it): two who both must have the same colour may
meet if one of them is a topscorer, and a topscorer may be given a colour difference over 2 or
a third colour in a row, where that keeps the score groups better (those colour rules become
quality criteria, C.10 and C.11, below the floaters'). pairing-core's frozen kernel is never
told which round is the last, so when a topscorer's colour rule is at stake the matching also
pairs the round, weighing those colour rules one tier above colour preferences, and its
pairing is taken if it puts fewer points between the players (the bye counting its holder's
points) than the kernel's, or the kernel finds none. pairing-core's ``dutch-2026`` kernel
takes the last-round flag but refuses bbpPairings' reference last round (``issue_7``: it pairs
a bracket where nobody may meet), so it is not used.

Colours: pairing-core speaks chess, where White moves first; here Black moves first, so our
Black is its "w".
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import pairing_core

from bot.core.club.card import Card, Pair, Player, cards
from storage.club import Pairing

# The kernel's search nodes before it gives up on a round (about 0.1 s on a slow core); the
# matching then pairs it. Deterministic, unlike a wall-clock cap.
STEP_BUDGET = 10_000

_TO_LIBRARY = str.maketrans({"B": "w", "W": "b"})

# Weights of the fallback matching's penalties, one tier above everything below it.
_REPEAT = 10**17  # a repeat pairing, or a second bye
_COLOUR_RULE = 10**14  # both absolutely want the same colour: one of them breaks the rule
_HALF_POINT = 10**9  # per half point between the two scores
_TOPSCORER_COLOUR = 10**8  # last round: a topscorer's absolute colour rule bent (C10, C11)
_PREFERENCE = 10**6  # a colour preference not met
# Below these: per place away from the Dutch partner (the same place in the other half of the
# score group), so that within a group the top half meets the bottom half.
_BYE_ID = -1


@dataclass(frozen=True, slots=True)
class SwissRound:
    """A paired Swiss round and how it was paired."""

    pairs: tuple[Pair, ...]  # top board first, the bye (if any) last
    by_matching: bool  # True: the Dutch kernel gave up and the matching paired it


def pair_swiss(
    players: Sequence[Player],
    pairings: Sequence[Pairing],
    round_number: int,
    *,
    total_rounds: int | None = None,
) -> tuple[Pair, ...]:
    """Pair round ``round_number`` of a Swiss among ``players`` (the active entrants).

    ``pairings`` are the tournament's earlier pairings with their results; players absent from
    ``players`` (withdrawn) are not paired. Boards come top first, the bye (if any) last.
    ``total_rounds`` (None: not known) says whether this is the last round, where topscorers'
    colour rules bend.
    """
    return swiss_round(players, pairings, round_number, total_rounds=total_rounds).pairs


def swiss_round(
    players: Sequence[Player],
    pairings: Sequence[Pairing],
    round_number: int,
    *,
    total_rounds: int | None = None,
) -> SwissRound:
    """``pair_swiss``, saying also whether the fallback matching paired the round."""
    if not players:
        return SwissRound((), by_matching=False)
    table = cards([p.user_id for p in players], pairings, before_round=round_number)
    if len(players) == 1:
        return SwissRound((Pair(players[0].user_id, None),), by_matching=False)
    tops = topscorers(table, round_number) if round_number == total_rounds else frozenset()
    dutch = _try_dutch(players, table, round_number)
    if any(colour_preference(table[user_id])[1] == ABSOLUTE for user_id in tops):
        bent = pair_by_matching(players, table, tops)
        if dutch is None or _apart(bent, table) < _apart(dutch, table):
            return SwissRound(bent, by_matching=True)
    if dutch is not None:
        return SwissRound(dutch, by_matching=False)
    return SwissRound(pair_by_matching(players, table), by_matching=True)


def _try_dutch(
    players: Sequence[Player], table: dict[int, Card], round_number: int
) -> tuple[Pair, ...] | None:
    """The Dutch kernel's pairing, or None where it finds none."""
    try:
        return _pair_dutch(players, table, round_number)
    except pairing_core.PairingError:
        pass
    try:
        # The kernel bars a third float outright, where the Dutch rules only prefer to avoid
        # one (C.04.3 C.14-C.21, quality criteria): without the float history it pairs rounds
        # that the bar alone made impossible.
        return _pair_dutch(players, table, round_number, floats=False)
    except pairing_core.PairingError:
        return None


def _apart(pairs: tuple[Pair, ...], table: dict[int, Card]) -> float:
    """Points between the paired players, summed over the boards, the bye counting its
    holder's points: how far a pairing strays from the score groups."""
    return sum(
        table[p.black].score
        if p.white is None
        else abs(table[p.black].score - table[p.white].score)
        for p in pairs
    )


def _pair_dutch(
    players: Sequence[Player], table: dict[int, Card], round_number: int, *, floats: bool = True
) -> tuple[Pair, ...]:
    ids = {p.user_id for p in players}
    request = pairing_core.CanonicalRequest(
        players=tuple(
            pairing_core.CanonicalPlayer(
                id=p.user_id,
                pairing_no=p.seed,
                rating=round(p.rating),
                points=table[p.user_id].score,
                color_hist="".join(table[p.user_id].colours).translate(_TO_LIBRARY),
                opponents=tuple(sorted(table[p.user_id].met & ids)),
                received_bye=table[p.user_id].had_bye,
                float_hist="".join(table[p.user_id].floats) if floats else "",
            )
            for p in players
        ),
        ruleset=pairing_core.DUTCH_TILL2026_COMPAT,
        round_number=round_number,
        budgets=pairing_core.ExecutionBudgets(max_steps=STEP_BUDGET),
    )
    result = pairing_core.pair_canonical(request)
    boards = sorted(result.pairings, key=lambda board: (board.is_bye, board.board))
    return tuple(Pair(board.white_id, None if board.is_bye else board.black_id) for board in boards)


def topscorers(table: dict[int, Card], round_number: int) -> frozenset[int]:
    """The players with over half the points that could be scored before ``round_number``
    (C.04.3 A.7, asked of the last round)."""
    return frozenset(u for u, card in table.items() if card.score > (round_number - 1) / 2)


def pair_by_matching(
    players: Sequence[Player], table: dict[int, Card], tops: frozenset[int] = frozenset()
) -> tuple[Pair, ...]:
    """Pair a round as a minimum-penalty perfect matching of the whole field (the fallback).

    ``tops``: the last round's topscorers, whose absolute colour rules weigh as preferences do,
    one tier above them.
    """
    ranked = sorted(players, key=lambda p: (-table[p.user_id].score, p.seed))
    rank = {p.user_id: index for index, p in enumerate(ranked)}
    group_size: dict[float, int] = {}
    for p in ranked:
        score = table[p.user_id].score
        group_size[score] = group_size.get(score, 0) + 1
    graph: nx.Graph[int] = nx.Graph()
    ceiling = 4 * _REPEAT
    for a, b in itertools.combinations(ranked, 2):
        penalty = _pair_penalty(table[a.user_id], table[b.user_id], tops)
        half = group_size[table[a.user_id].score] // 2
        penalty += abs(rank[b.user_id] - rank[a.user_id] - half)
        graph.add_edge(a.user_id, b.user_id, weight=ceiling - penalty)
    if len(ranked) % 2:
        for p in ranked:
            card = table[p.user_id]
            penalty = (
                (_REPEAT if card.had_bye else 0)
                + round(2 * card.score) * _HALF_POINT
                + (len(ranked) - rank[p.user_id])
            )
            graph.add_edge(p.user_id, _BYE_ID, weight=ceiling - penalty)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs: list[Pair] = []
    bye: Pair | None = None
    for a, b in matching:
        if _BYE_ID in (a, b):
            bye = Pair(b if a == _BYE_ID else a, None)
            continue
        first, second = (a, b) if rank[a] < rank[b] else (b, a)
        black, white = _allocate_colours(table[first], table[second])
        pairs.append(Pair(black, white))
    pairs.sort(key=lambda pair: min(rank[pair.black], rank[pair.white or pair.black]))
    return (*pairs, bye) if bye else tuple(pairs)


def _pair_penalty(a: Card, b: Card, tops: frozenset[int]) -> int:
    penalty = round(2 * abs(a.score - b.score)) * _HALF_POINT
    if b.user_id in a.met:
        penalty += _REPEAT
    want_a, strength_a = colour_preference(a)
    want_b, strength_b = colour_preference(b)
    if want_a and want_a == want_b:
        if strength_a != ABSOLUTE or strength_b != ABSOLUTE:
            penalty += _PREFERENCE
        elif a.user_id in tops or b.user_id in tops:
            penalty += _TOPSCORER_COLOUR
        else:
            penalty += _COLOUR_RULE
    return penalty


MILD, STRONG, ABSOLUTE = 1, 2, 3  # how much a player wants the colour ``colour_preference`` names


def colour_preference(card: Card) -> tuple[str, int]:
    """The colour a player is due ("B", "W" or "" for none) and how strongly (FIDE A.6)."""
    played = card.played_colours
    if not played:
        return "", 0
    difference = card.colour_difference
    last = played[-1]
    other = "W" if last == "B" else "B"
    if abs(difference) > 1:
        return ("W" if difference > 0 else "B"), ABSOLUTE
    if played[-2:] in ("BB", "WW"):
        return other, ABSOLUTE
    if difference:
        return ("W" if difference > 0 else "B"), STRONG
    return other, MILD


def _allocate_colours(higher: Card, lower: Card) -> tuple[int, int]:
    """Black and White for two players, ``higher`` ranked above ``lower`` (FIDE E.1-E.5).

    Two who must both have the same colour meet only in the last round, one a topscorer:
    the colour goes to the one whose colours are further apart (E.2), the higher ranked
    on a tie.
    """
    want_h, strength_h = colour_preference(higher)
    want_l, strength_l = colour_preference(lower)
    if want_h and want_h == want_l and strength_h == strength_l == ABSOLUTE:
        wider_is_lower = abs(lower.colour_difference) > abs(higher.colour_difference)
        granted, other = (lower, higher) if wider_is_lower else (higher, lower)
        if want_h == "B":
            return granted.user_id, other.user_id
        return other.user_id, granted.user_id
    if not want_h and not want_l:
        black_is_higher = True
    elif not want_l or (want_h and want_h != want_l) or strength_h >= strength_l:
        black_is_higher = want_h == "B" if want_h else want_l == "W"
    else:
        black_is_higher = want_l == "W"
    if black_is_higher:
        return higher.user_id, lower.user_id
    return lower.user_id, higher.user_id
