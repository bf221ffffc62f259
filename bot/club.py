"""The club in Discord: open challenges, and for tournaments where their boards are played,
what the channel is told, and the tournament message's buttons.

The core runs a tournament (``bot.core.service.tournaments``); this module is the three
callbacks it is given and the buttons members press:

- ``Club.board_channel``: a board's game gets a line in the tournament's channel and a thread
  opened from it, where both players are pinged; the game is made in the thread, and its
  board drawn there when the core's ``GameStarted`` arrives (``Club.on_event``).
- ``Club.round_finished``: the standings after each round, as a code-block table in the
  tournament's channel, and the final standings when the last round ends (an arena's when
  its time is up).
- ``Club.clock_started``: a tournament's start time came: the channel is told that it
  started, or that it was cancelled for want of players.
- ``OpenChallengeButton``: an open challenge (``/gomoku start open:True``) that any member
  may accept, within a rating window when it names one; the challenger may cancel it.
- ``Club.join_queue``: the server's pairing queue (the core's, ``bot.core.service.matchmaking``,
  which stores every place in it): a member asks for a game of a kind, the two closest in
  rating are paired on each join and on a tick every ``QUEUE_TICK_S`` while anyone waits
  (windows widen with waiting), and their rated game opens in a thread where both are pinged.
  A member who times out has their private answer to joining edited to say so, through its
  token (alive 15 minutes, longer than the queue keeps anyone), so after a restart too.
  ``resume_queue`` puts the stored members back at start-up. Its time is the host's clock;
  ``wake_queue`` starts a tick at once and ``queue_passed`` waits for one, so tests move a
  fake clock instead of waiting.
- ``TournamentButton``: Join, Leave (a withdrawal once it runs) and Standings under the
  tournament message; ``DynamicItem`` custom ids, so they work after a restart. Like the
  open challenge's buttons, they are ``bot.views.PressedItem``s: the member's cooldown and
  the private answer to an error are the same as every game button's. Join and
  Leave edit the message to list who is in (``tournament_message``).

Who may organise (create, start, correct a result) is checked here, like who may end a game:
Manage Server, or the server's moderator role (``/gomoku-admin settings``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, Self

import discord
from discord import app_commands

from bot import permissions, threads
from bot.core.club.arena import game_numbers
from bot.core.club.errors import OutsideRatingError, OwnOpenChallengeError
from bot.core.service.errors import (
    ChallengeExpiredError,
    GameNotActiveError,
    NotChallengedError,
)
from bot.core.service.events import Event, GameStarted
from bot.core.service.matchmaking import QueueMatch
from bot.core.service.tournaments import DEFAULT_RATING
from bot.host import host_of
from bot.text import club_words, i18n, render, words
from bot.turns import TOKEN_LIFE
from bot.views import PressedItem
from bot.weblink import standings_link
from engine.types import Game, Rule
from storage.club import (
    EntrantStatus,
    Format,
    Pairing,
    QueueEntry,
    Tournament,
    TournamentStatus,
)
from storage.records import GameStatus

if TYPE_CHECKING:
    from bot.core.club.standings import Standing
    from bot.host import GameHost, Interaction

__all__ = [
    "ACTIONS",
    "Club",
    "OpenChallenge",
    "OpenChallengeButton",
    "TournamentButton",
    "may_organise",
    "post_open_challenge",
    "started_line",
    "tournament_message",
    "tournament_view",
]

log = logging.getLogger(__name__)

_MAX_MESSAGE: Final = 2000
QUEUE_TICK_S: Final = 5.0  # how often waiting members are paired again as their windows widen
_BOARD_THREAD_NAME: Final = 100  # Discord's longest thread name


async def may_organise(interaction: Interaction) -> bool:
    """Manage Server, or the server's moderator role."""
    return interaction.permissions.manage_guild or await permissions.has_moderator_role(interaction)


