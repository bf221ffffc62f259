"""Static evaluation: the pattern tables of each rule and a position's score.

The tables are built once per rule by the numba builders in ``engine.search._patterns`` (about a
tenth of a second for the exact-five rules) and kept for the life of the process. This module
knows nothing of search.

The evaluation's values are, per side, a value for each line pattern and each threat class,
and optionally a correction per multiset of a point's four patterns (``multiset``, in the order
of ``_patterns.MULTISETS``, added to the value the patterns and class give) and the weight of
the side to move's sum (``mine``: the evaluation is ``(mine * ours - 4 * theirs) // 4``, 5
unless a file says otherwise). By default they are the learned ones of
``engine/search/data/eval_weights.json``, fitted by ``tools/tune_eval.py`` (the model:
``tools/tune.py``) to a judge engine's opinion of quiet positions of master's games;
``eval_weights_outcomes.json`` beside it holds the earlier values fitted to those games'
outcomes. A file may also carry an evaluation network over the sums (``"net"``, ``Network``):
the packaged one does, and master searches with it (the kernels' ``_network``;
``tools/tune_eval.py net`` fits it). Beside it, ``"nets"`` may give a rule a network of its own
(``{"renju": {...}}``, fitted to that rule's positions by ``tools/tune_eval.py net --rule``): that
rule evaluates with it, every other rule with ``"net"``. The packaged ``"nets"`` keep renju on
the network fitted to fewer freestyle positions, which freestyle's did not beat there.
The level presets are spaced around the sums. The environment variable
``GOMOKU_EVAL_WEIGHTS`` picks ``hand`` (the hand-set values of ``engine.search._patterns``),
``learned``, or names another weights file (for matches between them).
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from engine.search import _kernels as k
from engine.search import _patterns
from engine.settings import rules_setting
from engine.types import Color, Rule

if TYPE_CHECKING:
    from engine.board import Board

__all__ = [
    "POLICY_INPUTS",
    "Network",
    "PatternTables",
    "Policy",
    "Weights",
    "build_tables",
    "evaluate",
    "load_policy",
    "load_weights",
    "policy",
    "policy_rows",
    "tables",
    "weights",
]

WEIGHTS_ENV = "GOMOKU_EVAL_WEIGHTS"
_PACKAGED = "engine/search/data/eval_weights.json"
POLICY_ENV = "GOMOKU_POLICY"
# the rules whose searches order by the learned policy and evaluate with the network, each a
# comma-separated list of rule names (for measuring; the defaults are below)
POLICY_RULES_ENV = "GOMOKU_POLICY_RULES"
NET_RULES_ENV = "GOMOKU_NET_RULES"
# Both were fitted to freestyle positions. Node for node against Rapfi 0.43.02 classical in its
# renju the network scored +0.148 +- 0.050 a game on the match openings and +0.070 +- 0.051 on
# 64 others, the policy +0.047 +- 0.044 and -0.008 +- 0.049; in its standard both together
# scored +0.063 +- 0.025 over three sets of 64 openings (384 games), though neither alone gained
# on the match openings (docs/engine.md, "Standard" and "Renju")
POLICY_RULES: Final = frozenset({Rule.FREESTYLE, Rule.STANDARD})
NET_RULES: Final = frozenset({Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU})
_PACKAGED_POLICY = "engine/search/data/policy.npz"
# a learned value head (``ValueHead``, a tools/value.py fit) to evaluate with in place of the
# network, in the rules of VALUE_RULES_ENV (freestyle by default): for measuring, none ships
# (node for node against Rapfi none has gained so far, docs/engine.md, "A learned value")
VALUE_ENV = "GOMOKU_VALUE"
VALUE_RULES_ENV = "GOMOKU_VALUE_RULES"
VALUE_RULES: Final = frozenset({Rule.FREESTYLE})
_MAX_VALUE_WEIGHT = 64.0  # keeps every fixed-point sum of the head inside 64 bits
_MAX_POLICY_WEIGHT = 64.0  # a point's feature (12 terms at most) stays below 2 ** 18 in fixed point
_MAX_WEIGHT = 1 << 20  # a point's value is packed as value << 4 into an int32
_MAX_MINE = 8  # the side to move's sum counts at most twice

_RULE_CODES = {
    Rule.FREESTYLE: _patterns.RULE_FREESTYLE,
    Rule.STANDARD: _patterns.RULE_STANDARD,
    Rule.RENJU: _patterns.RULE_RENJU,
    Rule.CARO: _patterns.RULE_CARO,
}


@dataclass(frozen=True, slots=True)
class PatternTables:
    """Everything the search looks up, for one rule (index 0 Black, 1 White)."""

    rule: int  # the rule's code in the kernels
    half: int  # points seen on each side of a point along a line
    # [line key, side] -> pattern (NONE..FOUR_FOUR): both sides' patterns of a key share a cache
    # line, as play and undo read them together
    pattern: npt.NDArray[np.uint8]
    threat: npt.NDArray[np.int8]  # [side, pattern code] -> threat class (P4_*)
    value: npt.NDArray[np.int32]  # [side, pattern code] -> evaluation of the point
    packed: npt.NDArray[np.int32]  # [side, pattern code] -> value << 4 | threat class
    score: npt.NDArray[np.int32]  # [side, pattern code] -> move-ordering score
    maybe_forbidden: npt.NDArray[np.int8]  # [Black's pattern code] -> worth a renju check
    mine: int  # the evaluation is (mine * side to move's sum - 4 * the other's) // 4
    net: npt.NDArray[np.int64]  # the g slots from G_NET to G_POL_E: the network (zeros: none)
    # the g slots from G_POL_E on: the move policy in the kernels' fixed point, and its
    # features a point (0: none, the candidates are ordered by ``score``)
    policy: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(k.G_VH_F - k.G_POL_E, dtype=np.int64)
    )
    policy_features: int = 0
    # the g slots from G_VH_F on: the learned value head (zeros: none, ``net`` evaluates)
    value_head: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(k.NG - k.G_VH_F, dtype=np.int64)
    )
    # [raw window, feature] -> the policy's row for a line window (``window_rows``), in the
    # kernels' fixed point; one row of zeros where the policy reads no windows
    window: npt.NDArray[np.int32] = field(
        default_factory=lambda: np.zeros((1, k.POL_MAX), dtype=np.int32)
    )


@dataclass(frozen=True, slots=True)
class Weights:
    """The evaluation's values (index 0 Black, 1 White)."""

    pattern: npt.NDArray[np.int32]  # [side, pattern] -> value of one direction's pattern
    threat: npt.NDArray[np.int32]  # [side, threat class] -> value of a point's class
    source: str  # where they came from, for reports
    # [side, multiset] -> added to the value of a point with those four patterns (zeros: none)
    multiset: npt.NDArray[np.int32] = field(
        default_factory=lambda: np.zeros((2, _patterns.NMULTI), dtype=np.int32)
    )
    # the side to move's points count mine / 4 times, the other side's once: the evaluation
    # is (mine * ours - 4 * theirs) // 4, a tempo that grows with the position
    mine: int = 5
    net: Network | None = None  # the evaluation network over the sums (None: the sums alone)
    # a rule's own network, used for that rule in place of ``net``
    nets: Mapping[Rule, Network] = field(default_factory=dict)

    def net_for(self, rule: Rule) -> Network | None:
        """The network ``rule`` evaluates with: its own, else ``net``."""
        return self.nets.get(Rule(rule), self.net)


