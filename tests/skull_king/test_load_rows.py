"""Skull King's loaded rows: an engine's chosen deals come first in the row (``tests/vector/test_load_rows.py``
plays every game's loaded rows)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import pirate_envs
from pirate_envs import vector
from pirate_envs.core.chance import SplitMix64Stream
from pirate_envs.testing import _Where
from tests.vector.test_load_rows import SKULL_KING, aec_on, play_in_lockstep


def test_a_skull_king_engine_with_chosen_deals_deals_them_in_the_loaded_row() -> None:
    """The engine's pending ``deals`` (a reset option) come before the stream's deals, in the row as in the engine."""
    kwargs = {"num_players": 3, "num_hands": 3}
    engine = pirate_envs.make(SKULL_KING, raw=True, **kwargs).game
    hand_2 = [["skull_king", "escape"], ["escape", "pirate"], ["yellow-1", "yellow-2"]]
    engine.reset(np.random.default_rng(0), {"deals": [[["escape"], ["pirate"], ["mermaid"]], hand_2]})
    venv = vector.make(SKULL_KING, 2, seed=0, reward_mode="score", **kwargs)
    venv.reset()
    venv.load(1, engine, seeds=12345)
    env = aec_on(SKULL_KING, engine.clone(SplitMix64Stream(12345)), reward_mode="score", **kwargs)
    play_in_lockstep(venv, {1: env}, np.random.default_rng(1), _Where("load", SKULL_KING, 0), kwargs)
    assert len(env.game.results) == 3
