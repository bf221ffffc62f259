"""Telling players what they are waiting for: turn pings, and replies a restart interrupted.

Turn pings: a board edit notifies nobody, so in a game between two people the player to move
gets one short message that mentions only them. The previous ping of that game is deleted
first, so a channel holds at most one per game; a finished game's last ping goes too. A guild
turns them off with ``/gomoku-admin settings pings:False``. Games against the AI never ping: its
answer edits the player's own reply. Each game's newest ping is stored (``TurnPing``), so a
restarted bot still deletes it when the next one replaces it or the game ends. Pings are sent
after the board is drawn, by one task per game that nothing waits for: a command's answer and
its board never wait on a ping, and a turn that comes while the game's last ping is still on its
way replaces any older turn not yet announced (at most one delete and one post per turn, and
none for a turn nobody will see). Shutting down lets the pings under way finish first, so each
one that was sent is also stored.

A ``/place`` between people answered at once is itself the ping (``ping_target``, then
``announce(..., sent=...)``): its public answer mentions the player to move and becomes the
game's ping, so a move costs no ping post of its own (three requests instead of four: the
answer, the board's edit, the old ping's deletion). The pinged player gets the same
notification; the mover sees the answer in the channel instead of privately.

Interrupted replies: a ``/place`` against the AI defers ("thinking...") and fills the reply in
when the AI has moved. The reply's token is stored (``PendingReply``) until then, so that a
process that stopped in between can still fill it in on start-up, within the token's
15 minutes.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

import discord

from bot import outage
from bot.host import GameHost
from bot.text import i18n, render, words
from storage.records import GameStatus, PendingReply, TurnPing

if TYPE_CHECKING:
    from bot.core.service.states import GameState

__all__ = ["TOKEN_LIFE", "TurnPings", "finish_interrupted_replies", "remember_reply"]

log = logging.getLogger(__name__)

TOKEN_LIFE: Final = timedelta(minutes=15)  # Discord: an interaction token's life


def _pinged_user(view: GameState) -> int | None:
    """Who a ping for ``view`` goes to: the player to move in a game between two people."""
    if view.status is not GameStatus.ACTIVE or len(view.humans) != 2:
        return None
    player = view.to_move
    return None if player is None else player.user_id


class TurnPings:
    """The newest ping of each game, and the guilds that turned pings off."""

    def __init__(self) -> None:
        # game id -> its ping; a game missing here has its stored ping (if any) read once
        self._pings: dict[int, TurnPing | None] = {}
        self._enabled: dict[int, bool] = {}  # guild id -> turn_pings, cached
        # game id -> the newest view not yet announced, the language to announce it in, and
        # the message already sent as its ping (a /place answer), if any
        self._wanted: dict[int, tuple[GameState, str, int | None]] = {}
        # game id -> pings sent as answers for turns a newer one replaced before they were
        # taken up: (channel id, message id), each still to be deleted
        self._superseded: dict[int, list[tuple[int, int]]] = {}
        self._senders: dict[int, asyncio.Task[None]] = {}  # game id -> its sending task
        self._targets: dict[int, int] = {}  # game id -> whom its ping mentions (this process's)

    def new_game(self, game_id: int) -> None:
        """``game_id`` became active or was offered here just now: it has no ping stored (a
        challenge is never pinged), so its first ping need not read one."""
        self._pings.setdefault(game_id, None)

    def forget_settings(self, guild_id: int) -> None:
        """The guild's settings changed."""
        self._enabled.pop(guild_id, None)

    async def _allowed(self, bot: GameHost, guild_id: int | None) -> bool:
        if guild_id is None:
            return False
        enabled = self._enabled.get(guild_id)
        if enabled is None:
            enabled = (await bot.service.settings(guild_id)).turn_pings
            self._enabled[guild_id] = enabled
        return enabled

    async def ping_target(self, bot: GameHost, view: GameState) -> int | None:
        """Who a ping for ``view`` would mention (None: no ping, the game or its server wants
        none)."""
        user_id = _pinged_user(view)
        if user_id is None or not await self._allowed(bot, view.guild_id):
            return None
        return user_id

    def announce(self, bot: GameHost, view: GameState, *, sent: int | None = None) -> None:
        """After ``view`` was drawn: have its player to move pinged (``update``) by the game's
        sending task, started if none runs. Returns at once; a newer view of the game replaces
        an older one still waiting. ``sent``: the message that already pinged them (a
        ``/place`` answer, in the view's channel), which becomes the game's ping."""
        waiting = self._wanted.get(view.game_id)
        if waiting is not None and waiting[0].version >= view.version:
            self._supersede(view.game_id, view.channel_id, sent)
            return
        if waiting is not None:
            self._supersede(view.game_id, waiting[0].channel_id, waiting[2])
        self._wanted[view.game_id] = (view, i18n.current(), sent)  # the board's: the server's
        if view.game_id not in self._senders:
            self._senders[view.game_id] = asyncio.create_task(self._send(bot, view.game_id))

    def _supersede(self, game_id: int, channel_id: int, sent: int | None) -> None:
        if sent is not None:
            self._superseded.setdefault(game_id, []).append((channel_id, sent))

    async def _send(self, bot: GameHost, game_id: int) -> None:
        try:
            while (wanted := self._wanted.pop(game_id, None)) is not None:
                view, language, sent = wanted
                try:
                    for channel_id, message_id in self._superseded.pop(game_id, []):
                        await _delete(bot, view, channel_id, message_id)
                    with i18n.using(language):
                        await self.update(bot, view, sent=sent)
                except Exception as error:
                    if bot.is_closed():
                        # Stopping: Discord's session or the repository closed under the ping,
                        # which is no fault; the board drawn at the next start pings anew.
                        log.info(
                            "turn ping of game %s not sent, the bot is stopping: %s",
                            game_id,
                            type(error).__name__,
                        )
                        continue
                    # Nobody awaits this task: a failure is logged, and the next turn tries anew.
                    log.exception("turn ping of game %s failed", game_id)
        finally:
            del self._senders[game_id]

    def pending(self) -> int:
        """Games whose ping is being sent or waits to be (for tests and diagnostics)."""
        return len(self._senders)

    async def drain(self, within_s: float) -> None:
        """Let the pings under way finish (``within_s`` seconds at most; the rest are cancelled),
        so that each ping sent is stored before the process stops."""
        senders = list(self._senders.values())
        if not senders:
            return
        _done, late = await asyncio.wait(senders, timeout=within_s)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)

    async def update(self, bot: GameHost, view: GameState, *, sent: int | None = None) -> None:
        """Ping ``view``'s player to move (once per version), replacing the game's previous
        ping; a game that ended loses its ping. ``sent``: the message that already pinged
        them, stored as the ping instead of posting one. One game's updates run one at a time
        (its sending task), in the language of the server's public messages."""
        service = bot.service
        if view.game_id in self._pings:
            previous = self._pings[view.game_id]
        else:  # the first look at this game since start: a ping the last process sent
            previous = await service.turn_ping(view.game_id)
            self._pings[view.game_id] = previous
        if previous is not None and previous.version >= view.version:
            if sent is not None:  # a newer position was already announced
                await _delete(bot, view, view.channel_id, sent)
            return  # this position (or a newer one) was already announced
        user_id = _pinged_user(view)
        wanted = sent is not None or (
            user_id is not None and await self._allowed(bot, view.guild_id)
        )
        told = self._targets.get(view.game_id)
        if (
            wanted
            and sent is None
            and previous is not None
            and user_id is not None
            and told == user_id
        ):
            # The player it told is to act again (an opening's next step): it still says so,
            # and a new one would notify the one who just acted.
            return
        channel = bot.get_partial_messageable(view.channel_id, guild_id=view.guild_id)
        if previous is not None:
            self._pings[view.game_id] = None
            await _delete(bot, view, previous.channel_id, previous.message_id)
            if not wanted:
                await service.drop_turn_ping(view.game_id)
        self._targets.pop(view.game_id, None)
        if sent is not None:
            ping = TurnPing(view.game_id, view.channel_id, sent, view.version)
            self._pings[view.game_id] = ping
            if user_id is not None:
                self._targets[view.game_id] = user_id
            await service.save_turn_ping(ping)
        elif wanted and user_id is not None:
            try:
                message = await channel.send(
                    words.turn_ping(user_id, render.game_title(view)),
                    allowed_mentions=discord.AllowedMentions(
                        everyone=False, roles=False, users=[discord.Object(user_id)]
                    ),
                )
            except (discord.HTTPException, *outage.NO_ANSWER) as error:
                log.warning("could not ping the player to move in game %s", view.game_id)
                if outage.discord_down(error):
                    bot.table.faults.failed(view.game_id, error)  # sent once Discord answers
                if previous is not None:
                    await service.drop_turn_ping(view.game_id)
            else:
                ping = TurnPing(view.game_id, view.channel_id, message.id, view.version)
                self._pings[view.game_id] = ping
                self._targets[view.game_id] = user_id
                await service.save_turn_ping(ping)
        if view.is_over:
            self._pings.pop(view.game_id, None)
            self._targets.pop(view.game_id, None)