@dataclass(frozen=True, slots=True)
class Network:
    """The evaluation network (``engine.search._kernels._network``): one layer of ReLU units
    over the inputs ``tools.tune.net_inputs`` describes, its output a logit."""

    w1: npt.NDArray[np.float64]  # [unit, input]
    b1: npt.NDArray[np.float64]  # [unit]
    w2: npt.NDArray[np.float64]  # [unit]: the logit a unit's value adds
    b2: float
    scale: float  # evaluation units a logit


@dataclass(frozen=True, slots=True)
class Policy:
    """The move policy (``engine.search._kernels._policy``, fitted by ``tools/mixnet.py``): a
    point's score for the side to move is ``u . relu(E[c0] + E[c1] + E[c2] + E[c3] + b)``
    over its codes in the four directions (the side to move's pattern * 12 + the other's)."""

    e: npt.NDArray[np.float64]  # [code, feature], then the rows of its other inputs
    b: npt.NDArray[np.float64]  # [feature]
    u: npt.NDArray[np.float64]  # [feature]
    source: str
    # other inputs (``POLICY_INPUTS``), each more rows of ``e`` a point adds to its sum
    inputs: tuple[str, ...] = ()


# the other inputs a policy may read (tools/mixnet.py's ``INPUTS`` that the kernels keep), in
# the order of their rows in E after the direction codes': each one's bit in G_POL_IN, its rows
# and the g slot where they start
POLICY_INPUTS = {
    "distance": (k.POL_DISTANCE, 2 * k.POL_NEAR, k.G_POL_D),
    "threat": (k.POL_THREAT, k.NP4 * k.NP4, k.G_POL_T),
}


