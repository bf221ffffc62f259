"""Members and guilds: statistics, leaderboards, history, preferences and server settings."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace

from bot.core.languages import LANGUAGES
from bot.core.service.errors import InvalidOptionError
from bot.core.service.shared import (
    DEFAULT_LOOK,
    LOOKS,
    MAX_IDLE_SECONDS,
    MAX_TURN_SECONDS,
    ServiceCore,
)
from engine.opening_rules import OpeningRule
from engine.types import Game, Rule
from storage.records import COIN_TOSS, GuildSettings, PlayerStats, ResultCount

log = logging.getLogger(__name__)


class MemberUseCases(ServiceCore):
    """Members and guilds: statistics, leaderboards, history, preferences and server settings."""

    async def stats(
        self,
        user_id: int,
        *,
        game: Game = Game.GOMOKU,
        rule: Rule = Rule.FREESTYLE,
        guild_id: int | None = None,
    ) -> PlayerStats | None:
        """A player's rating and record in rated games of ``game`` under ``rule`` (None if
        never rated)."""
        return await self.repository.player_stats(user_id, game, guild_id=guild_id, rule=rule)

    async def leaderboard(
        self,
        *,
        game: Game = Game.GOMOKU,
        rule: Rule = Rule.FREESTYLE,
        guild_id: int | None = None,
        limit: int = 10,
        min_games: int = 0,
    ) -> list[PlayerStats]:
        """The best-rated players of ``game`` under ``rule`` in a guild (or overall) with at
        least ``min_games`` rated games, best first."""
        return await self.repository.leaderboard(
            game, guild_id=guild_id, rule=rule, limit=limit, min_games=min_games
        )

    async def results(self, user_id: int, *, guild_id: int | None = None) -> list[ResultCount]:
        """How a user's finished games went (every game, rated or not), one line per game
        kind, rule and opponent level (None: people)."""
        return await self.repository.user_results(user_id, guild_id=guild_id)

    async def forget_user(self, user_id: int) -> int:
        """Delete a user's data on request (ratings, statistics; their seat in old games
        becomes "deleted"; open games are abandoned). Returns how many games were touched."""
        touched = await self.repository.delete_user_data(user_id)
        self._boards.clear()  # cached views hold the old player records
        return touched

    async def look(self, user_id: int) -> str:
        """How ``user_id`` sees boards privately (one of ``LOOKS``; ``DEFAULT_LOOK`` unless
        they chose)."""
        chosen = await self.repository.user_view(user_id)
        return chosen if chosen in LOOKS else DEFAULT_LOOK

    async def set_look(self, user_id: int, look: str) -> None:
        """Remember how ``user_id`` wants to see boards privately.

        Raises:
            InvalidOptionError: not one of ``LOOKS``.
        """
        if look not in LOOKS:
            raise InvalidOptionError("look", look, ", ".join(LOOKS))
        await self.repository.save_user_view(user_id, look)

    async def language(self, user_id: int) -> str | None:
        """The language ``user_id`` chose for replies (None: their Discord locale)."""
        chosen = await self.repository.user_language(user_id)
        return chosen if chosen in LANGUAGES else None

    async def languages(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The languages those of ``user_ids`` who chose one for replies chose, in one read
        for many users (the others follow their Discord locale)."""
        chosen = await self.repository.user_languages(user_ids)
        return {user: language for user, language in chosen.items() if language in LANGUAGES}

    async def set_language(self, user_id: int, language: str | None) -> None:
        """Remember the language ``user_id`` wants replies in; None follows Discord again.

        Raises:
            InvalidOptionError: not one of ``bot.core.languages.LANGUAGES``.
        """
        if language is not None and language not in LANGUAGES:
            raise InvalidOptionError("language", language, ", ".join(LANGUAGES))
        await self.repository.save_user_language(user_id, language)

    async def settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings (defaults when never set)."""
        return await self.repository.guild_settings(guild_id)

    async def update_settings(
        self,
        guild_id: int,
        *,
        default_rule: Rule | None = None,
        turn_seconds: int | None = None,
        clear_turn_time: bool = False,
        look: str | None = None,
        allowed_channel_ids: Sequence[int] | None = None,
        use_threads: bool | None = None,
        moderator_role_id: int | None = None,
        clear_moderator_role: bool = False,
        idle_human_seconds: int | None = None,
        idle_ai_seconds: int | None = None,
        turn_pings: bool | None = None,
        ai_clock: bool | None = None,
        rated_opening: str | None = None,
        language: str | None = None,
    ) -> GuildSettings:
        """Change the given settings; the rest stay (admins only: the front-end checks).
        ``clear_turn_time`` removes the clock; an empty ``allowed_channel_ids`` allows all;
        ``clear_moderator_role`` leaves ending games to Manage Messages alone;
        ``rated_opening``: an ``OpeningRule`` value for rated games, or ``COIN_TOSS`` (no
        opening rule, colours by a coin toss);
        ``language``: one of ``bot.core.languages.LANGUAGES`` for public messages, or
        "discord" (follow the server's Discord language).
        A new turn time (or ``ai_clock``) reaches the guild's open games from their next turn.

        Raises:
            InvalidOptionError: a value out of range.
        """
        current = await self.repository.guild_settings(guild_id)
        changes: dict[str, object] = {}
        if default_rule is not None:
            try:
                changes["default_rule"] = Rule(default_rule)
            except ValueError:
                allowed = ", ".join(r.value for r in Rule)
                raise InvalidOptionError("rule", default_rule, allowed) from None
        if clear_turn_time:
            changes["turn_seconds"] = None
        elif turn_seconds is not None:
            if not 10 <= turn_seconds <= MAX_TURN_SECONDS:
                raise InvalidOptionError("turn_time", turn_seconds, f"10-{MAX_TURN_SECONDS}")
            changes["turn_seconds"] = turn_seconds
        if look is not None:
            if look not in LOOKS:
                raise InvalidOptionError("look", look, ", ".join(LOOKS))
            changes["board_style"] = look  # the stored field of the server's look
        if allowed_channel_ids is not None:
            changes["allowed_channel_ids"] = frozenset(allowed_channel_ids)
        if use_threads is not None:
            changes["use_threads"] = use_threads
        if clear_moderator_role:
            changes["moderator_role_id"] = None
        elif moderator_role_id is not None:
            changes["moderator_role_id"] = moderator_role_id
        for option, seconds in (("idle_human", idle_human_seconds), ("idle_ai", idle_ai_seconds)):
            if seconds is not None:
                if not 60 <= seconds <= MAX_IDLE_SECONDS:
                    raise InvalidOptionError(option, seconds, f"60-{MAX_IDLE_SECONDS}")
                changes[f"{option}_seconds"] = seconds
        if turn_pings is not None:
            changes["turn_pings"] = turn_pings
        if ai_clock is not None:
            changes["ai_clock"] = ai_clock
        if rated_opening is not None:
            allowed = ", ".join([COIN_TOSS, *(r.value for r in OpeningRule)])
            if rated_opening != COIN_TOSS and rated_opening not in set(OpeningRule):
                raise InvalidOptionError("opening", rated_opening, allowed)
            changes["rated_opening"] = rated_opening
        if language is not None:
            if language != "discord" and language not in LANGUAGES:
                raise InvalidOptionError("language", language, ", ".join(["discord", *LANGUAGES]))
            changes["language"] = None if language == "discord" else language
        updated = replace(current, **changes)  # type: ignore[arg-type]
        await self.repository.save_guild_settings(updated)
        if (updated.turn_seconds, updated.ai_clock) != (current.turn_seconds, current.ai_clock):
            await self.repository.set_open_turn_seconds(
                guild_id, updated.turn_seconds, ai_games=updated.ai_clock
            )
        return updated
