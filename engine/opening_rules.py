"""Opening rules: swap, swap2, Soosõrv-8 and Taraguchi-10 as state machines over a ``Board``.

An opening rule decides who plays Black before the game proper starts (RULES.md section 3.1
gives each rule's text and its sources). Two people take part: the *first* player, who
starts the opening (tentatively Black), and the *second*. Each step is one of

* ``place(point)``  - the next opening stone, of the colour whose turn it is on the board;
* ``choose(choice)`` - the player to act takes Black or White (swap), or, in swap2, places
  two more stones instead; in Taraguchi-10, offers ten fifth moves instead;
* ``declare(n)``    - Soosõrv-8: White declares how many fifth moves Black must offer;
* ``offer(point)``  - renju: one fifth-move candidate (not a stone yet);
* ``pick(point)``   - renju: White chooses which offer becomes the fifth move.

An ``Opening`` never changes: every step returns the next one. It knows whose step it is
(``actor``, a ``Seat``), what kind of step (``phase``), the stones (``board``, a move list that
always alternates Black, White, ...) and which seat holds Black. When ``phase`` is ``DONE``
the opening is over and the board continues under its own rule; the side to move is whoever
holds the colour to move.

``log`` writes the steps as words (``"h8 i9 j10 two h11 k7 black"``) and ``Opening.replay``
reads them back, which is how a game interrupted in mid-opening is stored and resumed.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Self

from engine.board import Board, symmetric_point
from engine.errors import (
    NotOfferedError,
    OfferCountError,
    OpeningStepError,
    OutsideOpeningAreaError,
    SymmetricOfferError,
    UnsupportedBoardError,
)
from engine.types import Color, Point, Rule

__all__ = [
    "Choice",
    "Opening",
    "OpeningRule",
    "Phase",
    "Seat",
    "symmetric_twin",
]

RENJU_SIZE = 15
SOOSORV_MOST = 8  # Soosõrv-8: White declares 1..8 fifth moves
TARAGUCHI_OFFERS = 10  # Taraguchi-10: Black may offer ten fifth moves instead of one
# Taraguchi: stone n (0-based) must lie inside the central square of this side
_TARAGUCHI_AREA = (1, 3, 5, 7, 9)
# the 26 canonical renju openings: 1st in the centre, 2nd in the 3x3, 3rd in the 5x5
_CANONICAL_AREA = (1, 3, 5)


class OpeningRule(enum.StrEnum):
    """How the colours are settled at the start (RULES.md section 3.1)."""

    SWAP = "swap"  # first places B, W, B; second takes a colour
    SWAP2 = "swap2"  # ... or second places W, B and first takes a colour
    SOOSORV8 = "soosorv8"  # renju: 26 openings, swap, 4th + declare 1..8, swap, offers, pick
    TARAGUCHI10 = "taraguchi10"  # renju: swap after each of 4 stones; one 5th or ten offers

    @property
    def is_renju(self) -> bool:
        """Whether the rule is a renju opening (15x15, renju rule, central squares)."""
        return self in (OpeningRule.SOOSORV8, OpeningRule.TARAGUCHI10)


class Seat(enum.StrEnum):
    """Which of the two people: the one who starts the opening, or the other."""

    FIRST = "first"  # starts the opening, tentatively Black
    SECOND = "second"  # tentatively White

    @property
    def other(self) -> Seat:
        """The other person."""
        return Seat.SECOND if self is Seat.FIRST else Seat.FIRST


class Phase(enum.StrEnum):
    """The kind of step the opening waits for."""

    PLACE = "place"  # a stone (``place``)
    CHOOSE = "choose"  # a choice (``choose``), one of ``choices``
    DECLARE = "declare"  # a number of fifth moves (``declare``)
    OFFER = "offer"  # a fifth-move offer (``offer``)
    PICK = "pick"  # one of the offers (``pick``)
    DONE = "done"  # the opening is over


class Choice(enum.StrEnum):
    """What the player to act may choose."""

    BLACK = "black"  # take Black
    WHITE = "white"  # take White
    TWO = "two"  # swap2: place a white and a black stone, the other player then chooses
    OFFER = "offer"  # Taraguchi-10: offer ten fifth moves instead of playing one


class _Stage(enum.StrEnum):
    """Internal steps; each is one ``Phase``."""

    PLACE3 = "place3"  # first player places 3 stones (swap, swap2, Soosõrv)
    CHOOSE3 = "choose3"  # second player chooses after 3 stones
    PLACE5 = "place5"  # swap2: second player places the 4th and 5th stones
    CHOOSE5 = "choose5"  # swap2: first player chooses after 5 stones
    PLACE4 = "place4"  # Soosõrv: White places the 4th anywhere
    DECLARE = "declare"  # Soosõrv: White declares the number of fifth moves
    CHOOSE4 = "choose4"  # Soosõrv: Black may swap after the declaration
    OFFER = "offer"  # renju: Black offers fifth moves
    PICK = "pick"  # renju: White picks one
    T_PLACE = "t_place"  # Taraguchi: stones 1..4 and a single 5th, each in its square
    T_CHOOSE = "t_choose"  # Taraguchi: the other player may swap after stones 1..3 and a 5th
    T_CHOOSE4 = "t_choose4"  # Taraguchi: after the 4th: keep, swap, or offer ten
    DONE = "done"  # the opening is over


_PHASE = {
    _Stage.PLACE3: Phase.PLACE,
    _Stage.CHOOSE3: Phase.CHOOSE,
    _Stage.PLACE5: Phase.PLACE,
    _Stage.CHOOSE5: Phase.CHOOSE,
    _Stage.PLACE4: Phase.PLACE,
    _Stage.DECLARE: Phase.DECLARE,
    _Stage.CHOOSE4: Phase.CHOOSE,
    _Stage.OFFER: Phase.OFFER,
    _Stage.PICK: Phase.PICK,
    _Stage.T_PLACE: Phase.PLACE,
    _Stage.T_CHOOSE: Phase.CHOOSE,
    _Stage.T_CHOOSE4: Phase.CHOOSE,
    _Stage.DONE: Phase.DONE,
}


def _in_square(point: Point, size: int, side: int) -> bool:
    centre = size // 2
    half = side // 2
    return abs(point.x - centre) <= half and abs(point.y - centre) <= half


def _keeping(board: Board) -> list[int]:
    # the symmetries (other than the identity) that leave every stone where it is
    return [s for s in range(1, 8) if board.transformed(s).same_position(board)]


def symmetric_twin(
    board: Board, point: Point, offers: Iterable[Point], keeping: list[int] | None = None
) -> Point | None:
    """An offer that ``point`` repeats or mirrors: a symmetry of the board that keeps every
    stone in place (colours included) maps one onto the other. None when ``point`` is unique.
    """
    if keeping is None:
        keeping = _keeping(board)
    for offer in offers:
        if offer == point or any(symmetric_point(offer, board.size, s) == point for s in keeping):
            return offer
    return None


@dataclass(frozen=True, slots=True)
class Opening:
    """One moment of an opening. Treat ``board`` as read-only (``board.copy()`` to explore)."""

    rule: OpeningRule
    board: Board  # the opening's stones as moves (Black first)
    stage: _Stage = _Stage.PLACE3  # internal step name (``phase`` is the public kind)
    black: Seat = Seat.FIRST  # who holds Black now
    declared: int | None = None  # renju: how many fifth moves Black must offer
    offers: tuple[Point, ...] = ()  # renju: the fifth moves offered so far
    log: tuple[str, ...] = field(default=())  # the steps so far, as words

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def start(cls, rule: OpeningRule, *, size: int = 15, board_rule: Rule = Rule.FREESTYLE) -> Self:
        """A new opening on an empty Gomoku board.

        Raises:
            UnsupportedBoardError: a renju opening on anything but a 15x15 renju board.
        """
        rule = OpeningRule(rule)
        if rule.is_renju and (size != RENJU_SIZE or Rule(board_rule) is not Rule.RENJU):
            raise UnsupportedBoardError(f"{rule.value} is played on a 15x15 renju board")
        board = Board(size, board_rule)
        stage = _Stage.T_PLACE if rule is OpeningRule.TARAGUCHI10 else _Stage.PLACE3
        return cls(rule, board, stage)

    @classmethod
    def replay(
        cls,
        rule: OpeningRule,
        log: str | Iterable[str],
        *,
        size: int = 15,
        board_rule: Rule = Rule.FREESTYLE,
    ) -> Opening:
        """The opening after the steps in ``log`` (as written by ``Opening.log``).

        Raises:
            InvalidPointError: a word that is neither a point, a choice nor a number.
            OpeningError, IllegalMoveError: a step the rule does not allow.
        """
        opening = cls.start(rule, size=size, board_rule=board_rule)
        for word in log.split() if isinstance(log, str) else log:
            opening = opening.step(word)
        return opening

    def step(self, word: str) -> Opening:
        """Apply one step written as a word: a point, a ``Choice`` value or a number.

        Raises:
            InvalidPointError: a word that is neither a point, a choice nor a number.
            OpeningError, IllegalMoveError: a step the rule does not allow.
        """
        if word.isdigit():
            return self.declare(int(word))
        if word in {c.value for c in Choice}:
            return self.choose(Choice(word))
        point = Point.parse(word)
        match self.phase:
            case Phase.OFFER:
                return self.offer(point)
            case Phase.PICK:
                return self.pick(point)
        return self.place(point)

    # -- state ----------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The kind of step the opening waits for."""
        return _PHASE[self.stage]

    @property
    def is_done(self) -> bool:
        """Whether the colours are settled and the game goes on normally."""
        return self.stage == _Stage.DONE

    def holder(self, color: Color) -> Seat:
        """Who holds ``color`` now."""
        return self.black if color is Color.BLACK else self.black.other

    def color_of(self, seat: Seat) -> Color:
        """The colour ``seat`` holds now."""
        return Color.BLACK if seat is self.black else Color.WHITE

    @property
    def actor(self) -> Seat | None:
        """Whose step it is; None when the opening is over."""
        match self.stage:
            case _Stage.PLACE3:
                return Seat.FIRST
            case _Stage.CHOOSE3 | _Stage.PLACE5:
                return Seat.SECOND
            case _Stage.CHOOSE5:
                return Seat.FIRST
            case _Stage.PLACE4 | _Stage.DECLARE | _Stage.PICK:
                return self.holder(Color.WHITE)
            case _Stage.CHOOSE4 | _Stage.OFFER | _Stage.T_CHOOSE4:
                return self.holder(Color.BLACK)
            case _Stage.T_PLACE | _Stage.T_CHOOSE:
                # a stone: its colour's holder; a swap: the holder of the colour to move next
                return self.holder(self.board.to_move)
        return None

    def choices(self) -> tuple[Choice, ...]:
        """What ``choose`` accepts now (empty unless ``phase`` is CHOOSE)."""
        match self.stage:
            case _Stage.CHOOSE3 if self.rule is OpeningRule.SWAP2:
                return (Choice.BLACK, Choice.WHITE, Choice.TWO)
            case _Stage.T_CHOOSE4:
                return (Choice.BLACK, Choice.WHITE, Choice.OFFER)
            case _Stage.CHOOSE3 | _Stage.CHOOSE5 | _Stage.CHOOSE4 | _Stage.T_CHOOSE:
                return (Choice.BLACK, Choice.WHITE)
        return ()

    @property
    def offer_count(self) -> int:
        """Renju: how many fifth moves Black must offer (0 before it is known)."""
        return self.declared or 0

    @property
    def area(self) -> int | None:
        """The side of the central square the next stone must lie in; None: anywhere."""
        moves = len(self.board.moves)
        if self.stage == _Stage.T_PLACE:
            return _TARAGUCHI_AREA[moves]
        if self.stage == _Stage.PLACE3 and self.rule is OpeningRule.SOOSORV8:
            return _CANONICAL_AREA[moves]
        return None

    def legal_points(self) -> list[Point]:
        """Where ``place`` or ``offer`` (or ``pick``) would be accepted now."""
        if self.phase is Phase.PICK:
            return list(self.offers)
        if self.phase not in (Phase.PLACE, Phase.OFFER):
            return []
        points = []
        keeping = _keeping(self.board) if self.phase is Phase.OFFER else []
        for point in self.board.legal_moves():
            if self.area is not None and not _in_square(point, self.board.size, self.area):
                continue
            if self.phase is Phase.OFFER and symmetric_twin(
                self.board, point, self.offers, keeping
            ):
                continue
            points.append(point)
        return points

    # -- steps ----------------------------------------------------------------------------

    def _expect(self, phase: Phase, given: str) -> None:
        if self.phase is not phase:
            raise OpeningStepError(self.phase.value, given)

    def _next(self, **changes: object) -> Opening:
        return replace(self, **changes)  # type: ignore[arg-type]

    def place(self, point: Point) -> Opening:
        """The next opening stone, of the colour to move on the board.

        Raises:
            OpeningStepError: the opening does not wait for a stone.
            OutsideOpeningAreaError: renju: outside the central square allowed.
            IllegalMoveError: off the board, occupied, or forbidden.
        """
        self._expect(Phase.PLACE, f"place {point}")
        area = self.area
        self.board.check_move(point)
        if area is not None and not _in_square(point, self.board.size, area):
            raise OutsideOpeningAreaError(point, area)
        board = self.board.copy()
        board.play(point)
        moves = len(board.moves)
        log = (*self.log, str(point))
        match self.stage:
            case _Stage.PLACE3:
                stage = _Stage.CHOOSE3 if moves == 3 else _Stage.PLACE3
            case _Stage.PLACE5:
                stage = _Stage.CHOOSE5 if moves == 5 else _Stage.PLACE5
            case _Stage.PLACE4:
                stage = _Stage.DECLARE
            case _:  # _Stage.T_PLACE
                stage = {4: _Stage.T_CHOOSE4}.get(moves, _Stage.T_CHOOSE)
        return self._next(board=board, stage=stage, log=log)

    def choose(self, choice: Choice) -> Opening:
        """The player to act takes a colour, or (swap2) places two more, or (Taraguchi-10)
        offers ten fifth moves.

        Raises:
            OpeningStepError: no choice is due, or this one is not among ``choices()``.
        """
        choice = Choice(choice)
        if choice not in self.choices():
            raise OpeningStepError(self.phase.value, f"choose {choice.value}")
        actor = self.actor
        assert actor is not None  # a choice is due, so someone acts
        log = (*self.log, choice.value)
        if choice is Choice.TWO:
            return self._next(stage=_Stage.PLACE5, log=log)
        if choice is Choice.OFFER:
            return self._next(stage=_Stage.OFFER, declared=TARAGUCHI_OFFERS, log=log)
        black = actor if choice is Choice.BLACK else actor.other
        moves = len(self.board.moves)
        match self.stage:
            case _Stage.CHOOSE3 if self.rule is OpeningRule.SOOSORV8:
                stage = _Stage.PLACE4
            case _Stage.CHOOSE4:
                stage = _Stage.OFFER
            case _Stage.T_CHOOSE if moves < 4:
                stage = _Stage.T_PLACE
            case _Stage.T_CHOOSE4:
                stage = _Stage.T_PLACE  # a single fifth inside the 9x9
            case _:  # swap, swap2, and Taraguchi's swap after a single fifth
                stage = _Stage.DONE
        return self._next(stage=stage, black=black, log=log)

    def declare(self, count: int) -> Opening:
        """Soosõrv-8: White says how many fifth moves Black must offer (1..8).

        Raises:
            OpeningStepError: no declaration is due.
            OfferCountError: outside 1..8.
        """
        self._expect(Phase.DECLARE, f"declare {count}")
        if not 1 <= count <= SOOSORV_MOST:
            raise OfferCountError(count, SOOSORV_MOST)
        return self._next(stage=_Stage.CHOOSE4, declared=count, log=(*self.log, str(count)))

    def offer(self, point: Point) -> Opening:
        """Renju: Black offers ``point`` as a fifth move.

        Raises:
            OpeningStepError: no offer is due.
            SymmetricOfferError: it mirrors an earlier offer (or repeats it).
            IllegalMoveError: off the board, occupied, or forbidden for Black.
        """
        self._expect(Phase.OFFER, f"offer {point}")
        self.board.check_move(point)
        twin = symmetric_twin(self.board, point, self.offers)
        if twin is not None:
            raise SymmetricOfferError(point, twin)
        offers = (*self.offers, point)
        stage = _Stage.PICK if len(offers) == self.offer_count else _Stage.OFFER
        return self._next(offers=offers, stage=stage, log=(*self.log, str(point)))

    def pick(self, point: Point) -> Opening:
        """Renju: White chooses the offer that becomes the fifth move; White plays the sixth.

        Raises:
            OpeningStepError: no pick is due.
            NotOfferedError: ``point`` was not offered.
        """
        self._expect(Phase.PICK, f"pick {point}")
        if point not in self.offers:
            raise NotOfferedError(point)
        board = self.board.copy()
        board.play(point)
        return self._next(board=board, stage=_Stage.DONE, log=(*self.log, str(point)))

    def __str__(self) -> str:
        return " ".join(self.log)
