"""MaskablePPO with a leaner update: the same algorithm in fewer tensor operations.

`LeanMaskablePPO` is sb3-contrib's ``MaskablePPO`` with `LeanMaskablePPO.train`
rewritten for the small networks of this project, where the update's time went to overhead
rather than arithmetic (a profile of the Skull King update: the masked categorical built three
times per minibatch, its argument checks, the buffer's per-minibatch copies, the single-tensor
Adam). The update is the same, step for step:

* the same minibatches: one ``np.random.permutation`` of the rollout per epoch from numpy's
  global generator, cut into ``batch_size`` slices, as ``MaskableRolloutBuffer.get`` does;
* the same loss: clipped surrogate on normalised advantages, value loss (clipped when
  ``clip_range_vf`` is set), entropy of the masked distribution (masked logits ``-1e8``, as
  ``MaskableCategorical``), ``ent_coef`` and ``vf_coef``, ``max_grad_norm`` clipping, early stop
  at ``1.5 * target_kl``;
* the same logged figures (``train/*``).

What changes is how: the rollout is turned into tensors once per update (not per minibatch),
the masked log-softmax is computed once per minibatch and gives the log-probability and the
entropy, and Adam runs its multi-tensor form. A test runs one update of both on the same
rollout and the same generator state and compares every parameter and the optimizer state.
Policies of another shape (recurrent, dict observations, a features extractor of their own)
take sb3-contrib's update unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.torch_layers import FlattenExtractor
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

#: The logit of a masked action (``MaskableCategorical``'s value).
MASKED_LOGIT = -1e8


def masked_log_prob_entropy(
    logits: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of ``actions`` and entropy of the masked categorical over ``logits``."""
    log_p = torch.log_softmax(torch.where(masks, logits, MASKED_LOGIT), dim=-1)
    log_prob = log_p.gather(1, actions.unsqueeze(1)).squeeze(1)
    legal_log_p = torch.where(masks, log_p, 0.0)  # exp(0) * 0 = 0: masked terms vanish without denormals
    entropy = -(legal_log_p.exp() * legal_log_p).sum(-1)
    return log_prob, entropy


class LeanMaskablePPO(MaskablePPO):
    """``MaskablePPO`` whose `train` does sb3-contrib's update with less overhead."""

    def lean_update_applies(self) -> bool:
        """Whether the policy is the feed-forward kind the lean update covers."""
        policy = self.policy
        return (
            isinstance(self.action_space, spaces.Discrete)
            and isinstance(self.observation_space, spaces.Box)
            and len(self.observation_space.shape) == 1
            and isinstance(getattr(policy, "features_extractor", None), FlattenExtractor)
            and getattr(policy, "share_features_extractor", False)
            and hasattr(policy, "mlp_extractor")
        )

    def train(self) -> None:
        """One PPO update on the rollout buffer (sb3-contrib's, for other policies)."""
        if not self.lean_update_applies():
            super().train()
            return
        policy, buffer = self.policy, self.rollout_buffer
        policy.set_training_mode(True)
        self._update_learning_rate(policy.optimizer)
        for group in policy.optimizer.param_groups:
            group["foreach"] = True
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        clip_range_vf = None
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)  # type: ignore[operator]
        rollout = rollout_tensors(buffer)
        total = rollout["observations"].shape[0]
        parameters = list(policy.parameters())
        entropy_losses: list[float] = []
        pg_losses: list[float] = []
        value_losses: list[float] = []
        clip_fractions: list[float] = []
        approx_kl_divs: list[float] = []
        loss = torch.zeros(())
        continue_training = True
        for epoch in range(self.n_epochs):
            approx_kl_divs = []
            order = torch.from_numpy(np.random.permutation(total))
            shuffled = {name: tensor[order] for name, tensor in rollout.items()}  # one gather per epoch
            for start in range(0, total, self.batch_size):
                batch = {name: tensor[start : start + self.batch_size] for name, tensor in shuffled.items()}
                actions = batch["actions"]
                latent_pi, latent_vf = policy.mlp_extractor(batch["observations"])
                values = policy.value_net(latent_vf).flatten()
                logits = policy.action_net(latent_pi)
                log_prob, entropy = masked_log_prob_entropy(logits, batch["action_masks"], actions)
                advantages = batch["advantages"]
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                log_ratio = log_prob - batch["log_probs"]
                ratio = torch.exp(log_ratio)
                policy_loss = -torch.min(
                    advantages * ratio, advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
                ).mean()
                if clip_range_vf is None:
                    values_pred = values
                else:
                    old_values = batch["values"]
                    values_pred = old_values + torch.clamp(values - old_values, -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(batch["returns"], values_pred)
                entropy_loss = -torch.mean(entropy)
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                with torch.no_grad():
                    approx_kl = torch.mean((ratio - 1) - log_ratio).item()
                    pg_losses.append(policy_loss.item())
                    clip_fractions.append(torch.mean((torch.abs(ratio - 1) > clip_range).float()).item())
                    value_losses.append(value_loss.item())
                    entropy_losses.append(entropy_loss.item())
                approx_kl_divs.append(approx_kl)
                if self.target_kl is not None and approx_kl > 1.5 * self.target_kl:
                    continue_training = False
                    if self.verbose >= 1:
                        print(f"Early stopping at step {epoch} due to reaching max kl: {approx_kl:.2f}")
                    break
                policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(parameters, self.max_grad_norm)
                policy.optimizer.step()
            self._n_updates += 1
            if not continue_training:
                break
        self.record_update(pg_losses, value_losses, entropy_losses, approx_kl_divs, clip_fractions, loss)
        if clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)

    def record_update(
        self,
        pg_losses: list[float],
        value_losses: list[float],
        entropy_losses: list[float],
        approx_kl_divs: list[float],
        clip_fractions: list[float],
        loss: torch.Tensor,
    ) -> None:
        """The ``train/*`` figures sb3-contrib logs after an update."""
        buffer = self.rollout_buffer
        explained_var = explained_variance(buffer.values.flatten(), buffer.returns.flatten())
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", self.clip_range(self._current_progress_remaining))  # type: ignore[operator]


def rollout_tensors(buffer: Any) -> dict[str, torch.Tensor]:
    """The rollout as flat tensors sharing the buffer's memory (flattened as ``get`` does)."""
    if not buffer.generator_ready:
        for name in ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks"):
            buffer.__dict__[name] = buffer.swap_and_flatten(buffer.__dict__[name])
        buffer.generator_ready = True
    total = buffer.buffer_size * buffer.n_envs
    return {
        "observations": torch.from_numpy(buffer.observations.reshape(total, -1)),
        "actions": torch.from_numpy(buffer.actions.reshape(total)).long(),
        "values": torch.from_numpy(buffer.values.reshape(total)),
        "log_probs": torch.from_numpy(buffer.log_probs.reshape(total)),
        "advantages": torch.from_numpy(buffer.advantages.reshape(total)),
        "returns": torch.from_numpy(buffer.returns.reshape(total)),
        "action_masks": torch.from_numpy(buffer.action_masks.reshape(total, -1) != 0),
    }
