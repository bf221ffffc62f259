"""A tournament's course read off its records: entries, pairing numbers, and each next round,
through to the end, with a withdrawal and a restart in the middle; and its start time as an
organiser writes it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.core.club.card import Player
from bot.core.club.errors import (
    AlreadyEnteredError,
    EntriesClosedError,
    RoundUnderWayError,
    StartTimeError,
    TournamentFullError,
)
from bot.core.club.standings import standings
from bot.core.club.tournament import (
    MAX_START_AHEAD,
    PlannedBoard,
    check_entry,
    check_start_time,
    next_round,
    read_start_time,
    seeded,
    total_rounds,
)
from engine.types import Color
from storage.club import (
    Entrant,
    EntrantStatus,
    Format,
    Pairing,
    Result,
    Tournament,
    TournamentStatus,
)
from tests.clock import START


def tournament(format_: Format, *, rounds: int = 3, cap: int | None = None) -> Tournament:
    return Tournament(
        id=9,
        guild_id=1,
        channel_id=2,
        name="Club night",
        format=format_,
        game="gomoku",
        rule="freestyle",
        rounds=rounds,
        seconds_per_move=60,
        player_cap=cap,
        starts_at=None,
        arena_minutes=None,
        status=TournamentStatus.OPEN,
        created_by=1,
        created_at=START,
    )


def entrants(count: int) -> list[Entrant]:
    return [
        Entrant(9, 100 + i, 1500 + 10 * i, 0, EntrantStatus.ACTIVE, START + timedelta(seconds=i))
        for i in range(count)
    ]


def play(plan_boards: Sequence[PlannedBoard], round_: int, pairings: list[Pairing]) -> None:
    """Store a round's boards, every game won by Black (decided boards keep their result)."""
    for b in plan_boards:
        pairings.append(
            Pairing(9, round_, b.board, b.black, b.white, b.result or Result.BLACK_WINS, None)
        )


def test_seeds_go_by_rating_then_by_who_joined_first() -> None:
    field = [*entrants(3), Entrant(9, 7, 1520, 0, EntrantStatus.ACTIVE, START)]
    assert [(e.user_id, e.seed) for e in seeded(field)] == [(7, 1), (102, 2), (101, 3), (100, 4)]


def test_a_seven_player_swiss_runs_three_rounds_with_a_different_bye_each_round() -> None:
    event = replace(tournament(Format.SWISS), status=TournamentStatus.RUNNING)
    field = list(seeded(entrants(7)))
    pairings: list[Pairing] = []
    byes = []
    for expected_round in (1, 2, 3):
        plan = next_round(event, field, pairings)
        assert plan is not None
        assert plan.round == expected_round
        assert len(plan.boards) == 4
        assert [b.board for b in plan.boards] == [1, 2, 3, 4]
        (bye,) = [b for b in plan.boards if b.white is None]
        assert bye.result is Result.BYE
        byes.append(bye.black)
        assert all(b.result is None for b in plan.boards if b.white is not None)
        # A restart asks again before anything is stored: the same round, the same boards.
        assert next_round(event, field, pairings) == plan
        play(plan.boards, plan.round, pairings)
    assert len(set(byes)) == 3
    assert next_round(event, field, pairings) is None


def test_no_round_is_paired_while_a_game_of_the_last_one_is_open() -> None:
    event = tournament(Format.SWISS)
    field = list(seeded(entrants(4)))
    plan = next_round(event, field, [])
    assert plan is not None
    pairings = [Pairing(9, 1, b.board, b.black, b.white, None, None) for b in plan.boards]
    with pytest.raises(RoundUnderWayError) as caught:
        next_round(event, field, pairings)
    assert (caught.value.tournament_id, caught.value.round) == (9, 1)


def test_a_swiss_leaves_a_withdrawn_player_unpaired() -> None:
    event = tournament(Format.SWISS)
    field = list(seeded(entrants(4)))
    pairings: list[Pairing] = []
    plan = next_round(event, field, pairings)
    assert plan is not None
    play(plan.boards, 1, pairings)
    field[0] = replace(field[0], status=EntrantStatus.WITHDRAWN)
    plan = next_round(event, field, pairings)
    assert plan is not None
    seated = {u for b in plan.boards for u in (b.black, b.white) if u is not None}
    assert seated == {e.user_id for e in field[1:]}
    assert [b.result for b in plan.boards if b.white is None] == [Result.BYE]


def test_a_round_robin_of_five_forfeits_the_games_of_a_withdrawn_player() -> None:
    event = tournament(Format.ROUND_ROBIN)
    field = list(seeded(entrants(5)))
    assert total_rounds(event, field) == 5
    pairings: list[Pairing] = []
    quitter = field[2].user_id
    for number in range(1, 6):
        if number == 3:
            field[2] = replace(field[2], status=EntrantStatus.WITHDRAWN)
        plan = next_round(event, field, pairings)
        assert plan is not None
        assert plan.round == number
        for b in plan.boards:
            if number >= 3 and quitter in (b.black, b.white) and b.white is not None:
                gone = Color.BLACK if b.black == quitter else Color.WHITE
                assert b.result is Result.forfeited_by(gone)
        play(plan.boards, number, pairings)
    assert next_round(event, field, pairings) is None
    met = {frozenset((p.black, p.white)) for p in pairings if p.white is not None}
    assert len(met) == 10  # everyone met everyone once


