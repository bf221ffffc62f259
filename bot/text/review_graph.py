"""A review's evaluation over the game, drawn as a PNG (the image of ``/gomoku review``)."""

from __future__ import annotations

import io
import itertools
from typing import Final

from bot.core.review import MarkKind, Review

__all__ = ["graph_png"]


_GRAPH_SIZE: Final = (640, 240)
_MARGIN: Final = 24
_COLOURS: Final = {
    "paper": (250, 247, 240),
    "black": (40, 40, 40),
    "white": (225, 222, 215),
    "axis": (150, 150, 150),
    MarkKind.BLUNDER: (214, 48, 49),
    MarkKind.MISSED_WIN: (230, 145, 20),
    "turning": (52, 101, 196),
}


def graph_png(review: Review) -> bytes:
    """The evaluation over the game as a PNG: above the middle Black is better, below White;
    the top and bottom edges are proven wins. Marks are dots (red a blunder, orange a missed
    win); a blue line stands at the turning point. CPU work: run it in a thread."""
    from PIL import Image, ImageDraw

    width, height = _GRAPH_SIZE
    image = Image.new("RGB", _GRAPH_SIZE, _COLOURS["paper"])
    draw = ImageDraw.Draw(image)
    left, right = _MARGIN, width - _MARGIN
    top, bottom = _MARGIN, height - _MARGIN
    middle = (top + bottom) / 2
    count = max(len(review.steps) - 1, 1)

    def x_of(ply: int) -> float:
        return left + (right - left) * ply / count

    def y_of(value: float) -> float:
        return middle - (bottom - top) / 2 * value

    points = [(x_of(i), y_of(s.value)) for i, s in enumerate(review.steps) if s is not None]
    if points:
        # Black's advantage filled dark above the middle, White's light below
        polygon = [(points[0][0], middle), *points, (points[-1][0], middle)]
        draw.polygon(polygon, fill=_COLOURS["white"])
        for (x0, y0), (x1, y1) in itertools.pairwise(points):
            draw.polygon(
                [(x0, middle), (x0, min(y0, middle)), (x1, min(y1, middle)), (x1, middle)],
                fill=_COLOURS["black"],
            )
        draw.line(points, fill=_COLOURS["axis"], width=2)
    draw.line([(left, middle), (right, middle)], fill=_COLOURS["axis"], width=1)
    draw.rectangle([(left, top), (right, bottom)], outline=_COLOURS["axis"])
    if review.turning is not None:
        x = x_of(review.turning)
        draw.line([(x, top), (x, bottom)], fill=_COLOURS["turning"], width=2)
    for mark in review.marks:
        step = review.steps[mark.ply] if mark.ply < len(review.steps) else None
        y = y_of(step.value) if step is not None else middle
        x = x_of(mark.ply)
        draw.ellipse([(x - 5, y - 5), (x + 5, y + 5)], fill=_COLOURS[mark.kind])
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
