"""Expert iteration: a network trained on its own guided search (Anthony et al. 2017; AlphaZero; Gumbel
AlphaZero, Danihelka et al. 2022).

`ExpertIterationPlan` holds one run (``experiments.expert_iteration`` builds it from its command
line); `run` carries it out, iteration by iteration.

Self-play by the plan's ``search`` (``gumbel`` or the guided ``halving``) with the current network,
every decision recorded with the search's ``policy_target`` and the seat's win share (`Decisions`,
`self_play`); an update of the policy and value heads over the replay window (`fit`); a data-only
checkpoint with the value head, the iteration's commit point. Everything random in iteration ``k``
is seeded from ``(seed, k)``, so a resumed run writes the files of an uninterrupted one. The
iteration, the network, the run folder, exact resume and speed: ``docs/guides/expert_iteration.md``
("Inside the library").
"""

from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
from agents.games import game_agents_of
from agents.policy.agent import _linear_to_numpy, copy_into_torch, load_initial_policy
from agents.policy.blas import one_blas_thread
from agents.policy.checkpoint import (
    SUFFIX,
    header_env_kwargs,
    layout_pieces,
    load_agent,
    make_header,
    make_value_target,
    read_npz,
    save_agent,
)
from agents.policy.mlp import MlpPolicy
from agents.search.guided import GUMBEL_C_SCALE, GUMBEL_CONSIDERED, GuidedSearchAgent
from agents.search.halving import HALVING, HalvingSearchAgent, halving_searches
from agents.training.imitation import PackedMaskRows
from pirate_envs.core.errors import one_line
from pirate_envs.core.files import write_atomic
from pirate_envs.core.rewards import win_rewards

#: The columns of ``metrics.csv``.
METRICS = (
    "iteration",
    "games",
    "positions",
    "searched_positions_per_s",
    "self_play_s",
    "update_s",
    "policy_loss",
    "value_loss",
    "trained_positions",
)
CHECKPOINTS, DATA, METRICS_FILE, LATEST = "checkpoints", "data", "metrics.csv", "latest"
#: The most bytes the arrays of one iteration's decisions file may hold (a run's own file; checked before reading).
MAX_DECISIONS_BYTES = 2**33
#: The files a run writes (regular expressions of names), by folder of the run folder.
RUN_FILES = {
    ".": r"config\.json|metrics\.csv",
    CHECKPOINTS: r"(iteration_\d+|latest)\.npz",
    DATA: r"iteration_\d+\.npz",
}


@dataclass(frozen=True)
class ExpertIterationPlan:
    """One expert-iteration run: the game and its tables, the search, the iterations, the update and the folder."""

    env_id: str
    #: The table sizes of the games, played in turn.
    table_sizes: tuple[int, ...]
    #: The env options but the player count (``table_layout`` among them).
    env_options: Mapping[str, Any]
    run_dir: Path
    simulations: int = 16
    #: The search of every seat: ``gumbel`` (the tree search) or ``halving`` (flat, on the batched engine).
    search: str = "gumbel"
    #: What values the Gumbel search's leaves: ``value`` the network's value head, ``rollout`` a rollout by
    #: the game's heuristic to the game's search horizon (as ``mcts``; the value head still learns).
    #: ``halving`` always rolls out.
    leaf: str = "value"
    #: Gumbel's root: the most actions sequential halving considers and sigma's scale ``c_scale``.
    gumbel_considered: int = GUMBEL_CONSIDERED
    gumbel_scale: float = GUMBEL_C_SCALE
    iterations: int = 10
    games_per_iteration: int = 32
    #: An agent file (or shipped name) whose weights start the network; ``None``: fresh ones.
    init: str | None = None
    net_arch: tuple[int, ...] = (128, 128)
    epochs: int = 2
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_weight: float = 1.0
    replay_iterations: int = 4
    seed: int = 1
    torch_threads: int = 1
    #: The command line recorded in the agent files' headers.
    command: str | None = None


