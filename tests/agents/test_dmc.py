"""Deep Monte-Carlo (`agents.dmc`): training in every game, the agent file and ``dmc:`` names,
the Monte-Carlo returns, epsilon-greedy exploration and the update."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("torch")

import torch

import pirate_envs
import pirate_envs.vector
from agents.batched import make_batched_agent
from agents.dmc.features import QNetwork, action_features
from agents.dmc.learner import Learner
from agents.dmc.rollout import Actors, Batch, epsilon_greedy, monte_carlo_returns
from agents.evaluation.games import play_game
from agents.registry import agent_player_counts, make_agent
from experiments import evaluate, train_dmc
from experiments.cli import default_players
from pirate_envs.core.rewards import win_rewards
from tests.helpers import one_table_agent_file, refused

TINY = ["--total-steps", "300", "--num-games", "8", "--net-arch", "16", "--batch-size", "64", "--log-every", "1"]


def train_tiny(tmp_path, env_id: str, *extra: str):
    out = tmp_path / f"{env_id}.npz"
    return train_dmc.main(["--env-id", env_id, *TINY, *extra, "--out", str(out)])


@pytest.mark.parametrize("env_id", pirate_envs.vector.COVERED_ENV_IDS)
def test_dmc_trains_in_every_game_and_its_file_plays_a_whole_game(tmp_path, env_id):
    path = train_tiny(tmp_path, env_id, "--opponent", "heuristic", "--curve", str(tmp_path / "curve.json"))
    players = default_players(env_id)
    name = f"dmc:{path}"
    assert agent_player_counts(name, env_id) == (players,)
    env = pirate_envs.make(env_id, raw=True, num_players=players)
    agent = make_agent(name, env_id, seed=0, env=env)
    record = play_game(env, [agent] + [make_agent("random", env_id, seed=s, env=env) for s in range(players - 1)], 5)
    assert env.game.done and record.actions
    assert (tmp_path / "curve.json").exists()
    # the batched form picks the legal move of highest Q, as the file's network computes it
    venv = pirate_envs.vector.make(env_id, 16, seed=3, num_players=players)
    venv.reset()
    batched = make_batched_agent(name, env_id, env, 16, seed=0)
    chosen = batched.act_batch(np.arange(16), venv.observation, venv.action_mask)
    q = np.where(venv.action_mask > 0, agent.policy.logits(venv.observation), -np.inf)
    np.testing.assert_array_equal(chosen, np.argmax(q, axis=1))


def test_dmc_self_play_learns_from_every_seat_and_evaluate_plays_it(tmp_path, capsys):
    path = train_tiny(tmp_path, "lucky_pirate_v0", "--opponent", "self", "--num-players", "3")
    evaluate.main(["--env-id", "lucky_pirate_v0", "--agents", f"dmc:{path}", "heuristic", "random", "--games", "3",
                   "--no-progress"])  # fmt: skip
    assert f"dmc:{path}" in capsys.readouterr().out


def test_self_play_keeps_every_move_with_its_seats_final_reward():
    """In win mode every reward comes at the end: with gamma 1 each decision's return is its seat's final
    reward, checked against the games replayed in the AEC env (decisions kept step by step, games in order)."""
    actors = Actors("lucky_pirate_v0", 4, {"num_players": 3}, "self", gamma=1.0, seed=2)
    env = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=3)
    batch = actors.play(QNetwork(env.observation_layout.size, action_features(env), (8,)).to_policy(), 0.1)
    seats, finals = [], []
    for i in range(4):
        env.game = actors.venv.reference_engine(i)
        env.reset(options=actors.venv.reset_options(i))
        seats.append([])
        for move in actors.venv.moves(i):
            seats[i].append(env.game.current_player)
            env.step(move)
        assert env.game.done
        finals.append(win_rewards(env.game.winners(), 3) if env.game.terminated else np.zeros(3))
    expected = [finals[i][seats[i][t]] for t in range(max(map(len, seats))) for i in range(4) if t < len(seats[i])]
    np.testing.assert_allclose(batch.returns, expected, atol=1e-6)
    assert len(batch.actions) == len(batch.observations) == len(expected)
    assert batch.mean_reward == pytest.approx(0.0, abs=1e-6)  # every seat learns: zero-sum


def test_monte_carlo_returns_of_a_hand_made_episode():
    # game 0: four steps, seats 0 1 0 1; game 1 ends after two steps (zero rewards after its end)
    seats = np.array([[0, 1], [1, 0], [0, 0], [1, 0]])
    rewards = np.zeros((4, 2, 2))
    rewards[:, 0] = [[1, 0], [0, 2], [0, 0], [3, -1]]
    rewards[1, 1] = [-1, 1]
    np.testing.assert_allclose(monte_carlo_returns(seats, rewards, 1.0)[:, 0], [4, 1, 3, -1])
    np.testing.assert_allclose(monte_carlo_returns(seats, rewards, 0.5)[:, 0], [1.375, 1.75, 1.5, -1])
    np.testing.assert_allclose(monte_carlo_returns(seats, rewards, 1.0)[:2, 1], [1, -1])


@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0])
def test_epsilon_greedy_never_picks_an_illegal_move(epsilon):
    rng = np.random.default_rng(0)
    masks = (rng.random((3000, 40)) < 0.1).astype(np.int8)
    masks[np.arange(3000), rng.integers(40, size=3000)] = 1
    q = np.where(masks > 0, rng.normal(size=masks.shape), 1e9)  # the illegal moves look best
    actions = epsilon_greedy(q, masks, epsilon, rng)
    assert masks[np.arange(3000), actions].all()
    greedy = np.argmax(np.where(masks > 0, q, -np.inf), axis=1)
    explored = np.mean(actions != greedy)
    assert explored == 0 if epsilon == 0 else explored > epsilon / 2
    with pytest.raises(ValueError, match="no legal action"):
        epsilon_greedy(q[:2], np.zeros((2, 40), np.int8), epsilon, rng)


def test_the_update_reduces_the_loss_on_a_fixed_batch():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    env = pirate_envs.make("piraten_kapern_v0", raw=True)  # a game with action features
    network = QNetwork(env.observation_layout.size, action_features(env), (32,))
    assert network.num_features == env.action_features.matrix.shape[1]
    observations = rng.normal(size=(256, env.observation_layout.size)).astype(np.float32)
    actions = rng.integers(env.num_actions, size=256)
    batch = Batch(observations, actions, rng.normal(size=256).astype(np.float32), 0, 0.0)
    learner = Learner(network, learning_rate=1e-3, batch_size=64)
    before = learner.loss(batch.observations, batch.actions, batch.returns).item()
    for _ in range(30):
        learner.update(batch, rng)
    after = learner.loss(batch.observations, batch.actions, batch.returns).item()
    assert after < 0.5 * before
    # the exported network computes the same Q values
    with torch.no_grad():
        q = network(torch.from_numpy(observations)).numpy()
    np.testing.assert_allclose(network.to_policy().logits(observations), q, rtol=1e-4, atol=1e-4)


def test_one_hot_rows_where_a_game_has_no_action_features():
    env = pirate_envs.make("lucky_pirate_v0", raw=True)
    assert env.action_features is None
    np.testing.assert_array_equal(action_features(env), np.eye(env.num_actions))


def test_bad_dmc_files_are_refused_in_one_line(tmp_path, capsys):
    ppo = one_table_agent_file(tmp_path / "ppo.npz", "lucky_pirate_v0", 4)
    with pytest.raises(ValueError, match="not a DMC agent file"):
        make_agent(f"dmc:{ppo}", "lucky_pirate_v0")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, header=np.array([{"format": "x"}], dtype=object))
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"PK\x03\x04 not really a zip")
    for bad in (pickled, garbage, tmp_path / "missing.npz"):
        with pytest.raises(ValueError) as error:
            make_agent(f"dmc:{bad}", "lucky_pirate_v0")
        assert "\n" not in str(error.value)
    path = train_tiny(tmp_path, "lucky_pirate_v0", "--num-players", "4")
    with pytest.raises(ValueError, match="greedily"):
        make_agent(f"dmc:{path}#sample", "lucky_pirate_v0")
    base = ["--env-id", "lucky_pirate_v0", "--games", "4", "--no-progress", "--agents"]
    for bad in (ppo, pickled):
        err = refused(capsys, evaluate.main, [*base, f"dmc:{bad}", "heuristicx3"])
        assert "dmc:" in err
    assert "no batched form" in refused(capsys, train_dmc.main, ["--opponent", "mcts", *TINY])
    assert "--out" in refused(capsys, train_dmc.main, ["--out", str(tmp_path / "agent.pt")])


def test_self_play_on_margins_is_zero_sum_where_the_scores_are_not():
    """Every seat learns: on score changes the mean return is the mean scaled score; on margins it is zero."""
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=3)
    means = {}
    for mode in ("score", "margin"):
        options = {"num_players": 3, "num_hands": 2, "reward_mode": mode}
        actors = Actors("skull_king_v0", 4, options, "self", gamma=1.0, seed=2)
        batch = actors.play(QNetwork(env.observation_layout.size, action_features(env), (8,)).to_policy(), 0.1)
        assert np.count_nonzero(batch.returns) > 0
        means[mode] = batch.mean_reward
    assert abs(means["score"]) > 1e-3 and means["margin"] == pytest.approx(0.0, abs=1e-6)


def test_dmc_trains_on_margins(tmp_path):
    path = train_tiny(tmp_path, "skull_king_v0", "--reward-mode", "margin", "--num-players", "3")
    assert path.is_file()
