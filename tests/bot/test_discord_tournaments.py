"""Tournaments in Discord, through the real discord.py against the fake Discord: an organiser
creates one, members join with its button, each board opens in a thread where its players are
pinged and play with their own ``/place``, and the standings are posted after every round."""

from __future__ import annotations

import asyncio
import functools
import re
from datetime import timedelta

from bot.client import GomokuBot
from bot.club import tournament_message
from bot.core.club.pairer import RoundPairer
from bot.core.club.tournament import RoundPlan
from storage.club import Entrant, Format, Pairing, Result, Tournament, TournamentStatus
from tests.bot.conftest import BotFactory
from tests.clock import START, FakeClock
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.fakediscord.model import InteractionRecord, Message

# Black's stones that never line up, and White's five in a column.
_SCATTERED = ("a1", "c1", "e1", "g1", "i1")
_FIVE = ("h8", "h9", "h10", "h11", "h12")


def club(
    fake: FakeDiscord, *names: str
) -> tuple[FakeUser, dict[str, FakeUser], dict[int, FakeUser]]:
    """The default channel, where the bot may open threads, an organiser (an admin), and
    members by ``names``: the organiser, the members by name and by id."""
    fake.allow(fake.default_channel, "create_public_threads")
    organiser = fake.add_user("olga", admin=True)
    players = {name: fake.add_user(name) for name in names}
    return organiser, players, {user.id: user for user in players.values()}


def _board_threads(fake: FakeDiscord, round_: int) -> list[FakeChannel]:
    return [
        c
        for c in fake.channels.values()
        if c.is_thread
        and f"· round {round_} · board" in c.name
        and any(m.embeds for m in fake.channel_messages(c))  # its board is drawn
    ]


def _posted(fake: FakeDiscord, channel: FakeChannel, start: str) -> list[Message]:
    return [m for m in fake.channel_messages(channel) if m.content.startswith(start)]


def _boards_open(fake: FakeDiscord, round_: int, boards: int = 2) -> bool:
    return len(_board_threads(fake, round_)) == boards


def _posted_once(fake: FakeDiscord, channel: FakeChannel, start: str) -> bool:
    return len(_posted(fake, channel, start)) == 1


async def _play(
    fake: FakeDiscord, thread: FakeChannel, black: FakeUser, white: FakeUser, winner: FakeUser
) -> None:
    """Black and White take turns with /place in ``thread`` until ``winner`` has five."""
    if winner is black:
        black_cells, white_cells = _FIVE, _SCATTERED
    else:
        black_cells, white_cells = _SCATTERED, _FIVE
    for index in range(5):
        for user, cells in ((black, black_cells), (white, white_cells)):
            reply = await fake.slash(
                "place", user=user, channel=thread, options={"cell": cells[index]}
            )
            assert "played **" in reply.content, reply.content
            if user is winner and index == 4:
                return


async def start(fake: FakeDiscord, organiser: FakeUser, tournament_id: int = 1) -> Message:
    """``/gomoku-admin tournament start``: acknowledged privately at once ("thinking..."),
    then the announcement posted in the channel and the private placeholder removed. The
    announcement."""
    channel = fake.default_channel
    before = len(fake.channel_messages(channel))
    record = await fake.send_slash(
        "gomoku-admin tournament start", user=organiser, options={"id": tournament_id}
    )
    await fake.wait_for(lambda: record.original is not None and record.original.deleted)
    assert record.callback_type == 5  # deferred, "thinking..."
    assert record.original is not None
    assert record.original.ephemeral
    (posted,) = [
        m for m in fake.channel_messages(channel)[before:] if "has started with" in m.content
    ]
    return posted


def _table(text: str) -> list[list[str]]:
    """The rows of a posted standings table, its heading left out."""
    block = text.split("```")[1].strip().splitlines()
    return [row.split() for row in block[1:]]


