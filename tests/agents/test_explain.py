"""Why this move (`agents.analysis.explain`): each agent's figures are its own, computed from the seat's view only."""

from __future__ import annotations

import numpy as np
import pytest

import pirate_envs
from agents.analysis.explain import explain, explain_agent, position_text, replay_position
from agents.base import action_blocks, sample_legal
from agents.piraten_kapern.oracle import STORM, TREASURE_CHEST, expected_points_of_moves, option_open, solve_turn
from agents.registry import make_agent
from pirate_envs.piraten_kapern.actions import STOP
from pirate_envs.piraten_kapern.rules import score_counts
from tests.agents.search.test_ismcts import other_true_state, position_with_choice, resampler_is_canonical
from tests.helpers import skip_without_shipped_agent

KAPERN = "piraten_kapern_v0"


def test_network_probabilities_are_the_policy_agents_own_distribution(env_id):
    skip_without_shipped_agent(env_id)
    env = position_with_choice(env_id, seed=3, skip=4)
    seat = env.game.current_player
    obs, view = env.observe(env.possible_agents[seat]), env.game.view(seat)
    mask = obs["action_mask"].astype(bool)
    answer = explain(env, f"ppo:{env_id}", top=10_000)
    probabilities = np.zeros(len(mask))
    for move in answer.moves:
        probabilities[move.action] = move.probability
        assert move.label == env.action_to_string(move.action) and move.visits is None
    assert {m.action for m in answer.moves} == set(np.flatnonzero(mask).tolist())
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-9)
    assert answer.choice == make_agent(f"ppo:{env_id}", env_id, env=env).act(obs, view)
    # the sampling agent draws u ~ U(0,1) and takes the inverse CDF: the same u on these probabilities
    for seed in range(40):
        sampler = make_agent(f"ppo:{env_id}#sample", env_id, seed=seed, env=env)
        u = np.random.default_rng(seed).random()
        legal = np.flatnonzero(mask)
        cdf = np.cumsum(probabilities[legal])
        expected = legal[min(int(np.searchsorted(cdf, u)), legal.size - 1)]
        if abs(cdf - u).min() > 1e-6:  # not on a boundary, where rounding may decide
            assert sampler.act(obs, view) == expected


def test_search_visits_sum_to_its_iterations_and_its_first_move_is_played(env_id):
    env = position_with_choice(env_id, seed=5, skip=3)
    seat = env.game.current_player
    answer = explain(env, "mcts:40", seed=2, top=10_000)
    assert sum(m.visits for m in answer.moves) == 40
    assert [m.visits for m in answer.moves] == sorted((m.visits for m in answer.moves), reverse=True)
    assert all(m.value is not None and m.probability is None for m in answer.moves)
    agent = make_agent("mcts:40", env_id, seed=2, env=env)
    assert (
        answer.choice
        == answer.moves[0].action
        == agent.act(env.observe(env.possible_agents[seat]), env.game.view(seat))
    )


def kapern_decisions(seeds: range):
    """Every decision of random Kapern games (the env at it), many cards and dice."""
    for seed in seeds:
        env = pirate_envs.make(KAPERN, raw=True, promo_cards=True)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        blocks = action_blocks(env)
        for _ in range(60):
            if env.game.done:
                break
            yield env
            env.step(sample_legal(env.game.legal_mask(), rng, blocks))


def test_the_oracles_move_values_are_its_expected_points():
    cards = set()
    checked = 0
    for env in kapern_decisions(range(12)):
        view = env.game.view(env.game.current_player)
        legal = np.flatnonzero(env.game.legal_mask()).tolist()
        points = expected_points_of_moves(view, legal)
        if view.island:
            assert points == [0.0] * len(legal)
            continue
        cards.add(view.card)
        solution = solve_turn(view.card)
        # the best move is worth the state's optimal value; stopping is worth the points showing
        assert max(points) == pytest.approx(solution.state_value(view.showing, option_open(view)), abs=1e-6)
        if STOP in legal:
            assert points[legal.index(STOP)] == score_counts(view.showing, view.card)
        answer = explain(env, "oracle", top=10_000)
        assert [m.expected_points for m in answer.moves] == sorted(points, reverse=True)
        chosen = next(m.expected_points for m in answer.moves if m.action == answer.choice)
        if view.card != TREASURE_CHEST:  # with the chest, the oracle moves dice first (worth the state's value too)
            assert chosen == pytest.approx(max(points), abs=1e-6)
        checked += 1
    assert checked > 100 and {TREASURE_CHEST, STORM} & cards


@pytest.mark.parametrize("name", ["heuristic", "ppo", "mcts:30"])
def test_answer_is_the_same_when_the_hidden_cards_are_redrawn(env_id, name):
    if name == "ppo":
        skip_without_shipped_agent(env_id)
    name = f"ppo:{env_id}" if name == "ppo" else name
    env = position_with_choice(env_id, seed=21, skip=5)
    seat = env.game.current_player
    twin = other_true_state(env, seat, seed=77)
    if name.startswith("mcts") and not resampler_is_canonical(env, twin, seat):
        pytest.xfail(f"{env_id}: resample_hidden's draw depends on the order of the true hidden cards")
    answers = [explain(game_env, name, seed=4, top=10_000) for game_env in (env, twin)]
    assert answers[0] == answers[1]
    assert position_text(env) == position_text(twin)


def test_explain_agent_reads_an_agent_already_built():
    env = position_with_choice("skull_king_v0", seed=1, skip=2)
    agent = make_agent("heuristic", "skull_king_v0", seed=0)
    answer = explain_agent(env, agent, "my heuristic")
    seat = env.game.current_player
    assert answer.agent == "my heuristic" and len(answer.moves) == 1
    assert answer.choice == agent.act(env.observe(env.possible_agents[seat]), env.game.view(seat))
    assert answer.to_dict()["moves"][0] == {
        "action": answer.choice,
        "label": answer.choice_label,
        "probability": None,
        "visits": None,
        "value": None,
        "expected_points": None,
    }


def test_replay_position_refuses_bad_moves():
    env = replay_position("skull_king_v0", 3, [])
    with pytest.raises(ValueError, match=r"action 0 .* not a legal move"):
        replay_position("skull_king_v0", 3, [10_000])
    first = int(np.flatnonzero(env.game.legal_mask())[0])
    assert replay_position("skull_king_v0", 3, [first]).game.legal_mask().any()
    with pytest.raises(ValueError, match="unknown env id"):
        replay_position("chess", 3, [])


@pytest.mark.parametrize("top", [0, -1, 1.5, True])
def test_a_top_of_no_moves_is_refused(top):
    env = pirate_envs.make("skull_king_v0", num_players=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=f"top={top!r}: list at least 1 move"):
        explain(env, "random", top=top)
