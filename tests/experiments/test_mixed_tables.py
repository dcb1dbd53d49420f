"""One trained agent for every table size: the ``"max"`` table layout read at any seated table,
the player counts an agent plays, and training on a mix of table sizes."""

from __future__ import annotations

import random

import numpy as np
import pytest

import pirate_envs
from agents.base import action_blocks, sample_legal
from agents.policy.agent import make_policy_agent
from agents.policy.checkpoint import layout_pieces, make_header, save_agent
from agents.registry import agent_player_counts, make_agent
from tests.experiments.test_checkpoint import random_policy
from tests.games import require


def max_layout_agent(tmp_path, env_id: str, counts: list[int], name: str = "agent.npz"):
    """A random-weight agent file of the ``"max"`` table layout for ``counts``; its policy and path."""
    env = pirate_envs.make(env_id, raw=True, num_players=counts[0], table_layout="max")
    policy = random_policy([env.observation_layout.size, 16, env.num_actions])
    header = make_header(
        env_id,
        {"table_layout": "max"},
        layout_pieces(env.observation_layout),
        env.num_actions,
        policy,
        player_counts=counts,
    )
    return policy, save_agent(tmp_path / name, policy, header)


def test_a_max_layout_agent_reads_a_seated_table_as_its_own_layout(tmp_path, env_id):
    """At a seated table the agent sees exactly the vector the "max" env would give it, at every count the game
    allows."""
    require(env_id, "table_layouts")
    counts = list(pirate_envs.game_spec(env_id).player_counts)
    policy, path = max_layout_agent(tmp_path, env_id, counts)
    for n in counts:
        seated = pirate_envs.make(env_id, raw=True, num_players=n)
        padded = pirate_envs.make(env_id, raw=True, num_players=n, table_layout="max")
        on_seated = make_agent(f"ppo:{path}", env_id, env=seated)
        on_padded = make_agent(f"ppo:{path}", env_id, env=padded)
        assert on_padded.policy.input_index is None
        rng = random.Random(n)
        seated.reset(seed=n)
        padded.reset(seed=n)
        blocks = action_blocks(seated)
        checked = 0
        for _agent in seated.agent_iter(max_iter=60):
            obs, _, terminated, truncated, _ = seated.last()
            if terminated or truncated:
                break
            twin = padded.observe(padded.agent_selection)
            np.testing.assert_array_equal(
                on_seated.policy.logits(obs["observation"]), policy.logits(twin["observation"])
            )
            assert on_seated.act(obs) == on_padded.act(twin)
            action = sample_legal(obs["action_mask"], rng, blocks)
            seated.step(action)
            padded.step(action)
            checked += 1
        assert checked > 5


@pytest.mark.parametrize("env_id", ["skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0"])
def test_a_seated_agent_reads_a_max_layout_env_of_its_table_size(env_id):
    """The shipped (seated, 4-player) agent at a "max" table of 4: the logits it has at a seated one."""
    seated = pirate_envs.make(env_id, raw=True, num_players=4)
    padded = pirate_envs.make(env_id, raw=True, num_players=4, table_layout="max")
    on_seated = make_agent(f"ppo:{env_id}", env_id, env=seated)
    on_padded = make_agent(f"ppo:{env_id}", env_id, env=padded)
    seated.reset(seed=5)
    padded.reset(seed=5)
    for agent in seated.possible_agents:
        np.testing.assert_array_equal(
            on_padded.policy.logits(padded.observe(agent)["observation"]),
            on_seated.policy.logits(seated.observe(agent)["observation"]),
        )


def test_an_agent_says_which_counts_it_plays_and_refuses_the_others(tmp_path):
    _, path = max_layout_agent(tmp_path, "skull_king_v0", [2, 3])
    assert agent_player_counts(f"ppo:{path}", "skull_king_v0") == (2, 3)
    assert agent_player_counts("heuristic", "skull_king_v0") == (2, 3, 4, 5, 6)  # every count the rules allow
    with pytest.raises(ValueError, match=r"plays 2 or 3 players, not 4$"):
        make_agent(f"ppo:{path}", "skull_king_v0", env=pirate_envs.make("skull_king_v0", raw=True, num_players=4))
    # built from its own header: the "max" layout and a table it plays
    agent = make_policy_agent(str(path), "skull_king_v0")
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=3, table_layout="max")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs)]


