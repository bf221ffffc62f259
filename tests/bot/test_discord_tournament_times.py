"""Tournaments' times through the fake Discord: a start time set with ``starts`` (the runner's
clock starts the tournament, or cancels it for want of players, and the channel is told), a
correspondence time control set with ``days`` (each board's game has days per move, a
warning 12 hours before the end of a turn, and a forfeit by the clock), and an arena, which
pairs players as they finish for its ``minutes`` and ends by the clock."""

from __future__ import annotations

import re
from datetime import UTC, timedelta

from bot.client import GomokuBot
from storage.club import Result, TournamentStatus
from tests.bot.test_discord_tournaments import _board_threads, _play, _posted, _table, club, start
from tests.clock import FakeClock
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.fakediscord.model import Message

HOUR = timedelta(hours=1)


def _said(fake: FakeDiscord, start: str) -> list[Message]:
    return _posted(fake, fake.default_channel, start)


async def test_start_times_are_read_refused_shown_and_kept_by_the_runners_clock(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock
) -> None:
    organiser, players, _ = club(fake, "ann", "ben", "cat")
    ann, ben, cat = players.values()
    at = int((clock.now + HOUR).timestamp())

    # Unreadable, past, too far ahead, and both seconds and days: each refused privately,
    # and no tournament is made.
    refusals = {
        "tomorrow evening": "Give the start time in UTC, like 2026-05-01 18:00",
        "<t:12345678901234567890>": "Give the start time in UTC",
        (clock.now - HOUR).strftime("%Y-%m-%d %H:%M"): "That start time has passed",
        f"<t:{at - 2 * 3600}:R>": "That start time has passed",
        f"<t:{at + 400 * 24 * 3600}>": "A tournament starts within a year",
    }
    for starts, sentence in refusals.items():
        refused = await fake.slash(
            "gomoku-admin tournament create",
            user=organiser,
            options={"name": "Nope", "format": "swiss", "starts": starts},
        )
        assert refused.ephemeral, starts
        assert refused.content.startswith(sentence), (starts, refused.content)
    both = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Nope", "format": "swiss", "seconds": 60, "days": 2},
    )
    assert both.ephemeral
    assert both.content == "Give the time per move in seconds or in days, not both."
    assert await bot.service.repository.live_tournaments() == []

    # A Discord timestamp, and an ISO 8601 time in UTC a minute later.
    evening = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Evening", "format": "swiss", "rounds": 1, "starts": f"<t:{at}:f>"},
    )
    iso = (clock.now + HOUR + timedelta(minutes=1)).astimezone(UTC)
    lonely = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Lonely", "format": "swiss", "starts": iso.strftime("%Y-%m-%dT%H:%MZ")},
    )
    assert evening.message is not None
    assert lonely.message is not None
    assert f"Starts <t:{at}:F> (<t:{at}:R>)." in evening.content.splitlines()
    lonely_at = int(iso.replace(second=0, microsecond=0).timestamp())
    assert f"Starts <t:{lonely_at}:F> (<t:{lonely_at}:R>)." in lonely.content.splitlines()
    for user in (ann, ben):
        await fake.click(evening.message, "gomoku:tournament:1:join", user=user)
    await fake.click(lonely.message, "gomoku:tournament:2:join", user=cat)

    # The runner's clock passes without starting either before its time.
    await bot.runner.passed(2)
    assert _said(fake, "**Evening** has started") == []
    assert _board_threads(fake, 1) == []

    clock.advance(hours=1, minutes=2)
    bot.runner.wake()
    await fake.wait_for(lambda: len(_said(fake, "**Lonely** is cancelled")) == 1)
    await fake.wait_for(lambda: len(_board_threads(fake, 1)) == 1)
    (started,) = _said(fake, "**Evening** has started with 2 players: round 1 is paired.")
    (cancelled,) = _said(fake, "**Lonely** is cancelled")
    assert cancelled.content == (
        "**Lonely** is cancelled: its start time came with 1 player, and it needs two."
    )
    # The start is told before the first board's line, and neither pinged anyone.
    (board_line,) = _said(fake, "Evening, round 1, board 1:")
    assert started.id < board_line.id
    for told in (started, cancelled):
        assert told.allowed_mentions is not None
        assert told.allowed_mentions.get("parse") == []
    repository = bot.service.repository
    assert (await repository.tournament(1)).status is TournamentStatus.RUNNING
    assert (await repository.tournament(2)).status is TournamentStatus.CANCELLED
    # Later passes start nothing again.
    await bot.runner.passed(2)
    assert len(_said(fake, "**Evening** has started")) == 1
    assert len(await repository.pairings(1)) == 1