class Club:
    """The Discord side of the club: the tournaments' threads and standings, and the
    servers' pairing queues (see the module doc)."""

    EVENTS: Final = (GameStarted,)  # the kinds of event ``on_event`` acts on

    def __init__(self, host: GameHost) -> None:
        self.host = host
        self._boards: set[int] = set()  # threads made for a game whose board is not drawn yet
        self._ticker: asyncio.Task[None] | None = None
        self._entrant_edits: dict[int, asyncio.Lock] = {}  # by tournament
        self.queue_passes = 0  # the queue tick's passes so far
        self.queue_resumed = asyncio.Event()  # set once ``resume_queue`` has done its pass
        self._queue_wake = asyncio.Event()
        self._queue_passed = asyncio.Condition()

    async def board_channel(self, tournament: Tournament, pairing: Pairing) -> int:
        """Open a board's thread from a line in the tournament's channel, ping both players
        in it, and return the thread's id (the core makes the game there)."""
        assert pairing.white is not None  # a bye has no board
        host = self.host
        number = 0
        if tournament.format is Format.ARENA:
            # An arena's passes are no rounds to its players: its games go by number.
            numbers = game_numbers(await host.service.repository.pairings(tournament.id))
            number = numbers[pairing.round, pairing.board]
        with i18n.using(await host.preferences.server_language(tournament.guild_id)):  # public
            if number:
                line = club_words.arena_board_line(
                    tournament.name, number, pairing.black, pairing.white
                )
                name = club_words.arena_thread_name(tournament.name, number)
            else:
                line = club_words.board_line(
                    tournament.name, pairing.round, pairing.board, pairing.black, pairing.white
                )
                name = club_words.board_thread_name(tournament.name, pairing.round, pairing.board)
            ping = club_words.board_ping(
                pairing.black, pairing.white, club_words.time_control(tournament.seconds_per_move)
            )
        return await self._open_thread(
            tournament.guild_id,
            tournament.channel_id,
            (line, name, ping),
            (pairing.black, pairing.white),
        )

    async def _open_thread(
        self, guild_id: int, channel_id: int, text: tuple[str, str, str], players: tuple[int, int]
    ) -> int:
        """A line in the channel, a thread opened from it, and a ping of both players in it;
        the thread's id (its game's board is drawn once the game starts)."""
        line, name, ping = text
        host = self.host
        channel = host.get_partial_messageable(channel_id, guild_id=guild_id)
        message = await channel.send(line, allowed_mentions=discord.AllowedMentions.none())
        made = await host.http.start_thread_with_message(
            channel_id,
            message.id,
            name=name[:_BOARD_THREAD_NAME],
            auto_archive_duration=threads.ARCHIVE_AFTER,
            rate_limit_per_user=None,
        )
        thread_id = int(made["id"])
        self._boards.add(thread_id)
        pinged = [discord.Object(user_id) for user_id in players]
        thread = host.get_partial_messageable(thread_id, guild_id=guild_id)
        await thread.send(ping, allowed_mentions=discord.AllowedMentions(users=pinged))
        return thread_id

    def on_event(self, event: Event) -> None:
        """A game made in a thread of ours started: draw its board there."""
        game = event.game
        if isinstance(event, GameStarted) and game.channel_id in self._boards:
            self._boards.discard(game.channel_id)
            self.host.spawn(self._draw(event))

    async def show_entrants(self, message: discord.Message, tournament: Tournament) -> None:
        """Edit the tournament message to list who is in now (one edit at a time per
        tournament, each reading the entrants afresh, so the last edit shows the last join)."""
        lock = self._entrant_edits.setdefault(tournament.id, asyncio.Lock())
        async with lock:
            service = self.host.service
            entrants = await service.repository.entrants(tournament.id)
            active = [e.user_id for e in entrants if e.status is EntrantStatus.ACTIVE]
            ends = await service.arena_end(await service.repository.tournament(tournament.id))
            language = await self.host.preferences.server_language(tournament.guild_id)
            with i18n.using(language):  # public
                text = tournament_message(tournament, active, ends)
            await message.edit(content=text, allowed_mentions=discord.AllowedMentions.none())

    # ---- the pairing queue

    async def join_queue(self, interaction: Interaction, game: Game, rule: Rule) -> None:
        """Queue the member for ``game`` under ``rule``, answer privately, and pair.

        Raises:
            AlreadyPlayingError, AlreadyQueuedError (``bot.core.club.errors``).
        """
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None
        assert channel_id is not None
        service, user_id = self.host.service, interaction.user.id
        # A thread needs the bot's permission to open one; without it the game is played in
        # the channel the second member asked from.
        in_thread = isinstance(interaction.channel, discord.TextChannel) and permissions.has(
            interaction, permissions.THREADS
        )
        await service.join_queue(
            guild_id=guild_id,
            user_id=user_id,
            game=game,
            rule=rule,
            channel_id=channel_id,
            in_thread=in_thread,
            language=i18n.current(),
            token=interaction.token,
        )
        minutes = round(service.pairing_queue(guild_id).timeout_s / 60)
        answer = await interaction.response.send_message(
            club_words.queued(render.game_name(game), minutes), ephemeral=True
        )
        if answer.message_id is not None:
            await service.note_queue_answer(user_id, answer.message_id)
        await self._queue_pass(guild_id)
        self._start_ticker()

    async def leave_queue(self, interaction: Interaction) -> None:
        """Take the member out of the queue and say so privately.

        Raises:
            NotQueuedError: they were not waiting.
        """
        await self.host.service.leave_queue(interaction.user.id)
        await interaction.response.send_message(club_words.left_queue(), ephemeral=True)

    async def resume_queue(self) -> None:
        """At start-up: put the stored members back in the queues, tell whoever ran out of
        time while the bot was away, pair the rest, and tick while anyone waits."""
        await self.host.service.resume_queues()
        await self._queue_pass()
        self._start_ticker()
        self.queue_resumed.set()

    def wake_queue(self) -> None:
        """Run the queue's tick now rather than at the end of its ``QUEUE_TICK_S`` (a caller
        that moved the clock on)."""
        self._queue_wake.set()

    async def queue_passed(self, count: int = 1) -> None:
        """Wait until the queue's tick has made ``count`` more passes (for tests and tools)."""
        target = self.queue_passes + count
        async with self._queue_passed:
            await self._queue_passed.wait_for(lambda: self.queue_passes >= target)

    def _start_ticker(self) -> None:
        if self.host.service.anyone_queued() and (self._ticker is None or self._ticker.done()):
            self._ticker = self.host.spawn(self._tick())

    async def _tick(self) -> None:
        """While anyone waits: time out who waited too long, and pair as windows widen."""
        while self.host.service.anyone_queued():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._queue_wake.wait(), timeout=QUEUE_TICK_S)
            # Cleared before the pass reads the queues: a wake-up during it starts another.
            self._queue_wake.clear()
            await self._queue_pass()
            self.queue_passes += 1
            async with self._queue_passed:
                self._queue_passed.notify_all()

    async def _queue_pass(self, guild_id: int | None = None) -> None:
        """One pass of the core's queues (one server's, or all): tell who timed out, open the
        games of who was paired."""
        outcome = await self.host.service.queue_pass(guild_id)
        for entry in outcome.timed_out:
            await self._tell_timed_out(entry)
        for match in outcome.matches:
            try:
                await self._open_match(match)
            except Exception:
                self.host.service.queue_match_failed(match)
                log.exception("opening a queue game failed")

    async def _tell_timed_out(self, entry: QueueEntry) -> None:
        """Edit the member's private answer to joining into the news that their time ran out
        (through its token, while it lives: after a restart too)."""
        host = self.host
        if entry.token is None or entry.message_id is None or host.application_id is None:
            return
        if host.clock() - entry.joined_at >= TOKEN_LIFE:
            return  # the bot was away longer than the token lives: nobody left to tell
        assert isinstance(host, discord.Client)  # a webhook answers through the connection
        webhook = discord.Webhook.partial(host.application_id, entry.token, client=host)
        with i18n.using(entry.language):  # their own answer's language
            text = club_words.queue_timed_out()
        try:
            await webhook.edit_message(entry.message_id, content=text)
        except discord.HTTPException:
            log.info("could not tell a member their queue time ran out")

    async def _open_match(self, match: QueueMatch) -> None:
        """Open the paired members' game: in a thread off the channel the later of them asked
        from (or that channel itself, where no thread may be opened), both pinged."""
        host, guild_id = self.host, match.guild_id
        black, white = match.black.user_id, match.white.user_id
        where = match.later
        game, rule = match.game, match.rule
        channel_id = where.channel_id
        with i18n.using(await host.preferences.server_language(guild_id)):  # public
            line = club_words.queue_line(black, white, render.game_name(game))
            name = club_words.queue_thread_name(render.game_name(game))
            ping = club_words.queue_ping(black, white)
        if where.in_thread:
            channel_id = await self._open_thread(
                guild_id, channel_id, (line, name, ping), (black, white)
            )
        else:
            channel = host.get_partial_messageable(channel_id, guild_id=guild_id)
            mentioned = [discord.Object(black), discord.Object(white)]
            await channel.send(ping, allowed_mentions=discord.AllowedMentions(users=mentioned))
            self._boards.add(channel_id)
        view = await host.service.start(
            channel_id=channel_id,
            guild_id=guild_id,
            user_id=black,
            opponent=white,
            game=game,
            rule=rule,
            colour="black",
        )
        if where.in_thread:
            # Recorded as the thread's game, the game's end closes the thread.
            await host.service.move_to_thread(
                view.game_id, channel_id, parent_channel_id=where.channel_id
            )
        await host.service.accept(view.game_id, white)

    async def _draw(self, event: GameStarted) -> None:
        try:
            await self.host.table.show_game(event.game)
        except Exception:
            log.exception("drawing the board of tournament game %s failed", event.game.game_id)

    async def clock_started(self, tournament: Tournament, players: int) -> None:
        """Tell the tournament's channel that its start time started it, or cancelled it
        for want of players."""
        host = self.host
        with i18n.using(await host.preferences.server_language(tournament.guild_id)):  # public
            if tournament.status is TournamentStatus.CANCELLED:
                text = club_words.tournament_cancelled(tournament.name, players)
            else:
                text = await started_line(host, tournament, players)
        await self._post(tournament, text)

    async def round_finished(self, tournament: Tournament, round_: int, final: bool) -> None:
        """Post the standings after ``round_`` in the tournament's channel (the final ones
        after the last round)."""
        host = self.host
        table = await host.service.tournament_standings(tournament.id)
        with i18n.using(await host.preferences.server_language(tournament.guild_id)):  # public
            text = standings_message(tournament, table, round_, final=final)
            link = standings_link(host, tournament.id)  # the web board's page, when it is on
        await self._post(tournament, text, link)

    async def _post(
        self, tournament: Tournament, text: str, view: discord.ui.View | None = None
    ) -> None:
        """Send ``text`` (with ``view``'s buttons, if any) to the tournament's channel,
        pinging nobody."""
        channel = self.host.get_partial_messageable(
            tournament.channel_id, guild_id=tournament.guild_id
        )
        quiet = discord.AllowedMentions.none()
        if view is None:
            await channel.send(text, allowed_mentions=quiet)
        else:
            await channel.send(text, allowed_mentions=quiet, view=view)


