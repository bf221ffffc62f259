"""What a version of a game costs the web board to render for its pages.

Run it as ``python -m benchmarks.bench_feed [--moves 60] [--repeat 20]``. It prints figures
and asserts nothing.

A game between two people of ``--moves`` moves is played through an in-memory game service;
each of its versions, in order, goes through a fresh ``Feed`` for the four kinds of page a
watched game usually has (Black's, White's, and watchers' in two languages), as the board
sends them: the object rendered (``WebBoard.payload``), the delta from the kind's version
before encoded, and the whole state encoded (what a new page or a resync is sent). It does
so ``--repeat`` times each way, alternated: reusing what the kind's render before left
(``bot.web.state.Reuse``, as the board does) and rendering each version from nothing.
Printed for each: versions rendered a second for the four kinds, the median and the best
(the least disturbed by the rest of the host), and the bytes of the last whole state and
delta.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

from benchmarks.bench_web import _cell
from benchmarks.common import cpu_model
from bot.core.service import GameService
from bot.core.service.inputs import GameRef, Place
from bot.core.service.states import GameState
from bot.web.feed import Feed, Kind
from bot.web.server import WebBoard
from bot.web.state import Reuse
from bot.web.tokens import Signer
from engine.types import Point
from storage.memory import InMemoryGameRepository
from tests.runners import CentreRunner

KINDS: list[Kind] = [("en", 0), ("en", 1), ("en", None), ("ja", None)]


async def _game(moves: int) -> list[GameState]:
    """Every state of a game between two people of ``moves`` moves, in order."""
    service = GameService(InMemoryGameRepository(), CentreRunner(), rng=random.Random(1))
    states: list[GameState] = []
    service.subscribe(lambda event: states.append(event.game))
    view = await service.start(
        channel_id=1, guild_id=1, user_id=1, opponent=2, colour="black", rated=False
    )
    await service.accept(view.game_id, 2)
    for ply in range(moves):
        cell = _cell(ply)
        point = Point("abcdefghijklmno".index(cell[0]), int(cell[1:]) - 1)
        await service.act(GameRef(view.game_id), 1 + ply % 2, Place(point))
    return states


def _render_all(board: WebBoard, states: list[GameState], reuse: bool) -> tuple[int, int]:
    """Every state for every kind, as a game's pages are sent them (``reuse``: with what the
    kind's render before left; else each version rendered from nothing); the bytes of the
    last whole state and delta."""
    feed = Feed()
    whole = change = 0
    for state in states:
        for kind in KINDS:

            def render(left: Reuse, state: GameState = state, kind: Kind = kind) -> dict[str, Any]:
                return board.payload(state, kind, left if reuse else None)

            rendition = feed.rendition(kind, state.version, render)
            whole = len(rendition.whole)
            change = len(rendition.delta or b"")
    return whole, change


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=60, help="moves in the game (at most 120)")
    parser.add_argument("--repeat", type=int, default=20, help="games rendered")
    args = parser.parse_args(argv)
    if not 1 <= args.moves <= 120 or args.repeat < 1:
        parser.error("--moves is 1 to 120, --repeat at least 1")
    print(f"CPU: {cpu_model()}")
    states = asyncio.run(_game(args.moves))
    board = WebBoard(
        GameService(InMemoryGameRepository(), CentreRunner()), Signer.from_secrets("s", None)
    )
    _render_all(board, states, True)  # the catalogues and the words loaded
    rates: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.repeat):
        for reuse in (False, True):  # alternated: a host getting busier weighs on both
            started = time.perf_counter()
            whole, change = _render_all(board, states, reuse)
            rates[reuse].append(len(states) / (time.perf_counter() - started))
    print(
        f"{len(states)} versions of a {args.moves}-move game, {len(KINDS)} kinds of page each;"
        f" last whole state {whole} bytes, delta {change} bytes"
    )
    for reuse, label in ((False, "each from nothing"), (True, "reusing the last")):
        ordered = sorted(rates[reuse])
        print(
            f"{label:>18}: {ordered[len(ordered) // 2]:.0f} versions/s median,"
            f" {ordered[-1]:.0f} best ({ordered[-1] * len(KINDS):.0f} renditions/s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
