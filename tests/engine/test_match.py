"""The match tool: Elo arithmetic, openings, and real engine subprocesses refereed by it.

The engines here are tiny stand-ins (scripts that speak the protocol through
``engine.gomocup.protocol.Brain``) so that the referee is tested without the search's cost; one
test plays the real ``level:`` engines."""

from __future__ import annotations

import math
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.board import Board
from engine.gomocup.match import (
    EngineSpec,
    MatchConfig,
    Sprt,
    Verdict,
    elo_difference,
    expected_score,
    main,
    pair_llr,
    parse_engine,
    run_match,
)
from engine.gomocup.openings import OPENINGS, openings
from engine.gomocup.process import EngineProcess
from engine.gomocup.stats import _max_log_likelihood
from engine.records import from_sgf
from engine.types import Point, Rule

ROOT = Path(__file__).resolve().parents[2]

# A stand-in engine: it plays the legal point nearest the centre.
_THINKER = """
import sys, time
sys.path.insert(0, {root!r})
from engine.gomocup.pbrain import run
from engine.gomocup.protocol import Brain, Thought

def think(board, limits):
    centre = (board.size - 1) / 2
    legal = board.legal_moves()
    best = min(legal, key=lambda p: (abs(p.x - centre) + abs(p.y - centre), p))
    return Thought(best, 1, 1, 10, 1.0)
"""

_BRAIN = _THINKER + "run(Brain(think), sys.stdin, sys.stdout)\n"

# A stand-in that remembers: its move depends on how many it has made in this process, as a
# real engine's depends on the transposition table it keeps from game to game.
_REMEMBERING = (
    _THINKER
    + """
searches = 0

def remembering(board, limits):
    global searches
    searches += 1
    centre = (board.size - 1) / 2
    legal = sorted(board.legal_moves(), key=lambda p: (abs(p.x - centre) + abs(p.y - centre), p))
    return Thought(legal[searches % 3], 1, 1, 10, 1.0)

run(Brain(remembering), sys.stdin, sys.stdout)
"""
)

_LIAR = """
import sys, time
for line in sys.stdin:
    word = line.split()[0].upper() if line.split() else ""
    if word in ("START", "RESTART"):
        print("OK", flush=True)
    elif word in ("BEGIN", "TURN", "DONE"):
        {action}
"""

# Reads commands again only a while after each move it prints, and answers what comes sooner
# as an unknown command, as Rapfi 0.43 does with an INFO that follows its move too closely.
_SLOW_TO_SETTLE = (
    _THINKER
    + """
brain = Brain(think)
moved = 0.0
for line in sys.stdin:
    if time.monotonic() - moved < {busy_s}:
        word = (line.split()[1:2] or line.split())[0]  # Rapfi drops "INFO" and reads the key
        print("ERROR Unknown command: " + word.upper(), flush=True)
        continue
    for answer in brain.handle(line):
        print(answer, flush=True)
        if answer[:1].isdigit():
            moved = time.monotonic()
"""
)


def _standin() -> str:
    return shlex.join([sys.executable, "-c", _BRAIN.format(root=str(ROOT))])


def _remembering() -> str:
    return shlex.join([sys.executable, "-c", _REMEMBERING.format(root=str(ROOT))])


def _liar(action: str) -> str:
    return shlex.join([sys.executable, "-c", _LIAR.format(action=action)])


def _spec(command: str, label: str) -> EngineSpec:
    return EngineSpec(label, tuple(shlex.split(command)))


# -- Elo -------------------------------------------------------------------------------


