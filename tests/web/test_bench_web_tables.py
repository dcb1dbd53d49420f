"""The web load benchmark survives a broken connection or a refused request: it counts them and goes on."""

from __future__ import annotations

import asyncio
import random
import time
from argparse import Namespace

from tests.web.conftest import require_module

require_module("httpx", "web")

import httpx  # noqa: E402

from benchmarks.bench_web_tables import Figures, counted, person, table_loop  # noqa: E402


def _client(handler) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url="http://127.0.0.1", transport=httpx.MockTransport(handler))


def test_a_stream_cut_mid_game_is_counted_not_raised():
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadError("the server went away", request=request)

    async def go() -> tuple[object, Figures]:
        figures = Figures()
        async with _client(handler) as client:
            work = person(client, "t", "token", 0, figures, time.monotonic() + 60, random.Random(0), 0.0)
            result = await counted(work, figures)
        return result, figures

    result, figures = asyncio.run(go())
    assert result is None and figures.errors == {"ReadError": 1} and figures.problems == []


def test_a_refused_new_table_is_counted_and_tried_again_until_the_time_is_up():
    asked = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return httpx.Response(429, json={"error": "too many new tables"}, headers={"Retry-After": "1"})

    async def go() -> Figures:
        figures = Figures()
        args = Namespace(agent="random", players=4, env_id="skull_king_v0", hands=1, think=0.0)
        async with _client(handler) as client:
            await table_loop(client, args, figures, time.monotonic() + 1.5, random.Random(0))
        return figures

    figures = asyncio.run(go())
    assert figures.errors == {"refused HTTP 429": len(asked)} and len(asked) >= 1 and figures.opened == []
