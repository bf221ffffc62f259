"""The AI on a distributed task queue: ``QueueRunner`` sends searches (and the analyses of
reviews and puzzles) to workers on any machine through arq (a well-kept asyncio task queue)
on Redis or Valkey.

It is an ``AIRunner`` like the local ``ProcessPoolRunner``; the service cannot tell them apart.
Workers are started with ``python -m bot.worker --redis URL`` (one search at a time each: run
one per core). Select it with ``GOMOKU_AI_QUEUE_URL=redis://host:6379/0``.

* Requests and results travel as JSON (never pickle: whoever can write to Redis must not be
  able to run code in the bot or the workers), encoded from their types by msgspec: every
  field of ``AIRequest``, ``AIMove``, ``AnalysisRequest`` and ``Analysis`` travels (an opening
  rule's state and its answer included), and what does not fit the type is refused.
* A worker killed mid-search: arq cannot tell, so the runner gives each search its level's
  time budget x4 + 10 s (as the local pool does) from when a worker took it, and then
  enqueues it again, once; any idle worker takes it. Time spent queued for a free worker is
  no sign of a dead one: a search waits for one up to ``QUEUE_PATIENCE_S``, and one that no
  worker took by then is taken out of the queue and answered as ``AIUnavailableError`` (no
  copy left behind for a worker to search for nobody). arq itself never re-runs it
  (``max_tries=1`` in the worker), so a search never runs twice on its own.
* A result that arrives for a position that moved on is the service's to drop (it compares
  the game's version before playing the AI's move).
* Redis unreachable: ``AIUnavailableError`` at once, and the service leaves the game as it was.
* Analyses (``analyse``, for reviews and puzzles) share the queue with the moves, first come
  first served: each is capped by its node budget (and the review's time cap), so a move
  waits behind at most one analysis per worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any, Final, Self, TypeVar

import msgspec

from bot.core.ai import (
    HANG_SLACK_S,
    REVIEW_HANG_S,
    AIError,
    AIMove,
    AIRequest,
    AIUnavailableError,
    AnalysisRequest,
    hang_limit_s,
)

if TYPE_CHECKING:
    from arq.connections import ArqRedis
    from arq.jobs import Job

    from engine.search.analysis import Analysis

__all__ = [
    "ANALYSE_FUNCTION",
    "QUEUE_NAME",
    "SEARCH_FUNCTION",
    "MessageError",
    "QueueRunner",
    "decode",
    "dumps",
    "encode",
    "loads",
    "message_types",
]

log = logging.getLogger(__name__)

QUEUE_NAME: Final = "gomoku:ai"
SEARCH_FUNCTION: Final = "search"
ANALYSE_FUNCTION: Final = "analyse"
_POLL_S: Final = 0.02  # how often the runner looks for a result (arq's default is 0.5 s)
# A search not back within its first window is a long one or a queued one: looking ten times
# a second is enough, and hundreds of them waiting at 50 looks a second each kept the bot
# busy talking to Redis (bench_load, 1,000 games on two workers).
_WINDOW_S: Final = 1.0  # also how often a queued search is asked whether it was taken
_SLOW_POLL_S: Final = 0.1
# How long a search may wait for a free worker (not taken by any) before it is withdrawn and
# the player told the AI is unavailable. Waiting is no sign of a dead worker: enqueuing it
# again would only lengthen the queue that holds it (and left in it, a worker would search it
# for nobody, while the queue is at its longest).
QUEUE_PATIENCE_S: Final = 120.0

_T = TypeVar("_T")


class MessageError(AIError):
    """What came off the queue is not the message it should be (a worker of another version,
    or someone else writing to the queue)."""


# --- the wire format (JSON, shared with bot.worker) ---------------------------------------
#
# Every message is encoded from its type (msgspec reads the dataclass's fields and their
# annotations), so a field added to a message travels without anyone writing it down here,
# and a field that cannot travel fails the round-trip test rather than being dropped.


def dumps(value: Any) -> bytes:
    """arq's job serializer (the envelope arq wraps around ``encode``'s values, and the error
    a job raised, which travels as its name and message: ``_worker_error`` reads it)."""
    return json.dumps(value, separators=(",", ":"), default=_error_of).encode()


def _error_of(value: object) -> dict[str, str]:
    # arq stores what a job raised as its result: JSON takes its name and message.
    if isinstance(value, BaseException):
        return {"error": type(value).__name__, "message": str(value)}
    raise TypeError(f"{type(value).__name__} cannot go on the queue")


def _worker_error(error: BaseException) -> str | None:
    """The name of the error a job raised on its worker, when ``error`` (raised by arq when
    the bot reads the job's result) carries one."""
    from arq.jobs import SerializationError

    if isinstance(error, SerializationError) and error.args:
        raised = error.args[0]
        name = raised.get("error") if isinstance(raised, dict) else None
        if isinstance(name, str):
            return name
    return None


def loads(data: bytes) -> Any:
    """arq's job deserializer."""
    return json.loads(data)


def message_types() -> tuple[type[Any], ...]:
    """Every type that crosses the queue: requests one way, answers the other."""
    from engine.search.analysis import Analysis

    return (AIRequest, AIMove, AnalysisRequest, Analysis)


def encode(message: AIRequest | AIMove | AnalysisRequest | Analysis) -> Any:
    """``message`` as plain JSON values (objects, arrays, strings, numbers, null), every field
    of it and of the values inside it."""
    return msgspec.to_builtins(message)


def decode(data: Any, kind: type[_T]) -> _T:
    """The inverse of ``encode``: ``data`` checked against ``kind``'s fields and rebuilt.

    Raises:
        MessageError: ``data`` is not a ``kind`` (a missing field, a wrong type, an unknown
            enum value).
    """
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as error:
        raise MessageError(f"not a {kind.__name__}: {error}") from error


# --- the bot's side -----------------------------------------------------------------------


class QueueRunner:
    """An ``AIRunner`` that enqueues searches for ``bot.worker`` processes.
    Open with ``await QueueRunner.connect(url)``; ``close()`` when done."""

    def __init__(self, redis: ArqRedis, *, hang_after_s: float | None = None) -> None:
        """Use ``connect``; this only wires an open arq pool."""
        self._redis = redis
        self._hang_after_s = hang_after_s  # None: the level's budget x4 + 10 s
        self.retries = 0  # searches enqueued again after a worker went silent
        self._closed = False

    @classmethod
    async def connect(cls, url: str, *, hang_after_s: float | None = None) -> Self:
        """Connect to the queue at ``url`` (``redis://``, ``rediss://`` or ``unix://``).

        Raises:
            AIUnavailableError: Redis cannot be reached.
        """
        from arq import create_pool
        from arq.connections import RedisSettings

        settings = RedisSettings.from_dsn(url)
        settings.conn_retries = 0  # a queue that is down is said at once, not after 5 s
        try:
            redis = await create_pool(
                settings,
                job_serializer=dumps,
                job_deserializer=loads,
                default_queue_name=QUEUE_NAME,
            )
        except (OSError, ConnectionError) as error:
            raise AIUnavailableError(f"queue unreachable: {type(error).__name__}") from error
        except Exception as error:  # redis-py's ConnectionError is no OSError
            raise AIUnavailableError(f"queue unreachable: {type(error).__name__}") from error
        return cls(redis, hang_after_s=hang_after_s)

    async def queue_depth(self) -> int:
        """Searches waiting for a worker (and being searched)."""
        return int(await self._redis.zcard(QUEUE_NAME))

    async def choose_move(self, request: AIRequest) -> AIMove:
        """Enqueue the search and wait for a worker's answer; if none comes within the
        level's budget x4 + 10 s (a worker died), enqueue it once more.

        Raises:
            AIUnavailableError: the queue cannot be reached, or no worker took the search
                within ``QUEUE_PATIENCE_S``.
            AIError: no answer twice, or the search itself failed (``MessageError``: the
                answer was no move).
        """
        limit = self._hang_after_s or hang_limit_s(request.level)
        return decode(await self._job(SEARCH_FUNCTION, encode(request), limit), AIMove)

    async def analyse(self, request: AnalysisRequest) -> Analysis:
        """Analyse a position on a worker (a review's or a puzzle's), waiting as the local
        review worker does, and enqueue it once more if no answer comes.

        Raises:
            AIUnavailableError: the queue cannot be reached, or no worker took the search
                within ``QUEUE_PATIENCE_S``.
            AIError: no answer twice, or the analysis itself failed (``MessageError``: the
                answer was no analysis).
        """
        from engine.search.analysis import Analysis

        limit = self._hang_after_s or REVIEW_HANG_S
        return decode(await self._job(ANALYSE_FUNCTION, encode(request), limit), Analysis)

    async def _job(self, function: str, payload: Any, limit: float) -> Any:
        """Enqueue ``function(payload)`` and wait ``limit`` seconds for its result, twice."""
        for attempt in (1, 2):
            if self._closed:
                raise AIError("closed")
            try:
                job = await self._redis.enqueue_job(
                    function, payload, _expires=QUEUE_PATIENCE_S + limit + HANG_SLACK_S
                )
                if job is None:  # only for a duplicate job id, which we never give
                    raise AIError("not enqueued")
                result = await _result(self._redis, job, limit)
            except TimeoutError as error:
                log.warning("no AI worker answered within %.1f s (attempt %d)", limit, attempt)
                if attempt == 2:
                    raise AIError("no worker answered") from error
                self.retries += 1
                continue
            except AIError:
                raise
            except (OSError, ConnectionError) as error:
                raise AIUnavailableError(type(error).__name__) from error
            except Exception as error:
                if _is_redis_error(error):
                    raise AIUnavailableError(type(error).__name__) from error
                log.error("AI %s failed on a worker: %r", function, error)
                raise AIError(_worker_error(error) or type(error).__name__) from error
            return result
        raise AssertionError("unreachable")

    async def close(self) -> None:
        """Disconnect; searches already queued are left to the workers (their results are
        kept briefly and then expire)."""
        self._closed = True
        await self._redis.aclose()


async def _result(redis: ArqRedis, job: Job, limit: float) -> Any:
    """``job``'s result. TimeoutError once a worker has held it ``limit`` seconds without an
    answer (killed or hung); the time it spends queued for a free worker does not count.

    Raises:
        AIUnavailableError: no worker took it within ``QUEUE_PATIENCE_S`` (it is withdrawn).
    """
    from arq.jobs import JobStatus

    clock = asyncio.get_running_loop().time
    enqueued = clock()
    taken: float | None = None  # when it was first seen out of the queue (within a window)
    poll = _POLL_S
    while True:
        try:
            return await job.result(timeout=_WINDOW_S, poll_delay=poll)
        except TimeoutError:
            pass
        poll = _SLOW_POLL_S
        now = clock()
        if taken is None:
            if await job.status() is JobStatus.queued:
                if now - enqueued < QUEUE_PATIENCE_S:
                    continue
                if await _withdraw(redis, job):
                    log.warning("no AI worker took a search in %.0f s: withdrawn", now - enqueued)
                    raise AIUnavailableError(f"no worker took the search in {now - enqueued:.0f} s")
                # A worker took it at the last moment: from now on it is a taken search.
            taken = now
        if now - taken >= limit:
            raise TimeoutError


async def _withdraw(redis: ArqRedis, job: Job) -> bool:
    """Take ``job`` out of the queue unless a worker has taken it: True if it was still there.
    Its definition goes too, so that a worker which picked it at that very moment finds it
    expired instead of searching for nobody."""
    from arq.constants import job_key_prefix

    if not await redis.zrem(QUEUE_NAME, job.job_id):
        return False
    await redis.delete(job_key_prefix + job.job_id)
    return True


def _is_redis_error(error: BaseException) -> bool:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return isinstance(error, RedisConnectionError | RedisTimeoutError)
