"""The one table of words players see when something is refused.

``user_message(error)`` turns an engine, service, AI or storage error, or a refusal of
discord.py's command framework (cooldown, missing permissions, no DMs), into a short sentence
for the player (Discord replies privately with it; the terminal prints it). Errors carry data,
never prose; this module is the only place that phrases them. Text the user typed is never
echoed raw: ``quote`` strips what could format, mention or break out of a code span.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Final

from bot.ai import AIError, AIUnavailableError
from bot.opening_words import error_message as opening_message
from bot.puzzles import NoPuzzleError
from bot.review import NoGameToReviewError, NotReviewableError, ReviewUnavailableError
from bot.service import (
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
    RematchError,
    SelfChallengeError,
    StalePanelError,
    UndoPendingError,
    UnknownButtonError,
)
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
from engine.types import Point
from storage.repository import (
    ChannelBusyError,
    CorruptDatabaseError,
    DatabaseLockedError,
    DatabaseRefusedError,
    DatabaseTooNewError,
    DiskFullError,
    ForeignDatabaseError,
    GameNotFoundError,
    GameStatus,
    InvalidStatusError,
    ReadOnlyDatabaseError,
    VersionConflictError,
)

__all__ = ["GENERIC_MESSAGE", "quote", "startup_message", "user_message"]

GENERIC_MESSAGE: Final = "Something went wrong on our side. The game is unchanged; try again."
_QUOTE_LIMIT: Final = 24

_FORBIDDEN_SHAPES: Final = {
    "overline": "an overline (six or more)",
    "double-four": "a four-four",
    "double-three": "a three-three",
}

_STATUS_WORDS: Final = {
    GameStatus.ACTIVE: "already under way (the challenge was accepted)",
    GameStatus.PENDING: "still waiting for the challenge to be accepted",
    GameStatus.FINISHED: "already over",
    GameStatus.DECLINED: "a declined challenge",
    GameStatus.CANCELLED: "a withdrawn challenge",
    GameStatus.EXPIRED: "an expired challenge",
}

_OPTION_NAMES: Final = {
    "size": "board size",
    "rule": "rule",
    "level": "level",
    "colour": "colour",
    "column": "column",
    "turn_time": "turn time (seconds)",
    "board_style": "board style",
    "opening": "opening rule",
    "idle_human": "idle time between people (seconds)",
    "idle_ai": "idle time against the AI (seconds)",
    "game": "game",
    "board_view": "board view",
}


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
    return f"`{kept}`" if kept else "that"


def _point(point: Point) -> str:
    return f"**{point}**" if 0 <= point.x < 20 and point.y >= 0 else "That point"


def _workers_unreachable(error: BaseException) -> bool:
    """An AI failure because its queue is down (said apart: waiting helps, retrying now not)."""
    return isinstance(error, AIUnavailableError) or isinstance(error.__cause__, AIUnavailableError)


def user_message(error: BaseException) -> str | None:
    """The sentence to show the player for ``error``, or None when it is not the player's
    doing (the caller logs it and sends ``GENERIC_MESSAGE``)."""
    match error:
        # ---- the move itself
        case InvalidPointError(text=text):
            return f"{quote(text)} is not a point. Type a column letter and a row number, like h8."
        case OccupiedPointError(point=point):
            return f"{_point(point)} is already taken."
        case OffBoardError():
            return "That point is off the board."
        case ColumnFullError(column=column):
            return f"Column {column + 1} is full."
        case FloatingStoneError(landing=landing):
            return f"Stones drop to the bottom here: name the column, like /place {landing.x + 1}."
        case NotationError(game=game, width=width) if game.has_gravity:
            return f"Columns are numbered here: type one from 1 to {width}, like /place 4."
        case NotationError():
            return "A move needs a column letter and a row number, like /place h8."
        case StalePanelError():
            return (
                "The game has moved on since this panel was drawn, so that tap was not played. "
                "Press Move on the board for a fresh panel."
            )
        case RematchError():
            return "Only a finished game can be played again."
        case ForbiddenMoveError(point=point, reason=reason):
            shape = _FORBIDDEN_SHAPES.get(reason, reason)
            return f"{_point(point)} is forbidden for Black under renju: it would make {shape}."
        case GameOverError():
            return "This game is already over."
        case NothingToUndoError() | NoMoveToUndoError():
            return "You have no move to take back."
        case UnsupportedBoardError():
            return "That board is not offered."
        case InvalidRecordError():
            return "That game record could not be read."
        case OpeningError():
            return opening_message(error)
        # ---- whose game, whose turn
        case NoActiveGameError():
            return "There is no game in this channel. Start one with /gomoku start."
        case NoSuchGameError():
            return "That game no longer exists."
        case GameExistsError() | ChannelBusyError():
            return "This channel already has a game. Finish it (or resign) first."
        case GameNotActiveError(status=status) | InvalidStatusError(status=status):
            return f"That game is {_STATUS_WORDS.get(status, 'not being played')}."
        case OtherChannelError():
            return "That button belongs to a game in another channel."
        case UnknownButtonError():
            return "That button no longer works. Use /gomoku board for a fresh board."
        case NotAPlayerError():
            return "You are not playing in this game."
        case NotReplaceableError():
            return "Only your own game against the AI can be replaced."
        case NotYourTurnError():
            return "It's not your turn."
        case AIThinkingError():
            return "The AI is still thinking. Wait for its move."
        case OutOfTimeError():
            return "Your time for this move had run out, so you lost the game on time."
        # ---- challenges
        case ChallengeExpiredError():
            return "That challenge has expired. Start a new one with /gomoku start."
        case NotChallengedError():
            return "Only the challenged player can answer this challenge."
        case SelfChallengeError():
            return "You can't challenge yourself. Leave out the opponent to play the AI."
        case ChannelNotAllowedError():
            return "Games are not allowed in this channel. Ask an admin where to play."
        case InvalidOptionError(option=option, allowed=allowed):
            name = _OPTION_NAMES.get(option, "option")
            return f"That {name} is not available" + (f" (choose {allowed})." if allowed else ".")
        # ---- help and takebacks
        case HintNotAllowedError():
            return "Hints are off in rated games."
        case UndoPendingError():
            return "Your undo request is still waiting for your opponent."
        case NoUndoRequestError():
            return "There is no undo request to answer (the game has moved on)."
        case NoPuzzleError():
            return "You have no puzzle going: /gomoku puzzle gives you one."
        case NoGameToReviewError():
            return "You have no finished game here to review. Name one: /gomoku review game:12"
        case NotReviewableError(game_id=game_id):
            return f"Game {game_id} cannot be reviewed: only finished Gomoku games with moves can."
        # ---- our side
        case AIFailedError() | AIError() if _workers_unreachable(error):
            return "The AI's workers can't be reached right now. Nothing changed; try again soon."
        case ReviewUnavailableError():
            return "Reviews need the engine, and this bot runs without it."
        case AIFailedError() | AIError():
            return "The AI could not move just now. Nothing changed; try again."
        case VersionConflictError():
            return "The game changed at that same moment. Look at the board and try again."
        case GameNotFoundError():
            return "That game no longer exists."
    if type(error).__module__.startswith(("discord.", "bot.reporting")):
        return _discord_message(error)
    return None


def _permission_names(names: Iterable[str]) -> str:
    return ", ".join(name.replace("_", " ").title().replace("Guild", "Server") for name in names)


def _discord_message(error: BaseException) -> str | None:
    # Refusals of discord.py's command framework rather than of the game. Imported here, not
    # at the top: the terminal front-end uses this table too and never loads discord.py.
    from discord import app_commands

    from bot.reporting import MalformedOptionsError

    match error:
        case MalformedOptionsError():
            return "That command came with options it does not take. Pick it from the menu."
        case app_commands.CommandOnCooldown(retry_after=retry_after):
            return f"Slow down: you can use a command again in {max(1, round(retry_after))} s."
        case app_commands.BotMissingPermissions(missing_permissions=missing):
            names = _permission_names(missing)
            return f"I need the {names} permission in this channel to host a game here."
        case app_commands.MissingPermissions(missing_permissions=missing):
            return f"You need the {_permission_names(missing)} permission for that."
        case app_commands.NoPrivateMessage():
            return "That only works in a server channel."
    return None


def startup_message(error: DatabaseRefusedError) -> str:
    """One line for the operator when the database cannot be used at start (stderr).

    Each fault names itself and what to do; only a file that is not ours is called that, so
    nobody is invited to delete a database that is merely locked, full or damaged.
    """
    path = error.path
    match error:
        case ForeignDatabaseError(detail=detail):
            return (
                f"{path} is not a gomoku-bot database ({detail}). It was left untouched; "
                "point GOMOKU_DB_PATH at another file."
            )
        case DatabaseTooNewError(found=found, supported=supported):
            return (
                f"{path} was written by a newer gomoku-bot (schema {found}, this one knows "
                f"{supported}). Upgrade the bot; the file was left untouched."
            )
        case CorruptDatabaseError(detail=detail):
            return (
                f"{path} is damaged ({detail}); refusing to run on it. Stop every process using "
                f"it, keep a copy, then restore a backup or salvage it with "
                f'sqlite3 {path} ".recover" | sqlite3 recovered.sqlite3'
            )
        case ReadOnlyDatabaseError(detail=detail):
            return (
                f"{path} cannot be written ({detail}). Check the permissions of the file and "
                "its folder, and that the filesystem is not mounted read-only."
            )
        case DiskFullError(detail=detail):
            return f"No room to write {path} ({detail}). Free some disk space and start again."
        case DatabaseLockedError(waited_s=waited):
            return (
                f"{path} stayed locked by another process for {waited:.0f} s. Is another bot or "
                "a sqlite3 shell using it? Stop it and start again."
            )
    return f"{path} cannot be used: {error}."
