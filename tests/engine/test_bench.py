"""The bench signature: fixed positions to a fixed depth give a fixed node count.

When a change to search or evaluation moves this number on purpose, update it in the same
commit (rapfi does the same); when it moves by accident, something changed that should not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.board import Board
from engine.gomocup.bench import DEFAULT_DEPTH, bench, bench_games, bench_pns, main
from engine.gomocup.tactics import DEFENCES, HARD_DEFENCES, answer_lost

# full strength with the shipped weights: the evaluation networks over the judge-fitted values
# (freestyle's, and the one standard and renju keep), the learned move policy and its cut in
# freestyle and standard, late-move reductions by its rank, fail-high reduction and the exact
# answers to a four-three point in freestyle and renju, the check of the search's move in freestyle
# (where the root defence finds a threat, and where an iteration scores at or below the bar: the
# sixth freestyle position, 200,000 of its nodes the check's), master's selectivity and local VCF
# on, mate-distance pruning and the deeper root VCT off. Any change to the search or the weights
# changes it: update it on purpose, with the change's match figures (docs/engine.md)
BENCH_NODES = 323_776


# the proof-number search's signature: every defence of the suite, 5,000 nodes each
# (bench_pns). Any change to that search's tree changes it; a change of its speed alone does not
PNS_NODES = 368_470


def test_bench_signature() -> None:
    lines = bench(DEFAULT_DEPTH)
    assert sum(line.nodes for line in lines) == BENCH_NODES


def test_bench_prints_the_totals(capsys) -> None:
    assert main(["--depth", "2"]) == 0
    out = capsys.readouterr().out
    assert "Total nodes:" in out
    assert "Nodes/second:" in out


def test_bench_to_a_node_count_totals_the_depths_each_position_reached(capsys) -> None:
    lines = bench(nodes=20_000)
    # every position stops near the count (checked every 512 nodes) unless the threat searches
    # answer it sooner, and the depth is the last iteration it completed: 6 to 10 plies here
    # (with fewer nodes the root's threat searches may take them all, and no iteration ends)
    assert all(line.nodes < 20_000 + 1_024 for line in lines)
    assert all(6 <= line.depth <= 10 for line in lines if line.nodes >= 20_000)
    # a forced answer, and a position the opponent attacks, where the main search kept a
    # quarter of the nodes back for the check of its move and the check needed fewer
    assert sum(line.nodes < 20_000 for line in lines) == 2
    assert main(["--nodes", "20000"]) == 0
    out = capsys.readouterr().out
    assert f"Total depth: {sum(line.depth for line in lines)}" in out
    assert " depth " in out.splitlines()[0]


def test_bench_refuses_a_node_count_below_one(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--nodes", "0"])
    assert "--nodes must be at least 1" in capsys.readouterr().err


def test_warm_says_what_it_does(capsys) -> None:
    from engine.__main__ import main as engine_main

    assert engine_main(["warm"]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("Compiling the engine's search kernels")
    assert second.startswith("Engine ready (")


def _shard(tmp_path: Path) -> Path:
    # one recorded game, as tools/datagen.py keeps them (y * 15 + x), ending in Black's five
    text = "h8 h9 i8 i9 g8 j8 g9 g7 f10 e11 i10 k7 j11 e8 k12"
    moves = [m.point.y * 15 + m.point.x for m in Board.from_moves(text).moves]
    path = tmp_path / "shard.npz"
    np.savez(path, moves=np.array(moves, dtype=np.int16), lengths=np.array([len(moves)]))
    return path


def test_the_games_bench_searches_every_position_of_a_game_from_the_fifth_stone(
    tmp_path: Path,
) -> None:
    path = _shard(tmp_path)
    first = bench_games(path, games=1, nodes=2_000)
    # positions after 4 .. 13 stones: the last move, the five, is never asked for
    assert first.searches == 10
    assert 0 < first.nodes <= 10 * (2_000 + 1_024)
    # fixed node counts: the same searches, the same nodes, whatever the host
    again = bench_games(path, games=1, nodes=2_000)
    assert (again.nodes, again.depth) == (first.nodes, first.depth)


def test_the_games_bench_prints_its_totals_and_refuses_without_a_node_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _shard(tmp_path)
    assert main(["--games", str(path), "--nodes", "1000", "--count", "1"]) == 0
    out = capsys.readouterr().out
    assert "Searches: 10" in out
    assert "Nodes/second (CPU time):" in out
    with pytest.raises(SystemExit):
        main(["--games", str(path)])
    with pytest.raises(SystemExit):
        main(["--games", str(tmp_path / "missing.npz"), "--nodes", "1000"])
    other = tmp_path / "other.npz"
    np.savez(other, results=np.zeros(1))  # an array file, but not a shard's games
    with pytest.raises(SystemExit):
        main(["--games", str(other), "--nodes", "1000"])
    assert "holds no recorded games" in capsys.readouterr().err


def test_the_pns_bench_proves_each_answer_as_the_tactics_command_does(capsys) -> None:
    lines = bench_pns(5_000)
    assert [line.name for line in lines[:2]] == ["defence0", "defence1"]
    assert len(lines) == len(DEFENCES) + 115 < len(DEFENCES) + len(HARD_DEFENCES)
    assert sum(line.nodes for line in lines) == PNS_NODES
    # every search stops near the count (checked every 512 nodes) or with its answer, and
    # only the count leaves one not known
    assert all(line.nodes < 5_000 + 1_024 for line in lines)
    assert all(line.nodes >= 5_000 for line in lines if line.found == -1)
    # the same search as `python -m engine tactics --answer-nodes`
    for line, puzzle in zip(lines[len(DEFENCES) :][:4], HARD_DEFENCES[:4], strict=True):
        assert {1: True, 0: False, -1: None}[line.found] == answer_lost(puzzle, 5_000)
    assert main(["--pns", "1000"]) == 0
    out = capsys.readouterr().out
    assert f"Positions: {len(lines)} (lost " in out
    assert "Nodes/second (CPU time):" in out
    with pytest.raises(SystemExit):
        main(["--pns", "0"])
    assert "--pns must be at least 1" in capsys.readouterr().err
