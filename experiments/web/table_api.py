"""The shared tables' HTTP API (see `experiments.web.tables`).

A seat is named by its token in the ``X-Seat-Token`` header, never in a URL; no token is a spectator.
Opening a table is limited per client and in all (429), and may need the host password; a busy
table is waited for on the event loop for at most `LOCK_WAIT_S` seconds (409 after); a hint is
computed on a copy, outside the table's lock. The routes, the streams and the hints:
``docs/guides/playing.md`` ("The shared tables' HTTP API").
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from experiments.web.host_controls import PASSWORD_HEADER, OpeningGate
from experiments.web.sessions import RequestError
from experiments.web.tables import LOCK_WAIT_S, Table, TableBusy, TableHall

#: Longest ``staged`` query of a hint (action numbers separated by commas).
MAX_STAGED_TEXT = 400
#: Seconds between the stream's keep-alive comments.
KEEP_ALIVE_S = 15.0
TOKEN_HEADER = "x-seat-token"


def _token(request: Request) -> str | None:
    """The request's seat token (None: a spectator); 403 for one that cannot be a token (never echoed)."""
    token = request.headers.get(TOKEN_HEADER)
    if token is not None and not re.fullmatch(r"[A-Za-z0-9_-]{0,100}", token):
        raise RequestError("this seat link is not valid at this table", 403)
    return token or None


def staged_moves(request: Request) -> list[int]:
    """The request's ``staged`` moves (query ``staged=A,B``: integers separated by commas; none when absent)."""
    text = request.query_params.get("staged", "")
    if len(text) > MAX_STAGED_TEXT or not re.fullmatch(r"(\d{1,6}(,\d{1,6})*)?", text):
        raise RequestError("staged must be action numbers separated by commas, e.g. staged=12,40")
    return [int(a) for a in text.split(",")] if text else []


def _json_text(text: str) -> Response:
    return Response(text, media_type="application/json", headers={"Cache-Control": "no-store"})


def table_routes(
    hall: TableHall,
    off_loop: Callable[[Callable[[], Any]], Awaitable[Any]],
    json_body: Callable[[Request], Awaitable[Any]],
    hint_loop: Callable[[Callable[[], Any]], Awaitable[Any]],
    gate: OpeningGate | None = None,
) -> list[Route]:
    """The routes of the shared tables; ``off_loop`` runs game work in a worker thread, ``hint_loop`` a hint
    in one of the hints' own (bounded) threads; ``gate`` admits the new tables."""
    gate = gate or OpeningGate()

    async def patiently(work: Callable[[], Any]) -> Any:
        """``off_loop(work)``, again while the table is busy (waiting here, not in a thread), `LOCK_WAIT_S` at most."""
        loop = asyncio.get_running_loop()
        deadline, pause = loop.time() + LOCK_WAIT_S, 0.005
        while True:
            try:
                return await off_loop(work)
            except TableBusy:
                if loop.time() + pause > deadline:
                    raise RequestError("this table is busy; try again", 409) from None
            await asyncio.sleep(pause)
            pause = min(2 * pause, 0.1)

    def seated(request: Request) -> tuple[Table, int | None]:
        table = hall.get(request.path_params["tid"])
        return table, table.seat_of(_token(request))

    async def lobby(request: Request) -> JSONResponse:
        return JSONResponse({**hall.lobby(), "password_required": gate.password_required})

    async def open_table(request: Request) -> JSONResponse:
        client = request.client.host if request.client else ""
        take_back = gate.admit(client, request.headers.get(PASSWORD_HEADER))
        try:
            body = await json_body(request)

            def work() -> JSONResponse:
                table, seat = hall.open(body, client)
                token = table.seats[seat].token
                return JSONResponse({"id": table.id, "seat": seat, "token": token, "state": _state(table, seat)})

            return await off_loop(work)
        except RequestError as error:
            if error.status < 500 and error.status != 429:  # a bad body is no table: it is not counted
                take_back()
            raise

    def _state(table: Table, seat: int | None) -> Any:
        return json.loads(table.state_json(seat)[1])

    async def show(request: Request) -> Response:
        table, seat = seated(request)
        return _json_text(table.state_json(seat)[1])

    async def act(request: Request, action: Callable[[Table, int | None, Any], str]) -> Response:
        """Answer with the seat's state right after ``action`` (the agents may have moved since)."""
        table, seat = seated(request)
        body = await json_body(request)

        def work() -> Response:
            return _json_text(action(table, seat, body))

        return await patiently(work)

    async def join(request: Request) -> Response:
        return await act(request, lambda t, s, body: t.join(s, body.get("name") if isinstance(body, dict) else None))

    async def start(request: Request) -> Response:
        return await act(request, lambda t, s, body: t.start(s))

    async def move(request: Request) -> Response:
        return await act(request, lambda t, s, body: t.play(s, body))

    async def close(request: Request) -> Response:
        table, seat = seated(request)
        await json_body(request)
        await patiently(lambda: table.close(seat))
        return JSONResponse({"closed": True})

    async def invites(request: Request) -> JSONResponse:
        table, seat = seated(request)
        return JSONResponse({"invites": table.invites(seat)}, headers={"Cache-Control": "no-store"})

    async def hint(request: Request) -> JSONResponse:
        table, seat = seated(request)
        agent, staged = request.query_params.get("agent"), staged_moves(request)
        position = await patiently(lambda: table.hint_position(seat, staged))
        return await hint_loop(lambda: JSONResponse(position.answer(agent)))

    async def record(request: Request) -> JSONResponse:
        table = hall.get(request.path_params["tid"])
        if table.record is None:
            raise RequestError("the record is given once the game is over (its seed and moves show every card)", 409)
        return JSONResponse(table.record)

    async def stream(request: Request) -> StreamingResponse:
        table, seat = seated(request)

        async def events() -> AsyncIterator[str]:
            wake = asyncio.Event()
            listener = (asyncio.get_running_loop(), wake)
            table.listen(listener)
            sent = -1
            try:
                while True:
                    wake.clear()
                    for serial, text in table.states_since(seat, sent):
                        sent = serial
                        yield f"data: {text}\n\n"
                    if table.status == "closed" or hall.stopping:
                        return
                    try:
                        await asyncio.wait_for(wake.wait(), KEEP_ALIVE_S)
                    except asyncio.TimeoutError:
                        yield ": keep-alive\n\n"
            finally:
                table.unlisten(listener)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(events(), media_type="text/event-stream", headers=headers)

    return [
        Route("/api/lobby", lobby),
        Route("/api/tables", open_table, methods=["POST"]),
        Route("/api/tables/{tid}", show),
        Route("/api/tables/{tid}/stream", stream),
        Route("/api/tables/{tid}/join", join, methods=["POST"]),
        Route("/api/tables/{tid}/start", start, methods=["POST"]),
        Route("/api/tables/{tid}/close", close, methods=["POST"]),
        Route("/api/tables/{tid}/invites", invites),
        Route("/api/tables/{tid}/move", move, methods=["POST"]),
        Route("/api/tables/{tid}/hint", hint),
        Route("/api/tables/{tid}/record", record),
    ]


__all__ = ["TOKEN_HEADER", "staged_moves", "table_routes"]
