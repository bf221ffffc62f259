"""Where a tournament's next round is paired: off the event loop in a worker process of its own
(``WorkerPairer``, the bot's), or on the caller's thread (``InlinePairer``, for tests and tools).

A Swiss round that pairing-core's Dutch kernel gives up on is paired by the fallback matching,
up to about 0.3 s of CPU for 64 players: on the event loop that would stall every command in
flight. ``WorkerPairer`` sends the round to one spawn-context process (``bot.core.workers``'
``WorkerPool``), started on the first round and kept. Its own process rather than the AI's
pool: the AI's workers run searches in the idle class, a round would wait behind them, and
the AI may be on a Redis queue with no local pool at all.

What crosses to the worker is typed and checked like the AI queue's messages
(``bot.core.queue_ai``): ``RoundRequest`` (the tournament, its entrants and its boards, the
stored records) goes as msgspec JSON, and ``RoundAnswer`` comes back the same way; neither
side takes what does not fit the type. The tournament carries its number of rounds, so the
worker knows a Swiss's last round, where topscorers' colour rules bend
(``bot.core.club.swiss``). A worker that dies or holds a round past
``PAIRING_LIMIT_S`` is replaced and the round sent again, once; after that the error goes to
the caller (the tournament service logs it, and its next resume pairs the round).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Final, Protocol, Self, TypeVar

import msgspec

from bot.core.club.errors import RoundUnderWayError
from bot.core.club.tournament import RoundPlan, next_round
from bot.core.workers import PoolClosedError, TaskError, WorkerLostError, WorkerPool
from storage.club import Entrant, Pairing, Tournament

__all__ = [
    "PAIRING_LIMIT_S",
    "InlinePairer",
    "PairingMessageError",
    "RoundAnswer",
    "RoundPairer",
    "RoundRequest",
    "WorkerPairer",
    "answer_round",
    "decode",
    "encode",
]

log = logging.getLogger(__name__)

# A round that takes longer is taken for a hung worker (the slowest of the benchmark's 64-player
# rounds takes about 0.3 s of CPU; a loaded machine may stretch that many times over).
PAIRING_LIMIT_S: Final = 60.0

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class RoundRequest:
    """What ``next_round`` reads: the tournament and its stored entrants and boards."""

    tournament: Tournament
    entrants: tuple[Entrant, ...]
    pairings: tuple[Pairing, ...]


@dataclass(frozen=True, slots=True)
class RoundAnswer:
    """``next_round``'s answer: the round to open (None: the last is over), or the round
    still under way."""

    plan: RoundPlan | None
    under_way: int = 0  # > 0: this round has a board without a result; nothing was paired


class PairingMessageError(Exception):
    """What came across is not the message it should be."""


def encode(message: RoundRequest | RoundAnswer) -> bytes:
    """``message`` as JSON, every field of it and of the records inside it."""
    return msgspec.json.encode(message)


def decode(data: bytes, kind: type[_T]) -> _T:
    """The inverse of ``encode``: ``data`` checked against ``kind``'s fields and rebuilt.

    Raises:
        PairingMessageError: ``data`` is not a ``kind``.
    """
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.DecodeError as error:
        raise PairingMessageError(f"not a {kind.__name__}: {error}") from error


def answer_round(data: bytes) -> bytes:
    """The worker's side: an encoded ``RoundRequest`` in, an encoded ``RoundAnswer`` out."""
    request = decode(data, RoundRequest)
    try:
        plan = next_round(request.tournament, request.entrants, request.pairings)
    except RoundUnderWayError as error:
        return encode(RoundAnswer(None, error.round))
    return encode(RoundAnswer(plan))


class RoundPairer(Protocol):
    """Pairs a tournament's next round (``bot.core.club.tournament.next_round``'s contract)."""

    async def next_round(
        self, tournament: Tournament, entrants: list[Entrant], pairings: list[Pairing]
    ) -> RoundPlan | None:
        """The round to pair now, or None when the last round is over.

        Raises:
            RoundUnderWayError: a pairing of the latest round has no result yet.
        """
        ...

    async def close(self) -> None:
        """Release what it holds; it pairs nothing after."""
        ...


class InlinePairer:
    """Pairs on the caller's thread (the event loop): for tests and tools, where a stall of a
    few hundred milliseconds costs nothing."""

    async def next_round(
        self, tournament: Tournament, entrants: list[Entrant], pairings: list[Pairing]
    ) -> RoundPlan | None:
        """``next_round`` here and now."""
        return next_round(tournament, entrants, pairings)

    async def close(self) -> None:
        """Nothing to release."""


def _init_worker() -> None:
    """Load the pairing before the first round (the worker is ready only after)."""
    import bot.core.club.tournament  # noqa: F401


class WorkerPairer:
    """Pairs in a worker process of its own (see the module doc); ``close`` ends it."""

    def __init__(self, limit_s: float = PAIRING_LIMIT_S) -> None:
        self.limit_s = limit_s
        self._pool = WorkerPool(1, _init_worker)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def replacements(self) -> int:
        """How many workers died or hung and were replaced."""
        return self._pool.replaced

    def worker_pids(self) -> list[int]:
        """The live worker's process id (none before the first round)."""
        return self._pool.pids()

    async def next_round(
        self, tournament: Tournament, entrants: list[Entrant], pairings: list[Pairing]
    ) -> RoundPlan | None:
        """``next_round`` in the worker; a dead or hung worker is replaced and the round sent
        again, once.

        Raises:
            RoundUnderWayError: a pairing of the latest round has no result yet.
            RuntimeError: no worker could pair it (twice lost, or closed).
            Exception: what the pairing itself raised (as ``next_round`` would).
        """
        request = encode(RoundRequest(tournament, tuple(entrants), tuple(pairings)))
        for attempt in (1, 2):
            try:
                reply = await self._pool.call(answer_round, request, self.limit_s)
            except WorkerLostError as error:
                log.warning("pairing worker failed (attempt %d): %s", attempt, error.detail)
                if attempt == 2:
                    raise RuntimeError(f"no pairing worker: {error.detail}") from error
                continue
            except TaskError as error:
                # The pairing raised there: the same error here, as inline.
                raise (error.__cause__ or error) from None
            except PoolClosedError as error:
                raise RuntimeError("the pairing worker is closed") from error
            answer = decode(reply, RoundAnswer)
            if answer.under_way:
                raise RoundUnderWayError(tournament.id, answer.under_way)
            return answer.plan
        raise AssertionError("unreachable")

    async def close(self) -> None:
        """End the worker (a round under way ends with ``RuntimeError``)."""
        await self._pool.close()
