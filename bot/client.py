"""``GomokuBot``: the discord.py client that hosts games over ``GameService`` (the
``TournamentService`` kind, which also runs the club's tournaments).

Lifecycle: ``setup_hook`` opens the repository and the AI pool (unless the caller handed them
in), builds the service, its runner (``bot.core.runner``: AI replies, clocks, resumption) and
the table (``bot.table``, which subscribes to the service's events to draw what no interaction
answers), registers the buttons (``DynamicItem`` custom ids survive restarts) and loads the
commands. Once connected, the runner's clocks start: it resumes every open game (an AI move
that was due when the process stopped is made now), enforces turn deadlines and, every
``resume_every`` seconds, resumes the games idle that long (an AI move whose search failed
twice is retried without a restart). ``close`` stops the runner and the tasks, then closes
what the bot opened.

What every interaction asks first, the guild's settings and the language to answer in, is
kept by ``bot.preferences``. Cogs and views see the bot as a ``bot.host.GameHost``.

Start-up waits for Discord as long as it is unreachable: ``login`` tries again after each
network fault or 5xx, with a growing pause and one warning line each, and runs ``setup_hook``
once logged in; ``connect`` starts discord.py's gateway loop again where it fails before the
first connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

import aiohttp
import discord
from discord.ext import commands
from discord.http import Route

from bot.club import Club
from bot.cooldown import UserCooldown
from bot.core.admission import StartAdmission
from bot.core.club.pairer import WorkerPairer
from bot.core.runner import GameRunner
from bot.core.service.tournaments import TournamentService
from bot.deferral import AckClock
from bot.heap import HeapKeeper
from bot.preferences import Preferences
from bot.reporting import GomokuTree
from bot.table import AI_REPLY_WAIT, Table
from bot.text import i18n
from bot.translator import CatalogueTranslator
from bot.turns import finish_interrupted_replies
from bot.views import ACTIONS, unknown_button

if TYPE_CHECKING:
    from bot.core.ai import AIRunner
    from bot.settings import Settings
    from bot.shards import ShardSpec
    from bot.web.server import WebBoard
    from storage.repository import GameRepository

__all__ = ["NETWORK_FAULTS", "Backoff", "GomokuBot", "network_fault"]

log = logging.getLogger(__name__)

MENTIONS: Final = discord.AllowedMentions(everyone=False, roles=False, users=True)
_PING_DRAIN_S: Final = 5.0  # how long shutting down waits for the turn pings under way
_ANSWER_DRAIN_S: Final = 5.0  # how long shutting down waits for moves' handlers to answer
T = TypeVar("T")

# What a start-up attempt that could not reach Discord raises: a name that does not resolve,
# a refused or reset connection, a timeout (all OSError or aiohttp's errors), or Discord's own
# 5xx once discord.py's retries of it are spent. Worth retrying; nothing else is.
NETWORK_FAULTS: Final = (OSError, aiohttp.ClientError, TimeoutError, discord.DiscordServerError)


def _utcnow() -> datetime:
    return datetime.now(UTC)


def network_fault(error: BaseException) -> str:
    """``error`` (one of ``NETWORK_FAULTS``) as one short line for the log."""
    if isinstance(error, discord.DiscordServerError):
        return f"Discord answered {error.status} {error.response.reason or ''}".rstrip()
    text = " ".join(str(error).split())  # no newline may split the log line
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Backoff:
    """Exponential backoff with jitter: the n-th delay is ``base * 2**n`` capped at ``ceiling``,
    then drawn from its upper half, so that many bots cut off by one outage do not all come
    back in the same second."""

    def __init__(self, base: float, ceiling: float, rng: random.Random | None = None) -> None:
        self.base = base
        self.ceiling = ceiling
        self.attempts = 0  # delays handed out so far
        self._rng = rng or random.Random()

    def delay(self) -> float:
        """The wait before the next attempt, in seconds."""
        cap = min(self.ceiling, self.base * 2.0 ** min(self.attempts, 62))
        self.attempts += 1
        return self._rng.uniform(cap / 2, cap)


class GomokuBot(commands.Bot):
    """The bot. Build it with ``bot.app.create_bot``; tests may hand in parts (see __init__)."""

    service: TournamentService
    runner: GameRunner
    web_board: WebBoard | None = None  # the web board's server, when configured

    def __init__(
        self,
        settings: Settings,
        *,
        repository: GameRepository | None = None,
        ai: AIRunner | None = None,
        clock: Callable[[], datetime] = _utcnow,
        rng: random.Random | None = None,
        cooldown: UserCooldown | None = None,
        deadline_poll: float = 30.0,
        resume_every: float = 60.0,
        acks: AckClock | None = None,
        ai_reply_wait: float = AI_REPLY_WAIT,
        freeze_heap: bool = False,
        extensions: Sequence[str] = (),
        **options: Any,
    ) -> None:
        """``repository``/``ai`` given here are the caller's to close; those the bot opens
        itself (from ``settings``) it closes. ``owned_shards`` (a ``bot.shards.ShardSpec``) limits
        the games it resumes and times to its shards' guilds; ``create_bot`` passes the same
        to discord.py. ``freeze_heap``: once ready, move everything start-up built out of the
        garbage collector's sight, and then what each full collection leaves (``bot.heap``;
        the bot's own process only). ``extensions``: the modules whose ``setup`` adds the
        commands and buttons (``bot.app.EXTENSIONS``). ``options`` go to ``commands.Bot``."""
        self.owned_shards: ShardSpec | None = options.pop("owned_shards", None)
        intents = discord.Intents.none()
        intents.guilds = True  # channels and the bot's own member: all slash commands need
        options.setdefault("allowed_mentions", MENTIONS)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=GomokuTree,
            help_command=None,
            **options,
        )
        self.settings = settings
        self.clock = clock  # timezone-aware UTC; shared with the service
        self.rng = rng or random.Random()
        self.cooldown = cooldown or UserCooldown()
        self.deadline_poll = deadline_poll  # longest sleep of the runner's clock task, in seconds
        self.resume_every = resume_every  # seconds between the runner's retries of AI moves
        self.freeze_heap = freeze_heap
        self.extensions_to_load = tuple(extensions)
        self._given_repository = repository
        self._given_ai = ai
        self._stack = contextlib.AsyncExitStack()
        self._shutdown: asyncio.Future[None] | None = None
        self._stopping = asyncio.Event()  # set by close(): start-up stops waiting for Discord
        self._defer_setup = False  # True while login may still fail and be tried again
        self._known_items: list[type[discord.ui.DynamicItem[Any]]] = []
        self._unknown_item: type[discord.ui.DynamicItem[Any]] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.table = Table(self, acks=acks, ai_reply_wait=ai_reply_wait)
        self.preferences = Preferences(self)
        self.club = Club(self)
        self.start_admission = StartAdmission()

    # ------------------------------------------------------------------ lifecycle

    async def login(self, token: str) -> None:
        """Log in, waiting for Discord as long as it takes: a network fault or a 5xx before
        ``setup_hook`` is retried with ``Backoff`` (one WARNING line each, never a traceback);
        a refused token raises ``discord.LoginFailure`` at once. Returns without logging in
        when the bot is closed meanwhile. The metrics (``GOMOKU_METRICS_PORT``) are served
        from here on, so that the health check can tell "connecting" from "down"."""
        if self.settings.metrics_port is not None:
            from bot import metrics

            metrics.serve(self.settings.metrics_port)
            metrics.watch(self)
            metrics.CONNECTING.set(1)  # until on_ready
        self._defer_setup = True
        try:
            await self._until_reachable("logging in", lambda: self._log_in_once(token))
        finally:
            self._defer_setup = False
        if self._stopping.is_set():
            await self.close()  # connect() then returns at once: the bot is closed
            return
        await self.setup_hook()

    async def connect(self, *, reconnect: bool = True) -> None:
        """discord.py's gateway loop, which reconnects with its own backoff (``bot.app`` logs
        each reconnection as one WARNING line). Before the first connection succeeded
        discord.py has no session to resume and fails on the missing one after its wait
        (an ``AttributeError`` on ``ws``): start it again then."""
        while True:
            try:
                await super().connect(reconnect=reconnect)
            except AttributeError:
                if self.ws is not None or self.is_closed() or not reconnect:
                    raise
                continue
            return

    async def _log_in_once(self, token: str) -> None:
        try:
            await super().login(token)  # its setup_hook call returns at once (_defer_setup)
        except NETWORK_FAULTS:
            # Each login opens a new HTTP session on the client's connector: close this one
            # (which closes the connector too) and let the next attempt make both afresh, or
            # aiohttp reports the abandoned session as an error when it is collected.
            await self.http.close()
            self.http.connector = discord.utils.MISSING
            raise

    async def _until_reachable(self, what: str, attempt: Callable[[], Awaitable[T]]) -> T | None:
        """``attempt()``, again after each network fault (``NETWORK_FAULTS``) until it
        succeeds, waiting ``Backoff``'s delays; None when the bot is closed first."""
        settings = self.settings
        backoff = Backoff(settings.connect_retry_min_s, settings.connect_retry_max_s, self.rng)
        while not self._stopping.is_set():
            try:
                return await attempt()
            except NETWORK_FAULTS as error:
                delay = backoff.delay()
                log.warning(
                    "Discord is unreachable (%s): %s; trying again in %.1f s",
                    what,
                    network_fault(error),
                    delay,
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=delay)
        return None

    async def setup_hook(self) -> None:
        """Open storage and the AI pool, build the service, register buttons and commands."""
        if self._defer_setup:
            return  # discord.py's login calls it; GomokuBot.login does once logged in
        repository = self._given_repository
        if repository is None:
            from storage.opening import open_repository

            repository = await self._stack.enter_async_context(
                open_repository(self.settings.db_path, self.settings.database_url, clock=self.clock)
            )
        if self.owned_shards is not None:
            from bot.shards import OwnedGames

            repository = OwnedGames.wrap(repository, self.owned_shards)
        ai = self._given_ai
        if ai is None and self.settings.ai_queue_url:
            from bot.core.queue_ai import QueueRunner

            ai = await QueueRunner.connect(self.settings.ai_queue_url)
            self._stack.push_async_callback(ai.close)
        if ai is None:
            from bot.core.ai import ProcessPoolRunner

            ai = await ProcessPoolRunner.start(game_modules=self.settings.game_modules)
            self._stack.push_async_callback(ai.close)
        if self.settings.metrics_port is not None:
            from bot import metrics

            ai = metrics.MeteredRunner(ai)
        # The clocks stand still while Discord does not answer: for the runner's deadlines and
        # for the lateness of a move alike (one place: the service's ``clocks_stopped_at``).
        self.service = TournamentService(
            repository,
            ai,
            clock=self.clock,
            rng=self.rng,
            clocks_stopped_at=self.table.faults.stopped_at,
            settings_of=self.preferences.guild_settings,
        )
        # Tournament rounds are paired in a process of their own, off the event loop.
        self.service.round_pairer = WorkerPairer()
        self._stack.push_async_callback(self.service.round_pairer.close)
        self.runner = GameRunner(
            self.service, poll=self.deadline_poll, resume_every=self.resume_every
        )
        self.runner.subscribe()  # AI replies at once; the clocks once connected
        self.service.subscribe(self.table.on_event, Table.EVENTS)
        self.service.subscribe(self.club.on_event, Club.EVENTS)
        from bot.core.bus import open_bus

        # With PostgreSQL there may be other processes (shards): each tells the others' web
        # board pages of the moves it stores.
        bus = open_bus(self.settings.database_url, self.settings.ai_queue_url)
        if bus is not None:
            self.service.subscribe(bus.on_event)
            self.table.follow(bus)  # answers given in another process to requests posted here
            bus.start()
            self._stack.push_async_callback(bus.close)
        # The service imports the engine's levels (and so numba) on the first game against the
        # AI: import them now rather than stall the event loop for a third of a second then.
        await asyncio.to_thread(importlib.import_module, "engine.search.levels")
        self.add_dynamic_items(*ACTIONS)
        for extension in self.extensions_to_load:
            await self.load_extension(extension)
        await asyncio.to_thread(i18n.load_all)
        await self.tree.set_translator(CatalogueTranslator())
        await self._until_reachable("registering the commands", self.sync_commands)
        if self._stopping.is_set():
            return  # closed while Discord was away: start nothing that close() would miss
        from bot.weblink import start_web

        self.web_board = await start_web(self, self.application_id, bus)
        if self.web_board is not None:
            self._stack.push_async_callback(self.web_board.close)
        self.spawn(self._run_games())
        if self.freeze_heap:
            self.spawn(self._freeze_heap())

    async def _freeze_heap(self) -> None:
        # Once ready, what start-up built is frozen, and after it what each full collection
        # leaves (bot.heap): a full collection, a stall of every command in flight, walks only
        # what came since the last one.
        await self.wait_until_ready()
        keeper = HeapKeeper()
        keeper.start()
        self._stack.callback(keeper.stop)

    async def sync_commands(self) -> bool:
        """Register the commands with Discord when what is registered differs from the code.

        Registration is rate limited, so it happens only after a change (a deploy), not on
        every start. With ``GOMOKU_DEV_GUILD_ID`` the commands go to that guild, where Discord
        shows changes at once. Returns whether it registered anything.
        """
        guild_id = self.settings.dev_guild_id
        guild = None if guild_id is None else discord.Object(guild_id)
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        assert self.application_id is not None  # known after login, before setup_hook
        # Discord leaves the translations out of its copy unless asked for them.
        if guild is None:
            route = Route("GET", "/applications/{app}/commands", app=self.application_id)
        else:
            route = Route(
                "GET",
                "/applications/{app}/guilds/{guild}/commands",
                app=self.application_id,
                guild=guild.id,
            )
        registered = await self.http.request(route, params={"with_localizations": "true"})
        translator = self.tree.translator
        wanted = [
            await command.get_translated_payload(self.tree, translator)
            if translator is not None
            else command.to_dict(self.tree)
            for command in self.tree.get_commands(guild=guild)
        ]
        if _shape(wanted) == _shape(registered):
            self.preferences.command_ids = {c["name"]: int(c["id"]) for c in registered}
            return False
        synced = await self.tree.sync(guild=guild)
        self.preferences.command_ids = {command.name: command.id for command in synced}
        return True

    async def close(self) -> None:
        """Stop the background tasks, disconnect, then close the repository and AI pool.
        Any number of callers (a signal, ``async with``) share the one shutdown."""
        self._stopping.set()
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(self._shutdown)

    async def _shut_down(self) -> None:
        if hasattr(self, "runner"):
            await self.runner.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        # A move's handler stopped mid-answer (its AI reply cancelled above) still answers the
        # player, through the HTTP session that closing cuts.
        await self.table.answers_done(within_s=_ANSWER_DRAIN_S)
        # A ping sent but not yet stored would be left in its channel after a restart.
        await self.table.turn_pings.drain(within_s=_PING_DRAIN_S)
        await super().close()
        await self._stack.aclose()

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Register button items (any cog may); the item that answers every other
        ``gomoku:`` id is rebuilt each time to leave all the registered ones alone."""
        super().add_dynamic_items(*items)
        self._known_items.extend(items)
        if self._unknown_item is not None:
            super().remove_dynamic_items(self._unknown_item)
        self._unknown_item = unknown_button(tuple(self._known_items))
        super().add_dynamic_items(self._unknown_item)

    def spawn(self, coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run ``coroutine`` in a task that shutting down cancels."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def forget_settings(self, guild_id: int) -> None:
        """The guild's settings changed: read them again next time."""
        self.preferences.forget_settings(guild_id)
        self.table.turn_pings.forget_settings(guild_id)

    # ------------------------------------------------------------------ background tasks

    async def _run_games(self) -> None:
        """Once connected (what the clocks do is drawn in channels), start the runner; once
        it has resumed the games, run the tournaments and the pairing queues (``bot.club``)
        and fill in the replies a stop interrupted."""
        await self.wait_until_ready()
        self.runner.start()
        await self.runner.resumed.wait()
        try:
            # Tournaments resume once the games have: a board's game that ended while the
            # bot was away has its result, and a round that became due is paired now.
            await self.service.run_tournaments(
                self.club.board_channel, self.club.round_finished, self.club.clock_started
            )
        except Exception:
            log.exception("resuming the tournaments failed")
        try:
            await self.club.resume_queue()  # the members waiting when the last process stopped
        except Exception:
            log.exception("resuming the pairing queues failed")
        try:
            await self.table.faults.redraw_unshown()
        except Exception:
            log.exception("redrawing boards behind their games failed")
        try:
            await self.table.close_stale_undo_requests()
        except Exception:
            log.exception("closing the undo requests that ended meanwhile failed")
        try:
            await finish_interrupted_replies(self)
        except Exception:
            log.exception("finishing interrupted replies failed")
        log.info("resumed what the last stop left: games, tournaments, queues, boards, replies")


def _shape(commands: Sequence[Any]) -> list[Any]:
    """What users see of a command list, comparable between code and Discord's copy."""

    def localised(node: Any, key: str) -> tuple[Any, ...]:
        return tuple(sorted((node.get(key) or {}).items()))

    def option(node: Any) -> tuple[Any, ...]:
        choices = tuple(
            (c["name"], c["value"], localised(c, "name_localizations"))
            for c in node.get("choices") or ()
        )
        return (
            localised(node, "name_localizations"),
            localised(node, "description_localizations"),
            node.get("type", 1),
            node["name"],
            node.get("description", ""),
            bool(node.get("required", False)),
            bool(node.get("autocomplete", False)),
            choices,
            node.get("min_value"),
            node.get("max_value"),
            tuple(option(child) for child in node.get("options") or ()),
        )

    def command(node: Any) -> tuple[Any, ...]:
        permissions = node.get("default_member_permissions")
        return (option(node), None if permissions is None else str(permissions))

    return sorted(command(node) for node in commands)
