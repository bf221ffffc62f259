"""The club's words: tournament messages, their buttons, the standings' headings.

Each is read when shown, in the reader's language (``bot.text.i18n``); messages everyone
reads are shown under the server's language by their callers.
"""

from __future__ import annotations

from datetime import datetime

from bot.core.club.standings import Tiebreak
from bot.text.i18n import _, ngettext
from storage.club import DAY_SECONDS, Format, Result, Tournament

__all__ = [
    "arena_board_line",
    "arena_joined",
    "arena_standings_now",
    "arena_started",
    "arena_thread_name",
    "board_line",
    "board_ping",
    "board_thread_name",
    "button_label",
    "entrants_line",
    "final_standings",
    "format_name",
    "joined",
    "kind_line",
    "left",
    "left_queue",
    "open_accepted",
    "open_cancelled",
    "open_challenge",
    "open_label",
    "points_heading",
    "queue_line",
    "queue_ping",
    "queue_thread_name",
    "queue_timed_out",
    "queued",
    "result_set",
    "standings_after",
    "standings_now",
    "tiebreak_heading",
    "time_control",
    "tournament_announcement",
    "tournament_cancelled",
    "tournament_started",
]


def format_name(format: Format) -> str:
    """A tournament format's name."""
    if format is Format.ROUND_ROBIN:
        return _("round-robin")
    if format is Format.SWISS:
        return _("Swiss")
    return _("arena")


def time_control(seconds_per_move: int) -> str:
    """A tournament's time control: whole days per move for a correspondence event, else
    seconds."""
    days, rest = divmod(seconds_per_move, DAY_SECONDS)
    if days and not rest:
        return ngettext("{count} day per move", "{count} days per move", days).format(count=days)
    return _("{seconds} s per move").format(seconds=seconds_per_move)


def kind_line(format: Format, seconds_per_move: int) -> str:
    """A tournament's format and time control, on one line (``Swiss · 3 days per move``)."""
    return f"{format_name(format)} · {time_control(seconds_per_move)}"


def tournament_announcement(tournament: Tournament, game: str, ends: datetime | None = None) -> str:
    """The tournament message in the channel, above its Join, Leave and Standings buttons
    (``game``: the game's name; ``ends``: a running arena's end)."""
    format, rounds, player_cap = tournament.format, tournament.rounds, tournament.player_cap
    if format is Format.ARENA:
        title = _("**{name}** (tournament {id}): an arena of {game}.")
    else:
        title = _("**{name}** (tournament {id}): a {format} tournament of {game}.")
    lines = [
        title.format(name=tournament.name, id=tournament.id, format=format_name(format), game=game)
    ]
    clock = time_control(tournament.seconds_per_move)
    if ends is not None:
        at = int(ends.timestamp())
        lines.append(_("Ends {when}").format(when=f"<t:{at}:F> (<t:{at}:R>)") + " · " + clock)
    elif tournament.arena_minutes is not None:
        minutes = tournament.arena_minutes
        lines.append(
            ngettext("{count} minute", "{count} minutes", minutes).format(count=minutes)
            + " · "
            + clock
        )
    elif format is Format.SWISS:
        lines.append(
            ngettext("{count} round", "{count} rounds", rounds).format(count=rounds) + " · " + clock
        )
    else:
        lines.append(clock)
    if tournament.starts_at is not None:
        at = int(tournament.starts_at.timestamp())
        lines.append(_("Starts {when}.").format(when=f"<t:{at}:F> (<t:{at}:R>)"))
    if player_cap is not None:
        lines.append(
            ngettext("At most {count} player.", "At most {count} players.", player_cap).format(
                count=player_cap
            )
        )
    if format is Format.ARENA:
        lines.append(
            _(
                "Press Join to play: from the start you are paired again as soon as your game "
                "ends, each game in its own thread. A win scores 2 and a draw 1; after two "
                "wins in a row, each game scores double."
            )
        )
    else:
        lines.append(
            _("Press Join to play; each game opens in its own thread when a round starts.")
        )
    return "\n".join(lines)


