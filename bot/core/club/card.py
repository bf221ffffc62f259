"""Each player's record so far, read off a tournament's pairings: the input of every pairing
system and of the standings.

FIDE C.04.1 and the Dutch rules' F.2 decide what counts: a forfeited game is no encounter (the
two may meet again) and no colour; the pairing-allocated bye and a forfeit win each bar a later
bye.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine.types import Color
from storage.club import Pairing, Result


@dataclass(frozen=True, slots=True)
class Player:
    """A player to pair: who, how strong, and their pairing number."""

    user_id: int
    rating: float
    seed: int  # pairing number: 1 = highest rated at the start


@dataclass(frozen=True, slots=True)
class Pair:
    """One board of a new round: ``white`` is None for the bye."""

    black: int  # the first player; the bye's holder when ``white`` is None
    white: int | None

    @property
    def is_bye(self) -> bool:
        """Whether this is the pairing-allocated bye."""
        return self.white is None


class Float:
    """Float marks, one per round: how a player's opponent's score compared with theirs."""

    DOWN = "D"  # met a lower score, or had the bye
    UP = "U"  # met a higher score
    NONE = "-"  # met an equal score, or did not play


@dataclass(slots=True)
class Card:
    """One player's history after some rounds (built by ``cards``; read-only after)."""

    user_id: int
    score: float = 0.0
    colours: list[str] = field(default_factory=list)  # per round: "B", "W" or "-" (unplayed)
    floats: list[str] = field(default_factory=list)  # per round: a ``Float`` mark
    met: set[int] = field(default_factory=set)  # opponents of played games
    had_bye: bool = False  # the pairing-allocated bye, or a forfeit win (C.04.1 d)
    byes: int = 0  # pairing-allocated byes received
    played: list[Pairing] = field(default_factory=list)  # every finished pairing, by round

    @property
    def played_colours(self) -> str:
        """The colours of the games actually played, in order ("BWB")."""
        return "".join(c for c in self.colours if c != "-")

    @property
    def colour_difference(self) -> int:
        """Black games minus White games."""
        played = self.played_colours
        return played.count("B") - played.count("W")


def cards(
    user_ids: Iterable[int], pairings: Sequence[Pairing], *, before_round: int
) -> dict[int, Card]:
    """Every player's card from the finished pairings of the rounds before ``before_round``.

    A round a player was not paired in (a late join, an absence) counts as unplayed, 0 points.
    """
    table = {user_id: Card(user_id) for user_id in user_ids}
    by_round: dict[int, list[Pairing]] = {}
    for pairing in pairings:
        if pairing.round < before_round and pairing.result is not None:
            by_round.setdefault(pairing.round, []).append(pairing)
    for number in range(1, before_round):
        score_before = {user_id: card.score for user_id, card in table.items()}
        seen: set[int] = set()
        for pairing in by_round.get(number, ()):
            for user_id in pairing.players():
                card = table.get(user_id)
                if card is None:
                    continue  # a withdrawn player: their card is not asked for
                seen.add(user_id)
                _add(card, pairing, score_before)
        for user_id, card in table.items():
            if user_id not in seen:
                card.colours.append("-")
                card.floats.append(Float.NONE)
    return table


def _add(card: Card, pairing: Pairing, score_before: dict[int, float]) -> None:
    assert pairing.result is not None
    user_id = card.user_id
    card.played.append(pairing)
    card.score += pairing.points_of(user_id)
    result = pairing.result
    if result is Result.BYE:
        card.had_bye = True
        card.byes += 1
        card.colours.append("-")
        card.floats.append(Float.DOWN)
        return
    colour = pairing.colour_of(user_id)
    opponent = pairing.opponent_of(user_id)
    assert opponent is not None
    if result.is_played:
        card.colours.append("B" if colour is Color.BLACK else "W")
        card.met.add(opponent)
    else:
        card.colours.append("-")
        if result.points(colour) == 1.0:
            card.had_bye = True
    own = score_before.get(user_id, 0.0)
    theirs = score_before.get(opponent, own)
    if not result.is_played or theirs == own:
        card.floats.append(Float.NONE)
    else:
        card.floats.append(Float.DOWN if theirs < own else Float.UP)
