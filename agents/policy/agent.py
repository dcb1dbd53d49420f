"""Trained policies as agents: a small numpy MLP that acts from the observation and the mask.

An agent file is the data-only format of `agents.policy.checkpoint` (``.npz``: arrays and a JSON
header; loading it runs no code). A legacy MaskablePPO ``.zip`` is read without unpickling
(`read_sb3_zip`: ``policy.pth`` with ``weights_only=True`` and the plain JSON fields of
``data``) or refused. Either becomes `MlpPolicy`, a numpy copy of the actor, so an agent
acts without torch on the hot path and a snapshot pickles cheaply into env worker processes.
Shipped agents live in ``agents/pretrained/<name>.npz`` (package data) and load by name:
``make_agent("ppo:piraten_kapern_v0", ...)``; a shipped name wins over a file of that name in
the working folder, and anything else must look like a path (a ``/`` or a ``.npz``/``.zip`` end).
"""

from __future__ import annotations

import io
import itertools
import math
import os
import pickle
import re
import threading
import zipfile
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import checkpoint  # its caps are read at the call (a test may lower them)
from agents.policy.checkpoint import (
    VALUE_KINDS,
    CheckpointError,
    check_finite,
    check_members,
    input_index,
    layout_pieces,
    load_agent,
    make_header,
    make_value_target,
    open_zip,
    parse_json,
)
from agents.policy.mlp import ACTIVATIONS, MlpPolicy
from agents.spec import SAMPLE_SUFFIX
from pirate_envs.core.errors import one_line
from pirate_envs.core.observation import ObservationLayout

#: Where shipped agents live (``<name>.npz``).
PRETRAINED_DIR = Path(__file__).resolve().parent.parent / "pretrained"
#: File endings ``ppo:`` accepts: the data-only format and a legacy SB3 zip.
AGENT_SUFFIXES = (".npz", ".zip")


def _linear_to_numpy(weight: Any, bias: Any) -> tuple[np.ndarray, np.ndarray]:
    """A torch ``(out, in)`` linear layer as float32 numpy ``(in, out)`` weights and bias."""
    as_numpy = weight.detach().cpu().float().numpy().T, bias.detach().cpu().float().numpy()
    return as_numpy[0].astype(np.float32).copy(), as_numpy[1].astype(np.float32).copy()


def copy_into_torch(modules: Any, weights: list[np.ndarray], biases: list[np.ndarray]) -> None:
    """Copy numpy ``(in, out)`` weights and biases into the linear layers of a torch chain (any iterable
    of modules; the others are skipped); the layer counts must agree.

    A feature action head (`agents.ppo.action_head.FeatureActionHead`, the last layer) takes the whole
    layer in its per-action term, its feature term set to zero: the same logits, both terms free to learn.
    """
    import torch

    linears = []
    with torch.no_grad():
        for module in modules:
            if isinstance(module, torch.nn.Linear):
                linears.append(module)
            elif hasattr(module, "effective_linear"):
                module.to_features.weight.zero_()
                module.to_features.bias.zero_()
                linears.append(module.per_action)
        for layer, w, b in zip(linears, weights, biases, strict=True):
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(np.asarray(w, dtype=np.float32).T)))
            layer.bias.copy_(torch.from_numpy(np.asarray(b, dtype=np.float32)))


def plays(header: dict[str, Any], env_id: str) -> bool:
    """Whether the agent of ``header`` plays ``env_id``: trained on it or on an earlier version of the
    same game (``GameSpec.same_game_as``; it then reads its own pieces of the observation)."""
    import pirate_envs

    return pirate_envs.game_spec(env_id).plays_agents_of(header["env_id"])


