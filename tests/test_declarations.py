"""Every game's declaration (`GameSpec`: information, chance, optional parts) says what the game has, both ways.

Each optional part is looked for in the game itself (its modules, its engine, its env, the agents
floor's room), so a declaration can neither claim a part the game lacks nor hide one it ships.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import pirate_envs
from pirate_envs.core.chance import RecordingChance
from pirate_envs.core.events import record_events
from pirate_envs.core.spec import DECLARED_PARTS, OPTIONAL_PARTS, GameSpec
from pirate_envs.core.text import text_module
from pirate_envs.testing import play_random_game
from tests.games import GAME_SPECS

#: Decisions a probe game may take (every game's default ends far sooner, or its guard stops it).
PROBE_STEPS = 50_000


def module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def probe_game(spec: GameSpec, check: Callable[[Any], None] | None = None) -> Any:
    """A raw env of ``spec``'s game played to its end from seed 0, recording its events and chance outcomes
    (``check(env)`` before every decision)."""
    env = pirate_envs.make(spec.env_id, raw=True)
    record_events(env.game)
    env.game.pinned_chance = RecordingChance(np.random.default_rng(0))
    env.reset(seed=0)
    env.recorded = env.game.chance  # the reset's copy of the pinned source, which the game draws from
    play_random_game(env, np.random.default_rng(0), check=check, max_steps=PROBE_STEPS)
    return env


def agents_fact(spec: GameSpec, fact: Callable[[str], bool]) -> bool:
    """``fact(env_id)`` of the agents floor; ``False`` where the game has no room there."""
    if not module_exists(f"agents.{spec.package}"):
        return False
    return fact(spec.env_id)


def has_rule_card(env_id: str) -> bool:
    from agents.rules.agent import shipped_cards

    return bool(shipped_cards(env_id))


def has_collector(env_id: str) -> bool:
    from agents.games import game_agents_of

    return game_agents_of(env_id).target("collector") is not None


#: How each optional part is found in the game itself.
FOUND: dict[str, Callable[[GameSpec], bool]] = {
    "batched_kernels": lambda spec: module_exists(spec.module("batched")),
    "gymnasium_id": lambda spec: module_exists(f"agents.{spec.package}"),
    "openspiel_facts": lambda spec: module_exists(spec.module("openspiel")),
    "events": lambda spec: bool(probe_game(spec).game.events),
    "table_layouts": lambda spec: "table_layout" in pirate_envs.env_module(spec.env_id).raw_env.ENV_KEYWORDS,
    "reset_options": lambda spec: bool(pirate_envs.make(spec.env_id, raw=True).game.RESET_OPTIONS),
    "invariants": lambda spec: hasattr(pirate_envs.make(spec.env_id, raw=True).game, "check_invariants"),
    "web_page": lambda spec: web_page_drawn(spec),
    "rule_card": lambda spec: agents_fact(spec, has_rule_card),
    "analysis_collector": lambda spec: agents_fact(spec, has_collector),
}


def web_page_drawn(spec: GameSpec) -> bool:
    env = pirate_envs.make(spec.env_id, raw=True)
    env.reset(seed=0)
    seat = env.game.current_player
    return bool(text_module(env).page_state(env.game.view(seat), env.game.legal_actions()))


def test_every_part_has_a_finder():
    assert set(FOUND) == set(OPTIONAL_PARTS)


@pytest.mark.parametrize("part", list(OPTIONAL_PARTS))
@pytest.mark.parametrize("spec", GAME_SPECS, ids=lambda spec: spec.env_id)
def test_each_declared_part_is_what_the_game_has(spec, part):
    assert spec.has(part) == FOUND[part](spec), f"{spec.env_id} declares {part}={spec.has(part)}"


@pytest.mark.parametrize("spec", GAME_SPECS, ids=lambda spec: spec.env_id)
def test_chance_is_what_the_game_draws(spec):
    assert spec.chance == bool(probe_game(spec).recorded.outcomes)


@pytest.mark.parametrize("spec", [s for s in GAME_SPECS if s.information == "perfect"], ids=lambda spec: spec.env_id)
def test_perfect_information_is_what_the_views_show(spec):
    """A perfect-information game shows every seat the same things: the views differ only in whose they are.

    Both ways, for every game: ``check_env``'s ``information_set`` demands that ``resample_hidden``
    redraws state under imperfect information and never under perfect information.
    """

    def same_views(env: Any) -> None:
        views = [env.game.view(seat)._replace(seat=0) for seat in range(env.game.num_players)]
        assert all(view == views[0] for view in views), views

    same_views(probe_game(spec, check=same_views))


def test_a_declaration_names_only_known_parts_and_information():
    base = pirate_envs.game_spec("skull_king_v0")
    with pytest.raises(ValueError, match=r"skull_king_v0: unknown optional part\(s\) \['wings'\]; parts: \["):
        dataclasses.replace(base, optional_parts=frozenset({"wings"}))
    with pytest.raises(ValueError, match=r"information='partial'; expected one of \['perfect', 'imperfect'\]"):
        dataclasses.replace(base, information="partial")
    with pytest.raises(ValueError, match=r"unknown optional part 'wings'; parts: \['batched_kernels'"):
        base.has("wings")
    assert "batched_kernels" not in DECLARED_PARTS and "gymnasium_id" not in DECLARED_PARTS


def test_a_lacking_part_says_why_by_name():
    pig = pirate_envs.game_spec("pig_v0")
    assert pig.lacks("batched_kernels").startswith("pig_v0 declares no batched_kernels (numba kernels")
    assert pig.lacks("invariants") is None
