"""Drawing games as text: emoji boards, compact code-block boards, status lines and cards.

No rules live here: what is legal, forbidden or winning comes from the engine's ``Board``.
Discord limits shape the output (DISCORD.md section 1): a message is at most 2000 code points;
regional-indicator letters next to each other merge into flags (C+D draws the flag of Congo),
so column headers are separated by zero-width spaces; a phone shows ~11-13 emoji per line, so
a ``viewport`` draws only a window (9x9 by default) around the action.

Emoji boards put column letters on top (regional indicators) and row numbers at the right end
of each row, where plain digits cannot push the grid out of line. Stones are round, the last
move is the square of its colour, a winning line is hearts and renju forbidden points carry a
no-entry sign.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

from bot.core.games import Pieces, table_spec
from bot.core.positions import forbidden_points
from bot.text import words
from bot.text.i18n import _, ngettext, number
from engine.board import Board
from engine.types import Color, Game, Point, Rule, Termination, column_letter
from storage.records import GameStatus

if TYPE_CHECKING:
    from bot.core.review import Mark
    from bot.core.service.states import GameState
    from storage.records import Player

__all__ = [
    "COMPACT_PHONE",
    "MAX_MESSAGE",
    "VIEWPORT",
    "Card",
    "Look",
    "Theme",
    "Window",
    "board_text",
    "compact_board",
    "emoji_board",
    "game_card",
    "game_name",
    "game_text",
    "move_name",
    "phone_viewport",
    "player_label",
    "status_line",
    "theme_for",
    "window",
    "window_note",
]

MAX_MESSAGE: Final = 2000  # Discord's message content limit, in code points
VIEWPORT: Final = 9  # the phone-sized window's side
COMPACT_PHONE: Final = 15  # columns of a compact (code block) board a phone shows unwrapped
ZWSP: Final = "\u200b"  # keeps regional-indicator headers from merging into flags
_REGIONAL_A: Final = 0x1F1E6
_KEYCAPS: Final = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟")


class Look(enum.StrEnum):
    """How boards look: a server's public boards, and each member's private ones."""

    EMOJI = "emoji"  # one emoji per point; readable everywhere, wide on phones
    COMPACT = "compact"  # monospace letters in a code block; fits phones at any size
    IMAGE = "image"  # a PNG (bot.text.render_png); the message carries only the status


@dataclass(frozen=True, slots=True)
class Theme:
    """The glyphs of one game's emoji board."""

    black: str
    white: str
    empty: str
    black_last: str  # the last move, when it was Black's
    white_last: str
    black_win: str  # a stone of Black's winning line
    white_win: str
    forbidden: str  # renju: a point Black may not play (shown while Black is to move)


GOMOKU_THEME: Final = Theme("⚫", "⚪", "➕", "⬛", "⬜", "🖤", "🤍", "🚫")  # noqa: RUF001
TICTACTOE_THEME: Final = Theme("❌", "⭕", "🟦", "❎", "🅾️", "🟥", "🟩", "🚫")
GRAVITY_THEME: Final = Theme("🔴", "🟡", "⚫", "🟥", "🟨", "💥", "🌟", "🚫")


_THEMES: Final = {
    Pieces.STONES: GOMOKU_THEME,
    Pieces.MARKS: TICTACTOE_THEME,
    Pieces.DISCS: GRAVITY_THEME,
}


def theme_for(game: Game) -> Theme:
    """The emoji theme for ``game``'s pieces (its table spec)."""
    return _THEMES[table_spec(game).pieces]


