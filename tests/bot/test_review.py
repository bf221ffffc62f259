"""Post-game review on the real engine (in-process here; through the pool in the Discord
tests): a planted missed VCF and a planted blunder are both marked, with the better move, and
the turning point is the loser's blunder. The review is stored and read back unchanged."""

from __future__ import annotations

from bot.core.ai import AnalysisRequest
from bot.core.review import MarkKind, Review, Reviewer
from bot.core.service.states import GameState
from bot.text.review_graph import graph_png
from engine.board import Board
from engine.gomocup.tactics import VCF_WINS
from engine.search.analysis import Analysis, analyse
from engine.types import Color, Outcome, Termination
from storage.memory import InMemoryGameRepository
from tests.storage.conftest import new_game


class InProcess:
    """The review worker's job, run in this process."""

    def __init__(self) -> None:
        self.calls = 0

    async def analyse(self, request: AnalysisRequest) -> Analysis:
        self.calls += 1
        return analyse(request.board(), nodes=request.nodes)


def planted_game() -> Board:
    # White to move has a VCF (VCF_WINS[1]) and plays a1; Black defends (j6), White h6, then
    # Black plays o15, far from everything, and White wins by fours.
    moves = VCF_WINS[1].moves + " a1 j6 h6 o15"
    board = Board.from_moves(moves)
    while board.outcome is None:
        board.play(analyse(board).best)
    return board


async def test_a_planted_missed_vcf_and_blunder_are_marked() -> None:
    board = planted_game()
    assert board.outcome is not None
    assert board.outcome.winner is Color.WHITE
    repo = InMemoryGameRepository()
    record = await repo.create_game(new_game())
    for move in board.moves:
        outcome = None
        if record.ply + 1 == len(board.moves):
            outcome = Outcome(Termination.FIVE, Color.WHITE)
        record = await repo.append_move(
            record.id, record.version, move.point, move.color, outcome=outcome
        )
    view = GameState(record, board)
    analyser = InProcess()
    reviewer = Reviewer(repo, analyser)
    review = await reviewer.review(view)
    kinds = {(mark.ply, mark.kind, mark.color) for mark in review.marks}
    assert (18, MarkKind.MISSED_WIN, Color.WHITE) in kinds
    assert (21, MarkKind.BLUNDER, Color.BLACK) in kinds
    missed = review.mark_at(18)
    assert missed is not None
    assert missed.proof == "vcf"
    assert str(missed.better) == "h6"  # the VCF's first four
    blunder = review.mark_at(21)
    assert blunder is not None
    assert str(blunder.played) == "o15"
    assert review.turning == 21
    assert review.complete
    # nothing else is marked in a game the engine played itself from move 22 on
    assert all(mark.ply <= 21 for mark in review.marks)
    # stored: asking again reads it back without the engine
    calls = analyser.calls
    assert await reviewer.review(view) == Review.from_json(review.to_json())
    assert analyser.calls == calls
    assert graph_png(review).startswith(b"\x89PNG")


async def test_a_resigned_game_is_analysed_to_its_last_position() -> None:
    board = Board.from_moves("h8 h9 i9 g7 j10 k11 i8 i10 g8")
    repo = InMemoryGameRepository()
    record = await repo.create_game(new_game())
    for move in board.moves:
        record = await repo.append_move(record.id, record.version, move.point, move.color)
    record = await repo.finish_game(
        record.id, record.version, Outcome(Termination.RESIGN, Color.BLACK)
    )
    review = await Reviewer(repo, InProcess()).review(GameState(record, board))
    assert len(review.steps) == len(board.moves) + 1
    assert all(step is not None for step in review.steps)
    assert all(-1 <= step.value <= 1 for step in review.steps if step is not None)
