"""``/gomoku puzzle``, ``/gomoku solve <cell>`` and ``/gomoku puzzles``: puzzles from the
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
import json
import logging
import zlib
from dataclasses import replace
from datetime import date
from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.ai import AIError
from bot.core.puzzles import (
    Attempt,
    NoPuzzleError,
    Progress,
    Puzzle,
    builtin,
    from_game,
    from_review,
    next_puzzle,
    play,
)
from bot.core.review import Analyser, Review, ReviewUnavailableError
from bot.host import GameHost, Interaction, host_of
from bot.text import i18n, render, words
from engine.notation import format_moves, parse_moves, parse_point
from storage.repository import PuzzlePlayer

__all__ = [
    "DailyPuzzle",
    "PuzzleCommands",
    "PuzzleSearch",
    "daily_puzzle",
    "post_due",
    "rated",
    "search_due",
    "server_puzzles",
]

log = logging.getLogger(__name__)

_COLOUR: Final = 0x2ECC71
PUZZLE_RATING: Final = 1500  # every puzzle counts as an opponent of this strength
_K: Final = 32


def rated(player: PuzzlePlayer, solved: bool) -> PuzzlePlayer:
    """``player`` after finishing a puzzle (Elo against ``PUZZLE_RATING``)."""
    expected = 1 / (1 + 10 ** ((PUZZLE_RATING - player.rating) / 400))
    rating = player.rating + round(_K * ((1.0 if solved else 0.0) - expected))
    streak = player.streak + 1 if solved else 0
    return replace(
        player,
        rating=rating,
        streak=streak,
        best_streak=max(player.best_streak, streak),
        solved=player.solved + solved,
        failed=player.failed + (not solved),
        attempt=None,
    )


def _dump(attempt: Attempt) -> str:
    return json.dumps(
        {
            "puzzle": attempt.puzzle.to_json(),
            "played": format_moves(attempt.played),
            "progress": attempt.progress.value,
        }
    )


def _load(text: str) -> Attempt:
    data = json.loads(text)
    return Attempt(
        Puzzle.from_json(data["puzzle"]),
        tuple(parse_moves(data["played"])),
        Progress(data["progress"]),
    )


def _embed(attempt: Attempt, note: str) -> discord.Embed:
    puzzle = attempt.puzzle
    embed = discord.Embed(
        title=words.puzzle_title(puzzle.origin, puzzle.solver.value, defend=puzzle.defend),
        description=f"{render.emoji_board(attempt.board())}\n{note}",
        colour=_COLOUR,
    )
    return embed


async def server_puzzles(bot: GameHost, guild_id: int) -> list[Puzzle]:
    """The missed wins of the server's reviewed games, the newest review first, then the
    puzzles found in its finished games, the newest game first (each position once)."""
    found: dict[str, Puzzle] = {}
    repository = bot.service.repository
    for game_id, text in await repository.guild_reviews(guild_id):
        review = Review.from_json(text)
        if review is not None:
            for puzzle in from_review(await bot.service.game(game_id), review):
                found.setdefault(puzzle.key, puzzle)
    for _, text in await repository.guild_game_puzzles(guild_id):
        for item in json.loads(text):
            puzzle = Puzzle.from_json(item)
            found.setdefault(puzzle.key, puzzle)
    return list(found.values())


async def search_due(bot: GameHost) -> int | None:
    """Search the newest finished game not yet searched for puzzles and store what it gives
    (even nothing, so it is searched once); the game's id, or None when there was none or
    the AI cannot analyse. A game the engine could not reach (``AIError``: a worker died, the
    queue is down) is tried again on the next call; one the search itself fails on is stored
    as giving none, so it cannot hold up the games finished before it."""
    analyser = bot.service.ai
    if not isinstance(analyser, Analyser):
        return None
    repository = bot.service.repository
    for game_id in await repository.unsearched_games(limit=1):
        try:
            puzzles = await from_game(await bot.service.game(game_id), analyser)
        except AIError:
            log.warning("puzzle search: the engine failed on game %s; trying again later", game_id)
            return None
        except Exception:
            log.exception("puzzle search: game %s cannot be searched; skipped", game_id)
            puzzles = []
        await repository.save_game_puzzles(game_id, json.dumps([p.to_json() for p in puzzles]))
        return game_id
    return None


def daily_puzzle(day: date, guild_id: int) -> Puzzle:
    """The day's puzzle for the server: the built-in set in turn, each server starting at its
    own place (a stable hash of its id: Python's ``hash`` of a str changes per process), so
    servers do not all post the same one and a restart keeps the server's."""
    puzzles = builtin()
    offset = zlib.crc32(str(guild_id).encode("ascii"))
    return puzzles[(day.toordinal() + offset) % len(puzzles)]


async def post_due(bot: GameHost) -> int:
    """Post today's puzzle in every chosen channel that has not had it; how many were posted.
    The day is claimed in storage first, so a restart or a second caller never posts twice."""
    repository = bot.service.repository
    day = bot.clock().date()
    posted = 0
    for guild_id, channel_id, last in await repository.daily_puzzle_channels():
        if last == day.isoformat() or not await repository.claim_daily_puzzle(
            guild_id, day.isoformat()
        ):
            continue
        attempt = Attempt(daily_puzzle(day, guild_id))
        with i18n.using(await bot.server_language(guild_id)):
            embed = _embed(attempt, words.daily_how())
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


class DailyPuzzle(commands.Cog):
    """Posts the daily puzzle: on start, when a channel is chosen, and on every poll (the
    bot's ``deadline_poll``), so the first poll after midnight UTC posts the new day's."""

    def __init__(self, bot: GameHost) -> None:
        self.bot = bot
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

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


class PuzzleCommands(commands.Cog):
    """Mixed into the ``/gomoku`` group cog (``bot.cogs.play.GomokuCog``)."""

    _puzzle_locks: dict[tuple[int, int], asyncio.Lock] | None = None

    def _lock(self, guild_id: int, user_id: int) -> asyncio.Lock:
        if self._puzzle_locks is None:
            self._puzzle_locks = {}
        return self._puzzle_locks.setdefault((guild_id, user_id), asyncio.Lock())

    @app_commands.command(name="puzzle")
    @app_commands.describe(daily="Play today's puzzle (it replaces the one you are solving)")
    async def puzzle(self, interaction: Interaction, daily: bool = False) -> None:
        """A position with a forced win to find (or the one you are solving)."""
        assert interaction.guild_id is not None
        bot = host_of(interaction)
        repository = bot.service.repository
        guild, user = interaction.guild_id, interaction.user.id

        async def choose() -> Attempt:
            async with self._lock(guild, user):
                player = await repository.puzzle_player(guild, user) or PuzzlePlayer(guild, user)
                if daily:
                    attempt = Attempt(daily_puzzle(bot.clock().date(), guild))
                elif player.attempt is not None:
                    return _load(player.attempt)
                else:
                    puzzles = [*await server_puzzles(bot, guild), *builtin()]
                    seen = await repository.puzzles_seen(guild, user)
                    attempt = Attempt(next_puzzle(puzzles, seen, player.solved + player.failed))
                await repository.save_puzzle_player(replace(player, attempt=_dump(attempt)))
                return attempt

        # the new attempt is written before the answer, so a slow write defers the answer
        # (privately) rather than missing Discord's deadline
        attempt = await bot.table.defer_if_slow(
            interaction, choose(), ephemeral=True, thinking=True
        )
        embed = _embed(attempt, words.puzzle_how())
        if interaction.response.is_done():
            await interaction.edit_original_response(embed=embed)
        else:
            await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="solve")
    @app_commands.describe(cell="Your move in the puzzle, like H8")
    async def solve(self, interaction: Interaction, cell: str) -> None:
        """Play a move in your puzzle; the engine defends."""
        assert interaction.guild_id is not None
        bot = host_of(interaction)
        point = parse_point(cell)
        analyser = bot.service.ai
        if not isinstance(analyser, Analyser):
            raise ReviewUnavailableError()
        guild, user = interaction.guild_id, interaction.user.id
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with self._lock(guild, user):
            repository = bot.service.repository
            player = await repository.puzzle_player(guild, user)
            if player is None or player.attempt is None:
                raise NoPuzzleError()
            attempt = await play(_load(player.attempt), point, analyser)
            if attempt.progress is Progress.GOING:
                player = replace(player, attempt=_dump(attempt))
                note = words.puzzle_answered(str(point), str(attempt.played[-1]))
            else:
                await repository.mark_puzzle_seen(guild, user, attempt.puzzle.key)
                player = rated(player, attempt.progress is Progress.SOLVED)
                answer = str(attempt.puzzle.answer)
                if attempt.puzzle.defend and attempt.progress is Progress.SOLVED:
                    note = words.puzzle_held(player.rating, player.streak)
                elif attempt.puzzle.defend:
                    note = words.puzzle_broke(player.rating, answer, str(attempt.played[-1]))
                elif attempt.progress is Progress.SOLVED:
                    note = words.puzzle_solved(player.rating, player.streak)
                else:
                    note = words.puzzle_failed(player.rating, str(attempt.puzzle.answer))
            await repository.save_puzzle_player(player)
        await interaction.edit_original_response(embed=_embed(attempt, note))

    @app_commands.command(name="daily-puzzle")
    @app_commands.describe(channel="Where to post it (leave empty to stop)")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def daily_puzzle_channel(
        self, interaction: Interaction, channel: discord.TextChannel | None = None
    ) -> None:
        """Post a puzzle in a channel every day (Manage Server)."""
        assert interaction.guild_id is not None
        repository = host_of(interaction).service.repository
        await host_of(interaction).table.defer_if_slow(
            interaction,
            repository.set_daily_puzzle_channel(
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

    @app_commands.command(name="puzzles")
    async def puzzles(self, interaction: Interaction) -> None:
        """The best puzzle solvers in this server."""
        assert interaction.guild_id is not None
        rows = await host_of(interaction).service.repository.puzzle_leaderboard(
            interaction.guild_id
        )
        lines = [
            words.puzzle_board_line(i + 1, p.user_id, p.rating, p.solved, p.best_streak)
            for i, p in enumerate(rows)
        ]
        embed = discord.Embed(
            title=words.puzzle_board_title(),
            description="\n".join(lines) or words.puzzle_board_empty(),
            colour=_COLOUR,
        )
        kwargs: dict[str, Any] = {"allowed_mentions": discord.AllowedMentions.none()}
        await interaction.response.send_message(embed=embed, **kwargs)
