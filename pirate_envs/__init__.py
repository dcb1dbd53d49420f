"""pirate_envs: multi-agent RL environments for four pirate tabletop games.

Use `make` with an id from `ENV_IDS`:

    import pirate_envs
    env = pirate_envs.make("piraten_kapern_v0", num_players=3)

The import also registers one single-agent Gymnasium id per game (`GYMNASIUM_IDS`, for example
``gymnasium.make("pirate_envs/SkullKing-v0")``); the env they build, one learner against a pool
of opponents, is ``agents.selfplay.env.SelfPlayEnv``.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium
from pettingzoo import AECEnv

from pirate_envs.core.errors import check_bool

__version__ = "0.1.0"

#: Registered environment ids and the module that defines each (``env`` and ``raw_env``).
_REGISTRY: dict[str, str] = {
    "piraten_kapern_v0": "pirate_envs.piraten_kapern_v0",
    "skull_king_v0": "pirate_envs.skull_king_v0",
    "piratenpoker_v0": "pirate_envs.piratenpoker_v0",
    "lucky_pirate_v0": "pirate_envs.lucky_pirate_v0",
}

ENV_IDS: tuple[str, ...] = tuple(_REGISTRY)


def env_module(env_id: str) -> Any:
    """The entry module of ``env_id`` (it exposes ``env`` and ``raw_env``).

    Raises ``TypeError`` when ``env_id`` is not a string, ``ValueError`` when it is unknown.
    """
    if not isinstance(env_id, str):
        raise TypeError(f"env id {env_id!r} ({type(env_id).__name__}) is not a string; valid ids: {list(ENV_IDS)}")
    if env_id not in _REGISTRY:
        raise ValueError(f"unknown env id {env_id!r}; valid ids: {list(ENV_IDS)}")
    return importlib.import_module(_REGISTRY[env_id])


def make(env_id: str, *, raw: bool = False, **kwargs: Any) -> AECEnv:
    """Build the environment ``env_id`` (wrapped, or the ``raw_env`` with ``raw=True``)."""
    raw = check_bool("raw", raw)
    module = env_module(env_id)
    return module.raw_env(**kwargs) if raw else module.env(**kwargs)


#: Gymnasium id -> env id of the single-agent ids, registered by `register_gymnasium_ids`.
GYMNASIUM_IDS: dict[str, str] = {
    "pirate_envs/PiratenKapern-v0": "piraten_kapern_v0",
    "pirate_envs/SkullKing-v0": "skull_king_v0",
    "pirate_envs/Piratenpoker-v0": "piratenpoker_v0",
    "pirate_envs/LuckyPirate-v0": "lucky_pirate_v0",
}

#: Where the single-agent env lives (``agents.selfplay.env``), as Gymnasium's entry point string:
#: it is imported only when an id is built, so ``import pirate_envs`` imports nothing above the envs.
GYMNASIUM_ENTRY_POINT = "agents.selfplay.env:SelfPlayEnv"


def register_gymnasium_ids() -> None:
    """Register the ids of `GYMNASIUM_IDS` with Gymnasium (``import pirate_envs`` does this)."""
    for gym_id, env_id in GYMNASIUM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point=GYMNASIUM_ENTRY_POINT, kwargs={"env_id": env_id})


register_gymnasium_ids()

__all__ = ["ENV_IDS", "GYMNASIUM_IDS", "__version__", "env_module", "make", "register_gymnasium_ids"]
