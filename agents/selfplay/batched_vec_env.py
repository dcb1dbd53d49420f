"""Self-play on the batched engine: ``num_envs`` learner games as one SB3 ``VecEnv``.

`BatchedSelfPlayVecEnv` plays the games of `agents.selfplay.env.SelfPlayEnv`
(one learner per game, opponents moving between his decisions) on `pirate_envs.vector`,
by the same rules, written once in `agents.selfplay.core` (the arguments and their checks, the
draw of seats and opponents, the reward accounting, ``truncation_reward``, the info of an ended
game, the snapshots). Only how the engine steps is its own.

Opponents move grouped by agent (one ``act_batch`` per agent, then one engine step for their rows);
agents without a batched form play through `agents.batched.one_game`; several table sizes get one
``VectorEnv`` each on ``table_layout="max"``. It differs from ``SelfPlayEnv`` where the batched engine
imposes it (the terminal observation, an illegal action raises, the random streams). How it steps,
mixed tables and every difference: ``docs/guides/single_agent.md`` ("The batched twin").
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
from collections import deque
from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from threadpoolctl import threadpool_limits

import pirate_envs
import pirate_envs.vector
from agents.batched import BatchedAgent, BatchedPolicyAgent, make_batched_agent
from agents.batched.one_game import EnginesInStep, OneGameAgents
from agents.batched.policy_stack import StackedPolicyAgent
from agents.policy.mlp import MlpPolicy
from agents.selfplay.core import (
    Opponents,
    PlayerCounts,
    RewardLedger,
    SelfPlayRules,
    ended_info,
    observation_box,
    win_share,
)
from agents.selfplay.opponents import SELF, OpponentPool
from pirate_envs.core.errors import check_int64_fields, check_range
from pirate_envs.core.rewards import winners_by_score


def batched_support(env_id: str, opponents: Opponents, configs: Iterable[Any] = ()) -> str | None:
    """Why the batched path cannot train ``env_id`` (``None``: it can; every opponent plays there, those
    without a batched form through `agents.batched.one_game`). ``configs``: the tables' validated game
    ``Config``s, checked as the kernels check them (an integer beyond 64 bits)."""
    if importlib.util.find_spec("numba") is None:
        return "numba is not installed"
    if env_id not in pirate_envs.vector.COVERED_ENV_IDS:
        return f"the batched engine does not cover {env_id}"
    try:
        for config in configs:
            check_int64_fields(config)
    except ValueError as error:
        return str(error)
    return None


class _Table:
    """The games of one table size: a ``VectorEnv`` and, per slot, the learner's seat and opponents."""

    def __init__(self, rules: SelfPlayRules, count: int | None, num_slots: int, first_env: int, seed: int | None):
        env_kwargs = rules.table_kwargs(count)
        self.venv = pirate_envs.vector.make(rules.env_id, num_slots, seed=seed, **env_kwargs)
        self.raw = pirate_envs.make(rules.env_id, raw=True, **env_kwargs)
        self.pool = OpponentPool(
            rules.env_id, self.raw, rules.weights, rules.max_snapshots, rules.snapshot_deterministic
        )
        self.num_slots = num_slots
        self.num_players = self.venv.num_players
        self.envs = slice(first_env, first_env + num_slots)  # the VecEnv indices of the slots
        self.slots = np.arange(num_slots)
        self.learner_seat = np.zeros(num_slots, dtype=np.int64)
        #: ``opponent[j, s]``: index into ``agents`` of seat ``s`` in slot ``j`` (-1: the learner)
        self.opponent = np.full((num_slots, self.num_players), -1, dtype=np.int64)
        self.ledger = RewardLedger(num_slots)
        self.last_obs = np.zeros((num_slots, self.venv.observation.shape[1]), dtype=np.float32)
        #: the table's batched agents (``None``: a retired snapshot no game plays any more)
        self.agents: list[BatchedAgent | None] = []
        #: pool kind -> its agent's index (one agent of the kind plays every seat)
        self.kind_agents: dict[str, int] = {}
        #: the agent index of each of the pool's snapshots, in the pool's order
        self.snapshots: deque[int] = deque(maxlen=rules.max_snapshots)
        #: the rows whose opponents play through one-game agents, and their engines in step
        self.engines = EnginesInStep(self.venv)
        self.actions = np.zeros(num_slots, dtype=np.int64)
        #: the live snapshots as one network stack (`restack`), and who plays each agent's rows:
        #: ``players[plays_for[i]]`` plays for ``agents[i]`` (a snapshot's rows: the stack)
        self.stack: StackedPolicyAgent | None = None
        self.players: list[BatchedAgent | None] = []
        self.plays_for = np.zeros(0, dtype=np.int64)
        self._stack_position = np.full(1, -1, dtype=np.int64)  # agent index -> its network in the stack

    def add_agent(self, agent: BatchedAgent) -> int:
        self.agents.append(agent)
        self.players = [*self.agents, self.stack]
        self.plays_for = np.append(self.plays_for, len(self.agents) - 1)
        return len(self.agents) - 1

    def restack(self, deterministic: bool, seed: int) -> None:
        """The live snapshots (those in the pool or in a game) as one `StackedPolicyAgent`: one forward a step
        for every snapshot seat."""
        live = [
            i for i, agent in enumerate(self.agents) if isinstance(agent, BatchedPolicyAgent) and agent.name == SELF
        ]
        policies = [self.agents[i].policy for i in live]  # type: ignore[union-attr]
        self.stack = StackedPolicyAgent(policies, self.num_slots * self.num_players, SELF, deterministic, seed)
        self.players = [*self.agents, self.stack]
        self.plays_for = np.arange(len(self.agents), dtype=np.int64)
        self.plays_for[live] = len(self.agents)
        self._stack_position = np.full(len(self.agents) + 1, -1, dtype=np.int64)  # the last: the learner's -1
        self._stack_position[live] = np.arange(len(live))
        self.seat_networks()

    def seat_networks(self) -> None:
        """Tell the stack which of its networks plays each (slot, seat) game (after a draw or a restack)."""
        if self.stack is not None:
            self.stack.net_of_game[:] = np.maximum(self._stack_position[self.opponent], 0).ravel()

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        """One engine step of the games ``active`` (``None``: all), followed by the engines in step."""
        self.venv.step(actions, active=active)
        self.engines.follow(actions, active)

    def learner_rewards(self) -> np.ndarray:
        """The learner's reward of the last engine step in every slot."""
        return self.venv.rewards[self.slots, self.learner_seat]

    def ended(self) -> np.ndarray:
        return self.venv.terminated | self.venv.truncated

    def play_opponents(self, rewards: np.ndarray) -> None:
        """Opponents move until each game is at its learner's turn or ended; his rewards add to ``rewards``."""
        venv, actions = self.venv, self.actions
        while True:
            waiting = ~self.ended() & (venv.current_player != self.learner_seat)
            rows = np.flatnonzero(waiting)
            if rows.size == 0:
                return
            seats = venv.current_player[rows]
            chosen = self.plays_for[self.opponent[rows, seats]]
            order = np.argsort(chosen, kind="stable")
            rows, chosen, seats = rows[order], chosen[order], seats[order]
            games = rows * self.num_players + seats  # (slot, seat) pairs
            bounds = [0, *(np.flatnonzero(chosen[1:] != chosen[:-1]) + 1).tolist(), rows.size]
            observation, mask = venv.observation, venv.action_mask
            for first, end in itertools.pairwise(bounds):  # one call per agent, on its rows
                group = rows[first:end]
                agent = self.players[chosen[first]]
                actions[group] = agent.act_batch(games[first:end], observation[group], mask[group])
            self.step(actions, active=waiting)
            rewards += self.learner_rewards()


