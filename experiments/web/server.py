"""The web table's HTTP API (Starlette) and its static page.

A one-person game's routes (``/api/games``, ``/api/sessions``, ``/api/replays``) and the page; the
shared tables' routes are `experiments.web.table_api`. A state is what its seat may see; a hint is
computed on a copy of the game, outside its lock, in at most `HINT_THREADS` threads; game work runs
in at most `GAME_THREADS` threads off the event loop. Bodies are JSON only (at most `MAX_BODY`
bytes), never evaluated or unpickled; every answer carries `SECURITY_HEADERS`; `RequestGuard`
refuses other hosts and cross-site writes. Meant for this machine (``127.0.0.1``). The routes,
the states, the hints and the guards: ``docs/guides/playing.md`` ("The web table's HTTP API").
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import pirate_envs
from experiments.web.host_controls import OpeningGate
from experiments.web.sessions import (
    AgentCatalog,
    GameSession,
    HintPosition,
    ReplaySession,
    RequestError,
    SessionStore,
    page_options,
)
from experiments.web.storage import TableDB
from experiments.web.table_api import staged_moves, table_routes
from experiments.web.tables import IDLE_HOURS, WAITING_MINUTES, TableHall
from pirate_envs.core.text import text_module

STATIC_DIR = Path(__file__).parent / "static"
#: Largest request body read (a record of ``MAX_RECORD_ACTIONS`` actions takes under half of it).
MAX_BODY = 256 * 1024
#: Worker threads for game work (moves, agent turns, new games, replays) at once.
GAME_THREADS = 4
#: Hints computed at once, in threads of their own (a hint asked while they all run is answered 503).
HINT_THREADS = 2
#: Host names every table answers to (and any bound address); see :class:`RequestGuard`.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: Addresses that bind every interface.
WILDCARD_HOSTS = ("0.0.0.0", "::")
#: Methods that change state: checked against cross-site requests and for a JSON body.
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Headers of every answer: the page's own scripts, styles and requests only, never in a frame, no sniffing,
#: no referrer (a seat's link stays in the page).
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(host_header: str) -> str:
    """The name of a ``Host`` header, without its port or an IPv6 address's brackets, lower case."""
    try:
        name = urlsplit(f"//{host_header}").hostname
    except ValueError:  # a malformed address, e.g. an unclosed "[::1"
        return ""
    return (name or "").lower()


def _netloc(url: str) -> str:
    """The ``host[:port]`` of ``url``, lower case ("" for one that is not a URL, e.g. ``null``)."""
    try:
        return urlsplit(url).netloc.lower()
    except ValueError:
        return ""


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class RequestGuard:
    """ASGI middleware: refuse requests a web page on another site could make through the browser.

    * ``Host`` must name this server (400): a loopback name, the bound address, one of
      ``extra_hosts``, or when bound to every interface any IP address (a DNS-rebinding page
      sends its own host name, never an address). The port is not checked: a tunnel or a
      forwarded port changes it, and a rebinding page needs no other port.
    * ``POST``/``DELETE``: ``Sec-Fetch-Site`` ``cross-site`` or ``same-site`` (403), an
      ``Origin`` other than the ``Host`` (403), a ``Content-Type`` other than
      ``application/json`` (415; a cross-site form or simple fetch cannot send it).
    """

    def __init__(self, app: ASGIApp, bind_host: str = "127.0.0.1", extra_hosts: Iterable[str] = ()):
        self.app = app
        names = {*LOOPBACK_NAMES, *(h.lower().strip("[]") for h in extra_hosts)}
        self.any_ip = bind_host in WILDCARD_HOSTS
        if not self.any_ip:
            names.add(bind_host.lower().strip("[]"))
        self.names = frozenset(names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                await _error_response(refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> RequestError | None:
        """Why this request is refused, or None."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        name = _host_name(host)
        if not (name in self.names or (self.any_ip and _is_ip(name))):
            return RequestError(f"Host {host[:60]!r} is not this table's address", 400)
        if scope["method"] not in STATE_CHANGING:
            return None
        if headers.get("sec-fetch-site", "same-origin") in ("cross-site", "same-site"):
            return RequestError("cross-site requests are refused", 403)
        origin = headers.get("origin")
        if origin is not None and _netloc(origin) != host.lower():
            return RequestError(f"Origin {origin[:60]!r} is not this table", 403)
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            return RequestError("send the body as Content-Type: application/json", 415)
        return None


class SecurityHeaders:
    """ASGI middleware: `SECURITY_HEADERS` on every answer (pages, API, errors, static files)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.decode("latin-1").lower() not in SECURITY_HEADERS
                ]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


async def _json_body(request: Request) -> Any:
    """The request's JSON body; 413 from its ``Content-Length`` or as soon as it streams past `MAX_BODY`."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise RequestError(f"Content-Length {length[:20]!r} is not a number")
        if int(length) > MAX_BODY:
            raise RequestError(f"request body over {MAX_BODY} bytes", 413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise RequestError(f"request body over {MAX_BODY} bytes", 413)
    try:
        return json.loads(body)
    except RecursionError:
        raise RequestError("the body is JSON nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as error:  # JSONDecodeError, and integers over Python's digit limit
        raise RequestError(f"the body is not JSON: {str(error)[:120]}") from None


@contextmanager
def _held(session: Any) -> Iterator[None]:
    """Hold ``session``'s lock; 409 while another request holds it (never wait: a worker thread is scarce)."""
    if not session.lock.acquire(blocking=False):
        raise RequestError("this game is busy with an earlier request; try again", 409)
    try:
        yield
    finally:
        session.lock.release()


def _error_response(error: RequestError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=error.status, headers=getattr(error, "headers", None))


async def _request_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestError)
    return _error_response(error)