async def started_line(host: GameHost, tournament: Tournament, players: int) -> str:
    """The channel's line for a tournament that has started (in the language in use): an
    arena's says when it ends."""
    ends = await host.service.arena_end(tournament)
    if ends is None:
        return club_words.tournament_started(tournament.name, players)
    return club_words.arena_started(tournament.name, players, int(ends.timestamp()))


def tournament_message(
    tournament: Tournament, entrants: Sequence[int], ends: datetime | None = None
) -> str:
    """The tournament message: what it is (a running arena: when it ends), and who is in (as
    many mentions as fit)."""
    head = club_words.tournament_announcement(
        tournament, render.game_name(Game(tournament.game)), ends
    )
    mentions = [f"<@{user_id}>" for user_id in entrants]
    shown = len(mentions)
    while True:
        line = club_words.entrants_line(
            mentions[:shown], tournament.player_cap, len(mentions) - shown
        )
        text = f"{head}\n{line}"
        if len(text) <= _MAX_MESSAGE or shown == 0:
            return text[:_MAX_MESSAGE]
        shown -= 1


def standings_message(
    tournament: Tournament, table: tuple[Standing, ...], round_: int, *, final: bool
) -> str:
    """The heading, the format and time control, and the standings as a code-block table,
    with names as mentions below (a code block cannot show them)."""
    heading = (
        club_words.final_standings(tournament.name)
        if final
        else club_words.standings_after(tournament.name, round_)
    )
    kind = club_words.kind_line(tournament.format, tournament.seconds_per_move)
    return f"{heading}\n{kind}\n{standings_table(tournament, table)}"[:_MAX_MESSAGE]


