"""The game bus: which games changed, from every bot process to every other.

With shards in several processes (``bot.shards``), each process stores its own guilds' games,
and a web board page served by one process must still see a move stored by another. Each
process publishes, for every change it stores (the service's events), the game's id and its
new version; every process that serves pages follows the bus and re-reads a watched game
whose version went up (``bot.web.hub``). The bus carries no game state: the database stays
the one source, and a page's process reads it as it reads every game.

An undo request changes no version (nothing moved), so it travels as a message of its own:
who asked whom at which version (``UndoAsk``), and then who answered and how
(``UndoAnswer``): the web board puts them to the pages it serves (``bot.web.server``), and
the Discord table edits the request it posted once it is answered (``bot.table``). The
request itself stays in the database, where a page opened later, or a process that was away,
finds it.

The bus is the deployment's own: Redis or Valkey pub/sub where the AI queue runs
(``GOMOKU_AI_QUEUE_URL``), else PostgreSQL ``LISTEN``/``NOTIFY`` (``GOMOKU_DATABASE_URL``).
Where there is no PostgreSQL there is one process (SQLite), and no bus (``open_bus``).

* Messages are JSON objects, encoded from their types by msgspec (as ``bot.core.queue_ai``'s
  are) and told apart by their ``type`` field: anything else on the channel is refused and
  logged once, never raised.
* Publishing never blocks the event loop: ``publish`` notes the newest version of the game
  (versions only go up, so a burst of changes is sent once, as the newest), and one task
  sends what is noted, a batch per message, then the undo messages noted with it.
* A dropped connection is reconnected with a doubling backoff (0.1 s to 5 s): one WARNING
  when it drops, one INFO when it is back, no traceback. A quiet bus pings its server every
  30 s, and a send or ping unanswered within 5 s counts as a drop. Redis's subscription has a
  connection of its own, whose silent death no send would reveal: when it has heard nothing
  for 30 s it PINGs the server on that connection, and no answer within 5 s counts as a drop
  too (a server that stopped answering, a connection lost without a word). Connecting and
  subscribing get the same 5 s. What was noted meanwhile is sent then, and followers are
  told to re-read every game they watch (changes published while this process was away are
  gone).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Final, Protocol, TypeAlias

import msgspec

from bot.core.service.events import Event, Refreshed, TurnWarning, UndoAnswered, UndoAsked

if TYPE_CHECKING:
    import asyncpg
    from redis.asyncio import Redis

__all__ = [
    "CHANNEL",
    "Change",
    "Changes",
    "Follower",
    "GameBus",
    "Message",
    "PostgresBus",
    "RedisBus",
    "UndoAnswer",
    "UndoAsk",
    "UndoNote",
    "decode",
    "encode",
    "open_bus",
]

log = logging.getLogger(__name__)

CHANNEL: Final = "gomoku_games"  # the Redis channel and the PostgreSQL notification channel
_BATCH: Final = 200  # changes per message: ~25 bytes each, under NOTIFY's 8,000-byte payload
_FIRST_DELAY_S: Final = 0.1
_IDLE_S: Final = 30.0  # a quiet bus pings its server this often
_LISTEN_IDLE_S: Final = 30.0  # a quiet Redis subscription pings its server this often
_ANSWER_S: Final = 5.0  # a send or a ping not answered by then: the connection is dead
_MAX_DELAY_S: Final = 5.0
_UNDO_NOTES: Final = 1000  # undo messages kept to send while the bus is away (oldest go first)

_Id = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
_Origin = Annotated[str, msgspec.Meta(max_length=64)]


class Change(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """A game's newest stored version."""

    game_id: _Id
    version: _Id


class Changes(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="changes"):
    """One message on the bus: changes stored by the process ``origin``."""

    origin: _Origin
    games: Annotated[list[Change], msgspec.Meta(max_length=_BATCH)]


class UndoAsk(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="undo_asked"):
    """In the process ``origin``, ``requester`` asked ``responder`` to let ``moves`` moves of
    ``game_id`` be taken back, at the game's ``version``."""

    origin: _Origin
    game_id: _Id
    version: _Id
    requester: _Id
    responder: _Id
    moves: Annotated[int, msgspec.Meta(ge=1, le=10_000)]


