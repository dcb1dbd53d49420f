"""The masked PPO loss of one minibatch, with its gradient written out: `clipped_surrogate_loss`.

sb3-contrib's loss (the clipped surrogate on the masked categorical's log-probability, the value
loss, clipped when ``clip_range_vf`` is set, and the masked entropy) is some thirty small tensor
operations forward and as many backward, each a pass over the ``(batch, actions)`` logits. Its
gradient with respect to the logits and the values has a closed form, computed here with the
loss in one numba pass over each row's legal logits (`_policy_terms`, in float64), with torch's
tie rules (``torch.minimum`` splits the gradient of a tie; ``clamp`` passes it at its bounds) so
that it is the gradient autograd would give. A test compares both, and the update built on it
follows sb3-contrib's parameter for parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from numba import njit

#: The logit of a masked action (``MaskableCategorical``'s value).
MASKED_LOGIT = -1e8
#: The figures `clipped_surrogate_loss` returns, in order (sb3-contrib's ``train/*`` names).
LOSS_FIGURES = ("approx_kl", "policy_gradient_loss", "clip_fraction", "value_loss", "entropy_loss", "loss")


def masked_log_prob_entropy(
    logits: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of ``actions`` and entropy of the masked categorical over ``logits``."""
    log_p = torch.log_softmax(torch.where(masks, logits, MASKED_LOGIT), dim=-1)
    log_prob = log_p.gather(1, actions.unsqueeze(1)).squeeze(1)
    legal_log_p = torch.where(masks, log_p, 0.0)  # exp(0) * 0 = 0: masked terms vanish without denormals
    entropy = -(legal_log_p.exp() * legal_log_p).sum(-1)
    return log_prob, entropy


@njit(cache=True, nogil=True)
def _policy_terms(
    logits: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    old_log_probs: np.ndarray,
    advantages: np.ndarray,
    clip: float,
    entropy_scale: float,
    rows: np.ndarray,
    logits_grad: np.ndarray,
) -> None:
    """One pass per row of the minibatch over its legal logits, in float64.

    ``rows[0..3, i]``: the log-ratio, the ratio, the masked entropy and ``min(A r, A clip(r))`` of row
    ``i``; ``logits_grad[i]``: the gradient of ``-mean(min(...)) - entropy_scale * size * mean(entropy)``
    with respect to row ``i``'s logits (masked logits take none), with torch's tie rules: the minimum of
    a tie splits its gradient, ``clamp`` passes it at its bounds.
    """
    size, width = logits.shape
    legal = np.empty(width + 1, dtype=np.int64)
    for i in range(size):
        count = 0
        for j in range(width):  # the legal columns, without a branch
            legal[count] = j
            count += masks[i, j]
        top = -np.inf
        for k in range(count):
            top = max(top, logits[i, legal[k]])
        total = 0.0
        for k in range(count):
            total += np.exp(logits[i, legal[k]] - top)
        log_total = top + np.log(total)
        entropy = 0.0
        for k in range(count):
            log_p = logits[i, legal[k]] - log_total
            entropy -= np.exp(log_p) * log_p
        log_ratio = logits[i, actions[i]] - log_total - old_log_probs[i]
        ratio = np.exp(log_ratio)
        advantage = advantages[i]
        unclipped, clipped = advantage * ratio, advantage * min(max(ratio, 1 - clip), 1 + clip)
        inside = 1.0 if 1 - clip <= ratio <= 1 + clip else 0.0
        if unclipped < clipped:
            weight = 1.0
        elif clipped < unclipped:
            weight = inside
        else:
            weight = 0.5 * (1.0 + inside)
        ratio_grad = -weight * advantage * ratio / size  # d(policy loss)/d(log-probability of the action)
        logits_grad[i, :] = 0.0
        for k in range(count):  # d(log p_a)/dz = onehot(a) - p; d(-entropy)/dz = p (log p + H)
            log_p = logits[i, legal[k]] - log_total
            logits_grad[i, legal[k]] = np.exp(log_p) * (entropy_scale * (log_p + entropy) - ratio_grad)
        logits_grad[i, actions[i]] += ratio_grad
        rows[0, i], rows[1, i], rows[2, i], rows[3, i] = log_ratio, ratio, entropy, min(unclipped, clipped)


class _ClippedSurrogateLoss(torch.autograd.Function):
    """The loss of `clipped_surrogate_loss`; its gradient computed with it (`_policy_terms`), applied by backward."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any,
        logits: torch.Tensor,
        values: torch.Tensor,
        batch: dict[str, torch.Tensor],
        advantages: torch.Tensor,
        clip: float,
        clip_vf: float | None,
        ent_coef: float,
        vf_coef: float,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        size = len(logits)
        rows = torch.empty(4, size, dtype=torch.float64)
        logits_grad = torch.empty_like(logits)
        _policy_terms(
            logits.detach().numpy(),
            batch["action_masks"].numpy(),
            batch["actions"].numpy(),
            batch["log_probs"].numpy(),
            advantages.detach().numpy(),
            clip,
            ent_coef / size,
            rows.numpy(),
            logits_grad.numpy(),
        )
        log_ratio, ratio, entropy, smaller = rows
        old_values, returns = batch["values"], batch["returns"]
        if clip_vf is None:
            predicted, value_grad = values, 2 * vf_coef / size
        else:
            change = values - old_values
            predicted = old_values + change.clamp(-clip_vf, clip_vf)
            value_grad = ((change >= -clip_vf) & (change <= clip_vf)) * (2 * vf_coef / size)
        error = predicted - returns
        value_loss = error.square().mean()
        policy_loss, entropy_loss = -smaller.mean(), -entropy.mean()
        loss = (policy_loss + ent_coef * entropy_loss).to(logits.dtype) + vf_coef * value_loss
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clip_fraction = ((ratio - 1).abs() > clip).double().mean()
        figures = torch.stack([approx_kl, policy_loss, clip_fraction, value_loss.double(), entropy_loss, loss.double()])
        figures = figures.to(logits.dtype)
        ctx.mark_non_differentiable(figures)
        ctx.save_for_backward(logits_grad, error * value_grad)
        return loss, figures

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor, _figures: torch.Tensor) -> tuple[Any, ...]:
        logits_grad, values_grad = ctx.saved_tensors
        return logits_grad * grad, values_grad * grad, None, None, None, None, None, None


def clipped_surrogate_loss(
    logits: torch.Tensor,
    values: torch.Tensor,
    batch: dict[str, torch.Tensor],
    advantages: torch.Tensor,
    clip: float,
    clip_vf: float | None = None,
    ent_coef: float = 0.0,
    vf_coef: float = 0.5,
) -> tuple[torch.Tensor, torch.Tensor]:
    """sb3-contrib's PPO loss of a minibatch and its `LOSS_FIGURES` ``(6,)`` (no gradient).

    ``batch``: the minibatch's ``action_masks``, ``actions``, ``log_probs`` (the behaviour policy's),
    ``values`` (the rollout's, for ``clip_vf``) and ``returns``; ``advantages`` as the loss reads them
    (normalised or not). The gradient reaches ``logits`` and ``values`` only.
    """
    return _ClippedSurrogateLoss.apply(logits, values, batch, advantages, clip, clip_vf, ent_coef, vf_coef)
