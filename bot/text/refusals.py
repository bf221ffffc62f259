"""The one table of words players see when something is refused.

``user_message(error)`` turns an engine, service, AI or storage error into a short sentence
for the player in the current language (``bot.text.i18n``; Discord replies privately with it,
the terminal prints it). Errors carry data,
never prose; this module is the only place that phrases them. Text the user typed is never
echoed raw: ``quote`` strips what could format, mention or break out of a code span.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from bot.core.admission import StartsBusyError
from bot.core.ai import AIError, AIUnavailableError
from bot.core.club.errors import (
    AlreadyEnteredError,
    AlreadyPlayingError,
    AlreadyQueuedError,
    EntriesClosedError,
    NotQueuedError,
    OutsideRatingError,
    OwnOpenChallengeError,
    RoundUnderWayError,
    StartTimeError,
    TournamentFullError,
)
from bot.core.puzzles import NoPuzzleError
from bot.core.review import NoGameToReviewError, NotReviewableError, ReviewUnavailableError
from bot.core.service.errors import (
    AIFailedError,
    AIThinkingError,
    ChallengeExpiredError,
    ChannelNotAllowedError,
    GameExistsError,
    GameNotActiveError,
    HintNotAllowedError,
    InvalidOptionError,
    NoActiveGameError,
    NoMoveToUndoError,
    NoSuchGameError,
    NotAPlayerError,
    NotationError,
    NotChallengedError,
    NotReplaceableError,
    NotYourTurnError,
    NoUndoRequestError,
    OtherChannelError,
    OutOfTimeError,
    OwnUndoRequestError,
    RematchError,
    SelfChallengeError,
    StalePanelError,
    UndoPendingError,
    UnknownButtonError,
)
from bot.text.i18n import N_, _, number
from bot.text.opening_words import error_message as opening_message
from bot.text.words import command
from engine.errors import (
    ColumnFullError,
    FloatingStoneError,
    ForbiddenMoveError,
    GameOverError,
    InvalidPointError,
    InvalidRecordError,
    NothingToUndoError,
    OccupiedPointError,
    OffBoardError,
    OpeningError,
    UnsupportedBoardError,
)
from engine.games import game_spec
from engine.types import Point
from storage import errors as store
from storage.errors import (
    ChannelBusyError,
    GameNotFoundError,
    InvalidStatusError,
    VersionConflictError,
)
from storage.records import GameStatus

__all__ = ["game_in_thread", "generic_message", "quote", "startup_message", "user_message"]

# What bot.core.service gives as ``InvalidOptionError.allowed`` besides lists of values: marked
# here for the catalogues, translated where the refusal is phrased.
_ALLOWED_WORDS: Final = (N_("Gomoku only"), N_("the renju rule on 15x15"))

_QUOTE_LIMIT: Final = 24

_FORBIDDEN_SHAPES: Final = {
    "overline": N_("an overline (six or more)"),
    "double-four": N_("a four-four"),
    "double-three": N_("a three-three"),
}

_STATUS_WORDS: Final = {
    GameStatus.ACTIVE: N_("That game is already under way (the challenge was accepted)."),
    GameStatus.PENDING: N_("That game is still waiting for the challenge to be accepted."),
    GameStatus.FINISHED: N_("That game is already over."),
    GameStatus.DECLINED: N_("That game is a declined challenge."),
    GameStatus.CANCELLED: N_("That game is a withdrawn challenge."),
    GameStatus.EXPIRED: N_("That game is an expired challenge."),
}

_OPTION_NAMES: Final = {
    "size": N_("That board size is not available"),
    "rule": N_("That rule is not available"),
    "level": N_("That level is not available"),
    "colour": N_("That colour is not available"),
    "column": N_("That column is not available"),
    "turn_time": N_("That turn time (seconds) is not available"),
    "turn_minutes": N_("That turn time (minutes) is not available"),
    "look": N_("That look is not available"),
    "opening": N_("That opening rule is not available"),
    "idle_human": N_("That idle time between people (seconds) is not available"),
    "idle_ai": N_("That idle time against the AI (seconds) is not available"),
    "idle_human_hours": N_("That idle time between people (hours) is not available"),
    "idle_ai_hours": N_("That idle time against the AI (hours) is not available"),
    "game": N_("That game is not available"),
    "language": N_("That language is not available"),
    "format": N_("That tournament format is not available"),
    "rounds": N_("That number of rounds is not available"),
    "tournament": N_("Those tournament settings are not available"),
}


def generic_message() -> str:
    """What a player reads when something failed that is not their doing."""
    return _("Something went wrong on our side. The game is unchanged; try again.")


def game_in_thread(thread_id: int) -> str:
    """A player's command in the channel their game's thread hangs off: where to play."""
    return _("Your game is in its thread, <#{thread}>: play it there.").format(thread=thread_id)


def quote(text: str) -> str:
    """User text made safe to show: printable characters only, no backticks, short, in a
    code span (so mentions, links and markdown stay inert)."""
    kept = "".join(
        ch
        for ch in text
        if (ch != "`" and unicodedata.category(ch)[0] not in ("C", "Z")) or ch == " "
    ).strip()
    if len(kept) > _QUOTE_LIMIT:
        kept = kept[: _QUOTE_LIMIT - 1] + "…"
    return f"`{kept}`" if kept else _("that")


def _point(point: Point) -> str:
    return f"**{point}**" if 0 <= point.x < 20 and point.y >= 0 else _("That point")


def _workers_unreachable(error: BaseException) -> bool:
    """An AI failure because its queue is down (said apart: waiting helps, retrying now not)."""
    return isinstance(error, AIUnavailableError) or isinstance(error.__cause__, AIUnavailableError)


def user_message(error: BaseException) -> str | None:
    """The sentence to show the player for ``error``, in the current language, or None when
    it is not the player's doing (the caller logs it and sends ``generic_message()``)."""
    match error:
        # ---- the move itself
        case InvalidPointError(text=text):
            return _(
                "{text} is not a point. Type a column letter and a row number, like h8."
            ).format(text=quote(text))
        case OccupiedPointError(point=point):
            return _("{point} is already taken.").format(point=_point(point))
        case OffBoardError():
            return _("That point is off the board.")
        case ColumnFullError(column=column):
            return _("Column {column} is full.").format(column=column + 1)
        case FloatingStoneError(landing=landing):
            return _(
                "Stones drop to the bottom here: name the column, like {place} `{column}`."
            ).format(column=landing.x + 1, place=command("place"))
        case NotationError(game=game, width=width) if game_spec(game).column_notation:
            return _(
                "Columns are numbered here: type one from 1 to {width}, like {place} `4`."
            ).format(width=width, place=command("place"))
        case NotationError():
            return _("A move needs a column letter and a row number, like {place} `h8`.").format(
                place=command("place")
            )
        case StalePanelError():
            return _(
                "The game has moved on since this panel was drawn, so that tap was not played. "
                "Press Move on the board for a fresh panel."
            )
        case RematchError():
            return _("Only a finished game can be played again.")
        case ForbiddenMoveError(point=point, reason=reason):
            shape = _(_FORBIDDEN_SHAPES[reason]) if reason in _FORBIDDEN_SHAPES else reason
            return _("{point} is forbidden for Black under renju: it would make {shape}.").format(
                point=_point(point), shape=shape
            )
        case GameOverError():
            return _("This game is already over.")
        case NothingToUndoError() | NoMoveToUndoError():
            return _("You have no move to take back.")
        case UnsupportedBoardError():
            return _("That board is not offered.")
        case InvalidRecordError():
            return _("That game record could not be read.")
        case OpeningError():
            return opening_message(error)
        # ---- whose game, whose turn
        case NoActiveGameError():
            return _("There is no game in this channel. Start one with {start}.").format(
                start=command("gomoku start")
            )
        case NoSuchGameError():
            return _("That game no longer exists.")
        case StartsBusyError():
            return _("Many games are starting right now. Try again in a few seconds.")
        case GameExistsError() | ChannelBusyError():
            return _("This channel already has a game. Finish it (or resign) first.")
        case GameNotActiveError(status=status) | InvalidStatusError(status=status):
            if status in _STATUS_WORDS:
                return _(_STATUS_WORDS[status])
            return _("That game is not being played.")
        case OtherChannelError():
            return _("That button belongs to a game in another channel.")
        case UnknownButtonError():
            return _("That button no longer works. Use {board} for a fresh board.").format(
                board=command("gomoku board")
            )
        case OwnUndoRequestError():
            return _(
                "You asked for this undo, so your opponent decides. Press Refuse to withdraw it."
            )
        case NotAPlayerError():
            return _("You are not playing in this game.")
        case NotReplaceableError():
            return _("Only your own game against the AI can be replaced.")
        case NotYourTurnError():
            return _("It's not your turn.")
        case AIThinkingError():
            return _("The AI is still thinking. Wait for its move.")
        case OutOfTimeError():
            return _("Your time for this move had run out, so you lost the game on time.")
        # ---- challenges
        case ChallengeExpiredError():
            return _("That challenge has expired. Start a new one with {start}.").format(
                start=command("gomoku start")
            )
        case NotChallengedError():
            return _("Only the challenged player can answer this challenge.")
        case SelfChallengeError():
            return _("You can't challenge yourself. Leave out the opponent to play the AI.")
        case ChannelNotAllowedError():
            return _("Games are not allowed in this channel. Ask an admin where to play.")
        # ---- the pairing queue and tournaments
        case AlreadyQueuedError():
            return _("You are in the queue already. Leave it with {queue} `leave:True`.").format(
                queue=command("gomoku queue")
            )
        case NotQueuedError():
            return _("You are not in the queue.")
        case AlreadyPlayingError():
            return _("You are playing a game already: finish it before you queue for another.")
        case AlreadyEnteredError():
            return _("You are in this tournament already.")
        case TournamentFullError(cap=cap):
            return _("This tournament is full ({count} players).").format(count=number(cap))
        case EntriesClosedError():
            return _("This tournament takes no more entries.")
        case OutsideRatingError(low=low, high=high):
            return _("This open challenge is for players rated {low} to {high}.").format(
                low=number(low), high=number(high)
            )
        case OwnOpenChallengeError():
            return _(
                "This is your own open challenge: wait for someone to accept it, or cancel it."
            )
        case RoundUnderWayError():
            return _("A game of this round has no result yet.")
        case store.TournamentNotFoundError(user_id=user_id) if user_id is not None:
            return _("You are not in this tournament.")
        case store.TournamentNotFoundError(board=board) if board is not None:
            return _("That tournament has no such board.")
        case store.TournamentNotFoundError():
            return _("There is no such tournament here.")
        case store.TournamentStatusError():
            return _("That tournament has started or is over already.")
        case InvalidOptionError(option="entrants"):
            return _("A tournament needs at least two players to start.")
        case InvalidOptionError(option="arena_minutes"):
            return _("Minutes are an arena's length: the other formats play rounds.")
        case InvalidOptionError(option="seconds_and_days"):
            return _("Give the time per move in seconds or in days, not both.")
        case StartTimeError(reason=StartTimeError.Reason.PASSED):
            return _("That start time has passed: give one still to come.")
        case StartTimeError(reason=StartTimeError.Reason.TOO_FAR):
            return _("A tournament starts within a year: give an earlier start time.")
        case StartTimeError():
            return _(
                "Give the start time in UTC, like 2026-05-01 18:00, or as a Discord "
                "timestamp, like <t:1777658400>."
            )
        case InvalidOptionError(option=option, allowed=allowed):
            refused = (
                _(_OPTION_NAMES[option])
                if option in _OPTION_NAMES
                else _("That option is not available")
            )
            if allowed:
                # ``allowed`` is a list of values, or a few words marked in bot.service
                return _("{refused} (choose {allowed}).").format(
                    refused=refused, allowed=_(str(allowed))
                )
            return _("{refused}.").format(refused=refused)
        # ---- help and takebacks
        case HintNotAllowedError():
            return _("Hints are off in rated games.")
        case UndoPendingError():
            return _("Your undo request is still waiting for your opponent.")
        case NoUndoRequestError():
            return _("There is no undo request to answer (the game has moved on).")
        case NoPuzzleError():
            return _("You have no puzzle going: {puzzle} gives you one.").format(
                puzzle=command("gomoku puzzle play")
            )
        case NoGameToReviewError():
            return _(
                "You have no finished game here to review. Name one: {review} `game:12`"
            ).format(review=command("gomoku review"))
        case NotReviewableError(game_id=game_id):
            return _(
                "Game {game_id} cannot be reviewed: only finished Gomoku games with moves can."
            ).format(game_id=game_id)
        # ---- our side
        case AIFailedError() | AIError() if _workers_unreachable(error):
            return _(
                "The AI's workers can't be reached right now. Nothing changed; try again soon."
            )
        case ReviewUnavailableError():
            return _("Reviews need the engine, and this bot runs without it.")
        case AIFailedError() | AIError():
            return _("The AI could not move just now. Nothing changed; try again.")
        case VersionConflictError():
            return _("The game changed at that same moment. Look at the board and try again.")
        case GameNotFoundError():
            return _("That game no longer exists.")
    return None


