"""Durable storage for games, challenges, settings and ratings.

The bot codes against ``storage.repository`` (the ``GameRepository`` Protocol, its frozen
records and errors); ``storage.sqlite.SqliteGameRepository`` is the durable implementation,
``storage.postgres.PostgresGameRepository`` the same contract on PostgreSQL (the ``postgres``
extra; ``storage.opening.open_repository`` picks one from the settings), both running the SQL
written once in ``storage.sql``, and
``storage.memory.InMemoryGameRepository`` the fake for tests. ``python -m storage bench``
measures write latency, throughput and database size.
"""

from storage.memory import InMemoryGameRepository
from storage.repository import (
    ChannelBusyError,
    CorruptDatabaseError,
    DatabaseLockedError,
    DatabaseRefusedError,
    DatabaseTooNewError,
    DiskFullError,
    ForeignDatabaseError,
    GameNotFoundError,
    GameRecord,
    GameRepository,
    GameSnapshot,
    GameStatus,
    GuildSettings,
    InvalidStatusError,
    MoveOrderError,
    MoveRecord,
    NewGame,
    Player,
    PlayerStats,
    ReadOnlyDatabaseError,
    StorageError,
    VersionConflictError,
)
from storage.sqlite import SqliteGameRepository

__all__ = [
    "ChannelBusyError",
    "CorruptDatabaseError",
    "DatabaseLockedError",
    "DatabaseRefusedError",
    "DatabaseTooNewError",
    "DiskFullError",
    "ForeignDatabaseError",
    "GameNotFoundError",
    "GameRecord",
    "GameRepository",
    "GameSnapshot",
    "GameStatus",
    "GuildSettings",
    "InMemoryGameRepository",
    "InvalidStatusError",
    "MoveOrderError",
    "MoveRecord",
    "NewGame",
    "Player",
    "PlayerStats",
    "ReadOnlyDatabaseError",
    "SqliteGameRepository",
    "StorageError",
    "VersionConflictError",
]
