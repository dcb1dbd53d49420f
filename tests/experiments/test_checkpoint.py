"""The data-only agent format: round trip, checks on load, piece-name compatibility, shipped agents."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import pirate_envs
from agents.evaluation.games import play_game
from agents.policy.agent import PRETRAINED_DIR, load_checkpoint, shipped_checkpoints
from agents.policy.checkpoint import (
    CheckpointError,
    input_index,
    layout_pieces,
    load_agent,
    make_header,
    save_agent,
)
from agents.policy.mlp import MlpPolicy
from agents.registry import make_agent
from pirate_envs.core.observation import ObservationLayout

KAPERN = "piraten_kapern_v0"


def random_policy(sizes: list[int], seed: int = 0) -> MlpPolicy:
    rng = np.random.default_rng(seed)
    weights = [rng.normal(size=(a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    return MlpPolicy(weights, [rng.normal(size=b).astype(np.float32) for b in sizes[1:]], "Tanh")


def kapern_agent(tmp_path, num_players: int = 2):
    env = pirate_envs.make(KAPERN, raw=True, num_players=num_players)
    policy = random_policy([env.observation_layout.size, 8, env.num_actions])
    header = make_header(
        KAPERN, {"num_players": num_players}, layout_pieces(env.observation_layout), env.num_actions, policy
    )
    path = save_agent(tmp_path / "agent.npz", policy, header)
    return path, policy, header, env


def test_round_trip_gives_the_same_logits_and_header(tmp_path):
    path, policy, header, env = kapern_agent(tmp_path)
    loaded, loaded_header = load_agent(path)
    assert loaded_header == header
    obs = np.random.default_rng(1).normal(size=(5, policy.obs_size)).astype(np.float32)
    np.testing.assert_array_equal(loaded.logits(obs), policy.logits(obs))
    agent = make_agent(f"ppo:{path}", KAPERN, env=env)
    record = play_game(env, [agent, make_agent("random", KAPERN, seed=1, env=env)], seed=0)
    assert len(record.scores) == 2
    with np.load(path, allow_pickle=False) as archive:  # everything in it is plain arrays
        assert sorted(archive.files) == ["b0", "b1", "header", "w0", "w1"]


def rewrite(path, header=None, **arrays):
    """Rewrite an agent file with another header and/or arrays (no checks)."""
    with np.load(path, allow_pickle=False) as archive:
        content = {name: archive[name] for name in archive.files}
    if header is not None:
        content["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    content.update(arrays)
    np.savez(path, **content)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "something"}, "not a pirate_envs.agent file"),
        ({"version": 7}, "version 7"),
        ({"observation_size": 3}, "adds up to"),
        ({"layer_sizes": [50, 8, 3]}, "layer_sizes must run"),
        ({"activation": "Softsign"}, "activation must be one of"),
        ({"action_head": {"kind": "attention"}}, "action_head kind"),
        ({"player_counts": []}, "player_counts"),
        ({"env_kwargs": "num_players=2"}, "env_kwargs"),
        ({"observation_layout": [["dice", [-1]]]}, "observation_layout entries"),
    ],
)
def test_every_header_field_is_checked_on_load(tmp_path, change, message):
    path, _, header, _ = kapern_agent(tmp_path)
    rewrite(path, header={**header, **change})
    with pytest.raises(CheckpointError, match=message):
        load_agent(path)


def test_array_shapes_types_and_pickles_are_refused(tmp_path):
    path, *_ = kapern_agent(tmp_path)
    rewrite(path, w1=np.zeros((8, 5), np.float32))
    with pytest.raises(CheckpointError, match=r"array .w1\.npy. has shape \(8, 5\); layer_sizes need \(8, 2084\)"):
        load_agent(path)
    path, *_ = kapern_agent(tmp_path)
    rewrite(path, b0=np.zeros(8, np.float64))
    with pytest.raises(CheckpointError, match="float32"):
        load_agent(path)
    path, *_ = kapern_agent(tmp_path)
    rewrite(path, w2=np.zeros(3, np.float32))
    with pytest.raises(CheckpointError, match="do not match layer_sizes"):
        load_agent(path)
    path, *_ = kapern_agent(tmp_path)
    rewrite(path, b0=np.array([object()] * 8, dtype=object))  # a pickled object array
    with pytest.raises(CheckpointError, match="holds Python objects"):
        load_agent(path)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="not a zip archive"):
        load_agent(tmp_path / "junk.npz")


def test_a_layout_with_a_new_piece_still_plays_by_piece_name():
    old = ObservationLayout([("hand", (3,)), ("scores", (2,))])
    new = ObservationLayout([("hand", (3,)), ("hands_left", (1,)), ("scores", (2,))])  # a piece was added
    policy = random_policy([old.size, 4, 3])
    header = make_header("skull_king_v0", {"num_players": 2}, layout_pieces(old), 3, policy)
    assert input_index(header, old) is None
    index = input_index(header, new)
    np.testing.assert_array_equal(index, [0, 1, 2, 4, 5])
    obs_old = np.array([1, 0, 1, 0.5, -0.5], np.float32)
    obs_new = np.array([1, 0, 1, 0.9, 0.5, -0.5], np.float32)  # the same facts with the new piece in them
    np.testing.assert_array_equal(policy.with_inputs(index).logits(obs_new), policy.logits(obs_old))
    reshaped = ObservationLayout([("hand", (4,)), ("scores", (2,))])
    with pytest.raises(CheckpointError, match=r"'hand' has shape \(4,\), the agent's \(3,\)"):
        input_index(header, reshaped)
    renamed = ObservationLayout([("cards", (3,)), ("scores", (2,))])
    with pytest.raises(CheckpointError, match="'hand' is missing"):
        input_index(header, renamed)


def test_a_checkpoint_that_does_not_fit_the_table_names_its_player_counts(tmp_path):
    path, *_ = kapern_agent(tmp_path)
    three = pirate_envs.make(KAPERN, raw=True, num_players=3)
    with pytest.raises(ValueError, match="plays 2 players, not 3"):
        make_agent(f"ppo:{path}", KAPERN, env=three)
    with pytest.raises(ValueError, match="trained on piraten_kapern_v0"):
        make_agent(f"ppo:{path}", "skull_king_v0")


def test_shipped_agents_are_data_only_files():
    names = shipped_checkpoints()
    assert names == sorted(pirate_envs.ENV_IDS)  # one per game version
    assert not list(PRETRAINED_DIR.glob("*.zip"))  # no pickled checkpoint ships
    for name in names:
        policy, header = load_checkpoint(name)
        made_by = ("python -m experiments.train", "python -m experiments.imitate")
        assert header["env_id"] == name and header["training"]["command"].startswith(made_by)
        env = pirate_envs.make(name, raw=True, **header["env_kwargs"])
        assert header["num_actions"] == env.num_actions == policy.num_actions


def test_a_shipped_name_is_not_shadowed_by_a_file_in_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / KAPERN).write_bytes(b"whatever")
    agent = make_agent(f"ppo:{KAPERN}", KAPERN)
    assert agent.policy.num_actions == pirate_envs.make(KAPERN, raw=True).num_actions
    (tmp_path / "my_agent").write_bytes(b"whatever")
    with pytest.raises(ValueError, match=r"must contain a '/' or end in \.npz or \.zip"):
        make_agent("ppo:my_agent", KAPERN)


@pytest.mark.slow
def test_the_wheel_carries_the_shipped_agents(tmp_path):
    """A normal install has the shipped agents: build the wheel from a copy of the sources and list it."""
    import shutil
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, source / name)
    for package in ("pirate_envs", "agents", "experiments"):
        shutil.copytree(root / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), "."]
    result = subprocess.run(command, cwd=source, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = tmp_path.glob("pirate_envs-*.whl")
    shipped = sorted(n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("agents/pretrained/"))
    assert shipped == [f"agents/pretrained/{name}.npz" for name in shipped_checkpoints()]
