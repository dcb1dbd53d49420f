"""The masked PPO loss of one minibatch, with its gradient written out: `clipped_surrogate_loss`.

sb3-contrib's loss (the clipped surrogate on the masked categorical's log-probability, the value
loss, clipped when ``clip_range_vf`` is set, and the masked entropy) is some thirty small tensor
operations forward and as many backward, each a pass over the ``(batch, actions)`` logits. Its
gradient with respect to the logits and the values has a closed form, computed here in a few
passes (`_ClippedSurrogateLoss`), with torch's tie rules (``torch.minimum`` splits the gradient of
a tie; ``clamp`` passes it at its bounds) so that it is the gradient autograd would give. A test
compares both, and the update built on it follows sb3-contrib's parameter for parameter.
"""

from __future__ import annotations

from typing import Any

import torch

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


class _ClippedSurrogateLoss(torch.autograd.Function):
    """The loss of `clipped_surrogate_loss`; its backward the closed-form gradient of logits and values."""

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
        masks, actions = batch["action_masks"], batch["actions"].unsqueeze(1)
        size = len(actions)
        log_p = torch.log_softmax(torch.where(masks, logits, MASKED_LOGIT), dim=-1)
        legal_log_p = torch.where(masks, log_p, 0.0)
        probabilities = legal_log_p.exp().mul_(masks)  # exp(0) of a masked entry, times 0
        entropy = (probabilities * legal_log_p).sum(-1).neg_()
        log_ratio = log_p.gather(1, actions).squeeze(1) - batch["log_probs"]
        ratio = log_ratio.exp()
        unclipped, clipped = advantages * ratio, advantages * ratio.clamp(1 - clip, 1 + clip)
        policy_loss = -torch.minimum(unclipped, clipped).mean()
        # d(policy loss)/d(ratio): torch.minimum's tie splits the gradient, clamp passes it at its bounds
        inside = ((ratio >= 1 - clip) & (ratio <= 1 + clip)).float()
        weight = (unclipped < clipped).float() + inside * (clipped < unclipped)
        weight += (unclipped == clipped) * (1 + inside) * 0.5
        ratio_grad = weight.mul_(advantages).mul_(ratio).mul_(-1 / size)  # d/d(log-probability)
        old_values, returns = batch["values"], batch["returns"]
        if clip_vf is None:
            predicted, value_grad = values, 2 * vf_coef / size
        else:
            change = values - old_values
            predicted = old_values + change.clamp(-clip_vf, clip_vf)
            value_grad = ((change >= -clip_vf) & (change <= clip_vf)) * (2 * vf_coef / size)
        error = predicted - returns
        value_loss = error.square().mean()
        entropy_loss = -entropy.mean()
        loss = policy_loss + ent_coef * entropy_loss + vf_coef * value_loss
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clip_fraction = ((ratio - 1).abs() > clip).float().mean()
        figures = torch.stack([approx_kl, policy_loss, clip_fraction, value_loss, entropy_loss, loss])
        ctx.mark_non_differentiable(figures)
        ctx.save_for_backward(probabilities, legal_log_p, entropy, ratio_grad, error * value_grad, actions)
        ctx.ent_coef = ent_coef
        return loss, figures

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor, _figures: torch.Tensor) -> tuple[Any, ...]:
        probabilities, legal_log_p, entropy, ratio_grad, values_grad, actions = ctx.saved_tensors
        size = len(actions)
        # d(log p_a)/dz = onehot(a) - p; d(-mean entropy)/dz = p (log p + H) / size
        if ctx.ent_coef:
            scale = legal_log_p.add(entropy.unsqueeze(1)).mul_(ctx.ent_coef / size).sub_(ratio_grad.unsqueeze(1))
            logits_grad = probabilities * scale  # a new tensor: the saved ones stay as saved
        else:
            logits_grad = probabilities * -ratio_grad.unsqueeze(1)
        logits_grad.scatter_add_(1, actions, ratio_grad.unsqueeze(1))
        return logits_grad.mul_(grad), values_grad * grad, None, None, None, None, None, None


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
