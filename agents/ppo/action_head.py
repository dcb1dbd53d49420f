"""A MaskablePPO policy that scores actions from the game's action features as well.

With a flat head every action is its own output, so what a policy learns about one action
(re-rolling two monkeys) does not carry over to a similar one (re-rolling two parrots). The
`FeatureActionHead` adds a shared term: the latent state is projected onto the game's
feature space and each action's logit gets the dot product with its feature row:

    logits = W h + b  +  F (V h + c)        F: the fixed (actions x features) matrix

Both terms are linear in ``h``, so the head collapses into one ``(W + F V, b + F c)`` layer
(`FeatureActionHead.effective_linear`): exported policies stay plain MLPs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


class FeatureActionHead(nn.Module):
    """Logits ``W h + b + F (V h + c)`` over actions with fixed feature rows ``F``."""

    def __init__(self, latent_dim: int, features: np.ndarray):
        super().__init__()
        features = torch.tensor(np.array(features, dtype=np.float32))
        self.register_buffer("features", features, persistent=False)  # rebuilt from policy_kwargs on load
        self.per_action = nn.Linear(latent_dim, features.shape[0])
        self.to_features = nn.Linear(latent_dim, features.shape[1])

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.per_action(latent) + self.to_features(latent) @ self.features.T

    def effective_linear(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The one linear layer ``(weight, bias)`` (torch's ``(out, in)`` layout) equal to the head."""
        weight = self.per_action.weight + self.features @ self.to_features.weight
        bias = self.per_action.bias + self.features @ self.to_features.bias
        return weight, bias


class FeatureHeadPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose action net is a `FeatureActionHead`.

    ``action_features`` (``policy_kwargs``) is the ``(num_actions, num_features)`` matrix of
    the game (``env.unwrapped.action_features.matrix``); it is saved with the checkpoint.
    """

    def __init__(self, *args: Any, action_features: np.ndarray, **kwargs: Any):
        self.action_features = np.asarray(action_features, dtype=np.float32)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        num_actions = int(self.action_space.n)
        if self.action_features.shape[0] != num_actions:
            raise ValueError(f"action_features has {self.action_features.shape[0]} rows for {num_actions} actions")
        self.action_net = FeatureActionHead(self.mlp_extractor.latent_dim_pi, self.action_features)
        if self.ortho_init:
            self.action_net.apply(lambda module: self.init_weights(module, gain=0.01))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "action_features": self.action_features}
