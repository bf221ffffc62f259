"""Drawing a board as a PNG with Pillow (the "image" board style).

Gomoku is drawn the way players know it: stones on the intersections of a wooden grid with
star points, coordinates on all four sides (letters a.. left to right, numbers from the
bottom). The small games are drawn as cells. Marks: a red dot on the last move, a red line
through a winning row, small red crosses on renju points forbidden to Black (while Black is to
move), and optionally the move number on every stone. Uses Pillow's built-in scalable font, so
no system fonts are needed.

Speed matters: the image style is the default, so every move draws one. The empty board (grid,
star points, anti-aliased coordinates) is drawn once per layout and kept as a palette image
whose palette holds every colour of it exactly plus the colours drawn on top; a render copies
it and draws only stones and marks. zlib packs a palette image about ten times faster than
RGB (Pillow tries every row filter on RGB, none on a palette) and the file is smaller: about
2 ms instead of 15 for a 15x15 board. Move numbers are the exception: anti-aliased text needs
RGB, so that option draws in RGB and pays the slower encoding.
"""

from __future__ import annotations

import asyncio
import functools
import io
from dataclasses import dataclass
from typing import Final, TypeAlias

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from bot.core.games import Pieces, table_spec
from bot.core.positions import forbidden_points
from engine.board import Board
from engine.types import Color, Point, Rule, column_letter

__all__ = ["PngOptions", "render_png", "render_png_async"]

RGB: TypeAlias = tuple[int, int, int]

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
# Everything drawn over the empty board: these always have a palette entry of their own.
_INKS: Final[tuple[RGB, ...]] = (_BLACK, _WHITE, _LINE, _MARK, _RED_DISC, _YELLOW_DISC)
_BACKGROUND: Final = {Pieces.STONES: _WOOD, Pieces.DISCS: _CELL_BG, Pieces.MARKS: _TTT_BG}
_COMPRESS_LEVEL: Final = 2  # as fast as 1 on a palette image and smaller; 6 halves it again at 2x
_CACHED_LAYOUTS: Final = 64  # empty boards kept: (game, size, cell) combinations


@dataclass(frozen=True, slots=True)
class PngOptions:
    """How to draw: the size of one cell in pixels and whether to number the stones."""

    cell: int = 36  # pixels per point; 36 keeps a 20x20 board under 800 px
    move_numbers: bool = False  # write each stone's move number on it
    forbidden: bool = True  # mark renju points forbidden to Black while Black is to move


@dataclass(frozen=True, slots=True)
class _Layout:
    """What the empty board's picture depends on (the key of its cache)."""

    pieces: Pieces
    width: int
    height: int
    gravity: bool
    cell: int  # pixels per point; the margin for the coordinates is one cell too

    @classmethod
    def of(cls, board: Board, options: PngOptions) -> _Layout:
        pieces = table_spec(board.game).pieces
        # Stones go on boards up to 20x20; marks and discs fill a few large cells.
        cell = options.cell if pieces is Pieces.STONES else max(options.cell, 64)
        return cls(pieces, board.width, board.height, board.gravity, cell)

    @property
    def size(self) -> tuple[int, int]:
        return (self.width + 2) * self.cell, (self.height + 2) * self.cell

    def centre(self, point: Point) -> tuple[int, int]:
        # Row 1 is at the bottom of the picture, as in the notation.
        return (
            self.cell + point.x * self.cell + self.cell // 2,
            self.cell + (self.height - 1 - point.y) * self.cell + self.cell // 2,
        )


@functools.lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Loading the built-in font decodes it from base64: once per size is enough.
    return ImageFont.load_default(size=size)


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


