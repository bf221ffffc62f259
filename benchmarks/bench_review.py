"""Review benchmark: how long ``/gomoku review`` keeps the engine busy on a game.

``python -m benchmarks.bench_review [--moves 40] [--rule freestyle] [--repeat 1]`` plays a game
through the real process pool's review worker (the engine's best move at every ply, from a
fixed opening, so the game is the same on every machine), then reviews it with the bot's
``Reviewer`` at the default budget and prints the time per review and per position. It prints
figures and asserts nothing (timings on shared machines are noise, not verdicts).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from bot.core.ai import AnalysisRequest, ProcessPoolRunner
from bot.core.review import NODES, Reviewer
from bot.core.service.states import GameState
from engine.board import Board
from engine.notation import parse_moves
from engine.types import Color, Outcome, Rule, Termination
from storage.memory import InMemoryGameRepository
from storage.records import GameRecord, NewGame, Player
from storage.repository import GameRepository

# openings the engine plays on from; the first whose game lasts ``--moves`` moves is reviewed
OPENINGS = ("h8 i9 g9 h10 j8", "h8 h9 i9 g7 j10", "h8 i7 g9 i9 i8", "h8 g8 h10 i9 g9 h9")


async def play_game(runner: ProcessPoolRunner, moves: int, rule: Rule) -> Board:
    """A game of ``moves`` moves (the longest found, if none is that long): an opening, then
    the engine's best move each ply (resigned after the last)."""
    longest = Board(15, rule)
    for opening in OPENINGS:
        board = Board(15, rule)
        for point in parse_moves(opening):
            board.play(point)
        while len(board.moves) < moves and board.outcome is None:
            played = tuple((m.point.x, m.point.y) for m in board.moves)
            request = AnalysisRequest(15, rule, played, NODES // 4)
            board.play((await runner.analyse(request)).best)
        if len(board.moves) >= moves and board.outcome is None:
            return board
        longest = max(longest, board, key=lambda b: len(b.moves))
    return longest


async def store_game(
    repo: GameRepository, board: Board, channel_id: int = 1, guild_id: int = 1
) -> GameRecord:
    """Store ``board`` as a finished game between two people (resigned by the side to move
    when no five ended it)."""
    record = await repo.create_game(
        NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            black=Player.human(1),
            white=Player.human(2),
            width=board.width,
            height=board.height,
            rule=board.rule,
        )
    )
    for i, move in enumerate(board.moves):
        last = i + 1 == len(board.moves)
        outcome = board.outcome if last and board.outcome is not None else None
        record = await repo.append_move(
            record.id, record.version, move.point, move.color, outcome=outcome
        )
    if board.outcome is None:
        loser = board.to_move
        winner = Color.WHITE if loser is Color.BLACK else Color.BLACK
        record = await repo.finish_game(
            record.id, record.version, Outcome(Termination.RESIGN, winner)
        )
    return record


async def _run(args: argparse.Namespace) -> int:
    rule = Rule(args.rule)
    async with ProcessPoolRunner(workers=1) as runner:
        started = time.perf_counter()
        board = await play_game(runner, args.moves, rule)
        played = time.perf_counter() - started
        moves = " ".join(str(m.point) for m in board.moves)
        print(f"game: {len(board.moves)} moves ({played:.1f} s to play, worker start included)")
        print(f"  {moves}")
        times = []
        for _ in range(args.repeat):
            repository = InMemoryGameRepository()
            record = await store_game(repository, board)
            reviewer = Reviewer(repository, runner)
            started = time.perf_counter()
            review = await reviewer.review(GameState(record, board))
            times.append(time.perf_counter() - started)
        positions = len(review.steps)
        print(
            f"review at {NODES} nodes a position: {statistics.median(times):.1f} s median of "
            f"{len(times)} ({statistics.median(times) / positions * 1000:.0f} ms a position, "
            f"{positions} positions), complete={review.complete}"
        )
        for mark in review.marks:
            print(
                f"  {mark.ply}. {mark.played} {mark.kind.value} ({mark.color.value}); "
                f"better {mark.better} [{mark.proof}]"
            )
        print(f"  turning point: {review.turning}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the benchmark."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_review", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--moves", type=int, default=40, help="moves in the game")
    parser.add_argument("--rule", default="freestyle", help="Gomoku rule")
    parser.add_argument("--repeat", type=int, default=1, help="reviews to time")
    return asyncio.run(_run(parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