class BatchedSelfPlayVecEnv(VecEnv):
    """``num_envs`` self-play games on the batched engine (see the module docstring).

    Args:
        env_id: an env id of `pirate_envs.vector.COVERED_ENV_IDS`.
        num_envs: learner games in all.
        opponents: the pool: an agent name, a list of names or ``{name: weight}`` (every agent of
            ``agents.registry`` and ``self``; those with no batched form play through
            `agents.batched.one_game`).
        seed: the seed of the first ``reset`` (``VecEnv.seed`` sets the next one).

    The other arguments (``reward_mode``, ``learner_seat``, ``max_snapshots``,
    ``snapshot_deterministic``, ``truncation_reward``, ``player_counts`` and the env's options)
    are those of `agents.selfplay.env.SelfPlayEnv`, checked by the same
    `agents.selfplay.core.SelfPlayRules`.
    """

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        opponents: Opponents = "heuristic",
        reward_mode: str = "win",
        learner_seat: int | None = None,
        max_snapshots: int = 10,
        snapshot_deterministic: bool = False,
        truncation_reward: float | None = None,
        player_counts: PlayerCounts = None,
        seed: int | None = None,
        **env_kwargs: Any,
    ):
        num_envs = check_range("num_envs", num_envs, 1)
        self.rules = rules = SelfPlayRules(
            env_id,
            opponents,
            reward_mode,
            learner_seat,
            max_snapshots,
            snapshot_deterministic,
            truncation_reward,
            player_counts,
            env_kwargs,
        )
        # numpy's BLAS on one thread: the opponents' small matrix products ran 100 times slower on
        # two OpenBLAS threads beside the learner (measured on the loaded 2-core machine)
        threadpool_limits(limits=1, user_api="blas")
        self.env_id = env_id
        self.reward_mode = reward_mode
        self.truncation_reward = rules.truncation_reward
        counts = list(rules.table_weights) or [None]
        split = self._split(num_envs, list(rules.table_weights.values()) or [1.0])
        self._rng = np.random.default_rng(seed)
        seeds = np.random.SeedSequence(seed).generate_state(len(counts), dtype=np.uint32)
        self.tables: list[_Table] = []
        first = 0
        for count, slots, table_seed in zip(counts, split, seeds.tolist()):
            table = _Table(rules, count, slots, first, table_seed)
            self._build_agents(table, seed)
            self.tables.append(table)
            first += slots
        rules.check_tables([t.venv.observation.shape[1] for t in self.tables], [t.num_players for t in self.tables])
        self.fixed_seat = rules.fixed_seat
        table = self.tables[0]
        self.render_mode = None
        super().__init__(
            num_envs,
            observation_box([t.raw for t in self.tables]),
            spaces.Discrete(table.venv.num_actions),
        )
        self._obs = np.zeros((num_envs, table.venv.observation.shape[1]), dtype=np.float32)
        self._masks = np.zeros((num_envs, table.venv.num_actions), dtype=bool)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._actions: np.ndarray | None = None
        self._next_seed: int | None = None  # the tables were made with ``seed``: their first reset uses it
        self._has_reset = False

    @staticmethod
    def _split(num_envs: int, weights: list[float]) -> list[int]:
        """Slots per table size: proportional to ``weights``, at least one each."""
        if num_envs < len(weights):
            raise ValueError(f"num_envs={num_envs} must be at least the number of table sizes ({len(weights)})")
        exact = np.asarray(weights, dtype=np.float64) / sum(weights) * num_envs
        slots = np.maximum(1, np.floor(exact).astype(int))
        while slots.sum() > num_envs:
            slots[np.argmax(slots)] -= 1
        left = num_envs - int(slots.sum())  # largest remainders first
        slots[np.argsort(slots - exact, kind="stable")[:left]] += 1
        return slots.tolist()

    def _build_agents(self, table: _Table, seed: int | None) -> None:
        """The pool's agents of one table, one per kind for every seat: its batched form, else its
        one-game form through `agents.batched.one_game.OneGameAgents` (an agent per game slot).

        An agent's game slots are (slot, seat) pairs, ``slot * num_players + seat``: one that
        remembers its games (Lucky Pirate's heuristic) keeps each seat's memory apart, as the
        one-game pool's agent per seat does.
        """
        for kind in table.pool.weights:
            if kind == SELF:
                continue
            try:
                agent = make_batched_agent(kind, self.env_id, table.raw, table.num_slots * table.num_players, seed=seed)
            except (ValueError, ImportError):  # the pool has checked that its one-game form plays
                agent = OneGameAgents(
                    kind,
                    lambda game, kind=kind, pool=table.pool: pool.agent(kind, game),
                    table.raw,
                    table.engines,
                    table.num_players,
                )
            table.kind_agents[kind] = table.add_agent(agent)

    # ------------------------------------------------------------------ pool
    def add_snapshot(self, policy: MlpPolicy) -> None:
        """Add a frozen learner copy to every table's pool (the oldest goes once ``max_snapshots`` are held)."""
        for table in self.tables:
            table.pool.add_snapshot(policy)
            seed = int(self._rng.integers(2**31))
            agent = BatchedPolicyAgent(policy, name=SELF, deterministic=self.rules.snapshot_deterministic, seed=seed)
            table.snapshots.append(table.add_agent(agent))
            in_use = set(np.unique(table.opponent).tolist()) | set(table.snapshots)
            for index, held in enumerate(table.agents):  # drop retired snapshots no game plays any more
                if isinstance(held, BatchedPolicyAgent) and held.name == SELF and index not in in_use:
                    table.agents[index] = None
            table.restack(self.rules.snapshot_deterministic, seed)

    def _draw(self, table: _Table, rows: np.ndarray) -> np.ndarray:
        """Seats and opponents of new games in the slots ``rows`` (`agents.selfplay.core.SelfPlayRules.draw`);
        returns the rows with an opponent that plays through a reference engine."""
        n = table.num_players
        drawn = self.rules.draw(table.pool, self._rng, rows.size, n)
        opponent = np.full((rows.size, n), -1, dtype=np.int64)
        snapshots = np.array(table.snapshots, dtype=np.int64)
        for k, name in enumerate(drawn.names):
            index = snapshots[drawn.snapshot] if name == SELF else table.kind_agents[name]
            opponent = np.where(drawn.kind == k, index, opponent)
        table.learner_seat[rows] = drawn.seats
        table.opponent[rows] = opponent
        table.seat_networks()
        games = rows[:, None] * n + np.arange(n)
        for agent in table.agents:
            if agent is not None:
                agent.reset_games(games.ravel())
        one_game = [i for i, agent in enumerate(table.agents) if isinstance(agent, OneGameAgents)]
        for i in one_game:
            plays = opponent == i
            table.agents[i].start(games[plays], drawn.agent_seed[plays])  # type: ignore[union-attr]
        table.engines.stop(rows)
        return rows[np.isin(opponent, one_game).any(axis=1)]

    def _start_games(self, table: _Table, rows: np.ndarray, fresh: bool) -> None:
        """Start new games in the slots ``rows`` and play them up to the learner's first decision.

        ``fresh``: the engine has just been reset; otherwise those games ended on the last step
        and start anew on an engine step of them alone.
        """

        def deal(rows: np.ndarray) -> np.ndarray:
            nonlocal fresh
            follow = self._draw(table, rows)
            if not fresh:
                active = np.zeros(table.num_slots, dtype=bool)
                active[rows] = True
                table.step(table.actions, active=active)
            fresh = False
            table.engines.start(follow)
            rewards = np.zeros(table.num_slots, dtype=np.float64)
            rewards[rows] = table.learner_rewards()[rows]
            table.play_opponents(rewards)
            table.ledger.hold(rows, rewards[rows])
            return rows[table.ended()[rows]]

        self.rules.start_games(deal, rows)

    def _write_outputs(self, table: _Table) -> None:
        out = table.envs
        self._obs[out] = table.venv.observation
        self._masks[out] = table.venv.action_mask
        table.last_obs[:] = table.venv.observation

    # ------------------------------------------------------------------ VecEnv API
    def seed(self, seed: int | None = None) -> list[int | None]:
        """The seed of the next ``reset`` (each game's stream and the draws of seats and opponents)."""
        self._next_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        seed, self._next_seed = self._next_seed, None
        table_seeds: list[int | None] = [None] * len(self.tables)  # None: the first seed, or continue the streams
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            table_seeds = np.random.SeedSequence(seed).generate_state(len(self.tables), dtype=np.uint32).tolist()
        for table, table_seed in zip(self.tables, table_seeds):
            table.venv.reset(table_seed)
            self._start_games(table, table.slots, fresh=True)
            self._write_outputs(table)
        self._has_reset = True
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        actions = self._actions.reshape(self.num_envs).astype(np.int64, copy=False)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for table in self.tables:
            try:
                table.step(actions[table.envs])
            except pirate_envs.vector.BatchIllegalActionError as error:
                error.args = (f"learner of env {table.envs.start + error.game}: {error.args[0]}",)
                raise
            rewards = table.ledger.pay(table.learner_rewards())
            made_last_move = table.ended()
            table.play_opponents(rewards)
            ended = np.flatnonzero(table.ended())
            if ended.size:
                rewards[ended] = self._finish(table, ended, made_last_move[ended], rewards[ended], dones, infos)
                self._start_games(table, ended, fresh=False)
            self._rewards[table.envs] = rewards
            self._write_outputs(table)
        return self._obs.copy(), self._rewards.astype(np.float32), dones, infos

    def _finish(
        self,
        table: _Table,
        rows: np.ndarray,
        learner_ended: np.ndarray,
        rewards: np.ndarray,
        dones: np.ndarray,
        infos: list[dict],
    ) -> np.ndarray:
        """Infos of the games ``rows`` that just ended (``rewards``: the learner's of this step); returns
        the rewards to report (`agents.selfplay.core.SelfPlayRules.end_game`)."""
        venv = table.venv
        terminated = venv.terminated[rows].copy()
        truncated = venv.truncated[rows] & ~terminated
        seats = table.learner_seat[rows]
        scores = venv.scores(rows)
        shares = self._win_shares(table, rows, scores, terminated, rewards)
        reported, _, time_limit = self.rules.end_game(rewards, terminated, truncated)
        for j, slot in enumerate(rows.tolist()):
            if learner_ended[j]:
                final = venv.observation[slot].copy()
            elif truncated[j]:
                final = table.raw.encode(venv.engine(slot).view(int(seats[j])))
            else:
                final = table.last_obs[slot].copy()
            opponents = [table.agents[a].name for a in table.opponent[slot].tolist() if a >= 0]
            env = table.envs.start + slot
            dones[env] = True
            infos[env] = ended_info(
                seats[j], table.num_players, scores[j, seats[j]], shares[j], opponents, final, time_limit[j]
            )
        return reported

    def _win_shares(
        self, table: _Table, rows: np.ndarray, scores: np.ndarray, terminated: np.ndarray, rewards: np.ndarray
    ) -> np.ndarray:
        """The learner's share of the win in each ended game (0 when it was truncated).

        In win mode the learner's reward of the last step is his terminal win reward: ``1/w`` for
        each of ``w`` winners, negative for a loser, 0 only when nobody or everybody won.
        """
        venv, seats = table.venv, table.learner_seat[rows]
        shares = np.zeros(rows.size)
        by_score = pirate_envs.game_spec(self.env_id).winners_by_score
        for j, slot in enumerate(rows.tolist()):
            if not terminated[j]:
                continue
            if self.reward_mode == "win" and rewards[j] != 0.0:
                shares[j] = max(float(rewards[j]), 0.0)
                continue
            winners = winners_by_score(scores[j].tolist()) if by_score else venv.engine(slot).winners()
            shares[j] = win_share(int(seats[j]), winners, venv.num_players)
        return shares

    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` ``bool``: each learner's legal actions now."""
        return self._masks.copy()

    def close(self) -> None:
        self.tables = []

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        wanted = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self._masks[wanted])
        if method_name == "add_snapshot":
            self.add_snapshot(*method_args, **method_kwargs)
            return [None] * len(wanted)
        raise AttributeError(f"BatchedSelfPlayVecEnv has no per-env method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)


__all__ = ["BatchedSelfPlayVecEnv", "batched_support"]