def startup_message(error: store.DatabaseRefusedError) -> str:
    """One line for the operator when the database cannot be used at start (stderr).

    Each fault names itself and what to do; only a file that is not ours is called that, so
    nobody is invited to delete a database that is merely locked, full or damaged.
    """
    path = error.path
    match error:
        case store.ForeignDatabaseError(detail=detail):
            return (
                f"{path} is not a gomoku-bot database ({detail}). It was left untouched; "
                "point GOMOKU_DB_PATH at another file."
            )
        case store.DatabaseTooNewError(found=found, supported=supported):
            return (
                f"{path} was written by a newer gomoku-bot (schema {found}, this one knows "
                f"{supported}). Upgrade the bot; the file was left untouched."
            )
        case store.CorruptDatabaseError(detail=detail):
            return (
                f"{path} is damaged ({detail}); refusing to run on it. Stop every process using "
                f"it, keep a copy, then restore a backup or salvage it with "
                f'sqlite3 {path} ".recover" | sqlite3 recovered.sqlite3'
            )
        case store.ReadOnlyDatabaseError(detail=detail):
            return (
                f"{path} cannot be written ({detail}). Check the permissions of the file and "
                "its folder, and that the filesystem is not mounted read-only."
            )
        case store.DiskFullError(detail=detail):
            return f"No room to write {path} ({detail}). Free some disk space and start again."
        case store.DatabaseLockedError(waited_s=waited):
            return (
                f"{path} stayed locked by another process for {waited:.0f} s. Is another bot or "
                "a sqlite3 shell using it? Stop it and start again."
            )
    return f"{path} cannot be used: {error}."
