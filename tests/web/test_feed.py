"""What a page is sent after its first state: deltas, rendered once per kind of page.

Random games (moves, takebacks asked and answered, opening steps, resignations, renju's
forbidden points, gravity and marks games) go through the game service; their states go to
pages of every kind (each player's, a watcher's; two languages) as the board sends them
(``_Socket.show`` over the game's ``Feed``), some states skipped as a burst is, some pages
opened late. Each page applies what it is sent as the page's script does
(``tests.web.page``), and holds the whole state of every version it was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import dataclass, field
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.service import GameService
from bot.core.service.inputs import AnswerUndo, AskUndo, Choose, Drop, GameRef, Place, Resign
from bot.core.service.states import GameState
from bot.web.feed import Feed
from bot.web.server import WebBoard, _Socket
from bot.web.state import Reuse, choices
from bot.web.tokens import Pass, Role, Signer
from engine.errors import GomokuError
from engine.types import Game, Point, Rule
from storage.memory import InMemoryGameRepository
from storage.records import GameStatus
from tests.bot.test_service import ALICE, BOB, CAROL, start_pvp
from tests.runners import CentreRunner
from tests.scale import examples
from tests.web.page import PageView, apply_delta

# (game, rule, opening): the shapes a page draws, and the steps that are not plain moves
SETUPS: list[tuple[Game, Rule, str | None]] = [
    (Game.GOMOKU, Rule.FREESTYLE, None),
    (Game.GOMOKU, Rule.RENJU, None),
    (Game.GOMOKU, Rule.FREESTYLE, "swap2"),
    (Game.GOMOKU, Rule.FREESTYLE, "swap"),
    (Game.CONNECT4, Rule.FREESTYLE, None),
    (Game.TICTACTOE, Rule.FREESTYLE, None),
]
PAGES = [(user, language) for user in (ALICE, BOB, CAROL) for language in ("en", "ja")]


async def random_game(setup: tuple[Game, Rule, str | None], steps: list[int]) -> list[GameState]:
    """Every state a game between Alice and Bob stores, in order, while ``steps`` pick what
    the players do: mostly the mover's move, sometimes a takeback asked or answered, an
    opening's choice or a resignation (an action the game refuses stores nothing)."""
    game, rule, opening = setup
    service = GameService(InMemoryGameRepository(), CentreRunner(), rng=random.Random(3))
    states: list[GameState] = []
    service.subscribe(lambda event: states.append(event.game))
    view = await start_pvp(
        service, rule=rule if game is Game.GOMOKU else None, game=game, opening=opening
    )
    for step in steps:
        view = await service.game(view.game_id)
        if view.status is not GameStatus.ACTIVE:
            break
        mover = view.player(view.acting_color).user_id
        assert mover is not None
        other = BOB if mover == ALICE else ALICE
        what, value = step % 20, step // 20
        action: Any
        due = choices(view)
        if due and what >= 10:
            action = Choose(due[value % len(due)][0])
        elif what < 15:
            board = view.board
            if board.gravity:
                action = Drop(value % board.width)
            else:
                taken = {m.point for m in board.moves}
                empty = [
                    Point(x, y)
                    for y in range(board.height)
                    for x in range(board.width)
                    if Point(x, y) not in taken
                ]
                action = Place(empty[value % len(empty)])
        elif what < 17:
            action = AskUndo()
            mover = other  # the one who moved last asks
        elif what == 17:
            action = AnswerUndo(value % 2 == 0)
            mover = mover if value % 3 else other  # answered, or withdrawn by the asker
        elif what == 18:
            action = AskUndo()
        else:
            action = Resign()
        with contextlib.suppress(GomokuError):  # refused: nothing stored, no state
            await service.act(GameRef(view.game_id), mover, action)
    return states