# a policy may also read each direction's line window (``_tree._windows``): its rows come last
# in E, one for each window up to its mirror image (``window_rows``)
WINDOW_INPUT = "window"


@functools.cache
def window_rows() -> tuple[npt.NDArray[np.int64], int]:
    """For each raw line window (``k.NWINDOW``: the ``k.WIN_HALF`` points before the point
    along the line, nearest last, then those after it, nearest first, two bits each, the
    first point lowest: 0 empty, 1 the side to move's, 2 the other side's, 3 off the board),
    its row among a policy's window rows, a window and its mirror image sharing one; and how
    many rows there are."""
    cells = 2 * k.WIN_HALF
    raw = np.arange(k.NWINDOW, dtype=np.int64)
    digits = (raw[:, None] >> (2 * np.arange(cells))) & 3
    mirror = (digits[:, ::-1] << (2 * np.arange(cells))).sum(axis=1)
    unique, index = np.unique(np.minimum(raw, mirror), return_inverse=True)
    return index.astype(np.int64), len(unique)


def policy_rows(inputs: Sequence[str]) -> int:
    """The rows of a policy's E for ``inputs``: the direction codes' and each input's."""
    rows = k.NPAT * k.NPAT + sum(POLICY_INPUTS[name][1] for name in inputs if name in POLICY_INPUTS)
    return rows + (window_rows()[1] if WINDOW_INPUT in inputs else 0)


def load_policy(data: bytes, source: str = "") -> Policy:
    """A policy from the bytes of an ``npz`` file with arrays ``E``, ``b`` and ``u`` (what
    ``tools/mixnet.py`` writes; other arrays in it are ignored).

    Raises:
        ValueError: the bytes are not such a file (shapes, bounds).
    """
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            e = np.asarray(arrays["E"], dtype=np.float64)
            b = np.asarray(arrays["b"], dtype=np.float64)
            u = np.asarray(arrays["u"], dtype=np.float64)
            named = arrays["inputs"] if "inputs" in arrays.files else np.array([], dtype=str)
            inputs = tuple(str(name) for name in np.atleast_1d(named))
    except (ValueError, KeyError, OSError, EOFError) as exc:
        raise ValueError(f"{source}: not a policy file ({exc!r})") from None
    known = (*POLICY_INPUTS, WINDOW_INPUT)
    if unread := [name for name in inputs if name not in known]:
        raise ValueError(f"{source}: the search reads no input {', '.join(unread)}")
    inputs = tuple(name for name in known if name in inputs)  # E's own order
    features = b.shape[0] if b.ndim == 1 else 0
    rows = policy_rows(inputs)
    if not 0 < features <= k.POL_MAX or e.shape != (rows, features):
        raise ValueError(f"{source}: E needs {rows} rows of 1 to {k.POL_MAX} features")
    if u.shape != (features,):
        raise ValueError(f"{source}: u needs {features} numbers")
    for name, values in (("E", e), ("b", b), ("u", u)):
        if not np.all(np.abs(values) < _MAX_POLICY_WEIGHT):
            raise ValueError(f"{source}: {name} must be finite and below {_MAX_POLICY_WEIGHT:g}")
    return Policy(e, b, u, source or "npz", inputs)


