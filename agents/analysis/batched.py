"""The analyzer's games on the batched engine, replayed on their reference engines for the collector.

When every agent of a lineup has a batched form (`agents.batched.make_batched_agent`: ``random``,
``heuristic``, ``ppo:<...>``) the games are played many at once on `pirate_envs.vector`, one
``act_batch`` per lineup entry and engine step, seats rotated as in `agents.analysis.driver`
(entry ``k`` at seat ``(k + g) mod n`` in game ``g``). Each finished game is then replayed move by
move in an AEC env on its reference engine (``venv.reference_engine(row)`` reset with
``venv.reset_options(row)``), through the driver's `start_game`, `step` and `end_game`, so the
collector gets exactly the `Decision`s (Views and events) and final Views the AEC path gives for
that game: only who chooses the moves differs, not what is recorded.

Deals: game ``g`` of a run with seed ``seed`` is the game ``pirate_envs.vector.make(env_id, 1,
seed=seed + g)`` deals (its row's stream is seeded from ``SeedSequence(seed + g)``), whatever the
batch size. The batched engine's streams are not the AEC env's, so these are other cards and dice
than the AEC path deals for the same seed. Agents are seeded with ``seed + k`` (entry ``k``), like
the AEC path's; a random or sampling agent draws from one stream for all its games, so its choices
differ from the AEC path's, a deterministic agent's do not (given the same deal).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.analysis.driver import Collector, end_game, seating, start_game, step
from agents.batched import BatchedAgent, make_batched_agent
from agents.policy.blas import one_blas_thread

#: The engines the analyzer plays on: ``auto`` picks ``batched`` where `batched_unsupported` finds no reason not to.
ENGINES: tuple[str, ...] = ("auto", "aec", "batched")

#: Games played at once (rows of the batched engine).
BATCH_SIZE = 1024


def batched_agents(env_id: str, lineup: Sequence[str], raw: Any, num_slots: int, seed: int) -> list[BatchedAgent]:
    """The batched form of each lineup entry (entry ``k`` seeded ``seed + k``); ``ValueError`` naming one without."""
    agents = []
    for k, name in enumerate(lineup):
        try:
            agents.append(make_batched_agent(name, env_id, raw, num_slots, seed=seed + k))
        except ImportError as error:  # a policy the batched form cannot run
            raise ValueError(f"agent {name!r} has no batched form for {env_id} ({error})") from None
    return agents


def batched_unsupported(env_id: str, lineup: Sequence[str], env_kwargs: dict[str, Any] | None = None) -> str | None:
    """Why ``lineup`` cannot play ``env_id`` on the batched engine (one line), ``None`` when it can."""
    import pirate_envs.vector

    if importlib.util.find_spec("numba") is None:
        return "numba is not installed (the fast extra)"
    if env_id not in pirate_envs.vector.COVERED_ENV_IDS:
        return f"the batched engine does not cover {env_id}"
    raw = pirate_envs.make(env_id, raw=True, num_players=len(lineup), **(env_kwargs or {}))
    try:
        batched_agents(env_id, lineup, raw, 1, seed=0)
    except ValueError as error:
        return str(error)
    return None


def choose_engine(engine: str, env_id: str, lineup: Sequence[str], env_kwargs: dict[str, Any] | None = None) -> str:
    """``aec`` or ``batched`` for the requested ``engine`` (`ENGINES`); ``ValueError`` (one line) when
    ``batched`` is asked for and cannot play this lineup."""
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} is not valid; choose from {', '.join(ENGINES)}")
    if engine == "aec":
        return "aec"
    reason = batched_unsupported(env_id, lineup, env_kwargs)
    if reason is None:
        return "batched"
    if engine == "batched":
        raise ValueError(f"--engine batched: {reason}; use --engine aec or auto")
    return "aec"


def deal_games(venv: Any, seeds: np.ndarray) -> None:
    """Start a new game in every row of ``venv``, row ``i`` dealt as ``vector.make(env_id, 1, seed=seeds[i])`` deals.

    Each row's stream starts at the first state word of ``SeedSequence(seeds[i])``, which is what a
    one-row engine's ``reset(seed)`` uses (``reset(streams=...)``).
    """
    states = np.array(
        [np.random.SeedSequence(int(s)).generate_state(1, dtype=np.uint64)[0] for s in seeds], dtype=np.uint64
    )
    venv.reset(streams=states)


def play_batch(venv: Any, agents: Sequence[BatchedAgent], first_game: int, count: int) -> None:
    """Play games ``first_game .. first_game + count - 1`` (rows ``0 .. count - 1``, already dealt) to their end.

    Lineup entry ``k`` sits at seat ``(k + g) mod n`` of game ``g``; the seat on turn's entry moves
    (one ``act_batch`` per entry and step); the other rows wait. A row's agent slots are
    ``row * n + seat``.
    """
    n = venv.num_players
    games = first_game + np.arange(venv.num_envs)
    slots = (np.arange(venv.num_envs)[:, None] * n + np.arange(n)).ravel()
    for agent in agents:
        agent.reset_games(slots)
    in_batch = np.arange(venv.num_envs) < count
    actions = np.zeros(venv.num_envs, dtype=np.int64)
    while True:
        live = in_batch & ~(venv.terminated | venv.truncated)
        rows = np.flatnonzero(live)
        if rows.size == 0:
            return
        seats = venv.current_player[rows]
        entries = (seats - games[rows]) % n  # entry k sits at seat (k + g) % n
        observation, mask = venv.observation, venv.action_mask
        for k in np.unique(entries).tolist():
            chosen = entries == k
            group = rows[chosen]
            actions[group] = agents[k].act_batch(group * n + seats[chosen], observation[group], mask[group])
        venv.step(actions, active=live)


def replay_game(
    env: Any, venv: Any, row: int, seat_names: Sequence[str], collector: Collector, game_index: int, seed: int
) -> None:
    """Replay row ``row``'s finished game in the raw AEC env ``env`` on its reference engine into ``collector``."""
    env.unwrapped.game = venv.reference_engine(row)
    seen = start_game(env, seat_names, collector, game_index, seed, venv.reset_options(row))
    for action in venv.moves(row):
        seen = step(env, action, seat_names, collector, game_index, seen)
    game = env.unwrapped.game
    if not game.done or bool(game.terminated) != bool(venv.terminated[row]):
        raise RuntimeError(f"game {game_index}: its replay on the reference engine does not end as the batched game")
    end_game(env, collector)


