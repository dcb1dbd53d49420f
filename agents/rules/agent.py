"""The agent that plays a rule card, and the rule that applies to a position.

`decide` evaluates the card's features on the deciding seat's view (the View the env gives that
seat, and its legal actions), takes the first rule whose conditions hold and whose move is
legal, else the card's fallback choice, else (the fallback names no legal move either) the
lowest legal action. Playing needs numpy only.

`applying_rule(card, env, seat)` gives the hints the rule that decides ``seat``'s move now
(``None`` when the fallback decides): ``applying_rule(card, env, 0).text`` is its words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.rules.card import Rule, RuleCard, load_card
from agents.rules.vocabulary import legal_actions, shipped_card_path
from agents.spec import AgentSpec, parse_agent_name


def decide(card: RuleCard, view: Any, legal: np.ndarray) -> tuple[int, Rule | None]:
    """The card's action in this position and the rule that chose it (``None``: the fallback)."""
    vocabulary = card.vocabulary
    values = vocabulary.feature_values(view, legal)
    allowed = set(int(a) for a in legal)
    for rule in card.rules:
        if rule.holds(values):
            action = vocabulary.choice(rule.then).fn(view, legal)
            if action is not None and int(action) in allowed:
                return int(action), rule
    action = vocabulary.choice(card.fallback).fn(view, legal)
    if action is not None and int(action) in allowed:
        return int(action), None
    return int(legal[0]), None


def applying_rule(card: RuleCard, env: Any, seat: int) -> Rule | None:
    """The rule of ``card`` that decides ``seat``'s move now in ``env`` (a raw env or its AEC
    wrapper with ``.game``), or ``None`` when the fallback decides or ``seat`` is not to move."""
    game = getattr(env, "game", None) or env.unwrapped.game
    if game.done or game.current_player != seat:
        return None
    mask = env.observe(env.possible_agents[seat])["action_mask"]
    return decide(card, game.view(seat), legal_actions(mask))[1]


class RuleCardAgent:
    """Plays a `RuleCard` (deterministic; ``last_rule`` is the rule of its last move)."""

    def __init__(self, card: RuleCard, name: str = ""):
        self.card = card
        self.name = name or str(AgentSpec("rules", source=card.env_id))
        self.last_rule: Rule | None = None

    def reset(self, seed: int | None = None) -> None:
        """Deterministic: nothing to reset."""
        self.last_rule = None

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """The first applicable rule's legal move (see `decide`)."""
        action, self.last_rule = decide(self.card, view, legal_actions(observation["action_mask"]))
        return action


def card_source(name: str, env_id: str) -> str:
    """The card file a ``rules:<env_id>`` or ``rules:<path.json>`` name plays."""
    rest = parse_agent_name(name).source or ""
    if rest.endswith(".json"):
        return rest
    if rest != env_id:
        raise ValueError(f"{name!r}: a rule card is named rules:{env_id} or rules:<file.json>")
    return shipped_card_path(env_id)


def make_rules_agent(name: str, env_id: str) -> RuleCardAgent:
    """The agent of a ``rules:...`` name for ``env_id`` (its card loaded and validated)."""
    path = card_source(name, env_id)
    if not Path(path).is_file():
        raise ValueError(f"{name!r}: no card file at {path}")
    return RuleCardAgent(load_card(path, env_id), name)


def shipped_cards(env_id: str) -> list[str]:
    """``["rules:<env_id>"]`` when ``env_id`` has a vocabulary and ships a card, else ``[]``."""
    from agents.rules.vocabulary import vocabulary_of

    try:
        vocabulary_of(env_id)
    except LookupError:
        return []
    return [str(AgentSpec("rules", source=env_id))] if Path(shipped_card_path(env_id)).is_file() else []
