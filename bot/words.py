"""Words players read outside refusals: help, the welcome, level and rule descriptions,
history, replay, stats, moderation and privacy lines, and the phone-play surfaces (the tap
panel, turn pings, rematches, views). Refusals live in ``bot.errors``.

Kept in one module, free of discord.py, so a later translation touches one place. Functions
take what varies (names, counts, command mentions) and return finished sentences.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Final

from engine.types import Color, Game, Level, Rule

__all__ = [
    "COLOUR_CHOICES",
    "GAME_CHOICES",
    "LEVEL_CHOICES",
    "LEVEL_WORDS",
    "MOVE_LABEL",
    "NO_GAME_TO_SHOW",
    "PLAY_AGAIN_LABEL",
    "REMATCH_LABEL",
    "RESTARTED",
    "RULE_CHOICES",
    "RULE_WORDS",
    "VIEW_NAMES",
    "colour_name",
    "duration",
    "end_reason_words",
    "help_sections",
    "panel_after_move",
    "panel_heading",
    "panel_window_line",
    "turn_ping",
    "view_saved",
    "welcome_text",
    "window_line",
]

Mention = Callable[[str], str]  # "gomoku start" -> "</gomoku start:123>" (or "/gomoku start")

# Levels by what was measured (README, "The engine": 128 games a step, 76-78% against the
# level below, about +200 Elo; master against expert 84% over 64 games).
LEVEL_WORDS: Final = {
    Level.BEGINNER: "overlooks your threats half the time: for learning the game",
    Level.EASY: "sees fours, often misses an open three; beats beginner 3 games in 4",
    Level.MEDIUM: "the default: solid tactics, the odd slip; beats easy 3 games in 4",
    Level.HARD: "threat search at the root; beats medium 3 games in 4",
    Level.EXPERT: "strong; beats hard 3 games in 4",
    # Wine 2.1, 128 games at 500 ms a move: 58/2/68, with the hand-set evaluation (README)
    Level.MASTER: "full strength, up to 3 s a move; beats expert 5 games in 6, and at half a "
    "second a move scores 46% against the Gomocup engine Wine 2.1",
}

RULE_WORDS: Final = {
    Rule.FREESTYLE: "five or more in a row wins",
    Rule.STANDARD: "exactly five wins; six or more does not",
    Rule.RENJU: "Black may not make 3-3, 4-4 or six in a row (marked on the board); fairer",
    Rule.CARO: "a five blocked at both ends by the opponent does not win",
}

# Option choices as shown in the command picker (Discord allows 100 characters).
LEVEL_CHOICES: Final = {
    Level.BEGINNER: "Beginner: misses threats, for learning",
    Level.EASY: "Easy: beats beginner 3 games in 4",
    Level.MEDIUM: "Medium (default): beats easy 3 games in 4",
    Level.HARD: "Hard: beats medium 3 games in 4",
    Level.EXPERT: "Expert: beats hard 3 games in 4",
    Level.MASTER: "Master: full strength, up to 3 s a move",
}
RULE_CHOICES: Final = {
    Rule.FREESTYLE: "Freestyle: five or more in a row wins",
    Rule.STANDARD: "Standard: exactly five wins",
    Rule.RENJU: "Renju: Black may not make 3-3, 4-4 or overlines",
    Rule.CARO: "Caro: a five blocked at both ends does not win",
}
COLOUR_CHOICES: Final = {
    "black": "Black: you move first",
    "white": "White: your opponent moves first",
    "random": "Random: a coin toss (default)",
}
GAME_CHOICES: Final = {
    Game.GOMOKU: "Gomoku (five in a row)",
    Game.TICTACTOE: "Tic-tac-toe",
    Game.CONNECT4: "Connect Four",
    Game.GRAVITY3: "Gravity three (4x4)",
}


def duration(span: timedelta) -> str:
    """``7 days``, ``1 day``, ``3 hours``, ``20 minutes``."""
    seconds = int(span.total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if (seconds >= size and seconds % size == 0) or seconds >= size * 2:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} seconds"


# ---------------------------------------------------------------- help and welcome


def help_sections(mention: Mention) -> list[tuple[str, str]]:
    """``/gomoku help``: (title, text) pairs, each within an embed field's 1024 characters."""
    play = "\n".join(
        [
            f"{mention('gomoku start')} play the AI, or name an opponent to challenge them",
            f"{mention('place')} `cell:H8` put a stone (autocomplete suggests points), or tap "
            f"**Move** on the board · {mention('gomoku view')} how you see boards",
            f"{mention('gomoku board')} show the board again · {mention('gomoku undo')} "
            f"take back · {mention('gomoku hint')} a suggestion · "
            f"{mention('gomoku resign')} give up",
        ]
    )
    look = "\n".join(
        [
            f"{mention('gomoku history')} your finished games · {mention('gomoku replay')} "
            f"step through one · {mention('gomoku export')} SGF, move list and animation",
            f"{mention('gomoku review')} where a game was won and lost, by the engine",
            f"{mention('gomoku puzzle')} find a forced win · {mention('gomoku solve')} "
            f"play it · {mention('gomoku puzzles')} the best solvers",
            f"{mention('gomoku stats')} records and ratings · "
            f"{mention('gomoku leaderboard')} the best players here",
            f"{mention('gomoku forget-me')} delete your data",
        ]
    )
    moderate = (
        f"{mention('gomoku end')} ends this channel's game without a result (Manage Messages "
        f"or the server's moderator role) · {mention('gomoku-admin settings')} server settings "
        f"· {mention('gomoku daily-puzzle')} a puzzle a day in a channel (Manage Server)"
    )
    levels = "\n".join(f"**{level.value}**: {LEVEL_WORDS[level]}" for level in Level)
    rules = "\n".join(f"**{rule.value}**: {RULE_WORDS[rule]}" for rule in Rule)
    return [
        ("Play", play),
        ("Look back", look),
        ("Moderators", moderate),
        ("AI levels (measured, each against the one below)", levels),
        ("Gomoku rules", rules),
    ]


