"""Tournaments the bot runs: create, enter, start, play round after round, standings.

The pairing and scoring are ``bot.core.club``'s (pure, over the stored records); this module
reads the records, asks the club what comes next, stores it, and opens each board's game
through the same path as any game (``_create``: a ``GameStarted`` event, so the front ends
draw it). A tournament hears its games end from the service's events (``Moved`` of a five,
``GameEnded`` of a resignation or a clock), never by polling; each event starts a task that
records the board's result and, when the round is finished, pairs the next round or finishes
the tournament.

Where a board's game is played is the front end's choice: ``run_tournaments`` takes
``board_channel``, which returns the channel (a Discord thread) for a board; one other than
the tournament's channel is recorded as hung off it (its parent). Everything is
read back from the repository, so ``run_tournaments`` after a restart resumes every running
tournament: results of games that ended while no process listened are recorded, boards
without a game get one, and a round that is due is paired; a round is never paired twice (the
repository refuses a second store of one).

Tournament games are unrated and have no opening rule: the pairing gives the colours.

Each round is paired by ``round_pairer`` (``bot.core.club.pairer``): on the event loop by
default, in a worker process of its own where the front end sets a ``WorkerPairer`` (the bot
does).

A tournament with a start time (``starts_at``) starts by itself: ``TournamentService``'s
``tick_and_plan``, the core runner's clock pass, starts every open tournament whose time has
come (one with fewer than two entrants then is cancelled) and plans the pass for the next.

``TournamentService`` is ``GameService`` with these use cases: a front end that runs
tournaments makes one in place of a ``GameService``. (``GameService`` itself does not include
them: ``bot.core.club``'s errors import the service's, so the service's package cannot import
the club.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from functools import cached_property

from bot.core.club.card import Player as Seat
from bot.core.club.errors import RoundUnderWayError
from bot.core.club.pairer import InlinePairer, RoundPairer
from bot.core.club.standings import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Standing,
    standings,
)
from bot.core.club.tournament import check_entry, seeded
from bot.core.service import GameService
from bot.core.service.errors import InvalidOptionError
from bot.core.service.events import Event, GameEnded, Moved
from bot.core.service.games import GameUseCases
from bot.core.service.matchmaking import QueueUseCases
from bot.core.service.states import TimeoutEvent
from engine.types import Color, Game, Rule, Termination
from storage.club import (
    Entrant,
    EntrantStatus,
    Format,
    NewTournament,
    Pairing,
    Result,
    Tournament,
    TournamentStatus,
)
from storage.errors import RoundPairedError, TournamentNotFoundError, TournamentStatusError
from storage.records import GameRecord, GameStatus, Player

__all__ = ["BoardChannel", "RoundReport", "TournamentService", "TournamentUseCases"]

log = logging.getLogger(__name__)

BoardChannel = Callable[[Tournament, Pairing], Awaitable[int]]
"""Where the game of a board is played: the front end makes the place (a thread) and returns
its channel id; a different one for every open board."""

RoundReport = Callable[[Tournament, int, bool], Awaitable[None]]
"""Told that a round's every board has its result: the tournament, the round, and whether it
was the last (the tournament is finished). Called once the round is complete and before the
next one is paired, so the standings it reads are the round's."""

DEFAULT_RATING = 1000.0  # an entrant's rating when they have no rated game of the kind
_RESULTS = (Result.BLACK_WINS, Result.WHITE_WINS)


