"""The rules of a self-play episode, written once for both engines.

`agents.selfplay.env.SelfPlayEnv` (one game on the reference engine) and
`agents.selfplay.batched_vec_env.BatchedSelfPlayVecEnv` (many games on the batched engine)
differ only in how the engine steps; what an episode is lives here:

* the arguments and their checks (`SelfPlayRules`): the opponent pool weights, the reward mode,
  ``learner_seat``, ``max_snapshots``, ``snapshot_deterministic``, ``truncation_reward`` and
  ``player_counts`` (several table sizes, observed with ``table_layout="max"``);
* the draw of a new game (`SelfPlayRules.draw`): the learner's seat (``learner_seat`` or uniform),
  then per other seat an opponent kind by its pool weight, then for ``self`` one of the last
  ``max_snapshots`` frozen learner copies, and a reset seed per seat for a one-game agent; a game
  that ends before the learner's first decision is drawn anew (`SelfPlayRules.start_games`);
* the reward accounting (`RewardLedger`): a step pays the learner's rewards from his move to his
  next decision or the end; rewards that arrive before his first decision (a Kapern opening roll
  resolved inside the deal, opponents' moves) are paid with his first step;
* the end of a game (`SelfPlayRules.end_game`): ``truncation_reward`` ``None`` reports a game
  cut off by a turn limit as truncated; a number ends it as terminated with that reward added;
* the info of an ended game (`ended_info`): ``seat``, ``num_players``, ``final_score``,
  ``win_share`` (`win_share`), ``opponents``, and for a ``VecEnv`` ``terminal_observation`` and
  ``TimeLimit.truncated``.

Nothing here imports numba: the Gymnasium ids use it on the core install.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from agents.registry import agent_names, make_agent
from agents.selfplay.opponents import SELF, OpponentPool
from pirate_envs.core.errors import check_bool, check_range, is_integer
from pirate_envs.core.rewards import win_shares

#: Redraws allowed when a game ends before the learner's first decision.
MAX_EMPTY_EPISODES = 100

#: Opponents as one agent name, a list of names (equal weights) or ``{name: weight}``.
Opponents = str | Sequence[str] | Mapping[str, float]

#: Player counts as a list (equal weights) or ``{count: weight}``; ``None``: one table.
PlayerCounts = Sequence[int] | Mapping[int, float] | None


def opponent_weights(opponents: Opponents) -> dict[str, float]:
    """The pool weights of ``opponents`` (one name, a list of names, or ``{name: weight}``)."""
    if isinstance(opponents, str):
        return {opponents: 1.0}
    if isinstance(opponents, Mapping):
        return {str(name): float(weight) for name, weight in opponents.items()}
    if not isinstance(opponents, Sequence) or not all(isinstance(name, str) for name in opponents):
        raise ValueError(f"opponents={opponents!r}: give an agent name, a list of names or {{name: weight}}")
    weights: dict[str, float] = {}
    for name in opponents:
        weights[name] = weights.get(name, 0.0) + 1.0
    return weights


def check_weights(weights: Mapping[str, float]) -> None:
    """``ValueError`` unless the pool weights are >= 0 and sum to more than 0."""
    if not weights or any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
        raise ValueError(f"opponents={dict(weights)!r}: give agent names with weights >= 0 that sum to more than 0")


def observation_box(raws: Sequence[Any]) -> spaces.Box:
    """The learner's observation space: the smallest finite ``Box`` that holds the observation space of
    every table's raw env (the tables share one layout size; each piece keeps its true bounds)."""
    boxes = [raw.observation_space(raw.possible_agents[0])["observation"] for raw in raws]
    low = np.minimum.reduce([box.low for box in boxes])
    high = np.maximum.reduce([box.high for box in boxes])
    return spaces.Box(low, high, dtype=np.float32)


def check_opponents(env_id: str, weights: Mapping[str, float], env: Any) -> None:
    """Raise ``ValueError`` naming the first opponent that is not an agent of ``env_id``."""
    check_weights(weights)
    for name in weights:
        if name == SELF:
            continue
        try:
            make_agent(name, env_id, seed=0, env=env)
        except (ValueError, ImportError) as error:
            valid = [*agent_names(env_id), "ppo:<checkpoint>", SELF]
            raise ValueError(f"opponent {name!r} is not an agent of {env_id}: {error}; valid: {valid}") from None


