"""Tournaments in Discord, through the real discord.py against the fake Discord: an organiser
creates one, members join with its button, each board opens in a thread where its players are
pinged and play with their own ``/place``, and the standings are posted after every round."""

from __future__ import annotations

import functools
import re

from bot.client import GomokuBot
from storage.club import TournamentStatus
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.fakediscord.model import Message

# Black's stones that never line up, and White's five in a column.
_SCATTERED = ("a1", "c1", "e1", "g1", "i1")
_FIVE = ("h8", "h9", "h10", "h11", "h12")


def _board_threads(fake: FakeDiscord, round_: int) -> list[FakeChannel]:
    return [
        c
        for c in fake.channels.values()
        if c.is_thread and f"· round {round_} · board" in c.name and fake.channel_messages(c)
    ]


def _posted(fake: FakeDiscord, channel: FakeChannel, start: str) -> list[Message]:
    return [m for m in fake.channel_messages(channel) if m.content.startswith(start)]


def _boards_open(fake: FakeDiscord, round_: int) -> bool:
    return len(_board_threads(fake, round_)) == 2


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


def _table(text: str) -> list[list[str]]:
    """The rows of a posted standings table, its heading left out."""
    block = text.split("```")[1].strip().splitlines()
    return [row.split() for row in block[1:]]


async def test_a_round_robin_of_four_played_in_threads_with_standings_after_each_round(
    fake: FakeDiscord, bot: GomokuBot
) -> None:
    general = fake.default_channel
    fake.allow(general, "create_public_threads")
    organiser = fake.add_user("olga", admin=True)
    players = {name: fake.add_user(name) for name in ("ann", "ben", "cat", "dan")}
    by_id = {user.id: user for user in players.values()}
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

    started = await fake.slash("gomoku-admin tournament start", user=organiser, options={"id": 1})
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
