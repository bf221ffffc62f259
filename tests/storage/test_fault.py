"""kill -9 for real: a child process writing moves to a SQLite file is killed at random
moments; every write it acknowledged must be in the file, and the file must be intact."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from contextlib import closing
from pathlib import Path

CHILD = Path(__file__).with_name("fault_child.py")
ROOT = Path(__file__).resolve().parents[2]
KILLS = 6


def run_and_kill(path: Path, delay: float, seed: int) -> list[tuple[str, list[int]]]:
    """Start the child, let it write for ``delay`` seconds after its first ack, SIGKILL it;
    return the acknowledgements it printed: the kind (``M``, ``T``, ``F``) and the numbers."""
    with subprocess.Popen(
        [sys.executable, str(CHILD), str(path), str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        assert child.stderr is not None
        first = child.stdout.readline()
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        # read() and not communicate(): communicate() reads the pipe itself and would skip
        # whatever readline() had already buffered past the first line (lost or torn acks)
        rest = child.stdout.read()
        errors = child.stderr.read()
    assert child.returncode == -signal.SIGKILL, errors
    assert first, errors
    lines = (first + rest).split("\n")
    # Each ack is one write(2) of a short line, so only the last line can be cut off.
    return [(f[0], [int(n) for n in f[1:]]) for f in map(str.split, lines[:-1])]


def test_kill_9_loses_no_acknowledged_move(tmp_path: Path) -> None:
    path = tmp_path / "fault.sqlite3"
    rng = random.Random(20261121)
    moves: set[tuple[int, int, int, int, int]] = set()  # game, seq, ply, x, y
    takebacks: set[tuple[int, int, int]] = set()  # game, seq, ply after
    last_seq: dict[int, int] = defaultdict(int)
    for _ in range(KILLS):
        for kind, (game, seq, *rest) in run_and_kill(
            path, rng.uniform(0.05, 0.5), rng.randrange(2**32)
        ):
            if kind == "M":
                ply, x, y = rest
                moves.add((game, seq, ply, x, y))
            elif kind == "T":
                takebacks.add((game, seq, rest[0]))
            last_seq[game] = max(last_seq[game], seq)

        with closing(sqlite3.connect(path)) as db:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            stored = set(db.execute("SELECT game_id, seq, ply, x, y FROM moves"))
            stored_takebacks = set(db.execute("SELECT game_id, seq, to_ply FROM takebacks"))
            versions = dict(db.execute("SELECT id, version FROM games"))
        assert moves <= stored
        assert takebacks <= stored_takebacks
        for game, seq in last_seq.items():
            # Each game has at most one write in flight when the kill lands: it is either
            # whole in the file or absent, never more than one step past the last ack.
            assert seq <= versions[game] <= seq + 1
    assert len(moves) > KILLS  # the children really wrote between the kills