HELP_TITLE: Final = "Gomoku: five in a row against the AI or each other"
HELP_FOOTER: Final = "Points are named like h8: column letter, row number from the bottom."


def welcome_text(mention: Mention) -> str:
    """The short note posted once when the bot joins a server."""
    return (
        "Hello! I host Gomoku (five in a row), tic-tac-toe and Connect Four. "
        f"Start a game against the AI with {mention('gomoku start')}, or name someone to "
        f"challenge them. {mention('gomoku help')} explains the rest."
    )


# ---------------------------------------------------------------- endings, threads


def end_reason_words(reason: str | None, ended_by: str | None) -> str:
    """Why a game has no result: ``ended by @mod``, ``no move for too long``, ``replaced``."""
    if reason == "moderator":
        return f"ended by {ended_by}" if ended_by else "ended by a moderator"
    if reason == "idle":
        return "no move for too long"
    if reason == "replaced":
        return "replaced by a new game"
    return ""


def ended_by_moderator(game_id: int) -> str:
    """The moderator's private confirmation."""
    return f"Game {game_id} ended without a result."


REPLACE_OFFER: Final = (
    "You already have a game against the AI in this channel. Replace it with a new one? "
    "The old game ends without a result."
)
REPLACE_BUTTON: Final = "Replace it"


def ai_name(level: str) -> str:
    """The AI as a player's name in files and thread titles: ``AI medium``."""
    return f"AI {level}"


NO_MOVES: Final = "(no moves)"  # an export of a game nobody moved in yet

SOMEONE: Final = "a former member"  # a member whose name could not be read
DELETED_USER: Final = "deleted user"  # the seat of a user who had their data deleted


def thread_name(black: str, white: str, game: str, game_id: int) -> str:
    """A game thread's name (Discord allows 100 characters)."""
    return f"{black} vs {white} · {game} #{game_id}"[:100]


def thread_started(players: str) -> str:
    """The parent channel's line when a game starts (its thread opens from this line)."""
    return f"{players}: a new game, in the thread below."


def thread_ended(players: str, result: str, thread_mention: str) -> str:
    """The parent channel's line when the game in a thread ends."""
    return f"{players}: {result} ({thread_mention})."


# ---------------------------------------------------------------- history, replay, stats

HISTORY_TITLE: Final = "Finished games"
HISTORY_EMPTY: Final = "No finished games yet."
OLDER: Final = "Older"
NEWER: Final = "Newer"


def result_word(*, won: bool | None, draw: bool) -> str:
    """A finished game from one player's side: ``won``, ``lost``, ``draw``, ``no result``."""
    if draw:
        return "draw"
    if won is None:
        return "no result"
    return "won" if won else "lost"


def history_footer(page: int) -> str:
    """Which page of the history this is."""
    return f"page {page + 1}"


def replay_footer(game_id: int, ply: int, total: int) -> str:
    """Where in the game the replay stands."""
    return f"game {game_id} · move {ply} of {total}"


STATS_TITLE: Final = "Stats"
STATS_EMPTY: Final = "has not finished a game yet."
RATING_TITLE: Final = "Ratings (games between people)"
VS_PEOPLE: Final = "vs people"


