"""The web board's server: the page, its WebSocket, and the Activity's OAuth2 routes.

Routes and what each checks:

``GET /``                  the board page (``static/index.html``); it holds no game and no pass
``GET /static/...``        its script, styles and the Activity bundle (when built)
``GET /api/config``        the application id the Activity's SDK needs (public anyway)
``GET /ws``                a WebSocket: the first message is ``{"type": "hello", "token": T}``;
                           every later message carries the pass again and is checked again
                           (signature, expiry, the same game); moves go through the game
                           service by the pass's game id, as the pass's user; what follows
                           a move (the AI's reply, the clocks, the Discord board's redraw)
                           is the core runner's and the other front ends' (events)
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
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

import aiohttp
from aiohttp import web

from bot.core.service import GameService
from bot.core.service.errors import NoActiveGameError, NotAPlayerError
from bot.core.service.inputs import Drop, GameRef, Place
from bot.core.service.states import GameState
from bot.text import i18n, words
from bot.text.refusals import generic_message, user_message
from bot.text.web_words import page_words
from bot.web.hub import Hub
from bot.web.state import game_payload
from bot.web.tokens import BadPassError, ExpiredPassError, Pass, Role, Signer
from engine.errors import GomokuError
from engine.types import Color, Point
from storage.records import GameStatus, Player

__all__ = ["STATIC", "BoardHooks", "OAuthApp", "WebBoard"]

if TYPE_CHECKING:
    from bot.core.bus import GameBus  # msgspec: installed with the postgres and queue extras

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).resolve().parent / "static"
_MAX_MESSAGE: Final = 4096  # bytes: a move or a hello is a few dozen
_HEARTBEAT: Final = 20.0  # seconds between pings: proxies drop quiet sockets


VIA: Final = "web"  # the front end's name in the events of the moves it plays


class BoardHooks(Protocol):
    """What the web board asks of the front-end that hosts it."""

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
    """One open page: its WebSocket and the pass it was opened with."""

    def __init__(self, board: WebBoard, ws: web.WebSocketResponse, grant: Pass) -> None:
        self.board = board
        self.ws = ws
        self.grant = grant
        self.shown = -1  # the newest version sent

    async def show(self, state: GameState, cache: dict[object, str]) -> None:
        """Send ``state`` unless this page has it or a newer one already."""
        if state.version <= self.shown or self.ws.closed:
            return
        viewer = self.grant.user_id if self.grant.can_play else None
        key = (self.grant.language, viewer)
        text = cache.get(key)
        if text is None:
            text = self.board.render(state, self.grant)
            cache[key] = text
        self.shown = state.version
        await self.ws.send_str(text)


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
        self.bus = bus  # moves stored by other processes (shards), when there are others
        self.hub = Hub(read=service.game)
        self._names: dict[int, str] = {}
        self._runner: web.AppRunner | None = None
        self._http: aiohttp.ClientSession | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.port = 0
        self.app = web.Application(client_max_size=64 * 1024)
        self.app.router.add_get("/", self._index)
        self.app.router.add_get("/api/config", self._config)
        self.app.router.add_get("/ws", self._socket)
        self.app.router.add_post("/api/token", self._token)
        self.app.router.add_post("/api/activity", self._activity)
        self.app.router.add_static("/static", STATIC, append_version=False)
        self.app.on_response_prepare.append(_headers)
        service.subscribe(self.hub.on_event)
        if bus is not None:
            bus.follow(self.hub)

    # ------------------------------------------------------------------ lifecycle

    async def start(self, port: int, host: str = "0.0.0.0") -> int:
        """Listen on ``host:port`` (0: any free port). Returns the port."""
        # No access log: request lines are harmless (passes ride in fragments), but a proxy
        # or a mistaken link could still put one in a query string.
        self._runner = web.AppRunner(self.app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        log.info("web board listening on port %d", self.port)
        return self.port

    async def close(self) -> None:
        """Close every page and stop listening."""
        self.service.unsubscribe(self.hub.on_event)
        if self.bus is not None:
            self.bus.unfollow(self.hub)
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

    def render(self, state: GameState, grant: Pass) -> str:
        """``state`` as the page of ``grant`` gets it (JSON text)."""
        viewer = grant.user_id if grant.can_play else None

        def names(player: Player) -> str:
            color = Color.BLACK if player == state.black else Color.WHITE
            return self._name(player, color)

        with i18n.using(grant.language):
            return json.dumps(game_payload(state, viewer, names), ensure_ascii=False)

    async def _learn_names(self, state: GameState) -> None:
        missing = [user for user in state.humans if user not in self._names]
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
                if message.type is not aiohttp.WSMsgType.TEXT:
                    break
                try:
                    data = json.loads(message.data)
                    if not isinstance(data, dict):
                        raise ValueError("not an object")
                    grant = self._check(data, None if page is None else page.grant.game_id)
                except ExpiredPassError:
                    await self._deny(ws, "expired", page)
                    break
                except (BadPassError, ValueError):
                    await self._deny(ws, "invalid", page)
                    break
                if page is None:
                    page = await self._open(ws, grant)
                    if page is None:
                        break
                    continue
                page.grant = grant
                if data.get("type") == "move":
                    await self._move(page, data)
        finally:
            if page is not None:
                self.hub.leave(page.grant.game_id, page)
        return ws

    async def _deny(self, ws: web.WebSocketResponse, reason: str, page: _Socket | None) -> None:
        language = i18n.DEFAULT if page is None else page.grant.language
        with i18n.using(language):
            text = page_words()[reason]
        await ws.send_json({"type": "denied", "reason": reason, "text": text})
        await ws.close()

    async def _open(self, ws: web.WebSocketResponse, grant: Pass) -> _Socket | None:
        page = _Socket(self, ws, grant)
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
        await page.show(state, {})
        return page

    async def _refuse(self, page: _Socket, error: BaseException) -> None:
        with i18n.using(page.grant.language):
            text = user_message(error) or generic_message()
        await page.ws.send_json({"type": "refused", "text": text})

    async def _move(self, page: _Socket, data: dict[str, Any]) -> None:
        grant = page.grant
        try:
            column, point = _move_of(data)
            if grant.role is not Role.PLAY:
                raise NotAPlayerError(grant.user_id, grant.game_id)
            # By the pass's game alone: the page shows that game wherever it is hosted.
            action: Place | Drop
            if column is not None:
                action = Drop(column)
            else:
                assert point is not None
                action = Place(point)
            await self.service.act(GameRef(grant.game_id), grant.user_id, action, via=VIA)
        except (GomokuError, ValueError) as error:
            # OutOfTimeError too: the move found its time gone, and the game's end reaches
            # every front end as an event.
            await self._refuse(page, error)
            return

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
    if type(column) is int and isinstance(column, int):
        return column, None
    x, y = data.get("x"), data.get("y")
    numbers = type(x) is int and type(y) is int
    if numbers and isinstance(x, int) and isinstance(y, int) and 0 <= x < 64 and 0 <= y < 64:
        return None, Point(x, y)
    raise ValueError("not a move")


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
