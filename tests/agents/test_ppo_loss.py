"""The PPO loss with its gradient written out is the loss autograd differentiates, figures included."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from agents.ppo.fast_loss import LOSS_FIGURES, MASKED_LOGIT, clipped_surrogate_loss


def masked_log_prob_entropy(
    logits: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of ``actions`` and entropy of the masked categorical over ``logits``, as torch
    operations (masked logits ``MASKED_LOGIT``, as sb3-contrib's ``MaskableCategorical``): the reference."""
    log_p = torch.log_softmax(torch.where(masks, logits, MASKED_LOGIT), dim=-1)
    log_prob = log_p.gather(1, actions.unsqueeze(1)).squeeze(1)
    legal_log_p = torch.where(masks, log_p, 0.0)  # exp(0) * 0 = 0: masked terms vanish without denormals
    entropy = -(legal_log_p.exp() * legal_log_p).sum(-1)
    return log_prob, entropy


def test_masked_actions_carry_no_probability_and_no_entropy():
    logits = torch.tensor([[0.0, 5.0, 1.0, -2.0], [3.0, 3.0, 3.0, 3.0]])
    masks = torch.tensor([[True, False, True, False], [True, True, True, True]])
    log_prob, entropy = masked_log_prob_entropy(logits, masks, torch.tensor([2, 0]))
    legal = torch.softmax(torch.tensor([0.0, 1.0]), 0)
    assert log_prob[0] == pytest.approx(float(torch.log(legal[1])))
    assert entropy[0] == pytest.approx(float(-(legal * legal.log()).sum()))
    assert log_prob[1] == pytest.approx(float(np.log(0.25)))
    assert entropy[1] == pytest.approx(float(np.log(4)))


def autograd_loss(logits, values, batch, advantages, clip, clip_vf, ent_coef, vf_coef):
    """sb3-contrib's ``MaskablePPO.train`` loss, term by term, for autograd to differentiate."""
    log_prob, entropy = masked_log_prob_entropy(logits, batch["action_masks"], batch["actions"])
    log_ratio = log_prob - batch["log_probs"]
    ratio = torch.exp(log_ratio)
    policy_loss = -torch.min(advantages * ratio, advantages * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
    old = batch["values"]
    predicted = values if clip_vf is None else old + torch.clamp(values - old, -clip_vf, clip_vf)
    value_loss = F.mse_loss(batch["returns"], predicted)
    entropy_loss = -torch.mean(entropy)
    loss = policy_loss + ent_coef * entropy_loss + vf_coef * value_loss
    clip_fraction = torch.mean((torch.abs(ratio - 1) > clip).float())
    approx_kl = torch.mean((ratio - 1) - log_ratio)
    return loss, torch.stack([approx_kl, policy_loss, clip_fraction, value_loss, entropy_loss, loss]).detach()


def minibatch(size: int = 64, actions: int = 9, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(size, actions, generator=generator) * 2
    masks = torch.rand(size, actions, generator=generator) < 0.6
    masks[:, 0] |= ~masks.any(1)  # every row has a legal action
    masks[1] = False
    masks[1, 4] = True  # a row with one legal action (no entropy)
    chosen = torch.multinomial(masks.float(), 1, generator=generator).squeeze(1)
    with torch.no_grad():
        log_prob, _ = masked_log_prob_entropy(logits, masks, chosen)
    shift = torch.randn(size, generator=generator) * 0.3
    shift[:8] = 0.0  # ratio 1: unclipped and clipped terms tie
    old_log_probs = log_prob - shift
    advantages = torch.randn(size, generator=generator)
    advantages[8:12] = 0.0  # ties of zero advantage
    values = torch.randn(size, generator=generator)
    old_values = values + torch.randn(size, generator=generator) * 0.2
    batch = {
        "action_masks": masks,
        "actions": chosen,
        "log_probs": old_log_probs,
        "values": old_values,
        "returns": torch.randn(size, generator=generator),
    }
    return logits, values, batch, advantages


@pytest.mark.parametrize("clip_vf", [None, 0.1])
@pytest.mark.parametrize("ent_coef", [0.0, 0.05])
def test_the_written_out_gradient_is_autograds(clip_vf, ent_coef):
    logits, values, batch, advantages = minibatch()
    results = []
    for loss_of in (autograd_loss, clipped_surrogate_loss):
        ours_logits, ours_values = logits.clone().requires_grad_(), values.clone().requires_grad_()
        loss, figures = loss_of(ours_logits, ours_values, batch, advantages, 0.2, clip_vf, ent_coef, 0.5)
        (loss * 1.7).backward()  # a scaled upstream gradient reaches both
        results.append((loss.detach(), figures, ours_logits.grad, ours_values.grad))
    (loss, figures, logits_grad, values_grad), (our_loss, our_figures, our_logits_grad, our_values_grad) = results
    torch.testing.assert_close(our_loss, loss)
    torch.testing.assert_close(our_figures, figures)
    torch.testing.assert_close(our_logits_grad, logits_grad, rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(our_values_grad, values_grad, rtol=1e-5, atol=1e-7)
    assert our_logits_grad[~batch["action_masks"]].abs().max() == 0  # masked logits take no gradient
    assert our_logits_grad.abs().max() > 0 and our_values_grad.abs().max() > 0
    assert len(our_figures) == len(LOSS_FIGURES)


def test_clipped_ratios_carry_no_policy_gradient():
    logits, values, batch, advantages = minibatch(seed=1)
    batch["log_probs"] = batch["log_probs"] - 5.0  # every ratio e^5: far above 1 + clip
    advantages = advantages.abs() + 0.1  # positive advantages: the clipped term is the minimum
    ours = logits.clone().requires_grad_()
    loss, figures = clipped_surrogate_loss(ours, values, batch, advantages, 0.2, vf_coef=0.0)
    loss.backward()
    assert ours.grad.abs().max() == 0
    assert figures[LOSS_FIGURES.index("clip_fraction")] == 1.0
