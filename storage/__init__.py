"""Durable storage for games, challenges, settings and ratings.

The bot codes against the contract: ``storage.repository`` (the ``GameRepository``
Protocol), ``storage.records`` and ``storage.club`` (its frozen records: games and the rest,
tournaments) and ``storage.errors`` (its errors), all
re-exported here; ``storage.sqlite.SqliteGameRepository`` is the
durable implementation, ``storage.postgres.PostgresGameRepository`` the same contract on
PostgreSQL (the ``postgres`` extra; ``storage.opening.open_repository`` picks one from the
settings), both running the SQL written once in ``storage.sql``, and
``storage.memory.InMemoryGameRepository`` the fake for tests. ``python -m storage copy`` moves
a SQLite file to PostgreSQL and ``python -m storage backup`` copies one while the bot runs.
"""

from storage import club, errors, records, repository
from storage.club import *  # noqa: F403
from storage.errors import *  # noqa: F403 (the contract's names, listed in each __all__)
from storage.memory import InMemoryGameRepository
from storage.records import *  # noqa: F403
from storage.repository import *  # noqa: F403
from storage.sqlite import SqliteGameRepository

__all__ = [
    "InMemoryGameRepository",
    "SqliteGameRepository",
    *repository.__all__,
    *records.__all__,
    *club.__all__,
    *errors.__all__,
]
