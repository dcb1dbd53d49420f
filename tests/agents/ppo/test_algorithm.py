"""Our masked PPO update is sb3-contrib's MaskablePPO update: same minibatches, loss, gradients, logs;
our GAE is sb3's."""

from __future__ import annotations

import copy
from collections import deque

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.buffers import RolloutBuffer
from stable_baselines3.common.logger import configure

from agents.ppo import iteration
from agents.ppo.algorithm import (
    ActorCriticForward,
    LeanMaskablePPO,
    PPOLoop,
    SparseRows,
    sample_masked_multinomial,
    sb3_forward,
)
from agents.ppo.iteration import PPOSettings, clip_grad_norm, gae, ppo_update, sample_masked
from agents.ppo.sparse_layers import sparse_input_linear
from agents.selfplay.opponents import parse_weights
from agents.selfplay.vec_env import make_vec_env
from experiments.train import TrainArgs, policy_spec

LOGGED = ("entropy_loss", "policy_gradient_loss", "value_loss", "approx_kl", "clip_fraction", "loss")


def twin_models(env_id: str, batch_size: int, n_epochs: int, **ppo: object) -> tuple[MaskablePPO, LeanMaskablePPO]:
    """sb3-contrib's model after one rollout, and a lean twin with its parameters, optimizer and rollout."""
    args = TrainArgs(env_id=env_id, num_players=[2])
    vec = make_vec_env(env_id, 4, 0, seed=3, opponents=parse_weights(["random:1"]), env_kwargs={"num_players": 2})
    policy, policy_kwargs = policy_spec(args)
    policy_kwargs = {**policy_kwargs, **ppo.pop("policy_kwargs", {})}  # type: ignore[dict-item]
    settings = dict(n_steps=32, batch_size=batch_size, n_epochs=n_epochs, policy_kwargs=policy_kwargs, seed=0, **ppo)
    reference = MaskablePPO(policy, vec, **settings)  # type: ignore[arg-type]
    reference.learn(128)
    lean = LeanMaskablePPO(policy, vec, **settings)  # type: ignore[arg-type]
    lean.policy.load_state_dict(reference.policy.state_dict())
    lean.policy.optimizer.load_state_dict(copy.deepcopy(reference.policy.optimizer.state_dict()))  # shares no moments
    for model in (reference, lean):
        model.rollout_buffer = copy.deepcopy(reference.rollout_buffer)
        model._current_progress_remaining = 0.5
        model._n_updates = 0
        model.set_logger(configure(None, []))
    return reference, lean


def update_both(reference: MaskablePPO, lean: LeanMaskablePPO) -> None:
    for model in (reference, lean):
        np.random.seed(11)
        model.train()


def max_parameter_difference(a: torch.nn.Module, b: torch.nn.Module) -> float:
    theirs = dict(b.named_parameters())
    with torch.no_grad():
        return max(float((p - theirs[name]).abs().max()) for name, p in a.named_parameters())


@pytest.mark.parametrize("env_id", ["piraten_kapern_v0", "skull_king_v0"])
def test_one_adam_step_is_sb3_contribs(env_id):
    reference, lean = twin_models(env_id, batch_size=128, n_epochs=1)
    assert lean.lean_update_applies()
    before = copy.deepcopy(lean.policy)
    update_both(reference, lean)
    assert max_parameter_difference(before, lean.policy) > 1e-4  # the update moved the policy
    assert max_parameter_difference(reference.policy, lean.policy) < 1e-6
    for key in LOGGED:
        ours, theirs = lean.logger.name_to_value[f"train/{key}"], reference.logger.name_to_value[f"train/{key}"]
        assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-7), key
    assert lean._n_updates == reference._n_updates == 1


