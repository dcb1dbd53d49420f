"""Load on the web table: many shared tables at once, each with scripted people and agents, over 127.0.0.1.

Starts ``python -m experiments.web`` on a free port of 127.0.0.1 with a fresh data folder, then
keeps ``--tables`` tables busy for ``--seconds``: each is opened by a scripted host with an
invited guest (who joins by the invite) and ``--agent`` in the other seats; both people follow
the table on its event stream and, once a pushed state says it is their turn, think for about
``--think`` seconds (0.5 to 1.5 times it) and play a random legal move with the version they saw.
A table that finishes is replaced by a new one. ``--think 0`` is a stress test: every person
moves the instant it may, so the latencies measure the queue of a saturated server.

    python benchmarks/bench_web_tables.py [--tables 50] [--seconds 60] [--agent ppo:skull_king_v0] [--think 1]

Prints the median and 95th percentile of two latencies: a move's answer (the ``POST`` until its
answer) and a turn (the move until the pushed state where no agent is thinking any more: the
agents' answers included), and the checks that no game was lost or mixed: every pushed state
names its own table and seat and never goes back in version; every finished game's record
replays, from its seed and moves, to the scores both people were shown; every table opened is
still listed in the lobby.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import httpx

import pirate_envs


@dataclass
class Figures:
    answers: list[float] = field(default_factory=list)  # seconds from a move's POST to its answer
    turns: list[float] = field(default_factory=list)  # seconds from a move to the next settled state
    finished: list[tuple[str, list[float], list[float]]] = field(default_factory=list)  # id, host's, guest's scores
    opened: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
                answer = await client.post(f"/api/tables/{tid}/move", json=body, headers=headers)
                figures.answers.append(time.perf_counter() - start)
                if answer.status_code != 200:
                    figures.problems.append(f"{tid}: a move was refused: {answer.text[:120]}")
                moved_at, moved_version = start, state["version"]
    return None


async def table_loop(
    client: httpx.AsyncClient, args: argparse.Namespace, figures: Figures, deadline: float, rng: random.Random
) -> None:
    """Open tables one after another until the time is up."""
    while time.monotonic() < deadline:
        seats = ["you", "person", *[args.agent] * (args.players - 2)]
        body = {"env_id": args.env_id, "seats": seats, "options": {"num_hands": args.hands}}
        opened = (await client.post("/api/tables", json=body)).json()
        tid, host = opened["id"], opened["token"]
        figures.opened.append(tid)
        invites = (await client.get(f"/api/tables/{tid}/invites", headers={"X-Seat-Token": host})).json()
        guest = invites["invites"][0]["token"]
        await client.post(f"/api/tables/{tid}/join", json={}, headers={"X-Seat-Token": guest})
        scores = await asyncio.gather(
            person(client, tid, host, 0, figures, deadline, rng, args.think),
            person(client, tid, guest, 1, figures, deadline, rng, args.think),
        )
        if scores[0] is not None and scores[1] is not None:
            figures.finished.append((tid, scores[0], scores[1]))


async def drive(url: str, args: argparse.Namespace) -> Figures:
    figures = Figures()
    deadline = time.monotonic() + args.seconds
    limits = httpx.Limits(max_connections=4 * args.tables + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        await asyncio.gather(
            *(table_loop(client, args, figures, deadline, random.Random(i)) for i in range(args.tables))
        )
        lobby = (await client.get("/api/lobby")).json()
        listed = {t["id"] for t in lobby["open"]} | {t["id"] for t in lobby["finished"]}
        for tid in figures.opened:
            if tid not in listed and len(lobby["finished"]) < 50:  # the lobby lists the newest 50 finished
                figures.problems.append(f"{tid} is missing from the lobby")
        for tid, host_scores, guest_scores in figures.finished:
            record = (await client.get(f"/api/tables/{tid}/record")).json()
            env = pirate_envs.make(record["env_id"], raw=True, **record["env_kwargs"])
            env.reset(seed=record["seed"])
            for action in record["actions"]:
                env.step(action)
            replayed = env.game.scores().tolist()
            if not (env.game.done and replayed == record["scores"] == host_scores == guest_scores):
                figures.problems.append(f"{tid}: the record replays to {replayed}, the people saw {host_scores}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--env-id", default="skull_king_v0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hands", type=int, default=3, help="Skull King hands per game")
    parser.add_argument("--agent", default="ppo:skull_king_v0")
    parser.add_argument(
        "--think", type=float, default=1.0, help="a person's mean seconds before a move (0.5 to 1.5 times it; 0: none)"
    )
    args = parser.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="web-tables-") as data:
        server = subprocess.Popen(
            [sys.executable, "-m", "experiments.web", "--port", str(port), "--data-dir", data],
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(600):
                try:
                    httpx.get(f"{url}/api/games", timeout=60)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            figures = asyncio.run(drive(url, args))
        finally:
            server.terminate()
            server.wait(30)
    print(
        f"{args.tables} tables x {args.seconds:.0f} s, {args.env_id} {args.players} players "
        f"(2 scripted people thinking ~{args.think:g} s, {args.agent}), 127.0.0.1"
    )
    print(f"tables opened {len(figures.opened)}, finished {len(figures.finished)}, moves {len(figures.answers)}")
    for name, values in (("move answer", figures.answers), ("turn (agents included)", figures.turns)):
        if values:
            print(
                f"{name:24s} median {1000 * statistics.median(values):7.1f} ms   "
                f"p95 {1000 * percentile(values, 0.95):7.1f} ms   ({len(values)})"
            )
    print("no game lost or mixed" if not figures.problems else "PROBLEMS:\n  " + "\n  ".join(figures.problems[:20]))
    if figures.problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
