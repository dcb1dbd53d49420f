"""The web table's HTTP API (Starlette) and its static page.

| method and path | body | answer |
|---|---|---|
| ``GET /`` | | the page |
| ``GET /api/games`` | | per game: name, player counts, agent names, settable options |
| ``POST /api/sessions`` | ``{env_id, opponents: [names], seat, seed?, options?}`` | a new game's state and ``id`` |
| ``GET /api/sessions/{id}`` | | its state |
| ``POST /api/sessions/{id}/move`` | ``{action: int}`` or ``{command: text}`` | the state after the agents moved |
| ``GET /api/sessions/{id}/record`` | | the game record (replays through the raw env) |
| ``DELETE /api/sessions/{id}`` | | frees it |
| ``POST /api/replays`` | a game record | a replay's state and ``id`` |
| ``POST /api/replays/{id}/goto`` | ``{step: int}`` | the state after that step |

A bad request gets a 4xx answer ``{"error": message}``; the game goes on. Bodies are JSON only,
read with ``json.loads``: nothing from a request is evaluated or unpickled.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import pirate_envs
from experiments.cli import player_counts
from experiments.web.sessions import (
    GAME_OPTIONS,
    AgentCatalog,
    GameSession,
    ReplaySession,
    RequestError,
    SessionStore,
)
from pirate_envs.core.text import text_module

STATIC_DIR = Path(__file__).parent / "static"
#: Largest request body read (a long game record fits).
MAX_BODY = 4 * 1024 * 1024


async def _json_body(request: Request) -> Any:
    body = await request.body()
    if len(body) > MAX_BODY:
        raise RequestError(f"request body over {MAX_BODY} bytes", 413)
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RequestError(f"the body is not JSON: {error}") from None


def _error(error: RequestError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=error.status)


def create_app(agents_dir: str | Path | None = None, store: SessionStore | None = None) -> Starlette:
    """The web table's ASGI app; agent files are read from ``agents_dir`` only."""
    catalog = AgentCatalog(agents_dir)
    sessions = store if store is not None else SessionStore()

    def games(request: Request) -> JSONResponse:
        out = {}
        for env_id in pirate_envs.ENV_IDS:
            env = pirate_envs.make(env_id, raw=True)
            out[env_id] = {
                "name": text_module(env).GAME_NAME,
                "players": list(player_counts(env_id)),
                "default_players": env.game.num_players,
                "agents": catalog.names(env_id),
                "options": {k: getattr(env.config, k) for k in GAME_OPTIONS[env_id]},
            }
        return JSONResponse(out)

    def answer(sid: str, session: Any) -> JSONResponse:
        with session.lock:
            return JSONResponse({"id": sid, **session.state()})

    async def create(request: Request, factory: Any) -> JSONResponse:
        try:
            body = await _json_body(request)
            if not isinstance(body, dict):
                raise RequestError("the body must be a JSON object")
            session = factory(body)
            sid = sessions.add(session)
            return answer(sid, session)
        except RequestError as error:
            return _error(error)

    async def new_game(request: Request) -> JSONResponse:
        return await create(request, lambda body: GameSession(body, catalog))

    async def new_replay(request: Request) -> JSONResponse:
        return await create(request, ReplaySession)

    async def show(request: Request) -> JSONResponse:
        try:
            sid = request.path_params["sid"]
            return answer(sid, sessions.get(sid))
        except RequestError as error:
            return _error(error)

    async def move(request: Request) -> JSONResponse:
        try:
            sid = request.path_params["sid"]
            session = sessions.get(sid)
            body = await _json_body(request)
            with session.lock:
                session.move(body)
            return answer(sid, session)
        except RequestError as error:
            return _error(error)

    async def record(request: Request) -> JSONResponse:
        try:
            session = sessions.get(request.path_params["sid"])
            if not isinstance(session, GameSession):
                raise RequestError("only games have records", 404)
            with session.lock:
                return JSONResponse(session.record())
        except RequestError as error:
            return _error(error)

    async def delete(request: Request) -> JSONResponse:
        try:
            sessions.remove(request.path_params["sid"])
            return JSONResponse({"freed": True})
        except RequestError as error:
            return _error(error)

    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    routes = [
        Route("/", index),
        Route("/api/games", games),
        Route("/api/sessions", new_game, methods=["POST"]),
        Route("/api/sessions/{sid}", show),
        Route("/api/sessions/{sid}", delete, methods=["DELETE"]),
        Route("/api/sessions/{sid}/move", move, methods=["POST"]),
        Route("/api/sessions/{sid}/record", record),
        Route("/api/replays", new_replay, methods=["POST"]),
        Route("/api/replays/{sid}", show),
        Route("/api/replays/{sid}/goto", move, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.sessions = sessions
    app.state.catalog = catalog
    return app


__all__ = ["create_app"]
