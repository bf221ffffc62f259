"""In-process stand-ins for the AI pool (the ``AIRunner`` seam), for tests and benchmarks about
everything but the AI: each plays a fixed point at once. The real pool is exercised in
``tests/bot/test_ai.py`` and the process tests."""

from __future__ import annotations

import asyncio

from bot.core.ai import AIError, AIMove, AIRequest, AIRunner

__all__ = ["CentreRunner", "FailingRunner", "FlakyRunner", "NearestRunner"]


class CentreRunner:
    """The empty point nearest the centre by taxicab distance (ties: lowest row, then column);
    ``calls`` counts the searches."""

    def __init__(self) -> None:
        self.calls = 0

    async def choose_move(self, request: AIRequest) -> AIMove:
        self.calls += 1
        board = request.board()
        cx, cy = (board.width - 1) / 2, (board.height - 1) / 2
        point = min(board.legal_moves(), key=lambda p: (abs(p.x - cx) + abs(p.y - cy), p.y, p.x))
        return AIMove(point=point, score=0, depth=1, nodes=1, time_ms=0.0)

    async def close(self) -> None:
        pass


class NearestRunner:
    """The legal point nearest the centre by the ring it is on (ties: lowest row, then column);
    ``calls`` keeps the requests, and a ``gate``, once set up, holds each search until set
    (``held`` is set once a search waits at it)."""

    def __init__(self) -> None:
        self.calls: list[AIRequest] = []
        self.gate: asyncio.Event | None = None
        self.held = asyncio.Event()

    async def choose_move(self, request: AIRequest) -> AIMove:
        self.calls.append(request)
        if self.gate is not None:
            self.held.set()
            await self.gate.wait()
        board = request.board()
        cx, cy = board.width // 2, board.height // 2
        point = min(
            board.legal_moves(), key=lambda p: (max(abs(p.x - cx), abs(p.y - cy)), p.y, p.x)
        )
        return AIMove(point, score=0, depth=1, nodes=1, time_ms=0.0)

    async def close(self) -> None:
        pass


class FailingRunner:
    """Raises ``error`` on every search: by default what a worker pool that died raises."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error if error is not None else AIError("BrokenProcessPool")

    async def choose_move(self, request: AIRequest) -> AIMove:
        raise self.error

    async def close(self) -> None:
        pass


class FlakyRunner:
    """Fails its first ``failures`` searches as a worker pool that died does, then asks
    ``inner``; ``tries`` counts every search asked of it, failed or not."""

    def __init__(self, inner: AIRunner, failures: int) -> None:
        self.inner = inner
        self.failures = failures
        self.tries = 0

    async def choose_move(self, request: AIRequest) -> AIMove:
        self.tries += 1
        if self.failures > 0:
            self.failures -= 1
            raise AIError("BrokenProcessPool")
        return await self.inner.choose_move(request)

    async def close(self) -> None:
        await self.inner.close()
