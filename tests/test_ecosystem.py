"""Other libraries' tools on the envs, as docs/guides/ecosystem.md shows them: Gymnasium's ``make_vec``
with masks, PettingZoo's parallel route with SuperSuit, and the TorchRL and Tianshou examples."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import agents  # noqa: F401  (registers the Gymnasium ids)
import pirate_envs
from tests.games import GAME_IDS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("gym_id", sorted(pirate_envs.GYMNASIUM_IDS))
def test_make_vec_same_step_autoreset_gives_a_legal_action_at_every_step(gym_id):
    """Under ``AutoresetMode.SAME_STEP`` a finished sub-env starts its next game in the same step, so the
    masks a sampler reads (``envs.call("action_masks")``) always hold a legal action."""
    pytest.importorskip("sb3_contrib")  # the single-agent ids' opponents run on the train extra
    mode = gymnasium.vector.AutoresetMode.SAME_STEP
    envs = gymnasium.make_vec(gym_id, num_envs=2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        masks = np.stack(envs.call("action_masks"))
        assert masks.any(axis=1).all(), "a sub-env offered no legal action"
        _, _, terminated, truncated, _ = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        finished += int((terminated | truncated).sum())
    envs.close()
    assert finished > 0


def test_make_vec_default_autoreset_has_a_step_without_legal_actions():
    """Why the guide names SAME_STEP: under the default, a finished sub-env waits a step with no legal action."""
    pytest.importorskip("sb3_contrib")
    envs = gymnasium.make_vec("pirate_envs/SkullKing-v0", num_envs=2, vectorization_mode="sync")
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    empty = 0
    for _ in range(300):
        masks = np.stack(envs.call("action_masks"))
        empty += int((~masks.any(axis=1)).sum())
        envs.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))
    assert empty > 0


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_parallel_route_passes_pettingzoo_parallel_tests_and_carries_supersuit(env_id):
    from pettingzoo.test import parallel_api_test, parallel_seed_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    supersuit = pytest.importorskip("supersuit")
    parallel_api_test(turn_based_aec_to_parallel(pirate_envs.make(env_id)), num_cycles=200)
    parallel_seed_test(lambda: turn_based_aec_to_parallel(pirate_envs.make(env_id)), num_cycles=100)
    env = turn_based_aec_to_parallel(pirate_envs.make(env_id))
    env = supersuit.observation_lambda_v0(env, lambda obs, _: obs["observation"], lambda space: space["observation"])
    env = supersuit.normalize_obs_v0(env)
    observations, _ = env.reset(seed=0)
    assert all(o.min() >= 0.0 and o.max() <= 1.0 for o in observations.values())


def run_example(name: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_torchrl_example_plays_games():
    pytest.importorskip("torchrl")
    from examples.torchrl_random import play

    games, rewards = play("skull_king_v0", 120, num_players=2, num_hands=2)
    assert games > 0 and abs(sum(rewards.values())) < 1e-6  # win rewards are zero-sum
    assert "games finished" in run_example("torchrl_random.py", "--steps", "20")


def test_tianshou_example_plays_games():
    pytest.importorskip("tianshou")
    from examples.tianshou_random import play

    games, total = play("skull_king_v0", 120, num_players=2, num_hands=2)
    assert games > 0 and abs(total.sum()) < 1e-6
    assert "games finished" in run_example("tianshou_random.py", "--steps", "20")


@pytest.mark.parametrize("gym_id", sorted(pirate_envs.GYMNASIUM_IDS))
def test_stable_baselines3_env_checker_passes(gym_id):
    pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.env_checker import check_env

    check_env(gymnasium.make(gym_id).unwrapped, skip_render_check=True)
