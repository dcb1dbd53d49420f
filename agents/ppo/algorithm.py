"""The trainer around one PPO iteration (`agents.ppo.iteration`): `LeanMaskablePPO`, `PPOLoop` and the fast forward.

* `LeanMaskablePPO` keeps the training command on sb3-contrib's ``MaskablePPO`` (its callbacks,
  logger and checkpoints) and runs the iteration's functions: its ``collect_rollouts`` is
  `agents.ppo.iteration.collect_rollout` then `agents.ppo.iteration.gae`, written into sb3's rollout
  buffer (its arrays, no per-step ``add``; only the ended games' infos read); its ``train`` is
  `agents.ppo.iteration.ppo_update` on the buffer's public arrays, without mutating them or calling
  ``get`` (``get`` draws a permutation from numpy's global generator, which would shift every later
  minibatch order). Tests run it and sb3-contrib's ``MaskablePPO`` on the same seeds and compare the
  rollout, every parameter, the optimizer state and the logged figures. Policies of another shape
  (recurrent, dict observations, a features extractor of their own) take sb3-contrib's code unchanged.
* `ActorCriticForward`: the `Forward` of an SB3 actor-critic whose actor and critic read the
  observation through a first linear layer each: both first layers run as one matmul (their
  weights stacked at each call, so the parameters stay the policy's own), and, on mostly-zero
  observations (`SparseRows`, Skull King's: about 20 nonzeros of 450), as a gather-sum of the
  weight rows of the nonzero entries instead of a dense matmul, and tanh through the sigmoid
  (`agents.ppo.sparse_layers`). The same function of the same parameters, only rounded differently;
  a test compares its outputs and gradients with `sb3_forward`'s.
* `PPOLoop`: the iteration without sb3 (CleanRL-style).

Both `LeanMaskablePPO` (``pipeline``) and `PPOLoop` (``behaviour``) can run each update in a worker thread
beside the next rollout (`agents.ppo.pipeline`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.torch_layers import FlattenExtractor
from stable_baselines3.common.utils import explained_variance
from torch.nn import Linear

from agents.ppo.fast_loss import MASKED_LOGIT
from agents.ppo.iteration import (
    ROLLOUT_FIELDS,
    SPARSE_MAX_DENSITY,
    Forward,
    PPOSettings,
    Rollout,
    UpdateStats,
    collect_rollout,
    flatten_rollout,
    gae,
    ppo_update,
    prepared_rollout,
)
from agents.ppo.pipeline import UpdatePipeline
from agents.ppo.process_pipeline import ProcessUpdatePipeline
from agents.ppo.sparse_layers import SparseRows, fast_layers, sparse_input_linear, stacked_linear


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
    update: str = "lean"  # or "sb3": sb3-contrib's own update on any device (the GPU comparison's baseline)
    loss: str = "fused"  # the minibatch loss by name (agents.ppo.loss.LOSSES)
    pipeline: bool = False
    pipeline_in: str = "thread"  # or "process"
    _pipeline: UpdatePipeline[tuple[UpdateStats, PPOSettings, float]] | None = None
    _behaviour: Any = None  # the behaviour copy of ``policy`` in pipelined mode
    _pipeline_of: Any = None  # the policy object ``_pipeline`` learns

    def lean_update_applies(self) -> bool:
        """Whether the policy is the feed-forward kind `ppo_update` covers, on the CPU: its kernels (the
        sparse first layer, the numba loss) run there; on another device, or with ``update = "sb3"``,
        sb3-contrib's own update runs."""
        policy = self.policy
        return (
            self.update == "lean"
            and torch.device(self.device).type == "cpu"
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
        """sb3-contrib's ``collect_rollouts``: with the fused forward, `agents.ppo.iteration.collect_rollout`
        and `agents.ppo.iteration.gae` into the buffer (`_collect_lean`); else sb3-contrib's own, the
        behaviour copy's step, values and training mode standing in for ``policy``'s when pipelined."""
        actor = self.behaviour_policy()
        fused = self.fused_forward(actor) if use_masking else None
        if fused is not None and n_rollout_steps == rollout_buffer.buffer_size:
            actor.set_training_mode(False)
            return self._collect_lean(fused, env, callback, rollout_buffer)
        if actor is self.policy:
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        shadows = {"forward": actor.forward, "predict_values": actor.predict_values}
        shadows["set_training_mode"] = actor.set_training_mode
        for name, value in shadows.items():  # shadow the methods for this rollout
            setattr(self.policy, name, value)
        try:
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        finally:
            for name in shadows:
                delattr(self.policy, name)

    def _collect_lean(self, forward: Forward, env: Any, callback: Any, buffer: Any) -> bool:
        """One rollout into sb3's ``buffer`` by `agents.ppo.iteration.collect_rollout`, its callbacks called as
        sb3-contrib calls them (``on_step`` after each env step; ``False`` stops the rollout), the episode
        records of the ended games kept, and `agents.ppo.iteration.gae` into its advantages and returns."""
        buffer.reset()
        callback.on_rollout_start()

        def on_step(rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> bool:
            self.num_timesteps += env.num_envs
            callback.update_locals({"rewards": rewards, "dones": dones, "infos": infos})
            if not callback.on_step():
                return False
            ended = np.flatnonzero(dones)
            self._update_info_buffer([infos[i] for i in ended], dones[ended])
            return True

        rollout = buffer_rollout(buffer)
        end = collect_rollout(forward, env, rollout, self._last_obs, self._last_episode_starts, self.gamma, on_step)
        if end is None:
            return False
        self._last_obs, self._last_episode_starts, last_values = end
        buffer.pos, buffer.full = buffer.buffer_size, True
        buffer.advantages[:], buffer.returns[:] = gae(
            buffer.rewards, buffer.values, buffer.episode_starts, last_values, self._last_episode_starts,
            self.gamma, self.gae_lambda,
        )  # fmt: skip
        callback.on_rollout_end()
        return True

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


def buffer_rollout(buffer: Any) -> Rollout:
    """A `Rollout` that writes into sb3's rollout ``buffer`` (its arrays, ``(n_steps, n_envs, ...)``; its actions'
    last axis of one dropped): `agents.ppo.iteration.collect_rollout` fills the buffer with no copy."""
    rollout = Rollout.__new__(Rollout)
    rollout.n_steps, rollout.n_envs = buffer.buffer_size, buffer.n_envs
    for name in ("observations", "rewards", "episode_starts", "values", "log_probs", "action_masks"):
        setattr(rollout, name, getattr(buffer, name))
    rollout.actions = buffer.actions[..., 0]
    return rollout


def sb3_forward(policy: torch.nn.Module) -> Forward:
    """The `Forward` of an SB3 actor-critic policy with flat observations (no features extractor to run)."""

    def forward(observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = policy.mlp_extractor(observations)
        return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()

    return forward


#: Rows of a rollout's batch whose nonzero entries decide how its first layers run (`ActorCriticForward`).
DENSITY_SAMPLE_ROWS = 16


class ActorCriticForward:
    """`sb3_forward`'s function, faster: the actor's and the critic's first layers as one matmul.

    For an SB3 ``MlpExtractor`` whose ``policy_net`` and ``value_net`` both start with a
    ``Linear`` on the observation: their weights are stacked at each call (the gradient flows
    back to the policy's own parameters, so its optimizer is unchanged), followed by their shared
    activation on the stacked output when both nets use the same parameterless one; the rest of
    each net, ``action_net`` and ``value_net`` run as the policy's modules, each ``Tanh`` as
    `agents.ppo.sparse_layers.fast_tanh`. Reads a dense batch or `SparseRows` (`stacked_linear`). Without
    autograd (a rollout's steps), a dense CPU batch of mostly-zero rows goes through the first layers by
    `sparse_input_linear`, their weights stacked once per change of the parameters (`acting_table`). `of`
    gives ``None`` for policies of another shape.
    """

    #: `agents.ppo.iteration.ppo_update` hands it sparse observations as `SparseRows`
    reads_sparse_rows = True

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
        self._acting_key: tuple[int, ...] | None = None
        self._acting: tuple[torch.Tensor, torch.Tensor] | None = None

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

    def acting_table(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The first layers' weights as one ``(in, out)`` table and their biases side by side, made again
        only when a parameter changed (an optimizer's step or a copy into it moves its version)."""
        parameters = [tensor for layer in self.first for tensor in (layer.weight, layer.bias)]
        key = tuple(number for tensor in parameters for number in (tensor.data_ptr(), tensor._version))
        if key != self._acting_key or self._acting is None:
            actor, critic = self.first
            with torch.no_grad():
                table = torch.cat([actor.weight.t(), critic.weight.t()], 1).contiguous()
                self._acting = table, torch.cat([actor.bias, critic.bias])
            self._acting_key = key
        return self._acting

    def _reads_sparse_without_grad(self, observations: torch.Tensor | SparseRows) -> bool:
        """Whether a rollout's dense batch goes through `sparse_input_linear`: no autograd, a 2-d float32
        batch on the CPU, at most `SPARSE_MAX_DENSITY` of the entries of its first rows nonzero (an env's
        rows are alike, and counting them all cost a sixth of the layer)."""
        if isinstance(observations, SparseRows) or torch.is_grad_enabled() or observations.ndim != 2:
            return False
        if observations.dtype != torch.float32 or observations.device.type != "cpu" or not observations.numel():
            return False
        sample = observations[:DENSITY_SAMPLE_ROWS]
        return int(torch.count_nonzero(sample)) <= SPARSE_MAX_DENSITY * sample.numel()

    def __call__(self, observations: torch.Tensor | SparseRows) -> tuple[torch.Tensor, torch.Tensor]:
        actor, critic = self.first
        if self._reads_sparse_without_grad(observations):
            hidden = sparse_input_linear(observations, *self.acting_table())  # type: ignore[arg-type]
        else:
            hidden = stacked_linear(observations, (actor.weight, critic.weight), (actor.bias, critic.bias))
        if self.activation is not None:
            hidden = self.activation(hidden)
        latent_pi, latent_vf = hidden[:, : self.split], hidden[:, self.split :]
        for layer in self.actor_rest:
            latent_pi = layer(latent_pi)
        for layer in self.critic_rest:
            latent_vf = layer(latent_vf)
        return self.action_net(latent_pi), self.value_net(latent_vf).flatten()


def sample_masked_multinomial(logits: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The draw of sb3-contrib's ``MaskableCategorical.sample`` (one ``torch.multinomial`` on the same
    probabilities, from torch's global generator) with its log-probabilities: what `sample_masked` replaced,
    kept so that tests can replay sb3-contrib's rollouts exactly and benchmarks can time both."""
    masked = torch.where(masks, logits, MASKED_LOGIT)
    log_p = masked - masked.logsumexp(-1, keepdim=True)
    actions = torch.multinomial(torch.softmax(log_p, -1), 1, True).squeeze(1)
    return actions, log_p.gather(1, actions.unsqueeze(1)).squeeze(1)


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

    def collect(self) -> list[dict[str, Any]]:
        """Play ``n_steps`` steps of every env into `rollout` (`collect_rollout`); return the infos of the games
        that ended."""
        ended: list[dict[str, Any]] = []

        def on_step(rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> bool:
            ended.extend(infos[i] for i in np.flatnonzero(dones))
            self.num_timesteps += self.vec_env.num_envs
            return True

        start = (self.observations, self.episode_starts)
        end = collect_rollout(self.acting_forward, self.vec_env, self.rollout, *start, self.gamma, on_step)
        assert end is not None  # on_step never stops it
        self.observations, self.episode_starts, self.last_values = end
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
