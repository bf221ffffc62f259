"""``/gomoku puzzle play|daily`` and ``/place <cell>`` in a puzzle (the solvers' table is a
choice of ``/gomoku leaderboard``): puzzles from the
server's reviewed games (their missed wins), then those found in its finished games (where
the winner's forced win began: ``PuzzleSearch`` looks at one finished game at a time in the
background, in the AI pool's review worker), then the built-in set (``bot.core.puzzles``): a member
gets the first of that list they have not finished yet (the finished ones are stored per
member and server); one attempt at a time per member and server, kept in storage so it
survives a restart; a rating (Elo against a fixed puzzle strength), runs and a leaderboard.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.onboarding import command_mentions
from bot.core.puzzles import (
    Attempt,
    Progress,
)
from bot.core.review import ReviewUnavailableError
from bot.host import GameHost, Interaction, host_of
from bot.text import i18n, render, words
from engine.types import Point
from storage.records import PuzzlePlayer

__all__ = [
    "DailyPuzzle",
    "DailyPuzzleCommand",
    "PuzzleCommands",
    "PuzzleSearch",
    "play_puzzle_move",
    "post_due",
    "puzzle_leaderboard_embed",
    "search_due",
    "setup",
]

log = logging.getLogger(__name__)

_COLOUR: Final = 0x2ECC71


def _embed(attempt: Attempt, note: str) -> discord.Embed:
    puzzle = attempt.puzzle
    embed = discord.Embed(
        title=words.puzzle_title(puzzle.origin, puzzle.solver.value, defend=puzzle.defend),
        description=f"{render.emoji_board(attempt.board())}\n{note}",
        colour=_COLOUR,
    )
    return embed


async def search_due(bot: GameHost) -> int | None:
    """Search the next finished game for puzzles (``GameService.search_puzzles``)."""
    return await bot.service.search_puzzles()


async def post_due(bot: GameHost) -> int:
    """Post today's puzzle in every chosen channel that has not had it; how many were posted.
    The day is claimed in storage first, so a restart or a second caller never posts twice."""
    day = bot.clock().date()
    posted = 0
    for guild_id, channel_id, puzzle in await bot.service.claim_daily_puzzles(day):
        attempt = Attempt(puzzle)
        with i18n.using(await bot.preferences.server_language(guild_id)):
            embed = _embed(attempt, words.daily_how(await command_mentions(bot)))
            embed.title = words.daily_title(words.day_name(day), defend=attempt.puzzle.defend)
        try:
            channel = bot.get_channel(channel_id) or await bot.fetch_channel(channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                raise TypeError(type(channel).__name__)
            await channel.send(embed=embed, allowed_mentions=discord.AllowedMentions.none())
            posted += 1
        except (discord.HTTPException, TypeError):
            log.warning("daily puzzle: cannot post in channel %s of guild %s", channel_id, guild_id)
    return posted


class Passes:
    """How many passes a background loop has made, and a wait for the next ones (for tests
    and tools: they wait on the loop instead of the wall clock)."""

    def __init__(self) -> None:
        self.count = 0
        self._done = asyncio.Condition()

    async def made(self) -> None:
        """One more pass is done."""
        self.count += 1
        async with self._done:
            self._done.notify_all()

    async def wait(self, more: int = 1) -> None:
        """Wait until ``more`` passes after this call are done."""
        target = self.count + more
        async with self._done:
            await self._done.wait_for(lambda: self.count >= target)


class DailyPuzzle(commands.Cog):
    """Posts the daily puzzle: on start, when a channel is chosen, and on every poll (the
    bot's ``deadline_poll``), so the first poll after midnight UTC posts the new day's."""

    def __init__(self, bot: GameHost) -> None:
        self.bot = bot
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.passes = Passes()

    async def cog_load(self) -> None:
        """Start polling."""
        self._task = asyncio.create_task(self._loop())

    async def cog_unload(self) -> None:
        """Stop polling."""
        if self._task is not None:
            self._task.cancel()

    @commands.Cog.listener()
    async def on_daily_puzzle_channel(self) -> None:
        """A channel was chosen: post now rather than at the next poll."""
        self._wake.set()

    async def _loop(self) -> None:
        await self.bot.wait_until_ready()
        while not self.bot.is_closed():
            try:
                await post_due(self.bot)
            except Exception:
                log.exception("daily puzzle: posting failed")
            await self.passes.made()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.bot.deadline_poll)
            self._wake.clear()


class PuzzleSearch(commands.Cog):
    """Searches the server's finished games for puzzles, one game every ``every`` seconds,
    so the review worker stays free for reviews and puzzle answers most of the time."""

    every: float = 60.0

    def __init__(self, bot: GameHost) -> None:
        self.bot = bot
        self._task: asyncio.Task[None] | None = None
        self.passes = Passes()

    async def cog_load(self) -> None:
        """Start searching."""
        self._task = asyncio.create_task(self._loop())

    async def cog_unload(self) -> None:
        """Stop searching."""
        if self._task is not None:
            self._task.cancel()

    async def _loop(self) -> None:
        await self.bot.wait_until_ready()
        while not self.bot.is_closed():
            await asyncio.sleep(self.every)
            try:
                await search_due(self.bot)
            except Exception:
                log.exception("puzzle search failed")
            await self.passes.made()


async def play_puzzle_move(interaction: Interaction, point: Point) -> None:
    """``/place`` when the member has a puzzle going and the channel no game: play ``point``
    in the puzzle; the engine defends."""
    assert interaction.guild_id is not None
    bot = host_of(interaction)
    if not bot.service.can_analyse:
        raise ReviewUnavailableError()
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)
    attempt, player = await bot.service.solve(interaction.guild_id, interaction.user.id, point)
    if attempt.progress is Progress.GOING:
        note = words.puzzle_answered(str(point), str(attempt.played[-1]))
    elif attempt.puzzle.defend and attempt.progress is Progress.SOLVED:
        note = words.puzzle_held(player.rating, player.streak)
    elif attempt.puzzle.defend:
        note = words.puzzle_broke(
            player.rating, str(attempt.puzzle.answer), str(attempt.played[-1])
        )
    elif attempt.progress is Progress.SOLVED:
        note = words.puzzle_solved(player.rating, player.streak)
    else:
        note = words.puzzle_failed(player.rating, str(attempt.puzzle.answer))
    await interaction.edit_original_response(embed=_embed(attempt, note))


def puzzle_leaderboard_embed(rows: Sequence[PuzzlePlayer]) -> discord.Embed:
    """The best puzzle solvers of a server, one line each."""
    lines = [
        words.puzzle_board_line(i + 1, p.user_id, p.rating, p.solved, p.best_streak)
        for i, p in enumerate(rows)
    ]
    return discord.Embed(
        title=words.puzzle_board_title(),
        description="\n".join(lines) or words.puzzle_board_empty(),
        colour=_COLOUR,
    )


async def _give_puzzle(interaction: Interaction, *, daily: bool) -> None:
    """Answer with the member's puzzle (privately): the one going, a new one, or today's."""
    assert interaction.guild_id is not None
    bot = host_of(interaction)
    # the new attempt is written before the answer, so a slow write defers the answer
    # (privately) rather than missing Discord's deadline
    attempt = await bot.table.defer_if_slow(
        interaction,
        bot.service.puzzle(interaction.guild_id, interaction.user.id, daily=daily),
        ephemeral=True,
        thinking=True,
    )
    embed = _embed(attempt, words.puzzle_how(await command_mentions(bot)))
    if interaction.response.is_done():
        await interaction.edit_original_response(embed=embed)
    else:
        await interaction.response.send_message(embed=embed, ephemeral=True)


class PuzzleCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``): ``/gomoku puzzle``."""

    puzzle = app_commands.Group(name="puzzle", description="Positions with a forced win to find")

    @puzzle.command(name="play")
    async def play(self, interaction: Interaction) -> None:
        """Your puzzle: the one you are solving, else a new one."""
        await _give_puzzle(interaction, daily=False)

    @puzzle.command(name="daily")
    async def daily(self, interaction: Interaction) -> None:
        """Today's puzzle, the same for everyone here (it replaces the one you are solving)."""
        await _give_puzzle(interaction, daily=True)


class DailyPuzzleCommand(commands.Cog):
    """Mixed into the ``/gomoku-admin`` group cog (``bot.cogs.admin.AdminCog``)."""

    @app_commands.command(name="daily-puzzle")
    @app_commands.describe(channel="Where to post it (leave empty to stop)")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def daily_puzzle_channel(
        self, interaction: Interaction, channel: discord.TextChannel | None = None
    ) -> None:
        """Post a puzzle in a channel every day (Manage Server)."""
        assert interaction.guild_id is not None
        service = host_of(interaction).service
        await host_of(interaction).table.defer_if_slow(
            interaction,
            service.set_daily_puzzle_channel(
                interaction.guild_id, None if channel is None else channel.id
            ),
            ephemeral=True,
            thinking=True,
        )
        text = words.daily_channel_set(None if channel is None else channel.mention)
        if interaction.response.is_done():  # privately deferred: the write was slow
            await interaction.edit_original_response(content=text)
        else:
            await interaction.response.send_message(text, ephemeral=True)
        host_of(interaction).dispatch("daily_puzzle_channel")  # post today's now, if not yet


async def setup(bot: GameHost) -> None:
    """Add the daily puzzle and the background puzzle search to ``bot``."""
    await bot.add_cog(DailyPuzzle(bot))
    await bot.add_cog(PuzzleSearch(bot))
