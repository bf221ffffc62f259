"""Waiting, in tests, for what the bot does in its own time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

_T = TypeVar("_T")


async def until(read: Callable[[], Awaitable[_T]], done: Callable[[_T], object]) -> _T:
    """Call ``read`` every 20 ms until ``done`` holds for what it answered, and return that.
    Callers bound the wait with ``asyncio.timeout``."""
    while True:
        value = await read()
        if done(value):
            return value
        await asyncio.sleep(0.02)
