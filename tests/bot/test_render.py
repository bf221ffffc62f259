"""Text boards: within Discord's limits for every size, and faithful to the position.

The oracle reads an emoji board back cell by cell and compares it with the engine's Board.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core import positions
from bot.core.positions import forbidden_points
from bot.core.service.states import GameState
from bot.text.render import (
    MAX_MESSAGE,
    VIEWPORT,
    Look,
    compact_board,
    emoji_board,
    game_card,
    game_text,
    status_line,
    theme_for,
    window,
)
from engine.board import Board
from engine.types import Color, Game, Point, Rule
from storage.records import GameRecord, GameStatus, Player
from tests.scale import examples

REGIONAL = re.compile("[\U0001f1e6-\U0001f1ff]")
ADJACENT_REGIONAL = re.compile("[\U0001f1e6-\U0001f1ff]{2}")


@st.composite
def boards(draw: st.DrawFn, *, max_moves: int = 60) -> Board:
    """Random positions of every game and Gomoku size, finished ones included."""
    game = draw(st.sampled_from(list(Game)))
    if game is Game.GOMOKU:
        size = draw(st.integers(5, 20))
        rule = draw(st.sampled_from([Rule.FREESTYLE, Rule.RENJU]))
        board = Board.for_game(game, size=size, rule=rule)
    else:
        board = Board.for_game(game)
    for _ in range(draw(st.integers(0, max_moves))):
        legal = board.legal_moves()
        if not legal:
            break
        board.play(draw(st.sampled_from(legal)))
    return board


def view_of(board: Board, *, black: Player | None = None, white: Player | None = None) -> GameState:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    record = GameRecord(
        id=12345,
        guild_id=1,
        channel_id=2,
        game=board.game,
        width=board.width,
        height=board.height,
        rule=board.rule,
        black=black or Player.human(123456789012345678),
        white=white or Player.human(876543210987654321),
        status=GameStatus.ACTIVE if board.outcome is None else GameStatus.FINISHED,
        outcome=board.outcome,
        rated=True,
        message_channel_id=None,
        message_id=None,
        deadline=None,
        warning_sent=False,
        turn_seconds=None,
        created_by=None,
        created_at=now,
        updated_at=now,
        finished_at=None,
        ply=len(board.moves),
        version=len(board.moves) + 1,
    )
    return GameState(record, board)


def read_emoji_board(text: str, board: Board) -> dict[Point, str]:
    """Oracle: the glyph drawn at each point, parsed back from the emoji text."""
    theme = theme_for(board.game)
    glyphs = sorted(
        {
            theme.black,
            theme.white,
            theme.empty,
            theme.black_last,
            theme.white_last,
            theme.black_win,
            theme.white_win,
            theme.forbidden,
        },
        key=len,
        reverse=True,
    )
    pattern = re.compile("|".join(re.escape(g) for g in glyphs))
    return _parse_rows(text.split("\n"), board, pattern)


def _parse_rows(lines: list[str], board: Board, pattern: re.Pattern[str]) -> dict[Point, str]:
    header, rows = lines[0], lines[1:]
    if board.gravity:
        columns = [int(k[0]) - 1 for k in re.findall(r"\d\ufe0f\u20e3|\U0001f51f", header)]
        columns = [9 if c < 0 else c for c in columns]
    else:
        columns = [ord(ch) - 0x1F1E6 for ch in REGIONAL.findall(header)]
    cells: dict[Point, str] = {}
    for i, line in enumerate(rows):
        if board.gravity:
            y = board.height - 1 - i
            body = line
        else:
            body, _, label = line.rpartition(" ")
            y = int(label) - 1
        found = pattern.findall(body)
        assert "".join(found) == body, f"unexpected text in row {line!r}"
        assert len(found) == len(columns)
        for x, glyph in zip(columns, found, strict=True):
            cells[Point(x, y)] = glyph
    return cells


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards(), st.sampled_from([None, VIEWPORT, 5]))
def test_emoji_board_is_faithful_and_fits(board: Board, viewport: int | None) -> None:
    text = emoji_board(board, viewport=viewport)
    assert len(text) <= MAX_MESSAGE
    assert not ADJACENT_REGIONAL.search(text), "column letters would merge into flags"
    theme = theme_for(board.game)
    cells = read_emoji_board(text, board)
    expected_window = window(board, viewport)
    assert set(cells) == {
        Point(x, y)
        for x in expected_window.columns
        for y in range(expected_window.y0, expected_window.y1 + 1)
    }
    last = board.last_move.point if board.last_move else None
    winning = set(board.winning_line)
    show_forbidden = (
        board.rule is Rule.RENJU and board.outcome is None and (board.to_move is Color.BLACK)
    )
    forbidden = set(board.forbidden_points()) if show_forbidden else set()
    for point, glyph in cells.items():
        stone = board[point]
        if stone is None:
            assert glyph == (theme.forbidden if point in forbidden else theme.empty), point
        elif point in winning:
            assert glyph == (theme.black_win if stone is Color.BLACK else theme.white_win)
        elif point == last:
            assert glyph == (theme.black_last if stone is Color.BLACK else theme.white_last)
        else:
            assert glyph == (theme.black if stone is Color.BLACK else theme.white)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards(), st.sampled_from(list(Look)), st.sampled_from([None, VIEWPORT]))
def test_whole_messages_fit_discord(board: Board, style: Look, viewport: int | None) -> None:
    view = view_of(board)
    text = game_text(view, style=style, viewport=viewport)
    assert len(text) <= MAX_MESSAGE
    assert not ADJACENT_REGIONAL.search(text)
    card = game_card(view, style=style, viewport=viewport)
    assert len(card.description) <= 4096
    assert len(card.title) <= 256


@settings(max_examples=examples(60), deadline=None)
@given(boards(max_moves=80))
def test_viewport_keeps_the_action_in_view(board: Board) -> None:
    view = window(board, VIEWPORT)
    assert view.x1 - view.x0 + 1 == min(VIEWPORT, board.width)
    assert view.y1 - view.y0 + 1 == min(VIEWPORT, board.height)
    assert 0 <= view.x0 <= view.x1 < board.width
    assert 0 <= view.y0 <= view.y1 < board.height
    if board.winning_line:
        assert all(p in view for p in board.winning_line)  # five fits in nine
    elif board.last_move is not None:
        assert board.last_move.point in view


def test_largest_board_fits_with_room_to_spare() -> None:
    board = Board.for_game(Game.GOMOKU, size=20)
    for text in ("a1", "t20", "j10"):
        board.play(Point.parse(text))
    text = emoji_board(board)
    # 20 rows of 20 one-code-point glyphs plus labels: about a quarter of the limit.
    assert len(text) < 600
    assert len(text.splitlines()) == 21


def test_compact_board_marks_last_move_win_and_forbidden() -> None:
    board = Board.from_moves("h8 a1 i8 a2 j8 a3 k8 a4 l8")
    text = compact_board(board)
    assert text.startswith("```\n")
    assert text.endswith("\n```")
    row8 = next(line for line in text.splitlines() if line.startswith(" 8"))
    assert row8 == " 8 . . . . . . . * * * *[*]. . . 8"
    assert "O" in text

    renju = Board.from_moves("h8 a1 i8 a3 h10 a5 i9 a7", rule=Rule.RENJU)
    forbidden = renju.forbidden_points()
    assert forbidden
    assert compact_board(renju).count("!") == len(forbidden)
    assert "!" not in compact_board(renju, forbidden=False)


@pytest.fixture
def counted_forbidden(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the engine's forbidden-point searches; start with an empty cache."""
    calls = [0]
    engine_forbidden_points = Board.forbidden_points

    def counting(board: Board) -> list[Point]:
        calls[0] += 1
        return engine_forbidden_points(board)

    monkeypatch.setattr(Board, "forbidden_points", counting)
    monkeypatch.setattr(positions, "_forbidden", OrderedDict())
    return calls


