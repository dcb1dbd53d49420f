"""Expert iteration (`agents.training.expert_iteration`): the recorded targets are the search's, the update learns them,
the agent files play, and a resumed run writes what an uninterrupted one writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pirate_envs
from agents.evaluation.games import play_game
from agents.policy.checkpoint import load_agent
from agents.registry import make_agent
from agents.search.guided import GuidedSearchAgent
from agents.training import expert_iteration as ei
from pirate_envs.core.rewards import win_rewards

ENV_ID = "skull_king_v0"


def tiny_plan(run_dir: Path, **changes) -> ei.ExpertIterationPlan:
    """A run of a few steps: 2-player Skull King (130 decisions a game), 2 searches a move, a small network."""
    settings = dict(
        env_id=ENV_ID,
        table_sizes=(2,),
        env_options={"table_layout": "max"},
        run_dir=run_dir,
        simulations=2,
        iterations=2,
        games_per_iteration=1,
        net_arch=(8,),
        epochs=1,
        batch_size=64,
        replay_iterations=2,
        seed=3,
    )
    return ei.ExpertIterationPlan(**(settings | changes))


class RecordingSearch(GuidedSearchAgent):
    """The Gumbel search, logging the seat, position, move and policy target of every search it makes."""

    log: list[tuple[int, np.ndarray, int, np.ndarray]] = []

    def act(self, observation, view):
        seat = self.env.game.current_player
        action = super().act(observation, view)
        RecordingSearch.log.append((seat, observation["observation"].copy(), action, self.policy_target.copy()))
        return action


def test_recorded_targets_are_the_searchs_and_values_the_seats_win_share(tmp_path, monkeypatch):
    plan = tiny_plan(tmp_path, table_sizes=(2, 3), games_per_iteration=2)
    envs = ei.make_envs(plan)
    network = ei.initial_policy(plan, envs[2])
    RecordingSearch.log = []
    monkeypatch.setattr(ei, "GuidedSearchAgent", RecordingSearch)
    data, searched = ei.self_play(plan, envs, network, np.random.default_rng(0))
    # each env played one game: a 2-player one (130 decisions), then a 3-player one (195)
    shares = [win_rewards(envs[n].game.winners(), n) for n in (2, 3)]
    masks = data.masks()
    assert searched == len(RecordingSearch.log) > 0 and len(data) == 130 + 195
    np.testing.assert_allclose(data.targets.sum(axis=1), 1.0, rtol=1e-5)
    assert not data.targets[~masks].any()  # no target mass on an illegal action
    searched_rows = np.flatnonzero(masks.sum(axis=1) > 1)
    assert searched_rows.size == searched
    for row, (seat, observation, action, target) in zip(searched_rows, RecordingSearch.log):
        np.testing.assert_array_equal(data.observations[row], observation)
        np.testing.assert_array_equal(data.targets[row], target.astype(np.float32))
        assert masks[row, action]
        assert data.values[row] == np.float32(shares[0 if row < 130 else 1][seat])
    forced = np.flatnonzero(masks.sum(axis=1) == 1)
    np.testing.assert_array_equal(data.targets[forced], masks[forced].astype(np.float32))  # one-hot


def test_policy_target_is_gumbels_improved_policy_and_puct_the_visit_shares():
    env = pirate_envs.make(ENV_ID, raw=True, num_players=3)
    network = ei.initial_policy(tiny_plan(Path("unused")), env)
    env.reset(seed=4)
    game = env.game
    while np.flatnonzero(game.legal_mask()).size < 2:
        env.step(int(np.flatnonzero(game.legal_mask())[0]))
    seat = game.current_player
    observation, view = env.observe(env.possible_agents[seat]), game.view(seat)
    puct = GuidedSearchAgent(env, ENV_ID, network, simulations=12, root="mcts", seed=1)
    statistics = puct.search_root_moves()
    shares = np.zeros(env.num_actions)
    for action, visits, _ in statistics:
        shares[action] = visits / 12
    np.testing.assert_allclose(puct.policy_target, shares)
    gumbel = GuidedSearchAgent(env, ENV_ID, network, simulations=12, root="gumbel", seed=1)
    move = gumbel.act(observation, view)
    target = gumbel.policy_target
    legal = np.flatnonzero(game.legal_mask())
    assert target[legal].sum() == pytest.approx(1.0) and not np.delete(target, legal).any()
    # with a value head that answers 0, every q is equal: the improved policy is the network's own softmax
    logits = network.logits(observation["observation"])[legal]
    np.testing.assert_allclose(target[legal], np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum())
    assert game.legal_mask()[move]


def test_update_moves_the_network_toward_the_targets(tmp_path):
    plan = tiny_plan(tmp_path, epochs=30, learning_rate=1e-2)
    envs = ei.make_envs(plan)
    network = ei.initial_policy(plan, envs[2])
    data, _ = ei.self_play(plan, envs, network, np.random.default_rng(1))
    # targets the fresh network is far from: all on the last legal action; a value of 0.5 (the head says 0)
    masks = data.masks()
    last_legal = masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
    data.targets[:] = np.eye(masks.shape[1], dtype=np.float32)[last_legal]
    data.values[:] = 0.5
    _, first_policy, first_value = ei.fit(dataclass_replace(plan, epochs=1), network, data, np.random.default_rng(2))
    trained, policy_loss, value_loss = ei.fit(plan, network, data, np.random.default_rng(2))
    assert policy_loss < first_policy / 2 and value_loss < first_value / 4
    logits = np.where(masks, trained.logits(data.observations), -np.inf)
    assert np.mean(logits.argmax(axis=1) == last_legal) > 0.9
    assert abs(float(trained.value(data.observations).mean()) - 0.5) < 0.1


def dataclass_replace(plan, **changes):
    import dataclasses

    return dataclasses.replace(plan, **changes)


def test_checkpoints_are_agent_files_with_value_heads_that_play(tmp_path):
    plan = tiny_plan(tmp_path, iterations=1)
    latest = ei.run(plan, progress=False)
    policy, header = load_agent(latest)
    assert header["version"] == 2 and policy.has_value and header["reward_mode"] == "win"
    assert header["value_target"] == {"kind": "win_share", "scale": 1.0, "gamma": 1.0}
    assert header["player_counts"] == [2] and header["training"]["timesteps"] == 130
    env = pirate_envs.make(ENV_ID, raw=True, num_players=2)
    for name in (f"ppo:{latest}", f"gumbel:2:ppo:{latest}", f"mcts:2:ppo:{latest}"):
        agents = [make_agent(name, ENV_ID, seed=0, env=env), make_agent("heuristic", ENV_ID, seed=1, env=env)]
        assert play_game(env, agents, seed=2).actions
    searcher = make_agent(f"gumbel:2:ppo:{latest}", ENV_ID, seed=0, env=env)
    assert searcher.value_leaves  # the value head values the leaves
    metrics = ei.read_metrics(tmp_path, 1)
    assert [row["iteration"] for row in metrics] == ["1"] and float(metrics[0]["searched_positions_per_s"]) > 0


def run_files(run_dir: Path) -> dict[str, object]:
    """What a run wrote, timings aside: every checkpoint's arrays and header, every data file, the loss columns."""
    files: dict[str, object] = {}
    for path in sorted((run_dir / ei.CHECKPOINTS).glob("*.npz")):
        policy, header = load_agent(path)
        files[path.name] = (header, [w.tobytes() for w in policy.weights + policy.value_weights])
    for path in sorted((run_dir / ei.DATA).glob("*.npz")):
        data = ei.Decisions.load(path)
        files[path.name] = [a.tobytes() for a in (data.observations, data.packed_masks, data.targets, data.values)]
    files["metrics"] = [
        {k: v for k, v in row.items() if not k.endswith("_s")} for row in ei.read_metrics(run_dir, 10**9)
    ]
    return files


