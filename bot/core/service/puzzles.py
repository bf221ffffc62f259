"""Puzzles: each member's attempt per server, the server's own puzzles, the daily puzzle.

A member gets the first puzzle they have not finished of: the missed wins of the server's
reviewed games, then the positions found in its finished games, then the built-in set. One
attempt at a time per member and server, kept in storage so it survives a restart.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import replace
from datetime import date

from bot.core.ai import AIError
from bot.core.puzzles import (
    Attempt,
    NoPuzzleError,
    Progress,
    Puzzle,
    builtin,
    daily_puzzle,
    dump_attempt,
    from_game,
    from_review,
    load_attempt,
    next_puzzle,
    play,
    rated,
)
from bot.core.review import Analyser, Review, ReviewUnavailableError
from bot.core.service.shared import ServiceCore
from engine.types import Point
from storage.records import PuzzlePlayer

log = logging.getLogger(__name__)


class PuzzleUseCases(ServiceCore):
    """Puzzles: attempts, the server's puzzles, the search for new ones, the daily puzzle."""

    def _puzzle_lock(self, guild_id: int, user_id: int) -> asyncio.Lock:
        return self._puzzle_locks.setdefault((guild_id, user_id), asyncio.Lock())

    async def server_puzzles(self, guild_id: int) -> list[Puzzle]:
        """The missed wins of the server's reviewed games, the newest review first, then the
        puzzles found in its finished games, the newest game first (each position once)."""
        found: dict[str, Puzzle] = {}
        for game_id, text in await self.repository.guild_reviews(guild_id):
            review = Review.from_json(text)
            if review is not None:
                for puzzle in from_review(await self._view(game_id), review):
                    found.setdefault(puzzle.key, puzzle)
        for _, text in await self.repository.guild_game_puzzles(guild_id):
            for item in json.loads(text):
                puzzle = Puzzle.from_json(item)
                found.setdefault(puzzle.key, puzzle)
        return list(found.values())

    async def search_puzzles(self) -> int | None:
        """Search the newest finished game not yet searched for puzzles and store what it
        gives (even nothing, so it is searched once); the game's id, or None when there was
        none or the AI cannot analyse. A game the engine could not reach (``AIError``: a
        worker died, the queue is down) is tried again on the next call; one the search
        itself fails on is stored as giving none, so it cannot hold up the games finished
        before it."""
        analyser = self.ai
        if not isinstance(analyser, Analyser):
            return None
        for game_id in await self.repository.unsearched_games(limit=1):
            try:
                puzzles = await from_game(await self._view(game_id), analyser)
            except AIError:
                log.warning("puzzle search: the engine failed on game %s; trying later", game_id)
                return None
            except Exception:
                log.exception("puzzle search: game %s cannot be searched; skipped", game_id)
                puzzles = []
            text = json.dumps([p.to_json() for p in puzzles])
            await self.repository.save_game_puzzles(game_id, text)
            return game_id
        return None

    async def puzzle_going(self, guild_id: int, user_id: int) -> bool:
        """Whether the member has a puzzle attempt going in the guild."""
        player = await self.repository.puzzle_player(guild_id, user_id)
        return player is not None and player.attempt is not None

    async def puzzle(self, guild_id: int, user_id: int, *, daily: bool = False) -> Attempt:
        """The member's attempt: the one going, else the first puzzle they have not finished;
        ``daily``: today's puzzle, replacing the one going. Stored before it is returned."""
        async with self._puzzle_lock(guild_id, user_id):
            player = await self.repository.puzzle_player(guild_id, user_id)
            player = player or PuzzlePlayer(guild_id, user_id)
            if daily:
                attempt = Attempt(daily_puzzle(self.clock().date(), guild_id))
            elif player.attempt is not None:
                return load_attempt(player.attempt)
            else:
                puzzles = [*await self.server_puzzles(guild_id), *builtin()]
                seen = await self.repository.puzzles_seen(guild_id, user_id)
                attempt = Attempt(next_puzzle(puzzles, seen, player.solved + player.failed))
            await self.repository.save_puzzle_player(replace(player, attempt=dump_attempt(attempt)))
            return attempt

    async def solve(
        self, guild_id: int, user_id: int, point: Point
    ) -> tuple[Attempt, PuzzlePlayer]:
        """Play ``point`` in the member's attempt; the engine answers. Returns the attempt
        after it and the member (rated, with the attempt cleared, once it is over).

        Raises:
            ReviewUnavailableError: the AI runner cannot analyse.
            NoPuzzleError: the member has no attempt going.
        """
        analyser = self.ai
        if not isinstance(analyser, Analyser):
            raise ReviewUnavailableError()
        async with self._puzzle_lock(guild_id, user_id):
            player = await self.repository.puzzle_player(guild_id, user_id)
            if player is None or player.attempt is None:
                raise NoPuzzleError()
            attempt = await play(load_attempt(player.attempt), point, analyser)
            if attempt.progress is Progress.GOING:
                player = replace(player, attempt=dump_attempt(attempt))
            else:
                await self.repository.mark_puzzle_seen(guild_id, user_id, attempt.puzzle.key)
                player = rated(player, attempt.progress is Progress.SOLVED)
            await self.repository.save_puzzle_player(player)
        return attempt, player

    async def claim_daily_puzzles(self, day: date) -> list[tuple[int, int, Puzzle]]:
        """(guild, channel, puzzle) for every chosen channel that has not had ``day``'s
        puzzle, each claimed in storage first, so a restart or a second caller never gets
        the same one twice."""
        due = []
        for guild_id, channel_id, last in await self.repository.daily_puzzle_channels():
            if last == day.isoformat() or not await self.repository.claim_daily_puzzle(
                guild_id, day.isoformat()
            ):
                continue
            due.append((guild_id, channel_id, daily_puzzle(day, guild_id)))
        return due

    async def set_daily_puzzle_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Post the daily puzzle in ``channel_id`` (None: nowhere)."""
        await self.repository.set_daily_puzzle_channel(guild_id, channel_id)

    async def puzzle_leaderboard(self, guild_id: int) -> list[PuzzlePlayer]:
        """The server's best puzzle solvers."""
        return await self.repository.puzzle_leaderboard(guild_id)
