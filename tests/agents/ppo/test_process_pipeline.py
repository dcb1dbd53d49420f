"""The update in a child process: the thread pipeline's run to the bit, the child's writes seen, its errors raised."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from agents.ppo.pipeline import UPDATE_SEED_OFFSET
from agents.ppo.process_pipeline import ProcessUpdatePipeline, fork_available
from tests.agents.ppo.test_pipeline import N_ENVS, N_STEPS, flat_parameters, new_model

pytestmark = pytest.mark.skipif(not fork_available(), reason="the update's child process needs fork")


def optimizer_state(model) -> list[torch.Tensor]:
    return [value for state in model.policy.optimizer.state.values() for value in state.values()]


def test_a_process_pipelined_model_learns_what_a_thread_pipelined_one_does():
    finals = {}
    for where in ("thread", "process"):
        model = new_model(pipeline=True)
        model.pipeline_in = where
        model.learning_rate = lambda progress: 3e-3 * progress  # the schedule reaches the child
        model._setup_lr_schedule()
        torch.manual_seed(5)
        model.learn(4 * N_ENVS * N_STEPS)
        model.learn(2 * N_ENVS * N_STEPS, reset_num_timesteps=False)  # a second learn forks a second child
        finals[where] = model
    thread, process = finals["thread"], finals["process"]
    assert torch.equal(flat_parameters(process.policy.parameters()), flat_parameters(thread.policy.parameters()))
    assert all(torch.equal(a, b) for a, b in zip(optimizer_state(process), optimizer_state(thread), strict=True))
    assert process._n_updates == thread._n_updates == 6 * 2
    for key in ("train/loss", "train/approx_kl", "train/learning_rate"):
        assert process.logger.name_to_value[key] == thread.logger.name_to_value[key], key
    assert process.update_pipeline()._child is None  # learn stopped its child


def counting_pipeline(learner: list[torch.nn.Parameter]) -> ProcessUpdatePipeline[tuple[float, str]]:
    """A pipeline whose work adds the rollout's sum to the learner and draws one number."""

    def work(rng: np.random.RandomState, rollout: dict[str, torch.Tensor], message: dict) -> float:
        if message.get("fail"):
            raise ValueError("the update broke")
        if message.get("die"):
            os._exit(3)
        with torch.no_grad():
            learner[0].add_(rollout["x"].sum())
        return float(rng.random())

    behaviour = [torch.nn.Parameter(torch.zeros(3))]
    return ProcessUpdatePipeline(learner, behaviour, 7, work, lambda: list(learner), lambda result, tag: (result, tag))


def test_the_parent_sees_what_the_child_wrote_and_the_draws_go_on_across_children():
    learner = [torch.nn.Parameter(torch.zeros(3))]
    pipeline = counting_pipeline(learner)
    expected = np.random.RandomState(7 + UPDATE_SEED_OFFSET)
    joined = []
    for k in range(4):
        if k == 2:  # settled, the learner's storage replaced (as a loaded state would be): a new child is needed
            joined.append(pipeline.join())
            learner[0].data = learner[0].data.clone()
        joined.append(pipeline.start_update({"x": torch.full((2,), float(k + 1))}, {}, f"update {k}"))
    joined.append(pipeline.close())
    results = [result for result in joined if result is not None]
    assert [draw for draw, _ in results] == [expected.random() for _ in range(4)]
    assert [tag for _, tag in results] == [f"update {k}" for k in range(4)]
    assert torch.equal(learner[0].detach(), torch.full((3,), 2.0 * (1 + 2 + 3 + 4)))
    assert pipeline._child is None and not pipeline.in_flight


def test_an_update_failing_in_the_child_raises_in_the_parent():
    learner = [torch.nn.Parameter(torch.zeros(3))]
    pipeline = counting_pipeline(learner)
    pipeline.start_update({"x": torch.ones(2)}, {}, "first")  # runs here, before the child
    child_process = None
    pipeline.start_update({"x": torch.ones(2)}, {"fail": True}, "second")
    child_process = pipeline._child
    with pytest.raises(RuntimeError, match="the update broke"):
        pipeline.join()
    pipeline.close()
    assert child_process is not None and not child_process.is_alive()
    with pytest.raises(TypeError, match="start_update"):
        pipeline.start(lambda rng: 0)


def test_a_child_that_dies_is_reported_and_replaced():
    learner = [torch.nn.Parameter(torch.zeros(3))]
    pipeline = counting_pipeline(learner)
    pipeline.start_update({"x": torch.ones(2)}, {}, "first")
    pipeline.start_update({"x": torch.ones(2)}, {"die": True}, "second")
    with pytest.raises(RuntimeError, match="ended without a reply \\(exit code 3\\)"):
        pipeline.join()
    pipeline.start_update({"x": torch.ones(2)}, {}, "third")  # a new child
    assert pipeline.close() is not None
    assert torch.equal(learner[0].detach(), torch.full((3,), 2.0 + 2.0))  # the first and the third
