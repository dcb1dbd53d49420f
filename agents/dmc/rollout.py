"""Epsilon-greedy actors on the batched engine and the Monte-Carlo returns of their decisions.

`Actors` plays one whole game in every slot of a `pirate_envs.vector` engine per `Actors.play`:
the learner's seats choose by `epsilon_greedy` over the Q values of an exported network
(`agents.policy.mlp.MlpPolicy`), the other seats (when ``opponent`` is an agent name rather than
``"self"``) by that agent's batched form (`agents.batched`). Every learner decision is kept with
its Monte-Carlo return: the sum of its seat's rewards from the step it made to the game's end,
discounted by ``gamma`` per game step (`monte_carlo_returns`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import pirate_envs
import pirate_envs.vector
from agents.batched import make_batched_agent
from agents.policy.mlp import MlpPolicy

#: The opponent name under which every seat is the learner.
SELF = "self"


def epsilon_greedy(q_values: np.ndarray, masks: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """``(M,)`` int64 actions: per row, with probability ``epsilon`` a uniformly random legal action,
    else the legal action of highest Q. ``ValueError`` for a row with no legal action."""
    legal = np.asarray(masks).astype(bool, copy=False)
    if not legal.any(axis=1).all():
        raise ValueError("a row of the action masks has no legal action")
    greedy = np.argmax(np.where(legal, q_values, -np.inf), axis=1)
    explore = rng.random(len(legal)) < epsilon
    if explore.any():
        greedy[explore] = pirate_envs.vector.random_legal_actions(legal[explore].astype(np.int8), rng)
    return greedy.astype(np.int64)


def monte_carlo_returns(seats: np.ndarray, rewards: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    """The return of every decision of games played step by step.

    ``seats`` ``(T, N)``: the seat that moved at step ``t`` of game ``n``; ``rewards`` ``(T, N, P)``:
    every seat's reward paid by that step. The return of the decision at ``t`` is
    ``sum_{u >= t} gamma ** (u - t) * rewards[u, n, seats[t, n]]``: ``(T, N)`` float32. Steps after a
    game ended carry zero rewards and do not change its returns.
    """
    rewards = np.asarray(rewards, dtype=np.float64)
    returns = np.zeros(seats.shape, dtype=np.float64)
    running = np.zeros(rewards.shape[1:], dtype=np.float64)  # (N, P): every seat's return from step t
    games = np.arange(seats.shape[1])
    for t in range(seats.shape[0] - 1, -1, -1):
        running = rewards[t] + gamma * running
        returns[t] = running[games, seats[t]]
    return returns.astype(np.float32)


@dataclass
class Batch:
    """The learner's decisions of one `Actors.play`: observations, actions and their returns."""

    observations: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    #: games played, and the learner seats' mean final reward per seat and game (its win share in ``"win"`` mode)
    games: int
    mean_reward: float


class Actors:
    """``num_games`` games at once of ``env_id`` (``env_kwargs``: its options, ``num_players`` included).

    ``opponent``: ``"self"`` (every seat is the learner) or an agent name with a batched form
    (``heuristic``, ``random``, ``ppo:<file>``...; then the learner sits one random seat of each game).
    """

    def __init__(
        self,
        env_id: str,
        num_games: int,
        env_kwargs: dict[str, Any],
        opponent: str = SELF,
        gamma: float = 1.0,
        seed: int | None = None,
    ):
        self.venv = pirate_envs.vector.make(env_id, num_games, seed=seed, **env_kwargs)
        self.num_games, self.num_players = num_games, self.venv.num_players
        self.gamma = gamma
        self.rng = np.random.default_rng(seed)
        self.opponent = None
        if opponent != SELF:
            raw = pirate_envs.make(env_id, raw=True, **env_kwargs)
            self.opponent = make_batched_agent(opponent, env_id, raw, num_games * self.num_players, seed=seed)

    def play(self, policy: MlpPolicy, epsilon: float) -> Batch:
        """One game in every slot; the learner's seats act epsilon-greedily on ``policy``'s Q values."""
        venv, n, players = self.venv, self.num_games, self.num_players
        venv.reset(seed=int(self.rng.integers(2**62)))
        learner = np.ones((n, players), dtype=bool)
        if self.opponent is not None:
            learner[:] = False
            learner[np.arange(n), self.rng.integers(players, size=n)] = True
            self.opponent.reset_games(np.arange(n * players))
        ended = venv.terminated | venv.truncated  # a game may end as it starts (no decision then)
        seats, rewards, kept = [], [], []  # per step: (N,), (N, P), (rows, observations, actions)
        actions = np.zeros(n, dtype=np.int64)
        while not ended.all():
            seat = venv.current_player.copy()
            rows = np.flatnonzero(~ended)
            mine = rows[learner[rows, seat[rows]]]
            theirs = rows[~learner[rows, seat[rows]]]
            observation, mask = venv.observation, venv.action_mask
            if mine.size:
                actions[mine] = epsilon_greedy(policy.logits(observation[mine]), mask[mine], epsilon, self.rng)
                kept.append((len(seats), mine, observation[mine].copy(), actions[mine].copy()))
            if theirs.size and self.opponent is not None:
                games = theirs * players + seat[theirs]
                actions[theirs] = self.opponent.act_batch(games, observation[theirs], mask[theirs])
            venv.step(actions, active=~ended)
            seats.append(seat)
            rewards.append(venv.rewards.copy())
            ended |= venv.terminated | venv.truncated
        returns = monte_carlo_returns(np.array(seats), np.array(rewards), self.gamma)
        final = np.sum(rewards, axis=0)  # (N, P): each seat's whole-game reward
        return Batch(
            observations=np.concatenate([obs for _, _, obs, _ in kept]),
            actions=np.concatenate([act for _, _, _, act in kept]),
            returns=np.concatenate([returns[t, rows] for t, rows, _, _ in kept]),
            games=n,
            mean_reward=float(final[learner].mean()),
        )
