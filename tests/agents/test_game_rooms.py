"""Every game's room on the agents floor declares its agents (``AGENTS``), and every target it names resolves."""

from __future__ import annotations

import typing
from collections.abc import Mapping

import pytest

import pirate_envs
from agents.analysis import Collector, collector_for
from agents.base import Agent
from agents.games import GameAgents, game_agents_of
from agents.search.ismcts import MAX_SIMULATIONS, SearchAgent
from pirate_envs.core.spec import resolve


@pytest.fixture(params=pirate_envs.ENV_IDS)
def env_id(request) -> str:
    return request.param


def test_the_room_is_named_as_the_games_package(env_id):
    declared = game_agents_of(env_id)
    assert isinstance(declared, GameAgents)
    assert declared.package == f"agents.{pirate_envs.game_spec(env_id).package}"


def test_every_named_agent_resolves_and_plays_the_protocol(env_id):
    declared = game_agents_of(env_id)
    assert "heuristic" in declared.kinds  # every game has its honest heuristic
    for kind, target in declared.kinds.items():
        assert isinstance(resolve(target)(), Agent), (kind, target)
    for kind, target in declared.batched_kinds.items():
        assert hasattr(resolve(target), "act_batch"), (kind, target)
        assert kind in declared.kinds  # a batched form has its one-game agent


def test_search_options_are_search_keywords(env_id):
    declared = game_agents_of(env_id)
    keywords = declared.search_keywords()
    assert isinstance(keywords, Mapping)
    search_fields = set(typing.get_type_hints(SearchAgent.__init__)) - {"return"}
    assert set(keywords) <= search_fields, f"not SearchAgent keywords: {set(keywords) - search_fields}"
    assert declared.search_simulations is None or 1 <= declared.search_simulations <= MAX_SIMULATIONS


def test_every_game_has_its_collector_and_its_luck_resolves(env_id):
    assert isinstance(collector_for(env_id), Collector)
    declared = game_agents_of(env_id)
    assert declared.luck is None or callable(declared.target("luck"))


def test_a_room_without_a_declaration_is_refused(monkeypatch):
    import agents.lucky_pirate as room

    game_agents_of.cache_clear()
    monkeypatch.delattr(room, "AGENTS")
    try:
        with pytest.raises(LookupError, match="declares no AGENTS"):
            game_agents_of("lucky_pirate_v0")
    finally:
        game_agents_of.cache_clear()
