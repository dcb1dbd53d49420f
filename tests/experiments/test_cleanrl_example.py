"""The CleanRL-style example trains on a Gymnasium id at a tiny budget, prints its progress, saves a playable agent.

A tiny budget checks the output, never learning: the learning figures are measured once and quoted, with their
command, in the example's docstring.
"""

from __future__ import annotations

import numpy as np

import pirate_envs
from agents.policy.checkpoint import load_agent
from agents.registry import make_agent
from tests.experiments.example_runs import progress, run_example


def test_tiny_run_prints_progress_and_saves_an_agent_that_plays(tmp_path):
    agent_file = tmp_path / "agent.npz"
    stdout = run_example(
        "cleanrl_ppo_masked.py", "--env-id", "pirate_envs/PiratenKapern-v0", "--num-players", "2",
        "--total-timesteps", "256", "--num-envs", "2", "--num-steps", "64", "--update-epochs", "1",
        "--save-agent", str(agent_file),
    )  # fmt: skip
    lines = progress(stdout)
    assert [line["steps"] for line in lines] == ["128", "256"]
    last = lines[-1]
    assert int(last["games"]) > 0 and last["win_rate"] != "n/a" and last["mean_return"] != "n/a"
    assert int(last["window"]) == min(100, int(last["games"]))
    assert load_agent(agent_file)[1]["reward_mode"] == "score"  # the example's reward, written into the header
    agent = make_agent(f"ppo:{agent_file}", "piraten_kapern_v0", seed=0)
    env = pirate_envs.make("piraten_kapern_v0", num_players=2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs)] == 1
    assert np.isfinite(agent.policy.logits(obs["observation"])).all()