async def test_a_correspondence_tournament_warns_12_hours_ahead_and_forfeits_by_the_clock(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock
) -> None:
    organiser, players, by_id = club(fake, "ann", "ben", "cat", "dan")
    # The server ends games idle for a day: a correspondence game's clock still decides.
    await fake.slash("gomoku-admin settings", user=organiser, options={"idle_hours": 24})
    created = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Letters", "format": "swiss", "rounds": 1, "days": 3},
    )
    assert created.message is not None
    assert "1 round · 3 days per move" in created.content.splitlines()
    for user in players.values():
        await fake.click(created.message, "gomoku:tournament:1:join", user=user)
    await start(fake, organiser)
    await fake.wait_for(lambda: len(_board_threads(fake, 1)) == 2)
    played, idle = _board_threads(fake, 1)
    games = [await bot.service.board(thread.id) for thread in (played, idle)]
    for game in games:
        assert game.record.turn_seconds == 3 * 24 * 3600
    assert fake.channel_messages(played)[0].content.endswith("Play with /place; 3 days per move.")
    deadline = games[1].record.deadline
    assert deadline is not None
    opened = deadline - timedelta(days=3)  # Black's first turn: three days from the opening
    assert abs(opened - games[1].record.created_at) < timedelta(seconds=1)

    # One board is played through, two days after the start (within its three).
    black, white = (by_id[u or 0] for u in (games[0].black.user_id, games[0].white.user_id))
    clock.now = opened + timedelta(days=2)
    await _play(fake, played, black, white, white)

    # On the other, Black never moves. Two days and eleven hours on: no warning yet.
    late = by_id[games[1].black.user_id or 0]
    patient = by_id[games[1].white.user_id or 0]

    def warnings() -> list[Message]:
        return [
            m
            for m in fake.channel_messages(idle)
            if m.content.startswith(f"<@{late.id}>, it is your move")
        ]

    clock.now = opened + timedelta(days=2, hours=11)
    bot.runner.wake()
    await bot.runner.passed(2)
    assert not (await bot.service.repository.get_game(games[1].game_id)).warning_sent
    assert warnings() == []
    # Twelve hours before the end of the turn: one warning, naming the deadline.
    clock.now = opened + timedelta(days=2, hours=12, minutes=1)
    bot.runner.wake()
    await fake.wait_for(lambda: len(warnings()) == 1)
    assert f"<t:{int(deadline.timestamp())}:R>" in warnings()[0].content
    # The turn's end: White wins by forfeit, and the final standings follow.
    clock.now = deadline + timedelta(minutes=1)
    bot.runner.wake()
    heading = "**Letters** is over. Final standings:"
    await fake.wait_for(lambda: len(_said(fake, heading)) == 1)
    assert len(warnings()) == 1
    results = {p.game_id: p.result for p in await bot.service.repository.pairings(1)}
    assert results == {
        games[0].game_id: Result.WHITE_WINS,
        games[1].game_id: Result.WHITE_WINS_BY_FORFEIT,
    }
    (final,) = _said(fake, heading)
    assert final.content.splitlines()[1] == "Swiss · 3 days per move"
    shown = [int(u) for u in re.findall(r"^\d+\. <@(\d+)>$", final.content, flags=re.M)]
    assert set(shown[:2]) == {white.id, patient.id}
    assert [row[1] for row in _table(final.content)] == ["1", "1", "0", "0"]


