"""The GameRepository contract, run on both the in-memory and the SQLite repository."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest

from engine.types import Color, Game, Outcome, Point, Rule, Termination
from storage.errors import (
    ChannelBusyError,
    GameNotFoundError,
    InvalidStatusError,
    MoveOrderError,
    VersionConflictError,
)
from storage.records import GameRecord, GameStatus, GuildSettings, NewGame, Player
from storage.repository import GameRepository
from tests.storage.conftest import ALICE, BOB, CAROL, GUILD, START, FakeClock, new_game

H8, I9, H9, I10 = Point(7, 7), Point(8, 8), Point(7, 8), Point(8, 9)


async def play(repo: GameRepository, game: GameRecord, *points: Point) -> GameRecord:
    """Append ``points`` alternately, starting with the side to move."""
    for point in points:
        game = await repo.append_move(game.id, game.version, point, game.to_move)
    return game


# --- creating and reading -----------------------------------------------------------------


async def test_create_returns_the_stored_game(repo: GameRepository) -> None:
    deadline = START + timedelta(minutes=5)
    game = await repo.create_game(
        NewGame(
            guild_id=GUILD,
            channel_id=10,
            black=Player.human(ALICE),
            white=Player.ai("medium"),
            game=Game.CONNECT4,
            width=7,
            height=6,
            rule=Rule.STANDARD,
            deadline=deadline,
            turn_seconds=300,
            created_by=ALICE,
        )
    )
    assert (game.id, game.version, game.ply, game.status) == (1, 1, 0, GameStatus.ACTIVE)
    assert (game.game, game.width, game.height, game.rule) == (Game.CONNECT4, 7, 6, Rule.STANDARD)
    assert game.black == Player.human(ALICE)
    assert game.white == Player.ai("medium")
    assert game.white.is_ai
    assert not game.white.is_human
    assert game.deadline == deadline
    assert game.turn_seconds == 300
    assert game.outcome is None
    assert game.finished_at is None
    assert game.to_move is Color.BLACK
    assert game.created_at == game.updated_at > START
    assert await repo.get_game(game.id) == game
    assert await repo.open_game_in_channel(10) == game
    assert await repo.open_game_in_channel(11) is None


async def test_terminal_games_have_no_guild(repo: GameRepository) -> None:
    game = await repo.create_game(new_game(guild_id=None, white=Player.ai("master")))
    assert (await repo.get_game(game.id)).guild_id is None


async def test_unknown_game_is_not_found(repo: GameRepository) -> None:
    with pytest.raises(GameNotFoundError) as caught:
        await repo.get_game(42)
    assert caught.value.game_id == 42
    with pytest.raises(GameNotFoundError):
        await repo.load_game(42)
    with pytest.raises(GameNotFoundError):
        await repo.append_move(42, 1, H8, Color.BLACK)
    with pytest.raises(GameNotFoundError):
        await repo.set_message(42, channel_id=1, message_id=2)
    with pytest.raises(GameNotFoundError):
        await repo.move_history(42)


@pytest.mark.parametrize("status", [GameStatus.PENDING, GameStatus.ACTIVE])
async def test_one_open_game_per_channel(repo: GameRepository, status: GameStatus) -> None:
    first = await repo.create_game(new_game(10, status=status))
    with pytest.raises(ChannelBusyError) as caught:
        await repo.create_game(new_game(10, Player.human(CAROL)))
    assert (caught.value.channel_id, caught.value.game_id) == (10, first.id)
    other = await repo.create_game(new_game(11))  # another channel is free
    assert other.id != first.id
    if status is GameStatus.ACTIVE:
        await repo.finish_game(first.id, first.version, Outcome(Termination.RESIGN, Color.WHITE))
    else:
        await repo.close_challenge(first.id, first.version, GameStatus.DECLINED)
    again = await repo.create_game(new_game(10))  # the channel is free once it ended
    assert await repo.open_game_in_channel(10) == again


def test_new_game_refuses_rated_games_with_the_ai() -> None:
    with pytest.raises(ValueError, match="two humans"):
        new_game(white=Player.ai("easy"), rated=True)
    with pytest.raises(ValueError, match="yourself"):
        new_game(white=Player.human(ALICE), rated=True)
    with pytest.raises(ValueError, match="pending or active"):
        new_game(status=GameStatus.FINISHED)
    with pytest.raises(ValueError, match="timezone"):
        new_game(deadline=START.replace(tzinfo=None))
    with pytest.raises(ValueError, match="not both"):
        Player(user_id=1, level="easy")


# --- moves --------------------------------------------------------------------------------


async def test_moves_append_and_load_in_order(repo: GameRepository, clock: FakeClock) -> None:
    game = await repo.create_game(new_game())
    game = await play(repo, game, H8, I9, H9)
    assert (game.ply, game.version, game.to_move) == (3, 4, Color.WHITE)
    snapshot = await repo.load_game(game.id)
    assert snapshot.game == game
    assert [(m.ply, m.point, m.color) for m in snapshot.moves] == [
        (0, H8, Color.BLACK),
        (1, I9, Color.WHITE),
        (2, H9, Color.BLACK),
    ]
    times = [m.made_at for m in snapshot.moves]
    assert times == sorted(times)
    assert times[-1] <= clock.now
    assert game.updated_at == times[-1]


async def test_stale_version_is_a_conflict_and_writes_nothing(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    moved = await play(repo, game, H8)
    with pytest.raises(VersionConflictError) as caught:
        await repo.append_move(game.id, game.version, I9, Color.WHITE)
    assert (caught.value.game_id, caught.value.expected, caught.value.actual) == (game.id, 1, 2)
    assert await repo.get_game(game.id) == moved
    assert len(await repo.move_history(game.id)) == 1


async def test_concurrent_writers_exactly_one_wins(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    attempts = [repo.append_move(game.id, 1, Point(i, 0), Color.BLACK) for i in range(8)]
    results = await asyncio.gather(*attempts, return_exceptions=True)
    winners = [r for r in results if isinstance(r, GameRecord)]
    losers = [r for r in results if isinstance(r, VersionConflictError)]
    assert (len(winners), len(losers)) == (1, 7)
    snapshot = await repo.load_game(game.id)
    assert snapshot.game == winners[0]
    assert len(snapshot.moves) == 1
    assert snapshot.game.version == 2


async def test_wrong_colour_is_refused(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    with pytest.raises(MoveOrderError) as caught:
        await repo.append_move(game.id, game.version, H8, Color.WHITE)
    assert (caught.value.ply, caught.value.detail) == (0, "colour")
    assert isinstance(caught.value, ValueError)
    assert await repo.get_game(game.id) == game


async def test_no_moves_unless_active(repo: GameRepository) -> None:
    pending = await repo.create_game(new_game(10, status=GameStatus.PENDING))
    with pytest.raises(InvalidStatusError) as caught:
        await repo.append_move(pending.id, pending.version, H8, Color.BLACK)
    assert caught.value.status is GameStatus.PENDING
    game = await repo.create_game(new_game(11))
    done = await repo.finish_game(game.id, game.version, Outcome(Termination.RESIGN, Color.WHITE))
    with pytest.raises(InvalidStatusError):
        await repo.append_move(done.id, done.version, H8, Color.BLACK)
    with pytest.raises(InvalidStatusError):
        await repo.take_back(done.id, done.version)
    with pytest.raises(InvalidStatusError):
        await repo.finish_game(done.id, done.version, Outcome(Termination.DRAW, None))


async def test_winning_move_finishes_the_game_in_one_write(repo: GameRepository) -> None:
    game = await repo.create_game(new_game(deadline=START + timedelta(hours=1)))
    game = await play(repo, game, H8, I9)
    win = Outcome(Termination.FIVE, Color.BLACK)
    done = await repo.append_move(
        game.id, game.version, H9, Color.BLACK, deadline=START + timedelta(hours=2), outcome=win
    )
    assert (done.status, done.outcome, done.ply, done.deadline) == (
        GameStatus.FINISHED,
        win,
        3,
        None,
    )
    assert done.finished_at == done.updated_at
    assert await repo.open_game_in_channel(done.channel_id) is None
    assert await repo.open_games() == []


# --- takebacks ----------------------------------------------------------------------------


async def test_takeback_hides_moves_but_keeps_history(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    game = await play(repo, game, H8, I9, H9)
    game = await repo.take_back(game.id, game.version, 2)
    assert (game.ply, game.version, game.to_move) == (1, 5, Color.WHITE)
    assert [m.point for m in (await repo.load_game(game.id)).moves] == [H8]
    game = await play(repo, game, I10)  # a different move at the same ply
    snapshot = await repo.load_game(game.id)
    assert [(m.ply, m.point) for m in snapshot.moves] == [(0, H8), (1, I10)]
    history = await repo.move_history(game.id)
    assert [(m.ply, m.point) for m in history] == [(0, H8), (1, I9), (2, H9), (1, I10)]
    assert [m.seq for m in history] == [2, 3, 4, 6]


async def test_takeback_is_a_compare_and_set(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    game = await play(repo, game, H8, I9)
    results = await asyncio.gather(
        repo.take_back(game.id, game.version, 1),
        repo.append_move(game.id, game.version, H9, Color.BLACK),
        return_exceptions=True,
    )
    assert sum(isinstance(r, VersionConflictError) for r in results) == 1
    with pytest.raises(MoveOrderError) as caught:
        await repo.take_back(game.id, (await repo.get_game(game.id)).version, 5)
    assert caught.value.detail == "takeback"
    with pytest.raises(MoveOrderError):
        await repo.take_back(game.id, (await repo.get_game(game.id)).version, 0)


# --- challenges ---------------------------------------------------------------------------


async def test_challenge_accept(repo: GameRepository) -> None:
    expiry = START + timedelta(minutes=2)
    challenge = await repo.create_game(new_game(status=GameStatus.PENDING, deadline=expiry))
    assert challenge.status is GameStatus.PENDING
    assert challenge.created_by == ALICE
    assert await repo.open_games() == [challenge]
    first_turn = START + timedelta(minutes=10)
    game = await repo.accept_challenge(challenge.id, challenge.version, deadline=first_turn)
    assert (game.status, game.version, game.deadline) == (GameStatus.ACTIVE, 2, first_turn)
    with pytest.raises(InvalidStatusError):
        await repo.accept_challenge(game.id, game.version)
    with pytest.raises(VersionConflictError):
        await repo.accept_challenge(challenge.id, challenge.version)


@pytest.mark.parametrize("status", [GameStatus.DECLINED, GameStatus.CANCELLED, GameStatus.EXPIRED])
async def test_challenge_closes(repo: GameRepository, status: GameStatus) -> None:
    challenge = await repo.create_game(
        new_game(status=GameStatus.PENDING, deadline=START + timedelta(minutes=2))
    )
    closed = await repo.close_challenge(challenge.id, challenge.version, status)
    assert (closed.status, closed.outcome, closed.deadline) == (status, None, None)
    assert closed.finished_at is not None
    assert not closed.is_open
    assert await repo.open_game_in_channel(challenge.channel_id) is None
    assert await repo.user_games(ALICE) == []  # a challenge nobody played is not history


async def test_challenge_cannot_close_as_finished(repo: GameRepository) -> None:
    challenge = await repo.create_game(new_game(status=GameStatus.PENDING))
    with pytest.raises(ValueError, match="declined"):
        await repo.close_challenge(challenge.id, challenge.version, GameStatus.FINISHED)
    game = await repo.accept_challenge(challenge.id, challenge.version)
    with pytest.raises(InvalidStatusError):
        await repo.close_challenge(game.id, game.version, GameStatus.EXPIRED)


# --- deadlines, warnings, messages --------------------------------------------------------


async def test_due_deadlines(repo: GameRepository, clock: FakeClock) -> None:
    soon, later = START + timedelta(minutes=1), START + timedelta(minutes=5)
    a = await repo.create_game(new_game(10, deadline=later))
    b = await repo.create_game(new_game(11, status=GameStatus.PENDING, deadline=soon))
    await repo.create_game(new_game(12))  # no clock
    assert await repo.games_due(START) == []
    assert [g.id for g in await repo.games_due(soon)] == [b.id]
    assert [g.id for g in await repo.games_due(later + timedelta(days=1))] == [b.id, a.id]
    a = await repo.set_deadline(a.id, a.version, None)
    assert a.version == 2
    assert a.deadline is None
    assert [g.id for g in await repo.games_due(later)] == [b.id]
    await repo.close_challenge(b.id, b.version, GameStatus.EXPIRED)
    assert await repo.games_due(later) == []


async def test_warning_flag_belongs_to_one_turn(repo: GameRepository) -> None:
    game = await repo.create_game(new_game(deadline=START + timedelta(minutes=5)))
    await repo.mark_warning_sent(game.id, game.version)
    warned = await repo.get_game(game.id)
    assert warned.warning_sent
    assert warned.version == game.version
    moved = await repo.append_move(
        game.id, game.version, H8, Color.BLACK, deadline=START + timedelta(minutes=10)
    )
    assert not moved.warning_sent
    assert moved.deadline == START + timedelta(minutes=10)
    with pytest.raises(VersionConflictError):  # the old turn's warning is too late
        await repo.mark_warning_sent(game.id, game.version)
    assert not (await repo.get_game(game.id)).warning_sent


async def test_shifting_deadlines_moves_every_open_clock_and_keeps_the_turn(
    repo: GameRepository,
) -> None:
    turn, expiry = START + timedelta(minutes=5), START + timedelta(minutes=2)
    warned = await repo.create_game(new_game(10, deadline=turn))
    await repo.mark_warning_sent(warned.id, warned.version)
    challenge = await repo.create_game(new_game(11, status=GameStatus.PENDING, deadline=expiry))
    untimed = await repo.create_game(new_game(12))
    ended = await repo.create_game(new_game(13, deadline=turn))
    await repo.finish_game(ended.id, ended.version, Outcome(Termination.RESIGN, Color.BLACK))
    before = {g.id: g for g in [*await repo.open_games(), await repo.get_game(ended.id)]}

    assert await repo.shift_deadlines(timedelta(seconds=75, microseconds=5)) == 2

    after = {g.id: g for g in [*await repo.open_games(), await repo.get_game(ended.id)]}
    by = timedelta(seconds=75, microseconds=5)
    assert after[warned.id].deadline == turn + by
    assert after[challenge.id].deadline == expiry + by
    assert after[untimed.id].deadline is None
    assert after[ended.id].deadline is None
    # The turn is the same turn: versions, the warning flag and the rest stay as they were.
    assert {i: g.version for i, g in after.items()} == {i: g.version for i, g in before.items()}
    assert after[warned.id].warning_sent
    assert replace(after[warned.id], deadline=turn) == before[warned.id]
    await play(repo, warned, H8)  # a panel opened before the shift still writes
    # Only the games named (a process running some shards moves its own clocks).
    assert await repo.shift_deadlines(by, [challenge.id, ended.id, 999]) == 1
    assert (await repo.get_game(challenge.id)).deadline == expiry + 2 * by
    assert await repo.shift_deadlines(by, []) == 0


async def test_message_does_not_bump_the_version(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    await repo.set_message(game.id, channel_id=77, message_id=88)
    stored = await repo.get_game(game.id)
    assert (stored.message_channel_id, stored.message_id, stored.version) == (77, 88, 1)
    await play(repo, game, H8)  # the version the player saw still works


async def test_boards_behind_their_games_are_what_start_up_redraws(repo: GameRepository) -> None:
    a = await repo.create_game(new_game(10))
    b = await repo.create_game(new_game(11))
    c = await repo.create_game(new_game(12))
    assert [g.id for g in await repo.unshown_games()] == [a.id, b.id, c.id]  # none noted yet
    await repo.mark_shown({a.id: a.version, b.id: b.version, 999: 1})  # an unknown game: skipped
    assert [g.id for g in await repo.unshown_games()] == [c.id]
    a = await play(repo, a, H8)  # a move whose board was not (yet) drawn
    await repo.mark_shown({b.id: b.version - 1})  # an older version noted late changes nothing
    assert [g.id for g in await repo.unshown_games()] == [a.id, c.id]
    stored = await repo.get_game(b.id)
    assert stored.version == b.version  # noting does not bump the version
    await repo.finish_game(c.id, c.version, Outcome(Termination.TIMEOUT, Color.WHITE))
    await repo.mark_shown({a.id: a.version})
    assert await repo.unshown_games() == []  # a finished game has no board to catch up


async def test_open_games_are_what_to_resume(repo: GameRepository) -> None:
    a = await repo.create_game(new_game(10))
    b = await repo.create_game(new_game(11, status=GameStatus.PENDING))
    c = await repo.create_game(new_game(12))
    await repo.finish_game(c.id, c.version, Outcome(Termination.TIMEOUT, Color.WHITE))
    assert [g.id for g in await repo.open_games()] == [a.id, b.id]


# --- ratings and statistics ---------------------------------------------------------------


async def finish(
    repo: GameRepository,
    black: int,
    white: int,
    winner: Color | None,
    *,
    channel: int = 10,
    guild_id: int | None = GUILD,
    rated: bool = True,
    termination: Termination | None = None,
    kind: Game = Game.GOMOKU,
) -> GameRecord:
    game = await repo.create_game(
        new_game(
            channel,
            Player.human(black),
            Player.human(white),
            guild_id=guild_id,
            rated=rated,
            game=kind,
        )
    )
    termination = termination or (Termination.DRAW if winner is None else Termination.RESIGN)
    return await repo.finish_game(game.id, game.version, Outcome(termination, winner))


async def test_rated_win_updates_both_players(repo: GameRepository) -> None:
    game = await finish(repo, ALICE, BOB, Color.BLACK)
    alice = await repo.player_stats(ALICE)
    bob = await repo.player_stats(BOB)
    assert alice is not None
    assert bob is not None
    assert (alice.wins_black, alice.games, alice.streak, alice.best_streak) == (1, 1, 1, 1)
    assert (bob.losses_white, bob.games, bob.streak) == (1, 1, -1)
    assert alice.mu > 25 > bob.mu
    assert alice.ordinal > bob.ordinal
    assert alice.updated_at == game.finished_at
    in_guild = await repo.player_stats(ALICE, guild_id=GUILD)
    assert in_guild == replace(alice, guild_id=GUILD)
    assert await repo.player_stats(ALICE, Game.CONNECT4) is None  # per game kind
    assert await repo.player_stats(ALICE, guild_id=GUILD + 1) is None


async def test_winning_move_rates_in_the_same_write(repo: GameRepository) -> None:
    game = await repo.create_game(new_game(rated=True))
    await repo.append_move(
        game.id, 1, H8, Color.BLACK, outcome=Outcome(Termination.FIVE, Color.BLACK)
    )
    alice = await repo.player_stats(ALICE)
    assert alice is not None
    assert alice.wins == 1


@pytest.mark.parametrize(
    ("rated", "termination"),
    [(False, Termination.RESIGN), (True, Termination.ABANDONED)],
    ids=["unrated", "abandoned"],
)
async def test_games_that_do_not_count(
    repo: GameRepository, rated: bool, termination: Termination
) -> None:
    await finish(repo, ALICE, BOB, None, rated=rated, termination=termination)
    assert await repo.player_stats(ALICE) is None
    assert await repo.leaderboard() == []


async def test_draws_and_streaks(repo: GameRepository) -> None:
    await finish(repo, ALICE, BOB, Color.BLACK)
    await finish(repo, BOB, ALICE, Color.WHITE)
    await finish(repo, ALICE, BOB, Color.BLACK)
    alice = await repo.player_stats(ALICE)
    assert alice is not None
    assert (alice.wins_black, alice.wins_white, alice.streak, alice.best_streak) == (2, 1, 3, 3)
    await finish(repo, ALICE, BOB, None)
    alice = await repo.player_stats(ALICE)
    bob = await repo.player_stats(BOB)
    assert alice is not None
    assert bob is not None
    assert (alice.draws_black, alice.streak, alice.best_streak) == (1, 0, 3)
    assert (bob.draws_white, bob.losses, bob.streak, bob.games) == (1, 3, 0, 4)


async def test_leaderboards_per_guild_and_overall(repo: GameRepository) -> None:
    await finish(repo, ALICE, BOB, Color.BLACK, guild_id=GUILD)
    await finish(repo, ALICE, BOB, Color.BLACK, guild_id=GUILD)
    await finish(repo, CAROL, BOB, Color.BLACK, guild_id=GUILD + 1)
    overall = await repo.leaderboard()
    assert [s.user_id for s in overall] == [ALICE, CAROL, BOB]
    assert [s.ordinal for s in overall] == sorted((s.ordinal for s in overall), reverse=True)
    assert [s.user_id for s in await repo.leaderboard(guild_id=GUILD)] == [ALICE, BOB]
    assert [s.user_id for s in await repo.leaderboard(guild_id=GUILD + 1)] == [CAROL, BOB]
    assert [s.user_id for s in await repo.leaderboard(limit=1, offset=1)] == [CAROL]
    assert await repo.leaderboard(Game.TICTACTOE) == []
    bob_overall = next(s for s in overall if s.user_id == BOB)
    assert bob_overall.games == 3
    assert bob_overall.guild_id is None


async def test_equal_players_rank_by_user_id(repo: GameRepository) -> None:
    await finish(repo, BOB, ALICE, None)
    assert [s.user_id for s in await repo.leaderboard()] == [ALICE, BOB]


# --- history ------------------------------------------------------------------------------


async def test_history_is_paginated_newest_first(repo: GameRepository) -> None:
    ids = []
    for i in range(7):
        guild = GUILD if i % 2 == 0 else GUILD + 1
        black, white = (ALICE, BOB) if i % 3 else (CAROL, ALICE)
        ids.append((await finish(repo, black, white, Color.BLACK, guild_id=guild)).id)
    await repo.create_game(new_game(99))  # open: not history
    first = await repo.user_games(ALICE, limit=3)
    assert [g.id for g in first] == ids[::-1][:3]
    second = await repo.user_games(ALICE, limit=3, before_id=first[-1].id)
    assert [g.id for g in second] == ids[::-1][3:6]
    third = await repo.user_games(ALICE, limit=3, before_id=second[-1].id)
    assert [g.id for g in third] == ids[::-1][6:]
    in_guild = await repo.user_games(ALICE, guild_id=GUILD)
    assert [g.id for g in in_guild] == [ids[6], ids[4], ids[2], ids[0]]
    assert [g.id for g in await repo.user_games(BOB)] == [ids[5], ids[4], ids[2], ids[1]]


# --- deleting a user ----------------------------------------------------------------------


async def test_delete_user_data(repo: GameRepository) -> None:
    old = await finish(repo, ALICE, BOB, Color.BLACK)
    open_game = await repo.create_game(new_game(11, Player.human(BOB), Player.human(ALICE)))
    challenge = await repo.create_game(new_game(12, status=GameStatus.PENDING))
    bystander = await repo.create_game(new_game(13, Player.human(BOB), Player.human(CAROL)))
    assert await repo.delete_user_data(ALICE) == 3
    assert await repo.player_stats(ALICE) is None
    assert await repo.player_stats(ALICE, guild_id=GUILD) is None
    bob = await repo.player_stats(BOB)
    assert bob is not None
    assert bob.losses == 1
    assert [s.user_id for s in await repo.leaderboard()] == [BOB]
    old_now = await repo.get_game(old.id)
    assert old_now.black == Player.DELETED
    assert old_now.black.is_deleted
    assert old_now.white == Player.human(BOB)
    assert old_now.created_by is None
    abandoned = await repo.get_game(open_game.id)
    assert abandoned.status is GameStatus.FINISHED
    assert abandoned.outcome == Outcome(Termination.ABANDONED, None)
    assert abandoned.white == Player.DELETED
    assert (await repo.get_game(challenge.id)).status is GameStatus.CANCELLED
    assert await repo.get_game(bystander.id) == bystander
    assert await repo.user_games(ALICE) == []
    assert await repo.delete_user_data(ALICE) == 0


# --- guild settings -----------------------------------------------------------------------


async def test_guild_settings_round_trip(repo: GameRepository) -> None:
    assert await repo.guild_settings(GUILD) == GuildSettings(GUILD)
    settings = GuildSettings(
        GUILD,
        default_rule=Rule.RENJU,
        turn_seconds=120,
        board_style="text",
        allowed_channel_ids=frozenset({3, 1, 2}),
    )
    await repo.save_guild_settings(settings)
    assert await repo.guild_settings(GUILD) == settings
    assert (await repo.guild_settings(GUILD)).allows(2)
    assert not (await repo.guild_settings(GUILD)).allows(4)
    narrower = replace(settings, allowed_channel_ids=frozenset({2}), turn_seconds=None)
    await repo.save_guild_settings(narrower)
    assert await repo.guild_settings(GUILD) == narrower
    assert await repo.guild_settings(GUILD + 1) == GuildSettings(GUILD + 1)


async def test_rated_opening_setting_round_trip(repo: GameRepository) -> None:
    settings = GuildSettings(GUILD, rated_opening="swap2")
    await repo.save_guild_settings(settings)
    assert await repo.guild_settings(GUILD) == settings
    await repo.save_guild_settings(replace(settings, rated_opening=None))
    assert (await repo.guild_settings(GUILD)).rated_opening is None


# --- opening rules ------------------------------------------------------------------------


async def test_a_game_without_an_opening_rule_has_none(repo: GameRepository) -> None:
    game = await repo.create_game(new_game())
    assert await repo.game_opening(game.id) is None
    with pytest.raises(ValueError, match="no opening"):
        await repo.record_opening_step(
            game.id, game.version, "0:black", black=game.black, white=game.white
        )
    assert await repo.get_game(game.id) == game
    with pytest.raises(GameNotFoundError):
        await repo.game_opening(999)


async def test_opening_steps_swap_seats_in_one_compare_and_set(
    repo: GameRepository, clock: FakeClock
) -> None:
    game = await repo.create_game(replace(new_game(), opening="swap2"))
    opening = await repo.game_opening(game.id)
    assert opening is not None
    assert (opening.rule, opening.steps) == ("swap2", ())
    game = await play(repo, game, H8, I9, H9)
    deadline = START + timedelta(minutes=5)
    swapped = await repo.record_opening_step(
        game.id, game.version, "3:black", black=game.white, white=game.black, deadline=deadline
    )
    assert (swapped.black, swapped.white) == (Player.human(BOB), Player.human(ALICE))
    assert swapped.version == game.version + 1
    assert swapped.deadline == deadline
    assert swapped.ply == 3
    opening = await repo.game_opening(game.id)
    assert opening is not None
    assert opening.steps == ("3:black",)
    # a stale version changes nothing
    with pytest.raises(VersionConflictError):
        await repo.record_opening_step(
            game.id, game.version, "3:white", black=game.black, white=game.white
        )
    assert await repo.game_opening(game.id) == opening
    assert await repo.get_game(game.id) == swapped
    # still the stored colours: the next stone is White's
    after = await repo.append_move(swapped.id, swapped.version, I10, Color.WHITE)
    assert after.ply == 4


async def test_opening_steps_need_an_active_game(repo: GameRepository) -> None:
    game = await repo.create_game(
        replace(new_game(status=GameStatus.PENDING), opening="soosorv8", rule=Rule.RENJU)
    )
    with pytest.raises(InvalidStatusError):
        await repo.record_opening_step(
            game.id, game.version, "0:black", black=game.black, white=game.white
        )
