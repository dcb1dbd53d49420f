"""Load on the web table: many shared tables at once, each with scripted people and agents, over 127.0.0.1.

Starts ``python -m experiments.web`` on a free port of 127.0.0.1 with a fresh data folder, then
keeps ``--tables`` tables busy for ``--seconds``: each is opened by a scripted host with an
invited guest (who joins by the invite) and ``--agent`` in the other seats; both people follow
the table on its event stream and, once a pushed state says it is their turn, think for about
``--think`` seconds (0.5 to 1.5 times it) and play a random legal move with the version they saw.
A table that finishes is replaced by a new one. ``--think 0`` is a stress test: every person
moves the instant it may, so the latencies measure the queue of a saturated server.

    python benchmarks/bench_web_tables.py [--tables 50 200] [--seconds 60] [--agent ppo:skull_king_v0] [--think 1]

Each ``--tables`` count runs on a server of its own. Prints, per count, the machine's load
average before and after, the median and 95th percentile of two latencies: a move's answer (the
``POST`` until its answer) and a turn (the move until the pushed state where no agent is
thinking any more: the agents' answers included), the errors by kind (a broken connection, a
refused request: counted, and the table is replaced by a new one), and the checks that no game
was lost or mixed: every pushed state names its own table and seat and never goes back in
version; every finished game's record replays, from its seed and moves, to the scores both
people were shown; every table opened is still listed in the lobby. Exits 1 on a problem (an
error is no problem: it is counted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TypeVar

import httpx

import pirate_envs

T = TypeVar("T")


@dataclass
class Figures:
    answers: list[float] = field(default_factory=list)  # seconds from a move's POST to its answer
    turns: list[float] = field(default_factory=list)  # seconds from a move to the next settled state
    finished: list[tuple[str, list[float], list[float]]] = field(default_factory=list)  # id, host's, guest's scores
    opened: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)  # per kind: a broken connection, a refused request


class Refused(Exception):
    """The server answered a request with an error status."""


#: What a request may meet on a loaded server: counted, never fatal (ValueError: a body cut short is not JSON).
ERRORS = (httpx.HTTPError, Refused, ValueError)


def checked(answer: httpx.Response) -> httpx.Response:
    """``answer``; `Refused` when its status is not 200."""
    if answer.status_code != 200:
        raise Refused(f"HTTP {answer.status_code}")
    return answer


def count(figures: Figures, error: Exception) -> None:
    """Count ``error`` by kind: a refusal by its status, else by its type (``ReadError``, ``ConnectTimeout``...)."""
    figures.errors[f"refused {error}" if isinstance(error, Refused) else type(error).__name__] += 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def counted(work: Awaitable[T], figures: Figures) -> T | None:
    """What ``work`` returns; None after an error, counted in ``figures``."""
    try:
        return await work
    except ERRORS as error:
        count(figures, error)
        return None


async def person(
    client: httpx.AsyncClient,
    tid: str,
    token: str,
    seat: int,
    figures: Figures,
    deadline: float,
    rng: random.Random,
    think: float,
) -> list[float] | None:
    """Follow the table on its stream and play when it is this seat's turn; the final scores (None: time up)."""
    headers = {"X-Seat-Token": token}
    version, moved_at, moved_version = -1, None, -1
    async with client.stream("GET", f"/api/tables/{tid}/stream", headers=headers) as stream:
        async for line in stream.aiter_lines():
            if not line.startswith("data: "):  # a keep-alive
                if time.monotonic() > deadline:
                    return None
                continue
            state = json.loads(line[6:])
            if state["id"] != tid or state["seat"] != seat:
                figures.problems.append(f"{tid}: seat {seat} was pushed table {state['id']} seat {state['seat']}")
            if state["version"] < version:
                figures.problems.append(f"{tid}: seat {seat}'s version went back from {version}")
            version = state["version"]
            if moved_at is not None and state["version"] > moved_version and state["thinking"] is None:
                figures.turns.append(time.perf_counter() - moved_at)
                moved_at = None
            if state["done"]:
                return state["scores"]
            if time.monotonic() > deadline:
                return None
            if state["your_turn"] and moved_at is None and state["version"] > moved_version:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))  # a person reads the table before moving
                body = {"action": rng.choice(state["moves"])["action"], "version": state["version"]}
                start = time.perf_counter()
                checked(await client.post(f"/api/tables/{tid}/move", json=body, headers=headers))
                figures.answers.append(time.perf_counter() - start)
                moved_at, moved_version = start, state["version"]
    return None


