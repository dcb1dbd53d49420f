"""Lucky Pirate as an OpenSpiel game: what the adapter (`pirate_envs.openspiel`) needs to know of it.

Explicit chance, the score bound; ``FACTS`` declares them.
"""

from __future__ import annotations

from typing import Any

from pirate_envs.core.openspiel_facts import Draw, ExplicitRules, OpenSpielFacts


def score_bound(config: Any) -> int:
    """The most games a seat can win: the score is the games won, up to ``wins_to_win``."""
    return config.wins_to_win


def explicit_rules(config: Any) -> ExplicitRules:
    """The dealer (a seat) and every deal (all positions: hands are dealt round the table from the whole deck)."""
    from pirate_envs.lucky_pirate.cards import KINDS

    def label(draw: Draw, value: Any) -> str:
        return f"dealer player_{value}" if draw.kind == "integers" else f"deal {KINDS[value]}"

    n = config.num_players
    games = (config.wins_to_win - 1) * n + 1 + config.max_set_aside_games + 1  # won ones, then set aside ones
    return ExplicitRules(
        max_chance_outcomes=max(len(KINDS), n),
        max_chance_nodes=games * (config.deck_size + 2),  # a dealer (first or after a set-aside game) and a deal
        label=label,
    )


FACTS = OpenSpielFacts(score_bound=score_bound, explicit_rules=explicit_rules)
