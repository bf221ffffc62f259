"""Words players read on the phone-play surfaces: the tap panel, turn pings, rematches, views.

Refusals live in ``bot.errors``; this module holds the other sentences and labels of those
features, so that a later translation finds them in one place.
"""

from __future__ import annotations

from typing import Final

from engine.types import Color

__all__ = [
    "MOVE_LABEL",
    "NO_GAME_TO_SHOW",
    "PLAY_AGAIN_LABEL",
    "REMATCH_LABEL",
    "RESTARTED",
    "VIEW_NAMES",
    "colour_name",
    "panel_after_move",
    "panel_heading",
    "panel_window_line",
    "turn_ping",
    "view_saved",
    "window_line",
]

MOVE_LABEL: Final = "Move"  # the public board's button that opens the tap panel
REMATCH_LABEL: Final = "Rematch"  # a finished game between people
PLAY_AGAIN_LABEL: Final = "Play again"  # a finished game against the AI
NO_GAME_TO_SHOW: Final = "There is no game in this channel to show."
RESTARTED: Final = "The bot restarted while the AI was thinking; here is the board now."

VIEW_NAMES: Final = {
    "full": "the whole board in emoji",
    "phone": "a phone-sized window around the action",
    "image": "a picture of the whole board",
}


def colour_name(color: Color) -> str:
    """``Black`` / ``White``."""
    return "Black" if color is Color.BLACK else "White"


def panel_heading(title: str, stone: str, color: Color) -> str:
    """The panel's first line."""
    return f"**{title}** · your move, {stone} {colour_name(color)}"


def panel_window_line(columns: str, rows: str) -> str:
    """What the buttons show, and how to use them."""
    return f"Buttons: columns {columns}, rows {rows}. Tap a point to play; arrows move the window."


def window_line(columns: str, rows: str, width: int, height: int) -> str:
    """Under a public board that shows only part of a large board."""
    return f"Showing columns {columns}, rows {rows} of {width}x{height} · /gomoku view for more"


def panel_after_move(point: str, waiting_for: str | None, over: bool) -> str:
    """The panel after its tap was played: the move, and who is to move now."""
    text = f"You played **{point}**."
    if over:
        return text + " The game is over; the board shows the result."
    if waiting_for is not None:
        return text + f" Now it is {waiting_for}'s move."
    return text


def turn_ping(user_id: int, game_name: str) -> str:
    """The short message that tells the player to move it is their turn."""
    return f"<@{user_id}>, your move in {game_name}."


def view_saved(view: str) -> str:
    """The answer to ``/gomoku view``."""
    return f"Your private boards now show {VIEW_NAMES.get(view, view)}. Here is the game:"
