"""What every interaction asks first: the guild's settings, the language to answer in, and the
commands' ids (sentences name commands by their mentions, ``bot.text.words.command``).

Both are read from the service once and kept: a guild's settings until a command of that
guild changes them (its shard's process serves it and forgets them), a member's chosen
language for ``LANGUAGE_TTL`` (another shard process may have stored a new choice). Reads
under way are shared, so a burst of interactions asks the database once; the languages of
the members whose interactions came in one pass of the event loop are read together.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Protocol

import discord

from bot.text import i18n, render, words

if TYPE_CHECKING:
    from bot.core.service import GameService
    from storage.records import GuildSettings

__all__ = ["ARRIVED", "LANGUAGE_TTL", "LANGUAGE_WAIT", "Preferences"]

log = logging.getLogger(__name__)

ARRIVED: Final = "arrived"  # interaction.extras: the event loop's time when it reached the bot
_LOOKS: Final = {look.value: look for look in render.Look}  # a stored style -> its look
_LANGUAGE_CACHE: Final = 50_000  # users whose chosen language is kept in memory
# A member's choice is stored by the process that served /gomoku preferences; other shard
# processes see it once their copy is this old.
LANGUAGE_TTL: Final = timedelta(seconds=60)
# The longest an interaction waits for its member's stored language before anything else
# happens: a database queueing a burst must not cost the answer its 3 s. Past it the answer
# goes in the language known before (else the Discord client's); the read lands for the next.
LANGUAGE_WAIT: Final = 1.0


class _Source(Protocol):
    """Where preferences are read: the bot's service, clock and guilds."""

    clock: Callable[[], datetime]

    @property
    def service(self) -> GameService: ...

    def get_guild(self, id: int, /) -> discord.Guild | None: ...


class Preferences:
    """Guild settings and members' languages, each read once and kept."""

    def __init__(self, host: _Source, *, language_wait: float = LANGUAGE_WAIT) -> None:
        self._host = host
        self.language_wait = language_wait  # the longest an interaction waits for it
        # guild id -> its settings, and the reads of them under way (guild_settings)
        self._settings: dict[int, GuildSettings] = {}
        self._settings_reads: dict[int, asyncio.Future[GuildSettings]] = {}
        # user id -> the language they chose (None: Discord's), and when it was read
        self._user_languages: dict[int, tuple[str | None, datetime]] = {}
        self._language_reads: dict[int, asyncio.Future[str | None]] = {}  # under way
        # the reads asked for in this pass of the event loop, made together at its end
        self._language_batch: dict[int, asyncio.Future[str | None]] = {}
        self._batch_reads: set[asyncio.Task[None]] = set()
        # top-level command name -> the id Discord gave it (bot.client fills it at sync)
        self.command_ids: dict[str, int] = {}

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
            read = asyncio.ensure_future(self._host.service.settings(guild_id))
            self._settings_reads[guild_id] = read

            def landed(done: asyncio.Future[GuildSettings]) -> None:
                if self._settings_reads.get(guild_id) is not done:
                    return  # forgotten while under way: it may hold the old settings
                del self._settings_reads[guild_id]
                if not done.cancelled() and done.exception() is None:
                    self._settings[guild_id] = done.result()

            read.add_done_callback(landed)
        return await asyncio.shield(read)

    async def look(self, guild_id: int | None) -> render.Look:
        """The look of the guild's public boards."""
        if guild_id is None:
            return render.Look.EMOJI
        settings = await self.guild_settings(guild_id)
        # Every board drawn asks: a dict, not the enum's call (an unknown stored style: emoji).
        return _LOOKS.get(settings.board_style, render.Look.EMOJI)

    async def set_answer_language(self, interaction: discord.Interaction[Any]) -> None:
        """Set the language of everything said in answer to ``interaction``: the user's own
        choice, else their Discord client's; and note the server's Discord language for
        public messages; and name commands by their mentions. Called before any command or
        button does anything."""
        words.use_command_ids(self.command_ids)
        interaction.extras.setdefault(ARRIVED, asyncio.get_running_loop().time())
        user_id = interaction.user.id
        cached = self._user_languages.get(user_id)
        if cached is None or self._host.clock() - cached[1] >= LANGUAGE_TTL:
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
        started = self._host.clock()
        loop = asyncio.get_running_loop()
        read: asyncio.Future[str | None] = loop.create_future()
        self._language_reads[user_id] = read
        if not self._language_batch:
            loop.call_soon(self._read_batch)
        self._language_batch[user_id] = read

        def landed(done: asyncio.Future[str | None]) -> None:
            self._language_reads.pop(user_id, None)
            if done.cancelled() or done.exception() is not None:
                return  # said to the interactions waiting for it; the next one reads again
            if len(self._user_languages) >= _LANGUAGE_CACHE:
                self._user_languages.clear()  # members seen long ago are read again
            self._user_languages[user_id] = (done.result(), started)

        read.add_done_callback(landed)
        return read

    def _read_batch(self) -> None:
        """Read the languages asked for in the pass of the event loop that just ended, in
        one read: a burst of starts by members not seen yet asks the database once a pass,
        not once a member."""
        batch, self._language_batch = self._language_batch, {}
        task = asyncio.create_task(self._answer_batch(batch))
        self._batch_reads.add(task)
        task.add_done_callback(self._batch_reads.discard)

    async def _answer_batch(self, batch: dict[int, asyncio.Future[str | None]]) -> None:
        try:
            chosen = await self._host.service.languages(batch)
        except Exception as error:  # told to every interaction waiting for one of them
            for read in batch.values():
                if not read.done():
                    read.set_exception(error)
        else:
            for user_id, read in batch.items():
                if not read.done():
                    read.set_result(chosen.get(user_id))
        finally:
            for read in batch.values():  # left unanswered (the bot stopping): cancelled
                read.cancel()

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
            guild = self._host.get_guild(guild_id)
            if guild is not None:
                found = i18n.from_discord(guild.preferred_locale)
                if found is not None:
                    return found
        return i18n.server_hint() or i18n.DEFAULT

    def forget_settings(self, guild_id: int) -> None:
        """The guild's settings changed: read them again next time."""
        self._settings.pop(guild_id, None)
        self._settings_reads.pop(guild_id, None)
