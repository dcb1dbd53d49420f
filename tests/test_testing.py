"""The harnesses of `pirate_envs.testing` find what they look for: each check fails on an env broken for it.

Every broken env is Skull King with one fault, registered under its own env id for the test
(a broken env class placed in a module of its own, so that copies of it pickle). Each test asserts
that the harness raises ``AssertionError`` naming the check, the env id, the seed and where.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
import types
from typing import Any

import numpy as np
import pytest

import pirate_envs
from pirate_envs import testing
from pirate_envs.core.aec import wrap
from pirate_envs.skull_king.engine import SkullKingEngine
from pirate_envs.skull_king.env import raw_env as SkullKingEnv
from pirate_envs.testing import ENV_CHECKS, LOCKSTEP_CHECKS, check_env, check_lockstep

BASE = "skull_king_v0"
BROKEN = "broken_skull_king_v0"


def register(monkeypatch: pytest.MonkeyPatch, raw_cls: type, engine_cls: type | None = None) -> str:
    """Register ``raw_cls`` (playing ``engine_cls``) as the env id `BROKEN` for this test; the id."""
    module = types.ModuleType("broken_skull_king_for_tests")
    if engine_cls is None:  # the env class moves to the module: its copies pickle
        raw_cls.__module__, raw_cls.__qualname__ = module.__name__, raw_cls.__name__
        setattr(module, raw_cls.__name__, raw_cls)
    else:  # both classes say they are Skull King's, whose text module draws the seat screens
        engine_cls.__module__ = SkullKingEngine.__module__
        raw_cls = type(raw_cls.__name__, (raw_cls,), {"ENGINE": engine_cls, "__module__": raw_cls.__module__})
    module.raw_env, module.env = raw_cls, wrap(raw_cls)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    base = pirate_envs.game_spec(BASE)
    invariants = {"invariants"} if hasattr(raw_cls.ENGINE, "check_invariants") else set()  # declared truthfully
    spec = dataclasses.replace(base, env_id=BROKEN, entry_module=module.__name__,
                               optional_parts=base.optional_parts | invariants)  # fmt: skip
    monkeypatch.setitem(pirate_envs.registry._SPECS, BROKEN, spec)
    return BROKEN


def failure(check: str, env_id: str = BROKEN, seed: int = 0) -> str:
    """The start of the message of a failed ``check_env`` check."""
    return re.escape(f"check_env check {check!r} failed for {env_id} (seed {seed}")


# ----------------------------------------------------------------------------- broken envs
class EmptyMaskOnTurn(SkullKingEnv):
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = super().observe(agent)
        return {"observation": obs["observation"], "action_mask": np.zeros_like(obs["action_mask"])}


class MaskForEveryone(SkullKingEnv):
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return super().observe(self.agent_selection)


class UnevenRewards(SkullKingEnv):
    """Pays seat 0 half a point more at the end: win rewards no longer sum to zero, score rewards miss."""

    def _accumulate_rewards(self) -> None:
        if self.game.terminated:
            self.rewards[self.possible_agents[0]] += 0.5
        super()._accumulate_rewards()


class NotANumber(SkullKingEnv):
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = super().observe(agent)
        vector = obs["observation"].copy()
        vector[0] = np.nan
        return {"observation": vector, "action_mask": obs["action_mask"]}


class WrongShape(SkullKingEnv):
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = super().observe(agent)
        return {"observation": np.append(obs["observation"], 0.0), "action_mask": obs["action_mask"]}


class IgnoresSeed(SkullKingEnv):
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=None, options=options)


class LeaksNextHand(SkullKingEnv):
    """Every observation shows a number computed from the next seat's hand."""

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = super().observe(agent)
        vector = obs["observation"].copy()
        hand = self.game.hands[(self.seat_of(agent) + 1) % self.game.num_players]
        vector[0] = float(hand @ np.arange(hand.size)) / 1000
        return {"observation": vector, "action_mask": obs["action_mask"]}


class ResamplesNothing(SkullKingEngine):
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> None:
        pass


