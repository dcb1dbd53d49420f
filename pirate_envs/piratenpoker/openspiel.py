"""Piratenpoker as an OpenSpiel game: what the adapter (`pirate_envs.openspiel`) needs to know of it.

Explicit chance, the score bound; ``FACTS`` declares them.
"""

from __future__ import annotations

from typing import Any

from pirate_envs.core.openspiel_facts import ExplicitRules, OpenSpielFacts

#: The default ``score_bound``: no short computed one.
SCORE_BOUND = 1_000


def explicit_rules(config: Any) -> ExplicitRules:
    """Every poker shuffle (the deck, each reshuffle of the played cards) and loot stack shuffle, all positions:
    the deal pops the draw pile from its end, so no leading positions can be left out."""
    from pirate_envs.piratenpoker.cards import NUM_COLOURS, NUM_POKER_KINDS

    # the deck, a reshuffle of the discard before each later game, and the three loot stacks
    nodes = config.deck_size * config.max_games + NUM_COLOURS * len(config.loot_fronts)
    return ExplicitRules(max_chance_outcomes=NUM_POKER_KINDS, max_chance_nodes=nodes)


def constant_score_bound(config: Any) -> int:
    """The default ``score_bound`` of every config: `SCORE_BOUND`."""
    return SCORE_BOUND


FACTS = OpenSpielFacts(score_bound=constant_score_bound, explicit_rules=explicit_rules)
