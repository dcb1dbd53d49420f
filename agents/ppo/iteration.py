"""One PPO iteration, top to bottom: collect a rollout, compute the advantages, epochs of minibatches of the loss.

The shipped trainer runs these functions (`agents.ppo.algorithm.LeanMaskablePPO`: its
``collect_rollouts`` is `collect_rollout` then `gae`, its ``train`` is `ppo_update`), and so does the
CleanRL-style `agents.ppo.algorithm.PPOLoop`. Read in order:

1. `collect_rollout`: ``n_steps`` steps of every env into a `Rollout` (one forward of the batch and
   one masked draw, `sample_masked`, per step);
2. `gae`: the advantages and returns of the rollout (sb3's ``compute_returns_and_advantage``);
3. `flatten_rollout`: the rollout as flat tensors, env-major (``(env, step)`` order, as sb3's
   ``swap_and_flatten``), so minibatch ``i`` holds the rows sb3-contrib's holds;
4. `ppo_update`: ``n_epochs`` epochs, each a permutation of the rollout cut into ``batch_size``
   minibatches, each one step of Adam on the loss of `agents.ppo.loss` (``"torch"``: the readable
   `agents.ppo.loss.ppo_loss`; ``"fused"``, the default: its numba twin, held equal by a test).

The fast parts are called from here, not copied: the forward (`agents.ppo.algorithm.ActorCriticForward`
reads mostly-zero observations as `agents.ppo.sparse_layers.SparseRows`), the fused loss, Adam's fused
step. Tests hold each step to sb3-contrib's ``MaskablePPO`` (same actions, buffer, GAE, parameters).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from agents.ppo.fast_loss import MASKED_LOGIT
from agents.ppo.loss import minibatch_loss
from agents.ppo.sparse_layers import SparseRows

#: The flat tensors an update reads (`flatten_rollout`).
ROLLOUT_FIELDS = ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks")

#: A network's forward pass for the update: observations -> (action logits, state values).
Forward = Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]
#: `ppo_update` hands `ActorCriticForward` the observations as `SparseRows` when at most this
#: share of a row's entries is nonzero (below it the gather-sum beats the dense matmul).
SPARSE_MAX_DENSITY = 0.25


class Rollout:
    """One rollout's numpy arrays, ``(n_steps, n_envs, ...)``; `add` writes one step of every env.

    ``episode_starts[t]`` is 1 where the observation of step ``t`` starts a game (the previous
    step ended one), as sb3's rollout buffer keeps it.
    """

    def __init__(self, n_steps: int, n_envs: int, obs_size: int, num_actions: int) -> None:
        self.n_steps, self.n_envs = n_steps, n_envs
        self.observations = np.zeros((n_steps, n_envs, obs_size), dtype=np.float32)
        self.actions = np.zeros((n_steps, n_envs), dtype=np.int64)
        self.rewards = np.zeros((n_steps, n_envs), dtype=np.float32)
        self.episode_starts = np.zeros((n_steps, n_envs), dtype=np.float32)
        self.values = np.zeros((n_steps, n_envs), dtype=np.float32)
        self.log_probs = np.zeros((n_steps, n_envs), dtype=np.float32)
        self.action_masks = np.zeros((n_steps, n_envs, num_actions), dtype=bool)

    def add(
        self,
        step: int,
        observations: np.ndarray,
        actions: np.ndarray,
        rewards: np.ndarray,
        episode_starts: np.ndarray,
        values: np.ndarray,
        log_probs: np.ndarray,
        action_masks: np.ndarray,
    ) -> None:
        """Store step ``step`` of every env."""
        self.observations[step] = observations
        self.actions[step] = actions
        self.rewards[step] = rewards
        self.episode_starts[step] = episode_starts
        self.values[step] = values
        self.log_probs[step] = log_probs
        self.action_masks[step] = action_masks


def action_masks(vec_env: Any) -> np.ndarray:
    """``(num_envs, A)`` ``bool``: the legal actions of every env (one call where the VecEnv has it)."""
    if hasattr(vec_env, "action_masks"):
        return np.asarray(vec_env.action_masks(), dtype=bool)
    return np.stack(vec_env.env_method("action_masks")).astype(bool)


def sample_masked(logits: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions drawn from the masked categorical over ``logits`` and their log-probabilities.

    One uniform per row from torch's global generator (the same seed gives the same actions),
    placed on the row's cumulative probabilities: the inverse-CDF draw, three times faster than
    ``torch.multinomial`` over Kapern's 2,084 actions (`benchmarks/bench_sampling.py`). The
    probabilities come from ``softmax``: ``exp`` of the masked logits themselves takes torch's
    slow path for huge negative inputs. A masked action has probability 0 and is never drawn.
    """
    probabilities = torch.softmax(torch.where(masks, logits, MASKED_LOGIT), -1)
    cumulative = probabilities.cumsum(-1)
    drawn = torch.rand(len(cumulative), 1) * cumulative[:, -1:]
    actions = torch.searchsorted(cumulative, drawn, right=True).squeeze(1).clamp_(max=masks.shape[1] - 1)
    chosen = probabilities.gather(1, actions.unsqueeze(1)).squeeze(1)
    past_end = chosen == 0  # a draw rounded up to the row's total: its last legal action instead
    if past_end.any():
        last_legal = masks.shape[1] - 1 - masks.flip(-1).to(torch.uint8).argmax(-1)
        actions = torch.where(past_end, last_legal, actions)
        chosen = probabilities.gather(1, actions.unsqueeze(1)).squeeze(1)
    return actions, chosen.log()