def test_many_minibatches_and_epochs_with_value_clipping_follow_sb3_contrib():
    # SGD: Adam's first steps turn a rounding difference in a near-zero gradient into a full step.
    reference, lean = twin_models(
        "piraten_kapern_v0",
        batch_size=24,  # 128 rollout steps: five minibatches of 24 and one of 8
        n_epochs=3,
        clip_range_vf=0.1,
        ent_coef=0.02,
        policy_kwargs={"optimizer_class": torch.optim.SGD, "optimizer_kwargs": {"momentum": 0.9}},
        learning_rate=0.05,
    )
    before = copy.deepcopy(lean.policy)
    update_both(reference, lean)
    assert max_parameter_difference(before, lean.policy) > 1e-3
    assert max_parameter_difference(reference.policy, lean.policy) < 1e-5
    for key in (*LOGGED, "clip_range_vf"):
        ours, theirs = lean.logger.name_to_value[f"train/{key}"], reference.logger.name_to_value[f"train/{key}"]
        assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-7), key
    assert lean._n_updates == reference._n_updates == 3


def test_target_kl_stops_the_update_where_sb3_contrib_does():
    reference, lean = twin_models("piraten_kapern_v0", batch_size=16, n_epochs=5, target_kl=1e-6, learning_rate=0.01)
    update_both(reference, lean)
    assert lean._n_updates == reference._n_updates < 5
    assert max_parameter_difference(reference.policy, lean.policy) < 1e-6


def test_fresh_buffer_update_follows_sb3_contrib():
    """The buffer as ``collect_rollouts`` leaves it (not yet flattened by ``get``), as in training."""
    reference, lean = twin_models("skull_king_v0", batch_size=32, n_epochs=2)
    for model in (reference, lean):
        model.rollout_buffer = copy.deepcopy(reference.rollout_buffer)
        model.rollout_buffer.reset()
    env = reference.env
    reference._last_obs = env.reset()
    reference._last_episode_starts = np.ones(env.num_envs, dtype=bool)
    reference.collect_rollouts(env, reference._init_callback(None), reference.rollout_buffer, reference.n_steps)
    lean.rollout_buffer = copy.deepcopy(reference.rollout_buffer)
    assert not lean.rollout_buffer.generator_ready
    buffer_before = {
        name: np.copy(value) for name, value in vars(lean.rollout_buffer).items() if isinstance(value, np.ndarray)
    }
    update_both(reference, lean)
    for name, value in buffer_before.items():  # our update reads the buffer, never changes it
        assert np.array_equal(getattr(lean.rollout_buffer, name), value), name
    assert max_parameter_difference(reference.policy, lean.policy) < 1e-6


