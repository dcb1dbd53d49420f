"""Masked PPO on a single-agent pirate env, in the CleanRL single-file style (plain torch).

    python examples/cleanrl_ppo_masked.py --env-id pirate_envs/PiratenKapern-v0 --total-timesteps 50000

The learner plays one seat of a Gymnasium id of ``pirate_envs`` against ``--opponents`` (agent
names of ``agents.registry``); illegal actions get a logit of ``-1e8`` from the env's
``action_masks()``. The reward is the env's ``reward_mode="score"`` (score changes, a signal every
turn; ``--reward-mode win`` pays only the zero-sum end, -1 in nearly every early game). Each update
prints the learner steps, the games finished, the mean return and win rate of the last 100 games,
and learner steps per CPU-second. With ``--save-agent FILE`` the actor is written in the project's
data-only agent format, so ``ppo:FILE`` plays it in ``experiments.evaluate`` and ``experiments.play``.

What the command above printed at the start and the end of its budget, on two seeds: the guide
``docs/guides/single_agent.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical

import agents  # noqa: F401  (registers the Gymnasium ids)


@dataclass
class Args:
    env_id: str = "pirate_envs/PiratenKapern-v0"
    """a Gymnasium id of pirate_envs"""
    num_players: int = 2
    """table size"""
    opponents: str = "heuristic"
    """agent name of the other seats"""
    reward_mode: str = "score"
    """the env's reward: "score" (score changes, a signal every turn) or "win" (terminal, zero-sum)"""
    seed: int = 1
    """seed of the envs, numpy and torch"""
    total_timesteps: int = 50_000
    """learner steps in all"""
    learning_rate: float = 2.5e-4
    """Adam step size"""
    num_envs: int = 4
    """envs stepped in turn"""
    num_steps: int = 128
    """steps per env per rollout"""
    gamma: float = 0.99
    """discount"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs per rollout"""
    clip_coef: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clip"""
    save_agent: str = ""
    """write the actor to this file in the data-only agent format (empty: do not)"""


def parse() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Args):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Args(**vars(parser.parse_args()))


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, 64)), nn.Tanh(), layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )  # fmt: skip
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, 64)), nn.Tanh(), layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, num_actions), std=0.01),
        )  # fmt: skip

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e8)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def progress_line(steps: int, returns: list[float], wins: list[float], cpu_s: float, last: int = 100) -> str:
    """Learner steps, games finished, the mean return and win rate of the last ``last`` games, steps per CPU-second."""
    mean_return = f"{np.mean(returns[-last:]):.3f}" if returns else "n/a"
    win_rate = f"{np.mean(wins[-last:]):.3f}" if wins else "n/a"
    return (
        f"global_step={steps} games={len(returns)} mean_return={mean_return} win_rate={win_rate} "
        f"(last {min(last, len(returns))} games) steps_per_cpu_s={int(steps / max(cpu_s, 1e-9))}"
    )


def save_actor(agent: Agent, args: Args, env: gym.Env) -> None:
    """Write the actor in the data-only agent format (``ppo:<file>`` plays it)."""
    from agents.policy.checkpoint import layout_pieces, make_header, save_agent
    from agents.policy.mlp import MlpPolicy

    linears = [m for m in agent.actor if isinstance(m, nn.Linear)]
    weights = [m.weight.detach().numpy().T.copy() for m in linears]
    policy = MlpPolicy(weights, [m.bias.detach().numpy().copy() for m in linears], "Tanh")
    raw = env.unwrapped.raw
    header = make_header(
        env.unwrapped.env_id,
        {"num_players": args.num_players},
        layout_pieces(raw.observation_layout),
        raw.num_actions,
        policy,
        reward_mode=args.reward_mode,
        training={"command": "examples/cleanrl_ppo_masked.py", "timesteps": args.total_timesteps},
    )
    save_agent(args.save_agent, policy, header)
    print(f"saved ppo:{args.save_agent}")


if __name__ == "__main__":
    args = parse()
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    envs = [
        gym.make(args.env_id, num_players=args.num_players, opponents=args.opponents, reward_mode=args.reward_mode)
        for _ in range(args.num_envs)
    ]
    obs_size, num_actions = envs[0].observation_space.shape[0], int(envs[0].action_space.n)
    agent = Agent(obs_size, num_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs, obs_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step, start = 0, time.process_time()
    next_obs = torch.tensor(np.stack([env.reset(seed=args.seed + i)[0] for i, env in enumerate(envs)]))
    next_mask = torch.tensor(np.stack([env.unwrapped.action_masks() for env in envs]))
    next_done = torch.zeros(args.num_envs)
    episode_returns, wins, running = [], [], np.zeros(args.num_envs)

    for _iteration in range(num_iterations):
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            step_obs, step_masks, step_done = [], [], []
            for i, env in enumerate(envs):
                o, r, terminated, truncated, info = env.step(int(action[i]))
                rewards[step, i] = r
                running[i] += r
                if terminated or truncated:
                    episode_returns.append(running[i])
                    wins.append(info["win_share"])
                    running[i] = 0.0
                    o, _ = env.reset()
                step_obs.append(o)
                step_masks.append(env.unwrapped.action_masks())
                step_done.append(float(terminated or truncated))
            next_obs, next_mask = torch.tensor(np.stack(step_obs)), torch.tensor(np.stack(step_masks))
            next_done = torch.tensor(step_done)

        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                nextnonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        b_inds = np.arange(batch_size)
        for _epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for begin in range(0, batch_size, minibatch_size):
                mb = b_inds[begin : begin + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                clipped = ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * clipped).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        print(progress_line(global_step, episode_returns, wins, time.process_time() - start), flush=True)

    if args.save_agent:
        save_actor(agent, args, envs[0])
    for env in envs:
        env.close()
