"""Games in their own threads (a guild setting, on by default): the start message in the
channel becomes the thread's starter, the board lives in the thread, and the thread is archived
when the game ends. The channel gets one line at the start and one at the end, and holds no
game itself, so any number of games (challenges waiting for an answer too) start from it.

Only ``/gomoku start`` in a server's text channel makes a thread, and only where the bot may
open one and post in it (``permissions.THREADS``); anywhere else (a thread, a forum post, a
voice channel's chat, a channel without those permissions) the game is played where it was
started.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final

import discord

from bot import outage, permissions
from bot.core.service.states import GameState
from bot.host import GameHost, Interaction, host_of
from bot.names import display_name
from bot.text import i18n, render, words

__all__ = [
    "ARCHIVE_AFTER",
    "Announcement",
    "announcement",
    "close_thread",
    "host_in_thread",
    "one_start_at_a_time",
    "uses_threads",
]

log = logging.getLogger(__name__)

# Minutes without a message before Discord archives a thread: the longest it allows, as a game
# between people may wait days for a move (an archived one is reopened before the bot edits in
# it: ``bot.outage``).
ARCHIVE_AFTER: Final = 10080

# A lock per channel while a start there opens its thread (gone once nobody holds or awaits it).
_opening: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()


async def uses_threads(interaction: Interaction) -> bool:
    """Whether a game started here goes into its own thread: in a server's text channel, when
    the server hosts games in threads and the bot may open one there and post in it. Checked
    before the game is made; where it may not, the game is played in the channel."""
    channel = interaction.channel
    if interaction.guild_id is None or not isinstance(channel, discord.TextChannel):
        return False
    settings = await host_of(interaction).preferences.guild_settings(interaction.guild_id)
    return settings.use_threads and permissions.has(interaction, permissions.THREADS)


@contextlib.asynccontextmanager
async def one_start_at_a_time(channel_id: int) -> AsyncIterator[None]:
    """Hold ``channel_id`` for a start that opens a thread: its game is made in the channel
    and holds it until it moves into its thread, so another start there waits those few
    requests instead of finding the channel taken. (A guild's games are one process's.)"""
    lock = _opening.get(channel_id)
    if lock is None:
        lock = _opening[channel_id] = asyncio.Lock()
    async with lock:
        yield


def _players(view: GameState) -> str:
    return words.versus(render.player_label(view.black), render.player_label(view.white))


@dataclass(frozen=True, slots=True)
class Announcement:
    """What a game hosted in a thread is announced with."""

    line: str  # the channel's line, the start command's answer and the thread's starter
    name: str  # the thread's


async def announcement(interaction: Interaction, view: GameState) -> Announcement:
    """The channel's line and the thread's name for ``view`` (the players' names in them
    cost a request each when the member is not cached)."""
    black = await display_name(interaction, view.black)
    white = await display_name(interaction, view.white)
    with i18n.using(
        await host_of(interaction).preferences.server_language(view.guild_id)
    ):  # public
        line = words.thread_started(_players(view))
        name = words.thread_name(black, white, render.game_name(view.game), view.game_id)
    return Announcement(line, name)


async def host_in_thread(
    interaction: Interaction, view: GameState, announced: Announcement
) -> GameState:
    """Answer the start command with the channel's line, open a thread from it, move the game
    there and draw its board in it. Returns the game as it now stands."""
    bot = host_of(interaction)
    channel = interaction.channel
    assert isinstance(channel, discord.TextChannel)
    line, name = announced.line, announced.name
    if interaction.response.is_done():
        # Publicly deferred (a slow write or name, a queued start): the line fills it in.
        message = await interaction.edit_original_response(
            content=line, allowed_mentions=discord.AllowedMentions.none()
        )
        message_id: int | None = message.id
    else:
        callback = await interaction.response.send_message(
            line, allowed_mentions=discord.AllowedMentions.none()
        )
        message_id = callback.message_id
    if message_id is None:
        raise RuntimeError("Discord returned no message id for the start line")
    try:
        thread = await channel.get_partial_message(message_id).create_thread(
            name=name, auto_archive_duration=ARCHIVE_AFTER
        )
    except discord.HTTPException:
        # The permissions were there a moment ago; whatever refused the thread, the game is
        # made and the players wait: host it in the channel after all.
        log.warning("could not open a thread for game %s; it stays in the channel", view.game_id)
        await bot.table.show_game(view)
        return view
    await bot.service.move_to_thread(view.game_id, thread.id, parent_channel_id=channel.id)
    moved = await bot.service.game(view.game_id)
    await bot.table.show_game(moved)
    return moved


async def close_thread(bot: GameHost, view: GameState, *, strict: bool = False) -> None:
    """The game in a thread ended: one line in the channel, then archive the thread. A line
    Discord did not answer is sent again once it answers, like a board (``bot.outage``);
    ``strict`` (that retry): such a failure raises instead."""
    parent = view.record.parent_channel_id
    if parent is None:
        return
    channel = bot.get_partial_messageable(parent, guild_id=view.guild_id)
    result = render.status_line(view).split(" · ")[-1]
    try:
        await channel.send(
            words.thread_ended(_players(view), result, f"<#{view.channel_id}>"),
            allowed_mentions=discord.AllowedMentions.none(),
        )
    except (discord.HTTPException, *outage.NO_ANSWER) as error:
        if not outage.discord_down(error):
            log.warning("could not tell the channel of game %s's result", view.game_id)
        elif strict:
            raise
        else:
            bot.table.faults.close_later(view.game_id, error)
        return
    bot.table.faults.closed(view.game_id)
    try:
        await bot.http.edit_channel(view.channel_id, archived=True)
    except (discord.HTTPException, *outage.NO_ANSWER):
        # Discord archives it by itself after its auto-archive duration.
        log.warning("could not archive the thread of game %s", view.game_id)