def test_elo_of_known_scores() -> None:
    assert elo_difference(5, 0, 5)[0] == 0
    assert elo_difference(3, 0, 1)[0] == pytest.approx(190.85, abs=0.01)  # 75 %
    _, bar = elo_difference(5, 0, 5)
    # s = 0.5, sd 0.5, se 0.158, s +- 1.96 se = [0.19, 0.81] -> +-251.8 Elo
    assert bar == pytest.approx(251.8, abs=0.5)
    assert elo_difference(4, 0, 0) == (math.inf, math.inf)
    assert elo_difference(0, 2, 0) == (0.0, 0.0)  # the formula sees no variance in all draws


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_elo_is_antisymmetric_and_grows_with_wins(wins: int, draws: int, losses: int) -> None:
    if wins + draws + losses == 0:
        return
    elo, bar = elo_difference(wins, draws, losses)
    mirrored, mirrored_bar = elo_difference(losses, draws, wins)
    assert elo == pytest.approx(-mirrored) or (math.isinf(elo) and math.isinf(mirrored))
    assert bar == pytest.approx(mirrored_bar) or math.isinf(bar)
    more, _ = elo_difference(wins + 1, draws, losses)
    assert more > elo or math.isinf(elo)


# -- openings --------------------------------------------------------------------------


def test_openings_are_legal_short_and_distinct_under_every_rule() -> None:
    seen = set()
    for moves in openings(15):
        assert len(moves) == 3
        for rule in Rule:
            board = Board.from_moves(moves, rule=rule)
            assert board.outcome is None
        key = frozenset(Board.from_moves(moves).transformed(symmetry).key for symmetry in range(8))
        assert key not in seen, moves  # no opening is another one turned or mirrored
        seen.add(key)
    assert len(seen) == len(OPENINGS)


@pytest.mark.slow
def test_the_chooser_sees_every_opening_once_up_to_symmetry() -> None:
    from tools.check_openings import candidates

    def key(stones: tuple[tuple[int, int], ...]) -> frozenset[object]:
        moves = [Point(7 + dx, 7 + dy) for dx, dy in stones]
        return frozenset(Board.from_moves(moves).transformed(s).key for s in range(8))

    for white, black in ((1, 2), (2, 3), (2, 4)):
        found = candidates(white, black)
        every = {
            key(((0, 0), (wx, wy), (bx, by)))
            for wx in range(-white, white + 1)
            for wy in range(-white, white + 1)
            for bx in range(-black, black + 1)
            for by in range(-black, black + 1)
            if (wx, wy) != (0, 0) and (bx, by) not in ((0, 0), (wx, wy))
        }
        assert len({key(stones) for stones in found}) == len(found) == len(every)
    # the shipped set is a choice among them: White within 2, Black's second stone within 4
    shipped = {key(tuple((p.x - 7, p.y - 7) for p in moves)) for moves in openings(15)}
    assert shipped <= {key(stones) for stones in candidates(2, 4)}


@pytest.mark.parametrize("size", [20, 15, 9, 7, 5])
def test_openings_fit_the_board(size: int) -> None:
    found = openings(size)
    assert len(found) == len(OPENINGS) if size >= 9 else 1 <= len(found) < len(OPENINGS)
    assert all(point.on_board(size, size) for moves in found for point in moves)


