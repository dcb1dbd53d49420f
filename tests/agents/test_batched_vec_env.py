"""Self-play on the batched engine: the semantics of SelfPlayEnv, checked game by game against the reference."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("sb3_contrib")

import pirate_envs
import pirate_envs.vector
from agents.policy.mlp import MlpPolicy
from agents.selfplay.batched_vec_env import BatchedSelfPlayVecEnv, batched_support
from pirate_envs.core.rewards import win_rewards
from tests.game_data import by_version

#: Skull King, 4 players, 3 hands: the learner bids once per hand and plays one card per trick.
SMALL = {"num_players": 4, "num_hands": 3}
LEARNER_DECISIONS = 3 + (1 + 2 + 3)


def play(vec: BatchedSelfPlayVecEnv, steps: int, seed: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray, list[dict]]]:
    """``steps`` vector steps of random legal learner moves, yielding (rewards, dones, infos) after each."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        masks = np.stack(vec.env_method("action_masks"))
        assert masks.dtype == bool and masks.any(axis=1).all()
        vec.step_async(pirate_envs.vector.random_legal_actions(masks.view(np.int8), rng))
        _, rewards, dones, infos = vec.step_wait()
        yield rewards, dones, infos


def random_policy(vec: BatchedSelfPlayVecEnv, seed: int) -> MlpPolicy:
    """A small random network of the env's sizes (a stand-in snapshot)."""
    rng = np.random.default_rng(seed)
    sizes = [vec.observation_space.shape[0], 16, vec.action_space.n]
    weights = [rng.standard_normal((a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    return MlpPolicy(weights, [np.zeros(b, dtype=np.float32) for b in sizes[1:]])


def test_the_learner_sees_only_his_own_turn_and_his_own_view():
    vec = BatchedSelfPlayVecEnv("skull_king_v0", 8, opponents={"random": 1.0, "heuristic": 1.0}, seed=3, **SMALL)
    obs = vec.reset()
    table = vec.tables[0]
    for _ in range(30):
        engines = [table.venv.engine(j) for j in range(8)]
        for j, engine in enumerate(engines):
            seat = int(table.learner_seat[j])
            assert engine.current_player == seat and not engine.done
            np.testing.assert_array_equal(obs[j], table.raw.encode(engine.view(seat)))
            np.testing.assert_array_equal(vec.action_masks()[j], engine.legal_mask().astype(bool))
        obs = vec.step(
            pirate_envs.vector.random_legal_actions(vec.action_masks().view(np.int8), np.random.default_rng(0))
        )[0]


def test_every_episode_has_the_learners_decisions_and_returns_his_final_score():
    vec = BatchedSelfPlayVecEnv("skull_king_v0", 16, opponents="random", reward_mode="score", seed=1, **SMALL)
    vec.reset()
    returns, lengths, ended = np.zeros(16), np.zeros(16, dtype=int), 0
    for rewards, dones, infos in play(vec, 4 * LEARNER_DECISIONS):
        returns += rewards
        lengths += 1
        for i in np.flatnonzero(dones):
            assert lengths[i] == LEARNER_DECISIONS
            # score mode: the return is the learner's final score times SCORE_SCALE
            assert returns[i] == pytest.approx(infos[i]["final_score"] * 0.01, abs=1e-4)
            assert infos[i]["TimeLimit.truncated"] is False and infos[i]["num_players"] == 4
            returns[i], lengths[i], ended = 0.0, 0, ended + 1
    assert ended == 16 * 4


def test_win_mode_returns_the_zero_sum_reward_of_the_final_scores():
    vec = BatchedSelfPlayVecEnv("skull_king_v0", 16, opponents="heuristic", seed=2, **SMALL)
    vec.reset()
    returns, seen_win, seen_loss = np.zeros(16), False, False
    for rewards, dones, infos in play(vec, 3 * LEARNER_DECISIONS):
        returns += rewards
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["opponents"] == ["heuristic"] * 3
            # the final score and win share agree with the reward: the winners have the top score
            if info["win_share"] > 0:
                assert returns[i] == pytest.approx(info["win_share"])
                seen_win = True
            else:
                assert returns[i] < 0
                seen_loss = True
            returns[i] = 0.0
    assert seen_win and seen_loss


# the options by version: each game's ``final_scores`` in tests/<game>/short_games.json
@pytest.mark.parametrize(("env_id", "kwargs"), list(by_version("final_scores").items()))
def test_final_scores_are_the_reference_engines(env_id, kwargs):
    venv = pirate_envs.vector.make(env_id, 6, seed=4, **kwargs)
    venv.reset()
    rng = np.random.default_rng(0)
    ended = np.zeros(6, dtype=bool)
    for _ in range(20_000):
        waiting = ~ended
        actions = pirate_envs.vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated)
        venv.step(actions, active=waiting)
        ended |= venv.terminated | venv.truncated
        if ended.all():
            break
    assert ended.all()
    scores = venv.scores(np.arange(6))
    for i in range(6):
        np.testing.assert_array_equal(scores[i], venv.engine(i).scores())


def record_finishes(vec: BatchedSelfPlayVecEnv) -> list[dict]:
    """Wrap ``vec._finish`` to keep, for every game it closes, the reference engine of that game and the seat."""
    seen: list[dict] = []
    finish = vec._finish

    def recording(table, rows, *args):
        for slot in rows.tolist():
            engine = table.venv.engine(slot)
            seen.append({"env": table.envs.start + slot, "engine": engine, "seat": int(table.learner_seat[slot])})
        return finish(table, rows, *args)

    vec._finish = recording
    return seen


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_final_info_and_reward_are_the_reference_games(reward_mode):
    vec = BatchedSelfPlayVecEnv("skull_king_v0", 8, opponents="random", reward_mode=reward_mode, seed=5, **SMALL)
    seen = record_finishes(vec)
    vec.reset()
    returns = np.zeros(8)
    for rewards, dones, infos in play(vec, 2 * LEARNER_DECISIONS):
        returns += rewards
        closed = {s["env"]: s for s in seen}
        seen.clear()
        assert set(closed) == set(np.flatnonzero(dones).tolist())
        for i, game in closed.items():
            engine, seat, info = game["engine"], game["seat"], infos[i]
            assert engine.done and info["seat"] == seat
            winners = engine.winners()
            assert info["final_score"] == engine.scores()[seat]
            assert info["win_share"] == (1 / len(winners) if seat in winners else 0.0)
            expected = win_rewards(winners, 4)[seat] if reward_mode == "win" else engine.scores()[seat] * 0.01
            assert returns[i] == pytest.approx(expected, abs=1e-4)
            returns[i] = 0.0


def test_snapshots_join_the_pool_and_self_alone_needs_one():
    vec = BatchedSelfPlayVecEnv("skull_king_v0", 8, opponents={"self": 1.0}, max_snapshots=2, seed=6, **SMALL)
    with pytest.raises(ValueError, match="no snapshot"):
        vec.reset()
    for k in range(3):
        assert vec.env_method("add_snapshot", random_policy(vec, k)) == [None] * 8
    table = vec.tables[0]
    assert len(table.snapshots) == 2  # the oldest went
    vec.reset()
    drawn = set(table.opponent[table.opponent >= 0].tolist())
    assert drawn <= set(table.snapshots) and drawn
    for _, dones, infos in play(vec, LEARNER_DECISIONS):
        for i in np.flatnonzero(dones):
            assert infos[i]["opponents"] == ["self"] * 3


def test_every_snapshot_seat_plays_its_own_network_in_one_call_a_round():
    vec = BatchedSelfPlayVecEnv(
        "skull_king_v0", 16, opponents={"self": 1.0}, max_snapshots=2, snapshot_deterministic=True, seed=4, **SMALL
    )
    for k in range(3):  # three snapshots, the first retired while games still seat it
        vec.env_method("add_snapshot", random_policy(vec, k))
        if k == 0:
            vec.reset()
    table = vec.tables[0]
    calls: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    act_batch = table.stack.act_batch

    def recorded(games: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions = act_batch(games, observations, masks)
        owners = table.opponent[games // table.num_players, games % table.num_players]
        calls.append((owners, observations.copy(), masks.copy(), actions))
        return actions

    table.stack.act_batch = recorded
    for _ in play(vec, 2 * LEARNER_DECISIONS):
        pass
    owners = np.concatenate([c[0] for c in calls])
    assert len(set(owners.tolist())) == 3  # the retired snapshot's games and the two in the pool
    for owner_of_rows, observations, masks, actions in calls:
        for owner, row, mask, action in zip(owner_of_rows, observations, masks, actions):
            logits = table.agents[owner].policy.logits(row)
            assert action == np.flatnonzero(mask)[np.argmax(logits[mask.astype(bool)])]


def test_learner_seat_fixed_or_random():
    fixed = BatchedSelfPlayVecEnv("skull_king_v0", 32, opponents="random", learner_seat=2, seed=7, **SMALL)
    fixed.reset()
    assert (fixed.tables[0].learner_seat == 2).all()
    drawn = BatchedSelfPlayVecEnv("skull_king_v0", 32, opponents="random", seed=7, **SMALL)
    drawn.reset()
    assert set(drawn.tables[0].learner_seat.tolist()) == {0, 1, 2, 3}


def test_truncated_games_bootstrap_or_pay_the_truncation_reward():
    kwargs = {"num_players": 2, "max_turns": 2}
    for reward in (None, -1.0):
        vec = BatchedSelfPlayVecEnv(
            "piraten_kapern_v0", 8, opponents="random", truncation_reward=reward, seed=8, **kwargs
        )
        seen = record_finishes(vec)
        vec.reset()
        truncated = 0
        for rewards, dones, infos in play(vec, 40):
            closed = {s["env"]: s for s in seen}
            seen.clear()
            for i in np.flatnonzero(dones):
                info, engine, seat = infos[i], closed[i]["engine"], closed[i]["seat"]
                assert engine.truncated and not engine.terminated
                assert info["win_share"] == 0.0  # no winner in a game cut short
                # win mode pays nothing for a truncated game but the truncation reward
                assert rewards[i] == (0.0 if reward is None else reward)
                assert info["TimeLimit.truncated"] is (reward is None)
                # the observation to bootstrap from is the learner's own at the end
                raw = vec.tables[0].raw
                np.testing.assert_array_equal(info["terminal_observation"], raw.encode(engine.view(seat)))
                truncated += 1
        assert truncated > 0


def test_several_table_sizes_share_the_slots_by_weight():
    vec = BatchedSelfPlayVecEnv("piratenpoker_v0", 10, opponents="random", player_counts={3: 1.0, 4: 4.0}, seed=9)
    assert [t.num_slots for t in vec.tables] == [2, 8]
    vec.reset()
    sizes = set()
    for _, dones, infos in play(vec, 400):
        sizes |= {infos[i]["num_players"] for i in np.flatnonzero(dones)}
    assert sizes == {3, 4}


def test_same_seed_same_games():
    runs = []
    for _ in range(2):
        vec = BatchedSelfPlayVecEnv("skull_king_v0", 8, opponents={"random": 1.0, "heuristic": 1.0}, seed=10, **SMALL)
        vec.seed(11)
        first = vec.reset()
        runs.append((first, [r for r, _, _ in play(vec, 20)]))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(np.array(runs[0][1]), np.array(runs[1][1]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs=0"),
        ({"opponents": "heuristc"}, "agent 'heuristc' cannot play"),
        ({"opponents": {"random": -1.0}}, "weights >= 0"),
        ({"learner_seat": 4}, "learner_seat=4"),
        ({"max_snapshots": 0}, "max_snapshots=0"),
    ],
)
def test_bad_arguments_are_refused_with_one_message(kwargs, message):
    args = {"env_id": "skull_king_v0", "num_envs": 4, "opponents": "random", **SMALL, **kwargs}
    with pytest.raises(ValueError, match=message):
        BatchedSelfPlayVecEnv(**args)


def test_an_illegal_learner_action_names_the_env():
    vec = BatchedSelfPlayVecEnv("skull_king_v0", 4, opponents="random", seed=12, **SMALL)
    vec.reset()
    actions = pirate_envs.vector.random_legal_actions(vec.action_masks().view(np.int8), np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(~vec.action_masks()[2])[0])
    with pytest.raises(pirate_envs.vector.BatchIllegalActionError, match="learner of env 2"):
        vec.step(actions)


def test_batched_support_takes_every_opponent():
    assert batched_support("skull_king_v0", {"self": 1.0, "random": 1.0, "heuristic": 1.0, "mcts": 1.0}) is None
    assert batched_support("piraten_kapern_v0", {"oracle": 1.0}) is None


def test_train_runs_on_the_batched_engine(tmp_path, capsys):
    from experiments.train import main

    run = main(
        [
            "--env-id", "skull_king_v0", "--num-players", "4", "--env-kwargs", "num_hands=3",
            "--engine", "batched", "--total-timesteps", "1024", "--num-envs", "32", "--n-steps", "16",
            "--batch-size", "256", "--snapshot-every", "512", "--eval-every", "0", "--eval-games", "4",
            "--out-dir", str(tmp_path), "--run-name", "b", "--no-progress",
        ]
    )  # fmt: skip
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] >= 1024
    assert json.loads((run / "config.json").read_text())["engine"] == "batched"
    assert (run / "checkpoints" / "latest.npz").is_file()
    progress = (run / "progress.csv").read_text()
    assert "rollout/win_share" in progress.splitlines()[0]


def test_auto_engine_takes_the_batched_path_for_opponents_without_a_batched_form(capsys):
    from agents.batched.one_game import OneGameAgents
    from agents.selfplay.vec_env import make_vec_env

    vec = make_vec_env("piraten_kapern_v0", 2, 0, seed=0, opponents={"mcts:2": 1.0}, engine="auto")
    assert "engine: batched" in capsys.readouterr().out
    assert isinstance(vec.venv.tables[0].agents[0], OneGameAgents)
    vec.close()


def test_the_kapern_oracle_opponent_plays_its_batched_form(capsys):
    from agents.piraten_kapern.batched_oracle import KapernOracleBatch
    from agents.selfplay.vec_env import make_vec_env

    vec = make_vec_env("piraten_kapern_v0", 2, 0, seed=0, opponents={"oracle": 1.0}, engine="auto")
    assert isinstance(vec.venv.tables[0].agents[0], KapernOracleBatch)
    vec.close()


def test_auto_engine_falls_back_to_one_game_envs_without_numba(monkeypatch, capsys):
    import agents.selfplay.batched_vec_env as batched_vec_env
    from agents.selfplay.env import SelfPlayEnv
    from agents.selfplay.vec_env import make_vec_env

    monkeypatch.setattr(batched_vec_env, "batched_support", lambda env_id, opponents: "numba is not installed")
    vec = make_vec_env("piraten_kapern_v0", 2, 0, seed=0, opponents={"oracle": 1.0}, engine="auto")
    assert "engine: single, one game per env (numba is not installed)" in capsys.readouterr().out
    assert isinstance(vec.venv.envs[0], SelfPlayEnv)
    with pytest.raises(ValueError, match="engine='batched' cannot train piraten_kapern_v0: numba is not installed"):
        make_vec_env("piraten_kapern_v0", 2, 0, seed=0, opponents={"oracle": 1.0}, engine="batched")
    vec.close()


@pytest.mark.parametrize("engine", ["batched", "single"])
def test_the_monitor_copies_the_final_figures_on_both_paths(engine):
    from agents.selfplay.vec_env import make_vec_env

    vec = make_vec_env("skull_king_v0", 4, 0, seed=0, opponents={"random": 1.0}, env_kwargs=SMALL, engine=engine)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(LEARNER_DECISIONS):
        masks = np.stack(vec.env_method("action_masks"))
        _, _, dones, infos = vec.step(pirate_envs.vector.random_legal_actions(masks.astype(np.int8), rng))
    assert dones.all()  # every game lasts the learner's decisions
    for info in infos:
        episode = info["episode"]
        assert episode["l"] == LEARNER_DECISIONS and episode["num_players"] == 4
        assert episode["seat"] in range(4) and episode["win_share"] in (0.0, 1.0, 0.5, 1 / 3, 0.25)
        assert episode["final_score"] == info["final_score"]
    vec.close()