@dataclass
class Decisions(PackedMaskRows):
    """Recorded decisions: observations, legal-action masks (bit-packed), the search's policy targets and
    the deciding seat's win share at the game's end."""

    observations: np.ndarray  # (N, D) float32
    packed_masks: np.ndarray  # (N, ceil(A / 8)) uint8, np.packbits of the masks
    targets: np.ndarray  # (N, A) float32, each row a distribution over the legal actions
    values: np.ndarray  # (N,) float32
    num_actions: int

    def __len__(self) -> int:
        return len(self.values)

    @staticmethod
    def join(parts: list[Decisions]) -> Decisions:
        """The decisions of ``parts`` in order (at least one)."""
        return Decisions(
            np.concatenate([p.observations for p in parts]),
            np.concatenate([p.packed_masks for p in parts]),
            np.concatenate([p.targets for p in parts]),
            np.concatenate([p.values for p in parts]),
            parts[0].num_actions,
        )

    def save(self, path: Path) -> Path:
        """Write the decisions to ``path`` (an ``.npz`` of plain arrays, atomically)."""
        buffer = io.BytesIO()
        np.savez(
            buffer,
            observations=self.observations,
            packed_masks=self.packed_masks,
            targets=self.targets,
            values=self.values,
            num_actions=np.array(self.num_actions),
        )
        return write_atomic(path, buffer.getvalue())

    @staticmethod
    def load(path: Path) -> Decisions:
        """The decisions `save` wrote (no pickle); ``ValueError`` (one line) for a damaged file."""
        try:
            data = read_npz(path, "a decisions file", MAX_DECISIONS_BYTES)  # headers checked before the data
            decisions = Decisions(
                data["observations"],
                data["packed_masks"],
                data["targets"],
                data["values"],
                int(data["num_actions"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: not a decisions file ({one_line(error)})") from None
        n = len(decisions.values)
        if not (len(decisions.observations) == len(decisions.packed_masks) == len(decisions.targets) == n):
            raise ValueError(f"{path}: its arrays disagree on the number of decisions")
        return decisions


# ---------------------------------------------------------------------- environments and names
def make_envs(plan: ExpertIterationPlan) -> dict[int, Any]:
    """One raw env per table size."""
    return {n: pirate_envs.make(plan.env_id, raw=True, **plan.env_options, num_players=n) for n in plan.table_sizes}


def checkpoint_path(run_dir: Path, iteration: int | str) -> Path:
    """``checkpoints/iteration_<k>.npz`` (``latest``: ``checkpoints/latest.npz``)."""
    name = LATEST if iteration == LATEST else f"iteration_{iteration}"
    return run_dir / CHECKPOINTS / f"{name}{SUFFIX}"


def data_path(run_dir: Path, iteration: int) -> Path:
    return run_dir / DATA / f"iteration_{iteration}.npz"


def iteration_rng(plan: ExpertIterationPlan, iteration: int, stream: int) -> np.random.Generator:
    """The generator of one part (``stream``: 0 the games, 1 the update) of iteration ``iteration``."""
    return np.random.default_rng([plan.seed, iteration, stream])


# ---------------------------------------------------------------------- self-play
def search_agent(plan: ExpertIterationPlan, env: Any, network: MlpPolicy, seed: int) -> Any:
    """The search with ``network`` of one seat: Gumbel's, its leaves valued as ``plan.leaf`` says, or halving's."""
    keywords = game_agents_of(plan.env_id).search_keywords()
    if plan.search == HALVING:
        if not halving_searches(plan.env_id):
            raise ValueError(f"search {HALVING!r} does not search {plan.env_id}: use 'gumbel'")
        return HalvingSearchAgent(
            env,
            plan.env_id,
            simulations=plan.simulations,
            prior=network,
            considered=plan.gumbel_considered,
            scale=plan.gumbel_scale,
            seed=seed,
            **keywords,
        )
    if plan.search != "gumbel":
        raise ValueError(f"search must be 'gumbel' or {HALVING!r}, got {plan.search!r}")
    return GuidedSearchAgent(
        env,
        plan.env_id,
        network,
        simulations=plan.simulations,
        root="gumbel",
        leaf=plan.leaf,
        gumbel_considered=plan.gumbel_considered,
        gumbel_scale=plan.gumbel_scale,
        reward_mode="win",
        seed=seed,
        **keywords,
    )


def self_play(
    plan: ExpertIterationPlan,
    envs: dict[int, Any],
    network: MlpPolicy,
    rng: np.random.Generator,
    on_game: Callable[[int], None] | None = None,
) -> tuple[Decisions, int]:
    """Play ``plan.games_per_iteration`` games with the search in every seat; the decisions and the searches run.

    ``on_game(positions)`` (when given) is called after each game with its decisions' count.
    """
    sizes = list(envs)
    observations, masks, targets, values = [], [], [], []
    searched = 0
    for g in range(plan.games_per_iteration):
        env = envs[sizes[g % len(sizes)]]
        game_seed = int(rng.integers(2**31))
        env.reset(seed=game_seed)
        seats = range(len(env.possible_agents))
        searchers = [search_agent(plan, env, network, int(rng.integers(2**31))) for _ in seats]
        game = env.game
        decided: list[int] = []
        while not game.done:
            seat = game.current_player
            obs = env.observe(env.possible_agents[seat])
            mask = np.asarray(obs["action_mask"], dtype=bool)
            legal = np.flatnonzero(mask)
            if legal.size == 1:
                action, target = int(legal[0]), mask.astype(np.float64)
            else:
                action = int(searchers[seat].act(obs, game.view(seat)))
                target = searchers[seat].policy_target
                searched += 1
            observations.append(np.asarray(obs["observation"], dtype=np.float32))
            masks.append(mask)
            targets.append(np.asarray(target, dtype=np.float32))
            decided.append(seat)
            env.step(action)
        shares = win_rewards(game.winners(), game.num_players) if game.terminated else np.zeros(game.num_players)
        values.extend(float(shares[seat]) for seat in decided)
        if on_game is not None:
            on_game(len(decided))
    num_actions = next(iter(envs.values())).num_actions
    mask_rows = np.array(masks, dtype=bool).reshape(-1, num_actions)
    decisions = Decisions(
        np.array(observations, dtype=np.float32).reshape(len(values), -1),
        np.packbits(mask_rows, axis=1),
        np.array(targets, dtype=np.float32).reshape(-1, num_actions),
        np.array(values, dtype=np.float32),
        num_actions,
    )
    return decisions, searched


# ---------------------------------------------------------------------- the network
def initial_policy(plan: ExpertIterationPlan, env: Any) -> MlpPolicy:
    """The network iteration 1 starts from: ``plan.init``'s weights (a fresh value head when it has none), or
    fresh ones (``plan.net_arch``, Tanh); fresh layers drawn from torch seeded with ``plan.seed``."""
    import torch

    torch.manual_seed(plan.seed)
    if plan.init is not None:
        source, _ = load_init(plan.init, plan.env_id, env)
        hidden, activation = [w.shape[1] for w in source.weights[:-1]], source.activation
    else:
        source, hidden, activation = None, list(plan.net_arch), "Tanh"
    policy_net, value_net = build_networks(env.observation_layout.size, env.num_actions, hidden, activation)
    fresh = export(policy_net, value_net, activation)
    weights, biases = (source.weights, source.biases) if source is not None else (fresh.weights, fresh.biases)
    if source is not None and source.has_value:
        value_weights, value_biases = source.value_weights, source.value_biases
    else:  # a fresh value head answering 0 everywhere until trained
        value_weights = [*fresh.value_weights[:-1], np.zeros_like(fresh.value_weights[-1])]  # type: ignore[index]
        value_biases = [*fresh.value_biases[:-1], np.zeros_like(fresh.value_biases[-1])]  # type: ignore[index]
    return MlpPolicy(
        [np.asarray(w, dtype=np.float32) for w in weights],
        [np.asarray(b, dtype=np.float32) for b in biases],
        activation,
        value_weights=[np.asarray(w, dtype=np.float32) for w in value_weights],
        value_biases=[np.asarray(b, dtype=np.float32) for b in value_biases],
    )


def load_init(source: str, env_id: str, env: Any) -> tuple[MlpPolicy, dict[str, Any]]:
    """The network of the agent file ``source`` (a path or shipped name), checked to read ``env``'s observations
    with a plain action head; ``ValueError`` (one line) otherwise."""
    return load_initial_policy(source, env_id, layout_pieces(env.observation_layout), env.num_actions)


def build_networks(inputs: int, actions: int, hidden: list[int], activation: str) -> tuple[Any, Any]:
    """The torch policy and value chains (same hidden sizes and activation)."""
    from torch import nn

    def chain(outputs: int) -> Any:
        layers: list[Any] = []
        width = inputs
        for size in hidden:
            layers += [nn.Linear(width, size), getattr(nn, activation)()]
            width = size
        return nn.Sequential(*layers, nn.Linear(width, outputs))

    return chain(actions), chain(1)


def export(policy_net: Any, value_net: Any, activation: str) -> MlpPolicy:
    """The numpy `MlpPolicy` (with its value head) of the torch chains."""
    import torch

    def arrays(network: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
        pairs = [_linear_to_numpy(m.weight, m.bias) for m in network if isinstance(m, torch.nn.Linear)]
        return [w for w, _ in pairs], [b for _, b in pairs]

    with torch.no_grad():
        (weights, biases), (value_weights, value_biases) = arrays(policy_net), arrays(value_net)
    return MlpPolicy(weights, biases, activation, value_weights=value_weights, value_biases=value_biases)


def fit(
    plan: ExpertIterationPlan, policy: MlpPolicy, data: Decisions, rng: np.random.Generator
) -> tuple[MlpPolicy, float, float]:
    """``plan.epochs`` passes over ``data`` from ``policy``'s weights (a fresh Adam); the new network and the
    last epoch's mean policy cross-entropy and value squared error."""
    import torch

    hidden = [w.shape[1] for w in policy.weights[:-1]]
    policy_net, value_net = build_networks(policy.obs_size, policy.num_actions, hidden, policy.activation)
    copy_into_torch(policy_net, policy.weights, policy.biases)
    copy_into_torch(value_net, policy.value_weights, policy.value_biases)  # type: ignore[arg-type]
    optimizer = torch.optim.Adam([*policy_net.parameters(), *value_net.parameters()], lr=plan.learning_rate)
    policy_loss = value_loss = math.nan
    for _ in range(plan.epochs):
        order = rng.permutation(len(data))
        policy_total = value_total = 0.0
        for start in range(0, len(data), plan.batch_size):
            rows = np.sort(order[start : start + plan.batch_size])
            x = torch.from_numpy(data.observations[rows])
            logits = policy_net(x).masked_fill(~torch.from_numpy(data.masks(rows)), -1e9)
            targets = torch.from_numpy(data.targets[rows])
            cross_entropy = -(targets * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            squared_error = (value_net(x)[:, 0] - torch.from_numpy(data.values[rows])).pow(2).mean()
            loss = cross_entropy + plan.value_weight * squared_error
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            policy_total += cross_entropy.item() * len(rows)
            value_total += squared_error.item() * len(rows)
        policy_loss, value_loss = policy_total / len(data), value_total / len(data)
    return export(policy_net, value_net, policy.activation), policy_loss, value_loss


# ---------------------------------------------------------------------- files
def write_checkpoint(plan: ExpertIterationPlan, env: Any, policy: MlpPolicy, iteration: int, positions: int) -> Path:
    """``checkpoints/iteration_<k>.npz``, then ``latest.npz``: the agent file of ``policy`` (format 2, value head)."""
    sizes = list(plan.table_sizes)
    options = dict(plan.env_options)
    header = make_header(
        plan.env_id,
        header_env_kwargs(sizes, options),
        layout_pieces(env.observation_layout),
        env.num_actions,
        policy,
        player_counts=sizes,
        reward_mode="win",
        training={
            "command": plan.command,
            "timesteps": positions,
            "figures": {"expert iteration": f"iteration {iteration}, {plan.search}:{plan.simulations} self-play"},
        },
        value_target=make_value_target("win", 1.0, 1.0),
    )
    path = save_agent(checkpoint_path(plan.run_dir, iteration), policy, header)
    save_agent(checkpoint_path(plan.run_dir, LATEST), policy, header)
    return path


def read_metrics(run_dir: Path, up_to: int) -> list[dict[str, str]]:
    """The rows of ``metrics.csv`` up to iteration ``up_to`` (later ones belong to an interrupted iteration)."""
    path = run_dir / METRICS_FILE
    if not path.is_file():
        return []
    with path.open(newline="") as file:
        rows = list(csv.DictReader(file))
    return [row for row in rows if row.get("iteration", "").isdigit() and int(row["iteration"]) <= up_to]


def write_metrics(run_dir: Path, rows: list[dict[str, Any]]) -> None:
    """``metrics.csv`` with ``rows``, written whole and atomically."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=METRICS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(run_dir / METRICS_FILE, buffer.getvalue())


def completed_iteration(run_dir: Path) -> int:
    """The newest iteration with a checkpoint in ``run_dir`` (0: none)."""
    done = [
        int(path.stem.removeprefix("iteration_"))
        for path in (run_dir / CHECKPOINTS).glob(f"iteration_*{SUFFIX}")
        if path.stem.removeprefix("iteration_").isdigit()
    ]
    return max(done, default=0)


# ---------------------------------------------------------------------- the run
def run(plan: ExpertIterationPlan, progress: bool = True, log: Callable[[str], None] | None = None) -> Path:
    """Carry out (or continue, from the newest checkpoint in ``plan.run_dir``) the run of ``plan``; returns the
    latest agent file. ``progress``: a progress bar over the games; ``log``: one line per iteration."""
    import torch
    from tqdm import tqdm

    torch.set_num_threads(plan.torch_threads)
    envs = make_envs(plan)
    env = next(iter(envs.values()))
    done = completed_iteration(plan.run_dir)
    if done:
        newest = checkpoint_path(plan.run_dir, done)
        policy, _ = load_agent(newest)
        write_atomic(checkpoint_path(plan.run_dir, LATEST), newest.read_bytes())  # a kill may have cut it out
    else:
        policy = initial_policy(plan, env)
    rows: list[dict[str, Any]] = list(read_metrics(plan.run_dir, done))
    trained = int(rows[-1]["trained_positions"]) if rows else 0
    bar = tqdm(
        total=plan.iterations * plan.games_per_iteration,
        initial=done * plan.games_per_iteration,
        unit="game",
        disable=not progress,
        dynamic_ncols=True,
    )
    try:
        for iteration in range(done + 1, plan.iterations + 1):
            torch.manual_seed(plan.seed + iteration)
            started = time.perf_counter()
            with one_blas_thread():
                decisions, searched = self_play(
                    plan, envs, policy, iteration_rng(plan, iteration, 0), on_game=lambda _: bar.update(1)
                )
            decisions.save(data_path(plan.run_dir, iteration))
            played = time.perf_counter()
            window = range(max(1, iteration - plan.replay_iterations + 1), iteration + 1)
            data = Decisions.join([Decisions.load(data_path(plan.run_dir, k)) for k in window])
            policy, policy_loss, value_loss = fit(plan, policy, data, iteration_rng(plan, iteration, 1))
            trained += len(data)
            updated = time.perf_counter()
            row = {
                "iteration": iteration,
                "games": plan.games_per_iteration,
                "positions": len(decisions),
                "searched_positions_per_s": f"{searched / max(played - started, 1e-9):.2f}",
                "self_play_s": f"{played - started:.1f}",
                "update_s": f"{updated - played:.1f}",
                "policy_loss": f"{policy_loss:.6f}",
                "value_loss": f"{value_loss:.6f}",
                "trained_positions": trained,
            }
            rows.append(row)
            write_metrics(plan.run_dir, rows)  # before the checkpoint: a resume drops a row without one
            write_checkpoint(plan, env, policy, iteration, trained)
            bar.set_postfix(policy_loss=row["policy_loss"], value_loss=row["value_loss"])
            if log is not None:
                log(
                    f"iteration {iteration}/{plan.iterations}: {len(decisions)} positions, "
                    f"{row['searched_positions_per_s']} searched positions/s, policy loss {row['policy_loss']}, "
                    f"value loss {row['value_loss']}"
                )
    finally:
        bar.close()
    return checkpoint_path(plan.run_dir, LATEST)
