"""The masked PPO update, owned: rollout storage, GAE and the clipped-surrogate update, top to bottom.

Nothing here reads sb3-contrib's internals. The pieces:

* `Rollout`: numpy arrays of one rollout, ``(n_steps, n_envs, ...)``, filled step by step;
* `gae`: the advantages and returns of a rollout (sb3's ``compute_returns_and_advantage``);
* `flatten_rollout`: the rollout as flat tensors, flattened once, env-major (``(env, step)``
  order, as sb3's ``swap_and_flatten``), so minibatch ``i`` holds the rows sb3-contrib's holds;
* `ppo_update`: the update of sb3-contrib's ``MaskablePPO.train``, the same step for step:
  per epoch one ``np.random.permutation`` of the rollout from numpy's global generator, cut into
  ``batch_size`` slices; the clipped surrogate on normalised advantages; the value loss (clipped
  when ``clip_range_vf`` is set); the entropy of the masked distribution (masked logits ``-1e8``,
  as ``MaskableCategorical``); ``ent_coef``, ``vf_coef``; ``max_grad_norm`` clipping; early stop
  at ``1.5 * target_kl``. It is leaner: the loss and its gradient with respect to the logits and
  values are written out (`agents.ppo.fast_loss`: one numba pass over each row's legal actions gives
  the loss, the figures and the gradient), the rollout is gathered once per epoch into
  buffers reused over the epochs, and Adam runs its fused form on CPU (else its multi-tensor form);
* `ActorCriticForward`: the `Forward` of an SB3 actor-critic whose actor and critic read the
  observation through a first linear layer each: both first layers run as one matmul (their
  weights stacked at each call, so the parameters stay the policy's own), and, on mostly-zero
  observations (`SparseRows`, Skull King's: about 20 nonzeros of 450), as a gather-sum of the
  weight rows of the nonzero entries instead of a dense matmul, and tanh through the sigmoid
  (`agents.ppo.sparse_layers`). The same function of the same parameters, only rounded differently;
  a test compares its outputs and gradients with `sb3_forward`'s.

`LeanMaskablePPO` keeps the training command on sb3-contrib's ``MaskablePPO`` (its rollout
collection, callbacks, logger and checkpoints) with `ppo_update` as its ``train``. It reads the
rollout buffer's public arrays, without mutating them or calling ``get``: ``get`` draws a
permutation from numpy's global generator, which would shift every later minibatch order.
A test runs one update of it and of sb3-contrib's ``MaskablePPO`` on the same rollout and the
same generator state and compares every parameter, the optimizer state and the logged figures.
Policies of another shape (recurrent, dict observations, a features extractor of their own)
take sb3-contrib's update unchanged. Both `LeanMaskablePPO` (``pipeline``) and `PPOLoop`
(``behaviour``) can run each update in a worker thread beside the next rollout (`agents.ppo.pipeline`).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.torch_layers import FlattenExtractor
from stable_baselines3.common.utils import explained_variance
from torch.nn import Linear

from agents.ppo.fast_loss import MASKED_LOGIT
from agents.ppo.loss import minibatch_loss
from agents.ppo.pipeline import UpdatePipeline
from agents.ppo.process_pipeline import ProcessUpdatePipeline
from agents.ppo.sparse_layers import SparseRows, fast_layers, stacked_linear

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
    if isinstance(observations, SparseRows) or not isinstance(forward, ActorCriticForward) or observations.ndim != 2:
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

    The rollout is gathered once per epoch into buffers allocated once; an `ActorCriticForward`
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


class LeanMaskablePPO(MaskablePPO):
    """``MaskablePPO`` whose `train` is `ppo_update` on the rollout buffer's public arrays.

    ``fuse_forward`` (default ``True``): the update and the rollout's policy step run the
    `ActorCriticForward` of the policy where it applies; ``False``: the policy's own modules
    (`sb3_forward`, sb3-contrib's ``forward``), the reference the fused forward is tested against.

    ``pipeline`` (default ``False``): where the lean update applies, `train` starts the update in a
    worker thread and returns, and the next rollout is played by a behaviour copy of the policy
    meanwhile (`agents.ppo.pipeline`: a policy lag of one update); with ``pipeline_in = "process"``
    the update runs in a forked child process instead (`agents.ppo.process_pipeline`: no turns at
    Python's lock; the same numbers as the thread). ``policy`` stays the learner; call
    `settle` before reading it during `learn` (a callback's checkpoint), or read `behaviour_policy`
    (the policy playing the rollout, unchanged during it: a callback's snapshot); `learn` settles
    before it returns. The figures of an update are logged when it is joined, before the next log
    row is written, so each row has the figures a serial run's row has.
    """

    fuse_forward: bool = True
    loss: str = "fused"  # the minibatch loss by name (agents.ppo.loss.LOSSES)
    pipeline: bool = False
    pipeline_in: str = "thread"  # or "process"
    _pipeline: UpdatePipeline[tuple[UpdateStats, PPOSettings, float]] | None = None
    _behaviour: Any = None  # the behaviour copy of ``policy`` in pipelined mode
    _pipeline_of: Any = None  # the policy object ``_pipeline`` learns

    def lean_update_applies(self) -> bool:
        """Whether the policy is the feed-forward kind `ppo_update` covers, on the CPU: its kernels (the
        sparse first layer, the numba loss) run there; on another device sb3-contrib's own update runs."""
        policy = self.policy
        return (
            torch.device(self.device).type == "cpu"
            and isinstance(self.action_space, spaces.Discrete)
            and isinstance(self.observation_space, spaces.Box)
            and len(self.observation_space.shape) == 1
            and isinstance(getattr(policy, "features_extractor", None), FlattenExtractor)
            and getattr(policy, "share_features_extractor", False)
            and hasattr(policy, "mlp_extractor")
        )

    def pipelined(self) -> bool:
        """Whether `learn` pipelines rollouts and updates (``pipeline`` on, and the lean update applies)."""
        return self.pipeline and self.lean_update_applies()

    def fused_forward(self, policy: Any = None) -> ActorCriticForward | None:
        """The `ActorCriticForward` of ``policy`` (default: ``self.policy``; the rollout's: the behaviour copy)
        when ``fuse_forward`` is on and it applies, else ``None``."""
        if not (self.fuse_forward and self.lean_update_applies()):
            return None
        return ActorCriticForward.of(self.policy if policy is None else policy)

    def update_pipeline(self) -> UpdatePipeline[tuple[UpdateStats, PPOSettings, float]]:
        """The pipeline of ``policy`` and its behaviour copy (made on first use, and again for a new policy object)."""
        if self._pipeline is None or self._pipeline_of is not self.policy:
            self.settle()
            if self._pipeline is not None:
                self._pipeline.close()
            self._behaviour = copy.deepcopy(self.policy)
            self._behaviour.set_training_mode(False)
            seed = 0 if self.seed is None else self.seed
            if self.pipeline_in == "process":
                self._pipeline = self._process_pipeline(seed)
            elif self.pipeline_in == "thread":
                self._pipeline = UpdatePipeline(self.policy.parameters(), self._behaviour.parameters(), seed)
            else:
                raise ValueError(f"pipeline_in must be 'thread' or 'process', got {self.pipeline_in!r}")
            self._pipeline_of = self.policy
        return self._pipeline

    def _process_pipeline(self, seed: int) -> ProcessUpdatePipeline[tuple[UpdateStats, PPOSettings, float]]:
        """A pipeline whose child process runs `ppo_update` on the learner (its parameters and optimizer shared)."""
        forward = self.fused_forward() or sb3_forward(self.policy)
        parameters, optimizer = list(self.policy.parameters()), self.policy.optimizer

        def work(rng: np.random.RandomState, rollout: dict[str, torch.Tensor], message: dict[str, Any]) -> Any:
            for group, learning_rate in zip(optimizer.param_groups, message["learning_rates"]):
                group["lr"] = learning_rate
            settings = PPOSettings(**message["settings"])
            return asdict(ppo_update(forward, parameters, optimizer, rollout, settings, rng))

        def shared() -> list[torch.Tensor]:
            tensors = list(parameters)
            for parameter in parameters:
                for key, value in sorted(optimizer.state.get(parameter, {}).items()):
                    if not isinstance(value, torch.Tensor):
                        raise ValueError(f"the optimizer's state {key!r} is not a tensor: the child could not share it")
                    tensors.append(value)
            return tensors

        def finish(result: Any, context: tuple[PPOSettings, float]) -> tuple[UpdateStats, PPOSettings, float]:
            return UpdateStats(**result), *context

        behaviour = self._behaviour.parameters()
        return ProcessUpdatePipeline(parameters, behaviour, seed, work, shared, finish)

    def behaviour_policy(self) -> Any:
        """The policy that plays the rollouts: the behaviour copy in pipelined mode, else ``policy``."""
        if not self.pipelined():
            return self.policy
        self.update_pipeline()
        return self._behaviour

    def settle(self) -> None:
        """Wait for the update in flight (pipelined mode) and log its figures: ``policy`` is then the
        learner after every update started. A no-op when none is in flight."""
        if self._pipeline is not None:
            joined = self._pipeline.join()
            if joined is not None:
                self._log_update(*joined)

    def learn(self, *args: Any, **kwargs: Any) -> LeanMaskablePPO:  # type: ignore[override]
        """sb3-contrib's ``learn``; pipelined, the rollouts start from the current ``policy`` (the
        behaviour copy synced to it) and the last update is joined before it returns."""
        if self.pipelined():
            self.settle()
            self.update_pipeline().sync()  # the parameters may have been loaded since
        try:
            return super().learn(*args, **kwargs)
        finally:
            self.settle()
            if isinstance(self._pipeline, ProcessUpdatePipeline):
                self._pipeline.close()  # the child stops; the next learn forks another

    def dump_logs(self, iteration: int = 0) -> None:
        """sb3's log row, after joining the update in flight (its figures belong to this row)."""
        self.settle()
        super().dump_logs(iteration)

    def _excluded_save_params(self) -> list[str]:
        excluded = ["pipeline", "pipeline_in", "_pipeline", "_behaviour", "_pipeline_of"]
        return [*super()._excluded_save_params(), *excluded]

    def collect_rollouts(
        self, env: Any, callback: Any, rollout_buffer: Any, n_rollout_steps: int, use_masking: bool = True
    ) -> bool:
        """sb3-contrib's ``collect_rollouts``, the policy's step being `ActorCriticForward` and
        `sample_masked` (the same draws from torch's generator as ``MaskableCategorical``) in
        place of the policy's distribution objects. Pipelined, the behaviour copy acts: its
        step, values and training mode stand in for ``policy``'s during the rollout."""
        actor = self.behaviour_policy()
        fused = self.fused_forward(actor) if use_masking else None
        shadows: dict[str, Any] = {}
        if fused is not None:
            shadows["forward"] = functools.partial(policy_step, fused)
        if actor is not self.policy:
            shadows.setdefault("forward", actor.forward)
            shadows.update(predict_values=actor.predict_values, set_training_mode=actor.set_training_mode)
        if not shadows:
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        for name, value in shadows.items():  # shadow the methods for this rollout
            setattr(self.policy, name, value)
        try:
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        finally:
            for name in shadows:
                delattr(self.policy, name)

    def flat_rollout(self) -> dict[str, torch.Tensor]:
        """The rollout buffer's arrays, copied flat; the buffer is read, never changed."""
        buffer = self.rollout_buffer
        arrays = {name: getattr(buffer, name) for name in ROLLOUT_FIELDS}
        if buffer.generator_ready:  # already flat (env-major), by an earlier ``get``
            arrays = {
                name: array.reshape(buffer.n_envs, buffer.buffer_size, *array.shape[1:]).swapaxes(0, 1)
                for name, array in arrays.items()
            }
        arrays = {name: array.reshape(buffer.buffer_size, buffer.n_envs, -1) for name, array in arrays.items()}
        arrays = {
            name: array if name in ("observations", "action_masks") else array[..., 0] for name, array in arrays.items()
        }
        return flatten_rollout(arrays)

    def update_settings(self) -> PPOSettings:
        """The settings of the next update (the learning rate of the optimizer set and logged, as sb3 does)."""
        self._update_learning_rate(self.policy.optimizer)
        progress = self._current_progress_remaining
        clip_range_vf = None if self.clip_range_vf is None else self.clip_range_vf(progress)  # type: ignore[operator]
        return PPOSettings(
            n_epochs=self.n_epochs,
            batch_size=self.batch_size,  # type: ignore[arg-type]
            clip_range=self.clip_range(progress),  # type: ignore[operator]
            clip_range_vf=clip_range_vf,
            ent_coef=self.ent_coef,
            vf_coef=self.vf_coef,
            max_grad_norm=self.max_grad_norm,
            target_kl=self.target_kl,
            normalize_advantage=self.normalize_advantage,
            loss=self.loss,
        )

    def train(self) -> None:
        """One PPO update on the rollout buffer (sb3-contrib's, for other policies); pipelined, started
        in the worker thread after the previous one is joined."""
        if not self.lean_update_applies():
            super().train()
            return
        if self.pipelined():
            self.settle()
        self.policy.set_training_mode(True)
        settings = self.update_settings()
        forward = self.fused_forward() or sb3_forward(self.policy)
        buffer = self.rollout_buffer
        explained = explained_variance(buffer.values.flatten(), buffer.returns.flatten())
        rollout, parameters, optimizer = self.flat_rollout(), list(self.policy.parameters()), self.policy.optimizer
        pipeline = self.update_pipeline() if self.pipelined() else None
        if isinstance(pipeline, ProcessUpdatePipeline):  # the child has the forward, parameters and optimizer
            message = {
                "settings": asdict(settings),
                "learning_rates": [group["lr"] for group in optimizer.param_groups],
            }
            pipeline.start_update(rollout, message, (settings, explained))
            return
        if pipeline is not None:
            rollout = prepared_rollout(forward, rollout)  # here: the update's thread has the most to do

            def update(rng: np.random.RandomState) -> tuple[UpdateStats, PPOSettings, float]:
                return ppo_update(forward, parameters, optimizer, rollout, settings, rng), settings, explained

            pipeline.start(update)
            return
        self._log_update(ppo_update(forward, parameters, optimizer, rollout, settings), settings, explained)

    def _log_update(self, stats: UpdateStats, settings: PPOSettings, explained: float) -> None:
        """Count and log one update's figures (sb3-contrib's ``train/*`` records)."""
        self._n_updates += stats.epochs
        if stats.early_stop and self.verbose >= 1:
            print(stats.early_stop)
        for key, value in stats.figures().items():
            self.logger.record(f"train/{key}", value)
        self.logger.record("train/explained_variance", explained)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", settings.clip_range)
        if settings.clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", settings.clip_range_vf)


def sb3_forward(policy: torch.nn.Module) -> Forward:
    """The `Forward` of an SB3 actor-critic policy with flat observations (no features extractor to run)."""

    def forward(observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = policy.mlp_extractor(observations)
        return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()

    return forward


class ActorCriticForward:
    """`sb3_forward`'s function, faster: the actor's and the critic's first layers as one matmul.

    For an SB3 ``MlpExtractor`` whose ``policy_net`` and ``value_net`` both start with a
    ``Linear`` on the observation: their weights are stacked at each call (the gradient flows
    back to the policy's own parameters, so its optimizer is unchanged), followed by their shared
    activation on the stacked output when both nets use the same parameterless one; the rest of
    each net, ``action_net`` and ``value_net`` run as the policy's modules, each ``Tanh`` as
    `agents.ppo.sparse_layers.fast_tanh`. Reads a dense batch or `SparseRows` (`stacked_linear`). `of`
    gives ``None`` for policies of another shape.
    """

    def __init__(self, policy: torch.nn.Module) -> None:
        actor, critic = policy.mlp_extractor.policy_net, policy.mlp_extractor.value_net
        self.first = (actor[0], critic[0])
        self.split = actor[0].out_features
        shared_activation = (
            len(actor) > 1
            and len(critic) > 1
            and type(actor[1]) is type(critic[1])
            and not isinstance(actor[1], Linear)
            and not list(actor[1].parameters())
        )
        self.activation = fast_layers([actor[1]])[0] if shared_activation else None
        skip = 2 if shared_activation else 1
        self.actor_rest, self.critic_rest = fast_layers(actor[skip:]), fast_layers(critic[skip:])
        self.action_net, self.value_net = policy.action_net, policy.value_net

    @classmethod
    def of(cls, policy: torch.nn.Module) -> ActorCriticForward | None:
        """The fused forward of ``policy``, or ``None`` where its nets do not start with a shared-input ``Linear``."""
        extractor = getattr(policy, "mlp_extractor", None)
        nets = (getattr(extractor, "policy_net", None), getattr(extractor, "value_net", None))
        if not all(isinstance(net, torch.nn.Sequential) and len(net) and isinstance(net[0], Linear) for net in nets):
            return None
        actor, critic = nets[0][0], nets[1][0]  # type: ignore[index]
        if actor.in_features != critic.in_features or actor.bias is None or critic.bias is None:
            return None
        return cls(policy)

    def __call__(self, observations: torch.Tensor | SparseRows) -> tuple[torch.Tensor, torch.Tensor]:
        actor, critic = self.first
        hidden = stacked_linear(observations, (actor.weight, critic.weight), (actor.bias, critic.bias))
        if self.activation is not None:
            hidden = self.activation(hidden)
        latent_pi, latent_vf = hidden[:, : self.split], hidden[:, self.split :]
        for layer in self.actor_rest:
            latent_pi = layer(latent_pi)
        for layer in self.critic_rest:
            latent_vf = layer(latent_vf)
        return self.action_net(latent_pi), self.value_net(latent_vf).flatten()


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


def sample_masked_multinomial(logits: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The draw of sb3-contrib's ``MaskableCategorical.sample`` (one ``torch.multinomial`` on the same
    probabilities, from torch's global generator) with its log-probabilities: what `sample_masked` replaced,
    kept so that tests can replay sb3-contrib's rollouts exactly and benchmarks can time both."""
    masked = torch.where(masks, logits, MASKED_LOGIT)
    log_p = masked - masked.logsumexp(-1, keepdim=True)
    actions = torch.multinomial(torch.softmax(log_p, -1), 1, True).squeeze(1)
    return actions, log_p.gather(1, actions.unsqueeze(1)).squeeze(1)


def policy_step(
    forward: Forward, observations: torch.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``MaskableActorCriticPolicy.forward`` by ``forward``: actions, values ``(N, 1)`` and log-probabilities."""
    logits, values = forward(observations)
    masks = torch.ones_like(logits, dtype=torch.bool) if action_masks is None else torch.as_tensor(action_masks)
    masks = masks.reshape(logits.shape)
    if deterministic:
        masked = torch.where(masks, logits, MASKED_LOGIT)
        actions = masked.argmax(-1)
        return actions, values.unsqueeze(1), torch.log_softmax(masked, -1).gather(1, actions.unsqueeze(1)).squeeze(1)
    actions, log_probs = sample_masked(logits, masks)
    return actions, values.unsqueeze(1), log_probs


def action_masks(vec_env: Any) -> np.ndarray:
    """``(num_envs, A)`` ``bool``: the legal actions of every env (one call where the VecEnv has it)."""
    if hasattr(vec_env, "action_masks"):
        return np.asarray(vec_env.action_masks(), dtype=bool)
    return np.stack(vec_env.env_method("action_masks")).astype(bool)


class PPOLoop:
    """Masked PPO over a VecEnv with action masks, CleanRL-style: `collect`, then `update`.

    ``forward`` gives the logits and values of a batch of observations, ``optimizer`` steps
    ``parameters``. `collect` fills one `Rollout` of ``n_steps`` steps of every env (as
    sb3-contrib's ``collect_rollouts``: the value of a time-limited game's final observation is
    added, discounted, to its last reward); `update` computes GAE and runs `ppo_update` on it.

    ``behaviour`` (a `Forward` and its parameters, the learner's shapes) pipelines the loop
    (`agents.ppo.pipeline`): `collect` plays with it, `update` starts the update in a worker thread
    and returns the previous update's stats (``None`` at the first), so the next `collect` runs
    beside it on a copy of the learner one update old; `settle` joins the update in flight.
    ``seed`` seeds the pipelined update's minibatch orders (the serial one draws from numpy's
    global generator).
    """

    def __init__(
        self,
        forward: Forward,
        parameters: Iterable[torch.nn.Parameter],
        optimizer: torch.optim.Optimizer,
        vec_env: Any,
        n_steps: int,
        gamma: float,
        gae_lambda: float,
        settings: PPOSettings,
        behaviour: tuple[Forward, Iterable[torch.nn.Parameter]] | None = None,
        seed: int = 0,
    ) -> None:
        self.forward, self.parameters, self.optimizer = forward, list(parameters), optimizer
        self.pipeline: UpdatePipeline[UpdateStats] | None = None
        #: the forward that plays the rollouts (the behaviour copy's when pipelined)
        self.acting_forward = forward
        if behaviour is not None:
            self.acting_forward = behaviour[0]
            self.pipeline = UpdatePipeline(self.parameters, behaviour[1], seed)
        self.vec_env, self.n_steps, self.settings = vec_env, n_steps, settings
        self.gamma, self.gae_lambda = gamma, gae_lambda
        n_envs = vec_env.num_envs
        self.rollout = Rollout(n_steps, n_envs, vec_env.observation_space.shape[0], vec_env.action_space.n)
        self.observations = vec_env.reset()
        self.episode_starts = np.ones(n_envs, dtype=bool)
        self.last_values = np.zeros(n_envs, dtype=np.float32)
        self.num_timesteps = 0

    @torch.no_grad()
    def collect(self) -> list[dict[str, Any]]:
        """Play ``n_steps`` steps of every env into `rollout`; return the infos of the games that ended."""
        rollout, env, ended = self.rollout, self.vec_env, []
        forward = self.acting_forward
        for step in range(self.n_steps):
            masks = action_masks(env)
            logits, values = forward(torch.from_numpy(self.observations))
            actions, log_probs = sample_masked(logits, torch.from_numpy(masks))
            next_observations, rewards, dones, infos = env.step(actions.numpy())
            rewards = rewards.astype(np.float32, copy=True)
            limited = [i for i in np.flatnonzero(dones) if infos[i].get("TimeLimit.truncated", False)]
            if limited:  # a game cut by a time limit: bootstrap from its final observation
                final = torch.from_numpy(np.stack([infos[i]["terminal_observation"] for i in limited]))
                rewards[limited] += self.gamma * forward(final.float())[1].numpy()
            ended += [infos[i] for i in np.flatnonzero(dones)]
            rollout.add(
                step,
                self.observations,
                actions.numpy(),
                rewards,
                self.episode_starts,
                values.numpy(),
                log_probs.numpy(),
                masks,
            )
            self.observations, self.episode_starts = next_observations, dones
            self.num_timesteps += env.num_envs
        self.last_values = forward(torch.from_numpy(self.observations))[1].numpy()
        return ended

    def flat_rollout(self) -> dict[str, torch.Tensor]:
        """The collected rollout with its GAE advantages and returns, flat (`flatten_rollout`)."""
        rollout = self.rollout
        advantages, returns = gae(
            rollout.rewards,
            rollout.values,
            rollout.episode_starts,
            self.last_values,
            self.episode_starts,
            self.gamma,
            self.gae_lambda,
        )
        collected = {name: getattr(rollout, name) for name in ROLLOUT_FIELDS if name not in ("advantages", "returns")}
        return flatten_rollout({**collected, "advantages": advantages, "returns": returns})

    def update(self) -> UpdateStats | None:
        """GAE and one `ppo_update` on the collected rollout: its stats; pipelined, started in the worker
        thread (after joining the previous one and syncing the behaviour copy): the previous update's stats."""
        rollout = self.flat_rollout()
        if self.pipeline is None:
            return ppo_update(self.forward, self.parameters, self.optimizer, rollout, self.settings)
        forward, parameters, optimizer, settings = self.forward, self.parameters, self.optimizer, self.settings
        rollout = prepared_rollout(forward, rollout)
        return self.pipeline.start(lambda rng: ppo_update(forward, parameters, optimizer, rollout, settings, rng))

    def settle(self) -> UpdateStats | None:
        """Join the update in flight (pipelined); its stats, ``None`` when none was in flight."""
        return None if self.pipeline is None else self.pipeline.join()
