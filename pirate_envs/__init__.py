"""pirate_envs: multi-agent RL environments for four pirate tabletop games.

Use `make` with an id from `ENV_IDS`:

    import pirate_envs
    env = pirate_envs.make("piraten_kapern_v0", num_players=3)

Each game is declared once, in ``pirate_envs/<game>/spec.py`` (a `GameSpec`), and listed in
`GAME_SPECS`; `game_spec` gives one and `player_counts` its player counts.

Each game also has a single-agent Gymnasium id (`GYMNASIUM_IDS`, for example
``"pirate_envs/SkullKing-v0"``): one learner against a pool of opponents. That env lives on the
``agents`` package, which registers the ids when imported (``import agents``, or
``gymnasium.make("agents:pirate_envs/SkullKing-v0")``); this package names nothing above it.
"""

from __future__ import annotations

import importlib
from typing import Any

from pettingzoo import AECEnv

from pirate_envs.core.errors import check_bool
from pirate_envs.core.spec import GameSpec
from pirate_envs.lucky_pirate.spec import SPEC as LUCKY_PIRATE
from pirate_envs.lucky_pirate.spec import SPEC_V1 as LUCKY_PIRATE_V1
from pirate_envs.piraten_kapern.spec import SPEC as PIRATEN_KAPERN
from pirate_envs.piratenpoker.spec import SPEC as PIRATENPOKER
from pirate_envs.skull_king.spec import SPEC as SKULL_KING

__version__ = "0.3.0"

#: Every game version, declared once in its game's ``spec.py``: the one list a new game or version joins.
GAME_SPECS: tuple[GameSpec, ...] = (PIRATEN_KAPERN, SKULL_KING, PIRATENPOKER, LUCKY_PIRATE, LUCKY_PIRATE_V1)

#: The registered environment ids.
ENV_IDS: tuple[str, ...] = tuple(spec.env_id for spec in GAME_SPECS)
_SPECS: dict[str, GameSpec] = {spec.env_id: spec for spec in GAME_SPECS}


def game_spec(env_id: str) -> GameSpec:
    """The `GameSpec` of ``env_id``.

    Raises ``TypeError`` when ``env_id`` is not a string, ``ValueError`` when it is unknown.
    """
    if not isinstance(env_id, str):
        raise TypeError(f"env id {env_id!r} ({type(env_id).__name__}) is not a string; valid ids: {list(ENV_IDS)}")
    if env_id not in _SPECS:
        raise ValueError(f"unknown env id {env_id!r}; valid ids: {list(ENV_IDS)}")
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


#: Gymnasium id -> env id of the single-agent ids (the env behind them lives in the ``agents`` package,
#: which registers them: ``import agents``).
GYMNASIUM_IDS: dict[str, str] = {spec.gym_id: spec.env_id for spec in GAME_SPECS}


__all__ = [
    "ENV_IDS",
    "GAME_SPECS",
    "GYMNASIUM_IDS",
    "GameSpec",
    "__version__",
    "env_module",
    "game_spec",
    "make",
    "player_counts",
]
