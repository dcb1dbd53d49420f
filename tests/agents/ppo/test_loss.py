"""The fused PPO loss (its gradient written out) is the readable torch loss autograd differentiates."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.ppo.fast_loss import LOSS_FIGURES, clipped_surrogate_loss
from agents.ppo.loss import LOSSES, masked_log_prob_entropy, minibatch_loss, ppo_loss


def test_masked_actions_carry_no_probability_and_no_entropy():
    logits = torch.tensor([[0.0, 5.0, 1.0, -2.0], [3.0, 3.0, 3.0, 3.0]])
    masks = torch.tensor([[True, False, True, False], [True, True, True, True]])
    log_prob, entropy = masked_log_prob_entropy(logits, masks, torch.tensor([2, 0]))
    legal = torch.softmax(torch.tensor([0.0, 1.0]), 0)
    assert log_prob[0] == pytest.approx(float(torch.log(legal[1])))
    assert entropy[0] == pytest.approx(float(-(legal * legal.log()).sum()))
    assert log_prob[1] == pytest.approx(float(np.log(0.25)))
    assert entropy[1] == pytest.approx(float(np.log(4)))


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
    for loss_of in (ppo_loss, clipped_surrogate_loss):
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


def test_the_loss_is_chosen_by_name():
    assert minibatch_loss("torch") is ppo_loss and minibatch_loss("fused") is clipped_surrogate_loss
    assert set(LOSSES) == {"fused", "torch"}
    with pytest.raises(ValueError, match="no loss 'cleanrl'; losses: fused, torch"):
        minibatch_loss("cleanrl")


def test_an_update_with_the_torch_loss_matches_the_fused_one():
    from agents.ppo.algorithm import PPOSettings, ppo_update

    logits, _, batch, advantages = minibatch(size=96, seed=3)
    observations = torch.randn(96, 5, generator=torch.Generator().manual_seed(4))
    rollout = {
        "observations": observations,
        "actions": batch["actions"],
        "action_masks": batch["action_masks"],
        "log_probs": batch["log_probs"],
        "values": batch["values"],
        "returns": batch["returns"],
        "advantages": advantages,
    }
    updated = []
    for name in ("fused", "torch"):
        torch.manual_seed(0)
        actor, critic = torch.nn.Linear(5, logits.shape[1]), torch.nn.Linear(5, 1)
        parameters = [*actor.parameters(), *critic.parameters()]
        start = torch.cat([p.detach().flatten() for p in parameters])
        optimizer = torch.optim.Adam(parameters, lr=1e-2)
        settings = PPOSettings(n_epochs=2, batch_size=32, clip_range=0.2, ent_coef=0.01, loss=name)
        ppo_update(
            lambda x, a=actor, c=critic: (a(x), c(x).squeeze(-1)),
            parameters,
            optimizer,
            rollout,
            settings,
            np.random.RandomState(0),
        )
        updated.append(torch.cat([p.detach().flatten() for p in parameters]))
        assert (updated[-1] - start).abs().max() > 1e-3  # the update moved the parameters
    torch.testing.assert_close(updated[1], updated[0], rtol=1e-4, atol=1e-5)
