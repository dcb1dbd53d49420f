"""Playing games between agents: one game on a raw env, the seat rotation, and tournament jobs.

Game ``g`` of a lineup of ``n`` agents seats agent ``k`` at seat ``(k + g) mod n`` (`seating`),
so every agent plays every seat. A win shared by ``w`` players counts ``1/w`` (`win_shares`); a
truncated game counts as no win. With ``duplicate`` every deal is played once per rotation with
the same seed (`deal_of`): game ``g`` uses seed ``seed + g // n`` and rotation ``g mod n``, so
the luck of the deal cancels. `play_jobs` plays a list of `Job` in this process or in a pool of
``workers`` processes (the records are the same), with a progress line on stderr only if asked.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

import pirate_envs
from agents.base import Agent
from agents.policy.blas import one_blas_thread
from agents.processes import in_processes
from agents.registry import make_agent
from pirate_envs.core.errors import check_seed, is_integer
from pirate_envs.core.rewards import win_shares as shares_of_winners


@dataclass
class GameRecord:
    """The outcome of one game, per seat."""

    scores: list[float]
    win_shares: list[float]
    truncated: bool
    #: The engine's ``truncation_reason`` of a truncated game (``None`` when it gives none).
    truncation_reason: str | None = None
    #: The seed the game was dealt with.
    seed: int | None = None
    #: Every action in order (the game replays from ``seed`` and these).
    actions: list[int] = field(default_factory=list)


def seating(num_agents: int, game: int) -> list[int]:
    """The seat of each agent in game ``game`` of a rotation: agent ``k`` sits at ``(k + game) % n``."""
    return [(k + game) % num_agents for k in range(num_agents)]


def deal_key(names: list[str], record: GameRecord) -> tuple[tuple[str, ...], int | None]:
    """The duplicate deal a game belongs to: its line-up (the names, in any seating) and its seed."""
    return tuple(sorted(names)), record.seed


def deal_of(game: int, num_agents: int, duplicate: bool) -> tuple[int, int]:
    """``(seed offset, rotation)`` of game ``game``: one deal per game, or one per ``n`` rotations."""
    return (game // num_agents if duplicate else game), game % num_agents


def play_game(env: Any, seat_agents: list[Agent], seed: int) -> GameRecord:
    """Play one game on a raw env; ``seat_agents[s]`` plays seat ``s``."""
    env.reset(seed=seed)
    for s, agent in enumerate(seat_agents):
        agent.reset(seed * 101 + s)
    game = env.game
    actions = []
    while not game.done:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        action = int(seat_agents[seat].act(obs, game.view(seat)))
        actions.append(action)
        env.step(action)
    return finished_record(game, seed, actions)


def finished_record(game: Any, seed: int | None, actions: list[int]) -> GameRecord:
    """The record of a finished game (its scores, win shares and truncation) dealt with ``seed``."""
    return GameRecord(game.scores().tolist(), win_shares(game), game.truncated, truncation_reason(game), seed, actions)


def win_shares(game: Any) -> list[float]:
    """Each seat's share of the win of a finished game: ``1/w`` for each of ``w`` winners, none if truncated."""
    return shares_of_winners(game.winners() if game.terminated else [], game.num_players)


def truncation_reason(game: Any) -> str | None:
    """The engine's reason a finished game was truncated (``None`` if it was not, or gives none)."""
    return game.truncation_reason if game.truncated else None


@dataclass(frozen=True)
class Job:
    """One game to play: the lineup (agent ``k`` is ``lineup[k]``), its seed and its rotation."""

    env_id: str
    lineup: tuple[str, ...]
    seed: int
    rotation: int
    env_kwargs: tuple[tuple[str, Any], ...] = ()

    def seat_names(self) -> list[str]:
        """The agent name at each seat."""
        names = [""] * len(self.lineup)
        for k, seat in enumerate(seating(len(self.lineup), self.rotation)):
            names[seat] = self.lineup[k]
        return names


