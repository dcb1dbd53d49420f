"""The single-agent Gymnasium ids (``pirate_envs/<Game>-v0``): ``import pirate_envs`` registers them.

Their registration lives with the games (`pirate_envs.registry.register_gymnasium_ids`, a lazy
entry-point string naming `agents.selfplay.env.SelfPlayEnv`); ``import agents`` calls it too, and
so does Gymnasium's module prefix, ``gymnasium.make("agents:pirate_envs/SkullKing-v0")``.
"""

from __future__ import annotations

from pirate_envs.registry import GYMNASIUM_ENTRY_POINT as ENTRY_POINT
from pirate_envs.registry import register_gymnasium_ids

__all__ = ["ENTRY_POINT", "register_gymnasium_ids"]
