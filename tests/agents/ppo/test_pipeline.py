"""Pipelined PPO: rollout k + 1 is played by the policy after update k - 1, and runs repeat given the seed."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure

from agents.ppo.algorithm import LeanMaskablePPO, PPOLoop, PPOSettings, sb3_forward
from agents.ppo.pipeline import UpdatePipeline
from agents.selfplay.opponents import parse_weights
from agents.selfplay.vec_env import make_vec_env
from experiments.train import TrainArgs, policy_spec

N_ENVS, N_STEPS = 4, 16
SETTINGS = PPOSettings(n_epochs=2, batch_size=16, clip_range=0.2)


def flat_parameters(parameters) -> torch.Tensor:
    with torch.no_grad():
        return torch.cat([p.detach().reshape(-1) for p in parameters]).clone()


def skull_king_env(seed: int = 3):
    return make_vec_env(
        "skull_king_v0", N_ENVS, 0, seed=seed, opponents=parse_weights(["random:1"]),
        env_kwargs={"num_players": 2, "num_hands": 1},
    )  # fmt: skip


def new_model(pipeline: bool) -> LeanMaskablePPO:
    policy, policy_kwargs = policy_spec(TrainArgs(env_id="skull_king_v0", num_players=[2], env_kwargs=["num_hands=1"]))
    model = LeanMaskablePPO(
        policy, skull_king_env(), n_steps=N_STEPS, batch_size=16, n_epochs=2, policy_kwargs=policy_kwargs, seed=0
    )
    model.pipeline = pipeline
    model.set_logger(configure(None, []))
    return model


def pipelined_loop(seed: int = 0) -> tuple[PPOLoop, torch.nn.Module, torch.nn.Module, list[torch.Tensor]]:
    """A pipelined `PPOLoop` whose behaviour forward records the parameters it reads at each call."""
    model = new_model(pipeline=False)  # only its policy and env
    learner = model.policy
    behaviour = copy.deepcopy(learner)
    seen: list[torch.Tensor] = []
    acting = sb3_forward(behaviour)

    def recording_forward(observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        seen.append(flat_parameters(behaviour.parameters()))
        return acting(observations)

    loop = PPOLoop(
        sb3_forward(learner), learner.parameters(), learner.optimizer, model.env, N_STEPS, 0.99, 0.95, SETTINGS,
        behaviour=(recording_forward, behaviour.parameters()), seed=seed,
    )  # fmt: skip
    return loop, learner, behaviour, seen


def test_a_pipelined_loop_plays_rollout_k_plus_1_with_the_policy_after_update_k_minus_1():
    loop, learner, _, seen = pipelined_loop()
    torch.manual_seed(5)
    after = [flat_parameters(learner.parameters())]  # after[j]: the learner after update j - 1
    used = []  # per rollout: the parameters every policy call of it read
    for _ in range(5):
        seen.clear()
        loop.collect()
        assert len(seen) == N_STEPS + 1 and all(torch.equal(s, seen[0]) for s in seen)  # one policy per rollout
        used.append(seen[0])
        assert loop.update() is None  # starts update k (update k - 1 was joined below)
        assert loop.settle().epochs == SETTINGS.n_epochs  # joining early changes no number (its own copy, own rng)
        after.append(flat_parameters(learner.parameters()))
    assert torch.equal(used[0], after[0]) and torch.equal(used[1], after[0])  # rollout 1 runs beside update 0
    for k in range(1, 4):
        assert torch.equal(used[k + 1], after[k])  # the policy after update k - 1
        assert not torch.equal(used[k + 1], after[k + 1])  # not the one after update k
    assert loop.pipeline is not None and loop.pipeline.updates_done == 5


def test_pipelined_loops_repeat_given_the_seed_and_leave_numpys_generator_alone():
    finals = []
    for _ in range(2):
        loop, learner, _, _ = pipelined_loop(seed=1)
        torch.manual_seed(5)
        np.random.seed(7)
        for k in range(4):
            loop.collect()
            stats = loop.update()  # starts update k; returns update k - 1's stats
            assert (stats is None) == (k == 0)
        assert loop.settle().epochs == SETTINGS.n_epochs and loop.settle() is None
        assert np.random.random() == np.random.RandomState(7).random_sample()  # minibatch orders: its own generator
        finals.append(flat_parameters(learner.parameters()))
    assert torch.equal(finals[0], finals[1])
    loop, learner, _, _ = pipelined_loop(seed=2)  # another update seed: other minibatch orders
    torch.manual_seed(5)
    for _ in range(4):
        loop.collect()
        loop.update()
    loop.settle()
    assert not torch.equal(finals[0], flat_parameters(learner.parameters()))


class LagRecorder(BaseCallback):
    """At each rollout's start: the learner once its update in flight is joined; at its end: the policy that played."""

    def __init__(self) -> None:
        super().__init__()
        self.learner_at_start: list[torch.Tensor] = []
        self.behaviour: list[torch.Tensor] = []

    def _on_rollout_start(self) -> None:
        self.model.settle()
        self.learner_at_start.append(flat_parameters(self.model.policy.parameters()))

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        player = self.model.behaviour_policy()
        self.behaviour.append(flat_parameters(player.parameters()))
        buffer = self.model.rollout_buffer
        observations = torch.from_numpy(buffer.observations.reshape(-1, buffer.observations.shape[-1]))
        with torch.no_grad():
            values = player.predict_values(observations).numpy().reshape(buffer.values.shape)
        np.testing.assert_allclose(values, buffer.values, rtol=1e-5, atol=1e-5)  # it played the rollout


