"""Words of the web board: its Discord buttons and links, and what the page itself says.

The page gets its words from the server in the language of the pass (``page_words``), so the
catalogues stay the one place words live; the page holds none of its own.
"""

from __future__ import annotations

from bot.text import i18n, words
from bot.text.i18n import _, ngettext
from engine.types import Color

__all__ = [
    "activity_label",
    "board_link",
    "open_board_label",
    "page_words",
    "standings_link_label",
    "standings_words",
]


def open_board_label() -> str:
    """The button on a board message that hands out a link to the web board."""
    return _("Open board")


def activity_label() -> str:
    """The button that opens the board inside Discord (an Activity)."""
    return _("Play in Discord")


def board_link(*, player: bool, hours: int) -> str:
    """The private answer that carries the link."""
    if player:
        return ngettext(
            "Your board: only you can see this link, and it works for {hours} hour.",
            "Your board: only you can see this link, and it works for {hours} hours.",
            hours,
        ).format(hours=hours)
    return ngettext(
        "A board to watch (read-only); the link works for {hours} hour.",
        "A board to watch (read-only); the link works for {hours} hours.",
        hours,
    ).format(hours=hours)


_page_words: dict[str, dict[str, str]] = {}  # by language


def page_words() -> dict[str, str]:
    """Everything the board page shows in words, by key, in the current language. Built once
    a language (every state a page is sent carries them, and the catalogues do not change
    while the bot runs): read it, never change it."""
    language = i18n.current()
    found = _page_words.get(language)
    if found is None:
        found = _page_words[language] = _all_page_words()
    return found


def _all_page_words() -> dict[str, str]:
    return {
        "confirm": _("Tap again to place."),
        "watching": _("Watching: read-only."),
        "reconnecting": _("Reconnecting…"),
        "expired": _("This link has expired: press Open board again."),
        "invalid": _("This link is not valid: press Open board again for a new one."),
        "replay": _("Move {number} of {total}"),
        "slow_down": _("Slow down: one move at a time."),
        # who is who, and whose turn it is
        "you_play": _("You play {colour}."),
        "you_name": _("{name} (you)"),
        "your_turn": _("Your turn."),
        "to_move": _("{name} to move."),
        "thinking": _("{name} is thinking…"),
        "not_your_turn": _("Not your turn yet: {name} to move."),
        # the board, the moves and what a screen reader reads out
        "board": _("Board: arrow keys move, Enter places a stone."),
        "whole_board": _("Whole board"),
        "players": _("Players"),
        "moves": _("Moves"),
        "no_moves": _("No moves yet."),
        "played": _("{colour} played {point}."),
        "point": _("{point}, {what}."),
        "empty": _("empty"),
        "around": _("Around: {stones}."),
        "nothing_around": _("Nothing around."),
        "replay_nav": _("Replay"),
        "first": _("First move"),
        "back": _("Previous move"),
        "next": _("Next move"),
        "last": _("Last move"),
        # the page's choices besides moves
        "resign": _("Resign"),
        "resign_confirm": _("Resign this game? Your opponent wins."),
        "undo": _("Take back"),
        "undo_asked": _("{name} asks to take back their last move."),
        "undo_waiting": _("Waiting for {name} to agree."),
        "allow": words.undo_answer_label(accept=True),
        "refuse": words.undo_answer_label(accept=False),
        "undo_refused": words.undo_answered(allowed=False),
        "undo_allowed": words.undo_answered(allowed=True),
        "undo_withdrawn": _("Request withdrawn."),
        "undo_refused_by": _("{name} refused the takeback."),
        "undo_allowed_by": _("{name} allowed the takeback."),
        "undo_withdrawn_by": _("{name} withdrew the takeback request."),
        "rematch": words.rematch_label(),
        "play_again": words.play_again_label(),
        "play_ai": _("Play the AI"),
        "hint": _("Hint"),
        "hint_reply": _("The AI suggests {point}."),
        "time_left": _("{time} left"),
    }


def standings_link_label() -> str:
    """The link button under the standings posted in a tournament's channel."""
    return _("Standings on the web")


def standings_words() -> dict[str, str]:
    """Everything the tournament standings page shows in words, by key."""
    return {
        "title": _("{name}: standings"),
        "format": _("Format: {format}"),
        "round": _("Round {round} of {rounds}"),
        "round_open": _("Round {round}"),
        "ends": _("Ends {time}"),
        "not_started": _("Not started yet."),
        "finished": _("Finished."),
        "cancelled": _("Cancelled."),
        "standings": _("Standings"),
        "rank": _("Rank"),
        "player": _("Player"),
        "points": _("Points"),
        "played": _("Played"),
        "pairings": _("Pairings of round {round}"),
        "games": _("Games in play"),
        "game": _("Game"),
        "watch_arena_game": _("Watch game {number}"),
        "board": _("Board"),
        "black": words.colour_name(Color.BLACK),
        "white": words.colour_name(Color.WHITE),
        "result": _("Result"),
        "watch_game": _("Watch board {board}"),
        "in_play": _("in play"),
        "bye": _("bye"),
        "no_players": _("No players yet."),
        "nobody": _("Player {number}"),
        "tiebreaks": _(
            "Tiebreaks: BH = Buchholz, BH-C1 = Buchholz cut 1, SB = Sonneborn-Berger, "
            "DE = direct encounter, Wins = games won."
        ),
        "invalid": _("This link is not valid or has expired: use the newest standings link."),
        "unknown": _("No such tournament."),
    }