class TournamentUseCases(GameUseCases):
    """The tournament use cases (see the module doc). The permission to organise is the
    front end's check; these trust ``user_id`` to be allowed."""

    _board_channel: BoardChannel | None = None
    _round_report: RoundReport | None = None
    # Where rounds are paired: on the event loop unless the front end sets another (the bot
    # sets a ``WorkerPairer``, so a slow Swiss round never stalls it).
    round_pairer: RoundPairer = InlinePairer()

    # Made on first use, so the mixin adds no constructor of its own.
    @cached_property
    def _tournament_locks(self) -> dict[int, asyncio.Lock]:
        return {}

    @cached_property
    def _tournament_tasks(self) -> set[asyncio.Task[None]]:
        return set()

    # --- organising ---------------------------------------------------------------------

    async def create_tournament(
        self,
        *,
        guild_id: int,
        channel_id: int,
        user_id: int,
        name: str,
        format: Format,
        game: Game = Game.GOMOKU,
        rule: Rule = Rule.FREESTYLE,
        rounds: int = 0,
        seconds_per_move: int = 300,
        player_cap: int | None = None,
        starts_at: datetime | None = None,
    ) -> Tournament:
        """Create an open tournament announced in ``channel_id`` (Swiss: ``rounds`` to play;
        a round-robin plays everyone once).

        Raises:
            InvalidOptionError: the format (an arena is not run yet), the game and rule, the
                rounds, the time, the cap or the name are out of range.
        """
        format = Format(format)
        if format is Format.ARENA:
            raise InvalidOptionError("format", format.value, "swiss, round_robin")
        board = self._validate_board(Game(game), rule, None)
        if format is Format.SWISS and rounds < 1:
            raise InvalidOptionError("rounds", rounds, "1-")
        new_fields = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "name": name.strip(),
            "format": format,
            "game": board.game.value,
            "rule": board.rule.value,
            "rounds": rounds if format is Format.SWISS else 0,
            "seconds_per_move": seconds_per_move,
            "created_by": user_id,
            "player_cap": player_cap,
            "starts_at": starts_at,
        }
        try:
            new = NewTournament(**new_fields)  # type: ignore[arg-type]
        except ValueError as error:
            raise InvalidOptionError("tournament", name, str(error)) from error
        return await self.repository.create_tournament(new)

    async def join_tournament(self, tournament_id: int, user_id: int) -> Entrant:
        """Enter the member, at their rating in the tournament's game and rule.

        Raises:
            TournamentNotFoundError (storage), EntriesClosedError, AlreadyEnteredError,
            TournamentFullError.
        """
        async with self._tournament_lock(tournament_id):
            tournament = await self.repository.tournament(tournament_id)
            check_entry(tournament, await self.repository.entrants(tournament_id), user_id)
            stats = await self.repository.player_stats(
                user_id,
                Game(tournament.game),
                guild_id=tournament.guild_id,
                rule=Rule(tournament.rule),
            )
            rating = DEFAULT_RATING if stats is None else float(stats.display_rating)
            return await self.repository.add_entrant(tournament_id, user_id, rating)

    async def leave_tournament(self, tournament_id: int, user_id: int) -> None:
        """Leave before the start, or withdraw once it runs (``withdraw``).

        Raises:
            TournamentNotFoundError (storage): no such tournament, or not entered.
        """
        await self.withdraw(tournament_id, user_id)

    async def withdraw(self, tournament_id: int, user_id: int) -> None:
        """Take the member out of the coming rounds; their results stand. An open game of
        theirs in the tournament is resigned; a round-robin scores their later boards as
        forfeits.

        Raises:
            TournamentNotFoundError (storage): no such tournament, or not entered.
        """
        async with self._tournament_lock(tournament_id):
            entrants = {e.user_id: e for e in await self.repository.entrants(tournament_id)}
            entrant = entrants.get(user_id)
            if entrant is None:
                raise TournamentNotFoundError(tournament_id, user_id=user_id)
            await self.repository.update_entrant(replace(entrant, status=EntrantStatus.WITHDRAWN))
            open_games = [
                p.game_id
                for p in await self.repository.pairings(tournament_id)
                if p.result is None and p.game_id is not None and user_id in p.players()
            ]
        for game_id in open_games:
            await self.resign(None, user_id, game_id=game_id)

    async def start_tournament(self, tournament_id: int) -> Tournament:
        """Seed the entrants, pair round 1 and open its games (the boards are opened by a
        service that ``run_tournaments``; another leaves them to the one that does).

        Raises:
            TournamentNotFoundError, TournamentStatusError (storage): not open.
            InvalidOptionError: fewer than two entrants.
        """
        async with self._tournament_lock(tournament_id):
            entrants = await self.repository.entrants(tournament_id)
            active = [e for e in entrants if e.status is EntrantStatus.ACTIVE]
            if len(active) < 2:
                raise InvalidOptionError("entrants", len(active), "2-")
            tournament = await self.repository.set_tournament_status(
                tournament_id, TournamentStatus.OPEN, TournamentStatus.RUNNING
            )
            for entrant in seeded(active):
                await self.repository.update_entrant(entrant)
        await self._advance(tournament_id)
        return tournament

    async def adjust_result(
        self, tournament_id: int, round_: int, board: int, result: Result
    ) -> None:
        """A moderator's correction of a board's result; a round it finishes is followed by
        the next one.

        Raises:
            TournamentNotFoundError (storage): no such board; ValueError: a bye mismatch.
        """
        async with self._tournament_lock(tournament_id):
            await self.repository.set_pairing_result(tournament_id, round_, board, result)
        await self._advance(tournament_id)

    async def tournament_standings(self, tournament_id: int) -> tuple[Standing, ...]:
        """The table: points, then the format's tiebreaks (Swiss: Buchholz cut 1, Buchholz,
        Sonneborn-Berger, direct encounter; round-robin: direct encounter,
        Sonneborn-Berger, wins)."""
        tournament = await self.repository.tournament(tournament_id)
        entrants = await self.repository.entrants(tournament_id)
        pairings = await self.repository.pairings(tournament_id)
        paired = {u for p in pairings for u in p.players()}
        players = [
            Seat(e.user_id, e.rating, e.seed)
            for e in entrants
            if e.user_id in paired or e.status is EntrantStatus.ACTIVE
        ]
        tiebreaks = (
            ROUND_ROBIN_TIEBREAKS if tournament.format is Format.ROUND_ROBIN else SWISS_TIEBREAKS
        )
        return standings(players, pairings, tiebreaks)

    # --- running ------------------------------------------------------------------------

    async def run_tournaments(
        self, board_channel: BoardChannel, round_report: RoundReport | None = None
    ) -> None:
        """Listen to the games' events from now on, placing boards with ``board_channel``
        and telling ``round_report`` of each finished round, and resume every running
        tournament (see the module doc)."""
        self._board_channel = board_channel
        self._round_report = round_report
        self.unsubscribe(self._on_tournament_event)  # called again: still one task per event
        self.subscribe(self._on_tournament_event)
        for tournament in await self.repository.live_tournaments():
            if tournament.status is TournamentStatus.RUNNING:
                await self._advance(tournament.id, resuming=True)

    async def tournaments_settled(self) -> None:
        """Wait until the work the games' events started is done (tests, shutdown)."""
        tasks = self._tournament_tasks
        while tasks:
            await asyncio.gather(*tuple(tasks))

    def _on_tournament_event(self, event: Event) -> None:
        if not isinstance(event, Moved | GameEnded):
            return
        record = event.game.record
        if record.status is not GameStatus.FINISHED or record.guild_id is None:
            return
        tasks = self._tournament_tasks
        task = asyncio.get_running_loop().create_task(self._game_over(record.id))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def _game_over(self, game_id: int) -> None:
        try:
            pairing = await self.repository.pairing_by_game(game_id)
            if pairing is None or pairing.result is not None:
                return
            async with self._tournament_lock(pairing.tournament_id):
                await self._record_result(pairing, await self.repository.get_game(game_id))
            await self._advance(pairing.tournament_id)
        except Exception:
            # A task of an event: nobody awaits it to report to; the next resume retries.
            log.exception("recording the result of tournament game %s failed", game_id)

    async def _record_result(self, pairing: Pairing, game: GameRecord) -> bool:
        """Store the board's result from its finished game; False if the game is not over."""
        result = _result_of(pairing, game)
        if result is None:
            return False
        await self.repository.set_pairing_result(
            pairing.tournament_id, pairing.round, pairing.board, result
        )
        return True

    async def _advance(self, tournament_id: int, *, resuming: bool = False) -> None:
        """Bring the tournament up to date with its games: record results of games already
        over, open the boards that have no game, and pair the next round when it is due, or
        finish the tournament after the last. ``resuming``: a process stopped between
        opening a board's game and linking it may have left the game open: link that one
        rather than open a second."""
        async with self._tournament_lock(tournament_id):
            while True:
                tournament = await self.repository.tournament(tournament_id)
                if tournament.status is not TournamentStatus.RUNNING:
                    return
                pairings = await self.repository.pairings(tournament_id)
                for pairing in pairings:
                    if pairing.result is None and pairing.game_id is not None:
                        game = await self.repository.get_game(pairing.game_id)
                        await self._record_result(pairing, game)
                pairings = await self.repository.pairings(tournament_id)
                for pairing in pairings:
                    unopened = pairing.result is None and pairing.game_id is None
                    if unopened and not (
                        resuming and await self._link_left_game(tournament, pairing)
                    ):
                        await self._open_board(tournament, pairing)
                entrants = await self.repository.entrants(tournament_id)
                try:
                    plan = await self.round_pairer.next_round(tournament, entrants, pairings)
                except RoundUnderWayError:
                    return
                if plan is None:
                    finished = await self.repository.set_tournament_status(
                        tournament_id, TournamentStatus.RUNNING, TournamentStatus.FINISHED
                    )
                    await self._report_round(finished, _last_round(pairings), final=True)
                    return
                if plan.round > 1:
                    await self._report_round(tournament, plan.round - 1, final=False)
                boards = [
                    Pairing(tournament_id, plan.round, b.board, b.black, b.white, b.result, None)
                    for b in plan.boards
                ]
                try:
                    await self.repository.store_round(tournament_id, plan.round, boards)
                except RoundPairedError:
                    log.warning("round %s of tournament %s was paired", plan.round, tournament_id)
                # Loop: open the new round's games (or, if byes and forfeits decided it, pair on).

    async def _open_board(self, tournament: Tournament, pairing: Pairing) -> None:
        if self._board_channel is None or pairing.white is None:
            return
        channel_id = await self._board_channel(tournament, pairing)
        board = self._validate_board(Game(tournament.game), Rule(tournament.rule), None)
        state = await self._create(
            board,
            guild_id=tournament.guild_id,
            channel_id=channel_id,
            black=Player.human(pairing.black),
            white=Player.human(pairing.white),
            created_by=tournament.created_by,
            turn_seconds=tournament.seconds_per_move,
        )
        game_id = state.record.id
        if channel_id != tournament.channel_id:
            # A board's own channel (a thread) hangs off the tournament's: recorded as its
            # parent, the game's end closes it like any game's thread.
            await self.move_to_thread(game_id, channel_id, parent_channel_id=tournament.channel_id)
        linked = await self.repository.set_pairing_game(
            tournament.id, pairing.round, pairing.board, game_id
        )
        if not linked:
            await self.abandon(channel_id)

    async def _link_left_game(self, tournament: Tournament, pairing: Pairing) -> bool:
        """Link the board to an open game of the guild between its two players, with its
        colours, that no board has; False if there is none."""
        for game in await self.repository.open_games():
            if (
                game.guild_id == tournament.guild_id
                and game.created_by == tournament.created_by
                and (game.black.user_id, game.white.user_id) == (pairing.black, pairing.white)
                and await self.repository.pairing_by_game(game.id) is None
            ):
                return await self.repository.set_pairing_game(
                    tournament.id, pairing.round, pairing.board, game.id
                )
        return False

    async def _report_round(self, tournament: Tournament, round_: int, *, final: bool) -> None:
        if self._round_report is None or round_ < 1:
            return
        try:
            await self._round_report(tournament, round_, final)
        except Exception:
            # The front end's post failed: the tournament goes on all the same.
            log.exception("reporting round %s of tournament %s failed", round_, tournament.id)

    def _tournament_lock(self, tournament_id: int) -> asyncio.Lock:
        return self._tournament_locks.setdefault(tournament_id, asyncio.Lock())