def test_evaluate_refuses_a_table_the_agent_does_not_play_with_one_line(tmp_path, capsys):
    from experiments import evaluate

    _, path = max_layout_agent(tmp_path, "skull_king_v0", [2, 3])
    argv = ["--env-id", "skull_king_v0", "--agents", f"ppo:{path}", "heuristic", "random", "random", "--games", "2"]
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "plays 2 or 3 players, not 4" in err


def test_the_selfplay_env_draws_a_table_size_per_episode():
    from agents.selfplay.env import SelfPlayEnv

    env = SelfPlayEnv("skull_king_v0", opponents="random", player_counts={2: 1.0, 3: 1.0, 4: 0.0}, num_hands=1)
    size = pirate_envs.make("skull_king_v0", raw=True, num_players=2, table_layout="max").observation_layout.size
    assert env.observation_space.shape == (size,)
    seen = []
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        assert obs.shape == (size,) and info["num_players"] == env.num_players == len(env.raw.possible_agents)
        assert env.raw.table_layout == "max"
        done = False
        while not done:
            mask = env.action_masks()
            obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
            done = terminated or truncated
        assert info["num_players"] == env.num_players
        seen.append(env.num_players)
    assert set(seen) == {2, 3}  # the size of weight 0 is never drawn
    assert 10 <= seen.count(2) <= 30


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"player_counts": [2, 3], "num_players": 2}, "num_players=2 or player_counts, not both"),
        ({"player_counts": [2, 2]}, "repeated"),
        ({"player_counts": {2: -1.0, 3: 1.0}}, "weights >= 0"),
        ({"player_counts": [2, 7]}, "num_players"),
        ({"player_counts": [2, 3], "table_layout": "seated"}, r"differ in size \[296, 373\]; use table_layout='max'"),
    ],
)
def test_the_selfplay_env_refuses_bad_table_sizes(kwargs, message):
    from agents.selfplay.env import SelfPlayEnv

    with pytest.raises(ValueError, match=message):
        SelfPlayEnv("skull_king_v0", opponents="random", **kwargs)


def test_training_on_two_table_sizes_gives_one_agent_that_plays_both(tmp_path, capsys):
    """A smoke run: --num-players 2 3, evaluated per size; the agent file loads and plays both sizes."""
    pytest.importorskip("sb3_contrib")
    import json

    from experiments import evaluate
    from experiments.train import main

    tiny = ["--num-envs", "4", "--num-workers", "0", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1"]
    tiny += ["--opponents", "random:1", "--eval-games", "4", "--eval-every", "0", "--total-timesteps", "512"]
    tiny += ["--env-id", "skull_king_v0", "--env-kwargs", "num_hands=2", "--num-players", "2", "3"]
    run = main(["--out-dir", str(tmp_path), "--run-name", "run", "--no-progress", *tiny])
    history = json.loads((run / "eval" / "history.json").read_text())
    assert sorted((row["num_players"], row["opponent"]) for row in history) == [(2, "heuristic"), (2, "random")] + [
        (3, "heuristic"),
        (3, "random"),
    ]
    assert (run / "learning_curve_2p.png").is_file() and (run / "learning_curve_3p.png").is_file()
    agent = run / "checkpoints" / "latest.npz"
    header = json.loads(np.load(agent, allow_pickle=False)["header"].tobytes())
    assert header["player_counts"] == [2, 3]
    assert header["env_kwargs"] == {"num_hands": 2, "table_layout": "max"}
    max_env = pirate_envs.make("skull_king_v0", raw=True, num_players=2, table_layout="max")
    assert header["observation_size"] == max_env.observation_layout.size
    assert agent_player_counts(f"ppo:{agent}", "skull_king_v0") == (2, 3)
    capsys.readouterr()
    for lineup in (["random"], ["random", "heuristic"]):  # 2 and 3 players, the default seated layout
        argv = ["--env-id", "skull_king_v0", "--agents", f"ppo:{agent}", *lineup, "--games", "4", "--no-progress"]
        results = evaluate.main(argv)
        assert [r.seats_played for r in results if r.agent == f"ppo:{agent}"] == [4]
    with pytest.raises(SystemExit) as exit_info:  # four players: not a size it plays
        evaluate.main(["--env-id", "skull_king_v0", "--agents", f"ppo:{agent}", "random", "random", "random"])
    assert exit_info.value.code == 2
    assert "plays 2 or 3 players, not 4" in capsys.readouterr().err
