"""``/gomoku review`` through the real discord.py against the fake Discord, with the real
process pool: the reply is edited as the engine works, then shows the planted game's marks and
the graph; the replay shows the marks; after a restart the stored review answers at once."""

from __future__ import annotations

import pytest

from bot.core.ai import ProcessPoolRunner
from tests.bot.conftest import BotFactory
from tests.bot.test_review import planted_game
from tests.fakediscord import FakeDiscord, FakeUser


@pytest.mark.slow
async def test_review_of_a_finished_game_marks_replays_and_is_stored(
    fake: FakeDiscord,
    make_bot: BotFactory,
    pool: ProcessPoolRunner,
    alice: FakeUser,
    bob: FakeUser,
) -> None:
    board = planted_game()
    fake.answer_timeout = 180.0  # the review worker starts cold, on a shared machine
    first = make_bot(ai=pool)
    async with fake.running(first):
        await fake.slash(
            "gomoku start", user=alice, options={"opponent": bob, "colour": "black", "rated": False}
        )
        game_id = (await first.service.board(fake.default_channel.id)).game_id
        await fake.click(fake.channel_messages()[-1], f"gomoku:{game_id}:accept", user=bob)
        for i, move in enumerate(board.moves):
            player = alice if i % 2 == 0 else bob
            await fake.slash("place", user=player, options={"cell": str(move.point)})
        assert (await first.service.game(game_id)).is_over
        carol = fake.add_user("carol")  # not a player, but in the server: may see it
        first.service.reviewer().progress_every_s = 0.0
        reply = await fake.slash("gomoku review", user=carol, options={"game": game_id})
        assert reply.ephemeral
        assert reply.message is not None
        message = reply.message
        await fake.wait_for(lambda: "Review of game" in message.text())
        assert message.edits >= 3  # progress, then the review
        text = message.text()
        assert "18. a1" in text
        assert "missed win" in text
        assert "h6" in text  # the better move: the VCF's first four
        assert "21. o15" in text
        assert "blunder" in text
        assert "Turning point: move 21" in text
        (graph,) = message.attachments
        assert graph.data.startswith(b"\x89PNG")
        # the replay button starts just after the first mark (White's earlier win, found by
        # the search at this budget, makes Black's move 11 the first blunder)
        at = text.index("**", text.index("Review of game")) + 2
        first_ply = int(text[at : text.index(".", at)])
        assert first_ply <= 18
        replay_id = f"gomoku:{game_id}:replay:next:{first_ply - 1}"
        assert replay_id in message.custom_ids()
        await fake.click(message, replay_id, user=carol)
        assert f"move {first_ply} of {len(board.moves)}" in message.text()
        assert f"**{first_ply}. " in message.text()  # the mark on the move shown
        assert "to move" in message.text()  # the engine's view of the position
        assert message.attachments == []
        # the missed win is now the server's first puzzle
        puzzle = await fake.slash("gomoku puzzle play", user=carol)
        assert f"Puzzle from game {game_id}, move 18: White to play and win" in puzzle.text()
    second = make_bot()  # no engine at all: the stored review still answers
    async with fake.running(second):
        again = await fake.slash("gomoku review", user=alice, options={"game": game_id})
        assert again.message is not None
        assert "21. o15" in again.text()
        refused = await fake.slash("gomoku review", user=alice, options={"game": game_id + 50})
        assert refused.ephemeral
        assert "no longer exists" in refused.content
        newcomer = fake.add_user("dave")
        nothing = await fake.slash("gomoku review", user=newcomer)
        assert nothing.ephemeral
        assert "no finished game here" in nothing.content
        await fake.slash("gomoku start", user=alice, options={"game": "tictactoe"})
        small = (await second.service.board(fake.default_channel.id)).game_id
        await second.service.resign(fake.default_channel.id, alice.id)
        other = await fake.slash("gomoku review", user=alice, options={"game": small})
        assert f"Game {small} cannot be reviewed" in other.content
