"""The game-specific agents by kind and env id: ``make_game_agent("heuristic", "skull_king_v0", seed=1)``.

A leaf of ``agents``: the registry (every agent name) and the tree search (its heuristic
rollouts) both build these, and neither imports the other for it.
"""

from __future__ import annotations

import importlib

from agents.base import Agent

#: ``kind -> env id -> "module:Class"`` of the game-specific agents.
GAME_AGENTS: dict[str, dict[str, str]] = {
    "heuristic": {
        "piraten_kapern_v0": "agents.kapern_heuristic:KapernHeuristic",
        "skull_king_v0": "agents.skull_king_heuristic:SkullKingHeuristic",
        "piratenpoker_v0": "agents.piratenpoker_heuristic:PiratenpokerHeuristic",
        "lucky_pirate_v0": "agents.lucky_pirate_heuristic:LuckyPirateHeuristic",
    },
    "oracle": {
        "piraten_kapern_v0": "agents.kapern_oracle:KapernOracleAgent",
    },
}


def game_agent_kinds(env_id: str) -> list[str]:
    """The kinds of game-specific agent ``env_id`` has (``heuristic``, ``oracle``...)."""
    return [kind for kind, table in GAME_AGENTS.items() if env_id in table]


def make_game_agent(kind: str, env_id: str, seed: int | None = None) -> Agent:
    """A fresh game-specific agent of ``kind`` for ``env_id``, reset with ``seed``.

    Raises ``ValueError`` naming the kinds ``env_id`` has when it has no such agent.
    """
    table = GAME_AGENTS.get(kind, {})
    if env_id not in table:
        raise ValueError(f"no agent {kind!r} for {env_id}; game agents: {game_agent_kinds(env_id)}")
    module_name, class_name = table[env_id].split(":")
    agent = getattr(importlib.import_module(module_name), class_name)()
    agent.reset(seed)
    return agent
