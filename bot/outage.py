"""Discord's own faults: its REST API down for a while, and a game's channel or thread gone.

An outage: a board edit, an AI's answer or a turn ping that fails because Discord does not
answer (a 5xx, a connection error, a timeout) loses nothing, the move is stored already. The
game is noted as behind and redrawn from its stored state, with growing pauses between tries
(``first_retry_s`` doubling up to ``longest_retry_s``), until Discord answers; the redraw
brings its turn ping along. A thread's result line in its parent channel is sent again the
same way. The outage runs from the first such failure to the first redraw that succeeds.
Meanwhile the clocks stand still: the service asks ``stopped_at`` (its
``clocks_stopped_at``), so the runner's deadline task ends no game on time, and a move that
arrives meanwhile (interaction callbacks may work while the rest of REST does not) is late
only where its deadline had passed before the stop. When an outage longer than ``grace`` ends,
every open game's clock is moved on by its length in one write that keeps each game's version
and warning (``GameService.shift_deadlines``): nobody loses on time while nobody could move,
and nobody is warned twice. A shorter one moves no clock: a deadline it hid is enforced right
after.

A game's home gone: a thread Discord archived is unarchived before the bot writes to it (a
board edit refused with 50083 is retried once after that). A thread or channel deleted
(10003), locked, or no longer visible to the bot (50001), and a server that removed the bot,
end the game without a result; the players are told in the channel the thread hung off, where
there is one to tell them in. So does a thread a moderator archived and locked (THREAD_UPDATE):
nobody can write or use a command in it. A member who leaves the server is not heard of at all
(GUILD_MEMBER_REMOVE comes only with the privileged Server Members intent, which the bot does
not ask for): the game waits, and the leaver's turn clock or the server's idle time ends it.
Each fault is logged as one line, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

import aiohttp
import discord
from discord.ext import commands

from bot import threads
from bot.core.service.errors import GameServiceError
from bot.text import i18n, render, words

if TYPE_CHECKING:
    from bot.core.service.states import GameState
    from bot.host import GameHost

__all__ = [
    "ARCHIVED",
    "GRACE",
    "NO_ANSWER",
    "Faults",
    "discord_down",
    "home_gone",
    "setup",
    "unarchive",
]

log = logging.getLogger(__name__)

ARCHIVED: Final = 50083  # Discord: the operation is not allowed in an archived thread
_UNKNOWN_CHANNEL: Final = 10003
_MISSING_ACCESS: Final = 50001
GRACE: Final = timedelta(seconds=15)  # an outage shorter than this gives no time back


# What a request raises when Discord does not answer at all (no HTTP status).
NO_ANSWER: Final = (aiohttp.ClientError, TimeoutError, ConnectionError)


def discord_down(error: BaseException) -> bool:
    """Whether ``error`` says Discord did not answer (not that it refused)."""
    return isinstance(error, (discord.DiscordServerError, *NO_ANSWER))


def home_gone(error: BaseException) -> bool:
    """Whether ``error`` says the channel or thread is gone for the bot: deleted, no longer
    visible to it, or an archived thread it could not reopen (locked)."""
    return isinstance(error, discord.HTTPException) and error.code in (
        _UNKNOWN_CHANNEL,
        _MISSING_ACCESS,
        ARCHIVED,
    )


async def unarchive(host: GameHost, thread_id: int) -> bool:
    """Unarchive ``thread_id`` so that the bot may edit in it; False where it may not (the
    thread is locked, deleted or hidden from the bot)."""
    try:
        await host.http.edit_channel(thread_id, archived=False)
    except discord.HTTPException as error:
        log.warning("could not unarchive thread %s: %s %s", thread_id, error.status, error.code)
        return False
    return True


class Faults:
    """Games behind because Discord did not answer, the outage's start, and the end of games
    whose home is gone (see the module's doc)."""

    def __init__(
        self,
        host: GameHost,
        *,
        first_retry_s: float = 0.5,
        longest_retry_s: float = 5.0,
        grace: timedelta = GRACE,
    ) -> None:
        self.host = host
        self.first_retry_s = first_retry_s
        self.longest_retry_s = longest_retry_s
        self.grace = grace
        self.down_since: datetime | None = None  # the first failure of the outage under way
        self._behind: set[int] = set()  # game ids to redraw once Discord answers
        self._deletions: set[tuple[int, int]] = set()  # (channel, message) to delete then
        self._closings: set[int] = set()  # games whose thread's result line is still due
        self._catching_up: asyncio.Task[None] | None = None
        self._ending: set[int] = set()  # games whose end for a lost home is under way
        self.outages = 0  # outages seen and ended (for tests and diagnostics)
        self._clocks_run = asyncio.Event()  # set while no outage is under way
        self._clocks_run.set()

    def behind(self) -> frozenset[int]:
        """The games waiting for Discord to show their newest state."""
        return frozenset(self._behind)

    def paused(self) -> bool:
        """Whether the clocks stand still: Discord is not answering."""
        return self.down_since is not None

    def stopped_at(self) -> datetime | None:
        """When the clocks stopped (the outage's start), or None while they run: the service
        judges a move's lateness by it, the runner ends no game on time meanwhile."""
        return self.down_since

    async def clocks_running(self) -> None:
        """Wait until no outage is under way (its clocks moved on, if it lasted)."""
        await self._clocks_run.wait()

    def failed(self, game_id: int, error: BaseException) -> None:
        """Discord did not answer a request that draws ``game_id``: redraw it later."""
        self._behind.add(game_id)
        self._down(error)

    def delete_later(self, channel_id: int, message_id: int, error: BaseException) -> None:
        """Discord did not answer the deletion of a message (a turn ping that a newer one
        replaced): delete it once Discord answers."""
        self._deletions.add((channel_id, message_id))
        self._down(error)

    def close_later(self, game_id: int, error: BaseException) -> None:
        """Discord did not answer the line that tells a thread's parent channel the result
        of ``game_id``: send it once Discord answers."""
        self._closings.add(game_id)
        self._down(error)

    def closed(self, game_id: int) -> None:
        """The result line of ``game_id`` is in its channel: nothing left to send again."""
        self._closings.discard(game_id)

    def _down(self, error: BaseException) -> None:
        if self.down_since is None:
            self.down_since = self.host.clock()
            self._clocks_run.clear()
            log.warning("Discord is not answering (%s); boards catch up later", _why(error))
        if self._catching_up is None or self._catching_up.done():
            self._catching_up = self.host.spawn(self._catch_up())

    async def _catch_up(self) -> None:
        delay = self.first_retry_s
        while self._behind or self._deletions or self._closings:
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.longest_retry_s)
            try:
                await self._redraw()  # a finished game's redraw sends its result line too
                await self._close()
                await self._delete()
            except _StillDownError:
                continue  # the next round tries again

    async def _redraw(self) -> None:
        for game_id in sorted(self._behind):
            await self._send_again(
                game_id, lambda game: self.host.table.show_game(game, strict=True), "redraw"
            )
            self._behind.discard(game_id)
            await self._answered()

    async def _close(self) -> None:
        for game_id in sorted(self._closings):
            if game_id not in self._closings:
                continue  # a redraw sent it meanwhile
            await self._send_again(
                game_id,
                lambda game: threads.close_thread(self.host, game, strict=True),
                "tell the result of",
            )
            self._closings.discard(game_id)
            await self._answered()

    async def _send_again(
        self,
        game_id: int,
        send: Callable[[GameState], Awaitable[object]],
        what: str,
    ) -> None:
        """Send what game ``game_id`` still owes Discord from its stored state; a game gone
        from storage owes nothing, and any fault but Discord's silence is logged and dropped.

        Raises:
            _StillDownError: Discord still does not answer.
        """
        try:
            game = await self.host.service.game(game_id)
            await send(game)
        except GameServiceError:
            pass  # the game is gone from storage: nothing to send
        except Exception as error:
            if discord_down(error):
                raise _StillDownError from error
            log.warning("could not %s game %s: %r", what, game_id, error)

    async def _delete(self) -> None:
        for channel_id, message_id in sorted(self._deletions):
            channel = self.host.get_partial_messageable(channel_id)
            try:
                await channel.get_partial_message(message_id).delete()
            except (discord.HTTPException, *NO_ANSWER) as error:
                if discord_down(error):
                    raise _StillDownError from error
                # Gone already, or no longer the bot's to delete: nothing left to do.
            self._deletions.discard((channel_id, message_id))
            await self._answered()

    async def _answered(self) -> None:
        """Discord answered: the outage, if there was one, is over."""
        if self.down_since is None:
            return
        lasted = self.host.clock() - self.down_since
        log.warning("Discord answers again after %.0f s", lasted.total_seconds())
        if lasted > self.grace:
            # The clocks stand still until they are moved on: only then is the outage over.
            moved = await self.host.service.shift_deadlines(lasted)
            log.warning("moved %s clocks on by the outage's %.0f s", moved, lasted.total_seconds())
        # The runner's clock task, paused meanwhile, runs again at its next look (within a
        # second) and plans with the moved deadlines.
        self.down_since = None
        self._clocks_run.set()
        self.outages += 1

    async def redraw_unshown(self) -> int:
        """At start-up: redraw every open game whose board message is not known to show its
        newest state (a board edit the last process did not see through). A game without a
        board message has nothing to catch up: the runner's events draw it. Returns how
        many."""
        redrawn = 0
        for behind in await self.host.service.unshown_games():
            if behind.record.message_id is None:
                continue
            # Read again right before drawing: a player may have moved on (or ended the game)
            # since, and a stale state must not be drawn over a newer one.
            try:
                game = await self.host.service.game(behind.game_id)
            except GameServiceError:
                continue
            if game.is_over:
                continue
            # The board only: the turn's ping was stored when it was sent (``bot.turns``).
            await self.host.table.show_game(game, newer_only=True, ping=False)
            redrawn += 1
        if redrawn:
            log.info("redrew %s boards that were behind their games", redrawn)
        return redrawn

    async def home_lost(self, game: GameState, error: BaseException | None = None) -> None:
        """``game``'s channel or thread is gone for the bot: end it without a result and tell
        its players in the channel its thread hung off, if that is still there. A game that
        ended already (its result could not be drawn) keeps its result, and that channel
        gets its result line."""
        if game.game_id in self._ending:
            return
        self._ending.add(game.game_id)
        why = "removed" if error is None else _why(error)
        try:
            self._behind.discard(game.game_id)
            parent = game.record.parent_channel_id
            if game.is_over:
                log.warning("game %s: channel %s is gone (%s)", game.game_id, game.channel_id, why)
                await threads.close_thread(self.host, game)
                return
            log.warning(
                "game %s ended without a result: channel %s is gone (%s)",
                game.game_id,
                game.channel_id,
                why,
            )
            end = await self.host.service.abandon(game.channel_id)
            if end is None or parent is None or parent == game.channel_id:
                return
            channel = self.host.get_partial_messageable(parent, guild_id=game.guild_id)
            with i18n.using(await self.host.preferences.server_language(game.guild_id)):
                text = words.thread_gone(
                    words.versus(render.player_label(game.black), render.player_label(game.white)),
                    end.game.game_id,
                )
            await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as failed:
            log.warning("could not tell the players of game %s: %s", game.game_id, _why(failed))
        except GameServiceError:
            pass  # it ended some other way meanwhile
        finally:
            self._ending.discard(game.game_id)

    async def homes_lost(self, games: Iterable[GameState]) -> None:
        """``home_lost`` for each of ``games``."""
        for game in games:
            await self.home_lost(game)


