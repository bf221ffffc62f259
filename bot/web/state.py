"""A game as the board page draws it: a plain JSON object, in the language of the viewer.

Points are ``[x, y]`` with the house's coordinates (x from the left, y from the bottom); a
colour is 0 (Black, the first player) or 1 (White). Every move is listed in order, so a
finished game replays on the page without asking again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.core.positions import forbidden_points
from bot.core.service.states import GameState
from bot.text import i18n, render, web_words
from engine.types import Color, Game, Rule
from storage.records import GameStatus, Player

__all__ = ["game_payload"]


def _colour(color: Color) -> int:
    return 0 if color is Color.BLACK else 1


def game_payload(
    view: GameState, viewer: int | None, names: Callable[[Player], str]
) -> dict[str, Any]:
    """``view`` for the page of ``viewer`` (the user id of a player's pass, None to watch).

    Call it inside ``i18n.using(language)``: the status line and the words are translated.
    """
    board = view.board
    active = view.status is GameStatus.ACTIVE
    forbidden: list[list[int]] = []
    if active and board.rule is Rule.RENJU and board.to_move is Color.BLACK:
        forbidden = [[p.x, p.y] for p in sorted(forbidden_points(board))]
    mine = None if viewer is None else view.color_of(viewer)
    to_move = view.acting_color if active else None
    return {
        "type": "state",
        "game_id": view.game_id,
        "version": view.version,
        "game": view.game.value,
        "width": board.width,
        "height": board.height,
        "gravity": board.gravity,
        "marks": view.game is Game.TICTACTOE,  # X and O instead of stones
        "status": view.status.value,
        "title": render.game_title(view),
        "line": render.status_line(view, names),
        "moves": [[m.point.x, m.point.y, _colour(m.color)] for m in board.moves],
        "winning": [[p.x, p.y] for p in board.winning_line],
        "forbidden": forbidden,
        "to_move": None if to_move is None else _colour(to_move),
        "you": None if mine is None else _colour(mine),
        "your_turn": mine is not None and to_move is mine and not view.is_ai_turn,
        "black": names(view.black),
        "white": names(view.white),
        "words": web_words.page_words(),
        "language": i18n.current().replace("_", "-"),  # the page's lang (fonts for CJK)
        "over": not active,
    }