class CopiesDealOtherGames(SkullKingEnv):
    """A copy gets a random stream of its own: the next game it deals is not the original's."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._rng = np.random.default_rng(12345)


class WideRender(SkullKingEngine):
    def render(self) -> str:
        return super().render() + "\n" + "=" * 150


class GreyFrames(SkullKingEnv):
    """Draws ``rgb_array`` frames without their colour channels."""

    def render(self) -> Any:
        frame = super().render()
        return frame[..., 0] if self.render_mode == "rgb_array" else frame


class StateForgetsTheTurn(SkullKingEnv):
    def state(self) -> np.ndarray:
        state = super().state()
        state[self.state_layout["on_turn"]] = 0.0
        return state


class SameLabels(SkullKingEnv):
    def action_to_string(self, action: int) -> str:
        return "the same"


class LosesACard(SkullKingEngine):
    """Says (through ``check_invariants``) that a card is lost once a trick holds two cards."""

    def check_invariants(self) -> None:
        assert len(self.trick) < 2, "a card is missing from the deck"


class KeepsItsCards(SkullKingEngine):
    calls = 0

    def check_invariants(self) -> None:
        type(self).calls += 1


class AcceptsAnyAction(SkullKingEnv):
    def is_legal(self, action: Any) -> bool:
        return True


BROKEN_ENVS: dict[str, tuple[type, type | None, str]] = {
    # check: (raw env, engine, what the failure says)
    "api": (WrongShape, None, "Out of bounds observation"),
    "seed": (IgnoresSeed, None, "Incorrect observation"),
    "random_play": (EmptyMaskOnTurn, None, "empty mask for player_"),
    "observations": (NotANumber, None, "non-finite"),
    "score_rewards": (UnevenRewards, None, "its scaled score is"),
    "conservation": (SkullKingEnv, LosesACard, "a card is missing from the deck"),
    "illegal_action": (AcceptsAnyAction, None, "the raw env accepted the illegal action"),
    "information_set": (LeaksNextHand, None, "it shows something the seat cannot see"),
    "copies": (CopiesDealOtherGames, None, "copied at the"),
    "render": (SkullKingEnv, WideRender, "render() has a line of 150 columns"),
    "pettingzoo_render": (GreyFrames, None, "rgb_array mode must return a valid image array"),
    "state": (StateForgetsTheTurn, None, "on_turn is [0.0, 0.0, 0.0], expected"),
    "action_labels": (SameLabels, None, "labels shared by several actions: ['the same']"),
}


def test_every_check_has_a_broken_env():
    assert list(BROKEN_ENVS) == list(ENV_CHECKS)


@pytest.mark.parametrize("check", list(BROKEN_ENVS))
def test_each_check_fails_on_an_env_broken_for_it(monkeypatch: pytest.MonkeyPatch, check: str):
    raw_cls, engine_cls, says = BROKEN_ENVS[check]
    env_id = register(monkeypatch, raw_cls, engine_cls)
    with pytest.raises(AssertionError, match=failure(check) + ".*" + re.escape(says)):
        check_env(env_id, num_players=3, games=4, checks=[check])


@pytest.mark.parametrize("check", [name for name in ENV_CHECKS if name != "conservation"])
def test_the_unbroken_env_passes_each_check(check: str):
    assert check_env(BASE, num_players=3, games=4, checks=[check]).checked == [check]


def test_the_failure_names_the_game_its_reset_seed_and_the_decision(monkeypatch: pytest.MonkeyPatch):
    env_id = register(monkeypatch, SkullKingEnv, LosesACard)
    message = re.escape(f"check_env check 'conservation' failed for {env_id} (seed 7, num_players 4, game 0, ")
    with pytest.raises(AssertionError, match=message + r"reset seed 7, step \d+\): a card is missing"):
        check_env(env_id, num_players=4, games=1, seed=7, checks=["conservation"])


def test_win_rewards_must_sum_to_zero(monkeypatch: pytest.MonkeyPatch):
    env_id = register(monkeypatch, UnevenRewards)
    with pytest.raises(AssertionError, match=failure("random_play") + ".*win-mode rewards do not sum to zero"):
        check_env(env_id, num_players=3, games=2, checks=["random_play"])


def test_other_agents_must_have_empty_masks(monkeypatch: pytest.MonkeyPatch):
    env_id = register(monkeypatch, MaskForEveryone)
    with pytest.raises(AssertionError, match=failure("random_play") + ".*has legal actions while player_"):
        check_env(env_id, num_players=3, games=2, checks=["random_play"])


def test_a_game_must_end_within_the_step_budget():
    with pytest.raises(AssertionError, match=failure("random_play", BASE) + ".*has not ended after 20 decisions"):
        check_env(BASE, num_players=3, games=1, checks=["random_play"], max_steps=20)


def test_a_resampler_must_redraw_what_the_seat_cannot_see(monkeypatch: pytest.MonkeyPatch):
    env_id = register(monkeypatch, SkullKingEnv, ResamplesNothing)
    with pytest.raises(AssertionError, match=failure("information_set") + r".*changed the engine's state at only 0 "):
        check_env(env_id, num_players=3, games=4, checks=["information_set"])


def test_conservation_runs_the_engines_hook_or_says_why_not(monkeypatch: pytest.MonkeyPatch):
    env_id = register(monkeypatch, SkullKingEnv, KeepsItsCards)
    assert check_env(env_id, num_players=3, games=4, checks=["conservation"]).checked == ["conservation"]
    assert KeepsItsCards.calls > 10  # at every decision
    report = check_env(BASE, games=4, checks=["conservation"])
    assert report.skipped == {"conservation": pirate_envs.game_spec(BASE).lacks("invariants")} and not report.checked
    assert report.skipped["conservation"].startswith("skull_king_v0 declares no invariants (")


def test_a_declared_check_must_run(monkeypatch: pytest.MonkeyPatch):
    env_id = register(monkeypatch, SkullKingEnv)
    spec = dataclasses.replace(pirate_envs.game_spec(env_id), optional_parts=frozenset({"invariants"}))
    monkeypatch.setitem(pirate_envs.registry._SPECS, env_id, spec)
    with pytest.raises(AssertionError, match="the spec declares invariants but the engine defines no check_invariants"):
        check_env(env_id, num_players=3, games=2, checks=["conservation"])


def test_a_perfect_information_game_must_not_redraw_the_state(monkeypatch: pytest.MonkeyPatch):
    env_id = register(monkeypatch, SkullKingEnv)
    monkeypatch.setitem(pirate_envs.registry._SPECS, env_id,
                        dataclasses.replace(pirate_envs.game_spec(env_id), information="perfect"))  # fmt: skip
    with pytest.raises(AssertionError, match="declares perfect information, but resample_hidden changed the engine"):
        check_env(env_id, num_players=3, games=2, checks=["information_set"])


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match=re.escape("unknown check(s) ['colour']; valid checks: ['api', ")):
        check_env(BASE, checks=["colour"])
    with pytest.raises(ValueError, match=re.escape("games=0 must be a positive integer")):
        check_env(BASE, games=0)
    with pytest.raises(ValueError, match="valid ids"):
        check_env("no_such_game_v0")


def test_block_first_choice_gives_a_single_action_block_its_share():
    """Kapern's ``stop`` (one action) is drawn about as often as its 2,073 re-rolls together."""
    env = pirate_envs.make("piraten_kapern_v0", raw=True)
    blocks = testing.action_blocks(env)
    mask = np.zeros(env.num_actions, dtype=np.int8)
    mask[0] = 1
    mask[blocks[1][0] : blocks[1][1]] = 1
    rng = np.random.default_rng(0)
    stops = sum(testing.sample_legal(mask, rng, blocks) == 0 for _ in range(2000))
    assert 800 < stops < 1200
    assert sum(testing.sample_legal(mask, rng) == 0 for _ in range(2000)) < 20  # uniform: drowned
    with pytest.raises(ValueError, match="no legal action"):
        testing.sample_legal(np.zeros(4, dtype=np.int8), rng)


