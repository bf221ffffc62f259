"""A tournament's records, as the club's modules name them.

They are defined in ``storage.club``, because the repository stores and returns them; the
club's pairing and standings code reads them from here.
"""

from storage.club import (
    Entrant,
    EntrantStatus,
    Format,
    NewTournament,
    Pairing,
    Result,
    Round,
    RoundStatus,
    Tournament,
    TournamentStatus,
)

__all__ = [
    "Entrant",
    "EntrantStatus",
    "Format",
    "NewTournament",
    "Pairing",
    "Result",
    "Round",
    "RoundStatus",
    "Tournament",
    "TournamentStatus",
]
