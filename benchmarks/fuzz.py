"""Fuzzing every input path: ``python -m benchmarks.fuzz [--inputs 4000] [--seed 1]``.

Random input goes through the real bot (discord.py against the fake Discord, a SQLite file)
and the terminal front-end, and the command counts what must never happen:

* a traceback: any log record with an exception or at ERROR level (a bug: the player got the
  generic line), or an exception escaping the terminal's command handler;
* an interaction left unanswered (the player sees "interaction failed").

The inputs, in four kinds: ``/place`` cells (typed text: ASCII, look-alike letters that
Unicode case folding maps to a-z, other digits, controls, long strings); option values of any
JSON type sent raw to ``/gomoku start`` and ``/place``, as a modified client could; button
custom ids of any shape (huge numbers, wrong segments, other digits; ids outside the bot's
``gomoku:`` namespace are counted apart: they belong to no button of ours); terminal lines (commands
with odd arguments, NUL bytes, lines of 64 KiB and more through the real stdin reader).
It prints figures; ``tests/bot/test_input_faults.py`` runs a few of them as a test.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import os
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import create_bot
from bot.cooldown import UserCooldown
from bot.core.service import GameService
from bot.settings import Settings
from bot.terminal import Terminal, _limited_lines
from bot.text.refusals import generic_message
from storage.memory import InMemoryGameRepository
from tests.fakediscord import FakeDiscord, FakeDiscordError, FakeUser
from tests.runners import CentreRunner

__all__ = ["FuzzReport", "fuzz"]

# Characters that have broken parsers before, or could: case-folding look-alikes of a-z
# (long s, dotless i, dotted I, Kelvin sign, fullwidth letters), digits that are not ASCII
# (superscripts, Arabic-Indic, fullwidth), controls, invisible and right-to-left marks.
TRICKY = (
    "\u017f\u0131\u0130\u212a\uff21\uff48\u00b2\u00b3\u00b9\u0663\uff10\uff18"
    "\u0000\u200b\u202e\ufeff\n\t\r `*_~|<@&#>:\\\"'%{}[]\u00e9\u6f22\U0001f642"
)
ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -"


def _text(rng: random.Random, longest: int = 12) -> str:
    alphabet = rng.choice([ASCII, TRICKY, ASCII + TRICKY])
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest)))


def cell(rng: random.Random) -> str:
    """Something typed into ``/place cell``."""
    kind = rng.random()
    if kind < 0.3:
        return rng.choice("abcdefghijklmnopqrstuvwxyz") + str(rng.randint(-5, 30))
    if kind < 0.5:
        return rng.choice(TRICKY) + rng.choice(["", "1", "8", "\u00b2", "\u0663"])
    if kind < 0.6:
        return str(rng.randint(0, 10 ** rng.randint(1, 40)))
    if kind < 0.65:
        return "h" * rng.randint(50, 6000)
    return _text(rng)


def any_value(rng: random.Random) -> Any:
    """A JSON value of any type: what a forged request can carry in an option."""
    kind = rng.randrange(9)
    if kind == 0:
        return rng.randint(-(10**30), 10**30)
    if kind == 1:
        return rng.uniform(-1e12, 1e12)
    if kind == 2:
        return rng.choice([True, False])
    if kind == 3:
        return None
    if kind == 4:
        return [rng.randint(0, 9) for _ in range(rng.randint(0, 3))]
    if kind == 5:
        return {"x": _text(rng)}
    if kind == 6:
        return rng.choice(["gomoku", "connect4", "renju", "expert", "black", "15", "5", "99"])
    return _text(rng, 30)


_OPTION_TYPES = (3, 4, 5, 6, 10, 7, 8)  # string, integer, boolean, user, number, channel, role


def forged_options(rng: random.Random, names: list[str]) -> list[dict[str, Any]]:
    """Option entries with any names, types and values."""
    chosen = rng.sample(names, rng.randint(0, len(names)))
    if rng.random() < 0.1:
        chosen.append(_text(rng, 8) or "x")
    return [
        {"name": name, "type": rng.choice(_OPTION_TYPES), "value": any_value(rng)}
        for name in chosen
    ]


def custom_id(rng: random.Random, game_ids: list[int]) -> str:
    """A button id of any shape, mostly ``gomoku:...``."""
    game = rng.choice(
        [
            str(rng.choice(game_ids or [1])),
            str(rng.randint(0, 10 ** rng.randint(1, 60))),
            "-1",
            "\u0663",
            "",
            _text(rng, 6),
        ]
    )
    number = rng.choice(
        [str(rng.randint(0, 12)), str(10 ** rng.randint(2, 40)), "-3", "\u00b2", "x"]
    )
    tail = rng.choice(
        [
            "accept",
            "decline",
            "resign",
            "undo:yes",
            "undo:no",
            "undo:maybe",
            f"cell:{number}:{rng.choice(['0', '1', '2', number])}",
            f"drop:{number}",
            f"drop:{number}:{number}",
            "cell",
            _text(rng, 10),
        ]
    )
    made = f"gomoku:{game}:{tail}"
    if rng.random() < 0.01:
        made = _text(rng, 20)  # rare: waiting out Discord's deadline for each takes 3 s
    return made[:100]


def terminal_line(rng: random.Random) -> str:
    """A line typed into the terminal game."""
    words = [
        "new",
        "undo",
        "hint",
        "export",
        "resign",
        "board",
        "help",
        "h8",
        "4",
        "\u00b2",
        "\u0663",
        "0",
        "99",
    ]
    kind = rng.random()
    if kind < 0.4:
        return " ".join(
            rng.choice([*words, _text(rng, 6), str(rng.randint(0, 10**9)), "connect4", "gravity3"])
            for _ in range(rng.randint(1, 4))
        )
    if kind < 0.45:
        return "new " + "9" * rng.randint(4300, 6000)
    if kind < 0.5:
        return "export " + _text(rng, 10) + "\0" + _text(rng, 3)
    if kind < 0.6:
        return cell(rng)
    return _text(rng, 40)


# ---------------------------------------------------------------------- counting


class _Tracebacks(logging.Handler):
    """Every record that carries an exception or is an error: each is a bug's traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.levelno >= logging.ERROR:
            self.records.append(record)


