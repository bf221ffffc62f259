"""PNG boards: the picture shows the stones where the notation says, and the marks."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.text.render_png import PngOptions, render_png
from engine.board import Board
from engine.types import Game, Point, Rule

CELL = 36


def open_png(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return Image.open(io.BytesIO(data)).convert("RGB")


def centre(board: Board, point: Point, cell: int = CELL) -> tuple[int, int]:
    margin = cell
    return (
        margin + point.x * cell + cell // 2,
        margin + (board.height - 1 - point.y) * cell + cell // 2,
    )


def near(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=False))


@pytest.mark.parametrize("size", [5, 9, 15, 20], ids=lambda s: f"{s}x{s}")
def test_image_size_and_stones(size: int) -> None:
    board = Board.for_game(Game.GOMOKU, size=size)
    board.play(Point(0, 0))  # a1, bottom left
    board.play(Point(size - 1, size - 1))  # top right, White, the last move
    image = open_png(render_png(board))
    assert image.size == ((size + 2) * CELL, (size + 2) * CELL)
    # Probe off the centre so the last-move dot does not hide the stone's colour.
    bx, by = centre(board, Point(0, 0))
    assert near(image.getpixel((bx + 8, by + 8)), (20, 20, 20))  # type: ignore[arg-type]
    wx, wy = centre(board, Point(size - 1, size - 1))
    assert near(image.getpixel((wx + 8, wy + 8)), (245, 245, 240))  # type: ignore[arg-type]
    assert near(image.getpixel((wx, wy)), (220, 30, 30))  # type: ignore[arg-type]  # last move
    # Row 1 is at the bottom of the picture.
    assert by > wy


def test_winning_line_is_drawn_through_the_five() -> None:
    board = Board.from_moves("h8 a1 h9 a2 h10 a3 h11 a4 h12")
    image = open_png(render_png(board))
    for y in (8, 9, 10):  # the middle stones of the five carry the red line
        x, cy = centre(board, Point(7, y))
        assert near(image.getpixel((x, cy)), (220, 30, 30))  # type: ignore[arg-type]


def test_forbidden_points_are_marked_for_black() -> None:
    board = Board.from_moves("h8 a1 i8 a3 h10 a5 i9 a7", rule=Rule.RENJU)
    forbidden = board.forbidden_points()
    assert forbidden
    with_marks = open_png(render_png(board))
    without = open_png(render_png(board, PngOptions(forbidden=False)))
    x, y = centre(board, forbidden[0])
    assert with_marks.getpixel((x, y)) != without.getpixel((x, y))


def test_move_numbers_change_the_picture() -> None:
    board = Board.from_moves("h8 i9 h9")
    plain = render_png(board)
    numbered = render_png(board, PngOptions(move_numbers=True))
    assert plain != numbered


@pytest.mark.parametrize("game", [Game.TICTACTOE, Game.CONNECT4, Game.GRAVITY3])
def test_small_games_render(game: Game) -> None:
    board = Board.for_game(game)
    board.play(board.legal_moves()[0])
    image = open_png(render_png(board))
    assert image.size[0] > 200


def test_drawing_leaves_the_shared_empty_board_untouched() -> None:
    # Every render starts from one cached empty board per layout; stones must not stick to it.
    played = Board.from_moves("h8 i9 h9 a1")
    open_png(render_png(played, PngOptions(move_numbers=True)))
    open_png(render_png(played))
    empty = open_png(render_png(Board.for_game(Game.GOMOKU)))
    for point in played.moves:
        x, y = centre(played, point.point)
        assert near(empty.getpixel((x + 8, y + 8)), (220, 179, 92))  # type: ignore[arg-type]


@pytest.mark.parametrize("cell", [24, 36, 48], ids=lambda c: f"cell{c}")
def test_the_layout_follows_the_cell_size(cell: int) -> None:
    board = Board.from_moves("a1 o15")
    image = open_png(render_png(board, PngOptions(cell=cell)))
    assert image.size == (17 * cell, 17 * cell)
    bx, by = centre(board, Point(0, 0), cell)
    assert near(image.getpixel((bx + cell // 5, by + cell // 5)), (20, 20, 20))  # type: ignore[arg-type]
