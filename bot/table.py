"""The table: each game's board message, deferral of slow answers, a move and the AI's reply.

Showing a game: one message per game, edited move by move (``show_game``). It is posted anew
when it is missing, when it is more than an hour old (Discord limits edits of old messages
harder, error 30046) or when ``/gomoku board`` asks; the old one is deleted.

Answering in time: Discord wants a first answer within 3 s of the event. ``defer_if_slow``
awaits a service call and defers the interaction only when the call outlasts the point its
``AckClock`` names (``bot.deferral``: as late as the deferral still lands in time); a call
done before is answered in one request.

A move (``play_move``) is played through the service, drawn and answered. What happens
after it is the core's (``bot.core.runner``): the runner starts the AI's reply as soon as the
move is stored; ``play_ai`` waits for that reply and draws it with the interaction.

The table subscribes to the service's events (``on_event``) and draws what no interaction of
this process answers: the AI's moves (resumed, retried, or answering a move made on the web
board), games the clocks ended, turn warnings, moves and takebacks made on the web board,
undo requests asked there (posted with the buttons that answer them), and the answers given
there to a request posted in Discord (its buttons go, and its message says the answer; the
message is stored with the request, so this holds after a restart; with shards, an answer
given in another process comes over the game bus). A request posted here loses its buttons
when a move or the game's end leaves it unanswerable, made here or in another process (heard
over the bus); at start-up, the requests that ended while the bot was away lose theirs
(``close_stale_undo_requests``). A handler that
draws the AI's reply itself holds ``answering`` on its channel and game meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypeVar

import discord

from bot import outage, threads
from bot.core.service.errors import OutOfTimeError
from bot.core.service.events import (
    ChallengeIssued,
    Event,
    GameEnded,
    GameStarted,
    Moved,
    TakenBack,
    TurnWarning,
    UndoAnswered,
    UndoAsked,
)
from bot.core.service.inputs import Drop, GameRef, Place
from bot.core.service.states import GameState, MoveResult, RatingChange
from bot.deferral import AckClock
from bot.host import VIA, GameHost, MovePlay, MoveSource
from bot.preferences import ARRIVED
from bot.text import i18n, render, words
from bot.text.opening_words import choice_summary
from bot.text.render_png import render_png_async
from bot.turns import TurnPings, remember_reply
from bot.views import edit_answered, for_send, game_buttons, undo_view
from bot.weblink import with_board_link
from storage.records import GameStatus

if TYPE_CHECKING:
    from bot.core.bus import GameBus, UndoNote
    from storage.records import PendingReply, StoredUndo

__all__ = [
    "AI_REPLY_WAIT",
    "DEFERRAL",
    "NOTE_EVERY",
    "REPOST_AGE",
    "Answering",
    "Table",
    "card_embed",
]

log = logging.getLogger(__name__)

REPOST_AGE: Final = timedelta(hours=1)  # edits of older messages hit a stricter rate limit
_OLD_MESSAGE_EDIT: Final = 30046  # Discord: too many edits to messages older than an hour
_EXPIRED_TOKEN: Final = 401  # Discord: an interaction's webhook after its token's 15 minutes
# A /place against the AI waits this long for the AI's answer before it defers ("thinking..."):
# the easy levels answer well within it even under load, in one message instead of a
# deferral, its edit and the reply's note in storage (two writes) until then.
AI_REPLY_WAIT: Final = 0.5
# The boards drawn over this many seconds are noted in storage as one write (``_note_shown``):
# a note per drawn board was a write per interaction; a stop in the window costs a start-up
# no more than redrawing those boards once.
NOTE_EVERY: Final = 1.0
DEFERRAL: Final = "deferral"  # interaction.extras: the callback of defer_if_slow's deferral
T = TypeVar("T")


class _Posted(NamedTuple):
    """Where an undo request's message is (no ``message_id``: not known here)."""

    guild_id: int | None
    channel_id: int
    message_id: int | None


class _Answer(NamedTuple):
    requester: int
    responder: int
    by: int
    accepted: bool


def card_embed(card: render.Card) -> discord.Embed:
    """``card`` as discord.py's Embed."""
    embed = discord.Embed(
        title=card.title, description=card.description, colour=discord.Colour(card.colour)
    )
    if card.footer:
        embed.set_footer(text=card.footer)
    return embed


