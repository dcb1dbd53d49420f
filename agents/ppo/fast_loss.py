"""The masked PPO loss of one minibatch, with its gradient written out: `clipped_surrogate_loss`.

sb3-contrib's loss (the clipped surrogate on the masked categorical's log-probability, the value
loss, clipped when ``clip_range_vf`` is set, and the masked entropy) is some thirty small tensor
operations forward and as many backward, each a pass over the ``(batch, actions)`` logits. Its
gradient with respect to the logits and the values has a closed form, computed here with the
loss in one numba pass over each row's legal logits (`_policy_terms`, in float64), with torch's
tie rules (``torch.minimum`` splits the gradient of a tie; ``clamp`` passes it at its bounds) so
that it is the gradient autograd would give. A test compares both (autograd on the loss written
as torch operations), and the update built on it follows sb3-contrib's parameter for parameter.
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


@njit(cache=True, nogil=True)
def _policy_terms(
    logits: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    old_log_probs: np.ndarray,
    advantages: np.ndarray,
    clip: float,
    entropy_scale: float,
    values: np.ndarray,
    old_values: np.ndarray,
    returns: np.ndarray,
    clip_vf: float,
    value_scale: float,
    sums: np.ndarray,
    logits_grad: np.ndarray,
    values_grad: np.ndarray,
) -> None:
    """One pass per row of the minibatch over its legal logits, in float64.

    ``sums``: over the rows, ``(r - 1) - log r``, ``min(A r, A clip(r))``, ``|r - 1| > clip``, the masked
    entropy and the squared value error (the value clipped to ``clip_vf`` about the rollout's when
    ``clip_vf`` is not NaN). ``logits_grad[i]``: the gradient of ``-mean(min(...)) - entropy_scale * size *
    mean(entropy)`` with respect to row ``i``'s logits (masked logits take none); ``values_grad``: that of
    ``value_scale * size / 2 * mean(error**2)``. torch's tie rules: the minimum of a tie splits its
    gradient, ``clamp`` passes it at its bounds.
    """
    size, width = logits.shape
    legal = np.empty(width + 1, dtype=np.int64)
    sums[:] = 0.0
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
        predicted, passes = values[i], 1.0
        if not np.isnan(clip_vf):
            change = values[i] - old_values[i]
            predicted = old_values[i] + min(max(change, -clip_vf), clip_vf)
            passes = 1.0 if -clip_vf <= change <= clip_vf else 0.0
        error = predicted - returns[i]
        values_grad[i] = passes * value_scale * error
        sums[0] += (ratio - 1) - log_ratio
        sums[1] += min(unclipped, clipped)
        sums[2] += abs(ratio - 1) > clip
        sums[3] += entropy
        sums[4] += error * error


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
        sums = np.empty(5)
        logits_grad, values_grad = torch.empty_like(logits), torch.empty_like(values)
        _policy_terms(
            logits.detach().numpy(),
            batch["action_masks"].numpy(),
            batch["actions"].numpy(),
            batch["log_probs"].numpy(),
            advantages.detach().numpy(),
            clip,
            ent_coef / size,
            values.detach().numpy(),
            batch["values"].numpy(),
            batch["returns"].numpy(),
            np.nan if clip_vf is None else clip_vf,
            2 * vf_coef / size,
            sums,
            logits_grad.numpy(),
            values_grad.numpy(),
        )
        approx_kl, smaller, clipped, entropy, squared_error = (sums / size).tolist()
        policy_loss, entropy_loss = -smaller, -entropy
        loss = policy_loss + ent_coef * entropy_loss + vf_coef * squared_error
        figures = torch.tensor([approx_kl, policy_loss, clipped, squared_error, entropy_loss, loss], dtype=logits.dtype)
        ctx.mark_non_differentiable(figures)
        ctx.save_for_backward(logits_grad, values_grad)
        return figures[-1].clone(), figures

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
