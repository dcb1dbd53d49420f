"""Networks of one shape as one batched forward: `PolicyStack`, and the agent that plays them, `StackedPolicyAgent`.

A self-play table holds up to ``max_snapshots`` frozen copies of the learner; each opponent row is
played by one of them. Asking each network for its few rows costs numpy's per-call overhead per
network per engine step (a few rows each: the overhead is all of it). `PolicyStack.logits` runs every
row through its own network in one call, one numba pass a layer. The first layer (`indexed_linear`)
adds, per row, the weight rows of its network for the row's nonzero inputs only: the observations are
mostly zeros (Skull King's: about 35 nonzero entries of 610), so it reads a few weight rows instead of
all of them. The later layers read dense activations (`_grouped_linear`): each output is a dot product
of a row with a column of its network's weights (stored transposed, so both run contiguously), and
four rows of one network share each column they read.

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
def indexed_linear(inputs: np.ndarray, nets: np.ndarray, weights: np.ndarray, biases: np.ndarray) -> np.ndarray:
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


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _grouped_linear(
    inputs: np.ndarray, nets: np.ndarray, order: np.ndarray, weights_t: np.ndarray, biases: np.ndarray
) -> np.ndarray:
    """``out[m] = inputs[m] @ weights_t[nets[m]].T + biases[nets[m]]`` of dense ``inputs``, ``order`` the rows
    sorted by network: four rows of one network at a time share each weight column (``weights_t[net, j]``)."""
    rows, width, depth = inputs.shape[0], weights_t.shape[1], inputs.shape[1]
    out = np.empty((rows, width), dtype=np.float32)
    k = 0
    while k < rows:
        net = nets[order[k]]
        end = k + 1
        while end < rows and end - k < 4 and nets[order[end]] == net:
            end += 1
        if end - k == 4:
            r0, r1, r2, r3 = order[k], order[k + 1], order[k + 2], order[k + 3]
            x0, x1, x2, x3 = inputs[r0], inputs[r1], inputs[r2], inputs[r3]
            for j in range(width):
                column = weights_t[net, j]
                a0 = a1 = a2 = a3 = np.float32(0.0)
                for i in range(depth):
                    w = column[i]
                    a0 += x0[i] * w
                    a1 += x1[i] * w
                    a2 += x2[i] * w
                    a3 += x3[i] * w
                bias = biases[net, j]
                out[r0, j], out[r1, j], out[r2, j], out[r3, j] = a0 + bias, a1 + bias, a2 + bias, a3 + bias
        else:
            for q in range(k, end):
                row = order[q]
                x = inputs[row]
                for j in range(width):
                    column = weights_t[net, j]
                    total = np.float32(0.0)
                    for i in range(depth):
                        total += x[i] * column[i]
                    out[row, j] = total + biases[net, j]
        k = end
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
        # the later layers' weights transposed, ``(network, out, in)``: `_grouped_linear` reads columns
        self.weights_t = [np.ascontiguousarray(w.transpose(0, 2, 1)) for w in self.weights[1:]]
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
        x = indexed_linear(x, nets, self.weights[0], self.biases[0])
        order = np.argsort(nets, kind="stable")
        for weights_t, biases in zip(self.weights_t, self.biases[1:]):
            x = _grouped_linear(self._act(x), nets, order, weights_t, biases)
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


__all__ = ["PolicyStack", "StackedPolicyAgent", "indexed_linear", "stack_key"]
