"""A single-agent Gymnasium view of any pirate env: one learner against a pool of opponents.

Each episode the learner takes a random seat and the other seats get opponents drawn from an
:class:`~experiments.opponents.OpponentPool`; the opponents move inside :meth:`SelfPlayEnv.step`
until it is the learner's turn again (or the game ends). The reward of a step is the sum of
the raw env's rewards for the learner over every raw step from his move up to his next
decision or the end; rewards that arrive before his first decision are paid with his first
step. So in ``reward_mode="score"`` an episode's return is his final score times
``SCORE_SCALE``, and in ``"win"`` it is the zero-sum terminal reward, even when the game ends
on an opponent's move.

The raw env (no PettingZoo wrapper) is driven directly. ``action_masks()`` is a method of the
env, as sb3-contrib's ``MaskablePPO`` expects, so it works in any VecEnv.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

import pirate_envs
from agents.base import RandomAgent, sample_legal
from agents.policy_agent import MlpPolicy
from experiments.opponents import OpponentPool

#: Redraws allowed when a game ends before the learner's first decision.
MAX_EMPTY_EPISODES = 100


class SelfPlayEnv(gymnasium.Env):
    """The learner's side of one pirate game (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env_id: str,
        opponents: dict[str, float],
        reward_mode: str = "win",
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
        truncation_reward: float | None = None,
        **env_kwargs: Any,
    ):
        """``truncation_reward``: ``None`` reports a truncated game as truncated (SB3 bootstraps
        its value); a number ends it for the learner as terminated, with that reward added
        (``-1`` in win mode counts it as a loss, so that stalling never pays).
        """
        self.env_id = env_id
        self.truncation_reward = truncation_reward
        self.raw = pirate_envs.make(env_id, raw=True, reward_mode=reward_mode, **env_kwargs)
        self.game = self.raw.game
        self.num_players = len(self.raw.possible_agents)
        self.pool = OpponentPool(env_id, self.raw, opponents, max_snapshots, snapshot_deterministic)
        self.observation_space = spaces.Box(-np.inf, np.inf, (self.raw.observation_layout.size,), np.float32)
        self.action_space = spaces.Discrete(self.raw.num_actions)
        self.learner_seat = 0
        self.learner = self.raw.possible_agents[0]
        self._seat_agents: list[Any] = []
        self._pending_reward = 0.0

    # ------------------------------------------------------------------ pool
    def add_snapshot(self, policy: MlpPolicy) -> None:
        """Add a frozen learner copy to the opponent pool (called through ``VecEnv.env_method``)."""
        self.pool.add_snapshot(policy)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        rng = self.np_random
        raw, game = self.raw, self.game
        for _ in range(MAX_EMPTY_EPISODES):
            self.learner_seat = seat = int(rng.integers(self.num_players))
            self.learner = raw.possible_agents[seat]
            self._seat_agents = [None if s == seat else self.pool.draw(s, rng) for s in range(self.num_players)]
            raw.reset(seed=int(rng.integers(2**63)), options=options)
            for agent in self._seat_agents:
                if agent is not None:
                    agent.reset(int(rng.integers(2**31)))
            # the raw reset pays score changes inside the engine's reset (a Kapern first turn
            # resolved by its opening roll) as rewards of that moment
            self._pending_reward = raw.rewards[self.learner] + self._play_opponents()
            if not game.done:
                return raw.observe(self.learner)["observation"], {"seat": seat}
        raise RuntimeError(f"{self.env_id}: {MAX_EMPTY_EPISODES} games in a row ended before the learner's first move")

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        raw, game = self.raw, self.game
        raw.step(int(action))
        reward = self._pending_reward + raw.rewards[self.learner]
        self._pending_reward = 0.0
        reward += self._play_opponents()
        obs = raw.observe(self.learner)["observation"]
        if not game.done:
            return obs, reward, False, False, {}
        terminated, truncated = game.terminated, game.truncated and not game.terminated
        if truncated and self.truncation_reward is not None:
            reward += self.truncation_reward
            terminated, truncated = True, False
        return obs, reward, terminated, truncated, self._final_info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (``bool``), for MaskablePPO."""
        return self.raw.observe(self.learner)["action_mask"].astype(bool)

    def render(self) -> str:
        return self.game.render()

    # ------------------------------------------------------------------ internals
    def _play_opponents(self) -> float:
        """Let opponents move until the learner decides or the game ends; his summed rewards."""
        raw, game = self.raw, self.game
        learner, seat_agents, agents = self.learner, self._seat_agents, raw.possible_agents
        total = 0.0
        while not game.done and game.current_player != self.learner_seat:
            seat = game.current_player
            agent = seat_agents[seat]
            if type(agent) is RandomAgent:
                action = sample_legal(raw._legal_mask(), agent.rng, agent.blocks)
            else:
                obs = raw.observe(agents[seat])
                action = agent.act(obs, game.view(seat) if getattr(agent, "uses_view", True) else None)
            raw.step(action)
            total += raw.rewards[learner]
        return total

    def _final_info(self) -> dict[str, Any]:
        """The learner's seat, final score and share of the win."""
        seat = self.learner_seat
        winners = self.game.winners() if self.game.terminated else []
        return {
            "seat": seat,
            "final_score": float(self.game.scores()[seat]),
            "win_share": 1.0 / len(winners) if seat in winners else 0.0,
            "opponents": [getattr(a, "name", "?") for a in self._seat_agents if a is not None],
        }
