"""Rating arithmetic and the live-move rule, checked against slow obvious oracles."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from engine.types import Color, Game, Point
from storage.ratings import INITIAL_MU, INITIAL_SIGMA, new_stats, rate_game
from storage.records import MoveRecord, PlayerStats, live_moves

AT = datetime(2026, 1, 1, tzinfo=UTC)
results = st.sampled_from([Color.BLACK, Color.WHITE, None])


def test_new_players_start_at_the_model_default() -> None:
    stats = new_stats(7, Game.GOMOKU, None)
    assert (stats.mu, stats.sigma) == (INITIAL_MU, INITIAL_SIGMA) == (25.0, 25.0 / 3)
    assert stats.ordinal == 0.0
    assert stats.display_rating == 1000
    assert stats.games == 0


@given(st.lists(results, max_size=30))
def test_ratings_match_openskill_and_records_match_a_tally(winners: list[Color | None]) -> None:
    model = PlackettLuce()
    a, b = model.rating(), model.rating()
    black, white = new_stats(1, Game.GOMOKU, None), new_stats(2, Game.GOMOKU, None)
    run: list[str] = []  # the slow way to a streak: the whole list of Black's results
    for winner in winners:
        ranks = {Color.BLACK: [1.0, 2.0], Color.WHITE: [2.0, 1.0], None: [1.0, 1.0]}[winner]
        [[a], [b]] = model.rate([[a], [b]], ranks=ranks)
        black, white = rate_game(black, white, winner, AT)
        run.append({Color.BLACK: "w", Color.WHITE: "l", None: "d"}[winner])
    assert (black.mu, black.sigma, white.mu, white.sigma) == (a.mu, a.sigma, b.mu, b.sigma)
    assert (black.wins_black, black.losses_black, black.draws_black) == (
        run.count("w"),
        run.count("l"),
        run.count("d"),
    )
    assert (white.wins_white, white.losses_white, white.draws_white) == (
        run.count("l"),
        run.count("w"),
        run.count("d"),
    )
    text = "".join(run)
    tail_wins = len(text) - len(text.rstrip("w"))
    tail_losses = len(text) - len(text.rstrip("l"))
    assert black.streak == tail_wins - tail_losses
    assert black.best_streak == max((len(r) for r in text.replace("l", "d").split("d")), default=0)
    assert white.streak == tail_losses - tail_wins


def test_winning_raises_the_winner_above_the_loser() -> None:
    black, white = rate_game(
        new_stats(1, Game.GOMOKU, None), new_stats(2, Game.GOMOKU, None), Color.WHITE, AT
    )
    assert white.ordinal > 0 > black.ordinal
    assert white.display_rating > 1000 > black.display_rating
    assert (white.wins_white, black.losses_black, white.updated_at) == (1, 1, AT)


def test_stats_totals_add_up() -> None:
    stats = PlayerStats(1, Game.GOMOKU, None, 25.0, 8.0, 1, 2, 3, 4, 5, 6)
    assert (stats.wins, stats.losses, stats.draws, stats.games) == (3, 7, 11, 21)


# A game's life as a list of operations: ("play", point) or ("undo", count).
operations = st.lists(
    st.one_of(
        st.tuples(st.just("play"), st.tuples(st.integers(0, 14), st.integers(0, 14))),
        st.tuples(st.just("undo"), st.integers(1, 3)),
    ),
    max_size=40,
)


@given(operations)
def test_live_moves_are_what_a_stack_would_hold(ops: list[tuple[str, object]]) -> None:
    stack: list[Point] = []  # the oracle: push on play, pop on undo
    history: list[MoveRecord] = []  # the append-only rows, as the repositories write them
    for seq, (kind, arg) in enumerate(ops, start=2):
        if kind == "play":
            assert isinstance(arg, tuple)
            point = Point(*arg)
            color = Color.BLACK if len(stack) % 2 == 0 else Color.WHITE
            history.append(MoveRecord(1, len(stack), point, color, AT, seq))
            stack.append(point)
        else:
            assert isinstance(arg, int)
            del stack[max(0, len(stack) - arg) :]
    assert [m.point for m in live_moves(history, len(stack))] == stack