def entrants_line(players: list[str], cap: int | None, more: int) -> str:
    """The tournament message's last line: who is in, with their count and the cap;
    ``more``: how many more are in than ``players`` names (the message's length is capped)."""
    if not players and not more:
        return _("No players yet.")
    count = len(players) + more
    names = ", ".join(players)
    if more:
        rest = ngettext("and {count} more", "and {count} more", more).format(count=more)
        names = f"{names} {rest}" if names else rest
    if cap is None:
        return _("Players ({count}): {players}").format(count=count, players=names)
    return _("Players ({count}/{cap}): {players}").format(count=count, cap=cap, players=names)


def tournament_started(name: str, players: int) -> str:
    """The channel's line when an organiser starts a tournament."""
    return ngettext(
        "**{name}** has started with {count} player: round 1 is paired.",
        "**{name}** has started with {count} players: round 1 is paired.",
        players,
    ).format(name=name, count=players)


def arena_started(name: str, players: int, ends: int) -> str:
    """The channel's line when an arena starts (``ends``: its end, a Unix time)."""
    return ngettext(
        "**{name}** has started with {count} player: the first games are paired. It ends {when}.",
        "**{name}** has started with {count} players: the first games are paired. It ends {when}.",
        players,
    ).format(name=name, count=players, when=f"<t:{ends}:R>")


def tournament_cancelled(name: str, players: int) -> str:
    """The channel's line when a tournament's start time comes with too few players."""
    return ngettext(
        "**{name}** is cancelled: its start time came with {count} player, and it needs two.",
        "**{name}** is cancelled: its start time came with {count} players, and it needs two.",
        players,
    ).format(name=name, count=players)


def button_label(action: str) -> str:
    """The label of a tournament message's button."""
    if action == "join":
        return _("Join")
    if action == "leave":
        return _("Leave")
    return _("Standings")


def joined(name: str) -> str:
    """The private answer to Join."""
    return _("You are in **{name}**. Your games open in threads when the rounds start.").format(
        name=name
    )


def arena_joined(name: str) -> str:
    """The private answer to an arena's Join."""
    return _(
        "You are in **{name}**. Until it ends you are paired again whenever your game ends, "
        "each game in its own thread."
    ).format(name=name)


def left(name: str) -> str:
    """The private answer to Leave (before the start, or a withdrawal once it runs)."""
    return _("You left **{name}**; results of games you played stand.").format(name=name)


def board_line(name: str, round_: int, board: int, black: int, white: int) -> str:
    """The channel's line for a board; its thread opens from it."""
    return _("{name}, round {round}, board {board}: <@{black}> (black) vs <@{white}>.").format(
        name=name, round=round_, board=board, black=black, white=white
    )


def board_thread_name(name: str, round_: int, board: int) -> str:
    """A board's thread's name."""
    return _("{name} · round {round} · board {board}").format(name=name, round=round_, board=board)


def arena_board_line(name: str, number: int, black: int, white: int) -> str:
    """The channel's line for an arena's game (``number``: its number in the arena); its
    thread opens from it."""
    return _("{name}, game {number}: <@{black}> (black) vs <@{white}>.").format(
        name=name, number=number, black=black, white=white
    )


def arena_thread_name(name: str, number: int) -> str:
    """An arena game's thread's name."""
    return _("{name} · game {number}").format(name=name, number=number)


def board_ping(black: int, white: int, clock: str) -> str:
    """The first message in a board's thread, pinging both players (``clock``: the time
    control, ``time_control``)."""
    return _(
        "<@{black}> (black, to move) and <@{white}> (white): your tournament game is here. "
        "Play with /place; {clock}."
    ).format(black=black, white=white, clock=clock)


def standings_after(name: str, round_: int) -> str:
    """The heading of the standings posted after a round."""
    return _("**{name}**: standings after round {round}").format(name=name, round=round_)


def final_standings(name: str) -> str:
    """The heading of the final standings."""
    return _("**{name}** is over. Final standings:").format(name=name)