@pytest.mark.parametrize("gamma, gae_lambda", [(0.99, 0.95), (1.0, 1.0), (0.9, 0.0)])
def test_gae_is_sb3s(gamma, gae_lambda):
    rng = np.random.default_rng(5)
    n_steps, n_envs = 7, 3
    buffer = RolloutBuffer(
        n_steps, spaces.Box(-1, 1, (2,)), spaces.Discrete(3), gamma=gamma, gae_lambda=gae_lambda, n_envs=n_envs
    )
    rewards = rng.normal(size=(n_steps, n_envs)).astype(np.float32)
    values = rng.normal(size=(n_steps, n_envs)).astype(np.float32)
    starts = (rng.random((n_steps, n_envs)) < 0.3).astype(np.float32)
    for t in range(n_steps):
        buffer.add(
            np.zeros((n_envs, 2)),
            np.zeros((n_envs, 1)),
            rewards[t],
            starts[t],
            torch.from_numpy(values[t]),
            torch.zeros(n_envs),
        )
    last_values, last_dones = rng.normal(size=n_envs).astype(np.float32), np.array([True, False, False])
    buffer.compute_returns_and_advantage(torch.from_numpy(last_values), last_dones)
    advantages, returns = gae(rewards, values, starts, last_values, last_dones, gamma, gae_lambda)
    np.testing.assert_allclose(advantages, buffer.advantages, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(returns, buffer.returns, rtol=1e-6, atol=1e-6)


def twin_envs(env_id: str, n_envs: int) -> list:
    """Two equal 2-player VecEnvs of ``env_id`` against random opponents (one for sb3's run, one for ours)."""
    kwargs = {"seed": 3, "opponents": parse_weights(["random:1"]), "env_kwargs": {"num_players": 2}}
    return [make_vec_env(env_id, n_envs, 0, **kwargs) for _ in range(2)]


def test_our_loop_collects_and_learns_as_sb3_contrib(monkeypatch):
    """`PPOLoop`: the same actions (same torch seed; with sb3-contrib's draw), rollout, GAE and update as
    ``MaskablePPO.learn``."""
    monkeypatch.setattr(iteration, "sample_masked", sample_masked_multinomial)
    n_envs, n_steps = 4, 16
    envs = twin_envs("piraten_kapern_v0", n_envs)
    policy, policy_kwargs = policy_spec(TrainArgs(env_id="piraten_kapern_v0", num_players=[2]))
    reference = MaskablePPO(policy, envs[0], n_steps=n_steps, batch_size=24, n_epochs=2, seed=0,
                            policy_kwargs=policy_kwargs, gamma=0.9, gae_lambda=0.8)  # fmt: skip
    reference.set_logger(configure(None, []))
    ours = copy.deepcopy(reference.policy)
    envs[1].seed(0)  # as MaskablePPO(seed=0) seeded its env
    settings = PPOSettings(n_epochs=2, batch_size=24, clip_range=0.2)
    loop = PPOLoop(sb3_forward(ours), ours.parameters(), ours.optimizer, envs[1], n_steps, 0.9, 0.8, settings)
    torch.manual_seed(21)
    np.random.seed(11)
    reference.learn(n_envs * n_steps)
    torch.manual_seed(21)
    np.random.seed(11)
    loop.collect()
    rollout = loop.flat_rollout()
    buffer = reference.rollout_buffer  # flattened, env-major, by its update
    assert torch.equal(rollout["actions"], torch.from_numpy(buffer.actions[:, 0]).long())
    assert torch.equal(rollout["observations"], torch.from_numpy(buffer.observations))
    for name in ("values", "log_probs", "advantages", "returns"):
        np.testing.assert_allclose(
            rollout[name].numpy(), getattr(buffer, name).ravel(), rtol=1e-5, atol=1e-6, err_msg=name
        )
    before = copy.deepcopy(ours)
    stats = loop.update()
    assert stats.epochs == 2 and loop.num_timesteps == reference.num_timesteps
    assert max_parameter_difference(before, ours) > 1e-4
    assert max_parameter_difference(reference.policy, ours) < 1e-6


def sparse_observations(rows: int, width: int, seed: int) -> torch.Tensor:
    """Mostly-zero observations of uneven row counts, column 0 often set (the padding column)."""
    generator = torch.Generator().manual_seed(seed)
    dense = torch.randn(rows, width, generator=generator)
    dense[torch.rand(rows, width, generator=generator) > 0.08] = 0.0
    dense[::2, 0] = 0.5
    dense[3] = 0.0  # a row of zeros
    return dense


def test_sparse_rows_hold_every_entry():
    dense = sparse_observations(40, 30, seed=0)
    rows = SparseRows.of(dense)
    assert rows.indices.shape[1] == int((dense != 0).sum(1).max()) < dense.shape[1]
    assert torch.equal(rows.dense(), dense)
    order = torch.randperm(40)
    out = SparseRows(torch.empty_like(rows.indices), torch.empty_like(rows.values), rows.width)
    assert torch.equal(rows.select(order, out=out)[5:20].dense(), dense[order][5:20])


def fused_and_reference_gradients(
    policy: torch.nn.Module, dense: torch.Tensor, sparse: bool
) -> tuple[list[list[torch.Tensor]], list[list[torch.Tensor]]]:
    """Outputs and every parameter's gradient of a loss weighting logits and values unevenly, by
    `sb3_forward` (dense) and by `ActorCriticForward` (``sparse``: on `SparseRows`)."""
    fused = ActorCriticForward.of(policy)
    assert fused is not None
    generator = torch.Generator().manual_seed(1)
    outputs, grads = [], []
    for forward, inputs in ((sb3_forward(policy), dense), (fused, SparseRows.of(dense) if sparse else dense)):
        logits, values = forward(inputs)
        weights = torch.randn(logits.shape, generator=generator.manual_seed(1))
        loss = (weights * logits).sum() + (weights[:, 0] * values).sum() * 0.7
        policy.zero_grad()
        loss.backward()
        outputs.append([logits.detach(), values.detach()])
        grads.append([p.grad.clone() for p in policy.parameters()])
    return outputs, grads


@pytest.mark.parametrize("sparse", [False, True])
def test_fused_forward_gives_the_reference_outputs_and_gradients(sparse):
    reference, _ = twin_models("skull_king_v0", batch_size=128, n_epochs=1)
    policy = reference.policy
    dense = sparse_observations(257, policy.observation_space.shape[0], seed=2)
    outputs, grads = fused_and_reference_gradients(policy, dense, sparse)
    for ours, theirs in zip(outputs[1], outputs[0]):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-5)
    names = [name for name, _ in policy.named_parameters()]
    assert {"mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight"} <= set(names)
    for name, ours, theirs in zip(names, grads[1], grads[0]):
        scale = float(theirs.abs().max())
        assert scale > 0, name  # every parameter takes part (a dropped term would show)
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-5 * scale, msg=name)


