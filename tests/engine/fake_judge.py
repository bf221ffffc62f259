"""A tiny Gomocup protocol engine for tools/judge.py's tests: it reports a scripted evaluation.

    python tests/engine/fake_judge.py [STONES=EVAL ...]

After ``BOARD`` with STONES stones it prints ``MESSAGE Depth 3-3 | Eval EVAL | ...`` the way
Rapfi does (EVAL like ``-250`` or ``+M7``, from the side to move's view; ``+0`` when not
scripted), then plays the first empty point in reading order; EVAL ``playX,Y`` plays X,Y
and says nothing; EVAL ``die`` ends the process there. It writes the stone count of every
position it was asked about to the file named by ``FAKE_JUDGE_LOG``, if set. ``ABOUT`` names
it "fake judge".
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    evals = dict(arg.split("=", 1) for arg in sys.argv[1:])
    size = 15
    stones: set[tuple[int, int]] = set()
    reading = False
    log = os.environ.get("FAKE_JUDGE_LOG")
    for raw in sys.stdin:
        line = raw.strip()
        word = line.split(" ", 1)[0].upper()
        if reading:
            if word == "DONE":
                reading = False
                if log:
                    with open(log, "a", encoding="utf-8") as out:
                        out.write(f"{len(stones)}\n")
                value = evals.get(str(len(stones)), "+0")
                move = next(
                    (x, y) for y in range(size) for x in range(size) if (x, y) not in stones
                )
                if value == "die":  # "die": the process ends without an answer
                    return
                if value.startswith("play"):  # "play7,7": that move, and no evaluation
                    column, row = value[4:].split(",")
                    move = (int(column), int(row))
                else:
                    print(f"MESSAGE Depth 3-3 | Eval {value} | Time 1ms | H8", flush=True)
                    print(f"MESSAGE Speed 1K | Depth 3-3 | Eval {value} | Node 1K", flush=True)
                print(f"{move[0]},{move[1]}", flush=True)
            else:
                x, y, _ = (int(part) for part in line.split(","))
                stones.add((x, y))
        elif word == "START":
            size = int(line.split()[1])
            print("OK", flush=True)
        elif word == "ABOUT":
            print('name="fake judge", version="1.0"', flush=True)
        elif word == "BOARD":
            stones = set()
            reading = True
        elif word == "END":
            return


if __name__ == "__main__":
    main()
