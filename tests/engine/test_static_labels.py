"""tools/static_labels.py: every judged position of a shard gets the judge's static evaluation
from the side to move's view, each stone sent for its own side in Gomocup's coordinates; a
finished shard is kept, and labels that no longer match their manifest or their source refuse
to load."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.gomocup.protocol import point_to_gomocup
from engine.types import Point
from tests.engine.test_datagen import JUDGE, SETTINGS, _quiet
from tools import mixnet as mx
from tools.datagen import make_shard
from tools.static_labels import SIZE, StaticError, load_static, main, position_lines

FAKE = Path(__file__).with_name("fake_judge.py")
COMMAND = f"{sys.executable} {FAKE}"


def fake_static_value(moves: list[int]) -> int:
    # the fake judge's static value (Black's stones' (x + 1)(y + 1) less White's, in Gomocup's
    # coordinates), turned to the side to move's view
    black = 0
    for i, m in enumerate(moves):
        x, y = point_to_gomocup(Point(m % SIZE, m // SIZE), SIZE)
        black += (1 if i % 2 == 0 else -1) * (x + 1) * (y + 1)
    return black if len(moves) % 2 == 0 else -black


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("data") / "selfplay"
    make_shard(folder, SETTINGS, JUDGE, command="test", log=_quiet)
    return folder


def test_position_lines_mark_the_side_to_move_and_turn_rows_to_gomocups() -> None:
    # Black at (7, 7), White at (8, 7), Black at (7, 9): White to move
    moves = [7 * SIZE + 7, 7 * SIZE + 8, 9 * SIZE + 7]
    assert position_lines(moves) == ["YXBOARD", "7,7,2", "8,7,1", "7,5,2", "DONE"]
    assert position_lines(moves[:2]) == ["YXBOARD", "7,7,1", "8,7,2", "DONE"]


def test_every_judged_position_gets_the_static_value_of_the_side_to_move(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "static"
    assert main([str(source), "--judge", COMMAND, "--out", str(out)]) == 0
    values = load_static(out, source, SETTINGS.shard)
    data, _ = mx.load_samples([source / "shard-00003.json"])
    expected = [fake_static_value([int(m) for m in row if m >= 0]) for row in data.history]
    assert values.tolist() == expected
    assert len({v > 0 for v in expected}) == 2  # both signs: the turn to the mover's view counts
    # labelled already: a second run leaves the shard as it is
    before = (out / "selfplay" / "shard-00003.npz").read_bytes()
    assert main([str(source), "--judge", COMMAND, "--out", str(out)]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert (out / "selfplay" / "shard-00003.npz").read_bytes() == before


def test_labels_refuse_to_load_once_their_array_or_source_changed(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "static"
    assert main([str(source), "--judge", COMMAND, "--out", str(out)]) == 0
    array = out / "selfplay" / "shard-00003.npz"
    kept = array.read_bytes()
    np.savez_compressed(array, static=np.zeros(3, dtype=np.int32))
    with pytest.raises(StaticError, match="does not match its manifest"):
        load_static(out, source, SETTINGS.shard)
    array.write_bytes(kept)
    moved = tmp_path / "selfplay"
    shutil.copytree(source, moved)
    shard = moved / "shard-00003.npz"
    shard.write_bytes(shard.read_bytes() + b"\0")
    with pytest.raises(StaticError, match="another version of its source"):
        load_static(out, moved, SETTINGS.shard)
    with pytest.raises(StaticError, match="is missing"):
        load_static(out, source, 7)


def test_a_judge_without_a_static_evaluation_is_a_clear_error(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a plain protocol engine: it knows neither YXBOARD nor TRACESEARCH
    script = tmp_path / "plain.py"
    script.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    word = line.split()[0] if line.split() else ''\n"
        "    answer = {'START': 'OK', 'ABOUT': 'name=\"plain\"'}.get(word, 'ERROR unknown')\n"
        "    print(answer, flush=True)\n",
        encoding="utf-8",
    )
    plain = f"{sys.executable} {script}"
    assert main([str(source), "--judge", plain, "--out", str(tmp_path / "s")]) == 1
    assert "error:" in capsys.readouterr().err
    assert not (tmp_path / "s" / "selfplay" / "shard-00003.json").exists()
