"""The one grammar of agent names: parsed to a typed spec, written back, every kind built from the one table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pirate_envs
from agents.registry import agent_player_counts, make_agent
from agents.spec import KINDS, MAX_SIMULATIONS, AgentSpec, parse_agent_name
from pirate_envs.core.spec import resolve

#: One name of every kind (and the spec it parses to).
NAMES = {
    "random": AgentSpec("random"),
    "heuristic": AgentSpec("game", option="heuristic"),
    "best_response:oracle": AgentSpec("game", option="best_response:oracle"),
    "mcts": AgentSpec("mcts"),
    "mcts:7:random": AgentSpec("mcts", 7, option="random"),
    "mcts:8:batched": AgentSpec("batched", 8),
    "mcts:ppo:skull_king_v0": AgentSpec("guided", None, "skull_king_v0", "mcts"),
    "gumbel:8:ppo:runs/a.npz#sample": AgentSpec("guided", 8, "runs/a.npz#sample", "gumbel"),
    "omniscient": AgentSpec("omniscient"),
    "omniscient:12:ppo:x": AgentSpec("omniscient", 12, "x"),
    "halving": AgentSpec("halving"),
    "halving:64:ppo:x": AgentSpec("halving", 64, "x"),
    "rules:skull_king_v0": AgentSpec("rules", source="skull_king_v0"),
    "rules:cards/mine.json": AgentSpec("rules", source="cards/mine.json"),
    "ppo:x#sample": AgentSpec("ppo", source="x#sample"),
    "dmc:runs/d.npz": AgentSpec("dmc", source="runs/d.npz"),
    "openspiel:ismcts": AgentSpec("openspiel", option="ismcts"),
    "openspiel:ismcts:50": AgentSpec("openspiel", 50, option="ismcts"),
    "path/to/bot.py:make": AgentSpec("python", source="path/to/bot.py", option="make"),
    "my_pkg.agents:make": AgentSpec("python", source="my_pkg.agents", option="make"),
}


@pytest.mark.parametrize("name", NAMES)
def test_the_grammar_round_trips(name):
    spec = parse_agent_name(name)
    assert spec == NAMES[name]
    assert str(spec) == name and parse_agent_name(str(spec)) == spec


def test_every_kind_is_named_above_and_its_builder_exists():
    assert {spec.kind for spec in NAMES.values()} == set(KINDS)
    for kind in KINDS.values():
        assert callable(resolve(kind.build)), kind.build


def test_a_budget_is_written_back_as_a_number():
    assert str(parse_agent_name("mcts:007")) == "mcts:7" and parse_agent_name("halving:0064").simulations == 64


def test_networks_are_the_trained_files_a_name_plays():
    networks = {name: parse_agent_name(name).network for name in NAMES}
    assert networks["halving:64:ppo:x"] == "x" and networks["ppo:x#sample"] == "x#sample"
    assert networks["dmc:runs/d.npz"] == "runs/d.npz" and networks["halving"] is None
    assert networks["rules:skull_king_v0"] is None and networks["path/to/bot.py:make"] is None


@pytest.mark.parametrize(
    "bad, words",
    [
        ("mcts:0", "bad search agent 'mcts:0': use 'mcts'"),
        ("mcts:5:greedy", "with a rollout in ('heuristic', 'random')"),
        (f"mcts:{MAX_SIMULATIONS + 1}", "is more than MAX_SIMULATIONS"),
        ("mcts:5:random:batched", "its rollouts are the heuristic's; drop 'random'"),
        ("mcts:5:greedy:batched", "(with ':batched' after it)"),
        ("mcts:5:heuristic:batched", None),
        ("halving:8:random", "bad halving search agent 'halving:8:random'"),
        ("halving:x", "<simulations> an integer 1..100000"),
        ("gumbel:5", "bad search agent 'gumbel:5': use 'mcts:<simulations>:ppo:<agent>'"),
        ("omniscient:x", "'x' simulations; use"),
        ("ppo:", "give what follows 'ppo:'"),
        ("rules:", "give what follows 'rules:'"),
        ("openspiel:ismcts:0", "bad OpenSpiel agent 'openspiel:ismcts:0': use 'openspiel:ismcts'"),
        ("openspiel:mcts", "bad OpenSpiel agent 'openspiel:mcts'"),
        (f"openspiel:ismcts:{MAX_SIMULATIONS + 1}", "is more than MAX_SIMULATIONS"),
    ],
)
def test_bad_names_fail_in_one_line_naming_the_name(bad, words):
    if words is None:  # the heuristic's rollouts, written out, are the batched search's own
        assert parse_agent_name(bad) == AgentSpec("batched", 5)
        return
    with pytest.raises(ValueError) as caught:
        parse_agent_name(bad)
    message = str(caught.value)
    assert "\n" not in message and words in message and repr(bad) in message


@pytest.mark.parametrize("value", [None, 3, b"heuristic", ["heuristic"]])
def test_a_name_that_is_not_a_string_is_named(value):
    with pytest.raises(TypeError, match=r"an agent name is a string") as caught:
        make_agent(value, "skull_king_v0")
    assert repr(value) in str(caught.value) and type(value).__name__ in str(caught.value)


def test_an_unknown_name_lists_the_game_s_agents():
    with pytest.raises(ValueError, match=r"^no agent 'heuristc' for skull_king_v0; available: \['random'"):
        make_agent("heuristc", "skull_king_v0")


@pytest.mark.parametrize(
    "name",
    ["random", "heuristic", "mcts:2", "mcts:2:batched", "mcts:2:ppo:skull_king_v0", "omniscient:2", "halving:2",
     "rules:skull_king_v0", "ppo:skull_king_v0", "ppo:skull_king_v0#sample"],
)  # fmt: skip
def test_each_kind_builds_through_the_table(name):
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=4)
    agent = make_agent(name, "skull_king_v0", seed=1, env=env)
    env.reset(seed=2)
    seat = env.game.current_player
    action = agent.act(env.observe(env.possible_agents[seat]), env.game.view(seat))
    assert env.game.legal_mask()[action]


def test_a_python_agent_builds_through_the_table(tmp_path: Path):
    source = tmp_path / "first_legal.py"
    source.write_text(
        "import numpy as np\n\n\nclass First:\n    def reset(self, seed=None):\n        pass\n\n"
        "    def act(self, observation, view=None):\n        return int(np.flatnonzero(observation['action_mask'])[0])"
        "\n\n\ndef make(env_id, seed, env):\n    return First()\n"
    )
    name = f"{source}:make"
    assert agent_player_counts(name, "skull_king_v0") == pirate_envs.player_counts("skull_king_v0")
    env = pirate_envs.make("skull_king_v0", raw=True)
    agent = make_agent(name, "skull_king_v0", seed=0, env=env)
    env.reset(seed=0)
    first_legal = int(np.flatnonzero(env.game.legal_mask())[0])
    assert agent.act(env.observe(env.agent_selection), None) == first_legal