def unframe(frame: bytes) -> bytes:
    """The payload of one whole, unmasked text frame (RFC 6455 section 5.2), read by the
    standard's own rules; AssertionError for anything else."""
    assert frame[0] == 0x81  # FIN, no extension bits, text
    size, start = frame[1], 2
    assert size < 0x80  # unmasked: a server's frame
    if size == 126:
        size, start = int.from_bytes(frame[2:4], "big"), 4
        assert size >= 126  # the shortest length's form
    elif size == 127:
        size, start = int.from_bytes(frame[2:10], "big"), 10
        assert size >= 1 << 16
    assert len(frame) == start + size
    return frame[start:]


@dataclass
class Frames:
    """A socket (its WebSocket and its transport) that keeps what the board writes to it."""

    closed: bool = False
    sent: list[bytes] = field(default_factory=list)

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0  # a reader that keeps up

    def write(self, data: bytes) -> None:
        self.sent.append(unframe(data))


@dataclass
class Page:
    socket: _Socket
    frames: Frames
    view: PageView = field(default_factory=PageView)

    def read(self) -> list[dict[str, Any]]:
        """The messages sent since the last read, each applied as the page applies it."""
        messages = [orjson.loads(data) for data in self.frames.sent]
        self.frames.sent.clear()
        for message in messages:
            self.view.take(message)
        return messages


def whole(board: WebBoard, state: GameState, grant: Pass) -> dict[str, Any]:
    """The whole state of ``state`` for ``grant``'s page, rendered anew (JSON, as sent)."""
    payload = board.payload(state, board.kind(state, grant))
    result: dict[str, Any] = orjson.loads(orjson.dumps(payload))
    return result


Transcript = list[list[tuple[dict[str, Any], dict[str, Any]]]]


async def replay(
    states: list[GameState], rng: random.Random | None, transcript: Transcript | None = None
) -> int:
    """Send ``states`` to pages of every kind as the board does, with ``rng`` skipping some
    (a burst is sent as its newest) and opening some pages late (None: every state to every
    page); check every page after every send. Returns how many deltas the pages were sent;
    ``transcript`` gets, for each page, each message it was sent and the whole state it
    must then hold."""
    service = GameService(InMemoryGameRepository(), CentreRunner())
    board = WebBoard(service, Signer.from_secrets("a secret", None))
    feed = Feed()
    pages: list[tuple[Page, Pass]] = []
    waiting = list(PAGES)
    deltas = 0
    previous = -2  # the version sent before (none yet)
    for number, state in enumerate(states):
        last = number == len(states) - 1
        if state.version <= previous:
            continue  # an event that stored nothing new (a takeback asked): pages have it
        if rng is not None and not last and rng.random() < 0.3:
            continue  # a burst: the next state is sent instead
        while waiting and (rng is None or not pages or rng.random() < 0.3):
            user, language = waiting.pop(0)
            role = Role.WATCH if user == CAROL else Role.PLAY
            grant = Pass(state.game_id, user, role, 0, language)
            frames = Frames()
            socket = _Socket(board, frames, grant, frames)  # type: ignore[arg-type]
            pages.append((Page(socket, frames), grant))
            if transcript is not None:
                transcript.append([])
        for number, (page, grant) in enumerate(pages):
            shown, kind = page.socket.shown, page.socket.kind
            page.socket.show(state, feed)
            (message,) = page.read()
            assert page.view.gaps == 0
            expected = whole(board, state, grant)
            assert page.view.state == expected
            if transcript is not None:
                transcript[number].append((message, expected))
            # A delta exactly when the page has the version sent before, as the same kind of
            # page (a swap of colours changes a player's kind).
            if shown == previous and kind == page.socket.kind:
                assert message["type"] == "delta"
                deltas += 1
            else:
                assert message["type"] == "state"
        previous = state.version
    return deltas


steps = st.lists(st.integers(0, 20 * 10_000), min_size=1, max_size=60)