def run_games_batched(
    env_id: str,
    lineup: Sequence[str],
    games: int,
    seed: int,
    collector: Collector,
    env_kwargs: dict[str, Any] | None = None,
    batch_size: int = BATCH_SIZE,
) -> Collector:
    """Play ``games`` seat-rotated games of ``lineup`` on the batched engine, ``batch_size`` at once, and
    feed each, replayed on its reference engine, into ``collector`` (see the module docstring)."""
    import pirate_envs.vector

    n = len(lineup)
    kwargs = {"num_players": n, **(env_kwargs or {})}
    rows = max(1, min(batch_size, games))
    venv = pirate_envs.vector.make(env_id, rows, seed=seed, **kwargs)
    venv.reset()
    raw = pirate_envs.make(env_id, raw=True, **kwargs)
    table = pirate_envs.make(env_id, raw=True, **kwargs)  # the agents' table stays apart from the replays
    agents = batched_agents(env_id, lineup, table, rows * n, seed)
    for first in range(0, games, rows):
        count = min(rows, games - first)
        deal_games(venv, seed + first + np.arange(rows))
        with one_blas_thread():
            play_batch(venv, agents, first, count)
        for row in range(count):
            g = first + row
            seat_names = [""] * n
            for k, seat in enumerate(seating(n, g)):
                seat_names[seat] = lineup[k]
            replay_game(raw, venv, row, seat_names, collector, g, seed + g)
    return collector


__all__ = [
    "BATCH_SIZE",
    "ENGINES",
    "batched_agents",
    "batched_unsupported",
    "choose_engine",
    "deal_games",
    "play_batch",
    "replay_game",
    "run_games_batched",
]
