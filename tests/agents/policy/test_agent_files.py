"""Malformed ``.npz`` agent files: each is refused with one line naming the file and the fault,
before anything large is decompressed or allocated; the command line prints that line."""

from __future__ import annotations

import io
import itertools
import json
import re
import struct
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import pirate_envs
from agents.policy.agent import PRETRAINED_DIR
from agents.policy.checkpoint import (
    MAX_AGENT_BYTES,
    MAX_HEADER_DEPTH,
    MAX_LAYERS,
    MAX_PARAMETERS,
    CheckpointError,
    layout_pieces,
    load_agent,
    make_header,
    save_agent,
)
from agents.policy.mlp import MlpPolicy
from agents.registry import make_agent
from experiments import evaluate

GAME = "skull_king_v0"  # the game of the command line the checks below run


def small_agent(path: Path) -> Path:
    """A valid two-player agent of one hidden layer of 8 (random weights)."""
    env = pirate_envs.make(GAME, raw=True, num_players=2)
    sizes = [env.observation_layout.size, 8, env.num_actions]
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    policy = MlpPolicy(weights, [rng.normal(size=b).astype(np.float32) for b in sizes[1:]], "Tanh")
    header = make_header(GAME, {"num_players": 2}, layout_pieces(env.observation_layout), env.num_actions, policy)
    return save_agent(path, policy, header)


def members_of(path: Path) -> dict[str, bytes]:
    """The members of a zip archive by name, undecoded."""
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def header_of(members: dict[str, bytes]) -> dict:
    return json.loads(np.load(io.BytesIO(members["header.npy"])).tobytes())


def npy(array: np.ndarray) -> bytes:
    """``array`` as the bytes of a ``.npy`` file."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def npy_claiming(shape: tuple[int, ...], descr: str = "<f4", data: bytes = b"\0" * 64) -> bytes:
    """A ``.npy`` header that claims ``shape``, followed by only ``data``."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + data


def header_npy(header: dict | str) -> bytes:
    text = header if isinstance(header, str) else json.dumps(header)
    return npy(np.frombuffer(text.encode(), dtype=np.uint8))


