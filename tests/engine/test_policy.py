"""The learned move policy in the search (``engine.search._kernels._policy``): the kernels'
fixed-point scores against the trainer's forward pass (``tools/mixnet.py``, the oracle), the
order it gives the candidates, and what its cut may never prune."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.gomocup.tactics import DEFENCES, VCF_WINS, Puzzle
from engine.search import _kernels as k
from engine.search import _position as position_module
from engine.search import alphabeta
from engine.search._position import Position
from engine.search.alphabeta import Limits, SearchOptions, is_win_score, search
from engine.search.evaluate import (
    POLICY_INPUTS,
    POLICY_RULES,
    WINDOW_INPUT,
    Policy,
    load_policy,
    policy,
    policy_slots,
    tables,
    window_rows,
    with_policy,
)
from engine.search.levels import PRESETS, Level
from engine.types import Point, Rule
from tests.scale import examples
from tools.mixnet import (
    INPUTS,
    NCODE,
    POINTS,
    SIZE,
    columns,
    export_policy,
    init_params,
    input_rows,
    point_codes,
    point_inputs,
    policy_logits,
)

SETTINGS = settings(
    max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _npz(**arrays: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.savez(out, **dict[str, Any](arrays))
    return out.getvalue()


@st.composite
def games(draw: st.DrawFn, low: int = 3, high: int = SIZE - 4, fewest: int = 1) -> list[int]:
    """Random moves (``y * SIZE + x``, each coordinate from ``low`` to ``high``) on an empty
    15x15 freestyle board, ``fewest`` to 60 tries, stopping before one would end the game."""
    board = Board(SIZE, Rule.FREESTYLE)
    moves: list[int] = []
    for _ in range(draw(st.integers(fewest, 60))):
        x, y = draw(st.integers(low, high)), draw(st.integers(low, high))
        if board[Point(x, y)] is None:
            board.play(Point(x, y))
            if board.outcome is not None:
                board.undo()
                break
            moves.append(y * SIZE + x)
    return moves


@st.composite
def policies(draw: st.DrawFn, inputs: tuple[str, ...] | None = None) -> Policy:
    """Random policies of 1 to ``POL_MAX`` features, weights of a trained one's size, reading
    ``inputs`` (by default any of the other inputs the kernels keep, or none)."""
    if inputs is None:
        inputs = tuple(name for name in (*POLICY_INPUTS, WINDOW_INPUT) if draw(st.booleans()))
    features = draw(st.integers(1, k.POL_MAX))
    params = init_params(features, 2, draw(st.integers(0, 2**31 - 1)), input_rows(inputs))
    scale = draw(st.sampled_from([1.0, 5.0, 20.0]))
    return Policy(
        params["E"].astype(np.float64) * scale / 4,
        params["b"].astype(np.float64) + 0.1,
        params["u"].astype(np.float64) * scale,
        "random",
        inputs,
    )


def _position(moves: list[int], policy: Policy | None) -> Position:
    position = Position(SIZE, SIZE, with_policy(tables(Rule.FREESTYLE), policy), tt_size=16)
    for m in moves:
        position.play_index(position.index(Point(m % SIZE, m // SIZE)))
    return position


def _kernel_scores(position: Position) -> np.ndarray:
    out = np.zeros(position.b.shape[0], dtype=np.int64)
    k.policy_scores(position.st, out)
    return np.array([out[position.index(Point(p % SIZE, p // SIZE))] for p in range(POINTS)])


def _exact_scores(policy: Policy, rows: np.ndarray) -> np.ndarray:
    # the trainer's forward pass over the weights as the kernels hold them (rounded), each
    # point summing the rows of E it reads (``columns``)
    slots = policy_slots(policy)
    f = len(policy.b)

    def block(at: int, count: int) -> np.ndarray:
        start = at - k.G_POL_E
        return slots[start : start + count * k.POL_MAX].reshape(count, k.POL_MAX)[:, :f]

    e = np.concatenate(
        [block(k.G_POL_E, NCODE)]
        + [
            block(at, INPUTS[name])
            for name, (_, _, at) in POLICY_INPUTS.items()
            if name in policy.inputs
        ]
        + [
            np.round(policy.e[-window_rows()[1] :, :f] * (1 << k.POL_SHIFT)).astype(np.int64)
            for _ in (WINDOW_INPUT,)
            if WINDOW_INPUT in policy.inputs
        ]
    )
    b = slots[k.G_POL_B - k.G_POL_E :][:f]
    u = slots[k.G_POL_U - k.G_POL_E :][:f]
    return np.asarray(np.maximum(e[rows].sum(axis=1) + b, 0) @ u)


def _agrees_with_the_trainer(position: Position, moves: list[int], policy: Policy) -> None:
    codes, extra, empty = point_inputs(moves)
    rows = columns(codes, extra, policy.inputs)
    got = _kernel_scores(position)
    assert (got[~empty] == 0).all()
    # exactly the integer sum of the rounded weights
    assert (got[empty] == _exact_scores(policy, rows)[empty]).all()
    # and within the rounding of the weights of the trainer's scores (2 ** -8 a weight)
    params = {"E": policy.e, "b": policy.b, "u": policy.u}
    want = policy_logits(params, rows)
    h = np.abs(policy.e[rows].sum(axis=1) + policy.b)
    step = 0.5 / (1 << k.POL_SHIFT)
    bound = (((rows.shape[1] + 1) * step) * (np.abs(policy.u) + step) + h * step).sum(axis=1) + 1e-9
    unit = float(1 << (2 * k.POL_SHIFT))
    assert (np.abs(got / unit - want)[empty] <= bound[empty]).all()


@given(games(), policies())
@SETTINGS
def test_kernel_scores_are_the_trainers_forward_pass_in_fixed_point(
    moves: list[int], policy: Policy
) -> None:
    _agrees_with_the_trainer(_position(moves, policy), moves, policy)


@given(games(fewest=2), policies(inputs=("distance",)), st.integers(0, 2))
@SETTINGS
def test_a_position_set_up_from_a_board_knows_its_last_two_moves(
    moves: list[int], policy: Policy, played: int
) -> None:
    """Set up from a board (its stones not on the search's move stack) and then ``played``
    moves made by the search: the distances are to the game's last two moves all the same."""
    played = min(played, len(moves))
    board = Board(SIZE, Rule.FREESTYLE)
    for m in moves[: len(moves) - played]:
        board.play(Point(m % SIZE, m // SIZE))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(position_module, "tables", lambda rule: with_policy(tables(rule), policy))
        position = Position.from_board(board)
    for m in moves[len(moves) - played :]:
        position.play_index(position.index(Point(m % SIZE, m // SIZE)))
    _agrees_with_the_trainer(position, moves, policy)


@given(games(fewest=2), policies(inputs=(WINDOW_INPUT,)), st.integers(1, 3))
@SETTINGS
def test_the_windows_follow_play_and_undo(moves: list[int], policy: Policy, back: int) -> None:
    """Stones taken back leave every point's windows, and so its score, as they were."""
    back = min(back, len(moves) - 1)
    position = _position(moves[: len(moves) - back], policy)
    before = _kernel_scores(position)
    for m in moves[len(moves) - back :]:
        position.play_index(position.index(Point(m % SIZE, m // SIZE)))
    _agrees_with_the_trainer(position, moves, policy)
    for _ in range(back):
        position.undo()
    assert (_kernel_scores(position) == before).all()


def test_a_window_and_its_mirror_image_share_a_row() -> None:
    index, count = window_rows()
    cells = 2 * k.WIN_HALF
    assert count == (4**cells + 4 ** (cells // 2)) // 2  # the palindromes are their own
    rng = np.random.default_rng(3)
    for raw in rng.integers(0, k.NWINDOW, 500):
        digits = [(int(raw) >> (2 * i)) & 3 for i in range(cells)]
        mirror = sum(d << (2 * i) for i, d in enumerate(reversed(digits)))
        assert index[raw] == index[mirror]
    assert sorted(set(index.tolist())) == list(range(count))


def test_a_policy_of_windows_alone_sees_the_line() -> None:
    # a policy whose one feature reads only the windows: a point scores by how many of the
    # side to move's stones lie in its row's window, and nothing else moves it
    index, _ = window_rows()
    e = np.zeros((input_rows((WINDOW_INPUT,)), 1))
    raw = np.arange(k.NWINDOW)
    own = sum(((raw >> (2 * i)) & 3) == 1 for i in range(2 * k.WIN_HALF))
    e[NCODE + index, 0] = own
    lines = Policy(e, np.zeros(1), np.ones(1), "lines", (WINDOW_INPUT,))
    # Black h8 i8, White far away at a1 and o15; Black to move
    moves = [7 * SIZE + 7, 0, 7 * SIZE + 8, SIZE * SIZE - 1]
    got = _kernel_scores(_position(moves, lines)) >> (2 * k.POL_SHIFT)
    assert got[7 * SIZE + 6] == 2  # g8: both stones in its row's window
    assert got[7 * SIZE + 11] == 2  # l8: i8 three points away, h8 four
    assert got[7 * SIZE + 12] == 1  # m8: i8 only (h8 is five points away)
    assert got[6 * SIZE + 7] == 2  # h7: h8 in its column, i8 on a diagonal
    assert got[2 * SIZE + 2] == 0  # c3: White's a1 is no stone of Black's
    # White to move: the same stones are the other side's
    white = _kernel_scores(_position(moves[:3], lines)) >> (2 * k.POL_SHIFT)
    assert white[7 * SIZE + 6] == 0


def test_the_distances_move_the_scores() -> None:
    # a policy that reads only how near a point is to the last move: the nearest score most
    moves = [112, 113, 127, 98]
    e = np.zeros((input_rows(("distance",)), 1))
    e[NCODE : NCODE + k.POL_NEAR, 0] = [4.0, 3.0, 2.0, 1.0]
    near = Policy(e, np.zeros(1), np.ones(1), "near", ("distance",))
    got = _kernel_scores(_position(moves, near))
    last = Point(moves[-1] % SIZE, moves[-1] // SIZE)
    for p in range(POINTS):
        q = Point(p % SIZE, p // SIZE)
        d = max(abs(q.x - last.x), abs(q.y - last.y))
        if p not in moves:
            assert got[p] == (5 - min(d, 4)) << (2 * k.POL_SHIFT)


@given(games(), policies())
@SETTINGS
def test_candidates_come_in_the_policys_order(moves: list[int], policy: Policy) -> None:
    position = _position(moves, policy)
    g = position.g
    me = g[k.G_SIDE] - 1
    if g[k.G_P4 + (1 - me) * k.NP4 + k.P4_FIVE] or g[k.G_P4 + (1 - me) * k.NP4 + k.P4_FLEX4]:
        return  # a four or an open three to stop: the defences come in the hand-set order
    n = int(k.root_moves(position.st, position.sr))
    scores = _kernel_scores(position)
    order = [position.point(int(p)) for p in position.sr[11][:n]]
    keyed = [int(scores[q.y * SIZE + q.x]) >> k.POL_KEY_SHIFT for q in order]
    assert keyed == sorted(keyed, reverse=True)
    assert g[k.G_POL_TOP] == keyed[0]


def test_only_the_rules_it_gained_in_and_only_master_order_by_the_policy() -> None:
    policy = Policy(np.ones((NCODE, 2)), np.zeros(2), np.ones(2), "ones")
    assert {Rule.FREESTYLE, Rule.STANDARD} == POLICY_RULES
    for rule in Rule:
        assert with_policy(tables(rule), policy).policy_features == (
            2 if rule in POLICY_RULES else 0
        )
    assert {level for level in Level if PRESETS[level].policy} == {Level.MASTER}


WIDE = k.POL_MAX + 1  # one feature more than the kernels have room for


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        ({"E": np.zeros((NCODE, 4)), "b": np.zeros(4)}, "not a policy file"),
        ({"E": np.zeros((NCODE, 4)), "b": np.zeros(3), "u": np.zeros(4)}, "E needs"),
        ({"E": np.zeros((NCODE, WIDE)), "b": np.zeros(WIDE), "u": np.zeros(WIDE)}, "E needs"),
        ({"E": np.zeros((NCODE, 4)), "b": np.zeros(4), "u": np.zeros(5)}, "u needs"),
        ({"E": np.full((NCODE, 4), np.nan), "b": np.zeros(4), "u": np.zeros(4)}, "finite"),
        ({"E": np.zeros((NCODE, 4)), "b": np.zeros(4), "u": np.full(4, 100.0)}, "below"),
        (
            {
                "E": np.zeros((NCODE, 4)),
                "b": np.zeros(4),
                "u": np.zeros(4),
                "inputs": np.array(["distance"]),
            },
            "E needs 152 rows",
        ),
        (
            {
                "E": np.zeros((NCODE + 8, 4)),
                "b": np.zeros(4),
                "u": np.zeros(4),
                "inputs": np.array(["offset"]),
            },
            "reads no input offset",
        ),
    ],
)
def test_a_bad_policy_file_is_refused(arrays: dict[str, np.ndarray], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_policy(_npz(**arrays), "test.npz")
    with pytest.raises(ValueError, match="not a policy file"):
        load_policy(b"not an npz", "junk")


def test_a_policy_as_wide_as_the_kernels_room_is_scored_whole() -> None:
    fit = init_params(k.POL_MAX, 2, seed=3)
    wide = load_policy(_npz(E=fit["E"], b=fit["b"], u=fit["u"]), "wide.npz")
    assert with_policy(tables(Rule.FREESTYLE), wide).policy_features == k.POL_MAX
    moves = [112, 113, 127, 98]
    codes, empty = point_codes(moves)
    got = _kernel_scores(_position(moves, wide))
    assert (got[empty] == _exact_scores(wide, codes)[empty]).all()
    last_off = Policy(wide.e, wide.b, np.append(wide.u[:-1], 0.0), "last off")
    assert (got[empty] != _exact_scores(last_off, codes)[empty]).any()  # the last feature counts


def test_export_keeps_a_fits_policy_as_the_search_reads_it(tmp_path: Path) -> None:
    fit = init_params(5, 3, seed=4)
    np.savez(tmp_path / "fit.npz", **dict[str, Any](fit))
    assert export_policy(tmp_path / "fit.npz", tmp_path / "policy.npz") == 0
    kept = load_policy((tmp_path / "policy.npz").read_bytes())
    for name, array in (("E", kept.e), ("b", kept.b), ("u", kept.u)):
        assert np.array_equal(array, fit[name])
    assert kept.inputs == ()
    with np.load(tmp_path / "policy.npz") as arrays:
        assert sorted(arrays.files) == ["E", "b", "u"]  # the value head stays behind


def test_export_keeps_the_inputs_the_search_reads_and_refuses_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reads = ("distance", "threat")
    fit = init_params(5, 3, seed=4, rows=input_rows(reads))
    np.savez(tmp_path / "fit.npz", **dict[str, Any](fit), inputs=np.array(reads))
    assert export_policy(tmp_path / "fit.npz", tmp_path / "policy.npz") == 0
    kept = load_policy((tmp_path / "policy.npz").read_bytes())
    assert kept.inputs == reads
    assert np.array_equal(kept.e, fit["E"])
    offsets = init_params(5, 3, seed=4, rows=input_rows(("offset",)))
    np.savez(tmp_path / "offsets.npz", **dict[str, Any](offsets), inputs=np.array(["offset"]))
    assert export_policy(tmp_path / "offsets.npz", tmp_path / "no.npz") == 1
    assert "reads offset, which the search does not" in capsys.readouterr().out
    assert not (tmp_path / "no.npz").exists()


def test_the_packaged_policy_is_the_default() -> None:
    # the shipped file loads, has the trainer's shape and orders master's freestyle search
    shipped = policy()
    assert shipped is not None
    assert shipped.e.shape == (NCODE, len(shipped.b))
    assert tables(Rule.FREESTYLE).policy_features == len(shipped.b)


def _threat_last() -> Policy:
    # a policy that puts the points where either side makes a three or more last, the
    # strongest shapes lowest: the worst order for tactics, so only the exemptions keep them
    e = np.zeros((NCODE, 1))
    for code in range(NCODE):
        mine, theirs = divmod(code, k.NPAT)
        e[code, 0] = (mine + theirs / k.NPAT) / k.NPAT if max(mine, theirs) >= k.B3 else 0.0
    return Policy(e, np.zeros(1), np.array([-8.0]), "threats last")


def _one_ply(moves: list[int], cut: int) -> tuple[int, int, bool]:
    # a depth-1 search with the threat-last policy and late-move pruning: (value, nodes,
    # whether the node had to answer a four or an open three)
    position = _position(moves, _threat_last())
    g = position.g
    g[k.G_SELECT] = k.SEL_LMP
    g[k.G_LMP] = 3
    g[k.G_POL_LMP] = 1
    g[k.G_POL_CUT] = cut
    g[k.G_WIDTH] = 20
    _, restricted = k._generate(position.st, position.sr, 0, -1)
    value = int(k.alphabeta(position.st, position.sr, 1, -k.INF, k.INF, 0))
    return value, int(g[k.G_NODES]), bool(restricted)


@given(games())
@SETTINGS
def test_the_policys_cut_leaves_the_answers_to_a_four_or_an_open_three_alone(
    moves: list[int],
) -> None:
    # where the side to move must block a four or answer an open three, every answer is
    # searched however low the policy ranks it; elsewhere the cut prunes quiet moves
    value, nodes, restricted = _one_ply(moves, 1)
    full = _one_ply(moves, 0)
    if restricted:
        assert (value, nodes) == full[:2]
    else:
        assert nodes <= full[1]


@pytest.fixture
def ruthless(monkeypatch: pytest.MonkeyPatch) -> None:
    """Master searching with the threat-last policy, one quiet move a node beyond d * d and
    every quiet move below the best one's key cut."""
    adverse = _threat_last()
    monkeypatch.setattr(position_module, "tables", lambda rule: with_policy(tables(rule), adverse))
    monkeypatch.setattr(alphabeta, "_POL_LMP_BASE", 1)
    monkeypatch.setattr(alphabeta, "_POL_CUT", 1)


def _searched(puzzle: Puzzle, nodes: int) -> tuple[str, int]:
    # the tree alone: no threat search at the root to find the win or the defence first
    options = SearchOptions(root_vct=False, root_defence=False)
    result = search(puzzle.board(), Limits(nodes=nodes), options)
    return str(result.move), result.score


# a four to block, and open threes (Black's, White to move) with their four answers
FORCED = [
    (DEFENCES[0], {DEFENCES[0].answer}),
    (Puzzle(Rule.FREESTYLE, "h8 a1 i8 a2 j8", wins=False), {"f8", "g8", "k8", "l8"}),
    (Puzzle(Rule.FREESTYLE, "h8 o1 h9 o2 h10", wins=False), {"h6", "h7", "h11", "h12"}),
    (Puzzle(Rule.FREESTYLE, "f6 a1 g7 a15 h8", wins=False), {"d4", "e5", "i9", "j10"}),
]


@pytest.mark.usefixtures("ruthless")
@pytest.mark.parametrize(("puzzle", "answers"), FORCED, ids=["four", "row", "column", "diagonal"])
def test_the_policys_cut_never_prunes_the_answer_to_a_four_or_an_open_three(
    puzzle: Puzzle, answers: set[str]
) -> None:
    assert _searched(puzzle, 20_000)[0] in answers


@pytest.mark.usefixtures("ruthless")
@pytest.mark.parametrize("puzzle", VCF_WINS[:8], ids=[f"vcf{i}" for i in range(8)])
def test_the_policys_cut_never_prunes_a_win_by_fours(puzzle: Puzzle) -> None:
    assert is_win_score(_searched(puzzle, 50_000)[1])


def test_the_ruthless_setting_does_cut(ruthless: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # the fixture's cut is live: the same search visits fewer nodes than with no cut
    board = Board.from_moves("h8 i9 h9 i10 h10 h11 g9 f10")
    cut = search(board, Limits(depth=5), SearchOptions()).nodes
    monkeypatch.setattr(alphabeta, "_POL_CUT", 0)
    monkeypatch.setattr(alphabeta, "_POL_LMP_BASE", 20)
    full = search(board, Limits(depth=5), SearchOptions()).nodes
    assert cut < full