def test_forbidden_points_are_worked_out_once_per_position(counted_forbidden: list[int]) -> None:
    board = Board.from_moves("h8 a1 i8 a3 h10 a5 i9 a7", rule=Rule.RENJU)
    j8 = Point.parse("j8")
    assert forbidden_points(board) == {j8}
    # Every style of the same position, and a copy of it, reuse the answer.
    assert "🚫" in emoji_board(board)
    assert "!" in compact_board(board)
    assert forbidden_points(board.copy()) == {j8}
    assert counted_forbidden == [1]


def test_forbidden_points_follow_the_board_through_moves_and_undo(
    counted_forbidden: list[int],
) -> None:
    board = Board.from_moves("h8 a1 i8 a3 h10 a5 i9 a7", rule=Rule.RENJU)
    j8, i10 = Point.parse("j8"), Point.parse("i10")
    assert forbidden_points(board) == {j8}
    # The same Board object changes: a cache keyed on the object (or the game) would go stale.
    board.play(Point.parse("o1"))
    board.play(Point.parse("g8"))  # White blocks the three: j8 is allowed again
    assert forbidden_points(board) == frozenset()
    assert "!" not in compact_board(board)
    board.play(Point.parse("j10"))
    board.play(Point.parse("a9"))  # Black's j10 makes i10 a three-three
    assert forbidden_points(board) == {i10}
    for _ in range(4):
        board.undo()
    assert forbidden_points(board) == {j8}
    assert counted_forbidden == [3]  # the undo went back to a position already known
    freestyle = Board.from_moves("h8 a1 i8 a3 h10 a5 i9 a7")
    assert forbidden_points(freestyle) == frozenset()


def test_gravity_header_uses_column_numbers() -> None:
    board = Board.for_game(Game.CONNECT4)
    board.drop(3)
    text = emoji_board(board)
    assert text.splitlines()[0] == "1️⃣2️⃣3️⃣4️⃣5️⃣6️⃣7️⃣"
    assert text.splitlines()[-1] == "⚫⚫⚫🟥⚫⚫⚫"


def test_status_lines() -> None:
    board = Board.from_moves("h8 i9")
    ai = Player.ai("hard")
    line = status_line(view_of(board, white=ai))
    assert "<@123456789012345678>" in line
    assert "AI (hard)" in line
    assert "move 3" in line
    assert "last i9" in line
    finished = Board.from_moves("h8 a1 h9 a2 h10 a3 h11 a4 h12")
    assert "wins" in status_line(view_of(finished))


@pytest.mark.parametrize("style", list(Look), ids=[s.value for s in Look])
def test_png_style_text_has_no_board(style: Look) -> None:
    text = game_text(view_of(Board.from_moves("h8")), style=style)
    has_board = "➕" in text or "```" in text  # noqa: RUF001
    assert has_board is (style is not Look.IMAGE)
