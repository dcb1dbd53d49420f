"""Suite agents as OpenSpiel policies (`agents.analysis.exact`): their probabilities are the agent's, exactly; NashConv
and CFR on known games."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("pyspiel")

from open_spiel.python import policy as openspiel_policy

import pirate_envs
from agents.analysis.exact import (
    EXACT,
    NOT_OFFERED,
    ONE_HOT,
    SAMPLED,
    AgentPolicy,
    Measurement,
    block_uniform_probabilities,
    cfr_curve,
    draw_seed,
    env_config,
    load_variant,
    measure,
    measure_agent,
    nash_conv,
    small_variants,
)
from agents.base import sample_legal
from agents.game_agents import game_agent_kinds
from agents.registry import make_agent
from tests.helpers import one_table_agent_file

#: The variant whose whole tree the slow test walks (one NashConv: about 15 CPU-seconds).
WALKED = "skull_king_one_card"


def decision_states(game, count: int, seed: int = 0):
    """``count`` decision states with more than one legal action, from games dealt and played at random."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, odds = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=odds)))
                continue
            if len(state.legal_actions()) > 1:
                found.append(state.clone())
            state.apply_action(int(rng.choice(state.legal_actions())))
    return found[:count]


def shown(state) -> tuple[dict[str, np.ndarray], object]:
    """What the seat on turn is shown, built through OpenSpiel's own tensor (not the adapter's path)."""
    player = state.current_player()
    mask = np.zeros(state.num_distinct_actions(), dtype=np.int8)
    mask[state.legal_actions()] = 1
    obs = np.asarray(state.information_state_tensor(player), dtype=np.float32)
    return {"observation": obs, "action_mask": mask}, state.table.engine.view(player)


@pytest.fixture(scope="module", params=sorted(small_variants()))
def game(request):
    """Every small variant: the adapters are checked on states of each."""
    return load_variant(request.param)


@pytest.fixture(scope="module")
def states(game):
    return decision_states(game, 25)


@pytest.fixture(scope="module")
def agent_file(tmp_path_factory, game):
    env_id = game.kit.settings.env_id
    return one_table_agent_file(tmp_path_factory.mktemp("agent") / "net.npz", env_id, game.num_players())


def test_sampled_network_gives_its_masked_softmax(game, states, agent_file):
    """The sampling agent draws ``u`` uniform and takes the action of the cumulative probabilities it falls
    in: with the adapter's probabilities, the same ``u`` picks the same action, for every seed."""
    name = f"ppo:{agent_file}#sample"
    adapter = AgentPolicy(game, name)
    assert adapter.method == EXACT
    agent = make_agent(name, game.kit.settings.env_id)
    spread = []
    for state in states:
        probabilities = adapter.action_probabilities(state)
        observation, view = shown(state)
        assert set(probabilities) == set(state.legal_actions())
        assert sum(probabilities.values()) == pytest.approx(1.0)
        actions, cumulative = list(probabilities), np.cumsum(list(probabilities.values()))
        for seed in range(100):
            agent.reset(seed)
            u = np.random.default_rng(seed).random()
            expected = actions[min(int(np.searchsorted(cumulative, u)), len(actions) - 1)]
            assert agent.act(observation, view) == expected
        spread.append(max(probabilities.values()))
    assert min(spread) < 0.99  # the network is not one-hot here: the check above sees several actions


def test_argmax_network_and_game_agents_give_their_move(game, states, agent_file):
    env_id = game.kit.settings.env_id
    for name in (f"ppo:{agent_file}", *game_agent_kinds(game.kit.settings.env_id)):
        try:
            adapter = AgentPolicy(game, name, seed=3)
        except ValueError as error:  # a game agent that does not play the variant says so in one line
            assert name != f"ppo:{agent_file}" and "\n" not in str(error)
            continue
        assert adapter.method == ONE_HOT
        agent = make_agent(name, env_id, seed=3)
        for state in states:
            observation, view = shown(state)
            agent.reset(draw_seed(3, (state.current_player(), state.information_state_string()), 0))  # afresh
            try:
                move = agent.act(observation, view)
            except ValueError:  # a game agent that refuses the variant when asked (Kapern's oracle)
                assert name != f"ppo:{agent_file}"
                break
            assert adapter.action_probabilities(state) == {move: 1.0}


def test_random_gives_block_uniform_odds(game, states):
    """The suite's random agent's frequencies over many draws match the adapter's odds."""
    adapter = AgentPolicy(game, "random")
    assert adapter.method == EXACT
    agent = make_agent("random", game.kit.settings.env_id, seed=0)
    for state in states[:5]:
        probabilities = adapter.action_probabilities(state)
        observation, view = shown(state)
        counts = Counter(agent.act(observation, view) for _ in range(4000))
        for action, probability in probabilities.items():
            assert counts[action] / 4000 == pytest.approx(probability, abs=0.03)
        assert set(counts) <= set(probabilities)


