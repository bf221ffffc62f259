"""Value types shared by every layer: colours, rules, games, points, moves and outcomes."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Self

from engine.errors import InvalidPointError

__all__ = [
    "Color",
    "Game",
    "Level",
    "Move",
    "Outcome",
    "Point",
    "Rule",
    "Termination",
    "add_game",
    "column_letter",
]

COLUMNS = "abcdefghijklmnopqrst"  # renju notation uses "i"; 20 letters cover Gomocup's 20x20

_POINT_RE = re.compile(r"\s*([a-z])\s*0*([1-9][0-9]?)\s*", re.IGNORECASE)


class Color(enum.Enum):
    """A side. BLACK always moves first (X in tic-tac-toe, first in Connect Four)."""

    BLACK = "black"  # the first player
    WHITE = "white"  # the second player

    @property
    def opponent(self) -> Color:
        """The other side."""
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def symbol(self) -> str:
        """One ASCII letter for diagrams: X for Black, O for White."""
        return "X" if self is Color.BLACK else "O"


class Rule(enum.StrEnum):
    """How a game of Gomoku is won (RULES.md section 1)."""

    FREESTYLE = "freestyle"  # five or more in a row wins
    STANDARD = "standard"  # exactly five wins; overlines do not
    RENJU = "renju"  # Black wins only with exactly five and may not make 3-3, 4-4 or an overline
    CARO = "caro"  # Gomocup caro: an exact five blocked by the opponent at both ends does not win

    @property
    def gomocup_code(self) -> int:
        """The value of the Gomocup protocol's ``INFO rule`` for this rule."""
        return {"freestyle": 0, "standard": 1, "renju": 4, "caro": 8}[self.value]

    @classmethod
    def named_in(cls, text: str) -> frozenset[Rule]:
        """The rules a comma-separated list of their names names (as the settings for
        measuring give them); unknown names are ignored."""
        names = {name.strip() for name in text.split(",")}
        return frozenset(rule for rule in cls if rule.value in names)

    @classmethod
    def from_gomocup(cls, code: int) -> Rule:
        """The rule for a Gomocup ``INFO rule`` value (continuous-game bit 2 is ignored).

        Raises:
            ValueError: for a value that names no rule we play.
        """
        code &= ~2
        if code & 4:
            return cls.RENJU
        if code & 8:
            return cls.CARO
        if code == 1:
            return cls.STANDARD
        if code == 0:
            return cls.FREESTYLE
        raise ValueError(f"unsupported Gomocup rule {code}")


class Game(enum.StrEnum):
    """The games the bot hosts; all are m,n,k games, some with gravity (DESIGN section 1).
    ``engine.games`` holds each one's spec; ``engine.games.new_game`` names one more."""

    GOMOKU = "gomoku"  # 15x15 by default (5 to 20), five in a row
    TICTACTOE = "tictactoe"  # 3x3, three in a row
    CONNECT4 = "connect4"  # 7 wide x 6 high, gravity, four in a row
    GRAVITY3 = "gravity3"  # 4x4, gravity, three in a row

    @classmethod
    def _missing_(cls, value: object) -> Game | None:
        # A game named by engine.games.new_game: ``Game(name)`` finds it like a member.
        return _ADDED.get(value) if isinstance(value, str) else None


_ADDED: dict[str, Game] = {}


def add_game(name: str) -> Game:
    """A ``Game`` value for ``name`` beyond the members (``Game(name)`` returns it after)."""
    try:
        return Game(name)
    except ValueError:
        pass
    member = str.__new__(Game, name)
    member._name_ = name.upper()
    member._value_ = name
    _ADDED[name] = member
    return member


class Level(enum.StrEnum):
    """How strongly the AI plays, weakest first (``engine.search.levels`` says what each is)."""

    BEGINNER = "beginner"  # shallow, noisy, overlooks threats about half the time
    EASY = "easy"  # sees fours, sometimes misses open threes
    MEDIUM = "medium"  # the bot's default: solid tactics, rare slips, well inside a second
    HARD = "hard"  # deeper, threat-space search at the root
    EXPERT = "expert"  # strong, a few hundred milliseconds
    MASTER = "master"  # full strength, up to three seconds


class Termination(enum.StrEnum):
    """How a game ended."""

    FIVE = "five"  # a winning row (k in a row for the small games)
    RESIGN = "resign"  # a player resigned
    TIMEOUT = "timeout"  # a player ran out of time
    DRAW = "draw"  # the board is full with no winner
    FORBIDDEN = "forbidden"  # Black made a forbidden move under renju (strict games)
    ABANDONED = "abandoned"  # nobody finished it; no result


def column_letter(x: int) -> str:
    """The letter of column ``x`` (0 = "a")."""
    return COLUMNS[x]


@dataclass(frozen=True, slots=True, order=True)
class Point:
    """An intersection: ``x`` column from the left, ``y`` row from the bottom, both 0-based."""

    x: int  # column, 0 = "a"
    y: int  # row from the bottom, 0 = "1"

    @classmethod
    def parse(cls, text: str) -> Self:
        """Parse ``h8``, ``H8``, ``h 8`` or ``H08``.

        Raises:
            InvalidPointError: when the text is not a point (it carries the text).
        """
        match = _POINT_RE.fullmatch(text)
        if match is None or match.group(1).lower() not in COLUMNS:
            raise InvalidPointError(text)
        return cls(COLUMNS.index(match.group(1).lower()), int(match.group(2)) - 1)

    def __str__(self) -> str:
        return f"{COLUMNS[self.x]}{self.y + 1}" if 0 <= self.x < len(COLUMNS) else repr(self)

    def on_board(self, width: int, height: int) -> bool:
        """Whether the point lies on a ``width`` x ``height`` board."""
        return 0 <= self.x < width and 0 <= self.y < height


@dataclass(frozen=True, slots=True)
class Move:
    """A stone placed by one side."""

    point: Point  # where the stone went
    color: Color  # whose stone it is


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended."""

    termination: Termination  # why it ended
    winner: Color | None  # None for a draw or an abandoned game
