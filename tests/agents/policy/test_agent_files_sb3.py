"""Malformed legacy SB3 ``.zip`` checkpoints: the caps and checks of the data-only format hold, and
each fault is one line naming the file (``torch.load(weights_only=True)``, nothing unpickled)."""

from __future__ import annotations

import io
import json
import re
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import pirate_envs
from agents.policy.agent import load_checkpoint, read_sb3_zip
from agents.policy.checkpoint import MAX_HEADER_DEPTH, MAX_SB3_POLICY_BYTES, CheckpointError
from agents.registry import make_agent
from experiments import evaluate
from tests.agents.policy.test_agent_files import declare_size, nested, npy, write_zip

torch = pytest.importorskip("torch")

GAME = "skull_king_v0"
META = {"env_id": GAME, "env_kwargs": {"num_players": 2}}


def state_dict(hidden: int = 8) -> dict[str, torch.Tensor]:
    """The tensors of a one-hidden-layer SB3 actor-critic for a two-player table of :data:`GAME`."""
    env = pirate_envs.make(GAME, raw=True, num_players=2)
    obs, actions = env.observation_layout.size, env.num_actions
    generator = torch.Generator().manual_seed(0)
    shapes = {
        "mlp_extractor.policy_net.0.weight": (hidden, obs),
        "mlp_extractor.policy_net.0.bias": (hidden,),
        "mlp_extractor.value_net.0.weight": (hidden, obs),
        "mlp_extractor.value_net.0.bias": (hidden,),
        "action_net.weight": (actions, hidden),
        "action_net.bias": (actions,),
        "value_net.weight": (1, hidden),
        "value_net.bias": (1,),
    }
    return {name: torch.randn(shape, generator=generator) for name, shape in shapes.items()}


def pth(state: object, **kwargs) -> bytes:
    buffer = io.BytesIO()
    torch.save(state, buffer, **kwargs)
    return buffer.getvalue()


def sb3_members(state: object = None, data: object = None) -> dict[str, bytes]:
    data = {"pirate_envs_meta": META, "num_timesteps": 64} if data is None else data
    return {
        "data": (data if isinstance(data, str) else json.dumps(data)).encode(),
        "policy.pth": pth(state_dict() if state is None else state),
        "_stable_baselines3_version": b"2.7.0",
    }


def with_state(change: Callable[[dict], object]) -> Callable[[Path], Path]:
    """A crafter: the valid checkpoint with its tensors changed (``change`` edits them or returns new ones)."""

    def craft(out: Path) -> Path:
        state = state_dict()
        changed = change(state)
        return write_zip(out, sb3_members(state if changed is None else changed))

    return craft


def with_data(data: object) -> Callable[[Path], Path]:
    return lambda out: write_zip(out, sb3_members(data=data))


def with_members(**changes: bytes | None) -> Callable[[Path], Path]:
    def craft(out: Path) -> Path:
        members = sb3_members()
        for name, content in changes.items():
            key = name.replace("_pth", ".pth")
            if content is None:
                members.pop(key)
            else:
                members[key] = content
        return write_zip(out, members)

    return craft


def with_bytes(change: Callable[[bytes], bytes]) -> Callable[[Path], Path]:
    def craft(out: Path) -> Path:
        out.write_bytes(change(write_zip(out, sb3_members()).read_bytes()))
        return out

    return craft


def set_value(name: str, value: float) -> Callable[[dict], None]:
    return lambda state: state[name].view(-1).__setitem__(3, value)


def without(name: str) -> Callable[[dict], dict]:
    return lambda state: {key: tensor for key, tensor in state.items() if key != name}


