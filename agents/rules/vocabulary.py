"""A game's rule-card vocabulary: named human features of a seat's view and named moves.

Each game's ``agents/<game>/rule_card.py`` declares ``VOCABULARY = Vocabulary(...)``:

* a `Feature` reads one number from the deciding seat's view and its legal actions (never the
  engine's hidden state), with the words that describe it;
* a `Choice` is a move in words ("bid your count of sure winners") and the function that turns
  it into one action of the env's table, or ``None`` where it names no legal move;
* ``fallback`` names the choice played when no rule of a card applies.

Feature and choice functions take ``(view, legal)``: the seat's View and the sorted array of
its legal action ids (the action mask's non-zero entries, which the view fixes).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import pirate_envs

#: ``(view, legal)`` -> a number; ``legal`` the sorted legal action ids.
FeatureFn = Callable[[Any, np.ndarray], float]
#: ``(view, legal)`` -> an action id, or ``None`` where the choice names no legal move.
ChoiceFn = Callable[[Any, np.ndarray], "int | None"]


@dataclass(frozen=True)
class Feature:
    """A named number of the seat's view: ``flag`` (0/1) or ``count`` (whole numbers) or ``number``."""

    name: str
    #: Words for the number ("trumps in your hand"); a flag's words read as a statement ("you lead the trick").
    text: str
    fn: FeatureFn
    kind: str = "count"
    #: A flag's negation ("you follow"); default: "not: <text>".
    negation: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("flag", "count", "number"):
            raise ValueError(f"feature {self.name!r}: kind must be flag, count or number, not {self.kind!r}")


@dataclass(frozen=True)
class Choice:
    """A move in words and the action it names in a position."""

    name: str
    text: str
    fn: ChoiceFn


@dataclass(frozen=True)
class Vocabulary:
    """One game's features, choices and the fallback choice (see the module docstring)."""

    env_id: str
    features: tuple[Feature, ...]
    choices: tuple[Choice, ...]
    fallback: str
    #: Player counts the figures are measured at (the card itself plays any count of the game).
    players: int = 4
    #: A feature naming the kind of decision (bid or card...): the distiller weighs each of its
    #: values the same in all, so that rare but weighty decisions are not drowned ("": no weighing).
    balance: str = ""
    #: The kind of an action (e.g. stop or re-roll): the distiller counts a move of the teacher's kind
    #: but not the teacher's move as ``kind_credit`` agreeing (``None``: only the teacher's move agrees).
    move_kind: Callable[[int], int] | None = None
    kind_credit: float = 0.5
    #: ``stakes(view, legal, choice_actions)``: how much the teacher's choice matters in a position (e.g.
    #: the teacher's own value gap between its moves); the distiller weighs each position by it, so that
    #: the card agrees where a wrong move costs most (``None``: every position weighs the same).
    stakes: Callable[[Any, np.ndarray, Mapping[str, int | None]], float] | None = None
    by_name: Mapping[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [f.name for f in self.features] + [c.name for c in self.choices]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.env_id}: feature and choice names must be distinct")
        if self.fallback not in {c.name for c in self.choices}:
            raise ValueError(f"{self.env_id}: fallback {self.fallback!r} is no choice")
        object.__setattr__(self, "by_name", {**{f.name: f for f in self.features}, **{c.name: c for c in self.choices}})

    def feature(self, name: str) -> Feature:
        """The feature ``name`` (``KeyError`` for an unknown one)."""
        found = self.by_name[name]
        if not isinstance(found, Feature):
            raise KeyError(name)
        return found

    def choice(self, name: str) -> Choice:
        """The choice ``name`` (``KeyError`` for an unknown one)."""
        found = self.by_name[name]
        if not isinstance(found, Choice):
            raise KeyError(name)
        return found

    def feature_values(self, view: Any, legal: np.ndarray) -> dict[str, float]:
        """Every feature's value in this position."""
        return {f.name: float(f.fn(view, legal)) for f in self.features}

    def choice_actions(self, view: Any, legal: np.ndarray) -> dict[str, int | None]:
        """Every choice's action in this position (``None``: no legal move)."""
        allowed = set(int(a) for a in legal)
        actions: dict[str, int | None] = {}
        for c in self.choices:
            action = c.fn(view, legal)
            actions[c.name] = int(action) if action is not None and int(action) in allowed else None
        return actions


def legal_actions(mask: np.ndarray) -> np.ndarray:
    """The sorted legal action ids of an action mask."""
    return np.flatnonzero(np.asarray(mask)).astype(np.int64)


def card_plays(card_env_id: str, env_id: str) -> bool:
    """Whether a card written for ``card_env_id`` plays ``env_id``: the same id, or an earlier version of the
    same game (``GameSpec.same_game_as``: the same rules and view)."""
    return card_env_id == env_id or (
        env_id in pirate_envs.ENV_IDS and pirate_envs.game_spec(env_id).plays_agents_of(card_env_id)
    )


def vocabulary_of(env_id: str) -> Vocabulary:
    """``env_id``'s vocabulary, declared by ``agents/<game>/rule_card.py`` (``LookupError`` when none); a later
    version of the same game (``same_game_as``) reads its earlier version's (its ``env_id`` is that version's)."""
    package = pirate_envs.game_spec(env_id).package
    try:
        module = importlib.import_module(f"agents.{package}.rule_card")
    except ModuleNotFoundError as error:
        raise LookupError(f"{env_id} has no rule-card vocabulary (agents/{package}/rule_card.py)") from error
    found = getattr(module, "VOCABULARY", None)
    if not isinstance(found, Vocabulary) or not card_plays(found.env_id, env_id):
        raise LookupError(f"agents/{package}/rule_card.py declares no VOCABULARY for {env_id}")
    return found


def shipped_card_path(env_id: str) -> str:
    """Where ``env_id``'s shipped card lies: ``agents/<game>/rule_card.json``."""
    from pathlib import Path

    package = pirate_envs.game_spec(env_id).package
    return str(Path(__file__).resolve().parent.parent / package / "rule_card.json")


def agent_choice(name: str, text: str, agent: Any, num_actions: int) -> Choice:
    """A choice that makes a deterministic honest agent's move (it reads the view and the legal actions only)."""

    def choose(view: Any, legal: np.ndarray) -> int | None:
        mask = np.zeros(num_actions, dtype=np.int8)
        mask[legal] = 1
        return int(agent.act({"action_mask": mask}, view))

    return Choice(name, text, choose)