class UndoAnswer(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="undo_answered"):
    """In the process ``origin``, ``by`` answered the undo request of ``game_id`` through the
    front end ``via``: allowed (``accepted``; ``version`` is the takeback's), refused by the
    responder, or withdrawn by the requester. ``message_id``: the request's Discord message
    as stored (None: not noted yet), which tells this answer from one to a later request
    heard first."""

    origin: _Origin
    game_id: _Id
    version: _Id
    requester: _Id
    responder: _Id
    by: _Id
    accepted: bool
    via: Annotated[str, msgspec.Meta(max_length=32)] | None = None
    message_id: _Id | None = None


UndoNote: TypeAlias = UndoAsk | UndoAnswer
Message: TypeAlias = Changes | UndoAsk | UndoAnswer  # told apart by their "type" field

_encoder: Final = msgspec.json.Encoder()
_decoder: Final[msgspec.json.Decoder[Message]] = msgspec.json.Decoder(Message)


def encode(message: Message) -> bytes:
    """``message`` as the bus carries it."""
    return _encoder.encode(message)


def decode(data: bytes | str) -> Message:
    """A message from the bus.

    Raises:
        ValueError: not a message of the bus (msgspec's ``DecodeError`` and
            ``ValidationError`` are ``ValueError``\\s).
    """
    return _decoder.decode(data)


class Follower(Protocol):
    """What the bus tells: a game changed elsewhere, an undo request was asked or answered
    elsewhere, or changes may have been missed."""

    def changed(self, game_id: int, version: int) -> None:
        """``game_id`` was stored at ``version`` by another process (called on the loop;
        only notes things and starts tasks)."""

    def undo(self, note: UndoNote) -> None:
        """An undo request was asked or answered in another process (called as ``changed``)."""

    def resync(self) -> None:
        """The bus was away: re-read every game shown."""