@dataclass
class FuzzReport:
    """What the fuzzing saw."""

    sent: Counter[str] = field(default_factory=Counter)  # inputs by kind
    tracebacks: Counter[str] = field(default_factory=Counter)  # by kind
    unanswered: Counter[str] = field(default_factory=Counter)
    generic: Counter[str] = field(default_factory=Counter)  # "something went wrong" replies
    examples: list[str] = field(default_factory=list)  # the first few failures
    ignored: int = 0  # button ids outside the bot's "gomoku:" namespace, left unanswered
    seconds: float = 0.0

    @property
    def failures(self) -> int:
        """Tracebacks plus unanswered inputs."""
        return sum(self.tracebacks.values()) + sum(self.unanswered.values())

    def note(self, kind: str, what: str, value: object) -> None:
        getattr(self, what)[kind] += 1
        if len(self.examples) < 10:
            self.examples.append(f"{kind} {what}: {value!r}"[:300])


# ---------------------------------------------------------------------- the Discord side


async def _ensure_games(
    bot: Any, fake: FakeDiscord, players: list[FakeUser], channels: list[Any]
) -> list[int]:
    """Every fuzzed channel has an open game (re-started when fuzzing ended one)."""
    games = ["gomoku", "connect4", "tictactoe", "gravity3"]
    ids = []
    for index, channel in enumerate(channels):
        try:
            view = await bot.service.board(channel.id)
            if view.is_active:
                ids.append(view.game_id)
                continue
        except Exception:  # no game there: start one
            pass
        await fake.slash(
            "gomoku start",
            user=players[index % len(players)],
            channel=channel,
            options={"game": games[index % len(games)], "colour": "black"},
        )
        ids.append((await bot.service.board(channel.id)).game_id)
    return ids


async def _answer(fake: FakeDiscord, record: Any, within: float) -> str | None:
    fake.answer_timeout = within
    try:
        reply = await fake.answer(record)
    except FakeDiscordError:
        # A button acknowledged by a deferred update needs no words when its move was
        # played: the board changes (here it sat on a planted message, not the board).
        return "" if record.callback_type == 6 else None
    return reply.content


