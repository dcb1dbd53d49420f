"""Distil a teacher agent's moves into the project's MLP policy by supervised learning (DAgger).

    python -m experiments.imitate --env-id piraten_kapern_v0 --teacher oracle --num-players 2 3 4 5 --out kapern.npz

Round 1 plays ``--games`` games with the teacher in every seat, at the ``--num-players``
table sizes in turn (game ``g`` at size ``g mod len(sizes)``), and records every decision:
the observation, the legal-action mask and the teacher's action. Every later round (DAgger)
plays ``--games`` more games in which each move is the student's with probability
``--student-share`` (the teacher's otherwise), still labelled with the teacher's choice, so
the data cover the positions the student's own mistakes lead to; the student then trains
on all the data gathered so far. Training: a torch MLP (``--net-arch``, ``--activation``) with
a masked cross-entropy (illegal actions get no probability), Adam, ``--epochs`` passes over
the data per round; with ``--action-features`` (where the game defines them) the last layer
also scores each action from its feature row, as ``agents.action_head`` does, and folds into
one plain linear layer on export.

The env always observes with ``table_layout="max"`` (one vector size for every table size;
``--env-kwargs table_layout=...`` overrides). The result is one data-only agent file
(``agents.checkpoint``: weights and a JSON header with the env id, the options, the player
counts, the observation layout and the network), written atomically; ``ppo:<out>`` plays it.
Positions are split 95/5 (``HOLDOUT``): the agreement with the teacher on the held-out 5%
is printed after every round and stored among the header's figures.

Seeded (games, student moves, the split, torch); ``--torch-threads`` 1 by default. Bad values
end the command before any work with one line and exit status 2. Needs the ``train`` extra.
"""

from __future__ import annotations

import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.extras import require_extras

require_extras(__name__, ("torch", "train"), ("sb3_contrib", "train"), ("matplotlib", "train"), ("numba", "train"))

import numpy as np

import pirate_envs
from agents.checkpoint import SUFFIX, layout_pieces, make_header, save_agent
from agents.mlp import MlpPolicy
from agents.policy_agent import _linear_to_numpy
from agents.registry import make_agent
from experiments.cli import (
    MAX_SEED,
    check_agents,
    check_env_id,
    check_fields,
    check_folder,
    check_tables,
    games_epilog,
    parse_args,
    parse_env_kwargs,
)

#: Share of the positions held out of training to measure the agreement with the teacher.
HOLDOUT = 0.05


