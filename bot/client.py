"""``GomokuBot``: the discord.py client that hosts games over ``GameService``.

Lifecycle: ``setup_hook`` opens the repository and the AI pool (unless the caller handed them
in), builds the service, registers the buttons (``DynamicItem`` custom ids survive restarts),
loads the commands, and starts two background tasks: one that resumes every open game (an AI
move that was due when the process stopped is made now) and one that enforces turn
deadlines and, every ``resume_every`` seconds, resumes the games idle that long (an AI move
whose search failed twice is retried without a restart). ``close`` stops the tasks, then
closes what the bot opened.

Showing a game: one message per game, edited move by move (``show_game``). It is posted anew
when it is missing, when it is more than an hour old (Discord limits edits of old messages
harder, error 30046) or when ``/gomoku board`` asks; the old one is deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import io
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, TypeVar

import discord
from discord.ext import commands
from discord.http import Route

from bot.core.admission import StartAdmission
from bot.core.service import (
    ChallengeExpired,
    GameEnd,
    GameService,
    GameStatus,
    GameView,
    MoveResult,
    OutOfTimeError,
    RatingChange,
    TurnWarning,
)
from bot.reporting import GomokuTree, UserCooldown
from bot.text import i18n, render, words
from bot.text.opening_words import choice_summary
from bot.text.render_png import render_png_async
from bot.turns import TurnPings, finish_interrupted_replies, remember_reply
from bot.views import ACTIONS, game_buttons, unknown_button
from engine.types import Point

if TYPE_CHECKING:
    from bot.core.ai import AIRunner
    from bot.settings import Settings
    from bot.shards import ShardSpec
    from storage.repository import GameRepository, GuildSettings, PendingReply

__all__ = ["ACK_AFTER", "AI_REPLY_WAIT", "REPOST_AGE", "GomokuBot"]

log = logging.getLogger(__name__)

REPOST_AGE: Final = timedelta(hours=1)  # edits of older messages hit a stricter rate limit
_OLD_MESSAGE_EDIT: Final = 30046  # Discord: too many edits to messages older than an hour
MENTIONS: Final = discord.AllowedMentions(everyone=False, roles=False, users=True)
# Discord wants a first answer within 3 s of the event; this leaves room for the gateway's
# delivery and for a loaded event loop.
ACK_AFTER: Final = 1.5
# A /place against the AI waits this long for the AI's answer before it defers ("thinking..."):
# the easy levels answer well within it even under load, in one message instead of a
# deferral, its edit and the reply's note in storage (two writes) until then.
AI_REPLY_WAIT: Final = 0.5
_LANGUAGE_CACHE: Final = 50_000  # users whose chosen language is kept in memory
# A member's choice is stored by the process that served /gomoku language; other shard
# processes see it once their copy is this old.
LANGUAGE_TTL: Final = timedelta(seconds=60)
# The longest an interaction waits for its member's stored language before anything else
# happens: a database queueing a burst must not cost the answer its 3 s. Past it the answer
# goes in the language known before (else the Discord client's); the read lands for the next.
LANGUAGE_WAIT: Final = 1.0
DEFERRAL: Final = "deferral"  # interaction.extras: the callback of in_time's deferral
_ARRIVED: Final = "arrived"  # interaction.extras: the event loop's time when it reached enter()
_PING_DRAIN_S: Final = 5.0  # how long shutting down waits for the turn pings under way
T = TypeVar("T")


def _utcnow() -> datetime:
    return datetime.now(UTC)


class GomokuBot(commands.Bot):
    """The bot. Build it with ``bot.app.create_bot``; tests may hand in parts (see __init__)."""

    service: GameService

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
        ack_after: float = ACK_AFTER,
        ai_reply_wait: float = AI_REPLY_WAIT,
        freeze_heap: bool = False,
        **options: Any,
    ) -> None:
        """``repository``/``ai`` given here are the caller's to close; those the bot opens
        itself (from ``settings``) it closes. ``owned_shards`` (a ``bot.shards.ShardSpec``) limits
        the games it resumes and times to its shards' guilds; ``create_bot`` passes the same
        to discord.py. ``freeze_heap``: once ready, move everything start-up built out of the
        garbage collector's sight (``gc.freeze``; the bot's own process only, see
        ``_freeze_heap``). ``options`` go to ``commands.Bot``."""
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
        self.deadline_poll = deadline_poll  # longest sleep of the deadline task, in seconds
        self.resume_every = resume_every  # seconds between the deadline task's resume() calls
        self.ack_after = ack_after  # a write slower than this is answered by a deferral first
        self.language_wait = LANGUAGE_WAIT  # the longest an interaction waits for it
        self.ai_reply_wait = ai_reply_wait  # an AI slower than this: the /place is deferred
        self.freeze_heap = freeze_heap
        self._given_repository = repository
        self._given_ai = ai
        self._stack = contextlib.AsyncExitStack()
        self._shutdown: asyncio.Future[None] | None = None
        self._known_items: list[type[discord.ui.DynamicItem[Any]]] = []
        self._unknown_item: type[discord.ui.DynamicItem[Any]] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._wake = asyncio.Event()
        self._show_locks: dict[int, asyncio.Lock] = {}
        self._shown: dict[int, int] = {}  # game id -> the newest version drawn
        # game id -> its board message, known here before the view from the store says so
        self._board_ids: dict[int, int] = {}
        # guild id -> its settings, and the reads of them under way (guild_settings)
        self._settings: dict[int, GuildSettings] = {}
        self._settings_reads: dict[int, asyncio.Future[GuildSettings]] = {}
        # user id -> the language they chose (None: Discord's), and when it was read
        self._user_languages: dict[int, tuple[str | None, datetime]] = {}
        self._language_reads: dict[int, asyncio.Future[str | None]] = {}  # under way
        self.turn_pings = TurnPings()
        self.start_admission = StartAdmission()

    # ------------------------------------------------------------------ lifecycle

    async def setup_hook(self) -> None:
        """Open storage and the AI pool, build the service, register buttons and commands."""
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

            ai = await ProcessPoolRunner.start()
            self._stack.push_async_callback(ai.close)
        if self.settings.metrics_port is not None:
            from bot import metrics

            metrics.serve(self.settings.metrics_port)
            metrics.watch(self)
            ai = metrics.MeteredRunner(ai)
        self.service = GameService(repository, ai, clock=self.clock, rng=self.rng)
        # The service imports the engine's levels (and so numba) on the first game against the
        # AI: import them now rather than stall the event loop for a third of a second then.
        await asyncio.to_thread(importlib.import_module, "engine.search.levels")
        self.add_dynamic_items(*ACTIONS)
        from bot.cogs import play

        await play.setup(self)
        await asyncio.to_thread(i18n.load_all)
        await self.tree.set_translator(i18n.command_translator())
        await self.sync_commands()
        self._spawn(self._resume())
        self._spawn(self._deadline_loop())
        if self.freeze_heap:
            self._spawn(self._freeze_heap())

    async def _freeze_heap(self) -> None:
        # A full collection walks every object the process holds: with numba, the engine,
        # the catalogues and discord.py's caches that took 60-110 ms under bench_load at 500
        # games, a stall of every command in flight, four to seven times a run. What exists
        # once the bot is ready lives as long as the process: frozen, collections skip it
        # (15-20 ms each then). Garbage is collected first so that none is frozen.
        await self.wait_until_ready()
        gc.collect()
        gc.freeze()

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
            return False
        await self.tree.sync(guild=guild)
        return True

    async def close(self) -> None:
        """Stop the background tasks, disconnect, then close the repository and AI pool.
        Any number of callers (a signal, ``async with``) share the one shutdown."""
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(self._shutdown)

    async def _shut_down(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        # A ping sent but not yet stored would be left in its channel after a restart.
        await self.turn_pings.drain(within_s=_PING_DRAIN_S)
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

    def _spawn(self, coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def in_time(
        self,
        interaction: discord.Interaction[Any],
        work: Awaitable[T],
        *,
        ephemeral: bool = False,
        thinking: bool = False,
    ) -> T:
        """Await ``work`` (a service call that writes), acknowledging ``interaction`` with a
        deferral if it is not done ``ack_after`` seconds after the interaction arrived. A
        database busy for seconds (another process holding a write lock) then delays the
        answer instead of losing it to Discord's 3 s deadline after the write has landed. A
        fast call costs nothing: the caller answers in one request as before, and checks
        ``response.is_done()``."""
        if interaction.response.is_done():
            return await work

        async def defer() -> None:
            try:
                deferral = await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)
                interaction.extras[DEFERRAL] = deferral
            except discord.HTTPException:
                # Too late already (the event reached us late): the work goes on regardless.
                log.warning("could not acknowledge interaction %s in time", interaction.id)

        # The work runs in this task and a timer starts the deferral beside it: a task for the
        # work and asyncio.wait cost two more turns of a loop that, under load, is slow to turn.
        # Discord's 3 s run from the event, so the time the interaction already spent here (its
        # member's language, read for a newcomer: up to language_wait) comes off the timer's.
        loop = asyncio.get_running_loop()
        waited = loop.time() - interaction.extras.get(_ARRIVED, loop.time())
        deferring: list[asyncio.Task[None]] = []
        timer = loop.call_later(
            max(0.0, self.ack_after - waited),
            lambda: deferring.append(asyncio.ensure_future(defer())),
        )
        try:
            return await work
        finally:
            timer.cancel()
            if deferring:
                await deferring[0]  # the caller answers next: only after the deferral did

    def wake_deadlines(self, view: GameView | None = None) -> None:
        """Re-plan the deadline task: ``view`` got a new deadline (a move in a game with a
        clock, a new challenge). Games without one don't wake it: every wake-up reads the
        open games."""
        if view is None or view.deadline is not None:
            self._wake.set()

    # ------------------------------------------------------------------ showing games

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, kept until ``forget_settings``: they change only through a
        command of that guild, which its shard's process (this one) serves and which forgets
        them. Reads of a guild not kept yet share one: a burst of starts in a guild asked the
        database the same question hundreds of times before any of them could answer."""
        kept = self._settings.get(guild_id)
        if kept is not None:
            return kept
        read = self._settings_reads.get(guild_id)
        if read is None:
            read = asyncio.ensure_future(self.service.settings(guild_id))
            self._settings_reads[guild_id] = read

            def landed(done: asyncio.Future[GuildSettings]) -> None:
                if self._settings_reads.get(guild_id) is not done:
                    return  # forgotten while under way: it may hold the old settings
                del self._settings_reads[guild_id]
                if not done.cancelled() and done.exception() is None:
                    self._settings[guild_id] = done.result()

            read.add_done_callback(landed)
        return await asyncio.shield(read)

    async def board_style(self, guild_id: int | None) -> render.BoardStyle:
        """The guild's board style."""
        if guild_id is None:
            return render.BoardStyle.EMOJI
        settings = await self.guild_settings(guild_id)
        try:
            return render.BoardStyle(settings.board_style)
        except ValueError:
            return render.BoardStyle.EMOJI

    async def enter(self, interaction: discord.Interaction[Any]) -> None:
        """Set the language of everything said in answer to ``interaction``: the user's own
        choice, else their Discord client's; and note the server's Discord language for
        public messages. Called before any command or button does anything."""
        interaction.extras.setdefault(_ARRIVED, asyncio.get_running_loop().time())
        user_id = interaction.user.id
        cached = self._user_languages.get(user_id)
        if cached is None or self.clock() - cached[1] >= LANGUAGE_TTL:
            read = self._language_reads.get(user_id) or self._read_language(user_id)
            try:
                chosen = await asyncio.wait_for(asyncio.shield(read), self.language_wait)
            except TimeoutError:
                log.info("language of user %s not read in time", user_id)
                chosen = None if cached is None else cached[0]
        else:
            chosen = cached[0]
        language = chosen or i18n.from_discord(interaction.locale) or i18n.DEFAULT
        i18n.set_current(language, server=i18n.from_discord(interaction.guild_locale))

    def _read_language(self, user_id: int) -> asyncio.Future[str | None]:
        """Read ``user_id``'s chosen language into the cache, once however many interactions
        of theirs wait for it."""
        started = self.clock()
        read = asyncio.ensure_future(self.service.language(user_id))
        self._language_reads[user_id] = read

        def landed(done: asyncio.Future[str | None]) -> None:
            self._language_reads.pop(user_id, None)
            if done.cancelled() or done.exception() is not None:
                return  # said to the interactions waiting for it; the next one reads again
            if len(self._user_languages) >= _LANGUAGE_CACHE:
                self._user_languages.clear()  # members seen long ago are read again
            self._user_languages[user_id] = (done.result(), started)

        read.add_done_callback(landed)
        return read

    def forget_language(self, user_id: int) -> None:
        """The user chose another language: read it again next time."""
        self._user_languages.pop(user_id, None)

    async def server_language(self, guild_id: int | None) -> str:
        """The language of ``guild_id``'s public messages: the one its admins chose, else
        the server's language in Discord, else English."""
        if guild_id is not None:
            chosen = (await self.guild_settings(guild_id)).language
            if chosen is not None:
                return chosen
            guild = self.get_guild(guild_id)
            if guild is not None:
                found = i18n.from_discord(guild.preferred_locale)
                if found is not None:
                    return found
        return i18n.server_hint() or i18n.DEFAULT

    def forget_settings(self, guild_id: int) -> None:
        """Settings changed: read them again next time."""
        self._settings.pop(guild_id, None)
        self._settings_reads.pop(guild_id, None)
        self.turn_pings.forget_settings(guild_id)

    async def board_message(
        self, view: GameView, ratings: Sequence[RatingChange] = ()
    ) -> dict[str, Any]:
        """The keyword arguments that draw ``view`` (embed, buttons, mentions)."""
        style = await self.board_style(view.guild_id)
        # The public board must fit a phone in portrait: large boards show a window of it.
        viewport = render.phone_viewport(view.board, style)
        embed = render.game_card(view, style=style, viewport=viewport).to_embed()
        attachments: list[discord.File] = []
        if style is render.BoardStyle.IMAGE:
            # Pillow drawing is CPU work: keep it off the event loop.
            png = await render_png_async(view.board)
            attachments.append(discord.File(io.BytesIO(png), filename="board.png"))
            embed.set_image(url="attachment://board.png")
        for change in ratings:
            embed.add_field(
                name=words.rating_field(),
                value=f"<@{change.user_id}>: {change.before} → {change.after}",
            )
        content = ""
        if view.status is GameStatus.PENDING:
            # Ping the challenged user (creation pings, edits never do).
            challenged = [p for p in view.humans if p != view.challenger]
            content = " ".join(f"<@{user}>" for user in challenged)
        buttons = game_buttons(view)
        return {"content": content, "embed": embed, "view": buttons, "attachments": attachments}

    async def show_game(
        self,
        view: GameView,
        *,
        interaction: discord.Interaction[Any] | None = None,
        ratings: Sequence[RatingChange] = (),
        repost: bool = False,
        pinged: int | None = None,
    ) -> None:
        """Draw ``view`` on its board message: edit it, or post it anew (see module doc).

        ``interaction``: when it is a button on that very message (or the command whose
        response is that message), the edit goes through the interaction token. ``pinged``:
        the message that already told the player to move (``bot.turns``).
        """
        with i18n.using(await self.server_language(view.guild_id)):  # the board is public
            await self._show_game(
                view, interaction=interaction, ratings=ratings, repost=repost, pinged=pinged
            )

    async def _show_game(
        self,
        view: GameView,
        *,
        interaction: discord.Interaction[Any] | None,
        ratings: Sequence[RatingChange],
        repost: bool,
        pinged: int | None = None,
    ) -> None:
        lock = self._show_locks.setdefault(view.game_id, asyncio.Lock())
        async with lock:
            if self._shown.get(view.game_id, -1) > view.version and not repost:
                return  # a newer state is already on screen
            self._shown[view.game_id] = view.version
            message_args = await self.board_message(view, ratings)
            message_id = self._board_ids.get(view.game_id, view.record.message_id)
            target = None if repost else self._board_target(view)
            edited = False
            if target is not None:
                edited = await self._try_edit(view, target, message_args, interaction)
            if not edited:
                await self._post_board(view, message_args, old=message_id)
        if view.is_over and view.record.parent_channel_id is not None:
            from bot.threads import close_thread

            await close_thread(self, view)
        # In its own task: nothing here waits for it.
        self.turn_pings.announce(self, view, sent=pinged)
        if view.is_over:
            # Nothing will redraw a finished game except /gomoku board: forget its state.
            self._show_locks.pop(view.game_id, None)
            self._shown.pop(view.game_id, None)
            self._board_ids.pop(view.game_id, None)

    async def answer_with_board(
        self,
        interaction: discord.Interaction[Any],
        view: GameView,
        *,
        ratings: Sequence[RatingChange] = (),
    ) -> None:
        """Draw ``view`` as the answer to ``interaction``, a button on the game's board: the
        redraw of that message is the button's answer, in its own callback (one request).
        When the board is another message (posted anew, an older copy clicked) or is to be
        posted anew, the button is acknowledged first and the board drawn after: Discord's
        3 s must not wait on the requests of a redraw that cannot answer it."""
        if not interaction.response.is_done():
            target = self._board_target(view)
            if target is None or not _answers_on(interaction, target):
                await interaction.response.defer()
        await self.show_game(view, interaction=interaction, ratings=ratings)
        if not interaction.response.is_done():
            # Nothing was drawn: a newer state of the game was on screen already.
            await interaction.response.defer()

    def _board_target(self, view: GameView) -> int | None:
        """The message that ``show_game`` edits to draw ``view``; None when it posts the board
        anew (there is none yet, or it is over ``REPOST_AGE`` old)."""
        message_id = self._board_ids.get(view.game_id, view.record.message_id)
        if message_id is None:
            return None
        if self.clock() - discord.utils.snowflake_time(message_id) > REPOST_AGE:
            return None
        return message_id

    async def respond_with_board(
        self, interaction: discord.Interaction[Any], view: GameView, *, replace: bool = False
    ) -> None:
        """Answer ``interaction`` with the board, which becomes the game's message.

        After a ``defer(thinking=True)`` the deferred reply is filled in. ``replace`` deletes
        the previous board message (``/gomoku board`` moves the board to the bottom).
        """
        lock = self._show_locks.setdefault(view.game_id, asyncio.Lock())
        async with lock:
            with i18n.using(await self.server_language(view.guild_id)):  # the board is public
                message_args = await self.board_message(view)
            if interaction.response.is_done():
                message = await interaction.edit_original_response(**message_args)
                message_id = message.id
            else:
                callback = await interaction.response.send_message(**_for_send(message_args))
                if callback.message_id is None:
                    raise RuntimeError("Discord returned no message id for the board")
                message_id = callback.message_id
            interaction.extras["board_message_id"] = message_id
            old = self._board_ids.get(view.game_id, view.record.message_id)
            self._board_ids[view.game_id] = message_id
            self._shown[view.game_id] = max(view.version, self._shown.get(view.game_id, -1))
            await self.service.set_message(
                view.game_id, channel_id=view.channel_id, message_id=message_id
            )
            if replace and old is not None and old != message_id:
                channel = self.get_partial_messageable(view.channel_id, guild_id=view.guild_id)
                with contextlib.suppress(discord.HTTPException):
                    await channel.get_partial_message(old).delete()

    async def _try_edit(
        self,
        view: GameView,
        message_id: int,
        message_args: dict[str, Any],
        interaction: discord.Interaction[Any] | None,
    ) -> bool:
        """Edit the board message; False when it has to be posted anew instead."""
        try:
            await self._edit_board(view, message_id, message_args, interaction)
        except discord.NotFound:
            return False  # deleted by someone
        except discord.HTTPException as error:
            if error.code != _OLD_MESSAGE_EDIT:
                raise
            return False
        return True

    async def _edit_board(
        self,
        view: GameView,
        message_id: int,
        message_args: dict[str, Any],
        interaction: discord.Interaction[Any] | None,
    ) -> None:
        # The board is this interaction's own message: the token edits it without REST.
        if interaction is not None and _answers_on(interaction, message_id):
            if interaction.response.is_done():
                await interaction.edit_original_response(**message_args)
            else:  # a button on the board, not yet answered: the redraw is its answer
                await interaction.response.edit_message(**message_args)
            return
        channel = self.get_partial_messageable(view.channel_id, guild_id=view.guild_id)
        await channel.get_partial_message(message_id).edit(**message_args)

    async def _post_board(
        self, view: GameView, message_args: dict[str, Any], *, old: int | None
    ) -> None:
        channel = self.get_partial_messageable(view.channel_id, guild_id=view.guild_id)
        message = await channel.send(**_for_send(message_args))
        self._board_ids[view.game_id] = message.id
        await self.service.set_message(
            view.game_id, channel_id=view.channel_id, message_id=message.id
        )
        if old is not None:
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(old).delete()

    # ------------------------------------------------------------------ playing

    async def play_move(
        self,
        interaction: discord.Interaction[Any],
        *,
        point: Point | None,
        column: int | None,
        game_id: int | None = None,
        version: int | None = None,
        letter: bool = False,
        typed: bool = False,
        on_board: bool = False,
    ) -> MoveResult:
        """A move from ``/place`` or a board button: play, redraw, let the AI answer.

        ``version``: a tap panel's (a stale panel is refused); ``typed``/``letter``: how
        ``/place`` was written, which each kind of game checks against its one notation.

        A command is answered privately ("You played h8."), after deferring when the write is
        slow (``in_time``) or the AI takes longer than ``ai_reply_wait`` to answer (a quicker
        AI's answer is in the one reply: "You played h8. The AI answered i9."); between
        people with pings on, at once and publicly with the ping of the player to move
        (``_answer_move``). A button is
        acknowledged at once and needs no words: its board changes. The AI's reply starts as
        soon as the move is stored, in its own task: it is made even if answering the player
        fails. ``on_board``: the button sits on the board message itself (a grid square, a
        column), so the board's redraw is the button's answer, in its own callback (one
        request instead of a deferral and an edit); it is deferred only when the write is slow.
        """
        if interaction.channel_id is None:
            raise RuntimeError("interaction without a channel")
        started = asyncio.get_running_loop().time()
        is_command = interaction.type is discord.InteractionType.application_command
        if not is_command and not on_board:
            # A tap on the private panel: acknowledge at once, the public board is what
            # changes (by an edit of its own) and the panel after that.
            await interaction.response.defer()
        user = interaction.user.id
        channel_id = interaction.channel_id
        if column is not None:
            move = self.service.drop(channel_id, user, column, game_id=game_id, letter=letter)
        elif point is not None:
            move = self.service.place(
                channel_id, user, point, game_id=game_id, version=version, points_only=typed
            )
        else:
            raise ValueError("a move needs a point or a column")
        try:
            result = await self.in_time(
                interaction, move, ephemeral=is_command, thinking=is_command
            )
        except OutOfTimeError as error:
            # Too late: the move ended the game on time. Show that, then report the refusal
            # (which the player must get even when the board cannot be redrawn).
            try:
                await self.show_game(
                    error.end.game, interaction=interaction, ratings=error.end.ratings
                )
            except discord.HTTPException:
                log.exception("could not show game %s, lost on time", error.game_id)
            raise
        self.wake_deadlines(result.game)
        ai = self._start_ai(result.game.game_id, interaction) if result.ai_due else None
        if is_command and ai is None and not interaction.response.is_done():
            # No AI to wait for: answer straight away (one request instead of a deferral and
            # an edit), then show the move on the board. Between people the answer is public
            # and pings the player to move: it is the turn's ping (bot.turns).
            pinged = await self._answer_move(interaction, result)
            await self.show_game(
                result.game, interaction=interaction, ratings=result.ratings, pinged=pinged
            )
            return result
        game_id = result.game.game_id
        # The deferral of the reply (its task), once there is one: the reply is noted in
        # storage until it is filled in, so that a restart can still fill it in.
        pending: list[asyncio.Task[PendingReply | None]] = []

        def defer() -> None:
            reply = self._defer_reply(interaction, game_id, remember=ai is not None)
            pending.append(asyncio.ensure_future(reply))

        waiting: asyncio.TimerHandle | None = None
        if is_command and interaction.response.is_done():
            defer()  # a slow write deferred already: note the reply if the AI is to fill it in
        elif is_command:
            # The AI answers next. A quick answer is the reply itself, one message; a search
            # that takes longer is deferred then (the board shows the player's stone meanwhile).
            # Either way the deferral goes out beside the board's redraw, not before it, so the
            # player sees their stone a round trip sooner. The wait counts from the command's
            # start: a write that took long leaves less of it.
            loop = asyncio.get_running_loop()
            delay = max(0.0, self.ai_reply_wait - (loop.time() - started))
            waiting = loop.call_later(delay, defer)
        shutting_down = False
        try:
            if on_board:
                await self.answer_with_board(interaction, result.game, ratings=result.ratings)
            else:
                await self.show_game(result.game, interaction=interaction, ratings=result.ratings)
            reply = result
            if ai is not None:
                reply = await ai or result
            if waiting is not None:
                waiting.cancel()
            if pending:
                # A fast AI must not fill in a reply not yet deferred; shielded, so that a
                # shutdown here still leaves the reply noted for the next start.
                await asyncio.shield(pending[0])
                await interaction.edit_original_response(content=_move_summary(result, reply))
            elif is_command:
                await interaction.response.send_message(
                    _move_summary(result, reply), ephemeral=True
                )
        except asyncio.CancelledError:
            shutting_down = True  # a noted reply stays: the next start fills it in
            if waiting is not None:
                waiting.cancel()
            if is_command and not pending and not interaction.response.is_done():
                # Stopping before the AI answered and before any deferral: nothing would
                # answer the command, so say what was played (the board shows it already).
                with contextlib.suppress(discord.HTTPException):
                    await asyncio.shield(
                        interaction.response.send_message(
                            _move_summary(result, result), ephemeral=True
                        )
                    )
            raise
        finally:
            if waiting is not None:
                waiting.cancel()
            saved = None if not pending else await pending[0]
            if saved is not None and not shutting_down:
                await self.service.repository.drop_pending_reply(saved.token)
        return reply

    async def _defer_reply(
        self, interaction: discord.Interaction[Any], game_id: int, *, remember: bool
    ) -> PendingReply | None:
        """Defer ``interaction``'s reply (unless a slow write already did) and, when the AI is
        to fill it in (``remember``), note it in storage until then."""
        if interaction.response.is_done():
            callback = interaction.extras.get(DEFERRAL)
        else:
            callback = await interaction.response.defer(ephemeral=True, thinking=True)
        if not remember:
            return None
        message_id = None if callback is None else callback.message_id
        return await remember_reply(self, interaction, game_id, message_id)

    async def _answer_move(
        self, interaction: discord.Interaction[Any], result: MoveResult
    ) -> int | None:
        """Answer a ``/place`` that needs no deferral: privately, or, when the move leaves
        another person to move and pings are on, publicly with the ping. Returns the ping's
        message id, if the answer is one."""
        view = result.game
        user_id = await self.turn_pings.ping_target(self, view)
        if user_id is None or user_id == interaction.user.id:
            await interaction.response.send_message(_move_summary(result, result), ephemeral=True)
            return None
        with i18n.using(await self.server_language(view.guild_id)):  # public, like the board
            played = render.move_name(result.game.board, result.move.point)
            text = f"{words.turn_ping(user_id, render.game_title(view))}\n"
            text += words.played_by(interaction.user.id, played)
        callback = await interaction.response.send_message(
            text,
            allowed_mentions=discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(user_id)]
            ),
        )
        return callback.message_id

    def _start_ai(
        self, game_id: int, interaction: discord.Interaction[Any] | None
    ) -> asyncio.Task[MoveResult | None]:
        task = self._spawn(self.play_ai(game_id, interaction=interaction))

        def done(task: asyncio.Task[MoveResult | None]) -> None:
            # Its caller may be gone (its answer failed); a failed AI move is retried by the
            # idle resume, and here it is at least on record.
            if not task.cancelled() and task.exception() is not None:
                log.warning("AI move in game %s failed: %r", game_id, task.exception())

        task.add_done_callback(done)
        return task

    async def play_ai(
        self, game_id: int, *, interaction: discord.Interaction[Any] | None = None
    ) -> MoveResult | None:
        """Let the AI move in ``game_id`` (searching off the event loop) and redraw."""
        result = await self.service.ai_reply(game_id)
        if result is not None:
            self.wake_deadlines(result.game)
            await self.show_game(result.game, interaction=interaction, ratings=result.ratings)
        return result

    # ------------------------------------------------------------------ background tasks

    async def _resume(self, idle_for: timedelta = timedelta(0)) -> None:
        await self.wait_until_ready()
        try:
            results = await self.service.resume(idle_for=idle_for)
        except Exception:
            log.exception("resuming games failed")
            return
        for result in results:
            self.wake_deadlines(result.game)
            try:
                await self.show_game(result.game, ratings=result.ratings)
            except discord.HTTPException:
                log.exception("could not redraw game %s after resuming", result.game.game_id)
        if idle_for == timedelta(0):
            try:
                await finish_interrupted_replies(self)
            except Exception:
                log.exception("finishing interrupted replies failed")

    async def _deadline_loop(self) -> None:
        await self.wait_until_ready()
        next_resume = self.clock() + timedelta(seconds=self.resume_every)
        while not self.is_closed():
            # Cleared before the pass reads the games: a wake-up during the pass (a move, a
            # challenge) starts another one at once instead of being lost.
            self._wake.clear()
            try:
                events, upcoming = await self.service.tick_and_plan()
                for event in events:
                    await self._announce(event)
                if self.clock() >= next_resume:
                    # Only games idle for a whole period, with no search in flight: AI moves
                    # that failed (their callers already told the players) or were never asked
                    # for. Its own task: the clocks must not wait on the AI.
                    next_resume = self.clock() + timedelta(seconds=self.resume_every)
                    self._spawn(self._resume(idle_for=timedelta(seconds=self.resume_every)))
            except Exception:
                log.exception("deadline task failed; retrying")
                upcoming = None
            delay = min(self.deadline_poll, (next_resume - self.clock()).total_seconds())
            if upcoming is not None:
                delay = min(delay, (upcoming - self.clock()).total_seconds())
            delay = max(0.0, delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def _announce(self, event: TurnWarning | GameEnd | ChallengeExpired) -> None:
        try:
            if isinstance(event, TurnWarning):
                channel = self.get_partial_messageable(
                    event.game.channel_id, guild_id=event.game.guild_id
                )
                when = discord.utils.format_dt(event.deadline, "R")
                with i18n.using(await self.server_language(event.game.guild_id)):
                    text = words.turn_warning(event.user_id, when)
                await channel.send(
                    text,
                    allowed_mentions=discord.AllowedMentions(
                        users=[discord.Object(event.user_id)], everyone=False, roles=False
                    ),
                )
            elif isinstance(event, GameEnd):
                await self.show_game(event.game, ratings=event.ratings)
            else:
                await self.show_game(event.game)
        except discord.HTTPException:
            log.exception("could not announce %r", type(event).__name__)


def _answers_on(interaction: discord.Interaction[Any], message_id: int) -> bool:
    """Whether ``message_id`` is ``interaction``'s own message: a button on it, or the command
    whose response it is (``respond_with_board`` notes that in extras)."""
    return (
        interaction.message is not None and interaction.message.id == message_id
    ) or interaction.extras.get("board_message_id") == message_id


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


def _for_send(message_args: dict[str, Any]) -> dict[str, Any]:
    # Sending takes files=, editing takes attachments=; a missing view is left out, not None.
    args = dict(message_args)
    args["files"] = args.pop("attachments")
    if args["view"] is None:
        del args["view"]
    return args


def _move_summary(first: MoveResult, last: MoveResult) -> str:
    board = first.game.board
    played = render.move_name(board, first.move.point)
    if last is not first and last.step is not None:
        # an opening choice, not a stone
        return words.move_summary(played, choice=choice_summary(last.step, ai=True))
    if last is not first:
        return words.move_summary(played, reply=render.move_name(board, last.move.point))
    return words.move_summary(played)
