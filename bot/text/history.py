"""Looking back: a user's finished games page by page, a game's position at any move, who may
see a game, and a game as an animation. Free of discord.py (the cogs draw what it returns).

A game is visible to a user in the guild it was played in, and to its players anywhere.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from bot.core.service.errors import NoSuchGameError
from bot.core.service.states import GameState
from bot.text.render_png import PngOptions, render_png
from engine.board import Board
from engine.types import Game
from storage.repository import GameRecord, GameStatus

if TYPE_CHECKING:
    from bot.core.service import GameService

__all__ = [
    "FRAME_MS",
    "PAGE_SIZE",
    "HistoryPage",
    "animation",
    "history_page",
    "latest_game",
    "position",
    "visible_game",
]

PAGE_SIZE: Final = 10  # games per history page
MAX_PAGE: Final = 99  # a deeper page would read too many rows to skip; the buttons stop here
FRAME_MS: Final = 700  # one move per frame; the last frame stays three times as long
_ANIMATION_CELL: Final = 24  # pixels per point: a 15x15 game of 60 moves is ~100 kB


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page of a user's finished games, newest first."""

    user_id: int
    page: int  # 0 = the newest games
    games: tuple[GameRecord, ...]
    has_more: bool  # an older page exists


async def history_page(
    service: GameService, user_id: int, *, guild_id: int | None, page: int = 0
) -> HistoryPage:
    """Page ``page`` of ``user_id``'s finished games in ``guild_id`` (None: everywhere)."""
    page = max(0, min(page, MAX_PAGE))
    before: int | None = None
    # Keyset paging over the repository: skip whole pages by their last id.
    for _ in range(page):
        skipped = await service.history(
            user_id, guild_id=guild_id, limit=PAGE_SIZE, before_id=before
        )
        if len(skipped) < PAGE_SIZE:
            return HistoryPage(user_id, page, (), False)
        before = skipped[-1].id
    rows = await service.history(user_id, guild_id=guild_id, limit=PAGE_SIZE + 1, before_id=before)
    has_more = len(rows) > PAGE_SIZE and page < MAX_PAGE
    return HistoryPage(user_id, page, tuple(rows[:PAGE_SIZE]), has_more)


async def visible_game(
    service: GameService, game_id: int, *, user_id: int, guild_id: int | None
) -> GameState:
    """Game ``game_id`` if ``user_id`` may see it from ``guild_id``.

    Raises:
        NoSuchGameError: no such game, or one from elsewhere the user did not play in (the
            same answer, so ids of other servers' games reveal nothing).
    """
    view = await service.game(game_id)
    if view.guild_id != guild_id and user_id not in view.humans:
        raise NoSuchGameError(game_id)
    if view.status in (GameStatus.DECLINED, GameStatus.CANCELLED, GameStatus.EXPIRED):
        raise NoSuchGameError(game_id)  # a challenge nobody played has nothing to show
    return view


async def latest_game(
    service: GameService, user_id: int, *, guild_id: int | None
) -> GameState | None:
    """The user's most recent finished game in the guild, if any."""
    rows = await service.history(user_id, guild_id=guild_id, limit=1)
    return await service.game(rows[0].id) if rows else None


def position(view: GameState, ply: int) -> GameState:
    """``view`` as it stood after its first ``ply`` moves (clamped to the game)."""
    moves = view.board.moves
    ply = max(0, min(ply, len(moves)))
    size = view.board.width if view.game is Game.GOMOKU else None
    board = Board.for_game(view.game, size=size, rule=view.rule)
    for move in moves[:ply]:
        board.play(move.point)
    return GameState(view.record, board)


def animation(view: GameState, *, frame_ms: int = FRAME_MS) -> bytes:
    """The game move by move as an animated GIF (CPU work: run it in a thread)."""
    from PIL import Image

    options = PngOptions(cell=_ANIMATION_CELL, move_numbers=False, forbidden=False)
    frames = [
        Image.open(io.BytesIO(render_png(position(view, ply).board, options))).convert("P")
        for ply in range(len(view.board.moves) + 1)
    ]
    durations = [frame_ms] * len(frames)
    durations[-1] = frame_ms * 3
    out = io.BytesIO()
    frames[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        optimize=False,
    )
    return out.getvalue()
