"""Value heads in agent files (format version 2): round trip, the loaded agents' ``value``, version-1
files that still load and play as before, malformed value networks refused in one line, and the
value SB3 trained exported exactly (``policy_from_sb3``, legacy zips, the training command)."""

from __future__ import annotations

import itertools
import json
import pickle
import re
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import pirate_envs
from agents.batched import make_batched_agent
from agents.benchmark.protocol import REFERENCE_DIR
from agents.policy.agent import PRETRAINED_DIR, load_checkpoint
from agents.policy.checkpoint import (
    MAX_HEADER_DEPTH,
    MAX_PARAMETERS,
    CheckpointError,
    layout_pieces,
    load_agent,
    make_header,
    make_value_target,
    save_agent,
)
from agents.policy.mlp import MlpPolicy
from agents.registry import make_agent
from experiments import evaluate
from tests.agents.policy.test_agent_files import (
    check_refusal,
    members_of,
    nan_in,
    nested,
    npy_claiming,
    weights_of,
    with_header,
    with_members,
    with_weights,
    write_zip,
)
from tests.agents.policy.test_agent_files import (
    test_damage_anywhere_in_the_file_is_refused_or_harmless as damage_check,
)
from tests.game_data import by_version

GAME = "skull_king_v0"
TARGET = {"kind": "win_share", "scale": 1.0, "gamma": 0.99}