def test_a_pipelined_model_plays_with_the_policy_one_update_old_and_settles_before_it_returns():
    model = new_model(pipeline=True)
    recorder = LagRecorder()
    torch.manual_seed(5)
    model.learn(5 * N_ENVS * N_STEPS, callback=recorder)
    starts, played = recorder.learner_at_start, recorder.behaviour
    assert len(played) == 5 and model._n_updates == 5 * 2  # every update joined and counted by the end
    assert torch.equal(played[0], starts[0]) and torch.equal(played[1], starts[0])
    for k in range(1, 4):
        assert torch.equal(played[k + 1], starts[k])  # rollout k + 1: the learner after update k - 1
        assert not torch.equal(played[k + 1], starts[k + 1])
    assert not model.update_pipeline().in_flight  # learn settled: ``policy`` is the learner after update 4
    assert not torch.equal(flat_parameters(model.policy.parameters()), starts[-1])


def test_pipelined_models_repeat_given_the_seed_and_serial_ones_are_unchanged():
    finals = {}
    for pipeline in (True, True, False):
        model = new_model(pipeline)
        torch.manual_seed(5)
        np.random.seed(11)
        model.learn(4 * N_ENVS * N_STEPS)
        finals.setdefault(pipeline, []).append(flat_parameters(model.policy.parameters()))
    assert torch.equal(finals[True][0], finals[True][1])
    assert not torch.equal(finals[True][0], finals[False][0])  # the lag changes the run


def test_an_update_error_reaches_the_main_thread():
    learner, behaviour = [torch.nn.Parameter(torch.zeros(3))], [torch.nn.Parameter(torch.ones(3))]
    pipeline: UpdatePipeline[int] = UpdatePipeline(learner, behaviour, seed=0)
    assert torch.equal(behaviour[0], learner[0])  # synced at the start

    def failing(rng: np.random.RandomState) -> int:
        raise RuntimeError("boom")

    pipeline.start(failing)
    with pytest.raises(RuntimeError, match="boom"):
        pipeline.join()
    assert pipeline.close() is None
    with pytest.raises(ValueError, match="shapes"):
        UpdatePipeline(learner, [torch.nn.Parameter(torch.zeros(4))], seed=0)