def policy_slots(p: Policy | None) -> npt.NDArray[np.int64]:
    """The g slots from ``G_POL_E`` on for ``p`` (zeros for none): its weights in units of
    ``2 ** -POL_SHIFT``, the feature rows ``POL_MAX`` apart."""
    slots = np.zeros(k.G_VH_F - k.G_POL_E, dtype=np.int64)
    if p is None:
        return slots
    unit = float(1 << k.POL_SHIFT)
    features = len(p.b)

    def put(at: int, e: npt.NDArray[np.float64]) -> None:
        rows = np.zeros((e.shape[0], k.POL_MAX), dtype=np.int64)
        rows[:, :features] = np.round(e * unit)
        slots[at - k.G_POL_E : at - k.G_POL_E + rows.size] = rows.reshape(-1)

    put(k.G_POL_E, p.e[: k.NPAT * k.NPAT])
    row = k.NPAT * k.NPAT
    for name, (bit, count, at) in POLICY_INPUTS.items():
        if name in p.inputs:
            put(at, p.e[row : row + count])
            slots[k.G_POL_IN - k.G_POL_E] |= bit
            row += count
    if WINDOW_INPUT in p.inputs:
        slots[k.G_POL_IN - k.G_POL_E] |= k.POL_WINDOW
    slots[k.G_POL_B - k.G_POL_E : k.G_POL_B - k.G_POL_E + features] = np.round(p.b * unit)
    slots[k.G_POL_U - k.G_POL_E : k.G_POL_U - k.G_POL_E + features] = np.round(p.u * unit)
    return slots


@dataclass(frozen=True, slots=True)
class ValueHead:
    """A learned value (``engine.search._kernels._value``, fitted by ``tools/value.py``): every
    empty point's features ``relu(E[c0] + E[c1] + E[c2] + E[c3] + E[threats] + b)`` from the
    side to move's view, summed over the empty points and divided by 16, through one layer of
    ReLU units to a logit of the side to move's winning chance."""

    e: npt.NDArray[np.float64]  # [row, feature]: the 144 direction codes, then 121 threat pairs
    b: npt.NDArray[np.float64]  # [feature]
    w1: npt.NDArray[np.float64]  # [feature, unit]
    b1: npt.NDArray[np.float64]  # [unit]
    w2: npt.NDArray[np.float64]  # [unit]
    b2: float
    scale: float  # evaluation units a logit
    source: str
    add: bool = False  # a correction added to the network's value, not a value of its own


_HEAD = ("b", "W1", "b1", "w2", "b2")  # a fit's arrays beside E


def load_value_head(data: bytes, source: str = "") -> ValueHead:
    """A value head from the bytes of a ``tools/value.py`` fit (arrays ``E``, ``b``, ``W1``,
    ``b1``, ``w2``, ``b2``, ``inputs`` naming at most ``threat``, ``scale``, the evaluation
    units a logit, 1,000 where it is absent, and ``add``, true where the head corrects the
    network's value rather than replacing it).

    Raises:
        ValueError: the bytes are not such a fit (shapes, inputs, bounds).
    """
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            e = np.asarray(arrays["E"], dtype=np.float64)
            got = {name: np.asarray(arrays[name], dtype=np.float64) for name in _HEAD}
            inputs = tuple(str(x) for x in arrays["inputs"]) if "inputs" in arrays else ()
            scale = float(arrays["scale"]) if "scale" in arrays else 1000.0
            add = bool(arrays["add"]) if "add" in arrays else False
    except (ValueError, KeyError, OSError, EOFError) as exc:
        raise ValueError(f"{source}: not a value head ({exc!r})") from None
    features = got["b"].shape[0] if got["b"].ndim == 1 else 0
    hidden = got["b1"].shape[0] if got["b1"].ndim == 1 else 0
    codes = k.NPAT * k.NPAT
    if inputs not in ((), ("threat",)):
        raise ValueError(f"{source}: the search reads the codes and the threat pair only")
    if not 0 < features <= k.VH_MAX or not 0 < hidden <= k.VH_HMAX:
        raise ValueError(f"{source}: 1 to {k.VH_MAX} features and 1 to {k.VH_HMAX} units")
    rows = codes if not inputs else k.VH_ROWS
    shapes = {"b": (features,), "W1": (features, hidden), "b1": (hidden,), "w2": (hidden,)}
    if e.shape != (rows, features) or any(got[n].shape != v for n, v in shapes.items()):
        raise ValueError(f"{source}: E needs {rows} rows, W1 {features} x {hidden}")
    for name, values in (("E", e), *got.items()):
        if not np.all(np.abs(values) < _MAX_VALUE_WEIGHT):
            raise ValueError(f"{source}: {name} must be finite and below {_MAX_VALUE_WEIGHT:g}")
    if not 1 <= scale <= 1 << 14:
        raise ValueError(f"{source}: the scale must be from 1 to 16384")
    full = np.zeros((k.VH_ROWS, features))
    full[:rows] = e
    return ValueHead(
        full,
        got["b"],
        got["W1"],
        got["b1"],
        got["w2"],
        float(got["b2"].reshape(-1)[0]),
        scale,
        source or "npz",
        add,
    )