def check_truncation_reward(reward: object) -> float | None:
    """``reward`` as ``float`` (or ``None``); ``ValueError`` naming it unless ``None`` or a finite number."""
    if reward is None:
        return None
    is_number = isinstance(reward, (int, float, np.integer, np.floating)) and not isinstance(reward, (bool, np.bool_))
    if not is_number or not np.isfinite(reward):
        raise ValueError(f"truncation_reward={reward!r} is not valid; expected None or a finite number")
    return float(reward)


def table_size_weights(player_counts: PlayerCounts, env_kwargs: Mapping[str, Any]) -> dict[int, float]:
    """``{count: probability}`` of ``player_counts`` (a list: equal weights); ``{}`` for ``None``."""
    if player_counts is None:
        return {}
    if isinstance(player_counts, Mapping):
        weights = dict(player_counts)
    elif isinstance(player_counts, Sequence) and not isinstance(player_counts, str):
        weights = dict.fromkeys(player_counts, 1.0)
        if len(weights) != len(player_counts):
            raise ValueError(f"player_counts={player_counts!r}: a table size is repeated")
    else:
        raise ValueError(f"player_counts={player_counts!r}: give a list of player counts or {{count: weight}}")
    if "num_players" in env_kwargs:
        raise ValueError(f"give num_players={env_kwargs['num_players']!r} or player_counts, not both")
    valid = all(isinstance(n, int | np.integer) and not isinstance(n, bool) for n in weights) and all(
        isinstance(w, int | float | np.number) and not isinstance(w, bool) and w >= 0 for w in weights.values()
    )
    if not weights or not valid or sum(weights.values()) <= 0:
        raise ValueError(
            f"player_counts={player_counts!r}: give player counts (integers) with weights >= 0 that sum to more than 0"
        )
    total = float(sum(weights.values()))
    return {int(n): float(w) / total for n, w in weights.items()}


def win_share(seat: int, winners: Iterable[int], num_players: int) -> float:
    """The learner's share of the win (``pirate_envs.core.rewards.win_shares``: ``1/w`` among ``w`` winners)."""
    return win_shares(list(winners), num_players)[seat]


def ended_info(
    seat: int,
    num_players: int,
    final_score: float,
    share: float,
    opponents: list[str],
    terminal_observation: np.ndarray | None = None,
    time_limit: bool = False,
) -> dict[str, Any]:
    """The info of an ended game; with ``terminal_observation`` the two keys a ``VecEnv`` adds (`with_vec_keys`)."""
    info: dict[str, Any] = {
        "seat": int(seat),
        "num_players": int(num_players),
        "final_score": float(final_score),
        "win_share": float(share),
        "opponents": opponents,
    }
    return info if terminal_observation is None else with_vec_keys(info, terminal_observation, time_limit)


def with_vec_keys(info: dict[str, Any], terminal_observation: np.ndarray, time_limit: bool) -> dict[str, Any]:
    """``info`` with the keys a ``VecEnv`` adds when a game ends: ``terminal_observation`` and
    ``TimeLimit.truncated`` (the game was cut off and is reported truncated: a learner bootstraps)."""
    info["terminal_observation"] = terminal_observation
    info["TimeLimit.truncated"] = bool(time_limit)
    return info


@dataclass
class Seating:
    """New games drawn by `SelfPlayRules.draw`: one row per game, one column per seat."""

    #: ``(G,)`` the learner's seat.
    seats: np.ndarray
    #: The pool kinds that could be drawn (``kind`` indexes them).
    names: list[str]
    #: ``(G, P)`` index into ``names`` of each seat's opponent; -1 at the learner's seat.
    kind: np.ndarray
    #: ``(G, P)`` index into the pool's snapshots (where the kind is ``self``).
    snapshot: np.ndarray
    #: ``(G, P)`` reset seed of each seat's one-game agent.
    agent_seed: np.ndarray