def tournament_jobs(
    env_id: str, agent_names: list[str], games: int, seed: int = 0, duplicate: bool = False, **env_kwargs: Any
) -> list[Job]:
    """The ``games`` seat-rotated games of one lineup (deals repeated per rotation with ``duplicate``).

    ``ValueError``/``TypeError`` naming the argument for a lineup that is not a non-empty list of names, or a
    game count or seed that is not a non-negative integer (``games`` at least 1).
    """
    if isinstance(agent_names, str) or not all(isinstance(name, str) for name in agent_names):
        raise TypeError(f"agent_names={agent_names!r} is not valid; expected a list of agent names")
    if not agent_names:
        raise ValueError("agent_names=[] is not valid; name the agent of each seat")
    if not is_integer(games) or games < 1:
        raise ValueError(f"games={games!r} is not valid; expected an integer of at least 1")
    seed = check_seed(seed) or 0
    n = len(agent_names)
    if duplicate and games % n:
        raise ValueError(f"--duplicate plays each deal once per rotation: games must be a multiple of {n}, not {games}")
    # list values (a short deck's ``suits=[0, 3]``) as tuples: a job's options key the built tables
    kwargs = tuple(sorted((name, tuple(v) if isinstance(v, list) else v) for name, v in env_kwargs.items()))
    jobs = []
    for g in range(games):
        offset, rotation = deal_of(g, n, duplicate)
        jobs.append(Job(env_id, tuple(agent_names), seed + offset, rotation, kwargs))
    return jobs


#: Per process and `play_jobs` call: the env and agents of each lineup, built once.
_TABLES: dict[tuple[str, tuple[str, ...], tuple[tuple[str, Any], ...]], tuple[Any, list[Agent]]] = {}


def play_job(job: Job) -> GameRecord:
    """Play one job (agents and env are built once per lineup and process, then reset per game)."""
    key = (job.env_id, job.lineup, job.env_kwargs)
    if key not in _TABLES:
        env = pirate_envs.make(job.env_id, raw=True, num_players=len(job.lineup), **dict(job.env_kwargs))
        agents = [make_agent(name, job.env_id, seed=k, env=env) for k, name in enumerate(job.lineup)]
        _TABLES[key] = env, agents
    env, agents = _TABLES[key]
    seat_agents: list[Agent] = [agents[0]] * len(agents)
    for k, seat in enumerate(seating(len(agents), job.rotation)):
        seat_agents[seat] = agents[k]
    return play_game(env, seat_agents, job.seed)


def play_jobs(
    jobs: list[Job],
    workers: int = 1,
    progress: bool = False,
    on_record: Callable[[Job, GameRecord], Any] | None = None,
) -> list[GameRecord]:
    """Every job's record, in order; ``workers`` processes; a progress line on stderr if asked.

    ``on_record(job, record)`` is called in this process for each game as it comes back, in job
    order (before the next one is awaited), so what it keeps outlives a run stopped part-way.
    The agents are built afresh for each call (an agent file rewritten between calls is reread). A worker
    process that dies (killed for memory, say) raises `agents.processes.WorkerDied`.
    """
    if not is_integer(workers) or workers < 1:
        raise ValueError(f"workers={workers!r} is not valid; expected an integer of at least 1")
    _TABLES.clear()
    try:
        with one_blas_thread():
            if workers > 1:
                with closing(in_processes(play_job, jobs, workers, ordered=True, playing="a game")) as played:
                    return _collect(jobs, _with_progress(played, len(jobs), progress), on_record)
            return _collect(jobs, _with_progress(map(play_job, jobs), len(jobs), progress), on_record)
    finally:
        _TABLES.clear()


def _collect(
    jobs: list[Job], records: Iterable[GameRecord], on_record: Callable[[Job, GameRecord], Any] | None
) -> list[GameRecord]:
    collected = []
    for job, record in zip(jobs, records):
        if on_record is not None:
            on_record(job, record)
        collected.append(record)
    return collected


def _with_progress(records: Iterable[GameRecord], total: int, show: bool, every: float = 5.0) -> Iterator[GameRecord]:
    """Pass ``records`` through, writing ``done/total, rate, time left`` to stderr at most every ``every`` s."""
    start = last = time.monotonic()
    for done, record in enumerate(records, 1):
        now = time.monotonic()
        if show and (now - last >= every or done == total):
            rate = done / max(now - start, 1e-9)
            left = (total - done) / rate
            print(f"\r{done}/{total} games, {rate:.2f} games/s, about {left:.0f} s left", end="", file=sys.stderr)
            if done == total:
                print(file=sys.stderr)
            last = now
        yield record


def seat_names(agent_names: list[str], records: list[GameRecord]) -> list[list[str]]:
    """The agent name at each seat of each game of `run_tournament`."""
    n = len(agent_names)
    names_by_game = []
    for g in range(len(records)):
        names = [""] * n
        for k, seat in enumerate(seating(n, g)):
            names[seat] = agent_names[k]
        names_by_game.append(names)
    return names_by_game
