"""Game records: move lists, SGF (FF[4] GM[4]) and Piskvork PSQ (RULES.md section 6).

SGF counts rows from the top (``aa`` is the top-left point) and so does PSQ (1-based); our
points count rows from the bottom, so both writers flip the row here and nowhere else.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.board import Board
from engine.errors import IllegalMoveError, InvalidRecordError, UnsupportedBoardError
from engine.games import game_specs
from engine.types import Color, Game, Outcome, Point, Rule, Termination

__all__ = [
    "SgfRecord",
    "from_psq",
    "from_sgf",
    "move_text",
    "parse_sgf",
    "to_psq",
    "to_sgf",
]

_SGF_COLOR = {Color.BLACK: "B", Color.WHITE: "W"}
_SGF_RESULT = {
    Termination.FIVE: "",
    Termination.RESIGN: "R",
    Termination.TIMEOUT: "T",
    Termination.FORBIDDEN: "F",
}
_PSQ_HEADER_RE = re.compile(r"Piskvorky\s+(\d+)x(\d+),\s*(\d+):(\d+),\s*(\d+)")
_PSQ_MOVE_RE = re.compile(r"\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?")


def move_text(board: Board) -> str:
    """The moves played as a renju move list, ``h8 i9 ...``."""
    return board.move_text()


# -- SGF ------------------------------------------------------------------------------------


def _sgf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _sgf_point(point: Point, height: int) -> str:
    return chr(ord("a") + point.x) + chr(ord("a") + height - 1 - point.y)


def _sgf_result(outcome: Outcome | None) -> str | None:
    if outcome is None:
        return None
    if outcome.termination is Termination.ABANDONED:
        return "Void"
    if outcome.winner is None:
        return "0"
    return f"{_SGF_COLOR[outcome.winner]}+{_SGF_RESULT.get(outcome.termination, '')}"


def to_sgf(
    board: Board,
    *,
    black: str = "Black",
    white: str = "White",
    outcome: Outcome | None = None,
    date: dt.date | None = None,
    event: str | None = None,
    opening: str | None = None,
) -> str:
    """The game as SGF FF[4] GM[4], rows from the top as the spec says.

    ``outcome`` overrides the board's own (for resignations and timeouts, which the board
    does not know). The rule goes in ``RU`` by name, with the Gomocup number in a comment.
    ``opening`` (an opening rule and its steps, "swap2: h8 i9 j7 two g9 k9 white") goes in
    ``GC``; its stones are the first moves, so any viewer replays them.
    """
    width, height = board.width, board.height
    size = str(width) if width == height else f"{width}:{height}"
    rule = board.rule.value if board.game is Game.GOMOKU else board.game.value
    props = [
        ("FF", "4"),
        ("GM", "4"),
        ("CA", "UTF-8"),
        ("AP", "gomoku-bot"),
        ("SZ", size),
        ("RU", rule),
        ("PB", black),
        ("PW", white),
    ]
    if board.game is Game.GOMOKU:
        props.append(("C", f"Gomocup rule {board.rule.gomocup_code}"))
    if date is not None:
        props.append(("DT", date.isoformat()))
    if event:
        props.append(("EV", event))
    if opening:
        props.append(("GC", f"opening {opening}"))
    result = _sgf_result(outcome or board.outcome)
    if result is not None:
        props.append(("RE", result))
    root = "".join(f"{key}[{_sgf_escape(value)}]" for key, value in props)
    setup_black, setup_white = board.setup
    if setup_black or setup_white:
        for key, points in (("AB", setup_black), ("AW", setup_white)):
            if points:
                root += key + "".join(f"[{_sgf_point(p, height)}]" for p in points)
        root += f"PL[{_SGF_COLOR[board.setup_to_move]}]"
    moves = "".join(
        f";{_SGF_COLOR[move.color]}[{_sgf_point(move.point, height)}]" for move in board.moves
    )
    return f"(;{root}{moves})\n"


@dataclass(frozen=True, slots=True)
class SgfRecord:
    """A game read from SGF: the board after its main line, and the root properties."""

    board: Board  # the position after the last move of the main line
    properties: dict[str, list[str]] = field(default_factory=dict)  # root node, e.g. PB, RE

    @property
    def black(self) -> str | None:
        """The black player's name, if given."""
        return self.properties.get("PB", [None])[0]

    @property
    def white(self) -> str | None:
        """The white player's name, if given."""
        return self.properties.get("PW", [None])[0]

    @property
    def result(self) -> str | None:
        """The ``RE`` property as written (``B+``, ``W+R``, ``0`` ...)."""
        return self.properties.get("RE", [None])[0]


