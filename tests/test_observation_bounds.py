"""Observation and state spaces have true finite bounds, and every observation lies inside them.

Random games of every game, table size and observation option: every seat's observation and the
state at every step are inside their spaces (finite ``Box``es: the checkers of Gymnasium,
PettingZoo and SuperSuit take them as they are).
"""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from tests.game_data import short_game_entry
from tests.games import GAME_IDS, GAME_SPECS, require

STEPS = 1500  # per configuration


def configurations() -> list[tuple[str, dict]]:
    """Every game at every table size, at its smallest with the ``"max"`` table layout where it has one, then
    each game's observation options (its ``observation_variants`` in ``tests/<game>/short_games.json``)."""
    out: list[tuple[str, dict]] = []
    for spec in GAME_SPECS:
        low = spec.min_players
        out += [(spec.env_id, {"num_players": n}) for n in spec.player_counts]
        if spec.has("table_layouts"):
            out.append((spec.env_id, {"num_players": low, "table_layout": "max", "reward_mode": "score"}))
    for spec in GAME_SPECS:
        out += [(spec.env_id, kwargs) for kwargs in short_game_entry(spec.env_id, "observation_variants") or []]
    return out


@pytest.mark.parametrize(("env_id", "kwargs"), configurations(), ids=lambda x: str(x))
def test_every_observation_and_state_is_inside_its_finite_space(env_id, kwargs):
    env = pirate_envs.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    spaces = {agent: env.observation_space(agent) for agent in env.possible_agents}
    state_space = env.state_space
    for space in [*(s["observation"] for s in spaces.values()), state_space]:
        assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    env.reset(seed=0)
    for step in range(STEPS):
        for agent in env.agents:
            obs = env.observe(agent)
            vector = obs["observation"]
            box = spaces[agent]["observation"]
            outside = np.flatnonzero((vector < box.low) | (vector > box.high))
            layout = env.unwrapped.observation_layout
            names = sorted({p.name for p in layout.pieces for i in outside if p.start <= i < p.stop})
            assert not outside.size, f"step {step}: {agent}'s {names} outside the space: {vector[outside]}"
            assert spaces[agent].contains(obs)
        assert state_space.contains(env.state())
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                env.reset(seed=step)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_supersuit_normalizes_the_observations():
    """SuperSuit's ``normalize_obs_v0`` (on the vector part of the observation) maps every one into [0, 1]."""
    supersuit = pytest.importorskip("supersuit")
    for env_id in GAME_IDS:
        env = pirate_envs.make(env_id)
        env = supersuit.observation_lambda_v0(env, lambda obs, _: obs["observation"], lambda s: s["observation"])
        env = supersuit.normalize_obs_v0(env, env_min=0.0, env_max=1.0)
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(200):
            obs, _, terminated, truncated, _ = env.last()
            assert obs.dtype == np.float32 and np.all(obs >= 0.0) and np.all(obs <= 1.0)
            if terminated or truncated:
                break
            env.step(int(rng.choice(np.flatnonzero(env.unwrapped.legal_mask()))))


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_single_agent_ids_have_finite_observation_spaces_that_hold_their_observations(env_id):
    require(env_id, "gymnasium_id")
    import gymnasium

    import agents  # noqa: F401  (registers the Gymnasium ids)

    gym_id = {v: k for k, v in pirate_envs.GYMNASIUM_IDS.items()}[env_id]
    env = gymnasium.make(gym_id, opponents="random")
    space = env.observation_space
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    rng = np.random.default_rng(0)
    observation, _ = env.reset(seed=0)
    for _ in range(300):
        assert space.contains(observation), env_id
        legal = np.flatnonzero(env.unwrapped.action_masks())
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            observation, _ = env.reset()
