"""What the use cases return: frozen snapshots of a game (``GameState``) and what an action
did to it (``MoveResult``, ``GameEnd`` ...), for ``bot.text.render`` to draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final, TypeAlias

from engine.board import Board
from engine.opening_rules import Opening, Seat
from engine.types import Color, Game, Move, Outcome, Point, Rule
from storage.records import GameRecord, GameStatus, Player


class ColourChoice:
    """The colour the starting user asks for (plain strings, so option parsing stays simple)."""

    BLACK: Final = "black"  # the starter moves first
    WHITE: Final = "white"  # the opponent (or the AI) moves first
    RANDOM: Final = "random"  # a coin toss
    ALL: Final = ("black", "white", "random")


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's displayed rating before and after a rated game."""

    user_id: int
    before: int  # PlayerStats.display_rating before the game (1000 for a new player)
    after: int


@dataclass(frozen=True, slots=True, eq=False)
class GameState:
    """A snapshot of one game: its stored record and the position after its moves.

    ``board`` is the service's own copy: treat it as read-only (``board.copy()`` to explore).
    """

    record: GameRecord
    board: Board
    opening: Opening | None = None  # the opening rule's state, when the game has one

    @property
    def in_opening(self) -> bool:
        """The game is active and its opening rule is still settling the colours."""
        return (
            self.opening is not None
            and not self.opening.is_done
            and self.record.status is GameStatus.ACTIVE
        )

    @property
    def acting_color(self) -> Color:
        """The colour of whoever acts next: the side to move, or during an opening the
        colour the person whose step it is holds now."""
        if self.in_opening:
            assert self.opening is not None
            actor = self.opening.actor
            assert actor is not None
            return self.opening.color_of(actor)
        return self.board.to_move

    def seat_player(self, seat: Seat) -> Player:
        """The player in an opening's ``seat`` (first: who started the opening)."""
        assert self.opening is not None
        return self.record.player(self.opening.color_of(seat))

    @property
    def game_id(self) -> int:
        """The game's id (in button custom ids and exports)."""
        return self.record.id

    @property
    def channel_id(self) -> int:
        """The channel the game occupies."""
        return self.record.channel_id

    @property
    def guild_id(self) -> int | None:
        """The guild, None for the terminal."""
        return self.record.guild_id

    @property
    def status(self) -> GameStatus:
        """Pending, active, finished, or a closed challenge."""
        return self.record.status

    @property
    def version(self) -> int:
        """Bumps on every change of the game."""
        return self.record.version

    @property
    def game(self) -> Game:
        """Which game is being played."""
        return self.record.game

    @property
    def rule(self) -> Rule:
        """The five-in-a-row rule (freestyle for the small games)."""
        return self.record.rule

    @property
    def black(self) -> Player:
        """Who moves first."""
        return self.record.black

    @property
    def white(self) -> Player:
        """Who moves second."""
        return self.record.white

    @property
    def rated(self) -> bool:
        """Two people: ratings change at the end, no hints."""
        return self.record.rated

    @property
    def outcome(self) -> Outcome | None:
        """How it ended (None while pending or active, and for closed challenges)."""
        return self.record.outcome

    @property
    def deadline(self) -> datetime | None:
        """Challenge expiry (pending) or when the side to move runs out of time (active)."""
        return self.record.deadline

    @property
    def is_active(self) -> bool:
        """Being played."""
        return self.record.status is GameStatus.ACTIVE

    @property
    def is_over(self) -> bool:
        """Finished, or a challenge that was declined, withdrawn or expired."""
        return not self.record.status.is_open

    def player(self, color: Color) -> Player:
        """The player of ``color``."""
        return self.record.player(color)

    @property
    def to_move(self) -> Player | None:
        """Who moves next; None unless the game is active."""
        if self.record.status is not GameStatus.ACTIVE:
            return None
        return self.record.player(self.acting_color)

    @property
    def is_ai_turn(self) -> bool:
        """The game is active and the AI is to move: the front-end calls ``ai_reply``."""
        player = self.to_move
        return player is not None and player.is_ai

    @property
    def ai_level(self) -> str | None:
        """The AI's level (an ``engine.Level`` value) when the AI plays a side."""
        for player in (self.black, self.white):
            if player.level is not None:
                return player.level
        return None

    @property
    def humans(self) -> tuple[int, ...]:
        """The user ids of the human players (one user may play both sides)."""
        ids = (p.user_id for p in (self.black, self.white) if p.user_id is not None)
        return tuple(dict.fromkeys(ids))

    def color_of(self, user_id: int) -> Color | None:
        """The colour ``user_id`` plays (the side to move if they play both), or None."""
        if self.black.user_id == user_id and self.white.user_id == user_id:
            return self.acting_color
        return self.record.color_of(user_id)

    @property
    def winner(self) -> Player | None:
        """The winning player, or None (still playing, a draw, or abandoned)."""
        if self.outcome is None or self.outcome.winner is None:
            return None
        return self.player(self.outcome.winner)

    @property
    def challenger(self) -> int | None:
        """Who started the game (the challenger of a challenge)."""
        return self.record.created_by

    def after(self, ply: int) -> GameState:
        """The game as it stood after its first ``ply`` moves (clamped to the game)."""
        moves = self.board.moves
        ply = max(0, min(ply, len(moves)))
        board = Board.for_game(self.game, size=self.board.width, rule=self.rule)
        for move in moves[:ply]:
            board.play(move.point)
        return GameState(self.record, board)

    @property
    def challenged(self) -> int | None:
        """For a challenge: the user who must accept."""
        others = [u for u in self.humans if u != self.record.created_by]
        return others[0] if others else None


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What a move did: the game after it, and whether the AI must answer next."""

    game: GameState  # after the move; finished if it ended the game
    move: Move  # the stone just placed (after an opening choice: the last stone)
    ratings: tuple[RatingChange, ...] = ()  # when this move finished a rated game
    step: str | None = None  # an opening step that placed no stone ("white", "two", "3")

    @property
    def ai_due(self) -> bool:
        """The AI is to move now: the core's runner starts its reply, and a front end waits
        for it with ``GameRunner.answer``."""
        return self.game.is_ai_turn

    @property
    def finished(self) -> bool:
        """The move ended the game (five, draw)."""
        return self.game.status is GameStatus.FINISHED


@dataclass(frozen=True, slots=True)
class GameEnd:
    """A game or challenge ended without a move: resign, timeout, decline, withdraw, expiry."""

    game: GameState  # FINISHED with an outcome, or DECLINED/CANCELLED/EXPIRED
    ratings: tuple[RatingChange, ...] = ()


@dataclass(frozen=True, slots=True)
class UndoRequest:
    """A request to take back moves in a game against a person, waiting for consent."""

    game: GameState
    requester: int  # the user who asked
    responder: int  # the user who must agree
    moves: int  # how many moves will be taken back (1 or 2)


@dataclass(frozen=True, slots=True)
class UndoResult:
    """Moves taken back."""

    game: GameState  # after the undo
    undone: tuple[Move, ...]  # the moves removed, last first


@dataclass(frozen=True, slots=True)
class Hint:
    """The AI's suggestion for the side to move."""

    game: GameState
    point: Point  # the suggested move
    score: int  # the search score for the side to move
    depth: int  # how deep the search went


@dataclass(frozen=True, slots=True)
class Export:
    """A game as files: SGF and the plain move list."""

    game: GameState
    sgf: str  # FF[4] GM[4] text
    moves: str  # "h8 i9 h9 ..."
    filename: str  # a safe file name, e.g. "gomoku-123.sgf"


@dataclass(frozen=True, slots=True)
class TurnWarning:
    """A player has used 80% of their turn time."""

    game: GameState
    user_id: int  # who must move
    deadline: datetime


@dataclass(frozen=True, slots=True)
class ChallengeExpired:
    """A challenge was not answered before its expiry."""

    game: GameState  # EXPIRED


TimeoutEvent: TypeAlias = TurnWarning | GameEnd | ChallengeExpired


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page of a user's finished games, newest first."""

    user_id: int
    page: int  # 0 = the newest games
    games: tuple[GameRecord, ...]
    has_more: bool  # an older page exists
