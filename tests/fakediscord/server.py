"""A local fake of Discord's REST API and gateway for driving the real discord.py client.

The fake listens on 127.0.0.1 (an ephemeral port). ``async with FakeDiscord() as fake`` starts it
and points ``discord.http.Route.BASE`` and ``DiscordWebSocket.DEFAULT_GATEWAY`` at it; leaving the
block restores them. A test then starts an unmodified ``commands.Bot`` with any token, and sends
interactions the way Discord would::

    reply = await fake.slash("gomoku start", user=alice, options={"level": "beginner"})
    assert reply.ephemeral and "not your turn" in reply.content
    reply = await fake.click(reply.message, "gomoku:12:resign", user=alice)

What it checks like Discord does: the 3 s deadline for the first response (10062), answering an
interaction twice (40060), message, embed and component limits (50035; Components V2 layout
messages too: no content or embeds, at most 40 components, rows of 1-5), the bot's own channel
permissions (50013, and 50001 where it may not see the channel) and at most 25 autocomplete
choices. What a test can inject: 429s with the headers discord.py needs (``rate_limit``), and
any permission set for the bot per channel.

Discord's own faults, each answered with Discord's status and JSON error body:

- ``outage``: 5xx on chosen routes for a window (503 by default, which discord.py does not
  retry by itself; 500/502/504 it retries with its own sleeps).
- ``drop_gateway``: the gateway closes the connection; the bot RESUMEs (or, with
  ``invalidate=True``, is answered INVALID_SESSION and IDENTIFYs afresh).
- ``pass_time``: the fake's clock (``now``, not the wall clock) moves on and threads quiet for
  their ``auto_archive_duration`` archive (THREAD_UPDATE). Editing or deleting a message in an
  archived thread is refused (400, 50083); a message posted there unarchives it unless it is
  locked (``lock_thread``). Discord's clients offer no commands in an archived thread: a slash
  command sent there is the test's mistake (``FakeDiscordError``) until a member's message
  (``member_posts``), a message of the bot's or an interaction's public answer unarchives it.
- ``delete_channel``: CHANNEL_DELETE / THREAD_DELETE, and 404 10003 (Unknown Channel) after.
- ``deny``: permissions taken (403 50013; without View Channel 403 50001 Missing Access).
- ``remove_bot``: GUILD_DELETE, and every request for the guild's channels 403 50001 after.
- ``remove_member``: the member unknown (10007) after; GUILD_MEMBER_REMOVE only to a session
  that identified with the privileged Server Members intent, as Discord sends it.
- ``expire``: an interaction's token past its 15 minutes (401 50027 on its webhook).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, TypedDict, Unpack

import discord
import yarl
from aiohttp import BodyPartReader, web
from discord.ext import commands

from tests.fakediscord.model import (
    ADMIN_PERMISSIONS,
    COMPONENTS_V2,
    EPHEMERAL,
    LOADING,
    PERMISSIONS,
    Attachment,
    FakeChannel,
    FakeUser,
    InteractionRecord,
    Message,
    RecordedRequest,
    Reply,
    guild_payload,
    role_payload,
    snowflake,
    walk_components,
)

__all__ = ["FakeDiscord", "FakeDiscordError", "Outage"]

THREAD_DURATIONS: Final = (60, 1440, 4320, 10080)  # auto_archive_duration's allowed minutes
_APPLICATION_COMMAND: Final = 2  # interaction types a client sends only where it offers commands
_AUTOCOMPLETE: Final = 4
_GUILD_MEMBERS_INTENT: Final = 1 << 1  # privileged: GUILD_MEMBER_ADD, _UPDATE and _REMOVE
_STATUS_TEXT: Final = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
                       504: "Gateway Timeout"}  # fmt: skip

Handler = Callable[["_Call"], Awaitable[web.StreamResponse]]

OPTION_STRING, OPTION_INTEGER, OPTION_BOOLEAN, OPTION_USER = 3, 4, 5, 6
OPTION_CHANNEL, OPTION_ROLE, OPTION_NUMBER = 7, 8, 10
SUBCOMMAND, SUBCOMMAND_GROUP = 1, 2


class SlashOptions(TypedDict, total=False):
    """Who sends a slash command, where, with which options (``FakeDiscord.send_slash``)."""

    user: FakeUser | None
    channel: FakeChannel | None
    options: dict[str, Any] | None


class FakeDiscordError(AssertionError):
    """The test asked the fake for something real Discord would not send, or the bot was silent."""


class _RefusedError(Exception):
    """Discord's error answer to a request, raised where a handler finds it and sent by the
    router."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.response = _error(status, code, message)


@dataclass(slots=True)
class _Call:
    request: web.Request
    match: re.Match[str]
    body: Any  # the JSON body (or payload_json of a multipart body)
    files: list[tuple[str, bytes, str | None]]


@dataclass(slots=True)
class Outage:
    """A window in which matching REST requests fail with a 5xx (``FakeDiscord.outage``)."""

    method: str | None  # None: every method
    pattern: re.Pattern[str]
    status: int
    refused: int = 0  # requests answered with the fault so far
    active: bool = True

    def end(self) -> None:
        """Discord answers again."""
        self.active = False

    def matches(self, method: str, path: str) -> bool:
        """Whether a request falls in this outage now."""
        return (
            self.active
            and (self.method is None or self.method == method)
            and self.pattern.search(path) is not None
        )


@dataclass(slots=True)
class _RateLimit:
    method: str
    pattern: re.Pattern[str]
    remaining: int
    retry_after: float
    scope: str


