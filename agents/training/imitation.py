"""Distilling a teacher agent's moves into the project's MLP policy by supervised learning (DAgger).

`ImitationPlan` holds one run (``experiments.imitate`` builds it from its command line);
`imitate` carries it out. Round 1 plays ``games`` games with the teacher in every seat, at the
plan's table sizes in turn (game ``g`` at size ``g mod len(sizes)``), and records every decision
(`collect`): the observation, the legal-action mask and the teacher's action. Every later round
(DAgger) plays ``games`` more games in which each move is the student's with probability
``student_share`` (the teacher's otherwise), still labelled with the teacher's choice, so the
data cover the positions the student's own mistakes lead to; the student then trains on all
the data gathered so far (`fit`: a masked cross-entropy, Adam with a cosine decay, ``epochs``
passes per round). The torch MLP (`build_network`) ends in a linear layer, or in a feature
head scoring each action from its feature row (`agents.ppo.action_head`), which `export` folds
into one plain linear layer of the numpy `agents.policy.mlp.MlpPolicy`. Positions are split 95/5
(`HOLDOUT`): the agreement with the teacher on the held-out share is measured every round.
The result is one data-only agent file (`agents.policy.checkpoint`), written atomically.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
from agents.policy.agent import _linear_to_numpy
from agents.policy.blas import one_blas_thread
from agents.policy.checkpoint import header_env_kwargs, layout_pieces, make_header, save_agent
from agents.policy.mlp import MlpPolicy
from agents.registry import make_agent

#: Share of the positions held out of training to measure the agreement with the teacher.
HOLDOUT = 0.05


@dataclass(frozen=True)
class ImitationPlan:
    """One distillation run: the game and its tables, the teacher, the rounds, the network and the file."""

    env_id: str
    teacher: str
    #: The table sizes of the games, played in turn.
    table_sizes: tuple[int, ...]
    #: The env options but the player count (``table_layout`` among them).
    env_options: Mapping[str, Any]
    out: Path
    games: int = 2000
    rounds: int = 1
    student_share: float = 0.5
    epochs: int = 10
    batch_size: int = 512
    learning_rate: float = 1e-3
    net_arch: tuple[int, ...] = (256, 256)
    activation: str = "ReLU"
    action_features: bool = True
    seed: int = 1
    torch_threads: int = 1
    #: The command line recorded in the agent file's header.
    command: str | None = None


class PackedMaskRows:
    """Recorded rows whose legal-action masks are kept bit-packed (``packed_masks``, ``num_actions``)."""

    packed_masks: np.ndarray  # (N, ceil(A / 8)) uint8, np.packbits of the masks
    num_actions: int

    def masks(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """The boolean masks of ``rows``."""
        return np.unpackbits(self.packed_masks[rows], axis=1, count=self.num_actions).astype(bool)


@dataclass
class Positions(PackedMaskRows):
    """Recorded decisions: observations, legal-action masks (bit-packed) and the teacher's actions."""

    observations: np.ndarray  # (N, D) float32
    packed_masks: np.ndarray  # (N, ceil(A / 8)) uint8, np.packbits of the masks
    actions: np.ndarray  # (N,) int64
    num_actions: int

    def __len__(self) -> int:
        return len(self.actions)

    def __add__(self, other: Positions) -> Positions:
        return Positions(
            np.concatenate([self.observations, other.observations]),
            np.concatenate([self.packed_masks, other.packed_masks]),
            np.concatenate([self.actions, other.actions]),
            self.num_actions,
        )


def make_envs(plan: ImitationPlan) -> dict[int, Any]:
    """One raw env per table size."""
    return {n: pirate_envs.make(plan.env_id, raw=True, **plan.env_options, num_players=n) for n in plan.table_sizes}


def collect(
    plan: ImitationPlan, envs: dict[int, Any], student: MlpPolicy | None, rng: np.random.Generator
) -> Positions:
    """Play ``plan.games`` games and record every decision with the teacher's action.

    The teacher moves in every seat; with a ``student``, each move is the student's (masked
    argmax) with probability ``plan.student_share``, and a position where the teacher raises
    (the student led where the teacher has no move, e.g. a guard exhausted) is the student's
    and not recorded. Game seeds and teacher seeds come from ``rng``.
    """
    sizes = list(envs)
    observations, masks, actions = [], [], []
    for g in range(plan.games):
        env = envs[sizes[g % len(sizes)]]
        game_seed = int(rng.integers(2**31))
        env.reset(seed=game_seed)
        seats = range(len(env.possible_agents))
        teachers = [make_agent(plan.teacher, plan.env_id, seed=game_seed + s, env=env) for s in seats]
        game = env.game
        while not game.done:
            seat = game.current_player
            obs = env.observe(env.possible_agents[seat])
            student_moves = student is not None and rng.random() < plan.student_share
            try:
                label = int(teachers[seat].act(obs, game.view(seat)))
            except (RuntimeError, ValueError):
                if student is None:
                    raise
                label = None  # the student led where the teacher has no move (a guard exhausted): no label
                student_moves = True
            if label is not None:
                observations.append(obs["observation"])
                masks.append(obs["action_mask"])
                actions.append(label)
            env.step(student.act(obs["observation"], obs["action_mask"]) if student_moves else label)
    mask_rows = np.array(masks, dtype=bool)
    return Positions(
        np.array(observations, dtype=np.float32),
        np.packbits(mask_rows, axis=1),
        np.array(actions, dtype=np.int64),
        mask_rows.shape[1],
    )


