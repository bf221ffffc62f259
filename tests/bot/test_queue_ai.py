"""The AI on the task queue: a real Redis server, real ``python -m bot.worker`` processes.

Workers take a few seconds to start (numba loads its kernels), so the tests share them where
they can and keep to the cases the queue adds: a search there and back, a worker killed
mid-search, a result for a game that moved on, and a queue that is down.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from bot.core import queue_ai
from bot.core.ai import AIError, AIRequest, AIUnavailableError, AnalysisRequest
from bot.core.queue_ai import (
    QUEUE_NAME,
    SEARCH_FUNCTION,
    MessageError,
    QueueRunner,
    decode,
    dumps,
    encode,
    loads,
)
from bot.core.review import Analyser
from bot.core.service import GameService
from bot.core.service.errors import AIFailedError
from bot.core.service.inputs import Drop, GameRef
from bot.core.service.states import GameState, MoveResult
from bot.text.refusals import user_message
from engine.board import Board
from engine.types import Game, Level, Point, Rule
from storage.memory import InMemoryGameRepository
from tests.bot import four6
from tests.processes import python_m, running
from tests.redis_server import RedisServer

CHANNEL, GUILD, ALICE = 10, 500, 1001


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    yield from running(RedisServer())


class Workers:
    """``python -m bot.worker`` processes against one server; all killed at the end."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        # --no-idle: in the idle class a worker gets no core while anything else runs (the
        # rest of the suite, in parallel), and its searches would outlast the hang limits
        # these tests set; the queue's behaviour is what they test, not the scheduling.
        process = subprocess.Popen(
            [sys.executable, "-m", "bot.worker", "--redis", self.url, "--nice", "0", "--no-idle"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()


@pytest.fixture
def workers(redis_server: RedisServer) -> Iterator[Workers]:
    started = Workers(redis_server.url)
    try:
        yield started
    finally:
        started.stop()


async def until(condition, within: float = 60.0) -> None:
    deadline = time.monotonic() + within
    while not await condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


def check(url: str) -> int:
    return python_m("bot.worker", "--check", "--redis", url).returncode


def request_for(moves: str, level: Level, seed: int = 7) -> AIRequest:
    board = Board.for_game(Game.GOMOKU, size=15, rule=Rule.FREESTYLE)
    for text in moves.split():
        board.play(Point.parse(text))
    return AIRequest.from_board(board, level, seed)


# Black's open three f8 g8 h8 (the puzzle tests' THREE): a proven win with a line
THREE = AnalysisRequest(
    15, Rule.FREESTYLE, ((5, 7), (0, 0), (6, 7), (0, 2), (7, 7), (14, 14)), 60_000
)


def test_real_analyses_travel_as_json() -> None:
    # tests/bot/test_messages.py round-trips every field of every message type; these are
    # what the engine really answers (proven wins, MultiPV lines, an open position).
    from engine.search.analysis import Analysis, analyse

    for result in (
        analyse(THREE.board(), nodes=THREE.nodes),
        analyse(THREE.board(), nodes=2_000, multipv=3),
        analyse(AnalysisRequest(15, Rule.FREESTYLE, ((7, 7),), 2_000).board(), nodes=2_000),
    ):
        assert decode(loads(dumps(encode(result))), Analysis) == result


@pytest.mark.slow
async def test_a_search_goes_to_a_worker_and_back_and_a_killed_worker_is_replaced(
    workers: Workers, redis: aioredis.Redis
) -> None:
    first = workers.start()
    runner = await QueueRunner.connect(workers.url, hang_after_s=12)
    try:
        # There and back: a legal move for the position.
        request = request_for("h8 i9 h9", Level.EASY)
        move = await runner.choose_move(request)
        assert move.point not in {Point.parse(p) for p in ("h8", "i9", "h9")}
        assert move.nodes > 0
        assert runner.retries == 0
        assert check(workers.url) == 0  # the container health check: a worker reported in

        # An analysis there and back (reviews and puzzles on the queue): the same answer as
        # in this process, the budget being nodes only.
        from engine.search.analysis import analyse

        assert isinstance(runner, Analyser)
        analysed = await runner.analyse(THREE)
        assert analysed == analyse(THREE.board(), nodes=THREE.nodes)
        assert analysed.won

        # Killed mid-search: the master searches for seconds; kill its worker once it has
        # taken the job, and a second worker answers instead.
        searching = asyncio.create_task(runner.choose_move(request_for("h8 i9", Level.MASTER)))

        async def taken() -> bool:
            return bool(await redis.keys("arq:in-progress:*"))

        await until(taken)
        second = workers.start()
        first.send_signal(signal.SIGKILL)
        first.wait()
        move = await searching
        assert move.point not in {Point.parse("h8"), Point.parse("i9")}
        assert runner.retries == 1
        assert second.poll() is None

        # Queued behind the busy worker is not hung: a search that waits for a free worker
        # longer than its own hang limit is not enqueued again (that would only lengthen the
        # queue that holds it).
        patient = await QueueRunner.connect(workers.url, hang_after_s=1.0)
        try:
            held = len(await redis.keys("arq:in-progress:*"))  # the killed worker's stays
            busy = asyncio.create_task(
                runner.choose_move(request_for("h8 i9 h10 i10", Level.MASTER))
            )

            async def busy_taken() -> bool:
                return len(await redis.keys("arq:in-progress:*")) > held

            await until(busy_taken)
            queued_at = time.monotonic()
            move = await patient.choose_move(request_for("h8 i9 h9", Level.EASY))
            assert time.monotonic() - queued_at > 1.0  # it did wait past its limit
            assert patient.retries == 0
            await busy
        finally:
            await patient.close()
    finally:
        await runner.close()


@pytest.mark.slow
async def test_an_ai_seat_in_an_opening_rule_answers_the_step_through_the_queue(
    workers: Workers,
) -> None:
    """The AI's opening answer (a choice of colour, not a stone) comes from a real worker:
    the opening's state travels in the request and the step in the answer. A plain stone
    search in its place would answer a point, which the opening refuses."""
    workers.start()
    runner = await QueueRunner.connect(workers.url, hang_after_s=60)
    service = GameService(InMemoryGameRepository(), runner, rng=random.Random(1))
    try:
        for channel, opening, rule, stones in (
            (CHANNEL, "swap2", Rule.FREESTYLE, ("h8", "i9", "j7")),
            (CHANNEL + 1, "soosorv8", Rule.RENJU, ("h8", "i9", "j10")),
        ):
            view = await service.start(
                channel_id=channel,
                guild_id=GUILD,
                user_id=ALICE,
                colour="black",  # Alice places the first three; the AI answers them
                opening=opening,
                rule=rule,
                level="beginner",
            )
            assert view.in_opening
            for cell in stones:
                placed = await service.place(channel, ALICE, Point.parse(cell))
            assert placed.ai_due
            answer = await service.ai_reply(view.game_id)
            assert answer is not None
            assert answer.game.opening is not None
            steps = answer.game.opening.log
            assert steps[:3] == stones
            assert steps[3] in {"black", "white", "two"}, (opening, steps)
        assert runner.retries == 0
    finally:
        await runner.close()


@pytest.mark.slow
async def test_a_worker_plays_a_game_defined_outside_the_bot_once_its_module_is_named(
    workers: Workers,
) -> None:
    """The tests' four-in-a-row game on 6x6 (``tests.bot.four6``), played against the AI
    through the queue: a worker is a fresh process that knows the game only from the module
    ``GOMOKU_GAME_MODULES`` names. One without it says it cannot read the request; one with
    it answers, each reply a disc resting on its column."""
    bare = workers.start()
    runner = await QueueRunner.connect(workers.url, hang_after_s=60)
    service = GameService(InMemoryGameRepository(), runner, rng=random.Random(1))
    try:
        with four6.registered() as game:
            view = await service.start(
                channel_id=CHANNEL,
                guild_id=GUILD,
                user_id=ALICE,
                game=game,
                colour="black",
                level="easy",
            )
            ref = GameRef(view.game_id)
            assert (await service.act(ref, ALICE, Drop(2), via="test")).ai_due
            with pytest.raises(AIFailedError) as caught:
                await service.ai_reply(view.game_id)
            assert isinstance(caught.value.__cause__, AIError)
            assert caught.value.__cause__.detail == "MessageError"  # the worker's own words
            bare.kill()
            bare.wait()

            workers.start(env={**os.environ, "GOMOKU_GAME_MODULES": "tests.bot.four6_game"})
            assert await service.ai_reply(view.game_id) is not None
            assert (await service.act(ref, ALICE, Drop(3), via="test")).ai_due
            assert await service.ai_reply(view.game_id) is not None
            after = await service.game(view.game_id)
            stones = after.board.moves
            assert len(stones) == 4
            assert [m.point.x for m in stones[::2]] == [2, 3]  # Alice's columns
            heights = [0] * 6
            for move in stones:  # each disc rests on its column's last
                assert move.point.y == heights[move.point.x]
                heights[move.point.x] += 1
            assert after.board.width == 6
    finally:
        await runner.close()


async def test_a_queue_that_is_down_is_a_clear_answer_and_the_game_is_unchanged(
    redis_server: RedisServer,
) -> None:
    with pytest.raises(AIUnavailableError):
        await QueueRunner.connect(f"unix://{redis_server.root}/nothing-here.sock")

    runner = await QueueRunner.connect(redis_server.url, hang_after_s=5)
    repo = InMemoryGameRepository()
    service = GameService(repo, runner, rng=random.Random(1))
    try:
        view = await service.start(
            channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white"
        )
        redis_server.stop()  # the queue goes down while a game waits for the AI
        with pytest.raises(AIFailedError) as caught:
            await service.ai_reply(view.game_id)
        message = user_message(caught.value)
        assert message is not None
        assert "can't be reached" in message
        after = await service.board(CHANNEL)
        assert after.version == view.version
        assert after.board.moves == ()
        assert after.is_ai_turn
    finally:
        await runner.close()


async def ai_thinking_in_queue(
    service: GameService, redis: aioredis.Redis
) -> tuple[GameState, asyncio.Task[MoveResult | None]]:
    """Alice starts a game as White: the AI's first search is enqueued and waits there."""
    view = await service.start(channel_id=CHANNEL, guild_id=GUILD, user_id=ALICE, colour="white")
    thinking = asyncio.create_task(service.ai_reply(view.game_id))

    async def queued() -> bool:
        return bool(await redis.zcard(QUEUE_NAME))

    await until(queued)
    return view, thinking


async def test_an_answer_that_is_no_move_fails_the_ai_and_leaves_the_game_as_it_was(
    redis_server: RedisServer, redis: aioredis.Redis
) -> None:
    """Whoever can write to Redis can answer a search; an answer that is not a move is
    refused by its type (no traceback reaches the player, no stone is played)."""
    from arq.constants import result_key_prefix
    from arq.jobs import serialize_result

    runner = await QueueRunner.connect(redis_server.url, hang_after_s=30)
    service = GameService(InMemoryGameRepository(), runner, rng=random.Random(1))
    try:
        view, thinking = await ai_thinking_in_queue(service, redis)
        (job_id,) = [key.decode() for key in await redis.zrange(QUEUE_NAME, 0, -1)]
        await redis.zrem(QUEUE_NAME, job_id)  # taken, as a worker takes it
        garbled = {"point": "h8", "score": "high"}
        result = serialize_result(
            SEARCH_FUNCTION, (), {}, 1, 0, True, garbled, 0, 0, job_id, QUEUE_NAME, job_id,
            serializer=dumps,
        )  # fmt: skip
        assert result is not None
        await redis.set(result_key_prefix + job_id, result)
        with pytest.raises(AIFailedError) as caught:
            await thinking
        assert isinstance(caught.value.__cause__, MessageError)
        assert user_message(caught.value) is not None
        after = await service.board(CHANNEL)
        assert (after.version, after.board.moves) == (view.version, ())
    finally:
        await runner.close()


async def test_a_search_no_worker_takes_in_time_is_withdrawn_not_enqueued_again(
    redis_server: RedisServer, redis: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No worker at all: the search waits out its patience in the queue. Enqueued again it
    # would wait as long once more, and the copy left behind would be searched for nobody.
    monkeypatch.setattr(queue_ai, "QUEUE_PATIENCE_S", 1.5)
    runner = await QueueRunner.connect(redis_server.url, hang_after_s=1.0)
    try:
        with pytest.raises(AIUnavailableError):
            await runner.choose_move(request_for("h8 i9 h9", Level.EASY))
        assert runner.retries == 0
        assert await redis.zcard(QUEUE_NAME) == 0
        assert await redis.keys("arq:job:*") == []
    finally:
        await runner.close()


async def test_a_result_for_a_game_that_moved_on_is_dropped(
    workers: Workers, redis: aioredis.Redis
) -> None:
    """No worker yet: the search waits in the queue while the player resigns; then a worker
    answers, and the service drops the move."""
    runner = await QueueRunner.connect(workers.url, hang_after_s=60)
    service = GameService(InMemoryGameRepository(), runner, rng=random.Random(1))
    try:
        _view, thinking = await ai_thinking_in_queue(service, redis)
        assert check(workers.url) == 1  # no worker has reported in: unhealthy
        end = await service.resign(CHANNEL, ALICE)
        workers.start()
        assert await thinking is None
        assert end.game.board.moves == ()  # the AI's late move was not played
        assert (await runner.queue_depth()) == 0
    finally:
        await runner.close()


def test_python_m_bot_worker_without_a_queue_says_so() -> None:
    env = {k: v for k, v in os.environ.items() if k != "GOMOKU_AI_QUEUE_URL"}
    result = python_m("bot.worker", env=env, cwd="/")
    assert result.returncode == 2
    assert "GOMOKU_AI_QUEUE_URL" in result.stderr
