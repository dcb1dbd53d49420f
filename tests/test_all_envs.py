"""Properties every registered environment must have (parametrized over ``ENV_IDS``)."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import pirate_envs
from agents.base import action_blocks, sample_legal
from pirate_envs.core.errors import IllegalActionError
from tests.helpers import play_random_game, supported_player_counts

RANDOM_GAMES = 1000  # per env id, spread over the supported player counts
MAX_CYCLING_SHARE = 0.10  # of random games that may hit the guard where Engine.CAN_CYCLE


def test_registry_lists_every_id():
    assert len(pirate_envs.ENV_IDS) == len(set(pirate_envs.ENV_IDS)) >= 1
    with pytest.raises(ValueError, match="valid ids"):
        pirate_envs.make("no_such_game_v0")


def test_bad_keyword_names_the_valid_ones(env_id):
    with pytest.raises(TypeError, match="num_players"):
        pirate_envs.make(env_id, no_such_option=1)
    with pytest.raises(ValueError, match="num_players"):
        pirate_envs.make(env_id, num_players=99)
    with pytest.raises(ValueError, match="reward_mode"):
        pirate_envs.make(env_id, reward_mode="money")


def test_unknown_reset_option_warns(env_id):
    env = pirate_envs.make(env_id, raw=True)
    with pytest.warns(UserWarning, match="valid options"):
        env.reset(seed=0, options={"no_such_option": 1})


@pytest.mark.parametrize("which", ["min", "max"])
def test_pettingzoo_api(env_id, which):
    counts = supported_player_counts(env_id)
    n = counts[0] if which == "min" else counts[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(pirate_envs.make(env_id, num_players=n), num_cycles=300)


def test_pettingzoo_seed(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: pirate_envs.make(env_id), num_cycles=300)


def test_random_games_are_sound(env_id):
    """Random play: no error, a legal move always exists, zero-sum win rewards, no truncation.

    A game whose rules allow endless forced cycles (``Engine.CAN_CYCLE``) may reach its turn
    guard, or truncate earlier with a ``truncation_reason``, but only in a small share of games
    (the share its docstring reports).
    """
    rng = np.random.default_rng(0)
    counts = supported_player_counts(env_id)
    truncated = 0
    for game in range(RANDOM_GAMES):
        n = counts[game % len(counts)]
        env = pirate_envs.make(env_id, raw=True, num_players=n)
        env.reset(seed=game)

        def check(env):
            agent = env.agent_selection
            mask = env.observe(agent)["action_mask"]
            assert mask.any(), f"empty mask for {agent} on turn"
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()

        totals = play_random_game(env, rng, check)
        game_state = env.game
        assert game_state.done
        if game_state.truncated:
            assert game_state.CAN_CYCLE, f"game {game} hit the guard"
            assert game_state.guard.reached or game_state.truncation_reason, "truncated before the guard, no reason"
            truncated += 1
            assert all(total == 0 for total in totals.values())
            continue
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
        winners = game_state.winners()
        assert winners
        if len(winners) < n:
            assert all(totals[env.possible_agents[w]] > 0 for w in winners)
    assert truncated <= MAX_CYCLING_SHARE * RANDOM_GAMES


def test_score_mode_rewards_sum_to_scaled_scores(env_id):
    """Every score change is paid, including one that happens inside reset."""
    env = pirate_envs.make(env_id, raw=True, reward_mode="score")
    for seed in range(20):
        env.reset(seed=seed)
        totals = play_random_game(env, np.random.default_rng(seed))
        expected = env.game.scores() * env.SCORE_SCALE
        for i, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(expected[i], abs=1e-6), f"seed {seed}, {agent}"


def test_observations_fit_their_space(env_id):
    env = pirate_envs.make(env_id, raw=True)
    env.reset(seed=1)
    rng = np.random.default_rng(1)

    def check(env):
        for agent in env.agents:
            obs = env.observe(agent)
            assert obs["observation"].dtype == np.float32
            assert obs["observation"].shape == (env.observation_layout.size,)
            assert np.isfinite(obs["observation"]).all()
            assert obs["action_mask"].dtype == np.int8
            assert not obs["action_mask"].flags.writeable  # shared with the engine: writing would corrupt it

    play_random_game(env, rng, check)


def test_illegal_action_raises_in_raw_env_and_ends_wrapped_game(env_id):
    raw = pirate_envs.make(env_id, raw=True)
    raw.reset(seed=0)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="legal actions"):
        raw.step(illegal)
    wrapped = pirate_envs.make(env_id)
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    assert wrapped.terminations[agent]
    assert wrapped.rewards[agent] == -1


def test_information_set_invariance(env_id):
    """Resampling what a player cannot see leaves his observation unchanged."""
    rng = np.random.default_rng(7)
    for game in range(20):
        env = pirate_envs.make(env_id, raw=True)
        env.reset(seed=100 + game)
        decisions = 0
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if decisions % 7 == 0:
                for observer in env.possible_agents:
                    seat = env.seat_of(observer)
                    before = env.observe(observer)
                    twin = copy.deepcopy(env)
                    twin.game.resample_hidden(seat, np.random.default_rng(rng.integers(1 << 30)))
                    twin._obs_cache.clear()
                    after = twin.observe(observer)
                    np.testing.assert_array_equal(before["observation"], after["observation"])
                    np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
                    assert twin.game.view(seat) == env.game.view(seat)
            decisions += 1
            env.step(sample_legal(obs["action_mask"], rng, action_blocks(env)))


def test_render_ansi(env_id):
    env = pirate_envs.make(env_id, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text


def test_action_strings_are_unique(env_id):
    env = pirate_envs.make(env_id, raw=True)
    n = env.action_space(env.possible_agents[0]).n
    labels = {env.action_to_string(a) for a in range(n)}
    assert len(labels) == n
