"""One game's mistakes statistics: each agent under study played and measured, then summarised (the JSON's content)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pirate_envs
from agents.analysis.mistakes.play import OPPONENT, play_measured
from agents.analysis.mistakes.regret import DEFAULT_BUDGET
from agents.analysis.mistakes.stats import BOOTSTRAP, summarise


@dataclass(frozen=True)
class Plan:
    """One game's published run: games per agent and the search budget (rollouts per move; Kapern: exact)."""

    games: int
    budget: int = DEFAULT_BUDGET


#: The published runs: Kapern's regret is exact and cheap, the search's is not (Piratenpoker's
#: games are long: a smaller budget and fewer games keep it to a few CPU-minutes per agent).
PLANS = {
    "skull_king_v0": Plan(200),
    "piraten_kapern_v0": Plan(5000, 0),
    "piratenpoker_v0": Plan(80, 100),
    "lucky_pirate_v0": Plan(200),
}


def studied_agents(env_id: str) -> list[str]:
    """The agents a page studies: the heuristic and the game's shipped rule card (a rule a person can follow)."""
    return ["heuristic", f"rules:{env_id}"]


def measure(
    env_id: str, agents: Sequence[str], games: int, seed: int = 0, budget: int = DEFAULT_BUDGET
) -> dict[str, Any]:
    """Play ``games`` games of each of ``agents`` against heuristics and summarise its regret per situation."""
    by_agent, cpu, described = {}, 0.0, {}
    for name in agents:
        mistakes, described, seconds = play_measured(env_id, name, games, seed, budget)
        by_agent[name] = {**summarise(mistakes, games), "cpu_seconds": round(seconds, 1)}
        cpu += seconds
    return {
        "env_id": env_id,
        "players": pirate_envs.make(env_id, raw=True).game.num_players,
        "opponent": OPPONENT,
        "games": games,
        "seed": seed,
        "measure": described,
        "bootstrap": BOOTSTRAP,
        "cpu_seconds": round(cpu, 1),
        "agents": by_agent,
    }


__all__ = ["PLANS", "Plan", "measure", "studied_agents"]