async def test_an_arena_pairs_players_as_they_finish_and_ends_with_its_time(
    fake: FakeDiscord, bot: GomokuBot, clock: FakeClock
) -> None:
    organiser, players, by_id = club(fake, "ann", "ben", "cat")
    ben = players["ben"]
    no_minutes = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Nope", "format": "swiss", "minutes": 30},
    )
    assert no_minutes.ephemeral
    assert no_minutes.content == "Minutes are an arena's length: the other formats play rounds."
    created = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Blitz", "format": "arena", "minutes": 30, "seconds": 3600},
    )
    assert created.message is not None
    lines = created.content.splitlines()
    assert lines[0] == "**Blitz** (tournament 1): an arena of Gomoku."
    assert lines[1] == "30 minutes · 3600 s per move"
    assert lines[2].startswith("Press Join to play: from the start you are paired again")
    for user in players.values():
        joined = await fake.click(created.message, "gomoku:tournament:1:join", user=user)
        assert joined.content.startswith(
            "You are in **Blitz**. Until it ends you are paired again whenever your game ends"
        )
    before = clock()
    started = await start(fake, organiser)
    repository = bot.service.repository
    # An arena speaks of its end and its games' numbers, not of rounds.
    (first_pass,) = (await repository.rounds(1))[:1]
    assert first_pass.deadline is not None
    # the clock follows the real time: the end is 30 minutes after the start, which lies
    # between the two readings
    assert before + timedelta(minutes=30) <= first_pass.deadline
    assert first_pass.deadline <= clock() + timedelta(minutes=30)
    ends = int(first_pass.deadline.timestamp())
    assert started.content == (
        f"**Blitz** has started with 3 players: the first games are paired. It ends <t:{ends}:R>."
    )
    asked = await fake.click(created.message, "gomoku:tournament:1:standings", user=ben)
    assert asked.content.startswith(f"**Blitz**: standings so far; it ends <t:{ends}:R>\n")

    def games(number: int) -> list[FakeChannel]:
        return [
            c
            for c in fake.channels.values()
            if c.is_thread
            and c.name == f"Blitz · game {number}"
            and any(m.embeds for m in fake.channel_messages(c))  # its board is drawn
        ]

    async def next_game(number: int) -> tuple[FakeChannel, FakeUser, FakeUser]:
        """The arena's ``number``th game (one at a time: the third player waits)."""
        await fake.wait_for(lambda: len(games(number)) == 1)
        (thread,) = games(number)
        game = await bot.service.board(thread.id)
        black, white = by_id[game.black.user_id or 0], by_id[game.white.user_id or 0]
        line = f"Blitz, game {number}: <@{black.id}> (black) vs <@{white.id}>."
        assert len(_said(fake, line)) == 1
        return thread, black, white

    # Ben wins three games in a row; each time the two free players nearest in the arena's
    # ranking are paired at once, never the opponent of one's last game again.
    for number in (1, 2, 3):
        thread, black, white = await next_game(number)
        await _play(fake, thread, black, white, ben)
    # A fourth game starts and is under way when the time is up.
    thread, black, white = await next_game(4)
    first = await fake.slash("place", user=black, channel=thread, options={"cell": "h8"})
    assert "played **" in first.content
    clock.advance(minutes=31)
    bot.runner.wake()
    heading = "**Blitz** is over. Final standings:"
    await fake.wait_for(lambda: len(_said(fake, heading)) == 1)
    (final,) = _said(fake, heading)
    assert final.content.splitlines()[1] == "arena · 3600 s per move"
    assert final.content.split("```")[1].strip().splitlines()[0].split() == ["#", "Pts", "Wins"]
    # By hand: Ben 2 (a win) + 2 (a second: now on fire) + 2x2 (a win on fire) = 8 points,
    # 3 wins; Ann and Cat 0 points, 0 wins: tied, listed by pairing number (Ann joined first).
    order = [by_id[int(u)].name for u in re.findall(r"^\d+\. <@(\d+)>$", final.content, re.M)]
    assert order == ["ben", "ann", "cat"]
    assert _table(final.content) == [
        ["1", "8", "3", "(1)"],
        ["2", "0", "0", "(2)"],
        ["2", "0", "0", "(3)"],
    ]
    assert (await repository.tournament(1)).status is TournamentStatus.FINISHED
    # The game under way is played out, but counts for nothing, and nobody is paired again.
    game_id = (await bot.service.board(thread.id)).game_id
    confirm = await fake.slash("gomoku resign", user=black, channel=thread)
    assert confirm.message is not None
    await fake.click(confirm.message, f"gomoku:{game_id}:resign", user=black)
    assert (await bot.service.game(game_id)).is_over
    await bot.service.tournaments_settled()
    pairings = await repository.pairings(1)
    assert [(p.round, by_id[p.black].name, p.white and by_id[p.white].name) for p in pairings] == [
        (1, "ben", "ann"),
        (2, "cat", "ben"),
        (3, "ann", "ben"),
        (4, "ben", "cat"),
    ]
    assert [p.result for p in pairings] == [
        Result.BLACK_WINS,
        Result.WHITE_WINS,
        Result.WHITE_WINS,
        None,
    ]
    asked = await fake.click(created.message, "gomoku:tournament:1:standings", user=ben)
    assert _table(asked.content) == _table(final.content)