def _draw_empty(layout: _Layout) -> Image.Image:
    """The board without stones, in RGB: background, coordinates, grid, holes."""
    cell, margin = layout.cell, layout.cell
    width, height = layout.size
    background = _BACKGROUND[layout.pieces]
    image = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(image)
    label_font = _font(max(10, cell * 2 // 5))
    centre = layout.centre

    # Coordinates on all four sides.
    text_colour = _WHITE if layout.pieces is Pieces.DISCS else _LINE
    for x in range(layout.width):
        label = str(x + 1) if layout.gravity else column_letter(x)
        cx = margin + x * cell + cell // 2
        for cy in (margin // 2, height - margin // 2):
            draw.text((cx, cy), label, fill=text_colour, font=label_font, anchor="mm")
    if not layout.gravity:
        for y in range(layout.height):
            cy = margin + (layout.height - 1 - y) * cell + cell // 2
            for cx in (margin // 2, width - margin // 2):
                draw.text((cx, cy), str(y + 1), fill=text_colour, font=label_font, anchor="mm")

    # The grid.
    if layout.pieces is Pieces.STONES:
        first = centre(Point(0, layout.height - 1))
        last = centre(Point(layout.width - 1, 0))
        for x in range(layout.width):
            cx = centre(Point(x, 0))[0]
            draw.line([(cx, first[1]), (cx, last[1])], fill=_LINE, width=1)
        for y in range(layout.height):
            cy = centre(Point(0, y))[1]
            draw.line([(first[0], cy), (last[0], cy)], fill=_LINE, width=1)
        for sx, sy in _star_points(layout.width if layout.width == layout.height else 0):
            cx, cy = centre(Point(sx, sy))
            r = max(2, cell // 12)
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=_LINE)
    elif layout.pieces is Pieces.DISCS:
        r = cell * 2 // 5
        for x in range(layout.width):
            for y in range(layout.height):
                cx, cy = centre(Point(x, y))
                draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=_HOLE)
    else:
        for i in range(1, layout.width):
            x = margin + i * cell
            draw.line([(x, margin), (x, margin + layout.height * cell)], fill=_LINE, width=3)
        for i in range(1, layout.height):
            y = margin + i * cell
            draw.line([(margin, y), (margin + layout.width * cell, y)], fill=_LINE, width=3)
    return image


def _to_palette(image: Image.Image) -> Image.Image:
    """``image`` as a palette image with exactly its colours (Pillow's own conversion snaps
    close colours together), the inks first. More than 256 colours are cut by median cut."""
    budget = 256 - len(_INKS)
    found = image.getcolors(budget)
    if found is None:
        image = image.quantize(budget, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        image = image.convert("RGB")
    pixels = np.asarray(image, dtype=np.uint32)
    codes = (pixels[..., 0] << 16) | (pixels[..., 1] << 8) | pixels[..., 2]
    colours, inverse = np.unique(codes, return_inverse=True)
    palette: dict[RGB, int] = {ink: i for i, ink in enumerate(_INKS)}
    for code in colours.tolist():
        palette.setdefault(((code >> 16) & 255, (code >> 8) & 255, code & 255), len(palette))
    index_of = np.array(
        [palette[((c >> 16) & 255, (c >> 8) & 255, c & 255)] for c in colours.tolist()],
        dtype=np.uint8,
    )
    indices = index_of[inverse.reshape(codes.shape)]
    result = Image.frombytes("P", image.size, indices.tobytes())
    result.putpalette([channel for colour in palette for channel in colour])
    return result


@functools.lru_cache(maxsize=_CACHED_LAYOUTS)
def _empty_board(layout: _Layout) -> Image.Image:
    """The empty board as a palette image. Shared: copy it before drawing on it."""
    return _to_palette(_draw_empty(layout))


def render_png(board: Board, options: PngOptions | None = None) -> bytes:
    """The board as PNG bytes."""
    options = options or PngOptions()
    layout = _Layout.of(board, options)
    empty = _empty_board(layout)
    # Anti-aliased numbers need RGB; everything else draws straight on the palette image.
    image = empty.convert("RGB") if options.move_numbers else empty.copy()
    draw = ImageDraw.Draw(image)
    _draw_stones(draw, board, layout, options)
    _draw_marks(draw, board, layout, options)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=_COMPRESS_LEVEL)
    return out.getvalue()


async def render_png_async(board: Board, options: PngOptions | None = None) -> bytes:
    """``render_png`` in a worker thread, so the event loop never waits on Pillow;
    ``board`` is copied first, so the caller may keep using its own."""
    return await asyncio.to_thread(render_png, board.copy(), options)


def _draw_stones(
    draw: ImageDraw.ImageDraw, board: Board, layout: _Layout, options: PngOptions
) -> None:
    cell = layout.cell
    numbers = {move.point: i + 1 for i, move in enumerate(board.moves)}
    number_font = _font(max(9, cell * 2 // 5))
    radius = cell * 9 // 20
    for point in board:
        color = board[point]
        if color is None:
            continue
        cx, cy = layout.centre(point)
        text_fill: RGB
        if layout.pieces is Pieces.MARKS:
            _draw_tictactoe_mark(draw, (cx, cy), radius, color)
            text_fill = _MARK
        elif layout.pieces is Pieces.DISCS:
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


def _draw_marks(
    draw: ImageDraw.ImageDraw, board: Board, layout: _Layout, options: PngOptions
) -> None:
    """Forbidden points, the winning line, the last move."""
    cell, centre = layout.cell, layout.centre
    if (
        options.forbidden
        and board.rule is Rule.RENJU
        and board.outcome is None
        and board.to_move is Color.BLACK
    ):
        r = max(3, cell // 6)
        for point in sorted(forbidden_points(board)):
            cx, cy = centre(point)
            draw.line([(cx - r, cy - r), (cx + r, cy + r)], fill=_MARK, width=2)
            draw.line([(cx - r, cy + r), (cx + r, cy - r)], fill=_MARK, width=2)
    # Red discs would hide a red mark, so gravity boards mark in white.
    mark = _WHITE if layout.pieces is Pieces.DISCS else _MARK
    if board.winning_line:
        ends = sorted(board.winning_line)
        draw.line([centre(ends[0]), centre(ends[-1])], fill=mark, width=max(3, cell // 8))
    last = board.last_move
    if last is None:
        return
    cx, cy = centre(last.point)
    if not (options.move_numbers and table_spec(board.game).move_numbers):
        r = max(3, cell // 7)
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=mark, outline=_BLACK)
    else:
        # With numbers on the stones, a ring marks the last move instead of a dot.
        radius = cell * 9 // 20
        draw.ellipse(
            [cx - radius - 2, cy - radius - 2, cx + radius + 2, cy + radius + 2],
            outline=_MARK,
            width=2,
        )


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