def dies_at(monkeypatch, name: str, call: int) -> None:
    """Make the ``call``-th call (from 1) of ``ei.<name>`` raise KeyboardInterrupt, as a kill there would stop it."""
    real = getattr(ei, name)
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ei, name, wrapped)


@pytest.mark.parametrize(
    ("name", "call", "reached"),
    [
        ("fit", 2, 1),  # iteration 2's games played and saved, its update cut
        ("save_agent", 3, 1),  # iteration 2's metrics row written, its checkpoint not
        ("save_agent", 4, 2),  # iteration 2's checkpoint written, latest.npz still iteration 1's
    ],
)
def test_a_run_killed_anywhere_resumes_to_the_uninterrupted_runs_files(tmp_path, monkeypatch, name, call, reached):
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    ei.run(tiny_plan(whole, iterations=2), progress=False)
    with monkeypatch.context() as patch:
        dies_at(patch, name, call)
        with pytest.raises(KeyboardInterrupt):
            ei.run(tiny_plan(broken, iterations=2), progress=False)
    assert ei.completed_iteration(broken) == reached and ei.data_path(broken, 2).is_file()
    ei.run(tiny_plan(broken, iterations=2), progress=False)
    assert run_files(broken) == run_files(whole)
    assert len(run_files(whole)["metrics"]) == 2