async def test_a_round_robin_of_four_played_in_threads_with_standings_after_each_round(
    fake: FakeDiscord, bot: GomokuBot
) -> None:
    general = fake.default_channel
    organiser, players, by_id = club(fake, "ann", "ben", "cat", "dan")
    # Who beats whom (hand-chosen so that direct encounter and Sonneborn-Berger both decide).
    beats = {("ann", "ben"), ("ben", "cat"), ("cat", "ann"), ("ann", "dan"), ("ben", "dan")}
    beats |= {("dan", "cat")}

    created = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Autumn *Cup*", "format": "round_robin", "seconds": 600},
    )
    assert created.message is not None
    assert "**Autumn Cup** (tournament 1): a round-robin tournament of Gomoku." in created.content
    buttons = created.message.custom_ids()
    assert buttons == [f"gomoku:tournament:1:{a}" for a in ("join", "leave", "standings")]
    # A member may not organise.
    refused = await fake.slash(
        "gomoku-admin tournament start", user=players["ann"], options={"id": 1}
    )
    assert refused.ephemeral
    assert "Manage Server" in refused.content
    # Too few players to start; then all four join with the button (one twice: refused).
    lonely = await fake.slash("gomoku-admin tournament start", user=organiser, options={"id": 1})
    assert "at least two players" in lonely.content
    for user in players.values():
        joined = await fake.click(created.message, "gomoku:tournament:1:join", user=user)
        assert joined.ephemeral
        assert "You are in **Autumn Cup**" in joined.content
    again = await fake.click(created.message, "gomoku:tournament:1:join", user=players["ann"])
    assert "in this tournament already" in again.content

    started = await start(fake, organiser)
    assert "**Autumn Cup** has started with 4 players" in started.content
    points = dict.fromkeys(players, 0)
    for round_ in (1, 2, 3):
        await fake.wait_for(functools.partial(_boards_open, fake, round_))
        for thread in _board_threads(fake, round_):
            game = await bot.service.board(thread.id)
            assert game.black.user_id is not None
            assert game.white.user_id is not None
            black, white = by_id[game.black.user_id], by_id[game.white.user_id]
            ping = fake.channel_messages(thread)[0]
            assert ping.content.startswith(f"<@{black.id}> (black, to move) and <@{white.id}>")
            winner = black if (black.name, white.name) in beats else white
            await _play(fake, thread, black, white, winner)
            points[winner.name] += 1
            # The game over, its thread is archived like any game's.
            await fake.wait_for(functools.partial(lambda t: t.archived, thread))
        heading = (
            "**Autumn Cup** is over. Final standings:"
            if round_ == 3
            else f"**Autumn Cup**: standings after round {round_}"
        )
        await fake.wait_for(functools.partial(_posted_once, fake, general, heading))
        (posted,) = _posted(fake, general, heading)
        mentions = re.findall(r"^\d+\. <@(\d+)>$", posted.content, flags=re.M)
        shown = {
            by_id[int(user_id)].name: float(row[1])
            for user_id, row in zip(mentions, _table(posted.content), strict=True)
        }
        assert shown == points
    # Final, by hand: Ann and Ben 2 points, Ann first on direct encounter; Dan and Cat 1,
    # Dan first on direct encounter though Cat's Sonneborn-Berger (2: Ann's 2) beats Dan's
    # (1: Cat's 1). Columns: rank, points, DE, SB, wins, line number.
    (final,) = _posted(fake, general, "**Autumn Cup** is over.")
    assert _table(final.content) == [
        ["1", "2", "1", "3", "2", "(1)"],
        ["2", "2", "0", "2", "2", "(2)"],
        ["3", "1", "1", "1", "1", "(3)"],
        ["4", "1", "0", "2", "1", "(4)"],
    ]
    order = re.findall(r"^\d+\. <@(\d+)>$", final.content, flags=re.M)
    assert [by_id[int(u)].name for u in order] == ["ann", "ben", "dan", "cat"]
    assert (await bot.service.repository.tournament(1)).status is TournamentStatus.FINISHED
    # Standings stay one button away, privately.
    asked = await fake.click(created.message, "gomoku:tournament:1:standings", user=players["cat"])
    assert asked.ephemeral
    assert _table(asked.content) == _table(final.content)
    # Cat asks to be forgotten: the standings stand, her line names a deleted user.
    await bot.service.forget_user(players["cat"].id)
    after = await fake.click(created.message, "gomoku:tournament:1:standings", user=players["ann"])
    assert _table(after.content) == _table(final.content)
    assert str(players["cat"].id) not in after.content
    assert re.findall(r"^4\. (.+)$", after.content, flags=re.M) == ["deleted user"]


