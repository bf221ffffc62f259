"""A tournament's standings as a page of the web board: ``GET /t/<standings pass>``.

The page is drawn on the server, a plain HTML document with no script: the tournament's name,
format and round, the standings table with the format's tiebreaks (``tournament_standings``),
and the boards of the round under way with a link to watch each game still being played. An
arena has no rounds to its players: its page says when it ends and lists its games in play by
their numbers (``bot.core.club.arena.game_numbers``), as its threads name them. The
pass (``bot.web.tokens``: ``t1.<tournament>...``) is signed, so a tournament id alone shows
nothing, and it names the language the page speaks. A pass that is malformed, forged or
expired gets a short page and status 404, the same as a tournament that is gone.
"""

from __future__ import annotations

import html
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Final

from aiohttp import web

from bot.core.club.arena import game_numbers
from bot.core.club.standings import Standing
from bot.core.service.tournaments import TournamentUseCases
from bot.text import club_words, i18n
from bot.text.web_words import standings_words
from bot.web.tokens import BadPassError, Role, Signer, StandingsPass
from storage.club import Format, Pairing, Tournament, TournamentStatus
from storage.errors import TournamentNotFoundError

__all__ = ["STANDINGS_PATH", "StandingsPage", "render_standings", "standings_url"]

STANDINGS_PATH: Final = "/t/"
_WATCH_TTL: Final = 6 * 3600  # seconds: a watch link from the page, as from Open board

Names = Callable[[list[int]], Awaitable[dict[int, str]]]


def standings_url(base_url: str, signer: Signer, tournament_id: int, language: str) -> str:
    """The public address of a tournament's standings page, in ``language``."""
    token = signer.mint_standings(tournament_id, language=language)
    return f"{base_url.rstrip('/')}{STANDINGS_PATH}{token}"


class StandingsPage:
    """The route's handler, over the service that runs the tournaments."""

    def __init__(self, service: object, signer: Signer, names: Names) -> None:
        self.service = service if isinstance(service, TournamentUseCases) else None
        self.signer = signer
        self.names = names

    async def handle(self, request: web.Request) -> web.Response:
        """The page for the pass in the path; 404 with a short page for anything else."""
        try:
            grant = self.signer.verify_standings(request.match_info.get("token"))
        except BadPassError:
            return _short_page(i18n.DEFAULT, "invalid")
        service = self.service
        if service is None:
            return _short_page(grant.language, "unknown")
        try:
            tournament = await service.repository.tournament(grant.tournament_id)
        except TournamentNotFoundError:
            return _short_page(grant.language, "unknown")
        table = await service.tournament_standings(tournament.id)
        pairings = await service.repository.pairings(tournament.id)
        users = sorted(
            {line.user_id for line in table} | {u for p in pairings for u in p.players()}
        )
        names = await self.names(sorted(users))
        watch = self._watch_links(pairings, grant)
        ends = await service.arena_end(tournament)
        page = render_standings(tournament, table, pairings, names, watch, grant.language, ends)
        return web.Response(text=page, content_type="text/html", charset="utf-8")

    def _watch_links(
        self, pairings: Sequence[Pairing], grant: StandingsPass
    ) -> dict[tuple[int, int], str]:
        """A read-only board link for every game under way, by (round, board)."""
        ttl = max(1, min(_WATCH_TTL, grant.expires - int(time.time())))
        links: dict[tuple[int, int], str] = {}
        for pairing in pairings:
            if pairing.result is None and pairing.game_id:
                token = self.signer.mint(
                    pairing.game_id, 0, Role.WATCH, language=grant.language, ttl=ttl
                )
                links[pairing.round, pairing.board] = f"/#{token}"
        return links