async def fuzz_discord(inputs: int, seed: int, report: FuzzReport) -> None:
    """Send ``inputs`` random interactions of the three Discord kinds."""
    rng = random.Random(seed)
    handler = _Tracebacks()
    logging.getLogger().addHandler(handler)
    try:
        with tempfile.TemporaryDirectory() as folder:
            async with FakeDiscord() as fake:
                fake.answer_timeout = 10.0
                players = [fake.add_user(name) for name in ("alice", "bob", "carol")]
                channels = [fake.default_channel] + [fake.add_channel(f"c{i}") for i in range(3)]
                bot = create_bot(
                    Settings(db_path=Path(folder) / "fuzz.sqlite3"),
                    ai=CentreRunner(),
                    cooldown=UserCooldown(rate=10**9, per=1.0),
                    guild_ready_timeout=0.01,
                )
                async with fake.running(bot):
                    game_ids: list[int] = []
                    for index in range(inputs):
                        if index % 50 == 0:
                            game_ids = await _ensure_games(bot, fake, players, channels)
                        kind = rng.choice(["cell", "option", "custom id"])
                        user = rng.choice(players)
                        channel = rng.choice(channels)
                        before = len(handler.records)
                        value: object
                        if kind == "cell":
                            value = cell(rng)
                            record = await fake.send_slash(
                                "place", user=user, channel=channel, options={"cell": value}
                            )
                        elif kind == "option":
                            command = rng.choice(["gomoku start", "place"])
                            names = (
                                ["opponent", "game", "rule", "level", "size", "colour"]
                                if command == "gomoku start"
                                else ["cell"]
                            )
                            value = (command, forged_options(rng, names))
                            record = await fake.send_forged_slash(
                                command, value[1], user=user, channel=channel
                            )
                        else:
                            value = custom_id(rng, game_ids)
                            message = fake.plant_button(str(value), channel)
                            record = await fake.send_click(message, str(value), user=user)
                        report.sent[kind] += 1
                        ours = kind != "custom id" or str(value).startswith("gomoku:")
                        content = await _answer(
                            fake, record, 10.0 if ours else fake.interaction_deadline + 0.5
                        )
                        await asyncio.sleep(0)  # let follow-up logging happen
                        if content is None and not ours:
                            # Not ours: Discord delivers only ids the bot put on a message, and
                            # ids outside "gomoku:" belong to other views (left to them).
                            report.ignored += 1
                        elif content is None:
                            report.note(kind, "unanswered", value)
                        elif content == generic_message():
                            report.note(kind, "generic", value)
                        if len(handler.records) > before:
                            report.note(kind, "tracebacks", value)
                            record_ = handler.records[-1]
                            error = record_.exc_info[1] if record_.exc_info else None
                            if len(report.examples) < 20:
                                report.examples.append(
                                    f"  -> {record_.getMessage()[:150]} {error!r}"[:300]
                                )
    finally:
        logging.getLogger().removeHandler(handler)


# ---------------------------------------------------------------------- the terminal side


async def fuzz_terminal(inputs: int, seed: int, report: FuzzReport) -> None:
    """Feed ``inputs`` random lines to the terminal game, and long lines to its reader."""
    rng = random.Random(seed)
    handler = _Tracebacks()
    logging.getLogger().addHandler(handler)
    here = Path.cwd()
    scratch = tempfile.TemporaryDirectory()
    os.chdir(scratch.name)  # "export <name>" writes files: into a scratch folder
    try:
        service = GameService(InMemoryGameRepository(), CentreRunner())
        console = Terminal(service, io.StringIO(), colour=False)
        await console.begin()
        for index in range(inputs):
            if index % 40 == 0:
                await console.handle(rng.choice(["new", "new connect4", "new gravity3 friend"]))
            line = terminal_line(rng)
            report.sent["terminal line"] += 1
            before = len(handler.records)
            try:
                await console.handle(line)
            except Exception as error:  # what used to end the session with a traceback
                report.note("terminal line", "tracebacks", (line[:80], repr(error)))
                continue
            if len(handler.records) > before:
                report.note("terminal line", "tracebacks", line[:80])
        # The reader: lines around and far beyond its limit, then a normal one.
        for size in (65_535, 65_536, 200_000, 1_000_000):
            reader = asyncio.StreamReader(limit=4096)
            reader.feed_data(b"x" * size + b"\nh8\n")
            reader.feed_eof()
            report.sent["long stdin line"] += 1
            try:
                lines = [line async for line in _limited_lines(reader)]
                for line in lines:
                    await console.handle(line)
            except Exception as error:
                report.note("long stdin line", "tracebacks", (size, repr(error)))
                continue
            if lines[-1].strip() != "h8":
                report.note("long stdin line", "unanswered", size)
        console.output = io.StringIO()
    finally:
        os.chdir(here)
        scratch.cleanup()
        logging.getLogger().removeHandler(handler)


async def fuzz(inputs: int, seed: int = 1) -> FuzzReport:
    """Fuzz ``inputs`` Discord interactions and as many terminal lines."""
    report = FuzzReport()
    started = time.monotonic()
    await fuzz_discord(inputs, seed, report)
    await fuzz_terminal(inputs, seed, report)
    report.seconds = time.monotonic() - started
    return report


def main(argv: list[str] | None = None) -> int:
    """Run and print figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fuzz", description=__doc__)
    parser.add_argument("--inputs", type=int, default=4000, help="per side (Discord, terminal)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    # Warnings and errors reach the counting handler; nothing is printed.
    logging.getLogger().setLevel(logging.WARNING)
    report = asyncio.run(fuzz(args.inputs, args.seed))
    print(f"fuzzed {sum(report.sent.values())} inputs in {report.seconds:.0f} s (seed {args.seed})")
    for kind, count in sorted(report.sent.items()):
        print(
            f"  {kind:<16} {count:>6} sent  {report.tracebacks[kind]:>4} tracebacks  "
            f"{report.unanswered[kind]:>4} unanswered  {report.generic[kind]:>4} generic replies"
        )
    print(
        f"tracebacks: {sum(report.tracebacks.values())}, "
        f"unanswered: {sum(report.unanswered.values())} "
        f"(and {report.ignored} button ids outside gomoku:, which the bot leaves alone)"
    )
    for example in report.examples:
        print("  " + example)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
