"""Contract for the stored pairing queue (``QueueEntry``), run on every repository: a member
waits in one queue at a time, entries come back as stored and longest waiting first, a pair
is taken out all or none, and forgetting a member takes them out."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest

from storage.club import QueueEntry
from storage.repository import GameRepository
from tests.storage.conftest import ALICE, BOB, CAROL, GUILD, START, FakeClock

OTHER_GUILD = GUILD + 1


def entry(user_id: int, seconds: float = 0, **changes: object) -> QueueEntry:
    fields: dict[str, object] = {
        "guild_id": GUILD,
        "user_id": user_id,
        "game": "gomoku",
        "rule": "freestyle",
        "rating": 1234.5,
        "joined_at": START + timedelta(seconds=seconds),
        "channel_id": 10,
        "in_thread": True,
        "language": "en",
        "token": f"token-{user_id}",
        "message_id": 9000 + user_id,
    }
    fields.update(changes)
    return QueueEntry(**fields)  # type: ignore[arg-type]


async def test_an_entry_is_stored_and_read_back_as_it_was(repo: GameRepository) -> None:
    alice = entry(ALICE, 0.000001, rating=1612.25)
    bob = entry(BOB, 3, in_thread=False, token=None, message_id=None, game="connect4", rule="")
    assert await repo.add_queue_entry(alice)
    assert await repo.add_queue_entry(bob)
    assert await repo.queue_entry(ALICE) == alice
    assert await repo.queue_entry(BOB) == bob
    assert await repo.queue_entry(CAROL) is None
    assert await repo.queue_entries() == [alice, bob]
    assert await repo.queue_entries(GUILD) == [alice, bob]
    assert await repo.queue_entries(OTHER_GUILD) == []


async def test_the_private_answer_is_noted_on_the_entry(repo: GameRepository) -> None:
    alice = entry(ALICE, message_id=None)
    assert await repo.add_queue_entry(alice)
    await repo.set_queue_message(ALICE, 77)
    await repo.set_queue_message(BOB, 78)  # in no queue: nothing to note
    assert await repo.queue_entries() == [replace(alice, message_id=77)]


async def test_entries_come_longest_waiting_first_then_by_member(repo: GameRepository) -> None:
    late = entry(ALICE, 10)
    tie_a, tie_b = entry(CAROL, 5), entry(BOB, 5, guild_id=OTHER_GUILD)
    for made in (late, tie_a, tie_b):
        assert await repo.add_queue_entry(made)
    assert await repo.queue_entries() == [tie_b, tie_a, late]
    assert await repo.queue_entries(GUILD) == [tie_a, late]
    assert await repo.queue_entries(OTHER_GUILD) == [tie_b]


async def test_a_member_waits_in_one_queue_at_a_time(repo: GameRepository) -> None:
    first = entry(ALICE)
    assert await repo.add_queue_entry(first)
    # Again in the same server (another game), or in another server: refused, nothing written.
    assert not await repo.add_queue_entry(entry(ALICE, 1, game="connect4", rule=""))
    assert not await repo.add_queue_entry(entry(ALICE, 2, guild_id=OTHER_GUILD))
    assert await repo.queue_entries() == [first]


async def test_two_joins_at_once_store_one_entry(repo: GameRepository) -> None:
    added = await asyncio.gather(
        repo.add_queue_entry(entry(ALICE, 1)), repo.add_queue_entry(entry(ALICE, 2))
    )
    assert sorted(added) == [False, True]
    assert len(await repo.queue_entries()) == 1


async def test_a_pair_is_taken_out_all_or_none(repo: GameRepository) -> None:
    alice, bob, carol = entry(ALICE), entry(BOB, 1), entry(CAROL, 2, guild_id=OTHER_GUILD)
    for made in (alice, bob, carol):
        assert await repo.add_queue_entry(made)
    # Carol waits in another server, Dave in none: nothing is taken.
    assert not await repo.take_queue_entries(GUILD, [ALICE, CAROL])
    assert not await repo.take_queue_entries(GUILD, [BOB, 1004])
    assert await repo.queue_entries() == [alice, bob, carol]
    assert await repo.take_queue_entries(GUILD, [ALICE, BOB])
    assert await repo.queue_entries() == [carol]
    # Taken once: a second take finds them gone.
    assert not await repo.take_queue_entries(GUILD, [ALICE])
    assert await repo.take_queue_entries(OTHER_GUILD, [CAROL, CAROL])
    assert await repo.queue_entries() == []
    # Out of the queue, a member may join again.
    again = replace(alice, joined_at=START + timedelta(minutes=5))
    assert await repo.add_queue_entry(again)
    assert await repo.queue_entry(ALICE) == again


async def test_two_takes_of_one_member_at_once_take_them_once(repo: GameRepository) -> None:
    for made in (entry(ALICE), entry(BOB, 1), entry(CAROL, 2)):
        assert await repo.add_queue_entry(made)
    taken = await asyncio.gather(
        repo.take_queue_entries(GUILD, [ALICE, BOB]), repo.take_queue_entries(GUILD, [BOB, CAROL])
    )
    assert sorted(taken) == [False, True]
    left = [e.user_id for e in await repo.queue_entries()]
    assert left == ([CAROL] if taken[0] else [ALICE])


async def test_forgetting_a_member_takes_them_out_of_the_queue(
    repo: GameRepository, clock: FakeClock
) -> None:
    assert await repo.add_queue_entry(entry(ALICE))
    assert await repo.add_queue_entry(entry(BOB, 1))
    await repo.delete_user_data(ALICE)
    assert [e.user_id for e in await repo.queue_entries()] == [BOB]


def test_an_entry_refuses_a_naive_time() -> None:
    with pytest.raises(ValueError, match="naive"):
        entry(ALICE, joined_at=START.replace(tzinfo=None))


def test_an_entry_keeps_its_token_out_of_its_repr() -> None:
    assert "token-1001" not in repr(entry(ALICE))
