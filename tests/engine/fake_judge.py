"""A tiny Gomocup protocol engine for tools/judge.py's tests: it reports a scripted evaluation.

    python tests/engine/fake_judge.py [STONES=EVAL ...]

After ``BOARD`` with STONES stones it prints ``MESSAGE Depth 3-3 | Eval EVAL | ...`` the way
Rapfi does (EVAL like ``-250`` or ``+M7``, from the side to move's view; ``+0`` when not
scripted; STONES@X,Y scripts the position with that many stones whose last one sent was
X,Y, before STONES alone), then plays the first empty point in reading order; EVAL
``playX,Y`` plays X,Y and says nothing; EVAL ``die`` ends the process there. It writes the
stone count of every position it was asked about to the file named by ``FAKE_JUDGE_LOG``, if
set. ``ABOUT`` names it "fake judge".

``YXBOARD`` sets a position up without a move (the stones Black's and White's in turn, in the
order sent, as Rapfi reads them; a stone marked for the wrong side ends the process), and
``TRACESEARCH`` then prints ``MESSAGE Static Eval[Black]: V (...)`` as Rapfi does, where V is
the sum of (x + 1) * (y + 1) over Black's stones less that over White's.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    evals = dict(arg.split("=", 1) for arg in sys.argv[1:])
    size = 15
    stones: set[tuple[int, int]] = set()
    reading = False
    setting = False  # inside YXBOARD
    order: list[tuple[int, int, int]] = []
    last: tuple[int, int] | None = None  # the last stone BOARD sent
    log = os.environ.get("FAKE_JUDGE_LOG")
    for raw in sys.stdin:
        line = raw.strip()
        word = line.split(" ", 1)[0].upper()
        if setting:
            if word == "DONE":
                setting = False
                to_move = len(order) % 2  # 0: Black
                if any(
                    mark != (1 if i % 2 == to_move else 2) for i, (_, _, mark) in enumerate(order)
                ):
                    return  # a stone marked for the wrong side
                continue
            x, y, mark = (int(part) for part in line.split(","))
            order.append((x, y, mark))
            continue
        if reading:
            if word == "DONE":
                reading = False
                if log:
                    with open(log, "a", encoding="utf-8") as out:
                        out.write(f"{len(stones)}\n")
                value = evals.get(f"{len(stones)}@{last[0]},{last[1]}") if last else None
                value = value or evals.get(str(len(stones)), "+0")
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
                last = (x, y)
        elif word == "START":
            size = int(line.split()[1])
            print("OK", flush=True)
        elif word == "ABOUT":
            print('name="fake judge", version="1.0"', flush=True)
        elif word == "BOARD":
            stones = set()
            last = None
            reading = True
        elif word == "YXBOARD":
            order = []
            setting = True
        elif word == "TRACESEARCH":
            black = sum(
                (1 if i % 2 == 0 else -1) * (x + 1) * (y + 1) for i, (x, y, _) in enumerate(order)
            )
            print(f"MESSAGE Legal Moves[{size * size - len(order)}]: ...", flush=True)
            print(f"MESSAGE Static Eval[Black]: {black} (WDL 50.00, SF 250.00)", flush=True)
            print("MESSAGE No TTEntry found.", flush=True)
        elif word == "END":
            return


if __name__ == "__main__":
    main()