_Node = list[tuple[str, list[str]]]


class _SgfParser:
    """A small recursive-descent reader for SGF game trees; keeps the main line only."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _peek(self) -> str:
        self._skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            found = self.text[self.pos : self.pos + 10] or "end of text"
            raise InvalidRecordError(found, f"expected {char!r} at offset {self.pos}")
        self.pos += 1

    def game_tree(self) -> list[_Node]:
        self._expect("(")
        nodes: list[_Node] = []
        while self._peek() == ";":
            self.pos += 1
            nodes.append(self._node())
        first_variation = True
        while self._peek() == "(":
            variation = self.game_tree()
            if first_variation:
                nodes.extend(variation)
                first_variation = False
        self._expect(")")
        return nodes

    def _node(self) -> _Node:
        props: _Node = []
        while True:
            self._skip_space()
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isalpha():
                self.pos += 1
            ident = self.text[start : self.pos]
            if not ident:
                return props
            values = []
            while self._peek() == "[":
                values.append(self._value())
            if not values:
                raise InvalidRecordError(ident, f"property {ident} has no value")
            # FF[3] allowed lower-case letters inside identifiers; only the capitals count.
            props.append(("".join(c for c in ident if c.isupper()), values))

    def _value(self) -> str:
        self.pos += 1  # the "["
        out = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text):
                out.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            if char == "]":
                self.pos += 1
                return "".join(out)
            out.append(char)
            self.pos += 1
        raise InvalidRecordError(self.text[-10:], "unterminated property value")


def _sgf_rule(value: str | None) -> tuple[Game, Rule]:
    if value is None or not value.strip():
        return Game.GOMOKU, Rule.FREESTYLE
    text = value.strip().lower()
    if text.isdigit():  # c-gomoku-cli writes the Gomocup rule number
        try:
            return Game.GOMOKU, Rule.from_gomocup(int(text))
        except ValueError:
            raise InvalidRecordError(value, f"unknown Gomocup rule {text}") from None
    for spec in game_specs():
        if spec.game is not Game.GOMOKU and text == spec.game.value:
            return spec.game, spec.rules[0]
    try:
        return Game.GOMOKU, Rule(text)
    except ValueError:
        raise InvalidRecordError(value, f"unknown rule {value!r}") from None


def parse_sgf(text: str, *, rows_from_bottom: bool = False) -> SgfRecord:
    """Read an SGF game: ours, c-gomoku-cli's or the PyPI ``renju`` package's.

    ``rows_from_bottom`` reads the second coordinate letter as counting from the bottom, as
    the PyPI ``renju`` package writes it; the spec (and everyone else) counts from the top.

    Raises:
        InvalidRecordError: for text that is not SGF, a game type other than GM[4], a pass,
            or a move the rules do not allow.
    """
    start = text.find("(")
    if start < 0:
        raise InvalidRecordError(text[:20], "no SGF game tree")
    nodes = _SgfParser(text[start:]).game_tree()
    if not nodes:
        raise InvalidRecordError(text[:20], "empty SGF game")
    root = {key: values for key, values in nodes[0]}
    if root.get("GM", ["4"])[0].strip() not in ("4", ""):
        raise InvalidRecordError(root["GM"][0], "not a Gomoku record (GM is not 4)")
    game, rule = _sgf_rule(root.get("RU", [None])[0])
    size_text = root.get("SZ", ["15"])[0]
    try:
        width, _, height = size_text.partition(":")
        size = int(width)
        board_height = int(height) if height else size
    except ValueError:
        raise InvalidRecordError(size_text, "bad SZ") from None

    def point(value: str) -> Point:
        if len(value) != 2 or not value.isalpha():
            raise InvalidRecordError(value, "a pass or a malformed point")
        x = ord(value[0].lower()) - ord("a")
        row = ord(value[1].lower()) - ord("a")
        return Point(x, row if rows_from_bottom else board_height - 1 - row)

    try:
        setup_black = [point(v) for v in root.get("AB", [])]
        setup_white = [point(v) for v in root.get("AW", [])]
        to_move = Color.WHITE if root.get("PL", ["B"])[0].upper() == "W" else Color.BLACK
        if setup_black or setup_white:
            board = Board.from_stones(
                setup_black, setup_white, size=size, rule=rule, to_move=to_move, game=game
            )
        else:
            board = Board(size, rule, game=game)
        if (board.width, board.height) != (size, board_height):
            raise InvalidRecordError(size_text, f"{game.value} is not played on {size_text}")
        for node in nodes:
            for key, values in node:
                if key not in ("B", "W"):
                    continue
                color = Color.BLACK if key == "B" else Color.WHITE
                if color is not board.to_move:
                    raise InvalidRecordError(f"{key}[{values[0]}]", "colours do not alternate")
                board.play(point(values[0]))
    except (IllegalMoveError, UnsupportedBoardError) as error:
        raise InvalidRecordError(str(error), str(error)) from error
    return SgfRecord(board, root)


def from_sgf(text: str, *, rows_from_bottom: bool = False) -> Board:
    """The board after the main line of an SGF game (see ``parse_sgf``)."""
    return parse_sgf(text, rows_from_bottom=rows_from_bottom).board


# -- PSQ ------------------------------------------------------------------------------------


def to_psq(
    board: Board, *, times_ms: Sequence[int] | None = None, names: Sequence[str] = ()
) -> str:
    """The game in Piskvork's PSQ format: 1-based ``x,y,time`` lines, (1,1) the top-left.

    Raises:
        ValueError: for a set-up position (PSQ has no way to write one).
    """
    if board.setup != ((), ()):
        raise ValueError("PSQ cannot hold a set-up position")
    lines = [f"Piskvorky {board.width}x{board.height}, 11:11, 0"]
    for index, move in enumerate(board.moves):
        elapsed = times_ms[index] if times_ms is not None and index < len(times_ms) else 0
        lines.append(f"{move.point.x + 1},{board.height - move.point.y},{elapsed}")
    lines.extend(names)
    return "\n".join(lines) + "\n"


def from_psq(text: str, *, rule: Rule = Rule.FREESTYLE) -> Board:
    """The board after the moves of a PSQ record (colours alternate from Black).

    Raises:
        InvalidRecordError: for a missing header, a board that is not square, or an
            illegal move.
    """
    lines = text.splitlines()
    header = _PSQ_HEADER_RE.match(lines[0].strip()) if lines else None
    if header is None:
        raise InvalidRecordError(lines[0] if lines else "", "no Piskvorky header")
    width, height = int(header.group(1)), int(header.group(2))
    if width != height:
        raise InvalidRecordError(lines[0], "only square boards are supported")
    try:
        board = Board(width, rule)
        for line in lines[1:]:
            move = _PSQ_MOVE_RE.fullmatch(line)
            if move is None:
                break  # the names and the result code follow the moves
            board.play(Point(int(move.group(1)) - 1, height - int(move.group(2))))
    except (IllegalMoveError, UnsupportedBoardError) as error:
        raise InvalidRecordError(str(error), str(error)) from error
    return board
