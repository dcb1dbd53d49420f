"""The self-play adapter: reward accounting, seat randomisation, masks and reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import action_blocks, sample_legal
from agents.selfplay.env import SelfPlayEnv
from pirate_envs.core.rewards import win_rewards
from tests.game_data import short_game_entry
from tests.helpers import supported_player_counts

RANDOM_ONLY = {"random": 1.0}


def small_kwargs(env_id: str) -> dict:
    """The smallest game of an env: fewest players, and the game's ``selfplay_small`` options (fewer hands) in
    ``tests/<game>/short_games.json``."""
    return {"num_players": supported_player_counts(env_id)[0], **(short_game_entry(env_id, "selfplay_small") or {})}


def finish_episode(env: SelfPlayEnv, rng: np.random.Generator) -> tuple[list[float], dict, bool]:
    """Block-uniform random learner moves to the end: rewards, final info, whether an opponent moved last."""
    blocks = action_blocks(env.raw)
    rewards = []
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        obs, reward, terminated, truncated, info = env.step(sample_legal(mask, rng, blocks))
        assert env.observation_space.contains(obs)
        rewards.append(reward)
        if terminated or truncated:
            return rewards, info, env.raw.agent_selection != env.learner


def test_score_mode_return_is_final_score(env_id):
    env = SelfPlayEnv(env_id, RANDOM_ONLY, reward_mode="score", **small_kwargs(env_id))
    rng = np.random.default_rng(0)
    for episode in range(8):
        env.reset(seed=episode)
        rewards, info, _ = finish_episode(env, rng)
        assert info["final_score"] == env.game.scores()[env.learner_seat]
        assert sum(rewards) == pytest.approx(info["final_score"] * env.raw.SCORE_SCALE, abs=1e-9)


def test_win_mode_return_is_zero_sum_share_even_when_an_opponent_ends_the_game(env_id):
    env = SelfPlayEnv(env_id, RANDOM_ONLY, reward_mode="win", **small_kwargs(env_id))
    rng = np.random.default_rng(1)
    ended_by_opponent = 0
    for episode in range(12):
        env.reset(seed=100 + episode)
        rewards, _, by_opponent = finish_episode(env, rng)
        winners = env.game.winners() if env.game.terminated else []
        expected = win_rewards(winners, env.num_players)[env.learner_seat] if winners else 0.0
        assert sum(rewards) == pytest.approx(expected)
        assert all(r == 0 for r in rewards[:-1])  # terminal only
        ended_by_opponent += by_opponent
    if short_game_entry(env_id, "opponent_ends_games"):  # common in the game (Kapern's final round): must be seen
        assert ended_by_opponent > 0


def test_penalty_inside_reset_is_paid_with_the_first_step():
    """The learner (seat 0) busts on his first roll under Sea Battle 4 (-1000) before any decision of his."""
    env = SelfPlayEnv("piraten_kapern_v0", RANDOM_ONLY, reward_mode="score", num_players=2)
    dice = np.random.default_rng(5)
    rolls: list[int] = []

    def scripted(n: int) -> list[int]:
        rolls.append(n)
        if len(rolls) == 1:
            return [2, 2, 1, 0, 0, 3]  # coin coin diamond diamond monkey, three skulls
        return dice.multinomial(n, [1 / 6] * 6).tolist()

    env.game.dice_source = scripted
    seed = next(s for s in range(50) if np.random.default_rng(s).integers(2) == 0)  # the seat is drawn first
    env.reset(seed=seed, options={"first_card": "sea_battle_4"})
    assert env.learner_seat == 0
    assert env.game.scores()[0] == -1000
    assert env._ledger.pending[0] == pytest.approx(-1.0)  # paid with the first step's reward
    rewards, info, _ = finish_episode(env, np.random.default_rng(2))
    assert sum(rewards) == pytest.approx(info["final_score"] / 1000)


def test_learner_seat_is_random_and_seeded_runs_repeat():
    def trajectory(seed: int) -> tuple[list[int], list[float]]:
        env = SelfPlayEnv("skull_king_v0", RANDOM_ONLY, num_players=4, num_hands=2)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        seats, values = [], []
        for _ in range(60):
            obs, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            values.append(float(obs.sum()) + reward)
            if terminated or truncated:
                seats.append(env.learner_seat)
                env.reset()
        return seats, values

    seats, values = trajectory(7)
    assert set(seats) == {0, 1, 2, 3}
    assert trajectory(7) == (seats, values)
    assert trajectory(8) != (seats, values)


def test_masks_are_the_learners_legal_actions():
    env = SelfPlayEnv("piraten_kapern_v0", RANDOM_ONLY, num_players=3)
    env.reset(seed=3)
    for _ in range(30):
        assert env.game.current_player == env.learner_seat
        np.testing.assert_array_equal(env.action_masks(), env.game.legal_mask().astype(bool))
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            env.reset()


@pytest.mark.parametrize("truncation_reward", [None, -1.0])
def test_truncated_games_are_time_limits_or_losses_as_asked(truncation_reward):
    # a guard of 6 turns cuts every two-player Lucky Pirate game
    env = SelfPlayEnv("lucky_pirate_v0", RANDOM_ONLY, truncation_reward=truncation_reward, num_players=2, max_turns=6)
    env.reset(seed=3)
    rng, blocks = np.random.default_rng(0), action_blocks(env.raw)
    rewards, terminated, truncated = [], False, False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(sample_legal(env.action_masks(), rng, blocks))
        rewards.append(reward)
    assert env.game.truncated and not env.game.terminated and info["win_share"] == 0.0
    if truncation_reward is None:  # the env's own view: a time limit that pays nothing in win mode
        assert (terminated, truncated) == (False, True) and rewards[-1] == 0.0
    else:  # the learner is told the game ended, as a loss
        assert (terminated, truncated) == (True, False) and rewards[-1] == -1.0
    assert sum(rewards[:-1]) == 0.0
