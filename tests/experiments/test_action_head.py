"""The feature action head: its torch logits, its numpy export, checkpoints and the train switch."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from agents.policy.agent import load_checkpoint, policy_from_sb3
from agents.selfplay.vec_env import make_vec_env
from experiments.train import TrainArgs, policy_spec

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")
from agents.ppo.action_head import FeatureActionHead, FeatureHeadPolicy  # noqa: E402

KAPERN = "piraten_kapern_v0"


def feature_model():
    vec = make_vec_env(KAPERN, 2, 0, seed=0, opponents={"random": 1.0}, env_kwargs={"num_players": 2})
    features = pirate_envs.make(KAPERN, raw=True).action_features.matrix
    kwargs = {"net_arch": [32, 16], "action_features": features}
    model = sb3_contrib.MaskablePPO(FeatureHeadPolicy, vec, n_steps=64, batch_size=64, seed=0, policy_kwargs=kwargs)
    # the head starts near zero (gain 0.01): spread its weights so that a wrong export shows
    with torch.no_grad():
        for p in model.policy.action_net.parameters():
            p.normal_(0.0, 0.5)
    return model, vec, features


def test_head_is_the_per_action_layer_plus_the_projected_features():
    head = FeatureActionHead(5, np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    latent = torch.randn(7, 5)
    with torch.no_grad():
        expected = head.per_action(latent) + head.to_features(latent) @ head.features.T
        weight, bias = head.effective_linear()
        np.testing.assert_allclose(head(latent).numpy(), expected.numpy(), atol=1e-6)
        np.testing.assert_allclose((latent @ weight.T + bias).numpy(), expected.numpy(), atol=1e-5)
    # the feature term is not zero: two actions with equal per-action weights still differ
    assert not torch.allclose(head.features[0] @ head.to_features.weight, head.features[1] @ head.to_features.weight)


def test_numpy_export_of_the_feature_head_matches_torch():
    model, vec, features = feature_model()
    policy = policy_from_sb3(model.policy)
    assert policy.num_actions == features.shape[0]
    rng = np.random.default_rng(1)
    obs = rng.normal(size=(5, policy.obs_size)).astype(np.float32)
    with torch.no_grad():
        expected = model.policy.get_distribution(torch.as_tensor(obs)).distribution.logits.numpy()
    logits = policy.logits(obs)
    # torch normalises its logits: compare both shifted to a maximum of zero
    shifted = logits - logits.max(1, keepdims=True)
    np.testing.assert_allclose(shifted, expected - expected.max(1, keepdims=True), atol=1e-3)
    vec.close()


def test_feature_head_checkpoint_round_trip(tmp_path):
    model, vec, _ = feature_model()
    model.learn(128)
    path = tmp_path / "feature_head.zip"
    model.pirate_envs_meta = {"env_id": KAPERN, "env_kwargs": {"num_players": 2}}
    model.save(path)
    vec.close()
    loaded, _ = load_checkpoint(str(path))
    expected = policy_from_sb3(model.policy)
    obs = np.random.default_rng(2).normal(size=(3, expected.obs_size)).astype(np.float32)
    np.testing.assert_array_equal(loaded.logits(obs), expected.logits(obs))  # read without unpickling


def test_train_uses_the_feature_head_only_where_the_game_has_features():
    policy, kwargs = policy_spec(TrainArgs(env_id=KAPERN))
    assert policy is FeatureHeadPolicy and kwargs["action_features"].shape == (2084, 68)
    assert policy_spec(TrainArgs(env_id=KAPERN, action_features=False)) == ("MlpPolicy", {"net_arch": [64, 64]})
    assert policy_spec(TrainArgs(env_id="skull_king_v0", num_players=4))[0] == "MlpPolicy"


def test_feature_rows_must_match_the_action_space():
    vec = make_vec_env("skull_king_v0", 1, 0, seed=0, opponents={"random": 1.0}, env_kwargs={"num_players": 2})
    with pytest.raises(ValueError, match="rows"):
        sb3_contrib.MaskablePPO(FeatureHeadPolicy, vec, policy_kwargs={"action_features": np.zeros((3, 2), np.float32)})
    vec.close()
