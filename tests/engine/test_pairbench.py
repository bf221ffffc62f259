"""tools/pairbench.py: the summary against the statistics module, the bench's totals read back,
and whole runs over real benches (this checkout against itself) and over a checkout whose bench
searches other nodes."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tools.pairbench import BenchRun, main, parse_bench, summarize

ROOT = Path(__file__).resolve().parents[2]


def _fake_checkout(root: Path, bench: str) -> None:
    # a folder where ``python -m engine`` runs ``bench`` (the source of its __main__) instead
    package = root / "engine"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(bench)


@given(st.lists(st.floats(min_value=0.5, max_value=2.0), min_size=2, max_size=20))
def test_the_summary_is_the_mean_and_the_sample_spread(ratios: list[float]) -> None:
    s = summarize(ratios)
    assert s.mean == pytest.approx(statistics.fmean(ratios))
    assert s.sd == pytest.approx(statistics.stdev(ratios), abs=1e-12)
    assert s.se == pytest.approx(statistics.stdev(ratios) / len(ratios) ** 0.5, abs=1e-12)
    assert s.rounds == len(ratios)


def test_a_summary_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="no rounds"):
        summarize([])


def test_the_totals_are_read_from_the_bench_output() -> None:
    text = "freestyle h8 -> i8 ...\nTotal nodes: 8461730\nTotal depth: 121\n"
    text += "Nodes/second: 809285\nNodes/second (CPU time): 809944\n"
    assert parse_bench(text) == BenchRun(8461730, 809944)
    with pytest.raises(ValueError, match="no bench totals"):
        parse_bench("Traceback (most recent call last):\n")


def test_a_checkout_against_itself_is_the_same_search(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(ROOT), str(ROOT), "--rounds", "2", "--nodes", "3000"]) == 0
    out = capsys.readouterr().out
    assert out.count("ratio") == 2
    assert "new / base, nodes a CPU second:" in out


def test_other_node_counts_are_called_another_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a checkout whose bench prints totals of its own: the counts differ from the real one's
    _fake_checkout(tmp_path, 'print("Total nodes: 5")\nprint("Nodes/second (CPU time): 100")\n')
    assert main([str(ROOT), str(tmp_path), "--rounds", "1", "--nodes", "3000"]) == 1
    assert "not the same search" in capsys.readouterr().err


def test_a_bench_that_fails_is_said_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_checkout(tmp_path, 'raise SystemExit("no bench here")\n')
    assert main([str(tmp_path), str(tmp_path), "--rounds", "1", "--nodes", "10"]) == 2
    err = capsys.readouterr().err
    assert f"the bench in {tmp_path} exited with 1" in err
    assert "no bench here" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--rounds", "0"], "--rounds and --nodes must be at least 1"),
        (["--nodes", "0"], "--rounds and --nodes must be at least 1"),
        (["--rounds", "x"], "invalid int value"),
    ],
)
def test_bad_arguments_are_refused_in_a_line(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main([str(ROOT), str(ROOT), *args])
    assert stop.value.code == 2
    assert said in capsys.readouterr().err


def test_a_missing_checkout_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([str(ROOT), str(tmp_path / "nowhere")])
    assert stop.value.code == 2
    assert "no checkout at" in capsys.readouterr().err
