"""Arena scoring (lichess's points and streaks) and pairing of the free players."""

from __future__ import annotations

from bot.core.club.arena import arena_scores, game_numbers, pair_arena
from bot.core.club.card import Pair, Player
from storage.club import Pairing, Result


def game(number: int, black: int, white: int, result: Result) -> Pairing:
    return Pairing(1, number, 1, black, white, result, None)


def test_two_wins_in_a_row_set_a_player_on_fire_until_a_game_is_not_won() -> None:
    # Player 1: win 2, forfeit win 2 (now on fire), win 4, draw 2 (fire out), loss 0, win 2.
    results = [
        Result.BLACK_WINS,
        Result.BLACK_WINS_BY_FORFEIT,
        Result.BLACK_WINS,
        Result.DRAW,
        Result.WHITE_WINS,
        Result.BLACK_WINS,
    ]
    pairings = [game(n, 1, 10 + n, r) for n, r in enumerate(results, start=1)]
    score = arena_scores([1, 11], pairings)[1]
    assert (score.points, score.games, score.streak, score.on_fire) == (12, 6, 1, False)
    assert score.last_opponent == 16
    assert arena_scores([11], pairings)[11].points == 0


def test_a_streak_survives_into_the_next_game() -> None:
    pairings = [game(1, 1, 2, Result.BLACK_WINS), game(2, 3, 1, Result.WHITE_WINS)]
    score = arena_scores([1], pairings)[1]
    assert (score.points, score.on_fire) == (4, True)


def test_free_players_meet_their_neighbours_in_the_ranking_but_not_their_last_opponent() -> None:
    pairings = [game(1, 1, 2, Result.BLACK_WINS), game(1, 3, 4, Result.BLACK_WINS)]
    scores = arena_scores([1, 2, 3, 4], pairings)
    waiting = [Player(u, 1500, u) for u in (1, 2, 3, 4)]
    # Ranking 1, 3 (2 points each), then 2, 4. 1 and 3 meet; 2 and 4 meet. Black to whoever
    # had it less often: 3 and 1 both had it once, so the lower ranked (3) takes it.
    assert pair_arena(waiting, scores, now=10, ends_at=60) == (Pair(3, 1), Pair(4, 2))
    # Only 1 and 2 free, and they just met: nobody is paired; they wait for others.
    assert pair_arena(waiting[:2], scores, now=10, ends_at=60) == ()


def test_no_pairing_once_the_arena_ends() -> None:
    waiting = [Player(1, 1500, 1), Player(2, 1500, 2)]
    assert pair_arena(waiting, {}, now=60, ends_at=60) == ()
    assert pair_arena(waiting, {}, now=59, ends_at=60) == (Pair(2, 1),)


def test_games_are_numbered_in_the_order_they_were_paired() -> None:
    pairings = [
        Pairing(1, 2, 2, 5, 6, None, None),
        Pairing(1, 1, 1, 1, 2, Result.DRAW, None),
        Pairing(1, 2, 1, 3, 4, None, None),
        Pairing(1, 3, 1, 2, 1, None, None),
    ]
    assert game_numbers(pairings) == {(1, 1): 1, (2, 1): 2, (2, 2): 3, (3, 1): 4}
