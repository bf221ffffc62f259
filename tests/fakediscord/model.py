"""What the fake Discord stores: users, channels, messages, interactions and replies."""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1_420_070_400_000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
COMPONENTS_V2 = 1 << 15  # IS_COMPONENTS_V2: layout components, no content or embeds

# Permission bits the fake knows by name (Discord's documented values).
PERMISSIONS = {
    "administrator": 1 << 3,
    "manage_guild": 1 << 5,
    "add_reactions": 1 << 6,
    "view_channel": 1 << 10,
    "send_messages": 1 << 11,
    "manage_messages": 1 << 13,
    "embed_links": 1 << 14,
    "attach_files": 1 << 15,
    "read_message_history": 1 << 16,
    "mention_everyone": 1 << 17,
    "use_external_emojis": 1 << 18,
    "use_application_commands": 1 << 31,
    "manage_threads": 1 << 34,
    "create_public_threads": 1 << 35,
    "send_messages_in_threads": 1 << 38,
}
# The bot's permissions in a channel unless a test says otherwise: all a game needs, but not
# Create Public Threads, so a game started in a channel is played there (the bot's fallback)
# and a test reads its board in the channel; a test of game threads grants it
# (``FakeDiscord.allow``).
BOT_DEFAULT_PERMISSIONS = sum(
    PERMISSIONS[name]
    for name in (
        "view_channel",
        "send_messages",
        "embed_links",
        "attach_files",
        "read_message_history",
        "add_reactions",
        "use_external_emojis",
        "send_messages_in_threads",
    )
)
MEMBER_DEFAULT_PERMISSIONS = (
    BOT_DEFAULT_PERMISSIONS
    | PERMISSIONS["use_application_commands"]
    | PERMISSIONS["create_public_threads"]
)
ADMIN_PERMISSIONS = (1 << 50) - 1

_counter = itertools.count()


def snowflake() -> int:
    """A new Discord-style id whose top bits are the current time (as Discord's are)."""
    ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
    return (ms << 22) | (next(_counter) & 0x3FFFFF)


def iso_now() -> str:
    """The current time as Discord writes timestamps."""
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000+00:00", time.gmtime())


