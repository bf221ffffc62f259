"""Drawing a board as a PNG with Pillow (the "image" board style).

Gomoku is drawn the way players know it: stones on the intersections of a wooden grid with
star points, coordinates on all four sides (letters a.. left to right, numbers from the
bottom). The small games are drawn as cells. Marks: a red dot on the last move, a red line
through a winning row, small red crosses on renju points forbidden to Black (while Black is to
move), and optionally the move number on every stone. Uses Pillow's built-in scalable font, so
no system fonts are needed.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from engine.board import Board
from engine.types import Color, Game, Point, Rule, column_letter

__all__ = ["PngOptions", "render_png", "render_png_async"]

_WOOD: Final = (220, 179, 92)
_LINE: Final = (60, 40, 20)
_BLACK: Final = (20, 20, 20)
_WHITE: Final = (245, 245, 240)
_MARK: Final = (220, 30, 30)
_CELL_BG: Final = (40, 80, 170)  # Connect Four's blue frame
_RED_DISC: Final = (215, 40, 40)
_YELLOW_DISC: Final = (240, 200, 30)
_HOLE: Final = (235, 235, 235)
_TTT_BG: Final = (250, 250, 250)


@dataclass(frozen=True, slots=True)
class PngOptions:
    """How to draw: the size of one cell in pixels and whether to number the stones."""

    cell: int = 36  # pixels per point; 36 keeps a 20x20 board under 800 px
    move_numbers: bool = False  # write each stone's move number on it
    forbidden: bool = True  # mark renju points forbidden to Black while Black is to move


def _star_points(size: int) -> list[tuple[int, int]]:
    if size < 9:
        return []
    edge = 3 if size >= 13 else 2
    far = size - 1 - edge
    mid = size // 2
    points = [(edge, edge), (edge, far), (far, edge), (far, far)]
    if size % 2 == 1:
        points.append((mid, mid))
    return points


def render_png(board: Board, options: PngOptions | None = None) -> bytes:
    """The board as PNG bytes."""
    options = options or PngOptions()
    is_gomoku = board.game is Game.GOMOKU
    cell = options.cell if is_gomoku else max(options.cell, 64)  # small boards drawn larger
    margin = cell  # room for the coordinates on every side
    width = board.width * cell + 2 * margin
    height = board.height * cell + 2 * margin
    background = _WOOD if is_gomoku else (_CELL_BG if board.gravity else _TTT_BG)
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    label_font = ImageFont.load_default(size=max(10, cell * 2 // 5))
    number_font = ImageFont.load_default(size=max(9, cell * 2 // 5))

    def centre(point: Point) -> tuple[int, int]:
        # Row 1 is at the bottom of the picture, as in the notation.
        return (
            margin + point.x * cell + cell // 2,
            margin + (board.height - 1 - point.y) * cell + cell // 2,
        )

    # Coordinates on all four sides.
    text_colour = _LINE if is_gomoku or not board.gravity else _WHITE
    for x in range(board.width):
        label = str(x + 1) if board.gravity else column_letter(x)
        cx = margin + x * cell + cell // 2
        for cy in (margin // 2, height - margin // 2):
            draw.text((cx, cy), label, fill=text_colour, font=label_font, anchor="mm")
    if not board.gravity:
        for y in range(board.height):
            cy = margin + (board.height - 1 - y) * cell + cell // 2
            for cx in (margin // 2, width - margin // 2):
                draw.text((cx, cy), str(y + 1), fill=text_colour, font=label_font, anchor="mm")

    # The grid.
    if is_gomoku:
        first = centre(Point(0, board.height - 1))
        last = centre(Point(board.width - 1, 0))
        for x in range(board.width):
            cx = centre(Point(x, 0))[0]
            draw.line([(cx, first[1]), (cx, last[1])], fill=_LINE, width=1)
        for y in range(board.height):
            cy = centre(Point(0, y))[1]
            draw.line([(first[0], cy), (last[0], cy)], fill=_LINE, width=1)
        for sx, sy in _star_points(board.width if board.width == board.height else 0):
            cx, cy = centre(Point(sx, sy))
            r = max(2, cell // 12)
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=_LINE)
    elif board.gravity:
        for point in board:
            cx, cy = centre(point)
            r = cell * 2 // 5
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=_HOLE)
    else:
        for i in range(1, board.width):
            x = margin + i * cell
            draw.line([(x, margin), (x, margin + board.height * cell)], fill=_LINE, width=3)
        for i in range(1, board.height):
            y = margin + i * cell
            draw.line([(margin, y), (margin + board.width * cell, y)], fill=_LINE, width=3)

    # Stones.
    numbers = {move.point: i + 1 for i, move in enumerate(board.moves)}
    radius = cell * 9 // 20
    for point in board:
        color = board[point]
        if color is None:
            continue
        cx, cy = centre(point)
        if board.game is Game.TICTACTOE:
            _draw_tictactoe_mark(draw, (cx, cy), radius, color)
            text_fill = _MARK
        elif board.gravity:
            fill = _RED_DISC if color is Color.BLACK else _YELLOW_DISC
            draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=fill)
            text_fill = _BLACK
        else:
            fill, outline = (_BLACK, _BLACK) if color is Color.BLACK else (_WHITE, _LINE)
            draw.ellipse(
                [cx - radius, cy - radius, cx + radius, cy + radius], fill=fill, outline=outline
            )
            text_fill = _WHITE if color is Color.BLACK else _BLACK
        if options.move_numbers and point in numbers:
            draw.text((cx, cy), str(numbers[point]), fill=text_fill, font=number_font, anchor="mm")

    # Marks: forbidden points, the winning line, the last move.
    if (
        options.forbidden
        and board.rule is Rule.RENJU
        and board.outcome is None
        and board.to_move is Color.BLACK
    ):
        r = max(3, cell // 6)
        for point in board.forbidden_points():
            cx, cy = centre(point)
            draw.line([(cx - r, cy - r), (cx + r, cy + r)], fill=_MARK, width=2)
            draw.line([(cx - r, cy + r), (cx + r, cy - r)], fill=_MARK, width=2)
    # Red discs would hide a red mark, so gravity boards mark in white.
    mark = _WHITE if board.gravity else _MARK
    line: Sequence[Point] = board.winning_line
    if line:
        ends = sorted(line)
        draw.line([centre(ends[0]), centre(ends[-1])], fill=mark, width=max(3, cell // 8))
    if board.last_move is not None and not (options.move_numbers and is_gomoku):
        cx, cy = centre(board.last_move.point)
        r = max(3, cell // 7)
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=mark, outline=_BLACK)
    elif board.last_move is not None:
        # With numbers on the stones, a ring marks the last move instead of a dot.
        cx, cy = centre(board.last_move.point)
        draw.ellipse(
            [cx - radius - 2, cy - radius - 2, cx + radius + 2, cy + radius + 2],
            outline=_MARK,
            width=2,
        )

    out = io.BytesIO()
    # Fast zlib: about 8 ms instead of 40 for optimize=True, for a ~20 kB file (a 15x15 board).
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


async def render_png_async(board: Board, options: PngOptions | None = None) -> bytes:
    """``render_png`` in a worker thread, so the event loop never waits on Pillow (~15 ms);
    ``board`` is copied first, so the caller may keep using its own."""
    return await asyncio.to_thread(render_png, board.copy(), options)


def _draw_tictactoe_mark(
    draw: ImageDraw.ImageDraw, at: tuple[int, int], radius: int, color: Color
) -> None:
    cx, cy = at
    r = radius * 3 // 4
    if color is Color.BLACK:
        draw.line([(cx - r, cy - r), (cx + r, cy + r)], fill=_BLACK, width=max(3, r // 4))
        draw.line([(cx - r, cy + r), (cx + r, cy - r)], fill=_BLACK, width=max(3, r // 4))
    else:
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=_BLACK, width=max(3, r // 4))
