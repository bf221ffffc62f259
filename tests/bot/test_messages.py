"""Every message that crosses the AI queue is encoded from its type: each field of each message
type (and of the values inside it) goes out and comes back, whatever it holds.

The strategies are derived from the dataclasses' own fields and annotations, so a field added
to a message is generated here too, populated, and must survive the trip. The wire test also
checks that the encoded form names each field (nested ones included), so a codec that drops a
field which the decoder then fills back in from its default fails as well.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.ai import AIMove, AIRequest
from bot.core.queue_ai import MessageError, decode, dumps, encode, loads, message_types
from engine.opening_rules import OpeningRule
from engine.types import Game, Level, Point, Rule

# The queue's JSON carries any int; numbers are drawn from a wide range all the same.
_INTS = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_OPENING_RULES = tuple(rule.value for rule in OpeningRule)


def _fields(kind: type[Any]) -> dict[str, Any]:
    """``kind``'s fields with their annotations resolved (``from __future__ import
    annotations`` leaves them as text)."""
    hints = typing.get_type_hints(kind)
    return {field.name: hints[field.name] for field in dataclasses.fields(kind)}


def values(hint: Any, *, populated: bool) -> st.SearchStrategy[Any]:
    """Any value of type ``hint``; with ``populated``, never None where None is allowed (so
    every optional field holds something)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) < len(args) and not populated:
            options.append(type(None))
        return st.one_of([values(a, populated=populated) for a in options])
    if hint is type(None):
        return st.none()
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            items = values(args[0], populated=populated)
            return st.lists(items, min_size=int(populated), max_size=4).map(tuple)
        return st.tuples(*(values(a, populated=populated) for a in args))
    if dataclasses.is_dataclass(hint):
        return messages(typing.cast(type[Any], hint), populated=populated)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    if hint is bool:
        return st.booleans()
    if hint is int:
        return _INTS
    if hint is float:
        return st.floats(allow_nan=False)
    if hint is str:
        return st.text(max_size=12)
    raise TypeError(f"no strategy for {hint!r}: teach values() about it")


def messages(kind: type[Any], *, populated: bool = True) -> st.SearchStrategy[Any]:
    """Instances of the dataclass ``kind`` with every field drawn (none left at its default)."""
    fields = {name: values(hint, populated=populated) for name, hint in _fields(kind).items()}
    return st.builds(kind, **fields)


def _opening_requests() -> st.SearchStrategy[AIRequest]:
    """Requests as the service sends them during an opening rule: a real rule and its steps."""
    steps = st.lists(st.sampled_from(["h8", "i9", "j7", "black", "white", "two", "2"]), max_size=6)
    return st.builds(
        AIRequest,
        game=st.just(Game.GOMOKU),
        size=st.sampled_from([15, 19]),
        rule=st.sampled_from(list(Rule)),
        moves=st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=6).map(tuple),
        level=st.sampled_from(list(Level)),
        seed=st.integers(0, 2**31 - 1),
        opening=st.tuples(st.sampled_from(_OPENING_RULES), steps.map(tuple)),
    )


def _trip(message: Any) -> Any:
    """``message`` as the queue carries it: encoded, in arq's envelope as bytes, and back."""
    return decode(loads(dumps({"a": [encode(message)]}))["a"][0], type(message))


MESSAGE_TYPES = message_types()


@pytest.mark.parametrize("kind", MESSAGE_TYPES, ids=[k.__name__ for k in MESSAGE_TYPES])
@given(data=st.data())
def test_every_message_comes_back_equal(kind: type[Any], data: st.DataObject) -> None:
    populated = data.draw(messages(kind), label="populated")
    assert _trip(populated) == populated
    sparse = data.draw(messages(kind, populated=False), label="any")
    assert _trip(sparse) == sparse


@given(request=_opening_requests())
def test_a_request_in_an_opening_rule_keeps_its_state(request: AIRequest) -> None:
    back = _trip(request)
    assert back == request
    assert back.opening == request.opening


@given(move=messages(AIMove))
def test_an_opening_answer_keeps_its_step(move: AIMove) -> None:
    assert move.step is not None
    assert _trip(move).step == move.step


