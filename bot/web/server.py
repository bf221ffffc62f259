"""The web board's server: the page, its WebSocket, and the Activity's OAuth2 routes.

Routes and what each checks:

``GET /``                  the board page (``static/index.html``); it holds no game and no pass
``GET /static/...``        its script, styles and the Activity bundle (when built)
``GET /t/<pass>``          a tournament's standings, drawn on the server (``bot.web.standings``)
``GET /api/config``        the application id the Activity's SDK needs (public anyway)
``GET /ws``                a WebSocket: the first message is ``{"type": "hello", "token": T}``;
                           every later message carries the pass again and is checked again
                           (signature, expiry, the same game); moves and the page's
                           choices (resign, an opening's, takebacks) go through the game
                           service's one entry (``GameService.act``) by the pass's game
                           id, as the pass's user, at most ``MovePace``'s pace per link;
                           what follows (the AI's reply, the clocks, the Discord board's
                           redraw) is the core runner's and the other front ends' (events).
                           A frame that is no message of the page (binary, not JSON, nested,
                           too big) closes the socket with a code and a short reason
                           (``frames``); an unknown ``type`` is answered ``{"type": "error"}``.
                           The page is sent the whole game once, then deltas (``feed``),
                           written without waiting; a page whose reader stops falls behind,
                           and is sent the newest whole game once it reads again (``_Socket``);
                           ``{"type": "resync"}`` asks for the whole game again, at most
                           ``WebBoard.resyncs``' pace per link: one asked beyond it is
                           answered when the pace allows, or sooner with the next change
                           (whole), and the ones asked meanwhile with that same answer
``POST /api/token``        the Activity's OAuth2 code exchange (``{"code"}`` -> access token),
                           with the application's client secret, which never leaves the server
``POST /api/activity``     an access token and the Activity instance -> a pass: the user comes
                           from Discord's ``/users/@me``, the channel from the instance (read
                           with the bot's token), and the user must be in that instance

The pass travels in the page's URL fragment (``/#<pass>``), which browsers never send to a
server, so no request line (and no access log) carries it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

import aiohttp
import orjson
from aiohttp import web

from bot.core.service import GameService
from bot.core.service.errors import GameNotActiveError, NoActiveGameError, NotAPlayerError
from bot.core.service.events import Event, UndoAnswered, UndoAsked
from bot.core.service.inputs import (
    Action,
    AnswerUndo,
    AskUndo,
    Choose,
    Drop,
    GameRef,
    Place,
    Reply,
    Resign,
)
from bot.core.service.states import GameState, UndoRequest
from bot.text import i18n, words
from bot.text.refusals import generic_message, user_message
from bot.text.web_words import page_words
from bot.web.feed import Feed, Kind
from bot.web.frames import MalformedMessageError, MovePace, parse_message, text_frame
from bot.web.hub import Hub
from bot.web.standings import STANDINGS_PATH, StandingsPage
from bot.web.state import Reuse, game_payload
from bot.web.tokens import BadPassError, ExpiredPassError, Pass, Role, Signer
from engine.errors import GomokuError
from engine.games import game_spec
from engine.types import Color, Point
from storage.records import GameStatus, Player

__all__ = ["STATIC", "BoardHooks", "OAuthApp", "WebBoard"]

if TYPE_CHECKING:
    from bot.core.bus import GameBus, UndoNote  # msgspec: with the postgres and queue extras

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).resolve().parent / "static"
_MAX_MESSAGE: Final = 4096  # bytes: a move or a hello is a few dozen
_HEARTBEAT: Final = 20.0  # seconds between pings: proxies drop quiet sockets
_COLOURS: Final = {Color.BLACK: 0, Color.WHITE: 1}  # as the page numbers them
_UNSUPPORTED: Final = aiohttp.WSCloseCode.UNSUPPORTED_DATA  # a binary frame
_MALFORMED: Final = aiohttp.WSCloseCode.INVALID_TEXT  # text that is no message of the page
# the page's choices besides moves (``_act``)
_ACTIONS: Final = frozenset(
    {"resign", "choose", "undo", "undo_answer", "rematch", "play_ai", "hint"}
)


VIA: Final = "web"  # the front end's name in the events of the moves it plays


class BoardHooks(Protocol):
    """What the web board asks of the front end that hosts it: what no event of the service
    carries (moves, choices, takebacks and undo requests from the page reach every front end
    as events, with ``via="web"``)."""

    def started(self, game: GameState) -> None:
        """A new game (a rematch, a challenge, a game against the AI) began from the page:
        show it where the host shows games. ``GameStarted`` names no front end, and a
        rematch in a thread reaches that thread only after its event; ``game`` is final."""

    async def display_names(self, user_ids: list[int]) -> dict[int, str]:
        """The names to show for these users (those it knows)."""


@dataclass(frozen=True, slots=True)
class OAuthApp:
    """What the Activity's OAuth2 needs: the application, its secret and Discord's API."""

    application_id: int
    client_secret: str
    bot_token: str
    api_base: str  # e.g. https://discord.com/api/v10

    def __repr__(self) -> str:
        return f"OAuthApp(application_id={self.application_id}, api_base={self.api_base!r})"


class _Socket:
    """One open page: its WebSocket, the pass it was opened with, and what it was sent.

    What the hub sends every page of a game (states) and what another page's action tells it
    (notes) is written straight to the page's transport, framed once for every page of its
    kind (``write``): no coroutine and no wait per page, so a game's hundreds of pages cost a
    loop over them. A page whose transport already holds more than ``WebBoard.backlog`` bytes
    that its reader has not taken (the socket's kernel buffers are full) is written nothing
    more: it falls behind, owed the whole state, and is sent the newest one (and the undo
    request waiting in it) once its reader has caught up (``_catch_up``). A page that never
    reads costs the server its backlog, not the other pages their moves.
    """

    def __init__(
        self,
        board: WebBoard,
        ws: web.WebSocketResponse,
        grant: Pass,
        transport: asyncio.WriteTransport | None,
    ) -> None:
        self.board = board
        self.ws = ws
        self.grant = grant
        self.transport = transport
        self.shown = -1  # the newest version sent
        self.kind: Kind | None = None  # the kind of page it was sent as
        self.owed = False  # it asked for the whole state beyond the pace: it is due later
        self.behind = False  # its reader fell behind: it is owed the newest whole state

    def show(self, state: GameState, feed: Feed) -> None:
        """Send ``state`` unless this page has it or a newer one already: the delta from
        the version it has where it has the one before, else the whole state."""
        if state.version <= self.shown or self.ws.closed:
            return
        board = self.board
        kind = board.kind(state, self.grant)
        rendition = feed.rendition(
            kind, state.version, lambda reuse: board.payload(state, kind, reuse)
        )
        if self.write(rendition.for_page(self.shown, kind, self.kind)):
            self.shown, self.kind = state.version, kind

    def again(self, state: GameState, feed: Feed) -> None:
        """Send the whole of ``state``, whatever the page had: it found a gap in its
        versions."""
        self.shown, self.kind = -1, None
        self.show(state, feed)

    def send(self, message: dict[str, Any]) -> None:
        """``message`` to the page, unless it has closed or fallen behind."""
        self.write(text_frame(orjson.dumps(message)))

    def write(self, frame: bytes) -> bool:
        """Write ``frame`` (``frames.text_frame``) unless the page has closed or fallen
        behind; whether it was written. It never waits: the transport takes it at once."""
        transport = self.transport
        if self.ws.closed or transport is None or transport.is_closing():
            return False
        if self.behind or transport.get_write_buffer_size() > self.board.backlog:
            self._fall_behind()
            return False
        # Whole frames only, here and in aiohttp's own writes to this socket (the board never
        # compresses): frames written one after the other never interleave.
        transport.write(frame)
        return True

    def _fall_behind(self) -> None:
        self.shown, self.kind = -1, None  # whatever it is sent next goes whole
        if not self.behind:
            self.behind = True
            self._look_again()

    def _look_again(self) -> None:
        """While the reader has not taken all but ``backlog`` bytes, look again later; then
        send the newest whole state, and the undo request waiting in it (a note written
        meanwhile was dropped)."""
        board, transport = self.board, self.transport
        if self.ws.closed or transport is None or transport.is_closing():
            self.behind = False
            return
        if transport.get_write_buffer_size() > board.backlog:
            asyncio.get_running_loop().call_later(board.catch_up_every, self._look_again)
            return
        self.behind = False
        board._spawn(self._catch_up())

    async def _catch_up(self) -> None:
        board = self.board
        try:
            state = await board._send_whole(self)
            if state is not None and self.grant.can_play and state.status is GameStatus.ACTIVE:
                await board._put_pending(state, [self], clear=True)
        except (ConnectionError, RuntimeError) as error:  # the page closed meanwhile
            log.debug("a board page left before it caught up: %r", error)


class WebBoard:
    """The aiohttp application of the web board, over one ``GameService``."""

    def __init__(
        self,
        service: GameService,
        signer: Signer,
        *,
        hooks: BoardHooks | None = None,
        oauth: OAuthApp | None = None,
        bus: GameBus | None = None,
    ) -> None:
        self.service = service
        self.signer = signer
        self.hooks = hooks
        self.oauth = oauth
        self.moves = MovePace()  # moves a link may send, by (game, user)
        # Whole states a link may ask for, by (game, user): a page asks only when a delta
        # does not follow its version, one request at a time; each answer is ~100x its frame.
        self.resyncs = MovePace(burst=2, rate=1.0)
        self.bus = bus  # moves stored by other processes (shards), when there are others
        self.hub = Hub(read=service.game)
        # Bytes a page's transport may hold beyond its socket's kernel buffers before the page
        # falls behind (about 20 whole states of a long game), and how often such a page is
        # looked at again.
        self.backlog = 64 * 1024
        self.catch_up_every = 0.5
        self._names: dict[int, str] = {}
        self._runner: web.AppRunner | None = None
        self._http: aiohttp.ClientSession | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.port = 0
        self.app = web.Application(client_max_size=64 * 1024)
        self.app.router.add_get("/", self._index)
        self.app.router.add_get("/api/config", self._config)
        standings = StandingsPage(service, signer, self.names_of)
        self.app.router.add_get(STANDINGS_PATH + "{token}", standings.handle)
        self.app.router.add_get("/ws", self._socket)
        self.app.router.add_post("/api/token", self._token)
        self.app.router.add_post("/api/activity", self._activity)
        self.app.router.add_static("/static", STATIC, append_version=False)
        self.app.on_response_prepare.append(_headers)
        service.subscribe(self.hub.on_event)
        service.subscribe(self._on_event)
        if bus is not None:
            bus.follow(self)

    # ------------------------------------------------------------------ lifecycle

    async def start(self, port: int, host: str = "0.0.0.0") -> int:
        """Listen on ``host:port`` (0: any free port). Returns the port."""
        # No access log: request lines are harmless (passes ride in fragments), but a proxy
        # or a mistaken link could still put one in a query string.
        self._runner = web.AppRunner(self.app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        # The first listening socket's (host, port, ...): port 0 asked for any free one.
        self.port = int(self._runner.addresses[0][1])
        log.info("web board listening on port %d", self.port)
        return self.port

    async def close(self) -> None:
        """Close every page and stop listening."""
        self.service.unsubscribe(self.hub.on_event)
        self.service.unsubscribe(self._on_event)
        if self.bus is not None:
            self.bus.unfollow(self)
        await self.hub.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._http is not None:
            await self._http.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ rendering

    def _name(self, player: Player, color: Color) -> str:
        if player.level is not None:
            from bot.text import render

            return render.player_label(player)
        if player.user_id is not None and player.user_id in self._names:
            return self._names[player.user_id]
        return words.colour_name(color)

    @staticmethod
    def kind(state: GameState, grant: Pass) -> Kind:
        """What the page of ``grant`` is in ``state``: its language, and the colour its
        viewer plays (None to watch)."""
        if not grant.can_play:
            return (grant.language, None)
        mine = state.color_of(grant.user_id)
        return (grant.language, None if mine is None else _COLOURS[mine])

    def payload(self, state: GameState, kind: Kind, reuse: Reuse | None = None) -> dict[str, Any]:
        """``state`` as a page of ``kind`` draws it (``bot.web.state``; ``reuse``: what the
        kind's render of another version of the game left)."""
        language, colour = kind

        def names(player: Player) -> str:
            color = Color.BLACK if player == state.black else Color.WHITE
            return self._name(player, color)

        mine = None if colour is None else (Color.BLACK, Color.WHITE)[colour]
        with i18n.using(language):
            return game_payload(state, mine, names, reuse)

    async def names_of(self, user_ids: list[int]) -> dict[int, str]:
        """The names of these users that the host knows (kept once found)."""
        await self._learn(user_ids)
        return {user: self._names[user] for user in user_ids if user in self._names}

    async def _learn_names(self, state: GameState) -> None:
        await self._learn(list(state.humans))

    async def _learn(self, user_ids: list[int]) -> None:
        missing = [user for user in user_ids if user not in self._names]
        if not missing or self.hooks is None:
            return
        try:
            found = await asyncio.wait_for(self.hooks.display_names(missing), 3.0)
        except (TimeoutError, OSError) as error:
            log.info("names of a web board's players not found: %r", error)
            return
        if len(self._names) > 10_000:
            self._names.clear()
        self._names.update(found)

    # ------------------------------------------------------------------ routes

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _config(self, request: web.Request) -> web.Response:
        client_id = None if self.oauth is None else str(self.oauth.application_id)
        # A page opened without a pass knows no player's language: the browser's first choice.
        first = request.headers.get("Accept-Language", "").split(",")[0].split(";")[0].strip()
        with i18n.using(i18n.from_system(first)):
            no_pass = page_words()["invalid"]
        return web.json_response({"client_id": client_id, "no_pass": no_pass})

    def _check(self, message: dict[str, Any], game_id: int | None = None) -> Pass:
        grant = self.signer.verify(message.get("token"))
        if game_id is not None and grant.game_id != game_id:
            raise BadPassError("another game")
        return grant

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        # Uncompressed: a state is a few kB, and deflating the same one for each of hundreds
        # of watchers would cost more CPU than the bytes are worth.
        ws = web.WebSocketResponse(heartbeat=_HEARTBEAT, max_msg_size=_MAX_MESSAGE, compress=False)
        await ws.prepare(request)
        page: _Socket | None = None
        try:
            async for message in ws:
                # Frames over the size limit or text that is not UTF-8 never get here: aiohttp
                # closes those sockets itself (1009, 1007) and ends this loop.
                if message.type is not aiohttp.WSMsgType.TEXT:
                    await ws.close(code=_UNSUPPORTED, message=b"text frames only")
                    break
                try:
                    page = await self._frame(ws, page, message.data, request.transport)
                except ConnectionError:  # the client left while it was being answered
                    break
                if ws.closed:
                    break
        finally:
            if page is not None:
                self.hub.leave(page.grant.game_id, page)
        return ws

    async def _frame(
        self,
        ws: web.WebSocketResponse,
        page: _Socket | None,
        text: str,
        transport: asyncio.WriteTransport | None,
    ) -> _Socket | None:
        """Answer one text frame; the page the socket shows afterwards (None: not yet)."""
        try:
            data = parse_message(text)
        except MalformedMessageError as error:
            await ws.close(code=_MALFORMED, message=str(error).encode())
            return page
        try:
            grant = self._check(data, None if page is None else page.grant.game_id)
        except ExpiredPassError:
            await self._deny(ws, "expired", page)
            return page
        except BadPassError:
            await self._deny(ws, "invalid", page)
            return page
        if page is None:
            return await self._open(ws, grant, transport)
        page.grant = grant
        kind = data.get("type")
        if kind == "move" or kind in _ACTIONS:
            if not self.moves.spend((grant.game_id, grant.user_id)):
                await self._slow_down(page)
            elif kind == "move":
                await self._move(page, data)
            else:
                await self._act(page, data)
        elif kind == "resync":
            await self._resync(page)
        elif kind != "hello":
            await ws.send_json({"type": "error", "reason": "unknown type"})
        return page

    async def _resync(self, page: _Socket) -> None:
        """The whole state again, for a page whose versions do not follow (it asks with
        ``{"type": "resync"}``), at the pace of ``resyncs``.

        Beyond the pace the page is owed one: the next state it is sent is whole (a change of
        its game sends it at once), and if none is sent before the pace allows one, the answer
        goes then. Requests while it is owed cost nothing more, so a flood of them costs a
        whole state a second, and the page that waits for its answer gets it.
        """
        if page.owed:
            return
        grant = page.grant
        wait = self.resyncs.wait((grant.game_id, grant.user_id))
        if wait == 0.0:
            await self._send_whole(page)
            return
        page.owed = True
        page.shown, page.kind = -1, None  # whatever it is sent next goes whole
        self._spawn(self._resync_later(page, wait))

    async def _resync_later(self, page: _Socket, wait: float) -> None:
        await asyncio.sleep(wait)
        page.owed = False
        if page.ws.closed or page.shown != -1:  # gone, or a change was sent whole meanwhile
            return
        grant = page.grant
        self.resyncs.spend((grant.game_id, grant.user_id))  # this answer is the pace's
        try:
            await self._send_whole(page)
        except (ConnectionError, RuntimeError) as error:  # the page closed meanwhile
            log.debug("a board page left before its whole state: %r", error)

    async def _send_whole(self, page: _Socket) -> GameState | None:
        """The newest state its game's pages were sent, encoded once however many ask (a
        flood of them reads nothing), or read if that is older than this page's; the state
        sent (None: it could not be read)."""
        game_id = page.grant.game_id
        state = self.hub.current(game_id)
        if state is None or state.version < page.shown:
            try:
                state = await self.service.game(game_id)
            except GomokuError as error:
                await self._refuse(page, error)
                return None
            self.hub.sent(state)  # the newest any page has: a page that falls behind gets it
        page.again(state, self.hub.feed(game_id))
        return state

    async def _deny(self, ws: web.WebSocketResponse, reason: str, page: _Socket | None) -> None:
        language = i18n.DEFAULT if page is None else page.grant.language
        with i18n.using(language):
            text = page_words()[reason]
        await ws.send_json({"type": "denied", "reason": reason, "text": text})
        await ws.close()

    async def _open(
        self, ws: web.WebSocketResponse, grant: Pass, transport: asyncio.WriteTransport | None
    ) -> _Socket | None:
        page = _Socket(self, ws, grant, transport)
        # Joined before the first read: a move stored meanwhile still reaches the page (and
        # ``show`` never sends an older state after a newer one).
        self.hub.join(grant.game_id, page)
        try:
            state = await self.service.game(grant.game_id)
        except GomokuError as error:
            self.hub.leave(grant.game_id, page)
            await self._refuse(page, error)
            await ws.close()
            return None
        await self._learn_names(state)
        page.show(state, self.hub.feed(grant.game_id))
        self.hub.sent(state)
        if grant.can_play and state.status is GameStatus.ACTIVE:
            await self._put_pending(state, [page], clear=False)
        return page

    async def _refuse(self, page: _Socket, error: BaseException) -> None:
        with i18n.using(page.grant.language):
            text = user_message(error) or generic_message()
        await page.ws.send_json({"type": "refused", "text": text})

    async def _slow_down(self, page: _Socket) -> None:
        with i18n.using(page.grant.language):
            text = page_words()["slow_down"]
        await page.ws.send_json({"type": "refused", "text": text})

    async def _move(self, page: _Socket, data: dict[str, Any]) -> None:
        grant = page.grant
        try:
            column, point = _move_of(data)
            if grant.role is not Role.PLAY:
                raise NotAPlayerError(grant.user_id, grant.game_id)
            action: Place | Drop
            if column is not None:
                action = Drop(column)
            else:
                assert point is not None
                action = Place(point)
            await self._play(grant, action)
        except (GomokuError, ValueError) as error:
            # OutOfTimeError too: the move found its time gone, and the game's end reaches
            # every front end as an event.
            await self._refuse(page, error)

    async def _play(self, grant: Pass, action: Action) -> Reply:
        """``action`` of the pass's user, by the pass's game alone (the page shows that game
        wherever it is hosted). What follows it (the AI's reply, the clocks, the other front
        ends' drawing, this game's pages) comes from the service's events."""
        return await self.service.act(GameRef(grant.game_id), grant.user_id, action, via=VIA)

    async def _act(self, page: _Socket, data: dict[str, Any]) -> None:
        """A choice from the page: resign, an opening's choice (``{"word": ...}``), a
        takeback asked or answered, a new game, a hint."""
        grant = page.grant
        try:
            if grant.role is not Role.PLAY:
                raise NotAPlayerError(grant.user_id, grant.game_id)
            kind = data["type"]
            if kind == "resign":
                await self._play(grant, Resign())
            elif kind == "undo":
                await self._undo(page)
            elif kind == "undo_answer":
                await self._answer_undo(page, data.get("accept") is True)
            elif kind in ("rematch", "play_ai"):
                await self._new_game(page, kind)
            elif kind == "hint":
                await self._hint(page)
            else:
                word = data.get("word")
                if not isinstance(word, str) or not 0 < len(word) <= 8:
                    raise ValueError("not a choice")
                await self._play(grant, Choose(word))
        except (GomokuError, ValueError) as error:
            await self._refuse(page, error)

    async def _undo(self, page: _Socket) -> None:
        """Take back the player's last move. Against a person the opponent is asked (their
        pages and Discord, from the ``UndoAsked`` event) and this page says so."""
        grant = page.grant
        outcome = await self._play(grant, AskUndo())
        if not isinstance(outcome, UndoRequest):
            return  # taken back: the state reaches the pages as an event
        await self._learn_names(outcome.game)
        with i18n.using(grant.language):
            name = self._who(outcome.game, outcome.responder)
            text = page_words()["undo_waiting"].format(name=name)
        await page.ws.send_json({"type": "note", "text": text})

    async def _answer_undo(self, page: _Socket, accept: bool) -> None:
        """Answer the request; the takeback (a state) and the answer (``UndoAnswered``)
        reach every page and Discord as events."""
        await self._play(page.grant, AnswerUndo(accept))

    def _on_event(self, event: Event) -> None:
        """A subscriber of the service: an undo request, wherever it was asked, is put to
        the opponent's pages, and its answer to both players' pages (states go to the pages
        through the hub)."""
        if isinstance(event, UndoAsked | UndoAnswered) and self.hub.watchers(event.game.game_id):
            self._spawn(self._tell_pages(event))

    async def _tell_pages(self, event: UndoAsked | UndoAnswered) -> None:
        await self._learn_names(event.game)
        for other in self._pages_of(event.game.game_id):
            if not other.grant.can_play:
                continue
            if isinstance(event, UndoAsked):
                if other.grant.user_id == event.responder:
                    other.send(self._asked(other, event.game, event.requester))
            elif other.grant.user_id in (event.requester, event.responder):
                other.send(self._answered(other, event))

    def _asked(self, page: _Socket, view: GameState, requester: int) -> dict[str, Any]:
        """The message that puts a request to the responder's page: Allow and Refuse until a
        state newer than ``view`` or the answer arrives."""
        with i18n.using(page.grant.language):
            text = page_words()["undo_asked"].format(name=self._who(view, requester))
        return {"type": "undo_asked", "text": text, "version": view.version}

    def _answered(self, page: _Socket, event: UndoAnswered) -> dict[str, Any]:
        """The answer, as the page of one of the two players says it."""
        own = page.grant.user_id == event.by
        kind = "allowed" if event.accepted else "withdrawn" if event.withdrawn else "refused"
        with i18n.using(page.grant.language):
            if own:
                text = page_words()[f"undo_{kind}"]
            else:
                name = self._who(event.game, event.by)
                text = page_words()[f"undo_{kind}_by"].format(name=name)
        return {"type": "undo_answered", "text": text}

    async def _put_pending(self, view: GameState, pages: list[_Socket], *, clear: bool) -> None:
        """Put the undo request waiting in ``view``'s game (read from the database, where
        every process stores it) to those of ``pages`` that answer it; with ``clear``, the
        other players' pages drop any Allow and Refuse they still show."""
        try:
            request = await self.service.repository.undo_request(view.game_id)
        except Exception as error:  # the database away: the page shows the game regardless
            _not_read(view.game_id, error)
            return
        current = (
            request is not None
            and request.version == view.version
            and view.status is GameStatus.ACTIVE
        )
        if current:
            await self._learn_names(view)
        for page in pages:
            if not page.grant.can_play:
                continue
            if current and request is not None and page.grant.user_id == request.responder:
                page.send(self._asked(page, view, request.requester))
            elif clear:
                page.send({"type": "undo_answered", "text": ""})

    # ---- the game bus (``bot.core.bus.Follower``)

    def changed(self, game_id: int, version: int) -> None:
        """Another process stored ``game_id`` at ``version``: its pages read it."""
        self.hub.changed(game_id, version)

    def undo(self, note: UndoNote) -> None:
        """An undo request was asked or answered in another process: told to the pages as
        this process's own events are."""
        if self.hub.watchers(note.game_id):
            self._spawn(self._undo_elsewhere(note))

    def resync(self) -> None:
        """The bus was away: every watched game is read again, and the requests that wait
        in them are put to the pages again (asked or answered meanwhile)."""
        self.hub.resync()
        for game_id in self.hub.games():
            self._spawn(self._pending_again(game_id))

    async def _undo_elsewhere(self, note: UndoNote) -> None:
        from bot.core.bus import UndoAsk

        try:
            view = await self.service.game(note.game_id)
        except Exception as error:  # a game deleted, the database away: the pages wait
            _not_read(note.game_id, error)
            return
        if isinstance(note, UndoAsk):
            if view.version != note.version or view.status is not GameStatus.ACTIVE:
                return  # the game moved on meanwhile: the request is stale
            asked = UndoAsked(view, note.requester, note.responder, note.moves)
            await self._tell_pages(asked)
        else:
            answer = UndoAnswered(view, note.requester, note.responder, note.by, note.accepted)
            await self._tell_pages(answer)

    async def _pending_again(self, game_id: int) -> None:
        """``_put_pending`` to every page of ``game_id``, from the game read again."""
        try:
            view = await self.service.game(game_id)
        except Exception as error:  # a game deleted, the database away: the pages wait
            _not_read(game_id, error)
            return
        await self._put_pending(view, self._pages_of(game_id), clear=True)

    async def _new_game(self, page: _Socket, kind: str) -> None:
        """The same game again, or one against the AI in the same channel, and the page moves
        over to it with a new pass (the pass of a finished game opens only that game). The
        core runner lets the AI open when it plays first; the host posts the new board."""
        grant = page.grant
        if kind == "rematch":
            new = await self.service.rematch(grant.game_id, grant.user_id)
        else:
            old = await self.service.game(grant.game_id)
            new = await self.service.start(
                channel_id=old.channel_id,
                guild_id=old.guild_id,
                user_id=grant.user_id,
                game=old.game,
                rule=old.rule,
                size=old.board.width if game_spec(old.game).sizes is not None else None,
            )
        if self.hooks is not None:
            self.hooks.started(new)
        token = self.signer.mint(new.game_id, grant.user_id, Role.PLAY, language=grant.language)
        await page.ws.send_json({"type": "switch", "token": token})

    async def _hint(self, page: _Socket) -> None:
        """The AI's suggestion, for the page alone (a read: nothing is stored)."""
        grant = page.grant
        view = await self.service.game(grant.game_id)
        if view.status is not GameStatus.ACTIVE:
            # The hint reads the channel's open game, which is this one only while it is on.
            raise GameNotActiveError(view.game_id, view.status)
        hint = await self.service.hint(view.channel_id, grant.user_id)
        point = [hint.point.x, hint.point.y]
        with i18n.using(grant.language):
            text = page_words()["hint_reply"].format(point=hint.point)
        await page.ws.send_json({"type": "hint", "point": point, "text": text})

    def _who(self, view: GameState, user_id: int) -> str:
        """A player's name as the pages show it (its colour when Discord's is not known)."""
        color = view.color_of(user_id) or Color.BLACK
        return self._name(view.player(color), color)

    def _pages_of(self, game_id: int) -> list[_Socket]:
        return [page for page in self.hub.pages(game_id) if isinstance(page, _Socket)]

    # ------------------------------------------------------------------ the Activity

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        return self._http

    async def _token(self, request: web.Request) -> web.Response:
        if self.oauth is None:
            return _problem(404, "the Activity is not configured")
        code = await _field(request, "code")
        if code is None:
            return _problem(400, "no code")
        form = {
            "client_id": str(self.oauth.application_id),
            "client_secret": self.oauth.client_secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        status, body = await self._discord("POST", "/oauth2/token", data=form)
        if status != 200:
            log.info("the Activity's code exchange was refused: HTTP %d", status)
            return _problem(403, "the code was refused")
        token = body.get("access_token")
        if not isinstance(token, str):
            return _problem(502, "Discord sent no access token")
        return web.json_response({"access_token": token})

    async def _activity(self, request: web.Request) -> web.Response:
        if self.oauth is None:
            return _problem(404, "the Activity is not configured")
        access_token = await _field(request, "access_token")
        instance_id = await _field(request, "instance_id")
        if access_token is None or instance_id is None or not _is_id(instance_id):
            return _problem(400, "an access token and an instance id are needed")
        status, me = await self._discord(
            "GET", "/users/@me", headers={"Authorization": f"Bearer {access_token}"}
        )
        if status != 200:
            return _problem(403, "Discord did not accept the access token")
        app = self.oauth.application_id
        status, instance = await self._discord(
            "GET",
            f"/applications/{app}/activity-instances/{instance_id}",
            headers={"Authorization": f"Bot {self.oauth.bot_token}"},
        )
        if status != 200:
            return _problem(403, "no such Activity instance")
        try:
            user_id = int(me["id"])
            users = {int(user) for user in instance.get("users", ())}
            channel_id = int(instance["location"]["channel_id"])
        except (KeyError, TypeError, ValueError):
            return _problem(502, "Discord's answer was not understood")
        if user_id not in users:
            return _problem(403, "you are not in this Activity")
        language = (
            await self.service.language(user_id)
            or i18n.from_discord(me.get("locale"))
            or i18n.DEFAULT
        )
        game = await self.service.open_game(channel_id)
        if game is None or game.status is not GameStatus.ACTIVE:
            with i18n.using(language):
                text = user_message(NoActiveGameError(channel_id)) or generic_message()
            return web.json_response({"error": text}, status=404)
        role = Role.PLAY if user_id in game.humans else Role.WATCH
        grant = self.signer.mint(game.game_id, user_id, role, language=language)
        return web.json_response({"token": grant})

    async def _discord(self, method: str, path: str, **options: Any) -> tuple[int, dict[str, Any]]:
        """Ask Discord's API; (status, JSON object), or (502, {}) when it cannot be reached
        or answers with anything but an object."""
        assert self.oauth is not None
        url = f"{self.oauth.api_base}{path}"
        try:
            async with self._client().request(method, url, **options) as reply:
                body = await reply.json(content_type=None)
                status = reply.status
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            log.warning("Discord's API did not answer the web board: %s", type(error).__name__)
            return 502, {}
        return (status, body) if isinstance(body, dict) else (502, {})


def _move_of(data: dict[str, Any]) -> tuple[int | None, Point | None]:
    """The column or the point of a move message."""
    column = data.get("column")
    if type(column) is int and isinstance(column, int) and 0 <= column < 64:
        return column, None
    x, y = data.get("x"), data.get("y")
    numbers = type(x) is int and type(y) is int
    if numbers and isinstance(x, int) and isinstance(y, int) and 0 <= x < 64 and 0 <= y < 64:
        return None, Point(x, y)
    raise ValueError("not a move")


def _not_read(game_id: int, error: BaseException) -> None:
    # The error's name alone: a database's error may quote an address.
    log.warning("the undo request of game %d was not read: %s", game_id, type(error).__name__)


def _is_id(value: str) -> bool:
    return 0 < len(value) <= 64 and all(c.isalnum() or c in "-_" for c in value)


async def _field(request: web.Request, name: str) -> str | None:
    try:
        body = await request.json()
    except (ValueError, UnicodeDecodeError):
        return None
    value = body.get(name) if isinstance(body, dict) else None
    return value if isinstance(value, str) and 0 < len(value) <= 512 else None


def _problem(status: int, reason: str) -> web.Response:
    return web.json_response({"error": reason}, status=status)


async def _headers(request: web.Request, response: web.StreamResponse) -> None:
    # The page sends no Referer (a pass never leaks through one) and is never cached.
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if not request.path.startswith("/static/"):
        response.headers.setdefault("Cache-Control", "no-store")
