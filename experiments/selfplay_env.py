"""The self-play env of training: `pirate_envs.single_agent.SelfPlayEnv`, public API.

Kept as an import path for training code; the class lives beside the envs so that the
single-agent Gymnasium ids (``pirate_envs/SkullKing-v0`` ...) and training use the same env.
"""

from pirate_envs.single_agent import MAX_EMPTY_EPISODES, SelfPlayEnv

__all__ = ["MAX_EMPTY_EPISODES", "SelfPlayEnv"]
