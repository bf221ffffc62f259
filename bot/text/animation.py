"""A finished game move by move as an animated GIF (a replay's download, ``/gomoku history``)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Final

from bot.core.service.states import GameState
from bot.text.render_png import PngOptions, render_png

if TYPE_CHECKING:
    pass

__all__ = ["FRAME_MS", "animation"]

FRAME_MS: Final = 700  # one move per frame; the last frame stays three times as long
_ANIMATION_CELL: Final = 24  # pixels per point: a 15x15 game of 60 moves is ~100 kB


def animation(view: GameState, *, frame_ms: int = FRAME_MS) -> bytes:
    """The game move by move as an animated GIF (CPU work: run it in a thread)."""
    from PIL import Image

    options = PngOptions(cell=_ANIMATION_CELL, move_numbers=False, forbidden=False)
    frames = [
        Image.open(io.BytesIO(render_png(view.after(ply).board, options))).convert("P")
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
