"""What players type (``/place cell``) and how often they may type it, without Discord."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.cooldown import UserCooldown
from bot.transformers import Cell
from engine.errors import InvalidPointError
from engine.types import COLUMNS, Point

points = st.builds(Point, st.integers(0, len(COLUMNS) - 1), st.integers(0, 98))


@given(points, st.booleans(), st.sampled_from(["", " ", "  "]))
def test_every_point_name_parses_back(point: Point, upper: bool, pad: str) -> None:
    text = str(point).upper() if upper else str(point)
    assert Cell.parse(f"{pad}{text}{pad}") == Cell(point, None)


@given(st.sampled_from(COLUMNS), st.booleans())
def test_a_lone_letter_is_a_column(letter: str, upper: bool) -> None:
    parsed = Cell.parse(letter.upper() if upper else letter)
    assert parsed == Cell(None, COLUMNS.index(letter), letter=True)


@given(st.integers(1, 99), st.sampled_from(["", " "]))
def test_a_lone_number_is_a_column(number: int, pad: str) -> None:
    assert Cell.parse(f"{pad}{number}{pad}") == Cell(None, number - 1)


def _oracle(text: str) -> Cell | None:
    # The slow, obvious reading: strip spaces, a board letter, then an optional number 1-99.
    squeezed = text.strip(" \t\n\r\x0b\x0c").lower()
    if len(squeezed) == 1 and squeezed in COLUMNS:
        return Cell(None, COLUMNS.index(squeezed), letter=True)
    if 1 <= len(squeezed) <= 2 and squeezed.isascii() and squeezed.isdigit():
        return Cell(None, int(squeezed) - 1)
    letter, rest = squeezed[:1], squeezed[1:].strip(" \t\n\r\x0b\x0c").lstrip("0")
    if letter not in COLUMNS or not letter or not rest.isascii() or not rest.isdigit():
        return None
    if not 1 <= int(rest) <= 99:
        return None
    return Cell(Point(COLUMNS.index(letter), int(rest) - 1), None)


@given(st.text(alphabet=string.ascii_letters + string.digits + " @<>&#`*_~|", max_size=8))
def test_anything_typed_parses_like_the_oracle_or_is_refused(text: str) -> None:
    expected = _oracle(text)
    if expected is None:
        with pytest.raises(InvalidPointError) as caught:
            Cell.parse(text)
        assert caught.value.text == text
    else:
        assert Cell.parse(text) == expected


@given(st.integers(1, 6), st.integers(0, 20))
def test_cooldown_lets_exactly_rate_commands_through(rate: int, attempts: int) -> None:
    now = [1000.0]
    cooldown = UserCooldown(rate=rate, per=10.0, clock=lambda: now[0])
    passed = sum(cooldown.hit(42) is None for _ in range(attempts))
    assert passed == min(rate, attempts)
    assert cooldown.hit(43) is None  # other users are not affected
    now[0] += 10.5
    assert cooldown.hit(42) is None  # the window has passed
