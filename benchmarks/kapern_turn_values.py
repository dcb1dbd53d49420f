"""Expected points of one Piraten Kapern turn per fortune card: the oracle against the heuristic.

For each card: the oracle's exact optimal turn value, the heuristic's exact turn value (policy
evaluation over the same dice states), and the heuristic's mean score over ``--turns`` seeded
first turns in the env with a 95% confidence interval. The last row weighs the cards as in the
standard 35-card deck.

    python benchmarks/kapern_turn_values.py [--turns 2000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

from agents.kapern_heuristic import KapernHeuristic
from agents.kapern_oracle import optimal_turn_value, policy_turn_value, sample_turn_scores
from experiments.stats import mean_interval
from pirate_envs.core.render import format_table
from pirate_envs.piraten_kapern.scoring import CARDS, STANDARD_DECK


def turn_value_rows(turns: int, seed: int) -> list[list[str]]:
    """One table row per card, then the standard-deck average of the exact values."""
    rows = []
    oracle_values, heuristic_values = {}, {}
    for card in CARDS:
        oracle_values[card] = optimal_turn_value(card)
        heuristic_values[card] = policy_turn_value(card, KapernHeuristic().plan)
        mean, low, high = mean_interval(sample_turn_scores(KapernHeuristic(), card, turns, seed=seed).tolist())
        rows.append(
            [
                card,
                f"{oracle_values[card]:.1f}",
                f"{heuristic_values[card]:.1f}",
                f"{mean:.1f} [{low:.1f}, {high:.1f}]",
            ]
        )
    deck_size = sum(STANDARD_DECK.values())
    rows.append(
        [
            "standard deck",
            f"{sum(n * oracle_values[c] for c, n in STANDARD_DECK.items()) / deck_size:.1f}",
            f"{sum(n * heuristic_values[c] for c, n in STANDARD_DECK.items()) / deck_size:.1f}",
            "",
        ]
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000, help="seeded env turns per card for the heuristic")
    parser.add_argument("--seed", type=int, default=0, help="seed of the env's generator")
    args = parser.parse_args()
    if args.turns < 2:
        parser.error("--turns must be at least 2")
    start = time.perf_counter()
    rows = turn_value_rows(args.turns, args.seed)
    headers = ["card", "oracle (exact)", "heuristic (exact)", f"heuristic mean, 95% CI ({args.turns} turns)"]
    print(format_table(headers, rows))
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
