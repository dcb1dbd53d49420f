"""`MlpPolicy`: a trained MLP policy (its actor and, optionally, its value head) as numpy arrays,
and the constants of its inputs.

A leaf of ``agents`` (numpy only): the agent file format (`agents.policy.checkpoint`) and the trained
agents (`agents.policy.agent`) both build on it.
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


def forward(x: np.ndarray, weights: list[np.ndarray], biases: list[np.ndarray], act: Any) -> np.ndarray:
    """The chain of linear layers on ``x``, ``act`` after each but the last."""
    last = len(weights) - 1
    for i, (w, b) in enumerate(zip(weights, biases)):
        x = x @ w + b
        if i < last:
            x = act(x)
    return x


@dataclass
class MlpPolicy:
    """An MLP policy as numpy arrays: ``logits = head(act(... act(W0 x + b0)))``, and optionally a value.

    ``weights[i]`` has shape ``(in, out)`` (already transposed for ``x @ w``); the last pair is
    the action head, which gets no activation. ``value_weights``/``value_biases``, when set, are
    the value network (SB3's critic: its own hidden layers, same ``activation``, and a last
    layer of one output): ``value(x) = v_head(act(... act(V0 x + vb0)))``; ``None``: no value head.
    ``input_index``, when set, picks the network's inputs out of the observation (an env layout
    that gained pieces, or a seated layout read by an agent of the ``"max"`` table layout; see
    `agents.policy.checkpoint.input_index`); its entries `ZERO_INPUT` and `ONE_INPUT` read the constants
    0 and 1. Both networks read the same inputs.
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    activation: str = "Tanh"
    input_index: np.ndarray | None = None
    value_weights: list[np.ndarray] | None = None
    value_biases: list[np.ndarray] | None = None

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {self.activation!r}")
        if (self.value_weights is None) != (self.value_biases is None):
            raise ValueError("value_weights and value_biases must be given together (or neither)")
        if self.value_weights is not None and (not self.value_weights or self.value_weights[-1].shape[1] != 1):
            raise ValueError("the value network must have layers and end in one output")
        self._act = ACTIVATIONS[self.activation]
        self._reads_constants = self.input_index is not None and bool((self.input_index < 0).any())

    def __getstate__(self) -> dict[str, Any]:
        state = {"weights": self.weights, "biases": self.biases, "activation": self.activation}
        if self.value_weights is not None:
            state |= {"value_weights": self.value_weights, "value_biases": self.value_biases}
        return state | ({} if self.input_index is None else {"input_index": self.input_index})

    def with_inputs(self, index: np.ndarray | None) -> MlpPolicy:
        """The same networks reading the observation entries ``index`` (``None``: all, in order)."""
        return MlpPolicy(self.weights, self.biases, self.activation, index, self.value_weights, self.value_biases)

    def without_value(self) -> MlpPolicy:
        """The actor alone (no value head): what plays, lighter to copy."""
        return MlpPolicy(self.weights, self.biases, self.activation, self.input_index)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    @property
    def obs_size(self) -> int:
        """The network's input size (the trained observation's length)."""
        return self.weights[0].shape[0]

    @property
    def num_actions(self) -> int:
        return self.weights[-1].shape[1]

    @property
    def has_value(self) -> bool:
        """Whether the network has a value head (`value`, `logits_and_value`)."""
        return self.value_weights is not None

    def _inputs(self, obs: np.ndarray) -> np.ndarray:
        """The network's input rows of an observation (or a batch) as float32."""
        x = np.asarray(obs, dtype=np.float32)
        if self.input_index is not None:
            if self._reads_constants:  # index -2 and -1: the constants 0 and 1 appended here
                x = np.concatenate([x, np.broadcast_to(_CONSTANT_INPUTS, (*x.shape[:-1], 2))], axis=-1)
            x = x[..., self.input_index]
        return x

    def require_value(self, owner: str = "this network") -> None:
        """``ValueError`` (one line naming ``owner``) unless the network has a value head."""
        if not self.has_value:
            raise ValueError(
                f"{owner} has no value head (its agent file is of format version 1 or was saved without one); "
                "only its policy can be used"
            )

    def _value_of_inputs(self, x: np.ndarray) -> np.ndarray:
        self.require_value()
        assert self.value_weights is not None and self.value_biases is not None
        return forward(x, self.value_weights, self.value_biases, self._act)[..., 0].astype(np.float32, copy=False)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits of one observation (or a batch)."""
        return forward(self._inputs(obs), self.weights, self.biases, self._act)

    def value(self, obs: np.ndarray) -> np.ndarray:
        """The value head's estimate: float32 of shape ``obs.shape[:-1]`` (a batch ``(N, D)``: ``(N,)``).

        ``ValueError`` (one line) when the network has no value head.
        """
        return self._value_of_inputs(self._inputs(obs))

    def logits_and_value(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`logits` and `value` of the same observations in one call (the inputs gathered once; the
        actor and the critic share no hidden layer, so both run)."""
        x = self._inputs(obs)
        return forward(x, self.weights, self.biases, self._act), self._value_of_inputs(x)

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
