"""The data-only agent format: one ``.npz`` file whose loading never runs code.

A trained agent is a numpy ``.npz`` archive read with ``allow_pickle=False``:

``header``
    the JSON header, UTF-8 bytes as a ``uint8`` array (fields below);
``w0, b0, w1, b1, ...``
    ``float32`` weights ``(in, out)`` and biases ``(out,)`` of each layer, the last the action head.

Header fields (all required; :func:`load_agent` checks every field and every array shape):

=====================  ==================================================================
``format``, ``version``  ``"pirate_envs.agent"``, ``1``
``env_id``               the env the agent was trained on
``env_kwargs``           the env options it was trained with (``num_players`` included)
``observation_size``     the length of the observation vector it reads
``observation_layout``   ``[[piece name, shape], ...]``: the env's layout it was trained on
``num_actions``          the size of the action table
``layer_sizes``          ``[observation_size, hidden..., num_actions]``
``activation``           of the hidden layers: ``Tanh``, ``ReLU`` or ``Identity``
``action_head``          ``{"kind": "flat"}``, or ``{"kind": "features", "num_features": k}``
                         for the action-feature head (``agents.action_head``), stored as the
                         one linear layer it equals
``player_counts``        the table sizes it was trained for
``reward_mode``          ``win`` or ``score`` (or ``null`` when unknown)
``training``             ``{"command": str or null, "timesteps": int or null, "figures": {...}}``
=====================  ==================================================================

An env whose layout gained pieces still runs an agent as long as every piece of its
``observation_layout`` exists with the same shape: :func:`input_index` picks its inputs by name.
An agent trained with the env option ``table_layout="max"`` (its layout ends in ``seat_present``)
also plays an env of the default ``"seated"`` layout at any of its ``player_counts``: its
per-player rows are filled from the seated rows, absent seats with zeros, ``seat_present`` with
one per player; and a seated agent plays a ``"max"`` env at its table size (the players' rows).
"""

from __future__ import annotations

import io
import itertools
import json
import math
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy_agent import ACTIVATIONS, ONE_INPUT, ZERO_INPUT, MlpPolicy

