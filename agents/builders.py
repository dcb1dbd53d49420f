"""What builds each kind of agent name: ``function(spec, env_id, seed, env)`` for every entry of `agents.spec.KINDS`.

``env`` is the raw env of the table the agent plays, or ``None`` (an agent that can play without
one builds its own; a search refuses). Each function imports its kind's module when called, so
naming an agent never imports another kind's code (the batched searches need numba).
"""

from __future__ import annotations

from typing import Any

import pirate_envs
from agents.base import Agent, RandomAgent, action_blocks
from agents.spec import AgentSpec


def build_random(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """Uniformly random legal moves (by action block)."""
    env = env if env is not None else pirate_envs.make(env_id, raw=True)
    return RandomAgent(seed=seed, blocks=action_blocks(env))


def build_game(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """One of the game's own agents (``heuristic``, ``oracle`` ...), checked against the table's size."""
    from agents.game_agents import game_agent_kinds, game_agent_player_counts, make_game_agent
    from agents.registry import agent_names

    name = spec.option or ""
    if name not in game_agent_kinds(env_id):
        raise ValueError(f"no agent {name!r} for {env_id}; available: {agent_names(env_id)}")
    counts = game_agent_player_counts(name, env_id)
    players = len(env.possible_agents) if env is not None else None
    if players is not None and players not in counts:
        raise ValueError(f"agent {name!r} plays {env_id} at {', '.join(map(str, counts))} players, not {players}")
    return make_game_agent(name, env_id, seed=seed)


def build_mcts(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """The information-set tree search."""
    from agents.search.ismcts import make_search_agent

    return make_search_agent(str(spec), env_id, seed=seed, env=env)


def build_batched(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """The tree search with its rollouts on the batched engine."""
    from agents.search.batched import make_batched_search_agent

    return make_batched_search_agent(str(spec), env_id, seed=seed, env=env)


def build_guided(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """The search guided by a trained agent's policy, or the omniscient reference."""
    from agents.search.guided import make_guided_agent

    return make_guided_agent(str(spec), env_id, seed=seed, env=env)


def build_halving(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """Sequential halving at the root, every world and rollout on the batched engine."""
    from agents.search.halving import make_halving_agent

    return make_halving_agent(str(spec), env_id, seed=seed, env=env)


def build_rules(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """A rule card's player (deterministic: ``seed`` is unused)."""
    from agents.rules.agent import make_rules_agent

    return make_rules_agent(str(spec), env_id)


def build_ppo(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """A trained agent file (data only), masked argmax or, with ``#sample``, sampled."""
    from agents.policy.agent import make_policy_agent

    return make_policy_agent(spec.source or "", env_id, seed=seed, env=env)


def build_dmc(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """A Deep Monte-Carlo agent file: the legal move of highest Q."""
    from agents.policy.dmc_file import make_dmc_agent

    return make_dmc_agent(spec.source or "", env_id, seed=seed, env=env)


def build_openspiel(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """OpenSpiel's ISMCTSBot (`agents.openspiel_bots`; the ``openspiel`` extra)."""
    from agents.openspiel_bots import make_openspiel_agent

    return make_openspiel_agent(str(spec), env_id, seed=seed, env=env)


def build_python(spec: AgentSpec, env_id: str, seed: int | None, env: Any) -> Agent:
    """The user's Python agent: its module is loaded (its code runs) and its factory called for ``env``."""
    from agents.benchmark.candidate import load_python_agent

    env = env if env is not None else pirate_envs.make(env_id, raw=True)
    return load_python_agent(str(spec)).make(env_id, seed, env)


__all__ = [
    "build_batched",
    "build_dmc",
    "build_game",
    "build_guided",
    "build_halving",
    "build_mcts",
    "build_ppo",
    "build_python",
    "build_random",
    "build_rules",
]
