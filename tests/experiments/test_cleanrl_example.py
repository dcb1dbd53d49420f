"""The CleanRL-style example trains on a Gymnasium id with a tiny budget and saves a playable agent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

import pirate_envs
from agents.registry import make_agent

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "cleanrl_ppo_masked.py"


def test_tiny_run_trains_and_saves_an_agent_that_plays(tmp_path):
    agent_file = tmp_path / "agent.npz"
    command = [sys.executable, str(SCRIPT), "--env-id", "pirate_envs/SkullKing-v0", "--num-players", "3",
               "--total-timesteps", "128", "--num-envs", "2", "--num-steps", "64", "--update-epochs", "1",
               "--save-agent", str(agent_file)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "global_step=128 " in done.stdout
    agent = make_agent(f"ppo:{agent_file}", "skull_king_v0", seed=0)
    env = pirate_envs.make("skull_king_v0", num_players=3)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs)] == 1
    assert np.isfinite(agent.policy.logits(obs["observation"])).all()