def build_network(plan: ImitationPlan, obs_size: int, num_actions: int, features: np.ndarray | None) -> Any:
    """The torch MLP: hidden layers with the activation, then a linear or feature action head.

    Its initial weights come from torch seeded with the plan's seed (whatever torch drew before).
    """
    import torch
    from torch import nn

    torch.manual_seed(plan.seed)
    layers: list[nn.Module] = []
    width = obs_size
    for hidden in plan.net_arch:
        layers += [nn.Linear(width, hidden), getattr(nn, plan.activation)()]
        width = hidden
    if features is None:
        layers.append(nn.Linear(width, num_actions))
    else:
        from agents.ppo.action_head import FeatureActionHead

        layers.append(FeatureActionHead(width, features))
    return nn.Sequential(*layers)


def fit(plan: ImitationPlan, network: Any, data: Positions, rng: np.random.Generator) -> float:
    """``plan.epochs`` passes of masked cross-entropy over ``data``; returns the last epoch's mean loss."""
    import torch

    optimizer = torch.optim.Adam(network.parameters(), lr=plan.learning_rate)
    batches_per_epoch = -(-len(data) // plan.batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=plan.epochs * batches_per_epoch)
    network.train()
    mean_loss = float("nan")
    for _ in range(plan.epochs):
        order = rng.permutation(len(data))
        total = 0.0
        for start in range(0, len(data), plan.batch_size):
            rows = np.sort(order[start : start + plan.batch_size])
            logits = network(torch.from_numpy(data.observations[rows]))
            legal = torch.from_numpy(data.masks(rows))
            logits = logits.masked_fill(~legal, -1e9)
            loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(data.actions[rows]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(rows)
        mean_loss = total / len(data)
    return mean_loss


def export(network: Any, activation: str) -> MlpPolicy:
    """The numpy copy of the torch network (a feature head folded into one linear layer)."""
    import torch

    weights, biases = [], []
    with torch.no_grad():
        for module in network:
            if isinstance(module, torch.nn.Linear):
                layer = module.weight, module.bias
            elif hasattr(module, "effective_linear"):  # agents.ppo.action_head.FeatureActionHead
                layer = module.effective_linear()
            else:
                continue
            weight, bias = _linear_to_numpy(*layer)
            weights.append(weight)
            biases.append(bias)
    return MlpPolicy(weights, biases, activation)


def agreement(policy: MlpPolicy, data: Positions) -> float:
    """Share of the positions of ``data`` where the policy's masked argmax is the teacher's action."""
    if len(data) == 0:
        return float("nan")
    logits = policy.logits(data.observations)
    logits[~data.masks()] = -np.inf
    return float(np.mean(logits.argmax(axis=1) == data.actions))


def split(data: Positions, rng: np.random.Generator) -> tuple[Positions, Positions]:
    """A random (training, held-out) split with `HOLDOUT` of the positions held out."""
    held = rng.random(len(data)) < HOLDOUT

    def pick(rows: np.ndarray) -> Positions:
        return Positions(data.observations[rows], data.packed_masks[rows], data.actions[rows], data.num_actions)

    return pick(~held), pick(held)


def imitate(plan: ImitationPlan, log: Callable[[str], None] | None = None) -> Path:
    """Collect, train and write the agent file of ``plan``; returns its path.

    ``log`` (when given) takes one line per round: the positions, the loss and the agreement.
    """
    import torch

    torch.set_num_threads(plan.torch_threads)
    rng = np.random.default_rng(plan.seed)
    envs = make_envs(plan)
    env = next(iter(envs.values()))
    features = env.action_features.matrix if plan.action_features and env.action_features is not None else None
    network = build_network(plan, env.observation_layout.size, env.num_actions, features)
    train_data = held_data = None
    student: MlpPolicy | None = None
    figures: dict[str, str] = {}
    start = time.perf_counter()
    for round_index in range(plan.rounds):
        t0 = time.perf_counter()
        with one_blas_thread():
            new_train, new_held = split(collect(plan, envs, student, rng), rng)
        train_data = new_train if train_data is None else train_data + new_train
        held_data = new_held if held_data is None else held_data + new_held
        t1 = time.perf_counter()
        loss = fit(plan, network, train_data, rng)
        student = export(network, plan.activation)
        share = agreement(student, held_data)
        if log is not None:
            log(
                f"round {round_index + 1}/{plan.rounds}: {len(train_data)} training positions "
                f"({t1 - t0:.0f} s to play), loss {loss:.4f} ({time.perf_counter() - t1:.0f} s to train), "
                f"agreement with the teacher on {len(held_data)} held-out positions {share:.4f}"
            )
        figures = {
            "teacher": plan.teacher,
            "training positions": str(len(train_data)),
            "agreement with the teacher on held-out positions": f"{share:.4f} ({len(held_data)} positions)",
        }
    figures["wall time"] = f"{time.perf_counter() - start:.0f} s"
    sizes = list(plan.table_sizes)
    options = dict(plan.env_options)
    header = make_header(
        plan.env_id,
        header_env_kwargs(sizes, options),
        layout_pieces(env.observation_layout),
        env.num_actions,
        student,
        action_head={"kind": "flat"} if features is None else {"kind": "features", "num_features": features.shape[1]},
        player_counts=sizes,
        reward_mode=None,
        training={"command": plan.command, "timesteps": None, "figures": figures},
    )
    return save_agent(plan.out, student, header)
