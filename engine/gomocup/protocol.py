"""The Gomocup ("piskvork") protocol as a pure state machine, without any I/O.

``Brain.handle(line)`` takes one line from the manager and returns the lines to answer;
``engine.gomocup.pbrain`` runs it over stdin/stdout with the real search. Keeping the protocol apart
from the pipes lets tests drive every command sequence in-process.

Gomocup coordinates are ``X,Y`` 0-based with ``0,0`` at the **top**-left; ours count rows
from the bottom. ``gomocup_to_point`` / ``point_to_gomocup`` convert, here and nowhere else.

Commands (case-insensitive; the manager's protocol, plastovicka.github.io protocl2en)::

    START n / RECTSTART w,h   OK, or ERROR for sizes outside 5..20 (or not square)
    RESTART                   OK
    BEGIN / TURN x,y          think, answer "x,y" after one "MESSAGE depth ..." line
    BOARD ... DONE            set the position (1 own, 2 opponent, 3 blocked), then think
    YXBOARD ... DONE          set the position without thinking (Yixin board extension)
    INFO key value            timeout_turn, timeout_match, time_left, max_memory, rule,
                              game_type, folder; Yixin's max_depth and max_node too
    TAKEBACK x,y              OK
    ABOUT                     name="...", version="...", author="...", country="..."
    YXSHOWFORBID              FORBID XXYYXXYY... .  (renju points Black may not play)
    SWAP2BOARD ... DONE       the swap2 opening (protocol 2022-12-20; RULES.md 3.1): no
                              stones: "x,y x,y x,y"; three: "SWAP", the 4th "x,y", or the
                              4th and 5th "x,y x,y"; five: "SWAP" or the 6th "x,y"
                              (ERROR when the brain has no ``opener``)
    END                       stop

Anything the brain cannot do gets ``ERROR <what>``; an unknown command ``UNKNOWN <word>``.
No input makes it raise, and no answer is ever an illegal or forbidden move.
"""

from __future__ import annotations

import dataclasses
import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.board import MAX_SIZE, MIN_SIZE, Board
from engine.errors import GomokuError, IllegalMoveError
from engine.opening_rules import Choice, Opening, OpeningRule, Phase
from engine.settings import setting
from engine.types import Color, Point, Rule

__all__ = [
    "ABOUT",
    "UNLIMITED_MS",
    "Brain",
    "MoveLimits",
    "Opener",
    "Searcher",
    "Thought",
    "TimeControl",
    "fallback_move",
    "gomocup_to_point",
    "point_to_gomocup",
]

UNLIMITED_MS = 2147483647  # "time_left" when the match has no time limit (protocol)
ABOUT = 'name="gomoku-bot", version="0.1.0", author="gomoku-bot developers", country="-"'

DEFAULT_TURN_MS = 1000  # used when the manager never sends timeout_turn
FASTEST_TURN_MS = 50  # timeout_turn 0 means "play as fast as possible"
MIN_BUDGET_MS = 10  # below this a search cannot finish even its first iteration
# pipe, process wake-up and board set-up before the search starts (docs/engine.md, "The time
# margin")
MARGIN_MS = setting("GOMOKU_MARGIN_MS", 20, most=1000)
# the search may overrun its budget by up to this share (it stops itself at 97% of it)
MARGIN_FRACTION = setting("GOMOKU_MARGIN_PERMILLE", 20, most=500) / 1000
MOVES_TO_GO = 20  # share of the remaining match time spent on one move: left / this


def gomocup_to_point(x: int, y: int, size: int) -> Point:
    """Our point for Gomocup ``x,y`` (row 0 at the top) on a ``size`` board."""
    return Point(x, size - 1 - y)


def point_to_gomocup(point: Point, size: int) -> tuple[int, int]:
    """Gomocup ``x,y`` (row 0 at the top) for our ``point`` on a ``size`` board."""
    return point.x, size - 1 - point.y


@dataclass(frozen=True, slots=True)
class MoveLimits:
    """What one move may spend. None means no limit of that kind."""

    time_ms: int | None = None  # wall-clock budget for the search
    depth: int | None = None  # Yixin's INFO max_depth
    nodes: int | None = None  # Yixin's INFO max_node
    memory_bytes: int | None = None  # INFO max_memory (the whole process)
    # the turn's limit sets time_ms, not what is left of the match: time a move leaves unused
    # is lost, not kept for later moves
    turn_bound: bool = False