def test_the_acting_forward_reads_the_nonzero_entries_and_follows_every_parameter_change(monkeypatch):
    """Without autograd (a rollout's steps) the fused forward's first layers run `sparse_input_linear` on a
    mostly-zero batch, with the reference outputs; after an optimizer's step, and after a copy into the
    parameters, it reads the new weights (its stacked table is made again); a dense batch takes the matmul."""
    from agents.ppo import algorithm

    reference, _ = twin_models("skull_king_v0", batch_size=128, n_epochs=1)
    policy = reference.policy
    fused = ActorCriticForward.of(policy)
    calls = []
    monkeypatch.setattr(algorithm, "sparse_input_linear", lambda *a: calls.append(1) or sparse_input_linear(*a))
    sparse = sparse_observations(257, policy.observation_space.shape[0], seed=5)
    dense = torch.randn(9, policy.observation_space.shape[0], generator=torch.Generator().manual_seed(6))

    def check(observations: torch.Tensor) -> None:
        with torch.no_grad():
            ours, theirs = fused(observations), sb3_forward(policy)(observations)
        for mine, expected in zip(ours, theirs):
            torch.testing.assert_close(mine, expected, rtol=1e-5, atol=1e-5)

    check(sparse)
    assert len(calls) == 1
    loss = sum(p.square().sum() for p in policy.parameters())
    policy.optimizer.zero_grad()
    loss.backward()
    policy.optimizer.step()  # in place, as every update
    check(sparse)
    with torch.no_grad():
        policy.mlp_extractor.value_net[0].bias.copy_(torch.randn_like(policy.mlp_extractor.value_net[0].bias))
    check(sparse)
    assert len(calls) == 3
    check(dense)
    assert len(calls) == 3


