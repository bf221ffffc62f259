"""Tournaments in Discord: where their boards are played, what the channel is told, and the
tournament message's buttons.

The core runs a tournament (``bot.core.service.tournaments``); this module is the two
callbacks it is given and the buttons members press:

- ``Club.board_channel``: a board's game gets a line in the tournament's channel and a thread
  opened from it, where both players are pinged; the game is made in the thread, and its
  board drawn there when the core's ``GameStarted`` arrives (``Club.on_event``).
- ``Club.round_finished``: the standings after each round, as a code-block table in the
  tournament's channel, and the final standings when the last round ends.
- ``TournamentButton``: Join, Leave (a withdrawal once it runs) and Standings under the
  tournament message; ``DynamicItem`` custom ids, so they work after a restart.

Who may organise (create, start, correct a result) is checked here, like who may end a game:
Manage Server, or the server's moderator role (``/gomoku-admin settings``).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Final, Self

import discord
from discord import app_commands

from bot.core.service.events import Event, GameStarted
from bot.host import host_of
from bot.reporting import report
from bot.text import club_words, i18n
from bot.threads import ARCHIVE_AFTER
from storage.club import Format, Pairing, Tournament

if TYPE_CHECKING:
    from bot.core.club.standings import Standing
    from bot.host import GameHost, Interaction

__all__ = ["ACTIONS", "Club", "TournamentButton", "may_organise", "tournament_view"]

log = logging.getLogger(__name__)

_MAX_MESSAGE: Final = 2000
_BOARD_THREAD_NAME: Final = 100  # Discord's longest thread name


async def may_organise(interaction: Interaction) -> bool:
    """Manage Server, or the server's moderator role."""
    if interaction.permissions.manage_guild:
        return True
    if interaction.guild_id is None or not isinstance(interaction.user, discord.Member):
        return False
    settings = await host_of(interaction).service.settings(interaction.guild_id)
    role = settings.moderator_role_id
    return role is not None and any(r.id == role for r in interaction.user.roles)


class Club:
    """The Discord side of the tournaments the core runs (see the module doc)."""

    def __init__(self, host: GameHost) -> None:
        self.host = host
        self._boards: set[int] = set()  # threads made for a board whose board is not drawn yet

    async def board_channel(self, tournament: Tournament, pairing: Pairing) -> int:
        """Open a board's thread from a line in the tournament's channel, ping both players
        in it, and return the thread's id (the core makes the game there)."""
        assert pairing.white is not None  # a bye has no board
        host = self.host
        with i18n.using(await host.preferences.server_language(tournament.guild_id)):  # public
            line = club_words.board_line(
                tournament.name, pairing.round, pairing.board, pairing.black, pairing.white
            )
            name = club_words.board_thread_name(tournament.name, pairing.round, pairing.board)
            ping = club_words.board_ping(pairing.black, pairing.white, tournament.seconds_per_move)
        guild_id = tournament.guild_id
        channel = host.get_partial_messageable(tournament.channel_id, guild_id=guild_id)
        message = await channel.send(line, allowed_mentions=discord.AllowedMentions.none())
        made = await host.http.start_thread_with_message(
            tournament.channel_id,
            message.id,
            name=name[:_BOARD_THREAD_NAME],
            auto_archive_duration=ARCHIVE_AFTER,
            rate_limit_per_user=None,
        )
        thread_id = int(made["id"])
        self._boards.add(thread_id)
        players = [discord.Object(pairing.black), discord.Object(pairing.white)]
        thread = host.get_partial_messageable(thread_id, guild_id=guild_id)
        await thread.send(ping, allowed_mentions=discord.AllowedMentions(users=players))
        return thread_id

    def on_event(self, event: Event) -> None:
        """A board's game was made in its thread: draw its board there."""
        if isinstance(event, GameStarted) and event.game.channel_id in self._boards:
            self._boards.discard(event.game.channel_id)
            self.host.spawn(self._draw(event))

    async def _draw(self, event: GameStarted) -> None:
        try:
            await self.host.table.show_game(event.game)
        except Exception:
            log.exception("drawing the board of tournament game %s failed", event.game.game_id)

    async def round_finished(self, tournament: Tournament, round_: int, final: bool) -> None:
        """Post the standings after ``round_`` in the tournament's channel (the final ones
        after the last round)."""
        host = self.host
        table = await host.service.tournament_standings(tournament.id)
        with i18n.using(await host.preferences.server_language(tournament.guild_id)):  # public
            text = standings_message(tournament, table, round_, final=final)
        channel = host.get_partial_messageable(tournament.channel_id, guild_id=tournament.guild_id)
        await channel.send(text, allowed_mentions=discord.AllowedMentions.none())


def standings_message(
    tournament: Tournament, table: tuple[Standing, ...], round_: int, *, final: bool
) -> str:
    """The heading and the standings as a code-block table, with names as mentions below
    (a code block cannot show them)."""
    heading = (
        club_words.final_standings(tournament.name)
        if final
        else club_words.standings_after(tournament.name, round_)
    )
    return f"{heading}\n{standings_table(tournament, table)}"[:_MAX_MESSAGE]


def standings_table(tournament: Tournament, table: tuple[Standing, ...]) -> str:
    """Rank, points, tiebreaks, and who, one line each: the table in a code block, the
    players as mentions after it (numbered to match)."""
    tiebreak_names = club_words.tiebreak_heading(tournament.format is Format.ROUND_ROBIN)
    header = ["#", club_words.points_heading(), *tiebreak_names]
    rows = [
        [str(line.rank), _score(line.points), *(_score(t) for t in line.tiebreaks)]
        for line in table
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    head = "  ".join(cell.rjust(w) for cell, w in zip(header, widths, strict=True))
    who = [f"{n}. <@{line.user_id}>" for n, line in enumerate(table, start=1)]
    body = "\n".join([head, *(f"{line}  ({n})" for n, line in enumerate(lines, start=1))])
    return "```\n" + body + "\n```\n" + "\n".join(who)


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
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Join, leave or show the standings, answering privately; errors answered too."""
        try:
            host = host_of(interaction)
            await host.preferences.set_answer_language(interaction)
            bucket = host.cooldown.hit(interaction.user.id)
            if bucket is not None:
                raise app_commands.CommandOnCooldown(bucket, host.cooldown.retry_after(bucket))
            await self._act(interaction)
        except Exception as error:  # every error is answered; unknown ones are logged there
            await report(interaction, error)

    async def _act(self, interaction: discord.Interaction[Any]) -> None:
        service = host_of(interaction).service
        user_id = interaction.user.id
        tournament = await service.repository.tournament(self.tournament_id)
        if tournament.guild_id != interaction.guild_id:
            raise app_commands.CheckFailure("another server's tournament")
        if self.action == "join":
            await service.join_tournament(self.tournament_id, user_id)
            text = club_words.joined(tournament.name)
        elif self.action == "leave":
            await service.leave_tournament(self.tournament_id, user_id)
            text = club_words.left(tournament.name)
        else:
            table = await service.tournament_standings(self.tournament_id)
            text = (
                f"{club_words.standings_now(tournament.name)}\n{standings_table(tournament, table)}"
            )[:_MAX_MESSAGE]
        await interaction.response.send_message(
            text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )


ACTIONS: Final = (TournamentButton,)