def test_block_uniform_odds_match_sample_legal_across_blocks():
    """Legal actions in two blocks (one in the first, three in the second): 1/2, then 1/6 each."""
    mask = np.zeros(6, dtype=np.int8)
    mask[[1, 3, 4, 5]] = 1
    blocks = [(0, 3), (3, 6)]
    probabilities = block_uniform_probabilities(mask, blocks)
    assert probabilities == pytest.approx({1: 0.5, 3: 1 / 6, 4: 1 / 6, 5: 1 / 6})
    rng = random.Random(0)
    counts = Counter(sample_legal(mask, rng, blocks) for _ in range(6000))
    assert {a: c / 6000 for a, c in counts.items()} == pytest.approx(probabilities, abs=0.02)


def test_search_is_estimated_from_its_seeded_moves(game, states):
    """``mcts``: the frequencies of ``samples`` moves of the search reset with the draw seeds, searching the state."""
    adapter = AgentPolicy(game, "mcts:4", seed=5, samples=3)
    assert adapter.method == SAMPLED
    env_id = game.kit.settings.env_id
    for state in states[:6]:
        probabilities = adapter.action_probabilities(state)
        observation, view = shown(state)
        env = pirate_envs.make(env_id, raw=True, **env_config(game))
        env.game = state.table.engine
        agent = make_agent("mcts:4", env_id, env=env)
        moves = Counter()
        key = (state.current_player(), state.information_state_string())
        for draw in range(3):
            agent.reset(draw_seed(5, key, draw))
            moves[agent.act(observation, view)] += 1
        assert probabilities == {action: count / 3 for action, count in moves.items()}
    assert adapter.queries == 3 * len(adapter.cache)


def test_probabilities_are_cached_per_information_state(game, states):
    adapter = AgentPolicy(game, "heuristic")
    for state in states:
        adapter.action_probabilities(state)
    cached = len(adapter.cache)
    for state in states:
        adapter.action_probabilities(state.clone())
    assert len(adapter.cache) == cached


def test_nash_conv_of_uniform_kuhn_poker_is_eleven_twelfths():
    """Kuhn poker's uniform policy: exploitability 11/24 (OpenSpiel's tests), NashConv twice that."""
    import pyspiel

    kuhn = pyspiel.load_game("kuhn_poker")
    measured = nash_conv(kuhn, openspiel_policy.UniformRandomPolicy(kuhn))
    assert measured.nash_conv == pytest.approx(11 / 12)
    assert measured.wall_s >= 0 and measured.cpu_s >= 0


def test_cfr_curve_falls_on_kuhn_poker():
    import pyspiel

    kuhn = pyspiel.load_game("kuhn_poker")
    points = cfr_curve(kuhn, [10, 1, 100])
    assert [p.step for p in points] == [1, 10, 100]
    assert points[0].nash_conv > points[1].nash_conv > points[2].nash_conv
    assert points[2].nash_conv < 0.05
    with pytest.raises(ValueError, match="positive"):
        cfr_curve(kuhn, [0])


@pytest.mark.slow
def test_suite_random_agent_is_uniform_here_and_its_nash_conv_is_uniforms():
    """In one-card Skull King every decision's legal actions lie in one action block, so the suite's random
    agent is OpenSpiel's uniform policy: their NashConv agree, at the value the OpenSpiel guide states."""
    game = load_variant(WALKED)
    uniform = nash_conv(game, openspiel_policy.UniformRandomPolicy(game)).nash_conv
    assert nash_conv(game, AgentPolicy(game, "random")).nash_conv == pytest.approx(uniform, abs=1e-12)
    assert uniform == pytest.approx(0.6744, abs=1e-4)


def test_samples_below_one_are_refused():
    with pytest.raises(ValueError, match="samples=0"):
        AgentPolicy(load_variant(WALKED), "mcts:2", samples=0)


def test_an_unknown_measurement_is_one_line():
    with pytest.raises(ValueError, match="unknown measurement kind 'nope'; known: uniform, agent, cfr"):
        measure(Measurement(WALKED, "nope"))


def test_a_game_agent_that_refuses_the_variant_gets_a_row_without_nash_conv():
    kapern = load_variant("piraten_kapern_two_dice")
    row = measure_agent(kapern, "oracle", seed=0, samples=1)
    assert row.method == NOT_OFFERED and math.isnan(row.measured.nash_conv) and "oracle" in row.note


def test_cheap_variants_run_cfr_further_than_the_others():
    from pathlib import Path

    from agents.analysis.exact import FULL, QUICK, variant_measurements

    def cfr_counts(variant, budget):
        saved = [(8, Path("step_8.npz"))]
        return [task.iterations for task in variant_measurements(variant, budget, 1, saved) if task.kind == "cfr"]

    assert cfr_counts("skull_king_small", FULL) == [64, 32, 16, 8, 4, 2, 1]
    assert cfr_counts("lucky_pirate_small", FULL) == [4, 2, 1]
    assert cfr_counts("skull_king_small", QUICK) == [1]