def value_slots(v: ValueHead | None) -> npt.NDArray[np.int64]:
    """The g slots from ``G_VH_F`` on for ``v`` (zeros for none) in the kernels' fixed point:
    ``E``, ``b`` and ``W1`` in units of ``2 ** -VH_SHIFT``, the units' biases and the output's
    in ``2 ** -VH_Z``, ``w2`` in ``2 ** -VH_SHIFT``."""
    slots = np.zeros(k.NG - k.G_VH_F, dtype=np.int64)
    if v is None:
        return slots
    unit = float(1 << k.VH_SHIFT)
    z = float(1 << k.VH_Z)
    features, hidden = v.w1.shape

    def at(slot: int) -> int:
        return slot - k.G_VH_F

    slots[at(k.G_VH_F)] = features
    slots[at(k.G_VH_H)] = hidden
    slots[at(k.G_VH_SCALE)] = round(v.scale)
    slots[at(k.G_VH_B2)] = round(v.b2 * z)
    slots[at(k.G_VH_ADD)] = int(v.add)
    e = np.zeros((k.VH_ROWS, k.VH_MAX), dtype=np.int64)
    e[:, :features] = np.round(v.e * unit)
    slots[at(k.G_VH_E) : at(k.G_VH_E) + e.size] = e.reshape(-1)
    slots[at(k.G_VH_B) : at(k.G_VH_B) + features] = np.round(v.b * unit)
    w1 = np.zeros((k.VH_MAX, k.VH_HMAX), dtype=np.int64)
    w1[:features, :hidden] = np.round(v.w1 * unit)
    slots[at(k.G_VH_W1) : at(k.G_VH_W1) + w1.size] = w1.reshape(-1)
    slots[at(k.G_VH_B1) : at(k.G_VH_B1) + hidden] = np.round(v.b1 * z)
    slots[at(k.G_VH_W2) : at(k.G_VH_W2) + hidden] = np.round(v.w2 * unit)
    return slots


@functools.cache
def value_head() -> ValueHead | None:
    """The value head this process evaluates with: ``$GOMOKU_VALUE`` (a fit), else none."""
    chosen = os.environ.get(VALUE_ENV, "")
    if not chosen or chosen == "off":
        return None
    with open(chosen, "rb") as file:
        return load_value_head(file.read(), chosen)


@functools.cache
def policy() -> Policy | None:
    """The move policy this process orders candidates with: ``$GOMOKU_POLICY`` (``off``, or
    a file), else the packaged one (None where there is none)."""
    chosen = os.environ.get(POLICY_ENV, "")
    if chosen == "off":
        return None
    if chosen:
        with open(chosen, "rb") as file:
            return load_policy(file.read(), chosen)
    packaged = resources.files("engine.search").joinpath("data", "policy.npz")
    if not packaged.is_file():
        return None
    return load_policy(packaged.read_bytes(), _PACKAGED_POLICY)


def hand_weights() -> Weights:
    """The hand-set values, the same for both sides."""
    return Weights(
        np.stack([_patterns.HAND_EVAL_DIR] * 2),
        np.stack([_patterns.HAND_EVAL_P4] * 2),
        "hand",
    )


_SHAPES = (("pattern", _patterns.NPAT), ("threat", _patterns.NP4))


