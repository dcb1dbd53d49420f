"""Skull King as an OpenSpiel game: what the adapter (`pirate_envs.openspiel`) needs to know of it.

Explicit chance, the exact length, the score bound; ``FACTS`` declares them.
"""

from __future__ import annotations

from typing import Any

from pirate_envs.core.openspiel_facts import Draw, ExplicitRules, OpenSpielFacts


def exact_length(config: Any) -> int:
    """Every game's number of moves: every seat bids each hand, then plays k cards in hand k."""
    n, hands = config.num_players, config.num_hands
    return n * hands + n * hands * (hands + 1) // 2


def score_bound(config: Any) -> int:
    """The most a seat can score or lose: hand k, at most 20 k for the bid plus, per trick, +50 (Mermaid)
    or +30 per other seat's Pirate."""
    n, hands = config.num_players, config.num_hands
    return sum(20 * k + k * max(50, 30 * (n - 1)) for k in range(1, hands + 1))


def explicit_rules(config: Any) -> ExplicitRules:
    from pirate_envs.skull_king.cards import KIND_NAMES

    def dealt(engine: Any, draw: Draw) -> list[int]:
        # the deal reads the deck's first n * k cards only, as one k-card hand per seat (a multiset)
        return [engine.hand_number] * engine.num_players

    cards = sum(config.num_players * k for k in range(1, config.num_hands + 1))
    return ExplicitRules(
        max_chance_outcomes=len(KIND_NAMES),
        max_chance_nodes=cards,
        positions=dealt,
        label=lambda draw, kind: f"deal {KIND_NAMES[kind]}",
    )


FACTS = OpenSpielFacts(score_bound=score_bound, explicit_rules=explicit_rules, exact_length=exact_length)