def record_line(wins: int, losses: int, draws: int, unfinished: int) -> str:
    """``3 wins, 1 loss, 0 draws`` (and unfinished games when there are any)."""

    def plural(count: int, word: str, words: str) -> str:
        return f"{count} {word if count == 1 else words}"

    text = f"{plural(wins, 'win', 'wins')}, {plural(losses, 'loss', 'losses')}"
    if draws:
        text += f", {plural(draws, 'draw', 'draws')}"
    if unfinished:
        text += f", {unfinished} without a result"
    return text


def rating_line(game: str, rating: int, games: int, streak: int, best: int) -> str:
    """``Gomoku: rating **1138** · 1 game · streak +1 (best 1)``."""
    return (
        f"{game}: rating **{rating}** · {games} game{'s' if games != 1 else ''} · "
        f"streak {streak:+d} (best {best})"
    )


def leaderboard_title(game: str) -> str:
    """The leaderboard's title."""
    return f"{game} leaderboard"


def leaderboard_empty(min_games: int) -> str:
    """Nobody qualifies yet."""
    return f"Nobody here has played {min_games} rated games of this yet."


def leaderboard_footer(min_games: int) -> str:
    """Who counts."""
    return f"Players with at least {min_games} rated games; games against the AI never count."


# ---------------------------------------------------------------- settings card

SETTING_THREADS: Final = "Game threads"
SETTING_MODERATOR: Final = "Moderator role"
SETTING_IDLE: Final = "Idle games end after"
SETTING_PINGS: Final = "Turn pings"
SETTING_AI_CLOCK: Final = "Clock in AI games"


def on_off(value: bool) -> str:
    """A switch's state."""
    return "on" if value else "off"


def moderator_role(role_mention: str | None) -> str:
    """Who may end games besides Manage Messages."""
    return role_mention or "Manage Messages only"


def idle_times(people: timedelta, ai: timedelta) -> str:
    """The idle times of a server."""
    return f"{duration(people)} between people, {duration(ai)} against the AI"


# ---------------------------------------------------------------- privacy

FORGET_CONFIRM: Final = (
    "Delete your data? Your ratings, statistics and pending requests go for good, and your "
    "open games end without a result. Finished games stay, with your seat shown as a "
    "deleted user, so your opponents keep their records. This cannot be undone."
)
FORGET_BUTTON: Final = "Delete my data"
FORGET_CANCEL: Final = "Keep it"
FORGET_KEPT: Final = "Nothing was deleted."


def forgotten(games: int) -> str:
    """After the deletion."""
    return (
        f"Done: your data is deleted. {games} game record{'s' if games != 1 else ''} "
        "stay without your name."
    )


# ---------------------------------------------------------------- phone play

MOVE_LABEL: Final = "Move"  # the public board's button that opens the tap panel
REMATCH_LABEL: Final = "Rematch"  # a finished game between people
PLAY_AGAIN_LABEL: Final = "Play again"  # a finished game against the AI
NO_GAME_TO_SHOW: Final = "There is no game in this channel to show."
RESTARTED: Final = "The bot restarted while the AI was thinking; here is the board now."

VIEW_NAMES: Final = {
    "full": "the whole board in emoji",
    "phone": "a phone-sized window around the action",
    "image": "a picture of the whole board",
}


def colour_name(color: Color) -> str:
    """``Black`` / ``White``."""
    return "Black" if color is Color.BLACK else "White"


def panel_heading(title: str, stone: str, color: Color) -> str:
    """The panel's first line."""
    return f"**{title}** · your move, {stone} {colour_name(color)}"


def panel_window_line(columns: str, rows: str) -> str:
    """What the buttons show, and how to use them."""
    return f"Buttons: columns {columns}, rows {rows}. Tap a point to play; arrows move the window."


def window_line(columns: str, rows: str, width: int, height: int) -> str:
    """Under a public board that shows only part of a large board."""
    return f"Showing columns {columns}, rows {rows} of {width}x{height} · /gomoku view for more"


def panel_after_move(point: str, waiting_for: str | None, over: bool) -> str:
    """The panel after its tap was played: the move, and who is to move now."""
    text = f"You played **{point}**."
    if over:
        return text + " The game is over; the board shows the result."
    if waiting_for is not None:
        return text + f" Now it is {waiting_for}'s move."
    return text


def turn_ping(user_id: int, game_name: str) -> str:
    """The short message that tells the player to move it is their turn."""
    return f"<@{user_id}>, your move in {game_name}."


def view_saved(view: str) -> str:
    """The answer to ``/gomoku view``."""
    return f"Your private boards now show {VIEW_NAMES.get(view, view)}. Here is the game:"


# ---------------------------------------------------------------- reviews (issue 12)


def review_title(game_id: int) -> str:
    """The review's heading."""
    return f"Review of game {game_id}"


def review_progress(game_id: int, done: int, total: int) -> str:
    """While the engine goes through the game."""
    return f"The engine is reviewing game {game_id}: position {done} of {total}…"