class TournamentService(TournamentUseCases, QueueUseCases, GameService):
    """``GameService``, the tournaments it runs (see the module doc) and the servers' pairing
    queues (``bot.core.service.matchmaking``)."""

    async def tick_and_plan(self) -> tuple[list[TimeoutEvent], datetime | None]:
        """The games' clock pass (``GameService.tick_and_plan``), then the tournaments whose
        start time has come are started: the core runner's clock starts them, and the next
        start time joins its plan."""
        events, upcoming = await super().tick_and_plan()
        start = await self.start_due_tournaments()
        if start is not None and (upcoming is None or start < upcoming):
            upcoming = start
        return events, upcoming

    async def start_due_tournaments(self) -> datetime | None:
        """Start every open tournament whose ``starts_at`` has come; one with fewer than two
        entrants then is cancelled (nobody to pair). Returns the next start time still to
        come, if any."""
        now = self.clock()
        upcoming: datetime | None = None
        for tournament in await self.repository.live_tournaments():
            starts_at = tournament.starts_at
            if tournament.status is not TournamentStatus.OPEN or starts_at is None:
                continue
            if starts_at > now:
                upcoming = starts_at if upcoming is None else min(upcoming, starts_at)
                continue
            try:
                await self.start_tournament(tournament.id)
            except InvalidOptionError:
                await self._cancel_unstarted(tournament.id)
            except TournamentStatusError:
                continue  # an organiser started or cancelled it meanwhile
            except Exception:
                # The others still start; this one is tried again at the next pass.
                log.exception("starting tournament %s at its time failed", tournament.id)
        return upcoming

    async def _cancel_unstarted(self, tournament_id: int) -> None:
        with contextlib.suppress(TournamentStatusError):
            await self.repository.set_tournament_status(
                tournament_id, TournamentStatus.OPEN, TournamentStatus.CANCELLED
            )
        log.info("tournament %s had fewer than two players at its start time", tournament_id)


def _last_round(pairings: list[Pairing]) -> int:
    return max((p.round for p in pairings), default=0)


def _result_of(pairing: Pairing, game: GameRecord) -> Result | None:
    """The board's result from its game (None: not over). A clock that ends a game its loser
    never moved in is a forfeit; an abandoned game (a moderator, a deleted member) forfeits
    both."""
    if game.status is not GameStatus.FINISHED or game.outcome is None:
        return None
    outcome = game.outcome
    if outcome.winner is None:
        if outcome.termination is Termination.ABANDONED:
            return Result.DOUBLE_FORFEIT
        return Result.DRAW
    winner = game.black if outcome.winner is Color.BLACK else game.white
    black_won = winner.user_id == pairing.black
    loser_colour = Color.WHITE if black_won else Color.BLACK
    loser_moves = (game.ply + (1 if loser_colour is Color.BLACK else 0)) // 2
    if outcome.termination is Termination.TIMEOUT and loser_moves == 0:
        return Result.forfeited_by(loser_colour)
    return _RESULTS[0] if black_won else _RESULTS[1]