@dataclass(frozen=True, slots=True)
class Window:
    """A rectangle of the board: columns ``x0..x1`` and rows ``y0..y1``, inclusive."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def columns(self) -> range:
        """Visible columns, left to right."""
        return range(self.x0, self.x1 + 1)

    @property
    def rows_top_down(self) -> range:
        """Visible rows, top row first (as drawn)."""
        return range(self.y1, self.y0 - 1, -1)

    def __contains__(self, point: object) -> bool:
        return (
            isinstance(point, Point)
            and self.x0 <= point.x <= self.x1
            and self.y0 <= point.y <= self.y1
        )


def _clamp(low: int, value: int, high: int) -> int:
    return max(low, min(value, high))


def window(board: Board, side: int | None = VIEWPORT) -> Window:
    """The ``side`` x ``side`` window around the action: centred on the last few moves (on the
    winning line when there is one), always holding the last move, clamped inside the board.
    ``None``, a side at least the board's, or a gravity game gives the whole board."""
    width, height = board.width, board.height
    # Gravity boards are small, and a cut-off stack of stones would be unreadable.
    if side is None or board.gravity or (side >= width and side >= height):
        return Window(0, 0, width - 1, height - 1)
    w, h = min(side, width), min(side, height)
    recent = [move.point for move in board.moves[-4:]]
    focus = list(board.winning_line) or recent or [Point(width // 2, height // 2)]
    cx = round(sum(p.x for p in focus) / len(focus))
    cy = round(sum(p.y for p in focus) / len(focus))
    x0 = _clamp(0, cx - w // 2, width - w)
    y0 = _clamp(0, cy - h // 2, height - h)
    last = board.last_move.point if board.last_move is not None else None
    if last is not None and not board.winning_line:
        # Slide just enough to keep the last move in view.
        x0 = _clamp(last.x - w + 1, x0, last.x)
        y0 = _clamp(last.y - h + 1, y0, last.y)
    return Window(x0, y0, x0 + w - 1, y0 + h - 1)


def _marks(
    board: Board, forbidden: bool
) -> tuple[Point | None, frozenset[Point], frozenset[Point]]:
    last = board.last_move.point if board.last_move is not None else None
    winning = frozenset(board.winning_line)
    shows_forbidden = (
        forbidden
        and board.rule is Rule.RENJU
        and board.outcome is None
        and board.to_move is Color.BLACK
    )
    banned = forbidden_points(board) if shows_forbidden else frozenset()
    return last, winning, banned


def _regional(letter: str) -> str:
    return chr(_REGIONAL_A + ord(letter) - ord("a"))


def _column_header(board: Board, columns: range) -> str:
    return _header(board.gravity, columns.start, columns.stop)


@cache
def _header(gravity: bool, start: int, stop: int) -> str:
    """The header over columns ``start`` to ``stop - 1``: the same few windows on every board."""
    if gravity:
        # Gravity moves are typed as column numbers, so the header shows those numbers.
        return "".join(_KEYCAPS[x] if x < len(_KEYCAPS) else f"{x + 1}" for x in range(start, stop))
    return ZWSP.join(_regional(column_letter(x)) for x in range(start, stop))


def phone_viewport(board: Board, style: Look) -> int | None:
    """The window side that keeps a public board within a phone's width in portrait (about
    11 emoji a row in an embed, DISCORD.md section 1), or None for the whole board."""
    if style is Look.IMAGE or board.gravity:
        return None
    side = VIEWPORT if style is Look.EMOJI else COMPACT_PHONE
    return side if board.width > side or board.height > side else None


def board_text(board: Board, look: Look, *, note: bool = True) -> str:
    """The board as text in ``look``, in the window a phone shows (``phone_viewport``), with
    the note of what a window shows unless ``note`` is False; empty for ``Look.IMAGE``, which
    is a PNG (``bot.text.render_png``)."""
    if look is Look.IMAGE:
        return ""
    viewport = phone_viewport(board, look)
    draw = compact_board if look is Look.COMPACT else emoji_board
    text = draw(board, viewport=viewport)
    return text + window_note(board, viewport) if note else text


def window_note(board: Board, viewport: int | None) -> str:
    """Under a board drawn as a window: which part of how large a board it shows."""
    if not _is_cut(board, viewport):
        return ""
    return _note(board, window(board, viewport))


def _is_cut(board: Board, viewport: int | None) -> bool:
    return not (
        viewport is None or board.gravity or (viewport >= board.width and viewport >= board.height)
    )


def _note(board: Board, view: Window) -> str:
    columns = f"{column_letter(view.x0)}-{column_letter(view.x1)}"
    return "\n" + words.window_line(
        columns, f"{view.y0 + 1}-{view.y1 + 1}", board.width, board.height
    )


def emoji_board(board: Board, *, viewport: int | None = None, forbidden: bool = True) -> str:
    """The board (or a ``viewport``-sided window of it) as emoji lines, top row first.

    Column letters head the board as regional indicators joined by zero-width spaces; row
    numbers follow each row as plain digits, so they never disturb the grid's alignment.
    Renju forbidden points are marked while Black is to move (unless ``forbidden=False``).
    """
    return _emoji_lines(board, window(board, viewport), forbidden)


def _emoji_lines(board: Board, view: Window, forbidden: bool) -> str:
    theme = theme_for(board.game)
    last, winning, banned = _marks(board, forbidden)
    # Rows are drawn from the board's rows (one call each, not a lookup per point: every
    # board, every move), then the few points drawn otherwise are set by (x, y): renju
    # forbidden points, the last move, the winning line (over the last move).
    special = {(point.x, point.y): theme.forbidden for point in banned}
    marked = [(last, theme.black_last, theme.white_last)] if last is not None else []
    marked += [(point, theme.black_win, theme.white_win) for point in winning]
    for point, black, white in marked:
        stone = board[point]
        if stone is not None:
            special[(point.x, point.y)] = black if stone is Color.BLACK else white
    empty, black, white = theme.empty, theme.black, theme.white
    x0, x1 = view.x0, view.x1
    lines = [_column_header(board, view.columns)]
    for y in view.rows_top_down:
        cells = [
            empty if stone is None else black if stone is Color.BLACK else white
            for stone in board.row(y)[x0 : x1 + 1]
        ]
        for (x, row_y), glyph in special.items():
            if row_y == y and x0 <= x <= x1:
                cells[x - x0] = glyph
        row = "".join(cells)
        lines.append(row if board.gravity else f"{row} {y + 1}")
    return "\n".join(lines)


def compact_board(board: Board, *, viewport: int | None = None, forbidden: bool = True) -> str:
    """The board in a Markdown code block: ``X``/``O`` stones, ``.`` empty, ``[X]`` the last
    move, ``*`` the winning line's stones, ``!`` renju points forbidden to Black."""
    view = window(board, viewport)
    last, winning, banned = _marks(board, forbidden)
    symbols = ("X", "O")
    columns = list(view.columns)
    if board.gravity:
        header = "   " + " ".join(f"{x + 1:<1}"[-1] for x in columns)
    else:
        header = "   " + " ".join(column_letter(x) for x in columns)
    lines = [header]
    for y in view.rows_top_down:
        cells = []
        for x in columns:
            point = Point(x, y)
            stone = board[point]
            if stone is None:
                cells.append("!" if point in banned else ".")
            elif point in winning:
                cells.append("*")
            else:
                cells.append(symbols[0] if stone is Color.BLACK else symbols[1])
        row = " " + " ".join(cells) + " "
        if last is not None and last in view and last.y == y:
            # Swap the spaces around the last move for brackets: " X " -> "[X]".
            i = 1 + 2 * (last.x - view.x0)
            row = row[: i - 1] + "[" + row[i] + "]" + row[i + 2 :]
        lines.append(f"{y + 1:>2}{row}{y + 1}" if not board.gravity else f"  {row}".rstrip())
    lines.append(header)
    return "```\n" + "\n".join(lines) + "\n```"


# ---------------------------------------------------------------- status and cards


def move_name(board: Board, point: Point) -> str:
    """A move as players write it: ``H8``, or ``column 4`` in gravity games."""
    if board.gravity:
        return _("column {column}").format(column=point.x + 1)
    return str(point).upper()


def player_label(player: Player) -> str:
    """A player as Discord text: a user mention, or the AI with its level."""
    if player.level is not None:
        return words.ai_name(player.level)
    if player.user_id is not None:
        return f"<@{player.user_id}>"
    return words.deleted_user()


def game_name(game: Game) -> str:
    """The game's name for people: ``Gomoku``, ``Connect Four`` ..."""
    return words.game_name(game)


def game_title(view: GameState) -> str:
    """``Gomoku 15x15 · renju`` / ``Connect Four``."""
    if table_spec(view.game).rules.sizes is not None:  # the player chose the size and rule
        title = _("Gomoku {width}x{height} · {rule}").format(
            width=view.board.width, height=view.board.height, rule=words.rule_name(view.rule)
        )
        if view.opening is not None:
            from bot.text.opening_words import RULE_NAMES

            title += _(" · {opening} opening").format(opening=RULE_NAMES[view.opening.rule])
        return title
    return game_name(view.game)


def status_line(view: GameState, names: Callable[[Player], str] = player_label) -> str:
    """One line: who plays what, and whose turn it is or how it ended."""
    board = view.board
    theme = theme_for(board.game)
    # Each player named once: a line names the player to move or the winner a second time,
    # and a web board page renders this line for every move of a game it shows.
    black = f"{theme.black} {names(view.black)}"
    white = f"{theme.white} {names(view.white)}"
    players = _("{black} vs {white}").format(black=black, white=white)
    if view.status is GameStatus.PENDING:
        return _("{players} · waiting for the challenge to be accepted").format(players=players)
    if view.status is GameStatus.ACTIVE and view.in_opening:
        from bot.text.opening_words import opening_status

        return f"{players} · {opening_status(view, names)}"
    if view.status is GameStatus.ACTIVE:
        color = board.to_move
        last = ""
        if board.last_move is not None:
            point = board.last_move.point
            # Gravity games name a move by its column number, as their header and buttons do.
            last = _(" · last {move}").format(
                move=move_name(board, point) if board.gravity else point
            )
        mover = black if color is Color.BLACK else white
        if view.is_ai_turn:
            return _("{players} · move {number}{last} · {player} thinking…").format(
                players=players, number=len(board.moves) + 1, last=last, player=mover
            )
        return _("{players} · move {number}{last} · {player} to move").format(
            players=players, number=len(board.moves) + 1, last=last, player=mover
        )
    outcome = view.outcome
    if outcome is None or outcome.termination is Termination.ABANDONED:
        from bot.text.words import end_reason_words
        from storage.records import Player as Seat

        record = view.record
        by = None if record.ended_by is None else names(Seat.human(record.ended_by))
        why = end_reason_words(record.end_reason, by)
        if why:
            return _("{players} · no result ({why})").format(players=players, why=why)
        return _("{players} · no result").format(players=players)
    if outcome.winner is None:
        return _("{players} · draw").format(players=players)
    winner = black if outcome.winner is Color.BLACK else white
    how = {
        Termination.RESIGN: _("{players} · {winner} wins by resignation"),
        Termination.TIMEOUT: _("{players} · {winner} wins on time"),
        Termination.FORBIDDEN: _("{players} · {winner} wins (forbidden move)"),
    }.get(outcome.termination) or _("{players} · {winner} wins")
    return how.format(players=players, winner=winner)


def game_text(
    view: GameState,
    *,
    style: Look = Look.EMOJI,
    viewport: int | None = None,
    names: Callable[[Player], str] = player_label,
) -> str:
    """A whole board message: title, status and the board in ``style`` (PNG: no board text),
    within ``MAX_MESSAGE`` code points; a board too big for it falls back to the viewport."""
    head = f"**{game_title(view)}**\n{status_line(view, names)}"
    if style is Look.IMAGE:
        return head
    draw = compact_board if style is Look.COMPACT else emoji_board
    text = f"{head}\n{draw(view.board, viewport=viewport)}"
    if len(text) > MAX_MESSAGE:
        text = f"{head}\n{draw(view.board, viewport=VIEWPORT)}"
    return text[:MAX_MESSAGE]


@dataclass(frozen=True, slots=True)
class Card:
    """An embed's content, free of discord.py (``bot.table.card_embed`` makes the embed)."""

    title: str
    description: str  # ≤ 4096 code points
    colour: int  # 0xRRGGBB side bar
    footer: str = ""


_ACTIVE_COLOUR: Final = 0xD9A441  # wood
_FINISHED_COLOUR: Final = 0x5865F2


def game_card(
    view: GameState,
    *,
    style: Look = Look.EMOJI,
    viewport: int | None = None,
    names: Callable[[Player], str] = player_label,
) -> Card:
    """The game as an embed: title, status and board (the board is omitted for PNG, which goes
    in an attachment the embed can show with ``set_image(url="attachment://board.png")``)."""
    status = status_line(view, names)
    board = view.board
    if style is Look.IMAGE:
        description = status
    elif style is Look.COMPACT:
        note = window_note(board, viewport)
        description = f"{status}\n{compact_board(board, viewport=viewport)}{note}"
    else:
        area = window(board, viewport)  # one window for the board and its note
        note = _note(board, area) if _is_cut(board, viewport) else ""
        description = f"{status}\n{_emoji_lines(board, area, forbidden=True)}{note}"
    moves = len(view.board.moves)
    footer = _("game {game_id}").format(game_id=view.game_id)
    if moves:
        footer = ngettext(
            "game {game_id} · {count} move", "game {game_id} · {count} moves", moves
        ).format(game_id=view.game_id, count=number(moves))
    if view.record.black.is_human and view.record.white.is_human:
        rated = words.rated_game() if view.rated else words.friendly_game()
        footer = f"{footer} · {rated}"
    colour = _ACTIVE_COLOUR if view.status is not GameStatus.FINISHED else _FINISHED_COLOUR
    return Card(game_title(view), description[:4096], colour, footer)


def mark_line(mark: Mark) -> str:
    """One of a review's marks as a line: the move, what it was, the better one."""
    return words.mark_line(
        mark.ply,
        mark.kind.value,
        mark.color.value,
        str(mark.played),
        str(mark.better),
        mark.proof,
    )
