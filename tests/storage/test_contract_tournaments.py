"""Contract for stored tournaments (entrants, rounds, boards), run on every repository."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from storage.club import (
    Entrant,
    EntrantStatus,
    Format,
    NewTournament,
    Pairing,
    Result,
    RoundStatus,
    TournamentStatus,
)
from storage.errors import (
    GameNotFoundError,
    RoundPairedError,
    TournamentNotFoundError,
    TournamentStatusError,
)
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository
from tests.storage.conftest import ALICE, BOB, CAROL, GUILD, START, FakeClock, new_game

DAVE = 1004
ORGANISER = 77


def swiss(**changes: object) -> NewTournament:
    fields: dict[str, object] = {
        "guild_id": GUILD,
        "channel_id": 10,
        "name": "Autumn Swiss",
        "format": Format.SWISS,
        "game": "gomoku",
        "rule": "freestyle",
        "rounds": 3,
        "seconds_per_move": 60,
        "created_by": ORGANISER,
    }
    fields.update(changes)
    return NewTournament(**fields)  # type: ignore[arg-type]


def board(
    tid: int, number: int, index: int, black: int, white: int | None, **kw: object
) -> Pairing:
    result = kw.get("result", Result.BYE if white is None else None)
    game_id = kw.get("game_id")
    return Pairing(tid, number, index, black, white, result, game_id)  # type: ignore[arg-type]


async def test_a_tournament_is_created_open_and_read_back(
    repo: GameRepository, clock: FakeClock
) -> None:
    starts = START + timedelta(days=1)
    made = await repo.create_tournament(swiss(player_cap=8, starts_at=starts))
    assert made.status is TournamentStatus.OPEN
    assert (made.name, made.format, made.rounds, made.player_cap) == ("Autumn Swiss", "swiss", 3, 8)
    assert made.starts_at == starts
    assert made.created_at >= START
    assert await repo.tournament(made.id) == made
    arena = await repo.create_tournament(
        swiss(format=Format.ARENA, rounds=0, arena_minutes=30, guild_id=GUILD + 1)
    )
    assert arena.id != made.id
    assert arena.arena_minutes == 30
    assert await repo.live_tournaments() == [made, arena]
    assert await repo.live_tournaments(GUILD) == [made]


async def test_an_unknown_tournament_is_refused(repo: GameRepository) -> None:
    with pytest.raises(TournamentNotFoundError):
        await repo.tournament(42)
    with pytest.raises(TournamentNotFoundError):
        await repo.add_entrant(42, ALICE, 1500)
    with pytest.raises(TournamentNotFoundError):
        await repo.store_round(42, 1, [])
    with pytest.raises(TournamentNotFoundError):
        await repo.set_tournament_status(42, TournamentStatus.OPEN, TournamentStatus.RUNNING)
    assert await repo.entrants(42) == []
    assert await repo.pairings(42) == []


@pytest.mark.parametrize(
    "changes",
    [
        {"name": ""},
        {"name": "x" * 101},
        {"seconds_per_move": 0},
        {"rounds": -1},
        {"player_cap": 1},
        {"arena_minutes": 10},
        {"format": Format.ARENA},
        {"format": Format.ARENA, "arena_minutes": 0},
    ],
    ids=["empty name", "long name", "no time", "negative rounds", "cap 1", "minutes", "arena", "0"],
)
def test_a_tournament_the_database_would_refuse_is_refused_first(
    changes: dict[str, object],
) -> None:
    with pytest.raises(ValueError, match=r"."):
        swiss(**changes)


async def test_the_status_moves_by_compare_and_set(repo: GameRepository) -> None:
    made = await repo.create_tournament(swiss())
    running = await repo.set_tournament_status(
        made.id, TournamentStatus.OPEN, TournamentStatus.RUNNING
    )
    assert running == replace(made, status=TournamentStatus.RUNNING)
    with pytest.raises(TournamentStatusError) as refused:
        await repo.set_tournament_status(made.id, TournamentStatus.OPEN, TournamentStatus.RUNNING)
    assert refused.value.status is TournamentStatus.RUNNING
    await repo.set_tournament_status(made.id, TournamentStatus.RUNNING, TournamentStatus.FINISHED)
    assert (await repo.tournament(made.id)).status is TournamentStatus.FINISHED
    assert await repo.live_tournaments() == []


async def test_entrants_join_withdraw_and_come_back(repo: GameRepository) -> None:
    tid = (await repo.create_tournament(swiss())).id
    alice = await repo.add_entrant(tid, ALICE, 1600)
    bob = await repo.add_entrant(tid, BOB, 1500.5)
    assert alice == Entrant(tid, ALICE, 1600.0, 0, EntrantStatus.ACTIVE, alice.joined_at)
    assert bob.joined_at > alice.joined_at
    assert await repo.entrants(tid) == [alice, bob]

    seeded = replace(alice, seed=1, rating=1610.0)
    await repo.update_entrant(seeded)
    await repo.update_entrant(replace(bob, status=EntrantStatus.WITHDRAWN, seed=2))
    assert await repo.entrants(tid) == [
        seeded,
        replace(bob, status=EntrantStatus.WITHDRAWN, seed=2),
    ]
    back = await repo.add_entrant(tid, BOB, 1490)
    assert (back.status, back.rating, back.seed) == (EntrantStatus.ACTIVE, 1490.0, 2)
    assert back.joined_at > bob.joined_at
    assert [e.user_id for e in await repo.entrants(tid)] == [ALICE, BOB]
    with pytest.raises(TournamentNotFoundError) as missing:
        await repo.update_entrant(replace(alice, user_id=CAROL))
    assert missing.value.user_id == CAROL


async def test_a_round_is_stored_with_its_boards_once(repo: GameRepository) -> None:
    tid = (await repo.create_tournament(swiss())).id
    boards = [board(tid, 1, 1, ALICE, BOB), board(tid, 1, 2, CAROL, None)]
    deadline = START + timedelta(hours=1)
    first = await repo.store_round(tid, 1, boards, deadline=deadline)
    assert (first.number, first.status, first.deadline) == (1, RoundStatus.PAIRED, deadline)
    assert await repo.rounds(tid) == [first]
    assert await repo.pairings(tid) == boards
    with pytest.raises(RoundPairedError):
        await repo.store_round(tid, 1, [board(tid, 1, 1, ALICE, CAROL)])
    with pytest.raises(ValueError, match="skips"):
        await repo.store_round(tid, 3, [board(tid, 3, 1, ALICE, CAROL)])
    assert await repo.pairings(tid) == boards
    assert await repo.rounds(tid) == [first]


@pytest.mark.parametrize(
    "boards",
    [
        [board(1, 1, 2, ALICE, BOB)],
        [board(1, 2, 1, ALICE, BOB)],
        [board(2, 1, 1, ALICE, BOB)],
        [board(1, 1, 1, ALICE, ALICE)],
        [board(1, 1, 1, ALICE, None, result=None)],
        [board(1, 1, 1, ALICE, BOB, result=Result.BYE)],
    ],
    ids=["board 2 first", "other round", "other tournament", "self", "bye unscored", "bye of two"],
)
async def test_a_malformed_round_is_refused_whole(
    repo: GameRepository, boards: list[Pairing]
) -> None:
    tid = (await repo.create_tournament(swiss())).id
    assert tid == 1
    with pytest.raises(ValueError, match=r"."):
        await repo.store_round(tid, 1, boards)
    assert await repo.rounds(tid) == []
    assert await repo.pairings(tid) == []


async def test_a_round_decided_without_games_is_stored_finished(repo: GameRepository) -> None:
    tid = (await repo.create_tournament(swiss())).id
    boards = [
        board(tid, 1, 1, ALICE, BOB, result=Result.WHITE_WINS_BY_FORFEIT),
        board(tid, 1, 2, CAROL, None),
    ]
    stored = await repo.store_round(tid, 1, boards)
    assert stored.status is RoundStatus.FINISHED


async def test_games_and_results_finish_the_round(repo: GameRepository) -> None:
    tid = (await repo.create_tournament(swiss())).id
    await repo.store_round(
        tid,
        1,
        [board(tid, 1, 1, ALICE, BOB), board(tid, 1, 2, CAROL, DAVE), board(tid, 1, 3, 9, None)],
    )
    one = await repo.create_game(new_game(channel_id=11))
    two = await repo.create_game(new_game(channel_id=12))
    assert await repo.set_pairing_game(tid, 1, 1, one.id)
    assert not await repo.set_pairing_game(tid, 1, 1, two.id)  # a board gets one game
    assert not await repo.set_pairing_game(tid, 1, 3, two.id)  # the bye gets none
    assert await repo.set_pairing_game(tid, 1, 2, two.id)
    with pytest.raises(GameNotFoundError):
        await repo.set_pairing_game(tid, 1, 2, 999)
    with pytest.raises(TournamentNotFoundError):
        await repo.set_pairing_game(tid, 1, 4, one.id)

    found = await repo.pairing_by_game(one.id)
    assert found == board(tid, 1, 1, ALICE, BOB, game_id=one.id)
    assert await repo.pairing_by_game(999) is None

    assert not await repo.set_pairing_result(tid, 1, 1, Result.BLACK_WINS)
    assert (await repo.rounds(tid))[0].status is RoundStatus.PAIRED
    assert await repo.set_pairing_result(tid, 1, 2, Result.DRAW)
    assert (await repo.rounds(tid))[0].status is RoundStatus.FINISHED
    # A moderator's correction: the round stays finished.
    assert await repo.set_pairing_result(tid, 1, 1, Result.WHITE_WINS)
    assert [p.result for p in await repo.pairings(tid)] == [
        Result.WHITE_WINS,
        Result.DRAW,
        Result.BYE,
    ]
    with pytest.raises(ValueError, match=r"."):
        await repo.set_pairing_result(tid, 1, 1, Result.BYE)
    with pytest.raises(ValueError, match=r"."):
        await repo.set_pairing_result(tid, 1, 3, Result.BLACK_WINS)
    with pytest.raises(TournamentNotFoundError):
        await repo.set_pairing_result(tid, 2, 1, Result.DRAW)
    assert not await repo.set_pairing_game(tid, 1, 1, one.id)  # a result closes the board

    second = await repo.store_round(tid, 2, [board(tid, 2, 1, ALICE, CAROL)])
    assert second.number == 2
    assert [(p.round, p.board) for p in await repo.pairings(tid)] == [
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 1),
    ]


async def test_two_stores_of_one_round_at_once_store_it_once(tmp_path: Path) -> None:
    # Two repositories on one file, as two processes would be: one store wins.
    clock = FakeClock(START, step=timedelta(microseconds=1))
    path = tmp_path / "t.sqlite3"
    async with (
        SqliteGameRepository.open(path, clock=clock) as one,
        SqliteGameRepository.open(path, clock=clock) as two,
    ):
        tid = (await one.create_tournament(swiss())).id
        results = await asyncio.gather(
            one.store_round(tid, 1, [board(tid, 1, 1, ALICE, BOB)]),
            two.store_round(tid, 1, [board(tid, 1, 1, CAROL, DAVE)]),
            return_exceptions=True,
        )
        refused = [r for r in results if isinstance(r, RoundPairedError)]
        assert len(refused) == 1
        assert len(await one.pairings(tid)) == 1


async def test_forgetting_a_member_leaves_no_id_of_theirs_in_tournaments(
    repo: GameRepository,
) -> None:
    # Open: Alice's entry goes. Running: Alice and Carol played; their rows stay under
    # pseudonyms (one each), withdrawn. Finished, organised by Alice: her entry stays under a
    # pseudonym with its status, and the organiser is nobody.
    open_ = (await repo.create_tournament(swiss())).id
    running = (await repo.create_tournament(swiss())).id
    finished = (await repo.create_tournament(swiss(created_by=ALICE))).id
    for tid in (open_, running, finished):
        for user in (ALICE, BOB, CAROL, DAVE):
            await repo.add_entrant(tid, user, 1500)
    for tid, status in ((running, TournamentStatus.RUNNING), (finished, TournamentStatus.FINISHED)):
        await repo.store_round(
            tid,
            1,
            [
                board(tid, 1, 1, ALICE, BOB, result=Result.BLACK_WINS),
                board(tid, 1, 2, DAVE, CAROL, result=Result.DRAW),
            ],
        )
        await repo.set_tournament_status(tid, TournamentStatus.OPEN, status)
    await repo.delete_user_data(ALICE)
    await repo.delete_user_data(CAROL)

    assert [e.user_id for e in await repo.entrants(open_)] == [BOB, DAVE]
    for tid in (running, finished):
        entrants = {e.user_id: e.status for e in await repo.entrants(tid)}
        left = EntrantStatus.WITHDRAWN if tid == running else EntrantStatus.ACTIVE
        assert entrants == {
            -1: left,
            BOB: EntrantStatus.ACTIVE,
            -2: left,
            DAVE: EntrantStatus.ACTIVE,
        }
        assert await repo.pairings(tid) == [
            board(tid, 1, 1, -1, BOB, result=Result.BLACK_WINS),
            board(tid, 1, 2, DAVE, -2, result=Result.DRAW),
        ]
    assert (await repo.tournament(finished)).created_by == 0
    assert (await repo.tournament(running)).created_by == ORGANISER
