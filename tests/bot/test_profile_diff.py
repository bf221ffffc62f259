"""``benchmarks.profile_diff`` compares two real cProfile dumps per interaction: the calls it
reports are the calls made, divided by each run's interactions, matched across checkouts."""

from __future__ import annotations

import cProfile
import json
from pathlib import Path

import pytest

from benchmarks.profile_diff import _file, _load, compare, main, part_of


def _work(times: int) -> None:
    for _ in range(times):
        json.dumps([1, 2, 3])


def _dump(path: Path, times: int) -> str:
    profile = cProfile.Profile()
    profile.enable()
    _work(times)
    profile.disable()
    profile.dump_stats(path)
    return str(path)


def test_calls_per_interaction_by_function(tmp_path: Path) -> None:
    new = _load(_dump(tmp_path / "new.prof", 12), None, "function")
    old = _load(_dump(tmp_path / "old.prof", 4), None, "function")
    rows = {row.key: row for row in compare(new, 4, old, 2)}
    dumps = rows["std:json/__init__.py:dumps"]
    assert (dumps.new_calls, dumps.old_calls) == (3.0, 2.0)
    work = rows["tests/bot/test_profile_diff.py:_work"]
    assert (work.new_calls, work.old_calls) == (0.25, 0.5)


def test_parts_sum_their_files(tmp_path: Path) -> None:
    by_function = _load(_dump(tmp_path / "a.prof", 5), None, "function")
    by_part = _load(str(tmp_path / "a.prof"), None, "part")
    std_calls = sum(calls for key, (calls, _) in by_function.items() if key.startswith("std:"))
    assert by_part["std"][0] == std_calls >= 5
    assert by_part["tests"][0] == 1  # _work itself


@pytest.mark.parametrize(
    ("path", "root", "file", "part"),
    [
        (
            "/w/a/.venv/lib/python3.11/site-packages/aiohttp/client.py",
            "/w/a",
            "lib:aiohttp/client.py",
            "lib:aiohttp",
        ),
        ("/usr/lib/python3.11/asyncio/tasks.py", None, "std:asyncio/tasks.py", "std"),
        ("/work/wt/core41/bot/table.py", "/work/wt/core41", "bot/table.py", "bot"),
        ("/elsewhere/storage/sqlite.py", None, "storage/sqlite.py", "storage"),
        ("~", None, "~", "~"),
    ],
)
def test_the_same_file_in_every_checkout(path: str, root: str | None, file: str, part: str) -> None:
    assert _file(path, root) == file
    assert part_of(file) == part


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = _dump(tmp_path / "new.prof", 6)
    old = _dump(tmp_path / "old.prof", 6)
    assert main([f"{new}:3", f"{old}:6", "--by", "part"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("per interaction: calls ")
    tests_row = next(line for line in out.splitlines() if line.endswith("  tests"))
    assert tests_row.split()[:2] == ["0.33", "0.17"]  # one _work call: per 3, per 6 interactions


def test_a_run_without_its_interactions_is_refused(tmp_path: Path) -> None:
    new = _dump(tmp_path / "new.prof", 1)
    with pytest.raises(SystemExit):
        main([new, f"{new}:1"])
