"""Standings against tables computed by hand (the arithmetic is in the comments)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.club.card import Player
from bot.core.club.standings import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Standing,
    Tiebreak,
    standings,
)
from storage.club import Pairing, Result

W, L, D = Result.BLACK_WINS, Result.WHITE_WINS, Result.DRAW
FORFEIT_WIN = Result.BLACK_WINS_BY_FORFEIT  # Black won: White did not play in time


def board(round_: int, black: int, white: int | None, result: Result) -> Pairing:
    return Pairing(1, round_, 0, black, white, result, None)


def players(count: int) -> list[Player]:
    return [Player(u, 2000 - u, u) for u in range(1, count + 1)]


def table(rows: Sequence[Standing]) -> list[tuple[int, int, float, tuple[float, ...]]]:
    return [(s.rank, s.user_id, s.points, s.tiebreaks) for s in rows]


def test_seven_player_swiss_with_a_bye_each_round_and_a_forfeit() -> None:
    pairings = [
        board(1, 1, 4, W), board(1, 2, 5, D), board(1, 3, 6, L), board(1, 7, None, Result.BYE),
        board(2, 1, 6, D), board(2, 7, 2, W), board(2, 5, 3, L), board(2, 4, None, Result.BYE),
        board(3, 7, 1, L), board(3, 6, 4, FORFEIT_WIN), board(3, 3, 2, D),
        board(3, 5, None, Result.BYE),
    ]  # fmt: skip
    # Points: 1: 1+½+1 = 2.5   2: ½+0+½ = 1   3: 0+1+½ = 1.5   4: 0+1(bye)+0(forfeit) = 1
    #         5: ½+0+1(bye) = 1.5   6: 1+½+1(forfeit win) = 2.5   7: 1(bye)+1+0 = 2
    # Scores as the opponents count them: 4's forfeit loss counts as a draw, so 4 has 1.5;
    # the byes and 6's forfeit win count as scored. Every other score stands.
    # Own unplayed rounds meet a dummy with the player's own points:
    #   6: 3 (1.5) + 1 (2.5) + dummy (2.5)        BH 6.5  C1 5.0  SB 1.5 + 1.25 + 2.5 = 5.25
    #   1: 4 (1.5) + 6 (2.5) + 7 (2.0)            BH 6.0  C1 4.5  SB 1.5 + 1.25 + 2.0 = 4.75
    #   7: dummy (2.0) + 2 (1.0) + 1 (2.5)        BH 5.5  C1 4.5  SB 2.0 + 1.0 + 0 = 3.0
    #   3: 6 (2.5) + 5 (1.5) + 2 (1.0)            BH 5.0  C1 4.0  SB 0 + 1.5 + 0.5 = 2.0
    #   5: 2 (1.0) + 3 (1.5) + dummy (1.5)        BH 4.0  C1 3.0  SB 0.5 + 0 + 1.5 = 2.0
    #   2: 5 (1.5) + 7 (2.0) + 3 (1.5)            BH 5.0  C1 3.5  SB 0.75 + 0 + 0.75 = 1.5
    #   4: 1 (2.5) + dummy (1.0) + dummy (1.0)    BH 4.5  C1 3.5  SB 0 + 1.0 + 0 = 1.0
    # Direct encounter never decides: every tie is broken before it (0 for all).
    assert table(standings(players(7), pairings, SWISS_TIEBREAKS)) == [
        (1, 6, 2.5, (5.0, 6.5, 5.25, 0.0)),
        (2, 1, 2.5, (4.5, 6.0, 4.75, 0.0)),
        (3, 7, 2.0, (4.5, 5.5, 3.0, 0.0)),
        (4, 3, 1.5, (4.0, 5.0, 2.0, 0.0)),
        (5, 5, 1.5, (3.0, 4.0, 2.0, 0.0)),
        (6, 2, 1.0, (3.5, 5.0, 1.5, 0.0)),
        (7, 4, 1.0, (3.5, 4.5, 1.0, 0.0)),
    ]


def test_round_robin_of_four_decided_by_direct_encounter() -> None:
    # Berger rounds: 1-4 2-3 / 4-3 1-2 / 2-4 3-1.
    pairings = [
        board(1, 1, 4, W), board(1, 2, 3, L),
        board(2, 4, 3, L), board(2, 1, 2, L),
        board(3, 2, 4, D), board(3, 3, 1, D),
    ]  # fmt: skip
    # Points: 3: 1+1+½ = 2.5   1: 1+0+½ = 1.5   2: 0+1+½ = 1.5   4: 0+0+½ = 0.5
    # 1 and 2 tie on 1.5; 2 beat 1, so direct encounter puts 2 first (SB is equal anyway:
    # 1: 1 x 0.5 + 0 + ½ x 2.5 = 1.75, 2: 0 + 1 x 1.5 + ½ x 0.5 = 1.75).
    # 3: SB 1 x 1.5 + 1 x 0.5 + ½ x 1.5 = 2.75, won 2.   4: SB ½ x 1.5 = 0.75, won 0.
    assert table(standings(players(4), pairings, ROUND_ROBIN_TIEBREAKS)) == [
        (1, 3, 2.5, (0.0, 2.75, 2.0)),
        (2, 2, 1.5, (1.0, 1.75, 1.0)),
        (3, 1, 1.5, (0.0, 1.75, 1.0)),
        (4, 4, 0.5, (0.0, 0.75, 0.0)),
    ]


def test_direct_encounter_waits_until_every_tied_player_has_met() -> None:
    # All four score 1; 1 and 2 met, 3 and 4 met, but not every two of them: no tie is broken.
    pairings = [board(1, 1, 2, W), board(1, 3, 4, W), board(2, 2, 1, W), board(2, 4, 3, W)]
    rows = standings(players(4), pairings, (Tiebreak.DIRECT_ENCOUNTER,))
    assert [(s.rank, s.user_id, s.tiebreaks) for s in rows] == [
        (1, 1, (0.0,)),
        (1, 2, (0.0,)),
        (1, 3, (0.0,)),
        (1, 4, (0.0,)),
    ]


def test_a_withdrawn_player_counts_as_drawing_the_rounds_missed() -> None:
    # Round 1: 1 beats 2, 3 beats 4. Player 2 withdraws; round 2: 1-3 drawn, 4 has the bye.
    pairings = [
        board(1, 1, 2, W),
        board(1, 3, 4, W),
        board(2, 1, 3, D),
        board(2, 4, None, Result.BYE),
    ]
    # 2 scores 0 but counts 0 + ½ for the others. BH: 1: ½ + 1.5 = 2.0; 3: 4 (0 + 1) + 1.5 = 2.5;
    # 4: 3 (1.5) + dummy (1.0) = 2.5; 2: 1 (1.5) + dummy (0) = 1.5.
    assert table(standings(players(4), pairings, (Tiebreak.BUCHHOLZ,))) == [
        (1, 3, 1.5, (2.5,)),
        (2, 1, 1.5, (2.0,)),
        (3, 4, 1.0, (2.5,)),
        (4, 2, 0.0, (1.5,)),
    ]


def test_unfinished_games_are_left_out_and_ties_share_a_rank() -> None:
    pairings = [Pairing(1, 1, 1, 1, 2, None, None)]
    rows = standings(players(2), pairings)
    assert [(s.rank, s.user_id, s.points, s.played) for s in rows] == [
        (1, 1, 0.0, 0),
        (1, 2, 0.0, 0),
    ]
