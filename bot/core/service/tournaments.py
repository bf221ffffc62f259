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

An arena (``Format.ARENA``) has no rounds to play out: for ``arena_minutes`` from its start,
whoever is free is paired again as soon as a game ends (``bot.core.club.arena``), each pass
stored as a round whose ``deadline`` is the arena's end. When the end comes (the runner's
clock pass) the arena is finished and its final standings reported; games still under way
are played out but do not count (lichess's rule), so a game counts only if it ended before
the deadline.

Each round is paired by ``round_pairer`` (``bot.core.club.pairer``): on the event loop by
default, in a worker process of its own where the front end sets a ``WorkerPairer`` (the bot
does).

A tournament with a start time (``starts_at``) starts by itself: ``TournamentService``'s
``tick_and_plan``, the core runner's clock pass, starts every open tournament whose time has
come (one with fewer than two entrants then is cancelled) and plans the pass for the next.
Only a service that runs the tournaments does so, and it tells ``run_tournaments``'s
``start_report`` of each start or cancellation before the first round's boards open.

The time control is per move: seconds for a live event, whole days for a correspondence one
(``seconds_per_move`` a multiple of a day). Each board's game has that turn clock: its
turn warning and its forfeit come from the games' clock like any game's.

``TournamentService`` is ``GameService`` with these use cases: a front end that runs
tournaments makes one in place of a ``GameService``. (``GameService`` itself does not include
them: ``bot.core.club``'s errors import the service's, so the service's package cannot import
the club.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cached_property

from bot.core.club.arena import arena_scores, arena_standings, pair_arena
from bot.core.club.card import Player as Seat
from bot.core.club.errors import RoundUnderWayError
from bot.core.club.pairer import InlinePairer, RoundPairer
from bot.core.club.standings import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Standing,
    standings,
)
from bot.core.club.tournament import check_entry, check_start_time, seeded
from bot.core.service import GameService
from bot.core.service.errors import InvalidOptionError
from bot.core.service.events import Event, GameEnded, Moved
from bot.core.service.games import GameUseCases
from bot.core.service.matchmaking import QueueUseCases
from bot.core.service.shared import MAX_TURN_SECONDS
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

__all__ = [
    "BoardChannel",
    "RoundReport",
    "StartReport",
    "TournamentService",
    "TournamentUseCases",
]

log = logging.getLogger(__name__)

BoardChannel = Callable[[Tournament, Pairing], Awaitable[int]]
"""Where the game of a board is played: the front end makes the place (a thread) and returns
its channel id; a different one for every open board."""

RoundReport = Callable[[Tournament, int, bool], Awaitable[None]]
"""Told that a round's every board has its result: the tournament, the round, and whether it
was the last (the tournament is finished). Called once the round is complete and before the
next one is paired, so the standings it reads are the round's."""

StartReport = Callable[[Tournament, int], Awaitable[None]]
"""Told that the clock started a tournament at its start time (its status ``RUNNING``) or
cancelled it for want of players (``CANCELLED``), with the number of players it had. Called
before the first round's boards open."""

DEFAULT_RATING = 1000.0  # an entrant's rating when they have no rated game of the kind
_RESULTS = (Result.BLACK_WINS, Result.WHITE_WINS)


class TournamentUseCases(GameUseCases):
    """The tournament use cases (see the module doc). The permission to organise is the
    front end's check; these trust ``user_id`` to be allowed."""

    _board_channel: BoardChannel | None = None
    _round_report: RoundReport | None = None
    _start_report: StartReport | None = None
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
        arena_minutes: int | None = None,
    ) -> Tournament:
        """Create an open tournament announced in ``channel_id`` (Swiss: ``rounds`` to play;
        a round-robin plays everyone once; an arena pairs for ``arena_minutes``).

        Raises:
            InvalidOptionError: the game and rule, the rounds, the time, the cap, the arena's
                minutes or the name are out of range.
            StartTimeError: ``starts_at`` has passed or lies too far ahead.
        """
        format = Format(format)
        if starts_at is not None:
            check_start_time(starts_at, self.clock())
        if not 0 < seconds_per_move <= MAX_TURN_SECONDS:
            raise InvalidOptionError("turn_time", seconds_per_move, f"1-{MAX_TURN_SECONDS}")
        if (format is Format.ARENA) != (arena_minutes is not None):
            raise InvalidOptionError("arena_minutes", arena_minutes)
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
            "arena_minutes": arena_minutes,
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
            entrant = await self.repository.add_entrant(tournament_id, user_id, rating)
        if tournament.format is Format.ARENA and tournament.status is TournamentStatus.RUNNING:
            # A late entrant is paired with whoever waits, in a task of its own: opening the
            # board is not the entry's answer to wait for.
            self._spawn_advance(tournament_id)
        return entrant

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
        tournament, _players = await self._begin(tournament_id)
        await self._advance(tournament_id)
        return tournament

    async def _begin(self, tournament_id: int) -> tuple[Tournament, int]:
        """Close entries and seed the entrants: the tournament now running, and its number
        of players (``start_tournament``'s refusals)."""
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
        return tournament, len(active)

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
        # A late entrant has no pairing number (0): they rank after the seeded in a tie.
        players = [
            Seat(e.user_id, e.rating, e.seed or len(entrants) + 1 + index)
            for index, e in enumerate(entrants)
            if e.user_id in paired or e.status is EntrantStatus.ACTIVE
        ]
        if tournament.format is Format.ARENA:
            return arena_standings(players, pairings)
        tiebreaks = (
            ROUND_ROBIN_TIEBREAKS if tournament.format is Format.ROUND_ROBIN else SWISS_TIEBREAKS
        )
        return standings(players, pairings, tiebreaks)

    # --- running ------------------------------------------------------------------------

    async def run_tournaments(
        self,
        board_channel: BoardChannel,
        round_report: RoundReport | None = None,
        start_report: StartReport | None = None,
    ) -> None:
        """Listen to the games' events from now on, placing boards with ``board_channel``,
        telling ``round_report`` of each finished round and ``start_report`` of each start
        by the clock, and resume every running tournament (see the module doc)."""
        self._board_channel = board_channel
        self._round_report = round_report
        self._start_report = start_report
        self.unsubscribe(self._on_tournament_event)  # called again: still one task per event
        self.subscribe(self._on_tournament_event, (Moved, GameEnded))
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
        self._spawn(self._game_over(record.id))

    def _spawn(self, work: Coroutine[None, None, None]) -> None:
        """Run ``work`` in a task that ``tournaments_settled`` waits for."""
        tasks = self._tournament_tasks
        task = asyncio.get_running_loop().create_task(work)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def _spawn_advance(self, tournament_id: int) -> None:
        async def advance() -> None:
            try:
                await self._advance(tournament_id)
            except Exception:
                # A task: nobody awaits it to report to; the next game's end retries.
                log.exception("pairing arena %s failed", tournament_id)

        self._spawn(advance())

    async def _game_over(self, game_id: int) -> None:
        try:
            pairing = await self.repository.pairing_by_game(game_id)
            if pairing is None or pairing.result is not None:
                return
            async with self._tournament_lock(pairing.tournament_id):
                tournament = await self.repository.tournament(pairing.tournament_id)
                if tournament.status is not TournamentStatus.RUNNING:
                    return  # an arena's game that ended after the arena: it does not count
                await self._record_result(
                    pairing,
                    await self.repository.get_game(game_id),
                    await self._arena_end(tournament),
                )
            await self._advance(pairing.tournament_id)
        except Exception:
            # A task of an event: nobody awaits it to report to; the next resume retries.
            log.exception("recording the result of tournament game %s failed", game_id)

    async def _record_result(
        self, pairing: Pairing, game: GameRecord, counted_until: datetime | None = None
    ) -> bool:
        """Store the board's result from its finished game; False if the game is not over,
        or (an arena's) ended at or after ``counted_until``."""
        result = _result_of(pairing, game)
        if result is None:
            return False
        if counted_until is not None and (game.finished_at or game.updated_at) >= counted_until:
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
                ends_at = await self._arena_end(tournament)
                pairings = await self.repository.pairings(tournament_id)
                for pairing in pairings:
                    if pairing.result is None and pairing.game_id is not None:
                        game = await self.repository.get_game(pairing.game_id)
                        await self._record_result(pairing, game, ends_at)
                pairings = await self.repository.pairings(tournament_id)
                for pairing in pairings:
                    unopened = pairing.result is None and pairing.game_id is None
                    if unopened and not (
                        resuming and await self._link_left_game(tournament, pairing)
                    ):
                        await self._open_board(tournament, pairing)
                entrants = await self.repository.entrants(tournament_id)
                if ends_at is not None:
                    if not await self._pair_arena(tournament, entrants, pairings, ends_at):
                        return
                    continue  # open the new boards
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

    async def arena_end(self, tournament: Tournament) -> datetime | None:
        """When a running arena stops pairing (None for the formats that play rounds, and
        for an arena not running)."""
        if tournament.status is not TournamentStatus.RUNNING:
            return None
        return await self._arena_end(tournament)

    async def _arena_end(self, tournament: Tournament) -> datetime | None:
        """When a running arena stops pairing: its first pass's deadline (or, before that
        pass, ``arena_minutes`` from now); None for the formats that play rounds."""
        if tournament.format is not Format.ARENA or tournament.arena_minutes is None:
            return None
        rounds = await self.repository.rounds(tournament.id)
        if rounds and rounds[0].deadline is not None:
            return rounds[0].deadline
        return self.clock() + timedelta(minutes=tournament.arena_minutes)

    async def _pair_arena(
        self,
        tournament: Tournament,
        entrants: list[Entrant],
        pairings: list[Pairing],
        ends_at: datetime,
    ) -> bool:
        """Pair the arena's free players (True if a pass was stored), or finish the arena
        once ``ends_at`` has come."""
        now = self.clock()
        if now >= ends_at:
            finished = await self.repository.set_tournament_status(
                tournament.id, TournamentStatus.RUNNING, TournamentStatus.FINISHED
            )
            await self._report_round(finished, _last_round(pairings), final=True)
            return False
        busy = {u for p in pairings if p.result is None for u in p.players()}
        free = [
            Seat(e.user_id, e.rating, e.seed)
            for e in entrants
            if e.status is EntrantStatus.ACTIVE and e.user_id not in busy
        ]
        scores = arena_scores([e.user_id for e in entrants], pairings)
        pairs = pair_arena(free, scores, now=now.timestamp(), ends_at=ends_at.timestamp())
        if not pairs:
            return False
        number = _last_round(pairings) + 1
        boards = [
            Pairing(tournament.id, number, board, pair.black, pair.white, None, None)
            for board, pair in enumerate(pairs, start=1)
        ]
        try:
            await self.repository.store_round(tournament.id, number, boards, deadline=ends_at)
        except RoundPairedError:
            log.warning("pass %s of arena %s was paired", number, tournament.id)
        return True

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

    async def _report_start(self, tournament: Tournament, players: int) -> None:
        if self._start_report is None:
            return
        try:
            await self._start_report(tournament, players)
        except Exception:
            # The front end's post failed: the tournament goes on all the same.
            log.exception("reporting the start of tournament %s failed", tournament.id)

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
        if self._board_channel is None:
            return events, upcoming
        live = await self.repository.live_tournaments()  # read once for both
        for due in (await self.start_due_tournaments(live), await self.finish_due_arenas(live)):
            if due is not None and (upcoming is None or due < upcoming):
                upcoming = due
        return events, upcoming

    async def finish_due_arenas(self, live: list[Tournament] | None = None) -> datetime | None:
        """Finish every running arena whose time is up (its final standings reported);
        returns the next arena end still to come, if any. Only a service that runs the
        tournaments does so. ``live``: the live tournaments, if the caller has read them."""
        if self._board_channel is None:
            return None
        upcoming: datetime | None = None
        for tournament in live if live is not None else await self.repository.live_tournaments():
            if tournament.status is not TournamentStatus.RUNNING:
                continue
            ends_at = await self._arena_end(tournament)
            if ends_at is None:
                continue
            if ends_at > self.clock():
                upcoming = ends_at if upcoming is None else min(upcoming, ends_at)
                continue
            try:
                await self._advance(tournament.id)
            except Exception:
                # The others still finish; this one is tried again at the next pass.
                log.exception("finishing arena %s at its time failed", tournament.id)
        return upcoming

    async def start_due_tournaments(self, live: list[Tournament] | None = None) -> datetime | None:
        """Start every open tournament whose ``starts_at`` has come; one with fewer than two
        entrants then is cancelled (nobody to pair). Returns the next start time still to
        come, if any. A service that does not run the tournaments (``run_tournaments``)
        starts none: the one that does opens their boards and tells the channel. ``live``:
        the live tournaments, if the caller has read them."""
        if self._board_channel is None:
            return None
        now = self.clock()
        upcoming: datetime | None = None
        for tournament in live if live is not None else await self.repository.live_tournaments():
            starts_at = tournament.starts_at
            if tournament.status is not TournamentStatus.OPEN or starts_at is None:
                continue
            if starts_at > now:
                upcoming = starts_at if upcoming is None else min(upcoming, starts_at)
                continue
            try:
                await self._start_by_clock(tournament.id)
            except TournamentStatusError:
                continue  # an organiser started or cancelled it meanwhile
            except Exception:
                # The others still start; one that is still open is tried at the next pass.
                log.exception("starting tournament %s at its time failed", tournament.id)
        return upcoming

    async def _start_by_clock(self, tournament_id: int) -> None:
        """Start the tournament, or cancel it when it has too few players; tell the front
        end, then pair and open round 1."""
        try:
            started, players = await self._begin(tournament_id)
        except InvalidOptionError:
            await self._cancel_unstarted(tournament_id)
            return
        await self._report_start(started, players)
        await self._advance(started.id)

    async def _cancel_unstarted(self, tournament_id: int) -> None:
        try:
            cancelled = await self.repository.set_tournament_status(
                tournament_id, TournamentStatus.OPEN, TournamentStatus.CANCELLED
            )
        except TournamentStatusError:
            return  # an organiser started it meanwhile
        log.info("tournament %s had fewer than two players at its start time", tournament_id)
        players = await self.repository.entrants(tournament_id)
        await self._report_start(cancelled, sum(e.status is EntrantStatus.ACTIVE for e in players))


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