async def test_a_swiss_of_seven_over_three_rounds_with_a_forfeit_a_restart_and_a_withdrawal(
    fake: FakeDiscord, make_bot: BotFactory, clock: FakeClock
) -> None:
    general = fake.default_channel
    names = ("ann", "ben", "cat", "dan", "eve", "fay", "gus")
    organiser, players, by_id = club(fake, *names)
    points = dict.fromkeys(names, 0)

    async def round_of(bot: GomokuBot, round_: int) -> list[tuple[FakeChannel, int, int, int]]:
        """The round's three boards (thread, game, black, white), after checking its bye."""
        await fake.wait_for(functools.partial(_boards_open, fake, round_, 3))
        pairings = [p for p in await bot.service.repository.pairings(1) if p.round == round_]
        (bye,) = [p for p in pairings if p.white is None]
        points[by_id[bye.black].name] += 1
        boards = []
        for thread in _board_threads(fake, round_):
            game = await bot.service.board(thread.id)
            assert game.black.user_id is not None
            assert game.white.user_id is not None
            boards.append((thread, game.game_id, game.black.user_id, game.white.user_id))
        return boards

    async def black_wins(board: tuple[FakeChannel, int, int, int]) -> None:
        thread, _, black, white = board
        await _play(fake, thread, by_id[black], by_id[white], by_id[black])
        points[by_id[black].name] += 1

    async def standings_after(heading: str, by_hand: list[tuple[str, ...]]) -> None:
        """The posted standings: points as counted here, and every line as worked out by
        hand in ``by_hand`` (name, rank, points, BH-C1, BH, SB, DE)."""
        await fake.wait_for(functools.partial(_posted_once, fake, general, heading))
        (posted,) = _posted(fake, general, heading)
        mentions = re.findall(r"^\d+\. <@(\d+)>$", posted.content, flags=re.M)
        rows = _table(posted.content)
        shown = {by_id[int(u)].name: float(row[1]) for u, row in zip(mentions, rows, strict=True)}
        assert shown == points
        lines = [(by_id[int(u)].name, *row[:-1]) for u, row in zip(mentions, rows, strict=True)]
        assert lines == by_hand

    first = make_bot()
    async with fake.running(first):
        created = await fake.slash(
            "gomoku-admin tournament create",
            user=organiser,
            options={"name": "Swiss", "format": "swiss", "rounds": 3, "seconds": 60},
        )
        assert created.message is not None
        assert "a Swiss tournament of Gomoku" in created.content
        for user in players.values():
            await fake.click(created.message, "gomoku:tournament:1:join", user=user)
        await start(fake, organiser)
        for board in await round_of(first, 1):
            await black_wins(board)
        # Round 1: Ann beat Dan, Ben beat Eve, Cat beat Fay (Black each time); Gus had the
        # bye. Unplayed rounds (FIDE C.07 Art. 16): in a player's own BH and SB a dummy
        # opponent with the player's own points; in the points others add up, the bye and a
        # forfeit win as scored, a forfeit loss as a draw. SB: each round's BH part times
        # the points scored then. DE: 0 wherever the tied players have not all met.
        # Ann: BH = Dan 0 = 0; C1 = 0 - 0 = 0; SB = 0x1 = 0 (Ben, Cat the same).
        # Gus: BH = dummy 1 = 1; C1 = 1 - 1 = 0; SB = 1x1 = 1: first on BH.
        # Dan: BH = Ann 1 = 1; C1 = 0; SB = 1x0 = 0 (Eve, Fay the same).
        await standings_after(
            "**Swiss**: standings after round 1",
            [
                ("gus", "1", "1", "0", "1", "1", "0"),
                ("ann", "2", "1", "0", "0", "0", "0"),
                ("ben", "2", "1", "0", "0", "0", "0"),
                ("cat", "2", "1", "0", "0", "0", "0"),
                ("dan", "5", "0", "0", "1", "0", "0"),
                ("eve", "5", "0", "0", "1", "0", "0"),
                ("fay", "5", "0", "0", "1", "0", "0"),
            ],
        )
        boards = await round_of(first, 2)
        await black_wins(boards[0])
    # The bot restarts in the middle of round 2: one board has its result, two are open.
    second = make_bot()
    async with fake.running(second):
        await black_wins(boards[1])
        # The last board's Black never moves: White wins by forfeit when the clock runs out.
        _, game_id, _, white = boards[2]
        clock.advance(seconds=61)
        second.runner.wake()
        points[by_id[white].name] += 1
        # Round 2 as paired: Cat beat Ann, Gus beat Ben, Eve won by forfeit over Dan, Fay had
        # the bye. Points: Cat 2, Gus 2, Ann 1, Ben 1, Eve 1, Fay 1, Dan 0. Points for the
        # others' sums: Dan 0 + 0.5 (forfeit loss) = 0.5, Eve 0 + 1 (forfeit win) = 1,
        # Fay 0 + 1 (bye) = 1, the rest their points.
        # Gus: BH = dummy 2 + Ben 1 = 3; C1 = 3 - 1 = 2; SB = 2x1 + 1x1 = 3.
        # Cat: BH = Fay 1 + Ann 1 = 2; C1 = 2 - 1 = 1; SB = 1x1 + 1x1 = 2.
        # Ben: BH = Eve 1 + Gus 2 = 3; C1 = 3 - 1 = 2; SB = 1x1 + 2x0 = 1.
        # Fay: BH = Cat 2 + dummy 1 = 3; C1 = 3 - 1 = 2; SB = 2x0 + 1x1 = 1 (tied with Ben).
        # Ann: BH = Dan 0.5 + Cat 2 = 2.5; C1 = 2.5 - 0.5 = 2; SB = 0.5x1 + 2x0 = 0.5.
        # Eve: BH = Ben 1 + dummy 1 = 2; C1 = 2 - 1 = 1; SB = 1x0 + 1x1 = 1.
        # Dan: BH = Ann 1 + dummy 0 = 1; C1 = 1 - 0 = 1; SB = 1x0 + 0x0 = 0.
        await standings_after(
            "**Swiss**: standings after round 2",
            [
                ("gus", "1", "2", "2", "3", "3", "0"),
                ("cat", "2", "2", "1", "2", "2", "0"),
                ("ben", "3", "1", "2", "3", "1", "0"),
                ("fay", "3", "1", "2", "3", "1", "0"),
                ("ann", "5", "1", "2", "2.5", "0.5", "0"),
                ("eve", "6", "1", "1", "2", "1", "0"),
                ("dan", "7", "0", "1", "1", "0", "0"),
            ],
        )
        pairing = await second.service.repository.pairing_by_game(game_id)
        assert pairing is not None
        assert pairing.result is Result.WHITE_WINS_BY_FORFEIT
        # Round 3: a player withdraws with Leave; their game is resigned, the others play.
        third = await round_of(second, 3)
        _, game_id, black, white = third[0]
        gone = await fake.click(created.message, "gomoku:tournament:1:leave", user=by_id[black])
        assert "You left **Swiss**" in gone.content
        points[by_id[white].name] += 1
        for board in third[1:]:
            await black_wins(board)
        # Round 3 as paired: Gus withdrew and his game against Cat was resigned (played: a
        # loss), Eve beat Ann, Fay beat Ben, Dan had the bye. Points: Cat 3, Eve 2, Fay 2,
        # Gus 2, Ann 1, Ben 1, Dan 1. Points for the others' sums: Dan 0 + 0.5 + 1 = 1.5,
        # the rest their points.
        # Cat: BH = Fay 2 + Ann 1 + Gus 2 = 5; C1 = 5 - 1 = 4; SB = 2x1 + 1x1 + 2x1 = 5.
        # Fay: BH = Cat 3 + dummy 2 + Ben 1 = 6; C1 = 6 - 1 = 5; SB = 0 + 2x1 + 1x1 = 3.
        # Gus: BH = dummy 2 + Ben 1 + Cat 3 = 6; C1 = 6 - 1 = 5; SB = 2x1 + 1x1 + 0 = 3
        # (tied with Fay on all four: they have not met).
        # Eve: BH = Ben 1 + dummy 2 + Ann 1 = 4; C1 = 4 - 1 = 3; SB = 0 + 2x1 + 1x1 = 3.
        # Ann: BH = Dan 1.5 + Cat 3 + Eve 2 = 6.5; C1 = 6.5 - 1.5 = 5; SB = 1.5x1 = 1.5.
        # Ben: BH = Eve 2 + Gus 2 + Fay 2 = 6; C1 = 6 - 2 = 4; SB = 2x1 = 2.
        # Dan: BH = Ann 1 + dummy 1 + dummy 1 = 3; C1 = 3 - 1 = 2; SB = 0 + 0 + 1x1 = 1.
        await standings_after(
            "**Swiss** is over. Final standings:",
            [
                ("cat", "1", "3", "4", "5", "5", "0"),
                ("fay", "2", "2", "5", "6", "3", "0"),
                ("gus", "2", "2", "5", "6", "3", "0"),
                ("eve", "4", "2", "3", "4", "3", "0"),
                ("ann", "5", "1", "5", "6.5", "1.5", "0"),
                ("ben", "6", "1", "4", "6", "2", "0"),
                ("dan", "7", "1", "2", "3", "1", "0"),
            ],
        )
        assert (await second.service.repository.tournament(1)).status is TournamentStatus.FINISHED
        pairings = await second.service.repository.pairings(1)
        # The pairings the tiebreaks above were worked out from (Black first, then White).
        assert [
            (p.round, by_id[p.black].name, p.white and by_id[p.white].name, p.result)
            for p in pairings
        ] == [
            (1, "ann", "dan", Result.BLACK_WINS),
            (1, "ben", "eve", Result.BLACK_WINS),
            (1, "cat", "fay", Result.BLACK_WINS),
            (1, "gus", None, Result.BYE),
            (2, "cat", "ann", Result.BLACK_WINS),
            (2, "gus", "ben", Result.BLACK_WINS),
            (2, "dan", "eve", Result.WHITE_WINS_BY_FORFEIT),
            (2, "fay", None, Result.BYE),
            (3, "gus", "cat", Result.WHITE_WINS),
            (3, "eve", "ann", Result.BLACK_WINS),
            (3, "fay", "ben", Result.BLACK_WINS),
            (3, "dan", None, Result.BYE),
        ]
        assert len(pairings) == 12  # three boards and a bye in each round, none twice
        assert sum(p.white is None for p in pairings) == 3


