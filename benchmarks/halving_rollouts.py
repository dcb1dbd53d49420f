"""Why the halving search wins less often against random players than the heuristic does: its rollouts
and its budget, varied one at a time. Agent factories for the benchmark command, e.g.

    python -m experiments.benchmark --env-id piratenpoker_v0 --players 5 --opponents random --deals 64 \\
        --agent benchmarks/halving_rollouts.py:random_rollouts --out runs/halving_rollouts

* ``heuristic_rollouts``: the registry's ``halving`` (its game's budget, every seat played by the
  heuristic in the rollouts), built here as the others are;
* ``random_rollouts``: the same budget, every seat played at random in the rollouts;
* ``heuristic_rollouts_200``, ``random_rollouts_200``: the same two at 200 simulations a move.

Played on the same first deals, the four compare figure for figure (docs/benchmark.md says what
they gave).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.games import game_agents_of
from agents.search.halving import HalvingSearchAgent, parse_halving_name


def _factory(rollout: str, simulations: int | None = None) -> Callable[[str, int | None, Any], HalvingSearchAgent]:
    def make(env_id: str, seed: int | None, env: Any) -> HalvingSearchAgent:
        options = dict(game_agents_of(env_id).search_keywords())
        budget = simulations or parse_halving_name("halving", env_id)[0]
        agent = HalvingSearchAgent(env, env_id, simulations=budget, rollout=rollout, seed=seed, **options)
        agent.name = f"halving:{budget} ({rollout} rollouts)"
        return agent

    return make


heuristic_rollouts = _factory("heuristic")
random_rollouts = _factory("random")
heuristic_rollouts_200 = _factory("heuristic", 200)
random_rollouts_200 = _factory("random", 200)
