"""pirate_envs: multi-agent RL environments for four pirate tabletop games.

Use `make` with an id from `ENV_IDS`:

    import pirate_envs
    env = pirate_envs.make("piraten_kapern_v0", num_players=3)
"""

from __future__ import annotations

import importlib
from typing import Any

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


# the single-agent Gymnasium ids (pirate_envs/SkullKing-v0, ...): see pirate_envs.single_agent
from pirate_envs.single_agent import register_gymnasium_ids  # noqa: E402

register_gymnasium_ids()

__all__ = ["ENV_IDS", "__version__", "env_module", "make"]