class _Session:
    """One gateway connection (a RESUME carries its session id and sequence on to the next)."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.seq = 0
        self.session_id = secrets.token_hex(8)
        self.ready = False
        self.shard = (0, 1)  # (shard id, shard count) from IDENTIFY
        self.intents = 0  # the gateway intents from IDENTIFY (kept by a RESUME)

    async def dispatch(self, event: str, data: Any) -> None:
        self.seq += 1
        await self.ws.send_str(json.dumps({"op": 0, "t": event, "s": self.seq, "d": data}))


# Routes served by more than one method.
_COMMANDS: Final = r"/applications/\d+/commands"
_GUILD_COMMANDS: Final = r"/applications/\d+/guilds/(?P<guild>\d+)/commands"
_WEBHOOK_MESSAGE: Final = r"/webhooks/\d+/(?P<token>[^/]+)/messages/(?P<id>@original|\d+)"
_CHANNEL: Final = r"/channels/(?P<channel>\d+)"
_MESSAGES: Final = r"/channels/(?P<channel>\d+)/messages"
_MESSAGE: Final = r"/channels/(?P<channel>\d+)/messages/(?P<id>\d+)"


class FakeDiscord:
    """A fake Discord server holding one guild, its channels, users and messages."""

    def __init__(self, *, interaction_deadline: float = 3.0, guild_id: int | None = None) -> None:
        """``guild_id``: the guild's (to put it on a chosen shard); a new snowflake if None."""
        self.interaction_deadline = interaction_deadline  # Discord's 3 s for the first response
        # How long helpers wait for the bot before failing the test: a guard against a hang,
        # not a speed check (CI runs four test workers, browsers and bot processes on two cores).
        self.answer_timeout = 30.0
        self.application_id = snowflake()
        self.bot_user = FakeUser(snowflake(), "Gomoku", bot=True)
        self.guild_id = snowflake()
        self.guild_locale = "en-US"  # the server's language (guild_locale, preferred_locale)
        self.owner = FakeUser(snowflake(), "owner", permissions=ADMIN_PERMISSIONS)
        self.users: dict[int, FakeUser] = {self.owner.id: self.owner}
        self.channels: dict[int, FakeChannel] = {}
        self.roles: dict[int, str] = {}  # role id -> name, besides @everyone
        self.messages: dict[int, Message] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self.refused_tokens: set[str] = set()  # bot tokens answered 401, as a revoked one is
        self.requests: list[RecordedRequest] = []
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self._command_ids: dict[tuple[str, int | None], int] = {}
        self._rate_limits: list[_RateLimit] = []
        self._outages: list[Outage] = []
        self.now = time.time()  # the fake's clock in seconds: threads archive by it
        self.bot_removed = False  # GUILD_DELETE was sent: the guild's channels refuse the bot
        self.identifies = 0  # IDENTIFY payloads received (a fresh session each)
        self.resumes = 0  # RESUMEs accepted
        self._invalidate_next_resume = False
        self._resumable: dict[str, tuple[int, int]] = {}  # session id -> its shard
        self._resumed_intents: dict[str, int] = {}  # session id -> its intents
        self._expired_tokens: set[str] = set()  # interaction tokens past their 15 minutes
        self._holds: list[tuple[str, re.Pattern[str], asyncio.Event]] = []
        self._sessions: list[_Session] = []
        # wait_for's predicates, each with the future its caller awaits
        self._waiters: dict[int, tuple[Callable[[], bool], asyncio.Future[None]]] = {}
        self._runner: web.AppRunner | None = None
        self._saved: tuple[str, yarl.URL] | None = None
        self.port = 0
        # OAuth2 and Activities: client secret, codes and access tokens by user, instances
        self.client_secret = secrets.token_urlsafe(16)
        self._oauth_codes: dict[str, int] = {}
        self._access_tokens: dict[str, int] = {}
        self.activity_instances: dict[str, tuple[int, set[int]]] = {}  # id -> channel, users
        self.launched: list[int] = []  # interactions answered by launching the Activity
        if guild_id is not None:
            self.guild_id = guild_id  # before the first channel takes the guild's id
        self.default_channel = self.add_channel("general")
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = [
            (method, re.compile(pattern), handler)
            for method, pattern, handler in [
                ("GET", r"/users/@me", self._get_me),
                ("POST", r"/oauth2/token", self._oauth_token),
                ("GET", r"/applications/\d+/activity-instances/(?P<instance>[^/]+)",
                 self._get_activity_instance),
                ("GET", r"/users/(?P<user>\d+)", self._get_user),
                ("GET", r"/oauth2/applications/@me", self._get_application),
                ("GET", r"/gateway(/bot)?", self._get_gateway),
                ("PUT", _COMMANDS, self._put_commands),
                ("GET", _COMMANDS, self._get_commands),
                ("PUT", _GUILD_COMMANDS, self._put_commands),
                ("GET", _GUILD_COMMANDS, self._get_commands),
                ("POST", r"/interactions/(?P<id>\d+)/(?P<token>[^/]+)/callback", self._callback),
                ("POST", r"/webhooks/\d+/(?P<token>[^/]+)", self._post_followup),
                ("GET", _WEBHOOK_MESSAGE, self._get_webhook_message),
                ("PATCH", _WEBHOOK_MESSAGE, self._patch_webhook_message),
                ("DELETE", _WEBHOOK_MESSAGE, self._delete_webhook_message),
                ("GET", _CHANNEL, self._get_channel),
                ("PATCH", _CHANNEL, self._patch_channel),
                ("POST", r"/channels/(?P<channel>\d+)/messages/(?P<id>\d+)/threads",
                 self._create_thread),
                ("GET", _MESSAGES, self._list_messages),
                ("POST", _MESSAGES, self._post_message),
                ("GET", _MESSAGE, self._get_message),
                ("PATCH", _MESSAGE, self._patch_message),
                ("DELETE", _MESSAGE, self._delete_message),
                ("GET", r"/guilds/(?P<guild>\d+)/members/(?P<user>\d+)", self._get_member),
            ]
        ]  # fmt: skip

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Listen on 127.0.0.1 and point discord.py at this fake."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway-ws", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])  # the port the system chose
        self._saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        discord.http.Route.BASE = self.api_url
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)

    async def close(self) -> None:
        """Drop every connection, stop listening and restore discord.py's URLs."""
        for session in list(self._sessions):
            await session.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._saved is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved
            self._saved = None

    @property
    def api_url(self) -> str:
        """The REST base URL (what ``Route.BASE`` becomes)."""
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The gateway websocket URL."""
        return f"ws://127.0.0.1:{self.port}/gateway-ws"

    @contextlib.asynccontextmanager
    async def running(self, bot: commands.Bot, *, sync: bool = False) -> AsyncIterator[None]:
        """Run ``bot`` against the fake until the block ends; ``sync`` registers its commands."""
        task = asyncio.create_task(bot.start("fake-token"))
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            ready.cancel()
            task.result()
            raise FakeDiscordError("the bot stopped before it was ready")
        if sync:
            await bot.tree.sync()
        try:
            yield
        finally:
            await bot.close()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # ------------------------------------------------------------------ world setup

    def add_user(self, name: str, *, admin: bool = False, bot: bool = False) -> FakeUser:
        """A new guild member."""
        user = FakeUser(snowflake(), name, bot=bot)
        if admin:
            user.permissions = ADMIN_PERMISSIONS
        self.users[user.id] = user
        return user

    def add_role(self, name: str) -> int:
        """A new role (no permissions of its own); give it to a user via ``user.roles``."""
        role_id = snowflake()
        self.roles[role_id] = name
        return role_id

    def add_channel(self, name: str, *, bot_permissions: int | None = None) -> FakeChannel:
        """A new text channel; ``bot_permissions`` defaults to ``BOT_DEFAULT_PERMISSIONS``."""
        channel = FakeChannel(snowflake(), self.guild_id, name, position=len(self.channels))
        if bot_permissions is not None:
            channel.bot_permissions = bot_permissions
        self.channels[channel.id] = channel
        return channel

    def add_thread(self, name: str, parent: FakeChannel | None = None) -> FakeChannel:
        """A new public thread in ``parent`` (the bot inherits the parent's permissions)."""
        parent = parent or self.default_channel
        thread = FakeChannel(
            snowflake(), self.guild_id, name, parent.bot_permissions, type=11, parent_id=parent.id
        )
        thread.last_activity = self.now
        self.channels[thread.id] = thread
        return thread

    async def create_channel(self, name: str, *, bot_permissions: int | None = None) -> FakeChannel:
        """A new text channel while bots are connected: they hear CHANNEL_CREATE."""
        channel = self.add_channel(name, bot_permissions=bot_permissions)
        await self.dispatch("CHANNEL_CREATE", channel.payload())
        return channel

    def deny(self, channel: FakeChannel, *names: str) -> None:
        """Take permissions (``"send_messages"``...) from the bot in ``channel``."""
        for name in names:
            channel.bot_permissions &= ~PERMISSIONS[name]

    def allow(self, channel: FakeChannel, *names: str) -> None:
        """Give the bot permissions (``"create_public_threads"``...) in ``channel``."""
        for name in names:
            channel.bot_permissions |= PERMISSIONS[name]

    def rate_limit(
        self,
        method: str,
        path_pattern: str,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        scope: str = "user",
    ) -> None:
        """Answer the next ``times`` matching requests with 429 and Discord's headers."""
        self._rate_limits.append(
            _RateLimit(method.upper(), re.compile(path_pattern), times, retry_after, scope)
        )

    def hold(self, method: str, path_pattern: str) -> asyncio.Event:
        """Keep matching requests waiting (recorded, not yet answered) until the returned
        event is set: a slow Discord, for as long as a test needs."""
        release = asyncio.Event()
        self._holds.append((method.upper(), re.compile(path_pattern), release))
        return release

    # ------------------------------------------------------------------ Discord's faults

    def outage(
        self, path_pattern: str = "", *, method: str | None = None, status: int = 503
    ) -> Outage:
        """Answer every REST request whose path matches ``path_pattern`` (all by default; with
        ``method``, only that method's) with ``status`` until the returned outage's ``end()``.
        A 503 is raised by discord.py at once (``DiscordServerError``); 500, 502 and 504 it
        retries by itself, sleeping seconds between tries."""
        if status not in _STATUS_TEXT:
            raise FakeDiscordError(f"status {status}: an outage answers 500, 502, 503 or 504")
        chosen = None if method is None else method.upper()
        outage = Outage(chosen, re.compile(path_pattern), status)
        self._outages.append(outage)
        return outage

    async def drop_gateway(self, *, code: int = 4000, invalidate: bool = False) -> None:
        """Close every gateway connection with ``code`` (4000, Discord's "unknown error", which
        clients resume after) and wait until the bot is back. ``invalidate``: its RESUME is
        answered INVALID_SESSION (``d: false``), so it IDENTIFYs anew and gets READY and
        GUILD_CREATE again."""
        self._invalidate_next_resume = invalidate
        sessions = list(self._sessions)
        for session in sessions:
            session.ready = False
            await session.ws.close(code=code)
        await self.wait_for(
            lambda: self.connected() and all(s not in self._sessions for s in sessions)
        )

    async def pass_time(self, seconds: float) -> list[FakeChannel]:
        """Move the fake's clock on by ``seconds``; every thread quiet for its
        ``auto_archive_duration`` since is archived, and the bot hears THREAD_UPDATE. Returns
        the threads archived."""
        self.now += seconds
        archived = []
        for channel in list(self.channels.values()):
            quiet = self.now - channel.last_activity
            if (
                channel.is_thread
                and not channel.archived
                and quiet >= channel.auto_archive_duration * 60
            ):
                channel.archived = True
                archived.append(channel)
                await self._tell("THREAD_UPDATE", channel.payload())
        return archived

    async def archive_thread(self, thread: FakeChannel, *, locked: bool = False) -> None:
        """Archive ``thread`` now (as a moderator or Discord does); ``locked``: lock it too,
        so that only Manage Threads may unarchive it."""
        thread.archived = True
        thread.locked = thread.locked or locked
        await self._tell("THREAD_UPDATE", thread.payload())

    async def member_posts(self, thread: FakeChannel, user: FakeUser) -> None:
        """``user`` writes a message in ``thread``: an archived thread is unarchived by it
        (THREAD_UPDATE), as Discord does; a locked one takes no message from a member."""
        if thread.locked:
            raise FakeDiscordError(f"{user.name} cannot write in the locked thread {thread.id}")
        thread.last_activity = self.now
        if thread.archived:
            thread.archived = False
            await self._tell("THREAD_UPDATE", thread.payload())

    async def delete_channel(self, channel: FakeChannel) -> None:
        """Delete a channel (its threads with it) or a thread: CHANNEL_DELETE or THREAD_DELETE,
        and 404 Unknown Channel (10003) for it after."""
        gone = [channel] + [c for c in self.channels.values() if c.parent_id == channel.id]
        for item in gone:
            self.channels.pop(item.id, None)
            for message in self.messages.values():
                if message.channel_id == item.id:
                    message.deleted = True
        for item in reversed(gone):
            if item.is_thread:
                data = {
                    "id": str(item.id),
                    "guild_id": str(item.guild_id),
                    "parent_id": str(item.parent_id),
                    "type": item.type,
                }
                await self._tell("THREAD_DELETE", data)
            else:
                await self._tell("CHANNEL_DELETE", item.payload())

    def expire(self, record: InteractionRecord) -> None:
        """The interaction's token outlived its 15 minutes: its webhook calls (followups,
        edits of the original) are refused with 401, Invalid Webhook Token (50027)."""
        self._expired_tokens.add(record.token)

    async def remove_bot(self) -> None:
        """The bot is removed from the guild: GUILD_DELETE (without ``unavailable``), and its
        requests for the guild's channels are refused (403 50001 Missing Access) after."""
        await self._tell("GUILD_DELETE", {"id": str(self.guild_id)})
        self.bot_removed = True

    async def remove_member(self, user: FakeUser) -> int:
        """``user`` leaves the guild: the member is unknown after. GUILD_MEMBER_REMOVE goes
        only to sessions that asked for the privileged Server Members intent (Discord sends
        it to no other); returns how many were told."""
        self.users.pop(user.id, None)
        told = [
            s
            for s in self._sessions
            if s.ready
            and not s.ws.closed
            and self._holds_guild(s)
            and s.intents & _GUILD_MEMBERS_INTENT
        ]
        payload = {"guild_id": str(self.guild_id), "user": user.user_payload()}
        for session in told:
            await session.dispatch("GUILD_MEMBER_REMOVE", payload)
        return len(told)

    async def _tell(self, event: str, data: Any) -> None:
        """``dispatch`` where a bot is connected; nobody to tell is no error for a fault."""
        if self.connected():
            await self.dispatch(event, data)

    # ------------------------------------------------------------------ queries

    def channel_messages(self, channel: FakeChannel | None = None) -> list[Message]:
        """The visible (non-ephemeral, not deleted) messages of a channel, oldest first."""
        channel = channel or self.default_channel
        return [
            m
            for m in self.messages.values()
            if m.channel_id == channel.id and not m.ephemeral and not m.deleted
        ]

    def connected(self) -> bool:
        """Whether a bot is connected and identified (it can receive interactions)."""
        return any(s.ready and not s.ws.closed for s in self._sessions)

    def connected_shards(self) -> list[tuple[int, int]]:
        """(shard id, shard count) of every connected, identified gateway session."""
        return sorted(s.shard for s in self._sessions if s.ready and not s.ws.closed)

    def plant_button(self, custom_id: str, channel: FakeChannel | None = None) -> Message:
        """A message from the bot carrying one button with ``custom_id``, as an older version
        of the bot (or a forger) might have left: for ``send_click`` with any id."""
        message = self._new_message(channel or self.default_channel)
        message.components = [
            {
                "type": 1,
                "components": [{"type": 2, "style": 2, "label": "?", "custom_id": custom_id}],
            }
        ]
        self.messages[message.id] = message
        return message

    def requests_to(self, method: str, pattern: str) -> list[RecordedRequest]:
        """Recorded requests whose method matches and path matches ``pattern``."""
        regex = re.compile(pattern)
        return [r for r in self.requests if r.method == method and regex.search(r.path)]

    def commands(self) -> list[dict[str, Any]]:
        """Every registered command: global ones, then this guild's."""
        return self.global_commands + self.guild_commands.get(self.guild_id, [])

    def command(self, name: str, locale: str | None = None) -> dict[str, Any]:
        """The registered top-level command called ``name`` (in ``locale``, as a client set
        to that language shows it, when given)."""
        for command in self.commands():
            if _named(command, name, locale):
                return command
        raise FakeDiscordError(f"no command {name!r} registered (did the bot sync its tree?)")

    async def wait_for(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds; it is re-checked after every request the bot makes."""
        if predicate():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        key = id(future)
        self._waiters[key] = (predicate, future)
        try:
            async with asyncio.timeout(self.answer_timeout):
                await future
        finally:
            del self._waiters[key]

    def _changed(self) -> None:
        # The predicates are checked here, in the request's handler, and only the waiters
        # whose predicate holds wake (a Condition woke all of them after every request: the
        # load benchmark has hundreds waiting).
        for predicate, future in list(self._waiters.values()):
            if future.done():
                continue
            try:
                if predicate():
                    future.set_result(None)
            except Exception as error:  # the test's own predicate failed: its waiter hears
                future.set_exception(error)

    # ------------------------------------------------------------------ interactions

    async def slash(self, command: str, **how: Unpack[SlashOptions]) -> Reply:
        """Invoke ``/command`` (``"gomoku start"``) and return the bot's answer."""
        return await self.answer(await self.send_slash(command, **how))

    async def send_slash(
        self,
        command: str,
        *,
        user: FakeUser | None = None,
        channel: FakeChannel | None = None,
        options: dict[str, Any] | None = None,
        focused: str | None = None,
    ) -> InteractionRecord:
        """Send a slash command (or, with ``focused``, an autocomplete) and return at once.
        Names (command, subcommand, options) may be given as the user's client shows them
        in their language (``user.locale``); the interaction carries the registered ones, as
        Discord's does."""
        locale = (user or self.owner).locale
        names = command.split()
        schema = self.command(names[0], locale)
        resolved: dict[str, dict[str, Any]] = {}
        leaf, path = schema, []
        for name in names[1:]:
            sub = _find_option(leaf, name, locale)
            if sub is None or sub["type"] not in (SUBCOMMAND, SUBCOMMAND_GROUP):
                raise FakeDiscordError(f"/{command}: no subcommand {name!r}")
            path.append(sub)
            leaf = sub
        given = _build_options(leaf, options or {}, resolved, self, focused=focused, locale=locale)
        for sub in reversed(path):
            given = [{"type": sub["type"], "name": sub["name"], "options": given}]
        data: dict[str, Any] = {
            "id": schema["id"],
            "name": schema["name"],
            "type": 1,
            "options": given,
        }
        if resolved:
            data["resolved"] = resolved
        if schema.get("guild_id"):
            data["guild_id"] = schema["guild_id"]
        kind = 4 if focused else 2
        return await self._send_interaction(kind, data, user=user, channel=channel)

    async def send_forged_slash(
        self,
        command: str,
        options: list[dict[str, Any]],
        *,
        user: FakeUser | None = None,
        channel: FakeChannel | None = None,
    ) -> InteractionRecord:
        """A slash command whose option entries go out exactly as given, unchecked (any
        type, any value, unknown names): what a modified client could send."""
        names = command.split()
        schema = self.command(names[0])
        leaf, path = schema, []
        for name in names[1:]:
            sub = _find_option(leaf, name)
            if sub is None:
                raise FakeDiscordError(f"/{command}: no subcommand {name!r}")
            path.append(sub)
            leaf = sub
        given = options
        for sub in reversed(path):
            given = [{"type": sub["type"], "name": sub["name"], "options": given}]
        data: dict[str, Any] = {"id": schema["id"], "name": schema["name"], "type": 1}
        data["options"] = given
        if schema.get("guild_id"):
            data["guild_id"] = schema["guild_id"]
        return await self._send_interaction(2, data, user=user, channel=channel)

    async def autocomplete(
        self,
        command: str,
        focused: str,
        *,
        user: FakeUser | None = None,
        channel: FakeChannel | None = None,
        options: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Type into option ``focused`` of ``/command``; returns the choices the bot offered."""
        record = await self.send_slash(
            command, user=user, channel=channel, options=options, focused=focused
        )
        reply = await self.answer(
            record,
        )
        if reply.choices is None:
            raise FakeDiscordError("autocomplete answered without choices")
        return reply.choices

    async def click(
        self,
        message: Message | int,
        custom_id: str,
        *,
        user: FakeUser | None = None,
    ) -> Reply:
        """Press the button ``custom_id`` on ``message`` and return the bot's answer."""
        record = await self.send_click(message, custom_id, user=user)
        return await self.answer(
            record,
        )

    async def send_click(
        self, message: Message | int, custom_id: str, *, user: FakeUser | None = None
    ) -> InteractionRecord:
        """Press a button and return at once."""
        stored = self.messages[message if isinstance(message, int) else message.id]
        button = next((b for b in stored.buttons() if b.get("custom_id") == custom_id), None)
        if button is None:
            raise FakeDiscordError(f"message {stored.id} has no button {custom_id!r}")
        if button.get("disabled"):
            raise FakeDiscordError(f"button {custom_id!r} is disabled: Discord would not send it")
        data = {"custom_id": custom_id, "component_type": 2}
        channel = self.channels[stored.channel_id]
        return await self._send_interaction(3, data, user=user, channel=channel, source=stored)

    async def answer(self, record: InteractionRecord) -> Reply:
        """Wait for the bot's visible answer to an interaction sent earlier."""
        try:
            async with asyncio.timeout(self.answer_timeout):
                await record.answered.wait()
        except TimeoutError:
            raise FakeDiscordError(
                f"no answer to interaction {record.id} (callback type {record.callback_type})"
            ) from None
        message = record.followups[-1] if record.followups else record.original
        return Reply(record, message, record.choices)

    async def _send_interaction(
        self,
        kind: int,
        data: dict[str, Any],
        *,
        user: FakeUser | None,
        channel: FakeChannel | None,
        source: Message | None = None,
    ) -> InteractionRecord:
        user = user or self.owner
        channel = channel or self.default_channel
        if kind in (_APPLICATION_COMMAND, _AUTOCOMPLETE) and channel.is_thread and channel.archived:
            raise FakeDiscordError(
                f"Discord offers no commands in the archived thread {channel.id}: a member's "
                "message (member_posts) unarchives it first"
            )
        interaction_id = snowflake()
        token = f"itoken-{interaction_id}-{secrets.token_hex(8)}"
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "guild_id": str(self.guild_id),
            "guild": {"id": str(self.guild_id), "locale": self.guild_locale, "features": []},
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "member": user.member_payload(with_permissions=True),
            "token": token,
            "version": 1,
            "app_permissions": str(channel.bot_permissions),
            "locale": user.locale,
            "guild_locale": self.guild_locale,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(self.guild_id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if source is not None:
            payload["message"] = source.payload(self.application_id)
        record = InteractionRecord(
            id=interaction_id,
            token=token,
            type=kind,
            user=user,
            channel=channel,
            payload=payload,
            sent_at=time.monotonic(),
            source_message=source,
        )
        self.interactions[interaction_id] = record
        self._by_token[token] = record
        await self.dispatch("INTERACTION_CREATE", payload)
        return record

    def shard_of_guild(self, shard_count: int) -> int:
        """The shard Discord gives the fake's guild when a bot runs ``shard_count`` shards."""
        return (self.guild_id >> 22) % shard_count

    def _holds_guild(self, session: _Session) -> bool:
        shard_id, shard_count = session.shard
        return self.shard_of_guild(shard_count) == shard_id

    async def dispatch(self, event: str, data: Any) -> None:
        """Send a gateway event to every connected, identified bot session that holds the
        guild (with shards, only the one shard Discord gives it)."""
        sessions = [
            s for s in self._sessions if s.ready and not s.ws.closed and self._holds_guild(s)
        ]
        if not sessions:
            raise FakeDiscordError(f"no bot is connected to receive {event}")
        for session in sessions:
            await session.dispatch(event, data)

    # ------------------------------------------------------------------ gateway

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        session = _Session(ws)
        self._sessions.append(session)
        try:
            await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41_250}})
            async for frame in ws:
                if frame.type != 1:  # aiohttp.WSMsgType.TEXT
                    continue
                message = json.loads(frame.data)
                op = message.get("op")
                if op == 1:
                    await ws.send_json({"op": 11})
                elif op == 2:
                    shard = (message.get("d") or {}).get("shard") or [0, 1]
                    session.shard = (int(shard[0]), int(shard[1]))
                    session.intents = int((message.get("d") or {}).get("intents") or 0)
                    self.identifies += 1
                    await self._identify(session)
                    self._changed()
                elif op == 6:
                    await self._resume(session, message.get("d") or {})
                    self._changed()
        finally:
            self._sessions.remove(session)
            self._changed()
        return ws

    async def _resume(self, session: _Session, data: dict[str, Any]) -> None:
        shard = self._resumable.get(str(data.get("session_id")))
        if shard is None or self._invalidate_next_resume:
            self._invalidate_next_resume = False
            await session.ws.send_json({"op": 9, "d": False})
            return
        session.session_id, session.shard = str(data["session_id"]), shard
        session.intents = self._resumed_intents.get(session.session_id, 0)
        session.seq = int(data.get("seq") or 0)
        session.ready = True
        self.resumes += 1
        await session.dispatch("RESUMED", {})

    async def _identify(self, session: _Session) -> None:
        self._resumable[session.session_id] = session.shard
        self._resumed_intents[session.session_id] = session.intents
        await session.dispatch(
            "READY",
            {
                "v": 10,
                "user": {**self.bot_user.user_payload(), "verified": True, "mfa_enabled": False},
                "guilds": [{"id": str(self.guild_id), "unavailable": True}]
                if self._holds_guild(session)
                else [],
                "session_id": session.session_id,
                "resume_gateway_url": self.gateway_url,
                "shard": list(session.shard),
                "application": {"id": str(self.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
            },
        )
        if not self._holds_guild(session) or self.bot_removed:
            session.ready = True  # a shard without the guild (or not in it): nothing more
            return
        members = [self.bot_user, *self.users.values()]
        roles = [
            role_payload(self.guild_id, "@everyone", PERMISSIONS["view_channel"], 0),
            *(role_payload(role_id, name, 0, 1) for role_id, name in self.roles.items()),
        ]
        guild = guild_payload(
            self.guild_id,
            "Fake Guild",
            unavailable=False,
            owner=self.owner,
            roles=roles,
            channels=list(self.channels.values()),
            members=members,
            locale=self.guild_locale,
        )
        await session.dispatch("GUILD_CREATE", guild)
        session.ready = True

    # ------------------------------------------------------------------ REST plumbing

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body, files = await _read_body(request)
        authorization = request.headers.get("Authorization", "")
        recorded = RecordedRequest(
            request.method,
            path,
            dict(request.query),
            body,
            token=authorization.removeprefix("Bot ") or None,
        )
        self.requests.append(recorded)
        try:
            for method, pattern, release in self._holds:
                if method == request.method and pattern.search(path):
                    self._changed()  # the request is in: tests may look
                    await release.wait()
            limited = self._check_rate_limit(request.method, path)
            down = next((o for o in self._outages if o.matches(request.method, path)), None)
            if down is not None:
                down.refused += 1
                text = f"{down.status}: {_STATUS_TEXT[down.status]}"
                response: web.StreamResponse = _error(down.status, 0, text)
            elif recorded.token in self.refused_tokens:
                response = _error(401, 0, "401: Unauthorized")
            elif any(f"/{token}/" in f"{path}/" for token in self._expired_tokens):
                response = _error(401, 50027, "Invalid Webhook Token")
            elif limited is not None:
                response = limited
            else:
                response = await self._route(request, path, body, files)
            recorded.status = response.status
            return response
        finally:
            self._changed()

    async def _route(
        self,
        request: web.Request,
        path: str,
        body: Any,
        files: list[tuple[str, bytes, str | None]],
    ) -> web.StreamResponse:
        for method, pattern, handler in self._routes:
            if method != request.method:
                continue
            match = pattern.fullmatch(path)
            if match is not None:
                try:
                    return await handler(_Call(request, match, body, files))
                except _RefusedError as refused:
                    return refused.response
        return _error(404, 0, f"the fake does not implement {request.method} {path}")

    def _check_rate_limit(self, method: str, path: str) -> web.Response | None:
        for limit in self._rate_limits:
            if limit.remaining > 0 and limit.method == method and limit.pattern.search(path):
                limit.remaining -= 1
                headers = {
                    "Retry-After": str(max(1, round(limit.retry_after))),
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset-After": f"{limit.retry_after:.3f}",
                    "X-RateLimit-Reset": f"{time.time() + limit.retry_after:.3f}",
                    "X-RateLimit-Bucket": "fake-bucket",
                    "X-RateLimit-Scope": limit.scope,
                    "Via": "1.1 google",
                }
                body = {
                    "message": "You are being rate limited.",
                    "retry_after": limit.retry_after,
                    "global": limit.scope == "global",
                }
                return _json(body, status=429, headers=headers)
        return None

    # ------------------------------------------------------------------ REST: identity

    async def _get_me(self, call: _Call) -> web.Response:
        authorization = call.request.headers.get("Authorization", "")
        if authorization.startswith("Bearer "):
            user_id = self._access_tokens.get(authorization.removeprefix("Bearer "))
            if user_id is None:
                return _error(401, 0, "401: Unauthorized")
            return _json({**self.users[user_id].user_payload(), "locale": "en-US"})
        return _json({**self.bot_user.user_payload(), "verified": True, "mfa_enabled": False})

    # ------------------------------------------------------------------ OAuth2, Activities

    def authorize(self, user: FakeUser) -> str:
        """The code the Discord client's AUTHORIZE gives ``user``'s Activity (single use)."""
        code = secrets.token_urlsafe(12)
        self._oauth_codes[code] = user.id
        return code

    def start_activity(self, channel: FakeChannel, *users: FakeUser) -> str:
        """An Activity instance in ``channel`` with ``users`` in it; returns its id."""
        instance = f"i-{snowflake()}-gc-{channel.guild_id}-{channel.id}"
        self.activity_instances[instance] = (channel.id, {user.id for user in users})
        return instance

    async def _oauth_token(self, call: _Call) -> web.Response:
        form = call.body if isinstance(call.body, dict) else {}
        if (
            form.get("client_id") != str(self.application_id)
            or form.get("client_secret") != self.client_secret
        ):
            return _json({"error": "invalid_client"}, status=401)
        user_id = self._oauth_codes.pop(str(form.get("code")), None)
        if form.get("grant_type") != "authorization_code" or user_id is None:
            return _json({"error": "invalid_grant"}, status=400)
        token = secrets.token_urlsafe(24)
        self._access_tokens[token] = user_id
        return _json(
            {"access_token": token, "token_type": "Bearer", "expires_in": 604800,
             "refresh_token": secrets.token_urlsafe(24), "scope": "identify"}
        )  # fmt: skip

    async def _get_activity_instance(self, call: _Call) -> web.Response:
        found = self.activity_instances.get(call.match["instance"])
        if found is None:
            return _error(404, 10001, "Unknown Activity instance")
        channel_id, users = found
        return _json(
            {
                "application_id": str(self.application_id),
                "instance_id": call.match["instance"],
                "launch_id": str(snowflake()),
                "location": {
                    "id": f"gc-{self.guild_id}-{channel_id}",
                    "kind": "gc",
                    "channel_id": str(channel_id),
                    "guild_id": str(self.guild_id),
                },
                "users": [str(user) for user in sorted(users)],
            }
        )

    async def _get_user(self, call: _Call) -> web.Response:
        return _json(self._user(call, 10013, "Unknown User").user_payload())

    async def _get_member(self, call: _Call) -> web.Response:
        return _json(self._user(call, 10007, "Unknown Member").member_payload())

    def _user(self, call: _Call, code: int, unknown: str) -> FakeUser:
        user = self.users.get(int(call.match["user"]))
        if user is None:
            raise _RefusedError(404, code, unknown)
        return user

    async def _get_application(self, call: _Call) -> web.Response:
        return _json(
            {
                "id": str(self.application_id),
                "name": self.bot_user.name,
                "icon": None,
                "description": "",
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "owner": self.owner.user_payload(),
                "flags": 0,
                "team": None,
            }
        )

    async def _get_gateway(self, call: _Call) -> web.Response:
        return _json(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 1000,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    # ------------------------------------------------------------------ REST: commands

    async def _put_commands(self, call: _Call) -> web.Response:
        guild = call.match.groupdict().get("guild")
        guild_id = int(guild) if guild else None
        stored = []
        for command in call.body:
            problem = _check_command(command)
            if problem:
                return _error(400, 50035, problem)
            key = (command["name"], guild_id)
            command_id = self._command_ids.setdefault(key, snowflake())
            full = {
                **command,
                "id": str(command_id),
                "application_id": str(self.application_id),
                "version": str(snowflake()),
                "type": command.get("type", 1),
            }
            if guild_id is not None:
                full["guild_id"] = str(guild_id)
            stored.append(full)
        if guild_id is None:
            self.global_commands = stored
        else:
            self.guild_commands[guild_id] = stored
        return _json(stored)

    async def _get_commands(self, call: _Call) -> web.Response:
        guild = call.match.groupdict().get("guild")
        commands_ = self.guild_commands.get(int(guild), []) if guild else self.global_commands
        return _json(commands_)

    # ------------------------------------------------------------------ REST: interactions

    def _interaction_by_token(self, token: str) -> InteractionRecord | None:
        return self._by_token.get(token)

    async def _callback(self, call: _Call) -> web.Response:
        record = self.interactions.get(int(call.match["id"]))
        if record is None or record.token != call.match["token"]:
            return _error(404, 10062, "Unknown interaction")
        if record.callback_type is not None:
            return _error(400, 40060, "Interaction has already been acknowledged.")
        now = time.monotonic()
        if now - record.sent_at > self.interaction_deadline:
            return _error(404, 10062, "Unknown interaction")
        kind = call.body["type"]
        data = call.body.get("data") or {}
        resource: dict[str, Any] | None = None
        if kind in (4, 5):
            flags = int(data.get("flags", 0)) & (EPHEMERAL | COMPONENTS_V2)
            message = self._new_message(record.channel, flags=flags | (LOADING if kind == 5 else 0))
            if not flags & EPHEMERAL:
                await self._posted_in(record.channel)
            message.interaction_id = record.id
            message.webhook_id = self.application_id
            if kind == 4:
                problem = _apply(message, data, call.files)
                if problem:
                    return _error(400, 50035, problem)
            record.original = message
            self.messages[message.id] = message
            resource = {"type": kind, "message": message.payload(self.application_id)}
        elif kind in (6, 7):
            if record.source_message is None:
                return _error(400, 40004, "no message to update")
            record.original = record.source_message
            if kind == 7:
                problem = _apply(record.source_message, data, call.files, edit=True)
                if problem:
                    return _error(400, 50035, problem)
                resource = {
                    "type": kind,
                    "message": record.source_message.payload(self.application_id),
                }
        elif kind == 8:
            choices = data.get("choices", [])
            if len(choices) > 25:
                return _error(400, 50035, f"{len(choices)} autocomplete choices, at most 25")
            record.choices = choices
        elif kind == 9:
            record.modal = data
        elif kind == 12:  # LAUNCH_ACTIVITY
            self.launched.append(record.id)
        else:
            return _error(400, 50035, f"callback type {kind} not supported by the fake")
        record.callback_type = kind
        record.callback_at = now
        record.acknowledged.set()
        if kind in (4, 7, 8, 9, 12):
            record.answered.set()
        interaction: dict[str, Any] = {
            "id": str(record.id),
            "type": record.type,
            "response_message_loading": kind == 5,
            "response_message_ephemeral": bool(
                record.original is not None and record.original.ephemeral
            ),
        }
        if record.original is not None:
            interaction["response_message_id"] = str(record.original.id)
        result: dict[str, Any] = {"interaction": interaction}
        if resource is not None:
            result["resource"] = resource
        return _json(result)

    async def _post_followup(self, call: _Call) -> web.Response:
        record = self._interaction_by_token(call.match["token"])
        if record is None or record.callback_type is None:
            return _error(404, 10015, "Unknown Webhook")
        original = record.original
        body = call.body or {}
        if record.callback_type == 5 and original is not None and original.loading:
            # The first followup after a deferral fills in the "thinking..." message.
            message = original
            message.flags &= ~LOADING
            problem = _apply(message, body, call.files, edit=True)
        else:
            flags = int(body.get("flags", 0)) & (EPHEMERAL | COMPONENTS_V2)
            message = self._new_message(record.channel, flags=flags)
            if not flags & EPHEMERAL:
                await self._posted_in(record.channel)
            message.webhook_id = self.application_id
            problem = _apply(message, body, call.files)
            if not problem:
                self.messages[message.id] = message
        if problem:
            return _error(400, 50035, problem)
        record.followups.append(message)
        record.answered.set()
        return _json(message.payload(self.application_id))

    def _webhook_message(self, call: _Call) -> tuple[InteractionRecord | None, Message | None]:
        record = self._interaction_by_token(call.match["token"])
        if record is None:
            return None, None
        if call.match["id"] == "@original":
            return record, record.original
        message = self.messages.get(int(call.match["id"]))
        return record, message

    async def _get_webhook_message(self, call: _Call) -> web.Response:
        _, message = self._webhook_message(call)
        if message is None or message.deleted:
            return _error(404, 10008, "Unknown Message")
        return _json(message.payload(self.application_id))

    async def _patch_webhook_message(self, call: _Call) -> web.Response:
        record, message = self._webhook_message(call)
        if record is None or message is None or message.deleted:
            return _error(404, 10008, "Unknown Message")
        channel = self.channels.get(message.channel_id)
        if channel is not None and channel.archived and not message.ephemeral:
            return _error(400, 50083, "Thread is archived")
        message.flags &= ~LOADING
        problem = _apply(message, call.body or {}, call.files, edit=True)
        if problem:
            return _error(400, 50035, problem)
        if message is record.original:
            record.answered.set()
        return _json(message.payload(self.application_id))

    async def _delete_webhook_message(self, call: _Call) -> web.Response:
        _, message = self._webhook_message(call)
        if message is None or message.deleted:
            return _error(404, 10008, "Unknown Message")
        message.deleted = True
        return web.Response(status=204)

    # ------------------------------------------------------------------ REST: channels

    def _new_message(self, channel: FakeChannel, *, flags: int = 0) -> Message:
        return Message(
            id=snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user,
            flags=flags,
        )

    async def _posted_in(self, channel: FakeChannel) -> None:
        """A message the channel's members see (an interaction's public answer) unarchives
        a thread that is not locked, as a posted message does."""
        if channel.is_thread and channel.archived and not channel.locked:
            channel.archived = False
            await self._tell("THREAD_UPDATE", channel.payload())
        channel.last_activity = self.now

    def _missing(self, channel: FakeChannel, *names: str) -> str | None:
        for name in names:
            if not channel.bot_permissions & PERMISSIONS[name]:
                return name
        return None

    def _channel(self, call: _Call) -> FakeChannel:
        channel = self.channels.get(int(call.match["channel"]))
        if channel is None:
            raise _RefusedError(404, 10003, "Unknown Channel")
        if self.bot_removed or not channel.bot_permissions & PERMISSIONS["view_channel"]:
            raise _RefusedError(403, 50001, "Missing Access")
        return channel

    @staticmethod
    def _not_archived(channel: FakeChannel) -> None:
        """Editing or deleting in an archived thread, or changing it, is refused (50083)."""
        if channel.archived:
            raise _RefusedError(400, 50083, "Thread is archived")

    async def _get_channel(self, call: _Call) -> web.Response:
        channel = self._channel(call)
        return _json(channel.payload())

    async def _patch_channel(self, call: _Call) -> web.Response:
        channel = self._channel(call)
        body = call.body or {}
        if ("archived" in body or "locked" in body) and not channel.is_thread:
            return _error(400, 50024, "Cannot execute action on this channel type")
        if channel.locked and body.get("archived") is False:
            missing = self._missing(channel, "manage_threads")
            if missing is not None:
                return _error(403, 50013, f"Missing Permissions ({missing})")
        if channel.archived and body.get("archived") is not False:
            self._not_archived(channel)  # a change to an archived thread must unarchive it
        if "auto_archive_duration" in body:
            if body["auto_archive_duration"] not in THREAD_DURATIONS:
                return _error(400, 50035, "Invalid Form Body: auto_archive_duration")
            channel.auto_archive_duration = int(body["auto_archive_duration"])
        if "archived" in body:
            channel.archived = bool(body["archived"])
            channel.last_activity = self.now
        if "name" in body:
            channel.name = str(body["name"])
        if channel.is_thread:
            await self._tell("THREAD_UPDATE", channel.payload())
        return _json(channel.payload())

    async def _create_thread(self, call: _Call) -> web.Response:
        parent = self.channels.get(int(call.match["channel"]))
        starter = self.messages.get(int(call.match["id"]))
        if parent is None or starter is None or starter.channel_id != parent.id:
            return _error(404, 10008, "Unknown Message")
        missing = self._missing(parent, "create_public_threads")
        if missing is not None:
            return _error(403, 50013, f"Missing Permissions: {missing}")
        name = str(call.body.get("name", ""))
        if not 1 <= len(name) <= 100:
            return _error(400, 50035, "Invalid Form Body: name")
        duration = call.body.get("auto_archive_duration", 1440)
        if duration not in THREAD_DURATIONS:
            return _error(400, 50035, "Invalid Form Body: auto_archive_duration")
        thread = FakeChannel(
            snowflake(),
            parent.guild_id,
            name,
            parent.bot_permissions,
            type=11,
            parent_id=parent.id,
            starter_message_id=starter.id,
            auto_archive_duration=int(duration),
            last_activity=self.now,
        )
        self.channels[thread.id] = thread
        await self._tell("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        return _json(thread.payload())

    async def _list_messages(self, call: _Call) -> web.Response:
        channel = self._channel(call)
        limit = int(call.request.query.get("limit", "50"))
        newest = list(reversed(self.channel_messages(channel)))[:limit]
        return _json([m.payload(self.application_id) for m in newest])

    async def _post_message(self, call: _Call) -> web.Response:
        channel = self._channel(call)
        needed = ["view_channel"]
        needed.append("send_messages_in_threads" if channel.is_thread else "send_messages")
        if call.files:
            needed.append("attach_files")
        missing = self._missing(channel, *needed)
        if missing:
            return _error(403, 50013, f"Missing Permissions ({missing})")
        if channel.archived:
            if channel.locked:
                self._not_archived(channel)
            # A message unarchives a thread that is not locked.
            channel.archived = False
            await self._tell("THREAD_UPDATE", channel.payload())
        channel.last_activity = self.now
        message = self._new_message(channel)
        problem = _apply(message, call.body or {}, call.files)
        if problem:
            return _error(400, 50035, problem)
        if not channel.bot_permissions & PERMISSIONS["embed_links"]:
            message.embeds = []  # Discord silently drops embeds without Embed Links
        self.messages[message.id] = message
        return _json(message.payload(self.application_id))

    def _channel_message(self, call: _Call) -> Message:
        self._channel(call)
        message = self.messages.get(int(call.match["id"]))
        if (
            message is None
            or message.deleted
            or message.channel_id != int(call.match["channel"])
            or message.ephemeral
        ):
            raise _RefusedError(404, 10008, "Unknown Message")
        return message

    async def _get_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        return _json(message.payload(self.application_id))

    async def _patch_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        self._not_archived(self._channel(call))
        if message.author.id != self.bot_user.id:
            return _error(403, 50005, "Cannot edit a message authored by another user")
        problem = _apply(message, call.body or {}, call.files, edit=True)
        if problem:
            return _error(400, 50035, problem)
        return _json(message.payload(self.application_id))

    async def _delete_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        self._not_archived(self._channel(call))
        message.deleted = True
        return web.Response(status=204)


# ---------------------------------------------------------------------- helpers


def _json(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py decodes JSON only when Content-Type is exactly "application/json" (no charset).
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


def _error(status: int, code: int, message: str) -> web.Response:
    return _json({"code": code, "message": message}, status=status)


async def _read_body(request: web.Request) -> tuple[Any, list[tuple[str, bytes, str | None]]]:
    files: list[tuple[str, bytes, str | None]] = []
    if not request.can_read_body:
        return None, files
    if request.content_type.startswith("multipart/"):
        body: Any = None
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            data = await part.read()
            if part.name == "payload_json":
                body = json.loads(data)
            else:
                content_type = part.headers.get("Content-Type")
                files.append((part.filename or "file", bytes(data), content_type))
        return body, files
    if request.content_type == "application/x-www-form-urlencoded":
        return dict(await request.post()), files
    text = await request.text()
    return (json.loads(text) if text else None), files


def _named(node: dict[str, Any], name: str, locale: str | None) -> bool:
    """Whether ``node`` is called ``name``, or ``name`` in ``locale``'s translation."""
    if node["name"] == name:
        return True
    return locale is not None and (node.get("name_localizations") or {}).get(locale) == name


def _find_option(
    schema: dict[str, Any], name: str, locale: str | None = None
) -> dict[str, Any] | None:
    return next((o for o in schema.get("options", []) if _named(o, name, locale)), None)


def _build_options(
    leaf: dict[str, Any],
    given: dict[str, Any],
    resolved: dict[str, dict[str, Any]],
    fake: FakeDiscord,
    *,
    focused: str | None,
    locale: str | None = None,
) -> list[dict[str, Any]]:
    """Type the given option values the way the Discord client does (it validates them too)."""
    out = []
    for typed, value in given.items():
        option = _find_option(leaf, typed, locale)
        if option is None:
            raise FakeDiscordError(f"/{leaf['name']} has no option {typed!r}")
        name = option["name"]  # the registered name, whatever language it was typed in
        if focused == typed:
            focused = name
        kind = option["type"]
        entry: dict[str, Any] = {"name": name, "type": kind}
        if name == focused:
            entry["value"] = str(value)
            entry["focused"] = True
            out.append(entry)
            continue
        if kind == OPTION_USER:
            user = value if isinstance(value, FakeUser) else fake.users[int(value)]
            entry["value"] = str(user.id)
            resolved.setdefault("users", {})[str(user.id)] = user.user_payload()
            member = user.member_payload(with_permissions=True)
            del member["user"]
            resolved.setdefault("members", {})[str(user.id)] = member
        elif kind == OPTION_CHANNEL:
            channel = value if isinstance(value, FakeChannel) else fake.channels[int(value)]
            entry["value"] = str(channel.id)
            resolved.setdefault("channels", {})[str(channel.id)] = {
                **channel.payload(),
                "permissions": str(ADMIN_PERMISSIONS),
            }
        elif kind in (OPTION_INTEGER, OPTION_NUMBER):
            number = int(value) if kind == OPTION_INTEGER else float(value)
            low, high = option.get("min_value"), option.get("max_value")
            if (low is not None and number < low) or (high is not None and number > high):
                raise FakeDiscordError(f"{name}={number}: the Discord client would refuse it")
            entry["value"] = number
        elif kind == OPTION_BOOLEAN:
            entry["value"] = bool(value)
        else:
            entry["value"] = str(value)
        choices = option.get("choices")
        if choices and entry["value"] not in [c["value"] for c in choices]:
            raise FakeDiscordError(f"{name}={value!r} is not one of the offered choices")
        out.append(entry)
    sent = {entry["name"] for entry in out}
    missing = [
        o["name"]
        for o in leaf.get("options", [])
        if o.get("required") and o["name"] not in sent and o["type"] > SUBCOMMAND_GROUP
    ]
    if missing and focused is None:
        raise FakeDiscordError(f"/{leaf['name']} needs {missing}: the client would not send it")
    return out


def _check_command(command: dict[str, Any]) -> str | None:
    """Discord's registration limits: names, descriptions, option counts."""

    def localisations(node: dict[str, Any], key: str) -> dict[str, str]:
        found = node.get(key) or {}
        return found if isinstance(found, dict) else {"?": "not a dict"}

    def walk(node: dict[str, Any], depth: int) -> str | None:
        name = node.get("name", "")
        names = [name, *localisations(node, "name_localizations").values()]
        for shown in names:
            if not re.fullmatch(r"[-_\w]{1,32}", shown) or shown != shown.lower():
                return f"bad name {shown!r}"
        for locale in [
            *localisations(node, "name_localizations"),
            *localisations(node, "description_localizations"),
        ]:
            if locale not in DISCORD_LOCALES:
                return f"{name}: unknown locale {locale!r}"
        description = node.get("description", "")
        descriptions = [description, *localisations(node, "description_localizations").values()]
        for shown in descriptions:
            if node.get("type", 1) in (1, 2, 3, 4, 5, 6, 7, 8, 10, 11) and not (
                1 <= len(shown) <= 100
            ):
                return f"{name}: description must be 1-100 characters, got {len(shown)}"
        for choice in node.get("choices") or []:
            for shown in [choice["name"], *localisations(choice, "name_localizations").values()]:
                if not 1 <= len(shown) <= 100:
                    return f"{name}: choice names must be 1-100 characters: {shown!r}"
        options = node.get("options") or []
        if len(options) > 25:
            return f"{name}: more than 25 options"
        if len(node.get("choices") or []) > 25:
            return f"{name}: more than 25 choices"
        if node.get("autocomplete") and node.get("choices"):
            return f"{name}: autocomplete and choices together"
        languages = {"", *(k for o in options for k in localisations(o, "name_localizations"))}
        for language in languages:
            # Options and subcommands are told apart by name, in every language too.
            names_there = [
                localisations(o, "name_localizations").get(language, o["name"]) for o in options
            ]
            if len(set(names_there)) != len(names_there):
                return f"{name}: two options share a name in {language or 'the default'}"
        for option in options:
            problem = walk(option, depth + 1)
            if problem:
                return problem
        return None

    return walk(command, 0)


def _apply(
    message: Message,
    body: dict[str, Any],
    files: list[tuple[str, bytes, str | None]],
    *,
    edit: bool = False,
) -> str | None:
    """Validate ``body`` against Discord's limits and write it into ``message``."""
    if not edit and body.get("flags") is not None:
        message.flags |= int(body["flags"]) & COMPONENTS_V2
    if edit and body.get("flags") is not None and int(body["flags"]) & COMPONENTS_V2:
        # A message may become a layout message by an edit, never go back.
        message.flags |= COMPONENTS_V2
    problem = _check_message(body, layout=message.layout)
    if problem:
        return problem
    if "content" in body:
        message.content = body["content"] or ""
    if "embeds" in body:
        message.embeds = body["embeds"] or []
    if "components" in body:
        message.components = body["components"] or []
    if "allowed_mentions" in body:
        message.allowed_mentions = body["allowed_mentions"]
    new_files = [Attachment(snowflake(), name, data, kind) for name, data, kind in files]
    if "attachments" in body:
        keep = {str(a.get("id")) for a in body["attachments"] or []}
        message.attachments = [a for a in message.attachments if str(a.id) in keep] + new_files
    else:
        message.attachments = message.attachments + new_files
    if "flags" in body and body["flags"] is not None:
        # Only SUPPRESS_EMBEDS (4) may change after sending; EPHEMERAL is fixed at creation.
        message.flags = (message.flags & ~4) | (int(body["flags"]) & 4)
    if edit:
        message.edits += 1
        message.edited_timestamp = message.timestamp
    elif not message.loading:
        message.pinged_everyone = message.pings_everyone()
        message.pinged_roles = message.pings_roles()
    if not (message.content or message.embeds or message.attachments or message.components):
        return "Cannot send an empty message"
    return None


DISCORD_LOCALES: Final = frozenset(locale.value for locale in discord.Locale)

_LAYOUT_TOP: Final = {
    1,
    9,
    10,
    12,
    13,
    14,
    17,
}  # row, section, text, gallery, file, separator, container


def _check_message(body: dict[str, Any], *, layout: bool = False) -> str | None:
    if layout:
        return _check_layout(body)
    content = body.get("content") or ""
    if len(content) > 2000:
        return f"content is {len(content)} code points, at most 2000"
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        return f"{len(embeds)} embeds, at most 10"
    total = 0
    for embed in embeds:
        description = embed.get("description") or ""
        title = embed.get("title") or ""
        if len(description) > 4096:
            return f"embed description is {len(description)} characters, at most 4096"
        if len(title) > 256:
            return f"embed title is {len(title)} characters, at most 256"
        fields = embed.get("fields") or []
        if len(fields) > 25:
            return "more than 25 embed fields"
        total += len(description) + len(title)
        for item in fields:
            if len(item.get("name", "")) > 256 or len(item.get("value", "")) > 1024:
                return "embed field too long"
            total += len(item.get("name", "")) + len(item.get("value", ""))
        total += len((embed.get("footer") or {}).get("text", ""))
        total += len((embed.get("author") or {}).get("name", ""))
    if total > 6000:
        return f"embeds hold {total} characters, at most 6000"
    rows = body.get("components") or []
    if len(rows) > 5:
        return f"{len(rows)} action rows, at most 5"
    for row in rows:
        items = row.get("components") or []
        if not 1 <= len(items) <= 5:
            return f"an action row holds {len(items)} components, 1 to 5 allowed"
        for item in items:
            if len(item.get("label") or "") > 80:
                return "button label over 80 characters"
    return _check_custom_ids(item for row in rows for item in row.get("components") or [])


def _check_custom_ids(items: Iterable[dict[str, Any]]) -> str | None:
    """Custom ids of 1-100 characters, none used twice in the message."""
    seen: set[str] = set()
    for item in items:
        custom_id = item.get("custom_id")
        if custom_id is None:
            continue
        if not 1 <= len(custom_id) <= 100:
            return f"custom_id {custom_id!r} must be 1-100 characters"
        if custom_id in seen:
            return f"custom_id {custom_id!r} used twice"
        seen.add(custom_id)
    return None


def _check_layout(body: dict[str, Any]) -> str | None:
    """A Components V2 message: no content or embeds, at most 40 components in all, rows of
    1-5 items, unique custom ids, text displays within 4000 characters together."""
    if body.get("content") or body.get("embeds"):
        return "content and embeds cannot be used with IS_COMPONENTS_V2"
    top = body.get("components") or []
    for item in top:
        if item.get("type") not in _LAYOUT_TOP:
            return f"component type {item.get('type')} cannot be top-level"
    everything = walk_components(top)
    if len(everything) > 40:
        return f"{len(everything)} components, at most 40"
    text = sum(len(item.get("content", "")) for item in everything if item.get("type") == 10)
    if text > 4000:
        return f"text displays hold {text} characters, at most 4000"
    for item in everything:
        if item.get("type") == 1 and not 1 <= len(item.get("components") or []) <= 5:
            return "an action row holds 1 to 5 components"
        if item.get("type") == 2 and not (item.get("label") or item.get("emoji")):
            return "a button needs a label or an emoji"
    return _check_custom_ids(everything)