@settings(max_examples=examples(150))
@given(st.sampled_from(SETUPS), steps, st.randoms(use_true_random=False))
def test_deltas_applied_in_order_give_every_versions_whole_state(
    setup: tuple[Game, Rule, str | None], picks: list[int], rng: random.Random
) -> None:
    states = asyncio.run(random_game(setup, picks))
    asyncio.run(replay(states, rng))


def test_a_long_game_is_sent_as_deltas_and_a_takeback_as_one_too() -> None:
    # Every state sent in turn: after the first, every page of an unchanged kind gets deltas.
    picks = [20 * n for n in range(30)] + [16, 17 + 20 * 2]  # 30 moves; White asks, Black allows
    states = asyncio.run(random_game(SETUPS[0], picks))
    assert len(states[-1].board.moves) == 29  # White's last move taken back
    deltas = asyncio.run(replay(states, None))
    versions = {state.version for state in states}
    assert deltas == len(PAGES) * (len(versions) - 1)


def test_a_swap_of_colours_sends_both_players_the_whole_state() -> None:
    # Swap: Alice places three stones, Bob takes Black; both players' pages change kind.
    states = asyncio.run(random_game(SETUPS[3], [0, 20, 40, 10, 60, 80]))
    assert [states[0].black.user_id, states[-1].black.user_id] == [ALICE, BOB]
    deltas = asyncio.run(replay(states, None))
    versions = {state.version for state in states}
    assert deltas == len(PAGES) * (len(versions) - 1) - 4  # the players' pages, at the swap


def test_a_takeback_and_the_move_after_it_sent_as_one_delta() -> None:
    # 10 moves; White asks, Black allows; White plays elsewhere: sent as one burst, the
    # delta keeps 9 moves and adds White's new one.
    picks = [20 * n for n in range(10)] + [16, 17 + 20 * 2, 20 * 50]
    states = asyncio.run(random_game(SETUPS[0], picks))
    before, after = next(s for s in states if len(s.board.moves) == 10), states[-1]
    assert len(after.board.moves) == 10
    assert before.board.moves[-1] != after.board.moves[-1]
    deltas = asyncio.run(replay([states[1], before, after], None))
    assert deltas == 2 * len(PAGES)


def test_a_delta_that_does_not_follow_is_a_gap() -> None:
    page = {"type": "state", "version": 4, "moves": [[7, 7, 0]], "line": "a"}
    change = {"type": "delta", "base": 4, "version": 5, "keep": 1, "add": [[8, 8, 1]]}
    after = apply_delta(page, {**change, "set": {"line": "b"}})
    assert after == {"type": "state", "version": 5, "moves": [[7, 7, 0], [8, 8, 1]], "line": "b"}
    view = PageView()
    view.take(page)
    assert view.take({**change, "base": 3, "version": 6, "set": {}}) is None
    assert view.gaps == 1
    assert view.state == page
    assert view.take({**change, "base": 2, "version": 3, "set": {}}) is None  # old news
    assert view.gaps == 1


def test_a_kinds_next_version_reuses_its_fixed_fields_and_listed_moves() -> None:
    # Equal to a render from nothing at every version (the Hypothesis test above), and
    # sharing what did not change: the next version lists only its new move.
    picks = [20 * n for n in range(10)] + [16, 17 + 20 * 2, 20 * 50]  # a takeback, then a move
    states = asyncio.run(random_game(SETUPS[0], picks))
    board = WebBoard(
        GameService(InMemoryGameRepository(), CentreRunner()), Signer.from_secrets("a secret", None)
    )
    grant = Pass(states[0].game_id, CAROL, Role.WATCH, 0, "ja")
    reuse = Reuse()
    before: dict[str, Any] | None = None
    for state in states:
        payload = board.payload(state, board.kind(state, grant), reuse)
        assert payload == board.payload(state, board.kind(state, grant))
        if before is not None:
            assert payload["words"] is before["words"]
            assert payload["title"] is before["title"]
            # Moves and takebacks: the moves kept are the very objects listed before.
            assert all(a is b for a, b in zip(before["moves"], payload["moves"], strict=False))
        before = payload