class _StillDownError(Exception):
    """Discord still does not answer: the catch-up waits longer before its next round."""


def _why(error: BaseException) -> str:
    if isinstance(error, discord.HTTPException):
        return f"{error.status} {error.code}"
    return type(error).__name__


class ServerChanges(commands.Cog):
    """Channels, threads and servers that disappear under games."""

    def __init__(self, host: GameHost, faults: Faults) -> None:
        self.host = host
        self.faults = faults

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A game's thread was deleted."""
        games = await self.host.service.open_games_at(channels=[payload.thread_id])
        await self.faults.homes_lost(games)

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A game's thread was archived and locked (by a moderator): its players can neither
        write in it nor use a command there, so its game ends as if the thread were gone
        rather than lose on time later. A thread archived but not locked keeps its game: a
        player's message reopens it."""
        metadata = payload.data.get("thread_metadata") or {}
        if not (metadata.get("archived") and metadata.get("locked")):
            return
        games = await self.host.service.open_games_at(channels=[payload.thread_id])
        await self.faults.homes_lost(games)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A game's channel (and the threads of games off it) was deleted."""
        await self.faults.homes_lost(await self.host.service.open_games_at(channels=[channel.id]))

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server: its games there end."""
        await self.faults.homes_lost(await self.host.service.open_games_at(guild_id=guild.id))


async def setup(bot: commands.Bot) -> None:
    """The extension: listen for channels, threads and servers that disappear."""
    host: Any = bot
    await bot.add_cog(ServerChanges(host, host.table.faults))
