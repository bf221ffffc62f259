"""GameService for running on a server (issue 11): moderators ending games, idle games ending
by themselves, replacing one's own AI game, stored undo requests, threads, history paging and
replay positions. On the in-memory repository with the deterministic runner of test_service."""

from __future__ import annotations

import random
from datetime import timedelta
from io import BytesIO

import pytest
from PIL import Image

from bot.core.service import GameService
from bot.core.service.errors import GameExistsError, NoSuchGameError, NotReplaceableError
from bot.core.service.history import PAGE_SIZE
from bot.core.service.shared import DEFAULT_IDLE_AI, DEFAULT_IDLE_HUMAN
from bot.core.service.states import GameEnd, UndoRequest
from bot.text import animation
from engine.types import Point, Termination
from storage.memory import InMemoryGameRepository
from storage.records import GameStatus
from tests.bot.test_service import ALICE, BOB, CAROL, CHANNEL, GUILD, play, start_pvp
from tests.clock import FakeClock
from tests.runners import NearestRunner


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def start_ai(service: GameService, user: int = ALICE, channel: int = CHANNEL):
    return await service.start(channel_id=channel, guild_id=GUILD, user_id=user, colour="black")


async def test_a_moderator_ends_a_game_without_a_result(service: GameService) -> None:
    view = await start_pvp(service)
    await play(service, "h8")
    end = await service.abandon(CHANNEL, ended_by=CAROL, reason="moderator")
    assert end is not None
    assert end.game.outcome is not None
    assert end.game.outcome.termination is Termination.ABANDONED
    assert (end.game.record.ended_by, end.game.record.end_reason) == (CAROL, "moderator")
    assert end.ratings == ()
    assert await service.stats(ALICE) is None
    assert (await service.game(view.game_id)).is_over


@pytest.mark.parametrize(
    ("against_ai", "idle"), [(True, DEFAULT_IDLE_AI), (False, DEFAULT_IDLE_HUMAN)]
)
async def test_idle_games_end_by_themselves(
    service: GameService, clock: FakeClock, against_ai: bool, idle: timedelta
) -> None:
    view = await (start_ai(service) if against_ai else start_pvp(service))
    await play(service, "h8")
    assert await service.next_deadline() == clock.now + idle
    clock.advance(idle.total_seconds() - 1)
    assert await service.tick() == []
    clock.advance(1)
    (event,) = await service.tick()
    assert isinstance(event, GameEnd)
    assert event.game.game_id == view.game_id
    assert event.game.record.end_reason == "idle"
    assert await service.next_deadline() is None


async def test_idle_times_follow_the_guild(service: GameService, clock: FakeClock) -> None:
    await service.update_settings(GUILD, idle_ai_seconds=3600)
    await start_ai(service)
    clock.advance(3600)
    (event,) = await service.tick()
    assert isinstance(event, GameEnd)


async def test_a_clocked_game_still_loses_on_time_first(
    service: GameService, clock: FakeClock
) -> None:
    await service.update_settings(GUILD, turn_seconds=60)
    await start_pvp(service)
    clock.advance(61)
    events = await service.tick()
    ends = [e for e in events if isinstance(e, GameEnd)]
    assert ends
    assert ends[0].game.outcome is not None
    assert ends[0].game.outcome.termination is Termination.TIMEOUT


async def test_replacing_ones_own_ai_game(service: GameService) -> None:
    old = await start_ai(service)
    with pytest.raises(GameExistsError) as caught:
        await start_ai(service)
    assert caught.value.game_id == old.game_id
    with pytest.raises(NotReplaceableError):
        await service.replace_ai_game(old.game_id, BOB)
    end = await service.replace_ai_game(old.game_id, ALICE)
    assert (end.game.record.end_reason, end.game.record.ended_by) == ("replaced", ALICE)
    assert (await start_ai(service)).game_id != old.game_id


async def test_a_game_between_people_cannot_be_replaced(service: GameService) -> None:
    view = await start_pvp(service)
    with pytest.raises(NotReplaceableError):
        await service.replace_ai_game(view.game_id, ALICE)


async def test_undo_requests_survive_a_new_service(
    repo: InMemoryGameRepository, runner: NearestRunner, clock: FakeClock
) -> None:
    first = GameService(repo, runner, clock=clock, rng=random.Random(1))
    view = await start_pvp(first)
    await play(first, "h8")
    request = await first.undo(CHANNEL, ALICE)
    assert isinstance(request, UndoRequest)
    second = GameService(repo, runner, clock=clock, rng=random.Random(1))
    result = await second.answer_undo(view.game_id, BOB, accept=True)
    assert result is not None
    assert [m.point for m in result.undone] == [Point(7, 7)]


async def test_a_game_moves_into_a_thread(service: GameService) -> None:
    view = await start_pvp(service)
    await service.move_to_thread(view.game_id, 999, parent_channel_id=CHANNEL)
    moved = await service.board(999)
    assert moved.record.parent_channel_id == CHANNEL
    assert await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=CAROL)


async def test_a_rematch_of_a_game_in_a_thread_is_played_in_that_thread(
    service: GameService,
) -> None:
    view = await start_ai(service, channel=999)
    await service.move_to_thread(view.game_id, 999, parent_channel_id=CHANNEL)
    await service.resign(999, ALICE)
    again = await service.rematch(view.game_id, ALICE)
    assert again.game_id != view.game_id
    assert (again.channel_id, again.record.parent_channel_id) == (999, CHANNEL)
    assert again.is_active


async def test_history_pages_and_visibility(service: GameService) -> None:
    ids = []
    for _ in range(PAGE_SIZE + 2):
        view = await start_ai(service)
        ids.append(view.game_id)
        await service.resign(CHANNEL, ALICE)
    first = await service.history_page(ALICE, guild_id=GUILD)
    assert [g.id for g in first.games] == ids[::-1][:PAGE_SIZE]
    assert first.has_more
    second = await service.history_page(ALICE, guild_id=GUILD, page=1)
    assert [g.id for g in second.games] == ids[1::-1]
    assert not second.has_more
    assert (await service.history_page(ALICE, guild_id=GUILD, page=5)).games == ()
    # Visible from its guild, and to its players anywhere; not to others elsewhere.
    assert await service.visible_game(ids[0], user_id=CAROL, guild_id=GUILD)
    assert await service.visible_game(ids[0], user_id=ALICE, guild_id=None)
    with pytest.raises(NoSuchGameError):
        await service.visible_game(ids[0], user_id=CAROL, guild_id=GUILD + 1)


async def test_a_declined_challenge_has_nothing_to_replay(service: GameService) -> None:
    pending = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, opponent=BOB)
    await service.decline(pending.game_id, BOB)
    with pytest.raises(NoSuchGameError):
        await service.visible_game(pending.game_id, user_id=ALICE, guild_id=GUILD)


async def test_replay_positions_and_animation(service: GameService) -> None:
    view = await start_pvp(service)
    await play(service, "h8 a1 h9 a2")
    await service.resign(CHANNEL, BOB)
    game = await service.game(view.game_id)
    assert game.status is GameStatus.FINISHED
    assert [len(game.after(n).board.moves) for n in (-1, 0, 2, 4, 9)] == [
        0,
        0,
        2,
        4,
        4,
    ]
    assert game.after(3).board.moves == game.board.moves[:3]
    gif = animation.animation(game)
    assert gif.startswith(b"GIF8")
    with Image.open(BytesIO(gif)) as image:
        assert getattr(image, "n_frames", 1) == 5  # the empty board and each of the four moves
