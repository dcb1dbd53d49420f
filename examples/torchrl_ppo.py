"""PPO with TorchRL's ``ClipPPOLoss`` and ``GAE`` on a pirate game through TorchRL's ``PettingZooWrapper``.

    python examples/torchrl_ppo.py --env-id piraten_kapern_v0 --total-steps 20000

Extra ``ecosystem``. The AEC env is wrapped as in ``examples/torchrl_random.py`` (``use_mask=True``); seat
``player_0`` learns with a masked actor (TorchRL's ``MaskedCategorical`` over the group's ``action_mask``), the
other seats play the project's ``--opponents`` agent on the wrapped env. The env pays score changes
(``reward_mode="score"``: a signal every turn); a learner transition sums his rewards from his move to his next
decision or the game's end. After every batch of ``--batch`` learner steps it prints the learner steps, the games
finished, and the mean return and win rate of the last 100 games. What the command above printed: the guide
``docs/guides/ecosystem.md``.
"""

from __future__ import annotations

import argparse
import time

import torch
from cleanrl_ppo_masked import progress_line  # the progress line of every learning example (same folder)
from tensordict import TensorDict
from tensordict.nn import InteractionType, TensorDictModule
from torch import nn
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import pirate_envs
from agents.registry import make_agent
from agents.selfplay.core import win_share

LEARNER = "player_0"


def mlp(inputs: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, outputs))


def actor_critic(obs_size: int, num_actions: int) -> tuple[ProbabilisticActor, ValueOperator]:
    """A masked categorical actor (``observation``, ``action_mask`` -> a sampled ``action``) and its critic."""
    logits = TensorDictModule(mlp(obs_size, num_actions), in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(
        logits, in_keys={"logits": "logits", "mask": "action_mask"}, out_keys=["action"],
        distribution_class=MaskedCategorical, return_log_prob=True,
        default_interaction_type=InteractionType.RANDOM,  # sample (TorchRL's default outside a collector: the mode)
    )  # fmt: skip
    return actor, ValueOperator(mlp(obs_size, 1), in_keys=["observation"])


class Collector:
    """Plays the wrapped env and cuts the learner's transitions out of it (opponents move in between)."""

    def __init__(self, env_id: str, num_players: int, opponents: str, seed: int):
        self.aec = pirate_envs.make(env_id, num_players=num_players, reward_mode="score")
        self.env = PettingZooWrapper(env=self.aec, use_mask=True, categorical_actions=True)
        self.opponents = {
            group: make_agent(opponents, env_id, seed=seed + seat)
            for seat, group in enumerate(self.env.group_map)
            if group != LEARNER
        }
        self.td = self.env.reset(seed=seed)
        self.pending: TensorDict | None = None  # the learner's last move, waiting for its outcome
        self.returns: list[float] = []
        self.wins: list[float] = []
        self._running = 0.0

    def observation(self) -> TensorDict:
        group = self.td[LEARNER]
        return TensorDict(observation=group["observation", "observation"][0], action_mask=group["action_mask"][0])

    def close(self, next_obs: torch.Tensor, done: bool, terminated: bool, out: list[TensorDict]) -> None:
        """Ends the pending transition (its reward summed so far) at ``next_obs``."""
        if self.pending is not None:
            self.pending["next"] = TensorDict(
                observation=next_obs, reward=torch.tensor([self.pending.pop("reward_sum")]),
                done=torch.tensor([done]), terminated=torch.tensor([terminated]),
            )  # fmt: skip
            out.append(self.pending)
            self.pending = None

    def act(self, actor: ProbabilisticActor) -> None:
        """Writes every group's action into the current step; only the acting seat's is played."""
        for group in self.env.group_map:
            self.td[group, "action"] = torch.zeros(1, dtype=torch.long)
        for seat, group in enumerate(self.env.group_map):
            if not bool(self.td[group, "mask"]):
                continue
            if group == LEARNER:
                with torch.no_grad():
                    move = actor(self.observation())
                self.pending = move.set("reward_sum", 0.0)
                self.td[group, "action"] = move["action"].view(1)
            else:
                raw, name = self.aec.unwrapped, self.aec.unwrapped.possible_agents[seat]
                self.td[group, "action"] = torch.tensor(
                    [self.opponents[group].act(raw.observe(name), raw.game.view(seat))]
                )

    def collect(self, actor: ProbabilisticActor, steps: int) -> TensorDict:
        """``steps`` learner transitions (observation, mask, action, log-prob, and the ``next`` outcome)."""
        out: list[TensorDict] = []
        while len(out) < steps:
            if bool(self.td[LEARNER, "mask"]):
                self.close(self.observation()["observation"], False, False, out)
            self.act(actor)
            self.td = self.env.step(self.td)
            reward = float(self.td["next", LEARNER, "reward"].sum())
            self._running += reward
            if self.pending is not None:
                self.pending["reward_sum"] += reward
            if bool(self.td["next", "done"]):
                self.end_game(out)
            else:
                self.td = self.td["next"]
        return torch.stack(out)

    def end_game(self, out: list[TensorDict]) -> None:
        game = self.aec.unwrapped.game
        obs = self.td["next", LEARNER, "observation", "observation"][0]
        self.close(obs, True, bool(self.td["next", "terminated"]), out)
        self.returns.append(self._running)
        self.wins.append(win_share(0, game.winners(), len(self.env.group_map)) if game.terminated else 0.0)
        self._running = 0.0
        self.td = self.env.reset()


def train(args: argparse.Namespace) -> None:
    torch.manual_seed(args.seed)
    collector = Collector(args.env_id, args.num_players, args.opponents, args.seed)
    spec = collector.observation()
    actor, critic = actor_critic(spec["observation"].shape[-1], spec["action_mask"].shape[-1])
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=critic, average_gae=False)
    loss_module = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01, normalize_advantage=True)
    loss_module.set_keys(sample_log_prob="action_log_prob")
    optimizer = torch.optim.Adam(loss_module.parameters(), lr=2.5e-4, eps=1e-5)
    steps, start = 0, time.process_time()
    while steps < args.total_steps:
        batch = collector.collect(actor, args.batch)
        steps += args.batch
        with torch.no_grad():
            advantage(batch)
        for _epoch in range(args.epochs):
            for minibatch in batch[torch.randperm(args.batch)].split(args.batch // args.minibatches):
                losses = loss_module(minibatch)
                loss = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(loss_module.parameters(), 0.5)
                optimizer.step()
        print(progress_line(steps, collector.returns, collector.wins, time.process_time() - start), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="piraten_kapern_v0", choices=pirate_envs.ENV_IDS)
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--opponents", default="heuristic", help="agent name of the other seats")
    parser.add_argument("--total-steps", type=int, default=20_000, help="learner steps")
    parser.add_argument("--batch", type=int, default=512, help="learner steps per update")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    train(parser.parse_args())


if __name__ == "__main__":
    main()