class Table:
    """Board messages and moves of every game this process shows."""

    # The kinds of event ``on_event`` acts on (a game's start or a challenge is drawn by the
    # interaction that made it, and a state read from storage changes nothing on screen).
    EVENTS: Final = (
        ChallengeIssued,
        GameStarted,
        Moved,
        GameEnded,
        TurnWarning,
        UndoAsked,
        UndoAnswered,
        TakenBack,
    )

    def __init__(
        self,
        host: GameHost,
        *,
        acks: AckClock | None = None,
        ai_reply_wait: float = AI_REPLY_WAIT,
        note_every: float = NOTE_EVERY,
    ) -> None:
        self.host = host
        self.note_every = note_every  # seconds of drawn boards noted in one write
        self.acks = acks or AckClock()  # when a slow write is answered by a deferral first
        self.ai_reply_wait = ai_reply_wait  # an AI slower than this: the /place is deferred
        self.turn_pings = TurnPings()
        # The replies this process noted in storage for the AI's move to fill in, until it
        # did: the start-up's fill-in of the last process's (``finish_interrupted_replies``),
        # which may run after the first interactions, leaves them alone.
        self.own_replies: set[str] = set()
        self.faults = outage.Faults(host)
        self._show_locks: dict[int, asyncio.Lock] = {}
        self._shown: dict[int, int] = {}  # game id -> the newest version drawn
        # game id -> its board message, known here before the state from the store says so
        self._board_ids: dict[int, int] = {}
        # game id -> the newest version drawn, not yet noted in storage (``_note_shown``)
        self._to_note: dict[int, int] = {}
        self._noting: asyncio.Task[None] | None = None
        # Channels and games whose handler draws the AI's reply itself (``answering``), and
        # the AI's moves left undrawn meanwhile, to draw if the handler did not.
        self._answering_channels: dict[int, int] = {}
        self._answering_games: dict[int, int] = {}
        self._quiet = asyncio.Event()  # set while no handler holds ``answering``
        self._quiet.set()
        self._undrawn: dict[int, tuple[GameState, tuple[RatingChange, ...]]] = {}
        # game id -> its undo request's message, with the buttons that answer it (noted with
        # the stored request too: an answer after a restart finds it on ``UndoAnswered``)
        self._undo_messages: dict[int, _Posted] = {}
        # game id -> the answer heard, or None, for a request asked here whose message is being
        # posted: an answer that comes before the message is known edits it once it is
        self._undo_posting: dict[int, _Answer | None] = {}
        # games whose request, asked here, a change (a move, the end) overtook while its
        # message was being posted: the message closes once it is known, if the request did
        self._undo_overtaken: set[int] = set()
        self._bus = False  # other processes may have posted requests (``follow``)

    # ------------------------------------------------------------------ the events

    def on_event(self, event: Event) -> None:
        """Draw what no interaction answers (see the module doc); called by the service under
        the game's lock, so the drawing is a task of its own."""
        game = event.game
        if game.guild_id is None:
            return  # a terminal's game
        if isinstance(event, ChallengeIssued | GameStarted):
            self.turn_pings.new_game(game.game_id)  # its handler draws it
            return
        if isinstance(event, TurnWarning):
            self.host.spawn(self._warn(event))
            return
        if isinstance(event, Moved | GameEnded):
            if game.game_id in self._undo_posting:  # an answer heard meanwhile is still said
                self._undo_overtaken.add(game.game_id)
            if game.game_id in self._undo_messages:
                # a move or the end leaves the request posted here unanswerable: it closes
                self.host.spawn(self._close_stale_undo(game.game_id))
        if isinstance(event, Moved):
            if not event.by_ai and event.via in (None, VIA):
                return  # a Discord handler answers with the board
            if event.by_ai and self._answered_here(game):
                self._undrawn[game.game_id] = (game, event.ratings)
                return
        elif isinstance(event, GameEnded):
            from_elsewhere = event.via not in (None, VIA)
            if not (from_elsewhere or (event.by_clock and event.via is None)):
                return
        elif isinstance(event, UndoAsked):
            if event.via is not None:  # its message is posted here (``undo_posted``)
                self._undo_posting[game.game_id] = None
            if event.via not in (None, VIA):  # /gomoku undo asks the opponent itself
                self.host.spawn(self._ask_undo(event))
            return
        elif isinstance(event, UndoAnswered):
            posted = self._undo_messages.pop(game.game_id, None)
            if event.via in (None, VIA):
                self._undo_posting.pop(game.game_id, None)
                return  # a button's press edits its message itself
            if posted is None and game.game_id in self._undo_posting:  # edited once posted
                answer = _Answer(event.requester, event.responder, event.by, event.accepted)
                self._undo_posting[game.game_id] = answer
                return
            if posted is None and event.message_id is not None:  # noted in storage
                assert event.channel_id is not None
                posted = _Posted(game.guild_id, event.channel_id, event.message_id)
            if posted is None and not self._bus:  # its message unknown: the answer said anew
                posted = _Posted(game.guild_id, game.channel_id, None)
            if posted is not None:  # else the process that posted the request edits it
                answer = _Answer(event.requester, event.responder, event.by, event.accepted)
                self.host.spawn(self._tell_undo_answer(game.game_id, posted, answer))
            return
        elif isinstance(event, TakenBack):
            if event.via not in (None, VIA):  # a Discord handler redraws the board itself
                self.host.spawn(self._draw(game, ()))
            return
        else:
            return
        self.host.spawn(self._draw(game, event.ratings))

    def _answered_here(self, game: GameState) -> bool:
        return game.game_id in self._answering_games or any(
            channel in self._answering_channels
            for channel in (game.channel_id, game.record.parent_channel_id)
        )

    def answering(self, channel_id: int | None) -> Answering:
        """Hold this (``with``) while a handler in ``channel_id`` will draw the AI's reply
        itself (a start, a rematch, an opening choice, a move): the table's subscriber leaves
        the AI's moves there to it, and draws any it left undrawn when the last holder lets
        go."""
        return Answering(self, channel_id)

    async def answers_done(self, within_s: float) -> None:
        """Wait (``within_s`` at most) until no handler holds ``answering``: shutting down, a
        move's handler stopped mid-answer still tells the player what was played, through
        the connection that closing would cut."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                await self._quiet.wait()

    def _draw_undrawn(self) -> None:
        for game_id, (game, ratings) in list(self._undrawn.items()):
            if not self._answered_here(game):
                del self._undrawn[game_id]
                self.host.spawn(self._draw(game, ratings))

    async def _draw(self, game: GameState, ratings: Sequence[RatingChange]) -> None:
        try:
            await self.show_game(game, ratings=ratings, newer_only=True)
        except discord.HTTPException:
            log.exception("could not draw game %s", game.game_id)

    async def _warn(self, event: TurnWarning) -> None:
        try:
            channel = self.host.get_partial_messageable(
                event.game.channel_id, guild_id=event.game.guild_id
            )
            when = discord.utils.format_dt(event.deadline, "R")
            with i18n.using(await self.host.preferences.server_language(event.game.guild_id)):
                text = words.turn_warning(event.user_id, when)
            await channel.send(
                text,
                allowed_mentions=discord.AllowedMentions(
                    users=[discord.Object(event.user_id)], everyone=False, roles=False
                ),
            )
        except (discord.HTTPException, *outage.NO_ANSWER) as error:
            if outage.discord_down(error):
                self.faults.failed(event.game.game_id, error)  # the clocks stand still
            log.warning("could not warn about game %s: %r", event.game.game_id, error)

    async def _ask_undo(self, event: UndoAsked) -> None:
        """Ask the opponent in the channel, with the buttons ``/gomoku undo`` gives."""
        game = event.game
        message_id: int | None = None
        try:
            # The request is for the opponent: in the server's language, like the board.
            with i18n.using(await self.host.preferences.server_language(game.guild_id)):
                content = words.undo_request(event.responder, event.requester)
                view = undo_view(game.game_id)
            channel = self.host.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
            mentions = discord.AllowedMentions(
                users=[discord.Object(event.responder)], everyone=False, roles=False
            )
            message_id = (await channel.send(content, view=view, allowed_mentions=mentions)).id
        except discord.HTTPException:
            log.exception("could not ask for the undo in game %s", game.game_id)
        finally:
            if message_id is None:  # whatever stopped the post
                self.undo_not_posted(game.game_id)
        if message_id is not None:
            self.undo_posted(game, event.requester, game.channel_id, message_id)

    def undo_posted(
        self, game: GameState, requester: int, channel_id: int, message_id: int
    ) -> None:
        """The undo request of ``game`` by ``requester`` was posted as this message (with its
        buttons): an answer given elsewhere edits it. It is noted with the stored request
        too, so that a restarted bot, or another process, edits it as well. An answer heard
        while the message was being posted edits it now."""
        posted = _Posted(game.guild_id, channel_id, message_id)
        answer = self._undo_posting.pop(game.game_id, None)
        overtaken = game.game_id in self._undo_overtaken
        self._undo_overtaken.discard(game.game_id)
        if answer is not None:
            self.host.spawn(self._tell_undo_answer(game.game_id, posted, answer))
            return
        self._undo_messages[game.game_id] = posted
        self.host.spawn(self._note_undo_message(game, requester, posted, overtaken=overtaken))

    def undo_not_posted(self, game_id: int) -> None:
        """The message of an undo request asked here could not be posted: an answer to it
        has nothing to edit."""
        self._undo_posting.pop(game_id, None)
        self._undo_overtaken.discard(game_id)

    async def _note_undo_message(
        self, game: GameState, requester: int, posted: _Posted, *, overtaken: bool
    ) -> None:
        assert posted.message_id is not None
        game_id, noted = game.game_id, True
        try:
            noted = await self.host.service.undo_posted(
                game_id, game.version, posted.channel_id, posted.message_id
            )
        except Exception:  # the message is still remembered here
            log.exception("could not note the undo request's message of game %s", game_id)
        if not overtaken:
            return
        # A change came while it was posted: a request it left behind closes.
        if noted:
            await self._close_stale_undo(game_id)
        elif self._undo_messages.get(game_id) == posted:
            # Gone before its message could be noted (dropped as left behind, here or in
            # another process): nobody else knows the message, whose buttons answer nothing.
            del self._undo_messages[game_id]
            await self._close_message(game_id, requester, posted)

    async def close_stale_undo_requests(self) -> int:
        """Start-up: the undo requests that ended while the bot was away (their game moved
        on or ended) are dropped, and their messages lose their buttons and say so. Returns
        how many messages were edited."""
        edited = 0
        for request, guild_id in await self.host.service.drop_stale_undo_requests():
            posted = self._undo_messages.pop(request.game_id, None)
            edited += await self._close_undo(request, guild_id, posted)
        return edited

    async def _close_stale_undo(self, game_id: int) -> None:
        """The game of a request posted here moved on: if the request can no longer be
        answered, its message loses its buttons."""
        try:
            for request, guild_id in await self.host.service.drop_stale_undo_requests(game_id):
                posted = self._undo_messages.get(game_id)
                if posted is not None and request.message_id not in (None, posted.message_id):
                    posted = None  # another request's message: the dropped one's is edited
                else:
                    self._undo_messages.pop(game_id, None)
                await self._close_undo(request, guild_id, posted)
        except Exception:
            log.exception("could not close the undo request of game %s", game_id)

    async def _close_undo(
        self, request: StoredUndo, guild_id: int | None, posted: _Posted | None
    ) -> int:
        """Edit the message of a request that ended unanswered (1), if it is known (else 0:
        a press on its buttons clears them)."""
        if posted is None and request.channel_id is not None and request.message_id is not None:
            posted = _Posted(guild_id, request.channel_id, request.message_id)
        if posted is None or posted.message_id is None:
            return 0
        return await self._close_message(request.game_id, request.requester, posted)

    async def _close_message(self, game_id: int, requester: int, posted: _Posted) -> int:
        """Say on a request's message that it is closed, and take its buttons (1; 0 if
        Discord refused)."""
        assert posted.message_id is not None
        try:
            with i18n.using(await self.host.preferences.server_language(posted.guild_id)):
                content = words.undo_request_closed(requester)
            channel = self.host.get_partial_messageable(posted.channel_id, guild_id=posted.guild_id)
            await channel.get_partial_message(posted.message_id).edit(
                content=content, view=None, allowed_mentions=discord.AllowedMentions.none()
            )
        except (discord.HTTPException, *outage.NO_ANSWER) as error:
            log.warning("could not close the undo request of game %s: %r", game_id, error)
            return 0
        return 1

    async def _tell_undo_answer(self, game_id: int, posted: _Posted, answer: _Answer) -> None:
        """An answer given elsewhere (the web board): the request's message says it and
        loses its buttons; a request this process asked before a restart has its answer said
        in the channel."""
        try:
            with i18n.using(await self.host.preferences.server_language(posted.guild_id)):
                content = words.undo_answer_note(
                    answer.requester,
                    answer.responder,
                    accepted=answer.accepted,
                    withdrawn=answer.by == answer.requester != answer.responder,
                )
            quiet = discord.AllowedMentions.none()
            channel = self.host.get_partial_messageable(posted.channel_id, guild_id=posted.guild_id)
            if posted.message_id is None:
                await channel.send(content, allowed_mentions=quiet)
            else:
                await channel.get_partial_message(posted.message_id).edit(
                    content=content, view=None, allowed_mentions=quiet
                )
        except (discord.HTTPException, *outage.NO_ANSWER) as error:
            log.warning("could not tell the undo answer of game %s: %r", game_id, error)

    # ---- the game bus (``bot.core.bus.Follower``): answers given in other processes

    def follow(self, bus: GameBus) -> None:
        """Hear from ``bus`` the answers given in other processes to the requests this one
        posted (a web board page in another process answers what ``/gomoku undo`` asked
        here)."""
        self._bus = True
        bus.follow(self)

    def changed(self, game_id: int, version: int) -> None:
        """A game changed in another process: that process draws its board; a request this
        process posted that the change left behind (a move, the end) closes."""
        if game_id in self._undo_messages:
            self.host.spawn(self._close_stale_undo(game_id))
        if game_id in self._undo_posting:  # a newer request than the one known, maybe
            self._undo_overtaken.add(game_id)

    def resync(self) -> None:
        """The bus was away: each request this process posted is looked at again, and one
        that a change missed meanwhile left behind (a move, the end) closes. An answer missed
        meanwhile leaves the request's buttons, which go at the first press on them
        (answering that no request waits)."""
        for game_id in tuple(self._undo_messages):
            self.host.spawn(self._close_stale_undo(game_id))
        self._undo_overtaken.update(self._undo_posting)

    def undo(self, note: UndoNote) -> None:
        """An undo request was asked or answered in another process: an answer to one this
        process posted edits its message."""
        from bot.core.bus import UndoAnswer  # msgspec: only where there is a bus

        if not isinstance(note, UndoAnswer):
            return
        posted = self._undo_messages.get(note.game_id)
        if posted is None:
            if note.game_id in self._undo_posting and note.message_id is None:
                if note.via == VIA:  # a button's press edits its message itself
                    del self._undo_posting[note.game_id]
                else:  # answered before its message was known here: edited once it is posted
                    answer = _Answer(note.requester, note.responder, note.by, note.accepted)
                    self._undo_posting[note.game_id] = answer
            return
        if note.message_id is not None and note.message_id != posted.message_id:
            return  # the answer to an earlier request, heard late: the one posted here waits
        del self._undo_messages[note.game_id]
        # A message noted in storage was edited by the process that heard the answer (see
        # ``on_event``), as a button's press edits its own.
        if note.message_id is None and note.via != VIA:
            answer = _Answer(note.requester, note.responder, note.by, note.accepted)
            self.host.spawn(self._tell_undo_answer(note.game_id, posted, answer))

    # ------------------------------------------------------------------ drawing

    async def defer_if_slow(
        self,
        interaction: discord.Interaction[Any],
        work: Awaitable[T],
        *,
        ephemeral: bool = False,
        thinking: bool = False,
    ) -> T:
        """Await ``work`` (a service call that writes), acknowledging ``interaction`` with a
        deferral if it is not done when ``acks`` says (``bot.deferral``: as late as the deferral
        still lands within Discord's 3 s). A
        database busy for seconds (another process holding a write lock) then delays the
        answer instead of losing it to Discord's 3 s deadline after the write has landed. A
        fast call costs nothing: the caller answers in one request as before, and checks
        ``response.is_done()``."""
        if interaction.response.is_done():
            return await work

        loop = asyncio.get_running_loop()

        async def defer(due: float) -> None:
            try:
                deferral = await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)
                interaction.extras[DEFERRAL] = deferral
                self.acks.note(loop.time() - due)
            except discord.HTTPException:
                # Too late already (the event reached us late): the work goes on regardless.
                self.acks.late()
                log.warning("could not acknowledge interaction %s in time", interaction.id)

        # The work runs in this task and a timer starts the deferral beside it: a task for the
        # work and asyncio.wait cost two more turns of a loop that, under load, is slow to turn.
        # Discord's 3 s run from the event, so the time the interaction already spent before
        # and since it reached the bot (its member's language, read for a newcomer: up to
        # ``Preferences.language_wait``) comes off the timer's (``bot.deferral``).
        now = loop.time()
        delay = self.acks.delay(interaction.id, now - interaction.extras.get(ARRIVED, now))
        deferring: list[asyncio.Task[None]] = []
        timer = loop.call_later(
            delay, lambda: deferring.append(asyncio.ensure_future(defer(now + delay)))
        )
        try:
            return await work
        finally:
            timer.cancel()
            if deferring:
                await deferring[0]  # the caller answers next: only after the deferral did

    async def board_message(
        self, game: GameState, ratings: Sequence[RatingChange] = ()
    ) -> dict[str, Any]:
        """The keyword arguments that draw ``game`` (embed, buttons, mentions)."""
        style = await self.host.preferences.look(game.guild_id)
        # The public board must fit a phone in portrait: large boards show a window of it.
        viewport = render.phone_viewport(game.board, style)
        embed = card_embed(render.game_card(game, style=style, viewport=viewport))
        attachments: list[discord.File] = []
        if style is render.Look.IMAGE:
            # Pillow drawing is CPU work: keep it off the event loop.
            png = await render_png_async(game.board)
            attachments.append(discord.File(io.BytesIO(png), filename="board.png"))
            embed.set_image(url="attachment://board.png")
        for change in ratings:
            embed.add_field(
                name=words.rating_field(),
                value=f"<@{change.user_id}>: {change.before} → {change.after}",
            )
        content = ""
        if game.status is GameStatus.PENDING:
            # Ping the challenged user (creation pings, edits never do).
            challenged = [p for p in game.humans if p != game.challenger]
            content = " ".join(f"<@{user}>" for user in challenged)
        buttons = game_buttons(game)
        if self.host.settings.web_url is not None and self.host.settings.web_port is not None:
            buttons = with_board_link(buttons, game)
        return {"content": content, "embed": embed, "view": buttons, "attachments": attachments}

    async def show_game(
        self,
        game: GameState,
        *,
        interaction: discord.Interaction[Any] | None = None,
        ratings: Sequence[RatingChange] = (),
        repost: bool = False,
        pinged: int | None = None,
        strict: bool = False,
        newer_only: bool = False,
        ping: bool = True,
    ) -> None:
        """Draw ``game`` on its board message: edit it, or post it anew (see module doc).

        ``interaction``: when it is a button on that very message (or the command whose
        response is that message), the edit goes through the interaction token. ``pinged``:
        the message that already told the player to move (``bot.turns``). ``newer_only``:
        not when this version is on screen already (the events' drawing).

        Discord's faults do not reach the caller (the game is stored already): a board that
        Discord did not answer for is redrawn once it does, a game whose channel or thread
        is gone ends, one where the bot lost a permission waits (``bot.outage``). ``strict``
        (the redraw after an outage): a Discord that still does not answer raises. ``ping``:
        False leaves the turn's ping alone (the board's redraw at start-up).
        """
        words.use_command_ids(self.host.preferences.command_ids)  # also outside interactions
        try:
            with i18n.using(
                await self.host.preferences.server_language(game.guild_id)
            ):  # the board is public
                await self._show_game(
                    game,
                    interaction=interaction,
                    ratings=ratings,
                    repost=repost,
                    pinged=pinged,
                    newer_only=newer_only,
                    ping=ping,
                )
        except (discord.HTTPException, *outage.NO_ANSWER) as error:
            if strict and outage.discord_down(error):
                raise
            if pinged is not None:
                # The player was told already (a /place's answer): that stays the turn's ping.
                self.turn_pings.announce(self.host, game, sent=pinged)
            await self._fault(game, error)

    async def _fault(self, game: GameState, error: BaseException) -> None:
        """Discord failed to draw ``game``: see ``show_game``."""
        if outage.discord_down(error):
            self.faults.failed(game.game_id, error)
        elif outage.home_gone(error):
            await self.faults.home_lost(game, error)
        elif isinstance(error, discord.Forbidden):
            log.warning(
                "game %s waits: the bot may not draw it in channel %s (%s)",
                game.game_id,
                game.channel_id,
                error.code,
            )
        else:
            raise error

    async def _show_game(
        self,
        game: GameState,
        *,
        interaction: discord.Interaction[Any] | None,
        ratings: Sequence[RatingChange],
        repost: bool,
        pinged: int | None = None,
        newer_only: bool = False,
        ping: bool = True,
    ) -> None:
        lock = self._show_locks.setdefault(game.game_id, asyncio.Lock())
        async with lock:
            shown = self._shown.get(game.game_id, -1)
            if (shown > game.version or (newer_only and shown == game.version)) and not repost:
                return  # a newer state is already on screen
            self._shown[game.game_id] = game.version
            message_args = await self.board_message(game, ratings)
            message_id = self._board_ids.get(game.game_id, game.record.message_id)
            target = None if repost else self._board_target(game)
            edited = False
            if target is not None:
                edited = await self._try_edit(game, target, message_args, interaction)
            if not edited:
                await self._post_board(game, message_args, old=message_id)
            self._note_shown(game)
        if game.is_over and game.record.parent_channel_id is not None:
            await threads.close_thread(self.host, game)
        if ping:  # in its own task: nothing here waits for it
            self.turn_pings.announce(self.host, game, sent=pinged)
        if game.is_over:
            # Nothing will redraw a finished game except /gomoku board: forget its state.
            self._show_locks.pop(game.game_id, None)
            self._shown.pop(game.game_id, None)
            self._board_ids.pop(game.game_id, None)

    def _note_shown(self, game: GameState) -> None:
        """Note in storage, in the background and many games at once (every ``NOTE_EVERY``
        seconds), that ``game``'s board shows it: a start-up redraws the open games whose
        board is not noted as showing their newest version
        (``bot.outage.Faults.redraw_unshown``)."""
        self._to_note[game.game_id] = max(game.version, self._to_note.get(game.game_id, -1))
        if self._noting is None or self._noting.done():
            self._noting = self.host.spawn(self._write_shown())

    async def _write_shown(self) -> None:
        while self._to_note:
            try:
                await asyncio.sleep(self.note_every)
            finally:  # a shutdown cancels the wait: the boards drawn are noted all the same
                noted, self._to_note = self._to_note, {}
                try:
                    await self.host.service.mark_shown(noted)
                except Exception as error:  # the boards are drawn; a start-up redraws more
                    log.warning("could not note %s boards as shown: %r", len(noted), error)

    async def answer_with_board(
        self,
        interaction: discord.Interaction[Any],
        game: GameState,
        *,
        ratings: Sequence[RatingChange] = (),
    ) -> None:
        """Draw ``game`` as the answer to ``interaction``, a button on the game's board: the
        redraw of that message is the button's answer, in its own callback (one request).
        When the board is another message (posted anew, an older copy clicked) or is to be
        posted anew, the button is acknowledged first and the board drawn after: Discord's
        3 s must not wait on the requests of a redraw that cannot answer it."""
        if not interaction.response.is_done():
            target = self._board_target(game)
            if target is None or not _answers_on(interaction, target):
                await interaction.response.defer()
        await self.show_game(game, interaction=interaction, ratings=ratings)
        if not interaction.response.is_done():
            # Nothing was drawn: a newer state of the game was on screen already.
            await interaction.response.defer()

    def _board_target(self, game: GameState) -> int | None:
        """The message that ``show_game`` edits to draw ``game``; None when it posts the board
        anew (there is none yet, or it is over ``REPOST_AGE`` old)."""
        message_id = self._board_ids.get(game.game_id, game.record.message_id)
        if message_id is None:
            return None
        if self.host.clock() - discord.utils.snowflake_time(message_id) > REPOST_AGE:
            return None
        return message_id

    async def respond_with_board(
        self, interaction: discord.Interaction[Any], game: GameState, *, replace: bool = False
    ) -> None:
        """Answer ``interaction`` with the board, which becomes the game's message.

        After a ``defer(thinking=True)`` the deferred reply is filled in. ``replace`` deletes
        the previous board message (``/gomoku board`` moves the board to the bottom).
        """
        lock = self._show_locks.setdefault(game.game_id, asyncio.Lock())
        async with lock:
            with i18n.using(
                await self.host.preferences.server_language(game.guild_id)
            ):  # the board is public
                message_args = await self.board_message(game)
            if interaction.response.is_done():
                message = await interaction.edit_original_response(**message_args)
                message_id = message.id
            else:
                callback = await interaction.response.send_message(**for_send(message_args))
                if callback.message_id is None:
                    raise RuntimeError("Discord returned no message id for the board")
                message_id = callback.message_id
            interaction.extras["board_message_id"] = message_id
            old = self._board_ids.get(game.game_id, game.record.message_id)
            self._board_ids[game.game_id] = message_id
            self._shown[game.game_id] = max(game.version, self._shown.get(game.game_id, -1))
            self._note_shown(game)
            await self.host.service.set_message(
                game.game_id, channel_id=game.channel_id, message_id=message_id
            )
            if replace and old is not None and old != message_id:
                channel = self.host.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
                with contextlib.suppress(discord.HTTPException):
                    await channel.get_partial_message(old).delete()

    async def _try_edit(
        self,
        game: GameState,
        message_id: int,
        message_args: dict[str, Any],
        interaction: discord.Interaction[Any] | None,
    ) -> bool:
        """Edit the board message; False when it has to be posted anew instead."""
        try:
            # The board is this interaction's own message: the token edits it without REST.
            if interaction is not None and _answers_on(interaction, message_id):
                await edit_answered(interaction, **message_args)
            else:
                channel = self.host.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
                await channel.get_partial_message(message_id).edit(**message_args)
        except discord.NotFound as error:
            if outage.home_gone(error):
                raise  # the channel itself is gone, not only the message
            return False  # deleted by someone
        except discord.HTTPException as error:
            if error.code == outage.ARCHIVED and await outage.unarchive(self.host, game.channel_id):
                # Discord archived the game's quiet thread: reopened, the edit is tried once more.
                channel = self.host.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
                await channel.get_partial_message(message_id).edit(**message_args)
                return True
            if error.code != _OLD_MESSAGE_EDIT:
                raise
            return False
        return True

    async def _post_board(
        self, game: GameState, message_args: dict[str, Any], *, old: int | None
    ) -> None:
        channel = self.host.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
        message = await channel.send(**for_send(message_args))
        self._board_ids[game.game_id] = message.id
        await self.host.service.set_message(
            game.game_id, channel_id=game.channel_id, message_id=message.id
        )
        if old is not None:
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(old).delete()

    async def play_move(self, interaction: discord.Interaction[Any], move: MovePlay) -> MoveResult:
        """A move from ``/place`` or a board button: play, redraw, let the AI answer.

        ``move.source`` says how it came: a ``/place`` (checked against its game's one
        notation), a button on the board, or a tap on the private panel (refused when the
        panel is stale).

        A command is answered privately ("You played h8."), after deferring when the write is
        slow (``defer_if_slow``) or the AI takes longer than ``ai_reply_wait`` to answer (a quicker
        AI's answer is in the one reply: "You played h8. The AI answered i9."); between
        people with pings on, at once and publicly with the ping of the player to move
        (``_answer_move``). A button is
        acknowledged at once and needs no words: its board changes. The core runner starts
        the AI's reply as soon as the move is stored: it is made, and drawn, even if answering
        the player fails. A button on the board message itself (a grid square, a column) is
        answered by the board's redraw, in its own callback (one request instead of a deferral
        and an edit); it is deferred only when the write is slow.
        """
        if interaction.channel_id is None:
            raise RuntimeError("interaction without a channel")
        # The AI's reply, which the runner starts as soon as the move is stored, is drawn
        # here, with the interaction: the table's subscriber leaves it to this handler, and
        # draws it after all if the handler ends (fails) before it did.
        with self.answering(interaction.channel_id) as answering:
            return await self._play_move(interaction, move, answering)

    async def _play_move(
        self, interaction: discord.Interaction[Any], move: MovePlay, answering: Answering
    ) -> MoveResult:
        if interaction.channel_id is None:
            raise RuntimeError("interaction without a channel")
        started = asyncio.get_running_loop().time()
        is_command = interaction.type is discord.InteractionType.application_command
        on_board = move.source is MoveSource.BOARD
        if not is_command and not on_board:
            # A tap on the private panel: acknowledge at once, the public board is what
            # changes (by an edit of its own) and the panel after that.
            await interaction.response.defer()
        user = interaction.user.id
        channel_id = interaction.channel_id
        action: Place | Drop
        if move.column is not None:
            action = Drop(move.column, letter=move.column_letter)
        elif move.point is not None:
            points_only = move.source is MoveSource.COMMAND
            action = Place(move.point, version=move.panel_version, points_only=points_only)
        else:
            raise ValueError("a move needs a point or a column")
        ref = GameRef(move.game_id, channel_id)
        played = self.host.service.act(ref, user, action, via=VIA)
        try:
            result = await self.defer_if_slow(
                interaction, played, ephemeral=is_command, thinking=is_command
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
        ai_due = result.ai_due
        answering.game(result.game.game_id)
        if is_command and not ai_due and not interaction.response.is_done():
            # No AI to wait for: answer straight away (one request instead of a deferral and
            # an edit), then show the move on the board. Between people the answer is public
            # and pings the player to move: it is the turn's ping (bot.turns).
            try:
                pinged = await self._answer_move(interaction, result)
            except (discord.HTTPException, *outage.NO_ANSWER) as error:
                # The move is stored: its board shows it even though its answer failed (once
                # Discord answers again, if it did not answer).
                if outage.discord_down(error):
                    self.faults.failed(result.game.game_id, error)
                else:
                    await self.show_game(result.game, ratings=result.ratings)
                raise
            await self.show_game(
                result.game, interaction=interaction, ratings=result.ratings, pinged=pinged
            )
            return result
        game_id = result.game.game_id
        # The deferral of the reply (its task), once there is one: the reply is noted in
        # storage until it is filled in, so that a restart can still fill it in.
        pending: list[asyncio.Task[PendingReply | None]] = []

        def defer() -> None:
            reply = self._defer_reply(interaction, game_id, remember=ai_due)
            pending.append(asyncio.ensure_future(reply))

        waiting: asyncio.TimerHandle | None = None
        if is_command and interaction.response.is_done():
            defer()  # a slow write deferred already: note the reply if the AI is to fill it in
        elif is_command:
            # The AI answers next. A quick answer is the reply itself, one message; a search
            # that takes longer is deferred then (the board shows the player's stone meanwhile).
            # Either way the deferral goes out beside the board's redraw, not before it, so the
            # player sees their stone a round trip sooner. The wait counts from the command's
            # start: a write that took long leaves less of it. It never outlasts the point by
            # which the deferral must go to land within Discord's 3 s (``acks``): an
            # interaction that reached the handler late has less than the wait left.
            loop = asyncio.get_running_loop()
            now = loop.time()
            waited = now - interaction.extras.get(ARRIVED, now)
            delay = min(
                max(0.0, self.ai_reply_wait - (now - started)),
                self.acks.delay(interaction.id, waited),
            )
            waiting = loop.call_later(delay, defer)
        shutting_down = False
        try:
            if on_board:
                await self.answer_with_board(interaction, result.game, ratings=result.ratings)
            else:
                await self.show_game(result.game, interaction=interaction, ratings=result.ratings)
            reply = result
            if ai_due:
                reply = await self.play_ai(game_id, interaction=interaction) or result
            if waiting is not None:
                waiting.cancel()
            if pending:
                # A fast AI must not fill in a reply not yet deferred; shielded, so that a
                # shutdown here still leaves the reply noted for the next start.
                await asyncio.shield(pending[0])
                await self._fill_in(interaction, reply.game, _move_summary(result, reply))
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
            try:
                saved = None if not pending else await pending[0]
                if saved is not None and not shutting_down:
                    await self.host.service.drop_pending_reply(saved.token)
            finally:
                self.own_replies.discard(interaction.token)  # noted or not, it is settled
        return reply

    async def _fill_in(
        self, interaction: discord.Interaction[Any], game: GameState, text: str
    ) -> None:
        """Fill in ``interaction``'s deferred reply with ``text``; where its token has expired
        (15 minutes) or its reply is gone, say it in the game's channel instead, to the
        player by mention."""
        try:
            await interaction.edit_original_response(content=text)
            return
        except discord.HTTPException as error:
            if error.status not in (_EXPIRED_TOKEN, 403, 404):
                raise
            expired = error
        log.warning(
            "reply to interaction %s is gone (%s %s); answering in the channel",
            interaction.id,
            expired.status,
            expired.code,
        )
        user = interaction.user.id
        channel = self.host.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
        await channel.send(
            f"<@{user}> {text}",
            allowed_mentions=discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(user)]
            ),
        )

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
        self.own_replies.add(interaction.token)
        return await remember_reply(self.host, interaction, game_id, message_id)

    async def _answer_move(
        self, interaction: discord.Interaction[Any], result: MoveResult
    ) -> int | None:
        """Answer a ``/place`` that needs no deferral: privately, or, when the move leaves
        another person to move and pings are on, publicly with the ping. Returns the ping's
        message id, if the answer is one."""
        game = result.game
        user_id = await self.turn_pings.ping_target(self.host, game)
        if user_id is None or user_id == interaction.user.id:
            await interaction.response.send_message(_move_summary(result, result), ephemeral=True)
            return None
        with i18n.using(
            await self.host.preferences.server_language(game.guild_id)
        ):  # public, like the board
            played = render.move_name(result.game.board, result.move.point)
            text = f"{words.turn_ping(user_id, render.game_title(game))}\n"
            text += words.played_by(interaction.user.id, played)
        callback = await interaction.response.send_message(
            text,
            allowed_mentions=discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(user_id)]
            ),
        )
        return callback.message_id

    async def play_ai(
        self, game_id: int, *, interaction: discord.Interaction[Any] | None = None
    ) -> MoveResult | None:
        """Wait for the AI's reply in ``game_id`` (the runner started it when it became
        due) and draw it. Callers hold ``answering`` on the game meanwhile."""
        result = await self.host.runner.answer(game_id)
        if result is not None:
            self._undrawn.pop(game_id, None)
            await self.show_game(result.game, interaction=interaction, ratings=result.ratings)
        return result


class Answering:
    """``Table.answering`` held: the channel, and the games a handler draws the AI's reply
    in. Each is counted in one of the table's dicts while held (a handler's every move holds
    one: a dict operation a count, no generator)."""

    __slots__ = ("_channel_id", "_table", "games")

    def __init__(self, table: Table, channel_id: int | None) -> None:
        self._table = table
        self._channel_id = channel_id
        self.games: list[int] = []

    def __enter__(self) -> Answering:
        self._table._quiet.clear()
        channel_id = self._channel_id
        if channel_id is not None:
            channels = self._table._answering_channels
            channels[channel_id] = channels.get(channel_id, 0) + 1
        return self

    def __exit__(self, *exc_info: object) -> None:
        table = self._table
        channel_id = self._channel_id
        if channel_id is not None:
            channels = table._answering_channels
            if held := channels.pop(channel_id, 1) - 1:
                channels[channel_id] = held
        games = table._answering_games
        for game_id in self.games:
            if held := games.pop(game_id, 1) - 1:
                games[game_id] = held
        if not games and not table._answering_channels:
            table._quiet.set()
        if table._undrawn:
            table._draw_undrawn()

    def game(self, game_id: int) -> None:
        """The handler draws the AI's reply in ``game_id`` too (wherever it is hosted)."""
        self.games.append(game_id)
        games = self._table._answering_games
        games[game_id] = games.get(game_id, 0) + 1


def _answers_on(interaction: discord.Interaction[Any], message_id: int) -> bool:
    """Whether ``message_id`` is ``interaction``'s own message: a button on it, or the command
    whose response it is (``respond_with_board`` notes that in extras)."""
    return (
        interaction.message is not None and interaction.message.id == message_id
    ) or interaction.extras.get("board_message_id") == message_id


def _move_summary(first: MoveResult, last: MoveResult) -> str:
    board = first.game.board
    played = render.move_name(board, first.move.point)
    if last is not first and last.step is not None:
        # an opening choice, not a stone
        return words.move_summary(played, choice=choice_summary(last.step, ai=True))
    if last is not first:
        return words.move_summary(played, reply=render.move_name(board, last.move.point))
    return words.move_summary(played)