class GameBus:
    """What both buses share: the noted changes and their sending, the followers, and the
    connection's life (connect, run, reconnect with backoff). A subclass supplies
    ``_session``: connect, call ``_connected``, then send (``_sending``) and receive
    (``_received``) until the connection drops (an exception) or the bus closes."""

    kind = "bus"

    def __init__(self) -> None:
        self.origin = secrets.token_hex(8)  # this process: its own messages are skipped
        self.connected = asyncio.Event()  # set while a connection is up
        self._followers: list[Follower] = []
        self._noted: dict[int, int] = {}
        self._undos: deque[UndoNote] = deque(maxlen=_UNDO_NOTES)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sessions = 0
        self._session_started = asyncio.Event()  # replaced at each new connection
        self._down = False
        self._refused = False

    # ---- the process's side

    def on_event(self, event: Event) -> None:
        """A subscriber of the service: every change this process stores is published.
        ``Refreshed`` is a state read, not a change made here (maybe one learnt from the bus),
        and a warning changes nothing stored. An undo request and its answer go as messages
        of their own (an answer that allowed it after its takeback's change)."""
        if isinstance(event, Refreshed | TurnWarning):
            return
        game = event.game
        self.publish(game.game_id, game.version)
        if isinstance(event, UndoAsked):
            self._note_undo(
                UndoAsk(
                    self.origin,
                    game.game_id,
                    game.version,
                    event.requester,
                    event.responder,
                    event.moves,
                )
            )
        elif isinstance(event, UndoAnswered):
            self._note_undo(
                UndoAnswer(
                    self.origin,
                    game.game_id,
                    game.version,
                    event.requester,
                    event.responder,
                    event.by,
                    event.accepted,
                    event.via,
                    event.message_id,
                )
            )

    def _note_undo(self, note: UndoNote) -> None:
        self._undos.append(note)
        self._wake.set()

    def publish(self, game_id: int, version: int) -> None:
        """Note that ``game_id`` is stored at ``version``; it is sent soon, in a task."""
        if self._noted.get(game_id, -1) < version:
            self._noted[game_id] = version
            self._wake.set()

    def follow(self, follower: Follower) -> None:
        """Tell ``follower`` of every change published by another process from now on."""
        self._followers.append(follower)

    def unfollow(self, follower: Follower) -> None:
        """Stop telling ``follower``."""
        if follower in self._followers:
            self._followers.remove(follower)

    # ---- life

    @property
    def sessions(self) -> int:
        """How many times the bus connected (1 once up; more after reconnections)."""
        return self._sessions

    async def wait_connected(self, sessions: int = 1) -> None:
        """Wait until the bus has connected ``sessions`` times."""
        while self._sessions < sessions:
            await self._session_started.wait()

    def start(self) -> None:
        """Connect in the background (and keep reconnecting): a bus that is away delays
        pages, never the bot."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"game bus ({self.kind})")

    async def close(self) -> None:
        """Stop and disconnect (changes not yet sent are dropped)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.connected.clear()

    async def _run(self) -> None:
        delay = _FIRST_DELAY_S
        while True:
            sessions = self._sessions
            try:
                await self._session()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # whatever the client library raises: never a traceback
                self.connected.clear()
                if not self._down:
                    self._down = True
                    log.warning(
                        "the game bus (%s) is away: %s; reconnecting",
                        self.kind,
                        _reason(error),
                    )
            if self._sessions != sessions:
                delay = _FIRST_DELAY_S  # it was up: the first retry comes soon
            await asyncio.sleep(delay)
            delay = min(delay * 2, _MAX_DELAY_S)

    async def _session(self) -> None:
        raise NotImplementedError

    def _connected(self) -> None:
        """The subclass's connection is up and listening."""
        self._sessions += 1
        self.connected.set()
        self._session_started.set()
        self._session_started = asyncio.Event()
        if self._down:
            self._down = False
            log.info("the game bus (%s) is back", self.kind)
        if self._sessions > 1:
            for follower in tuple(self._followers):
                follower.resync()
        if self._noted or self._undos:
            self._wake.set()

    async def _sending(
        self, send: Callable[[bytes], Awaitable[object]], ping: Callable[[], Awaitable[object]]
    ) -> None:
        """Send the noted changes as they come, a batch per message, then the noted undo
        messages (what fails to go is noted again for the next connection); ``ping`` the
        server when the bus was quiet for a while, so that a connection that died in silence
        is found."""
        while True:
            try:
                async with asyncio.timeout(_IDLE_S):
                    await self._wake.wait()
            except TimeoutError:
                async with asyncio.timeout(_ANSWER_S):
                    await ping()
                continue
            self._wake.clear()
            noted, self._noted = self._noted, {}
            changes = [Change(game_id, version) for game_id, version in noted.items()]
            messages = [
                encode(Changes(self.origin, changes[start : start + _BATCH]))
                for start in range(0, len(changes), _BATCH)
            ]
            messages.extend(encode(note) for note in self._undos)
            self._undos.clear()
            for index, message in enumerate(messages):
                try:
                    async with asyncio.timeout(_ANSWER_S):
                        await send(message)
                except BaseException:
                    self._unsent(messages[index:])
                    raise

    def _unsent(self, messages: list[bytes]) -> None:
        undos = [*self._undos]  # noted since these were taken: they go after them
        self._undos.clear()
        for data in messages:
            message = decode(data)
            if isinstance(message, Changes):
                for change in message.games:
                    self.publish(change.game_id, change.version)
            else:
                self._note_undo(message)
        for note in undos:
            self._note_undo(note)

    def _received(self, data: bytes | str) -> None:
        """A message from the bus (its own included: skipped)."""
        try:
            message = decode(data)
        except ValueError as error:
            if not self._refused:
                self._refused = True
                log.warning("a message on the game bus was not understood: %s", error)
            return
        if message.origin == self.origin:
            return
        for follower in tuple(self._followers):
            try:
                if isinstance(message, Changes):
                    for change in message.games:
                        follower.changed(change.game_id, change.version)
                else:
                    follower.undo(message)
            except Exception:
                log.exception("a follower of the game bus failed")