@dataclass
class ImitateArgs:
    """Distil a teacher agent into an MLP policy (data-only agent file) by supervised learning."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    teacher: str = field(default="oracle", metadata={"help": "the agent whose moves are learned (names below)"})
    num_players: list[int] = field(
        default_factory=list, metadata={"help": "table sizes of the games (none: every count the game allows)"}
    )
    env_kwargs: list[str] = field(default_factory=list, metadata={"help": "more env arguments, key=value"})
    games: int = field(default=2000, metadata={"help": "games played per round", "min": 1})
    rounds: int = field(
        default=1, metadata={"help": "rounds: the first with the teacher alone, each later one DAgger", "min": 1}
    )
    student_share: float = field(
        default=0.5,
        metadata={"help": "probability that the student makes a move in a DAgger round (0..1)", "min": 0, "max": 1},
    )
    epochs: int = field(default=10, metadata={"help": "passes over the data per round", "min": 1})
    batch_size: int = field(default=512, metadata={"help": "minibatch size", "min": 1})
    learning_rate: float = field(
        default=1e-3, metadata={"help": "Adam step size (cosine decay within a round)", "above": 0}
    )
    net_arch: list[int] = field(default_factory=lambda: [256, 256], metadata={"help": "hidden layer sizes", "min": 1})
    activation: str = field(default="ReLU", metadata={"help": "of the hidden layers", "choices": ["ReLU", "Tanh"]})
    action_features: bool = field(
        default=True,
        metadata={"help": "score actions from the game's action features too, where it defines them"},
    )
    seed: int = field(
        default=1,
        metadata={"help": "seed of the games, the student's moves, the split and torch", "min": 0, "max": MAX_SEED},
    )
    torch_threads: int = field(default=1, metadata={"help": "torch intra-op threads", "min": 1})
    out: str = field(default="runs/imitate/agent.npz", metadata={"help": f"the agent file to write ({SUFFIX})"})


@dataclass
class Positions:
    """Recorded decisions: observations, legal-action masks (bit-packed) and the teacher's actions."""

    observations: np.ndarray  # (N, D) float32
    packed_masks: np.ndarray  # (N, ceil(A / 8)) uint8, np.packbits of the masks
    actions: np.ndarray  # (N,) int64
    num_actions: int

    def __len__(self) -> int:
        return len(self.actions)

    def masks(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """The boolean masks of ``rows``."""
        return np.unpackbits(self.packed_masks[rows], axis=1, count=self.num_actions).astype(bool)

    def __add__(self, other: Positions) -> Positions:
        return Positions(
            np.concatenate([self.observations, other.observations]),
            np.concatenate([self.packed_masks, other.packed_masks]),
            np.concatenate([self.actions, other.actions]),
            self.num_actions,
        )


def table_sizes(args: ImitateArgs) -> list[int]:
    """The table sizes of the games: ``--num-players``, or every count the game allows."""
    return list(args.num_players) or list(pirate_envs.player_counts(args.env_id))


def env_options(args: ImitateArgs) -> dict[str, Any]:
    """The env options but the player count: ``--env-kwargs`` and ``table_layout="max"``."""
    return {"table_layout": "max", **parse_env_kwargs(args.env_kwargs, {"num_players": "--num-players"})}


def check_args(args: ImitateArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot make a run; runs before any work."""
    check_fields(args)
    check_env_id(args.env_id)
    options = env_options(args)
    sizes = table_sizes(args)
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"--num-players {' '.join(map(str, sizes))}: a table size is repeated")
    check_tables(args.env_id, sizes, lambda players: {**options, "num_players": players}, args.env_kwargs)
    for players in sizes:
        check_agents([args.teacher], args.env_id, players, "--teacher", options)
    if not args.out.endswith(SUFFIX):
        raise ValueError(f"--out {args.out!r} must end in {SUFFIX} (the data-only agent format)")
    check_folder(Path(args.out).parent, "--out")


def make_envs(args: ImitateArgs) -> dict[int, Any]:
    """One raw env per table size."""
    return {n: pirate_envs.make(args.env_id, raw=True, **env_options(args), num_players=n) for n in table_sizes(args)}


def collect(
    args: ImitateArgs, envs: dict[int, Any], student: MlpPolicy | None, rng: np.random.Generator
) -> Positions:
    """Play ``args.games`` games and record every decision with the teacher's action.

    The teacher moves in every seat; with a ``student``, each move is the student's (masked
    argmax) with probability ``args.student_share``, and a position where the teacher raises
    (the student led where the teacher has no move, e.g. a guard exhausted) is the student's
    and not recorded. Game seeds and teacher seeds come from ``rng``.
    """
    sizes = list(envs)
    observations, masks, actions = [], [], []
    for g in range(args.games):
        env = envs[sizes[g % len(sizes)]]
        game_seed = int(rng.integers(2**31))
        env.reset(seed=game_seed)
        seats = range(len(env.possible_agents))
        teachers = [make_agent(args.teacher, args.env_id, seed=game_seed + s, env=env) for s in seats]
        game = env.game
        while not game.done:
            seat = game.current_player
            obs = env.observe(env.possible_agents[seat])
            student_moves = student is not None and rng.random() < args.student_share
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


def build_network(args: ImitateArgs, obs_size: int, num_actions: int, features: np.ndarray | None) -> Any:
    """The torch MLP: hidden layers with the activation, then a linear or feature action head."""
    import torch
    from torch import nn

    layers: list[nn.Module] = []
    width = obs_size
    for hidden in args.net_arch:
        layers += [nn.Linear(width, hidden), getattr(nn, args.activation)()]
        width = hidden
    if features is None:
        layers.append(nn.Linear(width, num_actions))
    else:
        from agents.action_head import FeatureActionHead

        layers.append(FeatureActionHead(width, features))
    torch.manual_seed(args.seed)
    return nn.Sequential(*layers)


def fit(args: ImitateArgs, network: Any, data: Positions, rng: np.random.Generator) -> float:
    """``args.epochs`` passes of masked cross-entropy over ``data``; returns the last epoch's mean loss."""
    import torch

    optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate)
    batches_per_epoch = -(-len(data) // args.batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * batches_per_epoch)
    network.train()
    mean_loss = float("nan")
    for _ in range(args.epochs):
        order = rng.permutation(len(data))
        total = 0.0
        for start in range(0, len(data), args.batch_size):
            rows = np.sort(order[start : start + args.batch_size])
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
            elif hasattr(module, "effective_linear"):  # agents.action_head.FeatureActionHead
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


def imitate(args: ImitateArgs, command: str | None = None) -> Path:
    """Collect, train and write the agent file of ``args``; returns its path."""
    import torch

    check_args(args)
    torch.set_num_threads(args.torch_threads)
    rng = np.random.default_rng(args.seed)
    envs = make_envs(args)
    env = next(iter(envs.values()))
    features = env.action_features.matrix if args.action_features and env.action_features is not None else None
    network = build_network(args, env.observation_layout.size, env.num_actions, features)
    train_data = held_data = None
    student: MlpPolicy | None = None
    figures: dict[str, str] = {}
    start = time.perf_counter()
    for round_index in range(args.rounds):
        t0 = time.perf_counter()
        new_train, new_held = split(collect(args, envs, student, rng), rng)
        train_data = new_train if train_data is None else train_data + new_train
        held_data = new_held if held_data is None else held_data + new_held
        t1 = time.perf_counter()
        loss = fit(args, network, train_data, rng)
        student = export(network, args.activation)
        share = agreement(student, held_data)
        print(
            f"round {round_index + 1}/{args.rounds}: {len(train_data)} training positions "
            f"({t1 - t0:.0f} s to play), loss {loss:.4f} ({time.perf_counter() - t1:.0f} s to train), "
            f"agreement with the teacher on {len(held_data)} held-out positions {share:.4f}",
            flush=True,
        )
        figures = {
            "teacher": args.teacher,
            "training positions": str(len(train_data)),
            "agreement with the teacher on held-out positions": f"{share:.4f} ({len(held_data)} positions)",
        }
    figures["wall time"] = f"{time.perf_counter() - start:.0f} s"
    sizes = table_sizes(args)
    options = env_options(args)
    header = make_header(
        args.env_id,
        {"num_players": sizes[0], **options} if len(sizes) == 1 else options,
        layout_pieces(env.observation_layout),
        env.num_actions,
        student,
        action_head={"kind": "flat"} if features is None else {"kind": "features", "num_features": features.shape[1]},
        player_counts=sizes,
        reward_mode=None,
        training={"command": command, "timesteps": None, "figures": figures},
    )
    path = save_agent(args.out, student, header)
    print(f"wrote {path} (ppo:{path} plays it)")
    return path


def main(argv: list[str] | None = None) -> Path:
    words = sys.argv[1:] if argv is None else argv
    args = parse_args(ImitateArgs, argv, epilog=games_epilog(), check=check_args)
    return imitate(args, shlex.join(["python", "-m", "experiments.imitate", *words]))


if __name__ == "__main__":
    main()
