"""``InMemoryGameRepository``: the ``GameRepository`` in dictionaries, for tests of the bot.

It passes the same contract suite as the SQL repositories and is the model the differential
tests hold them against, so it says plainly what each call means, without SQL. No method
awaits anything between reading and writing its state, so on one event loop every call is
atomic, which is exactly the guarantee the database transactions give.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.types import Color, Game, Outcome, Point, Rule, Termination
from storage.club import (
    Entrant,
    EntrantStatus,
    NewTournament,
    Pairing,
    QueueEntry,
    Result,
    Round,
    RoundStatus,
    Tournament,
    TournamentStatus,
    check_result,
    checked_round,
)
from storage.errors import (
    ChannelBusyError,
    GameNotFoundError,
    InvalidStatusError,
    MoveOrderError,
    RoundPairedError,
    TournamentNotFoundError,
    TournamentStatusError,
    VersionConflictError,
)
from storage.ratings import new_stats, rate_game
from storage.records import (
    CHALLENGE_CLOSINGS,
    END_REASONS,
    GameOpening,
    GameRecord,
    GameSnapshot,
    GameStatus,
    GuildSettings,
    MoveRecord,
    NewGame,
    PendingReply,
    Player,
    PlayerStats,
    PuzzlePlayer,
    ResultCount,
    StoredUndo,
    TurnPing,
    live_moves,
    utc_now,
)

__all__ = ["InMemoryGameRepository"]

_OPEN = (GameStatus.PENDING, GameStatus.ACTIVE)


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}")
    return value.astimezone(UTC)


class InMemoryGameRepository:
    """A ``GameRepository`` that lives in memory; ``clock`` supplies "now". Each method does
    what ``GameRepository`` documents under its name."""

    def __init__(self, *, clock: Callable[[], datetime] = utc_now) -> None:
        """An empty store."""
        self._clock = clock
        self._games: dict[int, GameRecord] = {}
        self._shown: dict[int, int] = {}  # game id -> the version its board shows
        self._moves: dict[int, list[MoveRecord]] = {}
        self._stats: dict[tuple[int | None, Game, Rule, int], PlayerStats] = {}
        self._settings: dict[int, GuildSettings] = {}
        self._openings: dict[int, GameOpening] = {}
        self._undo: dict[int, StoredUndo] = {}
        self._views: dict[int, str] = {}
        self._languages: dict[int, str] = {}
        self._replies: dict[str, PendingReply] = {}
        self._pings: dict[int, TurnPing] = {}
        self._reviews: dict[int, str] = {}
        self._puzzles: dict[tuple[int, int], PuzzlePlayer] = {}
        self._seen: dict[tuple[int, int], set[str]] = {}
        self._game_puzzles: dict[int, str] = {}
        self._daily: dict[int, tuple[int, str | None]] = {}  # guild -> (channel, last day)
        self._next_id = 1
        self._tournaments: dict[int, Tournament] = {}
        self._entrants: dict[tuple[int, int], Entrant] = {}  # (tournament, user)
        self._rounds: dict[tuple[int, int], Round] = {}  # (tournament, number)
        self._pairings: dict[tuple[int, int, int], Pairing] = {}  # (tournament, round, board)
        self._queue: dict[int, QueueEntry] = {}  # by user

    def _now(self) -> datetime:
        now = _utc(self._clock())
        assert now is not None
        return now

    async def close(self) -> None:
        """Nothing to release."""

    # --- helpers ------------------------------------------------------------------------

    def _get(self, game_id: int) -> GameRecord:
        try:
            return self._games[game_id]
        except KeyError:
            raise GameNotFoundError(game_id) from None

    def _checked(
        self, game_id: int, expected_version: int, allowed: Iterable[GameStatus]
    ) -> GameRecord:
        game = self._get(game_id)
        if game.version != expected_version:
            raise VersionConflictError(game_id, expected_version, game.version)
        if game.status not in allowed:
            raise InvalidStatusError(game_id, game.status)
        return game

    def _store(self, game: GameRecord, **changes: Any) -> GameRecord:
        """Keep ``game`` with ``changes`` (a side attribute: the version stays)."""
        game = replace(game, **changes)
        self._games[game.id] = game
        return game

    def _next(self, game: GameRecord, **changes: Any) -> GameRecord:
        """Keep the game's next version with ``changes`` (``updated_at``: now, unless given)."""
        changes.setdefault("updated_at", self._now())
        return self._store(game, version=game.version + 1, **changes)

    def _close(
        self, game: GameRecord, status: GameStatus, now: datetime, **changes: Any
    ) -> GameRecord:
        """Keep the game's next version, out of the open statuses as ``status`` at ``now``."""
        return self._next(
            game, status=status, deadline=None, finished_at=now, updated_at=now, **changes
        )

    # --- games --------------------------------------------------------------------------

    async def create_game(self, new: NewGame) -> GameRecord:
        busy = self._open_in(new.channel_id)
        if busy is not None:
            raise ChannelBusyError(new.channel_id, busy.id)
        now = self._now()
        game = GameRecord(
            id=self._next_id,
            guild_id=new.guild_id,
            channel_id=new.channel_id,
            game=new.game,
            width=new.width,
            height=new.height,
            rule=new.rule,
            black=new.black,
            white=new.white,
            status=new.status,
            outcome=None,
            rated=new.rated,
            message_channel_id=None,
            message_id=None,
            deadline=_utc(new.deadline),
            warning_sent=False,
            turn_seconds=new.turn_seconds,
            created_by=new.created_by,
            created_at=now,
            updated_at=now,
            finished_at=None,
            ply=0,
            version=1,
        )
        self._next_id += 1
        self._moves[game.id] = []
        if new.opening is not None:
            self._openings[game.id] = GameOpening(game.id, new.opening)
        self._games[game.id] = game
        return game

    async def get_game(self, game_id: int) -> GameRecord:
        return self._get(game_id)

    async def load_game(self, game_id: int) -> GameSnapshot:
        game = self._get(game_id)
        return GameSnapshot(game, live_moves(self._moves[game_id], game.ply))

    def _open_in(self, channel_id: int) -> GameRecord | None:
        for game in self._games.values():
            if game.channel_id == channel_id and game.status in _OPEN:
                return game
        return None

    async def open_game_in_channel(self, channel_id: int) -> GameRecord | None:
        return self._open_in(channel_id)

    async def open_games(self) -> list[GameRecord]:
        return sorted((g for g in self._games.values() if g.status in _OPEN), key=lambda g: g.id)

    async def games_due(self, now: datetime) -> list[GameRecord]:
        due = [g for g in self._games.values() if g.deadline is not None and g.deadline <= now]
        return sorted(due, key=lambda g: (g.deadline, g.id))

    async def accept_challenge(
        self, game_id: int, expected_version: int, *, deadline: datetime | None = None
    ) -> GameRecord:
        game = self._checked(game_id, expected_version, [GameStatus.PENDING])
        deadline = _utc(deadline)
        return self._next(game, status=GameStatus.ACTIVE, deadline=deadline, warning_sent=False)

    async def close_challenge(
        self, game_id: int, expected_version: int, status: GameStatus
    ) -> GameRecord:
        if status not in CHALLENGE_CLOSINGS:
            raise ValueError(f"a challenge closes as declined, cancelled or expired, not {status}")
        game = self._checked(game_id, expected_version, [GameStatus.PENDING])
        return self._close(game, status, self._now())

    async def append_move(
        self,
        game_id: int,
        expected_version: int,
        point: Point,
        color: Color,
        *,
        deadline: datetime | None = None,
        outcome: Outcome | None = None,
    ) -> GameRecord:
        now = self._now()
        deadline = _utc(deadline)
        game = self._checked(game_id, expected_version, [GameStatus.ACTIVE])
        if color is not game.to_move:
            raise MoveOrderError(game_id, game.ply, "colour")
        finished = outcome is not None
        game = self._next(
            game,
            ply=game.ply + 1,
            deadline=None if finished else deadline,
            warning_sent=False,
            updated_at=now,
            status=GameStatus.FINISHED if finished else GameStatus.ACTIVE,
            outcome=outcome,
            finished_at=now if finished else None,
        )
        self._moves[game_id].append(
            MoveRecord(game_id, game.ply - 1, point, color, now, seq=game.version)
        )
        if finished:
            self._rate(game)
        return game

    async def game_opening(self, game_id: int) -> GameOpening | None:
        self._get(game_id)
        return self._openings.get(game_id)

    async def record_opening_step(
        self,
        game_id: int,
        expected_version: int,
        step: str,
        *,
        black: Player,
        white: Player,
        deadline: datetime | None = None,
    ) -> GameRecord:
        game = self._checked(game_id, expected_version, [GameStatus.ACTIVE])
        opening = self._openings.get(game_id)
        if opening is None:
            raise ValueError(f"game {game_id} has no opening rule")
        self._openings[game_id] = replace(opening, steps=(*opening.steps, step))
        deadline = _utc(deadline)
        return self._next(game, black=black, white=white, deadline=deadline, warning_sent=False)

    async def take_back(
        self,
        game_id: int,
        expected_version: int,
        count: int = 1,
        *,
        deadline: datetime | None = None,
    ) -> GameRecord:
        deadline = _utc(deadline)
        game = self._get(game_id)
        if game.version != expected_version:
            raise VersionConflictError(game_id, expected_version, game.version)
        if count >= 1:
            game = self._checked(game_id, expected_version, [GameStatus.ACTIVE])
        if not 1 <= count <= game.ply:
            raise MoveOrderError(game_id, game.ply, "takeback")
        return self._next(game, ply=game.ply - count, deadline=deadline, warning_sent=False)

    async def finish_game(
        self,
        game_id: int,
        expected_version: int,
        outcome: Outcome,
        *,
        ended_by: int | None = None,
        end_reason: str | None = None,
    ) -> GameRecord:
        if end_reason is not None and end_reason not in END_REASONS:
            raise ValueError(f"unknown end reason {end_reason!r}")
        game = self._checked(game_id, expected_version, [GameStatus.ACTIVE])
        ended = {"outcome": outcome, "ended_by": ended_by, "end_reason": end_reason}
        game = self._close(game, GameStatus.FINISHED, self._now(), **ended)
        self._rate(game)
        return game

    async def move_game(self, game_id: int, channel_id: int, *, parent_channel_id: int) -> None:
        game = self._get(game_id)
        if game.status not in _OPEN:
            raise InvalidStatusError(game_id, game.status)
        busy = self._open_in(channel_id)
        if busy is not None and busy.id != game_id:
            raise ChannelBusyError(channel_id, busy.id)
        self._store(game, channel_id=channel_id, parent_channel_id=parent_channel_id)

    def _rate(self, game: GameRecord) -> None:
        outcome = game.outcome
        black, white = game.black.user_id, game.white.user_id
        if not game.rated or outcome is None or outcome.termination is Termination.ABANDONED:
            return
        if black is None or white is None:
            return
        at = game.finished_at or game.updated_at
        for guild in [None] if game.guild_id is None else [None, game.guild_id]:
            before = [
                self._stats.get((guild, game.game, game.rule, user))
                or new_stats(user, game.game, guild, game.rule)
                for user in (black, white)
            ]
            for stats in rate_game(before[0], before[1], outcome.winner, at):
                self._stats[(guild, game.game, game.rule, stats.user_id)] = stats

    async def set_deadline(
        self, game_id: int, expected_version: int, deadline: datetime | None
    ) -> GameRecord:
        game = self._checked(game_id, expected_version, _OPEN)
        return self._next(game, deadline=_utc(deadline), warning_sent=False)

    async def shift_deadlines(self, by: timedelta, game_ids: Iterable[int] | None = None) -> int:
        chosen = None if game_ids is None else set(game_ids)
        moved = [
            g
            for g in self._games.values()
            if g.is_open and g.deadline is not None and (chosen is None or g.id in chosen)
        ]
        for game in moved:
            assert game.deadline is not None
            self._store(game, deadline=game.deadline + by)
        return len(moved)

    async def mark_warning_sent(self, game_id: int, expected_version: int) -> None:
        game = self._checked(game_id, expected_version, _OPEN)
        self._store(game, warning_sent=True)

    async def set_message(self, game_id: int, *, channel_id: int, message_id: int) -> None:
        game = self._get(game_id)
        self._store(game, message_channel_id=channel_id, message_id=message_id)

    async def mark_shown(self, shown: Mapping[int, int]) -> None:
        for game_id, version in shown.items():
            if game_id in self._games and version > self._shown.get(game_id, -1):
                self._shown[game_id] = version

    async def unshown_games(self) -> list[GameRecord]:
        return [g for g in await self.open_games() if self._shown.get(g.id, -1) < g.version]

    async def move_history(self, game_id: int) -> list[MoveRecord]:
        self._get(game_id)
        return list(self._moves[game_id])

    async def save_undo_request(self, request: StoredUndo) -> None:
        self._get(request.game_id)
        made_at = _utc(request.made_at)
        assert made_at is not None
        self._undo[request.game_id] = replace(request, made_at=made_at)

    async def undo_request(self, game_id: int) -> StoredUndo | None:
        return self._undo.get(game_id)

    async def drop_undo_request(self, game_id: int) -> None:
        self._undo.pop(game_id, None)

    async def set_undo_message(
        self, game_id: int, version: int, channel_id: int, message_id: int
    ) -> bool:
        request = self._undo.get(game_id)
        if request is None or request.version != version:
            return False
        self._undo[game_id] = replace(request, channel_id=channel_id, message_id=message_id)
        return True

    async def undo_requests(self) -> list[StoredUndo]:
        return [self._undo[game_id] for game_id in sorted(self._undo)]

    async def save_review(self, game_id: int, data: str) -> None:
        self._get(game_id)
        self._reviews.pop(game_id, None)
        self._reviews[game_id] = data  # dicts keep insertion order: the newest last

    async def review(self, game_id: int) -> str | None:
        return self._reviews.get(game_id)

    async def set_daily_puzzle_channel(self, guild_id: int, channel_id: int | None) -> None:
        if channel_id is None:
            self._daily.pop(guild_id, None)
        else:
            self._daily[guild_id] = (channel_id, self._daily.get(guild_id, (0, None))[1])

    async def daily_puzzle_channels(self) -> list[tuple[int, int, str | None]]:
        return [(guild, channel, day) for guild, (channel, day) in sorted(self._daily.items())]

    async def claim_daily_puzzle(self, guild_id: int, day: str) -> bool:
        found = self._daily.get(guild_id)
        if found is None or found[1] == day:
            return False
        self._daily[guild_id] = (found[0], day)
        return True

    async def guild_reviews(self, guild_id: int, limit: int = 20) -> list[tuple[int, str]]:
        rows = [
            (game_id, data)
            for game_id, data in reversed(self._reviews.items())
            if self._get(game_id).guild_id == guild_id
        ]
        return rows[:limit]

    async def puzzle_player(self, guild_id: int, user_id: int) -> PuzzlePlayer | None:
        return self._puzzles.get((guild_id, user_id))

    async def save_puzzle_player(self, player: PuzzlePlayer) -> None:
        self._puzzles[player.guild_id, player.user_id] = player

    async def puzzle_leaderboard(self, guild_id: int, limit: int = 10) -> list[PuzzlePlayer]:
        rows = [p for (g, _), p in self._puzzles.items() if g == guild_id and p.solved + p.failed]
        rows.sort(key=lambda p: (-p.rating, -p.solved, p.user_id))
        return rows[:limit]

    async def puzzles_seen(self, guild_id: int, user_id: int) -> frozenset[str]:
        return frozenset(self._seen.get((guild_id, user_id), ()))

    async def mark_puzzle_seen(self, guild_id: int, user_id: int, key: str) -> None:
        self._seen.setdefault((guild_id, user_id), set()).add(key)

    async def unsearched_games(self, limit: int = 1) -> list[int]:
        found = [
            g
            for g in self._games.values()
            if g.status is GameStatus.FINISHED
            and g.game is Game.GOMOKU
            and g.guild_id is not None
            and g.ply > 0
            and g.id not in self._game_puzzles
        ]
        found.sort(key=lambda g: (g.finished_at or g.updated_at, g.id), reverse=True)
        return [g.id for g in found[:limit]]

    async def save_game_puzzles(self, game_id: int, data: str) -> None:
        self._get(game_id)
        self._game_puzzles[game_id] = data

    async def guild_game_puzzles(self, guild_id: int, limit: int = 50) -> list[tuple[int, str]]:
        rows = [
            (game_id, data)
            for game_id, data in sorted(self._game_puzzles.items(), reverse=True)
            if self._get(game_id).guild_id == guild_id
        ]
        return rows[:limit]

    # --- players ------------------------------------------------------------------------

    async def user_games(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        limit: int = 20,
        before_id: int | None = None,
    ) -> list[GameRecord]:
        found = [
            game
            for game in self._games.values()
            if game.status is GameStatus.FINISHED
            and user_id in (game.black.user_id, game.white.user_id)
            and (before_id is None or game.id < before_id)
            and (guild_id is None or game.guild_id == guild_id)
        ]
        return sorted(found, key=lambda g: -g.id)[:limit]

    def load_stats(self, rows: Iterable[PlayerStats]) -> None:
        """Put ``rows`` in place of every rating: the model of a database whose ratings were
        written by other code (one upgraded from a released schema)."""
        self._stats = {(s.guild_id, s.game, s.rule, s.user_id): s for s in rows}

    async def player_stats(
        self,
        user_id: int,
        game: Game = Game.GOMOKU,
        *,
        guild_id: int | None = None,
        rule: Rule = Rule.FREESTYLE,
    ) -> PlayerStats | None:
        return self._stats.get((guild_id, game, rule, user_id))

    async def leaderboard(
        self,
        game: Game = Game.GOMOKU,
        *,
        guild_id: int | None = None,
        rule: Rule = Rule.FREESTYLE,
        limit: int = 10,
        offset: int = 0,
        min_games: int = 0,
    ) -> list[PlayerStats]:
        rows = [
            s
            for (g, kind, rated_rule, _), s in self._stats.items()
            if g == guild_id and kind is game and rated_rule is rule and s.games >= min_games
        ]
        rows.sort(key=lambda s: (-s.ordinal, s.user_id))
        return rows[offset : offset + limit]

    async def user_results(self, user_id: int, *, guild_id: int | None = None) -> list[ResultCount]:
        tally: Counter[tuple[Game, Rule, str, str]] = Counter()
        for game in self._games.values():
            color = game.color_of(user_id)
            if game.status is not GameStatus.FINISHED or color is None:
                continue
            if guild_id is not None and game.guild_id != guild_id:
                continue
            outcome = game.outcome
            assert outcome is not None
            if outcome.winner is color:
                result = "wins"
            elif outcome.winner is not None:
                result = "losses"
            elif outcome.termination is Termination.DRAW:
                result = "draws"
            else:
                result = "unfinished"
            level = game.player(color.opponent).level or ""
            tally[(game.game, game.rule, level, result)] += 1
        lines: dict[tuple[Game, Rule, str], dict[str, int]] = {}
        for (kind, rule, level, result), count in tally.items():
            lines.setdefault((kind, rule, level), {})[result] = count
        return [
            ResultCount(kind, rule, level or None, **counts)
            for (kind, rule, level), counts in sorted(lines.items())
        ]

    async def delete_user_data(self, user_id: int) -> int:
        now = self._now()
        touched = 0
        for game in list(self._games.values()):
            seated = user_id in (game.black.user_id, game.white.user_id)
            if not seated and user_id not in (game.created_by, game.ended_by):
                continue
            touched += 1
            if seated and game.status in _OPEN:
                if game.status is GameStatus.ACTIVE:
                    abandoned = Outcome(Termination.ABANDONED, None)
                    game = self._close(game, GameStatus.FINISHED, now, outcome=abandoned)
                else:
                    game = self._close(game, GameStatus.CANCELLED, now)
            self._store(
                game,
                black=Player.DELETED if game.black.user_id == user_id else game.black,
                white=Player.DELETED if game.white.user_id == user_id else game.white,
                created_by=None if game.created_by == user_id else game.created_by,
                ended_by=None if game.ended_by == user_id else game.ended_by,
            )
        for key in [key for key in self._stats if key[3] == user_id]:
            del self._stats[key]
        for game_id, undo in list(self._undo.items()):
            if user_id in (undo.requester, undo.responder):
                del self._undo[game_id]
        self._views.pop(user_id, None)
        self._languages.pop(user_id, None)
        self._queue.pop(user_id, None)
        for token in [t for t, r in self._replies.items() if r.user_id == user_id]:
            del self._replies[token]
        for seat in [seat for seat in self._puzzles if seat[1] == user_id]:
            del self._puzzles[seat]
        for seat in [seat for seat in self._seen if seat[1] == user_id]:
            del self._seen[seat]
        self._forget_in_tournaments(user_id)
        return touched

    def _forget_in_tournaments(self, user_id: int) -> None:
        """Entries in open tournaments go; in started ones the member's rows stay for the
        others' results under a pseudonym (``GameRepository.delete_user_data``)."""
        for tournament_id, user in sorted(self._entrants):
            if user != user_id:
                continue
            entrant = self._entrants.pop((tournament_id, user))
            status = self._tournaments[tournament_id].status
            if status is TournamentStatus.OPEN:
                continue
            pseudonym = min(
                (u for t, u in self._entrants if t == tournament_id and u < 0), default=0
            )
            pseudonym -= 1
            withdrawn = EntrantStatus.WITHDRAWN if status is TournamentStatus.RUNNING else None
            self._entrants[tournament_id, pseudonym] = replace(
                entrant, user_id=pseudonym, status=withdrawn or entrant.status
            )
            for key, pairing in self._pairings.items():
                if key[0] == tournament_id and user_id in (pairing.black, pairing.white):
                    self._pairings[key] = replace(
                        pairing,
                        black=pseudonym if pairing.black == user_id else pairing.black,
                        white=pseudonym if pairing.white == user_id else pairing.white,
                    )
        for tournament_id, tournament in self._tournaments.items():
            if tournament.created_by == user_id:
                self._tournaments[tournament_id] = replace(tournament, created_by=0)

    # --- guilds -------------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return self._settings.get(guild_id) or GuildSettings(guild_id)

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        self._settings[settings.guild_id] = settings

    async def set_open_turn_seconds(
        self, guild_id: int, turn_seconds: int | None, *, ai_games: bool
    ) -> int:
        changed = 0
        for game in list(self._games.values()):
            if game.guild_id != guild_id or game.status not in _OPEN:
                continue
            against_ai = game.black.is_ai or game.white.is_ai
            seconds = turn_seconds if ai_games or not against_ai else None
            if game.turn_seconds != seconds:
                self._store(game, turn_seconds=seconds)
                changed += 1
        return changed

    # --- users --------------------------------------------------------------------------

    async def user_view(self, user_id: int) -> str | None:
        return self._views.get(user_id)

    async def save_user_view(self, user_id: int, view: str) -> None:
        self._views[user_id] = view

    async def user_language(self, user_id: int) -> str | None:
        return self._languages.get(user_id)

    async def user_languages(self, user_ids: Iterable[int]) -> dict[int, str]:
        return {u: self._languages[u] for u in set(user_ids) if u in self._languages}

    async def save_user_language(self, user_id: int, language: str | None) -> None:
        if language is None:
            self._languages.pop(user_id, None)
        else:
            self._languages[user_id] = language

    # --- replies to finish --------------------------------------------------------------

    async def save_pending_reply(self, reply: PendingReply) -> None:
        self._replies[reply.token] = reply

    async def pending_replies(self) -> list[PendingReply]:
        return sorted(self._replies.values(), key=lambda r: (r.created_at, r.token))

    async def drop_pending_reply(self, token: str) -> None:
        self._replies.pop(token, None)

    # --- turn pings ---------------------------------------------------------------------

    async def turn_ping(self, game_id: int) -> TurnPing | None:
        return self._pings.get(game_id)

    async def save_turn_ping(self, ping: TurnPing) -> None:
        self._pings[ping.game_id] = ping

    async def drop_turn_ping(self, game_id: int) -> None:
        self._pings.pop(game_id, None)

    # --- tournaments ----------------------------------------------------------------------

    def _tournament(self, tournament_id: int) -> Tournament:
        try:
            return self._tournaments[tournament_id]
        except KeyError:
            raise TournamentNotFoundError(tournament_id) from None

    def _pairing(self, tournament_id: int, round: int, board: int) -> Pairing:
        try:
            return self._pairings[tournament_id, round, board]
        except KeyError:
            raise TournamentNotFoundError(tournament_id, round=round, board=board) from None

    async def create_tournament(self, new: NewTournament) -> Tournament:
        tournament_id = max(self._tournaments, default=0) + 1
        tournament = Tournament(
            id=tournament_id,
            guild_id=new.guild_id,
            channel_id=new.channel_id,
            name=new.name,
            format=new.format,
            game=new.game,
            rule=new.rule,
            rounds=new.rounds,
            seconds_per_move=new.seconds_per_move,
            player_cap=new.player_cap,
            starts_at=_utc(new.starts_at),
            arena_minutes=new.arena_minutes,
            status=TournamentStatus.OPEN,
            created_by=new.created_by,
            created_at=self._now(),
        )
        self._tournaments[tournament_id] = tournament
        return tournament

    async def tournament(self, tournament_id: int) -> Tournament:
        return self._tournament(tournament_id)

    async def live_tournaments(self, guild_id: int | None = None) -> list[Tournament]:
        live = (TournamentStatus.OPEN, TournamentStatus.RUNNING)
        return [
            t
            for _, t in sorted(self._tournaments.items())
            if t.status in live and guild_id in (None, t.guild_id)
        ]

    async def set_tournament_status(
        self, tournament_id: int, expected: TournamentStatus, status: TournamentStatus
    ) -> Tournament:
        tournament = self._tournament(tournament_id)
        if tournament.status is not expected:
            raise TournamentStatusError(tournament_id, tournament.status)
        tournament = replace(tournament, status=status)
        self._tournaments[tournament_id] = tournament
        return tournament

    async def add_entrant(self, tournament_id: int, user_id: int, rating: float) -> Entrant:
        self._tournament(tournament_id)
        old = self._entrants.get((tournament_id, user_id))
        entrant = Entrant(
            tournament_id,
            user_id,
            float(rating),
            0 if old is None else old.seed,
            EntrantStatus.ACTIVE,
            self._now(),
        )
        self._entrants[tournament_id, user_id] = entrant
        return entrant

    async def update_entrant(self, entrant: Entrant) -> None:
        key = (entrant.tournament_id, entrant.user_id)
        old = self._entrants.get(key)
        if old is None:
            raise TournamentNotFoundError(key[0], user_id=key[1])
        self._entrants[key] = replace(
            old, rating=float(entrant.rating), seed=entrant.seed, status=entrant.status
        )

    async def entrants(self, tournament_id: int) -> list[Entrant]:
        found = [e for (t, _), e in self._entrants.items() if t == tournament_id]
        return sorted(found, key=lambda e: (e.joined_at, e.user_id))

    async def store_round(
        self,
        tournament_id: int,
        number: int,
        pairings: Sequence[Pairing],
        *,
        deadline: datetime | None = None,
    ) -> Round:
        checked_round(tournament_id, number, pairings)
        self._tournament(tournament_id)
        after = max((n for t, n in self._rounds if t == tournament_id), default=0)
        if number <= after:
            raise RoundPairedError(tournament_id, number)
        if number > after + 1:
            raise ValueError(f"round {number} of tournament {tournament_id} skips a round")
        status = RoundStatus.FINISHED if all(p.result for p in pairings) else RoundStatus.PAIRED
        paired = Round(tournament_id, number, status, self._now(), _utc(deadline))
        self._rounds[tournament_id, number] = paired
        for pairing in pairings:
            self._pairings[tournament_id, number, pairing.board] = pairing
        return paired

    async def rounds(self, tournament_id: int) -> list[Round]:
        return [r for (t, _), r in sorted(self._rounds.items()) if t == tournament_id]

    async def set_pairing_game(
        self, tournament_id: int, round: int, board: int, game_id: int
    ) -> bool:
        self._get(game_id)
        pairing = self._pairing(tournament_id, round, board)
        if pairing.game_id is not None or pairing.result is not None or pairing.is_bye:
            return False
        self._pairings[tournament_id, round, board] = replace(pairing, game_id=game_id)
        return True

    async def set_pairing_result(
        self, tournament_id: int, round: int, board: int, result: Result
    ) -> bool:
        pairing = self._pairing(tournament_id, round, board)
        check_result(pairing, result)
        self._pairings[tournament_id, round, board] = replace(pairing, result=result)
        boards = [p for (t, n, _), p in self._pairings.items() if (t, n) == (tournament_id, round)]
        if any(p.result is None for p in boards):
            return False
        key = (tournament_id, round)
        self._rounds[key] = replace(self._rounds[key], status=RoundStatus.FINISHED)
        return True

    async def pairings(self, tournament_id: int) -> list[Pairing]:
        return [p for (t, _, _), p in sorted(self._pairings.items()) if t == tournament_id]

    async def pairing_by_game(self, game_id: int) -> Pairing | None:
        return next((p for p in self._pairings.values() if p.game_id == game_id), None)

    # --- the pairing queue ----------------------------------------------------------------

    async def add_queue_entry(self, entry: QueueEntry) -> bool:
        if entry.user_id in self._queue:
            return False
        joined_at = _utc(entry.joined_at)
        assert joined_at is not None
        self._queue[entry.user_id] = replace(entry, rating=float(entry.rating), joined_at=joined_at)
        return True

    async def set_queue_message(self, user_id: int, message_id: int) -> None:
        entry = self._queue.get(user_id)
        if entry is not None:
            self._queue[user_id] = replace(entry, message_id=message_id)

    async def queue_entry(self, user_id: int) -> QueueEntry | None:
        return self._queue.get(user_id)

    async def queue_entries(self, guild_id: int | None = None) -> list[QueueEntry]:
        found = [e for e in self._queue.values() if guild_id in (None, e.guild_id)]
        return sorted(found, key=lambda e: (e.joined_at, e.user_id))

    async def take_queue_entries(self, guild_id: int, user_ids: Sequence[int]) -> bool:
        wanted = set(user_ids)
        if any((entry := self._queue.get(u)) is None or entry.guild_id != guild_id for u in wanted):
            return False
        for user_id in wanted:
            del self._queue[user_id]
        return True
