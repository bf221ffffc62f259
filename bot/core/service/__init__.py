"""GameService: the bot's use cases, free of Discord (the cogs and the terminal both call it).

The service turns "user 42 plays h8 in channel 7" into engine and repository calls. It knows
players and turns; the engine knows the rules; the repository keeps everything durable. It
returns frozen states (``GameState``, ``MoveResult`` ...: ``bot.core.service.states``) that
``bot.text.render`` draws, and raises ``GameServiceError`` subclasses
(``bot.core.service.errors``; or the engine's ``IllegalMoveError`` subclasses) that
``bot.text.refusals`` turns into words.

The use cases live in one module each, over the core they share (``shared``: locks, versions,
the position cache, ratings; it publishes every stored change as an event, ``events``):
``inputs`` (``act``, the one path in for a player's input by game reference), ``games``
(start, accept, resign, rematch, export ...), ``moves`` (place, drop, the AI's reply, undo,
hints), ``clock`` (deadlines, idle games, resuming), ``history`` (pages, who may see a game),
``members`` (stats, preferences, guild settings), ``puzzles``, ``reviews`` and ``notices``
(the front-ends' turn pings and pending replies). ``GameService`` is all of them in one
object (``tournaments.TournamentService`` adds the tournaments the bot runs and the servers'
pairing queues, ``matchmaking``);
``bot.core.runner`` drives what follows a change (the AI's replies, the clocks).
"""

from __future__ import annotations

from bot.core.service.clock import ClockUseCases
from bot.core.service.games import GameUseCases
from bot.core.service.history import HistoryUseCases
from bot.core.service.inputs import InputUseCases
from bot.core.service.members import MemberUseCases
from bot.core.service.moves import MoveUseCases
from bot.core.service.notices import NoticeUseCases
from bot.core.service.puzzles import PuzzleUseCases
from bot.core.service.reviews import ReviewUseCases

__all__ = ["GameService"]


class GameService(
    InputUseCases,
    GameUseCases,
    MoveUseCases,
    HistoryUseCases,
    ClockUseCases,
    MemberUseCases,
    PuzzleUseCases,
    ReviewUseCases,
    NoticeUseCases,
):
    """The use cases of the bot over a ``GameRepository`` and an ``AIRunner``.

    One instance per process. It keeps only locks, a cache of positions and in-flight AI
    searches in memory; the rest (undo requests included) is in the repository, so a restart
    loses nothing.
    """