async def table_loop(
    client: httpx.AsyncClient, args: argparse.Namespace, figures: Figures, deadline: float, rng: random.Random
) -> None:
    """Open tables one after another until the time is up (after an error: a second later)."""
    while time.monotonic() < deadline:
        seats = ["you", "person", *[args.agent] * (args.players - 2)]
        body = {"env_id": args.env_id, "seats": seats, "options": {"num_hands": args.hands}}
        try:
            opened = checked(await client.post("/api/tables", json=body)).json()
            tid, host = opened["id"], opened["token"]
            figures.opened.append(tid)
            invites = checked(await client.get(f"/api/tables/{tid}/invites", headers={"X-Seat-Token": host})).json()
            guest = invites["invites"][0]["token"]
            checked(await client.post(f"/api/tables/{tid}/join", json={}, headers={"X-Seat-Token": guest}))
        except ERRORS as error:
            count(figures, error)
            await asyncio.sleep(1.0)
            continue
        scores = await asyncio.gather(
            counted(person(client, tid, host, 0, figures, deadline, rng, args.think), figures),
            counted(person(client, tid, guest, 1, figures, deadline, rng, args.think), figures),
        )
        if scores[0] is not None and scores[1] is not None:
            figures.finished.append((tid, scores[0], scores[1]))


async def drive(url: str, args: argparse.Namespace, tables: int) -> Figures:
    figures = Figures()
    deadline = time.monotonic() + args.seconds
    limits = httpx.Limits(max_connections=4 * tables + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        await asyncio.gather(*(table_loop(client, args, figures, deadline, random.Random(i)) for i in range(tables)))
        try:
            lobby = checked(await client.get("/api/lobby")).json()
        except ERRORS as error:
            count(figures, error)
            figures.problems.append("the lobby did not answer after the run")
            return figures
        listed = {t["id"] for t in lobby["open"]} | {t["id"] for t in lobby["finished"]}
        for tid in figures.opened:
            if tid not in listed and len(lobby["finished"]) < 50:  # the lobby lists the newest 50 finished
                figures.problems.append(f"{tid} is missing from the lobby")
        for tid, host_scores, guest_scores in figures.finished:
            record = checked(await client.get(f"/api/tables/{tid}/record")).json()
            env = pirate_envs.make(record["env_id"], raw=True, **record["env_kwargs"])
            env.reset(seed=record["seed"])
            for action in record["actions"]:
                env.step(action)
            replayed = env.game.scores().tolist()
            if not (env.game.done and replayed == record["scores"] == host_scores == guest_scores):
                figures.problems.append(f"{tid}: the record replays to {replayed}, the people saw {host_scores}")
    return figures


def run(args: argparse.Namespace, tables: int) -> Figures:
    """Serve a fresh table on a free port of 127.0.0.1 (no limit on new tables) and drive ``tables`` tables."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    unlimited = str(1_000_000)
    command = [sys.executable, "-m", "experiments.web", "--port", str(port)]
    with tempfile.TemporaryDirectory(prefix="web-tables-") as data:
        command += ["--data-dir", data, "--tables-per-client", unlimited, "--tables-in-all", unlimited]
        command += ["--unfinished-per-client", unlimited]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        try:
            for _ in range(600):
                try:
                    httpx.get(f"{url}/api/games", timeout=60)
                    break
                except httpx.TransportError:
                    if server.poll() is not None:
                        raise SystemExit(f"the server stopped at its start (status {server.returncode})") from None
                    time.sleep(0.1)
            return asyncio.run(drive(url, args, tables))
        finally:
            server.terminate()
            server.wait(30)


def report(args: argparse.Namespace, tables: int, figures: Figures, load: tuple[float, float]) -> None:
    print(
        f"{tables} tables x {args.seconds:.0f} s, {args.env_id} {args.players} players "
        f"(2 scripted people thinking ~{args.think:g} s, {args.agent}), 127.0.0.1; "
        f"load average {load[0]:.1f} before, {load[1]:.1f} after"
    )
    print(f"tables opened {len(figures.opened)}, finished {len(figures.finished)}, moves {len(figures.answers)}")
    for name, values in (("move answer", figures.answers), ("turn (agents included)", figures.turns)):
        if values:
            print(
                f"{name:24s} median {1000 * statistics.median(values):7.1f} ms   "
                f"p95 {1000 * percentile(values, 0.95):7.1f} ms   ({len(values)})"
            )
    errors = ", ".join(f"{kind} {n}" for kind, n in figures.errors.most_common()) or "none"
    print(f"errors {sum(figures.errors.values())} ({errors})")
    print("no game lost or mixed" if not figures.problems else "PROBLEMS:\n  " + "\n  ".join(figures.problems[:20]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[50], help="tables at once (each count: one run)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--env-id", default="skull_king_v0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hands", type=int, default=3, help="Skull King hands per game")
    parser.add_argument("--agent", default="ppo:skull_king_v0")
    parser.add_argument(
        "--think", type=float, default=1.0, help="a person's mean seconds before a move (0.5 to 1.5 times it; 0: none)"
    )
    args = parser.parse_args()
    if min(args.tables) < 1 or args.seconds <= 0:
        parser.error(f"--tables {args.tables} must be at least 1 and --seconds {args.seconds} positive")
    problems = False
    for tables in args.tables:
        before = os.getloadavg()[0]
        figures = run(args, tables)
        report(args, tables, figures, (before, os.getloadavg()[0]))
        problems |= bool(figures.problems)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