#: What `collect_rollout` tells its caller after each step: ``(rewards, dones, infos)`` -> keep going?
StepHook = Callable[[np.ndarray, np.ndarray, list[dict[str, Any]]], bool]


@torch.no_grad()
def collect_rollout(
    forward: Forward,
    env: Any,
    rollout: Rollout,
    observations: np.ndarray,
    episode_starts: np.ndarray,
    gamma: float,
    on_step: StepHook | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """1. Collect: play ``rollout.n_steps`` steps of every env of ``env`` (a VecEnv with action masks) from
    ``observations``, storing each in ``rollout`` (sb3-contrib's ``collect_rollouts``, step for step).

    Each step: the legal actions, one forward of the batch, one masked draw (`sample_masked`), one
    env step; a game cut by a time limit adds the discounted value of its final observation to its
    last reward. ``on_step(rewards, dones, infos)`` runs after each env step, before the step is
    stored (sb3's callbacks); ``False`` stops the rollout (returns ``None``). Returns the observations
    after the last step, whether that step ended each game, and their values (GAE's bootstrap).
    """
    for step in range(rollout.n_steps):
        masks = action_masks(env)
        observations = np.asarray(observations, dtype=np.float32)
        logits, values = forward(torch.from_numpy(observations))
        actions, log_probs = sample_masked(logits, torch.from_numpy(masks))
        next_observations, rewards, dones, infos = env.step(actions.numpy())
        if on_step is not None and not on_step(rewards, dones, infos):
            return None
        rewards = rewards.astype(np.float32, copy=True)
        ended = np.flatnonzero(dones)
        limited = [i for i in ended if infos[i].get("TimeLimit.truncated", False)]
        limited = [i for i in limited if infos[i].get("terminal_observation") is not None]
        if limited:  # bootstrap from the final observation of a game cut by a time limit
            final = torch.from_numpy(np.stack([infos[i]["terminal_observation"] for i in limited]).astype(np.float32))
            rewards[limited] += gamma * forward(final)[1].numpy()
        rollout.add(
            step, observations, actions.numpy(), rewards, episode_starts, values.numpy(), log_probs.numpy(), masks
        )
        observations, episode_starts = next_observations, dones
    last_values = forward(torch.from_numpy(np.asarray(observations, dtype=np.float32)))[1].numpy()
    return observations, episode_starts, last_values


def gae(
    rewards: np.ndarray,
    values: np.ndarray,
    episode_starts: np.ndarray,
    last_values: np.ndarray,
    last_dones: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE(lambda) advantages and TD(lambda) returns of ``(n_steps, n_envs)`` arrays.

    ``last_values``/``last_dones``: the value of the observation after the last step and whether
    the last step ended a game (then that value is not bootstrapped).
    """
    advantages = np.zeros_like(values, dtype=np.float32)
    last_gae = np.zeros(values.shape[1], dtype=np.float32)
    for step in reversed(range(values.shape[0])):
        if step == values.shape[0] - 1:
            next_non_terminal = 1.0 - last_dones.astype(np.float32)
            next_values = last_values
        else:
            next_non_terminal = 1.0 - episode_starts[step + 1]
            next_values = values[step + 1]
        delta = rewards[step] + gamma * next_values * next_non_terminal - values[step]
        last_gae = delta + gamma * gae_lambda * next_non_terminal * last_gae
        advantages[step] = last_gae
    return advantages, advantages + values


def flatten_rollout(arrays: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """``(n_steps, n_envs, ...)`` arrays of `ROLLOUT_FIELDS` as flat tensors, env-major (one copy each,
    sharing no memory with ``arrays``)."""
    flat = {}
    for name in ROLLOUT_FIELDS:
        array = np.swapaxes(arrays[name], 0, 1)
        flat_array = np.ascontiguousarray(array.reshape(-1, *array.shape[2:]))
        if np.may_share_memory(flat_array, arrays[name]):  # one step or one env: reshaped in place
            flat_array = flat_array.copy()  # a copy always, so the next rollout may overwrite its arrays
        flat[name] = torch.from_numpy(flat_array)
    flat["actions"] = flat["actions"].long()
    flat["action_masks"] = flat["action_masks"] != 0
    return flat


@dataclass(frozen=True)
class PPOSettings:
    """The settings of one update (sb3-contrib's ``MaskablePPO`` arguments of the same names)."""

    n_epochs: int
    batch_size: int
    clip_range: float
    clip_range_vf: float | None = None
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    normalize_advantage: bool = True
    #: The minibatch loss by name (`agents.ppo.loss.LOSSES`): ``"fused"`` (numba) or ``"torch"`` (the readable one).
    loss: str = "fused"


@dataclass
class UpdateStats:
    """What one update did: per-minibatch losses (sb3-contrib's ``train/*`` figures) and epochs run."""

    pg_losses: list[float] = field(default_factory=list)
    value_losses: list[float] = field(default_factory=list)
    entropy_losses: list[float] = field(default_factory=list)
    clip_fractions: list[float] = field(default_factory=list)
    approx_kl_divs: list[float] = field(default_factory=list)  # of the last epoch, as sb3-contrib logs them
    loss: float = 0.0  # of the last minibatch
    epochs: int = 0
    early_stop: str | None = None

    def figures(self) -> dict[str, float]:
        """The ``train/*`` figures sb3-contrib logs (without the run-level ones)."""
        return {
            "entropy_loss": float(np.mean(self.entropy_losses)),
            "policy_gradient_loss": float(np.mean(self.pg_losses)),
            "value_loss": float(np.mean(self.value_losses)),
            "approx_kl": float(np.mean(self.approx_kl_divs)),
            "clip_fraction": float(np.mean(self.clip_fractions)),
            "loss": self.loss,
        }


@torch.no_grad()
def clip_grad_norm(parameters: list[torch.nn.Parameter], max_norm: float) -> None:
    """``torch.nn.utils.clip_grad_norm_`` (2-norm) of parameters on one device and of one dtype: its
    multi-tensor path, the same operations, without its per-call grouping by device."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if grads:
        total = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads, 2.0)), 2.0)
        torch._foreach_mul_(grads, torch.clamp(max_norm / (total + 1e-6), max=1.0))


def _observations_for(forward: Forward, observations: torch.Tensor | SparseRows) -> torch.Tensor | SparseRows:
    """The observations as `SparseRows` where ``forward`` reads them and they are sparse enough (as given
    when they already are `SparseRows`, `prepared_rollout`'s)."""
    reads_sparse = getattr(forward, "reads_sparse_rows", False)
    if isinstance(observations, SparseRows) or not reads_sparse or observations.ndim != 2:
        return observations
    rows = SparseRows.of(observations)
    return rows if rows.indices.shape[1] <= SPARSE_MAX_DENSITY * rows.width else observations


def prepared_rollout(forward: Forward, rollout: dict[str, torch.Tensor]) -> dict[str, Any]:
    """A flat rollout as `ppo_update` reads it: the observations as `SparseRows` where ``forward`` reads
    them and they are sparse enough. `ppo_update` does it itself; a pipelined update has it done on the
    rollout's thread, which has time to spare."""
    return {**rollout, "observations": _observations_for(forward, rollout["observations"])}


def ppo_update(
    forward: Forward,
    parameters: Iterable[torch.nn.Parameter],
    optimizer: torch.optim.Optimizer,
    rollout: dict[str, Any],
    settings: PPOSettings,
    rng: np.random.RandomState | None = None,
) -> UpdateStats:
    """``settings.n_epochs`` epochs of masked PPO over a flat ``rollout`` (`flatten_rollout`, or `prepared_rollout`).

    The rollout is gathered once per epoch into buffers allocated once; an `agents.ppo.algorithm.ActorCriticForward`
    gets sparse observations as `SparseRows`. ``rng`` draws the minibatch orders (default: numpy's
    global generator, as sb3-contrib; a pipelined update has its own, `agents.ppo.pipeline`).
    """
    parameters = list(parameters)
    cpu_float32 = all(p.device.type == "cpu" and p.dtype == torch.float32 for p in parameters)
    fused_step = cpu_float32 and isinstance(optimizer, torch.optim.Adam | torch.optim.AdamW)
    for group in optimizer.param_groups:  # Adam's one-kernel (fused) step on CPU, else the multi-tensor one
        group.update({"fused": True, "foreach": False} if fused_step else {"foreach": True})
    total = len(rollout["actions"])
    stats = UpdateStats()
    clip = settings.clip_range
    loss_of = minibatch_loss(settings.loss)
    source = prepared_rollout(forward, rollout)
    buffers: dict[str, Any] = {}
    for name, data in source.items():
        if isinstance(data, SparseRows):
            buffers[name] = SparseRows(torch.empty_like(data.indices), torch.empty_like(data.values), data.width)
        else:
            buffers[name] = torch.empty_like(data)
    for epoch in range(settings.n_epochs):
        stats.approx_kl_divs = []
        order = torch.from_numpy((np.random if rng is None else rng).permutation(total))
        shuffled: dict[str, Any] = {}
        for name, data in source.items():  # one gather per epoch, into the same buffers
            if isinstance(data, SparseRows):
                shuffled[name] = data.select(order, out=buffers[name])
            else:
                shuffled[name] = torch.index_select(data, 0, order, out=buffers[name])
        for start in range(0, total, settings.batch_size):
            batch = {name: data[start : start + settings.batch_size] for name, data in shuffled.items()}
            logits, values = forward(batch["observations"])
            advantages = batch["advantages"]
            if settings.normalize_advantage:
                advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            loss, figures = loss_of(
                logits, values, batch, advantages, clip, settings.clip_range_vf, settings.ent_coef, settings.vf_coef
            )
            figures = figures.tolist()
            approx_kl, pg_loss, clip_fraction, value_figure, entropy_figure, stats.loss = figures
            stats.pg_losses.append(pg_loss)
            stats.clip_fractions.append(clip_fraction)
            stats.value_losses.append(value_figure)
            stats.entropy_losses.append(entropy_figure)
            stats.approx_kl_divs.append(approx_kl)
            if settings.target_kl is not None and approx_kl > 1.5 * settings.target_kl:
                stats.early_stop = f"Early stopping at step {epoch} due to reaching max kl: {approx_kl:.2f}"
                break
            optimizer.zero_grad()
            loss.backward()
            if cpu_float32:
                clip_grad_norm(parameters, settings.max_grad_norm)
            else:
                torch.nn.utils.clip_grad_norm_(parameters, settings.max_grad_norm)
            optimizer.step()
        stats.epochs += 1
        if stats.early_stop:
            break
    return stats


__all__ = [
    "ROLLOUT_FIELDS",
    "SPARSE_MAX_DENSITY",
    "Forward",
    "PPOSettings",
    "Rollout",
    "StepHook",
    "UpdateStats",
    "action_masks",
    "clip_grad_norm",
    "collect_rollout",
    "flatten_rollout",
    "gae",
    "ppo_update",
    "prepared_rollout",
    "sample_masked",
]
