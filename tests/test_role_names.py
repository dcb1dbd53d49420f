"""Every game package names its parts by role: ``Config``, ``Engine``, ``View`` and ``Encoder``."""

from __future__ import annotations

import importlib
import json
from types import ModuleType

import pytest

import pirate_envs
from pirate_envs.core.engine import Engine as BaseEngine
from pirate_envs.core.spec import GameSpec, resolve
from tests.games import GAME_SPECS

#: Each role name and the module of the game package that defines it.
ROLE_MODULES = {"Config": "engine", "Engine": "engine", "View": "view", "Encoder": "observation"}


@pytest.fixture(params=GAME_SPECS, ids=lambda spec: spec.env_id)
def spec(request) -> GameSpec:
    return request.param


def game_package(env) -> ModuleType:
    """The package of the game whose env ``env`` is (found from the env's class, not from the spec)."""
    return importlib.import_module(type(env.unwrapped).__module__.rpartition(".")[0])


@pytest.mark.parametrize("role", sorted(ROLE_MODULES))
def test_package_and_module_offer_each_role_name(spec: GameSpec, role: str):
    env = pirate_envs.make(spec.env_id)
    package = game_package(env)
    module = importlib.import_module(f"{package.__name__}.{ROLE_MODULES[role]}")
    assert role in package.__all__, f"{package.__name__}.__all__ lacks {role}"
    assert getattr(package, role) is getattr(module, role)


def test_roles_are_the_objects_the_env_uses(spec: GameSpec):
    env = pirate_envs.make(spec.env_id)
    package = game_package(env)
    raw = env.unwrapped
    # a later version of a game may change option defaults by a subclass of the game's Config
    assert raw.CONFIG is resolve(spec.config) and issubclass(raw.CONFIG, package.Config)
    assert issubclass(package.Engine, BaseEngine) and package.Engine is not BaseEngine
    assert isinstance(raw.game, package.Engine)
    env.reset(seed=0)
    view = raw.game.view(raw.game.current_player)
    assert isinstance(view, package.View)
    assert isinstance(package.Encoder, type)


#: What every game's text module offers the terminal player and the web table.
TEXT_NAMES = {"GAME_NAME", "Reader", "seat_text", "parse_move", "move_hint", "page_state"}


def test_every_text_module_offers_the_same_names(spec: GameSpec):
    env = pirate_envs.make(spec.env_id)
    text = importlib.import_module(f"{game_package(env).__name__}.text")
    assert set(text.__all__) >= TEXT_NAMES, f"{text.__name__} lacks {sorted(TEXT_NAMES - set(text.__all__))}"
    env.reset(seed=0)
    game = env.unwrapped.game
    state = text.page_state(game.view(game.current_player))
    assert isinstance(state, dict)
    json.dumps(state)  # the web table sends it as is