async def test_the_tournament_message_lists_who_is_in_with_the_count_and_the_cap(
    fake: FakeDiscord, bot: GomokuBot
) -> None:
    organiser, players, _ = club(fake, "ann", "ben", "cat")
    ann, ben, cat = players.values()
    created = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Small", "format": "swiss", "cap": 2},
    )
    assert created.message is not None
    message = created.message.id

    def last_line() -> str:
        return fake.messages[message].content.splitlines()[-1]

    assert last_line() == "No players yet."
    await fake.click(message, "gomoku:tournament:1:join", user=ann)
    await fake.wait_for(lambda: last_line() == f"Players (1/2): <@{ann.id}>")
    await fake.click(message, "gomoku:tournament:1:join", user=ben)
    await fake.wait_for(lambda: last_line() == f"Players (2/2): <@{ann.id}>, <@{ben.id}>")
    # Full: Cat is refused and the list stays; Ann leaves, and Cat takes her place.
    full = await fake.click(message, "gomoku:tournament:1:join", user=cat)
    assert full.ephemeral
    assert last_line() == f"Players (2/2): <@{ann.id}>, <@{ben.id}>"
    await fake.click(message, "gomoku:tournament:1:leave", user=ann)
    await fake.wait_for(lambda: last_line() == f"Players (1/2): <@{ben.id}>")
    await fake.click(message, "gomoku:tournament:1:join", user=cat)
    await fake.wait_for(lambda: last_line() == f"Players (2/2): <@{ben.id}>, <@{cat.id}>")
    # The buttons stay, and the list pinged nobody.
    shown = fake.messages[message]
    assert shown.custom_ids() == [
        f"gomoku:tournament:1:{a}" for a in ("join", "leave", "standings")
    ]
    assert "**Small** (tournament 1)" in shown.content
    assert shown.allowed_mentions is not None
    assert shown.allowed_mentions.get("parse") == []
    assert not shown.allowed_mentions.get("users")