# -- matches between real processes -------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_match_is_deterministic_and_swaps_colours() -> None:
    specs = (_spec(_standin(), "a"), _spec(_standin(), "b"))
    config = MatchConfig(size=9, turn_ms=2000)
    first = run_match(specs, games=4, config=config)
    second = run_match(specs, games=4, config=config, jobs=3)  # in parallel: the same games
    assert [g.number for g in second.games] == [1, 2, 3, 4]
    assert [g.board.moves for g in first.games] == [g.board.moves for g in second.games]
    assert second.stats[0].moves == first.stats[0].moves
    assert [g.black for g in first.games] == [0, 1, 0, 1]
    assert [g.opening for g in first.games] == [0, 0, 1, 1]
    # Identical engines from the same opening: the same game, so colours decide it.
    assert first.games[0].board.moves == first.games[1].board.moves
    for game in first.games:
        assert game.verdict in (Verdict.FIVE, Verdict.DRAW)
        if game.verdict is Verdict.FIVE:
            outcome = game.board.outcome
            assert outcome is not None
            assert outcome.winner is not None
            assert game.winner is not None
    wins, draws, losses = first.wdl()
    assert wins == losses  # the pairs cancel
    assert wins + draws + losses == 4
    assert first.stats[0].reports == first.stats[0].moves > 0


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("action", "verdict"),
    [
        ('print("7,7", flush=True)', Verdict.ILLEGAL),  # the same point again and again
        ('print("hello", flush=True)', Verdict.ILLEGAL),
        ('print("99,3", flush=True)', Verdict.ILLEGAL),
        ('print("ERROR cannot", flush=True)', Verdict.ERROR),
        ("sys.exit(0)", Verdict.CRASH),
        ("time.sleep(30)", Verdict.TIMEOUT),
    ],
    ids=["occupied", "garbage", "off-board", "error", "crash", "timeout"],
)
def test_referee_gives_the_game_to_the_engine_that_behaves(action: str, verdict: Verdict) -> None:
    specs = (_spec(_liar(action), "liar"), _spec(_standin(), "honest"))
    config = MatchConfig(size=9, turn_ms=200, grace_ms=300)
    result = run_match(specs, games=2, config=config)
    assert [game.verdict for game in result.games] == [verdict, verdict]
    assert [game.winner for game in result.games] == [1, 1]
    assert result.wdl() == (0, 0, 2)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_match_clock_runs_out_before_the_turn_time() -> None:
    # 0.6 s a move is well inside the 3 s turn, but the 0.9 s game clock allows one such move
    # (the first has 0.5 s to spare for a loaded machine; lateness only makes the second later)
    slow = "time.sleep(0.6); n = globals().get('n', 0) + 1; globals()['n'] = n; print(f'{n},0')"
    specs = (_spec(_liar(slow + "; sys.stdout.flush()"), "slow"), _spec(_standin(), "honest"))
    config = MatchConfig(size=9, turn_ms=3000, grace_ms=200, match_ms=900)
    assert "INFO timeout_match 900" in config.info_lines()
    result = run_match(specs, games=2, config=config)
    assert [game.verdict for game in result.games] == [Verdict.TIMEOUT, Verdict.TIMEOUT]
    assert result.wdl() == (0, 0, 2)
    assert result.stats[0].moves == 2  # one move each game, the second one ran out


@pytest.mark.timeout(60)
def test_an_engines_clock_starts_when_its_command_is_written() -> None:
    # a referee that falls behind between writing a command and listening for the answer
    # (a loaded machine) must not lend the engine that time: the answer is timed from sent_at
    engine = EngineProcess(_spec(_liar('print("1,1", flush=True)'), "quick"), settle_ms=0)
    engine.start()
    try:
        assert engine.send("BEGIN")
        lent = engine.sent_at - 5.0  # as if the referee had stalled five seconds
        answer = engine.answer(30.0, since=lent)
        assert (answer.kind, answer.text) == ("line", "1,1")
        assert answer.elapsed_ms >= 5000.0
        assert engine.send("TURN 2,2")
        assert engine.answer(30.0).elapsed_ms < 5000.0  # without since, timed from the call
    finally:
        engine.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize(("settle_ms", "verdict"), [(300, Verdict.FIVE), (0, Verdict.ERROR)])
def test_an_engine_gets_time_to_settle_after_its_move(settle_ms: int, verdict: Verdict) -> None:
    slow = shlex.join([sys.executable, "-c", _SLOW_TO_SETTLE.format(root=str(ROOT), busy_s=0.2)])
    specs = (_spec(slow, "slow"), _spec(_standin(), "quick"))
    config = MatchConfig(size=9, turn_ms=2000, match_ms=60_000, settle_ms=settle_ms)
    (game,) = run_match(specs, games=1, config=config).games
    assert game.verdict is verdict, game.detail
    if verdict is Verdict.ERROR:
        assert game.detail == "ERROR Unknown command: TIME_LEFT"


@pytest.mark.timeout(120)
def test_renju_forbidden_move_loses() -> None:
    # Black to move; h8 (Gomocup 7,7) is a double-three, which the liar plays.
    book = [Board.from_moves("h9 a1 h10 a3 i8 a5 j8 a7").moves]
    specs = (_spec(_liar('print("7,7", flush=True)'), "liar"), _spec(_standin(), "honest"))
    config = MatchConfig(rule=Rule.RENJU, turn_ms=500)
    result = run_match(specs, games=1, config=config, book=[[m.point for m in book[0]]])
    (game,) = result.games
    assert game.verdict is Verdict.FORBIDDEN
    assert game.winner == 1
    assert game.detail.endswith("double-three")


