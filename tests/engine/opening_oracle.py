"""A slow oracle for the opening rules, written from the rule texts in RULES.md section 3.1.

Each rule is a script (a generator) that reads like its definition: it yields what it
expects next (a kind of step, by whom, where or which) and receives the step taken. Stones
live in a plain dict; areas are distances from the centre; symmetry is checked by mapping
offsets from the centre through the 8 symmetries of a square. Nothing here uses
``engine.opening_rules``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field

from engine import Color, Point

FIRST, SECOND = "first", "second"


@dataclass(frozen=True)
class Expect:
    kind: str  # "place", "choose", "declare", "offer", "pick"
    by: str  # FIRST or SECOND
    options: frozenset[str] = frozenset()  # choose: the choices allowed
    area: int | None = None  # place: side of the central square, None anywhere


@dataclass(frozen=True)
class Step:
    kind: str
    point: Point | None = None
    word: str = ""  # a choice
    number: int = 0  # declare


@dataclass
class Table:
    size: int
    stones: dict[Point, Color] = field(default_factory=dict)
    black: str = FIRST  # who holds Black
    offers: list[Point] = field(default_factory=list)

    def holder(self, color: Color) -> str:
        if color is Color.BLACK:
            return self.black
        return SECOND if self.black == FIRST else FIRST

    def next_color(self) -> Color:
        return Color.BLACK if len(self.stones) % 2 == 0 else Color.WHITE

    def inside(self, point: Point, area: int | None) -> bool:
        if not (0 <= point.x < self.size and 0 <= point.y < self.size):
            return False
        if area is None:
            return True
        c = self.size // 2
        return max(abs(point.x - c), abs(point.y - c)) <= area // 2

    def transforms(self) -> Iterator[Callable[[Point], Point]]:
        c = self.size // 2
        for swap in (False, True):
            for sx in (1, -1):
                for sy in (1, -1):

                    def t(p: Point, swap=swap, sx=sx, sy=sy) -> Point:
                        dx, dy = p.x - c, p.y - c
                        if swap:
                            dx, dy = dy, dx
                        return Point(c + sx * dx, c + sy * dy)

                    yield t

    def mirrors(self, p: Point, q: Point) -> bool:
        """Some symmetry that keeps every stone (and colour) maps q onto p."""
        for t in self.transforms():
            if {t(s): color for s, color in self.stones.items()} == self.stones and t(q) == p:
                return True
        return False


Script = Generator[Expect, Step, None]


def _choose(table: Table, by: str, step: Step) -> None:
    table.black = by if step.word == "black" else (SECOND if by == FIRST else FIRST)


def swap(table: Table) -> Script:
    """First places black, white, black; second takes a colour."""
    for _ in range(3):
        yield Expect("place", FIRST)
    step = yield Expect("choose", SECOND, frozenset({"black", "white"}))
    _choose(table, SECOND, step)


def swap2(table: Table) -> Script:
    """First places three stones; second takes Black, takes White, or places a white and a
    black stone, and then first takes a colour."""
    for _ in range(3):
        yield Expect("place", FIRST)
    step = yield Expect("choose", SECOND, frozenset({"black", "white", "two"}))
    if step.word != "two":
        _choose(table, SECOND, step)
        return
    for _ in range(2):
        yield Expect("place", SECOND)
    step = yield Expect("choose", FIRST, frozenset({"black", "white"}))
    _choose(table, FIRST, step)


def _offers(table: Table, count: int) -> Script:
    for _ in range(count):
        yield Expect("offer", table.holder(Color.BLACK))
    yield Expect("pick", table.holder(Color.WHITE))


def soosorv8(table: Table) -> Script:
    """One of the 26 openings by the first player; the other may swap; White plays the 4th
    anywhere and declares 1..8 fifth moves; the other may swap; Black offers that many
    non-symmetric fifth moves; White picks one (and plays the 6th as a normal move)."""
    for area in (1, 3, 5):
        yield Expect("place", FIRST, area=area)
    step = yield Expect("choose", SECOND, frozenset({"black", "white"}))
    _choose(table, SECOND, step)
    yield Expect("place", table.holder(Color.WHITE))
    step = yield Expect("declare", table.holder(Color.WHITE))
    count = step.number
    by = table.holder(Color.BLACK)
    step = yield Expect("choose", by, frozenset({"black", "white"}))
    _choose(table, by, step)
    yield from _offers(table, count)


def taraguchi10(table: Table) -> Script:
    """Moves 1..4 in the central 1, 3, 5, 7 squares, each followed (1..3) by the other
    player's swap; after the 4th, Black either swaps or keeps and plays one 5th inside the
    9x9 (then the other may swap), or offers ten fifth moves for White to pick from."""
    colors = (Color.BLACK, Color.WHITE)
    for n, area in enumerate((1, 3, 5, 7)):
        yield Expect("place", table.holder(colors[n % 2]), area=area)
        if n < 3:
            by = table.holder(colors[(n + 1) % 2])
            step = yield Expect("choose", by, frozenset({"black", "white"}))
            _choose(table, by, step)
    by = table.holder(Color.BLACK)
    step = yield Expect("choose", by, frozenset({"black", "white", "offer"}))
    if step.word == "offer":
        yield from _offers(table, 10)
        return
    _choose(table, by, step)
    yield Expect("place", table.holder(Color.BLACK), area=9)
    by = table.holder(Color.WHITE)
    step = yield Expect("choose", by, frozenset({"black", "white"}))
    _choose(table, by, step)


SCRIPTS = {"swap": swap, "swap2": swap2, "soosorv8": soosorv8, "taraguchi10": taraguchi10}


class Oracle:
    """Runs a script, refusing any step it does not expect."""

    def __init__(self, rule: str, size: int = 15) -> None:
        self.table = Table(size)
        self._script = SCRIPTS[rule](self.table)
        self.expect: Expect | None = next(self._script)

    @property
    def done(self) -> bool:
        return self.expect is None

    def allows(self, step: Step) -> bool:
        expect, table = self.expect, self.table
        if expect is None or step.kind != expect.kind:
            return False
        match step.kind:
            case "place":
                assert step.point is not None
                return table.inside(step.point, expect.area) and step.point not in table.stones
            case "choose":
                return step.word in expect.options
            case "declare":
                return 1 <= step.number <= 8
            case "offer":
                p = step.point
                assert p is not None
                if not table.inside(p, None) or p in table.stones:
                    return False
                return not any(table.mirrors(p, q) for q in table.offers)
            case "pick":
                return step.point in table.offers
        return False

    def take(self, step: Step) -> None:
        """Apply an allowed step."""
        table = self.table
        if step.kind in ("place", "pick"):
            assert step.point is not None
            table.stones[step.point] = table.next_color()
        elif step.kind == "offer":
            assert step.point is not None
            table.offers.append(step.point)
        try:
            self.expect = self._script.send(step)
        except StopIteration:
            self.expect = None