def test_a_full_list_of_entrants_fits_in_one_message() -> None:
    big = Tournament(
        1, 1, 1, "Big", Format.SWISS, "gomoku", "freestyle", 5, 60, 256, None, None,
        TournamentStatus.OPEN, 1, START,
    )  # fmt: skip
    entrants = [10**18 + n for n in range(256)]  # the longest mentions Discord has
    text = tournament_message(big, entrants)
    assert len(text) <= 2000
    line = text.splitlines()[-1]
    shown = re.findall(r"<@(\d+)>", line)
    assert shown == [str(u) for u in entrants[: len(shown)]]
    assert line.startswith("Players (256/256): ")
    assert line.endswith(f" and {256 - len(shown)} more")
    # One more name would not have fitted.
    assert len(text) + len(f", <@{entrants[len(shown)]}>") > 2000


class _HeldPairer:
    """The bot's pairer with every round held until the test lets it go."""

    def __init__(self, inner: RoundPairer) -> None:
        self.inner = inner
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    async def next_round(
        self, tournament: Tournament, entrants: list[Entrant], pairings: list[Pairing]
    ) -> RoundPlan | None:
        self.asked.set()
        await self.go.wait()
        return await self.inner.next_round(tournament, entrants, pairings)

    async def close(self) -> None:
        await self.inner.close()

    async def held(self, fake: FakeDiscord) -> None:
        """Wait until a round is asked for (and held)."""
        async with asyncio.timeout(fake.answer_timeout):
            await self.asked.wait()

    def hold(self) -> None:
        self.asked.clear()
        self.go.clear()