def role_payload(role_id: int, name: str, permissions: int, position: int) -> dict[str, Any]:
    """A role as the gateway sends it."""
    return {
        "id": str(role_id),
        "name": name,
        "permissions": str(permissions),
        "position": position,
        "color": 0,
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def guild_payload(
    guild_id: int,
    name: str,
    *,
    owner: FakeUser,
    roles: list[dict[str, Any]],
    channels: list[FakeChannel],
    members: list[FakeUser],
    locale: str,
    **extra: Any,
) -> dict[str, Any]:
    """A GUILD_CREATE as the gateway sends it, with ``extra`` keys (``unavailable`` for a guild
    coming back after READY, ``system_channel_id``)."""
    return {
        "id": str(guild_id),
        "name": name,
        **extra,
        "owner_id": str(owner.id),
        "member_count": len(members),
        "large": False,
        "roles": roles,
        "channels": [c.payload() for c in channels if not c.is_thread],
        "members": [m.member_payload() for m in members],
        "threads": [c.payload() for c in channels if c.is_thread],
        "emojis": [],
        "stickers": [],
        "features": [],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "joined_at": "2026-01-01T00:00:00.000000+00:00",
        "preferred_locale": locale,
    }


@dataclass(slots=True)
class FakeUser:
    """A Discord user (and guild member) known to the fake."""

    id: int
    name: str
    bot: bool = False
    permissions: int = MEMBER_DEFAULT_PERMISSIONS  # guild-level permissions as a member
    roles: list[int] = field(default_factory=list)
    locale: str = "en-US"  # the language of their Discord client (interaction.locale)

    @property
    def mention(self) -> str:
        """The mention markup for this user."""
        return f"<@{self.id}>"

    def user_payload(self) -> dict[str, Any]:
        """The user object as the API returns it."""
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }

    def member_payload(self, *, with_permissions: bool = False) -> dict[str, Any]:
        """The guild member object; interactions add the member's resolved permissions."""
        data: dict[str, Any] = {
            "user": self.user_payload(),
            "roles": [str(role) for role in self.roles],
            "joined_at": "2026-01-01T00:00:00.000000+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
        }
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(slots=True)
class FakeChannel:
    """A guild text channel (or thread) with the bot's own permissions in it."""

    id: int
    guild_id: int
    name: str
    bot_permissions: int = BOT_DEFAULT_PERMISSIONS
    type: int = 0  # 0 text, 11 public thread
    position: int = 0
    parent_id: int | None = None  # a thread's channel
    archived: bool = False  # a thread that was archived
    starter_message_id: int | None = None  # the message a thread was created from
    auto_archive_duration: int = 1440  # a thread's minutes without activity before it archives
    locked: bool = False  # a locked thread: only Manage Threads may unarchive it
    last_activity: float = 0.0  # the fake's clock (``FakeDiscord.now``) at its last message

    @property
    def is_thread(self) -> bool:
        """Whether this is a thread."""
        return self.type in (10, 11, 12)

    def payload(self) -> dict[str, Any]:
        """The channel object as the API returns it."""
        if self.is_thread:
            return {
                "id": str(self.id),
                "guild_id": str(self.guild_id),
                "parent_id": str(self.parent_id),
                "owner_id": str(self.guild_id),
                "name": self.name,
                "type": self.type,
                "message_count": 0,
                "member_count": 1,
                "rate_limit_per_user": 0,
                "thread_metadata": {
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": "2026-01-01T00:00:00.000000+00:00",
                    "locked": self.locked,
                },
            }
        return {
            "id": str(self.id),
            "guild_id": str(self.guild_id),
            "name": self.name,
            "type": self.type,
            "position": self.position,
            "permission_overwrites": [],
            "nsfw": False,
            "topic": None,
            "parent_id": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
        }


@dataclass(slots=True)
class Attachment:
    """A file the bot uploaded."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None

    def payload(self) -> dict[str, Any]:
        """The attachment object as the API returns it."""
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": f"https://cdn.invalid/attachments/{self.id}/{self.filename}",
            "proxy_url": f"https://cdn.invalid/attachments/{self.id}/{self.filename}",
            "content_type": self.content_type,
        }


@dataclass(slots=True)
class Message:
    """A message as the fake stores it; ``edits`` counts PATCHes."""

    id: int
    channel_id: int
    guild_id: int
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    allowed_mentions: dict[str, Any] | None = None
    interaction_id: int | None = None  # the interaction whose response this is
    webhook_id: int | None = None
    edits: int = 0
    deleted: bool = False
    pinged_everyone: bool = False  # whether creating it pinged @everyone/@here (edits never ping)
    pinged_roles: bool = False  # whether creating it pinged a role
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None

    @property
    def ephemeral(self) -> bool:
        """Whether only the invoking user sees it."""
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """Whether it is still a deferred "thinking..." placeholder."""
        return bool(self.flags & LOADING)

    @property
    def layout(self) -> bool:
        """Whether it is a Components V2 message (text lives in Text Display components)."""
        return bool(self.flags & COMPONENTS_V2)

    def buttons(self) -> list[dict[str, Any]]:
        """Every button of every action row, in order (rows nested in containers too)."""
        return [item for item in walk_components(self.components) if item.get("type") == 2]

    def custom_ids(self) -> list[str]:
        """The custom ids of all interactive components."""
        return [
            item["custom_id"] for item in walk_components(self.components) if "custom_id" in item
        ]

    def button_rows(self) -> list[list[dict[str, Any]]]:
        """The buttons row by row (the tap panel's grid, top row first)."""
        return [
            [item for item in row["components"] if item.get("type") == 2]
            for row in walk_components(self.components)
            if row.get("type") == 1
        ]

    def text(self) -> str:
        """Content plus every embed's title, description, fields and footer, for assertions."""
        parts = [self.content]
        parts.extend(
            item.get("content", "")
            for item in walk_components(self.components)
            if item.get("type") == 10
        )
        for embed in self.embeds:
            parts.append(embed.get("title", ""))
            parts.append(embed.get("description", ""))
            for item in embed.get("fields", []):
                parts.append(item.get("name", ""))
                parts.append(item.get("value", ""))
            parts.append(embed.get("footer", {}).get("text", ""))
        return "\n".join(part for part in parts if part)

    def pings_everyone(self) -> bool:
        """Whether Discord would ping @everyone/@here for this message."""
        if "@everyone" not in self.content and "@here" not in self.content:
            return False
        return _parses(self.allowed_mentions, "everyone")

    def pings_roles(self) -> bool:
        """Whether Discord would ping a role mentioned in the content."""
        if "<@&" not in self.content:
            return False
        if self.allowed_mentions is not None and self.allowed_mentions.get("roles"):
            return True
        return _parses(self.allowed_mentions, "roles")

    def payload(self, application_id: int) -> dict[str, Any]:
        """The message object as the API returns it."""
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "guild_id": str(self.guild_id),
            "author": self.author.user_payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": 20 if self.interaction_id else 0,
            "flags": self.flags,
        }
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(application_id)
        return data