def test_decisions_files_are_read_without_pickle_and_damage_is_one_line(tmp_path):
    bad = tmp_path / "iteration_1.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a decisions file") as error:
        ei.Decisions.load(bad)
    assert "\n" not in str(error.value)
    objects = tmp_path / "objects.npz"
    np.savez(objects, observations=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="not a decisions file"):
        ei.Decisions.load(objects)


@pytest.mark.parametrize("leaf", ["value", "rollout"])
def test_the_leaves_are_valued_as_the_plan_says(tmp_path, leaf):
    plan = tiny_plan(tmp_path, leaf=leaf)
    envs = ei.make_envs(plan)
    searcher = ei.search_agent(plan, envs[2], ei.initial_policy(plan, envs[2]), seed=0)
    assert searcher.value_leaves == (leaf == "value") and searcher.root_rule == "gumbel"
    data, searched = ei.self_play(plan, envs, searcher.network, np.random.default_rng(0))
    assert searched > 0 and np.allclose(data.targets.sum(axis=1), 1.0, atol=1e-5)


def test_halving_is_the_guided_flat_search_with_the_plans_options(tmp_path):
    from agents.search.halving import HalvingSearchAgent

    plan = tiny_plan(tmp_path, search="halving", simulations=8, gumbel_considered=3, gumbel_scale=0.5)
    envs = ei.make_envs(plan)
    network = ei.initial_policy(plan, envs[2])
    searcher = ei.search_agent(plan, envs[2], network, seed=0)
    assert isinstance(searcher, HalvingSearchAgent) and searcher.prior is network
    assert (searcher.simulations, searcher.considered, searcher.scale) == (8, 3, 0.5)
    data, searched = ei.self_play(plan, envs, network, np.random.default_rng(0))
    assert searched > 0 and np.allclose(data.targets.sum(axis=1), 1.0, atol=1e-5)
    assert not data.targets[~data.masks()].any()
    with pytest.raises(ValueError, match="search must be 'gumbel' or 'halving'"):
        ei.search_agent(dataclass_replace(plan, search="tree"), envs[2], network, seed=0)
    kapern = tiny_plan(tmp_path, env_id="piraten_kapern_v0", search="halving")
    with pytest.raises(ValueError, match="does not search piraten_kapern_v0"):
        ei.search_agent(kapern, ei.make_envs(kapern)[2], None, seed=0)


def test_gumbel_options_reach_the_search_and_shape_its_target(tmp_path):
    plan = tiny_plan(tmp_path, gumbel_considered=2, gumbel_scale=1e-6, simulations=8)
    env = ei.make_envs(plan)[2]
    network = ei.initial_policy(plan, env)
    network.value_weights[-1][:] = np.linspace(-1, 1, network.value_weights[-1].size)[:, None]  # values that differ
    env.reset(seed=1)
    while np.flatnonzero(env.game.legal_mask()).size < 3:
        env.step(int(np.flatnonzero(env.game.legal_mask())[0]))
    searcher = ei.search_agent(plan, env, network, seed=0)
    assert (searcher.gumbel_considered, searcher.gumbel_scale) == (2, 1e-6)
    root = searcher.search()
    assert len(root.children) == 2  # only the two considered root actions were searched
    legal = np.flatnonzero(env.game.legal_mask())
    seat = env.game.current_player
    logits = network.logits(env.observe(env.possible_agents[seat])["observation"])[legal]
    prior = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    np.testing.assert_allclose(searcher.policy_target[legal], prior, atol=1e-4)  # a vanishing sigma: the prior


def test_the_guide_names_the_shipped_agents_with_a_value_head():
    """docs/guides/expert_iteration.md says which shipped agents ``--init`` brings a value head from."""
    from pathlib import Path

    from agents.policy.agent import load_checkpoint, shipped_checkpoints

    targets = {name: load_checkpoint(name)[1].get("value_target") for name in shipped_checkpoints()}
    guide = " ".join((Path(__file__).parents[2] / "docs" / "guides" / "expert_iteration.md").read_text().split())
    words = ["none", "one", "two", "three", "four", "five", "six", "seven", "eight"]
    with_value = sum(target is not None for target in targets.values())
    counted = f"{words[with_value].capitalize()} of the {words[len(targets)]} shipped agents have one ("
    assert counted in guide, counted
    valued = guide.split(counted)[1].split(")")[0]
    for name, target in targets.items():
        if target is None:
            assert f"A file without a value head (`{name}`)" in guide
        else:
            kind = "win share" if target["kind"] == "win_share" else "score"
            assert f"`{name}`" in valued and kind in valued
