"""The data-only agent format: one ``.npz`` file whose loading never runs code.

`save_agent` writes and `load_agent` reads a trained agent: a JSON header and the float32 layers
of its policy (and value) network, every field and shape checked before anything is decompressed;
any fault is a `CheckpointError` (a one-line ``ValueError`` naming the file). The members, the
header's fields, how an agent plays another table layout and the loading checks are in
``docs/guides/agent_file.md``.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy.mlp import ACTIVATIONS, ONE_INPUT, ZERO_INPUT, MlpPolicy
from pirate_envs.core.errors import one_line
from pirate_envs.core.files import write_atomic

FORMAT = "pirate_envs.agent"
VERSION = 2
#: The versions `load_agent` reads (version 1: no value fields, no value head).
READABLE_VERSIONS = (1, 2)
#: The file extension of the data-only format.
SUFFIX = ".npz"
_ACTION_HEADS = ("flat", "features")
_HEADER_FIELDS_V1 = (
    "format", "version", "env_id", "env_kwargs", "observation_size", "observation_layout", "num_actions",
    "layer_sizes", "activation", "action_head", "player_counts", "reward_mode", "training",
)  # fmt: skip
_HEADER_FIELDS = {1: _HEADER_FIELDS_V1, 2: (*_HEADER_FIELDS_V1, "value_layer_sizes", "value_target")}
_TRAINING_FIELDS = ("command", "timesteps", "figures")
#: The kinds of ``value_target``, by the reward mode the value was trained on.
VALUE_KINDS = {"win": "win_share", "score": "score", "margin": "score_margin"}
_VALUE_TARGET_FIELDS = ("kind", "scale", "gamma")

# Caps on what an agent file may hold, checked before anything is decompressed or allocated. The
# largest shipped agent holds 0.62M parameters (2.5 MB); on the largest observation (610 inputs,
# Skull King) and action table (2,084, Piraten Kapern) even three hidden layers of 2,048 make 14M.
#: Parameters (weights and biases) of the networks (policy and value together): 32M, 128 MiB of float32.
MAX_PARAMETERS = 2**25
#: Linear layers of each network (the action head, or the value output, included).
MAX_LAYERS = 32
#: Bytes of the JSON header (the shipped ones: about 2 KB); also of an SB3 zip's ``data``.
MAX_HEADER_BYTES = 2**20
#: Nesting depth of the JSON header (the shipped ones: 3).
MAX_HEADER_DEPTH = 32
#: Bytes of an ``.npz`` agent file, and of its members together once decompressed: the weights,
#: the header and a MiB for the members' ``.npy`` headers.
MAX_AGENT_BYTES = 4 * MAX_PARAMETERS + MAX_HEADER_BYTES + 2**20
#: Bytes of an SB3 zip's ``policy.pth`` decompressed: it holds a value network beside the actor.
MAX_SB3_POLICY_BYTES = 2 * MAX_AGENT_BYTES


class CheckpointError(ValueError):
    """An agent file that cannot be read, or does not fit where it is used (one line: file and fault)."""


@contextlib.contextmanager
def open_zip(path: Path, what: str, max_bytes: int | None = None) -> Iterator[zipfile.ZipFile]:
    """``path`` as a zip archive; a fault of the file, there or while its members are read, is a
    `CheckpointError` naming the file (``what``: what it should be, for the message)."""
    try:
        size = path.stat().st_size
    except OSError as error:
        raise CheckpointError(f"{path}: cannot be read ({one_line(error)})") from None
    if size == 0:
        raise CheckpointError(f"{path}: the file is empty, not {what}")
    if max_bytes is not None and size > max_bytes:
        raise CheckpointError(f"{path}: the file has {size} bytes, more than {what} may ({max_bytes})")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        raise CheckpointError(f"{path}: not {what}: not a zip archive, or one cut short ({one_line(error)})") from None
    try:
        with archive:
            yield archive
    # NotImplementedError: a member's flags ask for a zip feature zipfile lacks (e.g. a damaged local header)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as error:
        raise CheckpointError(f"{path}: a damaged zip archive ({one_line(error)})") from None


def check_members(path: Path, infos: list[zipfile.ZipInfo], max_bytes: float) -> None:
    """Check zip members from the archive's directory alone: unique names, plain or deflated
    compression, no encryption, and at most ``max_bytes`` decompressed together."""
    names = [info.filename for info in infos]
    if len(set(names)) != len(names):
        raise CheckpointError(f"{path}: the archive repeats a member name ({sorted(names)})")
    for info in infos:
        if info.flag_bits & 0x1:
            raise CheckpointError(f"{path}: member {info.filename!r} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise CheckpointError(f"{path}: member {info.filename!r} uses compression {info.compress_type}")
    total = sum(info.file_size for info in infos)
    if total > max_bytes:
        raise CheckpointError(
            f"{path}: its members would decompress to {total} bytes, more than the cap of {max_bytes}"
        )


def parse_json(path: Path, text: bytes, what: str) -> Any:
    """``text`` as JSON nested at most `MAX_HEADER_DEPTH` deep (``what``: its name in errors)."""
    try:
        value = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"{path}: {what} is not JSON ({one_line(error)})") from None
    except RecursionError:
        value = None
        depth = math.inf
    else:
        depth = _json_depth(value)
    if depth > MAX_HEADER_DEPTH:
        raise CheckpointError(f"{path}: {what} nests deeper than {MAX_HEADER_DEPTH} levels")
    return value


def _json_depth(value: Any) -> int:
    """The nesting depth of a parsed JSON value (a scalar: 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def layout_pieces(layout: Any) -> list[list[Any]]:
    """``[[name, [shape...]], ...]`` of an ``ObservationLayout``."""
    return [[p.name, [int(s) for s in p.shape]] for p in layout.pieces]


def header_env_kwargs(player_counts: list[int], options: dict[str, Any]) -> dict[str, Any]:
    """An agent file's ``env_kwargs``: the env ``options``, with ``num_players`` for an agent of one table size."""
    return {"num_players": player_counts[0], **options} if len(player_counts) == 1 else dict(options)


def make_header(
    env_id: str,
    env_kwargs: dict[str, Any],
    layout: list[list[Any]],
    num_actions: int,
    policy: MlpPolicy,
    *,
    action_head: dict[str, Any] | None = None,
    player_counts: list[int] | None = None,
    reward_mode: str | None = None,
    training: dict[str, Any] | None = None,
    value_target: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A complete header for ``policy`` (checked by `validate_header`).

    ``value_target`` (see `make_value_target`) is required when ``policy`` has a value head, and
    must be ``None`` when it has none.
    """
    training = {"command": None, "timesteps": None, "figures": {}, **(training or {})}
    counts = player_counts if player_counts is not None else [env_kwargs.get("num_players")]
    header = {
        "format": FORMAT,
        "version": VERSION,
        "env_id": env_id,
        "env_kwargs": dict(env_kwargs),
        "observation_size": sum(math.prod(shape) for _, shape in layout),
        "observation_layout": [[name, list(shape)] for name, shape in layout],
        "num_actions": int(num_actions),
        "layer_sizes": chain_sizes(policy.weights),
        "activation": policy.activation,
        "action_head": dict(action_head or {"kind": "flat"}),
        "player_counts": counts,
        "reward_mode": reward_mode,
        "training": training,
        "value_layer_sizes": None if policy.value_weights is None else chain_sizes(policy.value_weights),
        "value_target": None if value_target is None else dict(value_target),
    }
    validate_header(header)
    return header


def chain_sizes(weights: list[np.ndarray]) -> list[int]:
    """``[in, out of each layer...]`` of a chain of ``(in, out)`` weights."""
    return [int(weights[0].shape[0])] + [int(w.shape[1]) for w in weights]


def make_value_target(reward_mode: str | None, score_scale: float, gamma: float | None) -> dict[str, Any] | None:
    """The ``value_target`` of a value trained on ``reward_mode`` (``None`` when it is unknown) with the
    env's ``SCORE_SCALE`` and the discount ``gamma``."""
    if reward_mode not in VALUE_KINDS:
        return None
    scale = 1.0 if reward_mode == "win" else float(score_scale)
    return {"kind": VALUE_KINDS[reward_mode], "scale": scale, "gamma": None if gamma is None else float(gamma)}


def _require(header: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in header:
        raise CheckpointError(f"header has no {key!r} ({what})")
    value = header[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise CheckpointError(f"header field {key!r} must be {what}, got {value!r}")
    return value


def _positive_ints(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)


def validate_header(header: Any) -> None:
    """Raise `CheckpointError` naming the first field that is missing or malformed."""
    if not isinstance(header, dict):
        raise CheckpointError(f"the header must be a JSON object, got {type(header).__name__}")
    if header.get("format") != FORMAT:
        raise CheckpointError(f"not a {FORMAT} file (format {header.get('format')!r})")
    version = header.get("version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise CheckpointError(f"format version {version!r} is not supported (this code reads {readable})")
    fields = _HEADER_FIELDS[version]
    unknown = [key for key in header if key not in fields]
    if unknown:
        raise CheckpointError(f"header has unknown fields {unknown} (version {version} has {list(fields)})")
    _require(header, "env_id", str, "an env id")
    _require(header, "env_kwargs", dict, "a JSON object of env options")
    size = _require(header, "observation_size", int, "a positive integer")
    layout = _require(header, "observation_layout", list, "a list of [name, shape]")
    for entry in layout:
        ok = isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str) and _positive_ints(entry[1])
        if not ok:
            raise CheckpointError(f"observation_layout entries must be [name, [positive sizes]], got {entry!r}")
    names = [name for name, _ in layout]
    if len(set(names)) != len(names):
        raise CheckpointError(f"observation_layout repeats a piece name: {names}")
    if sum(math.prod(shape) for _, shape in layout) != size:
        raise CheckpointError(f"observation_layout adds up to {sum(math.prod(s) for _, s in layout)}, not {size}")
    actions = _require(header, "num_actions", int, "a positive integer")
    sizes = _require(header, "layer_sizes", list, "a list of positive integers")
    if not _positive_ints(sizes) or len(sizes) < 2 or sizes[0] != size or sizes[-1] != actions:
        raise CheckpointError(
            f"layer_sizes must run from observation_size {size} to num_actions {actions}, got {sizes!r}"
        )
    if len(sizes) - 1 > MAX_LAYERS:
        raise CheckpointError(f"layer_sizes has {len(sizes) - 1} layers, more than the cap of {MAX_LAYERS}")
    value_sizes = _validate_value(header, size) if version >= 2 else None
    parameters = _parameters(sizes) + (_parameters(value_sizes) if value_sizes else 0)
    if parameters > MAX_PARAMETERS:
        networks = f"layer_sizes {sizes}" + (f" and value_layer_sizes {value_sizes}" if value_sizes else "")
        raise CheckpointError(f"{networks} make {parameters} parameters, above the cap of {MAX_PARAMETERS}")
    activation = _require(header, "activation", str, "an activation name")
    if activation not in ACTIVATIONS:
        raise CheckpointError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
    head = _require(header, "action_head", dict, 'an object such as {"kind": "flat"}')
    if head.get("kind") not in _ACTION_HEADS:
        raise CheckpointError(f"action_head kind must be one of {list(_ACTION_HEADS)}, got {head.get('kind')!r}")
    features = [head["num_features"]] if "num_features" in head else []
    fields = {"kind", "num_features"} if head["kind"] == "features" else {"kind"}
    if set(head) != fields or not _positive_ints(features):
        shapes = '{"kind": "flat"} or {"kind": "features", "num_features": k}'
        raise CheckpointError(f"action_head must be {shapes}, got {head!r}")
    counts = _require(header, "player_counts", list, "a list of player counts")
    if not counts or not _positive_ints(counts):
        raise CheckpointError(f"player_counts must be a non-empty list of positive integers, got {counts!r}")
    if header.get("reward_mode") not in (None, *VALUE_KINDS):
        modes = ", ".join(VALUE_KINDS)
        raise CheckpointError(f"reward_mode must be one of {modes} or null, got {header.get('reward_mode')!r}")
    training = _require(header, "training", dict, "an object with command, timesteps and figures")
    timesteps = training.get("timesteps")
    if (
        training.keys() != set(_TRAINING_FIELDS)
        or not isinstance(training["command"], (str, type(None)))
        or not (timesteps is None or (isinstance(timesteps, int) and not isinstance(timesteps, bool)))
        or not isinstance(training["figures"], dict)
    ):
        raise CheckpointError(
            "training must hold exactly a command (string or null), timesteps (integer or null) and figures "
            f"(object), got {one_line(training)}"
        )


def _parameters(sizes: list[int]) -> int:
    """Weights and biases of a chain of layers of ``sizes``."""
    return sum((n_in + 1) * n_out for n_in, n_out in itertools.pairwise(sizes))


def _validate_value(header: dict[str, Any], observation_size: int) -> list[int] | None:
    """The checked ``value_layer_sizes`` of a version-2 header (``None``: no value head) and its ``value_target``."""
    for key in ("value_layer_sizes", "value_target"):
        if key not in header:
            raise CheckpointError(f"header has no {key!r} (null when the file has no value head)")
    sizes, target = header["value_layer_sizes"], header["value_target"]
    if sizes is None or target is None:
        if sizes is not None or target is not None:
            raise CheckpointError(
                f"value_layer_sizes and value_target must both be null or both be set, got {sizes!r} and "
                f"{one_line(target)}"
            )
        return None
    if not _positive_ints(sizes) or len(sizes) < 2 or sizes[0] != observation_size or sizes[-1] != 1:
        raise CheckpointError(
            f"value_layer_sizes must run from observation_size {observation_size} to 1, got {one_line(sizes)}"
        )
    if len(sizes) - 1 > MAX_LAYERS:
        raise CheckpointError(f"value_layer_sizes has {len(sizes) - 1} layers, more than the cap of {MAX_LAYERS}")
    gamma = target.get("gamma") if isinstance(target, dict) else None
    scale = target.get("scale") if isinstance(target, dict) else None
    if (
        not isinstance(target, dict)
        or tuple(sorted(target)) != tuple(sorted(_VALUE_TARGET_FIELDS))
        or target["kind"] not in VALUE_KINDS.values()
        or not _finite_number(scale)
        or scale <= 0
        or not (gamma is None or (_finite_number(gamma) and 0 < gamma <= 1))
    ):
        kinds = " or ".join(f'"{kind}"' for kind in VALUE_KINDS.values())
        raise CheckpointError(
            f'value_target must be {{"kind": {kinds}, "scale": a positive number, "gamma": a number in (0, 1] '
            f"or null}}, got {one_line(target)}"
        )
    return sizes


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def save_agent(path: str | Path, policy: MlpPolicy, header: dict[str, Any]) -> Path:
    """Write ``policy`` with ``header`` to ``path`` (atomically); the header is checked first."""
    validate_header(header)
    sizes = chain_sizes(policy.weights)
    if sizes != header["layer_sizes"] or policy.activation != header["activation"]:
        raise CheckpointError(
            f"the policy ({sizes}, {policy.activation}) does not match the header "
            f"({header['layer_sizes']}, {header['activation']})"
        )
    value_sizes = None if policy.value_weights is None else chain_sizes(policy.value_weights)
    if value_sizes != header.get("value_layer_sizes"):
        raise CheckpointError(
            f"the policy's value network ({value_sizes}) does not match the header's value_layer_sizes "
            f"({header.get('value_layer_sizes')})"
        )
    arrays: dict[str, np.ndarray] = {"header": np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)}
    networks = [("", policy.weights, policy.biases)]
    if policy.value_weights is not None and policy.value_biases is not None:
        networks.append((VALUE_PREFIX, policy.value_weights, policy.value_biases))
    for prefix, weights, biases in networks:
        for i, (w, b) in enumerate(zip(weights, biases)):
            arrays[f"{prefix}w{i}"] = np.asarray(w, dtype=np.float32)
            arrays[f"{prefix}b{i}"] = np.asarray(b, dtype=np.float32)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return write_atomic(path, buffer.getvalue())


#: The prefix of the value network's array names (``vw0``, ``vb0``, ...).
VALUE_PREFIX = "v"


def load_agent(path: str | Path) -> tuple[MlpPolicy, dict[str, Any]]:
    """The policy (with its value head, if the file has one) and header of a data-only agent file;
    no code runs, nothing is unpickled.

    Member names, declared sizes and ``.npy`` headers are checked (against the caps and the JSON
    header's ``layer_sizes`` and ``value_layer_sizes``) before any weight is decompressed; every
    fault is a `CheckpointError` of one line naming the file.
    """
    path = Path(path)
    with open_zip(path, f"a {SUFFIX} agent file", MAX_AGENT_BYTES) as archive:
        infos = archive.infolist()
        if len(infos) > 4 * MAX_LAYERS + 1:
            raise CheckpointError(
                f"{path}: the archive has {len(infos)} members, more than two networks of {MAX_LAYERS} layers need"
            )
        for info in infos:
            if not info.filename.endswith(".npy"):
                raise CheckpointError(f"{path}: member {info.filename!r} is not a .npy array (raw bytes)")
        check_members(path, infos, MAX_AGENT_BYTES)
        members = {info.filename.removesuffix(".npy"): info for info in infos}
        if "header" not in members:
            raise CheckpointError(f"{path}: no JSON header (a uint8 array named 'header')")
        text = _read_npy(path, archive, members.pop("header"), np.dtype(np.uint8), None)
        header = parse_json(path, text.tobytes(), "the header")
        try:
            validate_header(header)
        except CheckpointError as error:
            raise CheckpointError(f"{path}: {one_line(error)}") from None
        networks = [("", "layer_sizes", header["layer_sizes"])]
        if header.get("value_layer_sizes"):
            networks.append((VALUE_PREFIX, "value_layer_sizes", header["value_layer_sizes"]))
        expected = [f"{p}{kind}{i}" for p, _, chain in networks for i in range(len(chain) - 1) for kind in "wb"]
        if set(members) != set(expected):
            missing, extra = sorted(set(expected) - set(members)), sorted(set(members) - set(expected))
            described = " and ".join(f"{field} {chain}" for _, field, chain in networks)
            raise CheckpointError(
                f"{path}: arrays {sorted(members)} do not match {described} (missing {missing}, extra {extra})"
            )
        read: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {}
        for prefix, field, chain in networks:
            weights, biases = [], []
            for i, (n_in, n_out) in enumerate(itertools.pairwise(chain)):
                weight, bias = members[f"{prefix}w{i}"], members[f"{prefix}b{i}"]
                weights.append(_read_npy(path, archive, weight, np.dtype(np.float32), (n_in, n_out), field))
                biases.append(_read_npy(path, archive, bias, np.dtype(np.float32), (n_out,), field))
            read[prefix] = weights, biases
    weights, biases = read[""]
    check_finite(path, weights, biases)
    value_weights, value_biases = read.get(VALUE_PREFIX, (None, None))
    if value_weights is not None and value_biases is not None:
        check_finite(path, value_weights, value_biases, "value layer")
    return MlpPolicy(weights, biases, header["activation"], None, value_weights, value_biases), header


def read_npz(path: str | Path, what: str, max_bytes: int) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` file ``path`` (``what`` it should be, for messages), without pickle:
    the members' declared sizes together at most ``max_bytes``, each ``.npy`` header read and checked
    against its member's size before its data is read, so nothing larger than declared is allocated.
    Any fault (a crafted header included) is a `CheckpointError` of one line naming the file."""
    path = Path(path)
    with open_zip(path, what, max_bytes) as archive:
        infos = archive.infolist()
        check_members(path, infos, max_bytes)
        arrays = {}
        for info in infos:
            if not info.filename.endswith(".npy"):
                raise CheckpointError(f"{path}: member {info.filename!r} is not a .npy array; not {what}")
            arrays[info.filename.removesuffix(".npy")] = _read_npy(path, archive, info, None, None)
    return arrays


def _read_npy(
    path: Path,
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    dtype: np.dtype | None,
    shape: tuple[int, ...] | None,
    field: str = "layer_sizes",
) -> np.ndarray:
    """The array of one ``.npy`` member, of ``dtype`` and ``shape`` (``shape`` ``None``: one dimension
    of at most `MAX_HEADER_BYTES`; ``dtype`` ``None``: any plain dtype and shape, its size what the
    member declares; ``field``: the header field that sets the shape, for the message); its ``.npy``
    header is read and checked before its data."""
    name = info.filename
    with archive.open(info) as stream:
        try:
            version = np.lib.format.read_magic(stream)
            if version not in _NPY_HEADER_READERS:
                raise ValueError(f".npy format version {version} (this code reads 1.0 and 2.0)")
            found_shape, fortran_order, found_dtype = _NPY_HEADER_READERS[version](stream)
        except (ValueError, SyntaxError, TypeError, OverflowError, MemoryError, RecursionError) as error:
            raise CheckpointError(f"{path}: array {name!r} has no valid .npy header ({one_line(error)})") from None
        if found_dtype.hasobject:
            raise CheckpointError(f"{path}: array {name!r} holds Python objects ({found_dtype}); pickles are refused")
        if dtype is None:
            dtype = found_dtype
        elif found_dtype != dtype:
            raise CheckpointError(f"{path}: array {name!r} is {found_dtype}, expected {dtype}")
        elif shape is None and (len(found_shape) != 1 or found_shape[0] > MAX_HEADER_BYTES):
            raise CheckpointError(
                f"{path}: array {name!r} has shape {found_shape}; the header is one dimension of at most "
                f"{MAX_HEADER_BYTES} bytes"
            )
        if shape is not None and found_shape != shape:
            raise CheckpointError(f"{path}: array {name!r} has shape {found_shape}; {field} need {shape}")
        nbytes = math.prod(found_shape) * dtype.itemsize
        needed = stream.tell() + nbytes
        if info.file_size != needed:
            declared = info.file_size
            raise CheckpointError(f"{path}: array {name!r} is declared as {declared} bytes, its .npy header: {needed}")
        data = stream.read(nbytes)
    if len(data) != nbytes:
        raise CheckpointError(f"{path}: array {name!r} is cut short ({len(data)} of {nbytes} bytes)")
    return np.frombuffer(data, dtype).reshape(found_shape, order="F" if fortran_order else "C").copy()


_NPY_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def check_finite(path: Path, weights: list[np.ndarray], biases: list[np.ndarray], what: str = "layer") -> None:
    """`CheckpointError` naming the first layer of the network that holds a NaN or an infinity
    (``what``: how the message names a layer, e.g. ``"value layer"``)."""
    for i, (w, b) in enumerate(zip(weights, biases)):
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise CheckpointError(f"{path}: {what} {i} holds values that are not finite (NaN or infinity)")


#: The piece that the env option ``table_layout="max"`` appends (one flag per seat-relative row).
SEAT_PRESENT = "seat_present"


def input_index(
    header: dict[str, Any], layout: Any, source: str = "the agent", num_players: int | None = None
) -> np.ndarray | None:
    """Indices of the env's observation that feed the agent, by piece name; ``None`` if identical.

    Every piece of the header's layout must exist in ``layout`` (an ``ObservationLayout``) with
    the same shape; pieces the env added are left out. An agent of the ``"max"`` table layout on
    a seated env of ``num_players`` seats reads each per-player piece's ``num_players`` rows and
    a constant for the rest (`agents.policy.mlp.ZERO_INPUT` for absent rows,
    `agents.policy.mlp.ONE_INPUT` for the present flags; see ``MlpPolicy.input_index``);
    a seated agent on a ``"max"`` env of its own table size reads the players' rows.
    """
    trained = header["observation_layout"]
    if layout_pieces(layout) == trained:
        return None
    names = [name for name, _ in trained]
    padded = SEAT_PRESENT in names and SEAT_PRESENT not in layout and num_players is not None
    cropped = SEAT_PRESENT in layout and SEAT_PRESENT not in names and num_players is not None
    problems, parts = [], []
    for name, shape in trained:
        if padded and name == SEAT_PRESENT:
            parts.append(np.where(np.arange(shape[0]) < num_players, ONE_INPUT, ZERO_INPUT))
        elif name not in layout:
            problems.append(f"{name!r} is missing")
        elif list(layout.piece(name).shape) == list(shape):
            parts.append(np.arange(layout[name].start, layout[name].stop))
        elif padded and list(layout.piece(name).shape) == [num_players, *shape[1:]] and num_players < shape[0]:
            rows = np.full(math.prod(shape), ZERO_INPUT)  # absent seats' rows
            rows[: layout.piece(name).size] = np.arange(layout[name].start, layout[name].stop)
            parts.append(rows)
        elif cropped and list(layout.piece(name).shape[1:]) == shape[1:] and shape[0] == num_players:
            parts.append(np.arange(layout[name].start, layout[name].start + math.prod(shape)))  # the players' rows
        else:
            problems.append(f"{name!r} has shape {tuple(layout.piece(name).shape)}, the agent's {tuple(shape)}")
    if problems:
        raise CheckpointError(
            f"{source} does not fit this env's observation: " + "; ".join(problems) + f" (trained with env options "
            f"{header['env_kwargs']}, for {header['player_counts']} players)"
        )
    return np.concatenate(parts).astype(np.intp)
