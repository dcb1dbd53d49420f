"""Networks of one shape as one batched forward: `PolicyStack`, and the agent that plays them, `StackedPolicyAgent`.

A self-play table holds up to ``max_snapshots`` frozen copies of the learner; each opponent row is
played by one of them. Asking each network for its few rows costs numpy's per-call overhead per
network per engine step (a few rows each: the overhead is all of it). `PolicyStack.logits` runs every
row through its own network in one call: each layer is one numba pass (`_indexed_linear`) that adds,
per row, the weight rows of its network for the row's nonzero inputs only. The observations are
mostly zeros (Skull King's: about 35 nonzero entries of 610), so the first layer reads a few weight
rows instead of all of them.

The same function as each network's `agents.policy.mlp.MlpPolicy.logits`, summed in another order
(a test compares them within float32 rounding).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from agents.batched import choose_actions
from agents.policy.mlp import ACTIVATIONS, MlpPolicy


@njit(cache=True, nogil=True)
def _indexed_linear(inputs: np.ndarray, nets: np.ndarray, weights: np.ndarray, biases: np.ndarray) -> np.ndarray:
    """``out[m] = inputs[m] @ weights[nets[m]] + biases[nets[m]]``, skipping the zero entries of ``inputs``."""
    rows, width = inputs.shape[0], weights.shape[2]
    out = np.empty((rows, width), dtype=np.float32)
    for m in range(rows):
        net = nets[m]
        for j in range(width):
            out[m, j] = biases[net, j]
        for i in range(inputs.shape[1]):
            value = inputs[m, i]
            if value != 0.0:
                for j in range(width):
                    out[m, j] += value * weights[net, i, j]
    return out


def stack_key(policy: MlpPolicy) -> tuple:
    """Policies with equal keys stack: the same layer shapes, activation and inputs."""
    index = None if policy.input_index is None else policy.input_index.tobytes()
    return policy.activation, tuple(w.shape for w in policy.weights), index


class PolicyStack:
    """The actors of ``policies`` (one `stack_key`), stacked layer by layer: ``logits(nets, observations)``
    gives row ``m`` the logits of network ``nets[m]``."""

    def __init__(self, policies: Sequence[MlpPolicy]) -> None:
        if not policies:
            raise ValueError("a PolicyStack needs at least one policy")
        keys = {stack_key(policy) for policy in policies}
        if len(keys) > 1:
            raise ValueError(
                f"policies of different shapes, activations or inputs cannot stack: {sorted(map(str, keys))}"
            )
        self.first = policies[0]
        self.size = len(policies)
        self.weights = [
            np.stack([p.weights[i] for p in policies]).astype(np.float32) for i in range(len(self.first.weights))
        ]
        self.biases = [
            np.stack([p.biases[i] for p in policies]).astype(np.float32) for i in range(len(self.first.biases))
        ]
        self._act = ACTIVATIONS[self.first.activation]

    def logits(self, nets: np.ndarray, observations: np.ndarray) -> np.ndarray:
        """``(M, A)`` float32: the logits of ``observations`` ``(M, D)``, row ``m`` by network ``nets[m]``."""
        nets = np.asarray(nets, dtype=np.int64)
        if nets.size and (nets.min() < 0 or nets.max() >= self.size):
            raise ValueError(f"network indices must lie in [0, {self.size}), got {nets.min()}..{nets.max()}")
        x = np.ascontiguousarray(self.first._inputs(observations), dtype=np.float32)
        last = len(self.weights) - 1
        for i, (weights, biases) in enumerate(zip(self.weights, self.biases)):
            x = _indexed_linear(x, nets, weights, biases)
            if i < last:
                x = self._act(x)
        return x


class StackedPolicyAgent:
    """Networks of one shape playing as one batched agent: game slot ``g``'s rows are played by network
    ``net_of_game[g]`` (the owner sets it), argmax or sampled (`choose_actions`) from one stream."""

    def __init__(
        self, policies: Sequence[MlpPolicy], num_games: int, name: str, deterministic: bool, seed: int | None = None
    ) -> None:
        self.stack = PolicyStack(policies)
        self.net_of_game = np.zeros(num_games, dtype=np.int64)
        self.name, self.deterministic = name, deterministic
        self.rng = np.random.default_rng(seed)

    def reset_games(self, games: np.ndarray) -> None:
        """Nothing is remembered of a game."""

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        logits = self.stack.logits(self.net_of_game[games], observations)
        return choose_actions(logits, action_masks, self.deterministic, self.rng)


__all__ = ["PolicyStack", "StackedPolicyAgent", "stack_key"]
