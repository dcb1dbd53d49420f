"""The Q network of Deep Monte-Carlo: ``Q(s, a) = W h(s) + b + F(a) (V h(s) + c)``.

``h(s)`` is an MLP over the observation; ``F`` holds one feature row per action: the game's
action features (``env.action_features``) where the game defines them, else the one-hot of the
action id, so one code path serves every game. The head is `agents.ppo.action_head.FeatureActionHead`;
every term is linear in ``h``, so the network exports as a plain MLP whose outputs are the Q values
of all actions (`QNetwork.to_policy`): the data-only agent format plays it by masked argmax.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from agents.policy.mlp import MlpPolicy
from agents.ppo.action_head import FeatureActionHead

#: Activations of the hidden layers (torch module names, as in the agent file's header).
ACTIVATIONS = {"ReLU": nn.ReLU, "Tanh": nn.Tanh}


def action_features(env: Any) -> np.ndarray:
    """``(num_actions, k)`` float32 feature rows of a raw env's actions: the game's action features
    where it defines them, else the identity (the one-hot of each action id)."""
    table = getattr(env, "action_features", None)
    if table is not None:
        return np.asarray(table.matrix, dtype=np.float32)
    return np.eye(len(env.actions), dtype=np.float32)


class QNetwork(nn.Module):
    """Q values of every action from an observation: an MLP trunk and the feature head."""

    def __init__(self, observation_size: int, features: np.ndarray, hidden: tuple[int, ...], activation: str = "ReLU"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        if not hidden:
            raise ValueError("the Q network needs at least one hidden layer")
        layers: list[nn.Module] = []
        size = observation_size
        for width in hidden:
            layers += [nn.Linear(size, width), ACTIVATIONS[activation]()]
            size = width
        self.trunk = nn.Sequential(*layers)
        self.head = FeatureActionHead(size, features)
        self.activation = activation

    @property
    def num_features(self) -> int:
        """Columns of the feature rows ``F``."""
        return int(self.head.features.shape[1])

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """``(N, num_actions)`` Q values of ``(N, D)`` observations."""
        return self.head(self.trunk(observations))

    def q_of(self, observations: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """``(N,)`` Q values of the actions taken."""
        return self(observations).gather(1, actions.long()[:, None])[:, 0]

    def to_policy(self) -> MlpPolicy:
        """The network as numpy arrays (its head folded into one linear layer): logits are the Q values."""
        linears = [m for m in self.trunk if isinstance(m, nn.Linear)]
        with torch.no_grad():
            pairs = [(m.weight, m.bias) for m in linears] + [self.head.effective_linear()]
            weights = [w.detach().float().numpy().T.copy() for w, _ in pairs]
            biases = [b.detach().float().numpy().copy() for _, b in pairs]
        return MlpPolicy(weights, biases, self.activation)