def test_an_arena_has_no_rounds() -> None:
    with pytest.raises(ValueError, match="arena"):
        next_round(tournament(Format.ARENA), entrants(2), [])


def test_entries() -> None:
    field = entrants(2)
    open_swiss = tournament(Format.SWISS, cap=3)
    check_entry(open_swiss, field, 7)
    with pytest.raises(AlreadyEnteredError):
        check_entry(open_swiss, field, 100)
    with pytest.raises(TournamentFullError) as full:
        check_entry(open_swiss, [*field, *entrants(3)[2:]], 7)
    assert full.value.cap == 3
    running = replace(open_swiss, status=TournamentStatus.RUNNING)
    check_entry(running, field, 7)  # a Swiss takes late entries
    running_rr = replace(running, format=Format.ROUND_ROBIN)
    with pytest.raises(EntriesClosedError) as closed:
        check_entry(running_rr, field, 7)
    assert closed.value.status is TournamentStatus.RUNNING
    with pytest.raises(EntriesClosedError):
        check_entry(replace(open_swiss, status=TournamentStatus.FINISHED), field, 7)
    withdrawn = [replace(field[0], status=EntrantStatus.WITHDRAWN), field[1]]
    check_entry(open_swiss, withdrawn, 100)  # withdrawn before the start: may enter again


def test_a_late_entrant_to_a_swiss_is_paired_from_the_next_round_with_nothing_for_the_first() -> (
    None
):
    event = replace(tournament(Format.SWISS), status=TournamentStatus.RUNNING)
    field = list(seeded(entrants(4)))
    pairings: list[Pairing] = []
    plan = next_round(event, field, pairings)
    assert plan is not None
    play(plan.boards, 1, pairings)
    check_entry(event, field, 200)
    field.append(Entrant(9, 200, 1900, 5, EntrantStatus.ACTIVE, START + timedelta(hours=1)))
    plan = next_round(event, field, pairings)
    assert plan is not None
    seated = {u for b in plan.boards for u in (b.black, b.white) if u is not None}
    assert 200 in seated
    table = {s.user_id: s for s in standings(seeded_players(field), pairings)}
    assert table[200].points == 0.0
    assert table[200].played == 0


def seeded_players(field: Sequence[Entrant]) -> list[Player]:
    return [Player(e.user_id, e.rating, e.seed) for e in field]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-05-01 18:00", datetime(2026, 5, 1, 18, 0, tzinfo=UTC)),
        (" 2026-05-01T18:00:30Z ", datetime(2026, 5, 1, 18, 0, 30, tzinfo=UTC)),
        ("2026-05-01T20:00+02:00", datetime(2026, 5, 1, 18, 0, tzinfo=UTC)),
        ("2026-05-01", datetime(2026, 5, 1, 0, 0, tzinfo=UTC)),
        ("<t:1777658400>", datetime(2026, 5, 1, 18, 0, tzinfo=UTC)),
        ("<t:1777658400:R>", datetime(2026, 5, 1, 18, 0, tzinfo=UTC)),
    ],
    ids=["iso-space", "iso-z", "iso-offset", "date", "discord", "discord-styled"],
)
def test_start_times_are_read_as_utc(text: str, expected: datetime) -> None:
    assert read_start_time(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "tomorrow",
        "<t:abc>",
        "<t:1777658400:X>",
        "<t:999999999999>",
        "\uff12\uff10\uff12\uff16-05-01",
        "9" * 50,
    ],
    ids=["empty", "words", "letters", "style", "year-out-of-range", "wide-digits", "long"],
)
def test_unreadable_start_times_are_refused(text: str) -> None:
    with pytest.raises(StartTimeError) as refused:
        read_start_time(text)
    assert refused.value.reason is StartTimeError.Reason.UNREADABLE


def test_a_start_time_must_be_to_come_and_within_a_year() -> None:
    now = datetime(2026, 5, 1, 18, 0, tzinfo=UTC)
    check_start_time(now + timedelta(seconds=1), now)
    check_start_time(now + MAX_START_AHEAD, now)
    for when, reason in (
        (now, StartTimeError.Reason.PASSED),
        (now - timedelta(days=1), StartTimeError.Reason.PASSED),
        (now + MAX_START_AHEAD + timedelta(seconds=1), StartTimeError.Reason.TOO_FAR),
    ):
        with pytest.raises(StartTimeError) as refused:
            check_start_time(when, now)
        assert refused.value.reason is reason
