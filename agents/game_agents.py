"""The game-specific agents by kind and env id: ``make_game_agent("heuristic", "skull_king_v0", seed=1)``.

Each game's spec (``pirate_envs/<game>/spec.py``) names its agents (``heuristic``, ``oracle``) by
``"module:Class"`` strings. A leaf of ``agents``: the registry (every agent name) and the tree
search (its heuristic rollouts) both build these, and neither imports the other for it.
"""

from __future__ import annotations

import pirate_envs
from agents.base import Agent
from agents.extras import agent_available
from agents.games import game_agents_of
from pirate_envs.core.spec import resolve


def game_agent_kinds(env_id: str) -> list[str]:
    """The kinds of game-specific agent ``env_id`` has (``heuristic``, ``oracle``...)."""
    return list(game_agents_of(env_id).kinds)


def available_game_agent_kinds(env_id: str) -> list[str]:
    """The kinds of `game_agent_kinds` whose extras are installed (the others refuse to build)."""
    agents = game_agents_of(env_id).kinds
    return [kind for kind in agents if agent_available(resolve(agents[kind]))]


def game_agent_player_counts(kind: str, env_id: str) -> tuple[int, ...]:
    """The table sizes a game agent plays: its class's ``player_counts`` (imported, not built), else every size.

    Any other name (not a game agent of ``env_id``): every size of the game.
    """
    agents = game_agents_of(env_id).kinds
    everything = pirate_envs.player_counts(env_id)
    return tuple(getattr(resolve(agents[kind]), "player_counts", everything)) if kind in agents else everything


def make_game_agent(kind: str, env_id: str, seed: int | None = None) -> Agent:
    """A fresh game-specific agent of ``kind`` for ``env_id``, reset with ``seed``.

    Raises ``ValueError`` naming the kinds ``env_id`` has when it has no such agent.
    """
    agents = game_agents_of(env_id).kinds
    if kind not in agents:
        raise ValueError(f"no agent {kind!r} for {env_id}; game agents: {list(agents)}")
    agent = resolve(agents[kind])()
    agent.reset(seed)
    return agent
