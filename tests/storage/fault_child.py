"""The victim of the kill -9 test: writes moves to a real SQLite file until it is killed.

Usage: ``python tests/storage/fault_child.py PATH SEED``. Four games are played at once; every
write the repository acknowledged is written to stdout straight after it returns:
``M game seq ply x y`` for a move, ``T game seq ply`` for a takeback to ``ply``, ``F game seq``
when a game is finished.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys

from engine.types import Outcome, Point, Termination
from storage.records import GameRecord, NewGame, Player
from storage.repository import GameRepository
from storage.sqlite import SqliteGameRepository

GAMES = 4
MAX_PLY = 150  # then the game is resigned and a new one starts in the next free channel


def ack(*fields: object) -> None:
    # one write(2) per line, by construction: a kill can cut only between lines
    os.write(1, (" ".join(map(str, fields)) + "\n").encode())


async def player(repo: GameRepository, game: GameRecord, channels: list[int], seed: int) -> None:
    rng = random.Random(seed)
    while True:
        if game.ply >= MAX_PLY:
            done = await repo.finish_game(game.id, game.version, Outcome(Termination.RESIGN, None))
            ack("F", done.id, done.version)
            channels[0] += 1
            game = await repo.create_game(
                NewGame(
                    guild_id=1, channel_id=channels[0], black=Player.human(1), white=Player.human(2)
                )
            )
        if game.ply > 0 and rng.random() < 0.1:
            game = await repo.take_back(game.id, game.version, 1)
            ack("T", game.id, game.version, game.ply)
            continue
        point = Point(rng.randrange(15), rng.randrange(15))
        game = await repo.append_move(game.id, game.version, point, game.to_move)
        ack("M", game.id, game.version, game.ply - 1, point.x, point.y)


async def main(path: str, seed: int) -> None:
    async with SqliteGameRepository.open(path) as repo:
        games = await repo.open_games()
        channels = [seed]  # each run counts up from its own base
        while len(games) < GAMES:
            channels[0] += 1
            games.append(
                await repo.create_game(
                    NewGame(
                        guild_id=1,
                        channel_id=channels[0],
                        black=Player.human(1),
                        white=Player.human(2),
                    )
                )
            )
        await asyncio.gather(*(player(repo, g, channels, seed + i) for i, g in enumerate(games)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
