"""Words players read outside refusals: help, the welcome, level and rule descriptions,
history, replay, stats, moderation and privacy lines, and the phone-play surfaces (the tap
panel, turn pings, rematches, views). Refusals live in ``bot.text.refusals``.

Kept in one module, free of discord.py, though it runs past 800 lines: it is a catalogue of
short functions, each one sentence, read by translators and reviewers from top to bottom, and
a split would only scatter them. Every sentence goes through the catalogues
(``bot.text.i18n``): functions take what varies (names, counts, command mentions) and return
finished sentences in the current language; fixed words are ``later(...)`` callables, so they
are translated when read, not when imported. The choice tables (``LEVEL_CHOICES`` ...) hold
English ids for the slash-command picker (``bot.text.i18n`` translates them there) and are read
through ``_`` elsewhere.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from datetime import date, timedelta
from typing import Final, Literal

from babel.dates import format_date
from babel.numbers import format_percent
from babel.units import format_unit

from bot.core.games import table_spec
from bot.text import levels_table
from bot.text.i18n import DEFAULT, N_, _, current, ngettext, number, pgettext, using
from bot.version import version
from engine.types import Color, Game, Level, Rule

__all__ = [
    "COLOUR_CHOICES",
    "GAME_CHOICES",
    "LANGUAGE_FOLLOW",
    "LEVEL_CHOICES",
    "LEVEL_WORDS",
    "LOOK_CHOICES",
    "PUZZLE_CHOICE",
    "RULE_CHOICES",
    "RULE_WORDS",
    "SERVER_LANGUAGE_FOLLOW",
    "challenge_label",
    "colour_name",
    "command",
    "duration",
    "end_reason_words",
    "friendly_game",
    "game_here_for_bystander",
    "game_name",
    "help_sections",
    "later",
    "level_choice",
    "level_description",
    "level_name",
    "look_name",
    "mention_from",
    "move_label",
    "move_summary",
    "no_game_to_show",
    "panel_after_move",
    "panel_heading",
    "panel_window_line",
    "play_again_label",
    "rated_game",
    "rating_field",
    "rematch_label",
    "resign_label",
    "resigned",
    "restarted",
    "rule_name",
    "turn_ping",
    "undo_answer_label",
    "undo_answer_note",
    "undo_answered",
    "use_command_ids",
    "welcome_text",
    "window_line",
]


def later(message: str) -> Callable[[], str]:
    """A fixed sentence, translated each time it is read (into the reader's language)."""
    return lambda: _(message)


Mention = Callable[[str], str]  # "gomoku start" -> "</gomoku start:123>" (or "/gomoku start")

# The ids Discord gave the registered top-level commands, for the interaction being answered
# (``bot.preferences`` sets them with its language): sentences that name a command name it by
# its mention, which each client shows under the command's name in its own language.
_COMMAND_IDS: ContextVar[Mapping[str, int] | None] = ContextVar("command_ids", default=None)


def mention_from(ids: Mapping[str, int]) -> Mention:
    """``mention("gomoku puzzle play")`` -> ``</gomoku puzzle play:ID>`` with the id of its
    top-level command (``gomoku``); plain ``/gomoku puzzle play`` where it is unknown (the
    terminal, the web board)."""

    def mention(name: str) -> str:
        command_id = ids.get(name.split()[0])
        return f"</{name}:{command_id}>" if command_id else f"/{name}"

    return mention


def use_command_ids(ids: Mapping[str, int]) -> None:
    """Name commands by their mentions from now on, in this context (``command``)."""
    _COMMAND_IDS.set(ids)


def command(name: str) -> str:
    """A command as a sentence names it: its mention where its id is known (``mention_from``)."""
    return mention_from(_COMMAND_IDS.get() or {})(name)


RULE_WORDS: Final = {
    Rule.FREESTYLE: N_("five or more in a row wins"),
    Rule.STANDARD: N_("exactly five wins; six or more does not"),
    Rule.RENJU: N_("Black may not make 3-3, 4-4 or six in a row (marked on the board); fairer"),
    Rule.CARO: N_("a five blocked at both ends by the opponent does not win"),
}

# Option choices as shown in the command picker (Discord allows 100 characters); the levels'
# (LEVEL_CHOICES) follow level_choice below.
RULE_CHOICES: Final = {
    Rule.FREESTYLE: N_("Freestyle: five or more in a row wins"),
    Rule.STANDARD: N_("Standard: exactly five wins"),
    Rule.RENJU: N_("Renju: Black may not make 3-3, 4-4 or overlines"),
    Rule.CARO: N_("Caro: a five blocked at both ends does not win"),
}
COLOUR_CHOICES: Final = {
    "black": N_("Black: you move first"),
    "white": N_("White: your opponent moves first"),
    "random": N_("Random: a coin toss (default)"),
}
# Each look (bot.text.render.Look) and what it draws, for the picker and /gomoku preferences.
LOOK_CHOICES: Final = {
    "emoji": N_("Emoji: one per point; large boards show a window around the action"),
    "compact": N_("Compact: letters in a code block; a whole 15x15 board fits a phone"),
    "image": N_("Image: a picture of the whole board"),
}
GAME_CHOICES: Final = {
    Game.GOMOKU: N_("Gomoku (five in a row)"),
    Game.TICTACTOE: N_("Tic-tac-toe"),
    Game.CONNECT4: N_("Connect Four"),
    Game.GRAVITY3: N_("Gravity three (4x4)"),
}
PUZZLE_CHOICE: Final = N_("Puzzles: the best solvers")  # /gomoku leaderboard, beside the games


# Each name is translated when asked for, not all of them: every board drawn names its rule,
# and its AI's level.
_LEVEL_NAMES: Final[dict[str, Callable[[], str]]] = {
    "beginner": lambda: pgettext("level", "beginner"),
    "easy": lambda: pgettext("level", "easy"),
    "medium": lambda: pgettext("level", "medium"),
    "hard": lambda: pgettext("level", "hard"),
    "expert": lambda: pgettext("level", "expert"),
    "master": lambda: pgettext("level", "master"),
}
_RULE_NAMES: Final[dict[Rule, Callable[[], str]]] = {
    Rule.FREESTYLE: lambda: pgettext("rule", "freestyle"),
    Rule.STANDARD: lambda: pgettext("rule", "standard"),
    Rule.RENJU: lambda: pgettext("rule", "renju"),
    Rule.CARO: lambda: pgettext("rule", "caro"),
}


def level_name(level: Level | str) -> str:
    """An AI level's name: ``beginner`` ... ``master``."""
    value = level.value if isinstance(level, Level) else level
    name = _LEVEL_NAMES.get(value)
    return value if name is None else name()


def _percent(score: levels_table.Score) -> str:
    return format_percent(score.share, "#,##0.0%", locale=current())


def _figures(level: Level) -> dict[str, str]:
    strength = levels_table.STRENGTH[level]
    return {
        "below": _percent(strength.below) if strength.below else "",
        "engine": _percent(strength.engine) if strength.engine else "",
        "opponent": levels_table.OPPONENT,
        "seconds": number(levels_table.time_cap_s(level)),
    }


def level_choice(level: Level) -> str:
    """The level's line in the command picker: ``Easy: scores 76.6% against beginner``."""
    return _(levels_table.STRENGTH[level].choice).format(**_figures(level))


def level_description(level: Level) -> str:
    """How the level plays and what it scored against the level below and against the
    Gomocup engine (``/gomoku help``)."""
    strength, figures = levels_table.STRENGTH[level], _figures(level)
    parts = [_(strength.plays).format(seconds=figures["seconds"])]
    lower = levels_table.below(level)
    if strength.below is not None and lower is not None:
        parts.append(
            _("scores {share} against {level}").format(
                share=figures["below"], level=level_name(lower)
            )
        )
    if strength.engine is not None:
        parts.append(
            _("{share} against the Gomocup engine {opponent} at {seconds} s a move").format(
                share=figures["engine"],
                opponent=levels_table.OPPONENT,
                seconds=number(levels_table.OPPONENT_TURN_MS / 1000),
            )
        )
    return _("; ").join(parts)


# The levels' words quote their measured figures from bot.text.levels_table, formatted into
# translated sentences when read (numbers as the reader's language writes them). The picker's
# choices are English here; bot.cogs.play_choices hands Discord each language's level_choice.
LEVEL_WORDS: Final[dict[Level, Callable[[], str]]] = {
    level: functools.partial(level_description, level) for level in Level
}
with using(DEFAULT):
    LEVEL_CHOICES: Final = {level: level_choice(level) for level in Level}


def rule_name(rule: Rule) -> str:
    """A rule's name: ``freestyle``, ``standard``, ``renju``, ``caro``."""
    return _RULE_NAMES[rule]()


def game_name(game: Game) -> str:
    """A game's name: ``Gomoku``, ``Tic-tac-toe``, ``Connect Four``, ``Gravity three``; a
    game the catalogues do not name goes by its table spec's name."""
    names = {
        Game.GOMOKU: _("Gomoku"),
        Game.TICTACTOE: _("Tic-tac-toe"),
        Game.CONNECT4: _("Connect Four"),
        Game.GRAVITY3: _("Gravity three"),
    }
    return names.get(game) or table_spec(game).name


_UNITS: Final = (("day", 86400), ("hour", 3600), ("minute", 60))


def _unit(count: int, unit: str, length: Literal["short", "long"] = "long") -> str:
    # CLDR gives Chinese, Japanese and Korean no long form of some units (Babel then
    # prints the unit's id): the short form reads naturally there.
    text = format_unit(count, f"duration-{unit}", length=length, locale=current())
    if "duration-" in text:
        text = format_unit(count, f"duration-{unit}", length="short", locale=current())
    return text


def duration(span: timedelta) -> str:
    """``7 days``, ``1 day``, ``3 hours``, ``20 minutes`` (``7天``, ``3時間`` ...)."""
    seconds = int(span.total_seconds())
    for unit, size in _UNITS:
        if (seconds >= size and seconds % size == 0) or seconds >= size * 2:
            return _unit(seconds // size, unit)
    return _unit(seconds, "second")


# ---------------------------------------------------------------- help and welcome


def help_sections(mention: Mention) -> list[tuple[str, str]]:
    """``/gomoku help``: (title, text) pairs, each within an embed field's 1024 characters."""
    play = "\n".join(
        [
            _("{start} play the AI, or name an opponent to challenge them").format(
                start=mention("gomoku start")
            ),
            _("{start} `open:True` offers a game to anyone here, with a button").format(
                start=mention("gomoku start")
            ),
            _("{queue} a rated game against someone close to your rating").format(
                queue=mention("gomoku queue")
            ),
            _(
                "{place} `cell:H8` put a stone (autocomplete suggests points), or tap "
                "**Move** on the board"
            ).format(place=mention("place")),
            _(
                "{board} show the board again (with `look:`, your own way) · {undo} take back · "
                "{hint} a suggestion · {resign} give up"
            ).format(
                board=mention("gomoku board"),
                undo=mention("gomoku undo"),
                hint=mention("gomoku hint"),
                resign=mention("gomoku resign"),
            ),
        ]
    )
    look = "\n".join(
        [
            _(
                "{history} your finished games; with `game:` a replay, and its download "
                "(SGF, move list, animation)"
            ).format(history=mention("gomoku history")),
            _("{review} where a game was won and lost, by the engine").format(
                review=mention("gomoku review")
            ),
            _("{puzzle} find a forced win · {daily} today's puzzle · {place} play it").format(
                puzzle=mention("gomoku puzzle play"),
                daily=mention("gomoku puzzle daily"),
                place=mention("place"),
            ),
            _("{stats} records and ratings · {leaderboard} the best players here").format(
                stats=mention("gomoku stats"), leaderboard=mention("gomoku leaderboard")
            ),
            _("{preferences} your language and look, or delete your data").format(
                preferences=mention("gomoku preferences")
            ),
        ]
    )
    moderate = _(
        "{end} ends this channel's game without a result (Manage Messages or the server's "
        "moderator role) · {settings} server settings · {daily} a puzzle a day in a channel "
        "(Manage Server)"
    ).format(
        end=mention("gomoku-admin end"),
        settings=mention("gomoku-admin settings"),
        daily=mention("gomoku-admin daily-puzzle"),
    )
    moderate += "\n" + _(
        "{create} a Swiss, round-robin or arena tournament in this channel, live or with "
        "days per move, started by hand or at a set time: members join with its button, "
        "each game opens in its own thread, standings follow every round · {start} starts "
        "it now · {result} corrects a result (Manage Server or the moderator role)"
    ).format(
        create=mention("gomoku-admin tournament create"),
        start=mention("gomoku-admin tournament start"),
        result=mention("gomoku-admin tournament result"),
    )
    levels = "\n".join(f"**{level_name(level)}**: {LEVEL_WORDS[level]()}" for level in Level)
    rules = "\n".join(f"**{rule_name(rule)}**: {_(RULE_WORDS[rule])}" for rule in Rule)
    return [
        (_("Play"), play),
        (_("Look back"), look),
        (_("Moderators"), moderate),
        (_("AI levels (measured, each against the one below)"), levels),
        (_("Gomoku rules"), rules),
    ]


help_title: Final = later(N_("Gomoku: five in a row against the AI or each other"))


def help_footer() -> str:
    """The help card's last line: how points are named, and the bot's version."""
    return " · ".join(
        [
            _("Points are named like h8: column letter, row number from the bottom."),
            _("version {version}").format(version=version()),
        ]
    )


def welcome_text(mention: Mention) -> str:
    """The short note posted once when the bot joins a server."""
    return _(
        "Hello! I host Gomoku (five in a row), tic-tac-toe, Connect Four and gravity three. "
        "Start a game against the AI with {start}, or name someone to challenge them. {help} "
        "explains the rest."
    ).format(start=mention("gomoku start"), help=mention("gomoku help"))


# ---------------------------------------------------------------- endings, threads


def end_reason_words(reason: str | None, ended_by: str | None) -> str:
    """Why a game has no result: ``ended by @mod``, ``no move for too long``, ``replaced``."""
    if reason == "moderator":
        if ended_by:
            return _("ended by {moderator}").format(moderator=ended_by)
        return _("ended by a moderator")
    if reason == "idle":
        return _("no move for too long")
    if reason == "replaced":
        return _("replaced by a new game")
    return ""


def ended_by_moderator(game_id: int) -> str:
    """The moderator's private confirmation."""
    return _("Game {game_id} ended without a result.").format(game_id=game_id)


def game_here_for_bystander(board_link: str | None, start: str, parent: str | None = None) -> str:
    """A member not in the channel's game asked to start one here: where the game is, and
    how to watch it or play their own (``parent``: the channel a game's thread hangs off,
    where their own gets a thread too)."""
    where = (
        _("A game is being played here: [its board]({link}).").format(link=board_link)
        if board_link
        else _("A game is being played here.")
    )
    if parent is not None:
        how = _(
            "Anyone may watch it. To play your own, use {start} in {channel}, where each game "
            "gets a thread of its own."
        ).format(start=start, channel=parent)
    else:
        how = _(
            "Anyone may watch it. To play your own, use {start} in another channel, or here once "
            "this one ends."
        ).format(start=start)
    return where + " " + how


replace_offer: Final = later(
    N_(
        "You already have a game against the AI in this channel. Replace it with a new one? "
        "The old game ends without a result."
    )
)
replace_button: Final = later(N_("Replace it"))


def ai_name(level: str) -> str:
    """The AI as a player's name, wherever one is shown: ``AI (medium)``."""
    return _("AI ({level})").format(level=level_name(level))


no_moves: Final = later(N_("(no moves)"))  # an export of a game nobody moved in yet

someone: Final = later(N_("former member"))  # a member whose name could not be read
deleted_user: Final = later(N_("deleted user"))  # the seat of a user who deleted their data


def thread_name(black: str, white: str, game: str, game_id: int) -> str:
    """A game thread's name (Discord allows 100 characters)."""
    return _("{black} vs {white} · {game} #{game_id}").format(
        black=black, white=white, game=game, game_id=game_id
    )[:100]


def thread_started(players: str) -> str:
    """The parent channel's line when a game starts (its thread opens from this line)."""
    return _("{players}: a new game, in the thread below.").format(players=players)


def thread_gone(players: str, game_id: int) -> str:
    """The parent channel's line when a game's thread was deleted or locked under it."""
    return _(
        "{players}: game {game_id} ended without a result, as its thread is gone. "
        "Its moves stay in the game history."
    ).format(players=players, game_id=game_id)


def discord_trouble() -> str:
    """The private answer when Discord itself failed while answering (an outage)."""
    return _(
        "Discord is having trouble right now. Anything it accepted is kept, and the board "
        "catches up when Discord is back."
    )


def thread_ended(players: str, result: str, thread_mention: str) -> str:
    """The parent channel's line when the game in a thread ends."""
    return _("{players}: {result} ({thread}).").format(
        players=players, result=result, thread=thread_mention
    )


# ---------------------------------------------------------------- history, replay, stats

history_title: Final = later(N_("Finished games"))
history_empty: Final = later(N_("No finished games yet."))
older: Final = later(N_("Older"))
newer: Final = later(N_("Newer"))
download_label: Final = later(N_("Download"))  # a replay's button: SGF, moves, animation


def result_word(*, won: bool | None, draw: bool) -> str:
    """A finished game from one player's side: ``won``, ``lost``, ``draw``, ``no result``."""
    if draw:
        return _("draw")
    if won is None:
        return _("no result")
    return _("won") if won else _("lost")


def history_footer(page: int) -> str:
    """Which page of the history this is."""
    return _("page {page}").format(page=number(page + 1))


def replay_footer(game_id: int, ply: int, total: int) -> str:
    """Where in the game the replay stands."""
    return _("game {game_id} · move {ply} of {total}").format(
        game_id=game_id, ply=number(ply), total=number(total)
    )


stats_title: Final = later(N_("Stats"))
stats_empty: Final = later(N_("has not finished a game yet."))
rating_title: Final = later(N_("Ratings (games between people)"))
vs_people: Final = later(N_("vs people"))


def record_line(wins: int, losses: int, draws: int, unfinished: int) -> str:
    """``3 wins, 1 loss, 0 draws`` (and unfinished games when there are any)."""
    parts = [
        ngettext("{count} win", "{count} wins", wins).format(count=number(wins)),
        ngettext("{count} loss", "{count} losses", losses).format(count=number(losses)),
    ]
    if draws:
        parts.append(ngettext("{count} draw", "{count} draws", draws).format(count=number(draws)))
    if unfinished:
        parts.append(
            ngettext("{count} without a result", "{count} without a result", unfinished).format(
                count=number(unfinished)
            )
        )
    return _(", ").join(parts)


def rating_line(game: str, rating: int, games: int, streak: int, best: int) -> str:
    """``Gomoku: rating **1138** · 1 game · streak +1 (best 1)``."""
    return ngettext(
        "{game}: rating **{rating}** · {count} game · streak {streak} (best {best})",
        "{game}: rating **{rating}** · {count} games · streak {streak} (best {best})",
        games,
    ).format(
        game=game,
        rating=number(rating, grouped=False),
        count=number(games),
        streak=f"{streak:+d}",
        best=number(best),
    )


def leaderboard_title(game: str) -> str:
    """The leaderboard's title."""
    return _("{game} leaderboard").format(game=game)


def leaderboard_empty(min_games: int) -> str:
    """Nobody qualifies yet."""
    return ngettext(
        "Nobody here has played {count} rated game of this yet.",
        "Nobody here has played {count} rated games of this yet.",
        min_games,
    ).format(count=number(min_games))


def leaderboard_footer(min_games: int) -> str:
    """Who counts."""
    return ngettext(
        "Players with at least {count} rated game; games against the AI never count.",
        "Players with at least {count} rated games; games against the AI never count.",
        min_games,
    ).format(count=number(min_games))


# ---------------------------------------------------------------- settings card

settings_title: Final = later(N_("Gomoku settings"))
setting_rule: Final = later(N_("Default rule"))
setting_turn: Final = later(N_("Turn time"))
setting_look: Final = later(N_("Look of boards"))
setting_channels: Final = later(N_("Games allowed in"))
setting_language: Final = later(N_("Language"))
setting_threads: Final = later(N_("Game threads"))
setting_moderator: Final = later(N_("Moderator role"))
setting_idle: Final = later(N_("Idle games end after"))
setting_pings: Final = later(N_("Turn pings"))
setting_ai_clock: Final = later(N_("Clock in AI games"))
no_clock: Final = later(N_("no clock"))
any_channel: Final = later(N_("any channel"))


def turn_minutes(minutes: int) -> str:
    """A turn time on the settings card: ``5 min``."""
    return _unit(minutes, "minute", "short")


def look_name(look: str) -> str:
    """A look's name (``emoji``, ``compact``, ``image``)."""
    return {
        "emoji": pgettext("board style", "emoji"),
        "compact": pgettext("board style", "compact"),
        "image": pgettext("board style", "image"),
    }.get(look, look)


def on_off(value: bool) -> str:
    """A switch's state."""
    return _("on") if value else _("off")


def moderator_role(role_mention: str | None) -> str:
    """Who may end games besides Manage Messages."""
    return role_mention or _("Manage Messages only")


def idle_times(people: timedelta, ai: timedelta) -> str:
    """The idle times of a server."""
    return _("{people} between people, {ai} against the AI").format(
        people=duration(people), ai=duration(ai)
    )


def server_language(name: str | None) -> str:
    """The settings card's language: the one chosen, or Discord's server language."""
    return name or _(SERVER_LANGUAGE_FOLLOW)


# ---------------------------------------------------------------- languages


def preferences_text(language: str | None, look: str) -> str:
    """The answer to ``/gomoku preferences``: the member's language (None: their Discord
    client's) and look."""
    spoken = language or _("your Discord language")
    return "\n".join(
        [
            _("**Language:** {language}").format(language=spoken),
            _("**Look of your private boards:** {look}").format(
                look=_(LOOK_CHOICES[look]) if look in LOOK_CHOICES else look
            ),
            _("The server chooses how its public boards look."),
        ]
    )


forget_me_label: Final = later(N_("Forget me…"))  # opens the confirmation of forget_confirm
LANGUAGE_FOLLOW: Final = N_("Follow my Discord language")  # a command choice (translated there)
SERVER_LANGUAGE_FOLLOW: Final = N_("The server's language in Discord")  # the admin choice


# ---------------------------------------------------------------- privacy

forget_confirm: Final = later(
    N_(
        "Delete your data? Your ratings, statistics and pending requests go for good, and "
        "your open games end without a result. Finished games stay, with your seat shown as "
        "a deleted user, so your opponents keep their records. This cannot be undone."
    )
)
forget_button: Final = later(N_("Delete my data"))
forget_cancel: Final = later(N_("Keep it"))
forget_kept: Final = later(N_("Nothing was deleted."))


def forgotten(games: int) -> str:
    """After the deletion."""
    return ngettext(
        "Done: your data is deleted. {count} game record stays without your name.",
        "Done: your data is deleted. {count} game records stay without your name.",
        games,
    ).format(count=number(games))


# ---------------------------------------------------------------- phone play

move_label: Final = later(N_("Move"))  # the public board's button that opens the tap panel
rematch_label: Final = later(N_("Rematch"))  # a finished game between people
play_again_label: Final = later(N_("Play again"))  # a finished game against the AI
no_game_to_show: Final = later(N_("There is no game in this channel to show."))
restarted: Final = later(N_("The bot restarted while the AI was thinking; here is the board now."))


def colour_name(color: Color) -> str:
    """``Black`` / ``White``."""
    return _("Black") if color is Color.BLACK else _("White")


def panel_heading(title: str, stone: str, color: Color) -> str:
    """The panel's first line."""
    return _("**{title}** · your move, {stone} {colour}").format(
        title=title, stone=stone, colour=colour_name(color)
    )


def panel_window_line(columns: str, rows: str) -> str:
    """What the buttons show, and how to use them."""
    return _(
        "Buttons: columns {columns}, rows {rows}. Tap a point to play; arrows move the window."
    ).format(columns=columns, rows=rows)


def window_line(columns: str, rows: str, width: int, height: int) -> str:
    """Under a board that shows only part of a large board."""
    return _(
        "Showing columns {columns}, rows {rows} of {width}x{height} · {board} `look:` for "
        "another look"
    ).format(
        columns=columns,
        rows=rows,
        width=width,
        height=height,
        board=command("gomoku board"),
    )


def panel_after_move(point: str, waiting_for: str | None, over: bool) -> str:
    """The panel after its tap was played: the move, and who is to move now."""
    if over:
        return _("You played **{point}**. The game is over; the board shows the result.").format(
            point=point
        )
    if waiting_for is not None:
        return _("You played **{point}**. Now it is {player}'s move.").format(
            point=point, player=waiting_for
        )
    return _("You played **{point}**.").format(point=point)


def played_by(user_id: int, point: str) -> str:
    """Under a public turn ping: the move that made it (the mover is named, not pinged)."""
    return _("{player} played **{point}**.").format(player=f"<@{user_id}>", point=point)


def turn_ping(user_id: int, game_name: str) -> str:
    """The short message that tells the player to move it is their turn."""
    return _("{player}, your move in {game}.").format(player=f"<@{user_id}>", game=game_name)


def turn_warning(user_id: int, when: str) -> str:
    """A clock about to run out (``when``: Discord's relative timestamp, which each reader's
    client shows in their own language)."""
    return _("{player}, it is your move: your time runs out {when}.").format(
        player=f"<@{user_id}>", when=when
    )


def look_saved(look: str) -> str:
    """``/gomoku board look:``: the look is kept for the member's private boards."""
    return _("Your private boards now look like this ({look}):").format(look=look_name(look))


# ---------------------------------------------------------------- reviews


def review_title(game_id: int) -> str:
    """The review's heading."""
    return _("Review of game {game_id}").format(game_id=game_id)


def review_progress(game_id: int, done: int, total: int) -> str:
    """While the engine goes through the game."""
    return _("The engine is reviewing game {game_id}: position {done} of {total}…").format(
        game_id=game_id, done=number(done), total=number(total)
    )


def review_waiting(game_id: int) -> str:
    """While another review has the engine."""
    return _("Game {game_id} is queued: the engine is reviewing another game first…").format(
        game_id=game_id
    )


def proof_words(proof: str | None) -> str:
    """How a forced win goes: ``by fours (VCF)``."""
    if proof == "vcf":
        return _("by fours (VCF)")
    if proof == "vct":
        return _("by threats (VCT)")
    return _("by force")


def side_name(colour: str) -> str:
    """``black``/``white`` (a colour's value) as a capitalised side: ``Black``."""
    return colour_name(Color.WHITE if colour.lower() == "white" else Color.BLACK)


def mark_line(ply: int, kind: str, colour: str, played: str, better: str, proof: str | None) -> str:
    """One marked move of a review (``kind``: blunder or missed_win)."""
    if kind == "missed_win":
        return _("**{ply}. {played}** — missed win: {side} wins {proof} with **{better}**.").format(
            ply=ply, played=played, side=side_name(colour), proof=proof_words(proof), better=better
        )
    return _(
        "**{ply}. {played}** — blunder: the opponent now wins {proof}; **{better}** held."
    ).format(ply=ply, played=played, proof=proof_words(proof), better=better)


def turning_point(ply: int, played: str) -> str:
    """The review's turning point."""
    return _("Turning point: move {ply} ({played}).").format(ply=ply, played=played)


review_no_marks: Final = later(N_("No blunders or missed wins found: a clean game at this depth."))
review_unfinished: Final = later(
    N_("The engine ran out of time before the end of the game: the last moves are not reviewed.")
)
review_graph: Final = later(
    N_(
        "Graph: above the line Black is better, below White; the edges are forced wins. "
        "Red dots are blunders, orange missed wins, the blue line the turning point."
    )
)
review_replay: Final = later(N_("Replay the marks"))


def review_step(side: str, verdict: str, proof: str | None, best: str) -> str:
    """The engine's view of the position a replay shows (``side`` is to move)."""
    who = side_name(side)
    if verdict == "win":
        return _("{side} to move wins {proof}: **{best}**.").format(
            side=who, proof=proof_words(proof), best=best
        )
    if verdict == "loss":
        return _("{side} to move is lost; the most stubborn move is **{best}**.").format(
            side=who, best=best
        )
    return _("{side} to move; the engine suggests **{best}**.").format(side=who, best=best)


review_field: Final = later(N_("Engine"))


# ---------------------------------------------------------------- puzzles


def puzzle_title(origin: tuple[str, int, int], side: str, *, defend: bool = False) -> str:
    """A puzzle's heading (``origin``: ``bot.core.puzzles.Puzzle.origin``)."""
    kind, game_id, number_ = origin
    who = side_name(side)
    if kind == "game":
        if defend:
            return _(
                "Puzzle from game {game_id}, move {move}: {side} to find the one move that holds"
            ).format(game_id=game_id, move=number_ + 1, side=who)
        return _("Puzzle from game {game_id}, move {move}: {side} to play and win").format(
            game_id=game_id, move=number_ + 1, side=who
        )
    if defend:
        return _("Puzzle #{number}: {side} to find the one move that holds").format(
            number=number_, side=who
        )
    return _("Puzzle #{number}: {side} to play and win").format(number=number_, side=who)


def puzzle_held(rating: int, streak: int) -> str:
    """A defence puzzle solved."""
    return _("Held! That was the one move. Puzzle rating {rating}, {streak} in a row.").format(
        rating=number(rating, grouped=False), streak=number(streak)
    )


def puzzle_broke(rating: int, answer: str, reply: str) -> str:
    """A defence puzzle failed."""
    return _(
        "The attack goes through (it goes on with **{reply}**). The move that held was "
        "**{answer}**. Puzzle rating {rating}."
    ).format(reply=reply, answer=answer, rating=number(rating, grouped=False))


def puzzle_how(mention: Mention) -> str:
    """Under a puzzle: how to play it."""
    return _("Play your moves with {place}; the engine defends. Any winning line counts.").format(
        place=mention("place")
    )


def puzzle_answered(played: str, reply: str) -> str:
    """The solver's move and the engine's defence."""
    return _(
        "You played **{played}**; the engine answered **{reply}**. Still winning: go on."
    ).format(played=played, reply=reply)


def puzzle_solved(rating: int, streak: int) -> str:
    """Solved."""
    return _("Solved! Puzzle rating {rating}, {streak} in a row.").format(
        rating=number(rating, grouped=False), streak=number(streak)
    )


def puzzle_failed(rating: int, answer: str) -> str:
    """The win is gone."""
    return _(
        "The forced win is gone. One winning start was **{answer}**. Puzzle rating {rating}; "
        "{puzzle} gives the next one."
    ).format(
        answer=answer, rating=number(rating, grouped=False), puzzle=command("gomoku puzzle play")
    )


puzzle_board_title: Final = later(N_("Puzzle solvers"))
puzzle_board_empty: Final = later(N_("Nobody here has finished a puzzle yet."))


def puzzle_board_line(rank: int, user_id: int, rating: int, solved: int, best: int) -> str:
    """One line of the puzzle leaderboard."""
    return _("{rank}. {player} · {rating} · {solved} solved · best run {best}").format(
        rank=rank,
        player=f"<@{user_id}>",
        rating=number(rating, grouped=False),
        solved=number(solved),
        best=number(best),
    )


def day_name(day: date) -> str:
    """A calendar day as the language writes it: ``November 22, 2026``, ``2026年11月22日``."""
    return format_date(day, format="long", locale=current())


def daily_title(day: str, *, defend: bool) -> str:
    """The daily puzzle's heading: whether it is a win to find or the one move that holds."""
    if defend:
        return _("Puzzle of the day, {day}: find the one move that holds").format(day=day)
    return _("Puzzle of the day, {day}: play and win").format(day=day)


def daily_how(mention: Mention) -> str:
    """Under the puzzle of the day, posted in a channel."""
    return _("Try it with {daily}, then {place}.").format(
        daily=mention("gomoku puzzle daily"), place=mention("place")
    )


def daily_channel_set(channel_mention: str | None) -> str:
    """After ``/gomoku-admin daily-puzzle``."""
    if channel_mention is None:
        return _("No more daily puzzles here.")
    return _("A puzzle will be posted in {channel} every day.").format(channel=channel_mention)


# ---------------------------------------------------------------- commands' answers

resign_confirm: Final = later(N_("Resign this game? Your opponent wins."))
resign_label: Final = later(N_("Resign"))
resigned: Final = later(N_("You resigned."))
rating_field: Final = later(N_("Rating"))  # the result card's field, one per rated player
# a game between people, in its board's footer: whether it changes ratings
rated_game: Final = later(N_("rated"))
friendly_game: Final = later(N_("friendly, not rated"))


def challenge_label(*, accept: bool) -> str:
    """The challenge's two buttons."""
    return _("Accept") if accept else _("Decline")


def undo_answer_label(*, accept: bool) -> str:
    """The two buttons under an undo request."""
    return _("Allow") if accept else _("Refuse")


def undo_answered(*, allowed: bool) -> str:
    """What the opponent sees after answering an undo request."""
    return _("Undo allowed.") if allowed else _("Undo refused.")


def undo_answer_note(requester: int, responder: int, *, accepted: bool, withdrawn: bool) -> str:
    """The undo request's message once it was answered elsewhere (the web board): who
    answered, and how. Mentions in an edit ping nobody."""
    if withdrawn:
        text = _("{requester} withdrew the request to take back their last move.")
    elif accepted:
        text = _("{responder} allowed {requester} to take back their last move.")
    else:
        text = _("{responder} refused to let {requester} take back their last move.")
    return text.format(requester=f"<@{requester}>", responder=f"<@{responder}>")


def move_summary(move: str, *, reply: str | None = None, choice: str | None = None) -> str:
    """The private answer to a ``/place``: the move, and the AI's answer (a stone, or an
    opening ``choice``) when it came at once."""
    if choice is not None:
        return _("You played **{move}**. {choice}").format(move=move, choice=choice)
    if reply is not None:
        return _("You played **{move}**. The AI answered **{reply}**.").format(
            move=move, reply=reply
        )
    return _("You played **{move}**.").format(move=move)


def took_back(count: int) -> str:
    """After an undo against the AI (or one the opponent allowed)."""
    return ngettext("Took back {count} move.", "Took back {count} moves.", count).format(
        count=number(count)
    )


def undo_request(responder: int, requester: int) -> str:
    """The public request to the opponent."""
    return _("{responder}, {requester} asks to take back their last move.").format(
        responder=f"<@{responder}>", requester=f"<@{requester}>"
    )


def undo_request_closed(requester: int) -> str:
    """An undo request's message once the request ended unanswered (the game moved on or
    ended). Mentions in an edit ping nobody."""
    text = _("{requester}'s request to take back their last move is closed: the game moved on.")
    return text.format(requester=f"<@{requester}>")


def hint_reply(point: str) -> str:
    """The answer to ``/gomoku hint``."""
    return _("The AI suggests **{point}**.").format(point=point)


def versus(black: str, white: str) -> str:
    """Two players: ``@a vs @b``."""
    return _("{black} vs {white}").format(black=black, white=white)