def load_weights(text: str, source: str = "") -> Weights:
    """Weights from the JSON text of a weights file (``multiset`` may be absent: files from
    before it evaluate as they did).

    Raises:
        ValueError: the text is not a weights file (JSON, keys, shapes, integers, range).
    """
    try:
        data = json.loads(text)
        sides = [data[side] for side in ("black", "white")]
        rows = [[side[key] for side in sides] for key, _ in _SHAPES]
        multiset = [side.get("multiset", [0] * _patterns.NMULTI) for side in sides]
        mine = data.get("mine", 5)
        net = data.get("net")
        if net is not None:
            net = _check_net(net)
        nets = _check_nets(data.get("nets", {}))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{source}: not a weights file ({exc!r})") from None
    for (key, size), values in [
        *zip(_SHAPES, rows, strict=True),
        (("multiset", _patterns.NMULTI), multiset),
    ]:
        for side, row in zip(("black", "white"), values, strict=True):
            if not (
                isinstance(row, list)
                and len(row) == size
                and all(type(v) is int and abs(v) < _MAX_WEIGHT for v in row)
            ):
                raise ValueError(f"{source}: {side}.{key} needs {size} integers")
    if type(mine) is not int or not 4 <= mine <= _MAX_MINE:
        raise ValueError(f"{source}: mine needs an integer from 4 to {_MAX_MINE}")
    return Weights(
        np.array(rows[0], dtype=np.int32),
        np.array(rows[1], dtype=np.int32),
        source or "json",
        np.array(multiset, dtype=np.int32),
        mine,
        net,
        nets,
    )


def _check_nets(nets: Any) -> dict[Rule, Network]:
    # "nets": {rule name: network}, each rule a known one
    if not isinstance(nets, dict):
        raise ValueError("nets needs an object of rule names and networks")
    names = {rule.value: rule for rule in Rule}
    checked: dict[Rule, Network] = {}
    for name, net in nets.items():
        if name not in names:
            raise ValueError(f"nets: {name!r} is not a rule ({', '.join(names)})")
        try:
            checked[names[name]] = _check_net(net)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"nets.{name}: {exc}") from None
    return checked


def _check_net(net: dict[str, Any]) -> Network:
    # the bounds keep the kernels' fixed-point sums inside 64 bits (engine.search._kernels)
    w1 = np.array(net["w1"], dtype=np.float64)
    hidden = w1.shape[0] if w1.ndim == 2 else 0
    if w1.shape != (hidden, k.NET_IN) or not 0 < hidden <= k.NET_MAX:
        raise ValueError(f"w1 needs 1 to {k.NET_MAX} rows of {k.NET_IN}")
    out = Network(
        w1,
        np.array(net["b1"], dtype=np.float64).reshape(hidden),
        np.array(net["w2"], dtype=np.float64).reshape(hidden),
        float(net["b2"]),
        float(net.get("scale", 1000)),
    )
    for key, values, limit in (
        ("w1", out.w1, 64.0),
        ("b1", out.b1, 1024.0),
        ("b2", out.b2, 1024.0),
    ):
        if not np.all(np.abs(values) < limit):
            raise ValueError(f"the network's {key} must be finite and below {limit:g}")
    if not 1 <= out.scale <= 1 << 14:
        raise ValueError("the network's scale must be from 1 to 16384")
    if not np.all(np.abs(out.w2 * out.scale) < 1 << 16):
        raise ValueError("the network's w2 times its scale must be below 2 ** 16")
    return out


def _net_slots(net: Network | None) -> npt.NDArray[np.int64]:
    """The g slots from ``G_NET`` on for ``net`` (all zeros for none): the weights in the
    kernels' fixed point."""
    slots = np.zeros(k.G_POL_E - k.G_NET, dtype=np.int64)
    if net is None:
        return slots
    hidden = len(net.b1)
    unit = float(1 << k.NET_SHIFT)
    slots[0] = hidden
    slots[1] = round(net.b2 * net.scale)
    rows = np.zeros((hidden, k.NET_ROW), dtype=np.int64)
    rows[:, : k.NET_IN] = np.round(net.w1 * unit)
    rows[:, k.NET_IN] = np.round(net.b1 * unit)
    rows[:, k.NET_IN + 1] = np.round(net.w2 * net.scale * (1 << k.NET_OUT_SHIFT))
    start = k.G_NET_W - k.G_NET
    slots[start : start + rows.size] = rows.reshape(-1)
    return slots