FORMAT = "pirate_envs.agent"
VERSION = 1
#: The file extension of the data-only format.
SUFFIX = ".npz"
_ACTION_HEADS = ("flat", "features")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read, or does not fit where it is used."""


def write_atomic(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    A reader never sees a half-written file: the old one or the new one, whole.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode() if isinstance(data, str) else data
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(temp, 0o666 & ~_umask())  # mkstemp makes the file private; give it the usual mode
        with os.fdopen(fd, "wb") as file:
            file.write(payload)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def layout_pieces(layout: Any) -> list[list[Any]]:
    """``[[name, [shape...]], ...]`` of an ``ObservationLayout``."""
    return [[p.name, [int(s) for s in p.shape]] for p in layout.pieces]


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
) -> dict[str, Any]:
    """A complete header for ``policy`` (checked by :func:`validate_header`)."""
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
        "layer_sizes": [int(policy.weights[0].shape[0])] + [int(w.shape[1]) for w in policy.weights],
        "activation": policy.activation,
        "action_head": dict(action_head or {"kind": "flat"}),
        "player_counts": counts,
        "reward_mode": reward_mode,
        "training": training,
    }
    validate_header(header)
    return header


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
    """Raise :class:`CheckpointError` naming the first field that is missing or malformed."""
    if not isinstance(header, dict):
        raise CheckpointError(f"the header must be a JSON object, got {type(header).__name__}")
    if header.get("format") != FORMAT:
        raise CheckpointError(f"not a {FORMAT} file (format {header.get('format')!r})")
    if header.get("version") != VERSION:
        raise CheckpointError(f"format version {header.get('version')!r} is not supported (this code reads {VERSION})")
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
    activation = _require(header, "activation", str, "an activation name")
    if activation not in ACTIVATIONS:
        raise CheckpointError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
    head = _require(header, "action_head", dict, 'an object such as {"kind": "flat"}')
    if head.get("kind") not in _ACTION_HEADS:
        raise CheckpointError(f"action_head kind must be one of {list(_ACTION_HEADS)}, got {head.get('kind')!r}")
    counts = _require(header, "player_counts", list, "a list of player counts")
    if not counts or not _positive_ints(counts):
        raise CheckpointError(f"player_counts must be a non-empty list of positive integers, got {counts!r}")
    if header.get("reward_mode") not in (None, "win", "score"):
        raise CheckpointError(f"reward_mode must be win, score or null, got {header.get('reward_mode')!r}")
    training = _require(header, "training", dict, "an object with command, timesteps and figures")
    if not isinstance(training.get("command"), (str, type(None))) or not isinstance(training.get("figures"), dict):
        raise CheckpointError(f"training must hold a command (string or null) and figures (object), got {training!r}")


def save_agent(path: str | Path, policy: MlpPolicy, header: dict[str, Any]) -> Path:
    """Write ``policy`` with ``header`` to ``path`` (atomically); the header is checked first."""
    validate_header(header)
    sizes = [int(policy.weights[0].shape[0])] + [int(w.shape[1]) for w in policy.weights]
    if sizes != header["layer_sizes"] or policy.activation != header["activation"]:
        raise CheckpointError(
            f"the policy ({sizes}, {policy.activation}) does not match the header "
            f"({header['layer_sizes']}, {header['activation']})"
        )
    arrays: dict[str, np.ndarray] = {"header": np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)}
    for i, (w, b) in enumerate(zip(policy.weights, policy.biases)):
        arrays[f"w{i}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{i}"] = np.asarray(b, dtype=np.float32)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return write_atomic(path, buffer.getvalue())


def load_agent(path: str | Path) -> tuple[MlpPolicy, dict[str, Any]]:
    """The policy and header of a data-only agent file; no code runs (``allow_pickle=False``)."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, AttributeError) as error:
        # AttributeError: np.load of a plain .npy file gives an array, which has no ``files``
        raise CheckpointError(f"{path}: not a readable {SUFFIX} agent file ({error})") from error
    if "header" not in arrays or arrays["header"].dtype != np.uint8 or arrays["header"].ndim != 1:
        raise CheckpointError(f"{path}: no JSON header (a uint8 array named 'header')")
    try:
        header = json.loads(arrays.pop("header").tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"{path}: the header is not JSON ({error})") from error
    try:
        validate_header(header)
    except CheckpointError as error:
        raise CheckpointError(f"{path}: {error}") from None
    sizes = header["layer_sizes"]
    expected = {f"{kind}{i}" for i in range(len(sizes) - 1) for kind in "wb"}
    if set(arrays) != expected:
        raise CheckpointError(f"{path}: arrays {sorted(arrays)} do not match layer_sizes {sizes} ({sorted(expected)})")
    weights, biases = [], []
    for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        w, b = arrays[f"w{i}"], arrays[f"b{i}"]
        if w.shape != (n_in, n_out) or b.shape != (n_out,):
            raise CheckpointError(f"{path}: layer {i} has shapes {w.shape}, {b.shape}; expected ({n_in}, {n_out})")
        if w.dtype != np.float32 or b.dtype != np.float32:
            raise CheckpointError(f"{path}: layer {i} is {w.dtype}/{b.dtype}, expected float32")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise CheckpointError(f"{path}: layer {i} holds values that are not finite")
        weights.append(w)
        biases.append(b)
    return MlpPolicy(weights, biases, header["activation"]), header


#: The piece that the env option ``table_layout="max"`` appends (one flag per seat-relative row).
SEAT_PRESENT = "seat_present"


def input_index(
    header: dict[str, Any], layout: Any, source: str = "the agent", num_players: int | None = None
) -> np.ndarray | None:
    """Indices of the env's observation that feed the agent, by piece name; ``None`` if identical.

    Every piece of the header's layout must exist in ``layout`` (an ``ObservationLayout``) with
    the same shape; pieces the env added are left out. An agent of the ``"max"`` table layout on
    a seated env of ``num_players`` seats reads each per-player piece's ``num_players`` rows and
    a constant for the rest (:data:`~agents.policy_agent.ZERO_INPUT` for absent rows,
    :data:`~agents.policy_agent.ONE_INPUT` for the present flags; see ``MlpPolicy.input_index``);
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