def standings_table(tournament: Tournament, table: tuple[Standing, ...]) -> str:
    """Rank, points, tiebreaks, and who, one line each: the table in a code block, the
    players as mentions after it (numbered to match)."""
    tiebreak_names = club_words.tiebreak_heading(tournament.format)
    header = ["#", club_words.points_heading(), *tiebreak_names]
    rows = [
        [str(line.rank), _score(line.points), *(_score(t) for t in line.tiebreaks)]
        for line in table
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    head = "  ".join(cell.rjust(w) for cell, w in zip(header, widths, strict=True))
    who = [f"{n}. {_member(line.user_id)}" for n, line in enumerate(table, start=1)]
    body = "\n".join([head, *(f"{line}  ({n})" for n, line in enumerate(lines, start=1))])
    return "```\n" + body + "\n```\n" + "\n".join(who)


def _member(user_id: int) -> str:
    """A player of the standings: their mention, or a forgotten member's pseudonym (a
    negative id, ``GameRepository.delete_user_data``) as a deleted user."""
    return f"<@{user_id}>" if user_id > 0 else words.deleted_user()


def _score(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


def tournament_view(tournament_id: int) -> discord.ui.View:
    """Join, Leave and Standings under a tournament message."""
    view = discord.ui.View(timeout=None)
    for action in ("join", "leave", "standings"):
        view.add_item(TournamentButton(tournament_id, action))
    return view


_STYLES: Final = {
    "join": discord.ButtonStyle.success,
    "leave": discord.ButtonStyle.secondary,
    "standings": discord.ButtonStyle.primary,
}


class TournamentButton(
    PressedItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"gomoku:tournament:(?P<id>[0-9]{1,18}):(?P<action>join|leave|standings)",
):
    """A tournament message's button (see the module doc)."""

    def __init__(self, tournament_id: int, action: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=club_words.button_label(action),
                style=_STYLES[action],
                custom_id=f"gomoku:tournament:{tournament_id}:{action}",
            )
        )
        self.tournament_id = tournament_id
        self.action = action

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]), match["action"])

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Join, leave or show the standings, answering privately."""
        service = host_of(interaction).service
        user_id = interaction.user.id
        tournament = await service.repository.tournament(self.tournament_id)
        if tournament.guild_id != interaction.guild_id:
            raise app_commands.CheckFailure("another server's tournament")
        table = host_of(interaction).table
        if self.action == "join":
            # Entering and leaving wait for the tournament's lock, which a round being paired
            # and opened holds: a long wait is acknowledged in time.
            await table.defer_if_slow(
                interaction,
                service.join_tournament(self.tournament_id, user_id),
                ephemeral=True,
                thinking=True,
            )
            if tournament.format is Format.ARENA:
                text = club_words.arena_joined(tournament.name)
            else:
                text = club_words.joined(tournament.name)
        elif self.action == "leave":
            await table.defer_if_slow(
                interaction,
                service.leave_tournament(self.tournament_id, user_id),
                ephemeral=True,
                thinking=True,
            )
            text = club_words.left(tournament.name)
        else:
            standing = await service.tournament_standings(self.tournament_id)
            ends = await service.arena_end(tournament)
            heading = (
                club_words.standings_now(tournament.name)
                if ends is None
                else club_words.arena_standings_now(tournament.name, int(ends.timestamp()))
            )
            text = f"{heading}\n{standings_table(tournament, standing)}"[:_MAX_MESSAGE]
        quiet = discord.AllowedMentions.none()
        if interaction.response.is_done():
            await interaction.edit_original_response(content=text, allowed_mentions=quiet)
        else:
            await interaction.response.send_message(text, ephemeral=True, allowed_mentions=quiet)
        if self.action != "standings" and interaction.message is not None:
            await host_of(interaction).club.show_entrants(interaction.message, tournament)


# ---- open challenges ---------------------------------------------------------------------


class OpenChallengeButton(
    PressedItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=(
        r"gomoku:open:(?P<user>[0-9]{1,20}):(?P<game>[a-z0-9_]{1,16}):(?P<rule>[a-z_]{1,16})"
        r":(?P<colour>black|white|random):(?P<rated>[01]):(?P<within>[0-9]{1,4})"
        r":(?P<expires>[0-9]{1,12}):(?P<action>accept|cancel)"
    ),
):
    """Accept or cancel an open challenge. The challenge is its message: everything it asks
    for is in the buttons' custom ids (so it works after a restart, and nothing is stored
    until someone accepts); accepting or cancelling takes the buttons off."""

    def __init__(self, challenge: OpenChallenge, action: str) -> None:
        accept = action == "accept"
        super().__init__(
            discord.ui.Button(
                label=club_words.open_label(accept=accept),
                style=discord.ButtonStyle.success if accept else discord.ButtonStyle.secondary,
                custom_id=f"{challenge.custom_id()}:{action}",
            )
        )
        self.challenge = challenge
        self.action = action

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """Rebuild the button from its custom id."""
        challenge = OpenChallenge(
            challenger=int(match["user"]),
            game=match["game"],
            rule=match["rule"],
            colour=match["colour"],
            rated=match["rated"] == "1",
            within=int(match["within"]),
            expires=int(match["expires"]),
        )
        return cls(challenge, match["action"])

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        """Accept (the game starts, in its thread where the server has them) or cancel (the
        challenger only)."""
        if self.action == "cancel":
            await self._cancel(interaction)
        else:
            await self._accept(interaction)

    async def _cancel(self, interaction: discord.Interaction[Any]) -> None:
        challenge = self.challenge
        if interaction.user.id != challenge.challenger:
            raise NotChallengedError(interaction.user.id, 0)
        _taken.add(challenge.custom_id())
        host = host_of(interaction)
        with i18n.using(await host.preferences.server_language(interaction.guild_id)):  # public
            text = club_words.open_cancelled(challenge.challenger)
        await interaction.response.edit_message(
            content=text, view=None, allowed_mentions=discord.AllowedMentions.none()
        )

    async def _accept(self, interaction: discord.Interaction[Any]) -> None:
        challenge = self.challenge
        host = host_of(interaction)
        user_id = interaction.user.id
        key = challenge.custom_id()
        if user_id == challenge.challenger:
            raise OwnOpenChallengeError(user_id)
        if key in _taken:
            raise GameNotActiveError(0, GameStatus.ACTIVE)
        if host.clock().timestamp() >= challenge.expires:
            raise ChallengeExpiredError(0)
        await self._check_rating(interaction)
        channel_id = interaction.channel_id
        assert channel_id is not None
        _taken.add(key)
        try:
            in_thread = await threads.uses_threads(interaction)
            view = await host.service.start(
                channel_id=channel_id,
                guild_id=interaction.guild_id,
                user_id=challenge.challenger,
                opponent=user_id,
                game=Game(challenge.game),
                rule=Rule(challenge.rule),
                colour=challenge.colour,
                rated=challenge.rated,
            )
            view = await host.service.accept(view.game_id, user_id)
        except Exception:
            _taken.discard(key)
            raise
        with i18n.using(await host.preferences.server_language(interaction.guild_id)):  # public
            taken = club_words.open_accepted(challenge.challenger, user_id)
        if in_thread:
            await threads.host_in_thread(
                interaction, view, await threads.announcement(interaction, view)
            )
        else:
            await host.table.respond_with_board(interaction, view)
        if interaction.message is not None:
            await interaction.message.edit(
                content=taken, view=None, allowed_mentions=discord.AllowedMentions.none()
            )

    async def _check_rating(self, interaction: discord.Interaction[Any]) -> None:
        challenge = self.challenge
        if not challenge.within:
            return
        host = host_of(interaction)
        game, rule = Game(challenge.game), Rule(challenge.rule)

        async def rating(user_id: int) -> int:
            stats = await host.service.repository.player_stats(
                user_id, game, guild_id=interaction.guild_id, rule=rule
            )
            return round(DEFAULT_RATING) if stats is None else stats.display_rating

        centre = await rating(challenge.challenger)
        low, high = centre - challenge.within, centre + challenge.within
        if not low <= await rating(interaction.user.id) <= high:
            raise OutsideRatingError(interaction.user.id, low, high)


@dataclass(frozen=True, slots=True)
class OpenChallenge:
    """What an open challenge asks for (see ``OpenChallengeButton``)."""

    challenger: int
    game: str  # a ``Game`` value
    rule: str  # a ``Rule`` value
    colour: str  # the challenger's: black, white or random
    rated: bool
    within: int  # the rating window around the challenger's rating; 0: anyone
    expires: int  # Unix seconds

    def custom_id(self) -> str:
        """The custom id's common part (the button adds its action)."""
        rated = "1" if self.rated else "0"
        return (
            f"gomoku:open:{self.challenger}:{self.game}:{self.rule}:{self.colour}:{rated}"
            f":{self.within}:{self.expires}"
        )

    def view(self) -> discord.ui.View:
        """Accept and Cancel under the challenge."""
        view = discord.ui.View(timeout=None)
        view.add_item(OpenChallengeButton(self, "accept"))
        view.add_item(OpenChallengeButton(self, "cancel"))
        return view


# Open challenges (their custom ids) accepted or cancelled by this process: a second press
# that came before the buttons were taken off is refused. (After a restart the message has
# no buttons left to press.)
_taken: set[str] = set()


async def post_open_challenge(
    interaction: Interaction, challenge: OpenChallenge, *, game_name: str
) -> None:
    """Answer ``/gomoku start open:True`` with the challenge and its buttons."""
    host = host_of(interaction)
    with i18n.using(await host.preferences.server_language(interaction.guild_id)):  # public
        text = club_words.open_challenge(
            challenge.challenger, game_name, challenge.within, challenge.expires
        )
        view = challenge.view()
    await interaction.response.send_message(
        text, view=view, allowed_mentions=discord.AllowedMentions.none()
    )


ACTIONS = (TournamentButton, OpenChallengeButton)