class SelfPlayRules:
    """The checked arguments of a self-play env and the rules they set (see the module docstring)."""

    def __init__(
        self,
        env_id: str,
        opponents: Opponents,
        reward_mode: str,
        learner_seat: int | None,
        max_snapshots: int,
        snapshot_deterministic: bool,
        truncation_reward: float | None,
        player_counts: PlayerCounts,
        env_kwargs: Mapping[str, Any],
    ):
        self.env_id = env_id
        self.reward_mode = reward_mode
        self.max_snapshots = check_range("max_snapshots", max_snapshots, 1)
        self.snapshot_deterministic = check_bool("snapshot_deterministic", snapshot_deterministic)
        self.truncation_reward = check_truncation_reward(truncation_reward)
        weights = opponent_weights(opponents)
        check_weights(weights)
        #: ``{name: weight}`` of the pool (weights above 0)
        self.weights = {name: w for name, w in weights.items() if w > 0}
        #: ``{table size: probability}`` (empty: one table of the env's ``num_players``)
        self.table_weights = table_size_weights(player_counts, env_kwargs)
        self.player_counts = player_counts
        self.env_kwargs = {"table_layout": "max", **env_kwargs} if self.table_weights else dict(env_kwargs)
        self._learner_seat = learner_seat
        self.fixed_seat: int | None = None

    def table_kwargs(self, count: int | None) -> dict[str, Any]:
        """The game's options of the table of ``count`` players (``None``: the env's own count)."""
        kwargs = {**self.env_kwargs, "reward_mode": self.reward_mode}
        if count is not None:
            kwargs["num_players"] = count
        return kwargs

    def check_tables(self, observation_sizes: Iterable[int], num_players: Iterable[int]) -> None:
        """Check that the tables share one observation size and that ``learner_seat`` is a seat at each."""
        sizes = sorted(set(observation_sizes))
        if len(sizes) > 1:
            raise ValueError(
                f"player_counts={self.player_counts!r}: the tables' observations differ in size {sizes}; "
                "use table_layout='max'"
            )
        seat, fewest = self._learner_seat, min(num_players)
        if seat is not None and not (is_integer(seat) and 0 <= seat < fewest):
            raise ValueError(f"learner_seat={seat!r} must be None or a seat in 0..{fewest - 1}")
        self.fixed_seat = None if seat is None else int(seat)

    def draw_table_size(self, rng: np.random.Generator) -> int:
        """A table size for the next episode, by the weights of ``player_counts``."""
        counts = list(self.table_weights)
        return counts[int(rng.choice(len(counts), p=list(self.table_weights.values())))]

    def start_games(self, deal: Callable[[np.ndarray], np.ndarray], rows: np.ndarray) -> None:
        """Deal new games in ``rows`` until each reaches the learner's first decision: ``deal(rows)``
        draws, deals and plays up to it, and returns the rows whose game ended before it (drawn anew,
        up to `MAX_EMPTY_EPISODES` times, then ``RuntimeError``)."""
        for _ in range(MAX_EMPTY_EPISODES):
            rows = deal(rows)
            if rows.size == 0:
                return
        raise RuntimeError(f"{self.env_id}: {MAX_EMPTY_EPISODES} games in a row ended before the learner's first move")

    def draw(self, pool: OpponentPool, rng: np.random.Generator, games: int, num_players: int) -> Seating:
        """The learner's seat and the opponents of ``games`` new games of ``num_players``."""
        if self.fixed_seat is None:
            seats = rng.integers(num_players, size=games)
        else:
            seats = np.full(games, self.fixed_seat, dtype=np.int64)
        names, kind, snapshot = pool.draw_kinds(rng, (games, num_players))
        kind[np.arange(games), seats] = -1
        agent_seed = rng.integers(2**31, size=(games, num_players))
        return Seating(seats, names, kind, snapshot, agent_seed)

    def end_game(
        self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The reward, terminated and truncated flags reported for games that just ended (arrays):
        ``truncation_reward`` ``None`` reports a cut-off game as truncated, a number ends it
        terminated with that reward added."""
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool) & ~terminated
        rewards = np.asarray(rewards, dtype=np.float64)
        if self.truncation_reward is None:
            return rewards, terminated, truncated
        paid = rewards + np.where(truncated, self.truncation_reward, 0.0)
        return paid, terminated | truncated, np.zeros_like(truncated)


class RewardLedger:
    """The learner's rewards not yet paid, per game: those that came before his first decision."""

    def __init__(self, games: int):
        self.pending = np.zeros(games, dtype=np.float64)

    def hold(self, rows: Any, rewards: np.ndarray) -> None:
        """The games ``rows`` start: ``rewards`` came before the learner's first decision."""
        self.pending[rows] = rewards

    def pay(self, rewards: np.ndarray) -> np.ndarray:
        """The rewards of the learner's step in every game, with what was held (then nothing is held)."""
        paid = self.pending + rewards
        self.pending[:] = 0.0
        return paid


__all__ = [
    "MAX_EMPTY_EPISODES",
    "RewardLedger",
    "Seating",
    "SelfPlayRules",
    "check_opponents",
    "check_truncation_reward",
    "ended_info",
    "opponent_weights",
    "table_size_weights",
    "win_share",
    "with_vec_keys",
]