# ----------------------------------------------------------------------------- check_lockstep
def corrupt(name: str):
    """A ``VectorEnv`` whose row 1 is wrong in ``name`` after every step."""
    from pirate_envs import vector

    class Corrupted(vector.VectorEnv):
        def step(self, actions: Any, active: Any = None) -> None:
            super().step(actions, active)
            b = self._backend
            if name == "current_player":
                b.current_player[1] = (b.current_player[1] + 1) % self.num_players
            elif name in ("observation", "rewards"):
                getattr(b, name)[1, 0] += 1
            elif name == "action_mask":
                b.action_mask[1] = 1 - b.action_mask[1]
            elif name in ("terminated", "truncated"):
                getattr(b, name)[1] = not getattr(b, name)[1]

        def engine(self, index: int) -> Any:
            engine = super().engine(index)
            if name == "engine":
                engine.current_player = (engine.current_player + 1) % engine.num_players
            return engine

    return lambda env_id, num_envs, seed=None, **kwargs: Corrupted(env_id, num_envs, seed, **kwargs)


@pytest.mark.parametrize("check", LOCKSTEP_CHECKS)
def test_each_lockstep_check_fails_on_a_row_broken_for_it(monkeypatch: pytest.MonkeyPatch, check: str):
    pytest.importorskip("numba")
    from pirate_envs import vector

    monkeypatch.setattr(vector, "make", corrupt(check))
    row = "row 1, " if check != "engine" else "row "
    message = re.escape(f"check_lockstep check {check!r} failed for {BASE} (seed 3, {row}") + r".*batch step \d+\)"
    with pytest.raises(AssertionError, match=message):
        check_lockstep(BASE, num_envs=4, steps=200, seed=3, num_players=3)


def test_lockstep_budget_and_report():
    pytest.importorskip("numba")
    seen = []
    report = check_lockstep(BASE, num_envs=4, steps=30, seed=1, num_players=3,
                            on_step=lambda venv, i, env, action: seen.append((i, action)))  # fmt: skip
    assert report.batch_steps == 30 and 0 < report.steps <= 30 * 4
    assert len(seen) == 31 * 4 and seen[:4] == [(0, None), (1, None), (2, None), (3, None)]
    report = check_lockstep(BASE, num_envs=4, games=6, seed=1, num_players=2, num_hands=2)
    assert report.games >= 6 and report.games == report.terminated + report.truncated


def test_lockstep_without_numba_names_the_fast_extra(monkeypatch: pytest.MonkeyPatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "numba" else find_spec(name, *a))
    with pytest.raises(ImportError, match=re.escape('check_lockstep needs numba, the "fast" extra')):
        check_lockstep(BASE)