def review_waiting(game_id: int) -> str:
    """While another review has the engine."""
    return f"Game {game_id} is queued: the engine is reviewing another game first…"


_PROOFS: Final = {"vcf": "by fours (VCF)", "vct": "by threats (VCT)", "search": "by force"}


def proof_words(proof: str | None) -> str:
    """How a forced win goes: ``by fours (VCF)``."""
    return _PROOFS.get(proof or "", "by force")


def mark_line(ply: int, kind: str, colour: str, played: str, better: str, proof: str | None) -> str:
    """One marked move of a review (``kind``: blunder or missed_win)."""
    side = colour.capitalize()
    if kind == "missed_win":
        return (
            f"**{ply}. {played}** — missed win: {side} wins {proof_words(proof)} with **{better}**."
        )
    return (
        f"**{ply}. {played}** — blunder: the opponent now wins {proof_words(proof)}; "
        f"**{better}** held."
    )


def turning_point(ply: int, played: str) -> str:
    """The review's turning point."""
    return f"Turning point: move {ply} ({played})."


REVIEW_NO_MARKS: Final = "No blunders or missed wins found: a clean game at this depth."
REVIEW_UNFINISHED: Final = (
    "The engine ran out of time before the end of the game: the last moves are not reviewed."
)
REVIEW_GRAPH: Final = (
    "Graph: above the line Black is better, below White; the edges are forced wins. "
    "Red dots are blunders, orange missed wins, the blue line the turning point."
)
REVIEW_REPLAY: Final = "Replay the marks"


def review_step(side: str, verdict: str, proof: str | None, best: str) -> str:
    """The engine's view of the position a replay shows (``side`` is to move)."""
    who = side.capitalize()
    if verdict == "win":
        return f"{who} to move wins {proof_words(proof)}: **{best}**."
    if verdict == "loss":
        return f"{who} to move is lost; the most stubborn move is **{best}**."
    return f"{who} to move; the engine suggests **{best}**."


REVIEW_FIELD: Final = "Engine"


# ---------------------------------------------------------------- puzzles (issue 12)


def puzzle_title(origin: tuple[str, int, int], side: str, *, defend: bool = False) -> str:
    """A puzzle's heading (``origin``: ``bot.puzzles.Puzzle.origin``)."""
    kind, game_id, number = origin
    where = f"from game {game_id}, move {number + 1}" if kind == "game" else f"#{number + 1}"
    task = "find the one move that holds" if defend else "play and win"
    return f"Puzzle {where}: {side.capitalize()} to {task}"


def puzzle_held(rating: int, streak: int) -> str:
    """A defence puzzle solved."""
    return f"Held! That was the one move. Puzzle rating {rating}, {streak} in a row."


def puzzle_broke(rating: int, answer: str, reply: str) -> str:
    """A defence puzzle failed."""
    return (
        f"The attack goes through (it goes on with **{reply}**). The move that held was "
        f"**{answer}**. Puzzle rating {rating}."
    )


PUZZLE_HOW: Final = (
    "Play your moves with /gomoku solve; the engine defends. Any winning line counts."
)


def puzzle_answered(played: str, reply: str) -> str:
    """The solver's move and the engine's defence."""
    return f"You played **{played}**; the engine answered **{reply}**. Still winning: go on."


def puzzle_solved(rating: int, streak: int) -> str:
    """Solved."""
    return f"Solved! Puzzle rating {rating}, {streak} in a row."


def puzzle_failed(rating: int, answer: str) -> str:
    """The win is gone."""
    return (
        f"The forced win is gone. One winning start was **{answer}**. "
        f"Puzzle rating {rating}; /gomoku puzzle gives the next one."
    )


PUZZLE_BOARD_TITLE: Final = "Puzzle solvers"
PUZZLE_BOARD_EMPTY: Final = "Nobody here has finished a puzzle yet."


def puzzle_board_line(rank: int, user_id: int, rating: int, solved: int, best: int) -> str:
    """One line of the puzzle leaderboard."""
    return f"{rank}. <@{user_id}> · {rating} · {solved} solved · best run {best}"


def daily_title(day: str, *, defend: bool) -> str:
    """The daily puzzle's heading: whether it is a win to find or the one move that holds."""
    task = "find the one move that holds" if defend else "play and win"
    return f"Puzzle of the day, {day}: {task}"


DAILY_HOW: Final = "Try it with /gomoku puzzle daily:True, then /gomoku solve."


def daily_channel_set(channel_mention: str | None) -> str:
    """After /gomoku daily-puzzle."""
    if channel_mention is None:
        return "No more daily puzzles here."
    return f"A puzzle will be posted in {channel_mention} every day."