def _inner(hint: Any) -> list[Any]:
    """The types a field of type ``hint`` holds: itself, or each of a union's members."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(hint) if a is not type(None)]
    return [hint]


def _is_sequence_of_dataclasses(hint: Any) -> bool:
    args = typing.get_args(hint)
    return (
        typing.get_origin(hint) is tuple
        and args[-1:] == (Ellipsis,)
        and dataclasses.is_dataclass(args[0])
    )


def _expected(kind: type[Any], prefix: str = "") -> set[str]:
    """Every field path of the dataclass ``kind``, through nested dataclasses and sequences of
    them: ``point``, ``point.x``, ``others[].line``..."""
    paths: set[str] = set()
    for name, hint in _fields(kind).items():
        path = prefix + name
        paths.add(path)
        for inner in _inner(hint):
            args = typing.get_args(inner)
            if dataclasses.is_dataclass(inner):
                paths |= _expected(typing.cast(type, inner), path + ".")
            elif _is_sequence_of_dataclasses(inner):
                paths |= _expected(typing.cast(type, args[0]), path + "[].")
    return paths


def _present(data: Any, kind: type[Any], prefix: str = "") -> set[str]:
    """The field paths of ``kind`` that the encoded ``data`` holds."""
    assert isinstance(data, dict), f"{kind.__name__} is not encoded as an object"
    paths: set[str] = set()
    for name, hint in _fields(kind).items():
        if name not in data:
            continue
        path = prefix + name
        paths.add(path)
        for inner in _inner(hint):
            args = typing.get_args(inner)
            if dataclasses.is_dataclass(inner) and isinstance(data[name], dict):
                paths |= _present(data[name], typing.cast(type, inner), path + ".")
            elif _is_sequence_of_dataclasses(inner):
                for item in data[name]:
                    paths |= _present(item, typing.cast(type, args[0]), path + "[].")
    return paths


@pytest.mark.parametrize("kind", MESSAGE_TYPES, ids=[k.__name__ for k in MESSAGE_TYPES])
@given(data=st.data())
def test_every_field_is_on_the_wire(kind: type[Any], data: st.DataObject) -> None:
    """Derived from ``dataclasses.fields``: a field added to a message type (or to a type
    inside one) must appear in its encoded form, or this fails."""
    message = data.draw(messages(kind))
    wire = json.loads(dumps(encode(message)))
    assert _present(wire, kind) == _expected(kind)


def test_the_message_types_are_every_type_the_runners_exchange() -> None:
    """``message_types`` is what the property tests cover: the requests the runner sends and
    the answers it decodes, and inside them points and lines."""
    assert {k.__name__ for k in MESSAGE_TYPES} == {
        "AIRequest",
        "AIMove",
        "AnalysisRequest",
        "Analysis",
    }
    paths = set().union(*(_expected(kind) for kind in MESSAGE_TYPES))
    assert {"point.x", "best.y", "others[].move.x", "others[].line", "opening", "step"} <= paths


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        ({"point": {"x": "h", "y": 8}, "score": 0, "depth": 0, "nodes": 0, "time_ms": 0.0}, AIMove),
        ({"point": {"x": 7, "y": 7}, "score": 0, "depth": 0, "nodes": 0}, AIMove),
        (
            {
                "game": "chess",
                "size": 8,
                "rule": "freestyle",
                "moves": [],
                "level": "easy",
                "seed": 1,
            },
            AIRequest,
        ),
        (
            {
                "game": "gomoku",
                "size": 15,
                "rule": "freestyle",
                "moves": [[7]],
                "level": "easy",
                "seed": 1,
            },
            AIRequest,
        ),
        ("a move", AIMove),
        (None, AIRequest),
    ],
    ids=["a point of text", "a missing field", "an unknown game", "half a move", "text", "null"],
)
def test_what_is_not_the_message_is_refused_with_a_clear_error(data: Any, kind: type) -> None:
    with pytest.raises(MessageError) as caught:
        decode(data, kind)
    assert kind.__name__ in str(caught.value)


def test_a_point_travels_as_its_coordinates() -> None:
    # The one wire shape a person reads in Redis: readable, and the same in both directions.
    move = AIMove(Point(7, 7), 12, 3, 400, 1.5, step="two")
    assert encode(move) == {
        "point": {"x": 7, "y": 7},
        "score": 12,
        "depth": 3,
        "nodes": 400,
        "time_ms": 1.5,
        "step": "two",
    }