def chain(sizes: list[int], rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    weights = [rng.normal(size=(a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    return weights, [rng.normal(size=b).astype(np.float32) for b in sizes[1:]]


def valued_policy(obs_size: int, num_actions: int, seed: int = 0) -> MlpPolicy:
    """Random actor (one hidden layer of 8) and critic (two hidden layers of 6 and 5)."""
    rng = np.random.default_rng(seed)
    weights, biases = chain([obs_size, 8, num_actions], rng)
    value_weights, value_biases = chain([obs_size, 6, 5, 1], rng)
    return MlpPolicy(weights, biases, "Tanh", None, value_weights, value_biases)


def valued_agent(path: Path, value: bool = True) -> tuple[Path, MlpPolicy, dict]:
    """A valid two-player agent file with a value head (``value=False``: version 2 without one)."""
    env = pirate_envs.make(GAME, raw=True, num_players=2)
    policy = valued_policy(env.observation_layout.size, env.num_actions)
    if not value:
        policy = policy.without_value()
    layout = layout_pieces(env.observation_layout)
    header = make_header(
        GAME, {"num_players": 2}, layout, env.num_actions, policy, value_target=TARGET if value else None
    )
    return save_agent(path, policy, header), policy, header


def observations(size: int, rows: int = 6, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(rows, size)).astype(np.float32)


def test_a_value_head_round_trips_and_the_loaded_agents_give_its_value(tmp_path):
    path, policy, header = valued_agent(tmp_path / "agent.npz")
    loaded, loaded_header = load_agent(path)
    assert loaded_header == header and header["version"] == 2
    assert header["value_layer_sizes"] == [policy.obs_size, 6, 5, 1] and header["value_target"] == TARGET
    obs = observations(policy.obs_size)
    expected = np.tanh(np.tanh(obs @ policy.value_weights[0] + policy.value_biases[0]) @ policy.value_weights[1]
                       + policy.value_biases[1]) @ policy.value_weights[2] + policy.value_biases[2]  # fmt: skip
    value = loaded.value(obs)
    assert value.dtype == np.float32 and value.shape == (6,)
    np.testing.assert_allclose(value, expected[:, 0], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(value, policy.value(obs))
    logits, both_value = loaded.logits_and_value(obs)
    np.testing.assert_array_equal(logits, policy.logits(obs))
    np.testing.assert_array_equal(both_value, value)
    assert loaded.value(obs[0]).shape == ()
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(loaded)).value(obs), value)  # into worker processes
    with np.load(path, allow_pickle=False) as archive:  # plain arrays, named as the format says
        assert sorted(archive.files) == ["b0", "b1", "header", "vb0", "vb1", "vb2", "vw0", "vw1", "vw2", "w0", "w1"]

    env = pirate_envs.make(GAME, raw=True, num_players=2)
    agent = make_agent(f"ppo:{path}", GAME, env=env)
    np.testing.assert_array_equal(agent.value(obs), value)
    np.testing.assert_array_equal(agent.logits_and_value(obs)[1], value)
    without_env = make_agent(f"ppo:{path}", GAME)  # reads observations by their size
    np.testing.assert_array_equal(without_env.value(obs), value)
    batched = make_batched_agent(f"ppo:{path}", GAME, env, num_games=6, seed=0)
    np.testing.assert_array_equal(batched.values(obs), value)
    np.testing.assert_array_equal(batched.logits_and_values(obs)[0], logits)


def first_observation(num_players: int, **options: object) -> np.ndarray:
    env = pirate_envs.make(GAME, raw=True, num_players=num_players, **options)
    env.reset(seed=num_players)
    return env.observe(env.agent_selection)["observation"]


def test_an_agent_of_every_table_gives_the_value_of_a_batch_of_mixed_tables(tmp_path):
    """An agent of the ``"max"`` layout made without an env reads each row's table size (not the batch's sum)."""
    env = pirate_envs.make(GAME, raw=True, num_players=2, table_layout="max")
    policy = valued_policy(env.observation_layout.size, env.num_actions)
    layout = layout_pieces(env.observation_layout)
    header = make_header(
        GAME, {"table_layout": "max"}, layout, env.num_actions, policy, player_counts=[2, 3], value_target=TARGET
    )
    path = save_agent(tmp_path / "max.npz", policy, header)
    agent = make_agent(f"ppo:{path}", GAME)
    rows = np.stack([first_observation(2, table_layout="max"), first_observation(3, table_layout="max")])
    np.testing.assert_array_equal(agent.value(rows), policy.value(rows))
    assert agent.value(rows[1]) == policy.value(rows)[1]
    with pytest.raises(ValueError, match="this observation is of a 4-player table; pass env= to make_agent"):
        agent.value(np.stack([rows[0], first_observation(4, table_layout="max")]))


def test_a_layout_read_by_piece_name_feeds_the_value_head_the_same_inputs():
    policy = valued_policy(3, 2)
    index = np.array([0, 2, 3])
    wide = np.array([[0.5, 9.0, -1.0, 2.0]], np.float32)  # entry 1: a piece the agent does not read
    np.testing.assert_array_equal(policy.with_inputs(index).value(wide), policy.value(wide[:, index]))


def test_an_agent_without_a_value_head_says_so_in_one_line(tmp_path):
    path, policy, header = valued_agent(tmp_path / "agent.npz", value=False)
    assert header["value_layer_sizes"] is None and header["value_target"] is None
    loaded, _ = load_agent(path)
    obs = observations(policy.obs_size)
    env = pirate_envs.make(GAME, raw=True, num_players=2)
    callers: list[Callable[[], object]] = [
        lambda: loaded.value(obs),
        lambda: loaded.logits_and_value(obs),
        lambda: make_agent(f"ppo:{path}", GAME, env=env).value(obs),
        lambda: make_batched_agent(f"ppo:{path}", GAME, env, num_games=6).values(obs),
        lambda: make_batched_agent(f"ppo:{path}", GAME, env, num_games=6).logits_and_values(obs),
    ]
    for call in callers:
        with pytest.raises(ValueError, match="has no value head") as error:
            call()
        assert "\n" not in str(error.value)


def test_make_header_needs_a_value_target_exactly_with_a_value_head():
    env = pirate_envs.make(GAME, raw=True, num_players=2)
    policy = valued_policy(env.observation_layout.size, env.num_actions)
    layout = layout_pieces(env.observation_layout)
    with pytest.raises(CheckpointError, match="both be null or both be set"):
        make_header(GAME, {"num_players": 2}, layout, env.num_actions, policy)
    with pytest.raises(CheckpointError, match="both be null or both be set"):
        make_header(GAME, {"num_players": 2}, layout, env.num_actions, policy.without_value(), value_target=TARGET)
    assert make_value_target("win", 0.01, 0.995) == {"kind": "win_share", "scale": 1.0, "gamma": 0.995}
    assert make_value_target("score", 0.01, None) == {"kind": "score", "scale": 0.01, "gamma": None}
    assert make_value_target("margin", 0.01, 0.99) == {"kind": "score_margin", "scale": 0.01, "gamma": 0.99}
    assert make_value_target(None, 0.01, 0.995) is None


def reference_logits(path: Path, obs: np.ndarray) -> np.ndarray:
    """The version-1 network read with plain numpy, independently of ``agents``: tanh/relu hidden layers."""
    with np.load(path, allow_pickle=False) as archive:
        header = json.loads(archive["header"].tobytes())
        act = {"Tanh": np.tanh, "ReLU": lambda x: np.maximum(x, 0.0), "Identity": lambda x: x}[header["activation"]]
        layers = len(header["layer_sizes"]) - 1
        x = obs
        for i in range(layers):
            x = x @ archive[f"w{i}"] + archive[f"b{i}"]
            x = act(x) if i < layers - 1 else x
    return x


def trained_columns(header: dict, layout) -> np.ndarray:
    """The env vector's indices of the pieces the agent was trained on, by name, in the header's order
    (an env may have gained pieces since; the agent reads only its own)."""
    pieces = [layout[name] for name, _ in header["observation_layout"]]
    return np.concatenate([np.arange(piece.start, piece.stop) for piece in pieces])


def env_positions(env, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and masks of random games of ``env`` (every seat's turns)."""
    rng = np.random.default_rng(0)
    obs, masks, seed = [], [], 0
    while len(obs) < count:
        env.reset(seed=seed)
        seed += 1
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if len(obs) >= count:
                break
            obs.append(observation["observation"])
            masks.append(observation["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return np.array(obs, np.float32), np.array(masks, bool)


def agent_files_of_version(version: int) -> list[Path]:
    """The shipped agent files and the benchmark's reference networks of one format version."""
    files = sorted(PRETRAINED_DIR.glob("*.npz")) + sorted(REFERENCE_DIR.glob("*.npz"))
    return [path for path in files if json.loads(np.load(path)["header"].tobytes())["version"] == version]


def test_every_shipped_agent_file_is_of_a_known_version_and_some_ship_a_value_head():
    shipped = sorted(PRETRAINED_DIR.glob("*.npz"))
    assert set(shipped) <= set(agent_files_of_version(1)) | set(agent_files_of_version(2))
    for path in set(shipped) & set(agent_files_of_version(2)):
        policy, header = load_agent(path)
        assert policy.has_value and header["value_target"]["kind"] in ("score", "win_share")
        assert np.isfinite(policy.value(observations(policy.obs_size, rows=8))).all()


@pytest.mark.parametrize("path", agent_files_of_version(1), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_shipped_version_1_agents_load_without_a_value_and_play_as_before(path):
    policy, header = load_agent(path)
    assert header["version"] == 1 and "value_layer_sizes" not in header and not policy.has_value
    env = pirate_envs.make(path.stem, raw=True, **header["env_kwargs"])
    obs, masks = env_positions(env, 40)
    agent = make_agent(f"ppo:{path}", path.stem, env=env)
    trained_obs = obs[:, trained_columns(header, env.observation_layout)]
    expected = np.argmax(np.where(masks, reference_logits(path, trained_obs), -np.inf), axis=1)
    actions = [agent.act({"observation": o, "action_mask": m.astype(np.int8)}) for o, m in zip(obs, masks)]
    assert actions == expected.tolist()
    random_obs = observations(policy.obs_size, rows=20)
    np.testing.assert_array_equal(policy.logits(random_obs), reference_logits(path, random_obs))
    with pytest.raises(ValueError, match="has no value head"):
        agent.value(obs)


def as_version_1(header: dict) -> dict:
    return {key: value for key, value in header.items() if not key.startswith("value_")} | {"version": 1}


def test_a_version_1_file_loads_and_may_not_name_value_fields(tmp_path):
    path, policy, _ = valued_agent(tmp_path / "agent.npz", value=False)
    version_1 = with_header(as_version_1)(path, tmp_path / "v1.npz")
    loaded, header = load_agent(version_1)
    assert header["version"] == 1 and not loaded.has_value
    np.testing.assert_array_equal(
        loaded.logits(observations(policy.obs_size)), policy.logits(observations(policy.obs_size))
    )
    mixed = with_header(lambda h: as_version_1(h) | {"value_layer_sizes": None})(path, tmp_path / "mixed.npz")
    with pytest.raises(CheckpointError, match=r"header has unknown fields \['value_layer_sizes'\] \(version 1 has"):
        load_agent(mixed)


def value_npy(name: str, change: Callable[[np.ndarray], np.ndarray]) -> Callable[[Path, Path], Path]:
    """A crafter: the valid agent with the value array ``name`` changed."""
    return lambda valid, out: with_weights(**{name: change(weights_of(valid, name))})(valid, out)


def sizes_with(change: Callable[[list[int]], list[int]]) -> Callable[[Path, Path], Path]:
    return with_header(lambda h: h.update(value_layer_sizes=change(h["value_layer_sizes"])))


#: name: (crafter of the malformed file from a valid one with a value head, a pattern of the fault)
MALFORMED_VALUE: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "value weight of the wrong shape": (
        with_weights(vw1=np.zeros((6, 4), np.float32)),
        r"array 'vw1\.npy' has shape \(6, 4\); value_layer_sizes need \(6, 5\)",
    ),
    "value output bias of the wrong shape": (
        with_weights(vb2=np.zeros(2, np.float32)),
        r"array 'vb2\.npy' has shape \(2,\); value_layer_sizes need \(1,\)",
    ),
    "value weights claim 1e12 elements": (
        with_members(vw0_npy=npy_claiming((10**6, 10**6))),
        r"array 'vw0\.npy' has shape \(1000000, 1000000\); value_layer_sizes need",
    ),
    "value array not a .npy": (with_members(vb0_npy=b"\x93NUMPX garbage"), r"array 'vb0\.npy' has no valid \.npy"),
    "deep value_target": (
        with_header(lambda h: h.update(value_target=json.loads(nested(MAX_HEADER_DEPTH + 1)))),
        f"nests deeper than {MAX_HEADER_DEPTH}",
    ),
    "NaN value weight": (
        value_npy("vw0", lambda a: nan_in(a, np.nan)),
        "value layer 0 holds values that are not finite",
    ),
    "infinite value bias": (value_npy("vb1", lambda a: nan_in(a, np.inf)), "value layer 1 holds values"),
    "float64 value weights": (
        value_npy("vw2", lambda a: a.astype(np.float64)),
        r"array 'vw2\.npy' is float64, expected float32",
    ),
    "pickled value bias": (
        with_weights(vb0=np.array([object()] * 6, dtype=object)),
        r"array 'vb0\.npy' holds Python objects",
    ),
    "missing value member": (with_members(vb1_npy=None), r"value_layer_sizes .*missing \['vb1'\]"),
    "extra value member": (with_weights(vw3=np.zeros((1, 1), np.float32)), r"extra \['vw3'\]"),
    "unexpected member": (with_weights(value_notes=np.zeros(1, np.float32)), r"extra \['value_notes'\]"),
    "value arrays without value_layer_sizes": (
        with_header(lambda h: h.update(value_layer_sizes=None, value_target=None)),
        r"do not match layer_sizes .*extra \['vb0', 'vb1', 'vb2', 'vw0', 'vw1', 'vw2'\]",
    ),
    "value_layer_sizes without arrays": (
        lambda v, o: write_zip(o, {k: d for k, d in members_of(v).items() if not k.startswith("v")}),
        r"missing \['vb0', 'vb1', 'vb2', 'vw0', 'vw1', 'vw2'\]",
    ),
    "value output of 2": (sizes_with(lambda s: [*s[:-1], 2]), "value_layer_sizes must run from observation_size"),
    "value input not the observation": (
        sizes_with(lambda s: [7, *s[1:]]),
        r"value_layer_sizes must run from observation_size \d+ to 1, got \[7, 6, 5, 1\]",
    ),
    "value_layer_sizes not a list": (sizes_with(lambda s: "big"), "value_layer_sizes must run"),
    "too many value layers": (sizes_with(lambda s: [s[0]] + [2] * 40 + [1]), "value_layer_sizes has 41 layers"),
    "value network over the parameter cap": (
        sizes_with(lambda s: [s[0], 10**4, 10**4, 1]),
        f"and value_layer_sizes .* make .* parameters, above the cap of {MAX_PARAMETERS}",
    ),
    "value_layer_sizes without value_target": (
        with_header(lambda h: h.update(value_target=None)),
        "value_layer_sizes and value_target must both be null or both be set",
    ),
    "no value_layer_sizes field in version 2": (
        with_header(lambda h: {k: v for k, v in h.items() if k != "value_layer_sizes"}),
        r"header has no 'value_layer_sizes' \(null when the file has no value head\)",
    ),
    "no value_target field in version 2": (
        with_header(lambda h: {k: v for k, v in h.items() if k != "value_target"}),
        "header has no 'value_target'",
    ),
    "unknown value kind": (
        with_header(lambda h: h["value_target"].update(kind="elo")),
        r'value_target must be \{"kind": "win_share" or "score"',
    ),
    "negative value scale": (with_header(lambda h: h["value_target"].update(scale=-1)), "value_target must be"),
    "value gamma above 1": (with_header(lambda h: h["value_target"].update(gamma=1.5)), "value_target must be"),
    "value gamma NaN text": (with_header(lambda h: h["value_target"].update(gamma="NaN")), "value_target must be"),
    "extra value_target field": (with_header(lambda h: h["value_target"].update(code="x")), "value_target must be"),
    "version 3": (with_header(lambda h: h.update(version=3)), r"format version 3 is not supported \(this code reads 1"),
    "version true": (with_header(lambda h: h.update(version=True)), "format version True is not supported"),
}


@pytest.fixture(scope="module")
def valid_valued(tmp_path_factory) -> Path:
    return valued_agent(tmp_path_factory.mktemp("valued") / "agent.npz")[0]


@pytest.mark.parametrize("case", MALFORMED_VALUE)
def test_a_malformed_value_head_is_refused_in_one_line_naming_the_file(valid_valued, tmp_path, case):
    craft, fault = MALFORMED_VALUE[case]
    path = craft(valid_valued, tmp_path / "bad.npz")
    with pytest.raises(CheckpointError) as error:
        load_agent(path)
    check_refusal(error.value, path, fault)


def test_a_value_array_claiming_gigabytes_is_refused_before_anything_large_is_allocated(valid_valued, tmp_path):
    craft, _ = MALFORMED_VALUE["value weights claim 1e12 elements"]
    path = craft(valid_valued, tmp_path / "bad.npz")
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError):
            load_agent(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**22, f"{peak} bytes at the peak"


def test_damage_anywhere_in_a_file_with_a_value_head_is_refused_or_harmless(valid_valued, tmp_path):
    """The damage check of every agent file (cuts and bit flips), on a file with a value head."""
    damage_check(valid_valued, tmp_path)


@pytest.mark.parametrize("case", ["NaN value weight", "missing value member", "value_layer_sizes without value_target"])
def test_the_command_line_prints_one_line_for_a_malformed_value_head(valid_valued, tmp_path, case, capsys):
    craft, fault = MALFORMED_VALUE[case]
    path = craft(valid_valued, tmp_path / "bad.npz")
    argv = ["--env-id", GAME, "--agents", f"ppo:{path}", "heuristic", "--players", "2", "--games", "2"]
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1 and "Traceback" not in err and str(path) in err, err
    assert re.search(fault, err), err


# --- SB3: the exported value equals the critic's ------------------------------------------------


def tiny_model(env_id: str, policy: object = "MlpPolicy", **policy_kwargs: object):
    """A MaskablePPO of two-player tables whose parameters are moved off their initial values."""
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents.selfplay.vec_env import make_vec_env

    if "activation_fn" in policy_kwargs:
        policy_kwargs["activation_fn"] = getattr(torch.nn, str(policy_kwargs["activation_fn"]))
    vec = make_vec_env(env_id, 2, 0, seed=0, opponents={"random": 1.0}, env_kwargs={"num_players": 2})
    model = sb3_contrib.MaskablePPO(policy, vec, n_steps=64, batch_size=64, seed=0, device="cpu",
                                    policy_kwargs=policy_kwargs)  # fmt: skip
    with torch.no_grad():  # SB3 starts the critic's head near zero: move it off so the check means something
        for parameter in model.policy.parameters():
            parameter.add_(torch.randn(parameter.shape, generator=torch.Generator().manual_seed(1)) * 0.1)
    return model, vec


# the network shapes by version: each game's ``value_networks`` in tests/<game>/short_games.json
@pytest.mark.parametrize(("env_id", "kwargs"), list(by_version("value_networks").items()))
def test_the_exported_value_equals_sb3_predict_values(env_id, kwargs):
    import torch

    from agents.policy.agent import policy_from_sb3

    model, vec = tiny_model(env_id, **kwargs)
    policy = policy_from_sb3(model.policy, with_value=True)
    assert not policy_from_sb3(model.policy).has_value  # the actor alone by default (self-play snapshots)
    obs = observations(policy.obs_size, rows=64, seed=2)
    with torch.no_grad():
        expected = model.policy.predict_values(torch.as_tensor(obs))[:, 0].numpy()
    assert np.abs(expected).max() > 0.05
    np.testing.assert_allclose(policy.value(obs), expected, rtol=1e-5, atol=1e-5)
    vec.close()


def test_the_feature_head_policy_exports_its_value_too():
    torch = pytest.importorskip("torch")
    from agents.policy.agent import policy_from_sb3
    from agents.ppo.action_head import FeatureHeadPolicy

    features = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=2).action_features.matrix
    model, vec = tiny_model("piraten_kapern_v0", FeatureHeadPolicy, net_arch=[16], action_features=features)
    policy = policy_from_sb3(model.policy, with_value=True)
    obs = observations(policy.obs_size, rows=16, seed=3)
    with torch.no_grad():
        expected = model.policy.predict_values(torch.as_tensor(obs))[:, 0].numpy()
    np.testing.assert_allclose(policy.value(obs), expected, rtol=1e-5, atol=1e-5)
    vec.close()


def test_a_legacy_sb3_zip_brings_its_critic_when_it_names_its_reward_mode(tmp_path):
    torch = pytest.importorskip("torch")
    from tests.agents.policy.test_agent_files_sb3 import META, sb3_members, state_dict

    state = state_dict()
    obs = observations(state["mlp_extractor.value_net.0.weight"].shape[1], seed=4)
    with torch.no_grad():
        hidden = torch.tanh(torch.as_tensor(obs) @ state["mlp_extractor.value_net.0.weight"].T
                            + state["mlp_extractor.value_net.0.bias"])  # fmt: skip
        expected = (hidden @ state["value_net.weight"].T + state["value_net.bias"])[:, 0].numpy()
    data = {"pirate_envs_meta": {**META, "reward_mode": "score"}, "num_timesteps": 64, "gamma": 0.9}
    path = write_zip(tmp_path / "scored.zip", sb3_members(data=data))
    policy, header = load_checkpoint(str(path))
    np.testing.assert_allclose(policy.value(obs), expected, rtol=1e-5, atol=1e-6)
    scale = pirate_envs.make(GAME, raw=True, num_players=2).SCORE_SCALE
    assert header["value_target"] == {"kind": "score", "scale": scale, "gamma": 0.9}
    unknown = write_zip(tmp_path / "unknown.zip", sb3_members())  # no reward mode: what it estimates is unknown
    policy, header = load_checkpoint(str(unknown))
    assert not policy.has_value and header["value_target"] is None and header["value_layer_sizes"] is None
    bad = {**state, "value_net.weight": torch.ones(2, 8)}
    with pytest.raises(CheckpointError, match=r"the critic's layers do not chain to 1 output"):
        load_checkpoint(str(write_zip(tmp_path / "bad.zip", sb3_members(state=bad, data=data))))
    nan = {**state, "mlp_extractor.value_net.0.bias": torch.full((8,), float("nan"))}
    with pytest.raises(CheckpointError, match="value layer 0 holds values that are not finite"):
        load_checkpoint(str(write_zip(tmp_path / "nan.zip", sb3_members(state=nan, data=data))))
    no_head = {k: v for k, v in state.items() if not k.startswith("value_net.")}
    with pytest.raises(CheckpointError, match=r"policy\.pth has no tensor value_net\.weight"):
        load_checkpoint(str(write_zip(tmp_path / "nohead.zip", sb3_members(state=no_head, data=data))))


def test_training_writes_agent_files_with_the_value_the_run_learned(tmp_path):
    """A tiny ``python -m experiments.train`` run: its agent files carry the critic, equal to the SB3 zip's."""
    pytest.importorskip("sb3_contrib")
    from tests.experiments.test_training_safety import tiny_run

    run = tiny_run(tmp_path, "run", 64, "--reward-mode", "score", "--gamma", "0.97")
    for name in ("latest", "step_64"):
        policy, header = load_agent(run / "checkpoints" / f"{name}.npz")
        assert header["version"] == 2 and header["value_layer_sizes"][-1] == 1 and policy.has_value
        scale = pirate_envs.make(GAME, raw=True, num_players=2).SCORE_SCALE
        assert header["value_target"] == {"kind": "score", "scale": scale, "gamma": 0.97}
    from_zip, _ = load_checkpoint(str(run / "checkpoints" / "latest.zip"))  # the SB3 zip's critic, read apart
    obs = observations(policy.obs_size, rows=16, seed=5)
    np.testing.assert_allclose(policy.value(obs), from_zip.value(obs), rtol=1e-6, atol=1e-7)
    assert np.abs(policy.value(obs)).max() > 0
