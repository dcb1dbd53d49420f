"""Play the agent under study against heuristics and measure the regret of each of its decisions.

Game ``g`` (dealt with seed ``seed + g``) seats the agent at seat ``g mod n`` and the game's
``heuristic`` at every other seat (`agents.analysis.driver.play_game`); before each decision of the
agent's seat the measure (`agents.analysis.mistakes.regret`) values the position and the agent's
choice (a choice among moves the seat cannot tell apart is none: `situations.interchangeable`). A
`Mistake` records one counted decision: its game, situation, regret, and the moves in words.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import pirate_envs
from agents.analysis.driver import Collector, play_game
from agents.analysis.mistakes.regret import DEFAULT_BUDGET, Measure, legal_moves, measure_of
from agents.analysis.mistakes.situations import interchangeable, situation

#: Who sits at every other seat.
OPPONENT = "heuristic"


@dataclass(frozen=True)
class Mistake:
    """One counted decision of the agent: ``regret`` of choosing ``chosen`` where ``best`` was the measure's move."""

    game: int
    situation: str
    regret: float
    chosen: str
    best: str


class MeasuredAgent:
    """Plays ``agent``; before each of its moves asks ``measure`` for the regret and notes it with ``note``."""

    def __init__(self, agent: Any, env: Any, env_id: str, measure: Measure, note: Callable[[Mistake], None]):
        self.agent, self.env, self.env_id, self.measure, self.note = agent, env, env_id, measure, note
        self.game = 0

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)
        self.measure.reset(0 if seed is None else seed)

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        action = int(self.agent.act(observation, view))
        legal = legal_moves(self.env)
        if interchangeable(self.env_id, legal):
            return action
        found = self.measure.regret(self.env, action)
        if found is not None:
            regret, best = found
            words = self.env.action_to_string
            label = situation(self.env_id, view, legal)
            self.note(Mistake(self.game, label, regret, words(action), words(best)))
        return action


def play_measured(
    env_id: str,
    agent_name: str,
    games: int,
    seed: int = 0,
    budget: int = DEFAULT_BUDGET,
    measure: Measure | None = None,
) -> tuple[list[Mistake], dict[str, Any], float]:
    """``games`` games of ``agent_name`` against heuristics: its counted decisions, the measure's
    description and the CPU seconds spent; ``measure`` replaces the game's own (`measure_of`)."""
    from agents.registry import make_agent  # the registry loads the search and policy agents

    start = time.process_time()
    env = pirate_envs.make(env_id, raw=True)
    n = env.game.num_players
    measure = measure or measure_of(env_id, env, budget)
    mistakes: list[Mistake] = []
    studied = MeasuredAgent(make_agent(agent_name, env_id, seed=seed, env=env), env, env_id, measure, mistakes.append)
    others = [make_agent(OPPONENT, env_id, seed=seed + 1 + k, env=env) for k in range(n - 1)]
    for g in range(games):
        seat = g % n
        seat_agents = [*others[:seat], studied, *others[seat:]]
        names = [OPPONENT] * n
        names[seat] = agent_name
        studied.game = g
        play_game(env, seat_agents, names, Collector(), g, seed + g)
    return mistakes, measure.describe(), time.process_time() - start


__all__ = ["OPPONENT", "MeasuredAgent", "Mistake", "play_measured"]
