"""Arena: for a fixed time, whoever is free is paired again at once; points per game, and a
streak scores double (lichess's arena rules).

Scoring: a win 2, a draw 1, a loss 0. After two wins in a row a player is on fire: their games
score double (a win 4, a draw 2) until one is not a win. A forfeit scores like the game it
stands for, and the bye is not used: a free player waits for the next pass.

Standings (``arena_standings``): arena points, then games won; players equal on both share a
rank and are listed by pairing number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.core.club.card import Pair, Player
from bot.core.club.standings import Standing
from storage.club import Pairing

WIN_POINTS = 2
DRAW_POINTS = 1
STREAK_TO_FIRE = 2  # wins in a row after which games score double


@dataclass(frozen=True, slots=True)
class ArenaScore:
    """A player's arena score so far."""

    points: int
    games: int
    streak: int  # wins in a row at the end
    on_fire: bool  # the next game scores double
    black_games: int  # games played as Black, for colour balance
    last_opponent: int | None


def arena_scores(user_ids: Sequence[int], pairings: Sequence[Pairing]) -> dict[int, ArenaScore]:
    """Every player's arena score from the finished ``pairings``, played in round order."""
    scores = {u: ArenaScore(0, 0, 0, False, 0, None) for u in user_ids}
    for pairing in sorted(pairings, key=lambda p: (p.round, p.board)):
        if pairing.result is None or pairing.white is None:
            continue
        for user_id in pairing.players():
            before = scores.get(user_id)
            if before is None:
                continue
            earned = pairing.points_of(user_id)
            doubled = 2 if before.on_fire else 1
            gained = doubled * (WIN_POINTS if earned == 1.0 else DRAW_POINTS if earned else 0)
            streak = before.streak + 1 if earned == 1.0 else 0
            scores[user_id] = ArenaScore(
                points=before.points + gained,
                games=before.games + 1,
                streak=streak,
                on_fire=streak >= STREAK_TO_FIRE,
                black_games=before.black_games + (user_id == pairing.black),
                last_opponent=pairing.opponent_of(user_id),
            )
    return scores


def pair_arena(
    waiting: Sequence[Player],
    scores: Mapping[int, ArenaScore],
    *,
    now: float,
    ends_at: float,
) -> tuple[Pair, ...]:
    """Pair the free players nearest in the arena's ranking; nobody meets the opponent of
    their last game again straight away (they wait instead). No pairing at or after
    ``ends_at``."""
    if now >= ends_at:
        return ()
    empty = ArenaScore(0, 0, 0, False, 0, None)
    queue = sorted(
        waiting,
        key=lambda p: (-scores.get(p.user_id, empty).points, -p.rating, p.user_id),
    )
    pairs: list[Pair] = []
    while len(queue) >= 2:
        first = queue.pop(0)
        last = scores.get(first.user_id, empty).last_opponent
        partner = next((p for p in queue if p.user_id != last), None)
        if partner is None:
            continue
        queue.remove(partner)
        a, b = scores.get(first.user_id, empty), scores.get(partner.user_id, empty)
        # Black to whoever has had it less, relative to their games; else the lower ranked.
        if a.black_games * max(b.games, 1) < b.black_games * max(a.games, 1):
            pairs.append(Pair(first.user_id, partner.user_id))
        else:
            pairs.append(Pair(partner.user_id, first.user_id))
    return tuple(pairs)


def game_numbers(pairings: Sequence[Pairing]) -> dict[tuple[int, int], int]:
    """Each of an arena's games numbered 1, 2, ... in the order they were paired, by
    (pass, board): what players see of it, where a round-based format shows its rounds."""
    games = sorted((p.round, p.board) for p in pairings if p.white is not None)
    return {key: number for number, key in enumerate(games, start=1)}


def arena_standings(players: Sequence[Player], pairings: Sequence[Pairing]) -> tuple[Standing, ...]:
    """The arena's table after the finished ``pairings``: each line's ``points`` are arena
    points and its one tiebreak the games won."""
    scores = arena_scores([p.user_id for p in players], pairings)
    won = dict.fromkeys(scores, 0)
    for pairing in pairings:
        if pairing.result is not None and pairing.result.is_played:
            for user_id in pairing.players():
                if user_id in won and pairing.points_of(user_id) == 1.0:
                    won[user_id] += 1
    ordered = sorted(players, key=lambda p: (-scores[p.user_id].points, -won[p.user_id], p.seed))
    table: list[Standing] = []
    for player in ordered:
        score, wins = scores[player.user_id], won[player.user_id]
        tied = bool(table) and (table[-1].points, table[-1].won) == (score.points, wins)
        table.append(
            Standing(
                rank=table[-1].rank if tied else len(table) + 1,
                user_id=player.user_id,
                points=float(score.points),
                tiebreaks=(float(wins),),
                played=score.games,
                won=wins,
            )
        )
    return tuple(table)
