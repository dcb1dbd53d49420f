"""An agent that needs a missing extra is not offered, and built, refuses in one line naming the extra."""

from __future__ import annotations

import sys

import pytest

import pirate_envs
from agents.extras import MissingExtra
from agents.registry import agent_names, make_agent
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.render import working_render_modes

NEEDS_FAST = ["race", "best_response:oracle", "best_response:heuristic"]


@pytest.mark.parametrize("name", NEEDS_FAST)
def test_an_agent_needing_numba_refuses_at_construction_naming_the_extra(monkeypatch, name):
    monkeypatch.setitem(sys.modules, "numba", None)  # "import numba" now raises ModuleNotFoundError
    env = pirate_envs.make("piraten_kapern_v0", num_players=2, raw=True)
    with pytest.raises(MissingExtra, match=rf"^agent '{name}' needs the \"fast\" extra \(numba is not installed\)"):
        make_agent(name, "piraten_kapern_v0", seed=0, env=env)
    assert not set(NEEDS_FAST) & set(agent_names("piraten_kapern_v0"))


def test_with_numba_the_agents_are_offered_and_build():
    names = agent_names("piraten_kapern_v0")
    env = pirate_envs.make("piraten_kapern_v0", num_players=2, raw=True)
    for name in NEEDS_FAST:
        assert name in names
        assert make_agent(name, "piraten_kapern_v0", seed=0, env=env).name == name


def test_rgb_array_is_advertised_only_where_pillow_imports(monkeypatch):
    assert "rgb_array" in PirateAECEnv.metadata["render_modes"]  # this environment has pillow
    monkeypatch.setitem(sys.modules, "PIL", None)
    assert working_render_modes("ansi", "human", "rgb_array") == ["ansi", "human"]
