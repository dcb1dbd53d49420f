"""Sequential halving over the root moves, every world and rollout on the batched engine: ``halving[:<n>]``.

``make_agent("halving", "skull_king_v0", env=env)`` (``halving:<simulations>``: ``n`` rollouts per
move, default `DEFAULT_SIMULATIONS` as ``mcts``; ``halving[:<simulations>]:ppo:<agent>``: guided by a
trained network's prior). A flat search, no tree: the seat's legal moves are the arms of a bandit,
each pull one rollout of a determinized world; sequential halving (Karnin, Koren and Somekh, 2013)
spends the budget over ``ceil(log2(moves))`` rounds, each trying the moves still in on the same
fresh worlds (common random numbers) and keeping the better half; the move played is the last one
left. Worlds are redrawn in the rows of a `pirate_envs.vector.VectorEnv` and the game's batched
heuristic plays them to the horizon at once (`agents.search.batched.play_out`). Returns and honesty
are ``mcts``'s; Kapern (a search for the win of a turn) is refused. Guided, every round ranks by
``log P + sigma(q)`` (Gumbel AlphaZero's root) and `HalvingSearchAgent.search_root_moves` sets
``policy_target``, the target of expert iteration. The whole design, measured: ``docs/guides/search.md``.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.games import game_agents_of
from agents.policy.mlp import MlpPolicy
from agents.search.batched import play_out
from agents.search.guided import GUMBEL_C_SCALE, gumbel_sigma, improved_policy, network_log_prior
from agents.search.ismcts import (
    DEFAULT_HORIZON,
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    TURN,
    determinize,
    search_budget,
)
from agents.spec import HALVING, HALVING_USAGE, parse_agent_name
from pirate_envs.core.errors import check_range, shown

#: The search options of a game's spec that this search takes (the rest belong to the tree search).
TAKEN_OPTIONS = ("horizon", "relative_returns")
#: How many moves a guided search considers: those of the largest prior (Gumbel's ``m``).
GUIDED_CONSIDERED = 16


class HalvingSearchAgent:
    """Sequential halving over the root moves with batched rollouts (see the module docstring)."""

    uses_view = True

    def __init__(
        self,
        env: Any,
        env_id: str,
        simulations: int = DEFAULT_SIMULATIONS,
        horizon: int | None = DEFAULT_HORIZON,
        relative_returns: bool = False,
        rollout: str = "heuristic",
        prior: MlpPolicy | None = None,
        considered: int = GUIDED_CONSIDERED,
        scale: float = GUMBEL_C_SCALE,
        seed: int | None = None,
    ):
        from agents.batched import make_batched_agent

        self.simulations = check_range("simulations", simulations, 1, MAX_SIMULATIONS)
        if horizon is not None and (not isinstance(horizon, int) or horizon < 1):
            raise ValueError(f"horizon must be a positive number of score changes or None, got {horizon!r}")
        self.env = raw = env.unwrapped
        self.env_id, self.horizon, self.relative_returns = env_id, horizon, relative_returns
        self.score_scale = float(raw.SCORE_SCALE)
        self.prior = prior
        #: Guided: the most moves considered (Gumbel's ``m``) and sigma's scale ``c_scale``.
        self.considered = check_range("considered", considered, 1, None)
        if not scale > 0:
            raise ValueError(f"scale must be above 0, got {scale!r}")
        self.scale = float(scale)
        #: After a guided search, Gumbel's improved policy over every action (zero off the legal ones).
        self.policy_target: np.ndarray | None = None
        self.name = f"{HALVING}:{self.simulations}"
        num_actions = int(raw.game.legal_mask().shape[0])
        capacity = 1 + self.simulations + max(self.simulations, num_actions)  # the root, a round's worlds, its rollouts
        self._work = _work_area(env_id, capacity, dataclasses.asdict(raw.config))
        self.venv, self.table = self._work.venv, self._work.table
        self._make_policy = lambda seed: make_batched_agent(
            rollout, env_id, self.table, capacity * self.venv.num_players, seed=seed
        )
        #: Whether the batched engine redraws worlds itself (else they are determinized in Python and loaded).
        self.redraws = True
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.policy = self._make_policy(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 1:
            return int(legal[0])
        return self.search_root_moves()[0][0]

    def search_root_moves(self) -> list[tuple[int, int, float]]:
        """Search the position on turn now; ``(action, rollouts, mean return)`` of every root move, the move
        played first. A guided search also sets `policy_target` (Gumbel's improved policy) for this position.

        Moves are ordered by the round they left in (the last one left first), then by their rank in it
        (the mean return; guided, ``log P + sigma(q)``). A guided search lists only the moves it searched.
        """
        game = self.env.game
        seat = game.current_player
        legal = np.asarray(game.legal_actions(), dtype=np.int64)
        venv = self.venv
        venv.load([0], [game], seeds=self._seeds(1))
        start = np.asarray(game.scores(), dtype=np.float64)
        baseline = _leads(start[None, :], seat)[0] if self.relative_returns else 0.0
        totals = np.zeros(legal.size)
        counts = np.zeros(legal.size, dtype=np.int64)
        bounds = [math.inf, -math.inf]  # the smallest and largest return seen
        log_prior = self._log_prior(game, seat, legal)
        survivors = np.arange(legal.size)
        if log_prior is not None:
            survivors = np.argsort(-log_prior, kind="stable")[: self.considered]
        out_order: list[np.ndarray] = []
        rounds = max(1, math.ceil(math.log2(survivors.size)))

        def sigma(moves: np.ndarray) -> np.ndarray:
            """``sigma(q)`` of ``moves``: their mean returns normalised by the returns seen (unsearched: completed)."""
            searched = counts > 0
            means = totals / np.maximum(counts, 1)
            means[~searched] = totals[searched].sum() / max(int(counts.sum()), 1)
            low, high = bounds
            q = (means[moves] - low) / (high - low) if high > low else np.full(moves.size, 0.5)
            return gumbel_sigma(q, int(counts.max()), self.scale)

        def rank(moves: np.ndarray) -> np.ndarray:
            """``moves`` best first: by mean return, or guided by ``log P + sigma(q)``."""
            if log_prior is None:
                means = totals[moves] / np.maximum(counts[moves], 1)
                return moves[np.argsort(-means, kind="stable")]
            return moves[np.argsort(-(log_prior[moves] + sigma(moves)), kind="stable")]

        while survivors.size > 1:
            worlds = max(1, self.simulations // (survivors.size * rounds))
            world_rows = 1 + np.arange(worlds)
            self._draw_worlds(game, seat, world_rows)
            move_rows = 1 + worlds + np.arange(worlds * survivors.size)
            venv.copy_rows(np.repeat(world_rows, survivors.size), move_rows)
            moves = np.tile(survivors, worlds)
            values = self._roll_out(move_rows, legal[moves], start, seat) - baseline
            np.add.at(totals, moves, values)
            np.add.at(counts, moves, 1)
            bounds = [min(bounds[0], float(values.min())), max(bounds[1], float(values.max()))]
            ranked = rank(survivors)
            keep = math.ceil(survivors.size / 2)
            out_order.append(ranked[keep:])
            survivors = ranked[:keep]
        order = [survivors, *reversed(out_order)]
        if log_prior is not None:
            everything = np.arange(legal.size)
            self.policy_target = improved_policy(log_prior + sigma(everything), legal, game.legal_mask().size)
        means = totals / np.maximum(counts, 1)
        ranked = [int(i) for block in order for i in rank(block)]
        return [(int(legal[i]), int(counts[i]), float(means[i])) for i in ranked]

    def paired_returns(self, actions: Sequence[int], worlds: int) -> np.ndarray:
        """``(worlds, len(actions))`` returns of each of ``actions`` (legal now) on the same ``worlds`` fresh worlds.

        Every action is played in a copy of each world (common random numbers, as a round of the search),
        then the rollout policy to the horizon; the returns are those the search ranks moves by. Worlds
        drawn here are independent of any earlier search, so the mean difference of two columns estimates
        the difference of the two moves' values without the bias of picking a move by the same rollouts.
        """
        game = self.env.game
        seat = game.current_player
        moves = np.asarray(actions, dtype=np.int64)
        if not moves.size or not game.legal_mask()[moves].all():
            raise ValueError(f"paired_returns takes legal actions of the seat to move, got {list(actions)}")
        if worlds < 1 or 1 + worlds * (1 + moves.size) > self.venv.num_envs:
            raise ValueError(
                f"paired_returns: {worlds} worlds of {moves.size} moves need {1 + worlds * (1 + moves.size)} rows; "
                f"this search holds {self.venv.num_envs}"
            )
        self.venv.load([0], [game], seeds=self._seeds(1))
        start = np.asarray(game.scores(), dtype=np.float64)
        baseline = _leads(start[None, :], seat)[0] if self.relative_returns else 0.0
        world_rows = 1 + np.arange(worlds)
        self._draw_worlds(game, seat, world_rows)
        move_rows = 1 + worlds + np.arange(worlds * moves.size)
        self.venv.copy_rows(np.repeat(world_rows, moves.size), move_rows)
        values = self._roll_out(move_rows, np.tile(moves, worlds), start, seat) - baseline
        return values.reshape(worlds, moves.size)

    def _log_prior(self, game: Any, seat: int, legal: np.ndarray) -> np.ndarray | None:
        """The network's ``log P`` over ``legal`` from the seat's View (``None`` unguided)."""
        if self.prior is None:
            return None
        return network_log_prior(self.prior, self.env, game, seat, legal)

    def _seeds(self, count: int) -> np.ndarray:
        return self.rng.integers(2**64, dtype=np.uint64, size=count)

    def _draw_worlds(self, game: Any, seat: int, rows: np.ndarray) -> None:
        """Rows ``rows``: the searched position (row 0) with everything ``seat`` cannot see redrawn."""
        venv = self.venv
        failed = np.ones(rows.size, dtype=bool)
        if self.redraws:
            venv.copy_rows(0, rows)
            try:
                failed = venv.redraw_hidden(rows, seat, self._seeds(rows.size))
            except NotImplementedError:
                self.redraws = False
        if failed.any():  # determinized in Python, then loaded
            worlds = [determinize(game, seat, self.rng) for _ in range(int(failed.sum()))]
            venv.load(rows[failed], worlds, seeds=self._seeds(len(worlds)))

    def _roll_out(self, rows: np.ndarray, first: np.ndarray, start: np.ndarray, seat: int) -> np.ndarray:
        """Play ``first`` in the rows, then the heuristic to the horizon; the seat's lead in each row."""
        n = self.venv.num_players
        self.policy.reset_games((rows[:, None] * n + np.arange(n)).ravel())
        scores = np.tile(start, (rows.size, 1))
        remaining = np.full(rows.size, math.inf if self.horizon is None else float(self.horizon))
        play_out(self.venv, self.policy, rows, scores, self.score_scale, remaining, first_actions=first)
        return _leads(scores, seat)


@dataclasses.dataclass(eq=False)
class _WorkArea:
    """The rows a search plays in and a raw env of its table: scratch, written before every read."""

    venv: Any
    table: Any


#: The work areas alive, by thread, game, rows and table options: every halving agent of one table in
#: a thread shares one (a benchmark batch holds one agent per game: 1,280 at 5 players).
_WORK_AREAS: weakref.WeakValueDictionary[tuple, _WorkArea] = weakref.WeakValueDictionary()


def _work_area(env_id: str, capacity: int, config: dict[str, Any]) -> _WorkArea:
    """The work area of this thread for ``env_id``'s table ``config`` with ``capacity`` rows (made on first use).

    Sharing is safe: a search loads the searched position into row 0 and copies or redraws every other
    row it reads before reading it, and the agents of a thread search one at a time."""
    import pirate_envs.vector

    key = (threading.get_ident(), env_id, capacity, repr(sorted(config.items())))
    work = _WORK_AREAS.get(key)
    if work is None:
        venv = pirate_envs.vector.make(env_id, capacity, seed=0, reward_mode="score", **config)
        venv.reset()
        work = _WORK_AREAS[key] = _WorkArea(venv, pirate_envs.make(env_id, raw=True, **config))
    return work


def _leads(scores: np.ndarray, seat: int) -> np.ndarray:
    """Per row of ``scores`` (games x seats), ``seat``'s lead over the best other seat."""
    others = np.delete(scores, seat, axis=1)
    return scores[:, seat] - others.max(axis=1)


def parse_halving_name(name: str, env_id: str | None = None) -> tuple[int, str | None]:
    """``(simulations, network source or None)`` of ``halving[:<simulations>][:ppo:<agent>]`` (parsed by
    `agents.spec.parse_agent_name`). A malformed name raises a one-line ``ValueError``."""
    spec = parse_agent_name(name)
    if spec.kind != HALVING:
        raise ValueError(f"bad halving search agent {shown(name)}: {HALVING_USAGE}")
    return search_budget(spec.simulations, env_id), spec.source


def halving_searches(env_id: str) -> bool:
    """Whether the halving search plays ``env_id`` (not a game whose search plays a turn for the win)."""
    options = dict(game_agents_of(env_id).search_keywords())
    return options.get("horizon") != TURN and not set(options) - set(TAKEN_OPTIONS)


def make_halving_agent(name: str, env_id: str, seed: int | None = None, env: Any = None) -> HalvingSearchAgent:
    """``halving[:<simulations>]`` for ``env_id``, searching the game of the raw env ``env``."""
    simulations, source = parse_halving_name(name, env_id)
    if env is None:
        raise ValueError(f"agent {name!r} searches the game it plays: pass the env it plays in (env=...)")
    options = dict(game_agents_of(env_id).search_keywords())
    if not halving_searches(env_id):
        raise ValueError(
            f"agent {name!r} does not search {env_id}: its search plays to the end of a turn, for the win "
            f"({', '.join(sorted(set(options) - set(TAKEN_OPTIONS)))}); use 'mcts'"
        )
    prior = None
    if source is not None:
        from agents.policy.agent import make_policy_agent

        prior = make_policy_agent(source, env_id, env=env).policy
    agent = HalvingSearchAgent(env, env_id, simulations=simulations, prior=prior, seed=seed, **options)
    agent.name = name
    return agent


__all__ = ["HALVING", "HalvingSearchAgent", "halving_searches", "make_halving_agent", "parse_halving_name"]
