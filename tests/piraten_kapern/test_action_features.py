"""Piraten Kapern's action features, checked against the action labels (a separate path)."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.actions import ActionFeatures
from pirate_envs.piraten_kapern.actions import ACTION_FEATURES, ACTIONS, reroll_action


def label_counts(label: str) -> dict[str, int]:
    """``"reroll coinx2 skullx1"`` -> ``{"coin": 2, "skull": 1}``."""
    return {face: int(n) for face, n in (part.split("x") for part in label.split()[1:])}


def test_every_reroll_row_says_what_its_label_says():
    f = ACTION_FEATURES
    block = ACTIONS.block("reroll")
    for action in range(block.start, block.stop):
        counts = label_counts(ACTIONS.to_string(action))
        row = f.matrix[action]
        expected = {"reroll": 1.0, f"reroll_total_{sum(counts.values())}": 1.0}
        for face, n in counts.items():
            if face == "skull":
                expected["reroll_skull"] = float(n)
            else:
                expected[f"reroll_{face}"] = n / 8
                expected[f"reroll_{face}_{n}"] = 1.0
        assert f.of(action) == pytest.approx(expected), ACTIONS.to_string(action)
        assert np.count_nonzero(row) == len(expected)


def test_stop_and_chest_rows():
    f = ACTION_FEATURES
    assert f.of(ACTIONS.from_string("stop")) == {"stop": 1.0}
    assert f.of(ACTIONS.from_string("put sabre on chest")) == {"chest_put": 1.0, "put_sabre": 1.0}
    assert f.of(ACTIONS.from_string("take coin off chest")) == {"chest_take": 1.0, "take_coin": 1.0}
    assert f.of(reroll_action([0, 0, 2, 0, 0, 1])) == pytest.approx(
        {"reroll": 1.0, "reroll_monkey": 0.25, "reroll_monkey_2": 1.0, "reroll_skull": 1.0, "reroll_total_3": 1.0}
    )


def test_features_are_exposed_read_only_and_distinguish_every_action():
    env = pirate_envs.make("piraten_kapern_v0", raw=True)
    assert env.action_features is ACTION_FEATURES and ACTION_FEATURES.matrix.shape == (env.num_actions, 68)
    assert len({row.tobytes() for row in ACTION_FEATURES.matrix}) == env.num_actions
    with pytest.raises(ValueError):
        ACTION_FEATURES.matrix[0, 0] = 2.0
    assert pirate_envs.make("skull_king_v0", raw=True).action_features is None


def test_action_features_check_their_shape_and_dtype():
    with pytest.raises(ValueError, match="names"):
        ActionFeatures(np.zeros((3, 2), np.float32), ("a",))
    with pytest.raises(ValueError, match="float32"):
        ActionFeatures(np.zeros((3, 1)), ("a",))
