"""The errors of the storage contract: what ``GameRepository`` and opening a database raise::

StorageError
├── GameNotFoundError                 no game with that id (.game_id)
├── VersionConflictError              compare-and-set lost (.game_id, .expected, .actual)
├── ChannelBusyError                  the channel already has an open game (.channel_id)
├── InvalidStatusError                the game is not in a status that allows it
│                                     (.game_id, .status)
├── MoveOrderError (also ValueError)  a move of the wrong colour, or a takeback of more
│                                     moves than were played (.game_id, .ply, .detail)
├── TournamentNotFoundError           no tournament, entrant or board with that key
│                                     (.tournament_id, .user_id, .round, .board)
├── TournamentStatusError             the tournament is not in the status the write expects
│                                     (.tournament_id, .status)
├── RoundPairedError                  the round was stored already: a round pairs once
│                                     (.tournament_id, .round)
└── DatabaseRefusedError              the file cannot be opened as our database (.path)
    ├── ForeignDatabaseError          not our database at all (.detail)
    ├── DatabaseTooNewError           written by a newer version (.found, .supported)
    ├── CorruptDatabaseError          SQLite pages are damaged (.detail)
    ├── ReadOnlyDatabaseError         the file, folder or filesystem is read-only (.detail)
    ├── DiskFullError                 no room to write (.detail)
    └── DatabaseLockedError           another process held the lock too long (.waited_s)
"""

from __future__ import annotations

from pathlib import Path

from storage.club import TournamentStatus
from storage.records import GameStatus

__all__ = [
    "ChannelBusyError",
    "CorruptDatabaseError",
    "DatabaseLockedError",
    "DatabaseRefusedError",
    "DatabaseTooNewError",
    "DiskFullError",
    "ForeignDatabaseError",
    "GameNotFoundError",
    "InvalidStatusError",
    "MoveOrderError",
    "ReadOnlyDatabaseError",
    "RoundPairedError",
    "StorageError",
    "TournamentNotFoundError",
    "TournamentStatusError",
    "VersionConflictError",
]


class StorageError(Exception):
    """Base of every error the storage layer raises."""


class GameNotFoundError(StorageError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class VersionConflictError(StorageError):
    """Another writer changed the game since the caller read it; nothing was written."""

    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id}: expected version {expected}, found {actual}")
        self.game_id = game_id
        self.expected = expected  # the version the caller had
        self.actual = actual  # the version in the store


class ChannelBusyError(StorageError):
    """The channel already has a pending or active game."""

    def __init__(self, channel_id: int, game_id: int | None = None) -> None:
        super().__init__(f"channel {channel_id} already has open game {game_id}")
        self.channel_id = channel_id
        self.game_id = game_id  # the open game, when known


class InvalidStatusError(StorageError):
    """The operation does not apply to a game in this status (e.g. a move in a finished game)."""

    def __init__(self, game_id: int, status: GameStatus) -> None:
        super().__init__(f"game {game_id} is {status}")
        self.game_id = game_id
        self.status = status


class MoveOrderError(StorageError, ValueError):
    """A move of the wrong colour for its ply, or a takeback of more moves than exist."""

    def __init__(self, game_id: int, ply: int, detail: str) -> None:
        super().__init__(f"game {game_id} at ply {ply}: {detail}")
        self.game_id = game_id
        self.ply = ply  # the game's ply when the call was made
        self.detail = detail  # "colour" or "takeback"


class TournamentNotFoundError(StorageError):
    """No tournament has this id (or, when ``user_id`` or ``board`` is given, it has no such
    entrant or board)."""

    def __init__(
        self,
        tournament_id: int,
        *,
        user_id: int | None = None,
        round: int | None = None,
        board: int | None = None,
    ) -> None:
        what = f"tournament {tournament_id}"
        if user_id is not None:
            what += f" entrant {user_id}"
        if board is not None:
            what += f" round {round} board {board}"
        super().__init__(f"no {what}")
        self.tournament_id = tournament_id
        self.user_id = user_id  # the entrant looked for, if one
        self.round = round  # the round of the board looked for, if one
        self.board = board  # the board looked for, if one


class TournamentStatusError(StorageError):
    """The tournament's status does not allow the write (e.g. starting one already running)."""

    def __init__(self, tournament_id: int, status: TournamentStatus) -> None:
        super().__init__(f"tournament {tournament_id} is {status}")
        self.tournament_id = tournament_id
        self.status = status  # the status it has


class RoundPairedError(StorageError):
    """The round was stored already (or is not the next one): a round is paired once."""

    def __init__(self, tournament_id: int, round: int) -> None:
        super().__init__(f"tournament {tournament_id} round {round} is paired already")
        self.tournament_id = tournament_id
        self.round = round  # the round refused


class DatabaseRefusedError(StorageError):
    """The file cannot be used as our database; it was left untouched."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path  # the file, or a PostgreSQL database's address (no password)


class ForeignDatabaseError(DatabaseRefusedError):
    """The file is not a gomoku-bot database (another program's, or not SQLite at all)."""

    def __init__(self, path: Path | str, detail: str) -> None:
        super().__init__(path, f"not a gomoku-bot database ({detail})")
        self.detail = detail  # what gave it away


class DatabaseTooNewError(DatabaseRefusedError):
    """The database was written by a newer version of the bot than this one."""

    def __init__(self, path: Path | str, found: int, supported: int) -> None:
        super().__init__(path, f"schema version {found} is newer than {supported}")
        self.found = found  # the file's schema version
        self.supported = supported  # the newest this code knows


class CorruptDatabaseError(DatabaseRefusedError):
    """The file is a SQLite database, ours or not, whose pages are damaged (truncated,
    overwritten); running on it would spread the damage."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, f"damaged ({detail})")
        self.detail = detail  # SQLite's first complaint


class ReadOnlyDatabaseError(DatabaseRefusedError):
    """The file, its folder or its filesystem cannot be written (or the folder is missing)."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, f"cannot be written ({detail})")
        self.detail = detail  # what refused: the file, the folder, SQLite


class DiskFullError(DatabaseRefusedError):
    """No room to write: the disk (or the database's size limit) is full."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(path, f"no room to write ({detail})")
        self.detail = detail


class DatabaseLockedError(DatabaseRefusedError):
    """Another process held the database locked for the whole time we waited."""

    def __init__(self, path: Path, waited_s: float) -> None:
        super().__init__(path, f"locked by another process for {waited_s:.0f} s")
        self.waited_s = waited_s  # how long we retried
