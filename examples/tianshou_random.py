"""A pirate game through Tianshou's ``PettingZooEnv`` (extra ``ecosystem``): masked random play.

    python examples/tianshou_random.py --env-id skull_king_v0 --steps 200

Tianshou's wrapper turns the AEC env into one single-agent env whose observation is
``{"agent_id", "obs", "mask"}`` (the agent on turn, its observation vector and its legal
actions) and whose reward is every agent's; a multi-agent policy (Tianshou's
``MultiAgentPolicyManager``) picks the policy by ``agent_id``. Here one random policy plays
every seat.
"""

from __future__ import annotations

import argparse

import numpy as np
from tianshou.env import PettingZooEnv

import pirate_envs


def play(env_id: str, steps: int, seed: int = 0, **kwargs) -> tuple[int, np.ndarray]:
    """``steps`` moves of random play (a new game after each end): games finished, summed rewards per seat."""
    env = PettingZooEnv(pirate_envs.make(env_id, **kwargs))
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    games, total = 0, np.zeros(len(env.agents))
    for _ in range(steps):
        obs, rewards, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        total += rewards
        if terminated or truncated:
            games += 1
            obs, _ = env.reset()
    return games, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="skull_king_v0", choices=pirate_envs.ENV_IDS)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    games, total = play(args.env_id, args.steps, args.seed)
    print(f"{games} games finished; summed rewards {total.tolist()}")


if __name__ == "__main__":
    main()