async def _delete(bot: GameHost, view: GameState, channel_id: int, message_id: int) -> None:
    channel = bot.get_partial_messageable(channel_id, guild_id=view.guild_id)
    try:
        await channel.get_partial_message(message_id).delete()
    except (discord.HTTPException, *outage.NO_ANSWER) as error:
        if outage.discord_down(error):
            bot.table.faults.delete_later(channel_id, message_id, error)
        # Otherwise gone already, or not the bot's to delete any more.


async def remember_reply(
    bot: GameHost, interaction: discord.Interaction[Any], game_id: int, message_id: int | None
) -> PendingReply | None:
    """Store the deferred reply of ``interaction`` until the AI's move fills it in."""
    if message_id is None or bot.application_id is None:
        return None
    reply = PendingReply(
        token=interaction.token,
        game_id=game_id,
        application_id=bot.application_id,
        message_id=message_id,
        user_id=interaction.user.id,
        created_at=bot.clock(),
    )
    await bot.service.save_pending_reply(reply)
    return reply


async def finish_interrupted_replies(bot: GameHost) -> int:
    """On start-up: fill in every reply the last process left "thinking..." (while its token
    lives) with a short note that the board shows the game now; forget them all. Returns how
    many were filled in. The replies this process noted itself (an interaction answered
    before this ran) are its own to fill in: left alone."""
    assert isinstance(bot, discord.Client)  # a webhook answers through the bot's connection
    service = bot.service
    done = 0
    for reply in await service.pending_replies():
        if reply.token in bot.table.own_replies:
            continue
        if bot.clock() - reply.created_at < TOKEN_LIFE:
            webhook = discord.Webhook.partial(reply.application_id, reply.token, client=bot)
            language = await bot.service.language(reply.user_id)  # their choice, else
            if language is None:  # the server's (their client's is not known here)
                guild_id = (await bot.service.game(reply.game_id)).guild_id
                language = await bot.preferences.server_language(guild_id)
            with i18n.using(language):
                text = words.restarted()
            try:
                await webhook.edit_message(
                    reply.message_id,
                    content=text,
                    allowed_mentions=discord.AllowedMentions.none(),
                )
                done += 1
            except discord.HTTPException:
                log.warning("could not fill in an interrupted reply of game %s", reply.game_id)
        await service.drop_pending_reply(reply.token)
    return done