@pytest.mark.timeout(120)
def test_command_line_prints_the_score_and_writes_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            *("match", _standin(), _liar('print("hello", flush=True)'), "--games", "2"),
            *("--size", "9", "--turn-ms", "500", "--sgf", str(tmp_path)),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "W/D/L 2/0/0" in out
    assert "Elo +inf" in out
    records = sorted(tmp_path.glob("*.sgf"))
    assert len(records) == 2
    board = from_sgf(records[0].read_text())
    assert len(board.moves) == len(openings(9)[0])  # the liar failed at once


@pytest.mark.timeout(120)
def test_a_match_can_start_from_a_later_opening() -> None:
    result = run_match(
        (_spec(_standin(), "honest"), _spec(_liar('print("hello", flush=True)'), "liar")),
        games=4,
        config=MatchConfig(size=9, turn_ms=500),
        first_opening=len(openings(9)) - 1,
    )
    assert [game.opening for game in result.games] == [len(openings(9)) - 1] * 2 + [0, 0]
    assert [game.board.moves[:3] for game in result.games][::2] == [
        Board.from_moves(moves, size=9).moves for moves in (openings(9)[-1], openings(9)[0])
    ]


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("side", [0, 1], ids=["black", "white"])
def test_one_side_plays_only_the_games_where_engine1_has_that_colour(side: int) -> None:
    specs = (_spec(_standin(), "a"), _spec(_standin(), "b"))
    config = MatchConfig(size=9, turn_ms=2000)
    whole = run_match(specs, games=4, config=config)
    half = run_match(specs, games=4, config=config, jobs=2, side=side)
    # Numbered as in the whole match, each game the whole match's game of that number.
    assert [g.number for g in half.games] == [1 + side, 3 + side]
    assert [g.black for g in half.games] == [side, side]
    kept = [g for g in whole.games if g.black == side]
    assert [g.board.moves for g in half.games] == [g.board.moves for g in kept]
    assert [g.opening for g in half.games] == [0, 1]


@pytest.mark.parametrize("fresh", [True, False], ids=["fresh", "kept"])
def test_fresh_games_replay_whatever_was_played_before(fresh: bool) -> None:
    specs = (_spec(_remembering(), "a"), _spec(_standin(), "b"))
    config = MatchConfig(size=9, turn_ms=2000, fresh_games=fresh)
    after_two = run_match(specs, games=3, config=config).games[2]
    alone = run_match(specs, games=1, config=config, first_opening=1).games[0]
    assert (after_two.opening, after_two.black) == (alone.opening, alone.black) == (1, 0)
    # In new processes a game is the same game whatever came before it; an engine kept from
    # game to game carries what it remembers into the next.
    assert (after_two.board.moves == alone.board.moves) is fresh


def test_parse_engine() -> None:
    spec = parse_engine("level:hard", seed=4)
    assert spec.argv[1:] == ("-m", "engine.pbrain", "--level", "hard", "--seed", "4")
    assert parse_engine("./pbrain-x --fast 'a b'").argv == ("./pbrain-x", "--fast", "a b")
    assert parse_engine("python -m engine.pbrain").argv == (sys.executable, "-m", "engine.pbrain")
    # after env and its settings too; a setting's own words and other programs stay as given
    assert parse_engine("env A=1 B='x y' python3 -m engine.pbrain").argv == (
        *("env", "A=1", "B=x y"),
        *(sys.executable, "-m", "engine.pbrain"),
    )
    assert parse_engine("env A=python ./pbrain-x").argv == ("env", "A=python", "./pbrain-x")
    assert parse_engine("env").argv == ("env",)
    assert parse_engine("./python -m x").argv == ("./python", "-m", "x")
    with pytest.raises(ValueError, match="empty"):
        parse_engine("  ")


def test_bad_options_exit_with_2() -> None:
    assert main(["a", "b", "--size", "21"]) == 2
    assert main(["a", "b", "--sprt", "10,0"]) == 2
    assert main(["a", "b", "--sprt", "ten"]) == 2


# -- SPRT ----------------------------------------------------------------------------------


