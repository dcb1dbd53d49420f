"""The games' registry: every declared `GameSpec`, looked up by env id, and `make`.

`GAME_SPECS` are the games this package ships; `register` adds a game declared elsewhere (the
example game, ``examples/pig``) for this process, after which `make`, `game_spec`, the batched
engine and `pirate_envs.testing` know it; `ENV_IDS` stays the shipped games.

Every id of `GAME_SPECS` also has a single-agent Gymnasium id (`GYMNASIUM_IDS`), registered here
by a lazy entry-point string: the env behind it (the agents package's self-play env) is imported
only when ``gymnasium.make`` builds one, so importing this package imports nothing above it.
"""

from __future__ import annotations

import importlib
import re
import warnings
from typing import Any

from pettingzoo import AECEnv

from pirate_envs.core.errors import check_bool
from pirate_envs.core.spec import GameSpec
from pirate_envs.lucky_pirate.spec import SPEC as LUCKY_PIRATE
from pirate_envs.lucky_pirate.spec import SPEC_V1 as LUCKY_PIRATE_V1
from pirate_envs.piraten_kapern.spec import SPEC as PIRATEN_KAPERN
from pirate_envs.piratenpoker.spec import SPEC as PIRATENPOKER
from pirate_envs.skull_king.spec import SPEC as SKULL_KING

#: Every shipped game version, declared once in its game's ``spec.py``: the one list a new game or version joins.
GAME_SPECS: tuple[GameSpec, ...] = (PIRATEN_KAPERN, SKULL_KING, PIRATENPOKER, LUCKY_PIRATE, LUCKY_PIRATE_V1)

#: The shipped environment ids.
ENV_IDS: tuple[str, ...] = tuple(spec.env_id for spec in GAME_SPECS)

#: Gymnasium id -> env id of the shipped games' single-agent ids.
GYMNASIUM_IDS: dict[str, str] = {spec.gym_id: spec.env_id for spec in GAME_SPECS}

#: Gymnasium's entry point of every single-agent id, resolved only by ``gymnasium.make``.
GYMNASIUM_ENTRY_POINT = "agents.selfplay.env:SelfPlayEnv"

_SPECS: dict[str, GameSpec] = {spec.env_id: spec for spec in GAME_SPECS}


def register(spec: GameSpec) -> None:
    """Make the game ``spec`` declares known to this process (idempotent for the same spec).

    Raises ``TypeError`` for a non-spec, ``ValueError`` when another spec holds its env id.
    """
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register takes a GameSpec, not {spec!r} ({type(spec).__name__})")
    held = _SPECS.get(spec.env_id)
    if held is not None and held != spec:
        raise ValueError(f"env id {spec.env_id!r} is already declared by another spec")
    _SPECS[spec.env_id] = spec


def registered_specs() -> tuple[GameSpec, ...]:
    """The shipped games' specs, then those given to `register`, in order."""
    return tuple(_SPECS.values())


def game_spec(env_id: str) -> GameSpec:
    """The `GameSpec` of ``env_id``.

    Raises ``TypeError`` when ``env_id`` is not a string, ``ValueError`` when it is unknown.
    """
    if not isinstance(env_id, str):
        raise TypeError(f"env id {env_id!r} ({type(env_id).__name__}) is not a string; valid ids: {list(_SPECS)}")
    if env_id not in _SPECS:
        raise ValueError(f"unknown env id {env_id!r}; valid ids: {list(_SPECS)}")
    return _SPECS[env_id]


def player_counts(env_id: str) -> tuple[int, ...]:
    """The player counts ``env_id`` allows (from its spec; ``ValueError`` for an unknown id)."""
    return game_spec(env_id).player_counts


def env_module(env_id: str) -> Any:
    """The entry module of ``env_id`` (it exposes ``env`` and ``raw_env``).

    Raises ``TypeError`` when ``env_id`` is not a string, ``ValueError`` when it is unknown.
    """
    return importlib.import_module(game_spec(env_id).entry_module)


def make(env_id: str, *, raw: bool = False, **kwargs: Any) -> AECEnv:
    """Build the environment ``env_id`` (wrapped, or the ``raw_env`` with ``raw=True``)."""
    raw = check_bool("raw", raw)
    module = env_module(env_id)
    return module.raw_env(**kwargs) if raw else module.env(**kwargs)


def register_gymnasium_ids() -> None:
    """Register every id of `GYMNASIUM_IDS` with Gymnasium by its entry-point string (idempotent).

    An id whose game has a later version is still supported: ``gymnasium.make`` gives no
    "out of date" warning for it.
    """
    import gymnasium

    for gym_id, env_id in GYMNASIUM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point=GYMNASIUM_ENTRY_POINT, kwargs={"env_id": env_id})
        warnings.filterwarnings("ignore", f".*The environment {re.escape(gym_id)} is out of date", DeprecationWarning)


__all__ = [
    "ENV_IDS",
    "GAME_SPECS",
    "GYMNASIUM_ENTRY_POINT",
    "GYMNASIUM_IDS",
    "env_module",
    "game_spec",
    "make",
    "player_counts",
    "register",
    "register_gymnasium_ids",
    "registered_specs",
]
