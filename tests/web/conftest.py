"""Fixtures for the web board: the real bot on the fake Discord with its web board on, and a
real browser (Debian's chromium driven by Playwright; no browser is downloaded).

A test that needs the browser is skipped, with the reason, where chromium is missing; `make
test` installs it first (``apt-get install chromium``).
"""

from __future__ import annotations

import random
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.app import create_bot
from bot.client import GomokuBot
from bot.cooldown import UserCooldown
from bot.settings import Settings
from bot.web.tokens import Signer
from tests.bot.conftest import alice, bob, clock, db_path, fake
from tests.clock import FakeClock
from tests.fakediscord import FakeDiscord
from tests.runners import CentreRunner

__all__ = ["CHROMIUM", "SECRET", "WAIT_MS", "alice", "bob", "clock", "db_path", "fake"]

SECRET = "a test secret for board passes"
# How long a page is waited for before the test fails: a guard against a hang, not a speed
# check (a browser, the bot and the other test workers share two cores on CI).
WAIT_MS = 30_000
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
_HAS_CHROMIUM = Path(CHROMIUM).exists()
_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def signer() -> Signer:
    """The signer the bot under test uses."""
    return Signer.from_secrets(SECRET, None)


@pytest.fixture
async def web_bot(fake: FakeDiscord, db_path: Path, clock: FakeClock) -> AsyncIterator[GomokuBot]:
    """A connected bot whose web board listens on a free port of 127.0.0.1, with the
    Activity's OAuth2 against the fake."""
    settings = Settings(
        db_path=db_path,
        web_port=0,
        web_url="http://127.0.0.1",
        web_secret=SECRET,
        client_secret=fake.client_secret,
    )
    options: dict[str, Any] = {
        "ai": CentreRunner(),
        "clock": clock,
        "rng": random.Random(7),
        "cooldown": UserCooldown(rate=1000, per=1.0),
        "guild_ready_timeout": 0.01,
        "deadline_poll": 0.05,
    }
    bot = create_bot(settings, **options)
    async with fake.running(bot):
        yield bot


def base_url(bot: GomokuBot) -> str:
    """Where the bot's web board listens."""
    assert bot.web_board is not None
    return f"http://127.0.0.1:{bot.web_board.port}"


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    """Chromium, headless."""
    if not _HAS_CHROMIUM:
        pytest.skip("chromium is not installed (make test installs it)")
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=_ARGS)
        try:
            yield browser
        finally:
            await browser.close()