def policy_bomb(out: Path) -> Path:
    """A checkpoint of a few hundred KB whose policy.pth decompresses to more than its cap."""
    members = sb3_members()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("data", members["data"])
        with archive.open("policy.pth", "w", force_zip64=True) as member:
            chunk = bytes(2**22)
            for _ in range(MAX_SB3_POLICY_BYTES // len(chunk) + 1):
                member.write(chunk)
    assert out.stat().st_size < 2**20
    return out


class Payload:
    """Unpickling this would write the file ``marker``."""

    marker = ""

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def pickle_payload(out: Path) -> Path:
    Payload.marker = str(out.with_name("payload_ran"))
    return write_zip(out, sb3_members(state={**state_dict(), "action_net.weight": Payload()}))


ACTIVATION = "<class 'torch.nn.modules.activation.{}'>"

#: name: (crafter of the malformed checkpoint, a pattern of the fault in the message)
MALFORMED: dict[str, tuple[Callable[[Path], Path], str]] = {
    "empty file": (with_bytes(lambda data: b""), "the file is empty"),
    "not a zip": (with_bytes(lambda data: b"plain text"), "not a zip archive"),
    "truncated file": (with_bytes(lambda data: data[: len(data) // 2]), "not a zip archive, or one cut short"),
    "no policy.pth": (with_members(policy_pth=None), "no 'policy.pth' member; not an SB3 checkpoint"),
    "no data": (with_members(data=None), "no 'data' member; not an SB3 checkpoint"),
    "data not JSON": (with_data("{oops"), "its data is not JSON"),
    "deep JSON data (100k levels)": (with_data(nested(100_000)), f"its data nests deeper than {MAX_HEADER_DEPTH}"),
    "no env in the data": (with_data({"num_timesteps": 3}), "no plain pirate_envs_meta"),
    "data over the cap": (with_data({"pirate_envs_meta": META, "pad": "x" * 2**20}), "would decompress to"),
    "policy.pth of raw bytes": (with_members(policy_pth=b"raw bytes"), "policy.pth is not torch's zip format"),
    "policy.pth in torch's legacy format": (
        with_members(policy_pth=pth(state_dict(), _use_new_zipfile_serialization=False)),
        "policy.pth is not torch's zip format",
    ),
    "policy.pth an .npy": (with_members(policy_pth=npy(np.zeros(3))), "policy.pth is not torch's zip format"),
    "policy.pth declared over the cap": (
        with_bytes(lambda data: declare_size(data, "policy.pth", 2**31)),
        f"would decompress to .* bytes, more than the cap of {MAX_SB3_POLICY_BYTES}",
    ),
    "a record inside policy.pth declared over the cap": (
        with_members(policy_pth=declare_size(pth(state_dict()), "archive/data/0", 2**31)),
        f"would decompress to .* bytes, more than the cap of {MAX_SB3_POLICY_BYTES}",
    ),
    "zip bomb": (policy_bomb, f"would decompress to .* bytes, more than the cap of {MAX_SB3_POLICY_BYTES}"),
    "a pickle in policy.pth": (pickle_payload, r"policy\.pth holds more than plain tensors \(Unsupported global"),
    "not a state dict": (with_state(lambda s: [s["action_net.bias"]]), "policy.pth is not a state dict"),
    "NaN weight": (with_state(set_value("mlp_extractor.policy_net.0.weight", np.nan)), "layer 0 holds values"),
    "infinite bias": (with_state(set_value("action_net.bias", np.inf)), "layer 1 holds values"),
    "missing bias": (
        with_state(without("mlp_extractor.policy_net.0.bias")),
        r"policy\.pth has no tensor mlp_extractor\.policy_net\.0\.bias",
    ),
    "missing action head": (with_state(without("action_net.weight")), "has no tensor action_net.weight"),
    "integer tensor": (
        with_state(lambda s: s.update({"value_net.bias": torch.ones(1, dtype=torch.int64)})),
        r"entry 'value_net\.bias' is a torch\.int64 tensor, not a dense float tensor",
    ),
    "unknown tensor": (
        with_state(lambda s: s.update({"features_extractor.cnn.weight": torch.ones(2)})),
        "only plain MLP policies can be read",
    ),
    "unreadable hidden layer name": (
        with_state(lambda s: s.update({"mlp_extractor.policy_net.x.weight": torch.ones(2)})),
        "names a hidden layer it cannot read",
    ),
    "a 3-D weight": (
        with_state(lambda s: s.update({"action_net.weight": torch.ones(69, 8, 1)})),
        r"tensor action_net\.weight has shape \(69, 8, 1\), not 2-D",
    ),
    "layers that do not chain": (
        with_state(lambda s: s.update({"action_net.weight": torch.ones(69, 7)})),
        "the actor's layers do not chain",
    ),
    "wrong observation size": (
        with_state(lambda s: s.update({"mlp_extractor.policy_net.0.weight": torch.ones(8, 5)})),
        f"does not fit its env {GAME} .*layer_sizes must run from observation_size",
    ),
    "unknown env id": (
        with_data({"pirate_envs_meta": {**META, "env_id": "chess_v0"}}),
        "does not fit its env chess_v0",
    ),
    "unknown env option": (
        with_data({"pirate_envs_meta": {**META, "env_kwargs": {"num_players": 2, "bogus": 1}}}),
        f"does not fit its env {GAME}",
    ),
    "unknown activation": (
        with_data({"pirate_envs_meta": META, "policy_kwargs": {"activation_fn": ACTIVATION.format("Softsign")}}),
        "activation .*Softsign.* is not one of",
    ),
}


def test_the_valid_checkpoint_loads_and_plays(tmp_path):
    path = write_zip(tmp_path / "valid.zip", sb3_members())
    policy, facts = read_sb3_zip(path)
    expected = state_dict()["action_net.weight"].numpy().T
    np.testing.assert_array_equal(policy.weights[1], expected)
    assert facts["timesteps"] == 64 and load_checkpoint(str(path))[1]["layer_sizes"][1] == 8
    env = pirate_envs.make(GAME, raw=True, num_players=2)
    assert make_agent(f"ppo:{path}", GAME, env=env).policy.num_actions == env.num_actions


def check_refusal(error: Exception, path: Path, fault: str) -> None:
    message = str(error)
    assert isinstance(error, CheckpointError) and isinstance(error, ValueError)
    assert message.startswith(f"{path}: "), message
    assert "\n" not in message and len(message) < 400, message
    assert re.search(fault, message), message


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_sb3_checkpoint_is_one_line_naming_the_file_and_the_fault(tmp_path, case):
    craft, fault = MALFORMED[case]
    path = craft(tmp_path / "bad.zip")
    with pytest.raises(CheckpointError) as error:
        load_checkpoint(str(path))
    check_refusal(error.value, path, fault)
    assert not (tmp_path / "payload_ran").exists()


@pytest.mark.parametrize("case", ["zip bomb", "policy.pth declared over the cap"])
def test_the_caps_trigger_before_anything_large_is_allocated(tmp_path, case):
    craft, _ = MALFORMED[case]
    path = craft(tmp_path / "bad.zip")
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError):
            read_sb3_zip(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**22, f"{peak} bytes at the peak"  # 4 MiB; the file claims hundreds of MiB


def test_an_actor_over_the_parameter_cap_is_refused(tmp_path, monkeypatch):
    path = write_zip(tmp_path / "big.zip", sb3_members())
    monkeypatch.setattr("agents.policy.checkpoint.MAX_PARAMETERS", 1000)  # the actor here: 296*8 + 8 + 8*69 + 69
    with pytest.raises(CheckpointError, match="tensors have 5382 elements, more than the cap of 1000"):  # and critic
        read_sb3_zip(path)


@pytest.mark.parametrize(
    "case", ["truncated file", "deep JSON data (100k levels)", "a pickle in policy.pth", "NaN weight", "missing bias"]
)
def test_the_command_line_prints_one_line_for_a_malformed_checkpoint(tmp_path, case, capsys):
    craft, fault = MALFORMED[case]
    path = craft(tmp_path / "bad.zip")
    argv = ["--env-id", GAME, "--agents", f"ppo:{path}", "heuristic", "--players", "2", "--games", "2"]
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1 and "Traceback" not in err and str(path) in err, err
    assert re.search(fault, err), err


#: Loads the valid checkpoint (imports and first load paid), then the hostile one; prints the growth of
#: the process's peak resident memory in KiB over the hostile load, and the refusal.
PEAK_SCRIPT = """
import resource, sys
from agents.policy.agent import read_sb3_zip
from agents.policy.checkpoint import CheckpointError
read_sb3_zip(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_sb3_zip(sys.argv[2])
    print("loaded")
except CheckpointError as error:
    print(error)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def stride_zero(hidden: int) -> Callable[[dict], None]:
    """The actor's hidden layer of ``hidden`` units, each of its weights one stored number (stride 0)."""

    def change(state: dict) -> None:
        obs, actions = state["mlp_extractor.policy_net.0.weight"].shape[1], state["action_net.weight"].shape[0]
        state["mlp_extractor.policy_net.0.weight"] = torch.ones(1).expand(hidden, obs)
        state["mlp_extractor.policy_net.0.bias"] = torch.ones(1).expand(hidden)
        state["action_net.weight"] = torch.ones(1).expand(actions, hidden)

    return change


@pytest.mark.parametrize(
    ("hidden", "fault"),
    [(80_000, "tensor 'mlp_extractor.policy_net.0.weight' repeats stored numbers"), (200_000, "more than the cap")],
)
def test_a_stride_zero_tensor_is_refused_before_it_is_copied(tmp_path, hidden, fault):
    """One stored float with a huge shape: refused from its shape and strides, the peak memory of the
    load within a few MB of a valid load's (a copy would take 0.1-0.5 GB)."""
    import subprocess
    import sys

    from tests.experiments.subprocess_limits import SUBPROCESS_S

    valid = write_zip(tmp_path / "valid.zip", sb3_members())
    hostile = with_state(stride_zero(hidden))(tmp_path / "hostile.zip")
    assert hostile.stat().st_size < 2**16
    result = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, str(valid), str(hostile)],
        capture_output=True, text=True, timeout=SUBPROCESS_S, check=True,
    )  # fmt: skip
    message, growth_kib = result.stdout.strip().splitlines()
    assert message.startswith(f"{hostile}: ") and fault in message, message
    assert int(growth_kib) < 8 * 1024, f"the peak grew by {growth_kib} KiB"


def test_a_refused_file_is_remembered_until_it_changes(tmp_path, monkeypatch):
    """A server listing a folder loads a bad file once: its refusal is remembered by path, time and size."""
    import os

    from agents.policy import agent

    path = with_state(stride_zero(1000))(tmp_path / "hostile.zip")
    reads = []
    real = agent.read_sb3_zip
    monkeypatch.setattr(agent, "read_sb3_zip", lambda p: reads.append(p) or real(p))
    messages = []
    for _ in range(3):
        with pytest.raises(CheckpointError) as error:
            load_checkpoint(str(path))
        messages.append(str(error.value))
    assert len(reads) == 1 and len(set(messages)) == 1 and "repeats stored numbers" in messages[0]
    write_zip(path, sb3_members())  # mended in place: read again, and it loads
    os.utime(path, ns=(1, 1))
    assert load_checkpoint(str(path))[1]["env_id"] == GAME and len(reads) == 2
