"""The Kapern env adapter: rewards for turns that end inside reset."""

from __future__ import annotations

import pirate_envs


def test_score_reward_for_a_first_turn_that_ends_on_its_opening_roll():
    env = pirate_envs.make("piraten_kapern_v0", raw=True, reward_mode="score")
    for seed in range(200):
        env.reset(seed=seed, options={"first_card": "sea_battle_4"})
        if env.game.current_player == 1:  # three skulls on the opening roll: the battle is lost
            break
    else:
        raise AssertionError("no seed lost the opening Sea Battle")
    assert env.game.scores().tolist() == [-1000, 0]
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0}
