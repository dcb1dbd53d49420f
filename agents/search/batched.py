"""The information-set search with its rollouts played many at once on the batched engine.

``make_agent("mcts:200:batched", env_id, env=env)``: the search of `agents.search.ismcts` whose
iterations run in waves of ``wave`` (default `DEFAULT_WAVE`): each iteration descends in its own
determinization under a virtual loss, the wave's leaf worlds are loaded into the rows of a
`pirate_envs.vector.VectorEnv` and played out together by the game's batched heuristic to their
horizon, and the rows' scores are backed up. Honest as ``mcts``; without numba it searches as
``mcts`` does (``fallback`` says so). The waves, where it runs and its cost:
``docs/guides/evaluating.md`` ("Search with batched rollouts").
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

import pirate_envs
from agents.games import game_agents_of
from agents.search.ismcts import (
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    TURN,
    Node,
    ScoreChanges,
    SearchAgent,
    TurnEnds,
    returns_of,
    search_budget,
)
from agents.spec import BATCHED, BATCHED_USAGE, parse_agent_name
from pirate_envs.core.errors import check_range, shown

#: Iterations per wave: descents made before their rollouts are played together.
DEFAULT_WAVE = 16
#: The most iterations per wave (rows of the batched engine).
MAX_WAVE = 4096
#: ``horizon=TURN``: the observation piece that changes whenever a turn starts (Kapern's deck counts).
TURN_MARKS = "deck_left"


@dataclasses.dataclass(slots=True)
class _Leaf:
    """One iteration of a wave: its path, its virtual loss and the world where its rollout starts."""

    path: list[Node]
    loss: float
    world: Any
    horizon: ScoreChanges | TurnEnds
    rollout: bool


class BatchedSearchAgent(SearchAgent):
    """`agents.search.ismcts.SearchAgent` whose rollouts run in waves on a ``VectorEnv`` (see the module docstring).

    ``wave``: iterations per wave (1..`MAX_WAVE`); the other keywords are `SearchAgent`'s (rollouts:
    the heuristic, in its batched form).
    """

    def __init__(self, env: Any, env_id: str, wave: int = DEFAULT_WAVE, seed: int | None = None, **options: Any):
        self.wave = check_range("wave", wave, 1, MAX_WAVE)
        raw = env.unwrapped
        self.score_scale = float(raw.SCORE_SCALE)
        self.venv, self.fallback = _vector_env(env_id, raw, self.wave)
        self.table = pirate_envs.make(env_id, raw=True, **dataclasses.asdict(raw.config))
        self.batched_rollout: Any = None
        self.batched_env_id = env_id
        super().__init__(env, env_id, rollout="heuristic", seed=seed, **options)
        #: ``horizon=TURN``: the observation columns that change when a new turn starts (every turn
        #: draws a card: the deck's counts), since a step may play through the next player's turn when
        #: it ends on its first roll, handing the dice straight back.
        self.turn_columns = slice(0, 0)
        if self.venv is not None and self.horizon == TURN:
            layout = self.venv.observation_layout
            if TURN_MARKS not in layout:
                reason = f"{env_id}: rollouts one at a time (no {TURN_MARKS!r} to see turns end)"
                self.venv, self.fallback = None, reason
            else:
                piece = layout.piece(TURN_MARKS)
                self.turn_columns = slice(piece.start, piece.start + int(np.prod(piece.shape)))
        self.name = f"mcts:{self.simulations}:{BATCHED}"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if getattr(self, "venv", None) is not None:
            from agents.batched import make_batched_agent

            slots = self.wave * self.venv.num_players
            self.batched_rollout = make_batched_agent("heuristic", self.batched_env_id, self.table, slots, seed=seed)

    def search(self) -> Node:
        """The tree of ``simulations`` iterations from the env's game, in waves (today's search where no loader)."""
        if self.venv is None:
            return super().search()
        game = self.env.game
        if game.config != self.venv.config:
            raise ValueError(f"the searched game's config {game.config} is not the table's {self.venv.config}")
        seat = game.current_player
        root = Node()
        bounds = [math.inf, -math.inf]
        start_scores = game.scores().tolist()
        baseline = returns_of(np.asarray(start_scores)) if self.relative_returns else 0.0
        done = 0
        while done < self.simulations:
            size = min(self.wave, self.simulations - done)
            self._wave(game, seat, root, start_scores, bounds, baseline, size)
            done += size
        return root

    def _wave(
        self,
        game: Any,
        seat: int,
        root: Node,
        start_scores: list[float],
        bounds: list[float],
        baseline: np.ndarray | float,
        size: int,
    ) -> None:
        """``size`` iterations: descents under virtual loss, their rollouts on rows, then the backups."""
        leaves: list[_Leaf] = []
        for _ in range(size):
            world, horizon = self.start_iteration(game, seat, start_scores)
            seen = math.isfinite(bounds[0])  # before any backup: virtual losses of 0 on the range [0, 1]
            path, expanded = self.descend(world, seat, root, horizon, bounds if seen else [0.0, 1.0])
            loss = bounds[0] if seen else 0.0
            for node in path:  # virtual loss until the wave is backed up
                node.visits += 1
                if node.mover >= 0:
                    node.total += loss
            leaves.append(_Leaf(path, loss, world, horizon, expanded and not horizon.over(world)))
        rolled = [leaf for leaf in leaves if leaf.rollout]
        outcomes = self.roll_out([leaf.world for leaf in rolled], [leaf.horizon for leaf in rolled]) if rolled else []
        results = iter(outcomes)
        for leaf in leaves:
            for node in leaf.path:  # the virtual loss out, the real return in
                node.visits -= 1
                if node.mover >= 0:
                    node.total -= leaf.loss
            world = leaf.world
            if leaf.rollout:
                scores, terminated, winners = next(results)
            else:
                scores, terminated, winners = world.scores(), world.terminated, world.winners
            self.back_up(leaf.path, self.leaf_values(scores, terminated, winners, baseline), bounds)

    def roll_out(
        self, worlds: list[Any], horizons: list[ScoreChanges | TurnEnds]
    ) -> list[tuple[np.ndarray, bool, Any]]:
        """Play ``worlds`` (at most ``wave``, none over) to their horizons together on the batched engine.

        Returns per world its final scores, whether its game ended by the rules, and a callable
        giving its winners (the row's reference engine; asked only for the win bonus).
        """
        venv = self.venv
        count, n = len(worlds), venv.num_players
        rows = np.arange(count)
        venv.load(rows, worlds, seeds=self.rng.integers(2**64, dtype=np.uint64, size=count))
        self.batched_rollout.reset_games((rows[:, None] * n + np.arange(n)).ravel())
        scores = np.array([world.scores() for world in worlds], dtype=np.float64)
        remaining = np.array([_changes_left(h) for h in horizons], dtype=np.float64)
        turn_columns = self.turn_columns if self.horizon == TURN else None
        terminated = play_out(venv, self.batched_rollout, rows, scores, self.score_scale, remaining, turn_columns)
        return [
            (scores[row], bool(terminated[row]), lambda row=row: venv.engine(row).winners()) for row in range(count)
        ]


def _changes_left(horizon: ScoreChanges | TurnEnds) -> float:
    """The score changes a rollout may still see before ``horizon`` (unbounded for a turn's end)."""
    if isinstance(horizon, TurnEnds) or horizon.limit is None:
        return math.inf
    return float(horizon.limit - horizon.changes)


def play_out(
    venv: Any,
    policy: Any,
    rows: np.ndarray,
    scores: np.ndarray,
    score_scale: float,
    remaining: np.ndarray,
    turn_columns: slice | None = None,
    first_actions: np.ndarray | None = None,
) -> np.ndarray:
    """Play the games ``rows`` of ``venv`` (score rewards) by the batched ``policy`` until each reaches its horizon.

    ``scores[k]`` (row ``rows[k]``'s scores when the play starts) gains every score change;
    ``remaining[k]``: the score changes row ``rows[k]`` plays to (the end of the game at the
    latest), or with ``turn_columns`` (the observation's columns that change when a turn starts)
    the end of the turn in progress instead. ``first_actions``: the rows' first moves, played
    instead of the policy's. The policy's game slot of a row is ``row * num_players + seat``; a
    row that stopped waits while the others play on. Returns whether each row's game ended by the rules.

    Where the policy offers fused rollouts for ``venv`` (``policy.fused_rollouts(venv)``, a
    `agents.search.play_out_kernel.FusedRollouts`), the whole loop runs in one compiled call of its
    kernel: the same games, without a Python step per move.
    """
    from agents.search.play_out_kernel import account_step

    n = venv.num_players
    position = np.full(venv.num_envs, -1, dtype=np.int64)
    position[rows] = np.arange(len(rows))
    turn_stop = turn_columns is not None
    if turn_stop:  # the turn ends when the player on turn changes or a new turn's card is drawn
        turn_player = venv.current_player[rows].copy()
        turn_marks = venv.observation[rows, turn_columns].copy()
        turn_start = turn_columns.start
    else:
        turn_player, turn_marks, turn_start = position[:0], venv.observation[:0], 0
    active = np.zeros(venv.num_envs, dtype=bool)
    active[rows] = True
    terminated = np.zeros(len(rows), dtype=bool)
    actions = np.zeros(venv.num_envs, dtype=np.int64)
    if first_actions is not None:
        actions[rows] = first_actions
    first = first_actions is not None
    scale = np.float32(score_scale)
    live = np.flatnonzero(active)
    offer = getattr(policy, "fused_rollouts", None)
    fused = offer(venv) if offer is not None else None
    if fused is not None and not (venv.terminated[live] | venv.truncated[live]).any():
        bookkeeping = (position, scores, terminated, remaining, scale, turn_stop, turn_player, turn_start, turn_marks,
                       active, actions)  # fmt: skip
        _play_fused(venv, policy, fused, live, bookkeeping, first)
        return terminated
    while live.size:
        if not first:
            games = live * n + venv.current_player[live]
            actions[live] = policy.act_batch(games, venv.observation[live], venv.action_mask[live])
        first = False
        venv.step(actions, active=active)
        going = account_step(
            live, position, venv.rewards, venv.terminated, venv.truncated, scale, scores, terminated, remaining,
            turn_stop, venv.current_player, turn_player, venv.observation, turn_start, turn_marks, active,
        )  # fmt: skip
        live = live[:going]
    return terminated


def _play_fused(
    venv: Any, policy: Any, fused: Any, live: np.ndarray, bookkeeping: tuple[Any, ...], first: bool
) -> None:
    """`play_out`'s loop in one compiled call of the policy's game kernel (`FusedRollouts`); the same games.

    ``bookkeeping``: `fused_play_out`'s arguments from ``position`` to ``actions``.
    """
    from agents.search.play_out_kernel import NEEDS_POLICY
    from pirate_envs.core.batched import compile_notice
    from pirate_envs.vector import BatchIllegalActionError

    num, size = venv.observation.shape
    scratch = (
        np.empty(num, dtype=np.int64), np.empty(num, dtype=np.int64), np.empty((num, size), dtype=np.float32),
        np.empty((num, venv.action_mask.shape[1]), dtype=np.int8), np.empty(num, dtype=np.int64),
    )  # fmt: skip
    while True:
        with compile_notice("the fused rollout kernel", fused.kernel):
            loop = (venv.num_players, live, *bookkeeping, *scratch, first)
            bad, counted, going = fused.kernel(venv.kernel_state, fused.act_args, loop)
        fused.counted(counted)
        if bad != NEEDS_POLICY:
            break
        if fused.refill is None:
            raise RuntimeError(f"{type(policy).__name__}'s rollout kernel asked for Python but offers no refill")
        fused.refill(going)
        fused, live, first = policy.fused_rollouts(venv), live[:going], False
    if bad >= 0:
        legal = np.flatnonzero(venv.action_mask[bad]).tolist()
        action = int(bookkeeping[-1][bad])
        raise BatchIllegalActionError(bad, action, legal, venv.action_to_string, venv.num_actions)


def _vector_env(env_id: str, raw: Any, wave: int) -> tuple[Any, str | None]:
    """A ``VectorEnv`` of ``wave`` rows for the table of ``raw`` (score rewards), or ``None`` and why not."""
    try:
        import pirate_envs.vector

        venv = pirate_envs.vector.make(env_id, wave, seed=0, reward_mode="score", **dataclasses.asdict(raw.config))
        venv.reset()
        venv.copy_rows(0, [0])  # refused where the backend has no loader
    except (ImportError, NotImplementedError) as error:
        return None, f"{env_id}: rollouts one at a time ({str(error).splitlines()[0]})"
    return venv, None


def parse_batched_name(name: str, env_id: str | None = None) -> int:
    """The simulations of ``mcts:batched`` or ``mcts:<simulations>:batched`` (parsed by
    `agents.spec.parse_agent_name`; one-line ``ValueError`` otherwise)."""
    spec = parse_agent_name(name)
    if spec.kind != "batched":
        raise ValueError(f"bad batched search agent {shown(name)}: {BATCHED_USAGE}")
    return search_budget(spec.simulations, env_id)


def make_batched_search_agent(name: str, env_id: str, seed: int | None = None, env: Any = None) -> BatchedSearchAgent:
    """``mcts[:<simulations>]:batched`` for ``env_id``, searching the game of the raw env ``env``."""
    simulations = parse_batched_name(name, env_id)
    if env is None:
        raise ValueError(f"agent {name!r} searches the game it plays: pass the env it plays in (env=...)")
    return BatchedSearchAgent(
        env, env_id, simulations=simulations, seed=seed, **game_agents_of(env_id).search_keywords()
    )


__all__ = [
    "BATCHED",
    "DEFAULT_SIMULATIONS",
    "DEFAULT_WAVE",
    "MAX_SIMULATIONS",
    "MAX_WAVE",
    "BatchedSearchAgent",
    "make_batched_search_agent",
    "parse_batched_name",
    "play_out",
]