def test_fused_update_follows_the_reference_update():
    """`ppo_update` with `ActorCriticForward` (sparse observations) and with `sb3_forward`: the same
    parameters and figures after two epochs of SGD from the same state and minibatch order."""
    reference, lean = twin_models(
        "skull_king_v0",
        batch_size=48,
        n_epochs=2,
        ent_coef=0.01,
        policy_kwargs={"optimizer_class": torch.optim.SGD, "optimizer_kwargs": {"momentum": 0.9}},
        learning_rate=0.05,
    )
    rollout = lean.flat_rollout()
    settings = PPOSettings(n_epochs=2, batch_size=48, clip_range=0.2, ent_coef=0.01)
    stats = []
    for model, forward in ((reference, sb3_forward(reference.policy)), (lean, ActorCriticForward.of(lean.policy))):
        np.random.seed(4)
        stats.append(ppo_update(forward, model.policy.parameters(), model.policy.optimizer, rollout, settings))
    assert max_parameter_difference(reference.policy, lean.policy) < 1e-5
    for key, value in stats[0].figures().items():
        assert stats[1].figures()[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key


def test_lean_rollout_draws_sb3_contribs_actions(monkeypatch):
    """`LeanMaskablePPO.collect_rollouts` (the fused forward and the draw as the policy's step; sb3-contrib's
    draw here): the rollout of sb3-contrib's, from the same parameters, env seed and torch seed."""
    reference, lean = twin_models("skull_king_v0", batch_size=32, n_epochs=1)
    draws = []
    monkeypatch.setattr(iteration, "sample_masked", lambda *args: draws.append(1) or sample_masked_multinomial(*args))
    env = reference.env
    buffers = []
    for model in (reference, lean):
        model.rollout_buffer.reset()
        env.seed(7)
        model._last_obs = env.reset()
        model._last_episode_starts = np.ones(env.num_envs, dtype=bool)
        model.ep_info_buffer, model.ep_success_buffer = deque(maxlen=100), deque(maxlen=100)
        torch.manual_seed(5)
        model.collect_rollouts(env, model._init_callback(None), model.rollout_buffer, model.n_steps)
        buffers.append(model.rollout_buffer)
    assert len(draws) == lean.n_steps  # the lean step drew the lean rollout's actions
    assert "forward" not in vars(lean.policy)  # the policy's own forward is back
    np.testing.assert_array_equal(buffers[1].actions, buffers[0].actions)
    np.testing.assert_array_equal(buffers[1].observations, buffers[0].observations)
    for name in ("values", "log_probs", "advantages", "returns"):
        np.testing.assert_allclose(getattr(buffers[1], name), getattr(buffers[0], name), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("max_norm", [1e-3, 1e3])  # clipped, and left alone
def test_clip_grad_norm_is_torchs(max_norm):
    generator = torch.Generator().manual_seed(3)
    ours = [torch.nn.Parameter(torch.zeros(shape)) for shape in ((5, 7), (7,), (3, 2))]
    theirs = [torch.nn.Parameter(torch.zeros(shape)) for shape in ((5, 7), (7,), (3, 2))]
    for a, b in zip(ours, theirs):
        a.grad = torch.randn(a.shape, generator=generator)
        b.grad = a.grad.clone()
    clip_grad_norm(ours, max_norm)
    torch.nn.utils.clip_grad_norm_(theirs, max_norm)
    for a, b in zip(ours, theirs):
        assert torch.equal(a.grad, b.grad)
    assert (max_norm < 1) == (not torch.equal(ours[0].grad, torch.randn((5, 7), generator=generator.manual_seed(3))))


def test_sample_masked_draws_the_masked_softmax():
    """The inverse-CDF draw: frequencies of the masked softmax, never a masked action, exact log-probabilities."""
    logits = torch.tensor([0.0, 1.0, 2.0, -1.0, 0.5, 3.0])
    mask = torch.tensor([True, False, True, True, True, False])
    rows = 200_000
    torch.manual_seed(0)
    actions, log_probs = sample_masked(logits.repeat(rows, 1), mask.repeat(rows, 1))
    expected = torch.softmax(torch.where(mask, logits, -torch.inf), -1)
    frequencies = torch.bincount(actions, minlength=6).double() / rows
    assert frequencies[~mask].sum() == 0
    assert torch.allclose(frequencies, expected.double(), atol=4 * (0.25 / rows) ** 0.5)  # 4 standard errors at most
    np.testing.assert_allclose(log_probs.numpy(), expected.log()[actions].numpy(), rtol=1e-6)
    torch.manual_seed(0)
    assert torch.equal(sample_masked(logits.repeat(rows, 1), mask.repeat(rows, 1))[0], actions)  # seeded


def test_sample_masked_never_draws_past_the_last_legal_action(monkeypatch):
    """A uniform rounded up to the row's total would fall past the end: the row's last legal action instead."""
    monkeypatch.setattr(torch, "rand", lambda *shape: torch.ones(*shape))
    mask = torch.tensor([[True, True, False, False], [False, True, False, True]])
    actions, log_probs = sample_masked(torch.zeros(2, 4), mask)
    assert actions.tolist() == [1, 3]
    np.testing.assert_allclose(log_probs.numpy(), np.log([0.5, 0.5]), rtol=1e-6)


def test_a_learner_on_another_device_takes_sb3_contribs_update():
    """The lean update's kernels (sparse first layer, numba loss) read CPU tensors: on a GPU the fused
    forward, the lean update and the pipeline stand aside (training with ``--device cuda`` failed
    with tensors on two devices)."""
    _, lean = twin_models("skull_king_v0", batch_size=128, n_epochs=1)
    assert lean.lean_update_applies() and lean.fused_forward() is not None
    lean.device = torch.device("cuda")  # as sb3 sets it on a machine with a GPU
    assert not lean.lean_update_applies()
    assert lean.fused_forward() is None and not lean.pipelined()


def test_the_sb3_update_on_the_cpu_is_sb3_contribs_own():
    """``update = "sb3"`` (``--update sb3``) runs sb3-contrib's own update on the CPU too, the update a GPU
    learner takes: the baseline of a CPU-against-GPU timing of one and the same update."""
    reference, lean = twin_models("skull_king_v0", batch_size=128, n_epochs=1)
    lean.update = "sb3"
    assert not lean.lean_update_applies() and lean.fused_forward() is None and not lean.pipelined()
    called = []
    original = MaskablePPO.train
    MaskablePPO.train = lambda self: (called.append(self), original(self))[1]  # type: ignore[method-assign]
    try:
        update_both(reference, lean)
    finally:
        MaskablePPO.train = original  # type: ignore[method-assign]
    assert lean in called
    assert max_parameter_difference(reference.policy, lean.policy) == 0.0


def test_the_shipped_trainer_runs_the_readable_iteration():
    """One iteration by hand with the readable parts (`iteration.collect_rollout`, `gae`, `flatten_rollout`,
    `ppo_update` with the plain torch loss and the policy's own modules) gives the parameters of the shipped
    trainer's ``LeanMaskablePPO.learn`` (the fused forward and the numba loss) on the same seeds."""
    n_envs, n_steps, gamma, gae_lambda = 4, 16, 0.99, 0.9
    envs = twin_envs("skull_king_v0", n_envs)
    policy, policy_kwargs = policy_spec(TrainArgs(env_id="skull_king_v0", num_players=[2]))
    shipped = LeanMaskablePPO(policy, envs[0], n_steps=n_steps, batch_size=32, n_epochs=2, seed=0, gamma=gamma,
                              gae_lambda=gae_lambda, policy_kwargs=policy_kwargs)  # fmt: skip
    shipped.set_logger(configure(None, []))
    readable = copy.deepcopy(shipped.policy)
    envs[1].seed(0)  # as LeanMaskablePPO(seed=0) seeded its env
    observations = envs[1].reset()
    torch.manual_seed(21)
    np.random.seed(11)
    shipped.learn(n_envs * n_steps)
    torch.manual_seed(21)
    np.random.seed(11)
    forward = sb3_forward(readable)
    rollout = iteration.Rollout(n_steps, n_envs, envs[1].observation_space.shape[0], envs[1].action_space.n)
    starts = np.ones(n_envs, dtype=bool)
    end = iteration.collect_rollout(forward, envs[1], rollout, observations, starts, gamma)
    _, dones, last_values = end
    advantages, returns = gae(rollout.rewards, rollout.values, rollout.episode_starts, last_values, dones, gamma,
                              gae_lambda)  # fmt: skip
    arrays = {name: getattr(rollout, name) for name in iteration.ROLLOUT_FIELDS if hasattr(rollout, name)}
    flat = iteration.flatten_rollout({**arrays, "advantages": advantages, "returns": returns})
    before = copy.deepcopy(readable)
    settings = PPOSettings(n_epochs=2, batch_size=32, clip_range=0.2, loss="torch")
    stats = ppo_update(forward, readable.parameters(), readable.optimizer, flat, settings)
    assert stats.epochs == 2 and max_parameter_difference(before, readable) > 1e-4
    assert max_parameter_difference(shipped.policy, readable) < 1e-5