class RedisBus(GameBus):
    """Redis or Valkey pub/sub (the AI queue's server)."""

    kind = "redis"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    async def _session(self) -> None:
        from redis.asyncio import Redis

        # Named, so that an operator can tell the bus's connections (CLIENT LIST).
        client: Redis = Redis.from_url(self.url, client_name=f"gomoku-bus-{self.origin}")
        pubsub: Any = client.pubsub()  # redis-py leaves it untyped
        try:
            # A server that accepts the connection but never answers (stopped, overloaded)
            # would hold the subscription forever: it must be confirmed in time.
            async with asyncio.timeout(_ANSWER_S):
                await pubsub.subscribe(CHANNEL)
                while (await pubsub.get_message(timeout=None) or {}).get("type") != "subscribe":
                    pass
            self._connected()
            await _first_of(self._send(client), self._receive(pubsub))
        finally:
            # Bounded: closing must not wait on a server that stopped answering.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pubsub.aclose(), _ANSWER_S)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.aclose(), _ANSWER_S)

    async def _send(self, client: Redis) -> None:
        await self._sending(lambda message: client.publish(CHANNEL, message), client.ping)

    async def _receive(self, pubsub: Any) -> None:
        """Hand on what the subscription hears. After ``_LISTEN_IDLE_S`` of silence it PINGs the
        server on the subscription's own connection and wants the answer (any message)
        within ``_ANSWER_S``: a write into a connection that died in silence succeeds, so
        only a missing answer shows it."""
        loop = asyncio.get_running_loop()
        answer_by: float | None = None  # a ping is out: something must be heard by then
        while True:
            wait = _LISTEN_IDLE_S if answer_by is None else answer_by - loop.time()
            if wait <= 0:
                raise TimeoutError("the subscription did not answer its ping")
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=wait)
            if message is None:
                if answer_by is None:
                    async with asyncio.timeout(_ANSWER_S):
                        await pubsub.ping()  # its answer comes as a message ("pong")
                    answer_by = loop.time() + _ANSWER_S
                continue
            answer_by = None  # heard: the subscription lives
            if message.get("type") == "message":
                self._received(message["data"])


class PostgresBus(GameBus):
    """PostgreSQL ``LISTEN``/``NOTIFY`` on one connection of its own."""

    kind = "postgresql"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    async def _session(self) -> None:
        import asyncpg

        connection: asyncpg.Connection = await asyncpg.connect(
            self.url,
            timeout=10,
            server_settings={"application_name": f"gomoku bus {self.origin}"},
        )
        lost = asyncio.Event()
        connection.add_termination_listener(lambda _connection: lost.set())
        try:
            await connection.add_listener(CHANNEL, self._notified)
            self._connected()
            await _first_of(self._send(connection), _until_lost(lost))
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.close(), 5)

    def _notified(self, _connection: object, _pid: int, _channel: str, payload: object) -> None:
        if isinstance(payload, str):
            self._received(payload)

    async def _send(self, connection: asyncpg.Connection) -> None:
        await self._sending(
            lambda message: connection.execute(
                "SELECT pg_notify($1, $2)", CHANNEL, message.decode()
            ),
            lambda: connection.execute("SELECT 1"),
        )


async def _until_lost(lost: asyncio.Event) -> None:
    await lost.wait()
    raise ConnectionError("the connection was closed")


async def _first_of(*coroutines: Any) -> None:
    """Run ``coroutines`` until the first one ends; its exception (if any) is raised."""
    tasks = [asyncio.ensure_future(coroutine) for coroutine in coroutines]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in done:
        task.result()


def _reason(error: BaseException) -> str:
    """A short reason, without the URL or anything else a message might carry."""
    return type(error).__name__


def open_bus(database_url: str | None, ai_queue_url: str | None) -> GameBus | None:
    """The deployment's bus, not yet started: none without PostgreSQL (one process, on the
    SQLite file), Redis's where the AI queue runs, else PostgreSQL's."""
    if database_url is None:
        return None
    if ai_queue_url is not None:
        return RedisBus(ai_queue_url)
    return PostgresBus(database_url)
