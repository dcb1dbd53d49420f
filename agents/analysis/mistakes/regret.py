"""The regret of a decision: the value of the best move less the value of the move chosen, in the measure's unit.

* An exact measure, where the game's agents package declares one (``EXACT_MEASURE`` in ``agents/<game>/mistakes.py``:
  Piraten Kapern's one-turn oracle, `agents.piraten_kapern.mistakes.OracleRegret`).
* `SearchRegret` (the other games): the batched ``halving`` search (`agents.search.halving`) at a fixed
  budget picks its move; where the agent chose another, both moves are played on ``worlds`` fresh
  worlds shared by the two (common random numbers) and the regret is the mean difference of their
  returns (the seat's lead over the best other seat where the rollouts stop, in points). Fresh worlds
  keep the search's pick from flattering itself: the maximum of the very means it picked by is biased
  upwards, this is not. So it is the regret against the search's pick, noisy and sometimes below 0
  (the agent's move did better on those worlds); where the agent plays the search's pick it is 0.

Each measure's `regret(env, action)` takes the raw env at the position, before ``action`` is played by
the seat to move, and gives ``(regret, best move)``, or ``None`` where the decision does not count
(one legal move, or not a decision of the kind measured).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from agents.analysis.mistakes.situations import mistakes_module

#: The search budget of the published pages (rollouts per searched move: ``halving:<n>``).
DEFAULT_BUDGET = 200


class Measure(Protocol):
    """What a regret measure offers the driver."""

    def describe(self) -> dict[str, Any]:
        """The measure's name, unit and budget (JSON-friendly), for the page."""
        ...

    def reset(self, seed: int) -> None:
        """Seed the measure for one game."""
        ...

    def regret(self, env: Any, action: int) -> tuple[float, int] | None:
        """``(regret, best move)`` of the seat to move choosing ``action`` now, or ``None``: not counted."""
        ...


def legal_moves(env: Any) -> np.ndarray:
    """The legal actions of the seat to move in the raw env ``env``."""
    return np.flatnonzero(env.game.legal_mask())


@dataclass
class SearchRegret:
    """Regret against the ``halving`` search's pick, re-measured on fresh shared worlds (see the module docstring)."""

    env_id: str
    env: Any
    budget: int = DEFAULT_BUDGET
    worlds: int = 0  # 0: half the budget

    def __post_init__(self) -> None:
        from agents.search.halving import make_halving_agent

        self.search = make_halving_agent(f"halving:{self.budget}", self.env_id, env=self.env)
        self.worlds = self.worlds or max(1, self.budget // 2)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "search",
            "name": f"the batched halving search (halving:{self.budget})",
            "unit": "points of lead over the best other seat where the rollouts stop",
            "short_unit": "points of lead",
            "budget": self.budget,
            "worlds": self.worlds,
            "horizon": self.search.horizon,
        }

    def reset(self, seed: int) -> None:
        self.search.reset(seed)

    def regret(self, env: Any, action: int) -> tuple[float, int] | None:
        if env.unwrapped is not self.search.env:
            raise ValueError("SearchRegret measures the env its search was made with")
        if len(legal_moves(env)) < 2:
            return None
        best = self.search.search_root_moves()[0][0]
        if best == action:
            return 0.0, best
        returns = self.search.paired_returns([best, action], self.worlds)
        return float(np.mean(returns[:, 0] - returns[:, 1])), best


def exact_measure(env_id: str) -> type[Measure] | None:
    """The exact measure ``env_id``'s package declares (``EXACT_MEASURE``), or ``None``: the search measures it."""
    return getattr(mistakes_module(env_id), "EXACT_MEASURE", None)


def measure_of(env_id: str, env: Any, budget: int = DEFAULT_BUDGET) -> Measure:
    """The game's exact measure (`exact_measure`: Kapern's oracle; ``budget`` unused), else the search
    regret at ``budget`` rollouts per move, for the raw env ``env``."""
    exact = exact_measure(env_id)
    return exact() if exact is not None else SearchRegret(env_id, env, budget)


__all__ = ["DEFAULT_BUDGET", "Measure", "SearchRegret", "exact_measure", "legal_moves", "measure_of"]
