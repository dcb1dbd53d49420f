"""The games the generic tests run: the shipped ones and the example game Pig, and what each declares.

Importing it registers Pig (``examples/pig``) for the test process: `GAME_IDS` is every registered
env id, so every generic test parametrized over it runs Pig as it runs the four games. A check of an
optional part calls `require`, which skips, naming the game and the part, where the game declares
it does not ship it (``pig_v0 declares no batched_kernels (...)``).
"""

from __future__ import annotations

import pytest

import pirate_envs
from examples.pig.spec import SPEC as PIG

pirate_envs.register(PIG)

#: Every registered game version: the shipped ones, then Pig.
GAME_SPECS = pirate_envs.registered_specs()
#: Their env ids.
GAME_IDS: tuple[str, ...] = tuple(spec.env_id for spec in GAME_SPECS)


def require(env_id: str, part: str) -> None:
    """Skip the calling test, with the reason, unless ``env_id``'s game declares the optional ``part``."""
    reason = pirate_envs.game_spec(env_id).lacks(part)
    if reason:
        pytest.skip(reason)


def tables() -> list[tuple[str, int]]:
    """``(env_id, num_players)`` of every game at every table size it allows."""
    return [(spec.env_id, n) for spec in GAME_SPECS for n in spec.player_counts]


__all__ = ["GAME_IDS", "GAME_SPECS", "PIG", "require", "tables"]
