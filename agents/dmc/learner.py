"""The DMC update and training loop: Q(s, a) regressed onto Monte-Carlo returns.

`Learner.update` takes the decisions of one `agents.dmc.rollout.Batch` in shuffled minibatches
(mean squared error between ``Q(s, a)`` and the return, Adam, gradients clipped); `train` alternates
actors' games and updates until a budget of learner decisions or CPU seconds is spent, then writes
the agent file (`agents.policy.dmc_file.save_dmc_agent`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from threadpoolctl import threadpool_limits

import pirate_envs
from agents.dmc.features import QNetwork, action_features
from agents.dmc.rollout import SELF, Actors, Batch
from agents.policy.dmc_file import save_dmc_agent


class Learner:
    """Adam on the mean squared error between ``Q(s, a)`` and the Monte-Carlo return, on ``device``
    (the network is moved there; `train` learns on the CPU, where the actors read the network)."""

    def __init__(
        self,
        network: QNetwork,
        learning_rate: float = 3e-4,
        batch_size: int = 1024,
        max_grad_norm: float = 10.0,
        device: str | torch.device = "cpu",
    ):
        self.device = torch.device(device)
        self.network = network.to(self.device)
        self.optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate)
        self.batch_size = batch_size
        self.max_grad_norm = max_grad_norm

    def loss(self, observations: np.ndarray, actions: np.ndarray, returns: np.ndarray) -> torch.Tensor:
        """The mean squared error of the network on the decisions given."""
        q = self.network.q_of(torch.from_numpy(observations).to(self.device), torch.from_numpy(actions).to(self.device))
        return torch.mean((q - torch.from_numpy(returns).to(self.device)) ** 2)

    def update(self, batch: Batch, rng: np.random.Generator, epochs: int = 1) -> float:
        """``epochs`` passes over ``batch`` in shuffled minibatches; the mean loss of the steps taken."""
        losses = []
        for _ in range(epochs):
            order = rng.permutation(len(batch.actions))
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                loss = self.loss(batch.observations[rows], batch.actions[rows], batch.returns[rows])
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.network.parameters(), self.max_grad_norm)
                self.optimizer.step()
                losses.append(float(loss.detach()))
        return float(np.mean(losses)) if losses else math.nan


@dataclass(frozen=True)
class DmcPlan:
    """One DMC training run (checked by the command, ``experiments.train_dmc``)."""

    env_id: str
    env_options: dict[str, Any]
    out: Path
    opponent: str = SELF
    total_steps: int = 1_000_000
    max_cpu_s: float | None = None
    num_games: int = 256
    epsilon: float = 0.05
    gamma: float = 1.0
    learning_rate: float = 3e-4
    batch_size: int = 1024
    epochs: int = 1
    net_arch: tuple[int, ...] = (256, 256)
    activation: str = "ReLU"
    seed: int = 1
    torch_threads: int = 1
    command: str | None = None
    log_every: int = 10


def train(plan: DmcPlan, log: Callable[[str], None] = print) -> tuple[Path, list[dict[str, float]]]:
    """Play and learn until ``total_steps`` learner decisions or ``max_cpu_s`` CPU seconds of this
    process (whichever first; the last round of games is learned from), then write the agent file.

    Returns its path and the curve: each logged point (every ``log_every`` rounds of games, and the
    last): decisions, CPU seconds, games, loss and the learner seats' mean final reward that round.
    """
    torch.manual_seed(plan.seed)
    torch.set_num_threads(plan.torch_threads)
    rng = np.random.default_rng(plan.seed)
    raw = pirate_envs.make(plan.env_id, raw=True, **plan.env_options)
    network = QNetwork(raw.observation_layout.size, action_features(raw), plan.net_arch, plan.activation)
    learner = Learner(network, plan.learning_rate, plan.batch_size)
    start = time.process_time()
    steps = games = rounds = 0
    curve: list[dict[str, float]] = []
    with threadpool_limits(limits=1, user_api="blas"):
        actors = Actors(plan.env_id, plan.num_games, plan.env_options, plan.opponent, plan.gamma, plan.seed)
        while steps < plan.total_steps and (plan.max_cpu_s is None or time.process_time() - start < plan.max_cpu_s):
            batch = actors.play(network.to_policy(), plan.epsilon)
            loss = learner.update(batch, rng, plan.epochs)
            steps, games, rounds = steps + len(batch.actions), games + batch.games, rounds + 1
            done = steps >= plan.total_steps or (
                plan.max_cpu_s is not None and time.process_time() - start >= plan.max_cpu_s
            )
            if rounds % plan.log_every == 0 or done:
                point = {
                    "decisions": steps, "cpu_s": round(time.process_time() - start, 1), "games": games,
                    "loss": round(loss, 5), "mean_reward": round(batch.mean_reward, 4),
                }  # fmt: skip
                curve.append(point)
                log(" ".join(f"{key}={value}" for key, value in point.items()))
    figures = {
        "decisions": str(steps),
        "games": str(games),
        "cpu seconds": f"{time.process_time() - start:.0f}",
        "opponent": plan.opponent,
        "last round's mean reward (epsilon-greedy)": f"{batch.mean_reward:.3f}" if rounds else "none",
    }
    path = save_dmc_agent(plan.out, network, raw, plan.env_id, plan.env_options, plan.command, steps, figures)
    return path, curve
