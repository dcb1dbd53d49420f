"""Trained policies as agents: a small numpy MLP that acts from the observation and the mask.

A MaskablePPO checkpoint (``.zip``) is converted once into :class:`MlpPolicy`, a numpy copy of
the actor (hidden layers and action head), so an agent acts without torch on the hot path and
a snapshot can be pickled cheaply into env worker processes. Shipped checkpoints live in
``agents/pretrained/<name>.zip`` and load by name: ``make_agent("ppo:piraten_kapern_v0", ...)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

#: Where shipped checkpoints live (``<name>.zip``).
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"

_ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "Identity": lambda x: x,
}


@dataclass
class MlpPolicy:
    """The actor of an MLP policy as numpy arrays: ``logits = head(act(... act(W0 x + b0)))``.

    ``weights[i]`` has shape ``(in, out)`` (already transposed for ``x @ w``); the last pair is
    the action head, which gets no activation.
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    activation: str = "Tanh"

    def __post_init__(self) -> None:
        if self.activation not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}, got {self.activation!r}")
        self._act = _ACTIVATIONS[self.activation]

    def __getstate__(self) -> dict[str, Any]:
        return {"weights": self.weights, "biases": self.biases, "activation": self.activation}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    @property
    def obs_size(self) -> int:
        return self.weights[0].shape[0]

    @property
    def num_actions(self) -> int:
        return self.weights[-1].shape[1]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits of one observation (or a batch)."""
        x = np.asarray(obs, dtype=np.float32)
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


def policy_from_sb3(policy: Any) -> MlpPolicy:
    """Copy the actor of an SB3 ``(Maskable)ActorCriticPolicy`` with a flat Box observation.

    A feature action head (``agents.action_head``) is exported as the one linear layer it equals.
    """
    import torch

    extractor = type(policy.pi_features_extractor).__name__
    if extractor != "FlattenExtractor":
        raise ValueError(f"only FlattenExtractor policies can be exported, got {extractor}")
    weights, biases, activation = [], [], "Identity"
    with torch.no_grad():
        for module in [*policy.mlp_extractor.policy_net, policy.action_net]:
            if isinstance(module, torch.nn.Linear):
                layer = module.weight, module.bias
            elif hasattr(module, "effective_linear"):  # agents.action_head.FeatureActionHead
                layer = module.effective_linear()
            else:
                activation = type(module).__name__
                continue
            weights.append(layer[0].detach().cpu().numpy().T.astype(np.float32).copy())
            biases.append(layer[1].detach().cpu().numpy().astype(np.float32).copy())
    return MlpPolicy(weights, biases, activation)


def resolve_checkpoint(name_or_path: str) -> Path:
    """A checkpoint path: an existing file, or a shipped name in :data:`PRETRAINED_DIR`."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    shipped = PRETRAINED_DIR / f"{name_or_path}.zip"
    if shipped.is_file():
        return shipped
    raise ValueError(
        f"no checkpoint {name_or_path!r}: not a file, and not a shipped name (shipped: {shipped_checkpoints()})"
    )


def shipped_checkpoints() -> list[str]:
    """Names of the checkpoints in :data:`PRETRAINED_DIR`."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob("*.zip"))


@lru_cache(maxsize=32)
def _load(path: str, mtime: float) -> tuple[MlpPolicy, dict[str, Any]]:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(path, device="cpu")
    return policy_from_sb3(model.policy), dict(getattr(model, "pirate_envs_meta", None) or {})


def load_checkpoint(name_or_path: str) -> tuple[MlpPolicy, dict[str, Any]]:
    """The numpy policy of a MaskablePPO checkpoint and its metadata (env id, env kwargs)."""
    path = resolve_checkpoint(name_or_path)
    return _load(str(path.resolve()), path.stat().st_mtime)


class PolicyAgent:
    """Acts with a :class:`MlpPolicy`: masked argmax (``deterministic``) or a masked sample."""

    #: The agent reads only the observation; callers may pass ``view=None``.
    uses_view = False

    def __init__(self, policy: MlpPolicy, name: str = "ppo", deterministic: bool = True, seed: int | None = None):
        self.policy = policy
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        rng = None if self.deterministic else self.rng
        return self.policy.act(observation["observation"], observation["action_mask"], rng)


def check_compatible(policy: MlpPolicy, meta: dict[str, Any], env_id: str, env: Any, source: str) -> None:
    """Raise ``ValueError`` when a checkpoint does not fit ``env_id`` / ``env``'s spaces."""
    trained_on = meta.get("env_id")
    if trained_on is not None and trained_on != env_id:
        raise ValueError(f"checkpoint {source!r} was trained on {trained_on}, not {env_id}")
    if env is None:
        return
    obs_size, num_actions = env.observation_layout.size, env.num_actions
    if (policy.obs_size, policy.num_actions) != (obs_size, num_actions):
        raise ValueError(
            f"checkpoint {source!r} expects observations of size {policy.obs_size} and {policy.num_actions} actions; "
            f"this env has {obs_size} and {num_actions} (trained with env kwargs {meta.get('env_kwargs', '?')})"
        )


#: Suffix of a ``ppo:`` source that makes the agent sample its masked softmax instead of argmax.
SAMPLE_SUFFIX = "#sample"


def make_policy_agent(source: str, env_id: str, seed: int | None = None, env: Any = None) -> PolicyAgent:
    """A :class:`PolicyAgent` from a checkpoint path or shipped name.

    Deterministic (masked argmax) by default; ``<source>#sample`` samples the masked softmax.
    Argmax picks the single likeliest action, which over a huge action table can differ from
    the likeliest kind of move (Piraten Kapern: ``stop`` against hundreds of re-rolls).
    """
    sample = source.endswith(SAMPLE_SUFFIX)
    path = source.removesuffix(SAMPLE_SUFFIX)
    policy, meta = load_checkpoint(path)
    check_compatible(policy, meta, env_id, None if env is None else env.unwrapped, path)
    return PolicyAgent(policy, name=f"ppo:{source}", deterministic=not sample, seed=seed)
