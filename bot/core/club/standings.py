"""Standings with tiebreaks: points, Buchholz (and Cut-1), Sonneborn-Berger, direct encounter,
games won.

Unplayed rounds follow FIDE C.07 (2023), Article 16, as read here:

- in a player's own Buchholz and Sonneborn-Berger, each round they did not play (the bye, a
  forfeit either way, a round they were not paired in) counts as a game against a dummy
  opponent with the player's own final points;
- in the scores their opponents add up, each round they chose not to play (a forfeit loss, a
  round they were not paired in while entered) counts as a draw; the bye and a forfeit win
  count as scored;
- Cut-1 drops the lowest contribution;
- direct encounter is the points scored against the others of a tie group, counted only when
  every two of the group met (a bye or forfeit between them counts as scored); otherwise it
  leaves the tie alone.

Remaining ties share a rank and are listed by pairing number.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.core.club.card import Player
from storage.club import Pairing, Result


class Tiebreak(enum.StrEnum):
    """A tiebreak, by its FIDE C.07 abbreviation."""

    BUCHHOLZ_CUT1 = "BH-C1"  # Buchholz without the lowest contribution
    BUCHHOLZ = "BH"  # the sum of the opponents' (adjusted) points
    SONNEBORN_BERGER = "SB"  # each opponent's points times the points scored against them
    DIRECT_ENCOUNTER = "DE"  # points among the tied players, when all of them met
    WINS = "WON"  # games won over the board


SWISS_TIEBREAKS = (
    Tiebreak.BUCHHOLZ_CUT1,
    Tiebreak.BUCHHOLZ,
    Tiebreak.SONNEBORN_BERGER,
    Tiebreak.DIRECT_ENCOUNTER,
)
ROUND_ROBIN_TIEBREAKS = (Tiebreak.DIRECT_ENCOUNTER, Tiebreak.SONNEBORN_BERGER, Tiebreak.WINS)


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings."""

    rank: int  # 1-based; players tied on everything share it
    user_id: int
    points: float
    tiebreaks: tuple[float, ...]  # in the order asked for
    played: int  # games played over the board
    won: int  # games won over the board


@dataclass(slots=True)
class _Line:
    player: Player
    points: float = 0.0
    adjusted: float = 0.0  # points for the opponents' sums: chosen absences as draws
    rounds: dict[int, Pairing] | None = None
    played: int = 0
    won: int = 0


def standings(
    players: Sequence[Player],
    pairings: Sequence[Pairing],
    tiebreaks: Sequence[Tiebreak] = SWISS_TIEBREAKS,
) -> tuple[Standing, ...]:
    """The standings of ``players`` (every entrant, withdrawn ones too) after the finished
    ``pairings``; a pairing without a result is left out."""
    finished = [p for p in pairings if p.result is not None]
    last_round = max((p.round for p in finished), default=0)
    lines = {p.user_id: _Line(p, rounds={}) for p in players}
    for pairing in finished:
        for user_id in pairing.players():
            line = lines.get(user_id)
            if line is not None and line.rounds is not None:
                line.rounds[pairing.round] = pairing
    for line in lines.values():
        _score(line, last_round)
    contributions = {
        user_id: _contributions(line, lines, last_round) for user_id, line in lines.items()
    }
    values: dict[int, dict[Tiebreak, float]] = {}
    for user_id, line in lines.items():
        bh = [c for c, _ in contributions[user_id]]
        values[user_id] = {
            Tiebreak.BUCHHOLZ: sum(bh),
            Tiebreak.BUCHHOLZ_CUT1: sum(bh) - min(bh, default=0.0),
            Tiebreak.SONNEBORN_BERGER: sum(c * s for c, s in contributions[user_id]),
            Tiebreak.WINS: float(line.won),
        }
    order = sorted(lines.values(), key=lambda line: (-line.points, line.player.seed))
    groups = _split([order], lambda line: line.points)
    for tiebreak in tiebreaks:
        if tiebreak is Tiebreak.DIRECT_ENCOUNTER:
            for group in groups:
                encounter = _direct_encounter(group)
                for line in group:
                    values[line.player.user_id][tiebreak] = encounter[line.player.user_id]
        groups = _split(groups, _value_of(values, tiebreak))
    table: list[Standing] = []
    for group in groups:
        rank = len(table) + 1
        table.extend(
            Standing(
                rank=rank,
                user_id=line.player.user_id,
                points=line.points,
                tiebreaks=tuple(values[line.player.user_id][t] for t in tiebreaks),
                played=line.played,
                won=line.won,
            )
            for line in group
        )
    return tuple(table)


def _score(line: _Line, last_round: int) -> None:
    assert line.rounds is not None
    user_id = line.player.user_id
    for number in range(1, last_round + 1):
        pairing = line.rounds.get(number)
        if pairing is None:
            line.adjusted += 0.5  # not paired while entered: chosen, so a draw for others
            continue
        assert pairing.result is not None
        points = pairing.points_of(user_id)
        line.points += points
        if pairing.result.is_played:
            line.played += 1
            line.won += points == 1.0
            line.adjusted += points
        elif pairing.result is Result.BYE or points == 1.0:
            line.adjusted += points  # the bye, a forfeit win: not the player's choice
        else:
            line.adjusted += 0.5  # a forfeit loss: counted as a draw for the others


def _contributions(
    line: _Line, lines: dict[int, _Line], last_round: int
) -> list[tuple[float, float]]:
    """Per round: (the opponent's points for the sums, the points scored against them)."""
    assert line.rounds is not None
    user_id = line.player.user_id
    found: list[tuple[float, float]] = []
    for number in range(1, last_round + 1):
        pairing = line.rounds.get(number)
        if pairing is None:
            found.append((line.points, 0.0))
            continue
        assert pairing.result is not None
        scored = pairing.points_of(user_id)
        opponent = pairing.opponent_of(user_id)
        if pairing.result.is_played and opponent is not None and opponent in lines:
            found.append((lines[opponent].adjusted, scored))
        else:
            found.append((line.points, scored))  # the dummy opponent: the player's own points
    return found


def _direct_encounter(group: list[_Line]) -> dict[int, float]:
    ids = {line.player.user_id for line in group}
    points = dict.fromkeys(ids, 0.0)
    if len(group) < 2:
        return points
    met: set[frozenset[int]] = set()
    for line in group:
        assert line.rounds is not None
        for pairing in line.rounds.values():
            opponent = pairing.opponent_of(line.player.user_id)
            if opponent in ids:
                met.add(frozenset((line.player.user_id, opponent)))
                points[line.player.user_id] += pairing.points_of(line.player.user_id)
    if len(met) < len(group) * (len(group) - 1) // 2:
        return dict.fromkeys(ids, 0.0)  # not all of them met: the tiebreak does not apply
    return points


def _value_of(
    values: dict[int, dict[Tiebreak, float]], tiebreak: Tiebreak
) -> Callable[[_Line], float]:
    def value(line: _Line) -> float:
        return values[line.player.user_id][tiebreak]

    return value


def _split(groups: list[list[_Line]], key: Callable[[_Line], float]) -> list[list[_Line]]:
    """Each group split into runs of equal ``key``, highest first (stable within a run)."""
    result: list[list[_Line]] = []
    for group in groups:
        ordered = sorted(group, key=lambda line: -key(line))
        run: list[_Line] = []
        for line in ordered:
            if run and key(run[-1]) != key(line):
                result.append(run)
                run = []
            run.append(line)
        if run:
            result.append(run)
    return result
