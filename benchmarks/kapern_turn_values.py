"""Expected points of one Piraten Kapern turn per fortune card: the oracle against other agents.

For each card: the oracle's exact optimal turn value, the heuristic's exact turn value (policy
evaluation over the same dice states), and each agent's mean score over ``--turns`` seeded
first turns in the env with a 95% confidence interval. The last row weighs the cards as in the
standard 35-card deck (the promo cards are left out of it) and gives each agent's share of the
oracle's deck value.

    python benchmarks/kapern_turn_values.py [--turns 2000] [--seed 0] [--agents heuristic ppo:NAME#sample ...]

Agents are names as in ``agents.registry.make_agent`` (a ``ppo:`` policy must play 2 players;
one of the ``"max"`` table layout reads the 2-player table's observation). Each card gets its
own seeded stream, so the deck row's interval, which treats the cards' means as independent,
is honest.
"""

from __future__ import annotations

import argparse
import math
import time

import pirate_envs
from agents.evaluation.stats import Z95, mean_interval
from agents.piraten_kapern.heuristic import KapernHeuristic
from agents.piraten_kapern.oracle import optimal_turn_value, policy_turn_value, sample_turn_scores
from agents.registry import make_agent
from pirate_envs.core.render import format_table
from pirate_envs.piraten_kapern.rules import CARDS, STANDARD_DECK

ENV_ID = "piraten_kapern_v0"


def deck_mean_interval(stats: dict[str, tuple[float, float]]) -> tuple[float, float, float]:
    """The standard-deck weighted mean of per-card ``(mean, standard error)`` with its 95% interval."""
    deck_size = sum(STANDARD_DECK.values())
    mean = sum(n * stats[card][0] for card, n in STANDARD_DECK.items()) / deck_size
    error = math.sqrt(sum((n * stats[card][1]) ** 2 for card, n in STANDARD_DECK.items())) / deck_size
    return mean, mean - Z95 * error, mean + Z95 * error


def turn_value_rows(agent_names: list[str], turns: int, seed: int) -> list[list[str]]:
    """One table row per card, then the standard-deck averages and each agent's share of the oracle's."""
    rows = []
    oracle, heuristic = {}, {}
    sampled: dict[str, dict[str, tuple[float, float]]] = {name: {} for name in agent_names}
    table = pirate_envs.make(ENV_ID, raw=True, num_players=2)  # the observation the turns give
    for index, card in enumerate(CARDS):
        oracle[card] = optimal_turn_value(card)
        heuristic[card] = policy_turn_value(card, KapernHeuristic().plan)
        row = [card, f"{oracle[card]:.1f}", f"{heuristic[card]:.1f}"]
        card_seed = seed * len(CARDS) + index  # one stream per card: the cards' means are independent
        for name in agent_names:
            agent = make_agent(name, ENV_ID, seed=card_seed, env=table)
            scores = sample_turn_scores(agent, card, turns, seed=card_seed).tolist()
            mean, low, high = mean_interval(scores)
            sampled[name][card] = (mean, (high - low) / (2 * Z95))
            row.append(f"{mean:.1f} [{low:.1f}, {high:.1f}]")
        rows.append(row)
    deck_size = sum(STANDARD_DECK.values())
    oracle_deck = sum(n * oracle[c] for c, n in STANDARD_DECK.items()) / deck_size
    deck_row = [
        "standard deck",
        f"{oracle_deck:.1f}",
        f"{sum(n * heuristic[c] for c, n in STANDARD_DECK.items()) / deck_size:.1f}",
    ]
    share_row = ["share of the oracle", "1.000", f"{float(deck_row[2]) / oracle_deck:.3f}"]
    for name in agent_names:
        mean, low, high = deck_mean_interval(sampled[name])
        deck_row.append(f"{mean:.1f} [{low:.1f}, {high:.1f}]")
        share_row.append(f"{mean / oracle_deck:.3f} [{low / oracle_deck:.3f}, {high / oracle_deck:.3f}]")
    return [*rows, deck_row, share_row]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000, help="seeded env turns per card and agent")
    parser.add_argument("--seed", type=int, default=0, help="seed of the env's generators and the agents")
    parser.add_argument("--agents", nargs="+", default=["heuristic"], help="agents to sample in the env")
    args = parser.parse_args()
    if args.turns < 2:
        parser.error("--turns must be at least 2")
    start = time.perf_counter()
    rows = turn_value_rows(args.agents, args.turns, args.seed)
    headers = ["card", "oracle (exact)", "heuristic (exact)"]
    headers += [f"{name}: mean, 95% CI ({args.turns} turns)" for name in args.agents]
    print(format_table(headers, rows))
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
