"""The single-agent Gymnasium ids (``pirate_envs/<Game>-v0``), registered from the ``agents`` package.

``import agents`` registers them (`register_gymnasium_ids`); so does Gymnasium's module prefix,
``gymnasium.make("agents:pirate_envs/SkullKing-v0")``, with no import of one's own. Each builds a
`agents.selfplay.env.SelfPlayEnv`, imported only when an id is built.
"""

from __future__ import annotations

import gymnasium

import pirate_envs

#: Gymnasium's entry point of every id: the self-play env, imported when an id is built.
ENTRY_POINT = "agents.selfplay.env:SelfPlayEnv"


def register_gymnasium_ids() -> None:
    """Register the ids of ``pirate_envs.GYMNASIUM_IDS`` with Gymnasium (idempotent)."""
    for gym_id, env_id in pirate_envs.GYMNASIUM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point=ENTRY_POINT, kwargs={"env_id": env_id})


__all__ = ["ENTRY_POINT", "register_gymnasium_ids"]
