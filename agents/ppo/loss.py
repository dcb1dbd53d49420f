"""The masked PPO loss of one minibatch, in plain torch: the readable reference, and the switch.

This is the loss sb3-contrib's ``MaskablePPO`` optimises, written the way CleanRL writes it:

* the masked categorical: illegal actions get the logit `MASKED_LOGIT`, so they carry no
  probability and no entropy;
* the clipped surrogate ``-min(A r, A clip(r, 1 - eps, 1 + eps))`` on the probability ratio ``r``;
* the value loss, the squared error to the returns (the prediction clipped around the rollout's
  value when ``clip_vf`` is set);
* the entropy bonus, ``- ent_coef * H``.

Every update takes its loss from `minibatch_loss`, by name: ``"fused"`` (the default) is the
numba pass with its gradient written out (`agents.ppo.fast_loss`, about twice as fast on the
CPU, held equal to `ppo_loss` by ``tests/agents/ppo/test_loss.py``), ``"torch"`` is `ppo_loss`
below, differentiated by autograd.

To try another loss: edit `ppo_loss` (or add a function of the same signature to `LOSSES`) and
train with ``python -m experiments.train ... --loss torch`` (or the new name). The fused pass
stays what it is, so the parity test then tells you how far the new loss is from the shipped one.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.nn import functional as F

from agents.ppo.fast_loss import MASKED_LOGIT, clipped_surrogate_loss

#: ``(logits, values, batch, advantages, clip, clip_vf, ent_coef, vf_coef) -> (loss, figures)``.
Loss = Callable[..., tuple[torch.Tensor, torch.Tensor]]


def masked_log_prob_entropy(
    logits: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The log-probability of ``actions`` and the entropy of the masked categorical over ``logits``."""
    log_p = torch.log_softmax(torch.where(masks, logits, MASKED_LOGIT), dim=-1)
    log_prob = log_p.gather(1, actions.unsqueeze(1)).squeeze(1)
    legal_log_p = torch.where(masks, log_p, 0.0)  # masked terms vanish (exp(0) * 0), without denormals
    entropy = -(legal_log_p.exp() * legal_log_p).sum(-1)
    return log_prob, entropy


def ppo_loss(
    logits: torch.Tensor,
    values: torch.Tensor,
    batch: dict[str, torch.Tensor],
    advantages: torch.Tensor,
    clip: float,
    clip_vf: float | None = None,
    ent_coef: float = 0.0,
    vf_coef: float = 0.5,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The minibatch's loss and its figures ``(6,)`` (no gradient; `agents.ppo.fast_loss.LOSS_FIGURES`), term by term.

    ``batch``: ``action_masks``, ``actions``, ``log_probs`` (the behaviour policy's), ``values``
    (the rollout's) and ``returns``; ``advantages`` as the loss reads them (normalised or not).
    """
    log_prob, entropy = masked_log_prob_entropy(logits, batch["action_masks"], batch["actions"])
    log_ratio = log_prob - batch["log_probs"]
    ratio = torch.exp(log_ratio)
    policy_loss = -torch.min(advantages * ratio, advantages * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
    old = batch["values"]
    predicted = values if clip_vf is None else old + torch.clamp(values - old, -clip_vf, clip_vf)
    value_loss = F.mse_loss(batch["returns"], predicted)
    entropy_loss = -entropy.mean()
    loss = policy_loss + ent_coef * entropy_loss + vf_coef * value_loss
    with torch.no_grad():
        clip_fraction = ((ratio - 1).abs() > clip).float().mean()
        approx_kl = ((ratio - 1) - log_ratio).mean()
        figures = torch.stack([approx_kl, policy_loss, clip_fraction, value_loss, entropy_loss, loss])
    return loss, figures


#: The losses an update can use, by name (``--loss``): the readable one and its fused fast path.
LOSSES: dict[str, Loss] = {"fused": clipped_surrogate_loss, "torch": ppo_loss}


def minibatch_loss(name: str) -> Loss:
    """The loss named ``name`` (``ValueError`` naming the choices)."""
    if name not in LOSSES:
        raise ValueError(f"no loss {name!r}; losses: {', '.join(LOSSES)}")
    return LOSSES[name]


__all__ = ["LOSSES", "Loss", "masked_log_prob_entropy", "minibatch_loss", "ppo_loss"]
