"""sb3-contrib's MaskablePPO on a single-agent pirate env, with a win rate measured before and after training.

    python examples/sb3_maskable_ppo.py --env-id pirate_envs/PiratenKapern-v0 --total-timesteps 60000

The learner plays one seat of a Gymnasium id of ``pirate_envs`` against ``--opponents`` (agent names of
``agents.registry``) with the env's ``reward_mode="score"`` (score changes: a signal every turn, where the
win-only reward is -1 in nearly every early game); the masks come from the env's ``action_masks()``. It
plays ``--eval-games`` games with the untrained model and again after training (masked argmax, the same
seeds) and prints both win rates; in between, one line per rollout shows the learner steps, the games
finished, and the mean return and win rate of the last 100 of them.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
from cleanrl_ppo_masked import progress_line  # the progress line of every learning example (same folder)
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

import agents  # noqa: F401  (registers the Gymnasium ids)


class Progress(BaseCallback):
    """Prints, after every rollout, the learner steps, games finished, and the last games' mean return and win rate."""

    def __init__(self) -> None:
        super().__init__()
        self.returns: list[float] = []
        self.wins: list[float] = []
        self._running = 0.0
        self._cpu_start = time.process_time()

    def _on_step(self) -> bool:
        self._running += float(self.locals["rewards"][0])
        if self.locals["dones"][0]:
            self.returns.append(self._running)
            self.wins.append(self.locals["infos"][0]["win_share"])
            self._running = 0.0
        return True

    def _on_rollout_end(self) -> None:
        cpu_s = time.process_time() - self._cpu_start
        print(progress_line(self.num_timesteps, self.returns, self.wins, cpu_s), flush=True)


def win_rate(model: MaskablePPO, env: gymnasium.Env, games: int, seed: int) -> float:
    """The model's mean share of the win over ``games`` games (masked argmax; game ``g`` on seed ``seed + g``)."""
    shares = []
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        shares.append(info["win_share"])
    return float(np.mean(shares))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="pirate_envs/PiratenKapern-v0", help="a Gymnasium id of pirate_envs")
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--opponents", default="heuristic", help="agent name of the other seats")
    parser.add_argument("--reward-mode", default="score", choices=["score", "win"])
    parser.add_argument("--total-timesteps", type=int, default=60_000, help="learner steps")
    parser.add_argument("--n-steps", type=int, default=1024, help="learner steps per rollout")
    parser.add_argument("--eval-games", type=int, default=200, help="games played before and after training")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    def make() -> gymnasium.Env:
        return gymnasium.make(
            args.env_id, num_players=args.num_players, opponents=args.opponents, reward_mode=args.reward_mode
        )

    model = MaskablePPO(
        "MlpPolicy", make(), n_steps=args.n_steps, batch_size=min(256, args.n_steps), n_epochs=4, ent_coef=0.01,
        policy_kwargs={"net_arch": [64, 64]}, seed=args.seed,
    )  # fmt: skip
    eval_env, eval_seed = make(), 10_000 + args.seed
    before = win_rate(model, eval_env, args.eval_games, eval_seed)
    print(f"before training: win_rate={before:.3f} over {args.eval_games} games", flush=True)
    model.learn(args.total_timesteps, callback=Progress())
    after = win_rate(model, eval_env, args.eval_games, eval_seed)
    print(
        f"after {args.total_timesteps} steps: win_rate={after:.3f} over {args.eval_games} games (before {before:.3f})"
    )


if __name__ == "__main__":
    main()
