"""A local fake Discord (REST + gateway on 127.0.0.1) for driving the real discord.py client."""

from tests.fakediscord.model import (
    Attachment,
    FakeChannel,
    FakeUser,
    InteractionRecord,
    Message,
    RecordedRequest,
    Reply,
)
from tests.fakediscord.server import FakeDiscord, FakeDiscordError, Outage

__all__ = [
    "Attachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeUser",
    "InteractionRecord",
    "Message",
    "Outage",
    "RecordedRequest",
    "Reply",
]
