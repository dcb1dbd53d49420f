"""Tianshou's PPO on a single-agent pirate env, masked, with a win rate against the opponents before and after.

    python examples/tianshou_ppo.py --env-id pirate_envs/PiratenKapern-v0 --total-steps 30000

Extra ``ecosystem``. The learner plays one seat of a Gymnasium id of ``pirate_envs`` against ``--opponents``
(agent names of ``agents.registry``) with the env's ``reward_mode="score"`` (score changes: a signal every turn).
Tianshou reads action masks from a dict observation: ``Masked`` turns the env's vector and its ``action_masks()``
into ``{"obs", "mask"}`` (the keys of Tianshou's own ``PettingZooEnv``), and the actor, which Tianshou hands the
whole observation batch, sets illegal logits to ``-1e8``, at collection and in every PPO update alike. Tianshou's
``Collector`` fills the buffer and ``PPO.update`` learns from it; after every update a line shows the learner
steps, the games finished, and the mean return and win rate of the last 100 of them. Before and after training
it plays ``--eval-games`` games (masked argmax, game ``g`` on seed ``10000 + seed + g``) and prints the win rate
with its 95% interval. What the command above printed: the guide ``docs/guides/ecosystem.md``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from cleanrl_ppo_masked import progress_line  # the progress line of every learning example (same folder)
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.utils.net.common import ActionReprNet
from tianshou.utils.torch_utils import policy_within_training_step
from torch import nn

import agents  # noqa: F401  (registers the Gymnasium ids)
from agents.evaluation.stats import wilson_interval


class Tally:
    """Every finished training game's return and the learner's share of the win, in order."""

    def __init__(self) -> None:
        self.returns: list[float] = []
        self.wins: list[float] = []


class Masked(gymnasium.Wrapper):
    """The env's observation vector and legal actions as ``{"obs", "mask"}``; finished games go to ``tally``."""

    def __init__(self, env: gymnasium.Env, tally: Tally | None = None):
        super().__init__(env)
        self.observation_space = gymnasium.spaces.Dict(
            {"obs": env.observation_space, "mask": gymnasium.spaces.MultiBinary(int(env.action_space.n))}
        )
        self.tally, self._running = tally, 0.0

    def _masked(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {"obs": obs, "mask": self.env.unwrapped.action_masks()}

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict]:
        obs, info = self.env.reset(**kwargs)
        self._running = 0.0
        return self._masked(obs), info

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        self._running += reward
        if (terminated or truncated) and self.tally is not None:
            self.tally.returns.append(self._running)
            self.tally.wins.append(info["win_share"])
        return self._masked(obs), reward, terminated, truncated, info


def mlp(inputs: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, outputs))


def as_tensor(values: np.ndarray | torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return torch.as_tensor(values, dtype=dtype)


class MaskedActor(ActionReprNet):
    """Logits of ``obs.obs`` with the actions outside ``obs.mask`` at ``-1e8`` (Tianshou's actor signature)."""

    def __init__(self, obs_size: int, num_actions: int):
        super().__init__()
        self.net = mlp(obs_size, num_actions)

    def forward(self, obs: Batch, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        logits = self.net(as_tensor(obs.obs, torch.float32))
        return logits.masked_fill(~as_tensor(obs.mask, torch.bool), -1e8), state


class Critic(nn.Module):
    """The value of ``obs.obs``."""

    def __init__(self, obs_size: int):
        super().__init__()
        self.net = mlp(obs_size, 1)

    def forward(self, obs: Batch, **kwargs: Any) -> torch.Tensor:
        return self.net(as_tensor(obs.obs, torch.float32))


def win_shares(actor: MaskedActor, env: Masked, games: int, seed: int) -> list[float]:
    """The learner's share of the win in each of ``games`` games (masked argmax; game ``g`` on seed ``seed + g``)."""
    shares = []
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            with torch.no_grad():
                logits, _ = actor(Batch(obs={key: value[None] for key, value in obs.items()}).obs)
            obs, _, terminated, truncated, info = env.step(int(logits.argmax()))
            done = terminated or truncated
        shares.append(info["win_share"])
    return shares


def evaluation_text(shares: list[float]) -> str:
    rate, low, high = wilson_interval(sum(shares), len(shares))
    return f"win_rate={rate:.3f} [{low:.3f}, {high:.3f}] over {len(shares)} games"


def train(args: argparse.Namespace) -> None:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # a 64x64 net gains nothing from more; on a busy machine they wait on each other

    def make(tally: Tally | None = None) -> Masked:
        env = gymnasium.make(args.env_id, num_players=args.num_players, opponents=args.opponents, reward_mode="score")
        return Masked(env, tally)

    tally, eval_env, eval_seed = Tally(), make(), 10_000 + args.seed
    envs = DummyVectorEnv([lambda: make(tally) for _ in range(args.num_envs)])
    envs.seed([args.seed + i for i in range(args.num_envs)])
    obs_size, num_actions = eval_env.observation_space["obs"].shape[0], int(eval_env.action_space.n)
    actor = MaskedActor(obs_size, num_actions)
    policy = DiscreteActorPolicy(actor=actor, action_space=eval_env.action_space, observation_space=None)
    algorithm = PPO(
        policy=policy, critic=Critic(obs_size), optim=AdamOptimizerFactory(lr=args.lr, eps=1e-5),
        eps_clip=0.2, ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5, gae_lambda=0.95, gamma=0.99,
    )  # fmt: skip
    before = win_shares(actor, eval_env, args.eval_games, eval_seed)
    print(f"before training: {evaluation_text(before)}", flush=True)
    collector = Collector(algorithm, envs, VectorReplayBuffer(args.batch, args.num_envs))
    collector.reset()
    steps, start = 0, time.process_time()
    while steps < args.total_steps:
        with policy_within_training_step(policy):  # sample at collection; ``update`` requires the flag
            steps += collector.collect(n_step=args.batch).n_collected_steps
            algorithm.update(buffer=collector.buffer, batch_size=args.batch // args.minibatches, repeat=args.epochs)
        collector.reset_buffer(keep_statistics=True)
        print(progress_line(steps, tally.returns, tally.wins, time.process_time() - start), flush=True)
    after = win_shares(actor, eval_env, args.eval_games, eval_seed)
    print(f"after {steps} steps: {evaluation_text(after)} (before {np.mean(before):.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="pirate_envs/PiratenKapern-v0", help="a Gymnasium id of pirate_envs")
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--opponents", default="heuristic", help="agent name of the other seats")
    parser.add_argument("--total-steps", type=int, default=30_000, help="learner steps")
    parser.add_argument("--num-envs", type=int, default=4, help="envs stepped in turn")
    parser.add_argument("--batch", type=int, default=1024, help="learner steps per update")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--lr", type=float, default=2.5e-4)
    parser.add_argument("--eval-games", type=int, default=200, help="games played before and after training")
    parser.add_argument("--seed", type=int, default=0)
    train(parser.parse_args())


if __name__ == "__main__":
    main()
