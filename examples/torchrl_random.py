"""A pirate game through TorchRL's ``PettingZooWrapper`` (extra ``ecosystem``): masked random play.

    python examples/torchrl_random.py --env-id piraten_kapern_v0 --steps 200

The AEC env is wrapped as it is (``use_mask=True``: each agent's group carries ``mask``, whether
it acts, and ``action_mask``, its legal actions); a policy writes every group's ``action``, and
only the acting agent's is played. A learner replaces ``random_policy`` with its own module.
"""

from __future__ import annotations

import argparse

import torch
from torchrl.envs import PettingZooWrapper

import pirate_envs


def make_env(env_id: str, **kwargs) -> PettingZooWrapper:
    """The AEC env of ``env_id`` as a TorchRL env (one group per agent, masks kept)."""
    return PettingZooWrapper(env=pirate_envs.make(env_id, **kwargs), use_mask=True, categorical_actions=True)


def random_policy(env: PettingZooWrapper, generator: torch.Generator):
    """A TensorDict policy that plays a uniformly random legal action for every group."""

    def policy(td):
        for group in env.group_map:
            legal = td[group, "action_mask"].float()
            legal[legal.sum(-1) == 0, 0] = 1.0  # an agent not on turn: any action, it is not played
            td[group, "action"] = torch.multinomial(legal, 1, generator=generator).squeeze(-1)
        return td

    return policy


def play(env_id: str, steps: int, seed: int = 0, **kwargs) -> tuple[int, dict[str, float]]:
    """``steps`` moves of random play (a game that ends starts anew): games finished, each agent's summed reward."""
    env = make_env(env_id, **kwargs)
    env.set_seed(seed)
    policy = random_policy(env, torch.Generator().manual_seed(seed))
    rollout = env.rollout(steps, policy=policy, break_when_any_done=False)
    rewards = {group: float(rollout["next", group, "reward"].sum()) for group in env.group_map}
    return int(rollout["next", "done"].sum()), rewards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="piraten_kapern_v0", choices=pirate_envs.ENV_IDS)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    games, rewards = play(args.env_id, args.steps, args.seed)
    print(f"{games} games finished; summed rewards {rewards}")


if __name__ == "__main__":
    main()