@dataclass(frozen=True, slots=True)
class Thought:
    """What a searcher answers: the move and the figures for the MESSAGE line."""

    move: Point  # the move it chose
    score: int = 0  # from the mover's point of view
    depth: int = 0  # iterations completed
    nodes: int = 0  # nodes searched
    time_ms: float = 0.0  # time the search took


Searcher = Callable[[Board, MoveLimits], Thought]
"""Chooses a move for the side to move; the brain checks that it is legal before playing it."""

Opener = Callable[[Opening, MoveLimits], str]
"""Takes the brain's next step in an opening (a word ``Opening.step`` takes)."""


@dataclass(slots=True)
class TimeControl:
    """The time limits the manager announced with INFO (milliseconds)."""

    turn_ms: int | None = None  # timeout_turn; None until told, 0 = as fast as possible
    match_ms: int = 0  # timeout_match; 0 = no limit
    left_ms: int | None = None  # time_left; None or UNLIMITED_MS = no limit

    def budget_ms(self) -> int:
        """The search budget for the next move, with a safety margin below every limit."""
        limit = self._turn_limit()
        share = self._match_share()
        if share is not None:
            limit = min(limit, share)
        budget = int(limit * (1 - MARGIN_FRACTION)) - MARGIN_MS
        return max(budget, MIN_BUDGET_MS)

    def turn_binds(self) -> bool:
        """Whether the turn's limit sets the budget rather than the match's time left."""
        share = self._match_share()
        return share is None or self._turn_limit() <= share

    def _turn_limit(self) -> int:
        if self.turn_ms is None:
            return DEFAULT_TURN_MS
        if self.turn_ms <= 0:
            return FASTEST_TURN_MS
        return self.turn_ms

    def _match_share(self) -> int | None:
        # a move's share of what is left of the match, None where the match has no limit
        left = self.left_ms if self.left_ms is not None else (self.match_ms or None)
        if left is None or left >= UNLIMITED_MS:
            return None
        return max(left, 0) // MOVES_TO_GO


class _Mode(enum.Enum):
    """What the next line means."""

    COMMAND = "command"  # a command
    BOARD = "board"  # a BOARD line or DONE
    YXBOARD = "yxboard"  # a YXBOARD line or DONE
    SKIP = "skip"  # lines of a block we cannot handle, up to DONE
    SWAP2 = "swap2"  # a SWAP2BOARD line ("x,y") or DONE


@dataclass(slots=True)
class _Setup:
    """The lines of a BOARD block collected so far."""

    own: list[Point] = field(default_factory=list)  # field 1, in the order given
    opponent: list[Point] = field(default_factory=list)  # field 2, in the order given
    order: list[tuple[Point, bool]] = field(default_factory=list)  # (point, is own), given order
    blocked: list[Point] = field(default_factory=list)  # field 3 (continuous games)
    taken: set[Point] = field(default_factory=set)  # every point named so far


