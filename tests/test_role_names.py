"""Every game package names its parts by role: ``Config``, ``Engine``, ``View`` and ``Encoder``."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

import pirate_envs
from pirate_envs.core.engine import Engine as BaseEngine
from pirate_envs.core.spec import GameSpec, resolve

#: Each role name and the module of the game package that defines it.
ROLE_MODULES = {"Config": "engine", "Engine": "engine", "View": "view", "Encoder": "observation"}


@pytest.fixture(params=pirate_envs.GAME_SPECS, ids=lambda spec: spec.env_id)
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
    assert resolve(spec.config) is package.Config
    assert raw.CONFIG is package.Config
    assert issubclass(package.Engine, BaseEngine) and package.Engine is not BaseEngine
    assert isinstance(raw.game, package.Engine)
    env.reset(seed=0)
    view = raw.game.view(raw.game.current_player)
    assert isinstance(view, package.View)
    assert isinstance(package.Encoder, type)