def _ternary_max(f: Callable[[float], float], low: float, high: float) -> float:
    for _ in range(300):
        a, b = low + (high - low) / 3, high - (high - low) / 3
        if f(a) < f(b):
            low = a
        else:
            high = b
    return f((low + high) / 2)


@given(
    st.integers(1, 40),
    st.integers(1, 40),
    st.integers(1, 40),
    st.floats(0.02, 0.98),
)
def test_the_likelihood_is_maximised_like_a_brute_force_search(
    lost: int, split: int, won: int, mean: float
) -> None:
    # pairs that scored only 0, 1/2 or 1: the distributions with this mean are one line,
    # p(0) = t, p(1) = t + 2 mean - 1, p(1/2) = the rest, on which the likelihood is concave
    def log_likelihood(t: float) -> float:
        p = (t, 2 - 2 * mean - 2 * t, t + 2 * mean - 1)
        if min(p) <= 0:
            return -math.inf
        return lost * math.log(p[0]) + split * math.log(p[1]) + won * math.log(p[2])

    best = _ternary_max(log_likelihood, max(0.0, 1 - 2 * mean), 1 - mean)
    found = _max_log_likelihood([lost, 0, split, 0, won], mean)
    assert found == pytest.approx(best, rel=1e-6, abs=1e-6)


@given(
    st.lists(st.integers(0, 30), min_size=5, max_size=5),
    st.lists(st.floats(0.01, 1.0), min_size=5, max_size=5),
    st.floats(0.05, 0.95),
)
def test_no_distribution_with_the_mean_is_more_likely(
    counts: list[int], weights: list[float], mean: float
) -> None:
    # any distribution of pair scores with this mean: weights, then mixed with a certain 0 or
    # 1 until the mean comes out
    total = sum(weights)
    p = [w / total for w in weights]
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    m = sum(q * v for q, v in zip(p, values, strict=True))
    end = 1.0 if mean > m else 0.0
    share = (mean - m) / (end - m)
    p = [(1 - share) * q for q in p]
    p[int(end) * 4] += share
    regular = [c + 1e-3 for c in counts]
    other = sum(n * math.log(q) for n, q in zip(regular, p, strict=True))
    assert other <= _max_log_likelihood(regular, mean) + 1e-9


def test_an_llr_is_near_its_normal_approximation_and_decides_by_its_bounds() -> None:
    counts = [10, 20, 40, 25, 12]  # pairs scoring 0, 1/4, 1/2, 3/4, 1
    scores = [i / 4 for i, n in enumerate(counts) for _ in range(n)]
    s0, s1 = expected_score(0), expected_score(10)
    mean = sum(scores) / len(scores)
    variance = sum((x - mean) ** 2 for x in scores) / len(scores)
    approximation = len(scores) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert pair_llr(counts, s0, s1) == pytest.approx(approximation, rel=0.02)
    assert Sprt(0, 10).bounds() == pytest.approx((-2.944, 2.944), abs=1e-3)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_an_sprt_stops_the_match_once_it_has_decided(capsys: pytest.CaptureFixture[str]) -> None:
    # every pair won: each adds log(s1 / s0) or so, and the 12th crosses log(19) = 2.94
    sprt = Sprt(0, 100)
    llrs = [pair_llr([0, 0, 0, 0, n], 0.5, expected_score(100)) for n in range(1, 20)]
    decisive = next(n for n, llr in enumerate(llrs, start=1) if llr >= sprt.bounds()[1])
    assert decisive == 12
    code = main(
        [
            *("match", _standin(), _liar('print("hello", flush=True)'), "--games", "60"),
            *("--size", "9", "--turn-ms", "500", "--sprt", "0,100"),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert f"W/D/L {2 * decisive}/0/0" in out
    assert "H1 accepted: " in out


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_levels_play_a_real_match() -> None:
    result = run_match(
        (parse_engine("level:beginner"), parse_engine("level:easy")),
        games=2,
        config=MatchConfig(size=15, turn_ms=5000, grace_ms=5000),
    )
    assert all(game.verdict in (Verdict.FIVE, Verdict.DRAW) for game in result.games)