@functools.cache
def weights() -> Weights:
    """The weights this process evaluates with: ``$GOMOKU_EVAL_WEIGHTS`` (``hand``, a file, or
    ``learned``), else the learned ones."""
    chosen = os.environ.get(WEIGHTS_ENV, "")
    if chosen == "hand":
        return hand_weights()
    if chosen not in ("", "learned"):
        with open(chosen, encoding="utf-8") as file:
            return load_weights(file.read(), chosen)
    packaged = resources.files("engine.search").joinpath("data", "eval_weights.json")
    return load_weights(packaged.read_text(encoding="utf-8"), _PACKAGED)


@functools.cache
def tables(rule: Rule) -> PatternTables:
    """The tables of ``rule`` with this process's weights and policy, built on first use."""
    return with_value_head(with_policy(build_tables(rule, weights()), policy()), value_head())


def build_tables(rule: Rule, w: Weights) -> PatternTables:
    """The tables of ``rule`` evaluating with ``w``."""
    code = _RULE_CODES[Rule(rule)]
    half = 4 if code == _patterns.RULE_FREESTYLE else 5
    pattern = np.ascontiguousarray(
        np.stack([_patterns.build_pattern_table(code, c, half) for c in (1, 2)], axis=1)
    )
    black = _patterns.build_code_tables(code == _patterns.RULE_RENJU, w.pattern[0], w.threat[0])
    white = _patterns.build_code_tables(False, w.pattern[1], w.threat[1])
    threat = np.stack([black[0], white[0]])
    value = np.stack([black[1], white[1]]) + w.multiset[:, _patterns.code_multisets()]
    return PatternTables(
        rule=code,
        half=half,
        pattern=pattern,
        threat=threat,
        value=value,
        packed=(value << 4) | threat.astype(np.int32),
        score=np.stack([black[2], white[2]]),
        maybe_forbidden=black[3],
        mine=w.mine,
        # where it was measured to gain (NET_RULES): the other rules evaluate by the sums
        net=_net_slots(w.net_for(rule) if code in _rules(NET_RULES_ENV, NET_RULES) else None),
    )


def _rules(env: str, default: frozenset[Rule]) -> frozenset[int]:
    # the kernels' codes of the rules named in $env, else of the default ones
    return frozenset(_RULE_CODES[rule] for rule in rules_setting(env, default))


def with_policy(t: PatternTables, p: Policy | None) -> PatternTables:
    """``t`` ordering its candidates by ``p`` in the rules of ``POLICY_RULES`` (the others keep
    the hand-set order)."""
    if p is None or t.rule not in _rules(POLICY_RULES_ENV, POLICY_RULES):
        p = None
    return dataclasses.replace(
        t,
        policy=policy_slots(p),
        policy_features=0 if p is None else len(p.b),
        window=window_table(p),
    )


def window_table(p: Policy | None) -> npt.NDArray[np.int32]:
    """The kernels' window table for ``p`` (``PatternTables.window``): each raw window's row
    of E in units of ``2 ** -POL_SHIFT``; one row of zeros where ``p`` reads no windows."""
    if p is None or WINDOW_INPUT not in p.inputs:
        return np.zeros((1, k.POL_MAX), dtype=np.int32)
    index, count = window_rows()
    rows = np.round(p.e[-count:] * float(1 << k.POL_SHIFT)).astype(np.int32)
    return np.ascontiguousarray(rows[index])


def with_value_head(t: PatternTables, v: ValueHead | None) -> PatternTables:
    """``t`` evaluating with ``v`` in the rules of ``VALUE_RULES`` (the others keep theirs)."""
    if v is None or t.rule not in _rules(VALUE_RULES_ENV, VALUE_RULES):
        v = None
    return dataclasses.replace(t, value_head=value_slots(v))


def evaluate(board: Board) -> int:
    """The static evaluation of a Gomoku position from the side to move's view."""
    from engine.search._position import Position  # built on these tables

    return Position.from_board(board).evaluate()


def side_index(color: Color) -> int:
    """0 for Black, 1 for White: the first index of every table."""
    return 0 if color is Color.BLACK else 1