class Brain:
    """One protocol session: a board, the limits, and the commands that change them.

    ``searcher`` chooses moves; ``clock`` (seconds, monotonic) times the answer so that the
    set-up before the search is charged to the turn. ``max_depth`` and ``max_nodes`` are
    the initial values of Yixin's ``INFO max_depth`` / ``INFO max_node``.
    """

    def __init__(
        self,
        searcher: Searcher,
        *,
        clock: Callable[[], float] = time.monotonic,
        about: str = ABOUT,
        max_depth: int | None = None,
        max_nodes: int | None = None,
        opener: Opener | None = None,
    ) -> None:
        self._searcher = searcher
        self._opener = opener  # None: SWAP2BOARD is answered with ERROR
        self._swap2: list[Point] = []  # the stones of a SWAP2BOARD block so far
        self._clock = clock
        self._about = about
        self._board: Board | None = None
        self._size = 0
        self._rule = Rule.FREESTYLE
        self._continuous = False  # INFO rule bit 2: the game goes on after a five
        self._blocked: frozenset[Point] = frozenset()  # field 3 points nobody may play
        self._time = TimeControl()
        self._max_depth = max_depth  # fixed limits make play deterministic (INFO max_depth)
        self._max_nodes = max_nodes
        self._max_memory = 0  # bytes, 0 = no limit; sizes the search's hash table
        self._game_type = 1
        self._folder = ""
        self._mode = _Mode.COMMAND
        self._setup = _Setup()
        self._finished = False

    # -- what it holds ----------------------------------------------------------------------

    @property
    def board(self) -> Board | None:
        """The current position (None before START). Do not mutate it."""
        return self._board

    @property
    def rule(self) -> Rule:
        """The rule set by INFO rule (freestyle until told)."""
        return self._rule

    @property
    def time_control(self) -> TimeControl:
        """The limits set by INFO."""
        return self._time

    @property
    def finished(self) -> bool:
        """Whether END was received: the caller should exit."""
        return self._finished

    @property
    def blocked(self) -> frozenset[Point]:
        """Points marked 3 (winning line or forbidden) in a continuous game's BOARD."""
        return self._blocked

    def limits(self) -> MoveLimits:
        """The limits for the next search."""
        return MoveLimits(
            self._time.budget_ms(),
            self._max_depth,
            self._max_nodes,
            self._max_memory or None,
            self._time.turn_binds(),
        )

    # -- the one entry point ----------------------------------------------------------------

    def handle(self, line: str) -> list[str]:
        """Answer one line from the manager. Never raises."""
        started = self._clock()
        text = line.strip()
        if not text:
            return []
        try:
            if self._mode is not _Mode.COMMAND:
                return self._block_line(text, started)
            return self._command(text, started)
        except Exception as error:
            # A bug must cost one answer, not the match: the manager reads ERROR and goes on.
            self._mode = _Mode.COMMAND
            return [f"ERROR internal {type(error).__name__}"]

    # -- commands ---------------------------------------------------------------------------

    def _command(self, text: str, started: float) -> list[str]:
        word, _, rest = text.partition(" ")
        word = word.upper()
        rest = rest.strip()
        match word:
            case "START":
                return self._start(rest)
            case "RECTSTART":
                return self._rectstart(rest)
            case "RESTART":
                return self._restart()
            case "BEGIN":
                return self._begin(started)
            case "TURN":
                return self._turn(rest, started)
            case "BOARD" | "YXBOARD":
                self._mode = _Mode.BOARD if word == "BOARD" else _Mode.YXBOARD
                self._setup = _Setup()
                return []
            case "SWAP2BOARD":
                self._mode = _Mode.SKIP if self._opener is None else _Mode.SWAP2
                self._swap2 = []
                return []
            case "DONE":
                return ["ERROR DONE without BOARD"]
            case "INFO":
                return self._info(rest)
            case "TAKEBACK":
                return self._takeback(rest)
            case "END":
                self._finished = True
                return []
            case "ABOUT":
                return [self._about]
            case "YXSHOWFORBID":
                return self._show_forbidden()
        if _looks_like_coordinates(text):
            return ["ERROR coordinates outside BOARD"]
        return [f"UNKNOWN {_clip(word)}"]

    def _start(self, rest: str) -> list[str]:
        size = _parse_int(rest)
        if size is None or not MIN_SIZE <= size <= MAX_SIZE:
            return [f"ERROR unsupported size {_clip(rest)}"]
        self._size = size
        self._new_game()
        return ["OK"]

    def _rectstart(self, rest: str) -> list[str]:
        numbers = _parse_ints(rest, 2)
        if numbers is None or numbers[0] != numbers[1]:
            return [f"ERROR unsupported board {_clip(rest)}: square boards only"]
        return self._start(str(numbers[0]))

    def _restart(self) -> list[str]:
        if self._board is None:
            return ["ERROR no game started: send START first"]
        self._new_game()
        return ["OK"]

    def _new_game(self) -> None:
        self._board = Board(self._size, self._rule)
        self._blocked = frozenset()

    def _begin(self, started: float) -> list[str]:
        if self._board is None:
            return ["ERROR no game started: send START first"]
        if len(self._board) > 0:
            return ["ERROR BEGIN on a board that is not empty"]
        return self._think(started)

    def _turn(self, rest: str, started: float) -> list[str]:
        if self._board is None:
            return ["ERROR no game started: send START first"]
        point = self._parse_point(rest)
        if point is None:
            return [f"ERROR bad coordinates {_clip(rest)}"]
        if point in self._blocked:
            return [f"ERROR {_clip(rest)} is blocked"]
        try:
            self._board.play(point)
        except IllegalMoveError as error:
            return [f"ERROR illegal move {_clip(rest)}: {type(error).__name__}"]
        return self._think(started)

    def _takeback(self, rest: str) -> list[str]:
        board = self._board
        if board is None:
            return ["ERROR no game started: send START first"]
        point = self._parse_point(rest)
        if point is None:
            return [f"ERROR bad coordinates {_clip(rest)}"]
        color = board[point]
        if color is None:
            return [f"ERROR no stone at {_clip(rest)}"]
        last = board.last_move
        if last is not None and last.point == point:
            board.undo()
            return ["OK"]
        # Not the last move (or a set-up stone): rebuild the position without it.
        black = [p for p in board.stones(Color.BLACK) if p != point]
        white = [p for p in board.stones(Color.WHITE) if p != point]
        self._board = Board.from_stones(
            black, white, size=self._size, rule=self._rule, to_move=color
        )
        return ["OK"]

    def _show_forbidden(self) -> list[str]:
        board = self._board
        if board is None:
            return ["ERROR no game started: send START first"]
        codes = ""
        if board.rule is Rule.RENJU and board.to_move is Color.BLACK and board.outcome is None:
            for point in sorted(board.forbidden_points(), key=lambda p: (self._size - p.y, p.x)):
                x, y = point_to_gomocup(point, self._size)
                codes += f"{x:02d}{y:02d}"
        return [f"FORBID {codes}."]

    # -- INFO -------------------------------------------------------------------------------

    def _info(self, rest: str) -> list[str]:
        key, _, value = rest.partition(" ")
        key = key.lower()
        value = value.strip()
        if key == "folder":
            self._folder = value
            return []
        if key == "evaluate" or key not in _INT_INFO:
            return []  # the protocol lets a brain ignore what it does not use
        number = _parse_int(value)
        if number is None:
            return [f"ERROR bad INFO {key} {_clip(value)}"]
        match key:
            case "timeout_turn":
                self._time.turn_ms = number
            case "timeout_match":
                self._time.match_ms = number
            case "time_left":
                self._time.left_ms = number
            case "max_memory":
                self._max_memory = number
            case "game_type":
                self._game_type = number
            case "max_depth":
                self._max_depth = number if number > 0 else None
            case "max_node":
                self._max_nodes = number if 0 < number < 2**63 - 1 else None
            case "rule":
                return self._set_rule(number)
        return []

    def _set_rule(self, code: int) -> list[str]:
        try:
            rule = Rule.from_gomocup(code)
        except ValueError:
            return [f"ERROR unsupported rule {code}"]
        self._continuous = bool(code & 2)
        if rule is not self._rule:
            self._rule = rule
            if self._board is not None:
                self._board = _rebuild(self._board, rule)
        return []

    # -- BOARD blocks -----------------------------------------------------------------------

    def _block_line(self, text: str, started: float) -> list[str]:
        if text.upper() == "DONE":
            mode, self._mode = self._mode, _Mode.COMMAND
            if mode is _Mode.SKIP:
                return ["ERROR SWAP2BOARD is not supported"]
            if mode is _Mode.SWAP2:
                return self._finish_swap2(started)
            return self._finish_board(think=mode is _Mode.BOARD, started=started)
        if self._mode is _Mode.SKIP:
            return []
        if self._mode is _Mode.SWAP2 and _looks_like_coordinates(text):
            point = self._parse_point(text) if self._board is not None else None
            if point is None and self._board is not None:
                self._mode = _Mode.SKIP  # the rest of the block is ignored; DONE answers
                return [f"ERROR bad SWAP2BOARD line {_clip(text)}"]
            if point is not None:
                self._swap2.append(point)
            return []
        if not _looks_like_coordinates(text):
            # A command inside a block means the block was cut short: drop it and obey.
            self._mode = _Mode.COMMAND
            return ["ERROR BOARD without DONE", *self._command(text, started)]
        if self._board is None:
            return []  # answered at DONE
        numbers = _parse_ints(text, 3)
        if numbers is None:
            return [f"ERROR bad BOARD line {_clip(text)}"]
        x, y, kind = numbers
        if not (0 <= x < self._size and 0 <= y < self._size) or kind not in (1, 2, 3):
            return [f"ERROR bad BOARD line {_clip(text)}"]
        point = gomocup_to_point(x, y, self._size)
        setup = self._setup
        if point in setup.taken:
            return [f"ERROR {_clip(text)}: point given twice"]
        setup.taken.add(point)
        if kind == 3:
            setup.blocked.append(point)
        else:
            (setup.own if kind == 1 else setup.opponent).append(point)
            setup.order.append((point, kind == 1))
        return []

    def _finish_board(self, *, think: bool, started: float) -> list[str]:
        if self._board is None:
            return ["ERROR no game started: send START first"]
        setup, self._setup = self._setup, _Setup()
        # We are to move: with as many stones as the opponent we are Black (Black moves
        # first); with fewer we are White. More is not a real game; play it as Black.
        own_color = Color.WHITE if len(setup.opponent) > len(setup.own) else Color.BLACK
        self._board = _position(setup, own_color, self._size, self._rule)
        self._blocked = frozenset(setup.blocked)
        return self._think(started) if think else []

    # -- the swap2 opening ------------------------------------------------------------------

    def _finish_swap2(self, started: float) -> list[str]:
        if self._board is None:
            return ["ERROR no game started: send START first"]
        stones, self._swap2 = self._swap2, []
        if len(stones) not in (0, 3, 5):
            return ["ERROR SWAP2BOARD takes 0, 3 or 5 stones"]
        words = [str(point) for point in stones]
        if len(stones) == 5:
            words.insert(3, Choice.TWO.value)
        try:
            opening = Opening.replay(
                OpeningRule.SWAP2, words, size=self._size, board_rule=self._rule
            )
        except GomokuError:
            return ["ERROR SWAP2BOARD stones are not a legal opening"]
        return self._open(opening, started)

    def _open(self, opening: Opening, started: float) -> list[str]:
        # Our steps until the other side's turn: three stones (case 1), a choice and maybe
        # two stones (case 2), a choice (case 3). Taking Black is "SWAP"; taking White means
        # we play the next move at once, found by the normal search.
        assert self._opener is not None  # only SWAP2 mode gets here
        actor = opening.actor
        placed: list[Point] = []
        calls = 3 if opening.phase is Phase.PLACE else 1
        limits = self.limits()
        if limits.time_ms is not None:
            spent = int((self._clock() - started) * 1000)
            share = max(MIN_BUDGET_MS, (limits.time_ms - spent) // calls)
            limits = dataclasses.replace(limits, time_ms=share)
        while opening.actor is actor and not opening.is_done:
            word = self._opener(opening, limits)
            before = len(opening.board.moves)
            opening = opening.step(word)
            if len(opening.board.moves) > before:
                placed.append(opening.board.moves[-1].point)
            if word == Choice.BLACK.value:
                return ["SWAP"]
            if word == Choice.WHITE.value:
                return self._reply_as_white(opening.board, started)
        return [" ".join("{},{}".format(*point_to_gomocup(p, self._size)) for p in placed)]

    def _reply_as_white(self, board: Board, started: float) -> list[str]:
        saved = self._board
        self._board = board.copy()
        try:
            return self._think(started)
        finally:
            self._board = saved

    # -- thinking ---------------------------------------------------------------------------

    def _think(self, started: float) -> list[str]:
        board = self._board
        assert board is not None  # every caller checked
        if board.outcome is not None:
            return ["ERROR the game is over"]
        legal = [point for point in board.legal_moves() if point not in self._blocked]
        if not legal:
            return ["ERROR no legal move"]
        spent_ms = (self._clock() - started) * 1000
        limits = self.limits()
        if limits.time_ms is not None:
            limits = dataclasses.replace(
                limits, time_ms=max(MIN_BUDGET_MS, int(limits.time_ms - spent_ms))
            )
        lines: list[str] = []
        try:
            thought = self._searcher(board.copy(), limits)
        except Exception as error:  # a failed search must still yield a move
            lines.append(f"MESSAGE search failed ({type(error).__name__}); playing a safe move")
            thought = Thought(fallback_move(board, legal))
        move = thought.move
        if move not in legal or not board.is_legal(move):
            lines.append(f"MESSAGE search chose {move!r}, not playable; playing a safe move")
            move = fallback_move(board, legal)
        board.play(move)
        if self._time.left_ms is not None and self._time.left_ms < UNLIMITED_MS:
            # The manager sends time_left before each move; until then count our own time.
            self._time.left_ms -= int((self._clock() - started) * 1000)
        x, y = point_to_gomocup(move, self._size)
        lines.append(
            f"MESSAGE depth {thought.depth} eval {thought.score} nodes {thought.nodes}"
            f" time {round(thought.time_ms)}"
        )
        lines.append(f"{x},{y}")
        return lines

    def _parse_point(self, text: str) -> Point | None:
        numbers = _parse_ints(text, 2)
        if numbers is None:
            return None
        x, y = numbers
        if not (0 <= x < self._size and 0 <= y < self._size):
            return None
        return gomocup_to_point(x, y, self._size)


_INT_INFO = frozenset(
    {
        "timeout_turn",
        "timeout_match",
        "time_left",
        "max_memory",
        "game_type",
        "rule",
        "max_depth",
        "max_node",
    }
)


def fallback_move(board: Board, legal: Sequence[Point]) -> Point:
    """A sensible legal move without search: win now, else stop the opponent's five, else
    the point nearest the last move (then the centre). ``legal`` must not be empty."""
    me = board.to_move
    for point in legal:
        trial = board.copy()
        trial.play(point)
        if trial.outcome is not None and trial.outcome.winner is me:
            return point
    # The same points played by the opponent, as if it were its turn.
    theirs = Board.from_stones(
        board.stones(Color.BLACK),
        board.stones(Color.WHITE),
        size=board.size,
        rule=board.rule,
        to_move=me.opponent,
    )
    for point in legal:
        trial = theirs.copy()
        try:
            trial.play(point)
        except IllegalMoveError:
            continue
        if trial.outcome is not None and trial.outcome.winner is me.opponent:
            return point
    centre = (board.width - 1) / 2
    last = board.last_move
    anchor = last.point if last is not None else Point(round(centre), round(centre))

    def distance(point: Point) -> tuple[int, float, Point]:
        near = max(abs(point.x - anchor.x), abs(point.y - anchor.y))
        return near, abs(point.x - centre) + abs(point.y - centre), point

    return min(legal, key=distance)


def _position(setup: _Setup, own: Color, size: int, rule: Rule) -> Board:
    """The board a BOARD block describes, with a move history when the stones allow one.

    A history lets TAKEBACK undo moves and lets renju judge each Black move when it was
    made; renju managers send the stones in move order. Otherwise the stones are set up.
    """
    black = setup.own if own is Color.BLACK else setup.opponent
    white = setup.opponent if own is Color.BLACK else setup.own
    colors = [
        Color.BLACK if is_own == (own is Color.BLACK) else Color.WHITE for _, is_own in setup.order
    ]
    if len(black) in (len(white), len(white) + 1):
        sequences = [[point for point, _ in setup.order]]
        # Lines out of move order (any order is allowed outside renju): interleave.
        if any(
            colors[i] is not (Color.BLACK if i % 2 == 0 else Color.WHITE)
            for i in range(len(colors))
        ):
            sequences = [_interleave(black, white)]
        for sequence in sequences:
            board = Board(size, rule)
            try:
                for point in sequence:
                    board.play(point)
            except IllegalMoveError:
                continue
            if board.to_move is own:
                return board
    return Board.from_stones(black, white, size=size, rule=rule, to_move=own)


def _interleave(black: Sequence[Point], white: Sequence[Point]) -> list[Point]:
    """Black, white, black, ... from the two lists."""
    merged: list[Point] = []
    for index, point in enumerate(black):
        merged.append(point)
        if index < len(white):
            merged.append(white[index])
    return merged


def _rebuild(board: Board, rule: Rule) -> Board:
    """The same position under another rule (replayed when it can be, else set up)."""
    black, white = board.setup
    fresh = (
        Board.from_stones(black, white, size=board.size, rule=rule, to_move=board.setup_to_move)
        if board.setup != ((), ())
        else Board(board.size, rule)
    )
    try:
        for move in board.moves:
            fresh.play(move.point)
    except IllegalMoveError:
        return Board.from_stones(
            board.stones(Color.BLACK),
            board.stones(Color.WHITE),
            size=board.size,
            rule=rule,
            to_move=board.to_move,
        )
    return fresh


def _looks_like_coordinates(text: str) -> bool:
    return text[:1].isdigit() or text[:1] in "-+"


def _parse_int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _parse_ints(text: str, count: int) -> tuple[int, ...] | None:
    parts = text.split(",")
    if len(parts) != count:
        return None
    numbers = [_parse_int(part) for part in parts]
    if any(number is None for number in numbers):
        return None
    return tuple(number for number in numbers if number is not None)


def _clip(text: str, limit: int = 40) -> str:
    """User text echoed in an answer: one short line, printable characters only."""
    cleaned = "".join(char if char.isprintable() else "?" for char in text)
    return cleaned[:limit] + ("..." if len(cleaned) > limit else "")