def load_initial_policy(
    source: str, env_id: str, observation_pieces: list[list[Any]], num_actions: int
) -> tuple[MlpPolicy, dict[str, Any]]:
    """The network of the agent file ``source`` (a path or shipped name) to start a training from, checked to
    read ``env_id``'s observations of ``observation_pieces`` with ``num_actions`` plain outputs; ``ValueError``
    (one line, naming ``--init``) otherwise.

    A file trained before the observation gained pieces starts too: its pieces (by name, each of the
    same shape) keep their weights, and the first layers of its actor and critic get zero weights for
    every new input, so the network starts out playing exactly as the file's and learns to use them.
    """
    try:
        policy, header = load_agent(resolve_checkpoint(source))
    except ValueError as error:
        raise ValueError(f"--init {source!r}: {error}") from None
    if not plays(header, env_id):
        raise ValueError(f"--init {source!r}: an agent of {header['env_id']}, not of {env_id}")
    if policy.num_actions != num_actions:
        raise ValueError(f"--init {source!r}: trained on another action table than this run's ({num_actions} actions)")
    if policy.input_index is not None:
        raise ValueError(f"--init {source!r}: its network picks its inputs from another layout")
    layout = ObservationLayout([(name, tuple(shape)) for name, shape in observation_pieces])
    try:
        index = input_index(header, layout, f"--init {source!r}")  # None: the very layout
    except CheckpointError:
        raise ValueError(
            f"--init {source!r}: trained on another observation layout than this run's ({layout.size} inputs): "
            "a piece of its layout is missing here or has another shape"
        ) from None
    if index is not None:
        policy = widen_inputs(policy, index, layout.size)
    return policy, header


def widen_inputs(policy: MlpPolicy, index: np.ndarray, size: int) -> MlpPolicy:
    """``policy`` reading ``size`` inputs, its own at the positions ``index`` and zero weights for the others:
    the same outputs on every observation."""

    def widened(first: np.ndarray) -> np.ndarray:
        weights = np.zeros((size, first.shape[1]), dtype=first.dtype)
        weights[index] = first
        return weights

    value_weights = None
    if policy.value_weights is not None:
        value_weights = [widened(policy.value_weights[0]), *policy.value_weights[1:]]
    return MlpPolicy(
        [widened(policy.weights[0]), *policy.weights[1:]],
        policy.biases,
        policy.activation,
        None,
        value_weights,
        policy.value_biases,
    )


def policy_from_sb3(policy: Any, with_value: bool = False) -> MlpPolicy:
    """Copy the actor of an SB3 ``(Maskable)ActorCriticPolicy`` with a flat Box observation, and with
    ``with_value`` its critic too (``mlp_extractor.value_net`` and ``value_net``: the value head).

    A feature action head (``agents.ppo.action_head``) is exported as the one linear layer it equals.
    """
    extractors = [policy.pi_features_extractor] + ([policy.vf_features_extractor] if with_value else [])
    for extractor in (type(module).__name__ for module in extractors):
        if extractor != "FlattenExtractor":
            raise ValueError(f"only FlattenExtractor policies can be exported, got {extractor}")
    weights, biases, activation = _sb3_chain([*policy.mlp_extractor.policy_net, policy.action_net])
    if not with_value:
        return MlpPolicy(weights, biases, activation or "Identity")
    value_weights, value_biases, value_activation = _sb3_chain([*policy.mlp_extractor.value_net, policy.value_net])
    if activation and value_activation and activation != value_activation:
        raise ValueError(f"the actor's activation {activation} differs from the critic's {value_activation}")
    return MlpPolicy(weights, biases, activation or value_activation or "Identity", None, value_weights, value_biases)


def _sb3_chain(modules: list[Any]) -> tuple[list[np.ndarray], list[np.ndarray], str | None]:
    """The linear layers of a sequence of torch modules as numpy, and the name of its activation
    (``None``: none, a chain of one layer)."""
    import torch

    weights, biases, activation = [], [], None
    with torch.no_grad():
        for module in modules:
            if isinstance(module, torch.nn.Linear):
                layer = module.weight, module.bias
            elif hasattr(module, "effective_linear"):  # agents.ppo.action_head.FeatureActionHead
                layer = module.effective_linear()
            else:
                activation = type(module).__name__
                continue
            weight, bias = _linear_to_numpy(*layer)
            weights.append(weight)
            biases.append(bias)
    return weights, biases, activation


