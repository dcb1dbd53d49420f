"""Piraten Kapern as an OpenSpiel game: what the adapter (`pirate_envs.openspiel`) needs to know of it.

Explicit chance under a roll limit, the score bound; ``FACTS`` declares them.
"""

from __future__ import annotations

from typing import Any

from pirate_envs.core.chance import count_vectors
from pirate_envs.core.openspiel_facts import Draw, ExplicitRules, OpenSpielFacts

#: The default ``score_bound``: no short computed one (a race to 6,000 points, with negative turns).
SCORE_BOUND = 1_000_000


def explicit_rules(config: Any) -> ExplicitRules:
    """Piraten Kapern under a roll limit (option ``max_rolls``): every deck shuffle and every roll by chance nodes.

    Every position of a shuffle is dealt (the top of the deck, drawn first, is the end of the list).
    """
    from pirate_envs.piraten_kapern.rules import FACES

    if config.max_rolls < 1:
        raise ValueError("chance='explicit' needs max_rolls >= 1 for piraten_kapern_v0 (else a turn re-rolls forever)")
    cards = sum(config.deck().values())
    shuffles = 1 + (config.max_turns - 1) // cards  # a draw from the empty deck shuffles all its cards anew

    def label(draw: Draw, value: Any) -> str:
        if draw.kind == "roll_dice":
            return "roll " + ", ".join(f"{FACES[face]} x{count}" for face, count in enumerate(value) if count)
        return f"shuffle (bottom up) {value}"

    return ExplicitRules(
        max_chance_outcomes=max(len(count_vectors(config.num_dice)), len(config.deck())),
        max_chance_nodes=config.max_turns * config.max_rolls + shuffles * (cards - 1),
        label=label,
    )


def constant_score_bound(config: Any) -> int:
    """The default ``score_bound`` of every config: `SCORE_BOUND`."""
    return SCORE_BOUND


FACTS = OpenSpielFacts(score_bound=constant_score_bound, explicit_rules=explicit_rules)
