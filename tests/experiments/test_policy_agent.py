"""The numpy policy copy, the ppo: agents, the opponent pool, the ratings and the batched VecEnv."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import pirate_envs
from agents.evaluation.games import play_game
from agents.evaluation.ratings import game_ranks, rate_games
from agents.policy.agent import policy_from_sb3, shipped_checkpoints
from agents.policy.mlp import MlpPolicy
from agents.registry import agent_names, make_agent
from agents.selfplay.opponents import SELF, OpponentPool, parse_weights
from agents.selfplay.vec_env import make_vec_env

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")


def tiny_model(env_id: str = "piraten_kapern_v0", **kwargs):
    vec = make_vec_env(env_id, 2, 0, seed=0, opponents={"random": 1.0}, env_kwargs={"num_players": 2})
    model = sb3_contrib.MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, seed=0, device="cpu", **kwargs)
    return model, vec


def test_numpy_copy_acts_like_the_torch_policy():
    model, vec = tiny_model(policy_kwargs={"net_arch": [32, 16]})
    policy = policy_from_sb3(model.policy)
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs = rng.normal(size=(3, policy.obs_size)).astype(np.float32)
        masks = rng.random((3, policy.num_actions)) < 0.05
        masks[:, 0] = True
        torch_actions, _ = model.predict(obs, deterministic=True, action_masks=masks)
        assert [policy.act(o, m) for o, m in zip(obs, masks)] == torch_actions.tolist()
        with torch.no_grad():
            expected = model.policy.get_distribution(torch.as_tensor(obs)).distribution.logits.numpy()
        logits = policy.logits(obs)
        log_softmax = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        np.testing.assert_allclose(log_softmax, expected, atol=1e-4)  # torch normalises its logits
    vec.close()


def test_masked_argmax_and_sampling_stay_legal():
    w = [np.eye(4, dtype=np.float32)]
    policy = MlpPolicy(w, [np.array([0, 5, 1, 9], dtype=np.float32)], "Tanh")
    mask = np.array([1, 1, 1, 0], dtype=np.int8)
    assert policy.act(np.zeros(4), mask) == 1  # 3 scores higher but is illegal
    rng = np.random.default_rng(0)
    draws = {policy.act(np.zeros(4), mask, rng) for _ in range(200)}
    assert draws <= {0, 1, 2} and 1 in draws
    clone = pickle.loads(pickle.dumps(policy))
    assert clone.act(np.zeros(4), mask) == 1
    with pytest.raises(ValueError, match="no legal action"):
        policy.act(np.zeros(4), np.zeros(4, dtype=np.int8))
    with pytest.raises(ValueError, match="activation"):
        MlpPolicy(w, w, "Softsign")


def test_ppo_prefix_loads_a_checkpoint_and_checks_the_env(tmp_path):
    model, vec = tiny_model()
    model.pirate_envs_meta = {"env_id": "piraten_kapern_v0", "env_kwargs": {"num_players": 2}}
    path = tmp_path / "model.zip"
    model.save(path)
    vec.close()
    env = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=2)
    agent = make_agent(f"ppo:{path}", "piraten_kapern_v0", env=env)
    record = play_game(env, [agent, make_agent("random", "piraten_kapern_v0", seed=1, env=env)], seed=0)
    assert record.truncated or sum(record.win_shares) == pytest.approx(1.0)
    assert agent.deterministic and not make_agent(f"ppo:{path}#sample", "piraten_kapern_v0", env=env).deterministic
    with pytest.raises(ValueError, match="plays 2 players, not 3"):
        three = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=3)
        make_agent(f"ppo:{path}", "piraten_kapern_v0", env=three)
    with pytest.raises(ValueError, match="trained on piraten_kapern_v0"):
        make_agent(f"ppo:{path}", "skull_king_v0")
    with pytest.raises(ValueError, match="no shipped agent 'no_such_checkpoint'"):
        make_agent("ppo:no_such_checkpoint", "piraten_kapern_v0")
    with pytest.raises(ValueError, match="no checkpoint file"):
        make_agent("ppo:no/such.npz", "piraten_kapern_v0")


@pytest.mark.parametrize("name", shipped_checkpoints())
def test_every_shipped_checkpoint_loads_and_plays(name):
    env_id = next(e for e in pirate_envs.ENV_IDS if name.startswith(e))
    assert f"ppo:{name}" in agent_names(env_id)
    from agents.policy.agent import load_checkpoint

    _, meta = load_checkpoint(name)
    env = pirate_envs.make(env_id, raw=True, **meta["env_kwargs"])
    n = len(env.possible_agents)
    lineup = [make_agent(f"ppo:{name}", env_id, env=env)]
    lineup += [make_agent("random", env_id, seed=s, env=env) for s in range(1, n)]
    record = play_game(env, lineup, seed=3)
    assert len(record.scores) == n


def test_opponent_pool_weights_and_snapshots():
    assert parse_weights(["self:0.6", "heuristic:0.3", "random"]) == {"self": 0.6, "heuristic": 0.3, "random": 1.0}
    assert parse_weights(["ppo:some_name"]) == {"ppo:some_name": 1.0}
    with pytest.raises(ValueError, match="must be >= 0"):
        parse_weights(["random:-1"])
    with pytest.raises(ValueError, match="sum to more than 0"):
        parse_weights(["random:0"])
    env = pirate_envs.make("piraten_kapern_v0", raw=True)
    pool = OpponentPool("piraten_kapern_v0", env, {SELF: 3.0, "random": 1.0}, max_snapshots=2)
    rng = np.random.default_rng(0)
    assert {pool.draw(1, rng).name for _ in range(20)} == {"random"}  # no snapshot yet
    size, actions = env.observation_layout.size, env.num_actions
    policies = [MlpPolicy([np.zeros((size, actions), np.float32)], [np.zeros(actions, np.float32)]) for _ in range(3)]
    for p in policies:
        pool.add_snapshot(p)
    assert list(pool.snapshots) == policies[1:]
    names = [pool.draw(1, rng).name for _ in range(400)]
    assert 0.65 < names.count(SELF) / 400 < 0.85
    with pytest.raises(ValueError, match="agent 'no_such_agent' cannot play"):  # never dropped silently
        OpponentPool("piraten_kapern_v0", env, {"random": 1.0, "no_such_agent": 1.0})


def test_ratings_rank_winners_first():
    assert game_ranks([10, 30, 30, 5], [0, 0.5, 0.5, 0]) == [1, 0, 0, 2]

    class Record:
        def __init__(self, scores, shares):
            self.scores, self.win_shares, self.truncated = scores, shares, False

    games = [(["a", "b"], Record([5, 1], [1, 0])) for _ in range(10)] + [(["b", "a"], Record([1, 5], [0, 1]))]
    ratings = rate_games(games)
    assert ratings["a"][0] > 25 > ratings["b"][0]


def test_batched_subprocess_vec_env_matches_the_in_process_one():
    kwargs = {"opponents": {"random": 1.0}, "env_kwargs": {"num_players": 3}}
    local = make_vec_env("piraten_kapern_v0", 4, 0, seed=3, **kwargs)
    batched = make_vec_env("piraten_kapern_v0", 4, 2, seed=3, **kwargs)
    try:
        obs_a, obs_b = local.reset(), batched.reset()
        np.testing.assert_array_equal(obs_a, obs_b)
        for _ in range(40):
            masks = np.stack(local.env_method("action_masks"))
            np.testing.assert_array_equal(masks, np.stack(batched.env_method("action_masks")))
            actions = np.array([np.flatnonzero(m)[-1] for m in masks])
            a, b = local.step(actions), batched.step(actions)
            for x, y in zip(a[:3], b[:3]):
                np.testing.assert_array_equal(x, y)
        assert batched.get_attr("learner_seat") == local.get_attr("learner_seat")
    finally:
        local.close()
        batched.close()