def write_zip(path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a repeated name is one of the faults
        with zipfile.ZipFile(path, "w", compression) as archive:
            for name, data in members.items():
                archive.writestr(name.partition("#")[0], data)
    return path


def declare_size(data: bytes, member: str, size: int) -> bytes:
    """The zip ``data`` with ``member``'s decompressed size in the central directory set to ``size``."""
    data = bytearray(data)
    name = member.encode()
    at = data.find(b"PK\x01\x02")
    while data[at + 46 : at + 46 + len(name)] != name:
        at = data.find(b"PK\x01\x02", at + 1)
    struct.pack_into("<I", data, at + 24, size)
    return bytes(data)


def with_members(**changes: bytes | None) -> Callable[[Path, Path], Path]:
    """A crafter: the valid agent with members replaced, added or (``None``) removed."""

    def craft(valid: Path, out: Path) -> Path:
        members = members_of(valid)
        for name, data in changes.items():
            key = name.replace("_npy", ".npy")
            if data is None:
                members.pop(key)
            else:
                members[key] = data
        return write_zip(out, members)

    return craft


def with_header(change: Callable[[dict], object]) -> Callable[[Path, Path], Path]:
    """A crafter: the valid agent with its JSON header changed (``change`` edits it or returns a new one)."""

    def craft(valid: Path, out: Path) -> Path:
        members = members_of(valid)
        header = header_of(members)
        changed = change(header)
        members["header.npy"] = header_npy(header if changed is None else changed)
        return write_zip(out, members)

    return craft


def with_bytes(change: Callable[[bytes], bytes]) -> Callable[[Path, Path], Path]:
    """A crafter: the valid agent file's bytes changed."""

    def craft(valid: Path, out: Path) -> Path:
        out.write_bytes(change(valid.read_bytes()))
        return out

    return craft


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def zip_bomb(valid: Path, out: Path) -> Path:
    """A file of a few hundred KB whose weights decompress to twice the cap (zeros deflate well)."""
    members = members_of(valid)
    elements = MAX_AGENT_BYTES // 2  # float32: twice the cap in bytes
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            if name != "w0.npy":
                archive.writestr(name, data)
        with archive.open("w0.npy", "w", force_zip64=True) as member:
            member.write(npy_claiming((elements,), data=b""))
            chunk = bytes(2**22)
            for _ in range(elements * 4 // len(chunk)):
                member.write(chunk)
    assert out.stat().st_size < 2**20
    return out


def with_weights(**arrays: np.ndarray) -> Callable[[Path, Path], Path]:
    return with_members(**{f"{name}_npy": npy(array) for name, array in arrays.items()})


def nan_in(array: np.ndarray, value: float) -> np.ndarray:
    array = array.copy()
    array.flat[3] = value
    return array


def weights_of(valid: Path, name: str) -> np.ndarray:
    return np.load(io.BytesIO(members_of(valid)[f"{name}.npy"]))


#: name: (crafter of the malformed file from a valid one, a pattern of the fault in the message)
MALFORMED: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "empty file": (with_bytes(lambda data: b""), "the file is empty"),
    "not a zip": (with_bytes(lambda data: b"just some text, not an archive"), "not a zip archive"),
    "truncated file": (with_bytes(lambda data: data[: len(data) // 2]), "not a zip archive, or one cut short"),
    "a plain .npy file": (with_bytes(lambda data: npy(np.zeros(3, np.float32))), "not a zip archive"),
    "damaged member (bad CRC)": (
        with_bytes(lambda data: data.replace(data[600:640], bytes(40))),
        "a damaged zip archive",
    ),
    "raw bytes member": (with_members(notes_txt=b"hello"), r"member 'notes_txt' is not a \.npy array \(raw bytes\)"),
    "raw bytes header": (with_members(header_npy=None, header=b"{}"), r"member 'header' is not a \.npy array"),
    "no header": (with_members(header_npy=None), "no JSON header"),
    "header claims 1e12 elements": (
        with_members(header_npy=npy_claiming((10**12,), "|u1")),
        r"array 'header\.npy' has shape \(1000000000000,\); the header is one dimension of at most",
    ),
    "weights claim 1e12 elements": (
        with_members(w0_npy=npy_claiming((10**6, 10**6))),
        r"array 'w0\.npy' has shape \(1000000, 1000000\); layer_sizes need",
    ),
    "layer_sizes of 1e12 parameters": (
        with_header(lambda h: h.update(layer_sizes=[h["observation_size"], 10**6, 10**6, h["num_actions"]])),
        f"parameters, above the cap of {MAX_PARAMETERS}",
    ),
    "too many layers": (
        with_header(lambda h: h.update(layer_sizes=[h["observation_size"]] + [2] * MAX_LAYERS + [h["num_actions"]])),
        f"more than the cap of {MAX_LAYERS}",
    ),
    "declared size over the cap": (
        with_bytes(lambda data: declare_size(data, "w1.npy", 2**31)),
        f"would decompress to .* bytes, more than the cap of {MAX_AGENT_BYTES}",
    ),
    "zip bomb": (zip_bomb, f"would decompress to .* bytes, more than the cap of {MAX_AGENT_BYTES}"),
    "size declared beyond the array": (
        with_members(b0_npy=npy(np.zeros(8, np.float32)) + b"trailing"),
        r"array 'b0\.npy' is declared as \d+ bytes, its \.npy header: \d+",
    ),
    "array cut short": (
        with_members(b0_npy=npy(np.zeros(8, np.float32))[:-4]),
        r"array 'b0\.npy' is declared as \d+ bytes, its \.npy header: \d+",
    ),
    "not a .npy member": (with_members(w0_npy=b"\x93NUMPX garbage"), r"array 'w0\.npy' has no valid \.npy header"),
    "deep JSON header (100k levels)": (with_header(lambda h: nested(100_000)), f"nests deeper than {MAX_HEADER_DEPTH}"),
    "deep JSON inside a field": (
        with_header(lambda h: h["training"]["figures"].update(deep=json.loads(nested(MAX_HEADER_DEPTH + 1)))),
        f"nests deeper than {MAX_HEADER_DEPTH}",
    ),
    "header not JSON": (with_header(lambda h: "{not json"), "the header is not JSON"),
    "header not UTF-8": (with_members(header_npy=npy(np.array([0xFF, 0xFE], np.uint8))), "the header is not JSON"),
    "header a JSON list": (with_header(lambda h: [1, 2]), "the header must be a JSON object"),
    "unknown header field": (with_header(lambda h: h.update(exec="print(1)")), r"header has unknown fields \['exec'\]"),
    "unknown training field": (
        with_header(lambda h: h["training"].update(notes="x")),
        "training must hold exactly a command",
    ),
    "unknown action_head field": (
        with_header(lambda h: h["action_head"].update(extra=1)),
        "action_head must be",
    ),
    "header of float32": (
        with_members(header_npy=npy(np.zeros(4, np.float32))),
        r"array 'header\.npy' is float32, expected uint8",
    ),
    "missing tensor": (with_members(b1_npy=None), r"do not match layer_sizes .*missing \['b1'\]"),
    "extra tensor": (with_weights(w2=np.zeros((3, 3), np.float32)), r"do not match layer_sizes .*extra \['w2'\]"),
    "wrong shape for the network": (
        with_weights(w1=np.zeros((8, 5), np.float32)),
        r"array 'w1\.npy' has shape \(8, 5\); layer_sizes need \(8, \d+\)",
    ),
    "float64 weights": (with_weights(b0=np.zeros(8, np.float64)), r"array 'b0\.npy' is float64, expected float32"),
    "object array (a pickle)": (
        with_weights(b0=np.array([object()] * 8, dtype=object)),
        r"array 'b0\.npy' holds Python objects",
    ),
    "NaN weight": (lambda v, o: with_weights(w0=nan_in(weights_of(v, "w0"), np.nan))(v, o), "layer 0 holds values"),
    "infinite bias": (lambda v, o: with_weights(b1=nan_in(weights_of(v, "b1"), np.inf))(v, o), "layer 1 holds values"),
    "repeated member": (
        lambda v, o: write_zip(o, {**members_of(v), "w0.npy#again": members_of(v)["w0.npy"]}),
        "repeats a member name",
    ),
    "bzip2 member": (
        lambda v, o: write_zip(o, members_of(v), zipfile.ZIP_BZIP2),
        r"member 'header\.npy' uses compression 12",
    ),
}


@pytest.fixture(scope="module")
def valid_agent(tmp_path_factory) -> Path:
    return small_agent(tmp_path_factory.mktemp("valid") / "agent.npz")


def test_the_valid_agent_loads(valid_agent):
    policy, header = load_agent(valid_agent)
    assert header["layer_sizes"][1] == 8 and policy.num_actions == header["num_actions"]


def check_refusal(error: Exception, path: Path, fault: str) -> None:
    message = str(error)
    assert isinstance(error, CheckpointError) and isinstance(error, ValueError)
    assert message.startswith(f"{path}: "), message
    assert "\n" not in message and len(message) < 400, message
    assert re.search(fault, message), message


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_agent_file_is_one_line_naming_the_file_and_the_fault(valid_agent, tmp_path, case):
    craft, fault = MALFORMED[case]
    path = craft(valid_agent, tmp_path / "bad.npz")
    with pytest.raises(CheckpointError) as error:
        load_agent(path)
    check_refusal(error.value, path, fault)


@pytest.mark.parametrize("case", ["zip bomb", "declared size over the cap", "weights claim 1e12 elements"])
def test_the_caps_trigger_before_anything_large_is_allocated(valid_agent, tmp_path, case):
    craft, _ = MALFORMED[case]
    path = craft(valid_agent, tmp_path / "bad.npz")
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError):
            load_agent(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**22, f"{peak} bytes at the peak"  # 4 MiB; the file claims gigabytes


def test_a_fortran_ordered_array_loads_as_the_same_weights(valid_agent, tmp_path):
    members = members_of(valid_agent)
    w0 = weights_of(valid_agent, "w0")
    members["w0.npy"] = npy(np.asfortranarray(w0))
    assert b"'fortran_order': True" in members["w0.npy"][:128]
    policy, _ = load_agent(write_zip(tmp_path / "fortran.npz", members))
    np.testing.assert_array_equal(policy.weights[0], w0)


def test_damage_anywhere_in_the_file_is_refused_or_harmless(valid_agent, tmp_path):
    """Cut the file anywhere or change any of its bytes: it loads or is refused, never another error."""
    data = valid_agent.read_bytes()
    rng = np.random.default_rng(0)
    path = tmp_path / "damaged.npz"
    cuts = [bytes(data[:n]) for n in rng.integers(1, len(data), 40)]
    flips = []
    for at in [*rng.integers(0, len(data), 150), *range(len(data) - 120, len(data))]:  # the directory: more often
        changed = bytearray(data)
        changed[at] ^= 1 << int(rng.integers(8))
        flips.append(bytes(changed))
    refused = 0
    for damaged in cuts + flips:
        path.write_bytes(damaged)
        try:
            load_agent(path)
        except CheckpointError as error:
            assert "\n" not in str(error) and str(error).startswith(f"{path}: ")
            refused += 1
    assert refused >= len(cuts)


@pytest.mark.parametrize("case", MALFORMED)
def test_the_command_line_prints_one_line_for_a_malformed_agent(valid_agent, tmp_path, case, capsys):
    craft, fault = MALFORMED[case]
    path = craft(valid_agent, tmp_path / "bad.npz")
    argv = ["--env-id", GAME, "--agents", f"ppo:{path}", "heuristic", "--players", "2", "--games", "2"]
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1 and "Traceback" not in err and str(path) in err, err
    assert re.search(fault, err), err


@pytest.mark.parametrize("path", sorted(PRETRAINED_DIR.glob("*.npz")), ids=lambda p: p.stem)
def test_the_shipped_agents_load_the_very_arrays_numpy_reads(path):
    policy, header = load_agent(path)
    with np.load(path, allow_pickle=False) as archive:
        assert json.loads(archive["header"].tobytes()) == header
        for i, (w, b) in enumerate(zip(policy.weights, policy.biases)):
            np.testing.assert_array_equal(w, archive[f"w{i}"], strict=True)
            np.testing.assert_array_equal(b, archive[f"b{i}"], strict=True)
            assert w.flags.writeable and b.flags.writeable


def test_env_options_the_game_refuses_are_one_line_naming_the_file(valid_agent, tmp_path):
    path = with_header(lambda h: h["env_kwargs"].update(bogus=1))(valid_agent, tmp_path / "options.npz")
    with pytest.raises(CheckpointError, match=r"its env options .*'bogus': 1.* fail \(") as error:
        make_agent(f"ppo:{path}", GAME)  # no env given: the agent's own options make one
    assert str(path) in str(error.value) and "\n" not in str(error.value)