async def _server_error(request: Request, error: Exception) -> Response:
    """Last resort: an unexpected error is logged (by the server) and answered without details."""
    return _error_response(RequestError("internal error; the server log has the details", 500))


def card_faces(env: Any) -> dict[str, dict[str, Any]]:
    """The drawn face of each special card by the name the events give it (``pirate``, ``scary_mary:escape``), for
    the game of ``env`` if its text module draws cards (`card_face`); the page draws a suit card from its name."""
    module = text_module(env)
    face, names = getattr(module, "card_face", None), getattr(module, "TOKEN_NAMES", None)
    if face is None or names is None:
        return {}
    faces = {name: face(token) for token, name in enumerate(names)}
    return {name: drawn for name, drawn in faces.items() if drawn["kind"] != "suit"}


def create_app(
    agents_dir: str | Path | None = None,
    store: SessionStore | None = None,
    bind_host: str = "127.0.0.1",
    extra_hosts: Iterable[str] = (),
    data_dir: str | Path | None = None,
    gate: OpeningGate | None = None,
    waiting_minutes: float = WAITING_MINUTES,
    idle_hours: float = IDLE_HOURS,
) -> Starlette:
    """The web table's ASGI app; agent files are read from ``agents_dir`` only.

    ``bind_host`` and ``extra_hosts``: the addresses and names the ``Host`` header may name
    (see `RequestGuard`). ``data_dir``: the folder of the shared tables' database (None: in memory).
    ``gate``: who may open tables and how often (default: `OpeningGate`'s limits, no password);
    ``waiting_minutes`` and ``idle_hours``: when waiting and idle tables expire (`TableHall`).
    """
    catalog = AgentCatalog(agents_dir)
    sessions = store if store is not None else SessionStore()
    gate = gate or OpeningGate()
    hall = TableHall(
        catalog,
        TableDB(data_dir),
        idle_hours,
        threads=GAME_THREADS,
        waiting_minutes=waiting_minutes,
        open_per_client=gate.limits.unfinished_per_client,
    )
    limiter = anyio.CapacityLimiter(GAME_THREADS)

    def guarded(work: Callable[[], Any]) -> Any:
        """``work()``, with any error but a `RequestError` logged and turned into a generic 500."""
        try:
            return work()
        except RequestError:
            raise
        except Exception:
            log.exception("the web table's game code failed")
            raise RequestError("internal error in the game; the server log has the details", 500) from None

    async def off_loop(work: Callable[[], Any]) -> Any:
        """Run game work in a worker thread (at most `GAME_THREADS` at once)."""
        return await anyio.to_thread.run_sync(partial(guarded, work), limiter=limiter)

    hint_slots, hint_threads = anyio.CapacityLimiter(HINT_THREADS), anyio.CapacityLimiter(HINT_THREADS)

    async def hint_loop(work: Callable[[], Any]) -> Any:
        """Compute a hint in a thread of the hints' own (at most `HINT_THREADS`; 503 when they are all busy)."""
        try:
            hint_slots.acquire_nowait()
        except anyio.WouldBlock:
            raise RequestError(f"{HINT_THREADS} hints are being computed; ask again in a moment", 503) from None
        try:
            return await anyio.to_thread.run_sync(partial(guarded, work), limiter=hint_threads)
        finally:
            hint_slots.release()

    def answer(sid: str, session: Any, action: Callable[[], Any] | None = None) -> JSONResponse:
        """Run ``action`` (if any) on ``session``, then its state."""
        with _held(session):
            if action is not None:
                action()
            return JSONResponse({"id": sid, **session.state()})

    def games_list() -> JSONResponse:
        out = {}
        for env_id in pirate_envs.ENV_IDS:
            spec, on_page = pirate_envs.game_spec(env_id), page_options(env_id)
            env = pirate_envs.make(env_id, raw=True)
            config = env.config
            out[env_id] = {
                "name": spec.name,
                "players": list(spec.player_counts),
                "default_players": spec.default_players,
                "agents": catalog.names(env_id),
                "agent_notes": catalog.notes(env_id),
                "options": {k: getattr(config, k) for k in on_page},
                "option_ranges": {k: list(r) for k, r in spec.option_ranges.items() if k in on_page},
                "card_faces": card_faces(env),
            }
        return JSONResponse(out)

    async def games(request: Request) -> JSONResponse:
        return await off_loop(games_list)

    async def create(request: Request, factory: Callable[[dict[str, Any]], Any]) -> JSONResponse:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise RequestError("the body must be a JSON object")

        def work() -> JSONResponse:
            session = factory(body)
            return answer(sessions.add(session), session)

        return await off_loop(work)

    async def new_game(request: Request) -> JSONResponse:
        return await create(request, lambda body: GameSession(body, catalog))

    async def new_replay(request: Request) -> JSONResponse:
        return await create(request, ReplaySession)

    async def show(request: Request) -> JSONResponse:
        sid = request.path_params["sid"]
        session = sessions.get(sid)
        return await off_loop(lambda: answer(sid, session))

    async def move(request: Request) -> JSONResponse:
        sid = request.path_params["sid"]
        session = sessions.get(sid)
        body = await _json_body(request)
        return await off_loop(lambda: answer(sid, session, lambda: session.move(body)))

    async def record(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["sid"])
        if not isinstance(session, GameSession):
            raise RequestError("only games have records", 404)

        def work() -> JSONResponse:
            with _held(session):
                return JSONResponse(session.record())

        return await off_loop(work)

    async def hint(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["sid"])
        if not isinstance(session, GameSession):
            raise RequestError("only games have hints", 404)
        agent, staged = request.query_params.get("agent"), staged_moves(request)

        def snapshot() -> HintPosition:
            with _held(session):
                return session.hint_position(None, staged)

        position = await off_loop(snapshot)
        return await hint_loop(lambda: JSONResponse(position.answer(agent)))

    async def delete(request: Request) -> JSONResponse:
        sessions.remove(request.path_params["sid"])
        return JSONResponse({"freed": True})

    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    def favicon(request: Request) -> FileResponse:
        return FileResponse(STATIC_DIR / "favicon.svg", media_type="image/svg+xml")

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/api/games", games),
        Route("/api/sessions", new_game, methods=["POST"]),
        Route("/api/sessions/{sid}", show),
        Route("/api/sessions/{sid}", delete, methods=["DELETE"]),
        Route("/api/sessions/{sid}/move", move, methods=["POST"]),
        Route("/api/sessions/{sid}/record", record),
        Route("/api/sessions/{sid}/hint", hint),
        Route("/api/replays", new_replay, methods=["POST"]),
        Route("/api/replays/{sid}", show),
        Route("/api/replays/{sid}/goto", move, methods=["POST"]),
        *table_routes(hall, off_loop, _json_body, hint_loop, gate),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await anyio.to_thread.run_sync(hall.close)  # the agents' threads end with the server

    app = Starlette(
        routes=routes,
        exception_handlers={RequestError: _request_error, Exception: _server_error},
        lifespan=lifespan,
    )
    app.add_middleware(RequestGuard, bind_host=bind_host, extra_hosts=tuple(extra_hosts))
    app.add_middleware(SecurityHeaders)
    app.state.sessions = sessions
    app.state.tables = hall
    app.state.catalog = catalog
    return app


__all__ = ["GAME_THREADS", "HINT_THREADS", "MAX_BODY", "RequestGuard", "create_app", "is_loopback"]