def walk_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every component, depth first: rows, what they hold, and what containers hold."""
    found: list[dict[str, Any]] = []
    for item in components:
        found.append(item)
        found.extend(walk_components(item.get("components") or []))
    return found


def _parses(allowed: dict[str, Any] | None, kind: str) -> bool:
    # Without allowed_mentions Discord parses every kind of mention in the content.
    if allowed is None:
        return True
    return kind in allowed.get("parse", [])


@dataclass(slots=True)
class RecordedRequest:
    """One HTTP request the bot made."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    status: int = 200
    token: str | None = None  # the Authorization header's token: which bot process sent it


@dataclass(slots=True)
class InteractionRecord:
    """An interaction the fake sent to the bot, and everything the bot answered to it."""

    id: int
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete
    user: FakeUser
    channel: FakeChannel
    payload: dict[str, Any]
    sent_at: float
    source_message: Message | None = None  # the message a clicked component sits on
    callback_type: int | None = None  # how the bot first acknowledged it
    callback_at: float | None = None
    original: Message | None = None  # the response message (@original)
    followups: list[Message] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None  # autocomplete results
    modal: dict[str, Any] | None = None
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    acknowledged: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def deferred(self) -> bool:
        """Whether the bot acknowledged with a deferral (type 5 or 6)."""
        return self.callback_type in (5, 6)

    @property
    def latency(self) -> float | None:
        """Seconds from sending the event to the bot's first acknowledgement."""
        return None if self.callback_at is None else self.callback_at - self.sent_at


@dataclass(slots=True)
class Reply:
    """What the bot answered to one interaction: the final visible message (or choices)."""

    interaction: InteractionRecord
    message: Message | None  # None for autocomplete, modal or a silent deferred update
    choices: list[dict[str, Any]] | None = None

    @property
    def ephemeral(self) -> bool:
        """Whether only the invoking user saw the answer."""
        return self.message is not None and self.message.ephemeral

    @property
    def content(self) -> str:
        """The message content ('' when none)."""
        return "" if self.message is None else self.message.content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        """The message embeds."""
        return [] if self.message is None else self.message.embeds

    @property
    def components(self) -> list[dict[str, Any]]:
        """The message's action rows."""
        return [] if self.message is None else self.message.components

    @property
    def attachments(self) -> list[Attachment]:
        """Files attached to the message."""
        return [] if self.message is None else self.message.attachments

    @property
    def deferred(self) -> bool:
        """Whether the bot deferred first."""
        return self.interaction.deferred

    def text(self) -> str:
        """Content and embed text together."""
        return "" if self.message is None else self.message.text()

    def custom_ids(self) -> list[str]:
        """Custom ids of the components on the answer."""
        return [] if self.message is None else self.message.custom_ids()
