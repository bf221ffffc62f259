"""The storage contract: the ``GameRepository`` Protocol.

The bot sees only this contract: the Protocol here, the frozen records it takes and returns
(``storage.records``, where the model is described; ``storage.club`` for tournaments) and the
errors it raises (``storage.errors``). Three implementations honour it and pass one contract suite:
``storage.sqlite.SqliteGameRepository`` and ``storage.postgres.PostgresGameRepository`` (the
durable ones; their SQL is written once, in ``storage.sql``) and
``storage.memory.InMemoryGameRepository`` (the model and the fake for bot tests).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from engine.types import Color, Game, Outcome, Point, Rule
from storage.club import (
    Entrant,
    NewTournament,
    Pairing,
    QueueEntry,
    Result,
    Round,
    Tournament,
    TournamentStatus,
)
from storage.records import (
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
)

__all__ = ["GameRepository"]


class GameRepository(Protocol):
    """Durable games, moves, challenges, settings and ratings. All methods are coroutines.

    Writes that change a game take ``expected_version`` and raise ``VersionConflictError``
    if the game moved on, ``GameNotFoundError`` for an unknown id and ``InvalidStatusError``
    when the game's status does not allow the write. Every write is atomic.
    Datetimes are aware UTC; ``now`` comes from the repository's clock.
    """

    async def close(self) -> None:
        """Release the store; further calls are errors."""

    # --- games --------------------------------------------------------------------------

    async def create_game(self, new: NewGame) -> GameRecord:
        """Store a new game or challenge at version 1, ply 0.

        Raises:
            ChannelBusyError: the channel already has a pending or active game.
        """

    async def get_game(self, game_id: int) -> GameRecord:
        """The game with this id (``GameNotFoundError`` if none)."""

    async def load_game(self, game_id: int) -> GameSnapshot:
        """The game and its live moves, consistent with each other."""

    async def open_game_in_channel(self, channel_id: int) -> GameRecord | None:
        """The pending or active game of a channel, if any."""

    async def open_games(self) -> list[GameRecord]:
        """Every pending or active game, oldest first (what to resume at start-up)."""

    async def games_due(self, now: datetime) -> list[GameRecord]:
        """Open games whose ``deadline`` is at or before ``now``, earliest deadline first."""

    async def accept_challenge(
        self, game_id: int, expected_version: int, *, deadline: datetime | None = None
    ) -> GameRecord:
        """PENDING -> ACTIVE; ``deadline`` is the first turn's (None: no clock)."""

    async def close_challenge(
        self, game_id: int, expected_version: int, status: GameStatus
    ) -> GameRecord:
        """PENDING -> DECLINED, CANCELLED or EXPIRED (frees the channel).

        Raises:
            ValueError: ``status`` is not one of those three.
        """

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
        """Append a stone at ply ``game.ply`` (compare-and-set on the version).

        ``deadline`` is the next turn's deadline (None: no clock); it also clears the
        warning flag. A move that ends the game passes its ``outcome`` (five or draw): the
        game finishes, and a rated game's ratings change, in the same transaction.

        Raises:
            VersionConflictError: another writer won the race; nothing was written.
            InvalidStatusError: the game is not active.
            MoveOrderError: ``color`` is not the side to move.
        """

    async def game_opening(self, game_id: int) -> GameOpening | None:
        """The game's opening rule and its steps so far (None: the game has no opening rule).

        Raises:
            GameNotFoundError.
        """

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
        """Append a non-stone step (``"<ply>:<word>"``) to an active game's opening and seat
        the players (a colour choice may swap them), in one compare-and-set.

        Raises:
            VersionConflictError, GameNotFoundError, InvalidStatusError (not active),
            ValueError: the game has no opening rule.
        """

    async def take_back(
        self,
        game_id: int,
        expected_version: int,
        count: int = 1,
        *,
        deadline: datetime | None = None,
    ) -> GameRecord:
        """Take back the last ``count`` moves (compare-and-set); rows are kept, not deleted.

        Raises:
            MoveOrderError: ``count`` is not in 1..ply.
        """

    async def finish_game(
        self,
        game_id: int,
        expected_version: int,
        outcome: Outcome,
        *,
        ended_by: int | None = None,
        end_reason: str | None = None,
    ) -> GameRecord:
        """End an active game without a move (resign, timeout, abandoned, agreed draw).

        A rated game with a result (anything but ``Termination.ABANDONED``) updates both
        players' ratings and statistics in the same transaction. ``ended_by``/``end_reason``
        record who ended a game without a result, and why (one of ``END_REASONS``).

        Raises:
            ValueError: ``end_reason`` is not one of ``END_REASONS``.
        """

    async def move_game(self, game_id: int, channel_id: int, *, parent_channel_id: int) -> None:
        """Move an open game into ``channel_id`` (its thread off ``parent_channel_id``), which
        frees the parent channel (does not bump the version).

        Raises:
            ChannelBusyError: ``channel_id`` already has an open game.
            InvalidStatusError: the game is no longer open.
        """

    async def set_deadline(
        self, game_id: int, expected_version: int, deadline: datetime | None
    ) -> GameRecord:
        """Move an open game's deadline (e.g. pause the clock) and clear the warning flag."""

    async def shift_deadlines(self, by: timedelta, game_ids: Iterable[int] | None = None) -> int:
        """Move every open game's deadline (a turn's, a challenge's expiry) ``by`` later, all
        in one transaction, keeping each game's version and warning flag: the clocks were
        stopped, no turn changed (a warned player stays warned, a panel opened before stays
        valid). ``game_ids``: only these games (a process that runs some shards moves its
        own); None: every open game, in one statement. Returns how many games moved."""

    async def mark_warning_sent(self, game_id: int, expected_version: int) -> None:
        """Record that this turn's low-time warning went out (does not bump the version).

        Raises ``VersionConflictError`` if the turn already changed, so a warning never
        sticks to the next turn.
        """

    async def set_message(self, game_id: int, *, channel_id: int, message_id: int) -> None:
        """Remember the message that shows the game (does not bump the version)."""

    async def mark_shown(self, shown: Mapping[int, int]) -> None:
        """Note that each game's board message shows its version ``shown[game_id]`` (an older
        version than one noted already is ignored, an unknown game skipped; does not bump the
        version)."""

    async def unshown_games(self) -> list[GameRecord]:
        """Pending and active games whose board may show less than their newest version (none
        noted, or an older one), oldest first: start-up redraws them."""

    async def move_history(self, game_id: int) -> list[MoveRecord]:
        """Every move row ever written for the game, taken back or not, in write order."""

    async def save_undo_request(self, request: StoredUndo) -> None:
        """Store the game's undo request, replacing any older one."""

    async def undo_request(self, game_id: int) -> StoredUndo | None:
        """The game's stored undo request (maybe stale: compare its version), if any."""

    async def drop_undo_request(self, game_id: int) -> None:
        """Forget the game's undo request (answered or withdrawn); no error if none."""

    async def set_undo_message(
        self, game_id: int, version: int, channel_id: int, message_id: int
    ) -> bool:
        """Note the message that posted the game's undo request made at ``version``. False
        (nothing written) when no such request is stored: answered, dropped or replaced."""

    async def undo_requests(self) -> list[StoredUndo]:
        """Every stored undo request (stale ones too), by game id: start-up takes the buttons
        off the messages of those that ended while the bot was away."""

    async def save_review(self, game_id: int, data: str) -> None:
        """Store the game's review (opaque text, JSON by the bot), replacing any older one.

        Raises:
            GameNotFoundError: no such game.
        """

    async def review(self, game_id: int) -> str | None:
        """The game's stored review, if any."""

    async def guild_reviews(self, guild_id: int, limit: int = 20) -> list[tuple[int, str]]:
        """(game id, review) of the guild's reviewed games, the newest review first."""

    async def puzzle_player(self, guild_id: int, user_id: int) -> PuzzlePlayer | None:
        """The user's puzzle record in the guild, if any."""

    async def set_daily_puzzle_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Post the daily puzzle in ``channel_id`` (None: stop); the last posted day stays."""

    async def daily_puzzle_channels(self) -> list[tuple[int, int, str | None]]:
        """(guild, channel, last day posted) of every guild with a daily puzzle."""

    async def claim_daily_puzzle(self, guild_id: int, day: str) -> bool:
        """Mark ``day`` posted for the guild; False if it was already (compare-and-set, so
        of two callers on one day only one posts)."""

    async def save_puzzle_player(self, player: PuzzlePlayer) -> None:
        """Store the user's puzzle record, replacing the old one."""

    async def puzzle_leaderboard(self, guild_id: int, limit: int = 10) -> list[PuzzlePlayer]:
        """The guild's best puzzle solvers by rating (then by puzzles solved), with at least
        one puzzle finished."""

    async def puzzles_seen(self, guild_id: int, user_id: int) -> frozenset[str]:
        """The keys of the puzzles the user has finished (solved or failed) in the guild."""

    async def mark_puzzle_seen(self, guild_id: int, user_id: int, key: str) -> None:
        """Remember that the user finished puzzle ``key`` in the guild (again: no change)."""

    async def unsearched_games(self, limit: int = 1) -> list[int]:
        """Finished Gomoku games in a guild, with moves, that have no ``save_game_puzzles``
        yet: the newest finished first."""

    async def save_game_puzzles(self, game_id: int, data: str) -> None:
        """Store the puzzles found in the game (opaque text, JSON by the bot; may say none),
        replacing any older.

        Raises:
            GameNotFoundError: no such game.
        """

    async def guild_game_puzzles(self, guild_id: int, limit: int = 50) -> list[tuple[int, str]]:
        """(game id, puzzles) of the guild's searched games, the newest game first."""

    # --- players ------------------------------------------------------------------------

    async def user_games(
        self,
        user_id: int,
        *,
        guild_id: int | None = None,
        limit: int = 20,
        before_id: int | None = None,
    ) -> list[GameRecord]:
        """A user's finished games, newest first; pass the last id seen as ``before_id``
        for the next page. ``guild_id`` restricts to one guild."""

    async def player_stats(
        self,
        user_id: int,
        game: Game = Game.GOMOKU,
        *,
        guild_id: int | None = None,
        rule: Rule = Rule.FREESTYLE,
    ) -> PlayerStats | None:
        """Rating and record in rated games of ``game`` under ``rule`` (None if the user has
        none)."""

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
        """Players of ``game`` under ``rule`` by ``ordinal``, best first (ties by user id);
        guild_id None = overall. Players with fewer than ``min_games`` rated games are left
        out."""

    async def user_results(self, user_id: int, *, guild_id: int | None = None) -> list[ResultCount]:
        """How the user's finished games went, one line per game kind, rule and opponent
        level (None: people), sorted by those; rated or not. ``guild_id`` restricts."""

    async def delete_user_data(self, user_id: int) -> int:
        """Forget a user: drop their ratings, statistics and undo requests, abandon their open
        games and replace them with ``Player.DELETED`` in every game (and as who started or
        ended one). Returns the games touched. Opponents' ratings are left as they are.

        Tournaments: their entries in open ones are deleted. In started ones (running,
        finished, cancelled) the rows stay, as the others' results and tiebreaks rest on
        them, but the user's id becomes a pseudonym, a negative id unique in that tournament
        (Discord ids are positive), and in a running one the entry is withdrawn. An
        organiser's id becomes 0 (the column is NOT NULL). Their place in a pairing queue
        is deleted."""

    # --- guilds -------------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings (defaults if it never saved any)."""

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        """Replace the guild's settings."""

    async def set_open_turn_seconds(
        self, guild_id: int, turn_seconds: int | None, *, ai_games: bool
    ) -> int:
        """Give the guild's open games a new turn time (None: no clock), used from their next
        turn; games against the AI only with ``ai_games`` (else they lose their clock).
        Does not bump versions or move current deadlines. Returns the games changed."""

    # --- users --------------------------------------------------------------------------

    async def user_view(self, user_id: int) -> str | None:
        """How the user wants boards drawn in their private panels (None: never chose)."""

    async def save_user_view(self, user_id: int, view: str) -> None:
        """Remember the user's board view (``delete_user_data`` forgets it)."""

    async def user_language(self, user_id: int) -> str | None:
        """The language the user chose for replies (None: follow their Discord locale)."""

    async def user_languages(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The languages those of ``user_ids`` who chose one chose (one read for many users:
        a burst of interactions from members not seen yet)."""

    async def save_user_language(self, user_id: int, language: str | None) -> None:
        """Remember the user's language; None forgets it (``delete_user_data`` does too)."""

    # --- replies to finish --------------------------------------------------------------

    async def save_pending_reply(self, reply: PendingReply) -> None:
        """Remember a deferred reply until ``drop_pending_reply``."""

    async def pending_replies(self) -> list[PendingReply]:
        """Every reply still waiting, oldest first."""

    async def drop_pending_reply(self, token: str) -> None:
        """Forget a reply (answered, or too old to answer); unknown tokens are ignored."""

    # --- turn pings ---------------------------------------------------------------------

    async def turn_ping(self, game_id: int) -> TurnPing | None:
        """The game's stored ping (None: none kept)."""

    async def save_turn_ping(self, ping: TurnPing) -> None:
        """Keep ``ping`` as its game's ping, replacing the one kept before."""

    async def drop_turn_ping(self, game_id: int) -> None:
        """Forget the game's ping (deleted, none to send); a game without one is ignored."""

    # --- tournaments --------------------------------------------------------------------

    async def create_tournament(self, new: NewTournament) -> Tournament:
        """Store a new tournament, ``OPEN``, created now."""

    async def tournament(self, tournament_id: int) -> Tournament:
        """The tournament with this id (``TournamentNotFoundError`` if none)."""

    async def live_tournaments(self, guild_id: int | None = None) -> list[Tournament]:
        """Open and running tournaments, oldest first (what to resume at start-up);
        ``guild_id`` restricts to one guild."""

    async def set_tournament_status(
        self, tournament_id: int, expected: TournamentStatus, status: TournamentStatus
    ) -> Tournament:
        """Move the tournament from ``expected`` to ``status`` (compare-and-set, so of two
        callers starting or finishing it only one does).

        Raises:
            TournamentNotFoundError.
            TournamentStatusError: its status is not ``expected``; nothing was written.
        """

    async def add_entrant(self, tournament_id: int, user_id: int, rating: float) -> Entrant:
        """Enter the user, active, unseeded, joined now; an entrant who had withdrawn is
        entered again with this rating and time. Whether the tournament takes the entry is
        the caller's rule (``bot.core.club.tournament.check_entry``).

        Raises:
            TournamentNotFoundError: no such tournament.
        """

    async def update_entrant(self, entrant: Entrant) -> None:
        """Replace the entrant's rating, seed and status (by tournament and user).

        Raises:
            TournamentNotFoundError: no such entrant.
        """

    async def entrants(self, tournament_id: int) -> list[Entrant]:
        """The tournament's entrants, withdrawn ones too, in the order they joined."""

    async def store_round(
        self,
        tournament_id: int,
        number: int,
        pairings: Sequence[Pairing],
        *,
        deadline: datetime | None = None,
    ) -> Round:
        """Store round ``number`` and its boards in one transaction, paired now. Boards that
        come with a result (the bye, forfeits of withdrawn players) count as played; a round
        whose every board has one is stored finished.

        Raises:
            TournamentNotFoundError: no such tournament.
            RoundPairedError: the round was stored already, or is not the one after the
                latest: nothing was written.
            ValueError: a pairing is of another tournament or round, or the boards are not
                numbered 1..n.
        """

    async def rounds(self, tournament_id: int) -> list[Round]:
        """The tournament's rounds in order."""

    async def set_pairing_game(
        self, tournament_id: int, round: int, board: int, game_id: int
    ) -> bool:
        """Link the board to the game opened for it; False (nothing written) when the board
        already has a game or a result, so a board never gets two games.

        Raises:
            TournamentNotFoundError: no such board.
            GameNotFoundError: no such game.
        """

    async def set_pairing_result(
        self, tournament_id: int, round: int, board: int, result: Result
    ) -> bool:
        """Record (or correct) the board's result; the round is marked finished once every
        board has one. Returns whether the round is finished.

        Raises:
            TournamentNotFoundError: no such board.
            ValueError: ``BYE`` on a board with two players, or another result on the bye.
        """

    async def pairings(self, tournament_id: int) -> list[Pairing]:
        """Every board of the tournament, by round then board."""

    async def pairing_by_game(self, game_id: int) -> Pairing | None:
        """The board the game was opened for (None: not a tournament game)."""

    # --- the pairing queue --------------------------------------------------------------

    async def add_queue_entry(self, entry: QueueEntry) -> bool:
        """Put the member in their server's queue; False (nothing written) when they wait
        in a queue already, this server's or another's."""

    async def set_queue_message(self, user_id: int, message_id: int) -> None:
        """Note the member's private answer (the message a timeout edits); a member in no
        queue is ignored."""

    async def queue_entry(self, user_id: int) -> QueueEntry | None:
        """Where the member waits (None: in no queue)."""

    async def queue_entries(self, guild_id: int | None = None) -> list[QueueEntry]:
        """The members waiting, longest first (then by user id); ``guild_id`` restricts to
        one server's queue."""

    async def take_queue_entries(self, guild_id: int, user_ids: Sequence[int]) -> bool:
        """Take the members out of the server's queue, all or none: False (nothing
        written) unless every one of them waits there."""