def standings_now(name: str) -> str:
    """The heading of the standings shown privately by the Standings button."""
    return _("**{name}**: standings so far").format(name=name)


def arena_standings_now(name: str, ends: int) -> str:
    """The heading of a running arena's standings shown privately by the Standings button
    (``ends``: its end, a Unix time)."""
    return _("**{name}**: standings so far; it ends {when}").format(name=name, when=f"<t:{ends}:R>")


def points_heading() -> str:
    """The points column's heading (short)."""
    return _("Pts")


def tiebreak_heading(format: Format) -> list[str]:
    """The tiebreak columns' headings, in the format's order (FIDE's abbreviations)."""
    if format is Format.ARENA:
        return [_("Wins")]
    if format is Format.ROUND_ROBIN:
        return [Tiebreak.DIRECT_ENCOUNTER.value, Tiebreak.SONNEBORN_BERGER.value, _("Wins")]
    return [
        Tiebreak.BUCHHOLZ_CUT1.value,
        Tiebreak.BUCHHOLZ.value,
        Tiebreak.SONNEBORN_BERGER.value,
        Tiebreak.DIRECT_ENCOUNTER.value,
    ]


def result_set(name: str, round_: int, board: int, result: Result) -> str:
    """The private answer to an organiser's correction."""
    return _("{name}, round {round}, board {board}: the result is now {result}.").format(
        name=name, round=round_, board=board, result=result.value
    )


def open_challenge(challenger: int, game: str, within: int, expires: int) -> str:
    """An open challenge in the channel, above its Accept and Cancel buttons."""
    if within:
        return _(
            "<@{challenger}> offers a game of {game} to anyone rated within {within} points "
            "of them. Press Accept to play (open until <t:{expires}:t>)."
        ).format(challenger=challenger, game=game, within=within, expires=expires)
    return _(
        "<@{challenger}> offers a game of {game} to anyone. Press Accept to play "
        "(open until <t:{expires}:t>)."
    ).format(challenger=challenger, game=game, expires=expires)


def open_label(*, accept: bool) -> str:
    """An open challenge's button."""
    return _("Accept") if accept else _("Cancel")


def open_accepted(challenger: int, opponent: int) -> str:
    """The open challenge once accepted (its buttons gone)."""
    return _("<@{opponent}> accepted <@{challenger}>'s open challenge.").format(
        opponent=opponent, challenger=challenger
    )


def open_cancelled(challenger: int) -> str:
    """The open challenge once its challenger cancelled it."""
    return _("<@{challenger}> withdrew the open challenge.").format(challenger=challenger)


def queued(game: str, minutes: int) -> str:
    """The private answer to joining the queue."""
    return ngettext(
        "You are in the queue for {game}. When someone close to your rating asks too, your "
        "game opens in a thread and you are pinged there (you wait at most {count} minute).",
        "You are in the queue for {game}. When someone close to your rating asks too, your "
        "game opens in a thread and you are pinged there (you wait at most {count} minutes).",
        minutes,
    ).format(game=game, count=minutes)


def left_queue() -> str:
    """The private answer to leaving the queue."""
    return _("You left the queue.")


def queue_timed_out() -> str:
    """A member who waited in the queue as long as it keeps anyone."""
    return _("Nobody close to your rating asked for a game in time: you left the queue.")


def queue_line(black: int, white: int, game: str) -> str:
    """The channel's line for a game the queue paired; its thread opens from it."""
    return _("The queue paired <@{black}> (black) and <@{white}> for {game}.").format(
        black=black, white=white, game=game
    )


def queue_thread_name(game: str) -> str:
    """A queue game's thread's name."""
    return _("{game} · paired by the queue").format(game=game)


def queue_ping(black: int, white: int) -> str:
    """The first message of a queue game, pinging both players."""
    return _(
        "<@{black}> (black) and <@{white}> (white): the queue paired you. Your game is here."
    ).format(black=black, white=white)