async def test_start_result_and_join_are_acknowledged_while_a_round_is_paired(
    fake: FakeDiscord, bot: GomokuBot
) -> None:
    # A round may wait for the pairing worker to start, or be slow to pair: Discord wants an
    # answer within 3 s. Here every round is held until the test lets it go.
    organiser, players, _ = club(fake, "ann", "ben", "cat", "dan", "eve")
    held = _HeldPairer(bot.service.round_pairer)
    bot.service.round_pairer = held
    created = await fake.slash(
        "gomoku-admin tournament create",
        user=organiser,
        options={"name": "Held", "format": "swiss", "rounds": 2, "seconds": 60},
    )
    assert created.message is not None
    for name in ("ann", "ben", "cat", "dan"):
        await fake.click(created.message, "gomoku:tournament:1:join", user=players[name])

    def acknowledged_privately(record: InteractionRecord) -> bool:
        original = record.original
        return record.callback_type == 5 and original is not None and original.ephemeral

    # The start is acknowledged ("thinking...", privately) before round 1 is paired.
    started = await fake.send_slash(
        "gomoku-admin tournament start", user=organiser, options={"id": 1}
    )
    await held.held(fake)
    await fake.wait_for(lambda: acknowledged_privately(started))
    assert started.original is not None
    assert started.original.loading
    # Eve joins while the round is paired, which holds the tournament: her button is
    # acknowledged in time too, and answered once she is in.
    joining = await fake.send_click(
        created.message, "gomoku:tournament:1:join", user=players["eve"]
    )
    await fake.wait_for(lambda: acknowledged_privately(joining))
    assert not joining.answered.is_set()
    held.go.set()
    await fake.wait_for(lambda: started.original is not None and started.original.deleted)
    assert _posted_once(fake, fake.default_channel, "**Held** has started with 4 players")
    joined = await fake.answer(joining)
    assert joined.ephemeral
    assert "You are in **Held**" in joined.content
    await fake.wait_for(functools.partial(_boards_open, fake, 1))

    # A result that ends round 1 is acknowledged before round 2 is paired, then confirmed.
    first = await fake.slash(
        "gomoku-admin tournament result",
        user=organiser,
        options={"id": 1, "round": 1, "board": 1, "result": "1-0"},
    )
    assert first.deferred
    assert first.ephemeral
    assert "round 1, board 1" in first.content
    held.hold()
    last = await fake.send_slash(
        "gomoku-admin tournament result",
        user=organiser,
        options={"id": 1, "round": 1, "board": 2, "result": "0-1"},
    )
    await held.held(fake)
    await fake.wait_for(lambda: acknowledged_privately(last))
    assert not last.answered.is_set()
    held.go.set()
    confirmed = await fake.answer(last)
    assert confirmed.ephemeral
    assert "round 1, board 2" in confirmed.content
    pairings = await bot.service.repository.pairings(1)
    assert {p.round for p in pairings} == {1, 2}  # paired before the answer


def test_a_running_arenas_message_says_when_it_ends() -> None:
    arena = Tournament(
        1, 1, 1, "Blitz", Format.ARENA, "gomoku", "freestyle", 0, 3600, None, None, 30,
        TournamentStatus.RUNNING, 1, START,
    )  # fmt: skip
    at = int((START + timedelta(minutes=30)).timestamp())
    ending = tournament_message(arena, [], START + timedelta(minutes=30)).splitlines()
    assert ending[1] == f"Ends <t:{at}:F> (<t:{at}:R>) · 3600 s per move"
    assert tournament_message(arena, []).splitlines()[1] == "30 minutes · 3600 s per move"
