"""The public board on a phone (issue 10): every size 5-20, in every text style, within the
width a phone shows in portrait, with coordinates on every row and column."""

from __future__ import annotations

import re
import unicodedata

import pytest

from bot.text.render import Look, game_card, phone_viewport
from engine.board import Board
from engine.types import Game, Point, Rule
from tests.bot.test_render import view_of

PHONE_EMOJI: float = 11.0  # emoji widths a phone shows in an embed row (DISCORD.md: 11-13)
PHONE_MONO: int = 36  # characters of a code-block line a phone shows
ZWSP = "\u200b"


def emoji_width(line: str) -> float:
    """A row's width in emoji: an emoji (a regional-indicator letter too) is 1, a digit or a
    space about half of one; zero-width and combining characters nothing."""
    width = 0.0
    for ch in line:
        if ch in (ZWSP, "\ufe0f", "\u20e3"):
            continue
        if ch.isdigit() or ch == " ":
            width += 0.5
        elif unicodedata.east_asian_width(ch) == "W" or 0x1F1E6 <= ord(ch) <= 0x1F1FF:
            width += 1.0
        else:
            width += 0.5
    return width


def _board(size: int) -> Board:
    board = Board.for_game(Game.GOMOKU, size=size, rule=Rule.FREESTYLE)
    for point in [Point(0, 0), Point(size - 1, size - 1), Point(size - 1, 0)]:
        board.play(point)
    return board


@pytest.mark.parametrize("size", range(5, 21))
def test_the_public_emoji_board_fits_a_phone(size: int) -> None:
    board = _board(size)
    card = game_card(view_of(board), viewport=phone_viewport(board, Look.EMOJI))
    lines = card.description.split("\n")
    grid = [line for line in lines if re.fullmatch(r"[⚫⚪➕⬛⬜]+ \d+", line)]  # noqa: RUF001
    header = next(line for line in lines if line and 0x1F1E6 <= ord(line[0]) <= 0x1F1FF)
    assert grid, card.description
    assert len(grid) == min(size, 9)
    for line in [header, *grid]:
        assert emoji_width(line) <= PHONE_EMOJI, (size, line)
    # Coordinates stay visible: a letter over every column, a number after every row.
    assert len(header.split(ZWSP)) == len(grid[0].split(" ")[0])
    if size > 9:
        assert f"of {size}x{size}" in card.description  # says which part it shows
        assert "⬛" in "".join(grid)  # the last move (Black at the corner) is in view


@pytest.mark.parametrize("size", range(5, 21))
def test_the_public_compact_board_fits_a_phone(size: int) -> None:
    board = _board(size)
    card = game_card(
        view_of(board), style=Look.COMPACT, viewport=phone_viewport(board, Look.COMPACT)
    )
    block = card.description.split("```")[1]
    for line in block.strip("\n").split("\n"):
        assert len(line) <= PHONE_MONO, (size, line)


def test_image_and_gravity_boards_are_never_windowed() -> None:
    assert phone_viewport(_board(20), Look.IMAGE) is None
    assert phone_viewport(Board.for_game(Game.CONNECT4), Look.EMOJI) is None
    assert phone_viewport(_board(9), Look.EMOJI) is None