def render_standings(
    tournament: Tournament,
    table: Sequence[Standing],
    pairings: Sequence[Pairing],
    names: dict[int, str],
    watch: dict[tuple[int, int], str],
    language: str,
    ends: datetime | None = None,
) -> str:
    """The page (HTML) in ``language``; ``watch``: links to watch the games under way, by
    (round, board); ``ends``: a running arena's end."""
    with i18n.using(language):
        text = standings_words()
        numbers = {line.user_id: n for n, line in enumerate(table, start=1)}

        def who(user_id: int) -> str:
            name = names.get(user_id) or text["nobody"].format(number=numbers.get(user_id, "?"))
            return html.escape(name)

        esc = html.escape
        title = esc(text["title"].format(name=tournament.name))
        current = max((p.round for p in pairings), default=0)
        meta = " · ".join(
            [
                text["format"].format(format=club_words.format_name(tournament.format)),
                club_words.time_control(tournament.seconds_per_move),
                _round_line(tournament, current, len(table), text, ends),
            ]
        )
        parts = [f"<h1>{title}</h1>", f'<p class="meta">{esc(meta)}</p>']
        tiebreaks = club_words.tiebreak_heading(tournament.format)
        parts.append(f'<h2 id="standings">{esc(text["standings"])}</h2>')
        if table:
            head = [text["rank"], text["player"], text["points"], *tiebreaks, text["played"]]
            cells = "".join(f'<th scope="col">{esc(cell)}</th>' for cell in head)
            rows = [
                "<tr>"
                f"<td>{line.rank}</td>"
                f'<th scope="row">{who(line.user_id)}</th>'
                f"<td>{_score(line.points)}</td>"
                + "".join(f"<td>{_score(value)}</td>" for value in line.tiebreaks)
                + f"<td>{line.played}</td></tr>"
                for line in table
            ]
            parts += [
                '<div class="scroll" role="region" aria-labelledby="standings" tabindex="0">',
                f"<table><thead><tr>{cells}</tr></thead><tbody>",
                *rows,
                "</tbody></table></div>",
                f'<p class="note">{esc(text["tiebreaks"])}</p>',
            ]
        else:
            parts.append(f"<p>{esc(text['no_players'])}</p>")
        if tournament.format is Format.ARENA:
            # Its games in play, by number: its passes mean nothing to its players.
            game_number = game_numbers(pairings)
            boards = sorted(
                (p for p in pairings if p.result is None and p.white is not None),
                key=lambda p: game_number[p.round, p.board],
            )
            heading = esc(text["games"])
            first = text["game"]
        else:
            boards = sorted((p for p in pairings if p.round == current), key=lambda p: p.board)
            heading = esc(text["pairings"].format(round=current))
            first = text["board"]
        if boards:
            head = [first, text["black"], text["white"], text["result"]]
            cells = "".join(f'<th scope="col">{esc(cell)}</th>' for cell in head)
            rows = []
            for pairing in boards:
                white = esc(text["bye"]) if pairing.white is None else who(pairing.white)
                link = watch.get((pairing.round, pairing.board))
                if tournament.format is Format.ARENA:
                    number = game_number[pairing.round, pairing.board]
                    watch_label = text["watch_arena_game"].format(number=number)
                else:
                    number = pairing.board
                    watch_label = text["watch_game"].format(board=number)
                if pairing.result is not None:
                    result = esc(pairing.result.value)
                elif link is not None:
                    result = f'<a href="{esc(link)}">{esc(watch_label)}</a>'
                else:
                    result = esc(text["in_play"])
                rows.append(
                    f"<tr><td>{number}</td><td>{who(pairing.black)}</td>"
                    f"<td>{white}</td><td>{result}</td></tr>"
                )
            parts += [
                f'<h2 id="pairings">{heading}</h2>',
                '<div class="scroll" role="region" aria-labelledby="pairings" tabindex="0">',
                f"<table><thead><tr>{cells}</tr></thead><tbody>",
                *rows,
                "</tbody></table></div>",
            ]
        return _document(language, title, "\n".join(parts))


def _round_line(
    tournament: Tournament,
    current: int,
    players: int,
    text: dict[str, str],
    ends: datetime | None = None,
) -> str:
    """Where the tournament is: not started, round n of m (a running arena: when it ends), or
    finished."""
    if tournament.status is TournamentStatus.OPEN:
        return text["not_started"]
    if tournament.status is TournamentStatus.CANCELLED:
        return text["cancelled"]
    if tournament.status is TournamentStatus.FINISHED:
        return text["finished"]
    if ends is not None:
        return text["ends"].format(time=ends.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    rounds = tournament.rounds
    if tournament.format is Format.ROUND_ROBIN:
        rounds = players - 1 + players % 2  # the Berger tables: one bye a round when odd
    if rounds > 0:
        return text["round"].format(round=current, rounds=rounds)
    return text["round_open"].format(round=current)


def _score(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


def _short_page(language: str, key: str) -> web.Response:
    with i18n.using(language):
        words = standings_words()
    message = html.escape(words[key])
    page = _document(language, message, f"<h1>{message}</h1>")
    return web.Response(text=page, status=404, content_type="text/html", charset="utf-8")


def _document(language: str, title: str, body: str) -> str:
    lang = html.escape(language.replace("_", "-"))
    return (
        f'<!doctype html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n"
        '<link rel="stylesheet" href="/static/standings.css">\n'
        f"</head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