def read_sb3_zip(path: str | Path) -> tuple[MlpPolicy, dict[str, Any]]:
    """The actor (and critic) of a legacy MaskablePPO ``.zip`` and its plain facts, without unpickling anything.

    Reads ``policy.pth`` with ``torch.load(weights_only=True)`` and only the plain JSON fields of
    ``data`` (``pirate_envs_meta``, ``num_timesteps``, ``gamma``, ``policy_kwargs``' ``net_arch`` and
    ``activation_fn`` name); every ``:serialized:`` entry is ignored. A feature action head is
    folded into one linear layer with the game's feature matrix (a constant of the env). The
    critic (``mlp_extractor.value_net`` and ``value_net``), when the zip has one, becomes the
    policy's value head. The caps of the data-only format hold (declared sizes are checked before
    decompressing, the networks' sizes after), and every weight must be finite; each fault is a
    ``CheckpointError``. Returns the policy and ``{"env_id", "env_kwargs", "reward_mode",
    "timesteps", "gamma", "action_head"}``.
    """
    path = Path(path)
    try:
        import torch
    except ImportError as error:
        raise CheckpointError(
            f"{path}: reading an SB3 .zip needs torch; use a data-only {AGENT_SUFFIXES[0]}"
        ) from error
    with open_zip(path, "an SB3 checkpoint (.zip)") as archive:
        infos = archive.infolist()
        check_members(path, infos, math.inf)  # unique names; the caps apply to what is read
        members = {info.filename: info for info in infos}
        for name, cap in (("data", checkpoint.MAX_HEADER_BYTES), ("policy.pth", checkpoint.MAX_SB3_POLICY_BYTES)):
            if name not in members:
                raise CheckpointError(f"{path}: no {name!r} member; not an SB3 checkpoint")
            check_members(path, [members[name]], cap)
        data = parse_json(path, archive.read("data"), "its data")
        weights_file = archive.read("policy.pth")
    try:
        with zipfile.ZipFile(io.BytesIO(weights_file)) as inner:  # torch's format: a zip of plain records
            check_members(path, inner.infolist(), checkpoint.MAX_SB3_POLICY_BYTES)
    except zipfile.BadZipFile as error:
        raise CheckpointError(f"{path}: policy.pth is not torch's zip format ({one_line(error)})") from None
    try:
        state = torch.load(io.BytesIO(weights_file), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:  # torch's weights-only loader refuses anything but tensors
        match = re.search(r"WeightsUnpickler error: ([^.]*)", str(error))
        reason = match.group(1) if match else one_line(error)
        raise CheckpointError(f"{path}: policy.pth holds more than plain tensors ({reason})") from None
    except Exception as error:
        raise CheckpointError(f"{path}: policy.pth is not a readable state dict ({one_line(error)})") from None
    meta = data.get("pirate_envs_meta") if isinstance(data, dict) else None
    if (
        not isinstance(meta, dict)
        or not isinstance(meta.get("env_id"), str)
        or not isinstance(meta.get("env_kwargs"), dict)
    ):
        raise CheckpointError(
            f"{path}: no plain pirate_envs_meta (env id and options) in its data; cannot tell its env"
        )
    kwargs = data.get("policy_kwargs") if isinstance(data.get("policy_kwargs"), dict) else {}
    activation = "Tanh"  # SB3's default for actor-critic policies
    if "activation_fn" in kwargs:
        match = re.search(r"torch\.nn\.modules\.activation\.(\w+)'", str(kwargs["activation_fn"]))
        if match is None or match.group(1) not in ACTIVATIONS:
            activation_fn = one_line(repr(kwargs["activation_fn"]))
            raise CheckpointError(f"{path}: activation {activation_fn} is not one of {sorted(ACTIVATIONS)}")
        activation = match.group(1)
    tensors = _sb3_tensors(path, state)
    layers = _sb3_hidden(path, tensors, "mlp_extractor.policy_net")
    if "action_net.per_action.weight" not in tensors:
        layers.append(_linear_to_numpy(*_sb3_pair(path, tensors, "action_net")))
        action_head: dict[str, Any] = {"kind": "flat"}
    else:
        head_layer, action_head = _sb3_feature_head(path, tensors, meta)
        layers.append(head_layer)
    weights, biases = [w for w, _ in layers], [b for _, b in layers]
    _check_chain(path, weights, biases)
    check_finite(path, weights, biases)
    value_weights = value_biases = None
    if any(key.startswith(("value_net.", "mlp_extractor.value_net.")) for key in tensors):
        value_layers = _sb3_hidden(path, tensors, "mlp_extractor.value_net")
        value_layers.append(_linear_to_numpy(*_sb3_pair(path, tensors, "value_net")))
        value_weights, value_biases = [w for w, _ in value_layers], [b for _, b in value_layers]
        _check_chain(path, value_weights, value_biases, "critic", outputs=1)
        total = sum(array.size for array in [*weights, *biases, *value_weights, *value_biases])
        if total > checkpoint.MAX_PARAMETERS:
            raise CheckpointError(
                f"{path}: the actor and critic have {total} parameters, more than the cap of "
                f"{checkpoint.MAX_PARAMETERS}"
            )
        check_finite(path, value_weights, value_biases, "value layer")
    gamma = data.get("gamma")  # the discount the critic learned with; kept only when it is one
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0 < gamma <= 1:
        gamma = None
    facts = {
        "env_id": meta["env_id"],
        "env_kwargs": meta["env_kwargs"],
        "reward_mode": meta.get("reward_mode") if meta.get("reward_mode") in VALUE_KINDS else None,
        "timesteps": data.get("num_timesteps") if isinstance(data.get("num_timesteps"), int) else None,
        "gamma": None if gamma is None else float(gamma),
        "action_head": action_head,
    }
    return MlpPolicy(weights, biases, activation, None, value_weights, value_biases), facts


def _sb3_hidden(path: Path, tensors: dict[str, Any], net: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The hidden layers ``<net>.<i>`` of an SB3 state dict as numpy, in order."""
    hidden = sorted({int(k.split(".")[2]) for k in tensors if k.startswith(f"{net}.")})
    return [_linear_to_numpy(*_sb3_pair(path, tensors, f"{net}.{i}")) for i in hidden]


_SB3_PREFIXES = ("mlp_extractor.policy_net.", "mlp_extractor.value_net.", "action_net.", "value_net.")


def _sb3_tensors(path: Path, state: Any) -> dict[str, Any]:
    """The state dict of an SB3 policy, checked: plain float tensors under the plain-MLP names."""
    import torch

    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise CheckpointError(f"{path}: policy.pth is not a state dict of named tensors")
    unknown = sorted(k for k in state if not k.startswith(_SB3_PREFIXES))
    if unknown:
        raise CheckpointError(f"{path}: only plain MLP policies can be read; it has {unknown[:3]}")
    for key, tensor in state.items():
        if not isinstance(tensor, torch.Tensor) or tensor.layout != torch.strided or not tensor.is_floating_point():
            kind = f"{tensor.dtype} tensor" if isinstance(tensor, torch.Tensor) else type(tensor).__name__
            raise CheckpointError(f"{path}: policy.pth entry {key!r} is a {kind}, not a dense float tensor")
    _check_storage(path, state)
    hidden_keys = [k for k in state if k.startswith(("mlp_extractor.policy_net.", "mlp_extractor.value_net."))]
    if not all(re.fullmatch(r"mlp_extractor\.(policy|value)_net\.\d+\.(weight|bias)", k) for k in hidden_keys):
        raise CheckpointError(f"{path}: policy.pth names a hidden layer it cannot read ({sorted(hidden_keys)[:3]})")
    return state


def _check_storage(path: Path, state: dict[str, Any]) -> None:
    """Sizes from shapes and strides, before anything is copied: the tensors together hold at most
    `MAX_PARAMETERS` elements, and each one's elements are distinct stored numbers (no stride 0, no
    overlap) inside its storage, so a copy costs no more memory than the file holds."""
    total = sum(tensor.numel() for tensor in state.values())
    if total > checkpoint.MAX_PARAMETERS:
        raise CheckpointError(
            f"{path}: policy.pth's tensors have {total} elements, more than the cap of {checkpoint.MAX_PARAMETERS}"
        )
    for key, tensor in state.items():
        if tensor.numel() == 0:
            continue
        span = 1  # elements the tensor reaches in its storage, each dimension stepping past the smaller ones
        dimensions = sorted(((s, d) for s, d in zip(tensor.shape, tensor.stride()) if s > 1), key=lambda sd: sd[1])
        for size, stride in dimensions:
            if stride < span:
                raise CheckpointError(
                    f"{path}: policy.pth tensor {key!r} repeats stored numbers (shape {tuple(tensor.shape)}, strides "
                    f"{tuple(tensor.stride())}); a saved network stores each weight"
                )
            span = stride * (size - 1) + span
        stored = tensor.untyped_storage().nbytes() // tensor.element_size()
        if tensor.storage_offset() + span > stored:
            raise CheckpointError(f"{path}: policy.pth tensor {key!r} reaches past its storage")


def _sb3_pair(path: Path, tensors: dict[str, Any], prefix: str) -> tuple[Any, Any]:
    """The ``(weight, bias)`` tensors of the linear layer ``prefix``; both must be there, 2-D and 1-D."""
    for part, ndim in (("weight", 2), ("bias", 1)):
        if f"{prefix}.{part}" not in tensors:
            raise CheckpointError(f"{path}: policy.pth has no tensor {prefix}.{part}")
        if tensors[f"{prefix}.{part}"].ndim != ndim:
            shape = tuple(tensors[f"{prefix}.{part}"].shape)
            raise CheckpointError(f"{path}: policy.pth tensor {prefix}.{part} has shape {shape}, not {ndim}-D")
    return tensors[f"{prefix}.weight"], tensors[f"{prefix}.bias"]


def _sb3_feature_head(
    path: Path, tensors: dict[str, Any], meta: dict[str, Any]
) -> tuple[tuple[np.ndarray, np.ndarray], dict[str, Any]]:
    """The feature action head (``agents.ppo.action_head``) as one linear layer, and its header entry."""
    import torch

    import pirate_envs
    from agents.ppo.action_head import FeatureActionHead

    try:
        env = pirate_envs.make(meta["env_id"], raw=True, **meta["env_kwargs"])
    except (ValueError, TypeError) as error:
        raise CheckpointError(f"{path}: its env {meta['env_id']} cannot be made ({one_line(error)})") from None
    if env.action_features is None:
        raise CheckpointError(f"{path}: a feature action head, but {meta['env_id']} has no action features")
    per_action = _sb3_pair(path, tensors, "action_net.per_action")[0]
    _sb3_pair(path, tensors, "action_net.to_features")
    head = FeatureActionHead(per_action.shape[1], env.action_features.matrix)
    head_state = {k.removeprefix("action_net."): v for k, v in tensors.items() if k.startswith("action_net.")}
    try:
        head.load_state_dict(head_state)
    except RuntimeError as error:
        reason = one_line(error)
        raise CheckpointError(f"{path}: its feature action head does not fit {meta['env_id']} ({reason})") from None
    with torch.no_grad():
        layer = _linear_to_numpy(*head.effective_linear())
    return layer, {"kind": "features", "num_features": int(env.action_features.matrix.shape[1])}


def _check_chain(
    path: Path,
    weights: list[np.ndarray],
    biases: list[np.ndarray],
    network: str = "actor",
    outputs: int | None = None,
) -> None:
    """The layers of ``network`` must chain (each one's outputs the next one's inputs; the last gives
    ``outputs``, where given) within the format's caps."""
    if len(weights) > checkpoint.MAX_LAYERS:
        raise CheckpointError(
            f"{path}: the {network} has {len(weights)} layers, more than the cap of {checkpoint.MAX_LAYERS}"
        )
    shapes = [(w.shape, b.shape) for w, b in zip(weights, biases)]
    chained = all(w[1] == b[0] for w, b in shapes) and all(a[0][1] == z[0][0] for a, z in itertools.pairwise(shapes))
    if not chained or (outputs is not None and shapes[-1][0][1] != outputs):
        end = f" to {outputs} output" * (outputs is not None)
        raise CheckpointError(f"{path}: the {network}'s layers do not chain{end}: {[w for w, _ in shapes]}")
    parameters = sum(w.size + b.size for w, b in zip(weights, biases))
    if parameters > checkpoint.MAX_PARAMETERS:
        raise CheckpointError(
            f"{path}: the {network} has {parameters} parameters, more than the cap of {checkpoint.MAX_PARAMETERS}"
        )


def sb3_zip_header(path: str | Path, layout: list[list[Any]] | None = None, **training: Any) -> tuple[MlpPolicy, dict]:
    """A legacy SB3 zip as a policy and a data-only header (``layout``: the env's today by default).

    Its critic becomes the value head when the zip names its reward mode (else it is left out)."""
    import pirate_envs

    policy, facts = read_sb3_zip(path)
    try:
        env = pirate_envs.make(facts["env_id"], raw=True, **facts["env_kwargs"])
        target = make_value_target(facts["reward_mode"], env.SCORE_SCALE, facts["gamma"])
        if target is None:  # a critic of an unknown reward mode: what it estimates cannot be told
            policy = policy.without_value()
        header = make_header(
            facts["env_id"],
            facts["env_kwargs"],
            layout if layout is not None else layout_pieces(env.observation_layout),
            policy.num_actions,
            policy,
            action_head=facts["action_head"],
            player_counts=[len(env.possible_agents)],
            reward_mode=facts["reward_mode"],
            training={"timesteps": facts["timesteps"], **training},
            value_target=target if policy.has_value else None,
        )
    except (ValueError, TypeError) as error:  # its env cannot be made, or the network does not fit it
        raise CheckpointError(f"{path}: does not fit its env {facts['env_id']} ({one_line(error)})") from None
    return policy, header


def shipped_checkpoints() -> list[str]:
    """Names of the agents shipped in `PRETRAINED_DIR`."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob(f"*{AGENT_SUFFIXES[0]}"))


def looks_like_path(source: str) -> bool:
    """Whether ``source`` names a file: it holds a path separator or ends in an agent suffix."""
    return "/" in source or os.sep in source or source.endswith(AGENT_SUFFIXES)


def resolve_checkpoint(name_or_path: str) -> Path:
    """The file of a shipped name (looked up first) or of a path; a bare unknown name is an error."""
    shipped = PRETRAINED_DIR / f"{name_or_path}{AGENT_SUFFIXES[0]}"
    if name_or_path in shipped_checkpoints():
        return shipped
    if not looks_like_path(name_or_path):
        raise ValueError(
            f"no shipped agent {name_or_path!r} (shipped: {shipped_checkpoints()}); a checkpoint path must "
            f"contain a '/' or end in {' or '.join(AGENT_SUFFIXES)}"
        )
    path = Path(name_or_path)
    if not path.is_file():
        raise ValueError(f"no checkpoint file {name_or_path!r}")
    return path


@lru_cache(maxsize=32)
def _load(path: str, mtime_ns: int, size: int) -> tuple[MlpPolicy, dict[str, Any]]:
    if path.endswith(".zip"):
        return sb3_zip_header(path)
    return load_agent(path)


#: How many refused files `load_checkpoint` remembers (the oldest is forgotten first).
REFUSED_CACHE_SIZE = 64
_refused: OrderedDict[tuple[str, int, int], str] = OrderedDict()
_refused_lock = threading.Lock()


def load_checkpoint(name_or_path: str) -> tuple[MlpPolicy, dict[str, Any]]:
    """The numpy policy of an agent file (or a legacy SB3 zip) and its header; runs no code from it.

    Loads are remembered by path, modification time and size: a file read before is not read again,
    and a file refused before (`CheckpointError`) is refused again at once with the same message,
    until it changes; so a server that lists a folder of agent files pays for a bad one once.
    """
    path = resolve_checkpoint(name_or_path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _refused_lock:
        if key in _refused:
            _refused.move_to_end(key)
            raise CheckpointError(_refused[key])
    try:
        return _load(*key)
    except CheckpointError as error:
        with _refused_lock:
            _refused[key] = str(error)
            while len(_refused) > REFUSED_CACHE_SIZE:
                _refused.popitem(last=False)
        raise


class PolicyAgent:
    """Acts with a `MlpPolicy`: masked argmax (``deterministic``) or a masked sample.

    ``tables``, when given (an agent built without an env), picks the policy for each
    observation size it is shown: the agent plays whichever of its tables it is seated at.
    """

    #: The agent reads only the observation; callers may pass ``view=None``.
    uses_view = False

    def __init__(
        self,
        policy: MlpPolicy,
        name: str = "ppo",
        deterministic: bool = True,
        seed: int | None = None,
        tables: TableFit | None = None,
    ):
        self.policy = policy
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.tables = tables

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        rng = None if self.deterministic else self.rng
        obs = observation["observation"]
        return self.policy_for(obs).act(obs, observation["action_mask"], rng)

    def policy_for(self, observations: np.ndarray) -> MlpPolicy:
        """The policy that reads ``observations`` (one vector or a batch of one table's rows)."""
        return self.policy if self.tables is None else self.tables.policy_for(observations)

    def value(self, observations: np.ndarray) -> np.ndarray:
        """The value head's estimate of each observation: float32 ``(N,)`` for ``(N, D)`` (``()`` for one).

        What it estimates is the agent file's ``value_target``; ``ValueError`` (one line) when
        the file has no value head.
        """
        return self._valued(observations).value(observations)

    def logits_and_value(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The action logits and the value of ``observations`` in one call (for search)."""
        return self._valued(observations).logits_and_value(observations)

    def _valued(self, observations: np.ndarray) -> MlpPolicy:
        policy = self.policy_for(observations)
        policy.require_value(self.name)
        return policy


class TableFit:
    """The tables an agent file plays, told apart by the observation (for an agent built without an env).

    The candidates are the agent's own env options with every ``table_layout``
    (``pirate_envs``' default ``"seated"`` and ``"max"``) at every player count in its header.
    The policy reading an observation of each size is found on the first observation of that
    size and kept; a ``"max"`` observation (one size for every table) must also show a player
    count the agent plays in its ``seat_present`` flags. A size that fits none of the tables,
    tables the agent would read differently, or a count it does not play is a one-line
    ``ValueError`` asking for the env.
    """

    def __init__(self, policy: MlpPolicy, header: dict[str, Any], source: str, env_id: str):
        self.policy = policy.with_inputs(None)
        self.header = header
        self.source = source
        #: The env it plays: its header's, or a later version of the same game (``GameSpec.same_game_as``).
        self.env_id = env_id
        #: Observation size -> the policy reading it, and the slice of its ``seat_present`` flags (if any).
        self.by_size: dict[int, tuple[MlpPolicy, slice | None]] = {}

    def add(self, layout: Any, policy: MlpPolicy) -> None:
        """Read observations of ``layout`` (an ``ObservationLayout``) with ``policy``."""
        from pirate_envs.core.observation import SEAT_PRESENT

        has_flags = SEAT_PRESENT in layout
        self.by_size[layout.size] = policy, layout[SEAT_PRESENT] if has_flags else None

    def candidates(self) -> list[dict[str, Any]]:
        """The env options of every table the agent plays (its own options, each layout and count)."""
        from pirate_envs.core.observation import TABLE_LAYOUTS

        own = self.header["env_kwargs"]
        layouts = dict.fromkeys([own.get("table_layout", TABLE_LAYOUTS[0]), *TABLE_LAYOUTS])
        return [
            {**own, "table_layout": layout, "num_players": players}
            for layout in layouts
            for players in self.header["player_counts"]
        ]

    def policy_for(self, observation: np.ndarray) -> MlpPolicy:
        """The policy reading ``observation`` (an observation vector, or a batch of them; found once per size)."""
        size = observation.shape[-1]
        if size not in self.by_size:
            self._fit(size)
        policy, seats = self.by_size[size]
        if seats is not None:
            players = np.asarray(observation)[..., seats].sum(axis=-1).astype(np.int64)  # per row
            unplayed = [int(n) for n in np.unique(players) if n not in self.header["player_counts"]]
            if unplayed:
                raise ValueError(
                    f"{self._plays()}: this observation is of a {unplayed[0]}-player table; pass env= to make_agent"
                )
        return policy

    def _plays(self) -> str:
        counts = "/".join(map(str, self.header["player_counts"]))
        return f"ppo:{self.source} plays {self.env_id} at {counts} players"

    def _fit(self, size: int) -> None:
        import pirate_envs

        env_id = self.env_id
        fits: list[tuple[np.ndarray | None, Any, str]] = []  # each distinct way to read the size
        for options in self.candidates():
            try:
                env = pirate_envs.make(env_id, raw=True, **options)
                if env.observation_layout.size != size:
                    continue
                index = check_compatible(self.header, env_id, env, self.source)
            except (ValueError, TypeError):
                continue
            if not any(_same_index(index, other) for other, _, _ in fits):
                table = f"{options['num_players']} players, table_layout={options['table_layout']!r}"
                fits.append((index, env.observation_layout, table))
        plays = f"{self._plays()} with env options {self.header['env_kwargs']}"
        if not fits:
            raise ValueError(
                f"{plays}: an observation of {size} numbers fits none of these tables (seated or max layout); "
                "pass env= to make_agent"
            )
        if len(fits) > 1:
            tables = "; ".join(table for _, _, table in fits)
            raise ValueError(
                f"{plays}: an observation of {size} numbers fits tables it reads differently ({tables}); "
                "pass env= to make_agent"
            )
        index, layout, _ = fits[0]
        self.add(layout, self.policy.with_inputs(index))


def _same_index(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Whether two input indices read the observation alike (``None``: all of it, in order)."""
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def check_compatible(header: dict[str, Any], env_id: str, env: Any, source: str) -> np.ndarray | None:
    """The input index of an agent on ``env`` (see `agents.policy.checkpoint.input_index`).

    Raises ``ValueError`` (one line naming what fits) when the agent was trained on another
    game, for other player counts, another action table or an observation without its pieces.
    """
    if not plays(header, env_id):
        raise ValueError(f"checkpoint {source!r} was trained on {header['env_id']}, not {env_id}")
    players = len(env.possible_agents)
    if players not in header["player_counts"]:
        counts = " or ".join(str(n) for n in header["player_counts"])
        raise ValueError(f"checkpoint {source!r} plays {counts} players, not {players}")
    if env.num_actions != header["num_actions"]:
        raise ValueError(
            f"checkpoint {source!r} has {header['num_actions']} actions; this env has {env.num_actions} "
            f"(trained with env options {header['env_kwargs']})"
        )
    return input_index(header, env.observation_layout, f"checkpoint {source!r}", players)


def make_policy_agent(source: str, env_id: str, seed: int | None = None, env: Any = None) -> PolicyAgent:
    """A `PolicyAgent` from a checkpoint path or shipped name.

    Deterministic (masked argmax) by default; ``<source>#sample`` samples the masked softmax.
    With ``env``, the agent is checked against and built for that table. Without it, the agent
    plays every table its header names (each player count, with ``table_layout`` ``"seated"``,
    the default, or ``"max"``; its other env options as trained): it reads each observation
    by its size (`TableFit`), so one agent serves ``pirate_envs.make(env_id, num_players=k)``
    for every ``k`` it plays; an observation of a table it does not play is a one-line ``ValueError``.
    Argmax picks the single likeliest action, which over a huge action table can differ from
    the likeliest kind of move (Piraten Kapern: ``stop`` against hundreds of re-rolls).
    """
    sample = source.endswith(SAMPLE_SUFFIX)
    path = source.removesuffix(SAMPLE_SUFFIX)
    policy, header = load_checkpoint(path)
    tables = None
    if env is None:
        import pirate_envs

        if not plays(header, env_id):
            raise ValueError(f"checkpoint {path!r} was trained on {header['env_id']}, not {env_id}")
        # its own env options (table_layout included) at its first table size; the others when shown
        options = {"num_players": header["player_counts"][0], **header["env_kwargs"]}
        try:
            env = pirate_envs.make(env_id, raw=True, **options)
        except (ValueError, TypeError) as error:
            raise CheckpointError(f"checkpoint {path!r}: its env options {options} fail ({one_line(error)})") from None
        tables = TableFit(policy, header, path, env_id)
    index = check_compatible(header, env_id, env.unwrapped, path)
    agent = PolicyAgent(policy.with_inputs(index), name=f"ppo:{source}", deterministic=not sample, seed=seed)
    if tables is not None:
        tables.add(env.unwrapped.observation_layout, agent.policy)
        agent.tables = tables
    return agent
