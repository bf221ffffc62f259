"""``python -m bot.worker``: an AI worker for the distributed queue (see ``bot.core.queue_ai``).

Runs on any machine that reaches the Redis/Valkey server at ``--redis`` (default:
``GOMOKU_AI_QUEUE_URL``) and searches one position at a time; start one per core. It searches
at nice 10 in the idle class like the local pool's workers (``bot.core.ai.lower_priority``), so a
worker beside the bot never slows commands; ``--no-idle`` keeps it in the normal class.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from typing import Any

from bot.core.ai import (
    REVIEW_HANG_S,
    WORKER_NICENESS,
    AIRequest,
    AnalysisRequest,
    hang_limit_s,
    lower_priority,
    run_analysis,
    run_search,
)
from bot.core.games import GameModuleError, load_game_modules
from bot.core.queue_ai import (
    ANALYSE_FUNCTION,
    QUEUE_NAME,
    SEARCH_FUNCTION,
    decode,
    dumps,
    encode,
    loads,
)
from bot.settings import InvalidSettingError, Settings

__all__ = ["add_idle_option", "analyse", "main", "search"]

log = logging.getLogger(__name__)


async def search(ctx: dict[str, Any], payload: Any) -> Any:
    """The job: rebuild the position, search it (in a thread, so the worker's event loop
    keeps its Redis bookkeeping going), and answer with the move (or the opening step).

    Raises:
        MessageError: ``payload`` is no ``AIRequest`` (the job fails; the bot is told).
    """
    del ctx
    request = decode(payload, AIRequest)
    return encode(await asyncio.to_thread(run_search, request))


async def analyse(ctx: dict[str, Any], payload: Any) -> Any:
    """The job of reviews and puzzles: analyse the position (in a thread, as ``search``).

    Raises:
        MessageError: ``payload`` is no ``AnalysisRequest``.
    """
    del ctx
    request = decode(payload, AnalysisRequest)
    return encode(await asyncio.to_thread(run_analysis, request))


_HEALTH_EVERY_S = 30  # how often a worker reports in (arq's health-check key)


async def _check(url: str) -> int:
    """Whether a worker on this queue reported in within the last health-check period."""
    from arq.connections import RedisSettings, create_pool
    from arq.constants import health_check_key_suffix

    try:
        redis = await create_pool(RedisSettings.from_dsn(url))
    except Exception as error:  # redis-py's connection errors are not OSError
        sys.stderr.write(f"unhealthy: {type(error).__name__}\n")
        return 1
    try:
        report = await redis.get(QUEUE_NAME + health_check_key_suffix)
    finally:
        await redis.aclose()
    if report is None:
        sys.stderr.write("unhealthy: no worker reported in\n")
        return 1
    return 0


def _job_timeout_s() -> float:
    from engine.search.levels import PRESETS

    return max(max(hang_limit_s(level) for level in PRESETS), REVIEW_HANG_S)


def add_idle_option(parser: argparse.ArgumentParser) -> None:
    """``--no-idle``: AI searches in the normal scheduling class, not the idle one."""
    parser.add_argument(
        "--no-idle",
        action="store_true",
        help="search in the normal scheduling class (default: the idle class, Linux)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, warm the engine, then serve jobs until SIGINT/SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m bot.worker", description=__doc__)
    parser.add_argument("--redis", help="redis://host:6379/0 (default: GOMOKU_AI_QUEUE_URL)")
    parser.add_argument("--nice", type=int, default=WORKER_NICENESS, help="search priority")
    add_idle_option(parser)
    parser.add_argument(
        "--check", action="store_true", help="exit 0 if some worker reported in lately (health)"
    )
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except InvalidSettingError as error:
        sys.stderr.write(f"Configuration error: {error}\n")
        return 2
    try:
        load_game_modules(settings.game_modules)  # the bot's games defined outside it, too
    except GameModuleError as error:
        sys.stderr.write(f"Configuration error: {error}\n")
        return 2
    url = args.redis or settings.ai_queue_url
    if not url:
        sys.stderr.write("python -m bot.worker needs --redis URL or GOMOKU_AI_QUEUE_URL\n")
        return 2
    logging.basicConfig(level=settings.log_level_number)
    if args.check:
        return asyncio.run(_check(url))

    from arq.connections import RedisSettings
    from arq.worker import Worker, func

    from engine.search.levels import warm_up

    warm_up()  # numba's kernels load before the first job, not during it
    # then below everything else: in the idle class first, the warm-up could wait for ever
    # on cores something else keeps busy (bot.core.ai._init_worker)
    lower_priority(args.nice, idle=not args.no_idle)
    worker = Worker(
        functions=[
            func(search, name=SEARCH_FUNCTION, max_tries=1),
            func(analyse, name=ANALYSE_FUNCTION, max_tries=1),
        ],
        redis_settings=RedisSettings.from_dsn(url),
        queue_name=QUEUE_NAME,
        max_jobs=1,  # one search per process: a search uses a whole core
        job_timeout=_job_timeout_s(),
        keep_result=60,
        poll_delay=0.02,
        job_serializer=dumps,
        job_deserializer=loads,
        handle_signals=True,
        health_check_interval=_HEALTH_EVERY_S,
    )
    worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
