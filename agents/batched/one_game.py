"""One-game agents in batched games: the per-row adaptor.

An agent with no batched form (the ``mcts`` search, any `agents.base.Agent`)
plays rows of a `pirate_envs.vector.VectorEnv` through two pieces:

* `EnginesInStep`: for the rows that need one, a reference engine in the same state as the
  batched game, built once when the game starts (``venv.engine(row)``) and then kept in step by
  applying every action the row plays (learner and opponents alike); no replay per decision;
* `OneGameAgents`: a `agents.batched.BatchedAgent` whose rows are answered one by one by a
  one-game agent per (row, seat), asked on the row's observation and mask (those the AEC env
  shows) and its engine's View, with the raw env it was built for looking at that engine (the
  search reads ``env.game``). It chooses what it would choose in `agents.selfplay.env.SelfPlayEnv`
  on the same engine state, with the same reset seed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import Agent
from pirate_envs.core.engine import Engine


class EnginesInStep:
    """Reference engines of some rows of ``venv``, kept in the batched games' state."""

    def __init__(self, venv: Any):
        self.venv = venv
        self.engines: dict[int, Engine] = {}

    def start(self, rows: np.ndarray) -> None:
        """The games of ``rows`` just started (or are where they are): follow them from now on."""
        for row in rows.tolist():
            self.engines[row] = self.venv.engine(row)

    def stop(self, rows: np.ndarray) -> None:
        """Stop following the games of ``rows``."""
        for row in rows.tolist():
            self.engines.pop(row, None)

    def follow(self, actions: np.ndarray, active: np.ndarray | None) -> None:
        """Apply the step ``venv.step(actions, active)`` just played to the followed engines
        (an ended game's action starts its next game: that row is started anew by `start`)."""
        for row, engine in self.engines.items():
            if (active is None or active[row]) and not engine.done:
                engine.apply(int(actions[row]))


class OneGameAgents:
    """A one-game agent kind playing rows of batched games (see the module docstring).

    ``make_agent(game)``: the one-game agent of the game slot ``game`` (``row * num_players + seat``),
    built for the raw env ``raw``; ``engines``: the rows' engines in step.
    """

    def __init__(
        self, name: str, make_agent: Callable[[int], Agent], raw: Any, engines: EnginesInStep, num_players: int
    ):
        self.name = name
        self.make_agent = make_agent
        self.raw = raw
        self.engines = engines
        self.num_players = num_players

    def reset_games(self, games: np.ndarray) -> None:
        """Nothing to forget here: `start` resets the agents of the games this kind plays."""

    def start(self, games: np.ndarray, seeds: np.ndarray) -> None:
        """The slots ``games`` start a game with this kind: reset each one's agent with its seed."""
        for game, seed in zip(games.tolist(), seeds.tolist()):
            self.make_agent(game).reset(seed)

    def act_batch(self, games: np.ndarray, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        actions = np.empty(len(games), dtype=np.int64)
        table_game = self.raw.game
        try:
            for j, game in enumerate(games.tolist()):
                row, seat = divmod(game, self.num_players)
                engine = self.engines.engines[row]
                if engine.current_player != seat or engine.done:
                    raise RuntimeError(f"row {row}: the reference engine is out of step (seat {seat} is not on turn)")
                agent = self.make_agent(game)
                self.raw.game = engine  # what the search reads
                observation = {"observation": observations[j], "action_mask": action_masks[j]}
                view = engine.view(seat) if getattr(agent, "uses_view", True) else None
                actions[j] = agent.act(observation, view)
        finally:
            self.raw.game = table_game
        return actions


__all__ = ["EnginesInStep", "OneGameAgents"]
