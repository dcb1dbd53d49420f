"""`MlpPolicy`: the actor of a trained MLP policy as numpy arrays, and the constants of its inputs.

A leaf of ``agents`` (numpy only): the agent file format (`agents.checkpoint`) and the trained
agents (`agents.policy_agent`) both build on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: Entries of ``MlpPolicy.input_index`` that read a constant instead of the observation:
#: 0.0 (a padded row of an absent seat) and 1.0 (a seat-present flag).
ZERO_INPUT, ONE_INPUT = -2, -1
_CONSTANT_INPUTS = np.array([0.0, 1.0], dtype=np.float32)

ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "Identity": lambda x: x,
}


@dataclass
class MlpPolicy:
    """The actor of an MLP policy as numpy arrays: ``logits = head(act(... act(W0 x + b0)))``.

    ``weights[i]`` has shape ``(in, out)`` (already transposed for ``x @ w``); the last pair is
    the action head, which gets no activation. ``input_index``, when set, picks the network's
    inputs out of the observation (an env layout that gained pieces, or a seated layout read by
    an agent of the ``"max"`` table layout; see `agents.checkpoint.input_index`); its
    entries `ZERO_INPUT` and `ONE_INPUT` read the constants 0 and 1.
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    activation: str = "Tanh"
    input_index: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {self.activation!r}")
        self._act = ACTIVATIONS[self.activation]
        self._reads_constants = self.input_index is not None and bool((self.input_index < 0).any())

    def __getstate__(self) -> dict[str, Any]:
        state = {"weights": self.weights, "biases": self.biases, "activation": self.activation}
        return state | ({} if self.input_index is None else {"input_index": self.input_index})

    def with_inputs(self, index: np.ndarray | None) -> MlpPolicy:
        """The same network reading the observation entries ``index`` (``None``: all, in order)."""
        return MlpPolicy(self.weights, self.biases, self.activation, index)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    @property
    def obs_size(self) -> int:
        """The network's input size (the trained observation's length)."""
        return self.weights[0].shape[0]

    @property
    def num_actions(self) -> int:
        return self.weights[-1].shape[1]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits of one observation (or a batch)."""
        x = np.asarray(obs, dtype=np.float32)
        if self.input_index is not None:
            if self._reads_constants:  # index -2 and -1: the constants 0 and 1 appended here
                x = np.concatenate([x, np.broadcast_to(_CONSTANT_INPUTS, (*x.shape[:-1], 2))], axis=-1)
            x = x[..., self.input_index]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w + b
            if i < last:
                x = self._act(x)
        return x

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None) -> int:
        """The masked argmax action, or a sample of the masked softmax when ``rng`` is given."""
        logits = self.logits(obs)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask: is it this agent's turn?")
        z = logits[legal]
        if rng is None:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        u = rng.random() * p.sum()
        return int(legal[min(int(np.searchsorted(np.cumsum(p), u)), legal.size - 1)])
