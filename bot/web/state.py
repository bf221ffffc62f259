"""A game as the board page draws it: a plain JSON object, in the language of the viewer.

Points are ``[x, y]`` with the house's coordinates (x from the left, y from the bottom); a
colour is 0 (Black, the first player) or 1 (White). Every move is listed in order, so a
finished game replays on the page without asking again.

A page gets the whole object once (``{"type": "state", ...}``), and after that what changed
from the version it has (``delta``): the moves it keeps, the moves that follow them, and the
fields whose value changed. Every object ``game_payload`` makes has the same fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from bot.core.games import Pieces, table_spec
from bot.core.positions import forbidden_points
from bot.core.service.states import GameState
from bot.text import i18n, render, web_words, words
from bot.text.opening_words import choice_label
from engine.opening_rules import SOOSORV_MOST, Phase
from engine.types import Color, Move, Rule
from storage.records import GameStatus, Player

__all__ = ["Reuse", "choices", "delta", "game_payload"]

# A move as the page lists it: x, y and colour (0 Black, 1 White), sent as a JSON array. A
# tuple of ints, not a list: the garbage collector stops tracking it once it has seen it, so
# that the moves a watched game's kept renders hold (``bot.web.feed``) cost its collections
# nothing.
Listed = tuple[int, int, int]


def _colour(color: Color) -> int:
    return 0 if color is Color.BLACK else 1


def choices(view: GameState) -> list[list[str]]:
    """The opening's choices due now, as ``[word, label]``: the words ``opening_choice``
    takes (empty when no choice is due)."""
    opening = view.opening
    if view.status is not GameStatus.ACTIVE or opening is None or not view.in_opening:
        return []
    if opening.phase is Phase.CHOOSE:
        return [[c.value, choice_label(c)] for c in opening.choices()]
    if opening.phase is Phase.DECLARE:
        return [[str(n), str(n)] for n in range(1, SOOSORV_MOST + 1)]
    return []


def _has_own_move(view: GameState, mine: Color) -> bool:
    # An opening's stones are settled by its rule and never taken back.
    settled = len(view.opening.board.moves) if view.opening is not None else 0
    both = view.black.user_id == view.white.user_id
    return any(both or m.color is mine for m in view.board.moves[settled:])


class Reuse:
    """What the renders of one game for one kind of page (language and viewer) share from one
    version to the next: the fields that never change (the game's shape and rules, the words),
    and the moves as the page lists them, with the moves they were listed from. The next
    version lists only the moves that follow those it keeps (all, where one of those
    listed before differs)."""

    __slots__ = ("fixed", "listed", "source")

    def __init__(self) -> None:
        self.fixed: dict[str, Any] | None = None
        self.source: tuple[Move, ...] = ()
        self.listed: list[Listed] = []

    def moves(self, moves: tuple[Move, ...]) -> list[Listed]:
        """``moves`` as the page lists them: ``[x, y, colour]`` each."""
        kept = min(len(self.source), len(moves))  # fewer after a takeback
        # Move objects are shared from version to version: the comparison is by identity,
        # element by element in C, and falls back to equality for moves read anew.
        if moves[:kept] == self.source[:kept]:
            listed = self.listed[:kept] + _listed(moves[kept:])
        else:
            listed = _listed(moves)
        self.source, self.listed = moves, listed
        return listed


def _listed(moves: tuple[Move, ...]) -> list[Listed]:
    return [(m.point.x, m.point.y, _colour(m.color)) for m in moves]


def game_payload(
    view: GameState,
    mine: Color | None,
    names: Callable[[Player], str],
    reuse: Reuse | None = None,
) -> dict[str, Any]:
    """``view`` for the page of the player of ``mine`` (None: a watcher's page), the same
    object with ``reuse`` or without: with it, what the kind's render of another version of
    the game left there is used again (the objects of fields that did not change are shared:
    read them, never change them).

    Call it inside ``i18n.using(language)``: the status line and the words are translated.
    """
    board = view.board
    fixed = None if reuse is None else reuse.fixed
    if fixed is None:
        fixed = {
            "type": "state",
            "game_id": view.game_id,
            "game": view.game.value,
            "title": render.game_title(view),  # the game, its size and rules
            "width": board.width,
            "height": board.height,
            "gravity": board.gravity,
            "marks": table_spec(view.game).pieces is Pieces.MARKS,  # X and O, not stones
            "colours": [words.colour_name(Color.BLACK), words.colour_name(Color.WHITE)],
            "words": web_words.page_words(),
            "language": i18n.current().replace("_", "-"),  # the page's lang (fonts for CJK)
        }
        if reuse is not None:
            reuse.fixed = fixed
    active = view.status is GameStatus.ACTIVE
    forbidden: list[list[int]] = []
    if active and board.rule is Rule.RENJU and board.to_move is Color.BLACK:
        forbidden = [[p.x, p.y] for p in sorted(forbidden_points(board))]
    theme = render.theme_for(view.game)
    black, white = names(view.black), names(view.white)

    def named(player: Player) -> str:  # the two seats named once for the line and the fields
        if player is view.black:
            return black
        return white if player is view.white else names(player)

    # The page draws its own stones beside the names: emoji stones depend on the reader's
    # fonts (a light glyph for Black, or none at all), so they leave the status line.
    line = render.status_line(view, named)
    for glyph in (theme.black, theme.white):
        line = line.replace(f"{glyph} ", "")
    to_move = view.acting_color if active else None
    your_turn = mine is not None and to_move is mine and not view.is_ai_turn
    return {
        **fixed,
        "version": view.version,
        "status": view.status.value,
        "line": line,
        "moves": _listed(board.moves) if reuse is None else reuse.moves(board.moves),
        "winning": [[p.x, p.y] for p in board.winning_line],
        "forbidden": forbidden,
        "to_move": None if to_move is None else _colour(to_move),
        "you": None if mine is None else _colour(mine),
        "your_turn": your_turn,
        "black": black,
        "white": white,
        "ai_turn": active and view.is_ai_turn,
        "over": not active,
        # the choices the viewer may make now (resign while the game lasts; the opening's
        # choices on the viewer's turn), each sent back as ``{"type": ..., "word": ...}``
        "choices": choices(view) if mine is not None and to_move is mine else [],
        "can_resign": active and mine is not None,
        "can_undo": active and mine is not None and _has_own_move(view, mine),
        # the AI's suggestion, where /gomoku hint gives one (friendly games, past the opening)
        "can_hint": your_turn and not view.rated and not view.in_opening,
        # when the player to move runs out of time (Unix seconds), if the game has a clock
        "deadline": view.deadline.timestamp() if active and view.deadline else None,
        # a finished game: the same again, and (between people) a game against the AI
        "can_rematch": view.status is GameStatus.FINISHED and mine is not None,
        "against_ai": view.black.is_ai or view.white.is_ai,
    }


# Fields a delta carries on its own terms rather than in ``set``.
_FRAME: Final = frozenset({"type", "version", "moves"})


def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What turns the page's ``before`` into ``after`` (two ``game_payload`` objects of one
    game and viewer kind): ``{"type": "delta", "base": V, "version": W, "keep": K, "add":
    [...], "set": {...}}``, for the page whose version is ``V``. The first ``K`` moves stay
    (fewer than the page has after a takeback), ``add`` follows them, and each field of
    ``set`` replaces the page's.
    """
    old, new = before["moves"], after["moves"]
    keep = min(len(old), len(new))
    if old[:keep] != new[:keep]:
        keep = next(i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b)
    # Fields that did not change are often the very same object (``Reuse``): the words'
    # dict is not compared key by key.
    changed = {
        key: value
        for key, value in after.items()
        if key not in _FRAME
        and (key not in before or (before[key] is not value and before[key] != value))
    }
    return {
        "type": "delta",
        "base": before["version"],
        "version": after["version"],
        "keep": keep,
        "add": new[keep:],
        "set": changed,
    }
